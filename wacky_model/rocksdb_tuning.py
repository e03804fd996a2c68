"""``wacky recommend --target rocksdb``: the stock RocksDB configuration with the lowest Θ (Eq 16)
for a workload, priced by the partial-merge model of RocksDB's leveled compaction
(:mod:`wacky_model.rocksdb_model`).

It searches only what stock RocksDB runs: leveled compaction with its multiplier, level-0
trigger, first-level size (``max_bytes_for_level_base``) and target file size, with
``level_compaction_dynamic_level_bytes`` on (RocksDB's default since 8.4; the static targets price
the same once the levels have settled), the buffer and one bits per key (the memory split, when
the system gives a total memory budget), and universal compaction with its own options (the
trigger and the size-amplification limit, :data:`UNIVERSAL_TRIGGERS` and :data:`UNIVERSAL_AMPS`;
U1-U4 in docs/MODEL.md). Under skewed keys, updates or a cache, its best two by the uniform Θ are
priced again by its skew stage (U5, over a cycle of the largest run), beside leveled compaction's
best by S2f (``wacky_model.granularity.file_pick``).

The costs are those of a window of inserts into a store of N entries that has settled (P2 in
docs/MODEL.md), ``WINDOW_FLUSHES`` flushes long. The answer carries the same costs for RocksDB's
own defaults (scaled to this buffer) and for the best multiplier with the other options at their
defaults, and a line per knob saying, in Θ, what the choice gained over its runner-up.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from cost_models.objective import theta_shared
from cost_models.universal import FULL_MERGE_PEAK_SPACE, UniversalOptions
from wacky_model.config import Configuration, Memory, weights_of
from wacky_model.devices import DeviceProfile
from wacky_model.files import LeveledCosts
from wacky_model.granularity import FileGrid, FilePick, Neighbors, file_pick, grid_read_keys
from wacky_model.guardrails import DEFAULT_CONSTRAINTS, Constraints
from wacky_model.pricing import stock_windows
from wacky_model.rocksdb_options import RocksDBExport, rocksdb_export
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload

MULTIPLIERS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0)
TRIGGERS = (1, 2, 4, 8)
FILE_SIZES = (0.25, 1.0, 4.0)  # times the buffer
LEVEL_BASES = (1, 2, 4, 8, 16)  # first-level sizes, in buffers
BUFFER_SHARES = (1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2)  # of the memory, with a memory budget
WINDOW_FLUSHES = 256
# Universal compaction's triggers and max_size_amplification_percent (min_merge_width 2, size
# ratio 1 and no widest merge, RocksDB's defaults). RocksDB's trigger of 4 is left out: at 2^15
# flushes its run-count rule rewrites the newest large run at every flush (write amplification
# about 1,700 under U1-U4), and 8 is 31; from 16 up it is 4 to 8.
UNIVERSAL_TRIGGERS = (16, 24, 32, 48, 64)
UNIVERSAL_AMPS = (200.0, 400.0)
# RocksDB's defaults: 64 MiB buffer, level-0 trigger 4, a 256 MiB first level, multiplier 10,
# 64 MiB files, static targets (7.8; 8.4 turned dynamic on).
DEFAULT_TRIGGER = 4
DEFAULT_BASE_BUFFERS = 4
DEFAULT_MULTIPLIER = 10.0


@dataclass(frozen=True)
class RocksDBConfig:
    """One stock RocksDB leveled configuration."""

    multiplier: float
    level0_trigger: int
    dynamic: bool
    file_bytes: int
    buffer_bytes: int
    bits_per_key: float
    level_base_bytes: int

    @property
    def design(self) -> Design:
        """The merge policy: Leveling with one ratio and one bits per key at every level."""
        T = self.multiplier
        return Design(T, T - 1.0, 1.0, 0.0, 0.0, "uniform")

    @property
    def configuration(self) -> Configuration:
        """The same configuration in the library's one type (wacky_model.config)."""
        return Configuration(self.design, Compaction(
            "file", self.file_bytes, self.level0_trigger,
            sizing="dynamic" if self.dynamic else "static",
            level_base_bytes=self.level_base_bytes),
            Memory(self.buffer_bytes, float(self.bits_per_key)))

    @staticmethod
    def of(config: Configuration) -> RocksDBConfig:
        """The stock RocksDB leveled configuration ``config`` describes (RocksDB's sizing)."""
        d, c, m = config.design, config.compaction, config.memory
        if c.sizing == "wacky" or c.style != "wacky" or m is None or d.filters != "uniform" \
                or (d.K, d.Z, d.X) != (0.0, 0.0, 1.0) or d.C != d.T - 1.0:
            raise ValueError("a stock RocksDB leveled configuration is Leveling with C = T - 1, "
                             "uniform filters, files with RocksDB's sizing and a fixed memory")
        assert c.file_bytes is not None and c.level_base_bytes is not None
        return RocksDBConfig(d.T, c.level1_runs, c.sizing == "dynamic", c.file_bytes,
                             m.buffer_bytes, m.filter_bits_per_entry, c.level_base_bytes)

    def export(self, system: System) -> RocksDBExport:
        return rocksdb_export(self.design, self.system(system), self.level0_trigger,
                              self.file_bytes, dynamic=self.dynamic,
                              level_base_bytes=self.level_base_bytes)

    def system(self, system: System) -> System:
        return replace(system, buffer_bytes=self.buffer_bytes,
                       bits_per_entry=self.bits_per_key, sum_fpr=None,
                       memory_bits_per_entry=None)

    style = "leveled"  # the compaction style, and the model that prices it
    model = "partial-merge"

    def options_text(self) -> str:
        """The options on one line, as RocksDB names them."""
        return (f"write_buffer_size={self.buffer_bytes:,} max_bytes_for_level_multiplier="
                f"{self.multiplier:g} level0_file_num_compaction_trigger={self.level0_trigger} "
                f"max_bytes_for_level_base={self.level_base_bytes:,} target_file_size_base="
                f"{self.file_bytes:,} level_compaction_dynamic_level_bytes="
                f"{str(self.dynamic).lower()}, {self.bits_per_key:.3g} bits per key")

    def to_dict(self) -> dict:
        return {"max_bytes_for_level_multiplier": self.multiplier,
                "level0_file_num_compaction_trigger": self.level0_trigger,
                "level_compaction_dynamic_level_bytes": self.dynamic,
                "target_file_size_base": self.file_bytes,
                "write_buffer_size": self.buffer_bytes,
                "bits_per_key": self.bits_per_key,
                "max_bytes_for_level_base": self.level_base_bytes}


