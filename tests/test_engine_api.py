"""native_engine.Engine: API behaviour, bad input, persistence and honest counters."""

from __future__ import annotations

import errno
import os
import stat

import numpy as np
import pytest

from native_engine import Engine, InvalidArgument, clean_lost, verify_directory
from native_engine.testing import inject_write_failure
from validation.generators import load_trace
from validation.replay import replay

SMALL = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192)
V = SMALL["entry_bytes"] - 8


def val(k: int, salt: int = 0) -> bytes:
    return ((k * 7919 + salt) % 2**64).to_bytes(8, "little") * 2


@pytest.fixture
def eng(tmp_path):
    e = Engine(tmp_path / "db", **SMALL)
    yield e
    e.close()


def test_put_get_delete_scan(eng) -> None:
    for k in range(100):
        eng.put(k * 3, val(k))
    eng.put(30, val(10, 1))  # update
    eng.delete(33)
    eng.delete(10**9)  # deleting an absent key is fine
    assert eng.get(30) == val(10, 1)
    assert eng.get(33) is None
    assert eng.get(1) is None
    assert eng.get(0) == val(0)
    got = list(eng.scan(27, 36))
    assert got == [(27, val(9)), (30, val(10, 1)), (36, val(12))]  # inclusive bounds
    assert list(eng.scan(5, 4)) == []
    assert list(eng.scan(2**64 - 1, 2**64 - 1)) == []
    eng.put(2**64 - 1, val(1))
    eng.put(0, val(2))
    assert list(eng.scan(2**64 - 1, 2**64 - 1)) == [(2**64 - 1, val(1))]
    assert eng.get(0) == val(2)
    assert len(eng.levels()) >= 2  # the tiny buffer forced several levels


def test_scan_is_a_snapshot(eng) -> None:
    for k in range(50):
        eng.put(k, val(k))
    it = eng.scan(0, 100)
    first = next(it)
    for k in range(50):
        eng.put(k, val(k, 5))
    for k in range(50, 200):
        eng.put(k, val(k))
    rest = list(it)
    assert [first, *rest] == [(k, val(k)) for k in range(50)]


def test_batches(eng) -> None:
    rng = np.random.default_rng(3)
    keys = rng.choice(10**6, size=500, replace=False).astype(np.uint64)
    values = rng.integers(0, 256, size=(500, V), dtype=np.uint8)
    eng.put_many(keys, values)
    eng.put_many(keys[:2], values[:2].tobytes())
    probe = np.concatenate([keys, np.array([10**7, 10**7 + 1], dtype=np.uint64)])
    out, found = eng.get_many(probe)
    assert found.tolist() == [True] * 500 + [False, False]
    assert np.array_equal(out[:500], values)
    assert not out[500:].any()
    for k, v in zip(keys[:20], values[:20], strict=True):
        assert eng.get(int(k)) == v.tobytes()
    eng.put_many(np.array([], dtype=np.uint64), np.zeros((0, V), dtype=np.uint8))


def test_reopen_gives_the_same_contents(tmp_path) -> None:
    path = tmp_path / "db"
    e = Engine(path, **SMALL)
    expect = {}
    for k in range(300):
        e.put(k * 11 % 1000, val(k))
        expect[k * 11 % 1000] = val(k)
    for k in range(0, 1000, 7):
        e.delete(k)
        expect.pop(k, None)
    e.put(2000, val(2000))
    expect[2000] = val(2000)
    e.flush()  # empty the buffer so the structure can be compared across the reopen
    levels_before = e.levels()
    e.close()
    assert e.closed
    e.close()  # idempotent
    e = Engine(path, **SMALL)
    assert list(e.scan(0, 2**64 - 1)) == sorted(expect.items())
    assert e.stats()["recovery"]["blocks_read"] > 0
    # Same runs, same filters, same shape.
    assert e.levels() == levels_before
    e.put(5000, val(1))
    e.close()
    with Engine(path, **SMALL) as e2:
        assert e2.get(5000) == val(1)


