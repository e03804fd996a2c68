"""Costs of a leveled design whose levels are made of files (``Compaction(granularity="file")``):
the native engine's rules read into :mod:`cost_models.partial`, and the reads of any such tree
(P7 in ``docs/MODEL.md``). ``wacky_model.rocksdb_model`` prices RocksDB's options the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cost_models.devices import LevelLedger
from cost_models.evaluate import bloom_fprs
from cost_models.filters import bloom_bits_per_key
from cost_models.finite import realized_fpr
from cost_models.objective import cost_row
from cost_models.partial import (
    LeveledFiles,
    WindowCosts,
    capacities,
    per_policy,
    window_costs,
    window_costs_many,
)
from cost_models.universal import FULL_MERGE_PEAK_SPACE
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
    # D1: the same per level, level 0 first (derived from the window: not compared, its arrays
    # have no truth value).
    ledger: LevelLedger | None = field(default=None, compare=False, repr=False)
    # S7r (stock RocksDB through its block cache, ``wacky_model.pricing.skewed``): the runs'
    # seeks a range read misses in the cache (None: every run's, ``range_runs``) and the share
    # of a long range's blocks it reads from the device (1: every entry is in a run, so a long
    # range spreads over all of the data).
    cached_range_runs: float | None = None
    range_spread: float = 1.0

    def transient_space(self, *, stock: bool) -> float:
        """T5 (docs/MODEL.md): the run files' peak during merges over the data; the window's
        (:meth:`WindowCosts.peak_space`), or with none (universal compaction) U2's full merge,
        which rewrites every run while they are all still on disk."""
        if self.window is None:
            return FULL_MERGE_PEAK_SPACE
        return self.window.peak_space(stock=stock)

    def row(self, entries_per_block: float) -> np.ndarray:
        """The cost row (:data:`cost_models.objective.COST_ROW`): range reads at their seeks and
        spread (through the cache where S7r prices them), each run's filter one probe."""
        seeks = self.range_runs if self.cached_range_runs is None else self.cached_range_runs
        return cost_row(point_read=self.point_read, zero_result_read=self.zero_result_read,
                        write_cost=self.write_amp / entries_per_block,
                        range_runs=seeks, range_spread=self.range_spread,
                        point_read_uniform=self.point_read_uniform,
                        filter_probes=self.range_runs)


def window_reads(w: WindowCosts, fprs: np.ndarray, level0_fpr: float,
                 memory_bits_per_entry: float) -> LeveledCosts:
    """P7: each level below level 0 is one sorted run whose filter (rate ``fprs[i]``) a read
    probes when its key lies within one of the level's files, each level-0 run once more (rate
    ``level0_fpr``); averaged over the window's sizes."""
    sizes = np.asarray(w.level_entries, dtype=float)
    used = sizes > 0
    # A level counts for the share of the keys its files span, over the window (0 while it is
    # empty); an L2SM log adds the log files over a key (L1a), each probed with its level's
    # filter rate.
    logs = _log_coverage(w)
    spans = w.level_coverage if w.level_coverage else w.level_in_use
    false_hits = fprs * (np.asarray(spans, dtype=float) + logs)
    level0 = w.level0_runs * level0_fpr
    zero = level0 + float(false_hits.sum())
    # A present key pays the false positives of everything above its level, then its block.
    above = level0 + np.concatenate([[0.0], np.cumsum(false_hits)[:-1]])
    share = sizes / max(1.0, sizes.sum())
    deepest = int(np.flatnonzero(used)[-1]) if used.any() else 0
    # D1's ledger: level 0's flush writes (staged runs) are what the levels below do not write.
    writes = np.asarray(w.level_write_amp, dtype=float)
    below = sizes.sum() - np.cumsum(sizes)  # a uniform key below Level i
    point = np.where(np.arange(len(sizes)) < deepest, false_hits, 0.0)
    point[deepest] += 1.0
    ledger = LevelLedger(
        writes=np.concatenate([[w.write_amp - float(writes.sum())], writes]),
        zero_result=np.concatenate([[level0], false_hits]),
        point_read=np.concatenate([[level0], point]),
        point_read_uniform=np.concatenate(
            [[level0], false_hits * below / max(1.0, sizes.sum()) + share]),
        range_runs=np.concatenate([[w.level0_runs],
                                   np.asarray(w.level_in_use, dtype=float) + logs]),
        entries=np.concatenate([[0.0], sizes]))
    return LeveledCosts(
        write_amp=w.write_amp,
        zero_result_read=zero,
        point_read=1.0 + float(above[deepest]),
        point_read_uniform=1.0 + float(np.sum(share * above)),
        range_runs=w.level0_runs + w.nonempty_levels + float(logs.sum()),
        memory_bits_per_entry=memory_bits_per_entry,
        window=w,
        ledger=ledger,
    )


