"""Paged metadata on devices (G1 with D1, docs/MODEL.md "G1 on devices"): a cache miss of a
filter, index or data block is a read of its level's file, on that level's device."""

from __future__ import annotations

import numpy as np
import pytest

from cost_models.devices import devices_of_levels
from cost_models.paged import native_paged_levels, paged_reads, with_paged_reads
from tests.test_engine_paged import ZERO_BLOCK, ZERO_KEYS, ZERO_READS, zero_result_window
from wacky_model.config import Configuration, Memory
from wacky_model.devices import Device
from wacky_model.pricing import price
from wacky_model.types import Compaction, Design, System, Workload

DESIGN = Design(10, 9, 1, 0, 0)
READS = Workload(point_reads=0.3, zero_reads=0.4, writes=0.3)


def _system(**extra) -> System:
    return System(entries=1e7, entry_bytes=128, buffer_bytes=1 << 20, bits_per_entry=10,
                  paged_metadata=True, cache_bytes=8 << 20, **extra)


def test_the_paged_ledger_sums_to_g1_and_one_device_changes_nothing() -> None:
    """The ledger's reads are G1's misses by level: they sum to G1's totals, and with every
    level on the system's own device Θ is the price without devices."""
    alone = price(Configuration(DESIGN, Compaction("file"), Memory.of(_system())), READS,
                  _system())
    two = _system(devices=(Device("own"), Device("slow", 10.0, 10.0)))
    same = price(Configuration(DESIGN, Compaction("file", level_devices=(0,)), Memory.of(two)),
                 READS, two)
    ledger = same.ledger
    assert ledger is not None
    assert float(ledger.zero_result.sum()) == pytest.approx(alone.zero_result_read, rel=1e-12)
    assert float(ledger.point_read.sum()) == pytest.approx(alone.point_read, rel=1e-12)
    assert same.theta == pytest.approx(alone.theta, rel=1e-12)
    # the deepest level on a device ten times slower: its misses cost ten times more
    deep = len(ledger.writes) - 1
    placed = price(Configuration(DESIGN, Compaction("file", level_devices=(0,) * deep + (1,)),
                                 Memory.of(two)), READS, two)
    assert placed.ledger is not None
    extra_reads = 9.0 * (READS.zero_reads * placed.ledger.zero_result[deep]
                         + READS.point_reads * placed.ledger.point_read[deep])
    assert placed.ledger.zero_result[deep] > 0 and placed.theta > alone.theta + extra_reads / 2


def test_the_ledger_needs_the_levels_g1_priced() -> None:
    from dataclasses import dataclass

    from cost_models.devices import LevelLedger

    @dataclass(frozen=True)
    class Costs:
        zero_result_read: float
        point_read: float
        point_read_uniform: float
        ledger: LevelLedger

    one = np.zeros(1)
    costs = Costs(0.0, 0.0, 0.0, LevelLedger(one, one, one, one, one, one))
    levels = native_paged_levels([{"level": 2, "runs": [
        {"entries": 10, "max_key": 9, "min_key": 0, "blocks": 1, "filter_fpr": 0.01,
         "filter_bits_per_key": 10.0}]}], 0, 10)
    reads = paged_reads(levels, 1 << 20, 4096, 1.0)
    with pytest.raises(ValueError, match="reach level 2; the ledger has 1"):
        with_paged_reads(costs, levels, reads, reads)


def test_g1_places_the_engines_metadata_misses_on_their_devices() -> None:
    """The native engine on two devices (levels 0-1 on its own, Level 2 on another) with paged
    metadata and an 8 KiB cache, zero-result reads: each device's filter, index and data block
    misses per read against G1's on the engine's own tree (as tests/test_engine_paged.py
    checks G1's totals), summed by the placement; and the device that G1 gives no misses reads
    no bytes."""
    placed = (0, 0, 1)
    s0, s, engine_levels = zero_result_window(8 << 10, np.random.default_rng(1), placed)
    levels = native_paged_levels(engine_levels, 0, 2 * ZERO_KEYS)

    def moved(key: str) -> np.ndarray:
        return np.array(s[key], dtype=float) - np.array(s0[key], dtype=float)

    per_level = (moved("filter_misses_per_level") + moved("index_misses_per_level")
                 + moved("cache_misses_per_level")) / ZERO_READS
    where = devices_of_levels(placed, len(per_level))
    measured = np.bincount(where, weights=per_level, minlength=2)
    z = paged_reads(levels, 8 << 10, ZERO_BLOCK, 1.0)
    model = np.zeros(len(per_level))
    np.add.at(model, [lv.level for lv in levels], z.zero_result_by_level)
    predicted = np.bincount(where, weights=model, minlength=2)
    print(f"misses per zero-result read, own / other device: measured {measured[0]:.4f} / "
          f"{measured[1]:.4f}, G1 {predicted[0]:.4f} / {predicted[1]:.4f}")
    assert measured == pytest.approx(predicted, rel=0.10)
    device_bytes = [x["bytes_read"] for x in s["devices"]]
    assert all(b > 0 for b in device_bytes) and predicted.min() > 0.1
