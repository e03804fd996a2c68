"""The weighted Lagrangian filter allocation (filters under skewed reads, docs/MODEL.md).

Probe weights w_i turn the objective into sum_i w_i a_i p_i: uniform weights must be today's
allocation bit for bit and errata 2's closed form when no cap binds; random weights (zeros
included) must beat scipy's SLSQP; the memory direction depends only on the weights' ratios; bad
weights raise ValueError naming ``weights``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from cost_models import filters
from cost_models.filters import LN2_SQ
from cost_models.structure import structure

FAST = settings(max_examples=40, deadline=None)
MEMORY = st.one_of(st.floats(0.0, 0.5), st.floats(0.5, 25.0))


@st.composite
def layouts(draw, min_levels: int = 2, max_levels: int = 12):
    """n_i (fractions over six decades) and whole a_i (1 to 1000), as in test_cost_models."""
    levels = draw(st.integers(min_levels, max_levels))
    log_n = draw(st.lists(st.floats(-6.0, 0.0), min_size=levels, max_size=levels))
    log_a = draw(st.lists(st.floats(0.0, 3.0), min_size=levels, max_size=levels))
    return 10.0 ** np.array(log_n), np.round(10.0 ** np.array(log_a))


@st.composite
def weighted_layouts(draw):
    """A layout and probe weights over six decades, some of them 0 (levels no read probes)."""
    n, a = draw(layouts())
    weight = st.one_of(st.just(0.0), st.floats(-3.0, 3.0).map(lambda x: 10.0**x))
    w = np.array(draw(st.lists(weight, min_size=n.size, max_size=n.size)))
    return n, a, w


def _scipy_min_weighted(n: np.ndarray, a: np.ndarray, w: np.ndarray, bits: float) -> float:
    """min sum w_i a_i p_i s.t. sum n_i ln(1/p_i)/ln(2)^2 <= bits * sum n_i, 0 < p_i <= 1.

    Solved in x_i = ln p_i (convex there); returns the objective at a feasible point.
    """
    c = w * a
    budget = bits * LN2_SQ * n.sum()
    x0 = np.full(n.size, -budget / n.sum())
    res = minimize(
        lambda x: np.sum(c * np.exp(x)),
        x0,
        jac=lambda x: c * np.exp(x),
        method="SLSQP",
        bounds=[(-200.0, 0.0)] * n.size,
        constraints=[{"type": "ineq", "fun": lambda x: budget + n @ x, "jac": lambda x: n}],
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    x = np.minimum(res.x, 0.0)
    # Make scipy's answer feasible before comparing: take the excess back from the levels that
    # still have a filter (raising a level already at p = 1 would free no memory).
    for _ in range(100):
        overspend = -(budget + n @ x)
        if overspend <= 0:
            break
        free = x < 0
        x = np.where(free, np.minimum(x + overspend / n[free].sum(), 0.0), x)
    return float(np.sum(c * np.exp(x)))


# ------------------------------------------------------------------------------------------
# Uniform weights are today's allocation
# ------------------------------------------------------------------------------------------


@FAST
@given(layout=layouts(), bits=MEMORY, u=st.floats(1e-6, 1.0))
def test_uniform_weights_reproduce_the_unweighted_allocation_exactly(layout, bits, u) -> None:
    n, a = layout
    p = u * float(a.sum())
    for ones in (np.ones_like(n), 1.0):
        np.testing.assert_array_equal(
            filters.lagrangian_fprs_for_memory(n, a, bits, weights=ones),
            filters.lagrangian_fprs_for_memory(n, a, bits),
        )
        np.testing.assert_array_equal(
            filters.lagrangian_fprs_for_sum(n, a, p, weights=ones),
            filters.lagrangian_fprs_for_sum(n, a, p),
        )
    fprs = filters.lagrangian_fprs_for_memory(n, a, bits)
    np.testing.assert_array_equal(
        filters.expected_weighted_false_positives(a, fprs, np.ones_like(n)),
        filters.sum_fpr(a, fprs),
    )


@settings(max_examples=10, deadline=None)
@given(batch=st.lists(st.tuples(layouts(), MEMORY, st.floats(1e-6, 1.0)), min_size=2, max_size=6))
def test_uniform_weights_reproduce_the_unweighted_batch_with_padding(batch) -> None:
    width = max(n.size for (n, _), _, _ in batch)
    pad = lambda v: np.pad(v, (0, width - v.size))  # noqa: E731 - padding levels have n_i = 0
    n_all = np.stack([pad(n) for (n, _), _, _ in batch])
    a_all = np.stack([pad(a) for (_, a), _, _ in batch])
    bits = np.array([m for _, m, _ in batch])
    p = np.array([u * a.sum() for (_, a), _, u in batch])
    ones = np.ones(width)
    np.testing.assert_array_equal(
        filters.lagrangian_fprs_for_memory(n_all, a_all, bits, ones),
        filters.lagrangian_fprs_for_memory(n_all, a_all, bits),
    )
    np.testing.assert_array_equal(
        filters.lagrangian_fprs_for_sum(n_all, a_all, p, ones),
        filters.lagrangian_fprs_for_sum(n_all, a_all, p),
    )


@FAST
@given(
    T=st.floats(2.0, 20.0),
    C=st.floats(1.0, 20.0),
    X=st.floats(1.0, 3.0),
    K=st.floats(0.0, 1.0),
    Z=st.floats(0.0, 1.0),
    log2_n=st.floats(4.0, 40.0),
    u=st.floats(1e-6, 1.0),
    scale=st.floats(-3.0, 3.0).map(lambda x: 10.0**x),
)
def test_uniform_weights_without_a_binding_cap_are_eq12_errata2(T, C, X, K, Z, log2_n, u, scale):
    s = structure(T, C, X, K, Z, 2.0**log2_n)
    # Eq 12 is defined for p < (C+1)/C a_L; below that the cap must bind at no level.
    p = u * float((C + 1.0) / C * s.at_largest(s.runs))
    assume(p < float((C + 1.0) / C * s.at_largest(s.runs)))
    closed = filters.closed_form_fprs(s, p)
    assume(np.all(closed[s.valid] < 1.0 - 1e-9))
    w = np.full(s.runs.shape, scale)
    # Eq 9's fractions of a finite tree sum to slightly less than 1, so Eq 12's sum of FPRs is
    # p sum_i N_i/N; the budget is weighted: sum_i w a_i p_i = w times that sum.
    p_sum = float(filters.sum_fpr(s.runs, closed))
    by_sum = filters.lagrangian_fprs_for_sum(s.fractions, s.runs, scale * p_sum, weights=w)
    np.testing.assert_allclose(by_sum[s.valid], closed[s.valid], rtol=1e-9)
    bits = filters.memory_bits_per_entry(s.fractions, closed)
    by_memory = filters.lagrangian_fprs_for_memory(s.fractions, s.runs, bits, weights=w)
    np.testing.assert_allclose(by_memory[s.valid], closed[s.valid], rtol=1e-8)


@FAST
@given(layout=layouts(), u=st.floats(1e-6, 1.0 - 1e-9))
def test_uniform_weights_give_shares_proportional_to_entries(layout, u) -> None:
    """a_i p_i = p N_i / N (errata 2) on any layout, for p below every level's cap."""
    n, a = layout
    p = u * float(np.min(a * n.sum() / n))  # p N_i / N < a_i: no p_i reaches 1
    fprs = filters.lagrangian_fprs_for_sum(n, a, p, weights=np.ones_like(n))
    np.testing.assert_allclose(a * fprs, p * n / n.sum(), rtol=1e-9)


