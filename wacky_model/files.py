"""Costs of a leveled design whose levels are made of files (``Compaction(granularity="file")``):
the native engine's rules read into :mod:`cost_models.partial`, and the reads of any such tree
(P6 in ``docs/MODEL.md``). ``wacky_model.rocksdb_model`` prices RocksDB's options the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cost_models.filters import (
    bloom_bits_per_key,
    lagrangian_fprs_for_memory,
    lagrangian_fprs_for_sum,
    uniform_fprs_for_memory,
    uniform_fprs_for_sum,
)
from cost_models.finite import realized_fpr
from cost_models.objective import cost_row
from cost_models.partial import LeveledFiles, WindowCosts, capacities, window_costs
from wacky_model.types import Compaction, Design, System


@dataclass(frozen=True)
class LeveledCosts:
    """Costs per operation over a window of inserts, in entries and block reads."""

    write_amp: float  # entries written per entry inserted
    zero_result_read: float
    point_read: float  # an entry of the preload (the deepest level)
    point_read_uniform: float
    range_runs: float
    memory_bits_per_entry: float
    window: WindowCosts | None  # the sizes behind them (leveled trees)

    def row(self, entries_per_block: float) -> np.ndarray:
        """The cost row (:data:`cost_models.objective.COST_ROW`): every entry is in a run (a
        long range spreads over all of the data) and each run's filter is one probe."""
        return cost_row(point_read=self.point_read, zero_result_read=self.zero_result_read,
                        write_cost=self.write_amp / entries_per_block,
                        range_runs=self.range_runs, point_read_uniform=self.point_read_uniform,
                        filter_probes=self.range_runs)


def window_reads(w: WindowCosts, fprs: np.ndarray, level0_fpr: float,
                 memory_bits_per_entry: float) -> LeveledCosts:
    """P6: each level below level 0 is one sorted run probed once (its filter rate ``fprs[i]``),
    each level-0 run once more (rate ``level0_fpr``); averaged over the window's sizes."""
    sizes = np.asarray(w.level_entries, dtype=float)
    used = sizes > 0
    # A level that held data for part of the window counts for that part.
    false_hits = fprs * np.asarray(w.level_in_use, dtype=float)
    level0 = w.level0_runs * level0_fpr
    zero = level0 + float(false_hits.sum())
    # A present key pays the false positives of everything above its level, then its block.
    above = level0 + np.concatenate([[0.0], np.cumsum(false_hits)[:-1]])
    share = sizes / max(1.0, sizes.sum())
    deepest = int(np.flatnonzero(used)[-1]) if used.any() else 0
    return LeveledCosts(
        write_amp=w.write_amp,
        zero_result_read=zero,
        point_read=1.0 + float(above[deepest]),
        point_read_uniform=1.0 + float(np.sum(share * above)),
        range_runs=w.level0_runs + w.nonempty_levels,
        memory_bits_per_entry=memory_bits_per_entry,
        window=w,
    )


def native_policy(design: Design, system: System, compaction: Compaction) -> LeveledFiles:
    """The native engine's rules under ``granularity="file"`` (P3, P4)."""
    check_leveled(design)
    file_bytes = compaction.file_bytes or system.buffer_bytes
    B = system.entries_per_block
    return LeveledFiles(
        T=design.T, C=design.C,
        flush_entries=float(system.buffer_entries),
        file_entries=float(max(1, file_bytes // system.block_bytes) * B),
        level0_runs=compaction.level1_runs,
        targets="wacky",
        flush_writes=compaction.level1_runs > 1,
        # The engine cuts output files at a fixed size from each merge's first key, so a
        # merge's range cuts through a file of the next level at each end (P1).
        boundary_files=1.0,
    )


def check_leveled(design: Design) -> None:
    if design.K != 0 or design.Z != 0 or design.X != 1:
        raise ValueError(f"granularity='file' needs one run per level and one ratio (K = 0, "
                         f"Z = 0, X = 1); got K={design.K:g}, Z={design.Z:g}, X={design.X:g}")


def native_file_costs(design: Design, system: System, compaction: Compaction,
                      preload: float, window: float, settled: bool = False) -> LeveledCosts:
    """The native engine with ``granularity="file"``: ``window`` inserts after ``preload``
    (from an empty tree, or with ``settled`` from the settled one, P5)."""
    policy = native_policy(design, system, compaction)
    w = window_costs(policy, preload, window, settled)
    sizes = np.asarray(w.level_entries, dtype=float)
    runs = np.ones_like(sizes)
    # The engine allocates the filter memory by the levels' capacities, not by what they hold
    # at the moment (merge_policy.h AllocateFprs): the window's end, aligned at Level L.
    caps = capacities(policy, preload + window)[-sizes.size:]
    weights = np.concatenate([np.zeros(sizes.size - len(caps)), caps])
    budget = system.budget
    if "sum_fpr" in budget:
        p = (uniform_fprs_for_sum(runs, budget["sum_fpr"]) if design.filters == "uniform"
             else lagrangian_fprs_for_sum(weights, runs, budget["sum_fpr"]))
    else:
        bits = budget["bits_per_entry"]
        p = (uniform_fprs_for_memory(runs, bits) if design.filters == "uniform"
             else lagrangian_fprs_for_memory(weights, runs, bits))
    p = np.asarray(p, dtype=float)
    realized = np.asarray(realized_fpr(bloom_bits_per_key(p)), dtype=float)
    bits_used = float(np.sum(sizes * bloom_bits_per_key(p)) / max(1.0, sizes.sum()))
    return window_reads(w, realized, float(realized[0]), bits_used)
