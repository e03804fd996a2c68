"""The user-facing types: a design, the system it runs on, and the workload it serves.

All three are frozen dataclasses that validate themselves on construction: bad input raises a
``ValueError`` that names the parameter and its valid range.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from cost_models.memory import fence_pointer_bits_per_entry, split_memory
from cost_models.objective import RobustWeights, theta_weights
from cost_models.tidal import Floating
from cost_models.universal import UniversalOptions
from wacky_model.devices import Device

FilterPolicy = Literal["optimized", "uniform"]

# Sizes are exact in a float64 up to 2^53; beyond that entry counts would silently round.
MAX_ENTRIES = 2**53
MAX_BYTES = 2**62
WORKLOAD_SUM_TOLERANCE = 1e-6


def _finite_number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)  # numpy scalars and the like
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number; got {value!r}") from None
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value}")
    return value


def _in_range(name: str, value: object, low: float, high: float, what: str) -> float:
    v = _finite_number(name, value)
    if not (low <= v <= high):
        raise ValueError(f"{name} must be {what}; got {v:g}")
    return v


def _whole(name: str, value: object, low: int, high: int) -> int:
    v = _finite_number(name, value)
    if v != int(v) or not (low <= v <= high):
        raise ValueError(f"{name} must be a whole number in [{low}, {high}]; got {value!r}")
    return int(v)


@dataclass(frozen=True)
class Design:
    """A point of the Wacky continuum (Section 5).

    T: base ratio between adjacent smaller levels (>= 2).
    C: capping ratio, Level L's data over all smaller levels' (>= 1).
    X: growth exponential of the ratios (>= 1; 1 is Capped Lazy Leveling).
    K: merge greediness within Levels 1..L-1 (0 = leveled, 1 = tiered). Required.
    Z: merge greediness within Level L (0 = leveled, 1 = tiered). Required.
    filters: "optimized" (Lagrangian, App. C) or "uniform" (one FPR everywhere, as in industry).

    Nothing about greediness is assumed: K and Z must be given, as the CLI's --K and --Z must
    (``Design(T=10, C=9, K=0, Z=0)`` is Leveling, ``K=1, Z=0`` Lazy Leveling, ``K=1, Z=1``
    Tiering; ``preset(name)`` builds the named families). They keep their place in the
    positional order (T, C, X, K, Z, filters), so ``Design(10, 9, 1, 0, 0)`` is Leveling too.
    """

    T: float
    C: float
    X: float = 1.0
    # None only marks "not given", which is refused: after construction K and Z are floats.
    K: float | None = None
    Z: float | None = None
    filters: FilterPolicy = "optimized"

    def __post_init__(self) -> None:
        missing = [name for name in ("K", "Z") if getattr(self, name) is None]
        if missing:
            raise ValueError(
                f"Design needs K and Z (merge greediness: 0 = leveled, 1 = tiered); got "
                f"K={self.K!r}, Z={self.Z!r} (missing: {' and '.join(missing)}). E.g. "
                "Design(T=10, C=9, K=0, Z=0) is Leveling, K=1, Z=0 Lazy Leveling and "
                "K=1, Z=1 Tiering"
            )
        object.__setattr__(self, "T", _in_range("T", self.T, 2.0, 1e12, ">= 2"))
        object.__setattr__(self, "C", _in_range("C", self.C, 1.0, 1e12, ">= 1"))
        object.__setattr__(self, "X", _in_range("X", self.X, 1.0, 64.0, "in [1, 64]"))
        object.__setattr__(self, "K", _in_range("K", self.K, 0.0, 1.0, "in [0, 1]"))
        object.__setattr__(self, "Z", _in_range("Z", self.Z, 0.0, 1.0, "in [0, 1]"))
        if self.filters not in ("optimized", "uniform"):
            raise ValueError(f"filters must be 'optimized' or 'uniform'; got {self.filters!r}")

    @property
    def knobs(self) -> dict[str, float]:
        return {"T": self.T, "C": self.C, "X": self.X, "K": self.K, "Z": self.Z}


@dataclass(frozen=True)
class System:
    """The data and the hardware: sizes in entries and bytes, and the filter memory budget.

    Give the filter budget as ``bits_per_entry`` (M) or as ``sum_fpr`` (p), not both; with
    neither, 5 bits per entry (the paper's default) is used.
    """

    entries: float = 2**31  # 256 GB of 128-byte entries
    entry_bytes: int = 128
    key_bytes: int = 8
    block_bytes: int = 4096
    buffer_bytes: int = 8 * 2**20
    bits_per_entry: float | None = None
    sum_fpr: float | None = None
    hash_levels: int = 0
    # A total memory budget (write buffer + filters + fence pointers) per entry. With it, the
    # search chooses the buffer/filter split (``with_buffer``); buffer_bytes is then only where
    # a design is shown before a split is chosen.
    memory_bits_per_entry: float | None = None
    # phi: a block written costs this many block reads in Theta (device asymmetry; Endure's phi).
    write_cost_ratio: float = 1.0
    # The time of one in-memory filter or hash-table probe, in block reads. Above 0, point
    # reads pay for their probes and the search chooses hash_levels (App. F) for each design.
    probe_cost: float = 0.0
    # An LRU cache of data blocks for point reads (0: none). A cache larger than the data is
    # allowed: it holds every block a read touches.
    cache_bytes: int = 0
    # D1: the devices levels may be placed on (Compaction.level_devices), the system's own
    # first, whose costs are the unit: read_cost 1 and write_cost = write_cost_ratio. Empty:
    # one device, with those costs and no capacity limit.
    devices: tuple[Device, ...] = ()
    # G1: filter and index blocks live on disk and go through the block cache (RocksDB's
    # cache_index_and_filter_blocks=true), so a probe costs I/O on a miss; False keeps them in
    # memory (the paper's, the default).
    paged_metadata: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.cache_bytes, bool) or not isinstance(self.cache_bytes, int) \
                or not 0 <= self.cache_bytes <= 2**62:
            raise ValueError(f"cache_bytes must be a whole number of bytes in [0, 2^62]; got "
                             f"{self.cache_bytes!r}")
        entries = _in_range("entries", self.entries, 1.0, MAX_ENTRIES, "in [1, 2^53]")
        object.__setattr__(self, "entries", entries)
        eb = _whole("entry_bytes", self.entry_bytes, 1, 2**30)
        kb = _whole("key_bytes", self.key_bytes, 1, 2**30)
        bb = _whole("block_bytes", self.block_bytes, 1, 2**30)
        # Both sizes are named: either may be the wrong one (entry_bytes=4 with the 8-byte key).
        if kb > eb:
            raise ValueError(f"entry_bytes must be at least key_bytes (an entry holds its key); "
                             f"got entry_bytes = {eb}, key_bytes = {kb}")
        if eb > bb:
            raise ValueError(f"entry_bytes must be at most block_bytes (a block holds whole "
                             f"entries); got entry_bytes = {eb}, block_bytes = {bb}")
        fb = _whole("buffer_bytes", self.buffer_bytes, bb, MAX_BYTES)
        for name, v in (("entry_bytes", eb), ("key_bytes", kb), ("block_bytes", bb)):
            object.__setattr__(self, name, v)
        object.__setattr__(self, "buffer_bytes", fb)
        if entries * eb > MAX_BYTES:
            raise ValueError(
                f"entries * entry_bytes must be at most 2^62 bytes; got {entries * eb:.3g}"
            )
        if self.buffer_entries >= entries:
            raise ValueError(
                f"buffer_bytes must hold fewer entries than the data: the buffer holds "
                f"{self.buffer_entries} entries but entries = {entries:g}"
            )
        if self.bits_per_entry is not None and self.sum_fpr is not None:
            raise ValueError("give bits_per_entry or sum_fpr, not both")
        if self.memory_bits_per_entry is not None:
            self._check_memory()
        elif self.bits_per_entry is None and self.sum_fpr is None:
            object.__setattr__(self, "bits_per_entry", 5.0)
        if self.bits_per_entry is not None:
            m = _in_range("bits_per_entry", self.bits_per_entry, 0.0, self.max_filter_bits,
                          f"in [0, {self.max_filter_bits:g}] (8 * key_bytes): a larger "
                          "filter takes more memory than the keys themselves")
            object.__setattr__(self, "bits_per_entry", m)
        if self.sum_fpr is not None:
            p = _finite_number("sum_fpr", self.sum_fpr)
            if p <= 0:
                raise ValueError(f"sum_fpr must be > 0; got {p:g}")
            object.__setattr__(self, "sum_fpr", p)
        object.__setattr__(self, "hash_levels", _whole("hash_levels", self.hash_levels, 0, 64))
        phi = _finite_number("write_cost_ratio", self.write_cost_ratio)
        if not 0 < phi <= 1e6:
            raise ValueError(f"write_cost_ratio must be in (0, 1e6]; got {phi:g}")
        object.__setattr__(self, "write_cost_ratio", phi)
        probe = _finite_number("probe_cost", self.probe_cost)
        if not 0 <= probe <= 1.0:
            raise ValueError(f"probe_cost must be in [0, 1] block reads; got {probe:g}")
        object.__setattr__(self, "probe_cost", probe)
        self._check_devices()
        if not isinstance(self.paged_metadata, bool):
            raise ValueError(f"paged_metadata must be True or False; got {self.paged_metadata!r}")

    def _check_devices(self) -> None:
        # A system read back from JSON (dataclasses.asdict) lists its devices as dicts.
        if isinstance(self.devices, list | tuple) and all(
                isinstance(d, Device | dict) for d in self.devices):
            object.__setattr__(self, "devices", tuple(
                d if isinstance(d, Device) else Device(**d) for d in self.devices))
        if not isinstance(self.devices, tuple) or not all(
                isinstance(d, Device) for d in self.devices):
            raise ValueError(f"devices must be a tuple of Device; got {self.devices!r}")
        if not self.devices:
            return
        if len(self.devices) > 64:
            raise ValueError(f"devices: at most 64; got {len(self.devices)}")
        own = self.devices[0]
        if own.read_cost != 1.0 or own.write_cost != self.write_cost_ratio:
            raise ValueError(
                f"devices[0] ({own.name}) is the system's own device, the unit of cost: its "
                f"read_cost must be 1 and its write_cost the write_cost_ratio "
                f"({self.write_cost_ratio:g}); got {own.read_cost:g} and {own.write_cost:g}")
        names = [d.name for d in self.devices]
        if len(set(names)) != len(names):
            raise ValueError(f"devices need distinct names; got {', '.join(names)}")

    @property
    def device_costs(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Each device's cost per block read and per block written (D1), the own device first."""
        if not self.devices:
            return (1.0,), (self.write_cost_ratio,)
        return (tuple(d.read_cost for d in self.devices),
                tuple(d.write_cost for d in self.devices))

    def _check_memory(self) -> None:
        if self.bits_per_entry is not None or self.sum_fpr is not None:
            raise ValueError("give memory_bits_per_entry (the total memory, which the search "
                             "splits) or a filter budget (bits_per_entry or sum_fpr), not both")
        m = _in_range("memory_bits_per_entry", self.memory_bits_per_entry, 0.0, 1e6,
                      "in [0, 1e6]")
        object.__setattr__(self, "memory_bits_per_entry", m)
        least = self.least_memory_bits_per_entry
        if m <= least:
            raise ValueError(
                f"memory_bits_per_entry must exceed the fence pointers "
                f"({self.fence_bits_per_entry:.4g} bits per entry) plus the smallest buffer (one "
                f"block, {8.0 * self.block_bytes / self.entries:.3g} bits per entry): more than "
                f"{least:.4g} bits per entry ({least * self.entries / 8:,.0f} bytes); got {m:g}")

    @property
    def max_filter_bits(self) -> float:
        """The most filter bits per entry: 8 * key_bytes, the keys' own size (the engine's 64
        for 8-byte keys). Storing the keys would answer every probe exactly for that memory."""
        return 8.0 * self.key_bytes

    @property
    def least_memory_bits_per_entry(self) -> float:
        """A total memory budget must exceed this: the fence pointers and a one-block buffer."""
        return self.fence_bits_per_entry + 8.0 * self.block_bytes / self.entries

    @property
    def memory_split(self) -> bool:
        """True when the search chooses the buffer/filter split of a total memory budget."""
        return self.memory_bits_per_entry is not None

    @property
    def fence_bits_per_entry(self) -> float:
        """Fence pointers (App. G): one key and one pointer per block."""
        return float(fence_pointer_bits_per_entry(self.entries_per_block, self.key_bytes))

    @property
    def max_buffer_bytes(self) -> int:
        """The largest buffer the memory budget allows (filters get nothing), in whole blocks,
        and smaller than the data."""
        assert self.memory_bits_per_entry is not None
        spare = (self.memory_bits_per_entry - self.fence_bits_per_entry) * self.entries / 8.0
        data_blocks = math.ceil(self.entries / self.entries_per_block) - 1
        blocks = max(1, min(int(spare // self.block_bytes), data_blocks))
        return blocks * self.block_bytes

    def with_buffer(self, buffer_bytes: float) -> System:
        """This memory budget split: ``buffer_bytes`` (rounded down to whole blocks) of buffer,
        and the rest, after the fence pointers, for filters (at most :attr:`max_filter_bits`;
        memory beyond that is left unused)."""
        if self.memory_bits_per_entry is None:
            raise ValueError("with_buffer needs a system with memory_bits_per_entry")
        blocks = max(1, int(min(buffer_bytes, self.max_buffer_bytes) // self.block_bytes))
        filters = min(float(split_memory(self.memory_bits_per_entry, self.fence_bits_per_entry,
                                         blocks, self.block_bytes, self.entries)),
                      self.max_filter_bits)
        # replace() keeps every other field (the cache, the probe cost, ...) as it is.
        return dataclasses.replace(self, buffer_bytes=blocks * self.block_bytes,
                                   bits_per_entry=float(filters), sum_fpr=None,
                                   memory_bits_per_entry=None)

    @property
    def memory_bits_per_entry_total(self) -> float:
        """Buffer, filters (bits_per_entry; with sum_fpr, see analyze) and fence pointers."""
        if self.memory_bits_per_entry is not None:
            return self.memory_bits_per_entry
        filters = self.bits_per_entry if self.bits_per_entry is not None else math.nan
        return 8.0 * self.buffer_bytes / self.entries + filters + self.fence_bits_per_entry

    @property
    def entries_per_block(self) -> int:
        """B: entries per block."""
        return self.block_bytes // self.entry_bytes

    @property
    def buffer_entries(self) -> int:
        """F in entries: whole blocks' worth of entries that fit in the buffer."""
        return (self.buffer_bytes // self.block_bytes) * self.entries_per_block

    @property
    def buffers(self) -> float:
        """N/F: the data size as a multiple of the buffer."""
        return self.entries / self.buffer_entries

    @property
    def budget(self) -> dict[str, float]:
        """The filter budget as keyword arguments for the cost model."""
        if self.memory_bits_per_entry is not None:
            raise ValueError("this system gives a total memory budget, not a filter budget: "
                             "choose a split first (System.with_buffer, or recommend)")
        if self.sum_fpr is not None:
            return {"sum_fpr": self.sum_fpr}
        return {"bits_per_entry": float(self.bits_per_entry)}


GRANULARITIES = ("level", "file")
FILE_PICKS = ("least_overlap", "round_robin")
STYLES = ("wacky", "universal")
SIZINGS = ("wacky", "dynamic", "static")
HOTNESS = ("exact", "hotmap")


@dataclass(frozen=True)
class Log:
    """L2SM's per-level log (native_engine/src/sst_log.h; priced by docs/MODEL.md L1): beside
    Levels 1..L-1, files moved out of the level without I/O when it overflows
    (the ones the level's file pick would send down, as the authors' code does), merged into the
    next level in batches of overlapping files (the coldest and densest first).

    ratio: the logs' total size as a share of the tree's, omega in (0, 1] (the paper's 10% is
        0.1); the logs are sized by the paper's inverse-proportional rule
        (``cost_models.structure.log_capacities``).
    alpha: the weight of hotness against sparseness in choosing the files that leave the log,
        in [0, 1] (0.5); the model does not price it (L1 takes a batch at a random place).
    batch_cap: a batch stops before the files it rewrites below exceed this many times its own
        (the paper's 10).
    hotness: "exact" per-key update counts or the paper's "hotmap" of layered Bloom filters.
    """

    ratio: float
    alpha: float = 0.5
    batch_cap: int = 10
    hotness: str = "exact"

    def __post_init__(self) -> None:
        _in_range("log ratio", self.ratio, 1e-9, 1.0, "in (0, 1] (0 is no log: leave it out)")
        _in_range("log alpha", self.alpha, 0.0, 1.0, "in [0, 1]")
        _whole("log batch_cap", self.batch_cap, 1, 1000)
        if self.hotness not in HOTNESS:
            raise ValueError(f"log hotness must be 'exact' or 'hotmap'; got {self.hotness!r}")


@dataclass(frozen=True)
class Buffer:
    """LSbM's compaction buffer (docs/MODEL.md "B1. The compaction buffer"): a file merged out
    of a level stays on disk as the next level's buffer, so its cached blocks keep serving reads,
    until the trim finds less than ``trim`` of its blocks cached (checked every ``interval``
    merges) or the next level's merge passes over it."""

    trim: float = 0.8
    interval: int = 8

    def __post_init__(self) -> None:
        _in_range("buffer trim", self.trim, 0.0, 1.0, "a share of blocks in [0, 1]")
        if isinstance(self.interval, bool) or not isinstance(self.interval, int) \
                or not 1 <= self.interval <= 1_000_000:
            raise ValueError(f"buffer interval must be a whole number of merges in [1, 1000000]; "
                             f"got {self.interval!r}")


@dataclass(frozen=True)
class Compaction:
    """How merges are cut (docs/MODEL.md, "Files and partial merges").

    granularity: "level" merges whole levels (the paper's policy); "file" cuts each level into
        files of ``file_bytes`` and merges one file at a time into the next level, as RocksDB's
        leveled compaction does (leveled designs only).
    file_bytes: the files' target size; None is the buffer's size (RocksDB's defaults).
    level1_runs: flushes that gather as separate runs before merging into the tree together
        (RocksDB's ``level0_file_num_compaction_trigger``); 1 merges each flush at once.
    file_pick: which file of an overflowing level goes down: the one with the least overlap
        below (RocksDB's default) or round-robin (LevelDB's).
    style: "wacky" runs the design's merge policy; "universal" is RocksDB's universal
        compaction (U1-U4: whole runs merged by their sizes), which stock RocksDB builds for a
        tiered design.
    sizing: how file-granular levels are sized: "wacky" (the design's capacities, App. E, as the
        native engine does) or RocksDB's "dynamic" / "static" targets from
        ``level_base_bytes`` (``max_bytes_for_level_base``) and the ratio T.
    universal: universal compaction's own options (style "universal" only); None derives them
        from the design (``wacky_model.rocksdb_options.rocksdb_export``).
    l0_partitions: OHDB's partitioned level 0 (docs/MODEL.md P6): flushes and Level 1 are cut
        at this many equally spaced keys, and each partition gathers its own ``level1_runs``
        flushes and merges into its own Level 1 files (native engine, granularity "file"); 1 is
        no partitions.
    floating: Tidal-tree's floating of hot files (docs/MODEL.md F1-F5; the engine's float_*
        options, native_engine/src/floating.h), a ``cost_models.tidal.Floating``: files that
        many lookups check float up to the level where the checks saved outweigh the move
        (native engine, granularity "file"); None is none.
    level_devices: D1's placement: level i (0 = level 0) sits on device
        ``level_devices[min(i, n - 1)]`` of ``System.devices`` (RocksDB's ``db_paths``, the
        native engine's ``level_dirs``); empty: every level on the system's own device.
    """

    granularity: str = "level"
    file_bytes: int | None = None
    level1_runs: int = 1
    file_pick: str = "least_overlap"
    style: str = "wacky"
    sizing: str = "wacky"
    level_base_bytes: int | None = None
    universal: UniversalOptions | None = None
    log: Log | None = None
    buffer: Buffer | None = None
    l0_partitions: int = 1
    level_devices: tuple[int, ...] = ()
    floating: Floating | None = None

    def __post_init__(self) -> None:
        for name, kind in (("log", Log), ("buffer", Buffer)):
            v = getattr(self, name)
            if v is not None and not isinstance(v, kind):
                raise ValueError(f"{name} must be a {kind.__name__} or None; got {v!r}")
            if v is not None and (self.granularity != "file" or self.style != "wacky"
                                  or self.sizing != "wacky"):
                raise ValueError(
                    f"{name} ({'L2SM' if name == 'log' else 'LSbM'}) needs granularity='file' "
                    "with the native engine's compaction (style and sizing 'wacky'): it keeps "
                    "files a file-granular level moves out; stock RocksDB has no such option")
        from wacky_model.compat import check  # the one table of refused combinations

        check(set(self.side_runs) | ({"floating"} if self.floating is not None else set())
              | ({"l0_partitions"} if self.l0_partitions != 1 else set()))
        if self.universal is not None and (self.style != "universal" or not isinstance(
                self.universal, UniversalOptions)):
            raise ValueError("universal (universal compaction's options, a UniversalOptions) "
                             "needs style='universal'")
        if self.granularity not in GRANULARITIES:
            raise ValueError(f"granularity must be 'level' or 'file'; got {self.granularity!r}")
        if self.file_pick not in FILE_PICKS:
            raise ValueError(f"file_pick must be 'least_overlap' or 'round_robin'; got "
                             f"{self.file_pick!r}")
        if self.style not in STYLES:
            raise ValueError(f"style must be 'wacky' or 'universal'; got {self.style!r}")
        if self.sizing not in SIZINGS:
            raise ValueError(f"sizing must be one of {', '.join(SIZINGS)}; got {self.sizing!r}")
        if self.style == "universal" and self.granularity != "level":
            raise ValueError("style='universal' merges whole runs: granularity must be 'level'")
        if (self.sizing == "wacky") != (self.level_base_bytes is None) or (
                self.sizing != "wacky" and self.granularity != "file"):
            raise ValueError("sizing='dynamic' or 'static' (RocksDB's level targets) needs "
                             "granularity='file' and level_base_bytes; sizing='wacky' takes no "
                             f"level_base_bytes; got sizing={self.sizing!r}, "
                             f"level_base_bytes={self.level_base_bytes!r}")
        for name, value, low in (("level1_runs", self.level1_runs, 1),
                                 ("file_bytes", self.file_bytes, 1),
                                 ("level_base_bytes", self.level_base_bytes, 1)):
            if value is None and name != "level1_runs":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be a whole number >= {low}; got {value!r}")
        if self.level1_runs > 1000:
            raise ValueError(f"level1_runs must be in [1, 1000]; got {self.level1_runs}")
        d = self.level_devices
        if not isinstance(d, tuple) or len(d) > 64 or not all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 64 for x in d):
            raise ValueError(f"level_devices must be a tuple of at most 64 device numbers in "
                             f"[0, 63] (level 0 first); got {d!r}")
        p = self.l0_partitions
        if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= 1024:
            raise ValueError(f"l0_partitions must be a whole number in [1, 1024]; got {p!r}")
        if p > 1 and (self.granularity != "file" or self.style != "wacky"
                      or self.sizing != "wacky"):
            raise ValueError(
                "l0_partitions > 1 (OHDB's partitioned level 0) needs granularity='file' with "
                "the native engine's compaction (style and sizing 'wacky'): a partition merges "
                "into the Level 1 files of its key range, and a whole-level Level 1 is one run "
                f"that every partition's merge would rewrite; got l0_partitions={p} with "
                f"granularity={self.granularity!r}, style={self.style!r}")

        if self.floating is not None and (
                not isinstance(self.floating, Floating) or self.granularity != "file"
                or self.style != "wacky" or self.sizing != "wacky"):
            raise ValueError(
                "floating (Tidal-tree, a cost_models.tidal.Floating) needs granularity='file' "
                "with the native engine's compaction (style and sizing 'wacky'): a float moves "
                "one file of a level up, and a whole-level run has no file to move; got "
                f"floating={self.floating!r} with granularity={self.granularity!r}, "
                f"style={self.style!r}")

    @property
    def is_default(self) -> bool:
        return self == Compaction()

    @property
    def side_runs(self) -> tuple[str, ...]:
        """The side runs it keeps beside the levels, by their names in
        :data:`wacky_model.compat.FEATURES`: "l2sm_log", "lsbm_buffer"."""
        return tuple(name for name, on in (("l2sm_log", self.log), ("lsbm_buffer", self.buffer))
                     if on is not None)


# The range length when none is given: the paper's short range, one I/O per run (Workload).
DEFAULT_RANGE_BLOCKS = 0.0

DISTRIBUTIONS = ("uniform", "zipf", "hotset", "hotrange", "latest")
THETA_MAX = 1.5
LATEST_THETA = 0.99  # YCSB's ZIPFIAN_CONSTANT, which its "latest" generator uses


@dataclass(frozen=True)
class KeyDistribution:
    """Which keys operations touch. Use :meth:`parse` for the ``zipf:0.9`` form.

    ``hotset`` scatters its hot keys over the key space (popularity ranks are a random
    permutation of the keys); ``hotrange`` puts them in one contiguous stretch of the key order
    (docs/MODEL.md S5r), so a data block holds hot keys only or cold keys only."""

    kind: str = "uniform"
    theta: float = 0.0  # zipf and latest (for writes: over insertion recency, YCSB's latest)
    hot_keys: float = 0.0  # hotset and hotrange: h, the share of the keys that is hot
    hot_share: float = 0.0  # hotset and hotrange: p, the share of operations they receive

    def __post_init__(self) -> None:
        if self.kind not in DISTRIBUTIONS:
            raise ValueError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}; got "
                             f"{self.kind!r}")
        for name in ("theta", "hot_keys", "hot_share"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number; got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.kind in ("zipf", "latest") and not 0.0 <= self.theta <= THETA_MAX:
            raise ValueError(f"zipf theta must be in [0, {THETA_MAX}]; got {self.theta:g}")
        if self.kind == "hotset":
            for name, v in (("h", self.hot_keys), ("p", self.hot_share)):
                if not 0.0 < v < 1.0:
                    raise ValueError(f"hotset {name} must be in (0, 1) (exclusive); got {v:g}")
        if self.kind == "hotrange":
            # A range of no keys or of every key is no range; its keys may take every read
            # (p = 1, the cold keys are never read) or none.
            if not 0.0 < self.hot_keys < 1.0:
                raise ValueError(f"hotrange h must be in (0, 1) (exclusive); got "
                                 f"{self.hot_keys:g}")
            if not 0.0 <= self.hot_share <= 1.0:
                raise ValueError(f"hotrange p must be in [0, 1]; got {self.hot_share:g}")

    @classmethod
    def parse(cls, text: str) -> KeyDistribution:
        """``uniform``, ``zipf:THETA``, ``hotset:H:P``, ``hotrange:H:P``, ``latest`` or
        ``latest:THETA``."""
        if not isinstance(text, str):
            raise ValueError(f"a distribution is a string such as 'zipf:0.9'; got {text!r}")
        kind, *args = text.strip().lower().split(":")
        want = {"uniform": (0,), "zipf": (1,), "hotset": (2,), "hotrange": (2,),
                "latest": (0, 1)}
        if kind not in want:
            # The list's first words are what the dashboard rewords (dashboard/callbacks.py).
            raise ValueError(f"unknown distribution {text!r}: use uniform, zipf:THETA, "
                             "hotset:H:P or latest (for reads also hotrange:H:P)")
        if len(args) not in want[kind]:
            forms = {"uniform": "uniform", "zipf": "zipf:THETA (e.g. zipf:0.9)",
                     "hotset": "hotset:H:P (e.g. hotset:0.1:0.9)",
                     "hotrange": "hotrange:H:P (e.g. hotrange:0.02:0.98)",
                     "latest": "latest or latest:THETA"}
            raise ValueError(f"{text!r} is not of the form {forms[kind]}")
        try:
            nums = [float(a) for a in args]
        except ValueError:
            raise ValueError(f"{text!r}: {':'.join(args)} is not a number") from None
        if kind == "zipf":
            return cls("zipf", theta=nums[0])
        if kind in ("hotset", "hotrange"):
            return cls(kind, hot_keys=nums[0], hot_share=nums[1])
        if kind == "latest":
            return cls("latest", theta=nums[0] if nums else LATEST_THETA)
        return cls()

    @property
    def spec(self) -> str:
        """The text :meth:`parse` reads back."""
        if self.kind in ("zipf", "latest"):
            return f"{self.kind}:{self.theta:g}"
        if self.kind in ("hotset", "hotrange"):
            return f"{self.kind}:{self.hot_keys:g}:{self.hot_share:g}"
        return "uniform"

    @property
    def is_uniform(self) -> bool:
        """Every key equally likely (so rank order carries no information)."""
        return (self.kind == "uniform" or (self.kind == "zipf" and self.theta == 0.0)
                or (self.kind in ("hotset", "hotrange") and self.hot_keys == self.hot_share))

    @property
    def clustered(self) -> bool:
        """The hot keys are one contiguous stretch of the key order (``hotrange``), not
        scattered over it: a block then holds hot keys only or cold keys only (S5r)."""
        return self.kind == "hotrange" and not self.is_uniform

    def hot_count(self, n: int) -> int:
        """The hot set's size for a population of n keys (at least 1, at most n - 1)."""
        return int(min(max(1, round(self.hot_keys * n)), max(1, n - 1)))


@dataclass(frozen=True)
class Workload:
    """Fractions of operations (they must sum to 1) and the range length in blocks.

    point_reads: reads of existing entries (worst case: the entry is at Level L).
    zero_reads: point reads of keys that do not exist.
    writes: inserts, updates and deletes.
    range_reads: range reads; each costs one I/O per run plus ``range_blocks`` blocks.
    range_blocks: the blocks of data each range read returns, on top of the one I/O per run
        that finds its start. Not given (None), it is :data:`DEFAULT_RANGE_BLOCKS` = 0: the
        paper's short range, one I/O per run (a seek and a few nexts, as db_bench's seekrandom
        with its default ``--seek_nexts=0``); give it for longer scans. A float once built.
    expected_point_reads: the share of the existing-key reads priced at their expected cost, a
        key drawn uniformly over the entries, instead of the worst case (0, the paper's).
    write_keys, read_keys: which keys writes and existing-key reads touch: "uniform" (default),
        "zipf:THETA" (THETA in [0, 1.5]), "hotset:H:P" (a share H of the keys gets a share P of
        the operations), "hotrange:H:P" (reads only: the same, the H keys one contiguous
        stretch of the key order; wacky_model.compat.KEY_REFUSALS says what it does not take)
        or "latest[:THETA]" (YCSB's latest, THETA 0.99 by default: for writes,
        updates favour recently inserted keys, the key of the r-th most recent insert; for
        reads, the key of the r-th most recent write, as in YCSB-D; r Zipf(THETA)); a string or
        a :class:`KeyDistribution`.
    update_fraction: the share of writes that update an existing key; the rest insert new keys.
    correlated: whether the keys read most are the keys written most (default True; under
        latest writes, reads of the r-th most recently inserted key).

    Fractions that do not sum to 1 are refused rather than silently rescaled; use
    :meth:`from_counts` to normalize raw counts or weights.
    """

    point_reads: float = 0.0
    zero_reads: float = 0.0
    writes: float = 0.0
    range_reads: float = 0.0
    range_blocks: float | None = None
    expected_point_reads: float = 0.0
    write_keys: KeyDistribution | str = "uniform"
    read_keys: KeyDistribution | str = "uniform"
    update_fraction: float = 0.0
    correlated: bool = True

    def __post_init__(self) -> None:
        for name in ("write_keys", "read_keys"):
            v = getattr(self, name)
            if isinstance(v, (str, dict)):
                try:
                    v = KeyDistribution.parse(v) if isinstance(v, str) else KeyDistribution(**v)
                except (TypeError, ValueError) as e:
                    raise ValueError(f"{name}: {e}") from None
            elif not isinstance(v, KeyDistribution):
                raise ValueError(f"{name} must be a distribution such as 'zipf:0.9'; got {v!r}")
            object.__setattr__(self, name, v)
        u = _in_range("update_fraction", self.update_fraction, 0.0, 1.0, "a share in [0, 1]")
        object.__setattr__(self, "update_fraction", u)
        if not isinstance(self.correlated, bool):
            raise ValueError(f"correlated must be True or False; got {self.correlated!r}")
        from wacky_model.compat import check_keys

        check_keys(self)
        share = _in_range("expected_point_reads", self.expected_point_reads, 0.0, 1.0,
                          "a share in [0, 1]")
        object.__setattr__(self, "expected_point_reads", share)
        names = ("point_reads", "zero_reads", "writes", "range_reads")
        for name in names:
            v = _in_range(name, getattr(self, name), 0.0, 1.0, "a fraction in [0, 1]")
            object.__setattr__(self, name, v)
        total = sum(getattr(self, n) for n in names)
        if total == 0:
            raise ValueError(
                "workload has no operations: point_reads, zero_reads, writes and range_reads "
                "are all 0; at least one must be > 0"
            )
        if abs(total - 1.0) > WORKLOAD_SUM_TOLERANCE:
            raise ValueError(
                "workload fractions point_reads + zero_reads + writes + range_reads must sum "
                f"to 1 (within {WORKLOAD_SUM_TOLERANCE:g}); got {total:.6g}. "
                "Use Workload.from_counts(...) to normalize weights."
            )
        given = DEFAULT_RANGE_BLOCKS if self.range_blocks is None else self.range_blocks
        rb = _in_range("range_blocks", given, 0.0, 1e15, "in [0, 1e15]")
        object.__setattr__(self, "range_blocks", rb)

    @classmethod
    def from_counts(
        cls,
        point_reads: float = 0.0,
        zero_reads: float = 0.0,
        writes: float = 0.0,
        range_reads: float = 0.0,
        range_blocks: float | None = None,
    ) -> Workload:
        """Build a workload from non-negative counts or weights, normalized to sum to 1."""
        raw = {
            "point_reads": point_reads,
            "zero_reads": zero_reads,
            "writes": writes,
            "range_reads": range_reads,
        }
        for name, v in raw.items():
            _in_range(name, v, 0.0, math.inf, "a count >= 0")
        total = sum(float(v) for v in raw.values())
        if total <= 0:
            raise ValueError("workload has no operations: every count is 0")
        return cls(**{k: float(v) / total for k, v in raw.items()}, range_blocks=range_blocks)

    @property
    def fractions(self) -> tuple[float, float, float, float]:
        return (self.point_reads, self.zero_reads, self.writes, self.range_reads)

    def to_dict(self) -> dict[str, object]:
        """The JSON form: fields by name, the distributions as the strings the flags take."""
        out: dict[str, object] = {f: getattr(self, f) for f in self.__dataclass_fields__}
        out["write_keys"], out["read_keys"] = self.write_keys.spec, self.read_keys.spec
        return out

    @property
    def skewed(self) -> bool:
        """Whether the key distributions or updates change the costs (cost_models.skew)."""
        return (not self.write_keys.is_uniform or not self.read_keys.is_uniform
                or self.read_keys.kind == "latest" or self.update_fraction > 0.0)


def workload_vector(w: Workload, write_cost_ratio: float = 1.0,
                    probe_cost: float = 0.0) -> np.ndarray:
    """The weights that turn a cost row (:data:`cost_models.objective.COST_ROW`) into Theta
    (Eq 16, range cost in blocks; a block written costs ``write_cost_ratio`` block reads, a
    filter probe ``probe_cost``). Every Theta in the project is a row times these."""
    return theta_weights(*w.fractions, w.range_blocks, write_cost_ratio,
                         w.expected_point_reads, probe_cost)


def kind_weights(w: Workload, write_cost_ratio: float = 1.0, probe_cost: float = 0.0
                 ) -> np.ndarray:
    """(4, len(COST_ROW)): row j is :func:`workload_vector` of the workload that runs only
    operation kind j (``Workload.fractions``' order: point reads, zero-result reads, writes,
    range reads) with ``w``'s keys and ranges: a cost row times it is each kind's cost."""
    return np.stack([theta_weights(*np.eye(4)[j], w.range_blocks, write_cost_ratio,
                                   w.expected_point_reads, probe_cost) for j in range(4)])


def robust_weights(workloads: list[Workload], write_cost_ratio: float, rho: float,
                   probe_cost: float = 0.0) -> RobustWeights:
    """The robust objective's weights (Endure): each operation's cost is Theta of the workload
    that runs only it (:func:`workload_vector`'s weights), the worst mix within KL ``rho``."""
    if isinstance(rho, bool) or not isinstance(rho, (int, float)) or not math.isfinite(rho) \
            or rho < 0:
        raise ValueError(f"rho must be a finite number >= 0; got {rho!r}")
    fractions = np.array([w.fractions for w in workloads], dtype=float)
    op_map = np.stack([kind_weights(w, write_cost_ratio, probe_cost).T for w in workloads])
    return RobustWeights(fractions, op_map, float(rho))


# What each argument of the public functions holds, with an example of one.
_API_TYPES: dict[str, tuple[type, str]] = {
    "design": (Design, "preset('leveling') or Design(T=10, C=9, K=0, Z=0)"),
    "system": (System, "System(entries=1e9)"),
    "workload": (Workload, "Workload(point_reads=0.5, writes=0.5)"),
}


def check_types(*, optional: tuple[str, ...] = (), **arguments: object) -> None:
    """Refuse a public function's argument of the wrong type with a ``TypeError`` naming it,
    the type it needs and an example (a str or a dict where a Workload belongs would otherwise
    fail deep in the model). Names are those of :data:`_API_TYPES`, or ``workloads``, a list of
    Workloads; the names in ``optional`` may be None."""
    for name, value in arguments.items():
        if name == "workloads":
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"workloads must be a list of Workload, e.g. "
                                f"[{_API_TYPES['workload'][1]}]; got {type(value).__name__}")
            for i, w in enumerate(value):
                _check_type(f"workloads[{i}]", w, Workload, optional=False)
            continue
        kind, _ = _API_TYPES[name]
        _check_type(name, value, kind, optional=name in optional)


def _check_type(name: str, value: object, kind: type, *, optional: bool) -> None:
    if isinstance(value, kind) or (optional and value is None):
        return
    example = _API_TYPES[kind.__name__.lower()][1]
    convert = (f" (a dict of its fields converts with {kind.__name__}(**fields))"
               if isinstance(value, dict) else "")
    raise TypeError(f"{name} must be a {kind.__name__}{' or None' if optional else ''}, e.g. "
                    f"{example}{convert}; got {type(value).__name__} {value!r:.60}")
