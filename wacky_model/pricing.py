"""The one pricing function: any :class:`~wacky_model.config.Configuration`, any workload.

:func:`price` prices a configuration with the cycle model its compaction needs and the stages
the workload and the system put in play, and returns one cost type (:class:`Priced`) whose
``model`` and ``keys`` say what priced it:

* whole levels, uniform keys and no cache: the finite model (M1-M7), or the paper's Eq 8-16;
* whole levels under skewed keys, updates or a cache: the skew model (S1-S8);
* files: the partial-merge model (P1-P7) with the engine's sizing, or stock RocksDB's;
* universal: U1-U4, and under skewed keys, updates or a cache U5 over a cycle of the largest
  run;
* then stages on the cycle model's result: G1 when the system pages its filters and indexes
  through the block cache (stock RocksDB leveled configurations and the native engine's files;
  under skewed reads G1 under skew, the block cache then G1's, not the skew model's); F1-F4
  when Tidal-tree floats hot files (the checks an existing-key read saves, at the system's
  probe cost, and the floats' writes); and D1 when levels sit on devices of different costs
  (each level's I/O, from the per-level ledger, at its device's: the cycle model's, or under
  skew or a cache the whole-level skew model's terms, :func:`skewed_ledger`).

Θ is Eq 16 applied once (:mod:`cost_models.objective`) to the cost row, with the workload's
weights, or with ``rho`` the robust objective's worst case. The search prices its tables with
the same models in batches; this is the function that prices one configuration, which a
recommendation's cost can always be checked against.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cost_models.devices import (
    DeviceCosts,
    LevelLedger,
    device_costs,
    skew_ledger,
    with_floats,
)
from cost_models.objective import COST_ROW, cost_row, theta_shared
from cost_models.tidal import FloatCosts
from wacky_model.config import Configuration, Memory, features_of, keys_of, weights_of
from wacky_model.types import Compaction, Design, System, Workload, check_types

# What priced a configuration (Priced.model).
MODELS = ("finite", "paper", "skew", "files", "rocksdb", "universal")
# A file-granular configuration is priced over a window of this many flushes from the settled
# tree (P5), as the search's file side and the RocksDB target price it.
WINDOW_FLUSHES = 256


@dataclass(frozen=True)
class Priced:
    """The one cost type: a configuration's costs per operation, the cost row Θ is linear in
    (:data:`cost_models.objective.COST_ROW`), Θ, and what priced them."""

    configuration: Configuration
    model: str  # the cycle model (MODELS), or "skew" when S1-S8 priced whole levels
    keys: str  # the key distributions and cache the costs assume, in words
    write_amp: float
    point_read: float  # an existing key: Level L's (the paper's worst case), or under skew drawn
    zero_result_read: float
    range_runs: float  # a range read's seeks: runs visited (stock RocksDB's through its cache, S7r)
    memory_bits_per_entry: float
    row: np.ndarray
    theta: float  # Eq 16 (with rho: the worst case within KL rho)
    cache_hit_rate: float | None = None
    detail: Any = None  # the model's own result (its per-level figures)
    devices: DeviceCosts | None = None  # D1, when levels are placed on devices
    floating: FloatCosts | None = None  # F1-F4, when hot files float (Compaction.floating)
    ledger: LevelLedger | None = None  # D1's per-level I/O, when levels are placed on devices

    def to_dict(self) -> dict[str, Any]:
        return {"configuration": self.configuration.to_dict(), "model": self.model,
                "keys": self.keys, "theta": self.theta, "write_amp": self.write_amp,
                "point_read": self.point_read, "zero_result_read": self.zero_result_read,
                "range_runs": self.range_runs, "memory_bits_per_entry": self.memory_bits_per_entry,
                "cache_hit_rate": self.cache_hit_rate,
                "row": dict(zip(COST_ROW, map(float, self.row), strict=True)),
                "devices": None if self.devices is None else dict(self.devices.__dict__),
                "floating": None if self.floating is None else {
                    k: float(v) if not isinstance(v, tuple) else list(v)
                    for k, v in self.floating.__dict__.items()}}


def price(config: Configuration, workload: Workload, system: System, *, model: str = "finite",
          rho: float | None = None) -> Priced:
    """``config`` on ``system`` under ``workload`` (module doc): the cycle model its compaction
    needs, then the skew stage when the workload or the system put it in play, then Θ.
    ``model`` chooses the finite model or the paper's for whole levels; combinations
    :mod:`wacky_model.compat` refuses raise ``ValueError``."""
    from wacky_model.compat import check, features_in
    from wacky_model.skew import needs_skew_model

    check_types(workload=workload, system=system)
    features = features_in(workload, system, model, rho) | features_of(config)
    if config.memory is not None:  # the configuration fixes the hash levels: none are "given"
        features.discard("hash_levels")
    check(features)
    s = config.system(system)
    c = config.compaction
    name, costs = _cycle(config, s, model)
    if s.paged_metadata:
        costs = _paged(config, s, costs, workload)
    probes = getattr(costs, "filter_probes", costs.range_runs)
    point_read, write_amp, hit, detail = costs.point_read, costs.write_amp, None, costs
    zero_result_read = costs.zero_result_read
    ranges = None  # S7r: stock RocksDB's range reads through its cache, (runs, spread)
    skew_parts = None  # the skew model's (tree, costs), for D1's ledger
    if needs_skew_model(workload, s):
        if c.granularity == "file" or c.style == "universal":
            from wacky_model.skew import analysis_of

            blocks = s.cache_bytes // s.block_bytes
            tree = file_skew_trees([config], s, workload)[0]
            raw = tree.costs(blocks)
            ranges = cached_ranges(config, raw, blocks)
            k = analysis_of(raw)
            skew_parts = (tree, raw)
        else:
            from wacky_model.skew import analysis_of, cache_blocks, skew_tree

            tree = skew_tree(config.design, s, workload)
            raw = tree.costs(cache_blocks(s))
            k = analysis_of(raw)
            name = "skew"
            skew_parts = (tree, raw)
        point_read, write_amp, hit, detail = k.point_read, k.write_amp, k.cache_hit_rate, k
        zero_result_read = k.zero_result_read
    floated = None
    if c.floating is not None:
        # F1-F4: each existing-key read checks fewer files, each check a filter probe at the
        # system's probe cost; the floats write, and their entries go down again.
        floated = floating_costs(config, s, workload, costs)
        point_read -= s.probe_cost * (floated.probes_off - floated.probes_on)
        write_amp += floated.extra_writes
    # Under skew, existing-key reads are drawn from the read distribution (S3-S7): the worst
    # case and the uniform expectation both give way to it.
    range_runs = costs.range_runs if ranges is None else ranges[0]
    row = cost_row(point_read=point_read, zero_result_read=zero_result_read,
                   write_cost=write_amp / s.entries_per_block, range_runs=range_runs,
                   range_spread=1.0 if ranges is None else ranges[1],
                   point_read_uniform=(costs.point_read_uniform if hit is None and detail is costs
                                       else None), filter_probes=probes)
    on_devices = ledger = None
    if "devices" in features:
        ledger = (ledger_of(costs) if detail is costs
                  else skewed_ledger(costs, skew_parts, cached=ranges is not None))
        saved = 0.0
        if floated is not None:
            ledger = floated_ledger(ledger, floated, 1.0 if hit is None else 1.0 - hit)
            saved = s.probe_cost * (floated.probes_off - floated.probes_on)
        on_devices = placed_costs(ledger, c.level_devices, s)
        # D1: each level's I/O at its device's costs. Θ's weights carry φ for writes, which
        # the device costs include: the row's write term is in units of φ. A range's scanned
        # blocks (S7r's spread) are not placed: D1 prices its seeks. Floating's saved checks
        # are filter probes in memory, on no device.
        row = cost_row(point_read=on_devices.point_read - saved,
                       zero_result_read=on_devices.zero_result_read,
                       write_cost=on_devices.write_cost / s.write_cost_ratio,
                       range_runs=on_devices.range_runs,
                       range_spread=1.0 if ranges is None else ranges[1],
                       point_read_uniform=(on_devices.point_read_uniform
                                           if hit is None and detail is costs else None),
                       filter_probes=probes)
    theta = float(theta_shared(row, weights_of(workload, s, rho))[0])
    return Priced(config, name, keys_of(workload, s), float(write_amp), float(point_read),
                  float(zero_result_read), float(range_runs),
                  float(costs.memory_bits_per_entry), row, theta, hit, detail, on_devices,
                  floated, ledger)


def _paged(config: Configuration, system: System, costs: Any, workload: Workload) -> Any:
    """G1: the reads of a leveled configuration of files with paged metadata: stock RocksDB's
    (cache_index_and_filter_blocks) or the native engine's (``Engine(paged_metadata=True)``),
    existing keys drawn by the workload's reads (G1 under skew when they are skewed)."""
    c = config.compaction
    if config.target == "native" and c.granularity == "file" and c.style == "wacky":
        from wacky_model.files import native_paged_costs

        return native_paged_costs(costs, config.design, system, c, workload.read_keys)
    if config.target != "rocksdb" or c.style == "universal":
        raise ValueError(
            "paged metadata (System.paged_metadata) is priced for levels of files: stock "
            "RocksDB's leveled compaction (cache_index_and_filter_blocks) or the native "
            "engine's granularity='file' (paged_metadata=True); a whole level's filter would "
            "be one block of the level's size, and universal compaction's runs are not priced "
            "by G1 yet")
    from wacky_model.rocksdb_model import paged_costs

    return paged_costs(costs, stock_export(config, system), workload.read_keys)


