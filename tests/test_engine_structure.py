"""The engine's structure equations (native_engine/src/structure.h) against cost_models.

The engine builds the shape from its own C++ header; these tests check that header against the
Python reference on thousands of random designs, and the Lagrangian and uniform filter allocations
against cost_models.filters.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cost_models import structure as pystruct
from native_engine import _engine

RTOL = 1e-9


def _random_designs(rng: np.random.Generator, n: int):
    T = np.where(rng.random(n) < 0.3, rng.integers(2, 20, n), 2 + rng.random(n) * 60)
    C = 1 + rng.random(n) * (T - 1.5)
    C = np.where(rng.random(n) < 0.2, 1.0, C)
    X = np.where(rng.random(n) < 0.3, 1.0, 1 + rng.random(n) * 2.5)
    X = np.where(rng.random(n) < 0.05, 1 + 1e-7, X)
    K = np.where(rng.random(n) < 0.4, rng.integers(0, 2, n), rng.random(n))
    Z = np.where(rng.random(n) < 0.4, rng.integers(0, 2, n), rng.random(n))
    nbuf = np.exp(rng.random(n) * np.log(1e7))
    nbuf = np.where(rng.random(n) < 0.1, rng.random(n) * 3, nbuf)  # tiny: L = 1 and invalid logs
    return T.astype(float), C, X, K.astype(float), Z.astype(float), nbuf


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=1e-300)


@pytest.mark.parametrize("integer_runs", [False, True])
def test_structure_matches_cost_models_on_random_designs(integer_runs: bool) -> None:
    rng = np.random.default_rng(20240 + integer_runs)
    T, C, X, K, Z, nbuf = _random_designs(rng, 3000)
    ref = pystruct.structure(T, C, X, K, Z, nbuf, integer_runs=integer_runs)
    mismatches = []
    for j in range(T.size):
        got = _engine.structure(T[j], C[j], X[j], K[j], Z[j], nbuf[j], integer_runs)
        L = int(ref.L[j])
        if got["L"] != L:
            mismatches.append((j, "L", got["L"], L))
            continue
        # The engine's run bound is Eq 13 itself (its merge rule's a_i); the level's capacity,
        # not a_i, stops it at floor(N_i/F) runs, which Structure.runs is (the cap).
        for field, ref_field in (("ratios", "ratios"), ("fractions", "fractions"),
                                 ("runs", "run_bound")):
            want = getattr(ref, ref_field)[j, :L]
            for i in range(L):
                if not _close(got[field][i], float(want[i])):
                    mismatches.append((j, field, i, got[field][i], float(want[i])))
    assert not mismatches, mismatches[:10]
    held = np.maximum(1.0, np.floor(ref.fractions * nbuf[:, None] * (1 + 1e-9)))
    want = np.where(ref.valid, np.minimum(ref.run_bound, held), 0.0)
    assert np.array_equal(ref.runs, want, equal_nan=True)


def test_figure_11_instance() -> None:
    """App. G: N/F = 131072, T=2, C=1, X=2 (QLSM-bush) gives L = 5 and runs 255, 15, 3, 1, 1."""
    s = _engine.structure(2, 1, 2, 1, 0, 131072, True)
    assert s["L"] == 5
    assert s["runs"] == [255, 15, 3, 1, 1]
    assert s["ratios"][:4] == pytest.approx([256, 16, 4, 2])
    # Buffer multiples N_i/F of Figure 11 (510, 7680, 24576, 32768, 65536).
    assert [f * 131072 for f in s["fractions"]] == pytest.approx([510, 7680, 24576, 32768, 65536])


def test_x_near_one_is_smooth() -> None:
    a = _engine.structure(5, 2, 1.0, 1, 0, 1e5, False)
    b = _engine.structure(5, 2, 1.0 + 1e-9, 1, 0, 1e5, False)
    assert a["L"] == b["L"]
    assert a["fractions"] == pytest.approx(b["fractions"], rel=1e-6)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(T=1.5, C=1, X=1, K=0, Z=0), "T"),
        (dict(T=4, C=0.5, X=1, K=0, Z=0), "C"),
        (dict(T=4, C=1, X=0.9, K=0, Z=0), "X"),
        (dict(T=4, C=1, X=1, K=1.5, Z=0), "K"),
        (dict(T=4, C=1, X=1, K=0, Z=-0.1), "Z"),
        (dict(T=float("nan"), C=1, X=1, K=0, Z=0), "T"),
        (dict(T=4, C=float("inf"), X=1, K=0, Z=0), "C"),
    ],
)
def test_invalid_designs_name_the_parameter(kwargs, name) -> None:
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        _engine.validate_design(**kwargs)


def _random_layouts(rng: np.random.Generator, n: int):
    for _ in range(n):
        L = int(rng.integers(1, 8))
        levels = rng.random(L) * 10 ** rng.uniform(0, 6, L)
        runs = np.maximum(1.0, np.floor(rng.random(L) * 30 * (rng.random(L) < 0.7) + 0.5))
        yield levels, runs


def test_lagrangian_allocation_satisfies_its_constraints() -> None:
    """The C++ solver: sum a_i p_i = p (target p) and the memory budget (target M), p_i <= 1,
    and stationarity a_i p_i proportional to n_i on every uncapped level."""
    rng = np.random.default_rng(7)
    ln2sq = math.log(2) ** 2
    for n, a in _random_layouts(rng, 400):
        p = float(rng.uniform(0.001, a.sum() * 1.2))
        fp = np.array(_engine.lagrangian_fprs_for_sum(list(n), list(a), p))
        assert np.all(fp <= 1 + 1e-12)
        assert float(np.sum(a * fp)) == pytest.approx(min(p, a.sum()), rel=1e-9)
        M = float(rng.uniform(0.05, 20))
        fm = np.array(_engine.lagrangian_fprs_for_memory(list(n), list(a), M))
        mem = float(np.sum(n * np.log(1 / fm)) / ln2sq / n.sum())
        assert mem == pytest.approx(M, rel=1e-9)
        unc = fm < 1
        if unc.sum() >= 2:
            share = a[unc] * fm[unc] / n[unc]
            assert share == pytest.approx(np.full(share.size, share[0]), rel=1e-9)


def test_lagrangian_matches_cost_models_filters() -> None:
    filters = pytest.importorskip("cost_models.filters")
    rng = np.random.default_rng(11)
    for n, a in _random_layouts(rng, 300):
        p = float(rng.uniform(0.001, a.sum()))
        want = np.asarray(filters.lagrangian_fprs_for_sum(n, a, p), dtype=float)
        got = np.array(_engine.lagrangian_fprs_for_sum(list(n), list(a), p))
        assert got == pytest.approx(want, rel=1e-7)
        M = float(rng.uniform(0.05, 20))
        want = np.asarray(filters.lagrangian_fprs_for_memory(n, a, M), dtype=float)
        got = np.array(_engine.lagrangian_fprs_for_memory(list(n), list(a), M))
        assert got == pytest.approx(want, rel=1e-7)


def test_uniform_matches_cost_models_filters() -> None:
    """structure.h UniformFprsFor* (the engine's filters="uniform") against
    cost_models.filters.uniform_fprs_for_* on random layouts and on the integer run bounds of
    random designs, including the edges: a sum equal to the total runs and a 0-bit budget."""
    filters = pytest.importorskip("cost_models.filters")
    rng = np.random.default_rng(13)
    T, C, X, K, Z, nbuf = _random_designs(rng, 300)
    shapes = [a for _, a in _random_layouts(rng, 300)]
    for j in range(T.size):
        shapes.append(
            np.array(_engine.structure(T[j], C[j], X[j], K[j], Z[j], nbuf[j], True)["runs"])
        )
    for a in shapes:
        total = float(a.sum())
        for p in (float(rng.uniform(0.001, total)), total, float(rng.uniform(1e-6, 1e-3))):
            want = np.asarray(filters.uniform_fprs_for_sum(a, p), dtype=float)
            got = np.array(_engine.uniform_fprs_for_sum(list(a), p))
            assert got == pytest.approx(want, rel=1e-12)
            assert float(np.sum(a * got)) == pytest.approx(p, rel=1e-9)
            assert np.all(got == got[0])  # one FPR for every run of every level
        for M in (float(rng.uniform(0.05, 20)), 0.0, 64.0):
            want = np.asarray(filters.uniform_fprs_for_memory(a, M), dtype=float)
            got = np.array(_engine.uniform_fprs_for_memory(list(a), M))
            assert got == pytest.approx(want, rel=1e-12)
            assert np.all(got == got[0])
    # Beyond the total runs (which the Python model rejects) the engine caps every FPR at 1,
    # like its Lagrangian allocation; bad budgets raise ValueError naming the parameter.
    assert _engine.uniform_fprs_for_sum([1.0, 3.0], 10.0) == [1.0, 1.0]
    assert _engine.uniform_fprs_for_memory([1.0, 3.0], 0.0) == [1.0, 1.0]
    with pytest.raises(ValueError, match="sum_fpr"):
        _engine.uniform_fprs_for_sum([1.0], 0.0)
    with pytest.raises(ValueError, match="bits_per_entry"):
        _engine.uniform_fprs_for_memory([1.0], -1.0)
