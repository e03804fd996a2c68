"""Symbolic (sympy) derivations of the closed forms that :mod:`cost_models` evaluates numerically.

Every function is pure and cached (``functools.cache``) and returns immutable sympy objects, so
the derivations run once per process. The numeric layer never imports this module: it exists so
the tests can check the hand-written numpy formulas against an independent derivation, and so the
errata in ``docs/ERRATA.md`` are re-derived rather than taken on trust.

Conventions (paper's names): T base ratio, C capping ratio, X growth exponential, K and Z merge
greed, p sum of FPRs, N data size, F buffer size, M filter bits per entry. A level below Level L is
addressed by its depth d = L - i >= 1 (d = 1 is Level L-1), which is what makes "a generic level"
expressible with one integer symbol.

Contents:

* (a) App. C: the Lagrangian's stationarity conditions for a generic number of levels (a_i p_i is
  proportional to n_i), then Eq 12 (errata 2) and Eq 23 for the Eq 9 layout.
* (b) App. D: the geometric and arithmetico-geometric series, the X -> 1 memory M (errata 4,
  Eq 24) summed over infinitely many levels, Eq 25, and the finite-L tail of that sum.
* (c) The X -> 1 limits of Eq 8, 9, 10 and 12, against Eq 1, 3 and errata 3.
* (d) The finite-N model's sums (docs/MODEL.md M2-M6): a level's runs and writes over its fill,
  Level L's geometric run and cycle sums, q_L, and the phase density.
* ``*_fn`` helpers: numpy-lambdified versions for the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import sympy as sp

# Knobs and sizes are positive reals; T > 1 and X >= 1 are imposed where a derivation needs them
# (by substituting T = 1 + t and X = 1 + s with t, s > 0), because sympy has no "> 1" assumption.
T, C, X, K, Z, p, N, F = sp.symbols("T C X K Z p N F", positive=True)
M = sp.Symbol("M", real=True)
lam = sp.Symbol("lambda", positive=True)
d = sp.Symbol("d", integer=True, positive=True)  # depth L - i of a level below Level L
j = sp.Symbol("j", integer=True, nonnegative=True)  # series index j = L - i - 1 (App. D)
L = sp.Symbol("L", integer=True, positive=True)
D = sp.Symbol("D", integer=True, nonnegative=True)  # number of levels below Level L
a = sp.Symbol("a", positive=True)  # runs a_i at a generic smaller level
a_L = sp.Symbol("a_L", positive=True)
_t = sp.Symbol("t", positive=True)  # T - 1
_s = sp.Symbol("s", positive=True)  # X - 1
LN2_SQ = sp.log(2) ** 2


def _with_t(expr: sp.Expr) -> sp.Expr:
    """Rewrite in t = T - 1 > 0 so sympy knows the series in 1/T converge."""
    return expr.subs(T, 1 + _t)


def _without_t(expr: sp.Expr) -> sp.Expr:
    return expr.subs(_t, T - 1)


def _log_expand(expr: sp.Expr) -> sp.Expr:
    # force=True is sound here: every logarithm's argument is a positive quantity (T > 1, C > 0,
    # p > 0), which sympy cannot infer for expressions such as T - 1.
    return sp.expand(sp.expand_log(expr, force=True))


def is_zero(expr: sp.Expr) -> bool:
    """True when ``expr`` simplifies to 0 (after expanding logarithms of positive quantities)."""
    return sp.simplify(_log_expand(sp.powsimp(sp.expand(expr), force=True))) == 0


# --------------------------------------------------------------------------------------------
# (a) App. C: Lagrangian stationarity, Eq 12 and Eq 23
# --------------------------------------------------------------------------------------------


class LevelSymbols(NamedTuple):
    n: tuple[sp.Symbol, ...]  # entries n_i at each level
    a: tuple[sp.Symbol, ...]  # runs a_i
    p: tuple[sp.Symbol, ...]  # FPR p_i of each run


@cache
def level_symbols(levels: int) -> LevelSymbols:
    """Per-level symbols n_i, a_i, p_i for i = 1..levels (all positive)."""
    if levels < 1:
        raise ValueError(f"levels must be >= 1; got {levels}")
    make = lambda name: tuple(sp.Symbol(f"{name}_{i}", positive=True)  # noqa: E731
                              for i in range(1, levels + 1))
    return LevelSymbols(make("n"), make("a"), make("p"))


class LagrangianSolution(NamedTuple):
    lagrangian: sp.Expr
    fprs: tuple[sp.Expr, ...]  # p_i solving d(Lagrangian)/d(p_i) = 0, in terms of lambda
    shares: tuple[sp.Expr, ...]  # a_i p_i / n_i at the stationary point (all equal)
    multiplier: sp.Expr  # lambda fixed by the constraint sum_i a_i p_i = p
    level_fprs: tuple[sp.Expr, ...]  # a_i p_i in terms of p: p n_i / sum_j n_j


@cache
def lagrangian_stationarity(levels: int = 4) -> LagrangianSolution:
    """App. C (Eq 19-22) for ``levels`` generic levels. Lagrangian = sum_i n_i ln(1/p_i)/ln(2)^2
    + lambda (sum_i a_i p_i - p). Setting each partial derivative to 0 gives p_i = n_i / (lambda
    a_i ln(2)^2), so a_i p_i / n_i = 1/(lambda ln(2)^2) at every level; the constraint then gives
    a_i p_i = p n_i / sum_j n_j."""
    sym = level_symbols(levels)
    lagr = (sum(n_i * sp.log(1 / p_i) / LN2_SQ for n_i, p_i in zip(sym.n, sym.p, strict=True))
            + lam * (sum(a_i * p_i for a_i, p_i in zip(sym.a, sym.p, strict=True)) - p))
    stationary = [sp.Eq(sp.diff(lagr, p_i), 0) for p_i in sym.p]
    solution = sp.solve(stationary, list(sym.p), dict=True)
    if len(solution) != 1:
        raise ArithmeticError(f"expected a unique stationary point, got {solution}")
    fprs = tuple(sp.simplify(solution[0][p_i]) for p_i in sym.p)
    shares = tuple(sp.simplify(a_i * f / n_i)
                   for a_i, f, n_i in zip(sym.a, fprs, sym.n, strict=True))
    constraint = sp.Eq(sum(a_i * f for a_i, f in zip(sym.a, fprs, strict=True)), p)
    (multiplier,) = sp.solve(constraint, lam)
    level_fprs = tuple(sp.simplify(s_i.subs(lam, multiplier) * n_i)
                       for s_i, n_i in zip(shares, sym.n, strict=True))
    return LagrangianSolution(lagr, fprs, shares, sp.simplify(multiplier), level_fprs)


def exponent_sum(k: sp.Expr) -> sp.Expr:
    """Sum_{m=0}^{k-1} X^m = (X^k - 1)/(X - 1), the exponent of T in App. A and B."""
    return (X**k - 1) / (X - 1)


@cache
def exponent_sum_derived() -> sp.Expr:
    """The geometric sum of the ratios' exponents (App. A, B), derived for X = 1 + s > 1."""
    m = sp.Symbol("m", integer=True, nonnegative=True)
    total = sp.summation((1 + _s) ** m, (m, 0, D - 1))
    return sp.simplify(total.subs(_s, X - 1))


