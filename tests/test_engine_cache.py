"""The engine's LRU block cache (``Engine(cache_bytes=...)``): same answers as without it, hits
that cost no block read, invalidation when merges delete runs, counters that add up, bad input.
"""

from __future__ import annotations

import random
import tempfile

import numpy as np
import pytest
from engine_ops import OPS, apply_ops
from hypothesis import HealthCheck, given, settings

from native_engine import Engine

SMALL = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192, wal=False)
BLOCK = SMALL["block_bytes"]
V = SMALL["entry_bytes"] - 8
DESIGNS = {
    "leveling": dict(T=3, C=2, X=1, K=0, Z=0),
    "tiering": dict(T=3, C=2, X=1, K=1, Z=1),
    "hash": dict(T=3, C=2, X=2, K=1, Z=0, hash_levels=2),
    "files": dict(T=3, C=2, X=1, K=0, Z=0, granularity="file", file_bytes=96),
    "level0": dict(T=3, C=2, X=1, K=0, Z=0, level1_runs=3),
}
CACHE_KEYS = ("cache_hits", "cache_misses", "cache_hits_per_level", "cache_misses_per_level",
              "cache_invalidated_blocks", "cache_blocks")


def val(k: int, salt: int = 0) -> bytes:
    return ((k * 7919 + salt) % 2**64).to_bytes(8, "little") * 2


def blocks_read(e: Engine) -> int:
    return int(e.stats()["point_read"]["blocks_read"])


def check_counters(s: dict) -> None:
    """Per-level counters sum to the totals; every miss is a point-read block read."""
    assert sum(s["cache_hits_per_level"]) == s["cache_hits"]
    assert sum(s["cache_misses_per_level"]) == s["cache_misses"]
    assert len(s["cache_hits_per_level"]) == len(s["cache_misses_per_level"])
    assert s["cache_misses"] == s["point_read"]["blocks_read"]


@pytest.mark.parametrize("design", list(DESIGNS.values()), ids=list(DESIGNS))
def test_results_with_a_cache_equal_results_without(design) -> None:
    """(a) Random puts, deletes, gets, scans, flushes and reopens agree with a dict with a
    small cache (2 blocks); the same sequence without a cache builds the same tree, so the
    blocks it reads equal the cached engine's hits plus misses."""

    @settings(max_examples=20, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(ops=OPS)
    def run(ops) -> None:
        layout = dict(entry_bytes=16, block_bytes=48, buffer_bytes=96)
        vb = layout["entry_bytes"] - 8
        counts = []
        for cache_bytes in (0, 2 * 48 + 47):
            kw = {**design, **layout, "cache_bytes": cache_bytes}
            with tempfile.TemporaryDirectory() as d:
                e = Engine(d + "/db", **kw)
                try:
                    model: dict[int, bytes] = {}
                    e = apply_ops(e, ops, model, vb, lambda kw=kw, d=d: Engine(d + "/db", **kw))
                    for k in list(range(62)) + [2**63, 2**64 - 1]:
                        assert e.get(k) == model.get(k)
                    assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())
                    s = e.stats()
                    check_counters(s)
                    assert s["cache_blocks"] <= (2 if cache_bytes else 0)
                    counts.append(s["cache_hits"] + s["cache_misses"])
                finally:
                    e.close()
        # A reopen resets the counters in both engines alike, so the last sessions compare.
        assert counts[0] == counts[1]

    run()


