"""Bloom-filter false-positive rates per level (App. C).

Three allocations:

* :func:`closed_form_fprs` -- Eq 12 (corrected, errata 2): a_i * p_i = p * N_i / N.
* :func:`lagrangian_fprs_for_sum` / :func:`lagrangian_fprs_for_memory` -- the exact optimum for any
  layout (n_i entries, a_i runs), each p_i capped at 1: stationarity gives a_i p_i = mu n_i (Eq
  20-22), no filter where that passes 1; sum_i min(a_i, mu n_i) is piecewise linear in mu, so
  both are solved exactly, segment by segment, in one vectorized pass. With probe weights w_i
  (``weights``, e.g. under skewed reads) a_i becomes w_i a_i (docs/MODEL.md, "Filters under
  skewed reads"); a level with w_i = 0 gets no filter.
* :func:`uniform_fprs_for_sum` / :func:`uniform_fprs_for_memory` -- one FPR for every run, as
  RocksDB and LevelDB do.

Per-level arrays follow :mod:`cost_models.structure`: levels on the last axis, and a level with
n_i = 0 (padding) is ignored.
"""

from __future__ import annotations

import numpy as np

from cost_models.structure import ArrayLike, Structure, reorder_last, take_last

LN2_SQ = np.log(2.0) ** 2