def ratio_small() -> sp.Expr:
    """Eq 8 (errata 1): r_i = T^(X^(L-i-1)) = T^(X^(d-1)) at depth d = L - i >= 1."""
    return T ** (X ** (d - 1))


def ratio_largest() -> sp.Expr:
    """Eq 8: r_L = C T / (T - 1)."""
    return C * T / (T - 1)


def runs_small() -> sp.Expr:
    """Eq 13: a_i = (r_i - 1)^K for i < L."""
    return (ratio_small() - 1) ** K


def runs_largest() -> sp.Expr:
    """Eq 13: a_L = C^Z."""
    return C**Z


def fraction_small() -> sp.Expr:
    """Eq 9: N_i/N = 1/(C+1) (T/r_i)^(1/(X-1)) (r_i-1)/r_i at depth d = L - i >= 1."""
    r = ratio_small()
    return (T / r) ** (1 / (X - 1)) * (r - 1) / r / (C + 1)


def fraction_largest() -> sp.Expr:
    """Eq 9: N_L/N = C/(C+1)."""
    return C / (C + 1)


@cache
def fraction_from_app_a() -> sp.Expr:
    """Eq 17 (App. A): N_i = N_L/C (r_i-1)/r_i T^-(X^(d-1)-1)/(X-1), divided by N."""
    return fraction_largest() / C * (ratio_small() - 1) / ratio_small() * T ** (
        -exponent_sum(d - 1))


