"""The Wacky compaction driver on RocksDB: any design, the native engine's tree.

Driver fidelity (issue 15): for every Figure 8 family and five random designs, the same load
grows the same runs per level, with the same entries, on RocksDB as in the native engine, and
the design's policy writes the same entries (the native engine counts whole blocks)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rocksdb_helpers import SMALL, bridge

from native_engine import Engine
from validation.rocksdb_driver import WackyDriver
from wacky_model.presets import PRESET_NAMES, preset
from wacky_model.rocksdb_options import driver_export
from wacky_model.types import Design, System

SYSTEM = System(entries=60_000, entry_bytes=128, buffer_bytes=64 << 10, bits_per_entry=5.0)
F = SYSTEM.buffer_entries
FAMILIES = [name for name in PRESET_NAMES if not name.startswith("plain-")]


def _random_designs(count: int, seed: int) -> list[Design]:
    rng = np.random.default_rng(seed)
    return [Design(T=float(rng.choice([2, 3, 4, 6])), C=float(rng.choice([1, 2, 3, 5])),
                   X=float(rng.choice([1.0, 1.5, 2.0])), K=float(rng.choice([0, 0.5, 1])),
                   Z=float(rng.choice([0, 0.5, 1]))) for _ in range(count)]


DESIGNS = [(name, preset(name, system=SYSTEM)) for name in FAMILIES] + [
    (f"random-{i}", d) for i, d in enumerate(_random_designs(5, seed=15))]


def _driven(native, tmp_path, design: Design):
    options = tmp_path / "OPTIONS"
    options.write_text(driver_export(design, SYSTEM).options_file())
    db = native.Database(str(tmp_path / "rocks"), str(options), 1 << 20, driven=True)
    return db, WackyDriver(db, design, SYSTEM)


@pytest.mark.parametrize("name, design", DESIGNS, ids=[n for n, _ in DESIGNS])
def test_driver_grows_the_native_engines_tree(tmp_path, name, design) -> None:
    native = bridge()
    rng = np.random.default_rng(7)
    keys = rng.choice(1 << 40, 40 * F, replace=False).astype(np.uint64)
    values = np.zeros((F, SYSTEM.entry_bytes - 8), dtype=np.uint8)
    db, driver = _driven(native, tmp_path, design)
    for i in range(0, keys.size, F):
        driver.insert_buffer(keys[i : i + F], values)
    driver.check()  # RocksDB holds exactly the policy's runs, every one in level 0
    rocks = [(len(runs), sum(runs)) for runs in driver.runs_per_level()]
    found = db.get_many(keys[::97])
    absent = db.get_many(keys[::97] + np.uint64(1 << 41))
    del db

    with Engine(tmp_path / "native", **design.knobs, filters=design.filters,
                entry_bytes=SYSTEM.entry_bytes, block_bytes=SYSTEM.block_bytes,
                buffer_bytes=SYSTEM.buffer_bytes, bits_per_entry=5.0, wal=False) as engine:
        engine.put_many(keys, np.zeros((keys.size, engine.value_bytes), dtype=np.uint8))
        engine.flush()
        levels = [[r["entries"] for r in lvl["runs"] if r["entries"] > 0]
                  for lvl in engine.levels()]
        blocks = engine.stats()["total"]["blocks_written"]
    assert rocks == [(len(runs), sum(runs)) for runs in levels]
    native_write_amp = blocks * SYSTEM.entries_per_block / keys.size
    assert driver.counts.tree_write_amp == pytest.approx(native_write_amp, rel=0.05)
    assert found.all() and not absent.any()


def test_driver_sets_each_runs_filter(tmp_path) -> None:
    """Each run's filter has the bits the policy gives its level: with Monkey, the small levels'
    filters are richer than Level L's."""
    native = bridge()
    design = Design(T=4, C=3, X=1, K=1, Z=1)
    db, driver = _driven(native, tmp_path, design)
    rng = np.random.default_rng(3)
    keys = rng.choice(1 << 40, 30 * F, replace=False).astype(np.uint64)
    values = np.zeros((F, SYSTEM.entry_bytes - 8), dtype=np.uint8)
    steps = [driver.insert_buffer(keys[i : i + F], values) for i in range(0, keys.size, F)]
    driver.check()
    bits = [s.bits_per_key for s in steps]
    assert max(bits) > min(bits) > 0  # Eq 12 differs by level
    memory = 8.0 * db.filter_bytes() / keys.size
    assert 3.5 <= memory <= 7.0  # the 5-bit budget, give or take RocksDB's filter rounding
    with pytest.raises(ValueError, match="one full buffer|buffer holds"):
        driver.insert_buffer(keys[:10], values[:10])
    del db