def bloom_bits_per_key(fpr: ArrayLike) -> np.ndarray:
    """Bits per key of a Bloom filter with false-positive rate ``fpr``: ln(1/p)/ln(2)^2. An FPR
    of 1 or more means no filter at all (0 bits)."""
    fpr = np.asarray(fpr, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(fpr >= 1.0, 0.0, -np.log(np.minimum(fpr, 1.0)) / LN2_SQ)


def sum_fpr(runs: np.ndarray, fprs: np.ndarray) -> np.ndarray:
    """p = sum_i a_i * p_i: expected false positives of a zero-result point read (Eq 15)."""
    return np.sum(np.where(runs > 0, runs * fprs, 0.0), axis=-1)


def memory_bits_per_entry(level_entries: np.ndarray, fprs: np.ndarray) -> np.ndarray:
    """Average filter bits per entry: sum_i n_i ln(1/p_i)/ln(2)^2 / sum_i n_i (App. D)."""
    bits = np.where(level_entries > 0, level_entries * bloom_bits_per_key(fprs), 0.0)
    return np.sum(bits, axis=-1) / np.sum(level_entries, axis=-1)


def closed_form_fprs(s: Structure, p: ArrayLike) -> np.ndarray:
    """Eq 12 (errata 2): p_i = p/a_i * N_i/N; defined for 0 < p < (C+1)/C * a_L."""
    p = np.asarray(p, dtype=float)
    upper = (s.C + 1.0) / s.C * s.at_largest(s.runs)
    if np.any(~np.isfinite(p)) or np.any(p <= 0) or np.any(p >= upper):
        raise ValueError(
            f"sum_fpr must lie in (0, (C+1)/C * a_L) = (0, {np.min(upper):.6g}) for the "
            f"closed-form allocation of Eq 12; got {p}"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        fprs = np.where(s.valid, p[..., None] * s.fractions / s.runs, 1.0)
    return fprs


def _weighted_runs(
    level_entries: ArrayLike, runs: ArrayLike, weights: ArrayLike | None
) -> np.ndarray:
    """w_i * a_i, the weighted runs the solver allocates over (``runs`` itself when unweighted).
    Multiplying by all-ones weights is exact, so weights=None and uniform 1s agree bit for bit."""
    a = np.asarray(runs, dtype=float)
    if weights is None:
        return a
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be finite numbers >= 0; got {weights!r}") from None
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"weights must be finite and >= 0 (probes per read); got {weights}")
    try:
        np.broadcast_shapes(np.shape(level_entries), a.shape, w.shape)
    except ValueError:
        raise ValueError(
            f"weights must broadcast with the per-level arrays (levels on the last axis, "
            f"shape {np.broadcast_shapes(np.shape(level_entries), a.shape)}); got shape {w.shape}"
        ) from None
    return w * a


def _sorted_layout(level_entries: np.ndarray, runs: np.ndarray):
    """Levels sorted by breakpoint b_i = a_i / n_i (padding last, b = inf). ``runs`` may be
    weighted runs w_i a_i; a level with w_i = 0 has b_i = 0 and sorts first."""
    n = np.asarray(level_entries, dtype=float)
    a = np.asarray(runs, dtype=float)
    n, a = np.broadcast_arrays(n, a)
    present = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(present, a / np.where(present, n, 1.0), np.inf)
    order = np.argsort(b, axis=-1, kind="stable")
    take = lambda v: reorder_last(v, order)  # noqa: E731
    b_s, n_s, a_s = take(b), take(np.where(present, n, 0.0)), take(np.where(present, a, 0.0))
    # S_k: entries of levels not yet capped when the first k (sorted) levels are capped.
    tail_n = np.flip(np.cumsum(np.flip(n_s, -1), axis=-1), -1)
    head_a = np.cumsum(a_s, axis=-1) - a_s
    return n, a, b, b_s, n_s, tail_n, head_a, present


def _fprs_from_mu(n, a, mu, present):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = np.minimum(1.0, mu[..., None] * n / np.where(present, a, 1.0))
    # a = 0 (weight 0: never probed) is capped at any mu, even when mu underflows to 0.
    return np.where(present & (a > 0), p, 1.0)


def lagrangian_fprs_for_sum(
    level_entries: ArrayLike, runs: ArrayLike, p: ArrayLike, weights: ArrayLike | None = None
) -> np.ndarray:
    """Per-level FPRs minimizing memory for a target sum of FPRs ``p`` (App. C, capped at 1).
    Valid for 0 < p <= sum_i a_i (at the upper end no level has a filter). With ``weights`` w_i
    (probes of Level i per read, levels on the last axis; None = all 1) the target is the
    weighted sum sum_i w_i a_i p_i = p, valid for 0 < p <= sum_i w_i a_i; a layout whose weights
    are all 0 is never probed and gets no filter at any p > 0."""
    c = _weighted_runs(level_entries, runs, weights)
    n, a, b, b_s, n_s, tail_n, head_a, present = _sorted_layout(level_entries, c)
    p = np.asarray(p, dtype=float)
    total_runs = np.sum(np.where(present, a, 0.0), axis=-1)
    too_large = p > total_runs * (1 + 1e-12)
    if weights is not None:
        too_large = too_large & (total_runs > 0)
    if np.any(~np.isfinite(p)) or np.any(p <= 0) or np.any(too_large):
        total = "total runs" if weights is None else "sum_i w_i a_i"
        raise ValueError(
            f"sum_fpr must lie in (0, {total}] = "
            f"(0, {np.min(total_runs):.6g}] (a larger sum would need FPRs above 1); got {p}"
        )
    # F(b_k) = sum_j min(a_j, b_k n_j) = head_a_k + b_k * S_k: the sum when exactly k levels cap.
    with np.errstate(invalid="ignore"):
        f_at_break = np.where(np.isfinite(b_s), head_a + b_s * tail_n, np.inf)
    k = np.sum(f_at_break <= p[..., None], axis=-1)
    k_idx = np.minimum(k, b_s.shape[-1] - 1)
    capped_a = np.where(k >= b_s.shape[-1], total_runs, take_last(head_a, k_idx))
    s_k = np.where(k >= b_s.shape[-1], 0.0, take_last(tail_n, k_idx))
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(s_k > 0, (p - capped_a) / np.where(s_k > 0, s_k, 1.0), np.inf)
    return _fprs_from_mu(n, a, mu, present)


def lagrangian_fprs_for_memory(
    level_entries: ArrayLike, runs: ArrayLike, bits_per_entry: ArrayLike,
    weights: ArrayLike | None = None,
) -> np.ndarray:
    """Per-level FPRs minimizing sum_i a_i p_i for ``bits_per_entry`` bits of filter per entry.
    Solves sum over uncapped levels of n_i ln(b_i/mu) = M ln(2)^2 sum_i n_i for mu (App. C). With
    ``weights`` w_i (probes of Level i per read, levels on the last axis; None = all 1) it
    minimizes sum_i w_i a_i p_i instead; only the weights' ratios matter. The budget is per entry
    of every level, including levels with w_i = 0, which get no filter (all 0: none anywhere)."""
    c = _weighted_runs(level_entries, runs, weights)
    n, a, b, b_s, n_s, tail_n, head_a, present = _sorted_layout(level_entries, c)
    m = np.asarray(bits_per_entry, dtype=float)
    if np.any(~np.isfinite(m)) or np.any(m < 0):
        raise ValueError(f"bits_per_entry must be a finite number >= 0; got {bits_per_entry}")
    target = m * LN2_SQ * np.sum(n_s, axis=-1)
    finite_b = np.isfinite(b_s)
    # b = 0 (weight 0) levels are capped at every mu > 0: ln b = -inf stays out of the sums.
    positive_b = finite_b & (b_s > 0)
    log_b = np.where(positive_b, np.log(np.where(positive_b, b_s, 1.0)), 0.0)
    tail_nlogb = np.flip(np.cumsum(np.flip(n_s * log_b, -1), axis=-1), -1)
    # G(b_k) = sum_{j >= k} n_j ln(b_j / b_k): memory when mu sits at the k-th breakpoint.
    g_at_break = np.where(finite_b, tail_nlogb - tail_n * log_b, -np.inf)
    g_at_break = np.where(finite_b & ~positive_b, np.inf, g_at_break)
    k = np.sum(g_at_break >= target[..., None], axis=-1)
    width = b_s.shape[-1]
    k_idx = np.minimum(k, width - 1)
    s_k = np.where(k >= width, 0.0, take_last(tail_n, k_idx))
    r_k = np.where(k >= width, 0.0, take_last(tail_nlogb, k_idx))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mu = np.where(s_k > 0, np.exp((r_k - target) / np.where(s_k > 0, s_k, 1.0)), np.inf)
    return _fprs_from_mu(n, a, mu, present)


def expected_weighted_false_positives(
    runs: ArrayLike, fprs: ArrayLike, weights: ArrayLike
) -> np.ndarray:
    """sum_i w_i a_i p_i: expected false positives per read when Level i is probed w_i times.
    Uniform weights 1 give :func:`sum_fpr` (Eq 15's zero-result read)."""
    a = np.asarray(runs, dtype=float)
    c = _weighted_runs(a, a, weights)
    return np.sum(np.where(a > 0, c * np.asarray(fprs, dtype=float), 0.0), axis=-1)


def uniform_fprs_for_sum(runs: ArrayLike, p: ArrayLike) -> np.ndarray:
    """One FPR for every run so that sum_i a_i p_i = p (industry baseline)."""
    a = np.asarray(runs, dtype=float)
    p = np.asarray(p, dtype=float)
    total_runs = np.sum(a, axis=-1)
    if np.any(~np.isfinite(p)) or np.any(p <= 0) or np.any(p > total_runs * (1 + 1e-12)):
        raise ValueError(f"sum_fpr must lie in (0, total runs] = (0, {np.min(total_runs):.6g}]; "
                         f"got {p}")
    eps = np.minimum(1.0, p / total_runs)
    return np.where(a > 0, eps[..., None], 1.0) * np.ones_like(a)


def uniform_fprs_for_memory(runs: ArrayLike, bits_per_entry: ArrayLike) -> np.ndarray:
    """Every filter gets ``bits_per_entry`` bits per key: FPR e^(-M ln(2)^2) everywhere."""
    a = np.asarray(runs, dtype=float)
    m = np.asarray(bits_per_entry, dtype=float)
    if np.any(~np.isfinite(m)) or np.any(m < 0):
        raise ValueError(f"bits_per_entry must be a finite number >= 0; got {bits_per_entry}")
    eps = np.exp(-m * LN2_SQ)
    return np.where(a > 0, eps[..., None], 1.0) * np.ones_like(a)