def floating_costs(config: Configuration, system: System, workload: Workload,
                   costs: Any) -> FloatCosts:
    """F1-F4 for a file-granular native configuration with ``Compaction.floating``, over the
    pricing window (``WINDOW_FLUSHES`` flushes from the settled tree, eta at the workload's):
    the files an existing-key read checks without and with floating, and the floats' writes."""
    from cost_models.tidal import FloatCosts, float_costs, float_tree
    from wacky_model.files import native_policy

    c = config.compaction
    reads = workload.point_reads + workload.zero_reads
    if workload.read_keys.kind == "latest":
        raise ValueError(
            "floating (Tidal-tree) is priced for reads of keys scattered over the key space "
            "(uniform, zipf, hotset): latest reads' hot keys are the newest, already above every "
            "older file, which F3 does not describe (and floating cannot help)")
    if workload.update_fraction > 0.0 or not workload.write_keys.is_uniform:
        raise ValueError("floating (Tidal-tree) is priced for inserts of new keys: updates "
                         "rewrite the keys they touch at the top of the tree, which F3 does "
                         "not describe yet (update_fraction 0 and uniform write_keys)")
    window = getattr(costs, "window", None)
    if window is None or workload.writes <= 0.0 or workload.point_reads <= 0.0:
        # No flush, no float (floats happen at flushes); no existing-key read, nothing saved.
        probes = 1.0
        return FloatCosts(probes, probes, 0.0, 0.0, 0.0, ())
    policy = native_policy(config.design, system, c)
    tree = float_tree(window, policy)
    return float_costs(tree, c.floating, workload.read_keys, int(system.entries),
                       reads / workload.writes, WINDOW_FLUSHES,
                       existing_share=workload.point_reads / reads)


