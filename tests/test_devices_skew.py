"""D1 under skew (docs/MODEL.md "D1 under skew"): the whole-level skew model's (S1-S8) reads and
writes split by level add up to its totals, so every level on one device prices as before; the
levels that hold the hot keys are worth a fast device under Zipf reads more than under uniform
ones; file-granular designs (S2f) are placed at their engine levels; the native engine on two
devices under Zipf reads with a cache reads and writes on each what the ledger says; and the
compatibility table prices the combinations it used to refuse."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cost_models.devices import LevelLedger, skew_ledger
from validation.skew_devices import compare
from wacky_model.compat import refusals
from wacky_model.config import Configuration
from wacky_model.devices import Device
from wacky_model.pricing import price
from wacky_model.skew import cache_blocks, skew_tree
from wacky_model.types import Compaction, Design, System, Workload

TWO = (Device("own"), Device("other", 3.0, 3.0))
ZIPF = dict(read_keys="zipf:0.99", write_keys="zipf:0.99", update_fraction=0.5)
MIX = Workload(point_reads=0.4, zero_reads=0.1, writes=0.4, range_reads=0.1, **ZIPF)
DESIGNS = [Design(10, 9, 1, 0, 0), Design(4, 3, 1, 1, 1), Design(6, 5, 1, 1, 0)]


def _system(cache_bytes: int, devices: tuple[Device, ...] = TWO) -> System:
    return System(entries=2**22, buffer_bytes=1 << 20, bits_per_entry=8.0,
                  cache_bytes=cache_bytes, devices=devices)


@pytest.mark.parametrize("cache_bytes", [0, 16 << 20])
@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: f"T{d.T:g}K{d.K:g}Z{d.Z:g}")
def test_the_skew_ledger_adds_up_to_the_skew_models_totals(design, cache_bytes) -> None:
    s = _system(cache_bytes)
    p = price(Configuration(design, Compaction(level_devices=(0, 0, 1))), MIX, s)
    assert p.model == "skew" and p.ledger is not None
    raw = skew_tree(design, s, MIX).costs(cache_blocks(s))
    led = p.ledger
    assert led.writes[0] == led.point_read[0] == 0.0  # whole levels: level 0 holds nothing
    for total, parts in ((raw.write_amp, led.writes), (raw.point_read, led.point_read),
                         (raw.point_read, led.point_read_uniform),
                         (raw.zero_result_read, led.zero_result),
                         (p.range_runs, led.range_runs),
                         (sum(raw.level_entries), led.entries)):
        assert np.all(parts >= 0.0)
        assert float(np.sum(parts)) == pytest.approx(float(total), rel=1e-12)
    # Every level on the own device: D1 changes nothing, Θ to the last bit of rounding.
    same = price(Configuration(design, Compaction(level_devices=(0,))), MIX, s)
    alone = price(Configuration(design), MIX, _system(cache_bytes, ()))
    assert same.theta == pytest.approx(alone.theta, rel=1e-12)
    assert p.theta > same.theta  # the deep levels on a device three times as dear


def test_the_ledger_refuses_levels_it_cannot_place() -> None:
    raw = skew_tree(DESIGNS[0], _system(0), MIX).costs(0)
    n = len(raw.level_write_amp)
    args = ([0.0] * n, [0.0] * n, [1.0] * n)  # false positives, fpr, probed
    with pytest.raises(ValueError, match="fpr has"):
        skew_ledger(raw, args[0], [0.0] * (n + 1), args[2], range(1, n + 1), n + 1,
                    [0.0] * (n + 1))
    with pytest.raises(ValueError, match="at must name"):
        skew_ledger(raw, *args, [1] * n, n + 1, [0.0] * (n + 1))
    with pytest.raises(ValueError, match="range_runs has"):
        skew_ledger(raw, *args, range(1, n + 1), n + 1, [0.0] * n)
    assert isinstance(skew_ledger(raw, *args, range(1, n + 1), n + 1, [0.0] * (n + 1)),
                      LevelLedger)


@pytest.mark.parametrize("cache_bytes", [0, 16 << 20])
def test_a_fast_device_for_the_hot_levels_is_worth_more_under_zipf_reads(cache_bytes) -> None:
    """Hot keys written often sit in the upper levels; reads of them land there. Moving the
    upper levels (level 0 to Level 2) to a device four times cheaper saves more under Zipf
    reads of those keys than under uniform reads, whose keys sit mostly in Level L. The writes
    are the same in both, so the difference is the reads'."""
    s = _system(cache_bytes, (Device("own"), Device("fast", 0.25, 0.25)))
    design = Design(10, 9, 1, 0, 0)
    saved = {}
    for reads in ("zipf:0.99", "uniform"):
        w = Workload(point_reads=0.5, writes=0.5, read_keys=reads, write_keys="zipf:0.99",
                     update_fraction=1.0)
        at_home = price(Configuration(design, Compaction(level_devices=(0,))), w, s)
        moved = price(Configuration(design, Compaction(level_devices=(1, 1, 1, 0))), w, s)
        assert moved.write_amp == pytest.approx(at_home.write_amp, rel=1e-12)
        saved[reads] = (at_home.theta - moved.theta) / at_home.theta
    assert saved["zipf:0.99"] > saved["uniform"] + 0.05, saved


