"""The worst-case cost of a design over workloads near the expected one (Endure's robust tuning).

Endure (Huynh et al., VLDB 2022) tunes for the worst workload w' within a KL-divergence ball
around the expected workload w:

    worst(c, w, rho) = max { c . w'  :  w' in the simplex, KL(w' || w) <= rho }.

The maximizer is an exponential tilt of w, w'_i proportional to w_i exp(c_i / lambda), with the
multiplier lambda > 0 set so that KL(w' || w) = rho (the Lagrangian dual,
min_lambda lambda rho + lambda log sum_i w_i exp(c_i / lambda), is stationary exactly there).
KL of the tilt falls as lambda grows, so lambda is found by bisection on log lambda, vectorized
over designs. Operations with w_i = 0 stay at 0 (any w' that puts mass there has infinite KL).
When rho is at least -log(the mass w puts on the costliest operations), the tilt reaches its limit
and the worst case is the largest c_i with w_i > 0.
"""

from __future__ import annotations

import numpy as np

BISECTION_STEPS = 60  # on log lambda over LOG_LAMBDA_SPAN: far below float resolution at the end
LOG_LAMBDA_SPAN = 60.0  # lambda from e^-30 to e^30 times the spread of the costs


def _tilt(c: np.ndarray, log_w: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tilted workload for multiplier ``lam`` (broadcast over the last axis) and its KL."""
    z = log_w + c / lam[..., None]
    z_max = np.max(z, axis=-1, keepdims=True)
    e = np.exp(z - z_max)
    total = np.sum(e, axis=-1, keepdims=True)
    tilted = e / total
    log_tilted = z - z_max - np.log(total)
    with np.errstate(invalid="ignore"):
        kl = np.sum(np.where(tilted > 0, tilted * (log_tilted - log_w), 0.0), axis=-1)
    return tilted, kl


def worst_case_workload(costs: np.ndarray, weights: np.ndarray, rho: float) -> np.ndarray:
    """The workload w' that maximizes ``costs`` . w' within KL(w' || ``weights``) <= ``rho``.
    ``costs`` has the operations on its last axis (any leading axes: designs); ``weights`` is one
    workload on the simplex. Returns w' with the shape of ``costs``."""
    if not np.isfinite(rho) or rho < 0:
        raise ValueError(f"rho must be a finite number >= 0; got {rho!r}")
    c = np.asarray(costs, dtype=float)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.shape[0] != c.shape[-1]:
        raise ValueError("weights must be one workload with an entry per cost column")
    if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError("weights must be non-negative and sum to 1")
    support = w > 0
    log_w = np.where(support, np.log(np.where(support, w, 1.0)), -np.inf)
    base = np.broadcast_to(w, c.shape).copy()
    if rho == 0:
        return base
    c_on = np.where(support, c, -np.inf)
    top = np.max(c_on, axis=-1, keepdims=True)
    at_top = support & (c_on >= top - 1e-12 * np.maximum(1.0, np.abs(top)))
    # The limit lambda -> 0: all of w' on the costliest operations, in proportion to w.
    limit_kl = -np.log(np.sum(np.where(at_top, w, 0.0), axis=-1))
    limit = np.where(at_top, w, 0.0)
    limit = limit / np.sum(limit, axis=-1, keepdims=True)
    c_fin = np.where(support, c, 0.0)
    spread = np.max(np.where(support, c_fin, -np.inf), axis=-1) - np.min(
        np.where(support, c_fin, np.inf), axis=-1)
    flat = spread <= 0
    scale = np.where(flat, 1.0, spread)
    lo = np.log(scale) - LOG_LAMBDA_SPAN / 2  # small lambda: KL near its limit (> rho)
    hi = np.log(scale) + LOG_LAMBDA_SPAN / 2  # large lambda: KL near 0 (< rho)
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        _, kl = _tilt(c_fin, log_w, np.exp(mid))
        above = kl > rho
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    tilted, _ = _tilt(c_fin, log_w, np.exp(hi))
    reached = (limit_kl <= rho)[..., None]
    out = np.where(reached, limit, tilted)
    return np.where(flat[..., None], base, out)


def worst_case_cost(costs: np.ndarray, weights: np.ndarray, rho: float) -> np.ndarray:
    """max c . w' over KL(w' || w) <= rho, for each row of ``costs``."""
    c = np.asarray(costs, dtype=float)
    w_star = worst_case_workload(c, weights, rho)
    return np.sum(np.where(w_star > 0, c * w_star, 0.0), axis=-1)