def ledger_of(costs: Any) -> LevelLedger:
    """D1's per-level ledger of a cycle model's costs, level 0 first: the partial-merge
    model's (files) or the finite model's (whole levels, whose level 0 holds nothing)."""
    ledger = getattr(costs, "ledger", None)
    if ledger is None:
        raise ValueError("levels on devices (D1) need the finite model's or the partial-merge "
                         "model's per-level costs")
    return ledger


def skewed_ledger(costs: Any, skew_parts: tuple[Any, Any] | None, *,
                  cached: bool = False) -> LevelLedger:
    """D1's ledger under the skew model (docs/MODEL.md "D1 under skew"): the skew model's
    ``(tree, costs)`` split by level, each of its levels at its engine level (whole levels:
    Levels 1..L at ledger levels 1..L, level 0 holding nothing; files, S2f: the tree's
    ``engine_levels``, level 0's runs at 0). Range seeks are the uniform model's (``costs``'
    ledger), as the price takes them, or with ``cached`` S7r's through the cache, level by
    level (stock RocksDB's iterators read through it)."""
    if skew_parts is None:
        raise ValueError("levels on devices (D1) with skewed keys or a cache need the skew "
                         "model's tree and costs")
    from cost_models.skew import cached_range_seeks

    tree, raw = skew_parts
    runs = ledger_of(costs).range_runs
    n = len(raw.level_write_amp)
    at = list(range(1, 1 + n) if tree.engine_levels is None else tree.engine_levels)
    # The skew model's tree can hold a level fewer than the uniform model's (under updates its
    # levels hold distinct keys and their duplicates) or more (S2f's walk is taken at the keys
    # and their duplicates): the ledger spans both, each summing to its own model's totals.
    levels = max(len(runs), 1 + max(at, default=0))
    if cached:
        seeks = np.zeros(levels)
        seeks[at] = cached_range_seeks(raw)
    else:
        seeks = np.pad(runs, (0, levels - len(runs)))
    return skew_ledger(raw, tree.false_positives, tree.fpr, tree.probed, at, levels, seeks)