def test_seeded_random_sequence_with_a_tiny_cache(tmp_path) -> None:
    """(a) A longer seeded sequence of put/delete/get/flush against a dict, 3-block cache."""
    rng = random.Random(7)
    model: dict[int, bytes] = {}
    with Engine(tmp_path / "db", **SMALL, cache_bytes=3 * BLOCK) as e:
        for step in range(6000):
            k = rng.randrange(400)
            op = rng.random()
            if op < 0.45:
                model[k] = val(k, step)
                e.put(k, model[k])
            elif op < 0.55:
                model.pop(k, None)
                e.delete(k)
            elif op < 0.995:
                assert e.get(k) == model.get(k)
            else:
                e.flush()
        keys = np.arange(400, dtype=np.uint64)
        values, found = e.get_many(keys)
        for k in range(400):
            assert bool(found[k]) == (k in model)
            if k in model:
                assert values[k].tobytes() == model[k]
        s = e.stats()
        check_counters(s)
        assert s["cache_hits"] > 0
        assert s["cache_blocks"] <= 3
        assert s["cache_invalidated_blocks"] > 0


def test_hot_key_hits(tmp_path) -> None:
    """(b) Repeated gets of one key read its block once, then hit."""
    with Engine(tmp_path / "db", **SMALL, cache_bytes=4 * BLOCK) as e:
        for k in range(200):
            e.put(k, val(k))
        e.flush()
        assert e.get(77) == val(77)
        s0 = e.stats()
        for _ in range(50):
            assert e.get(77) == val(77)
        s1 = e.stats()
        assert s1["point_read"]["blocks_read"] == s0["point_read"]["blocks_read"]
        assert s1["cache_hits"] - s0["cache_hits"] >= 50
        assert s1["cache_misses"] == s0["cache_misses"]
        check_counters(s1)


@pytest.mark.parametrize("design", list(DESIGNS.values()), ids=list(DESIGNS))
def test_a_cache_larger_than_the_data_makes_a_second_pass_all_hits(tmp_path, design) -> None:
    """(c) After one pass over every key, a second pass (no writes between) reads 0 blocks."""
    kw = {**SMALL, **design}
    with Engine(tmp_path / "db", **kw, cache_bytes=2**62) as e:
        keys = [k * 13 % 1009 for k in range(600)]
        for k in keys:
            e.put(k, val(k))
        e.flush()
        for k in keys + [5000, 2**64 - 1]:  # absent keys too
            e.get(k)
        s0 = e.stats()
        assert s0["cache_misses"] > 0
        for k in keys + [5000, 2**64 - 1]:
            assert e.get(k) == (val(k) if k in keys else None)
        values, found = e.get_many(np.array(keys, dtype=np.uint64))
        assert found.all()
        s1 = e.stats()
        assert s1["point_read"]["blocks_read"] == s0["point_read"]["blocks_read"]
        assert s1["cache_misses"] == s0["cache_misses"]
        assert s1["cache_hits"] >= s0["cache_hits"] + len(keys)
        assert s1["cache_blocks"] == s0["cache_blocks"] == s0["cache_misses"]
        check_counters(s1)


def test_merges_invalidate_cached_blocks(tmp_path) -> None:
    """(d) Writes that merge the runs holding cached blocks drop them (counted), and the next
    get of a previously cached key misses and reads a block."""
    with Engine(tmp_path / "db", **SMALL, cache_bytes=2**40) as e:
        for k in range(8):  # one buffer: one run of two blocks
            e.put(k, val(k))
        e.flush()
        for k in range(8):
            assert e.get(k) == val(k)
        s0 = e.stats()
        assert s0["cache_blocks"] == 2
        assert s0["cache_invalidated_blocks"] == 0
        for k in range(8):  # the same keys again: the flush merges with the cached run
            e.put(k, val(k, 1))
        e.flush()
        s1 = e.stats()
        assert s1["merges"] > s0["merges"]
        assert s1["cache_invalidated_blocks"] == 2
        assert s1["cache_blocks"] == 0
        assert e.get(3) == val(3, 1)
        s2 = e.stats()
        assert s2["cache_misses"] == s1["cache_misses"] + 1
        assert s2["point_read"]["blocks_read"] == s1["point_read"]["blocks_read"] + 1
        # Many more writes: every merge keeps invalidating what point reads cached.
        for r in range(2, 30):
            for k in range(0, 300, 7):
                e.put(k, val(k, r))
            for k in range(0, 300, 7):
                assert e.get(k) == val(k, r)
        s3 = e.stats()
        assert s3["cache_invalidated_blocks"] > s2["cache_invalidated_blocks"]
        check_counters(s3)


