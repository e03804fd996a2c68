"""Structure of a Wacky instance: number of levels, ratios, capacities and runs per level.

Equations (with the errata in ``docs/ERRATA.md`` applied):

* Eq 8  r_i = T^(X^(L-i-1)) for 1 <= i <= L-1, and r_L = C*T/(T-1).
* Eq 9  N_i = N/(C+1) * (T/r_i)^(1/(X-1)) * (r_i-1)/r_i for i < L, and N_L = N*C/(C+1).
* Eq 10 L = ceil(1 + log_X((X-1) * log_T(N/F * 1/(C+1) * (T-1)/T) + 1)).
* Eq 13 a_i = (r_i-1)^K for i < L, and a_L = C^Z, capped at max(1, floor(N_i/F)): a run is at
  least one flushed buffer, so a level of c buffers holds at most max(1, floor(c)) runs (the
  engine's capacity check, ``Level::WouldOverflow``, stops a level at floor(c) one-buffer runs).
  ``Structure.runs`` is the capped count; ``Structure.run_bound`` keeps Eq 13 itself, which the
  engine's merge rule (a run is full at N_i / a_i) uses.

X -> 1 gives Capped Lazy Leveling (Eq 1-3): the exponent sum (X^k - 1)/(X - 1) tends to k, and
every formula here is written through that sum so that X = 1 is exact and X = 1 + 1e-6 is smooth.

Arrays are laid out level-first: index 0 of the last axis is Level 1, index L-1 is Level L, and
entries past L are padding (ratio NaN, fraction 0, runs 0, ``valid`` False). Every knob broadcasts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ArrayLike = float | np.ndarray

# Tolerance for ceil() in Eq 10, so that an instance that exactly fills L levels (App. G's
# N/F = 131072, T=2, C=1, X=2 gives exactly 5) is not pushed to L+1 by rounding noise.
LEVEL_CEIL_TOLERANCE = 1e-9
# Below this |X - 1| the CLL limit formulas are used directly.
X_ONE_TOLERANCE = 1e-12
# The engine's relative tolerance on a level's capacity (level.cc), so that a level of exactly
# c buffers holds c runs, not c - 1, through rounding noise.
CAPACITY_TOLERANCE = 1e-9


def exponent_sum(k: ArrayLike, X: ArrayLike) -> np.ndarray:
    """Sum_{j=0}^{k-1} X^j = (X^k - 1)/(X - 1), with its limit k as X -> 1 (App. A, B)."""
    k = np.asarray(k, dtype=float)
    d = np.asarray(X, dtype=float) - 1.0
    near_one = np.abs(d) < X_ONE_TOLERANCE
    safe_d = np.where(near_one, 1.0, d)
    with np.errstate(over="ignore", invalid="ignore"):
        general = np.expm1(k * np.log1p(safe_d)) / safe_d
    return np.where(near_one, k, general)


def levels_real(T: ArrayLike, C: ArrayLike, X: ArrayLike, n_buffers: ArrayLike) -> np.ndarray:
    """The real-valued argument of the ceiling in Eq 10 (Eq 3 when X -> 1)."""
    T, C, X, n_buffers = (np.asarray(v, dtype=float) for v in (T, C, X, n_buffers))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_t = np.log(n_buffers / (C + 1.0) * (T - 1.0) / T) / np.log(T)
        d = X - 1.0
        near_one = np.abs(d) < X_ONE_TOLERANCE
        safe_d = np.where(near_one, 1.0, d)
        inner = safe_d * log_t
        general = np.log1p(inner) / np.log1p(safe_d)
        general = np.where(inner > -1.0, general, -np.inf)
    return 1.0 + np.where(near_one, log_t, general)


def num_levels(T: ArrayLike, C: ArrayLike, X: ArrayLike, n_buffers: ArrayLike) -> np.ndarray:
    """Eq 10: number of levels L (at least 1) for N/F = ``n_buffers`` buffers of data."""
    real = levels_real(T, C, X, n_buffers)
    with np.errstate(invalid="ignore"):
        ceiled = np.ceil(real - LEVEL_CEIL_TOLERANCE * np.maximum(1.0, np.abs(real)))
    # NaN and -inf give 1; the cap keeps the cast defined.
    return np.clip(np.where(ceiled > 1.0, ceiled, 1.0), 1.0, 1e9).astype(np.int64)


def take_last(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[..., index[...]] along the last axis; ``index`` has shape values.shape[:-1].
    Equivalent to np.take_along_axis(values, index[..., None], -1)[..., 0], without its per-call
    index construction, which dominated the search's many small evaluations."""
    width = values.shape[-1]
    flat = values.reshape(-1, width)
    idx = np.broadcast_to(index, values.shape[:-1]).reshape(-1)
    return flat[np.arange(flat.shape[0]), idx].reshape(values.shape[:-1])


