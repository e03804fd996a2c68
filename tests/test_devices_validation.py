"""D1 measured (issue 33): the native engine's per-device bytes over a validation window equal
its per-level bytes summed by the placement and come near the model's; on stock RocksDB the
export's db_paths put level 0 on the database's directory and the levels below on a second path,
whose bytes the bridge counts, near the model's. Small scales; `wacky sweep ohdb` is the full
comparison (docs/VALIDATION.md, "OHDB")."""

from __future__ import annotations

import json

import pytest

from tests.rocksdb_helpers import bridge
from validation.runner import validate
from validation.scale import Scale
from validation.side_runs import side_scale
from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.types import Compaction, Design, System

DESIGN = Design(T=10, C=9, X=1, K=0, Z=0)
SCALE = side_scale(Scale(), 60_000, 64 << 10)
FILES = 16 << 10


@pytest.mark.parametrize("trigger, devices", [(1, (0, 0, 1)), (4, (0, 1))])
def test_native_device_bytes_are_the_levels_placed_there(trigger, devices) -> None:
    r = validate(DESIGN, scale=SCALE, compaction=Compaction("file", FILES, trigger,
                                                            level_devices=devices))
    d = r.detail("devices")
    assert d["write_amp"] == pytest.approx(d["write_amp_by_levels"], rel=1e-12)
    assert sum(d["write_amp"]) == pytest.approx(r.measured.write_amp, rel=1e-9)
    # The device holding the deep levels, against D1 from the partial model's ledger.
    assert d["write_amp"][1] == pytest.approx(d["model_write_amp"][1], rel=0.15)


def test_rocksdb_db_paths_put_the_levels_where_the_model_says() -> None:
    bridge()
    r = validate(DESIGN, scale=SCALE, engine="rocksdb", stock=True,
                 compaction=Compaction("file", FILES, 4, level_devices=(0, 1)))
    d = r.detail("devices")
    assert len(d["db_paths"]) == 2 and d["db_paths"][0][0] == 0
    # Level 0's flushes on the first path, the compactions into Levels 1.. on the second.
    assert d["write_amp"][0] == pytest.approx(1.0, rel=0.1)
    assert d["write_amp"][1] == pytest.approx(d["model_write_amp"][1], rel=0.15)


def test_the_export_writes_db_paths_and_refuses_what_rocksdb_cannot_place(wacky) -> None:
    s = System(entries=2e5, buffer_bytes=128 << 10)
    e = rocksdb_export(DESIGN, s, 4, 32 << 10, level_devices=(0, 0, 1))
    assert [d for d, _ in e.db_paths] == [0, 1]
    assert e.option("level_compaction_dynamic_level_bytes") == "false"
    with pytest.raises(ValueError, match="0, ..., 0, d"):
        rocksdb_export(DESIGN, s, 4, 32 << 10, level_devices=(0, 1, 0))
    with pytest.raises(ValueError, match="first db_path"):
        rocksdb_export(DESIGN, s, 4, 32 << 10, level_devices=(1,))
    with pytest.raises(ValueError, match="static level sizes"):
        rocksdb_export(DESIGN, s, 4, 32 << 10, dynamic=True, level_devices=(0, 1))
    r = wacky("export", "--rocksdb", "--T", "10", "--C", "9", "--K", "0", "--Z", "0",
              "--entries", "2e5", "--buffer-bytes", "131072", "--level-devices", "0,1", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [p["device"] for p in doc["bridge_db_paths"]] == [0, 1]
    assert doc["grades"]["level_devices"]["grade"] == "exact"
