"""Durability and integrity: crashes lose no acknowledged write, damage is reported, never
returned, and nothing the MANIFEST does not prove obsolete is deleted."""

from __future__ import annotations

import errno
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from crash_harness import (
    FOOTER_BYTES,
    KEYS,
    SMALL,
    VB,
    checksum_section,
    contents,
    crash_rounds,
    snapshot,
)

import native_engine
from cost_models import limits
from native_engine import CorruptionError, Engine, testing


def test_sigkill_never_loses_an_acknowledged_write(tmp_path) -> None:
    """12 kills at random moments (tests/test_no_silent_loss.py and benchmarks/stress_crash.py
    add corruptions, batches and crash points)."""
    done, _ = crash_rounds(str(tmp_path / "db"), 11, 12, random.Random(5))
    assert done > 12 * 20


def files(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())


def loaded(tmp_path: Path, n: int = 3000) -> tuple[Path, dict[int, bytes]]:
    path = tmp_path / "db"
    model = {}
    with Engine(path, **SMALL) as e:
        for k in range(n):
            v = bytes([k % 251]) * VB
            e.put(k * 7, v)
            model[k * 7] = v
    return path, model


def flip(file: Path, offset: int) -> None:
    data = bytearray(file.read_bytes())
    data[offset] ^= 0x10
    file.write_bytes(bytes(data))


def runs_of(path: Path) -> list[Path]:
    return sorted(path.glob("run-*.sst"), key=lambda p: p.stat().st_size)


def checksum_section_start(run: Path, block_bytes: int = 256) -> int:
    """Run files end in a checksum section: a 72-byte footer, then the CRC of each block, 4
    bytes each, zero padded to whole blocks (native_engine/src/run.h), so it spans
    ceil((72 + 4 * blocks) / block_bytes) blocks."""
    section = checksum_section(run.stat().st_size, block_bytes)
    assert section is not None, f"{run.name} is not blocks followed by a checksum section"
    return section[0]


@pytest.mark.parametrize("offset, names_block", [
    pytest.param(lambda run: 300, True, id="data block"),
    pytest.param(lambda run: checksum_section_start(run) + 1, False, id="footer"),
    pytest.param(lambda run: checksum_section_start(run) + FOOTER_BYTES + 1, True,
                 id="block checksums"),
])
def test_a_flipped_byte_in_a_run_is_an_error_never_a_value(tmp_path, offset,
                                                           names_block) -> None:
    path, model = loaded(tmp_path)
    run = runs_of(path)[-1]
    before = files(path)
    flip(run, offset(run))
    # Reopening reads every block of every run, so the damage is found at once.
    block = ".*block \\d+" if names_block else ""
    with pytest.raises(CorruptionError, match=f"run file '.*{run.name}'{block}"):
        Engine(path, **SMALL)
    assert files(path) == before


def test_damage_found_while_open_raises_on_get_scan_and_verify(tmp_path) -> None:
    path, model = loaded(tmp_path)
    e = Engine(path, **SMALL)
    run = runs_of(path)[-1]
    flip(run, 10)  # block 0 of the largest run, under the open engine
    keys = np.array(sorted(model), dtype=np.uint64)
    with pytest.raises(CorruptionError, match="block 0 fails its checksum"):
        e.get_many(keys)
    with pytest.raises(CorruptionError, match="fails its checksum"):
        list(e.scan(0, 2**64 - 1))
    with pytest.raises(CorruptionError, match="fails its checksum"):
        e.verify()
    values, found = e.get_many(keys[-5:])  # other blocks still answer, and rightly
    assert all(bytes(v) == model[int(k)] for k, v in zip(keys[-5:], values, strict=True))
    assert found.all()
    e.close()


def test_verify_counts_every_block_of_a_sound_directory(tmp_path) -> None:
    path, _ = loaded(tmp_path)
    with Engine.open(path) as e:
        report = e.verify()
        blocks = sum(r["blocks"] for lv in e.levels() for r in lv["runs"])
        assert report["runs"] == sum(len(lv["runs"]) for lv in e.levels()) > 0
        assert report["blocks"] >= blocks > 0


