"""Granularity and the level-1 trigger as search knobs: whole-level merges (the continuum, priced
by the search's model) against leveled designs with file-granular merges and a level-1 trigger
(priced by :mod:`wacky_model.files`), for one workload on one system.

:func:`wacky_model.search.recommend` compares the two. The file side is a grid:
the size ratio T (C = T - 1), the level-1 trigger, and the file size. Both sides are the costs of
a store of N entries taking inserts: the finite model's steady window, and the partial model's
window of ``WINDOW_FLUSHES`` flushes from the settled tree.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cost_models.objective import COST_ROW, Weights, theta_of_row, theta_shared
from wacky_model.files import (
    LeveledCosts,
    native_file_costs,
    native_file_costs_many,
    native_paged_costs,
)
from wacky_model.guardrails import Constraints
from wacky_model.types import (
    Buffer,
    Compaction,
    Design,
    Floating,
    KeyDistribution,
    Log,
    System,
    Workload,
    robust_weights,
    workload_vector,
)

if TYPE_CHECKING:
    from cost_models.skew import KeyMap
    from wacky_model.config import Configuration

FILE_RATIOS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 24.0, 32.0)
LEVEL1_RUNS = (1, 2, 4, 8)
FILE_SHARES = (0.25, 1.0)  # of the buffer
# L2SM's per-level log (L1): none, the paper's share of the tree, and twice it.
LOG_RATIOS = (0.0, 0.1, 0.2)
WINDOW_FLUSHES = 256


@dataclass(frozen=True)
class FileDesign:
    design: Design
    compaction: Compaction
    costs: LeveledCosts
    cost: float  # Θ


def file_cost(costs: LeveledCosts, workload: Workload, system: System) -> float:
    """Θ (Eq 16) of a file-granular design's costs; each run's filter is one probe."""
    return theta_of_row(costs.row(system.entries_per_block),
                        workload_vector(workload, system.write_cost_ratio, system.probe_cost))


@dataclass(frozen=True)
class FileGrid:
    """The file-granular designs of the grid, priced (their costs do not depend on the
    workload, so one grid serves a batch of workloads)."""

    designs: tuple[Design, ...]
    compactions: tuple[Compaction, ...]
    costs: tuple[LeveledCosts, ...]
    rows: np.ndarray  # (G, len(COST_ROW)): each design's cost row

    def design(self, i: int, theta: float) -> FileDesign:
        return FileDesign(self.designs[i], self.compactions[i], self.costs[i], float(theta))

    @functools.cached_property
    def miss_layout(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`_miss_layout` of the grid, worked out once (grids are kept per system)."""
        return _miss_layout(self.costs)


def grid_read_keys(workload: Workload, system: System) -> KeyDistribution | None:
    """What a grid's costs take from ``workload``: with paged metadata, skewed existing-key
    reads (G1 under skew, docs/MODEL.md); None otherwise (uniform keys: G1, and without paged
    metadata the grid does not depend on the workload). The grids are kept by it."""
    if system.paged_metadata and not workload.read_keys.is_uniform:
        return workload.read_keys
    return None


@functools.lru_cache(maxsize=64)
def _walked_grid(system: System, level1_runs: int | None) -> tuple[tuple, tuple, tuple]:
    """Every design of the grid on ``system`` with its partial-merge window (designs,
    compactions, costs, without G1): the walk, which depends on the system alone."""
    from wacky_model.compat import refusals

    triggers = LEVEL1_RUNS if level1_runs is None else (level1_runs,)
    # The one table refuses the log beside hash levels: then the grid has no log.
    logs = (0.0,) if ((system.hash_levels and refusals({"l2sm_log", "hash_levels"}))
                      or (system.paged_metadata and refusals({"l2sm_log", "paged"}))
                      ) else LOG_RATIOS
    grid = [(Design(T, T - 1.0, 1.0, 0.0, 0.0),
             Compaction("file", max(system.block_bytes, int(share * system.buffer_bytes)), k,
                        log=Log(omega) if omega > 0 else None))
            for T, k, share, omega in itertools.product(FILE_RATIOS, triggers, FILE_SHARES, logs)
            if T <= system.buffers]
    if not grid:
        raise ValueError("no file-granular design fits this system (T must be below N/F)")
    designs, compactions = zip(*grid, strict=True)
    priced = native_file_costs_many(designs, system, compactions, system.entries,
                                    WINDOW_FLUSHES * system.buffer_entries, settled=True)
    return designs, compactions, tuple(priced)