def floated_ledger(ledger: LevelLedger, floated: FloatCosts, miss: float) -> LevelLedger:
    """D1's ledger with floating (docs/MODEL.md "Floating on devices"): F4's writes at the
    levels they go into, and the existing-key reads F3 moves up, each a block read at its new
    level instead of its old one for the share ``miss`` of reads the cache does not serve
    (1 without a cache; the reads' overall miss rate with one)."""
    on, off = (np.asarray(x, dtype=float) for x in (floated.read_share_by_level,
                                                    floated.read_share_off))
    moved = (on - off) * miss if on.size and off.size == on.size else np.zeros(0)
    return with_floats(ledger, floated.extra_writes_by_level, moved)


def placed_costs(ledger: LevelLedger, level_devices: tuple[int, ...],
                 system: System) -> DeviceCosts:
    """D1 on ``system``'s devices (the own device alone when it lists none)."""
    reads, writes = system.device_costs
    return device_costs(ledger, level_devices, reads, writes, system.entries_per_block,
                        system.entry_bytes)


def _cycle(config: Configuration, system: System, model: str) -> tuple[str, Any]:
    """The cycle model's name and costs (uniform keys, no cache)."""
    c = config.compaction
    if c.granularity == "file" or c.style == "universal":
        costs = _file_costs(config.design, c, system)
        return ("universal" if c.style == "universal" else
                "rocksdb" if config.target == "rocksdb" else "files"), costs
    from wacky_model.analysis import analyze

    a = analyze(config.design, system, realizable=True)
    return model, (a.finite if model == "finite" else a)


@functools.lru_cache(maxsize=4096)
def _file_costs(design: Design, compaction: Compaction, system: System) -> Any:
    """The partial-merge (or universal) model's costs over ``WINDOW_FLUSHES`` flushes from the
    settled tree, as the search's file side and the RocksDB target price them (P5)."""
    if compaction.sizing == "wacky" and compaction.style == "wacky":
        from wacky_model.files import native_file_costs

        return native_file_costs(design, system, compaction, system.entries,
                                 WINDOW_FLUSHES * system.buffer_entries, settled=True)
    if compaction.style == "universal":
        from wacky_model.rocksdb_model import universal_costs_of
        from wacky_model.rocksdb_options import rocksdb_export

        # N inserts after a preload of N, the window docs/VALIDATION.md checks U1-U4 on: a
        # shorter one may end before the size-amplification rule's next full merge.
        return universal_costs_of(rocksdb_export(design, system, universal=compaction.universal),
                                  system.entries, system.entries)
    return stock_windows([Configuration(design, compaction, Memory.of(system))], system)[0]


