"""D1, levels on devices (docs/MODEL.md; issue 33): the per-level ledger each cycle model gives
(its terms add up to the model's totals), the device stage of the one pricing function, the
placement recommend chooses in both directions, the refusals, the native engine's level_dirs
through the Python API and the CLI's flags."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from cost_models.devices import LevelLedger, device_costs
from cost_models.finite import finite_costs
from native_engine import Engine
from wacky_model.config import Configuration
from wacky_model.devices import Device
from wacky_model.placement import candidates, place
from wacky_model.pricing import ledger_of, price
from wacky_model.search import recommend
from wacky_model.types import Compaction, Design, System, Workload

MIX = Workload(point_reads=0.3, zero_reads=0.2, writes=0.3, range_reads=0.2)
DESIGNS = [(10, 9, 1, 0, 0), (4, 3, 1, 1, 1), (6, 5, 1, 1, 0), (3, 2, 1, 0, 0), (8, 2, 2, 1, 0)]


@pytest.mark.parametrize("knobs", DESIGNS)
def test_the_finite_ledger_adds_up_to_the_finite_models_totals(knobs) -> None:
    c = finite_costs(*knobs, entries=3e6, buffer_entries=4096, bits_per_entry=5)
    for total, parts in ((c.write_amp, c.level_writes), (c.zero_result_read, c.level_zero_result),
                         (c.point_read, c.level_point_read),
                         (c.point_read_uniform, c.level_point_read_uniform),
                         (c.range_runs, c.level_range_runs)):
        assert parts is not None and np.all(np.asarray(parts) >= 0)
        assert float(np.sum(parts)) == pytest.approx(float(total), rel=1e-12)


@pytest.mark.parametrize("trigger, partitions", [(1, 1), (4, 1), (4, 8)])
def test_the_partial_ledger_adds_up_to_the_partial_models_totals(trigger, partitions) -> None:
    s = System(entries=2e6, buffer_bytes=256 << 10)
    config = Configuration(Design(10, 9, 1, 0, 0),
                           Compaction("file", 64 << 10, trigger, l0_partitions=partitions))
    costs = price(config, MIX, s).detail
    ledger = ledger_of(costs)
    assert ledger.writes[0] == pytest.approx(1.0 if trigger > 1 else 0.0, abs=1e-9)
    for total, parts in ((costs.write_amp, ledger.writes),
                         (costs.zero_result_read, ledger.zero_result),
                         (costs.point_read, ledger.point_read),
                         (costs.point_read_uniform, ledger.point_read_uniform),
                         (costs.range_runs, ledger.range_runs)):
        assert float(np.sum(parts)) == pytest.approx(float(total), rel=1e-12)


def test_device_costs_weigh_each_level_at_its_devices_prices() -> None:
    ledger = LevelLedger(writes=np.array([1.0, 2.0, 3.0]), zero_result=np.array([0.1, 0.2, 0.3]),
                         point_read=np.array([0.1, 0.2, 1.3]),
                         point_read_uniform=np.array([0.1, 0.5, 0.9]),
                         range_runs=np.array([1.0, 1.0, 1.0]), entries=np.array([0, 10, 90.0]))
    d = device_costs(ledger, (0, 0, 1), (1.0, 5.0), (2.0, 7.0), entries_per_block=4,
                     entry_bytes=100)
    assert d.write_cost == pytest.approx((1 * 2 + 2 * 2 + 3 * 7) / 4)
    assert d.zero_result_read == pytest.approx(0.1 + 0.2 + 0.3 * 5)
    assert d.point_read == pytest.approx(0.1 + 0.2 + 1.3 * 5)
    assert d.range_runs == pytest.approx(1 + 1 + 5)
    assert d.bytes_written_per_insert == pytest.approx((300.0, 300.0))
    assert d.bytes_held == pytest.approx((1000.0, 9000.0))
    with pytest.raises(ValueError, match="names device 2"):
        device_costs(ledger, (0, 2), (1.0, 5.0), (2.0, 7.0), 4, 100)


@pytest.mark.parametrize("granularity", ["level", "file"])
def test_one_device_or_equal_devices_price_as_before(granularity) -> None:
    s = System(entries=2**24)
    config = Configuration(Design(8, 7, 1, 0, 0), Compaction(granularity))
    plain = price(config, MIX, s)
    same = System(entries=2**24, devices=(Device("a"), Device("b")))
    for placement in ((), (0, 1), (0, 0, 1)):
        placed = price(Configuration(config.design, Compaction(granularity,
                                                               level_devices=placement)),
                       MIX, same)
        assert placed.theta == pytest.approx(plain.theta, rel=1e-12)
        assert sum(placed.devices.bytes_written_per_insert) == pytest.approx(
            plain.write_amp * s.entry_bytes, rel=1e-12)


def test_a_slower_device_costs_more_the_more_levels_it_takes() -> None:
    s = System(entries=2**26, devices=(Device("fast"), Device("slow", 8.0, 8.0)))
    design = Design(10, 9, 1, 0, 0)
    thetas = [price(Configuration(design, Compaction(level_devices=(0,) * k + (1,))), MIX,
                    s).theta for k in range(6)]
    # Fewer levels on the slow device never cost more (level 0 of a whole-level tree is empty).
    assert all(a >= b - 1e-12 for a, b in zip(thetas, thetas[1:], strict=False))
    assert thetas[1] > thetas[-1] * 3


def _system(capacity: float) -> System:
    return System(entries=2**27, devices=(Device("nvme", 1.0, 1.0, capacity),
                                          Device("hdd", 10.0, 10.0)))


def test_recommend_keeps_every_level_on_the_own_device_when_it_fits() -> None:
    rec = recommend(MIX, _system(math.inf), granularity="level")
    assert rec.compaction.level_devices == ()
    assert rec.placement["in_words"].startswith("every level on nvme")
    assert rec.placement["bytes_held"]["hdd"] == 0.0


def test_recommend_moves_the_deep_levels_when_the_own_device_is_small() -> None:
    rec = recommend(MIX, _system(2e9), granularity="level")
    devices = rec.compaction.level_devices
    assert devices and devices[0] == 0 and devices[-1] == 1
    p = rec.placement
    assert p["bytes_held"]["nvme"] <= 2e9 < p["bytes_held"]["hdd"]
    # The cheaper placement (everything on nvme) did not fit: what the capacity costs.
    assert p["capacity_costs"] is not None and p["capacity_costs"]["theta"] < rec.cost
    # And the cost is the pick's price at that placement, by the one pricing function.
    again = price(rec.configuration, MIX, _system(2e9))
    assert again.theta == pytest.approx(rec.cost, rel=1e-9)


def test_the_stock_rocksdb_search_refuses_devices_rather_than_ignore_them(wacky) -> None:
    from wacky_model.rocksdb_tuning import recommend_rocksdb

    with pytest.raises(ValueError, match="does not place levels on devices yet"):
        recommend_rocksdb(MIX, _system(2e9))
    r = wacky("recommend", "--target", "rocksdb", "--entries", "1e7", "--device", "a:1:1",
              "--device", "b:4:4", "--writes", "0.5", "--point-reads", "0.5")
    assert r.returncode == 2 and "does not place levels on devices yet" in r.stderr


def test_no_placement_fits_devices_too_small_together() -> None:
    s = System(entries=2**27, devices=(Device("a", 1, 1, 1e6), Device("b", 2, 2, 1e6)))
    with pytest.raises(ValueError, match="no placement of the levels fits"):
        place(Configuration(Design(10, 9, 1, 0, 0)), MIX, s)


def test_candidates_are_prefixes_on_the_own_device() -> None:
    assert candidates(3, 2) == [(), (1,), (0, 1), (0, 0, 1)]
    assert candidates(2, 3) == [(), (1,), (0, 1), (2,), (0, 2)]


def test_refusals_name_the_features_and_their_reason() -> None:
    s = _system(math.inf)
    with pytest.raises(ValueError, match="universal compaction has no levels to place"):
        price(Configuration(Design(4, 3, 1, 1, 1), Compaction(style="universal",
                                                              level_devices=(0, 1))), MIX, s)
    # Under skew whole levels and files are placed (tests/test_devices_skew.py).


@pytest.mark.parametrize("bad, words", [
    (dict(devices=(Device("a", 2.0, 1.0),)), "read_cost must be 1"),
    (dict(devices=(Device("a"), Device("a", 3, 3))), "distinct names"),
    (dict(devices=["a"]), "tuple of Device"),
])
def test_bad_systems_are_refused(bad, words) -> None:
    with pytest.raises(ValueError, match=words):
        System(entries=1e6, **bad)


def test_a_system_read_back_from_json_keeps_its_devices() -> None:
    s = System(entries=1e6, devices=(Device("a"), Device("b", 3, 4, 1e9)))
    doc = json.loads(json.dumps(dataclasses.asdict(s)))
    assert System(**doc) == s


@pytest.mark.parametrize("spec, words", [("x", "NAME:READ_COST"), ("a:b:1", "numbers"),
                                         ("a:1:1:-3", "capacity"), ("a:0:1", "read_cost"),
                                         ("a b:1:1", "word")])
def test_bad_devices_are_refused(spec, words) -> None:
    with pytest.raises(ValueError, match=words):
        Device.parse(spec)
    assert Device.parse("ssd:1:2:1.5G").capacity_bytes == 1.5 * 2**30


def test_level_devices_must_be_device_numbers() -> None:
    for bad in ((0, -1), [0, 1], (0, True), tuple(range(65))):
        with pytest.raises(ValueError, match="level_devices"):
            Compaction(level_devices=bad)  # type: ignore[arg-type]


# --- the native engine's level_dirs through the Python API ---

SMALL = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192,
             wal=False)


def test_the_engine_places_levels_counts_devices_and_keeps_the_placement(tmp_path) -> None:
    slow = tmp_path / "slow"
    data = {i * 7919 % 5000: bytes([i % 251]) * 16 for i in range(3000)}
    with Engine(tmp_path / "db", **SMALL, level_dirs=["", "", str(slow)]) as e:
        for k, v in data.items():
            e.put(k, v)
        s = e.stats()
        assert [d["dir"] for d in s["devices"]] == [str(tmp_path / "db"), str(slow)]
        assert sum(d["bytes_written"] for d in s["devices"]) == s["total"]["bytes_written"]
        # Level 1 lives at home, Level 2 and below on the slow device: exactly their merges.
        assert s["devices"][1]["bytes_written"] == sum(m["bytes_written"] for m in s["merge"][1:])
        files = [r["file"] for lvl in e.levels() for r in lvl["runs"]]
    assert any(f.startswith(str(slow)) for f in files)
    assert {p.name for p in slow.iterdir()} <= {f.rsplit("/", 1)[1] for f in files} | {"lost"}
    with Engine(tmp_path / "db", wal=False) as e:  # reopens with the stored placement
        assert all(e.get(k) == v for k, v in data.items())
    with pytest.raises(ValueError, match="level_dirs"):
        Engine(tmp_path / "db", wal=False, level_dirs=["", "", str(tmp_path / "other")])


@pytest.mark.parametrize("bad, error", [("slow", "list of directories"), ([3], "path or ''"),
                                        (["", "/a b"], "whitespace")])
def test_the_engine_refuses_bad_level_dirs(tmp_path, bad, error) -> None:
    with pytest.raises((ValueError, TypeError), match=error):
        Engine(tmp_path / "db", **SMALL, level_dirs=bad)


# --- the CLI ---

DESIGN = ["--T", "10", "--C", "9", "--K", "0", "--Z", "0", "--entries", "1e8"]


def test_analyze_reports_each_device(wacky) -> None:
    r = wacky("analyze", *DESIGN, "--device", "nvme:1:1:2G", "--device", "hdd:10:10",
              "--level-devices", "0,0,0,1", "--writes", "0.5", "--point-reads", "0.5", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)["devices"]
    assert [d["name"] for d in doc["devices"]] == ["nvme", "hdd"]
    assert doc["devices"][0]["levels"] == [0, 1, 2] and doc["theta"] > 0


@pytest.mark.parametrize("flags, words", [
    (["--device", "nvme:2:1"], "the first --device"),
    (["--device", "a:1:1", "--device", "b:1:1:lots"], "--device"),
    (["--level-devices", "0,x"], "--level-devices"),
    (["--level-devices", "0,1"], "--level-devices names device 1"),
])
def test_bad_device_flags_exit_2_naming_the_flag(wacky, flags, words) -> None:
    r = wacky("analyze", *DESIGN, *flags)
    assert r.returncode == 2, r.stdout + r.stderr
    assert words in r.stderr


def test_recommend_says_where_the_levels_go(wacky) -> None:
    r = wacky("recommend", "--entries", "1e8", "--device", "nvme:1:1:1G", "--device", "hdd:10:10",
              "--writes", "0.5", "--point-reads", "0.5", "--granularity", "level", "--json")
    assert r.returncode == 0, r.stderr
    p = json.loads(r.stdout)["placement"]
    assert p["level_devices"][-1] == 1 and p["bytes_held"]["nvme"] <= 2**30
