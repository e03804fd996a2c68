"""The steady-state measurement window: amortized costs in a tree that already holds N entries.

Eq 14-16 are amortized costs per operation in a tree of N entries, and the paper measured them
that way (a preloaded data set, long windows, at least one major compaction). After the preload,
which is not counted, :func:`measure_window` keeps inserting fresh keys one buffer at a time:

1. warm-up (not counted) until a merge into the largest level (a *major compaction*) leaves
   Level L's newest run full: a *run boundary*, after which the next major compaction starts a
   new run at Level L (or, when Level L already holds a_L runs, merges all of it);
2. the window, until the next run boundary: every buffer's first put triggers the flush and the
   merges of the previous buffer, so the window's I/O is exactly whole flush cycles. With
   a_L = 1 that is one major compaction, as in the paper; with a_L > 1 it is the q_L major
   compactions that fill one run of Level L, the period of the policy's cost. A window that
   holds a *full merge* of Level L (every a_L run fills) is not a typical one: it is counted in
   ``full_merges_skipped`` and the window starts again after it;
3. reads of each kind at a fixed rate per insert, run in small batches between buffers, so
   reads are averaged over the window too.

It reports write amplification per insert and I/O per read of each kind over the window only,
with the number of writes and of major compactions it spanned. A window that reaches the cap
without a run boundary says so (``major_compactions == 0`` or ``complete`` False).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import wacky_traces as tr
from validation import generators
from validation.replay import OpTotals, replay

READ_KINDS = ("zero", "level_L_reads", "uniform_reads", "range")
WINDOW_CAP_LOADS = 2.0  # the warm-up and the window each stop after this many times N writes
ACTIVE_FULL_TOLERANCE = 1e-9  # kRelTol in native_engine/src/level.cc
READ_BATCH = 16  # reads of each kind run together once this many are due


@dataclass
class WindowResult:
    """What the window measured; ``reads`` maps each read kind to its totals."""

    writes: int = 0
    blocks_written: int = 0
    major_compactions: int = 0
    warmup_writes: int = 0
    full_merges_skipped: int = 0
    complete: bool = False  # the window ended at a run boundary, not at the cap
    level_L_runs_at_start: int = 0  # Level L's runs when the window began
    window_start: int = 0  # fresh keys inserted before the window began
    reads: dict[str, list[int]] = field(default_factory=dict)  # kind -> [count, read, probed]
    checks: list[int] = field(default_factory=lambda: [0, 0, 0])  # misses, zero hits, wrong
    parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    inserted: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))

    def per_read(self, kind: str, what: int) -> float:
        count, *totals = self.reads[kind]
        if count == 0:
            raise RuntimeError(f"the window ran no {kind} operations")
        return totals[what] / count


def _puts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.full(keys.size, int(tr.OpKind.PUT), np.uint8), keys,
            np.zeros(keys.size, np.uint64))


def _gets(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.full(keys.size, int(tr.OpKind.GET), np.uint8), keys,
            np.zeros(keys.size, np.uint64))


def measure_window(
    engine: Any,
    loaded: np.ndarray,
    level_L_keys: np.ndarray,
    *,
    entry_bytes: int,
    reads: int,
    range_entries: int,
    seed: int,
    fixed_writes: int | None = None,
) -> WindowResult:
    """Run the warm-up and the window on ``engine``, which holds the keys ``loaded``.

    With ``fixed_writes`` there is no warm-up and no run boundary to wait for: the window is
    that many inserts (rounded up to whole buffers), as for file-granular merges, which keep
    every level near its target and have no merge cycle of Level L to align with."""
    F = int(engine.buffer_entries)
    n = int(loaded.size)
    cap = max(int(WINDOW_CAP_LOADS * n), 4 * F)
    if fixed_writes is not None:
        cap = max(F, -(-int(fixed_writes) // F) * F)
    rng = np.random.default_rng([seed, 0x5354454144])  # stream tag: "STEAD"
    fresh = generators.fresh_keys(rng, 2 * cap + F, np.sort(loaded))
    taken = np.concatenate([loaded, fresh])
    pool = max(reads, 1)  # read operations drawn once and cycled through
    zero_kinds, zero_keys, _ = generators.read_ops(
        taken, n=pool, get_pool=loaded, fractions={"zero": 1.0}, range_entries=range_entries,
        seed=seed + 1)
    range_kinds, range_keys, range_args = generators.read_ops(
        loaded, n=pool, get_pool=loaded, fractions={"range": 1.0},
        range_entries=range_entries, seed=seed + 2)
    result = WindowResult(reads={k: [0, 0, 0] for k in READ_KINDS})
    used = 0  # fresh keys inserted so far
    read_at = 0  # reads of each kind done so far

    def run(parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]) -> dict:
        trace = tr.build_trace(parts, entry_bytes=entry_bytes, meta={})
        out = replay(engine, trace)
        result.checks[0] += out.get_misses
        result.checks[1] += out.zero_hits
        result.checks[2] += out.wrong_values
        result.parts.extend(parts)
        return out.phases

    def one_buffer(tag: str) -> tuple[int, int]:
        """Insert one buffer's worth of fresh keys; returns the first put's blocks written and
        the major compactions it caused (the flush and merges of the previous buffer)."""
        nonlocal used
        before = engine.stats()["major_compactions"]
        phases = run([(f"{tag}-first", *_puts(fresh[used : used + 1])),
                      (f"{tag}-rest", *_puts(fresh[used + 1 : used + F]))])
        used += F
        first: OpTotals = phases[f"{tag}-first"]["put"]
        rest: OpTotals = phases[f"{tag}-rest"]["put"]
        if rest.blocks_written:
            raise RuntimeError("a flush happened inside a buffer; the window would be misaligned")
        return first.blocks_written, engine.stats()["major_compactions"] - before

    # Fill the buffer exactly, so every later buffer's first put triggers a flush.
    partial = int(engine.stats()["buffer_size"])
    if partial:
        run([("fill", *_puts(fresh[: F - partial]))])
        used = F - partial
    # 1. Warm-up: until a major compaction leaves Level L's active run full (a run boundary).
    last_major, cycle = None, 0  # entries between the warm-up's last two major compactions
    if fixed_writes is not None:
        cycle = cap  # no warm-up: the reads spread over the whole fixed window
    while fixed_writes is None and result.warmup_writes < cap and used + F <= fresh.size:
        _, majors = one_buffer(f"warm{used}")
        result.warmup_writes += F
        if majors:
            cycle = 0 if last_major is None else used - last_major
            last_major = used
            runs_L, boundary, _ = level_L_state(engine)
            if boundary:
                result.level_L_runs_at_start = runs_L
                break
    # Reads: spread ``reads`` of each kind over about one major cycle (the last one the warm-up
    # saw, else Level L-1's capacity), and keep that rate to the end of the window. They run in
    # batches of at least READ_BATCH, so a small buffer does not pay a replay per buffer.
    if cycle == 0:
        levels = engine.levels()
        cycle = levels[-2]["capacity"] if len(levels) > 1 else F
    per_buffer = reads * F / max(cycle, F)
    owed = 0.0  # reads of each kind due but not yet run
    window_start = used

    def restart() -> None:
        nonlocal window_start, owed
        result.blocks_written = result.writes = result.major_compactions = 0
        result.reads = {k: [0, 0, 0] for k in READ_KINDS}
        window_start = used
        owed = 0.0

    def read_batch(k: int) -> None:
        nonlocal read_at
        take = (read_at + np.arange(k)) % pool
        read_at += k
        # Existing keys, uniform over every entry present: the preload, then the fresh inserts.
        pick = rng.integers(0, n + used, k)
        present = np.where(pick < n, loaded[np.minimum(pick, n - 1)],
                           fresh[np.maximum(pick - n, 0)])
        parts = [
            (f"zero{used}", zero_kinds[take], zero_keys[take], np.zeros(k, np.uint64)),
            (f"levelL{used}", *_gets(rng.choice(level_L_keys, k))),
            (f"uniform{used}", *_gets(present)),
            (f"range{used}", range_kinds[take], range_keys[take], range_args[take]),
        ]
        phases = run(parts)
        for kind, (name, *_rest) in zip(READ_KINDS, parts, strict=True):
            for t in phases[name].values():
                acc = result.reads[kind]
                acc[0] += t.count
                acc[1] += t.blocks_read
                acc[2] += t.runs_probed

    # 2-3. The window: buffers until the next run boundary, reads between them.
    # Each restart after a full merge starts a new window of up to ``cap`` writes, but all of
    # them share the pool of fresh keys: the window stops (incomplete) when it runs dry.
    while result.writes < cap and used + F <= fresh.size:
        written, majors = one_buffer(f"win{used}")
        # The first put flushed the previous buffer: the window owns that buffer's cost.
        result.blocks_written += written
        result.writes += F
        result.major_compactions += majors
        owed += per_buffer
        ending = False
        if majors and fixed_writes is None:
            runs, boundary, max_runs = level_L_state(engine)
            if runs == 1 and max_runs > 1:
                # A full merge of Level L: it recurs only every a_L run fills, so a window that
                # holds one is not a typical one. Count it and start again after it.
                result.full_merges_skipped += 1
                restart()
                result.level_L_runs_at_start = runs
                continue
            ending = boundary
        if owed >= READ_BATCH or (ending and owed > 0) or result.reads["zero"][0] == 0:
            due = max(1, round(owed))
            read_batch(due)
            owed -= due
        if ending:
            result.complete = True
            break
        if fixed_writes is not None and result.writes >= cap:
            if owed > 0:
                read_batch(max(1, round(owed)))
            result.complete = True
            break
    result.window_start = window_start
    result.inserted = fresh[:used]
    return result


def level_L_state(engine: Any) -> tuple[int, bool, float]:
    """Level L's non-empty runs, whether its active run is full (the engine's rule,
    ``Level::ActiveFull``), and a_L."""
    level = engine.levels()[-1]
    runs = [r["entries"] for r in level["runs"] if r["entries"] > 0]
    threshold = level["capacity"] / level["max_runs"] * (1.0 - ACTIVE_FULL_TOLERANCE)
    return len(runs), not runs or runs[-1] >= threshold, float(level["max_runs"])
