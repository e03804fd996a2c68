"""The sympy derivations (cost_models.symbolic) and the numeric layer checked against each other.

Symbolic tests re-derive the paper's closed forms (and its errata); numeric tests evaluate the
lambdified derivations on random designs and compare with the hand-written numpy code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from cost_models import filters, memory
from cost_models import symbolic as sym
from cost_models.structure import levels_real, structure

FAST = settings(max_examples=40, deadline=None)
RTOL = 1e-9

T_S = st.floats(2.0, 20.0)
C_S = st.floats(1.0, 20.0)
UNIT = st.floats(0.0, 1.0)
X_BUSH = st.floats(1.1, 3.0)
LOG2_BUFFERS = st.floats(4.0, 40.0)


def _depths(s) -> np.ndarray:
    """Depth d = L - i of every level slot (0 at Level L, negative for padding)."""
    return s.L[..., None] - np.arange(1, s.valid.shape[-1] + 1)


# ------------------------------------------------------------------------------------------
# (a) App. C: Lagrangian, Eq 12 and Eq 23
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [2, 3, 4])
def test_lagrangian_stationarity_gives_equal_shares(levels: int) -> None:
    sol = sym.lagrangian_stationarity(levels)
    ls = sym.level_symbols(levels)
    # a_i p_i / n_i is the same at every level (Eq 20-22: all equal 1/(lambda ln(2)^2)).
    assert all(sp.simplify(s - sol.shares[0]) == 0 for s in sol.shares[1:])
    assert sp.simplify(sol.shares[0] - 1 / (sym.lam * sym.LN2_SQ)) == 0
    # With the constraint: a_i p_i = p n_i / sum_j n_j, and the shares add up to p.
    total_n = sum(ls.n)
    for level_fpr, n_i in zip(sol.level_fprs, ls.n, strict=True):
        assert sp.simplify(level_fpr - sym.p * n_i / total_n) == 0
    assert sp.simplify(sum(sol.level_fprs) - sym.p) == 0
    # The stationary point is a minimum: memory is strictly convex in each p_i.
    for p_i in ls.p:
        second = sp.diff(sol.lagrangian, p_i, 2).subs(dict(zip(ls.p, sol.fprs, strict=True)))
        assert sp.simplify(second).is_positive


def test_app_a_and_geometric_exponent_sum() -> None:
    assert sp.simplify(sym.exponent_sum_derived() - sym.exponent_sum(sym.D)) == 0
    assert sym.is_zero(sym.fraction_from_app_a() - sym.fraction_small())


def test_smaller_levels_telescope_to_one_over_c_plus_one() -> None:
    assert sym.telescoping_residual() == 0
    assert sp.simplify(sym.small_levels_total_limit() - 1 / (sym.C + 1)) == 0
    # The telescoped finite sum against a direct numeric sum of Eq 9.
    frac = sym.fraction_small_fn()
    total = sp.lambdify((sym.T, sym.C, sym.X, sym.D), sym.small_levels_total())
    for T, C, X, depth in [(2.0, 1.0, 2.0, 4), (3.5, 2.5, 1.3, 9), (10.0, 9.0, 1.01, 6)]:
        direct = sum(frac(T, C, X, k) for k in range(1, depth + 1))
        assert direct == pytest.approx(total(T, C, X, depth), rel=1e-12)


def test_eq12_errata_is_the_lagrangian_optimum() -> None:
    assert sym.is_zero(sym.eq12_fpr_small_derived() - sym.eq12_fpr_small_errata())


def test_printed_eq12_does_not_reproduce_figure_11() -> None:
    # Printed Eq 12 has r_(i-1)/r_i where errata 2 has (r_i - 1)/r_i. At Figure 11's Level 3
    # (T=2, C=1, X=2, depth 2, so r_3 = 4 and r_2 = 16) errata 2 gives the printed 1.88%.
    r = sym.ratio_small()
    printed = (
        sym.p
        / sym.a
        / (sym.C + 1)
        * r.subs(sym.d, sym.d + 1)
        / r
        * (sym.T / r) ** (1 / (sym.X - 1))
    )
    point = {sym.T: 2, sym.C: 1, sym.X: 2, sym.d: 2, sym.p: sp.Rational(1, 10), sym.a: 3}
    errata_level_fpr = 3 * sym.eq12_fpr_small_errata().subs(point)
    assert round(100 * float(errata_level_fpr), 2) == 1.88
    assert abs(100 * float(3 * printed.subs(point)) - 1.88) > 1


def test_eq23_largest_level() -> None:
    expected = sym.p / sym.a_L * sym.C / (sym.C + 1)
    assert sp.simplify(sym.eq23_fpr_largest_derived() - expected) == 0
    # Finitely many levels store less than N, so their exact optimum gives Level L a little more.
    finite = sym.finite_share_largest_fn()
    assert finite(2.0, 1.0, 2.0, 0.1, 5) > 0.1 * 1 / 2
    assert finite(2.0, 1.0, 2.0, 0.1, 12) == pytest.approx(0.05, rel=1e-12)


# ------------------------------------------------------------------------------------------
# (b) App. D: series, errata 4 memory, Eq 25, finite-L tail
# ------------------------------------------------------------------------------------------


def test_geometric_and_arithmetico_geometric_series() -> None:
    geometric, arithmetico = sym.geometric_sums()
    assert sp.simplify(geometric - sym.T / (sym.T - 1)) == 0
    assert sp.simplify(arithmetico - sym.T / (sym.T - 1) ** 2) == 0


def test_memory_derivation_equals_errata_4() -> None:
    assert sym.memory_cll_residual() == 0


def test_printed_eq6_is_not_the_cll_memory() -> None:
    # Eq 6 as printed lost its exponents; at K=1, Z=0 it disagrees with the derived sum.
    cll = {sym.K: 1, sym.Z: 0, sym.T: 10, sym.C: 2, sym.p: sp.Rational(1, 10)}
    derived = float(sym.memory_cll_derived().subs(cll))
    printed = float(sym.memory_cll_printed_eq6().subs(cll))
    assert abs(derived - printed) > 0.5


def test_eq25_is_eq24_solved_for_p() -> None:
    # Both sides are positive, so compare their logarithms (sympy expands those reliably).
    assert sym.is_zero(sp.log(sym.sum_fpr_cll_derived()) - sp.log(sym.sum_fpr_cll_errata()))
    back = sym.memory_cll_derived().subs(sym.p, sym.sum_fpr_cll_derived())
    assert sym.is_zero(back - sym.M)


@FAST
@given(T=T_S, C=C_S, K=UNIT, Z=UNIT, u=st.floats(1e-6, 0.99))
def test_closed_form_memory_and_sum_fpr_match_sympy(T, C, K, Z, u) -> None:
    upper = (C + 1) / C * C**Z  # domain of the closed form: every level keeps a filter
    p = u * upper
    m = memory.closed_form_memory_cll(T, C, K, Z, p)
    assert m == pytest.approx(sym.memory_cll_fn()(T, C, K, Z, p), rel=RTOL, abs=1e-12)
    assert memory.closed_form_sum_fpr_cll(T, C, K, Z, m) == pytest.approx(
        sym.sum_fpr_cll_fn()(T, C, K, Z, m), rel=1e-8
    )


@FAST
@given(T=T_S, C=C_S, K=UNIT, Z=UNIT, p=st.floats(1e-4, 1.0), log2_n=LOG2_BUFFERS)
def test_exact_memory_gap_is_the_series_tail(T, C, K, Z, p, log2_n) -> None:
    s = structure(T, C, 1.0, K, Z, 2.0**log2_n, capped=False)
    exact = memory.exact_memory(s, filters.closed_form_fprs(s, p))
    gap = memory.closed_form_memory_cll(T, C, K, Z, p) - exact
    tail = sym.memory_cll_tail_fn()(T, C, K, Z, p, int(s.L))
    assert gap == pytest.approx(tail, rel=1e-6, abs=1e-9)


# ------------------------------------------------------------------------------------------
# (c) X -> 1 limits and the numeric structure
# ------------------------------------------------------------------------------------------


def test_eq10_derived_from_app_b_matches_printed() -> None:
    assert sym.is_zero(sym.levels_real_derived() - sym.levels_real_printed())


def test_cll_limits_match_eq1_eq3_and_errata_3() -> None:
    limits, stated = sym.cll_limits(), sym.cll_errata3()
    for got, want in zip(limits, stated, strict=True):
        assert sym.is_zero(got - want)
    # Errata 3's p_i = p/(C+1) T^-(L-i) is the per-run FPR for CLL's K = 1, a_i = T - 1.
    assert sym.is_zero(limits.fpr.subs(sym.K, 1) - sym.p / (sym.C + 1) * sym.T**-sym.d)
    # ... and its capacities N_i = N/(C+1) (T-1)/T T^-(L-i-1).
    assert sym.is_zero(limits.fraction - (sym.T - 1) / sym.T * sym.T ** -(sym.d - 1) / (sym.C + 1))


@FAST
@given(T=T_S, C=C_S, K=UNIT, Z=UNIT, log2_n=LOG2_BUFFERS)
def test_structure_at_x1_matches_cll_limits(T, C, K, Z, log2_n) -> None:
    n = 2.0**log2_n
    s = structure(T, C, 1.0, K, Z, n, capped=False)
    lim = sym.cll_limit_fns()
    assert levels_real(T, C, 1.0, n) == pytest.approx(lim.levels_real(T, C, n), rel=RTOL)
    depth = _depths(s)[0 : int(s.L) - 1]
    assert np.allclose(s.fractions[: s.L - 1], lim.fraction(T, C, depth), rtol=RTOL, atol=0)
    assert np.allclose(s.ratios[: s.L - 1], lim.ratio(T, depth), rtol=RTOL)
    assert np.allclose(s.runs[: s.L - 1], (T - 1) ** K, rtol=RTOL)


@FAST
@given(T=st.floats(2.0, 10.0), C=C_S, X=X_BUSH, K=UNIT, Z=UNIT, log2_n=st.floats(4.0, 30.0))
def test_structure_at_x_above_1_matches_eq8_9_10_13(T, C, X, K, Z, log2_n) -> None:
    n = 2.0**log2_n
    s = structure(T, C, X, K, Z, n, capped=False)
    with np.errstate(invalid="ignore"):
        want_levels = sym.levels_real_fn()(T, C, X, n)
    if np.isnan(want_levels):
        # Too little data for Eq 10's outer log: (X-1) log_T(...) + 1 <= 0. The numeric code
        # maps that to -inf, i.e. a single level.
        assert levels_real(T, C, X, n) == -np.inf and s.L == 1
    else:
        assert levels_real(T, C, X, n) == pytest.approx(want_levels, rel=RTOL)
        assert s.L == max(1, math.ceil(want_levels - 1e-9 * max(1.0, abs(want_levels))))
    depth = _depths(s)[0 : int(s.L) - 1]
    small = slice(0, int(s.L) - 1)
    assert np.allclose(s.fractions[small], sym.fraction_small_fn()(T, C, X, depth), rtol=1e-8)
    assert np.allclose(s.ratios[small], sym.ratio_small_fn()(T, X, depth), rtol=RTOL)
    assert np.allclose(s.runs[small], sym.runs_small_fn()(T, X, K, depth), rtol=1e-8)
    assert s.fractions[s.L - 1] == pytest.approx(C / (C + 1), rel=RTOL)
    assert s.runs[s.L - 1] == pytest.approx(C**Z, rel=RTOL)


@pytest.mark.parametrize("X", [1 + 1e-9, 1 + 1e-6, 1 + 1e-3])
def test_structure_near_x1_matches_high_precision_eq9(X: float) -> None:
    # Near X = 1, Eq 9 in float64 cancels catastrophically ((T/r)^(1/(X-1)) with r ~ T); the
    # numeric code must still match Eq 9 evaluated with 50 digits, not just the CLL limit.
    T, C, n = 3.0, 2.0, 2.0**40
    s = structure(T, C, X, 1.0, 0.0, n, capped=False)
    x = sp.Float(X, 50)
    for depth in range(1, int(s.L)):
        at = {sym.T: 3, sym.C: 2, sym.X: x, sym.d: depth}
        want = float(sym.fraction_small().subs(at).evalf(50))
        assert s.fractions[int(s.L) - 1 - depth] == pytest.approx(want, rel=1e-9)
    want_levels = float(sym.levels_real_printed().subs({**at, sym.N: n, sym.F: 1}).evalf(50))
    assert levels_real(T, C, X, n) == pytest.approx(want_levels, rel=1e-9)


@FAST
@given(
    T=st.floats(2.0, 10.0),
    C=C_S,
    X=st.one_of(st.just(1.0), X_BUSH),
    K=UNIT,
    Z=UNIT,
    u=st.floats(1e-4, 0.99),
    log2_n=st.floats(4.0, 30.0),
)
def test_closed_form_fprs_match_symbolic_eq12_eq23(T, C, X, K, Z, u, log2_n) -> None:
    s = structure(T, C, X, K, Z, 2.0**log2_n, capped=False)
    p = u * (C + 1) / C * C**Z
    got = filters.closed_form_fprs(s, p)
    depth = _depths(s)[0 : int(s.L) - 1]
    if X == 1.0:
        want = sym.cll_limit_fns().fpr(T, C, K, p, depth)
    else:
        want = sym.fpr_small_fn()(T, C, X, K, p, depth)
    assert np.allclose(got[: s.L - 1], want, rtol=1e-8, atol=0)
    assert got[s.L - 1] == pytest.approx(sym.fpr_largest_fn()(C, Z, p), rel=RTOL)


@FAST
@given(
    T=st.floats(2.0, 10.0),
    C=C_S,
    X=st.one_of(st.just(1.0), X_BUSH),
    K=UNIT,
    Z=st.just(0.0),
    p=st.floats(1e-4, 0.99),
    log2_n=st.floats(4.0, 30.0),
)
def test_numeric_lagrangian_on_eq9_layout(T, C, X, K, Z, p, log2_n) -> None:
    # With a_L = 1, a_i >= 1 and p < 1 no level caps: every level is a stationary point (App. C).
    s = structure(T, C, X, K, Z, 2.0**log2_n, capped=False)
    fprs = filters.lagrangian_fprs_for_sum(s.fractions, s.runs, p)
    valid = s.valid
    shares = (s.runs * fprs / s.fractions)[valid]
    assert np.all(fprs[valid] < 1)
    assert np.allclose(shares, shares[0], rtol=1e-10)
    if X != 1.0:  # the finite-level share of Level L from the telescoped sum
        want = sym.finite_share_largest_fn()(T, C, X, p, int(s.L))
        assert s.runs[s.L - 1] * fprs[s.L - 1] == pytest.approx(want, rel=1e-9)