# ------------------------------------------------------------------------------------------
# Random weights: optimality, KKT and the constraints
# ------------------------------------------------------------------------------------------


@FAST
@given(layout=weighted_layouts(), bits=MEMORY)
def test_weighted_allocation_beats_slsqp_and_meets_the_memory_budget(layout, bits) -> None:
    n, a, w = layout
    fprs = filters.lagrangian_fprs_for_memory(n, a, bits, weights=w)
    assert np.all((fprs >= 0) & (fprs <= 1.0))
    assert np.all(fprs[w == 0] == 1.0)  # never probed: no filter
    if np.all(fprs > 0):  # a tiny level alone can get bits enough to underflow p_i to 0
        used = float(filters.memory_bits_per_entry(n, fprs))
        # Any probed level turns spare memory into fewer false positives: the budget is spent.
        expect = bits if np.any(w > 0) else 0.0
        assert used == pytest.approx(expect, rel=1e-9, abs=1e-12)
    ours = float(filters.expected_weighted_false_positives(a, fprs, w))
    assert ours == pytest.approx(float(np.sum(w * a * fprs)), rel=1e-12)
    assert ours <= _scipy_min_weighted(n, a, w, bits) * (1 + 1e-6) + 1e-12
    # No worse than the unweighted optimum (or uniform FPRs) priced under the same weights.
    for other in (
        filters.lagrangian_fprs_for_memory(n, a, bits),
        filters.uniform_fprs_for_memory(a, bits),
    ):
        assert ours <= float(filters.expected_weighted_false_positives(a, other, w)) * (1 + 1e-12)
    # Stationarity: w_i a_i p_i = mu n_i where uncapped; capped levels have w_i a_i / n_i <= mu.
    uncapped = fprs < 1.0
    if uncapped.any():
        shares = (w * a * fprs / n)[uncapped]
        assert np.allclose(shares, shares[0], rtol=1e-9)
        assert np.all((w * a / n)[~uncapped] <= shares[0] * (1 + 1e-9))