@functools.lru_cache(maxsize=64)
def _priced_grid(system: System, level1_runs: int | None, read_keys: KeyDistribution | None = None
                 ) -> tuple[tuple, tuple, tuple]:
    """Every design of the grid on ``system`` with its costs (designs, compactions, costs):
    what :func:`file_grid` filters by its guardrails. Kept apart from them, since a search asks
    for the same system's grid under other guardrails too (``Recommendation.without_cap``).
    With paged metadata, G1 on the walk (:func:`_walked_grid`, kept per system), under skew
    with ``read_keys`` (:func:`grid_read_keys`): a workload's keys re-price the kept walk (Che's
    sum over a class per rank bin and row), not walk again."""
    designs, compactions, walked = _walked_grid(system, level1_runs)
    if not system.paged_metadata:
        return designs, compactions, walked
    priced = [native_paged_costs(p, d, system, c, read_keys)  # G1: metadata through the cache
              for d, c, p in zip(designs, compactions, walked, strict=True)]
    return designs, compactions, tuple(priced)


@functools.lru_cache(maxsize=64)
def file_grid(system: System, constraints: Constraints | None = None,
              level1_runs: int | None = None, read_keys: KeyDistribution | None = None) -> FileGrid:
    """The grid (module doc) on ``system``, priced as one batch; with ``constraints``
    (guardrails), only the designs they allow; ``level1_runs`` pins the trigger;
    ``read_keys``: the workload's (:func:`grid_read_keys`, None but under paged metadata).
    Its costs depend on these alone, so the last 64 grids are kept (a pure function of
    frozen inputs: no answer changes)."""
    designs, compactions, priced = _priced_grid(system, level1_runs, read_keys)
    keep = [i for i, (c, p) in enumerate(zip(compactions, priced, strict=True))
            if constraints is None or constraints.allows_leveled(
                c.level1_runs, p.window.level_entries,
                p.window.level0_runs * system.buffer_entries,
                p.window.peak_space(stock=False))]
    if not keep:
        raise ValueError(f"no file-granular design meets the constraints "
                         f"({constraints.describe()}) on this system; loosen them")
    rows = np.stack([priced[i].row(system.entries_per_block) for i in keep])
    return FileGrid(tuple(designs[i] for i in keep), tuple(compactions[i] for i in keep),
                    tuple(priced[i] for i in keep), rows)