def universal_costs(config: Configuration, system: System) -> Any:
    """U1-U4's costs (``LeveledCosts``) of a universal compaction configuration at its memory on
    ``system``."""
    if config.compaction.style != "universal":
        raise ValueError("universal_costs prices universal compaction (style='universal')")
    return _file_costs(config.design, config.compaction, config.system(system))


def stock_export(config: Configuration, system: System) -> Any:
    """The RocksDB options of a stock leveled configuration (RocksDB's sizing) on ``system``."""
    from wacky_model.rocksdb_options import rocksdb_export

    c, m = config.compaction, config.memory
    if c.sizing == "wacky" or c.style != "wacky" or m is None:
        raise ValueError("a stock RocksDB leveled configuration has files with RocksDB's sizing "
                         "and a fixed memory")
    at = replace(system, buffer_bytes=m.buffer_bytes, bits_per_entry=m.filter_bits_per_entry,
                 sum_fpr=None, memory_bits_per_entry=None)
    return rocksdb_export(config.design, at, c.level1_runs, c.file_bytes,
                          dynamic=c.sizing == "dynamic", level_base_bytes=c.level_base_bytes)


def stock_windows(configs: list[Configuration], system: System) -> list[Any]:
    """The partial-merge model's costs (``LeveledCosts``) of stock RocksDB leveled
    configurations over ``WINDOW_FLUSHES`` flushes from the settled tree (P5), their windows
    walked as one batch; one bits per key, as RocksDB builds its filters."""
    from cost_models.finite import realized_fpr
    from cost_models.partial import window_costs_many
    from wacky_model.files import window_reads
    from wacky_model.rocksdb_model import leveled_policy

    policies = [leveled_policy(stock_export(c, system)) for c in configs]
    windows = window_costs_many(policies, system.entries,
                                [WINDOW_FLUSHES * p.flush_entries for p in policies],
                                settled=True)
    out = []
    for config, w in zip(configs, windows, strict=True):
        assert config.memory is not None
        bits = config.memory.filter_bits_per_entry
        p = float(realized_fpr(bits))
        out.append(window_reads(w, np.full(len(w.level_entries), p), p, bits))
    return out


def file_skew_trees(configs: list[Configuration], system: System, workload: Workload,
                    keys: Any = None) -> list[Any]:
    """S2f and S3-S4 of file-granular configurations sharing ``system``'s memory, before the
    cache (``.costs(cache_blocks)`` adds S5-S7): the native engine's
    (``wacky_model.skew.file_skew_trees``) or stock RocksDB's leveled compaction
    (``leveled_skew_trees``), or its universal compaction over a cycle of the largest run
    (U5, ``universal_cycle_tree``)."""
    from wacky_model import skew
    from wacky_model.rocksdb_model import leveled_policy, universal_rules
    from wacky_model.rocksdb_options import rocksdb_export

    keys = skew.skew_key_map(system, workload) if keys is None else keys
    out: list[Any] = [None] * len(configs)
    native = [i for i, c in enumerate(configs) if c.target == "native"]
    if native:
        trees = skew.file_skew_trees([configs[i].design for i in native], system,
                                     [configs[i].compaction for i in native], workload,
                                     keys=keys)
        for i, t in zip(native, trees, strict=True):
            out[i] = t
    stock = [i for i, c in enumerate(configs) if c.target == "rocksdb"
             and c.compaction.style != "universal"]
    if stock:
        trees = skew.leveled_skew_trees(
            [leveled_policy(stock_export(configs[i], system)) for i in stock],
            [configs[i].memory.filter_bits_per_entry for i in stock],  # type: ignore[union-attr]
            system, workload, keys=keys)
        for i, t in zip(stock, trees, strict=True):
            out[i] = t
    for i, c in enumerate(configs):
        if c.compaction.style == "universal":
            export = rocksdb_export(c.design, system, universal=c.compaction.universal)
            out[i] = skew.universal_cycle_tree(universal_rules(export), export.bits_per_key,
                                               system, workload)
    return out