def test_a_damaged_or_truncated_manifest_or_run_refuses_to_open_and_deletes_nothing(tmp_path):
    path, _ = loaded(tmp_path)
    before = files(path)
    manifest = path / "MANIFEST"
    good = manifest.read_bytes()
    flip(manifest, len(good) // 2)
    with pytest.raises(OSError, match="checksum mismatch"):
        Engine(path, **SMALL)
    assert files(path) == before
    manifest.write_bytes(good)
    run = runs_of(path)[-1]
    data = run.read_bytes()
    run.write_bytes(data[: len(data) - 256])
    with pytest.raises(CorruptionError, match="does not match the manifest"):
        Engine(path, **SMALL)
    assert files(path) == before


def test_a_deleted_manifest_refuses_to_open_and_deletes_nothing(tmp_path) -> None:
    path, _ = loaded(tmp_path)
    (path / "MANIFEST").unlink()
    before = files(path)
    with pytest.raises(FileNotFoundError, match="no MANIFEST") as err:
        Engine(path, **SMALL)
    assert err.value.errno == errno.ENOENT
    assert files(path) == before


def test_unlisted_runs_are_moved_to_lost_whatever_their_id(tmp_path) -> None:
    """Only the MANIFEST, or the engine's record of an uncommitted flush or merge, can prove
    an unlisted run obsolete; an id past next_run_id proves nothing (an older MANIFEST may have
    been restored), so neither file below is deleted."""
    path, model = loaded(tmp_path)
    run = runs_of(path)[-1]
    (path / "run-00000001.sst").write_bytes(run.read_bytes())  # old id, not listed
    (path / "run-99999999.sst").write_bytes(b"x" * 256)  # id past next_run_id, not recorded
    with Engine(path, **SMALL) as e:
        assert contents(e) == {k: v for k, v in model.items() if k < KEYS}
    assert (path / "lost" / "run-00000001.sst").exists()
    assert (path / "lost" / "run-99999999.sst").exists()
    assert not (path / "run-00000001.sst").exists() and not (path / "run-99999999.sst").exists()


WAL_CHILD = """
import os, sys
from native_engine import Engine
sys.path.insert(0, sys.argv[2])
from crash_harness import SMALL
e = Engine(sys.argv[1], **SMALL)
for k in range(20):
    e.put(10_000 + k, bytes([k]) * 24)
os._exit(0)  # no close: the 20 writes live only in the log
"""


def unflushed(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "db"
    subprocess.run([sys.executable, "-c", WAL_CHILD, str(path), str(Path(__file__).parent)],
                   check=True)
    logs = sorted(path.glob("wal-*.log"))
    assert len(logs) == 1 and logs[0].stat().st_size > 0
    return path, logs[0]


def test_writes_in_the_log_survive_a_process_exit_without_close(tmp_path) -> None:
    path, _ = unflushed(tmp_path)
    with Engine(path, **SMALL) as e:
        assert all(e.get(10_000 + k) == bytes([k]) * 24 for k in range(20))


def test_a_torn_log_tail_is_dropped_and_damage_inside_is_refused(tmp_path) -> None:
    path, log = unflushed(tmp_path)
    data = log.read_bytes()
    log.write_bytes(data[:-3])  # the last record is torn
    with Engine(path, **SMALL) as e:
        have = [e.get(10_000 + k) is not None for k in range(20)]
    assert have == [True] * 19 + [False]  # only the torn write is gone

    path, log = unflushed(tmp_path / "second")
    before = files(path)
    flip(log, 12)  # inside the first record, with 19 more after it
    with pytest.raises(CorruptionError, match="refusing to drop acknowledged writes"):
        Engine(path, **SMALL)
    assert files(path) == before


def test_without_the_log_unflushed_writes_are_lost_as_documented(tmp_path) -> None:
    path = tmp_path / "db"
    code = WAL_CHILD.replace("Engine(sys.argv[1], **SMALL)", "Engine(sys.argv[1], **SMALL, "
                             "wal=False)")
    subprocess.run([sys.executable, "-c", code, str(path), str(Path(__file__).parent)],
                   check=True)
    assert not list(path.glob("wal-*.log"))
    with Engine(path, **SMALL) as e:
        assert e.get(10_000) is None


def test_the_log_is_counted_apart_and_rotated_at_each_flush(tmp_path) -> None:
    with Engine(tmp_path / "db", **SMALL) as e:
        for k in range(500):
            e.put(k, b"v" * VB)
        s = e.stats()
        assert s["wal_bytes_written"] >= 500 * (9 + VB)
        assert s["flushes"] + s["merges"] > 0
        assert len(list((tmp_path / "db").glob("wal-*.log"))) == 1


def test_a_second_open_is_refused_even_with_lock_files_gone(tmp_path) -> None:
    path = tmp_path / "db"
    e = Engine(path, **SMALL)
    for f in path.glob("LOCK*"):
        f.unlink()
    with pytest.raises(OSError, match="in use by another open Engine"):
        Engine(path, **SMALL)
    other = subprocess.run(
        [sys.executable, "-c", "import sys; from native_engine import Engine\n"
         "Engine(sys.argv[1], T=4, C=3, entry_bytes=32, block_bytes=256, buffer_bytes=1024, "
         "bits_per_entry=8)", str(path)], capture_output=True, text=True)
    assert other.returncode != 0 and "in use by another open Engine" in other.stderr
    e.close()
    Engine(path, **SMALL).close()  # released by close


def test_a_nul_in_the_path_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="NUL"):
        Engine(str(tmp_path / "a\0b"), **SMALL)
    assert os.listdir(tmp_path) == []


def test_a_huge_buffer_is_allocated_as_it_fills(tmp_path) -> None:
    """buffer_bytes = 2^36 under a 4 GiB address-space cap: opening and writing work."""
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "from native_engine import Engine\n"
        "with Engine(sys.argv[1], buffer_bytes=1 << 36, entry_bytes=32) as e:\n"
        "    for k in range(10000):\n"
        "        e.put(k, b'v' * 24)\n"
        "    assert e.get(9999) == b'v' * 24\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "db")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_the_engine_limits_are_the_models(tmp_path) -> None:
    assert native_engine.MAX_RUNS_PER_LEVEL == limits.MAX_RUNS_PER_LEVEL
    assert native_engine.MAX_LEVELS == limits.MAX_LEVELS


def test_a_design_that_outgrows_the_limits_fails_clearly_and_keeps_the_data(tmp_path) -> None:
    """X = 64 with tiering asks for 2^64 runs in Level 1 as soon as a second level forms."""
    path = tmp_path / "db"
    kw = dict(SMALL, T=2, C=1, X=64, K=1, Z=1)
    e = Engine(path, **kw)
    written = 0
    with pytest.raises(ValueError, match="runs in Level 1 .* more than the limit of 1000000"):
        for k in range(100_000):
            e.put(k, b"v" * VB)
            written += 1
    values, found = e.get_many(np.arange(written, dtype=np.uint64))
    assert found.all()  # every acknowledged write is still readable


def test_a_whole_last_log_record_failing_its_checksum_is_refused_a_cut_one_dropped(
        tmp_path) -> None:
    """A last record that is complete but fails its payload checksum was written whole, so it
    is no write torn by a crash: refused. One cut short (the file ends inside the payload its
    intact header announces) is a torn write: only it is dropped."""
    path, log = unflushed(tmp_path)
    flip(log, log.stat().st_size - 2)  # inside the last record's value
    before = snapshot(path)
    with pytest.raises(CorruptionError, match=log.name):
        Engine(path, **SMALL)
    assert snapshot(path) == before

    path, log = unflushed(tmp_path / "second")
    log.write_bytes(log.read_bytes()[:-5])
    with Engine(path, **SMALL) as e:
        have = [e.get(10_000 + k) for k in range(20)]
    assert have == [bytes([k]) * 24 for k in range(19)] + [None]


def test_a_damaged_filter_is_found_by_verify_and_nothing_on_disk_changes(tmp_path) -> None:
    """Filters are not stored on disk (they are rebuilt from checksummed keys at open), so the
    only place one can be damaged is memory: verify() checks each against the CRC-32C taken
    when it was built, and against the keys it must admit."""
    path, model = loaded(tmp_path)
    with Engine(path, **SMALL) as e:
        sound = e.verify()
        assert sound["entries"] >= len(model) and sound["runs"] > 0 and sound["blocks"] > 0
        before = files(path)
        assert testing.damage_filter(e)
        with pytest.raises(CorruptionError, match=r"run file '.*run-\d+\.sst': the filter fail"):
            e.verify()
        assert files(path) == before
    with Engine(path, **SMALL) as e:  # rebuilt from the (sound) keys at open
        assert e.verify() == sound


def test_a_failed_log_sync_makes_the_write_durable_by_a_flush(tmp_path) -> None:
    with Engine(tmp_path / "db", **SMALL, sync=True) as e:
        e.put(1, b"a" * VB)
        assert e.stats()["flushes"] == 0
        testing.fail_log_sync(e, True)
        e.put(2, b"b" * VB)  # the log cannot be trusted: the buffer goes into a run instead
        assert e.stats()["flushes"] == 1 and e.stats()["buffer_size"] == 0
        testing.fail_log_sync(e, False)
        e.put(3, b"c" * VB)
        assert e.stats()["flushes"] == 1  # a fresh log took over
    with Engine(tmp_path / "db", **SMALL) as e:
        assert [e.get(k) for k in (1, 2, 3)] == [b"a" * VB, b"b" * VB, b"c" * VB]


def test_a_ratio_that_overflows_is_refused_naming_x_and_the_data_is_kept(tmp_path) -> None:
    """T^X = 10^400 between Level 1 and Level 2 once a third level forms: no double holds it."""
    e = Engine(tmp_path / "db", **dict(SMALL, T=10, C=1, X=400))
    written = 0
    with pytest.raises(ValueError, match=r"size ratio of T\^\(X\^1\).*overflows.*lower X or T"):
        for k in range(200_000):
            e.put(k, b"v" * VB)
            written += 1
    assert written > 0
    keys = np.arange(written, dtype=np.uint64)
    assert e.get_many(keys)[1].all()
    before = [f for f in files(tmp_path / "db") if f.startswith("run-")]
    e.close()  # the refused flush cannot run: the log keeps the buffer instead
    with Engine(tmp_path / "db", **dict(SMALL, T=10, C=1, X=400)) as again:
        assert again.get_many(keys)[1].all()  # replayed, not flushed
    assert [f for f in files(tmp_path / "db") if f.startswith("run-")] == before


# Tries of a GIL probe, each about 20 ms: on a loaded 2-core machine the OS left the counter
# thread unscheduled through 3 tries of put_many once (CI, 2026-11-27); a call that keeps the
# GIL gives 0 however many (the control), so more tries cannot pass a call that keeps it.
GIL_ATTEMPTS = 10


def ticks_during(call: Any) -> int:
    """How often a Python counter thread runs while ``call()`` runs in this thread. With the
    switch interval raised to 1000 s, CPython never takes the GIL from a thread, so the counter
    can run only while this thread gives the GIL up of its own accord: a count above 0 means
    ``call()`` released it (the counter's own sleep hands the GIL back when ``call()`` ends)."""
    ticks = [0]
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(1e-4)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    t = threading.Thread(target=count)
    try:
        t.start()
        time.sleep(0.01)
        start = ticks[0]
        call()
        return ticks[0] - start
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)