def _log_coverage(w: WindowCosts) -> np.ndarray:
    """L1a's log files over a key at each level of ``w`` (zeros without a log)."""
    return (np.asarray(w.log_coverage, dtype=float) if w.log_coverage
            else np.zeros(len(w.level_entries)))


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
        log_ratio=compaction.log.ratio if compaction.log is not None else 0.0,
        log_batch_cap=float(compaction.log.batch_cap) if compaction.log is not None else 10.0,
        l0_partitions=compaction.l0_partitions,
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
    return _native_reads([design], system, [policy], [w], [preload + window])[0]


def native_file_costs_many(designs: Sequence[Design], system: System,
                           compactions: Sequence[Compaction],
                           preload: float | Sequence[float], window: float | Sequence[float],
                           settled: bool = False) -> list[LeveledCosts]:
    """:func:`native_file_costs` of each design with its compaction (``preload`` and ``window``
    shared or one per design), equal to it: the windows walked together
    (:func:`cost_models.partial.window_costs_many`) and the filters of the designs with as many
    levels allocated together."""
    designs, compactions = list(designs), list(compactions)
    if len(designs) != len(compactions):
        raise ValueError(f"one compaction per design: got {len(designs)} designs and "
                         f"{len(compactions)} compactions")
    policies = [native_policy(d, system, c) for d, c in zip(designs, compactions, strict=True)]
    preloads = per_policy(preload, len(designs), "preload", "design")
    windows = per_policy(window, len(designs), "window", "design")
    ws = window_costs_many(policies, preloads, windows, settled)
    return _native_reads(designs, system, policies, ws,
                         [a + w for a, w in zip(preloads, windows, strict=True)])


def _native_reads(designs: list[Design], system: System, policies: list[LeveledFiles],
                  ws: list[WindowCosts], entries: list[float]) -> list[LeveledCosts]:
    """P7 with the engine's filters (:func:`native_filter_rates`)."""
    rates = native_filter_rates([d.filters for d in designs], system, policies, ws, entries)
    return [window_reads(w, realized, level0, bits)
            for w, (realized, level0, bits) in zip(ws, rates, strict=True)]


def _group_filters(filters: str, system: System, policies: list[LeveledFiles],
                   ws: list[WindowCosts], entries: list[float]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The engine's filters of designs with as many levels: each level's realized false-
    positive rate and the bits per entry used, one row per design."""
    sizes = np.array([w.level_entries for w in ws], dtype=float)
    weights = np.array([_filter_weights(p, sizes.shape[1], n)
                        for p, n in zip(policies, entries, strict=True)])
    bits = bloom_bits_per_key(_fprs(filters, system, weights))
    realized = np.asarray(realized_fpr(bits), dtype=float)
    # An L2SM log's files take their level's filters (the allocation weighs the trees only):
    # Lambda_i = 2 c_i E_i more entries at that level's bits (L1a).
    held = sizes * (1.0 + 2.0 * np.array([_log_coverage(w) for w in ws]))
    bits_used = np.sum(held * bits, axis=-1) / np.maximum(1.0, held.sum(axis=-1))
    return realized, bits_used


def native_filter_rates(filters: Sequence[str], system: System,
                        policies: Sequence[LeveledFiles], ws: Sequence[WindowCosts],
                        entries: Sequence[float]) -> list[tuple[np.ndarray, float, float]]:
    """The filters the native engine builds for file-granular designs (as
    :func:`native_file_costs` prices them): per design, the realized rate of each level's
    filter (Level 1 first), level 0's (its runs take Level 1's) and the bits per entry used.
    Designs with as many levels and the same rule are allocated as one array."""
    groups: dict[tuple[int, str], list[int]] = {}
    for b, (rule, w) in enumerate(zip(filters, ws, strict=True)):
        groups.setdefault((len(w.level_entries), rule), []).append(b)
    out: list[tuple[np.ndarray, float, float] | None] = [None] * len(ws)
    for (_, rule), members in groups.items():
        realized, bits_used = _group_filters(rule, system, [policies[b] for b in members],
                                             [ws[b] for b in members],
                                             [entries[b] for b in members])
        for row, b in enumerate(members):
            out[b] = (realized[row], float(realized[row, 0]), float(bits_used[row]))
    return out  # type: ignore[return-value]


def _filter_weights(policy: LeveledFiles, levels: int, entries: float) -> np.ndarray:
    """The engine allocates the filter memory by the levels' capacities, not by what they hold
    at the moment (merge_policy.h AllocateFprs): the window's end, aligned at Level L."""
    caps = capacities(policy, entries)[-levels:]
    return np.concatenate([np.zeros(levels - len(caps)), caps])