@dataclass(frozen=True)
class UniversalConfig:
    """One stock RocksDB universal compaction configuration: its options and its memory."""

    options: UniversalOptions
    buffer_bytes: int
    bits_per_key: float

    @property
    def design(self) -> Design:
        """A label only: universal compaction's options, not a design, set its merges."""
        return Design(2.0, 1.0, 1.0, 1.0, 1.0, "uniform")

    @property
    def configuration(self) -> Configuration:
        return Configuration(self.design, Compaction(style="universal", universal=self.options),
                             Memory(self.buffer_bytes, float(self.bits_per_key)))

    @property
    def trigger(self) -> int:
        return self.options.trigger

    @property
    def max_size_amplification_percent(self) -> float:
        return self.options.max_size_amplification_percent

    style = "universal"
    model = "U1-U4"

    def options_text(self) -> str:
        u = self.options
        return (f"write_buffer_size={self.buffer_bytes:,} compaction_style="
                f"kCompactionStyleUniversal level0_file_num_compaction_trigger={u.trigger} "
                f"size_ratio={u.size_ratio:g} min_merge_width={u.min_merge_width} "
                f"max_size_amplification_percent={u.max_size_amplification_percent:g}, "
                f"{self.bits_per_key:.3g} bits per key")

    @staticmethod
    def from_dict(fields_: dict) -> UniversalConfig:
        """The inverse of ``dataclasses.asdict``."""
        return UniversalConfig(UniversalOptions(**fields_["options"]), fields_["buffer_bytes"],
                               fields_["bits_per_key"])

    def export(self, system: System) -> RocksDBExport:
        return rocksdb_export(self.design, self.system(system), universal=self.options)

    def system(self, system: System) -> System:
        return replace(system, buffer_bytes=self.buffer_bytes,
                       bits_per_entry=self.bits_per_key, sum_fpr=None,
                       memory_bits_per_entry=None)

    def to_dict(self) -> dict:
        return {"compaction_style": "universal", "write_buffer_size": self.buffer_bytes,
                "bits_per_key": self.bits_per_key,
                "level0_file_num_compaction_trigger": self.options.trigger,
                "compaction_options_universal": {
                    f.name: getattr(self.options, f.name) for f in fields(UniversalOptions)
                    if f.name != "trigger"}}


