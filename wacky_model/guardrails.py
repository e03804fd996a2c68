"""Practical limits on a design's shape: constraints the search honours, and warnings.

The continuum's optimum can ask for thousands of runs in one level (a tiered Level 1 with a huge
T). Real engines stall long before that: RocksDB stops writes when level 0 reaches
``level0_stop_writes_trigger`` files, 36 by default. So the recommendation is practical by
default: :data:`DEFAULT_CONSTRAINTS` caps the runs of every level at that number, and
:func:`wacky_model.search.recommend` reports what the cap costs (``Recommendation.without_cap``).
``constraints=None`` or ``Constraints()`` lifts it (``--max-runs-per-level none``). Every output
flags a design above the limit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cost_models.costs import space_amplification
from cost_models.finite import peak_space
from cost_models.structure import Structure
from wacky_model.devices import DeviceProfile

# RocksDB's default level0_stop_writes_trigger: writes stop at this many level-0 files.
PRACTICAL_RUNS_PER_LEVEL = 36
# The flag that lifts the default cap, named by every message about it.
LIFT_FLAG = "--max-runs-per-level none"


@dataclass(frozen=True)
class WriteRate:
    """A constraint (T2, docs/MODEL.md; stock RocksDB): no stall at ``rate`` inserts per second
    on ``machine`` (a profile with RocksDB's figures, from ``wacky calibrate``)."""

    rate: float
    machine: DeviceProfile

    def __post_init__(self) -> None:
        r = self.rate
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not (
                math.isfinite(r) and r > 0):
            raise ValueError(f"write_rate must be a number of inserts per second above 0; "
                             f"got {r!r}")
        if not isinstance(self.machine, DeviceProfile) or not self.machine.has_rocksdb:
            raise ValueError("a write rate needs a machine profile with RocksDB's figures "
                             "(rocksdb_ns_per_put, rocksdb_ns_per_compaction_byte, "
                             "rocksdb_ns_per_flush_byte): wacky calibrate measures them when "
                             "the RocksDB bridge is built")


@dataclass(frozen=True)
class Constraints:
    """Limits a recommended design must respect; None means no limit. ``Constraints()`` has
    none; :data:`DEFAULT_CONSTRAINTS` is what ``recommend`` applies when not told otherwise."""

    max_runs_per_level: int | None = None
    max_total_runs: int | None = None
    max_space_amp: float | None = None
    # T5: the most disk the run files need during merges over the data they hold (a merge
    # keeps its inputs until its output is whole): 2 for a merge that rewrites everything.
    max_transient_space: float | None = None
    # T2: stock RocksDB only; the configuration's sustainable write rate must reach this rate
    # on the profile's machine (a wacky_model.stalls.WriteRate), so writes at it do not stall.
    write_rate: WriteRate | None = None

    def __post_init__(self) -> None:
        for name in ("max_runs_per_level", "max_total_runs"):
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a whole number >= 1; got {v!r}")
        v = self.max_space_amp
        if v is not None and (not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0):
            raise ValueError(f"max_space_amp must be a number > 0; got {v!r}")
        if self.write_rate is not None:
            if not isinstance(self.write_rate, WriteRate):
                raise ValueError(f"write_rate must be a WriteRate (a rate and a machine "
                                 f"profile) or None; got {self.write_rate!r}")
        v = self.max_transient_space
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                              or not math.isfinite(v) or v <= 1):
            raise ValueError(f"max_transient_space must be a number > 1 (the peak disk use "
                             f"during merges over the data: a merge needs room for its "
                             f"output); got {v!r}")

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.max_runs_per_level, self.max_total_runs,
                                           self.max_space_amp, self.max_transient_space,
                                           self.write_rate))

    def allows(self, s: Structure, entries: float | None = None,
               buffer_entries: float | None = None) -> np.ndarray:
        """Boolean mask over the designs of ``s`` (whole run counts): True where every limit
        holds. The transient space (M8) needs the tree's ``entries`` and ``buffer_entries``."""
        ok = np.ones(np.shape(s.L), dtype=bool)
        runs = np.where(s.valid, s.runs, 0.0)
        if self.max_runs_per_level is not None:
            ok &= np.max(runs, axis=-1) <= self.max_runs_per_level + 1e-9
        if self.max_total_runs is not None:
            ok &= np.sum(runs, axis=-1) <= self.max_total_runs + 1e-9
        if self.max_space_amp is not None:
            ok &= space_amplification(s) <= self.max_space_amp * (1 + 1e-12)
        if self.max_transient_space is not None:
            if entries is None or buffer_entries is None:
                raise ValueError("the transient space limit needs the tree's entries and "
                                 "buffer entries")
            peak = peak_space(s.T, s.C, s.X, s.K, s.Z, entries=entries,
                              buffer_entries=buffer_entries)
            ok &= peak <= self.max_transient_space * (1 + 1e-12)
        return ok

    def allows_leveled(self, level0_runs: int, level_entries: Sequence[float],
                       level0_entries: float, transient_space: float | None = None) -> bool:
        """For a leveled tree of files (stock RocksDB, or ``granularity='file'``): level 0 at
        its trigger of ``level0_runs`` runs, one sorted run per non-empty level below, and
        space amplification as :meth:`allows` defines it, Level L being one run, from the
        sizes given (a window's means, ``level0_entries`` the level-0 share); the transient
        space is the caller's (T5 of its walk)."""
        if self.max_transient_space is not None:
            if transient_space is None:
                raise ValueError("the transient space limit needs the design's peak space")
            if transient_space > self.max_transient_space * (1 + 1e-12):
                return False
        sizes = [float(e) for e in level_entries if e > 0]
        runs = [int(level0_runs)] + [1] * len(sizes)
        if self.max_runs_per_level is not None and max(runs) > self.max_runs_per_level:
            return False
        if self.max_total_runs is not None and sum(runs) > self.max_total_runs:
            return False
        if self.max_space_amp is not None and sizes:
            amp = (sum(sizes[:-1]) + level0_entries) / sizes[-1]
            if amp > self.max_space_amp * (1 + 1e-12):
                return False
        return True

    def describe(self) -> str:
        parts = [f"{name} {getattr(self, name):g}" for name in
                 ("max_runs_per_level", "max_total_runs", "max_space_amp", "max_transient_space")
                 if getattr(self, name) is not None]
        if self.write_rate is not None:
            parts.append(f"write_rate {self.write_rate.rate:,.0f}/s on "
                         f"{self.write_rate.machine.name}")
        return ", ".join(parts)


# The default of recommend, the CLI and the dashboard: no level above RocksDB's write stop.
DEFAULT_CONSTRAINTS = Constraints(max_runs_per_level=PRACTICAL_RUNS_PER_LEVEL)


def lifted_cap(constraints: Constraints) -> Constraints:
    """``constraints`` without its runs-per-level cap (the other limits kept)."""
    return Constraints(max_total_runs=constraints.max_total_runs,
                       max_space_amp=constraints.max_space_amp,
                       max_transient_space=constraints.max_transient_space,
                       write_rate=constraints.write_rate)


def run_warnings(runs_per_level: list[float]) -> tuple[str, ...]:
    """A warning for each level whose runs exceed :data:`PRACTICAL_RUNS_PER_LEVEL`."""
    return tuple(
        f"Level {i} holds {runs:,.0f} runs, more than {PRACTICAL_RUNS_PER_LEVEL} (RocksDB stops "
        f"writes at {PRACTICAL_RUNS_PER_LEVEL} level-0 files); --max-runs-per-level limits it"
        for i, runs in enumerate(runs_per_level, start=1)
        if runs > PRACTICAL_RUNS_PER_LEVEL
    )