def _fprs(filters: str, system: System, weights: np.ndarray) -> np.ndarray:
    """The filters' false-positive rates of rows of levels weighted by ``weights``."""
    budget = system.budget
    return np.asarray(bloom_fprs(np.ones_like(weights), weights, budget.get("bits_per_entry"),
                                 budget.get("sum_fpr"), filters == "uniform"), dtype=float)


def native_paged_levels(design: Design, system: System, compaction: Compaction,
                        window: WindowCosts | None = None) -> list:
    """G1's view (``cost_models.paged.PagedLevel``) of the native engine's settled tree of
    ``system.entries`` under ``granularity="file"`` with ``paged_metadata=True`` (or of
    ``window``, a walk of its policy already taken), as ``rocksdb_model.paged_levels`` gives
    RocksDB's: level 0's runs (each probed by every read, with Level 1's filters) and Levels 1..
    as P7 spans them, each file's filter and index blocks in the engine's layout
    (``cost_models.paged.native_filter_bytes``/``native_index_bytes``) at the bits the engine's
    allocation gives the level (``native_filter_rates``)."""
    from cost_models.paged import (
        PAGED_WINDOW_FLUSHES,
        PagedLevel,
        native_filter_bytes,
        native_index_bytes,
    )

    policy = native_policy(design, system, compaction)
    window_entries = PAGED_WINDOW_FLUSHES * policy.flush_entries
    w = window if window is not None else window_costs(policy, system.entries, window_entries,
                                                       settled=True)
    levels = len(w.level_entries)
    weights = _filter_weights(policy, levels, system.entries + window_entries)
    bits = np.atleast_2d(bloom_bits_per_key(_fprs(design.filters, system, weights[None, :])))[0]
    fprs = np.asarray(realized_fpr(bits), dtype=float)
    B = float(system.entries_per_block)
    sizes = [w.level0_runs * policy.flush_entries, *w.level_entries]
    files = [w.level0_runs, *(s / policy.file_entries for s in w.level_entries)]
    spans = [w.level0_runs, *(w.level_coverage or w.level_in_use)]
    level_bits = [bits[0] if levels else 0.0, *bits]
    level_fprs = [fprs[0] if levels else 1.0, *fprs]
    total = max(1.0, sum(sizes))
    out = []
    for level, (s, f, c, b, p) in enumerate(zip(sizes, files, spans, level_bits, level_fprs,
                                                strict=True)):
        if s <= 0 or f <= 0:
            continue
        f = max(1.0, f)
        blocks = s / B
        out.append(PagedLevel(files=f, data_blocks=blocks, coverage=float(c), fpr=float(p),
                              share=s / total, filter_bytes=native_filter_bytes(s / f, b),
                              index_bytes=native_index_bytes(blocks / f), level=level))
    return out


def native_paged_costs(costs: LeveledCosts, design: Design, system: System,
                       compaction: Compaction, read_keys: Any = None) -> LeveledCosts:
    """``costs`` (:func:`native_file_costs` of a file-granular native design, settled) with
    G1's reads under ``Engine(paged_metadata=True)``: each kind of point read priced with the
    cache filled by that kind alone, through ``system.cache_bytes``, as
    ``rocksdb_model.paged_costs`` prices RocksDB's. The engine's cache charges an entry its
    contents only, so a data block is ``block_bytes``. ``read_keys``: a skewed distribution of
    the existing keys read (G1 under skew; None or uniform: G1's)."""
    from cost_models.paged import NATIVE_CACHE_ENTRY_BYTES, paged_reads_of, with_paged_reads

    levels = native_paged_levels(design, system, compaction, costs.window)
    block = system.block_bytes + NATIVE_CACHE_ENTRY_BYTES
    zero, present, skewed = paged_reads_of(levels, system.cache_bytes, block, read_keys,
                                           int(system.entries))
    return with_paged_reads(costs, levels, zero, present, skewed)