StockConfig = RocksDBConfig | UniversalConfig


def stock_config(config: Configuration) -> StockConfig:
    """The stock RocksDB configuration ``config`` describes: universal compaction's, or
    leveled compaction's (:meth:`RocksDBConfig.of`)."""
    c, m = config.compaction, config.memory
    if c.style == "universal" and c.universal is not None and m is not None:
        return UniversalConfig(c.universal, m.buffer_bytes, m.filter_bits_per_entry)
    return RocksDBConfig.of(config)


@dataclass(frozen=True)
class StockPriced:
    """A stock configuration in RocksDB's terms with its costs and Θ, for the report beside the
    pick (wacky_model.pricing.Priced is the one cost type of any configuration)."""

    config: StockConfig
    costs: LeveledCosts
    theta: float

    @property
    def transient_space(self) -> float:
        """T5: the SST files' peak during compactions over the data. RocksDB deletes each
        compaction's inputs once it is installed, so a leveled tree's peak is the data plus its
        largest single merge (the partial walk's); universal compaction's full merge rewrites
        every run while they are all on disk (docs/MODEL.md "T5")."""
        return self.costs.transient_space(stock=True)


@dataclass(frozen=True)
class RocksDBRecommendation:
    workload: Workload
    system: System
    best: StockPriced
    default: StockPriced  # RocksDB's defaults scaled to the buffer, the same bits per key
    best_multiplier_only: StockPriced  # the best multiplier, the other options at the defaults
    reasons: tuple[str, ...]  # per knob: the choice against its runner-up, in Θ (T7: in time)
    configurations: int
    objective: str = "io"  # or "throughput": T7's least time on a machine

    @property
    def export(self) -> RocksDBExport:
        return self.best.config.export(self.system)

    def to_dict(self) -> dict:
        def one(p: StockPriced) -> dict:
            c = p.costs
            return {"options": p.config.to_dict(), "theta": p.theta,
                    "write_amp": c.write_amp, "zero_result_read": c.zero_result_read,
                    "point_read": c.point_read, "range_runs": c.range_runs,
                    "transient_space": p.transient_space}
        return {"target": "rocksdb", "objective": self.objective, "best": one(self.best),
                "rocksdb_defaults": one(self.default),
                "best_multiplier_only": one(self.best_multiplier_only),
                "gain_over_defaults": 1.0 - self.best.theta / self.default.theta,
                "reasons": list(self.reasons), "configurations": self.configurations,
                "export": self.export.to_dict()}


def price(config: RocksDBConfig, workload: Workload, system: System,
          rho: float | None = None) -> StockPriced:
    """Θ of one configuration (with ``rho``, its worst case nearby, Endure's robust
    objective)."""
    return _priced((config, _windows([config], system, grid_read_keys(workload, system))[0]),
                   workload, system, rho)


def _windows(configs: list[StockConfig], system: System,
             read_keys: KeyDistribution | None = None) -> list[LeveledCosts]:
    """The costs of each configuration (:func:`_walked`, then :func:`_paged`)."""
    return _paged(configs, _walked(configs, system), system, read_keys)