def analyze_files(design: Design, system: System, compaction: Compaction,
                  workload: Workload | None = None) -> dict:
    """One file-granular design priced as the search prices it (``wacky_model.pricing.price``:
    the partial-merge model's window of ``WINDOW_FLUSHES`` flushes from the settled tree, and
    the stages the workload and the system put in play: skew and cache, G1, F1-F4): its costs,
    per-level window and, with a workload, Θ. ``wacky analyze --granularity file``'s JSON."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price

    if compaction.granularity != "file":
        raise ValueError("analyze_files prices granularity='file'; analyze prices whole levels")
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    c = native_file_costs(design, system, compaction, system.entries,
                          WINDOW_FLUSHES * system.buffer_entries, settled=True)
    w = c.window
    # The costs as price() gives them; without a workload, under uniform keys (a mix of all
    # four kinds, whose weights only Θ uses).
    mix = workload or Workload(point_reads=0.25, zero_reads=0.25, writes=0.25, range_reads=0.25)
    p = price(Configuration(design, compaction, Memory.of(system)), mix, system)
    return {
        "design": design.knobs, "granularity": "file", "model": p.model, "keys": p.keys,
        "compaction": {"file_bytes": compaction.file_bytes or system.buffer_bytes,
                       "level1_runs": compaction.level1_runs,
                       "log_ratio": compaction.log.ratio if compaction.log else 0.0},
        "write_amp": p.write_amp, "write_cost": p.write_amp / system.entries_per_block,
        "point_read": p.point_read, "point_read_uniform": c.point_read_uniform,
        "zero_result_read": p.zero_result_read, "range_runs": p.range_runs,
        "memory_bits_per_entry": p.memory_bits_per_entry,
        "cache_hit_rate": p.cache_hit_rate,
        "floating": None if p.floating is None else {
            "probes_without": p.floating.probes_off, "probes_with": p.floating.probes_on,
            "extra_writes": p.floating.extra_writes},
        "theta": None if workload is None else p.theta,
        "transient_space": c.transient_space(stock=False),
        "levels": [{"level": i, "mean_entries": e, "write_amp": a}
                   for i, (e, a) in enumerate(zip(w.level_entries, w.level_write_amp,
                                                  strict=True), start=1)],
    }


def file_weights(workloads: list[Workload], system: System, rho: float | None) -> Weights:
    """The weights the file grid is scored by: Θ, or with ``rho`` its worst case nearby."""
    if rho is not None:
        return robust_weights(workloads, system.write_cost_ratio, rho, system.probe_cost)
    return np.stack([workload_vector(w, system.write_cost_ratio, system.probe_cost)
                     for w in workloads])


def file_best(grids: list[tuple[System, Any]], workloads: list[Workload], rho: float | None
               ) -> list[tuple[System, Any, int, float]]:
    """Each workload's cheapest file-granular design over ``grids``: (split, grid, index, Θ)
    (with ``rho``, the least worst case); ties go to the earlier grid and design."""
    index, theta = [], []
    weights = file_weights(workloads, grids[0][0], rho)  # the splits differ in memory only
    for _, grid in grids:
        t = theta_shared(grid.rows, weights)  # (W, G)
        i = np.argmin(t, axis=-1)
        index.append(i)
        theta.append(t[np.arange(t.shape[0]), i])
    theta_k = np.stack(theta, axis=-1)  # (W, grids)
    k = np.argmin(theta_k, axis=-1)
    return [(grids[g][0], grids[g][1], int(index[g][w]), float(theta_k[w, g]))
            for w, g in enumerate(k)]


# File-granular designs re-priced under skew or a cache: the best this many by the uniform Θ
# with zero-result reads through the cache (:func:`cached_rows`; the skew stage costs a few ms
# a design, too slow for the whole grid). On 24 random skewed workloads and systems
# (benchmarks/check_skew_grid.py --files 5 11) the native pick is the whole grid's re-priced
# best within 0.50% (worst; mean 0.02%); the stock RocksDB pick within 9.8% (mean 1.7%), a
# miss: Θ's skew and cache terms reorder its larger grid more than this order ranks it (the
# best 48 gave 7.9% and 0.93%, at 4x the time of the target's skewed search).
FILE_REPRICE = 12
# Stock RocksDB's universal configurations re-priced as well, the best this many by the uniform
# Θ: skewed keys and updates shrink the whole-run merges that universal compaction does, which
# the uniform Θ does not see, but U5 walks a cycle flush by flush (0.6 to 2 s each at the
# default System's 2^31 entries: benchmarks/bench_search.py --section composition).
UNIVERSAL_REPRICE = 2


@dataclass(frozen=True)
class FilePick:
    """The file side's pick for one workload: its memory split, configuration and costs
    (skewed ones when the skew stage priced it, then ``skew`` is its SkewChoice)."""

    system: System
    design: Design
    compaction: Compaction
    costs: LeveledCosts
    theta: float
    skew: Any = None
    # Under skew with a bound: the least floor of the designs left unpriced because it was
    # above the bound (the file side's best is at least min(theta, floor)); inf otherwise.
    floor: float = float("inf")
    # LSbM's compaction buffer (B1), priced on the pick when a cache is in play: whether it was
    # chosen, and Θ and the hit rate without and with it; None when it was not priced.
    buffer: dict[str, Any] | None = None
    # L2SM's log (L1): the pick beside the same design with the log turned the other way (off
    # when the pick has one, the paper's 0.1 when not): :func:`log_report`; None for stock
    # RocksDB, which has no log.
    log: dict[str, Any] | None = None
    # Tidal-tree's floating (F1-F4), priced on a native pick under skewed reads: whether it
    # was chosen, Θ, files checked per existing-key read and write amplification without and
    # with it (:func:`floating_report`); None when it was not priced.
    floating: dict[str, Any] | None = None
    # OHDB's partitioned level 0 (P6), priced on a native pick: whether it was chosen, Θ,
    # write amplification and merges into Level 1 per flush without and with it
    # (:func:`partitions_report`); None when it was not priced.
    partitions: dict[str, Any] | None = None


# Neighbors(g, j, score) -> the (grid, index) pairs one knob away from design j of grid g worth
# pricing, given each pair's score before the skew stage (``score``, least best: Θ for the I/O
# objective, T7's rank for the throughput objective on RocksDB): stock RocksDB's are
# wacky_model.rocksdb_tuning.stock_neighbors, each knob's best alone, as the report's reasons
# take them.
Neighbors = Callable[[int, int, dict[tuple[int, int], Any]], list[tuple[int, int]]]
# Steps of the descent over the neighbors after the shortlist (each prices a handful of trees).
DESCENT_STEPS = 4


def file_pick(grids: list[tuple[System, FileGrid]], workload: Workload, rho: float | None,
              bound: float = float("inf"), keys: KeyMap | None = None,
              neighbors: Neighbors | None = None) -> FilePick:
    """The cheapest design of ``grids`` for ``workload`` (with ``rho``, the least worst case).
    Under skewed keys, updates or a cache the best :data:`FILE_REPRICE` by the uniform Θ are
    priced again with the skew stage (S2f, S3-S7), the uniform pick first, then the others'
    caches cheapest floor first, skipped once a floor is above the best Θ found or ``bound``
    (the Θ the pick must beat; the floor is Θ with every needed block cached). ``keys``: the
    workload's key map (:func:`wacky_model.skew.skew_key_map`), when the caller has it. With
    ``neighbors``, the best is then improved by descent: each step prices its neighbors with
    the skew stage and moves to the cheapest if it beats it (up to :data:`DESCENT_STEPS`), since
    the shortlist, ranked without the skew stage, can leave out a design one knob away that
    the stage prices lower."""
    from wacky_model.skew import needs_skew_model

    [(split, grid, index, theta)] = file_best(grids, [workload], rho)
    if not needs_skew_model(workload, grids[0][0]):
        other = _log_sibling(grid, index)
        log = None
        if other is not None:
            t_other = float(theta_shared(grid.rows[other:other + 1],
                                         file_weights([workload], split, rho))[0, 0])
            log = log_report(grid.compactions[index], grid.costs[index], theta,
                             grid.compactions[other], grid.costs[other], t_other)
        pick = FilePick(split, grid.designs[index], grid.compactions[index], grid.costs[index],
                        theta, log=log)
    else:
        pick = _file_pick_skewed(grids, workload, rho, (split, grid, index), bound, keys,
                                 neighbors)
    return with_partitions(pick, workload, file_weights([workload], split, rho))


# OHDB's partitioned level 0 as the search tries it: the paper's P.
PARTITIONS_TRIED = 10
# The gain in Θ partitions must show before the search takes them. P6 prices them as saving
# no bytes, which both engines bear out: wacky sweep ohdb measures P = 10 within 1.3% of
# P = 1 in bytes written (docs/VALIDATION.md, "OHDB"), while the model's bytes per level are
# within 10% there. A smaller predicted change is inside that error, not a gain.
PARTITION_GAIN = 0.02


def partitions_report(config: Any, split: System, workload: Workload, costs: LeveledCosts,
                      theta: float, weights: Weights) -> dict[str, Any] | None:
    """What OHDB's partitioned level 0 (P6, :data:`PARTITIONS_TRIED` partitions) buys on a
    native file-granular pick of costs ``costs`` and Θ ``theta``: the pick with and without it
    priced by :func:`wacky_model.pricing.price` (the one pipeline, skew and cache included)
    and scored by ``weights``; None where the pick is not the native engine's file-granular
    leveling or the one table refuses partitions with what is in play. Its "costs" are the
    partitioned pick's (``LeveledCosts``, skewed where the skew stage priced it)."""
    from wacky_model.compat import features_in, refusals
    from wacky_model.config import features_of
    from wacky_model.pricing import price, skewed

    c = config.compaction
    if (c.style != "wacky" or c.sizing != "wacky" or c.granularity != "file"
            or c.l0_partitions != 1 or costs.window is None):
        return None
    # The one table first: the compaction itself refuses what it names (floating, a log).
    if refusals(features_in(workload, split) | features_of(config) | {"l0_partitions"}):
        return None
    with_p = replace(config, compaction=replace(c, l0_partitions=PARTITIONS_TRIED))
    on, off = price(with_p, workload, split), price(config, workload, split)
    theta_on, theta_off = (float(theta_shared(x.row[None, :], weights)[0, 0]) for x in (on, off))
    # The partitioned window (P6), and its costs as the pipeline priced them: its own where no
    # skew stage ran, else the window with the stage's reads and writes.
    window = native_file_costs(config.design, split, with_p.compaction, split.entries,
                               WINDOW_FLUSHES * split.buffer_entries, settled=True)
    priced = on.detail if isinstance(on.detail, LeveledCosts) else skewed(
        window, on.point_read, on.write_amp, on.zero_result_read)

    def level1(w: Any) -> float | None:
        return w.level_merges[0] if w is not None and w.level_merges else None

    return {"chosen": theta_on < min(theta, theta_off) * (1.0 - PARTITION_GAIN),
            "partitions": PARTITIONS_TRIED, "theta_without": theta_off, "theta_with": theta_on,
            "write_amp_without": off.write_amp, "write_amp_with": on.write_amp,
            "level1_merges_without": level1(costs.window),
            "level1_merges_with": level1(window.window),
            "gain_needed": PARTITION_GAIN, "costs": priced}