def reorder_last(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """values reordered along the last axis by ``order`` (same shape), e.g. from argsort."""
    width = values.shape[-1]
    flat = values.reshape(-1, width)
    rows = np.arange(flat.shape[0])[:, None]
    return flat[rows, order.reshape(-1, width)].reshape(order.shape)


def round_runs(runs: ArrayLike) -> np.ndarray:
    """How the engine turns a real run bound into a whole number of runs: half up, at least 1."""
    return np.maximum(1.0, np.floor(np.asarray(runs, dtype=float) + 0.5))


def runs_capacity(capacity_buffers: ArrayLike) -> np.ndarray:
    """The most runs a level of ``capacity_buffers`` buffers can hold: max(1, floor(c)). A run is
    at least one flushed buffer. The engine admits a batch while the level stays within its
    capacity (``Level::WouldOverflow``, relative tolerance 1e-9), so Level 1 holds at most
    floor(c) one-buffer runs, and a deeper level, whose batches are larger, fewer."""
    c = np.asarray(capacity_buffers, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.maximum(1.0, np.floor(c * (1.0 + CAPACITY_TOLERANCE)))


@dataclass(frozen=True)
class Structure:
    """Per-level layout of one design or of a broadcast array of designs. ``L`` has the broadcast
    shape S; the per-level arrays have shape S + (L_max,). ``fractions`` are N_i / N (Eq 9);
    ``ratios`` are r_i (Eq 8); ``runs`` are a_i (Eq 13) capped at the level's capacity in buffers
    (:func:`runs_capacity`), the runs the level can hold, which every model prices and every
    output reports; ``run_bound`` is Eq 13 uncapped (rounded like ``runs``), the bound of the
    engine's merge rule (a run is full at N_i / a_i)."""

    T: np.ndarray
    C: np.ndarray
    X: np.ndarray
    K: np.ndarray
    Z: np.ndarray
    L: np.ndarray
    ratios: np.ndarray
    fractions: np.ndarray
    runs: np.ndarray
    valid: np.ndarray
    run_bound: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.run_bound is None:
            object.__setattr__(self, "run_bound", self.runs)

    @property
    def largest(self) -> np.ndarray:
        """Boolean mask of Level L along the level axis."""
        idx = np.arange(1, self.ratios.shape[-1] + 1)
        return idx == self.L[..., None]

    def at_largest(self, per_level: np.ndarray) -> np.ndarray:
        """Pick the Level-L entry of a per-level array."""
        return take_last(per_level, self.L - 1)


def shape_at_depth(
    T: ArrayLike, C: ArrayLike, X: ArrayLike, K: ArrayLike, Z: ArrayLike, depth: ArrayLike, *,
    integer_runs: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(r_i, N_i / N, a_i) of the level ``depth`` levels above Level L (0 = Level L). Eq 8, 9 and
    13 depend on a level only through its depth above Level L, which is why the engine can add
    levels on top without reshaping the ones below. Negative depths (padding past Level L) give
    NaN ratios and zero fractions and runs."""
    # Natural broadcasting: the results take the shape of all the inputs together.
    Te, Ce, Xe, Ke, Ze, depth = (np.asarray(v, dtype=float) for v in (T, C, X, K, Z, depth))
    valid = depth >= 0
    smaller = depth >= 1
    log_t = np.log(Te)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # ln r_i = X^(d-1) ln T for a level at depth d >= 1 below Level L (Eq 8, errata 1).
        log_r = np.power(Xe, np.maximum(depth - 1.0, 0.0)) * log_t
        ratio_small = np.exp(log_r)
        # (T/r_i)^(1/(X-1)) = T^-((X^(d-1) - 1)/(X - 1)) (App. A), and (r_i - 1)/r_i.
        shrink = np.exp(-exponent_sum(np.maximum(depth - 1.0, 0.0), Xe) * log_t)
        fill = -np.expm1(-log_r)
        frac_small = shrink * fill / (Ce + 1.0)
        runs_small = np.exp(Ke * np.log(np.expm1(log_r)))  # (r_i - 1)^K without overflow of r_i
        runs_small = np.where(np.isfinite(log_r) & (log_r > 50), np.exp(Ke * log_r), runs_small)
        ratio_large = Ce * Te / (Te - 1.0)
    frac_large = Ce / (Ce + 1.0)
    runs_large = np.power(Ce, Ze)

    shape = np.broadcast_shapes(*(v.shape for v in (Te, Ce, Xe, Ke, Ze, depth)))
    valid, smaller = np.broadcast_to(valid, shape), np.broadcast_to(smaller, shape)
    ratios = np.where(smaller, ratio_small, np.where(valid, ratio_large, np.nan))
    fractions = np.where(smaller, frac_small, np.where(valid, frac_large, 0.0))
    runs = np.where(smaller, runs_small, np.where(valid, runs_large, 0.0))
    if integer_runs:
        runs = np.where(valid, round_runs(np.where(valid, runs, 1.0)), 0.0)
    return ratios, fractions, runs


def structure(
    T: ArrayLike, C: ArrayLike, X: ArrayLike, K: ArrayLike, Z: ArrayLike, n_buffers: ArrayLike,
    *, integer_runs: bool = False, max_levels: int | None = None, capped: bool = True,
) -> Structure:
    """Build the per-level structure (Eq 8, 9, 10, 13) for N/F = ``n_buffers``. ``integer_runs``
    rounds every a_i the way the engine does (:func:`round_runs`). Every a_i is then capped at
    what its level can hold, max(1, floor(N_i/F)) (:func:`runs_capacity`); ``capped=False``
    leaves Eq 13 as printed (``runs`` = ``run_bound``), the paper's tree, whose closed forms
    ``tests/test_symbolic.py`` checks."""
    T, C, X, K, Z, n_buffers = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                                     for v in (T, C, X, K, Z, n_buffers)))
    L = num_levels(T, C, X, n_buffers)
    width = int(max_levels if max_levels is not None else (L.max() if L.size else 1))
    level = np.arange(1, width + 1, dtype=float)
    depth = L[..., None] - level  # 0 at Level L, 1 at Level L-1, ...
    ratios, fractions, bound = shape_at_depth(*(v[..., None] for v in (T, C, X, K, Z)), depth,
                                              integer_runs=integer_runs)
    valid = depth >= 0
    runs = bound
    if capped:
        held = runs_capacity(fractions * n_buffers[..., None])
        runs = np.where(valid, np.minimum(bound, held), 0.0)
    return Structure(T, C, X, K, Z, L, ratios, fractions, runs, valid, bound)


def log_capacities(capacities: ArrayLike, omega: float) -> np.ndarray:
    """L2SM's per-level log sizes, the paper's "Inverse Proportional Log Size" (Sec. III-B2):
    Levels 1..L-1 get logs of lambda^i N_i entries, where lambda >= 0 solves
    Sum_{i=1}^{L-1} lambda^i N_i = omega Sum_{i=1}^{L} N_i, so the logs' total is a share omega
    of the tree and the log-to-tree ratio falls level by level; Level L has none. ``capacities``
    are N_1..N_L (entries, Level 1 first). The engine's copy is ``structure::LogCapacities``.
    The left side grows with lambda from 0, so bisection finds it (to 1e-12 relative)."""
    n = np.asarray(capacities, dtype=float)
    out = np.zeros_like(n)
    upper = n[:-1]
    target = float(omega) * float(n.sum())
    if n.size < 2 or not omega > 0.0 or not upper.sum() > 0.0:
        return out
    powers = np.arange(1, upper.size + 1)

    def total(lam: float) -> float:
        return float((upper * lam ** powers).sum())

    lo, hi = 0.0, 1.0
    while total(hi) < target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if total(mid) < target else (lo, mid)
        if hi - lo <= 1e-12 * hi:
            break
    out[:-1] = upper * hi ** powers
    return out