def _walked(configs: list[StockConfig] | tuple[StockConfig, ...], system: System
            ) -> list[LeveledCosts]:
    """The costs of each configuration before G1: leveled ones' windows walked as one batch,
    universal ones by U1-U4 (``wacky_model.pricing``)."""
    from wacky_model.pricing import universal_costs

    leveled = [i for i, c in enumerate(configs) if isinstance(c, RocksDBConfig)]
    out: list = [None] * len(configs)
    for i, costs in zip(leveled, stock_windows([configs[i].configuration for i in leveled],
                                               system), strict=True):
        out[i] = costs
    for i, c in enumerate(configs):
        if out[i] is None:
            out[i] = universal_costs(c.configuration, c.system(system))
    return out


def _paged(configs: list[StockConfig] | tuple[StockConfig, ...],
           costs: list[LeveledCosts] | tuple[LeveledCosts, ...], system: System,
           read_keys: KeyDistribution | None) -> list[LeveledCosts]:
    """``costs`` of ``configs`` with G1's reads through the block cache under paged metadata
    (leveled ones; existing keys drawn by ``read_keys``, :func:`grid_read_keys`: G1 under
    skew); as they are otherwise."""
    if not system.paged_metadata:
        return list(costs)
    from wacky_model.rocksdb_model import paged_costs

    return [paged_costs(k, c.export(system), read_keys) if isinstance(c, RocksDBConfig) else k
            for c, k in zip(configs, costs, strict=True)]


@functools.lru_cache(maxsize=16)
def _walked_options(system: System, level0_trigger: int | None, universal: bool
                    ) -> tuple[tuple[tuple[StockConfig, ...], tuple[LeveledCosts, ...]], ...]:
    """The configurations :func:`stock_grid` searches, per memory option, with their costs
    before G1 (:func:`_walked`): the walks, which depend on the system alone, kept so that
    each workload's keys re-price them under paged metadata without walking again."""
    triggers = TRIGGERS if level0_trigger is None else (level0_trigger,)
    out = []
    for buffer, bits in _memory_options(system):
        configs: list[StockConfig] = []
        for T, k, base, share in itertools.product(MULTIPLIERS, triggers, LEVEL_BASES,
                                                   FILE_SIZES):
            config = RocksDBConfig(T, k, True, max(system.block_bytes, int(share * buffer)),
                                   buffer, bits, base * buffer)
            try:
                config.export(system)
            except ValueError:  # a file larger than the first level at this N: not a choice
                continue
            configs.append(config)
        # G1 prices leveled compaction's files; universal runs are left out under paged metadata.
        if universal and level0_trigger is None and not system.paged_metadata:
            configs += [UniversalConfig(UniversalOptions(
                trigger=k, max_size_amplification_percent=a), buffer, bits)
                for k, a in itertools.product(UNIVERSAL_TRIGGERS, UNIVERSAL_AMPS)]
        if configs:
            out.append((tuple(configs), tuple(_walked(configs, system))))
    return tuple(out)


@functools.lru_cache(maxsize=16)
def stock_grid(system: System, constraints: Constraints | None = None,
               level0_trigger: int | None = None, universal: bool = True,
               read_keys: KeyDistribution | None = None
               ) -> tuple[tuple[System, FileGrid], ...]:
    """The stock RocksDB configurations the target searches (module doc), priced, as one grid
    per memory option (``wacky_model.search``'s file side searches them as it searches the
    native engine's file-granular grid): (the system at that memory, its grid). With
    ``constraints``, only the configurations they allow; ``level0_trigger`` pins leveled
    compaction's trigger (and leaves universal compaction out, as ``universal=False`` does);
    ``read_keys``: the workload's (:func:`grid_read_keys`, None but under paged metadata).
    Costs depend on these alone, so the last 16 grids are kept."""
    if system.sum_fpr is not None:
        raise ValueError("--target rocksdb takes the filter memory as bits per key "
                         "(--bits-per-entry) or a total memory budget, not --sum-fpr")
    out = []
    for configs, walked in _walked_options(system, level0_trigger, universal):
        at = configs[0].system(system)
        costs = _paged(configs, walked, system, read_keys)
        keep = [i for i, (c, p) in enumerate(zip(configs, costs, strict=True))
                if _allowed(constraints, c, p, system)]
        if keep:
            chosen = [configs[i].configuration for i in keep]
            out.append((at, FileGrid(tuple(c.design for c in chosen),
                                     tuple(c.compaction for c in chosen),
                                     tuple(costs[i] for i in keep),
                                     np.stack([costs[i].row(at.entries_per_block)
                                               for i in keep]))))
    if not out:
        what = ("meets the constraints (" + constraints.describe() + ")"
                if constraints is not None and constraints.active else "fits")
        raise ValueError(f"no stock RocksDB configuration {what} on this system; "
                         "loosen them" if "meets" in what else
                         f"no stock RocksDB configuration {what} this system")
    return tuple(out)