def test_reopen_with_another_design_is_refused(tmp_path) -> None:
    path = tmp_path / "db"
    Engine(path, **SMALL).close()
    with pytest.raises(ValueError, match=r"different design: T"):
        Engine(path, **{**SMALL, "T": 4})
    with pytest.raises(ValueError, match=r"entry_bytes"):
        Engine(path, **{**SMALL, "entry_bytes": 32})
    with pytest.raises(ValueError, match=r"sum_fpr"):
        Engine(path, **SMALL, sum_fpr=0.5)
    Engine(path, **SMALL).close()  # the original design still opens


def test_directory_is_locked(tmp_path) -> None:
    e = Engine(tmp_path / "db", **SMALL)
    with pytest.raises(OSError, match="in use"):
        Engine(tmp_path / "db", **SMALL)
    e.close()
    Engine(tmp_path / "db", **SMALL).close()


@pytest.mark.parametrize(
    "override, match",
    [
        (dict(T=1), r"T = 1.* >= 2"),
        (dict(C=0.5), r"C = 0.5.* >= 1"),
        (dict(X=0.5), r"X = 0.5"),
        (dict(K=2), r"K = 2.* \[0, 1\]"),
        (dict(Z=-1), r"Z = -1"),
        (dict(T=float("inf")), r"T = inf"),
        (dict(entry_bytes=8), r"entry_bytes"),
        (dict(block_bytes=16), r"block_bytes = 16 must be >= entry_bytes"),
        (dict(buffer_bytes=50), r"buffer_bytes = 50 must hold at least one block"),
        (dict(bits_per_entry=-1), r"bits_per_entry"),
        (dict(sum_fpr=0), r"sum_fpr"),
        (dict(hash_levels=-1), r"hash_levels"),
    ],
)
def test_impossible_designs_raise_value_error(tmp_path, override, match) -> None:
    with pytest.raises(ValueError, match=match):
        Engine(tmp_path / "db", **{**SMALL, **override})
    assert not (tmp_path / "db").exists()  # validated before touching the disk


def test_both_filter_budgets_is_an_error(tmp_path) -> None:
    with pytest.raises(ValueError, match="either bits_per_entry or sum_fpr"):
        Engine(tmp_path / "db", **SMALL, bits_per_entry=5, sum_fpr=0.1)


def test_bad_arguments(eng) -> None:
    with pytest.raises(ValueError, match=f"exactly {V} bytes, got 3"):
        eng.put(1, b"abc")
    with pytest.raises(ValueError, match=f"exactly {V} bytes"):
        eng.put(1, b"x" * (V + 1))
    with pytest.raises(TypeError, match="bytes-like"):
        eng.put(1, "x" * V)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*64\)"):
        eng.put(-1, val(1))
    with pytest.raises(ValueError, match=r"\[0, 2\*\*64\)"):
        eng.get(2**64)
    with pytest.raises(TypeError, match="int"):
        eng.get(1.5)
    with pytest.raises(TypeError, match="int"):
        eng.delete(True)
    with pytest.raises(ValueError, match="values must be"):
        eng.put_many(np.arange(3, dtype=np.uint64), np.zeros((3, V + 1), dtype=np.uint8))
    with pytest.raises(ValueError, match="values must be"):
        eng.put_many(np.arange(3, dtype=np.uint64), b"x" * (3 * V - 1))
    with pytest.raises(TypeError, match="uint8"):
        eng.put_many(np.arange(3, dtype=np.uint64), np.zeros((3, V), dtype=np.int32))
    with pytest.raises(ValueError, match=">= 0"):
        eng.put_many(np.array([-1, 2]), np.zeros((2, V), dtype=np.uint8))
    with pytest.raises(TypeError, match="unsigned"):
        eng.get_many(np.array([1.5]))
    with pytest.raises(ValueError, match="1-D"):
        eng.get_many(np.zeros((2, 2), dtype=np.uint64))
    assert eng.get(1) is None  # nothing was written by the failed calls