def _shrink(k: sp.Expr) -> sp.Expr:
    """g(k) = T^-((X^k - 1)/(X - 1)): the telescoping term of the smaller levels' fractions."""
    return T ** (-exponent_sum(k))


@cache
def telescoping_residual() -> sp.Expr:
    """(C+1) N_i/N - (g(d-1) - g(d)), which simplifies to 0: the smaller levels telescope."""
    residual = (C + 1) * fraction_small() - (_shrink(d - 1) - _shrink(d))
    return sp.simplify(sp.powsimp(sp.expand(residual), force=True))


@cache
def small_levels_total() -> sp.Expr:
    """sum_{d=1}^{D} N_d/N = (1 - T^-((X^D - 1)/(X - 1)))/(C+1), by the telescoping above. With D
    = L - 1 this is the stored fraction below Level L; it falls short of 1/(C+1) by exactly the
    buffer's share F/N when the levels are full (N/F = 131072 stores 131070 F in Figure 11)."""
    if telescoping_residual() != 0:
        raise ArithmeticError("the smaller levels' fractions do not telescope")
    return (_shrink(sp.Integer(0)) - _shrink(D)) / (C + 1)


@cache
def small_levels_total_limit() -> sp.Expr:
    """lim_{D -> oo} of :func:`small_levels_total` for T > 1, X > 1: exactly 1/(C+1). This is the
    step "sum simplifies to 1/C" of Eq 23 (relative to N_L)."""
    expr = small_levels_total().subs({T: 1 + _t, X: 1 + _s})
    return sp.simplify(sp.limit(expr, D, sp.oo))


@cache
def eq12_fpr_small_derived() -> sp.Expr:
    """Eq 12 (errata 2) from the Lagrangian: a_i p_i = p N_i / sum_j N_j with sum_j N_j = N. The
    stored total is N in the infinite-level limit (Eq 23's "sum simplifies" step)."""
    total = fraction_largest() + small_levels_total_limit()
    return sp.simplify(p / a * fraction_small() / total)


def eq12_fpr_small_errata() -> sp.Expr:
    """Eq 12 as corrected by errata 2: p_i = p/a_i 1/(C+1) (r_i-1)/r_i (T/r_i)^(1/(X-1))."""
    r = ratio_small()
    return p / a / (C + 1) * (r - 1) / r * (T / r) ** (1 / (X - 1))


@cache
def eq23_fpr_largest_derived() -> sp.Expr:
    """Eq 23: p_L = p/a_L C/(C+1), from a_L p_L = p N_L / sum_j N_j in the infinite-level limit."""
    total = fraction_largest() + small_levels_total_limit()
    return sp.simplify(p / a_L * fraction_largest() / total)


@cache
def finite_level_share_largest() -> sp.Expr:
    """a_L p_L = p N_L / sum_j N_j for L = D + 1 levels (what the exact Lagrangian solver gives).
    Slightly above Eq 23's p C/(C+1) because finitely many levels store a little less than N."""
    total = fraction_largest() + small_levels_total()
    return sp.simplify(p * fraction_largest() / total)


