"""Costs of a design under skewed keys, updates and a block cache (``cost_models.skew``).

The plain-words face of S1-S7 (docs/MODEL.md, "Skew and a block cache"): a :class:`Workload`
says which keys writes and reads touch and how many writes are updates; a :class:`System` says
how big the cache is. With uniform keys, no updates and no cache nothing here is used, and every
cost is the finite model's exactly (``Workload.skewed`` and ``System.cache_bytes`` decide).
File-granular designs (S2f) are priced by :func:`file_skew_costs` (the native engine) and
:func:`leveled_skew_costs` (RocksDB's leveled options), universal compaction by
:func:`universal_skew_costs` (U5).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cost_models.finite import realized_fpr
from cost_models.objective import cost_row, theta_shared
from cost_models.partial import LeveledFiles, WindowCosts
from cost_models.skew import (
    KeyMap,
    SkewedCosts,
    SkewedTree,
    SkewedWorkload,
    file_trees,
    key_map,
    skewed_trees,
    universal_ledger,
    universal_tree,
)
from cost_models.universal import UniversalRules
from wacky_model.files import native_filter_rates, native_policy
from wacky_model.types import (
    Compaction,
    Design,
    KeyDistribution,
    System,
    Workload,
    robust_weights,
    workload_vector,
)

# A read-only workload priced as one write per this many reads: runs then outlive any cache.
NO_WRITES_READS_PER_WRITE = 1e12


@dataclass(frozen=True)
class SkewAnalysis:
    """What the skew model says about one design (``wacky analyze --json``'s ``skew``)."""

    write_amp: float  # entries written per write, updates absorbed
    point_read: float  # block reads per existing-key read drawn from the read distribution
    cache_hit_rate: float
    cache_hit_rate_per_level: tuple[float, ...]
    read_buffer_share: float  # existing-key reads the write buffer answers
    read_level_share: tuple[float, ...]  # existing-key reads whose newest version is at Level i
    run_lifetime_writes: tuple[float, ...]  # how long a cached block's run lives, per level
    cycle_writes: float  # writes between full merges of Level L
    # Block reads per zero-result lookup: false positives, some served by the cache (S7f).
    zero_result_read: float
    # What filters allocated for these reads would give (the weighted Lagrangian, S8); the
    # engine builds App. C's, which the figures above price.
    skew_aware_filters: dict[str, float | list[float]] | None = None
    theta: float | None = None  # Eq 16 under the skew, with a workload (skew_search)

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def needs_skew_model(workload: Workload | None, system: System) -> bool:
    """True when the skew model prices something the finite model does not. With paged metadata
    G1 prices the cache instead, under skewed reads too (docs/MODEL.md "G1 under skew"; the
    compatibility table refuses what it does not price)."""
    skewed = workload is not None and workload.skewed
    return not system.paged_metadata and (skewed or system.cache_bytes > 0)


def reads_per_write(workload: Workload | None) -> float:
    """Existing-key reads per write, which set how long a cached block lives in reads."""
    if workload is None:
        return 1.0
    if workload.writes <= 0:
        return math.inf
    return workload.point_reads / workload.writes


def skewed_workload(workload: Workload | None, *, history_writes: float = math.inf
                    ) -> SkewedWorkload:
    """The math layer's form of ``workload`` (uniform, one read per write, when None)."""
    if workload is None:
        return SkewedWorkload(KeyDistribution(), KeyDistribution(),
                              history_writes=history_writes)
    lookups = workload.point_reads + workload.zero_reads
    return SkewedWorkload(workload.write_keys, workload.read_keys, workload.update_fraction,
                          workload.correlated, reads_per_write(workload),
                          workload.zero_reads / lookups if lookups > 0 else 0.0,
                          history_writes)


def skew_key_map(system: System, workload: Workload | None) -> KeyMap:
    """What S1-S7 know of the keys of ``workload`` on ``system`` whatever the design: built
    once, it prices any number of designs (``skew_costs(..., keys=)``)."""
    return key_map(system.entries, skewed_workload(workload))


def skew_tree(design: Design, system: System, workload: Workload | None, *,
              history_writes: float = math.inf, keys: KeyMap | None = None) -> SkewedTree:
    """S1-S4 and S8 for ``design`` holding ``system.entries`` keys, before the cache:
    ``.costs(cache_blocks(system))`` is :func:`skew_costs`. ``history_writes``: the writes since
    the keys were loaded (inf: the steady state of the workload's writes). ``keys``: the
    workload's :func:`skew_key_map` on this system, when pricing many designs."""
    return skew_trees([design], system, workload, history_writes=history_writes, keys=keys)[0]


def skew_trees(designs: Sequence[Design], system: System, workload: Workload | None, *,
               history_writes: float = math.inf, keys: KeyMap | None = None
               ) -> list[SkewedTree]:
    """:func:`skew_tree` of many designs, worked out together (:func:`skewed_trees`)."""
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    for design in designs:
        if design.filters != "optimized":
            raise ValueError("the skew model prices optimized (App. C) filters only; got "
                             f"filters={design.filters!r}")
    w = _priced_workload(workload, history_writes)
    return skewed_trees(
        [tuple(d.knobs.values()) for d in designs], entries=system.entries,
        buffer_entries=system.buffer_entries, entries_per_block=system.entries_per_block,
        **system.budget, workload=w, keys=keys)


def _priced_workload(workload: Workload | None, history_writes: float) -> SkewedWorkload:
    """:func:`skewed_workload`, a read-only one priced with rare writes."""
    w = skewed_workload(workload, history_writes=history_writes)
    if math.isinf(w.reads_per_write):  # no writes: nothing invalidates, blocks live on
        w = replace(w, reads_per_write=NO_WRITES_READS_PER_WRITE)
    return w


def file_skew_trees(designs: Sequence[Design], system: System,
                    compactions: Compaction | Sequence[Compaction], workload: Workload | None,
                    *, history_writes: float = math.inf, keys: KeyMap | None = None
                    ) -> list[SkewedTree]:
    """S2f and S3-S4, S8 (before the cache) for native-engine designs with file-granular
    merges (``Compaction(granularity="file")``, leveled designs), each holding
    ``system.entries`` keys: ``.costs(cache_blocks(system))`` is :func:`file_skew_costs`.
    ``compactions``: one for all or one per design. The designs' uniform walks run together
    and share ``keys`` (:func:`skew_key_map`), so a search prices many at once."""
    designs = list(designs)
    if isinstance(compactions, Compaction):
        compactions = [compactions] * len(designs)
    compactions = list(compactions)
    if len(compactions) != len(designs):
        raise ValueError(f"one compaction per design: got {len(designs)} designs and "
                         f"{len(compactions)} compactions")
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    for c in compactions:
        if c.granularity != "file":
            raise ValueError("file_skew_costs prices granularity='file'; whole-level merges "
                             "are skew_costs'")
    policies = [native_policy(d, system, c) for d, c in zip(designs, compactions, strict=True)]
    rules = [d.filters for d in designs]

    def rates(ps: Sequence[LeveledFiles], ws: Sequence[WindowCosts], totals: Sequence[float]
              ) -> list[tuple[np.ndarray, float, float]]:
        return native_filter_rates(rules, system, ps, ws, totals)

    return file_trees(policies, rates, entries=system.entries,
                      entries_per_block=system.entries_per_block,
                      workload=_priced_workload(workload, history_writes), keys=keys,
                      flush_writes_last=False,
                      buffer_trims=[None if c.buffer is None else c.buffer.trim
                                    for c in compactions])


def file_skew_costs(design: Design, system: System, compaction: Compaction,
                    workload: Workload | None, *, history_writes: float = math.inf,
                    keys: KeyMap | None = None) -> SkewedCosts:
    """S1-S8 for a native-engine design with file-granular merges (docs/MODEL.md, S2f) under
    ``workload``'s skew and updates and ``system.cache_bytes`` of LRU block cache. The per-level
    tuples start at level 0 when its trigger (``level1_runs``) is above 1, else at Level 1.
    ``history_writes``: the writes since the keys were loaded (inf: the steady state)."""
    return file_skew_costs_many([design], system, compaction, workload,
                                history_writes=history_writes, keys=keys)[0]


def file_skew_costs_many(designs: Sequence[Design], system: System,
                         compactions: Compaction | Sequence[Compaction],
                         workload: Workload | None, *, history_writes: float = math.inf,
                         keys: KeyMap | None = None) -> list[SkewedCosts]:
    """:func:`file_skew_costs` of each design (one compaction for all, or one each)."""
    blocks = cache_blocks(system)
    return [t.costs(blocks) for t in file_skew_trees(
        designs, system, compactions, workload, history_writes=history_writes, keys=keys)]


def leveled_skew_trees(policies: Sequence[LeveledFiles], bits_per_key: float | Sequence[float],
                       system: System, workload: Workload | None, *,
                       history_writes: float = math.inf, keys: KeyMap | None = None
                       ) -> list[SkewedTree]:
    """S2f and S3-S4, S8 for RocksDB leveled configurations (``wacky_model.rocksdb_model.
    leveled_policy``), each filter at one ``bits_per_key`` (one for all or one per policy, as
    RocksDB builds them, priced by ``cost_models.finite.realized_fpr``). ``system`` gives the
    keys (``entries``), the blocks' entries (``entries_per_block``) and the cache; a flush is
    always written to level 0 first."""
    policies = list(policies)
    bits = ([float(bits_per_key)] * len(policies) if np.ndim(bits_per_key) == 0
            else [float(b) for b in bits_per_key])  # type: ignore[union-attr]
    if len(bits) != len(policies):
        raise ValueError(f"bits_per_key needs one value per policy ({len(policies)}); got "
                         f"{len(bits)}")

    def rates(ps: Sequence[LeveledFiles], ws: Sequence[WindowCosts], totals: Sequence[float]
              ) -> list[tuple[np.ndarray, float, float]]:
        out = []
        for w, b in zip(ws, bits, strict=True):  # file_trees asks for every policy, in order
            rate = float(realized_fpr(b))
            out.append((np.full(len(w.level_entries), rate), rate, b))
        return out

    # S6g: RocksDB 7.8 leaves a deleted file's cached blocks in its LRU until they age out.
    return [replace(t, dead_blocks_cached=True) for t in file_trees(
        policies, rates, entries=system.entries, entries_per_block=rocksdb_block_entries(system),
        workload=_priced_workload(workload, history_writes), keys=keys,
        flush_writes_last=True)]


def leveled_skew_costs(policy: LeveledFiles, bits_per_key: float, system: System,
                       workload: Workload | None, *, history_writes: float = math.inf,
                       keys: KeyMap | None = None) -> SkewedCosts:
    """S1-S8 for a RocksDB leveled configuration under skew and ``system.cache_bytes``
    (arguments as :func:`leveled_skew_trees`)."""
    return leveled_skew_costs_many([policy], bits_per_key, system, workload,
                                   history_writes=history_writes, keys=keys)[0]


def leveled_skew_costs_many(policies: Sequence[LeveledFiles],
                            bits_per_key: float | Sequence[float], system: System,
                            workload: Workload | None, *, history_writes: float = math.inf,
                            keys: KeyMap | None = None) -> list[SkewedCosts]:
    """:func:`leveled_skew_costs` of each policy."""
    blocks = cache_blocks(system)
    return [t.costs(blocks) for t in leveled_skew_trees(
        policies, bits_per_key, system, workload, history_writes=history_writes, keys=keys)]


def universal_skew_costs(rules: UniversalRules, bits_per_key: float, system: System,
                         workload: Workload | None, *, preload: float, window: float,
                         history_writes: float = math.inf, keys: KeyMap | None = None,
                         cycle: bool = False) -> SkewedCosts:
    """S1, U5 (docs/MODEL.md) and S3-S8 for RocksDB's universal compaction under ``workload``'s
    skew and updates and ``system.cache_bytes``: the load of ``preload`` keys, then ``window``
    writes of the workload (``wacky_model.rocksdb_model.universal_rules`` reads the rules from
    an export). With ``cycle``, ``window`` is the least warm-up, and the costs are those of the
    next whole cycle of the largest run (from one full merge to the next; its writes are the
    costs' ``cycle_writes``). Per-level tuples are run ranks, newest first (U5r: the oldest run
    last); the write amplification is all in the first. ``system`` gives the keys
    (``entries``), the blocks and the cache."""
    tree = replace(universal_tree(rules, bits_per_key, entries=system.entries,
                                  entries_per_block=rocksdb_block_entries(system),
                                  workload=_priced_workload(workload, history_writes),
                                  preload=preload, window=window, keys=keys, cycle=cycle),
                   dead_blocks_cached=True)  # S6g
    return tree.costs(cache_blocks(system))


# Universal trees a search keeps: U5 walks the cycle flush by flush (0.6 to 2 s at the default
# System's 2^31 entries), and a recommendation prices its pick and runners-up again.
UNIVERSAL_TREES_KEPT = 32


@functools.lru_cache(maxsize=UNIVERSAL_TREES_KEPT)
def universal_cycle_tree(rules: UniversalRules, bits_per_key: float, system: System,
                         workload: Workload | None) -> SkewedTree:
    """U5 and S3-S4 for RocksDB's universal compaction under ``workload`` on ``system``, before
    the cache: the load of N keys, then the next whole cycle of the largest run after half a
    load more, as ``wacky sweep rocksdb-skew`` checks it against RocksDB
    (:func:`universal_skew_costs` with ``cycle``)."""
    return replace(universal_tree(rules, bits_per_key, entries=system.entries,
                                  entries_per_block=rocksdb_block_entries(system),
                                  workload=_priced_workload(workload, math.inf),
                                  preload=system.entries, window=system.entries / 2, cycle=True),
                   dead_blocks_cached=True)  # S6g


def universal_cycle_start(rules: UniversalRules, system: System, workload: Workload | None, *,
                          preload: float, window: float) -> int:
    """The full merges after the load that U5's replay sees up to the start of the cycle that
    :func:`universal_skew_costs` (``cycle=True``) prices: an engine's window starts at its
    own such full merge."""
    w = _priced_workload(workload, math.inf)
    keys = key_map(system.entries, w, tabulate=False)
    return universal_ledger(rules, preload, window, keys, cycle=True).merges_before


def rocksdb_block_entries(system: System) -> int:
    """S5's entries per cached block for stock RocksDB: its data blocks hold its own format's
    entries (the internal key's sequence number and the length varints besides the entry),
    fewer than ``system.entries_per_block``, so the same data takes more of the cache."""
    from cost_models.rocksdb_format import data_block_entries

    return data_block_entries(system.entry_bytes, system.block_bytes)


def cache_blocks(system: System) -> int:
    """The LRU cache's size in blocks."""
    return system.cache_bytes // system.block_bytes


def skew_costs(design: Design, system: System, workload: Workload | None, *,
               history_writes: float = math.inf, keys: KeyMap | None = None) -> SkewedCosts:
    """S1-S7 for ``design`` holding ``system.entries`` keys (arguments as :func:`skew_tree`)."""
    tree = skew_tree(design, system, workload, history_writes=history_writes, keys=keys)
    return tree.costs(cache_blocks(system))


def analysis_of(c: SkewedCosts) -> SkewAnalysis:
    """The plain-words face of the skew model's costs."""
    return SkewAnalysis(
        write_amp=c.write_amp, point_read=c.point_read, cache_hit_rate=c.cache_hit_rate,
        cache_hit_rate_per_level=c.cache_hit_rate_per_level,
        read_buffer_share=c.read_buffer_share, read_level_share=c.read_level_share,
        run_lifetime_writes=c.run_lifetime_writes, cycle_writes=c.cycle_writes,
        zero_result_read=c.zero_result_read,
        skew_aware_filters={"probe_weights": list(c.probe_weights),
                            "point_read": c.weighted_point_read,
                            "zero_result_read": c.weighted_zero_result_read,
                            "zero_result_read_app_c": c.zero_result_read})


def skew_analysis(design: Design, system: System, workload: Workload | None, *,
                  keys: KeyMap | None = None) -> SkewAnalysis:
    return analysis_of(skew_costs(design, system, workload, keys=keys))


def skew_theta_of(system: System, workload: Workload, finite: Any, *, point_read: float,
                  zero_result_read: float, write_amp: float, rho: float | None = None
                  ) -> float:
    """Theta under skew (``wacky_model.skew_search``'s doc) from the skew model's existing-key
    and zero-result reads (through the cache, S7 and S7f) and write amplification, and the
    finite model's other costs (``finite``, the design's ``SteadyCosts``); with ``rho``, its
    worst case over the mixes within KL ``rho`` (Endure's robust objective on the same row:
    each operation keeps its cost at the nominal mix)."""
    # Existing-key reads are priced as drawn from the read distribution (S3-S7), so the
    # worst case and the uniform expectation both give way to it.
    row = cost_row(point_read=point_read, zero_result_read=zero_result_read,
                   write_cost=write_amp / system.entries_per_block,
                   range_runs=finite.range_runs, filter_probes=finite.filter_probes)
    weights = (workload_vector(workload, system.write_cost_ratio, system.probe_cost)[None]
               if rho is None else
               robust_weights([workload], system.write_cost_ratio, rho, system.probe_cost))
    return float(theta_shared(row, weights)[0])