def test_operations_after_close_raise(tmp_path) -> None:
    e = Engine(tmp_path / "db", **SMALL)
    e.put(1, val(1))
    it = e.scan(0, 10)
    e.close()
    for call in (
        lambda: e.put(2, val(2)),
        lambda: e.get(1),
        lambda: e.delete(1),
        lambda: e.scan(0, 5),
        lambda: e.put_many(np.arange(2, dtype=np.uint64), np.zeros((2, V), dtype=np.uint8)),
        lambda: e.get_many(np.arange(2, dtype=np.uint64)),
        lambda: e.flush(),
        lambda: e.levels(),
        lambda: next(it),
        lambda: replay(e, load_trace(10, entry_bytes=SMALL["entry_bytes"], seed=0)),
    ):
        with pytest.raises(ValueError, match="closed"):
            call()


def test_path_not_writable(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OSError):
        Engine(blocker / "db", **SMALL)
    if os.geteuid() != 0:  # root ignores permission bits
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
        with pytest.raises(OSError, match="writable|Permission"):
            Engine(ro / "db", **SMALL)
    with pytest.raises(OSError):
        Engine("/proc/wacky-engine-test", **SMALL)


def test_injected_write_failure_loses_nothing(tmp_path) -> None:
    path = tmp_path / "db"
    e = Engine(path, **SMALL)
    expect = {}
    k = 0
    for _ in range(40):
        e.put(k, val(k))
        expect[k] = val(k)
        k += 1
    failures = 0
    for budget in (0, 50, 200, 1000, 3000):
        inject_write_failure(e, budget)
        with pytest.raises(OSError, match="No space left|injected"):
            for _ in range(10_000):  # until a flush or merge runs out of "disk"
                e.put(k, val(k))
                expect[k] = val(k)  # acknowledged: put returned
                k += 1
        failures += 1
        inject_write_failure(e, -1)
        got = dict(e.scan(0, 2**64 - 1))
        if k in got:  # the put that raised may have been applied (it is logged before the flush)
            expect[k] = val(k)
        k += 1
        assert got == expect
    assert failures == 5
    inject_write_failure(e, 0)
    with pytest.raises(OSError):
        e.close()  # close() must flush the buffer: that write fails too
    assert not e.closed
    inject_write_failure(e, -1)
    e.close()
    leftovers = [f for f in os.listdir(path) if f.endswith(".tmp")]
    assert leftovers == []
    with Engine(path, **SMALL) as e2:
        assert list(e2.scan(0, 2**64 - 1)) == sorted(expect.items())


def test_test_hooks_stay_out_of_the_public_api(eng) -> None:
    assert not [n for n in dir(Engine) if "inject" in n or "workload" in n]
    with pytest.raises(TypeError, match="native_engine.Engine"):
        inject_write_failure(eng._e, 0)
    with pytest.raises(TypeError, match="after_bytes must be an int"):
        inject_write_failure(eng, 1.5)
    with pytest.raises(ValueError, match="-1 or in"):
        inject_write_failure(eng, -2)
    eng.put(1, val(1))  # nothing was armed by the refused calls
    eng.flush()
    assert eng.get(1) == val(1)


