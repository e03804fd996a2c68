"""Which directories the engine opens (issue 31): it refuses a non-empty directory that is not
its own, before writing anything, and reopens an engine directory from its MANIFEST alone."""

from __future__ import annotations

import os

import pytest

from native_engine import Engine

SMALL = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192)
V = SMALL["entry_bytes"] - 8


def val(k: int) -> bytes:
    return (k * 2654435761 % 2**64).to_bytes(8, "little") * (V // 8)


def _fill(e: Engine, n: int) -> None:
    for k in range(n):
        e.put(k, val(k))
    for k in range(0, n, 7):
        e.delete(k)


def test_a_foreign_non_empty_directory_is_refused_untouched(tmp_path) -> None:
    d = tmp_path / "x"
    d.mkdir()
    for name in ("a.txt", "b.csv", "notes"):
        (d / name).write_text("mine")
    (d / "sub").mkdir()
    before = {p: p.stat().st_mtime_ns for p in d.iterdir()}
    for kwargs in ({}, SMALL):
        with pytest.raises(ValueError, match="not this engine's") as refused:
            Engine(d, **kwargs)
        message = str(refused.value)
        assert str(d) in message and "a.txt" in message and "4 files" in message
        assert "empty or new directory" in message
    assert {p: p.stat().st_mtime_ns for p in d.iterdir()} == before  # nothing written
    assert sorted(os.listdir(d)) == ["a.txt", "b.csv", "notes", "sub"]


def test_an_empty_directory_and_a_new_path_are_created(tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    for d in (tmp_path / "empty", tmp_path / "new" / "db"):
        with Engine(d, **SMALL) as e:
            e.put(1, val(1))
        assert (d / "MANIFEST").is_file()
        with Engine(d) as e:
            assert e.get(1) == val(1)


def test_an_engine_directory_with_a_stray_file_still_opens(tmp_path) -> None:
    d = tmp_path / "db"
    with Engine(d, **SMALL) as e:
        e.put(1, val(1))
    (d / "README").write_text("notes beside the data")
    with Engine(d) as e:
        assert e.get(1) == val(1)
    assert (d / "README").read_text() == "notes beside the data"


@pytest.mark.parametrize("extra", [
    {},
    dict(filters="uniform", sum_fpr=0.5, hash_levels=1),
    dict(granularity="file", file_bytes=96, file_pick="round_robin", level1_runs=2),
])
def test_reopen_from_the_manifest_alone(tmp_path, extra) -> None:
    d = tmp_path / "db"
    with Engine(d, **SMALL, **extra) as e:
        _fill(e, 600)
        e.flush()
        levels = e.levels()
        data = list(e.scan(0, 2**64 - 1))
        shape = (e.value_bytes, e.entries_per_block, e.buffer_entries)
    with Engine(d) as e:  # no option repeated
        assert e.levels() == levels
        assert list(e.scan(0, 2**64 - 1)) == data
        assert (e.value_bytes, e.entries_per_block, e.buffer_entries) == shape
        e.put(10_000, val(10_000))
    with Engine(d, T=SMALL["T"], cache_bytes=1 << 12) as e:  # some repeated, runtime ones free
        assert e.get(10_000) == val(10_000)
        assert len(list(e.scan(0, 2**64 - 1))) == len(data) + 1


@pytest.mark.parametrize("change, message", [
    (dict(T=4), r"T \(stored 3, requested 4\)"),
    (dict(entry_bytes=32), r"entry_bytes \(stored 24, requested 32\)"),
    (dict(filters="uniform"), r"filters \(stored optimized, requested uniform\)"),
    (dict(bits_per_entry=5), r"bits_per_entry \(stored 10, requested 5\)"),
    (dict(granularity="file"), r"granularity \(stored level, requested file\)"),
])
def test_a_contradicting_option_is_refused_naming_it(tmp_path, change, message) -> None:
    d = tmp_path / "db"
    with Engine(d, **SMALL) as e:
        _fill(e, 100)
    names = sorted(os.listdir(d))
    with pytest.raises(ValueError, match=message):
        Engine(d, **change)
    assert sorted(os.listdir(d)) == names
    with Engine(d) as e:  # refused without harm
        assert e.get(1) == val(1)


def test_a_new_directory_takes_the_documented_defaults(tmp_path) -> None:
    with Engine(tmp_path / "db", entry_bytes=24, block_bytes=96, buffer_bytes=192) as e:
        e.put(1, val(1))
    with pytest.raises(ValueError, match=r"T \(stored 10, requested 3\)"):
        Engine(tmp_path / "db", T=3)
    with pytest.raises(ValueError, match=r"C \(stored 9, requested 2\)"):
        Engine(tmp_path / "db", C=2)
