"""One configuration: what a recommendation builds, and the one function that prices it.

A :class:`Configuration` is the merge policy (a :class:`Design`: T, C, X, K, Z and its filters),
how merges are cut and which compaction runs them (a :class:`Compaction`: whole levels or files,
the file size, the level-0 trigger, the file pick, the Wacky policy or RocksDB's universal
compaction, the Wacky or RocksDB's level sizing) and the memory (:class:`Memory`: the buffer,
the filters' bits per entry, the hash levels). The :class:`System` stays the data and the
hardware; a configuration's memory, applied to it, is the system the configuration runs on.

:func:`wacky_model.pricing.price` prices any configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from wacky_model.types import (
    Compaction,
    Design,
    System,
    Workload,
    robust_weights,
    workload_vector,
)


@dataclass(frozen=True)
class Memory:
    """The memory a configuration uses: the write buffer, the filters' bits per entry (App. C
    allocates them across levels unless the design's filters are "uniform") and the levels
    that use hash tables instead of filters (App. F)."""

    buffer_bytes: int
    filter_bits_per_entry: float
    hash_levels: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.buffer_bytes, bool) or not isinstance(self.buffer_bytes, int) \
                or self.buffer_bytes < 1:
            raise ValueError(f"buffer_bytes must be a whole number of bytes >= 1; got "
                             f"{self.buffer_bytes!r}")
        if not 0.0 <= float(self.filter_bits_per_entry) <= 1e6:
            raise ValueError(f"filter_bits_per_entry must be in [0, 1e6]; got "
                             f"{self.filter_bits_per_entry!r}")
        if isinstance(self.hash_levels, bool) or not isinstance(self.hash_levels, int) \
                or not 0 <= self.hash_levels <= 64:
            raise ValueError(f"hash_levels must be a whole number in [0, 64]; got "
                             f"{self.hash_levels!r}")

    @staticmethod
    def of(system: System) -> Memory:
        """The memory ``system`` gives (a total budget split at its buffer)."""
        s = system.with_buffer(system.buffer_bytes) if system.memory_split else system
        return Memory(int(s.buffer_bytes), float(_filter_bits(s)), int(s.hash_levels))


def _filter_bits(system: System) -> float:
    if system.bits_per_entry is not None:
        return float(system.bits_per_entry)
    from wacky_model.analysis import analyze  # the bits a sum of FPRs buys at this N

    return float(analyze(Design(2.0, 1.0, 1.0, 0.0, 0.0), system).memory_bits_per_entry)


@dataclass(frozen=True)
class Configuration:
    """Everything a recommendation builds (module doc)."""

    design: Design
    compaction: Compaction = field(default_factory=Compaction)
    memory: Memory | None = None  # None: the system's

    def __post_init__(self) -> None:
        if self.compaction.granularity == "file":
            from wacky_model.files import check_leveled

            check_leveled(self.design)

    @property
    def target(self) -> str:
        """"rocksdb" when only stock RocksDB builds it (universal, or RocksDB's level sizing),
        "native" otherwise (the native engine, or RocksDB under the Wacky driver)."""
        c = self.compaction
        return "rocksdb" if c.style == "universal" or c.sizing != "wacky" else "native"

    def system(self, system: System) -> System:
        """``system`` with this configuration's memory (its buffer and filters fixed)."""
        if self.memory is None:
            return system.with_buffer(system.buffer_bytes) if system.memory_split else system
        m = self.memory
        return replace(system, buffer_bytes=m.buffer_bytes, bits_per_entry=m.filter_bits_per_entry,
                       sum_fpr=None, memory_bits_per_entry=None, hash_levels=m.hash_levels)

    def to_dict(self) -> dict[str, Any]:
        c = self.compaction
        return {
            "design": self.design.knobs, "filters": self.design.filters,
            "compaction": {"granularity": c.granularity, "style": c.style, "sizing": c.sizing,
                           "file_bytes": c.file_bytes, "level0_trigger": c.level1_runs,
                           "file_pick": c.file_pick, "level_base_bytes": c.level_base_bytes,
                           "universal": None if c.universal is None else dict(
                               c.universal.__dict__),
                           "log": None if c.log is None else dict(c.log.__dict__),
                           "buffer": None if c.buffer is None else dict(c.buffer.__dict__),
                           "l0_partitions": c.l0_partitions,
                           "level_devices": list(c.level_devices),
                           "floating": None if c.floating is None else dict(
                               c.floating.__dict__)},
            "memory": None if self.memory is None else dict(self.memory.__dict__),
            "target": self.target,
        }


def keys_of(workload: Workload | None, system: System) -> str:
    """The key distributions (and the cache) a cost assumes, in words."""
    if workload is None or not workload.skewed:
        words = "uniform keys"
    else:
        words = (f"writes {workload.write_keys.spec}, reads {workload.read_keys.spec}"
                 f", {workload.update_fraction:.0%} updates")
    return words + (f", a {system.cache_bytes:,} B cache" if system.cache_bytes > 0 else "")


def weights_of(workload: Workload, system: System, rho: float | None = None) -> np.ndarray:
    """Eq 16's weights (1, len(COST_ROW)), or with ``rho`` the robust objective's."""
    if rho is None:
        return workload_vector(workload, system.write_cost_ratio, system.probe_cost)[None]
    return robust_weights([workload], system.write_cost_ratio, rho, system.probe_cost)


def features_of(config: Configuration) -> set[str]:
    """The features of :data:`wacky_model.compat.FEATURES` that ``config`` itself puts in play."""
    c = config.compaction
    return {name for name, used in (
        ("files", c.granularity == "file"), ("universal", c.style == "universal"),
        ("level0_trigger", c.level1_runs > 1), ("rocksdb", config.target == "rocksdb"),
        ("devices", bool(c.level_devices)), ("floating", c.floating is not None))
        if used} | set(c.side_runs)
