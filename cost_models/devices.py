"""D1: I/O priced where it lands (docs/MODEL.md "D1. Devices").

A tree whose levels sit on devices of different speeds (RocksDB's ``db_paths``, the native
engine's ``level_dirs``) does the same I/O as on one device; what changes is what each block
costs. The cycle models give that I/O per level (:class:`LevelLedger`, level 0 first); a
placement maps each level to a device, and each device has a cost per block read and per block
written, in the unit of Θ (a block read on the system's own device). The device stage sums
each level's I/O at its device's costs, and counts the bytes each device writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LevelLedger:
    """One configuration's I/O per operation, per level (index 0 = level 0, i = Level i).
    Each array sums to the cost the cycle model reports for the whole tree."""

    writes: np.ndarray  # entries written into the level per entry inserted (Eq 14's terms)
    zero_result: np.ndarray  # blocks a zero-result read reads there (its false positives)
    point_read: np.ndarray  # blocks an existing-key read of Level L reads there
    point_read_uniform: np.ndarray  # the same for a key drawn uniformly from the data
    range_runs: np.ndarray  # runs a short range read seeks there (one block each)
    entries: np.ndarray  # mean entries the level holds

    def __post_init__(self) -> None:
        n = len(self.writes)
        for name in ("zero_result", "point_read", "point_read_uniform", "range_runs",
                     "entries"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"LevelLedger.{name} has {len(getattr(self, name))} levels; "
                                 f"writes has {n}")


def level_device(level_devices: tuple[int, ...], level: int) -> int:
    """The device of ``level`` (0 = level 0): ``level_devices[min(level, n - 1)]``, or 0 with no
    placement (the engine's rule, native_engine/src/devices.h)."""
    if not level_devices:
        return 0
    return level_devices[min(level, len(level_devices) - 1)]


def devices_of_levels(level_devices: tuple[int, ...], levels: int) -> np.ndarray:
    return np.array([level_device(level_devices, i) for i in range(levels)], dtype=int)


@dataclass(frozen=True)
class DeviceCosts:
    """D1's sums: the cost row's I/O terms at the devices' prices, and each device's load."""

    write_cost: float  # Σ_i writes_i c_w(d_i) / B, in read units (φ included)
    zero_result_read: float  # Σ_i zero_i c_r(d_i)
    point_read: float
    point_read_uniform: float
    range_runs: float
    bytes_written_per_insert: tuple[float, ...]  # per device, entry bytes written per insert
    bytes_held: tuple[float, ...]  # per device, mean bytes the levels on it hold


def device_costs(ledger: LevelLedger, level_devices: tuple[int, ...],
                 read_costs: tuple[float, ...], write_costs: tuple[float, ...],
                 entries_per_block: float, entry_bytes: float) -> DeviceCosts:
    """D1: every per-level term at its device's cost per block. ``read_costs[d]`` and
    ``write_costs[d]`` are device d's (device 0 the system's own: 1 and φ)."""
    if len(read_costs) != len(write_costs) or not read_costs:
        raise ValueError("give a read and a write cost for every device")
    dev = devices_of_levels(level_devices, len(ledger.writes))
    if dev.max(initial=0) >= len(read_costs):
        raise ValueError(f"level_devices names device {int(dev.max())}, but the system has "
                         f"{len(read_costs)} device(s) (devices 0 to {len(read_costs) - 1})")
    r = np.asarray(read_costs, dtype=float)[dev]
    w = np.asarray(write_costs, dtype=float)[dev]
    n_dev = len(read_costs)
    written = np.bincount(dev, weights=ledger.writes * entry_bytes, minlength=n_dev)
    held = np.bincount(dev, weights=ledger.entries * entry_bytes, minlength=n_dev)
    return DeviceCosts(
        write_cost=float(np.sum(ledger.writes * w) / entries_per_block),
        zero_result_read=float(np.sum(ledger.zero_result * r)),
        point_read=float(np.sum(ledger.point_read * r)),
        point_read_uniform=float(np.sum(ledger.point_read_uniform * r)),
        range_runs=float(np.sum(ledger.range_runs * r)),
        bytes_written_per_insert=tuple(map(float, written)),
        bytes_held=tuple(map(float, held)),
    )


def skew_ledger(costs: Any, false_positives: Sequence[float], fpr: Sequence[float],
                probed: Sequence[float], at: Sequence[int], levels: int,
                range_runs: Sequence[float]) -> LevelLedger:
    """D1's ledger of the skew model's costs (S2-S7, ``SkewedCosts``, per-level tuples from its
    first level) with the per-level terms its totals sum (docs/MODEL.md "D1 under skew"): level
    i's writes, its share of existing-key reads and false positives fp_i (``false_positives``)
    missed at its hit rate, (s_i + fp_i)(1 - h_i), and a zero-result read's a_i p_i (1 - c_i)
    (``probed`` a_i, ``fpr`` p_i, c_i the cached share). ``at`` is the ledger level of each of the
    model's levels (0 = level 0), ``levels`` the ledger's length; ``range_runs`` the seeks per
    ledger level, as the price takes them (the uniform model's, or S7r's through the cache)."""
    n = len(costs.level_write_amp)
    per_level = {"false_positives": false_positives, "fpr": fpr, "probed": probed, "at": at,
                 "read_level_share": costs.read_level_share,
                 "cache_hit_rate_per_level": costs.cache_hit_rate_per_level,
                 "level_entries": costs.level_entries}
    for name, v in per_level.items():
        if len(v) != n:
            raise ValueError(f"{name} has {len(v)} levels; the skew model has {n}")
    at_arr = np.asarray(at, dtype=int)
    if n and (at_arr.min() < 0 or at_arr.max() >= levels or len(set(at_arr.tolist())) != n):
        raise ValueError(f"at must name distinct ledger levels in [0, {levels}); got "
                         f"{at_arr.tolist()}")
    if len(range_runs) != levels:
        raise ValueError(f"range_runs has {len(range_runs)} levels; the ledger has {levels}")
    # S7f: with no cache the cached shares are empty or zero, and nothing is cached.
    cached = np.asarray(costs.cached_share_per_level or np.zeros(n), dtype=float)
    miss = 1.0 - np.asarray(costs.cache_hit_rate_per_level, dtype=float)
    point = (np.asarray(costs.read_level_share) + np.asarray(false_positives)) * miss
    zero = np.asarray(probed) * np.asarray(fpr) * (1.0 - cached)

    def spread(x: Any) -> np.ndarray:
        out = np.zeros(levels)
        out[at_arr] = np.asarray(x, dtype=float)
        return out

    point_read = spread(point)
    # Under skew existing-key reads are priced as drawn from the read distribution: the
    # uniform expectation gives way to it, as in the price's row.
    return LevelLedger(writes=spread(costs.level_write_amp), zero_result=spread(zero),
                       point_read=point_read, point_read_uniform=point_read,
                       range_runs=np.asarray(range_runs, dtype=float),
                       entries=spread(costs.level_entries))


def with_floats(ledger: LevelLedger, writes: Sequence[float],
                moved_reads: Sequence[float]) -> LevelLedger:
    """D1 with Tidal-tree's floating (docs/MODEL.md "Floating on devices"): ``writes``, F4's
    entries written per insert by the level they go into, and ``moved_reads``, the block reads
    per existing-key read F3 moves between levels (they sum to 0: a floated key is read at its
    new level instead), both per Level (index 0 = Level 1), added to the ledger's Levels 1..
    (level 0 takes no float). The ledger grows where F's tree is deeper."""
    n = max(len(ledger.writes), 1 + len(writes), 1 + len(moved_reads))

    def levels(x: np.ndarray) -> np.ndarray:
        return np.pad(np.asarray(x, dtype=float), (0, n - len(x)))

    def below_level0(x: Sequence[float]) -> np.ndarray:
        return levels(np.concatenate([[0.0], np.asarray(x, dtype=float)]))

    moved = below_level0(moved_reads)
    return LevelLedger(writes=levels(ledger.writes) + below_level0(writes),
                       zero_result=levels(ledger.zero_result),
                       point_read=levels(ledger.point_read) + moved,
                       point_read_uniform=levels(ledger.point_read_uniform) + moved,
                       range_runs=levels(ledger.range_runs), entries=levels(ledger.entries))