def test_written_bytes_equal_run_file_bytes(tmp_path) -> None:
    """Counters are honest: bytes the engine says it wrote (flushes + merges) equal the bytes in
    the run files it created, obsolete ones included (kept as *.obsolete for this test)."""
    path = tmp_path / "db"
    design = dict(T=3, C=2, X=1.5, K=0.5, Z=1, entry_bytes=40, block_bytes=160, buffer_bytes=640)
    e = Engine(path, **design, retain_obsolete_runs=True)
    rng = np.random.default_rng(5)
    for i in range(4000):
        key = int(rng.integers(0, 3000))
        if rng.random() < 0.15:
            e.delete(key)
        else:
            e.put(key, bytes([i % 256]) * 32)
    e.flush()
    s = e.stats()
    written = s["flush"]["bytes_written"] + sum(m["bytes_written"] for m in s["merge"])
    assert written == s["total"]["bytes_written"]
    blocks = s["flush"]["blocks_written"] + sum(m["blocks_written"] for m in s["merge"])
    assert written == blocks * design["block_bytes"]
    files = [f for f in os.listdir(path) if f.startswith("run-")]
    on_disk = sum(os.path.getsize(path / f) for f in files)
    assert s["runs_created"] == len(files)
    assert s["runs_deleted"] == sum(f.endswith(".obsolete") for f in files)
    # Each run file ends in its checksum section, counted apart from the modelled I/O.
    assert written + s["checksums"]["bytes_written"] == on_disk
    assert 0 < s["checksums"]["bytes_written"] <= written // 8
    assert s["merge_total"]["blocks_read"] > 0
    live = sum(r["file_bytes"] for lv in e.levels() for r in lv["runs"])
    assert live == sum(os.path.getsize(path / f) for f in files if f.endswith(".sst"))
    e.close()


def test_point_read_costs_at_most_one_block_per_run(tmp_path) -> None:
    e = Engine(tmp_path / "db", **SMALL, bits_per_entry=0)  # no filters: worst case
    for k in range(600):
        e.put(k, val(k))
    runs = sum(len(lv["runs"]) for lv in e.levels())
    before = e.stats()["point_read"]["blocks_read"]
    assert e.get(599 + 10**6) is None  # beyond every run's fences: no I/O
    assert e.get(3) == val(3)
    used = e.stats()["point_read"]["blocks_read"] - before
    assert 1 <= used <= runs
    e.close()


# -- strict input (issue 36: nothing is silently ignored or reinterpreted) ------------------
@pytest.mark.parametrize("name, value", [
    ("wal", None), ("wal", "false"), ("wal", 0), ("sync", "no"), ("sync", 1),
    ("retain_obsolete_runs", None),
])
def test_flags_must_be_booleans(tmp_path, name, value) -> None:
    """wal=None used to turn the log off and wal='false' to turn it on."""
    with pytest.raises(ValueError, match=f"{name} must be True or False") as refused:
        Engine(tmp_path / "db", **SMALL, **{name: value})
    assert isinstance(refused.value, TypeError)
    assert not (tmp_path / "db").exists()


def test_numpy_booleans_are_booleans(tmp_path) -> None:
    with Engine(tmp_path / "db", **SMALL, wal=np.True_, sync=np.False_) as e:
        e.put(1, val(1))
        assert e.get(1) == val(1)


