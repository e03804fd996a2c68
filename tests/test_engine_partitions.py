"""OHDB's partitioned level 0 (``Engine(l0_partitions=P)``, native_engine/src/file_compaction.h)
through the Python API: answers as a dict does across reopens, the option's refusals and its
reopen rule, and the shape (each level-0 run inside one partition). The C++ tests
(engine_partition_test.cc) cover crashes and MANIFESTs written before the option."""

from __future__ import annotations

import random

import pytest

from native_engine import Engine, _engine

FILES = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192,
             granularity="file", file_bytes=96, wal=False)
SPREAD = 0x9E3779B97F4A7C15  # keys i * SPREAD mod 2^64 fall in every partition


def key(i: int) -> int:
    return (i * SPREAD) % 2**64


def partition(x: int, partitions: int) -> int:
    """The partition of key x: partition j starts at ceil(j 2^64 / P) (file_compaction.h)."""
    return sum(x >= -(-(j << 64) // partitions) for j in range(1, partitions))


def val(k: int, salt: int) -> bytes:
    return ((k + salt) % 2**64).to_bytes(8, "little") * 2


@pytest.mark.parametrize("partitions, trigger", [(4, 1), (4, 3), (10, 2)])
def test_random_operations_agree_with_a_dict(tmp_path, partitions, trigger) -> None:
    rng = random.Random(partitions * 10 + trigger)
    options = dict(FILES, l0_partitions=partitions, level1_runs=trigger)
    model: dict[int, bytes] = {}
    path = tmp_path / "db"
    for rnd in range(3):
        with Engine(path, **options) as e:
            for step in range(1500):
                k = key(rng.randrange(400))
                if rng.random() < 0.8:
                    model[k] = val(k, rnd * 10_000 + step)
                    e.put(k, model[k])
                else:
                    model.pop(k, None)
                    e.delete(k)
            assert e.stats()["merges"] > 0
            for i in range(400):
                assert e.get(key(i)) == model.get(key(i))
            assert [k for k, _ in e.scan(0, 2**64 - 1)] == sorted(model)
            for level in e.levels():
                for run in level["runs"]:
                    if level["level"] <= 1 and run["entries"]:
                        assert (partition(run["min_key"], partitions)
                                == partition(run["max_key"], partitions))
    with Engine(path) as e:  # reopened as stored
        assert _engine.stored_options(str(path))["l0_partitions"] == partitions
        assert all(e.get(k) == v for k, v in model.items())


def test_the_option_is_refused_where_it_cannot_work(tmp_path) -> None:
    with pytest.raises(ValueError, match="l0_partitions > 1 needs granularity='file'"):
        Engine(tmp_path / "a", T=3, C=2, X=1, K=0, Z=0, l0_partitions=4)
    with pytest.raises(ValueError, match=r"l0_partitions.*\[1, 1024\]"):
        Engine(tmp_path / "b", **FILES, l0_partitions=0)
    with Engine(tmp_path / "c", **FILES, l0_partitions=4) as e:
        e.put(1, val(1, 0))
    with pytest.raises(ValueError, match=r"l0_partitions \(stored 4, requested 2\)"):
        Engine(tmp_path / "c", l0_partitions=2)


def test_one_partition_writes_what_it_always_wrote(tmp_path) -> None:
    """P = 1 is the unpartitioned engine: the same workload writes the same bytes, and the
    MANIFEST does not mention partitions."""
    stats = []
    for name, extra in (("plain", {}), ("one", {"l0_partitions": 1})):
        with Engine(tmp_path / name, **FILES, level1_runs=2, **extra) as e:
            for i in range(3000):
                e.put(key(i % 700), val(i, 0))
            stats.append((e.stats()["merge_total"], e.stats()["merges"]))
        assert "l0_partitions" not in _engine.stored_options(str(tmp_path / name))
    assert stats[0] == stats[1]
