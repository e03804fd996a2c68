"""Granularity and the level-1 trigger as search knobs: whole-level merges (the continuum, priced
by the search's model) against leveled designs with file-granular merges and a level-1 trigger
(priced by :mod:`wacky_model.files`), for one workload on one system.

The whole-level side is :func:`wacky_model.search.recommend`'s answer. The file side is a grid:
the size ratio T (C = T - 1), the level-1 trigger, and the file size. Both sides are the costs of
a store of N entries taking inserts: the finite model's steady window, and the partial model's
window of ``WINDOW_FLUSHES`` flushes from the settled tree. The answer says which side won and by
how much, with the costs that made the difference.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cost_models.objective import theta_of_row
from wacky_model.files import LeveledCosts, native_file_costs
from wacky_model.search import Recommendation
from wacky_model.types import Compaction, Design, System, Workload, workload_vector

FILE_RATIOS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 24.0, 32.0)
LEVEL1_RUNS = (1, 2, 4, 8)
FILE_SHARES = (0.25, 1.0)  # of the buffer
WINDOW_FLUSHES = 256
GRANULARITY_CHOICES = ("level", "file", "any")


@dataclass(frozen=True)
class FileDesign:
    design: Design
    compaction: Compaction
    costs: LeveledCosts
    cost: float  # Θ


@dataclass(frozen=True)
class GranularityChoice:
    picked: str  # "level" or "file"
    level_cost: float | None  # Θ of the whole-level recommendation (None if not searched)
    best_file: FileDesign | None  # the best file-granular design (None if not searched)
    reason: str

    def to_dict(self) -> dict:
        out: dict = {"picked": self.picked, "level_cost": self.level_cost, "reason": self.reason}
        if self.best_file is not None:
            f, c = self.best_file, self.best_file.costs
            out["file"] = {"design": f.design.knobs, "granularity": "file",
                           "level1_runs": f.compaction.level1_runs,
                           "file_bytes": f.compaction.file_bytes, "cost": f.cost,
                           "write_amp": c.write_amp, "zero_result_read": c.zero_result_read,
                           "point_read": c.point_read, "range_runs": c.range_runs}
        return out


def file_cost(costs: LeveledCosts, workload: Workload, system: System) -> float:
    """Θ (Eq 16) of a file-granular design's costs; each run's filter is one probe."""
    return theta_of_row(costs.row(system.entries_per_block),
                        workload_vector(workload, system.write_cost_ratio, system.probe_cost))


def best_file_design(workload: Workload, system: System) -> FileDesign:
    """The file-granular leveled design with the lowest Θ on the grid."""
    best: FileDesign | None = None
    for T, k, share in itertools.product(FILE_RATIOS, LEVEL1_RUNS, FILE_SHARES):
        if T > system.buffers:
            continue
        design = Design(T, T - 1.0, 1.0, 0.0, 0.0)
        compaction = Compaction("file", max(system.block_bytes,
                                            int(share * system.buffer_bytes)), k)
        costs = native_file_costs(design, system, compaction, system.entries,
                                  WINDOW_FLUSHES * system.buffer_entries, settled=True)
        cost = file_cost(costs, workload, system)
        if best is None or cost < best.cost:
            best = FileDesign(design, compaction, costs, cost)
    if best is None:
        raise ValueError("no file-granular design fits this system (T must be below N/F)")
    return best


def choose_granularity(rec: Recommendation | None, workload: Workload, system: System,
                       granularity: str = "any") -> GranularityChoice:
    """Whole levels (``rec``, the search's answer) or files: whichever has the lower Θ."""
    if granularity not in GRANULARITY_CHOICES:
        raise ValueError(f"granularity must be one of {', '.join(GRANULARITY_CHOICES)}; got "
                         f"{granularity!r}")
    if granularity == "level":
        assert rec is not None
        return GranularityChoice("level", rec.cost, None, "whole-level merges only (asked)")
    split = rec.system if rec is not None else system
    if split.memory_split:
        split = split.with_buffer(split.buffer_bytes)
    best = best_file_design(workload, split)
    f = best.compaction
    file_text = (f"file-granular Leveling T={best.design.T:g} with level-1 trigger "
                 f"{f.level1_runs} and files of {f.file_bytes:,} B: Θ {best.cost:.4g} (write "
                 f"amplification {best.costs.write_amp:.3g}, zero-result read "
                 f"{best.costs.zero_result_read:.3g} I/O)")
    if granularity == "file" or rec is None:
        return GranularityChoice("file", None, best, file_text + " (file granularity asked)")
    level = rec.costs
    level_text = (f"whole-level {rec.family} ({_knobs(rec.design)}): Θ {rec.cost:.4g} (write "
                  f"amplification {level['write_amp']:.3g}, zero-result read "
                  f"{level['zero_result_read']:.3g} I/O)")
    if best.cost < rec.cost:
        return GranularityChoice("file", rec.cost, best,
                                 f"files: {file_text} beats {level_text} by "
                                 f"{1 - best.cost / rec.cost:.1%}")
    return GranularityChoice("level", rec.cost, best,
                             f"whole levels: {level_text} beats {file_text} by "
                             f"{1 - rec.cost / best.cost:.1%}")


def _knobs(d: Design) -> str:
    return f"T={d.T:.4g}, C={d.C:.4g}, X={d.X:.4g}, K={d.K:.4g}, Z={d.Z:.4g}"
