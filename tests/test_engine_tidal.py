"""Tidal-tree's floating of hot files (``Engine(float_gamma=...)``, native_engine/src/floating.h)
through the Python API: answers as a dict does across reopens while files float, floats under a
Zipf read skew cut the files a lookup of an existing key checks (against the same run without
floating), and the options' refusals and reopen rules. The C++ tests (engine_tidal_test.cc)
cover Eq 1 and Eq 4 on hand-built trees, Algorithm III.1's drops and I/O, failed flushes and
crashes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from native_engine import Engine, InvalidArgument, _engine

FILES = dict(T=3, C=2, X=1, K=0, Z=0, entry_bytes=24, block_bytes=96, buffer_bytes=192,
             granularity="file", file_bytes=96, wal=False)


def val(k: int, salt: int) -> bytes:
    return ((k + salt) % 2**64).to_bytes(8, "little") * 2


def zipf_keys(rng: np.random.Generator, keys: np.ndarray, n: int, theta: float = 0.99
              ) -> np.ndarray:
    """``n`` draws from ``keys`` by Zipf(theta) over their order (keys[0] the hottest)."""
    cdf = np.cumsum(np.arange(1, keys.size + 1, dtype=float) ** -theta)
    cdf /= cdf[-1]
    return keys[np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), keys.size - 1)]


def test_random_operations_agree_with_a_dict_across_reopens(tmp_path) -> None:
    rng = random.Random(3)
    nprng = np.random.default_rng(3)
    universe = 600
    hot = nprng.permutation(universe)  # the popularity order, spread over the key space
    model: dict[int, bytes] = {}
    path = tmp_path / "db"
    floats = 0
    for rnd in range(3):
        options = dict(FILES, float_gamma=1.0, float_decay=500) if rnd == 0 else {}
        with Engine(path, **options) as e:  # reopened with what the MANIFEST stores
            if rnd == 0:
                for k in rng.sample(range(universe), universe):
                    model[k] = val(k, 0)
                    e.put(k, model[k])
            reads = zipf_keys(nprng, hot, 3000)
            for step in range(3000):
                dice = rng.random()
                if dice < 0.15:
                    k = rng.randrange(universe)
                    model[k] = val(k, rnd * 10_000 + step)
                    e.put(k, model[k])
                elif dice < 0.2:
                    k = rng.randrange(universe)
                    model.pop(k, None)
                    e.delete(k)
                else:
                    k = int(reads[step])
                    assert e.get(k) == model.get(k)
            for k in range(universe):
                assert e.get(k) == model.get(k)
            values, found = e.get_many(list(range(universe)))
            assert [bool(f) for f in found] == [k in model for k in range(universe)]
            assert [k for k, _ in e.scan(0, 2**64 - 1)] == sorted(model)
            s = e.stats()
            floats += s["floats"]
            assert s["total"]["blocks_written"] == (s["flush"]["blocks_written"]
                                                    + s["merge_total"]["blocks_written"]
                                                    + s["float"]["blocks_written"])
        stored = _engine.stored_options(str(path))
        assert stored["float_gamma"] == 1.0 and stored["float_alpha"] == 1.0
        assert "float_decay" not in stored  # memory only
    assert floats > 0


def _probes(path, gamma: float) -> dict[str, float]:
    """A shuffled load of 3000 keys, then 90% lookups drawn by Zipf over them (the hottest
    spread over the key space) and 10% puts of new keys, which keep the flushes coming without
    touching the hot keys' versions deep in the tree. The measures are over the second phase."""
    rng = np.random.default_rng(11)
    n = 3000
    options = dict(FILES, float_gamma=gamma) if gamma > 0 else dict(FILES)
    with Engine(path, **options) as e:
        loaded = rng.permutation(n).astype(np.uint64)
        e.put_many(loaded, np.repeat(np.arange(n, dtype=np.uint8)[:, None], 16, axis=1))
        before = e.stats()
        hot = rng.permutation(n).astype(np.uint64)
        fresh = n
        for _ in range(250):
            _, found = e.get_many(zipf_keys(rng, hot, 90))
            assert found.all()
            for _ in range(10):
                e.put(fresh, val(fresh, 1))
                fresh += 1
        after = e.stats()
    found = after["gets_found"] - before["gets_found"]
    assert found == 250 * 90
    return dict(floats=after["floats"] - before["floats"],
                probes=(after["found_get_files_checked"]
                        - before["found_get_files_checked"]) / found,
                float_reads=after["float"]["blocks_read"], eta=after["float_eta"])