# --------------------------------------------------------------------------------------------
# (b) App. D: memory when X -> 1 (errata 4), Eq 25, and the finite-L tail
# --------------------------------------------------------------------------------------------


@cache
def geometric_sums() -> tuple[sp.Expr, sp.Expr]:
    """sum_{j>=0} T^-j = T/(T-1) and sum_{j>=0} j T^-j = T/(T-1)^2, derived for T > 1."""
    geometric = sp.summation(_with_t(T**-j), (j, 0, sp.oo))
    arithmetico = sp.summation(_with_t(j * T**-j), (j, 0, sp.oo))
    return sp.simplify(_without_t(geometric)), sp.simplify(_without_t(arithmetico))


def cll_fraction_series() -> sp.Expr:
    """Errata 3: N_i/N = 1/(C+1) (T-1)/T T^-j with j = L - i - 1 >= 0 (X -> 1)."""
    return (T - 1) / T * T**-j / (C + 1)


def cll_runs_small() -> sp.Expr:
    """Eq 13 at X = 1: a_i = (T - 1)^K."""
    return (T - 1) ** K


def cll_fpr_series() -> sp.Expr:
    """p_i = p/a_i N_i/N (Eq 12 at X = 1) with j = L - i - 1; errata 3's p/(C+1) T^-(L-i) at K=1."""
    return p / cll_runs_small() * cll_fraction_series()


def _cll_largest_term() -> sp.Expr:
    """N_L/N ln(p_L) with p_L = p/C^Z C/(C+1) (Eq 23 and Eq 13)."""
    return fraction_largest() * sp.log(p / runs_largest() * C / (C + 1))


def _cll_small_term() -> sp.Expr:
    """N_i/N ln(p_i) at series index j, logs expanded so the sum splits into the two series."""
    return _log_expand(_with_t(cll_fraction_series() * sp.log(cll_fpr_series())))


@cache
def memory_cll_derived() -> sp.Expr:
    """M = -sum_i (N_i/N) ln(p_i)/ln(2)^2 summed over Level L and infinitely many smaller levels.
    Eq 24 with the exponents restored: the smaller levels contribute a geometric and an
    arithmetico-geometric series in T^-j."""
    small = sp.summation(_cll_small_term(), (j, 0, sp.oo))
    total = _log_expand(_with_t(_cll_largest_term())) + small
    return sp.simplify(_without_t(-total / LN2_SQ))


def memory_cll_errata() -> sp.Expr:
    """Errata 4 (Eq 24 / Eq 6 for general K, Z), as printed in the errata."""
    return sp.log((C + 1) / p * C ** (C * (Z - 1) / (C + 1)) * (T - 1) ** ((K - 1) / (C + 1))
                  * T ** (T / ((C + 1) * (T - 1)))) / LN2_SQ


def memory_cll_printed_eq6() -> sp.Expr:
    """Eq 6 as printed (CLL: K = 1, Z = 0), with its lost exponents; kept to show it is wrong."""
    return sp.log(1 / p * (C + 1) / C ** (C + 1) * T ** (T / ((C + 1) * (T - 1)))) / LN2_SQ


@cache
def memory_cll_residual() -> sp.Expr:
    """Derived M minus errata 4's M, simplified (0 when the errata is right)."""
    diff = _with_t(memory_cll_derived() - memory_cll_errata())
    return sp.simplify(_log_expand(diff))


@cache
def sum_fpr_cll_derived() -> sp.Expr:
    """Eq 25 (corrected): the derived M solved for p."""
    (solution,) = sp.solve(sp.Eq(M, memory_cll_derived()), p)
    return sp.simplify(solution)