def test_the_search_places_levels_under_skew_and_a_cache() -> None:
    from wacky_model.search import recommend

    s = System(entries=2**24, buffer_bytes=1 << 20, bits_per_entry=8.0, cache_bytes=32 << 20,
               devices=(Device("nvme", 1.0, 1.0), Device("hdd", 10.0, 10.0)))
    rec = recommend(MIX, s)
    assert rec.placement is not None and rec.configuration.compaction.granularity == "level"
    again = price(rec.configuration, MIX, s)
    assert again.theta == pytest.approx(rec.cost, rel=1e-9)


@pytest.mark.parametrize("cache_bytes", [0, 16 << 20])
@pytest.mark.parametrize("design, level0", [(Design(10, 9, 1, 0, 0), 1),
                                            (Design(4, 3, 1, 0, 0), 4)],
                         ids=["T10", "T4-trigger4"])
def test_files_under_skew_are_placed_at_their_engine_levels(design, level0,
                                                            cache_bytes) -> None:
    """S2f's levels carry the engine level each is (level 0's runs at 0, the walk's Level j at
    j): the ledger puts every term there and sums to the file-granular skew model's totals;
    with every level on the own device Θ is the price without devices."""
    from wacky_model.pricing import file_skew_trees

    s = _system(cache_bytes)
    c = Compaction("file", 256 << 10, level0, level_devices=(0, 0, 1))
    config = Configuration(design, c)
    p = price(config, MIX, s)
    assert p.model == "files" and p.ledger is not None
    tree = file_skew_trees([config], s, MIX)[0]
    raw = tree.costs(cache_blocks(s))
    assert tree.engine_levels is not None and len(tree.engine_levels) == len(raw.level_entries)
    assert list(tree.engine_levels) == sorted(set(tree.engine_levels))
    assert (tree.engine_levels[0] == 0) == (raw.level0_levels == 1)
    led = p.ledger
    held = np.flatnonzero(led.entries > 0.0)
    assert held.tolist() == list(tree.engine_levels)  # each term at its own engine level
    for total, parts in ((raw.write_amp, led.writes), (raw.point_read, led.point_read),
                         (raw.zero_result_read, led.zero_result),
                         (p.range_runs, led.range_runs),
                         (sum(raw.level_entries), led.entries)):
        assert np.all(parts >= 0.0)
        assert float(np.sum(parts)) == pytest.approx(float(total), rel=1e-12)
    same = price(Configuration(design, replace(c, level_devices=(0,))), MIX, s)
    alone = price(Configuration(design, replace(c, level_devices=())), MIX,
                  _system(cache_bytes, ()))
    assert same.theta == pytest.approx(alone.theta, rel=1e-12)
    assert p.theta > same.theta  # Level 2 and below on a device three times as dear


def test_the_table_prices_devices_under_skew_or_a_cache() -> None:
    for features in ({"devices", "skew"}, {"devices", "cache"}, {"devices", "skew", "cache"},
                     {"devices", "skew", "files"}, {"devices", "cache", "files"},
                     {"devices", "skew", "cache", "files", "level0_trigger"}):
        assert not refusals(features), features


# --- the native engine on two devices, skewed reads and updates, a cache ---