def _allowed(constraints: Constraints | None, config: StockConfig, costs: LeveledCosts,
             system: System) -> bool:
    """Whether ``constraints`` allow a stock configuration: leveled compaction's level 0 at its
    trigger and one run per level below; universal compaction's runs, up to its trigger, all in
    one level, and its space amplification up to its limit."""
    if constraints is None or not constraints.active:
        return True
    if constraints.write_rate is not None:  # T2: writes at the rate must not stall
        from wacky_model.stalls import sustainable, universal_bursts

        w = constraints.write_rate
        if sustainable(costs.write_amp, system.entry_bytes, w.machine) < w.rate:
            return False
        # T3u: nor in universal compaction's bursts, while a full merge holds the compaction
        # thread and level 0 fills (they can stall below T2's average rate).
        if isinstance(config, UniversalConfig) and universal_bursts(
                config, config.system(system), w.machine, w.rate,
                until_held=True).first_stall is not None:
            return False
    if isinstance(config, UniversalConfig):
        runs, amp = config.trigger, config.max_size_amplification_percent / 100.0
        # T5: U2's full merge rewrites every run while they are all still on disk.
        return all(limit is None or value <= limit * (1 + 1e-12) for value, limit in (
            (runs, constraints.max_runs_per_level), (runs, constraints.max_total_runs),
            (amp, constraints.max_space_amp),
            (FULL_MERGE_PEAK_SPACE, constraints.max_transient_space)))
    w = costs.window
    return constraints.allows_leveled(config.level0_trigger, w.level_entries,
                                      w.level0_runs * config.buffer_bytes / system.entry_bytes,
                                      w.peak_space(stock=True))


# RocksDB raises a smaller write_buffer_size to 64 KiB (SanitizeOptions), so a split with a
# smaller buffer would measure more memory than it was priced at: such splits take 64 KiB.
MIN_WRITE_BUFFER = 64 << 10


def _memory_options(system: System) -> list[tuple[int, float]]:
    """(buffer bytes, bits per key) pairs: the given ones, or the splits of a memory budget."""
    if not system.memory_split:
        bits = system.bits_per_entry if system.bits_per_entry is not None else 10.0
        return [(int(system.buffer_bytes), float(bits))]
    out: list[tuple[int, float]] = []
    for share in BUFFER_SHARES:
        buffer = max(MIN_WRITE_BUFFER, share * system.memory_bits_per_entry * system.entries / 8)
        split = system.with_buffer(buffer)
        option = (int(split.buffer_bytes), float(split.bits_per_entry or 0.0))
        if split.bits_per_entry is not None and split.bits_per_entry >= 0 \
                and option not in out:
            out.append(option)
    if not out:
        raise ValueError("the memory budget leaves no room for a buffer and filters (RocksDB's "
                         f"smallest write buffer is {MIN_WRITE_BUFFER:,} bytes)")
    return out