def with_partitions(pick: FilePick, workload: Workload, weights: Weights) -> FilePick:
    """``pick`` with :func:`partitions_report` on it, and partitioned where the report says
    they pay."""
    from wacky_model.config import Configuration, Memory

    config = Configuration(pick.design, pick.compaction, Memory.of(pick.system))
    report = partitions_report(config, pick.system, workload, pick.costs, pick.theta, weights)
    if report is None:
        return pick
    costs = report.pop("costs")
    if not report["chosen"]:
        return replace(pick, partitions=report)
    return replace(pick, compaction=replace(pick.compaction, l0_partitions=PARTITIONS_TRIED),
                   costs=costs, theta=report["theta_with"], partitions=report)


def cheaper(a: float, b: float) -> bool:
    """Whether Θ ``a`` beats ``b`` by more than float noise (the descent's step)."""
    return a < b * (1.0 - 1e-9)


def descend(best: tuple, neighbors: Neighbors, plain: dict[tuple[int, int], Any],
            trees: dict[tuple[int, int], Any], priced: Callable,
            beats: Callable[[Any, Any], bool] = cheaper,
            prefetch: Callable[[list[tuple[int, int]]], None] | None = None) -> tuple:
    """:func:`file_pick`'s descent, and T7's: from ``best`` (score, costs, k, g, j, tree), each
    step prices the neighbors not priced yet (``priced(g, j, tree)`` -> (score, costs, k,
    tree), with ``trees`` the ones already built) and moves to the best that ``beats`` the
    current best; ``plain``: each design's score before the skew stage, what the neighbors
    are chosen by. ``prefetch``, given a step's new neighbors, may build their trees into
    ``trees`` first (as one batch, about half the time of one by one)."""
    seen = {(best[3], best[4])}
    for _ in range(DESCENT_STEPS):
        step = best
        todo = [gj for gj in dict.fromkeys(neighbors(best[3], best[4], plain)) if gj not in seen]
        if prefetch is not None:
            prefetch(todo)
        for g, j in todo:
            seen.add((g, j))
            t, costs, k, tree = priced(g, j, trees.get((g, j)))
            if beats(t, step[0]):
                step = (t, costs, k, g, j, tree)
        if step is best:
            break
        best = step
    return best