def sum_fpr_cll_errata() -> sp.Expr:
    """Eq 25 written out from errata 4: p = (C+1) C^(C(Z-1)/(C+1)) ... e^(-M ln(2)^2)."""
    return ((C + 1) * C ** (C * (Z - 1) / (C + 1)) * (T - 1) ** ((K - 1) / (C + 1))
            * T ** (T / ((C + 1) * (T - 1))) * sp.exp(-M * LN2_SQ))


@cache
def memory_cll_tail() -> sp.Expr:
    """Closed-form M minus the exact sum over L levels: -sum_{j >= L-1} N_j/N ln(p_j)/ln(2)^2.
    Both use the same N_i and p_i, so the gap is exactly the series' tail beyond Level 1."""
    tail = sp.summation(_cll_small_term(), (j, L - 1, sp.oo))
    # factor() rather than simplify(): simplify leaves a removable 0/0 at L = 1.
    return sp.factor(sp.expand(_without_t(-tail / LN2_SQ)))


# --------------------------------------------------------------------------------------------
# (c) The X -> 1 limits (CLL): Eq 8 -> Eq 1, Eq 9 -> errata 3, Eq 10 -> Eq 3, Eq 12 -> errata 3
# --------------------------------------------------------------------------------------------


def levels_real_printed() -> sp.Expr:
    """Eq 10 as printed (errata 7): the real argument of its ceiling."""
    return 1 + sp.log((X - 1) * sp.log(N / F / (C + 1) * (T - 1) / T, T) + 1, X)


@cache
def levels_real_derived() -> sp.Expr:
    """App. B: solve N_L = F r_L prod_{i<L} r_i = F C T/(T-1) T^((X^(L-1)-1)/(X-1)) for L. Solved
    for u = X^(L-1) (the equation is linear in T's exponent), then L = 1 + log_X(u)."""
    u = sp.Symbol("u", positive=True)
    n_largest = N * fraction_largest()
    (u_sol,) = sp.solve(sp.Eq(n_largest, F * ratio_largest() * T ** ((u - 1) / (X - 1))), u)
    return 1 + sp.log(sp.simplify(_log_expand(u_sol)), X)


def levels_real_eq3() -> sp.Expr:
    """Eq 3 (CLL): L = log_T(N_L/F (T-1)/C) with N_L = N C/(C+1), before the ceiling."""
    return sp.log(N * fraction_largest() / F * (T - 1) / C, T)


class CllForms(NamedTuple):
    ratio: sp.Expr  # r_i, i < L
    fraction: sp.Expr  # N_i/N at depth d
    levels_real: sp.Expr  # argument of the ceiling for L
    fpr: sp.Expr  # p_i per run at depth d, a_i = (T-1)^K


@cache
def cll_limits() -> CllForms:
    """sympy.limit(X -> 1) of Eq 8, Eq 9, Eq 10 and Eq 12 (with a_i = (r_i-1)^K) at depth d."""
    fpr = eq12_fpr_small_errata().subs(a, runs_small())
    return CllForms(
        ratio=sp.limit(ratio_small(), X, 1),
        fraction=sp.simplify(sp.limit(fraction_small(), X, 1)),
        levels_real=sp.simplify(sp.limit(levels_real_printed(), X, 1)),
        fpr=sp.simplify(sp.limit(fpr, X, 1)),
    )


def cll_errata3() -> CllForms:
    """The CLL forms as the paper states them after errata 3 (Eq 1, Eq 2, Eq 3, Eq 5). Errata 3's
    p_i = p/(C+1) T^-(L-i) is the per-run FPR for CLL's a_i = T - 1 (K = 1); for any K the
    Lagrangian rule a_i p_i = p N_i/N gives p_i = p/a_i (T-1)/(C+1) T^-(L-i), which is the form
    stated here (it reduces to errata 3's at K = 1). The level's share a_i p_i = p (T-1)/(C+1)
    T^-(L-i) is what Eq 12 fixes; errata 3's p_L = p C/(C+1) likewise assumes a_L = 1 (Z = 0),
    the general form being Eq 23's p/a_L C/(C+1)."""
    return CllForms(
        ratio=T,
        fraction=(T - 1) / T * T ** -(d - 1) / (C + 1),
        levels_real=levels_real_eq3(),
        fpr=p / cll_runs_small() * (T - 1) / (C + 1) * T**-d,
    )