def skewed(costs: Any, point_read: float, write_amp: float, zero_result_read: float, *,
           ranges: tuple[float, float] | None = None) -> Any:
    """A file-granular configuration's costs (``LeveledCosts``) with the skew stage's existing-key
    and zero-result reads (through the cache, S7 and S7f) and write amplification: its cost row
    is then the skewed one (existing-key reads drawn from the read distribution, so the worst
    case and the uniform expectation both give way). ``ranges``: range reads' ``(range_runs,
    range_spread)`` through the cache (S7r, :func:`cached_ranges`), None to leave them."""
    out = replace(costs, point_read=point_read, point_read_uniform=point_read,
                  write_amp=write_amp, zero_result_read=zero_result_read)
    if ranges is not None:
        out = replace(out, cached_range_runs=float(ranges[0]), range_spread=float(ranges[1]))
    return out


def reads_through_cache(config: Configuration) -> bool:
    """Whether range reads are priced through the block cache (S7r): stock RocksDB's
    configurations, leveled and universal, whose iterators read through it (U5r: a universal
    configuration's levels are its runs by rank). The native engine's scans do not use its
    cache."""
    return config.target == "rocksdb"


def cached_ranges(config: Configuration, k: Any, cache_blocks: float
                  ) -> tuple[float, float] | None:
    """Range reads' ``(range_runs, range_spread)`` through a cache of ``cache_blocks`` blocks
    (S7r, :func:`cost_models.skew.cached_range`) for ``config`` from the skew stage's ``k``
    (``SkewedCosts``: its levels, the tree the cached shares belong to); None where they are
    not priced so (:func:`reads_through_cache`) or there is no cache, the uniform model's
    runs then standing."""
    if not reads_through_cache(config) or cache_blocks <= 0:
        return None
    from cost_models.skew import cached_range_of

    return cached_range_of(k)


def universal_range_floor(config: Configuration, system: System
                          ) -> tuple[float, float] | None:
    """A lower bound on :func:`cached_ranges` for a universal configuration on ``system`` (its
    memory split, as :func:`file_skew_trees` builds its tree) that needs no walk of U5's cycle
    (:func:`cost_models.skew.universal_range_bound`); None where :func:`cached_ranges` is, the
    uniform model's runs then standing in the price too."""
    blocks = system.cache_bytes // system.block_bytes
    if config.compaction.style != "universal" or not reads_through_cache(config) or blocks <= 0:
        return None
    from cost_models.skew import universal_range_bound
    from wacky_model.rocksdb_model import universal_rules
    from wacky_model.rocksdb_options import rocksdb_export
    from wacky_model.skew import rocksdb_block_entries

    export = rocksdb_export(config.design, system, universal=config.compaction.universal)
    return universal_range_bound(universal_rules(export), system.entries, blocks,
                                 rocksdb_block_entries(system))


def skewed_by(config: Configuration, costs: Any, k: Any, cache_blocks: float) -> Any:
    """:func:`skewed` with the skew stage's costs ``k`` (``SkewedCosts``) for ``config``, range
    reads through a cache of ``cache_blocks`` blocks where :func:`cached_ranges` prices them:
    the one way the search, the RocksDB tuner and :func:`price` price a file-granular
    configuration under skew or a cache."""
    return skewed(costs, k.point_read, k.write_amp, k.zero_result_read,
                  ranges=cached_ranges(config, k, cache_blocks))