def recommend_rocksdb(workload: Workload, system: System,
                      constraints: Constraints | None = DEFAULT_CONSTRAINTS,
                      rho: float | None = None,
                      level0_trigger: int | None = None,
                      throughput_on: DeviceProfile | None = None) -> RocksDBRecommendation:
    """The stock RocksDB leveled configuration with the lowest Θ for ``workload``, among those
    ``constraints`` (guardrails: level 0 at its trigger, one run per level below) allow; with
    ``rho``, the lowest worst case within KL ``rho`` of it (every Θ reported is that). The
    constraints default to ``recommend``'s (at most 36 runs in a level, RocksDB's write stop);
    ``None`` lifts them. With ``throughput_on`` (a profile with RocksDB's figures), the
    throughput objective instead (T7, :mod:`wacky_model.rocksdb_throughput`): the least time
    per operation on that machine among the configurations that sustain the writes of their own
    throughput, and the reasons in time.

    It is the one search's pick for ``target="rocksdb"`` (``wacky_model.search.recommend``,
    which searches the same :func:`stock_grid`), with RocksDB's defaults and the best
    multiplier alone priced beside it, and a line per knob against its runner-up."""
    active = constraints if constraints is not None and constraints.active else None
    pick = stock_pick(workload, system, active, rho, level0_trigger, throughput_on)
    keys = grid_read_keys(workload, system)
    grids = stock_grid(system, active, level0_trigger, read_keys=keys)
    weights = weights_of(workload, system, rho)
    priced = []
    for at, g in grids:
        thetas = theta_shared(g.rows, weights)[0]
        priced += [StockPriced(stock_config(Configuration(d, c, Memory.of(at))), costs,
                               float(t))
                   for d, c, costs, t in zip(g.designs, g.compactions, g.costs, thetas,
                                             strict=True)]
    best = StockPriced(stock_config(Configuration(pick.design, pick.compaction,
                                                  Memory.of(pick.system))), pick.costs, pick.theta)
    buffer, bits = best.config.buffer_bytes, best.config.bits_per_key
    default_costs, multiplier_costs = _references(system, buffer, bits, keys)
    default, *by_multiplier = _under_skew(
        [_priced(c, workload, system, rho) for c in (*default_costs, *multiplier_costs)],
        workload, system, rho)
    best_t = min(by_multiplier, key=lambda p: p.theta)
    if throughput_on is not None:
        return RocksDBRecommendation(workload, system, best, default, best_t,
                                     _time_reasons(best, priced, grids, workload, system,
                                                   throughput_on),
                                     len(priced), "throughput")
    runners = _under_skew(_runners_up(best, priced), workload, system, rho)
    return RocksDBRecommendation(workload, system, best, default, best_t,
                                 _reasons(best, runners), len(priced))


def _time_reasons(best: StockPriced, priced: list[StockPriced],
                  grids: tuple[tuple[System, FileGrid], ...], workload: Workload,
                  system: System, machine: DeviceProfile) -> tuple[str, ...]:
    """T7's reasons: per knob the pick against its runner-up by the objective's own order
    (``Timed.rank`` on the rows T7 ranks by before the skew stage, ``cheap_times``, the order
    the descent chose its neighbors by), each runner-up then priced as the pick was (by the
    skew stage where it is in play: :func:`_under_skew`)."""
    from wacky_model.rocksdb_throughput import cheap_times, reason_line, timed_of

    times = list(cheap_times(list(grids), workload, machine).values())  # in grid order
    # By identity: _runners_up returns members of ``priced`` itself, and the costs they hold
    # are not meant as keys.
    rank = {id(p): t for p, t in zip(priced, times, strict=True)}
    mine = timed_of(best, workload, system, machine)
    runners = _under_skew(_runners_up(best, priced, key=lambda p: rank[id(p)].rank), workload,
                          system, None)
    return tuple(reason_line(_what(best, r), mine, timed_of(r, workload, system, machine))
                 for r in runners)