# --------------------------------------------------------------------------------------------
# (d) The finite-N model (cost_models.finite, docs/MODEL.md M2-M6)
# --------------------------------------------------------------------------------------------

# A level's fill: q batches fill a run, f whole runs and e more batches (m = f q + e, e < q).
q_, f_, e_, k_, r_ = sp.symbols("q f e k r", integer=True, positive=True)
beta = sp.Symbol("beta", positive=True)  # b_L / S: Level L's batch over its size
u_ = sp.Symbol("u", real=True)


class FillForms(NamedTuple):
    runs_sum: sp.Expr  # sum_{k=1}^{m} ceil(k/q), block by block (M4)
    writes_sum: sp.Expr  # batches rewritten in one fill, W_i / b_i (M2)


@cache
def fill_sums() -> FillForms:
    """M2 and M4 summed run by run: in run j (1-based) the level holds j runs for q batch-states,
    and the k-th batch of a run rewrites the k batches it holds; the e leftover batches belong
    to run f + 1."""
    runs = sp.summation(q_ * k_, (k_, 1, f_)) + e_ * (f_ + 1)
    writes = f_ * sp.summation(k_, (k_, 1, q_)) + sp.summation(k_, (k_, 1, e_))
    return FillForms(sp.factor(runs), sp.expand(writes))


@cache
def leveling_writes_per_insert() -> sp.Expr:
    """M2 with one run filled by all of its m batches (q = m, f = 1, e = 0): W / b_{i+1} = m/2."""
    m = sp.Symbol("m", integer=True, positive=True)
    return sp.simplify(fill_sums().writes_sum.subs({f_: 1, q_: m, e_: 0}) / (m + 1))


class LevelLForms(NamedTuple):
    run_writes: sp.Expr  # a run's writes over its q batches, over the size when it started
    run_starts: sp.Expr  # sum_{r=0}^{a-2} (1+beta)^{r q}
    full_per_insert_leveled: sp.Expr  # a_L = 1: each merge rewrites all of Level L


@cache
def level_L_sums() -> LevelLForms:
    """M3. A run of Level L that starts when Level L holds S_r receives batches beta S, growing
    with S: after k of them it holds S_r ((1+beta)^k - 1), which the k-th merge writes."""
    run = sp.summation((1 + beta) ** k_ - 1, (k_, 1, q_))
    starts = sp.summation((1 + beta) ** (r_ * q_), (r_, 0, a_L - 2))
    # a_L = 1: one batch grows Level L from S to S (1 + beta) and rewrites all of it.
    full = (1 + beta) / ((1 + beta) - 1)
    return LevelLForms(sp.simplify(run), sp.simplify(starts), sp.simplify(full))


@cache
def level_L_run_batches() -> sp.Expr:
    """M3: the batches a run of Level L takes. It is full when its share of Level L reaches
    1/a_L: 1 - (1+beta)^(-k) >= 1/a_L, i.e. k >= -ln(1 - 1/a_L) / ln(1 + beta); q_L is the
    ceiling of the solution for k."""
    k = sp.Symbol("k", positive=True)
    (sol,) = sp.solve(sp.Eq(1 - (1 + beta) ** (-k), 1 / a_L), k)
    return sp.simplify(sol)


@cache
def phase_density() -> sp.Expr:
    """M6: the window's start is uniform over one window in log-size units, and the window spans
    one more: the density of the position u in [0, 2) is the triangle 1 - |u - 1|."""
    v = sp.Symbol("v", real=True)
    tri = sp.integrate(sp.Piecewise((1, (v >= 0) & (v <= 1)), (0, True))
                       * sp.Piecewise((1, (u_ - v >= 0) & (u_ - v <= 1)), (0, True)),
                       (v, 0, 1))
    return sp.piecewise_fold(tri)