def test_scans_do_not_use_or_fill_the_cache(tmp_path) -> None:
    with Engine(tmp_path / "db", **SMALL, cache_bytes=2**40) as e:
        for k in range(300):
            e.put(k, val(k))
        e.flush()
        assert len(list(e.scan(0, 2**64 - 1))) == 300
        e.verify()
        s = e.stats()
        assert s["range_read"]["blocks_read"] > 0
        assert s["cache_blocks"] == 0
        assert s["cache_hits"] == s["cache_misses"] == 0


def test_bad_cache_bytes(tmp_path) -> None:
    """(e) Negative -> ValueError naming cache_bytes; bool or non-int -> TypeError."""
    with pytest.raises(ValueError, match="cache_bytes must be >= 0"):
        Engine(tmp_path / "a", **SMALL, cache_bytes=-1)
    with pytest.raises(ValueError, match="cache_bytes"):
        Engine(tmp_path / "a", **SMALL, cache_bytes=2**64)
    for bad in (True, 1.5, "4096", None):
        with pytest.raises(TypeError, match="cache_bytes"):
            Engine(tmp_path / "a", **SMALL, cache_bytes=bad)
    assert not (tmp_path / "a").exists()  # refused before touching the disk
    # Huge values are fine; so is a numpy integer.
    Engine(tmp_path / "b", **SMALL, cache_bytes=2**62).close()
    Engine(tmp_path / "c", **SMALL, cache_bytes=np.uint64(2**64 - 1)).close()


def test_cache_bytes_is_not_part_of_the_design(tmp_path) -> None:
    """Reopening with another cache size (or none) is allowed; Engine.open takes it too."""
    with Engine(tmp_path / "db", **SMALL, cache_bytes=10 * BLOCK) as e:
        for k in range(50):
            e.put(k, val(k))
    with Engine(tmp_path / "db", **SMALL) as e:
        assert e.get(3) == val(3)
        assert e.get(3) == val(3)
        assert e.stats()["cache_hits"] == 0  # off: every block is read
    with Engine.open(tmp_path / "db", cache_bytes=2**50) as e:
        assert e.get(3) == val(3)
        assert e.get(3) == val(3)
        assert e.stats()["cache_hits"] == 1
    with pytest.raises(ValueError, match="cache_bytes must be >= 0"):
        Engine.open(tmp_path / "db", cache_bytes=-5)


@pytest.mark.parametrize("design", list(DESIGNS.values()), ids=list(DESIGNS))
def test_counters_add_up_per_level(tmp_path, design) -> None:
    """(f) Hits and misses per level sum to the totals, one entry per level (level 0 first),
    and misses equal point_read blocks_read, with the cache on and off."""
    for cache_bytes in (0, 5 * BLOCK, 2**40):
        rng = random.Random(cache_bytes)
        with Engine(tmp_path / f"db{cache_bytes}", **{**SMALL, **design},
                    cache_bytes=cache_bytes) as e:
            for _ in range(3000):
                k = rng.randrange(500)
                if rng.random() < 0.4:
                    e.put(k, val(k))
                else:
                    e.get(k)
            s = e.stats()
            assert set(CACHE_KEYS) <= set(s)
            check_counters(s)
            levels = e.levels()
            n_levels = len(levels) + (0 if levels[0]["level"] == 0 else 1)
            assert len(s["cache_hits_per_level"]) >= n_levels
            if cache_bytes == 0:
                assert s["cache_hits"] == 0 and s["cache_blocks"] == 0
            else:
                assert s["cache_hits"] > 0
                assert 0 < s["cache_blocks"] <= cache_bytes // BLOCK