def _log_sibling(grid: FileGrid, j: int) -> int | None:
    """The index of design ``j`` of ``grid`` with L2SM's log turned the other way (off when it
    has one, the paper's ratio when not); None when the grid has no such design (stock
    RocksDB's, which has no log)."""
    c = grid.compactions[j]
    if c.style != "wacky" or c.sizing != "wacky" or c.buffer is not None:
        return None
    want = replace(c, log=None if c.log is not None else Log(LOG_RATIOS[1]))
    return next((i for i, (d, x) in enumerate(zip(grid.designs, grid.compactions, strict=True))
                 if d == grid.designs[j] and x == want), None)


def log_report(pick: Compaction, costs: LeveledCosts, theta: float, other: Compaction,
               other_costs: LeveledCosts, other_theta: float) -> dict[str, Any]:
    """What L2SM's log buys on a pick: its ratio (0: none) and Θ, write amplification and
    zero-result I/O with and without the log."""
    on, off = ((costs, theta), (other_costs, other_theta))
    if pick.log is None:
        on, off = off, on
    return {"chosen": pick.log is not None,
            "ratio": (pick.log or other.log).ratio,  # type: ignore[union-attr]
            "theta_with": on[1], "theta_without": off[1],
            "write_amp_with": on[0].write_amp, "write_amp_without": off[0].write_amp,
            "zero_result_with": on[0].zero_result_read,
            "zero_result_without": off[0].zero_result_read}


def cached_rows(grid: FileGrid, split: System) -> np.ndarray:
    """The grid's cost rows with zero-result reads through a cache of the system's size, as
    S7f's bound prices them (a level's false positives find at most min(1, C / blocks) of its
    blocks cached), the order the skew stage re-prices in."""
    from wacky_model.skew import cache_blocks

    C = cache_blocks(split)
    if C <= 0:
        return grid.rows
    B = split.entries_per_block
    entries, misses = grid.miss_layout  # level 0 first, padded with empty levels
    blocks = np.maximum(entries / B, 1.0)
    blocks[:, 0] = split.buffer_entries / B
    held = np.minimum(1.0, C / blocks)
    total = misses.sum(axis=1)
    share = np.where(total > 0, (misses * (1.0 - held)).sum(axis=1) / np.maximum(total, 1e-300),
                     1.0)
    rows = grid.rows.copy()
    rows[:, COST_ROW.index("zero_result_read")] *= share
    return rows