@FAST
@given(
    layout=weighted_layouts(), u=st.floats(1e-6, 1.0), at_break=st.booleans(), k=st.integers(0, 11)
)
def test_weighted_round_trip_sum_to_memory_to_sum(layout, u, at_break, k) -> None:
    n, a, w = layout
    c = w * a
    assume(c.sum() > 0)
    if at_break:  # exactly where the k-th cheapest level starts to cap: mu = w_k a_k / n_k
        mu = np.sort(c / n)[min(k, n.size - 1)]
        p = float(np.sum(np.minimum(c, mu * n)))
        assume(p > 0)
    else:
        p = u * float(c.sum())
    fprs = filters.lagrangian_fprs_for_sum(n, a, p, weights=w)
    assert np.all(fprs[w == 0] == 1.0)
    got = float(filters.expected_weighted_false_positives(a, fprs, w))
    # Exact up to rounding, which grows with the spread of w a / n (a random run found 4e-9
    # with weights from 1e-3 to 10 and 1 to 100 runs).
    assert got == pytest.approx(p, rel=1e-8)
    bits = filters.memory_bits_per_entry(n, fprs)
    back = filters.lagrangian_fprs_for_memory(n, a, bits, weights=w)
    assert np.allclose(back, fprs, rtol=1e-8, atol=1e-300)


@FAST
@given(layout=weighted_layouts(), bits=MEMORY, u=st.floats(1e-6, 1.0), log_k=st.floats(-6.0, 6.0))
def test_scaling_the_weights_changes_nothing_but_the_sum_budget(layout, bits, u, log_k) -> None:
    n, a, w = layout
    scale = 10.0**log_k
    np.testing.assert_allclose(
        filters.lagrangian_fprs_for_memory(n, a, bits, weights=scale * w),
        filters.lagrangian_fprs_for_memory(n, a, bits, weights=w),
        rtol=1e-9,
        atol=1e-300,
    )
    assume(np.sum(w * a) > 0)
    p = u * float(np.sum(w * a))
    np.testing.assert_allclose(
        filters.lagrangian_fprs_for_sum(n, a, scale * p, weights=scale * w),
        filters.lagrangian_fprs_for_sum(n, a, p, weights=w),
        rtol=1e-9,
        atol=1e-300,
    )


@settings(max_examples=10, deadline=None)
@given(layout=layouts(), rows=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), bits=MEMORY)
def test_a_batch_of_weights_equals_one_solve_per_row(layout, rows, seed, bits) -> None:
    """Weights broadcast like the per-level arrays: (rows, L) weights over one (L,) layout."""
    n, a = layout
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.0, 2.0, (rows, n.size)) * (rng.random((rows, n.size)) > 0.2)
    p = rng.uniform(0.01, 1.0, rows) * np.maximum(np.sum(w * a, axis=-1), 1e-300)
    by_m = filters.lagrangian_fprs_for_memory(n, a, bits, weights=w)
    by_p = filters.lagrangian_fprs_for_sum(n, a, p, weights=w)
    assert by_m.shape == by_p.shape == (rows, n.size)
    for r in range(rows):
        np.testing.assert_array_equal(by_m[r], filters.lagrangian_fprs_for_memory(n, a, bits, w[r]))
        np.testing.assert_array_equal(by_p[r], filters.lagrangian_fprs_for_sum(n, a, p[r], w[r]))


# ------------------------------------------------------------------------------------------
# Levels no read probes
# ------------------------------------------------------------------------------------------

