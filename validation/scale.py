"""How big an engine run is: entries, sizes, read counts and the seed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wacky_model.types import System

# Engines run without their write-ahead log: the cost model prices flushes and merges only.
ENGINE_WAL = False


@dataclass(frozen=True)
class Scale:
    """How big the engine run is. The default gives at least three levels for T <= 10."""

    entries: int = 2_000_000
    entry_bytes: int = 128
    block_bytes: int = 4096
    buffer_bytes: int = 1 << 20
    reads: int = 20_000  # operations per read kind in the read phase
    mix_ops: int = 20_000  # operations of the workload's mix, when a workload is given
    range_entries: int = 4  # entries a short range read returns, about
    seed: int = 0

    def __post_init__(self) -> None:
        checks = (
            ("entries", self.entries, 1_000, 10**9), ("entry_bytes", self.entry_bytes, 16, 1 << 16),
            ("block_bytes", self.block_bytes, self.entry_bytes, 64 << 20),
            ("buffer_bytes", self.buffer_bytes, self.block_bytes, 1 << 34),
            ("reads", self.reads, 100, 10**8), ("mix_ops", self.mix_ops, 0, 10**8),
            ("range_entries", self.range_entries, 1, 1 << 20), ("seed", self.seed, 0, 2**63 - 1))
        for name, value, low, high in checks:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"scale {name} must be an integer; got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"scale {name} must lie in [{low}, {high}]; got {value}")
        data = self.entries * self.entry_bytes
        if self.buffer_bytes * 4 > data:
            raise ValueError(
                f"scale buffer_bytes must be at most a quarter of the data "
                f"({data // 4} bytes for {self.entries} entries); got {self.buffer_bytes}")

    @classmethod
    def small(cls) -> Scale:
        """A few seconds' run: for tests, notebooks and the dashboard."""
        return cls(entries=100_000, buffer_bytes=64 << 10, reads=4_000, mix_ops=2_000)

    def system(self, bits_per_entry: float | None, sum_fpr: float | None) -> System:
        return System(entries=self.entries, entry_bytes=self.entry_bytes,
                      block_bytes=self.block_bytes, buffer_bytes=self.buffer_bytes,
                      bits_per_entry=bits_per_entry, sum_fpr=sum_fpr)
