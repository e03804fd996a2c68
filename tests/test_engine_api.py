"""native_engine.Engine: API behaviour, bad input, persistence and honest counters."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from native_engine import Engine
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
        assert list(e.scan(0, 2**64 - 1)) == sorted(expect.items())
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
