"""Engine(filters="uniform"): one Bloom-filter FPR for every run of every level.

The engine's levels() must report exactly cost_models.filters.uniform_fprs_for_* of its own run
bounds for both budget modes, built runs must carry the same bits per key at every level, and the
mode is part of the stored design (reopening with the other mode is refused).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from cost_models import filters
from native_engine import Engine

# K = 1 gives several runs per level, so the total run count differs from L.
KW = dict(T=3, C=2, X=1, K=1, Z=0, entry_bytes=32, block_bytes=256, buffer_bytes=2048)
LN2_SQ = math.log(2) ** 2


def _load(e: Engine, n: int, seed: int = 2) -> None:
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 2**63, size=n + n // 10, dtype=np.uint64))[:n]
    e.put_many(rng.permutation(keys), np.zeros((n, e.value_bytes), dtype=np.uint8))


@pytest.mark.parametrize("budget", [dict(bits_per_entry=6.0), dict(sum_fpr=0.3)])
def test_levels_report_the_uniform_fpr(tmp_path, budget) -> None:
    e = Engine(tmp_path / "db", **KW, **budget, filters="uniform")
    for n in (0, 3_000, 20_000):  # the empty bootstrap shape, then growing trees
        if n:
            _load(e, n, seed=n)
        levels = e.levels()
        runs = np.array([lv["held_runs"] for lv in levels], dtype=float)
        if "sum_fpr" in budget:
            want = filters.uniform_fprs_for_sum(runs, budget["sum_fpr"])
            assert float(np.sum(runs * [lv["fpr"] for lv in levels])) == pytest.approx(0.3)
        else:
            want = filters.uniform_fprs_for_memory(runs, budget["bits_per_entry"])
            assert levels[0]["fpr"] == pytest.approx(math.exp(-6.0 * LN2_SQ), rel=1e-12)
        assert [lv["fpr"] for lv in levels] == pytest.approx(list(want), rel=1e-12)
        assert len({lv["fpr"] for lv in levels}) == 1
    assert len(e.levels()) >= 3
    e.close()


def test_uniform_differs_from_optimized(tmp_path) -> None:
    """Same budget and shape, but the Lagrangian allocation varies p_i across levels."""
    opt = Engine(tmp_path / "a", **KW, bits_per_entry=6.0)
    uni = Engine(tmp_path / "b", **KW, bits_per_entry=6.0, filters="uniform")
    for e in (opt, uni):
        _load(e, 20_000)
    assert len({lv["fpr"] for lv in opt.levels()}) > 1
    assert len({lv["fpr"] for lv in uni.levels()}) == 1
    opt.close()
    uni.close()


def test_loaded_runs_have_equal_bits_per_key(tmp_path) -> None:
    e = Engine(tmp_path / "db", **KW, bits_per_entry=6.0, filters="uniform")
    _load(e, 40_000)
    levels = e.levels()
    runs = [r for lv in levels for r in lv["runs"]]
    assert sum(1 for lv in levels if lv["runs"]) >= 2
    for r in runs:
        assert r["filter_bits_target"] == pytest.approx(6.0, rel=1e-12)
        assert r["filter_bits_per_key"] == pytest.approx(6.0, rel=0.01)
    per_level = [
        sum(r["filter_bits_per_key"] * r["entries"] for r in lv["runs"]) / lv["entries"]
        for lv in levels
        if lv["entries"]
    ]
    assert per_level == pytest.approx([per_level[0]] * len(per_level), rel=0.01)
    bits = sum(r["filter_bits_per_key"] * r["entries"] for r in runs)
    assert bits / sum(lv["entries"] for lv in levels) == pytest.approx(6.0, rel=0.01)
    e.close()


def test_reopen_with_another_filters_mode_is_refused(tmp_path) -> None:
    path = tmp_path / "db"
    e = Engine(path, **KW, filters="uniform")
    _load(e, 3_000)
    fprs = [lv["fpr"] for lv in e.levels()]
    e.close()
    with pytest.raises(
        ValueError, match=r"different design: filters \(stored uniform, requested optimized\)"
    ):
        Engine(path, **KW, filters="optimized")
    e = Engine(path, **KW, filters="uniform")  # the stored mode reopens
    assert [lv["fpr"] for lv in e.levels()] == fprs
    e.close()
    e = Engine(path, **KW)  # left out, the mode is the MANIFEST's
    assert [lv["fpr"] for lv in e.levels()] == fprs
    e.close()
    Engine(tmp_path / "opt", **KW).close()
    with pytest.raises(ValueError, match=r"filters \(stored optimized, requested uniform\)"):
        Engine(tmp_path / "opt", **KW, filters="uniform")


def test_older_manifest_versions_are_refused_by_name(tmp_path) -> None:
    """Version 5 gave run files a footer that identifies them (issue 36), so directories
    written before it (manifest versions 1 to 4) cannot be read; they are refused by name and
    left as they were."""
    path = tmp_path / "db"
    e = Engine(path, **KW)
    _load(e, 3_000)
    e.close()
    manifest = path / "MANIFEST"
    text = manifest.read_text()
    assert text.startswith("wacky-manifest 5\n") and "uniform_filters 0\n" in text
    before = sorted(os.listdir(path))
    for old in ("1", "2", "3", "4"):
        manifest.write_text(text.replace("wacky-manifest 5\n", f"wacky-manifest {old}\n"))
        with pytest.raises(OSError, match=f"format version {old}.*reads version 5 only"):
            Engine(path, **KW)
        assert sorted(os.listdir(path)) == before
    manifest.write_text(text.replace("uniform_filters 0\n", "uniform_filters 1\n"))
    with pytest.raises(OSError, match="checksum mismatch"):
        Engine(path, **KW)
    manifest.write_text(text)
    e = Engine(path, **KW)
    assert sum(lv["entries"] for lv in e.levels()) + e.stats()["buffer_size"] == 3_000
    e.close()


@pytest.mark.parametrize("bad", ["Uniform", "lagrangian", "", None, 1])
def test_bad_filters_value(tmp_path, bad) -> None:
    with pytest.raises(ValueError, match=r"filters must be 'optimized' or 'uniform', got"):
        Engine(tmp_path / "db", **KW, filters=bad)
    assert not (tmp_path / "db").exists()
