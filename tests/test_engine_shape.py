"""Structure agrees with the model (cost_models.structure) while N entries are loaded.

Tolerances and why:
* Capacities are set top-down (App. E) from n_est = N_L (C+1)/C, where N_L is Level L's size at
  the last major compaction. With unique inserts Levels 1..L-1 hold at most n_est/(C+1), so the
  data size N satisfies n_est C/(C+1) <= N <= n_est and the engine's L must lie between the
  model's L for N/F and for N (C+1)/(C F). Each capacity must equal the model's fraction_i
  times n_est, and each run bound the model's integer a_i, to 1e-9.
* Levels 1..L-1 never exceed N_i (preemptive merging) and no level holds more than a_i runs.
  Level L holds exactly n_est C/(C+1) entries (it only changes through major compactions).
* Levels fill up: whenever a flush sweeps Level i into a deeper merge, Level i plus the data
  arriving at it would have exceeded N_i, or its run count was at a_i (the rounding the integer
  run counts impose); the level was never merged early.
"""

from __future__ import annotations

import numpy as np
import pytest

from cost_models import structure as model
from native_engine import Engine

LAYOUT = dict(entry_bytes=16, block_bytes=64, buffer_bytes=256)  # F = 16 entries
F = 16

DESIGNS = {
    "leveling-T4": dict(T=4, C=3, X=1, K=0, Z=0),
    "tiering-T4": dict(T=4, C=3, X=1, K=1, Z=1),
    "lazy-leveling-T3": dict(T=3, C=2, X=1, K=1, Z=0),
    "qlsm-bush": dict(T=2, C=1, X=2, K=1, Z=0),
    "bush-X3": dict(T=2, C=1, X=3, K=0.5, Z=1),
    "continuum": dict(T=5, C=2.5, X=1.5, K=0.5, Z=0.5),
}


def _model_L(d, n_buffers: float) -> int:
    return int(model.num_levels(d["T"], d["C"], d["X"], n_buffers))


@pytest.mark.parametrize("name", list(DESIGNS))
def test_structure_tracks_the_model(tmp_path, name) -> None:
    d = DESIGNS[name]
    e = Engine(tmp_path / "db", **d, **LAYOUT)
    rng = np.random.default_rng(9)
    flushes = 400
    keys = np.unique(rng.integers(0, 2**64 - 1, size=flushes * F + 100, dtype=np.uint64))
    keys = rng.permutation(keys)[: flushes * F]
    values = np.zeros((keys.size, 8), dtype=np.uint8)
    max_L = 0
    sweeps = 0
    prev = None
    for f in range(flushes):
        e.put_many(keys[f * F : (f + 1) * F], values[:F])
        e.flush()
        n = (f + 1) * F
        lv = e.levels()
        s = e.stats()
        n_est = s["n_est"]
        L = len(lv)
        max_L = max(max_L, L)
        assert sum(x["entries"] for x in lv) == n
        # The shape is the model's shape for n_est.
        ref = model.structure(d["T"], d["C"], d["X"], d["K"], d["Z"], n_est / F, integer_runs=True)
        assert L == int(ref.L)
        for i, x in enumerate(lv):
            assert x["capacity"] == pytest.approx(ref.fractions[i] * n_est, rel=1e-9, abs=1e-9)
            # The bound a_i (Eq 13, the merge rule), and the runs the level holds: a_i capped
            # at its capacity in buffers, as the model counts them.
            assert x["max_runs"] == ref.run_bound[i]
            assert x["held_runs"] == ref.runs[i]
            assert len(x["runs"]) <= x["held_runs"]
            if i < L - 1:
                assert x["entries"] <= x["capacity"] * (1 + 1e-9)
        assert lv[-1]["entries"] == pytest.approx(n_est * d["C"] / (d["C"] + 1), rel=1e-9)
        # n_est brackets the data, so L is the model's L for N/F up to the (C+1)/C headroom.
        assert n_est * d["C"] / (d["C"] + 1) * (1 - 1e-9) <= n <= n_est * (1 + 1e-9)
        lo_L = _model_L(d, n / F)
        hi_L = _model_L(d, n / F * (d["C"] + 1) / d["C"])
        assert lo_L <= L <= hi_L
        # Levels that were swept down by this flush had been full.
        if prev is not None and len(prev) == L:
            incoming = F
            for i in range(L - 1):
                before, after = prev[i], lv[i]
                swept = before["entries"] > 0 and after["entries"] < before["entries"]
                if swept:
                    full_by_size = before["entries"] + incoming > before["capacity"] * (1 - 1e-9)
                    full_by_runs = len(before["runs"]) >= before["max_runs"]
                    assert full_by_size or full_by_runs, (i, before, incoming)
                    sweeps += 1
                    incoming += before["entries"]
                else:
                    break
        prev = lv
    assert max_L >= 3  # the tiny buffer forced a multi-level tree
    assert sweeps >= 10  # preemptive merges happened and were checked
    e.close()


def test_figure_11_shape_when_full(tmp_path) -> None:
    """QLSM-bush right after Level L absorbs everything: Level L = N, then capacities grow
    top-down exactly as Eq 9 gives for N(C+1)/C; the runs bound at Level 1 is (r_1 - 1)."""
    d = DESIGNS["qlsm-bush"]
    e = Engine(tmp_path / "db", **d, **LAYOUT)
    n = 0
    key = 0
    while e.stats()["major_compactions"] < 12:
        e.put_many(np.arange(key, key + F, dtype=np.uint64), np.zeros((F, 8), dtype=np.uint8))
        key += F
        e.flush()
        n += F
    lv = e.levels()
    ref = model.structure(2, 1, 2, 1, 0, e.stats()["n_est"] / F, integer_runs=True)
    assert [x["max_runs"] for x in lv] == list(ref.run_bound[: len(lv)])
    assert [x["held_runs"] for x in lv] == list(ref.runs[: len(lv)])
    assert [x["ratio"] for x in lv] == pytest.approx(list(ref.ratios[: len(lv)]))
    e.close()
