"""Skew and a block cache on stock RocksDB (issue 30): the skewed window's answers and its
prediction, read batches never counted while a flush or compaction runs, and the CLI's flags."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from rocksdb_helpers import bridge

from validation.results import Checks
from validation.rocksdb import BATCH_TRIES, ReadMeter
from validation.runner import validate
from validation.scale import Scale
from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.types import Design, System, Workload

SCALE = Scale(entries=20_000, buffer_bytes=32 << 10, reads=500)
ZIPF = Workload(0.5, 0.0, 0.5, write_keys="zipf:0.9", read_keys="zipf:0.9", update_fraction=0.5)
TINY = ("--entries", "10000", "--buffer-bytes", "32768", "--reads", "500")
SKEW_FLAGS = ("--point-reads", "0.5", "--writes", "0.5", "--write-dist", "zipf:0.9",
              "--read-dist", "zipf:0.9", "--update-fraction", "0.5")


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """Memory when the machine has it: RocksDB syncs every file it writes."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() else tmp_path


@pytest.mark.parametrize("design", [Design(10, 9, 1, 0, 0), Design(4, 3, 1, 1, 1)],
                         ids=["leveled", "universal"])
def test_a_skewed_stock_run_answers_right_and_is_predicted(workdir, design) -> None:
    bridge()
    r = validate(design, engine="rocksdb", stock=True, workload=ZIPF, scale=SCALE,
                 cache_bytes=SCALE.entries * SCALE.entry_bytes // 7, workdir=workdir)
    assert r.model == "skew" and r.checks == Checks()
    p, m = r.predicted, r.measured
    assert m.point_read is None  # updates move keys out of Level L: the worst case is not read
    assert 0.05 < m.cache_hit_rate < 1.0  # Zipf 0.9: the hot blocks stay cached
    assert all(0.0 <= h <= 1.0 for h in m.cache_hit_rate_per_level)
    half, chunk = SCALE.entries // 2, SCALE.buffer_bytes // SCALE.entry_bytes // 8
    if design.K == 0:  # leveled: half a load of warm-up, half a load measured, whole chunks
        assert half <= r.window_writes < half + chunk
        assert half <= r.detail("skew")["warmup_writes"] < half + chunk
    else:  # universal: from the full merge U5's cycle starts at to the next, as U5 prices it
        assert r.detail("window_complete")
        # Where RocksDB's background compaction puts its full merges varies from run to run:
        # windows of 0.49 to 1.36 model cycles over six runs of this test on 2026-11-27 (two
        # CI runs at 0.49). The bound checks the window is about one cycle, not that length.
        assert 0.4 < r.window_writes / r.detail("model_cycle_writes") < 2.5
    # Loose: the figures the sweep reports are in docs/VALIDATION.md (wacky sweep rocksdb-skew).
    assert abs(p.cache_hit_rate - m.cache_hit_rate) < 0.1
    assert abs(p.point_read_uniform - m.point_read_uniform) < 0.2
    assert p.write_amp == pytest.approx(m.write_amp, rel=1.0)


def _loaded(native, tmp_path: Path) -> tuple[object, np.ndarray]:
    """Leveling T=4 with a level-0 trigger of 1: a flush is compacted at once."""
    system = System(entries=20_000, entry_bytes=128, buffer_bytes=32 << 10, bits_per_entry=5.0)
    options = tmp_path / "OPTIONS"
    options.write_text(rocksdb_export(Design(4, 3, 1, 0, 0), system).options_file())
    db = native.Database(str(tmp_path / "db"), str(options), 1 << 20)
    keys = np.random.default_rng(3).choice(1 << 40, 20_000, replace=False).astype(np.uint64)
    db.put_many(keys, np.zeros((keys.size, 120), np.uint8))
    db.flush()
    db.wait_for_background_work(60.0)
    return db, keys


def test_a_read_batch_a_compaction_overlaps_waits_and_is_redone(tmp_path) -> None:
    db, keys = _loaded(bridge(), tmp_path)
    rng = np.random.default_rng(5)
    fired: list[int] = []

    def flush_updates(db) -> None:  # RocksDB then compacts the level-0 file they make
        db.put_many(keys[:500], np.zeros((500, 120), np.uint8))
        db.flush()

    def once(db) -> None:  # in the middle of the first try only: a compaction starts
        if not fired:
            fired.append(db.tickers()["rocksdb.compact.write.bytes"])
            flush_updates(db)
            start = time.monotonic()
            while not (db.int_property("rocksdb.num-running-compactions")
                       or db.tickers()["rocksdb.compact.write.bytes"] > fired[0]):
                assert time.monotonic() - start < 30, "RocksDB did not compact the flush"
                time.sleep(0.001)

    meter = ReadMeter(db, {"uniform": lambda k: rng.choice(keys, k),
                           "range": lambda k: rng.choice(keys, k)}, 4, during=once)
    lookups = sum(h + m for h, m in db.read_counts())
    meter.batch(200)
    assert meter.discarded == 1  # the first try saw the flush: redone
    assert db.tickers()["rocksdb.compact.write.bytes"] > fired[0]  # and RocksDB compacted
    assert [t[0] for t in meter.totals.values()] == [200, 200]  # one try's reads, not two
    counted = sum(int(t[1].sum() + t[2].sum()) for t in meter.totals.values())
    assert counted < sum(h + m for h, m in db.read_counts()) - lookups  # the first's left out
    assert meter.checks() == Checks()
    # A flush in every try: the batch gives up, and says why.
    meter.during = flush_updates
    with pytest.raises(RuntimeError, match=f"during each of {BATCH_TRIES} tries"):
        meter.batch(10)
    del db


def test_the_cli_validates_skew_on_stock_rocksdb(wacky) -> None:
    bridge()
    out = wacky("validate", "--engine", "rocksdb", "--stock", "--preset", "leveling", *TINY,
                *SKEW_FLAGS, "--cache-bytes", "200000", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["model"] == "skew" and doc["stock"] is True
    assert doc["skew"]["cache_bytes"] == 200_000 and doc["read_batches_discarded"] >= 0
    assert 0.0 <= doc["measured"]["cache_hit_rate"] <= 1.0


def test_the_driver_refuses_skew_naming_stock(wacky) -> None:
    out = wacky("validate", "--engine", "rocksdb", "--preset", "leveling", *TINY, *SKEW_FLAGS)
    assert out.returncode == 2 and "--stock" in out.stderr and "Traceback" not in out.stderr