def _under_skew(items: list[StockPriced], workload: Workload, system: System,
                rho: float | None) -> list[StockPriced]:
    """``items`` priced again by the skew stage (S2f) when the workload is skewed or the system
    has a cache, as the pick was; unchanged otherwise."""
    from wacky_model.pricing import file_skew_trees, skewed_by
    from wacky_model.skew import cache_blocks, needs_skew_model, skew_key_map

    if not items or not needs_skew_model(workload, system):
        return items
    keys = skew_key_map(system, workload)
    out = list(items)
    for memory in {(p.config.buffer_bytes, p.config.bits_per_key) for p in items}:
        index = [i for i, p in enumerate(items)
                 if (p.config.buffer_bytes, p.config.bits_per_key) == memory]
        at = items[index[0]].config.system(system)
        weights = weights_of(workload, at, rho)
        trees = file_skew_trees([items[i].config.configuration for i in index], at, workload,
                                keys)
        for i, tree in zip(index, trees, strict=True):
            costs = skewed_by(items[i].config.configuration, items[i].costs,
                              tree.costs(cache_blocks(at)), cache_blocks(at))
            out[i] = StockPriced(items[i].config, costs, float(
                theta_shared(costs.row(at.entries_per_block), weights)[0]))
    return out


def stock_pick(workload: Workload, system: System, constraints: Constraints | None = None,
               rho: float | None = None, level0_trigger: int | None = None,
               throughput_on: DeviceProfile | None = None) -> FilePick:
    """The one search restricted to stock RocksDB (``recommend(target="rocksdb")``): the
    cheapest configuration of :func:`stock_grid`, scored as the native search scores its file
    side (under skew or a cache, re-priced by the skew stage, S2f); with ``throughput_on``, the
    same grid scored by T7's time on that machine, under skew or a cache through the same skew
    stage and descent (:func:`wacky_model.rocksdb_throughput.time_pick`)."""
    from wacky_model.compat import check, features_in

    check(features_in(workload, system, rho=rho, constraints=constraints) | {"rocksdb"}
          | ({"level0_trigger"} if (level0_trigger or 1) > 1 else set()))
    if len(system.devices) > 1:
        # Not silently on one device: the stock grid is priced on the system's own device.
        raise ValueError("the stock RocksDB search does not place levels on devices yet "
                         "(System.devices): price a placement with level_devices, or export "
                         "one (db_paths) with rocksdb_export(level_devices=...)")
    grids = list(stock_grid(system, constraints, level0_trigger,
                            read_keys=grid_read_keys(workload, system)))
    if throughput_on is not None:
        from wacky_model.rocksdb_throughput import time_pick

        return time_pick(grids, workload, throughput_on, rho, stock_neighbors(grids, True))
    return file_pick(grids, workload, rho, neighbors=stock_neighbors(grids))


def stock_neighbors(grids: list[tuple[System, FileGrid]], all_leveled: bool = False
                    ) -> Neighbors:
    """The search's descent neighbors on stock RocksDB's grids (``granularity.Neighbors``):
    the configurations :func:`_runners_up` sets beside a pick in the report, so that none of
    them, priced alike, is left cheaper than the pick: for each knob the best (by the score
    before the skew stage) that differs from it in that knob alone at its buffer, and the other
    compaction style's best. ``all_leveled`` (T7's descent): around a leveled pick every leveled
    configuration one knob away, not only each knob's best, since the cheap rows T7 ranks by
    can order a knob's values unlike the skew stage (a cache holding most of the data)."""
    configs = {(g, j): stock_config(Configuration(d, c, Memory.of(split)))
               for g, (split, grid) in enumerate(grids)
               for j, (d, c) in enumerate(zip(grid.designs, grid.compactions, strict=True))}

    def neighbors(g: int, j: int, theta: dict[tuple[int, int], Any]) -> list[tuple[int, int]]:
        best = configs[(g, j)]
        knobs = _knobs(best)
        same = [(at, c) for at, c in configs.items()
                if type(c) is type(best) and c.buffer_bytes == best.buffer_bytes]
        out = []
        for knob in knobs:
            others = [at for at, c in same if getattr(c, knob) != getattr(best, knob)
                      and all(getattr(c, k) == getattr(best, k) for k in knobs if k != knob)]
            if others and all_leveled and isinstance(best, RocksDBConfig):
                out += others
            elif others:
                out.append(min(others, key=theta.__getitem__))
        other_style = [at for at, c in configs.items() if type(c) is not type(best)]
        if other_style:
            out.append(min(other_style, key=theta.__getitem__))
        return out

    return neighbors