@pytest.mark.parametrize("keys", ["zipf:0.99", "uniform"])
def test_the_engine_reads_and_writes_on_each_device_what_the_ledger_says(tmp_path,
                                                                         keys) -> None:
    """validation.skew_devices: Leveling T = 10 over 131,072 entries of 64 B, Levels 1-2 on
    the engine's own device and Level 3 on another, a cache of 6% of the data, half reads and
    half updates, both Zipf 0.99 (uniform: the control). The targets are the skew model's own
    against this engine (docs/VALIDATION.md, "Skewed keys and a block cache"): read I/O within
    15% or 0.02 I/O, write amplification within 15%, here per device. Measured when written
    (docs/MODEL.md "D1 under skew"), Zipf: blocks read per get 0.122 / 0.339 against 0.134 /
    0.317 predicted, bytes written per byte inserted 2.14 / 3.87 against 2.28 / 3.51."""
    f = compare(keys, tmp_path)
    assert f.full_merges >= 2
    assert len(f.reads) == 2 and min(f.model_reads) > 0.05
    for got, want in zip(f.reads, f.model_reads, strict=True):
        assert abs(got - want) <= max(0.15 * want, 0.02), f
    for got, want in zip(f.written, f.model_written, strict=True):
        assert got == pytest.approx(want, rel=0.15), f


@pytest.mark.parametrize("keys", ["zipf:0.99", "uniform"])
def test_the_engine_reads_and_writes_on_each_device_what_the_file_ledger_says(tmp_path,
                                                                              keys) -> None:
    """validation.skew_devices.FILES: Leveling T = 4 with files of 16 KiB and a level-0
    trigger of 2, level 0 to Level 2 on the own device and Levels 3-4 on another, the same
    workload and cache. Reads are held to the skew model's targets per device (15% or 0.02
    I/O) and the own device's writes to 15%. The other device's writes are S2f's write
    amplification into the deepest levels, which is low under these updates with uniform keys
    as much as under Zipf (Levels 3 and 4: -10% and -29% of the engine's uniform, -14% and
    -33% Zipf when written, docs/MODEL.md "D1 under skew"), so the model is held within 25%
    of the engine there: a bound on S2f's error, not on the placement. Measured when written,
    Zipf: blocks read per get 0.148 / 0.308 against 0.153 / 0.288 predicted, bytes written
    per byte inserted 2.75 / 1.72 against 2.67 / 1.37."""
    from validation.skew_devices import FILES

    f = compare(keys, tmp_path, FILES)
    assert len(f.reads) == 2 and min(f.model_reads) > 0.05
    for got, want in zip(f.reads, f.model_reads, strict=True):
        assert abs(got - want) <= max(0.15 * want, 0.02), f
    assert f.written[0] == pytest.approx(f.model_written[0], rel=0.15), f
    assert f.model_written[1] == pytest.approx(f.written[1], rel=0.25), f  # of the engine's


@pytest.mark.parametrize("sizing", ["static", "dynamic"])
def test_stock_rocksdb_files_under_skew_place_s7r_seeks_at_their_levels(sizing) -> None:
    """Stock RocksDB's leveled files under skew with a cache: range reads go through the
    cache (S7r), and the ledger's seeks are S7r's level by level, at RocksDB's levels (with
    dynamic sizes the base level is deep, and the levels above it hold nothing)."""
    from wacky_model.config import Memory

    s = System(entries=2**20, buffer_bytes=1 << 20, bits_per_entry=8.0, cache_bytes=8 << 20,
               devices=TWO)
    c = Compaction("file", sizing=sizing, level_base_bytes=4 << 20, level_devices=(0, 0, 1))
    p = price(Configuration(Design(10, 9, 1, 0, 0), c, Memory.of(s)), MIX, s)
    assert p.model == "rocksdb" and p.ledger is not None
    assert float(p.ledger.range_runs.sum()) == pytest.approx(p.range_runs, rel=1e-12)
    assert np.all((p.ledger.range_runs > 0) == (p.ledger.entries > 0))
    if sizing == "dynamic":
        assert p.ledger.entries[1] == 0.0  # RocksDB's Level 1 is empty: its base is deeper
    one = price(Configuration(Design(10, 9, 1, 0, 0), replace(c, level_devices=(0,)),
                              Memory.of(s)), MIX, s)
    alone = price(Configuration(Design(10, 9, 1, 0, 0), replace(c, level_devices=()),
                                Memory.of(s)), MIX, replace(s, devices=()))
    assert one.theta == pytest.approx(alone.theta, rel=1e-12)