def test_the_gil_probe_sees_a_call_that_keeps_the_gil() -> None:
    """The control: a long C call that keeps the GIL lets the counter run not once."""
    assert ticks_during(lambda: sum(range(5_000_000))) == 0
    assert ticks_during(lambda: time.sleep(0.05)) > 0


@pytest.mark.parametrize("call", ["put_many", "get_many", "flush", "verify", "close"])
def test_every_long_call_releases_the_gil(tmp_path, call) -> None:
    """A few tries, each on a new engine: on a loaded machine the OS may not run the counter
    thread within one short call even though the GIL is free; a call that keeps the GIL gives
    0 every time (the control above)."""
    keys = np.arange(100_000, dtype=np.uint64)
    values = np.zeros((keys.size, VB), np.uint8)
    big = dict(SMALL, buffer_bytes=16 << 20)  # 100,000 entries stay in the buffer
    ticks = []
    for attempt in range(GIL_ATTEMPTS):
        e = Engine(tmp_path / f"db{attempt}", **big)
        raw = e._e  # the binding itself: no NumPy conversion in between
        if call != "put_many":
            raw.put_many(keys, values)
        if call in ("get_many", "verify"):
            raw.flush()
        run = {
            "put_many": lambda raw=raw: raw.put_many(keys, values),
            "get_many": lambda raw=raw: raw.get_many(keys),
            "flush": raw.flush,
            "verify": raw.verify,
            "close": raw.close,  # flushes the buffer
        }[call]
        ticks.append(ticks_during(run))
        e.close()
        if ticks[-1] > 0:
            break
    assert ticks[-1] > 0, ticks