# --------------------------------------------------------------------------------------------
# Numeric versions (numpy) for the tests
# --------------------------------------------------------------------------------------------

Fn = Callable[..., object]


def _numeric(args: tuple[sp.Symbol, ...], expr: sp.Expr) -> Fn:
    # Logs of products expanded into sums of logs so that e.g. (C+1)^(C+1) / p^(C+1) does not
    # overflow a float64 before the logarithm is taken.
    return sp.lambdify(args, _log_expand(expr), modules="numpy")


def _numeric_fn(args: tuple[sp.Symbol, ...], derivation: Callable[[], sp.Expr],
                doc: str) -> Callable[[], Fn]:
    """A cached function that lambdifies ``derivation()`` over ``args`` on its first call."""

    @cache
    def fn() -> Fn:
        return _numeric(args, derivation())

    fn.__doc__ = doc
    return fn


memory_cll_fn = _numeric_fn((T, C, K, Z, p), memory_cll_derived,
                            "f(T, C, K, Z, p) -> M from the derived Eq 24.")
sum_fpr_cll_fn = _numeric_fn((T, C, K, Z, M), sum_fpr_cll_derived,
                             "f(T, C, K, Z, M) -> p from the derived Eq 25.")
memory_cll_tail_fn = _numeric_fn(
    (T, C, K, Z, p, L), lambda: memory_cll_tail().subs(a_L, runs_largest()),
    "f(T, C, K, Z, p, L) -> closed-form M minus the exact L-level sum.")
ratio_small_fn = _numeric_fn((T, X, d), ratio_small, "f(T, X, d) -> r_i (Eq 8).")
fraction_small_fn = _numeric_fn((T, C, X, d), fraction_small,
                                "f(T, C, X, d) -> N_i/N (Eq 9); X must differ from 1.")
runs_small_fn = _numeric_fn((T, X, K, d), runs_small, "f(T, X, K, d) -> a_i (Eq 13).")
levels_real_fn = _numeric_fn(
    (T, C, X, N), lambda: levels_real_derived().subs(F, 1),
    "f(T, C, X, n_buffers) -> Eq 10's real argument (App. B derivation), X != 1.")
fpr_small_fn = _numeric_fn(
    (T, C, X, K, p, d), lambda: eq12_fpr_small_derived().subs(a, runs_small()),
    "f(T, C, X, K, p, d) -> p_i per run (Eq 12 derived, a_i from Eq 13); X != 1.")
fpr_largest_fn = _numeric_fn(
    (C, Z, p), lambda: eq23_fpr_largest_derived().subs(a_L, runs_largest()),
    "f(C, Z, p) -> p_L (Eq 23 derived, a_L = C^Z).")
finite_share_largest_fn = _numeric_fn(
    (T, C, X, p, L), lambda: finite_level_share_largest().subs(D, L - 1),
    "f(T, C, X, p, L) -> a_L p_L for exactly L levels (exact Lagrangian, nothing capped).")


class CllFns(NamedTuple):
    ratio: Fn  # f(T, d)
    fraction: Fn  # f(T, C, d)
    levels_real: Fn  # f(T, C, n_buffers)
    fpr: Fn  # f(T, C, K, p, d)


@cache
def cll_limit_fns() -> CllFns:
    """The X -> 1 limits of :func:`cll_limits` as numeric functions."""
    lim = cll_limits()
    return CllFns(
        ratio=_numeric((T, d), lim.ratio),
        fraction=_numeric((T, C, d), lim.fraction),
        levels_real=_numeric((T, C, N), lim.levels_real.subs(F, 1)),
        fpr=_numeric((T, C, K, p, d), lim.fpr),
    )
