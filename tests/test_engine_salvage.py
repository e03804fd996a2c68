"""Salvage mode (issue 31): one flipped byte in one run file no longer makes a directory
unreadable. A normal open still refuses it, naming the file; ``Engine(path, salvage=True)``
opens it read-only, serves the intact runs, names the damaged one, and never answers a key the
damaged run may hold; ``wacky verify`` lists the lost keys and says how to open the rest."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from crash_harness import SMALL, VB

import native_engine
from native_engine import CorruptionError, Engine, InvalidArgument

# Flushes wait in level 0 (three at most) before merging into Level 1, so the last flush is a
# run of its own, newer than the older versions of its keys in Level 1..L.
DESIGN = dict(SMALL, level1_runs=3)
KEYS = 400
REWRITTEN = range(0, 64, 2)  # one buffer (32 entries): keys 0, 2, ..., 62


def value(key: int, salt: int) -> bytes:
    return bytes([(key * 7 + salt * 31 + i) % 256 for i in range(VB)])


def build(path: Path) -> tuple[dict[int, bytes], dict[str, Any]]:
    """Keys 0..399 (salt 0) merged into the tree, key 1000 deleted, then keys 0, 2, ..., 62
    rewritten (salt 1) and flushed into level 0: the victim. Returns the model (deleted keys
    absent) and the victim as ``levels()`` describes it."""
    model: dict[int, bytes] = {}
    with Engine(path, **DESIGN) as e:
        for k in range(KEYS):
            model[k] = value(k, 0)
            e.put(k, model[k])
        e.put(1000, value(1000, 0))
        e.delete(1000)
        e.flush()
        k = 2000
        while len(e.levels()[0]["runs"]) + 1 >= DESIGN["level1_runs"]:  # make room in level 0
            model[k] = value(k, 0)
            e.put(k, model[k])
            e.flush()
            k += 1
        for k in REWRITTEN:
            model[k] = value(k, 1)
            e.put(k, model[k])
        e.flush()
        levels = e.levels()
        assert levels[0]["level"] == 0 and len(levels) > 1
        victim = levels[0]["runs"][-1]
    assert (victim["min_key"], victim["max_key"], victim["entries"]) == (0, 62, 32)
    return model, victim


def run_file(path: Path, run: dict[str, Any]) -> Path:
    return path / f"run-{run['id']:08d}.sst"


def flip(file: Path, offset: int) -> None:
    data = bytearray(file.read_bytes())
    data[offset] ^= 0x10
    file.write_bytes(bytes(data))


def snapshot(path: Path) -> dict[str, bytes | None]:
    """Every entry under ``path`` (lost/ included): a file's bytes, None for a directory."""
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(path.rglob("*"))}


@pytest.fixture
def damaged(tmp_path) -> tuple[Path, dict[int, bytes], dict[str, Any], Path]:
    """A closed directory whose newest run has one flipped byte in data block 0."""
    path = tmp_path / "db"
    model, victim = build(path)
    file = run_file(path, victim)
    flip(file, 100)
    return path, model, victim, file


def test_a_normal_open_still_refuses_and_names_the_file(damaged) -> None:
    path, _, _, file = damaged
    before = snapshot(path)
    with pytest.raises(CorruptionError, match=rf"run file '.*{file.name}': block 0 fails"):
        Engine(path)
    assert snapshot(path) == before


def test_salvage_serves_the_intact_runs_and_names_the_damaged_one(damaged) -> None:
    path, model, victim, file = damaged
    before = snapshot(path)
    with Engine.open(path, salvage=True) as e:
        assert e.read_only
        [aside] = e.set_aside()
        assert aside["file"] == str(file) and aside["id"] == victim["id"]
        assert aside["level"] == 0
        assert (aside["min_key"], aside["max_key"]) == (0, 62)
        assert (aside["entries"], aside["tombstones"]) == (32, 0)
        assert "block 0 fails its checksum" in aside["why"]
        served = {r["id"] for lv in e.levels() for r in lv["runs"]}
        assert victim["id"] not in served
        # Outside [0, 62] every key is answered as a normal open would.
        for k, v in model.items():
            if k > 62:
                assert e.get(k) == v, k
        assert e.get(1000) is None  # deleted
        assert e.get(10**9) is None  # never written
        report = e.verify()
        assert report["set_aside"] == 1 and report["runs"] == len(served)
    assert snapshot(path) == before  # nothing written, moved or deleted, close() included