@pytest.mark.parametrize("kwargs, message", [
    (dict(file_bytes=4096), "file_bytes applies only to granularity='file'"),
    (dict(file_pick="least_overlap"), "file_pick applies only to granularity='file'"),
    (dict(file_pick="round_robin", granularity="level"), "file_pick applies only to"),
])
def test_file_options_are_refused_with_whole_level_merges(tmp_path, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        Engine(tmp_path / "db", T=10, C=9, **kwargs)
    assert not (tmp_path / "db").exists()


@pytest.mark.parametrize("kwargs, name", [
    (dict(T="3"), "T"),
    (dict(entry_bytes=24.0), "entry_bytes"),
    (dict(hash_levels=True), "hash_levels"),
    (dict(filters=1), "filters"),
    (dict(granularity=None), "granularity"),
    (dict(cache_bytes="0"), "cache_bytes"),
    (dict(wal_recovery=0), "wal_recovery"),
    (dict(max_lost_bytes=1.0), "max_lost_bytes"),
    (dict(level1_runs=np.float64(2)), "level1_runs"),
])
def test_wrong_types_are_both_type_and_value_errors(tmp_path, kwargs, name) -> None:
    with pytest.raises(InvalidArgument, match=name) as refused:
        Engine(tmp_path / "db", **(SMALL | kwargs))
    assert isinstance(refused.value, TypeError) and isinstance(refused.value, ValueError)
    with pytest.raises(InvalidArgument, match="path"):
        Engine(3, **SMALL)  # type: ignore[arg-type]
    assert not (tmp_path / "db").exists()


def test_wrong_types_in_calls_are_both_type_and_value_errors(eng) -> None:
    for call in (lambda: eng.get(1.5), lambda: eng.put(1, "x" * V),
                 lambda: eng.put_many(np.arange(2, dtype=np.uint64), np.zeros((2, V), np.int32)),
                 lambda: eng.get_many(np.array([1.5]))):
        with pytest.raises(ValueError) as refused:
            call()
        assert isinstance(refused.value, TypeError)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(wal_recovery="strict"), ValueError,
     "wal_recovery must be one of 'tolerate_corrupted_tail_records', 'absolute_consistency' "
     "or 'point_in_time'; got 'strict'"),
    (dict(max_lost_bytes=-1), ValueError, "max_lost_bytes must be >= 0"),
    (dict(max_lost_bytes=2**63), ValueError, "max_lost_bytes must be >= 0"),
    (dict(max_lost_bytes=False), InvalidArgument, "max_lost_bytes must be an int"),
])
def test_recovery_options_are_checked(tmp_path, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        Engine(tmp_path / "db", **SMALL, **kwargs)
    assert not (tmp_path / "db").exists()


@pytest.mark.parametrize("mode", ["tolerate_corrupted_tail_records", "absolute_consistency",
                                  "point_in_time"])
def test_recovery_options_open_and_reopen(tmp_path, mode) -> None:
    path = tmp_path / "db"
    with Engine(path, **SMALL, wal_recovery=mode, max_lost_bytes=0) as e:
        e.put(1, val(1))
    with Engine.open(path, wal_recovery=mode, max_lost_bytes=1 << 30) as e:
        assert e.get(1) == val(1)


def test_python_int_keys_are_exact(eng) -> None:
    """A list of ints used to become float64 (np.asarray), losing keys above 2**53."""
    top = 2**64 - 1
    values = np.stack([np.frombuffer(val(1), np.uint8), np.frombuffer(val(2), np.uint8)])
    eng.put_many([1, top], values)
    assert eng.get(1) == val(1) and eng.get(top) == val(2)
    assert eng.get(top - 1) is None  # not rounded onto a neighbour
    out, found = eng.get_many([top, 1, np.uint64(top - 1)])
    assert found.tolist() == [True, True, False]
    assert out[0].tobytes() == val(2) and out[1].tobytes() == val(1)
    eng.put_many((), np.zeros((0, V), np.uint8))
    eng.put_many(range(5, 7), np.zeros((2, V), np.uint8))
    assert eng.get(6) == bytes(V)


@pytest.mark.parametrize("keys, error, message", [
    ([1, -1], ValueError, r"keys\[1\] = -1 is out of range"),
    ([1, 2**64], ValueError, r"keys\[1\] = 18446744073709551616 is out of range"),
    ([1, 2.0], InvalidArgument, r"keys\[1\] must be an int in \[0, 2\*\*64\), got float"),
    ([True, 1], InvalidArgument, r"keys\[0\] must be an int.*got bool"),
    ([[1], [2]], InvalidArgument, r"keys\[0\] must be an int.*got list"),
    (np.array([3, 4, -2]), ValueError, r"keys must be >= 0: keys\[2\] = -2"),
    (np.array([True, False]), InvalidArgument, "keys must be unsigned 64-bit integers"),
])
def test_bad_keys_are_named_with_their_index(eng, keys, error, message) -> None:
    with pytest.raises(error, match=message):
        eng.put_many(keys, np.zeros((len(keys), V), np.uint8))
    with pytest.raises(error, match=message):
        eng.get_many(keys)
    assert eng.get(1) is None and eng.get(3) is None  # nothing was written


def test_open_tells_a_lost_manifest_from_no_engine_directory(tmp_path) -> None:
    with pytest.raises(ValueError, match="not an engine directory"):
        Engine.open(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not an engine directory"):
        Engine.open(tmp_path / "empty")
    for name in ("run-000001.sst", "wal-000002.log"):
        d = tmp_path / name
        d.mkdir()
        (d / name).write_bytes(b"data")
        with pytest.raises(FileNotFoundError, match="holds run files or logs but no MANIFEST") \
                as refused:
            Engine.open(d)
        assert refused.value.errno == errno.ENOENT and refused.value.filename == str(d)
        assert os.listdir(d) == [name] and (d / name).read_bytes() == b"data"


def test_open_takes_the_stored_options_of_either_granularity(tmp_path) -> None:
    Engine(tmp_path / "level", **SMALL, level1_runs=2).close()
    with Engine.open(tmp_path / "level") as e:  # file_pick is not passed back to a level design
        e.put(1, val(1))
    with Engine(tmp_path / "file", **SMALL, granularity="file", file_pick="round_robin") as e:
        for k in range(300):
            e.put(k, val(k))
    with Engine.open(tmp_path / "file", sync=True) as e:
        assert e.levels() and all(lv["files"] for lv in e.levels())
        assert e.get(299) == val(299)
    with pytest.raises(ValueError, match="Engine.open takes only buffer_trim, "
                                         "buffer_trim_interval, cache_bytes, direct_reads, "
                                         "float_decay, "
                                         "float_per_flush, max_lost_bytes"):
        Engine.open(tmp_path / "level", file_pick="round_robin")


# -- a closed directory: verify_directory and clean_lost --------------------------------------
def test_verify_directory_checks_without_changing(tmp_path) -> None:
    path = tmp_path / "db"
    with Engine(path, **SMALL) as e:
        for k in range(300):
            e.put(k, val(k))
    before = _snapshot(path)
    report = verify_directory(path)
    assert _snapshot(path) == before
    assert report["ok"] and not report["lost_writes"] and report["problems"] == []
    assert report["runs"] > 0 and report["blocks"] > 0 and report["entries"] >= 300
    assert report["lost_files"] == 0 and report["lost_bytes"] == 0
    assert {"warnings", "logs", "log_records", "log_entries",
            "log_tail_dropped_bytes"} <= set(report)


def test_verify_directory_refuses_what_it_cannot_check(tmp_path) -> None:
    with pytest.raises(ValueError, match="not an engine directory"):
        verify_directory(tmp_path)
    with pytest.raises(InvalidArgument, match="path"):
        verify_directory(b"/tmp")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NUL"):
        verify_directory("a\0b")
    with Engine(tmp_path / "db", **SMALL), pytest.raises(OSError):
        verify_directory(tmp_path / "db")  # in use


def test_clean_lost_empties_lost_only(tmp_path) -> None:
    path = tmp_path / "db"
    with Engine(path, **SMALL) as e:
        for k in range(300):
            e.put(k, val(k))
    (path / "lost").mkdir(exist_ok=True)
    (path / "lost" / "run-000900.sst").write_bytes(b"x" * 10)
    (path / "lost" / "wal-000901.log").write_bytes(b"y" * 20)
    report = verify_directory(path)
    assert report["lost_files"] == 2 and report["lost_bytes"] == 30
    rest = {k: v for k, v in _snapshot(path).items() if not k.startswith("lost")}
    assert clean_lost(path) == {"files": 2, "bytes": 30}
    assert not (path / "lost").exists() or not any((path / "lost").iterdir())
    assert {k: v for k, v in _snapshot(path).items() if not k.startswith("lost")} == rest
    assert clean_lost(path) == {"files": 0, "bytes": 0}
    with Engine.open(path) as e:
        assert e.get(299) == val(299)


def _snapshot(path) -> dict[str, bytes | None]:
    """Every entry under ``path``: a file's bytes, None for a directory."""
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(path.rglob("*"))}