N = np.array([1e-4, 1e-2, 0.3, 0.7])
A = np.array([255.0, 15.0, 3.0, 1.0])


def test_zero_weight_levels_get_no_filter_and_leave_the_memory_to_the_others() -> None:
    w = np.array([1.0, 0.0, 1.0, 0.0])
    for bits in (0.5, 5.0):
        fprs = filters.lagrangian_fprs_for_memory(N, A, bits, weights=w)
        assert fprs[1] == 1.0 and fprs[3] == 1.0
        assert float(filters.memory_bits_per_entry(N, fprs)) == pytest.approx(bits, rel=1e-9)
    # 1e4 bits underflows mu to 0: 0 * n / (w a) would be NaN at the unprobed levels.
    assert filters.lagrangian_fprs_for_memory(N, A, 1e4, weights=w).tolist() == [0.0, 1.0, 0.0, 1.0]
    fprs = filters.lagrangian_fprs_for_sum(N, A, 0.01, weights=w)
    assert fprs[1] == 1.0 and fprs[3] == 1.0
    assert float(filters.expected_weighted_false_positives(A, fprs, w)) == pytest.approx(0.01)


def test_all_weights_zero_means_no_filters_anywhere() -> None:
    w = np.zeros(4)
    for bits in (0.0, 5.0, 1e4):
        assert filters.lagrangian_fprs_for_memory(N, A, bits, weights=w).tolist() == [1.0] * 4
    for p in (1e-6, 1.0, 1e6):  # never probed: no filter at any budget
        assert filters.lagrangian_fprs_for_sum(N, A, p, weights=w).tolist() == [1.0] * 4
    # In a batch, only the all-zero row is exempt from the upper bound on p.
    w2 = np.array([[0.0] * 4, [1.0] * 4])
    out = filters.lagrangian_fprs_for_sum(N, A, np.array([50.0, 0.1]), weights=w2)
    assert out[0].tolist() == [1.0] * 4 and np.all(out[1] < 1.0)
    with pytest.raises(ValueError, match="sum_fpr"):
        filters.lagrangian_fprs_for_sum(N, A, np.array([0.1, 1e3]), weights=w2)


def test_skew_moves_memory_to_the_levels_reads_probe() -> None:
    """Existing-key reads of hot keys stop in the upper levels, so Level L is probed less."""
    uniform = filters.lagrangian_fprs_for_memory(N, A, 5.0)
    skewed = filters.lagrangian_fprs_for_memory(N, A, 5.0, weights=[1.0, 1.0, 0.5, 0.1])
    assert skewed[-1] > uniform[-1]  # fewer bits where fewer reads look
    assert np.all(skewed[:2] < uniform[:2])


# ------------------------------------------------------------------------------------------
# Bad weights name the parameter
# ------------------------------------------------------------------------------------------

BAD_WEIGHTS = [
    np.array([1.0, -0.5, 1.0, 1.0]),
    np.array([1.0, math.nan, 1.0, 1.0]),
    np.array([1.0, math.inf, 1.0, 1.0]),
    -1.0,
    np.ones(3),  # wrong number of levels
    np.ones((2, 3)),
    ["heavy", 1.0, 1.0, 1.0],
]


@pytest.mark.parametrize(
    "bad", BAD_WEIGHTS, ids=["negative", "nan", "inf", "scalar<0", "3", "2x3", "text"]
)
def test_bad_weights_raise_value_errors_naming_weights(bad) -> None:
    with pytest.raises(ValueError, match="weights"):
        filters.lagrangian_fprs_for_memory(N, A, 5.0, weights=bad)
    with pytest.raises(ValueError, match="weights"):
        filters.lagrangian_fprs_for_sum(N, A, 0.1, weights=bad)
    with pytest.raises(ValueError, match="weights"):
        filters.expected_weighted_false_positives(A, np.full(4, 0.1), bad)


def test_a_weighted_sum_above_its_range_names_sum_fpr() -> None:
    w = np.array([1.0, 1.0, 0.5, 0.0])
    with pytest.raises(ValueError, match="sum_fpr"):
        filters.lagrangian_fprs_for_sum(N, A, float(np.sum(w * A)) * 1.01, weights=w)
    top = filters.lagrangian_fprs_for_sum(N, A, float(np.sum(w * A)), weights=w)
    assert top.tolist() == [1.0] * 4