def _miss_layout(costs: tuple[LeveledCosts, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Each design's level entries and the levels' shares of a zero-result read's probes
    (level 0's runs first), padded to the grid's deepest design; universal designs (no
    levels) get no probes, so their rows stay as they are."""
    walks = [c.window for c in costs]
    width = 1 + max((len(w.level_entries) for w in walks if w is not None), default=0)
    entries, misses = np.zeros((len(walks), width)), np.zeros((len(walks), width))
    for j, w in enumerate(walks):
        if w is None:
            continue
        n = len(w.level_entries)
        entries[j, 1:n + 1] = w.level_entries
        misses[j, 0] = w.level0_runs
        misses[j, 1:n + 1] = w.level_coverage or w.level_in_use  # P7
    return entries, misses


def shortlist(order: list[tuple[Any, int, int]], grids: list[tuple[System, FileGrid]],
              leveled: int, universal: int) -> list[tuple[Any, int, int]]:
    """The designs the skew stage re-prices: of ``order`` ((score, grid, index), best first),
    the first ``leveled`` that are not universal compaction and the first ``universal`` that
    are (a universal tree walks a cycle flush by flush: so few are priced)."""
    is_universal = [grids[g][1].compactions[j].style == "universal" for _, g, j in order]
    return ([r for r, u in zip(order, is_universal, strict=True) if not u][:leveled]
            + [r for r, u in zip(order, is_universal, strict=True) if u][:universal])


@dataclass(frozen=True)
class SkewStage:
    """The skew stage (S2f, S3-S7, S7r through the cache) on the designs of ``grids`` for one
    workload, as the file side prices them: the one pricing both objectives rank by (Θ here,
    T7's time in :mod:`wacky_model.rocksdb_throughput`), so a design costs the same whichever
    objective asks. ``keys``: the workload's key map (the splits differ in memory only)."""

    grids: tuple[tuple[System, FileGrid], ...]
    workload: Workload
    keys: KeyMap

    def config(self, g: int, j: int) -> Configuration:
        """Design ``j`` of grid ``g`` as a ``Configuration``, at its grid's memory."""
        from wacky_model.config import Configuration, Memory

        split, grid = self.grids[g]
        return Configuration(grid.designs[j], grid.compactions[j], Memory.of(split))

    def trees(self, g: int, index: list[int]) -> list[Any]:
        """S2f and S3-S4 of designs ``index`` of grid ``g``, built as one batch (before the
        cache: :meth:`costs` adds it)."""
        from wacky_model.pricing import file_skew_trees

        return file_skew_trees([self.config(g, j) for j in index], self.grids[g][0],
                               self.workload, self.keys)

    def costs(self, g: int, j: int, tree: Any = None) -> tuple[LeveledCosts, Any, Any]:
        """Design ``j`` of grid ``g`` through the cache: its skewed costs, the skew stage's
        ``SkewedCosts`` and its tree (``tree``, or built here when None)."""
        from wacky_model.pricing import skewed_by
        from wacky_model.skew import cache_blocks

        split, grid = self.grids[g]
        if tree is None:
            tree = self.trees(g, [j])[0]
        k = tree.costs(cache_blocks(split))
        return skewed_by(self.config(g, j), grid.costs[j], k, cache_blocks(split)), k, tree


def skewed_floor(stage: SkewStage, g: int, j: int, weights: Weights, tree: Any = None) -> float:
    """Θ (``weights``) below which the skew stage never prices design ``j`` of ``stage``'s grid
    ``g``: the search's floor (docs/MODEL.md, "The search"). Existing-key reads pay for every
    read beyond the share the hottest keys a cache of C blocks (and for a universal run the
    buffer) can hold take (:meth:`KeyMap.hottest_read_share`). A leveled design's floor is
    its tree's before the cache (``tree``, built here when None): S2f's write amplification,
    zero-result and range reads (S7r, stock RocksDB's) finding at most min(1, C / blocks) of
    a level's blocks cached. A universal one's needs no walk of U5's cycle: every insert
    flushed once, no zero-result cost, and range reads (S7r through the cache, U5r) at most
    the oldest run's share of them uncached
    (:func:`wacky_model.pricing.universal_range_floor`); uncached, the uniform model's runs,
    which the price keeps too."""
    from wacky_model.pricing import reads_through_cache, skewed, universal_range_floor
    from wacky_model.skew import cache_blocks

    split, grid = stage.grids[g]
    C, keys, config = cache_blocks(split), stage.keys, stage.config(g, j)
    if grid.compactions[j].style == "universal":
        free = keys.hottest_read_share(C * split.entries_per_block + split.buffer_entries)
        floor = skewed(grid.costs[j], max(0.0, 1.0 - free),
                       1.0 - stage.workload.update_fraction, 0.0,
                       ranges=universal_range_floor(config, split))
    else:
        if tree is None:
            tree = stage.trees(g, [j])[0]
        # S7r: stock RocksDB's range reads, at most what the cache can hold of each level.
        ranges = tree.range_bound(C) if reads_through_cache(config) and C > 0 else None
        hit_share = keys.hottest_read_share(C * split.entries_per_block)  # the most it serves
        floor = skewed(grid.costs[j], tree.point_read_bound(hit_share),
                       sum(tree.level_write_amp), tree.zero_result_bound(C), ranges=ranges)
    return float(theta_shared(floor.row(split.entries_per_block), weights)[0])


def _file_pick_skewed(grids: list[tuple[System, FileGrid]], workload: Workload,
                      rho: float | None, uniform: tuple[System, FileGrid, int], bound: float,
                      keys: KeyMap | None = None,
                      neighbors: Neighbors | None = None) -> FilePick:
    from wacky_model.config import Configuration, Memory
    from wacky_model.families import name_of
    from wacky_model.pricing import skewed
    from wacky_model.skew import analysis_of, cache_blocks, skew_key_map
    from wacky_model.skew_search import SkewChoice

    weights = file_weights([workload], grids[0][0], rho)
    order = sorted((float(t), g, j) for g, (split, grid) in enumerate(grids)
                   for j, t in enumerate(theta_shared(cached_rows(grid, split), weights)[0]))
    ranked = shortlist(order, grids, FILE_REPRICE, UNIVERSAL_REPRICE)
    u_split, u_grid, u_index = uniform  # the uniform pick is priced first, whatever its rank
    u_g = next(g for g, (_, grid) in enumerate(grids) if grid is u_grid)
    if not any(g == u_g and j == u_index for _, g, j in ranked):
        ranked.append((0.0, u_g, u_index))
    if keys is None:
        keys = skew_key_map(grids[0][0], workload)  # the splits differ in memory only
    stage = SkewStage(tuple(grids), workload, keys)
    staged = []  # (floor Θ, grid, index, tree; None: built when priced)
    for g in sorted({g for _, g, _ in ranked}):
        index = [j for _, gg, j in ranked if gg == g]
        walked = [j for j in index if grids[g][1].compactions[j].style != "universal"]
        staged += [(skewed_floor(stage, g, j, weights, tree), g, j, tree)
                   for j, tree in zip(walked, stage.trees(g, walked), strict=True)]
        # U5 walks a cycle flush by flush, so a universal tree is built only when its floor
        # is reached.
        staged += [(skewed_floor(stage, g, j, weights), g, j, None)
                   for j in index if j not in walked]

    def priced(g: int, j: int, tree: Any) -> tuple[float, LeveledCosts, Any, Any]:
        costs, k, tree = stage.costs(g, j, tree)
        return (float(theta_shared(costs.row(grids[g][0].entries_per_block), weights)[0]),
                costs, k, tree)

    first = next(s for s in staged if grids[s[1]][1] is u_grid and s[2] == u_index)
    t, costs, k, tree = priced(*first[1:])
    best = (t, costs, k, *first[1:3], tree)
    uniform_theta, skipped = best[0], float("inf")
    for floor, g, j, tree in sorted(staged, key=lambda s: s[0]):
        if floor > min(best[0], bound) * (1.0 + 1e-9):
            skipped = floor if floor <= best[0] * (1.0 + 1e-9) else float("inf")
            break
        t, costs, k, tree = priced(g, j, tree)
        if t < best[0]:
            best = (t, costs, k, g, j, tree)
    if neighbors is not None:
        plain = {(g, j): float(t) for g, (_, grid) in enumerate(grids)
                 for j, t in enumerate(theta_shared(grid.rows, weights)[0])}
        best = descend(best, neighbors, plain, {(g, j): tree for _, g, j, tree in staged},
                       priced)
    theta, costs, k, g, j, tree = best
    split, grid = grids[g]
    design, compaction = grid.designs[j], grid.compactions[j]
    log = None
    # The design the buffer is priced on: the pick, or the pick without its log (the one
    # table refuses the log with the buffer).
    base = (j, compaction, theta, k, tree)
    # What the log buys is priced on a second tree, so only for a pick that can win (its Θ
    # under ``bound``, the Θ it must beat); the others' reports say nothing of the log.
    other = _log_sibling(grid, j) if theta < bound else None
    if other is not None:
        known = next((t for _, gg, jj, t in staged if gg == g and jj == other), None)
        t_other, costs_other, k_other, tree_other = priced(g, other, known)
        log = log_report(compaction, costs, theta, grid.compactions[other], costs_other, t_other)
        if compaction.log is not None:
            base = (other, grid.compactions[other], t_other, k_other, tree_other)
    buffer = None
    b_j, b_compaction, b_theta, b_k, b_tree = base
    if (cache_blocks(split) > 0 and compaction.sizing == "wacky" and compaction.style == "wacky"
            and b_compaction.log is None):  # a log with no design without it: no buffer
        # B1: LSbM's buffer changes only the cache's lives, so it is priced on the tree
        # (the native engine's; stock RocksDB has none).
        rules = Buffer()
        with_buffer = replace(b_compaction, buffer=rules)
        kb = b_tree.with_buffer(rules.trim).costs(cache_blocks(split))
        costs_b = skewed(grid.costs[b_j], kb.point_read, kb.write_amp, kb.zero_result_read)
        theta_b = float(theta_shared(costs_b.row(split.entries_per_block), weights)[0])
        chosen = BUFFER_CHOSEN and theta_b < min(theta, b_theta * (1.0 - BUFFER_GAIN))
        buffer = {"chosen": chosen, "theta_without": b_theta, "theta_with": theta_b,
                  "hit_rate_without": b_k.cache_hit_rate, "hit_rate_with": kb.cache_hit_rate,
                  "space_with": kb.buffer_space, "without_log": b_j != j}
        if chosen:
            compaction, costs, theta, k = with_buffer, costs_b, theta_b, kb
            log = None
    floating = None
    if buffer is None or not buffer["chosen"]:
        floating = floating_report(Configuration(design, compaction, Memory.of(split)), split,
                                   workload, costs, theta, weights)
        if floating is not None and floating["chosen"]:
            compaction = replace(compaction, floating=FLOAT_OPTIONS)
            costs, theta = floating["costs"], floating["theta_with"]
        if floating is not None:
            floating = {k: v for k, v in floating.items() if k != "costs"}
    choice = SkewChoice(design, name_of(design, split), theta, analysis_of(k),
                        u_grid.designs[u_index], uniform_theta, len(staged))
    return FilePick(split, design, compaction, costs, theta, choice, skipped, buffer, log,
                    floating)


# Tidal-tree's floating as the search tries it: the paper's gamma, one float per flush.
FLOAT_OPTIONS = Floating(gamma=1.0)
# Floating rewrites files the objective prices only as their writes: the search takes it where
# it lowers Θ by at least this share.
FLOAT_GAIN = 0.005


def floating_report(config: Any, split: System, workload: Workload, costs: LeveledCosts,
                    theta: float, weights: Weights) -> dict[str, Any] | None:
    """What Tidal-tree's floating (F1-F4 at :data:`FLOAT_OPTIONS`) buys on a native
    file-granular pick whose skewed costs are ``costs`` (Θ ``theta``): None where the one table
    refuses it with what is in play, or F3 does not describe the workload (latest reads,
    updates). The pricing is :func:`wacky_model.pricing.price`'s F stage on the pick's costs."""
    from wacky_model.compat import features_in, refusals
    from wacky_model.pricing import floating_costs, skewed

    c = config.compaction
    if (c.style != "wacky" or c.sizing != "wacky" or c.granularity != "file"
            or refusals(features_in(workload, split) | set(c.side_runs)
                        | {"floating", "files"} | ({"l0_partitions"} if c.l0_partitions > 1
                                                   else set()))):
        return None
    if (workload.read_keys.kind == "latest" or workload.update_fraction > 0.0
            or not workload.write_keys.is_uniform):
        return None
    if split.probe_cost <= 0.0:  # a check costs a false positive's I/O only: nothing to buy
        return {"chosen": False, "gamma": FLOAT_OPTIONS.gamma, "theta_without": theta,
                "theta_with": None, "probe_cost": 0.0, "costs": None}
    with_float = replace(config, compaction=replace(c, floating=FLOAT_OPTIONS))
    f = floating_costs(with_float, split, workload, costs)
    saved = f.probes_off - f.probes_on
    costs_f = skewed(costs, costs.point_read - split.probe_cost * saved,
                     costs.write_amp + f.extra_writes, costs.zero_result_read)
    theta_f = float(theta_shared(costs_f.row(split.entries_per_block), weights)[0])
    return {"chosen": theta_f < theta * (1.0 - FLOAT_GAIN), "gamma": FLOAT_OPTIONS.gamma,
            "theta_without": theta, "theta_with": theta_f, "probes_without": f.probes_off,
            "probes_with": f.probes_on, "write_amp_without": costs.write_amp,
            "write_amp_with": costs_f.write_amp, "probe_cost": split.probe_cost,
            "costs": costs_f}


# The compaction buffer (LSbM) costs disk space the objective does not price: the search takes
# it only where it lowers Θ by at least this share.
BUFFER_GAIN = 0.005
# Whether the search may take the buffer at all. Not yet: on the native engine it did not raise
# the hit rate in any case of `wacky sweep lsbm` where B1 said it would (docs/VALIDATION.md,
# "LSbM"), so B1's estimate is reported beside the pick but does not choose.
BUFFER_CHOSEN = False
