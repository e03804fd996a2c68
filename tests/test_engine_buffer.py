"""LSbM-tree's compaction buffer (``Engine(compaction_buffer=True)``,
native_engine/src/compaction_buffer.h): the same answers as without it through random operations
and reopens, the options and their refusals, the stored design, and the stats and levels it
reports. (The C++ tests, engine_buffer_test.cc, cover crashes, trims and the cache effect.)
"""

from __future__ import annotations

import random

import pytest
from engine_ops import OPS, apply_ops
from hypothesis import HealthCheck, given, settings

from native_engine import Engine, _engine

FILES = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192,
             granularity="file", file_bytes=192, wal=False)
BUFFER_STATS = ("buffer_files", "buffer_bytes", "buffer_reads", "buffer_trimmed",
                "buffer_drained", "buffer_unreadable", "buffer_entries_per_level")


def val(k: int, salt: int = 0) -> bytes:
    return ((k * 7919 + salt) % 2**64).to_bytes(8, "little") * 2


def test_random_operations_agree_with_a_dict(tmp_path) -> None:
    """Puts, deletes, gets, scans, flushes and reopens, with the buffer trimmed after every
    merge and a small cache, answer as a dict does."""
    counter = iter(range(10**6))

    @settings(max_examples=25, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(ops=OPS)
    def run(ops) -> None:
        layout = dict(entry_bytes=16, block_bytes=48, buffer_bytes=96, file_bytes=48)
        options = dict(FILES, **layout, compaction_buffer=True, cache_bytes=4 * 48,
                       buffer_trim_interval=1)
        path = tmp_path / f"db{next(counter)}"
        model: dict[int, bytes] = {}
        e = apply_ops(Engine(path, **options), ops, model, 8,
                      lambda: Engine(path, **options))
        for k in range(61):
            assert e.get(k) == model.get(k)
        e.close()

    run()


def test_a_hot_range_is_read_from_buffered_files_and_survives_a_reopen(tmp_path) -> None:
    rng = random.Random(5)
    model: dict[int, bytes] = {}
    options = dict(FILES, compaction_buffer=True, cache_bytes=200 * 96)
    with Engine(tmp_path / "db", **options) as e:
        for step in range(6000):
            k = rng.randrange(1000) if rng.random() < 0.5 else 300 + rng.randrange(40)
            if rng.random() < 0.4:
                model[k] = val(k, step)
                e.put(k, model[k])
            elif rng.random() < 0.2:
                model.pop(k, None)
                e.delete(k)
            else:
                assert e.get(k) == model.get(k)
        s = e.stats()
        assert set(BUFFER_STATS) <= set(s)
        assert s["buffer_reads"] > 0 and s["buffer_files"] > 0 and s["buffer_bytes"] > 0
        assert s["buffer_trimmed"] + s["buffer_drained"] > 0
        assert sum(s["buffer_entries_per_level"]) > 0
        levels = e.levels()
        assert all("buffer" in lv for lv in levels)
        live = [f for lv in levels for table in lv["buffer"] for f in table if not f["removed"]]
        assert len(live) == s["buffer_files"]
        assert sum(f["file_bytes"] for f in live) == s["buffer_bytes"]
        assert all(f["min_key"] <= f["max_key"] and f["blocks"] > 0 for f in live)
        e.flush()
        shape = [[[(f["removed"], f["min_key"], f["max_key"]) for f in t] for t in lv["buffer"]]
                 for lv in e.levels()]
    with Engine(tmp_path / "db") as e:  # the design comes back from the MANIFEST
        assert [[[(f["removed"], f["min_key"], f["max_key"]) for f in t] for t in lv["buffer"]]
                for lv in e.levels()] == shape
        assert e.stats()["buffer_unreadable"] == 0
        for k in range(1000):
            assert e.get(k) == model.get(k)
        assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())


def test_the_buffer_is_part_of_the_design(tmp_path) -> None:
    Engine(tmp_path / "on", **FILES, compaction_buffer=True).close()
    Engine(tmp_path / "off", **FILES).close()
    assert _engine.stored_options(str(tmp_path / "on"))["compaction_buffer"] is True
    assert "compaction_buffer" not in _engine.stored_options(str(tmp_path / "off"))
    assert "log_ratio" not in _engine.stored_options(str(tmp_path / "on"))  # no L2SM lines
    with pytest.raises(ValueError, match=r"compaction_buffer \(stored on, requested off\)"):
        Engine(tmp_path / "on", compaction_buffer=False)
    with pytest.raises(ValueError, match=r"compaction_buffer \(stored off, requested on\)"):
        Engine(tmp_path / "off", compaction_buffer=True)
    # The trim knobs are memory only: any value reopens, also through Engine.open.
    with Engine.open(tmp_path / "on", buffer_trim=0.1, buffer_trim_interval=100) as e:
        e.put(1, val(1))
        assert e.get(1) == val(1)
    with Engine(tmp_path / "off") as e:
        assert e.stats()["buffer_files"] == 0 and "buffer" not in e.levels()[0]


@pytest.mark.parametrize("given, message", [
    (dict(compaction_buffer=True, granularity="level", file_bytes=None),
     "compaction_buffer applies only to granularity='file'"),
    (dict(buffer_trim=0.5), r"buffer_trim applies only with compaction_buffer=True"),
    (dict(buffer_trim_interval=3), "buffer_trim_interval applies only with compaction_buffer"),
    (dict(compaction_buffer=True, buffer_trim=1.5), r"buffer_trim = 1.5 must be in \[0, 1\]"),
    (dict(compaction_buffer=True, buffer_trim=float("nan")), r"must be in \[0, 1\]"),
    (dict(compaction_buffer=True, buffer_trim_interval=0), r"buffer_trim_interval = 0 must be"),
    (dict(compaction_buffer=1), "compaction_buffer must be True or False"),
    (dict(compaction_buffer=True, buffer_trim="high"), "buffer_trim must be a number"),
    (dict(compaction_buffer=True, buffer_trim_interval=2.5), "buffer_trim_interval must be"),
    (dict(compaction_buffer=True, log_ratio=0.1),
     "log_ratio > 0 cannot be combined with compaction_buffer"),
])
def test_bad_options_are_refused_by_name(tmp_path, given, message) -> None:
    options = dict(FILES, **given)
    with pytest.raises(ValueError, match=message):
        Engine(tmp_path / "db", **options)
    assert not (tmp_path / "db").exists()


def test_the_binding_refuses_what_the_wrapper_would(tmp_path) -> None:
    """The C++ Options::Validate names the parameter too (a caller of _engine directly)."""
    args = [str(tmp_path / "db"), 3.0, 2.0, 1.0, 0.0, 0.0, 24, 96, 192, False, 10.0, 0.0, False,
            0, False, False, False]
    with pytest.raises(ValueError, match="compaction_buffer applies only to granularity='file'"):
        _engine._Engine(*args, compaction_buffer=True)
    # the engine's option table (options.h) spells the value as given: 2
    with pytest.raises(ValueError, match=r"buffer_trim = 2(\.0+)? must be in \[0, 1\]"):
        _engine._Engine(*args, granularity=1, compaction_buffer=True, buffer_trim=2.0)
