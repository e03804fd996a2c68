"""Runs made of files and the level-1 trigger (native_engine/src/file_compaction.h) against a
dict, over the whole grid: granularity "level" or "file" x level1_runs 1 or 3 x both file
pickers, on the layout of the brief (64-byte entries, 512-byte blocks: a 64-entry buffer and
16-entry files), with bursts of writes and deletes so that each example runs many flushes,
partial merges and re-anchorings, and a close + reopen in the middle. After every operation
the tree keeps its invariants: files disjoint, in key order and within file_bytes; Levels
1..L-1 within their capacity; level 0 below its trigger. The options are refused by name."""

from __future__ import annotations

import tempfile
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_engine import Engine

LAYOUT = dict(entry_bytes=64, block_bytes=512, buffer_bytes=4096)
FILES = dict(granularity="file", file_bytes=1024)  # file_bytes is refused with whole levels
FILE_ENTRIES = 1024 // 512 * (512 // 64)
VB = 64 - 8
GRID = [
    dict(granularity="level", level1_runs=1),
    dict(granularity="level", level1_runs=3),
    dict(**FILES, level1_runs=1, file_pick="least_overlap"),
    dict(**FILES, level1_runs=1, file_pick="round_robin"),
    dict(**FILES, level1_runs=3, file_pick="least_overlap"),
    dict(**FILES, level1_runs=3, file_pick="round_robin"),
]
DESIGNS = [dict(T=2, C=1), dict(T=3, C=2, bits_per_entry=0)]
KEYS = st.integers(0, 3000) | st.sampled_from([0, 2**63, 2**64 - 1])
# Many keys at once: puts (overwrites included) or deletes of a stride of keys.
BURST = st.tuples(st.just("burst"), st.integers(0, 3000), st.integers(1, 7),
                  st.integers(1, 400), st.integers(0, 255))
ERASE = st.tuples(st.just("erase"), st.integers(0, 3000), st.integers(1, 7), st.integers(1, 300))
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), KEYS, st.integers(0, 255)),
        st.tuples(st.just("delete"), KEYS),
        st.tuples(st.just("get"), KEYS),
        st.tuples(st.just("scan"), KEYS, KEYS),
        BURST, BURST, BURST, ERASE,
        st.tuples(st.just("reopen")),
    ),
    min_size=6,
    max_size=40,
)


def _value(key: int, tag: int) -> bytes:
    return bytes([tag]) + (key % 2**56).to_bytes(7, "little") + bytes(VB - 8)


def _check_shape(levels: list[dict[str, Any]], kw: dict[str, Any]) -> None:
    """The invariants of the tree at rest (after any write call)."""
    if kw["level1_runs"] > 1:
        assert levels[0]["level"] == 0 and not levels[0]["files"]
        assert len(levels[0]["runs"]) <= kw["level1_runs"] - 1
        levels = levels[1:]
    assert [lv["level"] for lv in levels] == list(range(1, len(levels) + 1))
    if kw["granularity"] != "file":
        return
    for i, lv in enumerate(levels):
        assert lv["files"] and lv["max_runs"] == 1
        runs = lv["runs"]
        assert all(0 < r["entries"] <= FILE_ENTRIES for r in runs)
        assert all(r["blocks"] * kw["block_bytes"] <= kw["file_bytes"] for r in runs)
        assert all(r["min_key"] <= r["max_key"] for r in runs)
        assert all(a["max_key"] < b["min_key"] for a, b in zip(runs, runs[1:], strict=False))
        if i + 1 < len(levels):
            assert lv["entries"] <= lv["capacity"] + 1e-9


def _apply(e: Engine, op: tuple, model: dict[int, bytes], reopen: Any) -> Engine:
    kind = op[0]
    if kind == "put":
        e.put(op[1], _value(op[1], op[2]))
        model[op[1]] = _value(op[1], op[2])
    elif kind == "delete":
        e.delete(op[1])
        model.pop(op[1], None)
    elif kind == "get":
        assert e.get(op[1]) == model.get(op[1])
    elif kind == "scan":
        lo, hi = op[1], op[2]
        assert list(e.scan(lo, hi)) == sorted((k, v) for k, v in model.items() if lo <= k <= hi)
    elif kind == "burst":
        keys = [op[1] + j * op[2] for j in range(op[3])]
        e.put_many(np.array(keys, dtype=np.uint64), b"".join(_value(k, op[4]) for k in keys))
        model.update((k, _value(k, op[4])) for k in keys)
    elif kind == "erase":
        for k in range(op[1], op[1] + op[2] * op[3], op[2]):
            e.delete(k)
            model.pop(k, None)
    else:
        e.close()
        e = reopen()
    return e