def test_floats_under_zipf_reads_cut_the_files_checked_per_existing_key(tmp_path) -> None:
    off = _probes(tmp_path / "off", 0.0)
    on = _probes(tmp_path / "on", 1.0)
    assert off["floats"] == 0 and off["float_reads"] == 0
    assert on["floats"] > 0 and on["float_reads"] > 0
    assert on["eta"] > 1  # nine reads a write, decayed
    # Measured: 3.92 files checked per lookup of an existing key without floating, 2.41 with
    # (114 floats).
    assert on["probes"] < 0.8 * off["probes"], (on, off)


def test_the_options_are_checked_and_stored(tmp_path) -> None:
    with pytest.raises(ValueError, match="float_gamma > 0 needs granularity='file'"):
        Engine(tmp_path / "a", T=3, C=2, X=1, K=0, Z=0, float_gamma=1.0)
    with pytest.raises(ValueError, match="float_gamma > 0 cannot be combined with log_ratio"):
        Engine(tmp_path / "b", **FILES, float_gamma=1.0, log_ratio=0.2)
    with pytest.raises(ValueError, match="cannot be combined with compaction_buffer"):
        Engine(tmp_path / "b", **FILES, float_gamma=1.0, compaction_buffer=True)
    with pytest.raises(ValueError, match="cannot be combined with l0_partitions > 1"):
        Engine(tmp_path / "b", **FILES, float_gamma=1.0, l0_partitions=2)
    with pytest.raises(ValueError, match=r"float_alpha applies only with float_gamma > 0"):
        Engine(tmp_path / "b", **FILES, float_alpha=2.0)
    with pytest.raises(ValueError, match=r"float_decay applies only with float_gamma > 0"):
        Engine(tmp_path / "b", **FILES, float_decay=50)
    with pytest.raises(ValueError, match=r"float_gamma = -1 must be in \[0, 1000000\]"):
        Engine(tmp_path / "b", **FILES, float_gamma=-1)
    with pytest.raises(ValueError, match=r"float_probe_cost = 0 must be in \[0.001, 1000\]"):
        Engine(tmp_path / "b", **FILES, float_gamma=1, float_probe_cost=0)
    with pytest.raises(ValueError, match=r"float_per_flush = 0 must be in \[1, 1000\]"):
        Engine(tmp_path / "b", **FILES, float_gamma=1, float_per_flush=0)
    with pytest.raises(InvalidArgument, match="float_gamma must be a number, got str"):
        Engine(tmp_path / "b", **FILES, float_gamma="1")
    with pytest.raises(InvalidArgument, match="float_decay must be an int, got float"):
        Engine(tmp_path / "b", **FILES, float_gamma=1, float_decay=1.5)
    path = tmp_path / "c"
    with Engine(path, **FILES, float_gamma=0.5, float_alpha=4, float_stretch=0.1) as e:
        e.put(1, val(1, 0))
    stored = _engine.stored_options(str(path))
    assert (stored["float_gamma"], stored["float_alpha"], stored["float_probe_cost"],
            stored["float_stretch"]) == (0.5, 4.0, 3.0, 0.1)
    with pytest.raises(ValueError, match=r"float_gamma \(stored 0.5, requested 1\)"):
        Engine(path, float_gamma=1.0)
    with pytest.raises(ValueError, match=r"float_stretch \(stored 0.1, requested 0\)"):
        Engine(path, float_stretch=0)
    # The memory-only knobs take any value on reopen, Engine.open included.
    with Engine.open(path, float_decay=7, float_per_flush=3) as e:
        assert e.get(1) == val(1, 0)
    # A directory made without floating records none of it and cannot gain it.
    with Engine(tmp_path / "d", **FILES) as e:
        e.put(1, val(1, 0))
    assert "float_gamma" not in _engine.stored_options(str(tmp_path / "d"))
    with pytest.raises(ValueError, match=r"float_gamma \(stored 0, requested 1\)"):
        Engine(tmp_path / "d", float_gamma=1.0)