def _priced(pair: tuple[RocksDBConfig, LeveledCosts], workload: Workload, system: System,
            rho: float | None) -> StockPriced:
    config, costs = pair
    row = costs.row(system.entries_per_block)
    theta = float(theta_shared(row, weights_of(workload, system, rho))[0])
    return StockPriced(config, costs, theta)


@functools.lru_cache(maxsize=64)
def _references(system: System, buffer: int, bits: float,
                read_keys: KeyDistribution | None = None
                ) -> tuple[tuple[tuple[RocksDBConfig, LeveledCosts], ...], ...]:
    """RocksDB's defaults at this memory, and the same with each multiplier, priced (kept:
    they depend on the system, the memory and the grid's keys, :func:`grid_read_keys`,
    alone)."""
    default = RocksDBConfig(DEFAULT_MULTIPLIER, DEFAULT_TRIGGER, False, buffer, buffer, bits,
                            DEFAULT_BASE_BUFFERS * buffer)
    others = [replace(default, multiplier=T) for T in MULTIPLIERS]
    costs = _windows([default, *others], system, read_keys)
    pairs = tuple(zip([default, *others], costs, strict=True))
    return pairs[:1], pairs[1:]


KNOBS = {"multiplier": "max_bytes_for_level_multiplier",
         "level0_trigger": "level0_file_num_compaction_trigger",
         "level_base_bytes": "max_bytes_for_level_base",
         "file_bytes": "target_file_size_base"}
UNIVERSAL_KNOBS = {"trigger": "level0_file_num_compaction_trigger",
                   "max_size_amplification_percent": "max_size_amplification_percent"}


def _knobs(config: StockConfig) -> dict[str, str]:
    return UNIVERSAL_KNOBS if isinstance(config, UniversalConfig) else KNOBS


def _by_theta(p: StockPriced) -> float:
    return p.theta


def _runners_up(best: StockPriced, priced: list[StockPriced],
                key: Callable[[StockPriced], Any] = _by_theta) -> list[StockPriced]:
    """For each knob, the best configuration (the least ``key``, Θ by default) that differs
    from the pick in that knob alone; and the best of the other compaction style."""
    out = []
    knobs = _knobs(best.config)
    same = [p for p in priced if type(p.config) is type(best.config)
            and p.config.buffer_bytes == best.config.buffer_bytes]
    for knob in knobs:
        others = [p for p in same
                  if getattr(p.config, knob) != getattr(best.config, knob)
                  and all(getattr(p.config, k) == getattr(best.config, k)
                          for k in knobs if k != knob)]
        if others:
            out.append(min(others, key=key))
    other_style = [p for p in priced if type(p.config) is not type(best.config)]
    if other_style:
        out.append(min(other_style, key=key))
    return out


def _reasons(best: StockPriced, runners: list[StockPriced]) -> tuple[str, ...]:
    """A line per knob: the pick against its runner-up in that knob (:func:`_runners_up`), and
    against the best of the other compaction style."""
    lines = []
    for runner in runners:
        what = _what(best, runner)
        b, r = best.costs, runner.costs
        lines.append(
            f"{what}: Θ {best.theta:.4g} vs {runner.theta:.4g} "
            f"({best.theta / runner.theta - 1:+.1%}); write amplification {b.write_amp:.3g} vs "
            f"{r.write_amp:.3g}, zero-result read {b.zero_result_read:.3g} vs "
            f"{r.zero_result_read:.3g} I/O")
    return tuple(lines)


def _what(best: StockPriced, runner: StockPriced) -> str:
    """The choice a runner-up of :func:`_runners_up` stands against: its knob, or the style."""
    if type(runner.config) is not type(best.config):
        return (f"compaction_style = {best.config.style} rather than {runner.config.style} "
                "(its best)")
    knobs = _knobs(best.config)
    knob = next(k for k in knobs if getattr(runner.config, k) != getattr(best.config, k))
    return (f"{knobs[knob]} = {_value(getattr(best.config, knob))} rather than "
            f"{_value(getattr(runner.config, knob))}")


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return f"{v:,}" if isinstance(v, int) else str(v)