def test_salvage_never_returns_an_older_version(damaged) -> None:
    """Keys 0, 2, ..., 62 had their newest values in the damaged run, and older values in the
    intact runs below it: returning those would be a wrong answer. Every key of the damaged
    run's range is refused instead, by get, get_many and scan."""
    path, model, _, file = damaged
    with Engine.open(path, salvage=True) as e:
        for k in range(0, 63):
            with pytest.raises(CorruptionError, match=rf"key {k} is in the key range \[0, 62\] "
                               rf"of run file '.*{file.name}' \(level 0, 32 entries\)"):
                e.get(k)
        with pytest.raises(CorruptionError, match=file.name):
            e.get_many([100, 4])  # one lost key refuses the batch
        values, found = e.get_many(np.array([100, 300], dtype=np.uint64))
        assert found.all() and bytes(values[1]) == model[300]
        with pytest.raises(CorruptionError, match="set aside as damaged"):
            list(e.scan(50, 70))
        with pytest.raises(CorruptionError, match=file.name):
            list(e.scan(0, 2**64 - 1))
        expected = sorted((k, v) for k, v in model.items() if 63 <= k <= 5000)
        assert list(e.scan(63, 5000)) == expected


def test_salvage_is_read_only(damaged) -> None:
    path, model, _, _ = damaged
    before = snapshot(path)
    e = Engine(path, salvage=True)
    for call in (lambda: e.put(70, value(70, 9)), lambda: e.delete(70),
                 lambda: e.put_many([70], value(70, 9)), e.flush):
        with pytest.raises(OSError, match="salvage mode, which is read-only") as err:
            call()
        assert err.value.errno == errno.EROFS
        assert not isinstance(err.value, CorruptionError)
    assert e.get(70) == model[70]  # no write landed
    e.close()
    assert snapshot(path) == before


def test_verify_directory_lists_the_same_run(damaged) -> None:
    path, _, _, file = damaged
    report = native_engine.verify_directory(path)
    assert not report["ok"] and report["lost_writes"]
    [run] = report["damaged_runs"]
    assert run["file"] == str(file) and run["level"] == 0
    assert (run["min_key"], run["max_key"], run["entries"]) == (0, 62, 32)
    assert any(file.name in p and "keys [0, 62]" in p and "level 0" in p
               for p in report["problems"]), report["problems"]
    with Engine.open(path, salvage=True) as e:
        assert e.set_aside() == report["damaged_runs"]
    json.dumps(report)  # plain values


def test_wacky_verify_names_the_lost_keys_and_the_salvage_flag(damaged, wacky) -> None:
    path, _, victim, file = damaged
    before = snapshot(path)
    out = wacky("verify", str(path))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "lost keys: 1 run cannot be read" in out.stdout
    assert f"  {file.name}: level 0, keys [0, 62], 32 entries (0 tombstones)" in out.stdout
    assert "salvage=True" in out.stdout and "read-only" in out.stdout
    assert any(line.startswith("error: ") and file.name in line and "keys [0, 62]" in line
               for line in out.stderr.splitlines()), out.stderr
    assert "acknowledged writes cannot be recovered" in out.stderr
    out = wacky("verify", str(path), "--json")
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    [run] = doc["damaged_runs"]
    assert run["id"] == victim["id"] and run["file"] == str(file)
    assert (run["level"], run["min_key"], run["max_key"]) == (0, 0, 62)
    assert snapshot(path) == before


@pytest.mark.parametrize("damage", [
    pytest.param(lambda f: flip(f, 300), id="data block 1"),
    pytest.param(lambda f: flip(f, f.stat().st_size - 256 + 1), id="checksum section"),
    pytest.param(lambda f: f.write_bytes(f.read_bytes()[:-256]), id="truncated"),
    pytest.param(lambda f: f.unlink(), id="deleted"),
])
def test_every_kind_of_run_damage_is_set_aside(tmp_path, damage) -> None:
    path = tmp_path / "db"
    model, victim = build(path)
    file = run_file(path, victim)
    damage(file)
    with pytest.raises(CorruptionError, match=file.name):
        Engine(path)
    with Engine(path, salvage=True) as e:
        [aside] = e.set_aside()
        assert aside["file"] == str(file) and (aside["min_key"], aside["max_key"]) == (0, 62)
        with pytest.raises(CorruptionError, match=file.name):
            e.get(0)
        assert all(e.get(k) == model[k] for k in range(63, KEYS))


def test_a_sound_directory_opens_read_only_with_nothing_set_aside(tmp_path) -> None:
    path = tmp_path / "db"
    model, _ = build(path)
    before = snapshot(path)
    with Engine.open(path, salvage=True) as e:
        assert e.set_aside() == [] and e.read_only
        assert all(e.get(k) == v for k, v in model.items())
        assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())
        assert e.verify()["set_aside"] == 0
    assert snapshot(path) == before
    with Engine.open(path) as e:  # a normal open after it: writable, as before
        assert not e.read_only and e.set_aside() == []
        e.put(5, value(5, 7))


def test_salvage_opens_only_an_existing_directory(tmp_path) -> None:
    none = tmp_path / "none"
    with pytest.raises(ValueError, match="not an engine directory"):
        Engine(none, salvage=True)
    assert not none.exists()  # nothing created
    with pytest.raises(InvalidArgument, match="salvage must be True or False"):
        Engine(tmp_path / "db", salvage=1)