def test_driver_needs_auto_compactions_off(tmp_path) -> None:
    native = bridge()
    from wacky_model.rocksdb_options import rocksdb_export

    stock = tmp_path / "OPTIONS"
    stock.write_text(rocksdb_export(Design(4, 3, 1, 0, 0), SYSTEM).options_file())
    with pytest.raises(ValueError, match="disable_auto_compactions=true"):
        native.Database(str(tmp_path / "db"), str(stock), 1 << 20, driven=True)
    plain = native.Database(str(tmp_path / "db2"), str(stock), 1 << 20)
    with pytest.raises(RuntimeError, match="opened for the driver"):
        plain.compact_files(["000001.sst"], 0)
    del plain


def test_validate_with_the_driver(wacky) -> None:
    bridge()
    out = wacky("validate", "--engine", "rocksdb", "--preset", "lazy-leveling", "--T", "4",
                *SMALL, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["engine"] == "rocksdb" and doc["stock"] is False
    assert doc["window_complete"] is True and doc["major_compactions"] >= 1
    # The window is the native engine's, replayed by the simulator: the policy's writes agree.
    assert doc["tree_write_amp"] == pytest.approx(doc["simulated"]["write_amp"], rel=0.05)
    assert doc["measured"]["write_amp"] >= doc["tree_write_amp"]  # + merged flushes, SSTs
    assert [lv["runs"] for lv in doc["measured"]["levels"]] == \
        [lv["runs"] for lv in doc["simulated"]["levels"]]
    assert doc["checks"] == {"get_misses": 0, "zero_hits": 0, "wrong_values": 0}


def test_rocksdb_sweep_section_replaces_the_old_one(tmp_path) -> None:
    bridge()
    from validation.scale import Scale
    from validation.sweep import (
        MARKERS,
        SweepCase,
        case_set,
        existing_section,
        run_cases,
        write_section,
    )
    from wacky_model.types import Compaction

    begin, end = MARKERS["rocksdb"]
    scale = Scale(entries=30_000, buffer_bytes=1 << 16, reads=300)
    listed = case_set("rocksdb").cases(scale, {"bits_per_entry": 5.0})
    assert sum(c.group == "driver" for c in listed) == 6  # every Figure 8 family with a preset
    assert {c.options["compaction"].level1_runs for c in listed if c.group == "stock"} == {1, 4}

    def case(name, design, stock, trigger=1):
        return SweepCase(name, "stock" if stock else "driver", design, {
            "engine": "rocksdb", "stock": stock, "compaction": Compaction(level1_runs=trigger)})

    picked = [case("Tiering (T=4)", Design(4, 3, 1, 1, 1), False),
              case("Leveling T=4, level-0 trigger 4", Design(4, 3, 1, 0, 0), True, 4),
              case("refused", Design(4, 3, 1, 1, 1), True, 4)]
    refused: list = []
    results = run_cases(picked, scale, {"bits_per_entry": 5.0}, workers=1, refused=refused)
    assert len(results) == 2 and refused[0][0] == "refused"
    section = case_set("rocksdb").render(results, scale, {"bits_per_entry": 5.0}, "test", refused)
    assert section.startswith(begin) and section.rstrip().endswith(end)
    assert "| Tiering (T=4) |" in section and "| yes |" in section
    assert "| Leveling T=4, level-0 trigger 4 |" in section and "| partial |" in section
    assert "Leveled: write amplification within 15% in" in section
    doc = tmp_path / "VALIDATION.md"
    doc.write_text("# Validation\n\nnative part\n\n" + begin + "\nold\n" + end + "\n\ntail\n")
    write_section(doc, "rocksdb", section)
    text = doc.read_text()
    assert "old" not in text and "native part" in text and "tail" in text
    assert existing_section(doc, "rocksdb") == section


@pytest.mark.parametrize("args, message", [
    # LSM-bush: stock RocksDB cannot express it, the driver can.
    (["--T", "2", "--C", "1", "--X", "3", "--K", "1", "--Z", "0", "--stock"],
     "stock RocksDB cannot express this design"),
    # 1,000 runs at Level L, each a level-0 file (one-block buffers: N/F = 1,875).
    (["--T", "4", "--C", "1000", "--X", "1", "--K", "1", "--Z", "1", "--buffer-bytes", "4096"],
     "the compaction driver refuses this design"),
])
def test_rocksdb_refusals_are_clear(wacky, args, message) -> None:
    bridge()
    out = wacky("validate", "--engine", "rocksdb", *SMALL, *args)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr and "Traceback" not in out.stderr
