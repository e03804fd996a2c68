"""The Wacky compaction driver: any design of the continuum on RocksDB, its compaction off.

After each buffer the merge policy's specification (``PolicyReplay``) plans the flush; the driver
sets the run's bits per key (Eq 12), flushes one level-0 file and merges it with the runs the
policy names (``CompactFiles``). Every run is a level-0 file: RocksDB probes those newest first, as
the design probes runs, and a merge takes the newest runs, contiguous in age as level 0 requires.
``tree_write_amp`` leaves out the flush a merge rewrites: it counts what the design writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from native_engine.simulator import MergeStep, PolicyReplay
from wacky_model.types import Design, System


@dataclass
class DriverCounts:
    """What the driver wrote since it started."""

    inserted: int = 0
    merged: int = 0  # entries written by CompactFiles
    kept_flushes: int = 0  # entries of flushes that became runs without a merge

    @property
    def tree_write_amp(self) -> float:
        """Entries the policy writes per insert: merges, and flushes kept as runs."""
        return (self.merged + self.kept_flushes) / self.inserted if self.inserted else 0.0


@dataclass
class WackyDriver:
    """Runs ``design``'s merge policy on ``db`` (a bridge Database opened ``driven=True``)."""

    db: object
    design: Design
    system: System
    replay: PolicyReplay = field(init=False)
    files: dict[int, list[str]] = field(default_factory=dict)  # run id -> its files
    counts: DriverCounts = field(default_factory=DriverCounts)
    _next_id: int = 0

    def __post_init__(self) -> None:
        budget = self.system.budget
        self.replay = PolicyReplay.start(
            tuple(self.design.knobs.values()), self.system.buffer_entries,
            self.system.entries_per_block, budget.get("bits_per_entry"), budget.get("sum_fpr"),
            self.design.filters == "uniform")

    @property
    def buffer_entries(self) -> int:
        return self.system.buffer_entries

    def insert_buffer(self, keys: np.ndarray, values: np.ndarray) -> MergeStep:
        """Write one full buffer (F keys) and carry out the flush and merges it causes."""
        if keys.size != self.buffer_entries:
            raise ValueError(f"a buffer holds {self.buffer_entries} entries; got {keys.size}")
        db = self.db
        db.put_many(keys, values)
        run_id = self._next_id
        self._next_id += 1
        step = self.replay.plan_flush(run_id)
        db.set_next_file_bits(step.bits_per_key)
        before = {f["name"] for f in db.live_files()}
        db.flush()
        flushed = [f for f in db.live_files() if f["name"] not in before]
        self.counts.inserted += int(keys.size)
        names = [f["name"] for f in flushed]
        if step.consumed:
            inputs = names + [n for tag in step.consumed for n in self.files.pop(tag)]
            out = db.compact_files(inputs, 0)
            self.counts.merged += int(out["records"])
            names = list(out["outputs"])
        else:
            self.counts.kept_flushes += sum(int(f["entries"]) for f in flushed)
        self.files[run_id] = names
        return step

    def runs_per_level(self) -> list[list[int]]:
        """The design's tree as the policy holds it: entries of each run, Level 1 first."""
        return [list(level.runs) for level in self.replay.levels]

    def check(self) -> None:
        """RocksDB holds exactly the runs the policy says, with their entries; raises if not."""
        live = {f["name"]: f for f in self.db.live_files()}
        expected = set()
        for level in self.replay.levels:
            for tag, entries in zip(level.tags, level.runs, strict=True):
                names = self.files[tag]
                expected.update(names)
                got = sum(int(live[n]["entries"]) for n in names if n in live)
                if any(n not in live for n in names) or got != entries:
                    raise RuntimeError(f"run {tag} should hold {entries} entries in {names}; "
                                       f"RocksDB has {got}")
        if set(live) != expected:
            raise RuntimeError(
                f"RocksDB holds files the policy does not: {sorted(set(live) - expected)}")
        if any(f["level"] != 0 for f in live.values()):
            raise RuntimeError("the driver keeps every run in level 0")