def _check_all(e: Engine, model: dict[int, bytes]) -> None:
    assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())
    probe = sorted(model)[::7] + [1, 2999, 3001, 2**63, 2**64 - 1]
    values, found = e.get_many(np.array(probe, dtype=np.uint64))
    for k, v, f in zip(probe, values, found, strict=True):
        assert (bytes(v) if f else None) == model.get(k)


@pytest.mark.parametrize("design", DESIGNS, ids=["T2", "T3-nofilter"])
@pytest.mark.parametrize("variant", GRID, ids=lambda v: "-".join(str(x) for x in v.values()))
def test_grid_agrees_with_a_dict(design: dict[str, Any], variant: dict[str, Any]) -> None:
    kw = {**design, **LAYOUT, **variant, "K": 0, "Z": 0, "wal": True}

    @settings(max_examples=15, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(ops=OPS)
    def run(ops: list[tuple]) -> None:
        with tempfile.TemporaryDirectory() as d:
            e = Engine(d + "/db", **kw)
            model: dict[int, bytes] = {}
            try:
                for op in ops:
                    e = _apply(e, op, model, lambda: Engine(d + "/db", **kw))
                    _check_shape(e.levels(), kw)
                _check_all(e, model)
                e.close()
                e = Engine.open(d + "/db")  # the MANIFEST records every option
                _check_all(e, model)
                _check_shape(e.levels(), kw)
            finally:
                e.close()

    run()


def _loaded(path: str, **kw: Any) -> Engine:
    e = Engine(path, T=3, C=2, K=0, Z=0, **{**LAYOUT, "wal": False, **kw})
    keys = np.random.default_rng(7).permutation(4000).astype(np.uint64) * 3
    e.put_many(keys, np.zeros((keys.size, VB), dtype=np.uint8))
    return e


def test_a_level_of_files_is_one_sorted_run_to_reads(tmp_path) -> None:
    """A get probes one file per level (no filters: at most one block per level), and a scan
    counts each level of files as one run probed, however many files it crosses."""
    e = _loaded(str(tmp_path / "db"), **FILES, bits_per_entry=0)
    e.flush()
    levels = e.levels()
    assert len(levels) >= 3 and sum(len(lv["runs"]) for lv in levels) > 3 * len(levels)
    before = e.stats()
    for k in range(0, 12000, 97):
        e.get(k)
    reads = e.stats()["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
    assert reads <= len(range(0, 12000, 97)) * len(levels)
    probed = e.stats()["range_runs_probed"]
    assert len(list(e.scan(0, 2**64 - 1))) == 4000
    assert e.stats()["range_runs_probed"] - probed == sum(1 for lv in levels if lv["runs"])
    e.close()


def test_round_robin_and_least_overlap_pick_differently(tmp_path) -> None:
    """Both pickers keep the contents; they choose other files, so the trees differ."""
    trees = []
    for pick in ("least_overlap", "round_robin"):
        e = _loaded(str(tmp_path / pick), **FILES, file_pick=pick)
        assert len(list(e.scan(0, 2**64 - 1))) == 4000
        trees.append([[(r["min_key"], r["max_key"]) for r in lv["runs"]] for lv in e.levels()])
        assert e.stats()["merges"] > 0
        e.close()
    assert trees[0] != trees[1]


def test_level0_is_listed_first_and_merges_at_its_trigger(tmp_path) -> None:
    e = Engine(tmp_path / "db", T=3, C=2, K=0, Z=0, **LAYOUT, level1_runs=3)
    staged = []
    for k in range(64 * 9 + 1):  # nine flushes
        e.put(k, _value(k, 0))
        lv0 = e.levels()[0]
        assert (lv0["level"], lv0["max_runs"], lv0["capacity"]) == (0, 3, 3 * 64)
        staged.append(len(lv0["runs"]))
    assert max(staged) == 2 and staged[-1] == 0  # the ninth flush merged three runs
    assert [lv["level"] for lv in e.levels()][1:] == list(range(1, len(e.levels())))
    e.close()
    e = Engine(tmp_path / "db1", T=3, C=2, K=0, Z=0, **LAYOUT)
    assert [lv["level"] for lv in e.levels()] == [1]  # no level 0 with a trigger of 1
    e.close()


BASE = dict(T=10, C=9, K=0, Z=0)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(granularity="Level"), ValueError, "granularity must be 'level' or 'file'; got 'Level'"),
    (dict(granularity=None), ValueError, "granularity must be 'level' or 'file'; got None"),
    (dict(file_bytes="4096"), TypeError, "file_bytes must be an int"),
    (dict(file_bytes=4096.0), TypeError, "file_bytes must be an int"),
    (dict(file_bytes=True), TypeError, "file_bytes must be an int"),
    (dict(file_bytes=0), ValueError,
     r"file_bytes must be in \[block_bytes, T x buffer_bytes\] = \[4096, 83886080\] \(one block "
     r"to Level 1's capacity\); got 0"),
    (dict(file_bytes=4095), ValueError, r"= \[4096, 83886080\].*got 4095"),
    (dict(file_bytes=83886081), ValueError, r"= \[4096, 83886080\].*got 83886081"),
    (dict(file_bytes=2**70), ValueError, r"= \[4096, 83886080\]"),
    (dict(level1_runs=0), ValueError, r"level1_runs = 0 must be in \[1, 1000\]"),
    (dict(level1_runs=-3), ValueError, r"level1_runs = -3 must be in \[1, 1000\]"),
    (dict(level1_runs=1001), ValueError, r"level1_runs = 1001 must be in \[1, 1000\]"),
    (dict(level1_runs="3"), TypeError, "level1_runs must be an int"),
    (dict(level1_runs=True), TypeError, "level1_runs must be an int"),
    (dict(file_pick="min_overlap"), ValueError,
     "file_pick must be 'least_overlap' or 'round_robin'; got 'min_overlap'"),
    (dict(file_pick=0), ValueError, "file_pick must be 'least_overlap' or 'round_robin'"),
    (dict(granularity="file", K=1, Z=1), ValueError,
     r"granularity='file' needs one run per level \(K = 0 and Z = 0\); got K=1"),
    (dict(granularity="file", K=0.5), ValueError, "got K=0.5"),
    (dict(granularity="file", Z=1), ValueError, r"needs one run per level.*Z=1"),
])
def test_bad_options_are_refused_by_name(tmp_path, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        Engine(tmp_path / "db", **(BASE | kwargs))
    assert not (tmp_path / "db").exists() or not any((tmp_path / "db").iterdir())


def test_a_tiered_design_may_stage_flushes_but_not_use_files(tmp_path) -> None:
    Engine(tmp_path / "a", T=3, C=2, K=1, Z=1, **LAYOUT, level1_runs=3).close()
    with pytest.raises(ValueError, match="needs one run per level"):
        Engine(tmp_path / "b", T=3, C=2, K=1, Z=1, **LAYOUT, **FILES)


@pytest.mark.parametrize("change, message", [
    (dict(granularity="level"), r"granularity \(stored file, requested level\)"),
    (dict(file_bytes=2048), r"file_bytes \(stored 1024, requested 2048\)"),
    (dict(level1_runs=1), r"level1_runs \(stored 3, requested 1\)"),
    (dict(file_pick="round_robin"),
     r"file_pick \(stored least_overlap, requested round_robin\)"),
])
def test_a_reopen_with_other_options_is_refused(tmp_path, change, message) -> None:
    kw = dict(T=3, C=2, K=0, Z=0, **LAYOUT, **FILES, level1_runs=3)
    e = Engine(tmp_path / "db", **kw)
    for k in range(500):
        e.put(k, _value(k, 1))
    e.close()
    requested = kw | change
    if requested["granularity"] == "level":  # file_bytes alone would be refused first
        del requested["file_bytes"]
    with pytest.raises(ValueError, match=message):
        Engine(tmp_path / "db", **requested)
    with Engine(tmp_path / "db", **kw) as e:  # refused without harm
        assert e.get(499) == _value(499, 1)


def test_the_default_file_size_is_the_buffer(tmp_path) -> None:
    """file_bytes=None means buffer_bytes: the two spellings open the same directory."""
    kw = dict(T=3, C=2, K=0, Z=0, entry_bytes=64, block_bytes=512, buffer_bytes=4096)
    Engine(tmp_path / "db", **kw, granularity="file").close()
    Engine(tmp_path / "db", **kw, granularity="file", file_bytes=4096).close()
    with pytest.raises(ValueError, match=r"file_bytes \(stored 4096, requested 2048\)"):
        Engine(tmp_path / "db", **kw, granularity="file", file_bytes=2048)
    with Engine.open(tmp_path / "db") as e:
        assert e.levels()[0]["files"]
