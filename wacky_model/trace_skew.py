"""Which keys a trace's operations touch: key distributions estimated from per-key counts.

:func:`estimate_distribution` fits ``zipf:THETA`` and ``hotset:H:P`` (cost_models.skew) to the
operation counts of a population of keys and keeps the better fit, or ``uniform`` when neither
is significantly better than uniform. :func:`estimate_skew` reads a trace: the update share of
its PUTs, the distributions of its updates' and reads' keys, whether the two agree on which
keys are hot, and whether reads follow recent writes (``latest``).

Why not the textbook fit. The usual Zipf fit sorts the counts, calls the k-th largest rank k
and maximizes sum_k c_k log p_theta(k). Sorting by *observed* counts puts the lucky keys on
top, so the sorted profile is steeper than the true one and theta comes out too high unless
every key is seen many times. Over 20,000 keys (one seed each) it gives 0.23-0.50 for uniform
data (theta 0) and 0.35-0.53 for theta = 0.3 at 10 down to 1 operation per key, 0.61-0.68 for
0.6 and 0.90-0.93 for 0.9 (:func:`rank_ordered_theta` keeps it for comparison). Ranking on one
half of the sample and fitting on the other removes that selection but not the noise of the
ranking: a mis-ranked tail flattens the profile, and theta comes out too low (0.14-0.24 for
0.3, 0.52-0.58 for 0.6). The fits here do not rank at all. Each key's count is Poisson with
mean W p(rank) for a rank unknown to us, so the counts are draws from the mixture
P(c) = (1/n) sum_r Poisson(c; W p(r)), whose likelihood depends only on how many keys were
seen c times (the count histogram). Its maximum is a composite likelihood estimate, consistent
as n grows; in the same experiment it gives 0.295-0.300 for 0.3, 0.598-0.600 for 0.6 and
0.896-0.901 for 0.9. The likelihoods are sums over bins of ranks (cost_models.skew.rank_bins),
so a fit costs O(bins x distinct counts), independent of the number of keys.

Uniform is the null: a fit is kept only when a likelihood-ratio test rejects uniform at
SIGNIFICANCE (chi-square with one degree of freedom per extra parameter, which treats the
composite likelihood as a true one: good enough to tell skew from noise, not a calibrated
p-value) and, for Zipf, theta >= MIN_THETA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import optimize, special, stats

from cost_models.skew import bins_for, key_probabilities, rank_bins, unique_writes
from wacky_model.types import THETA_MAX, KeyDistribution, Workload
from wacky_traces import OpKind, operations_mask

if TYPE_CHECKING:
    from wacky_traces import Trace

SIGNIFICANCE = 1e-3  # a skewed fit must reject uniform at this level
MIN_THETA = 0.05  # below this a Zipf fit is reported as uniform: the costs barely differ
# Correlation. Spearman's rho of per-key read and write counts, over the keys both touched, is
# diluted by sampling noise: with a shared ranking, zipf:0.6 reads and writes give only 0.44 at
# 100k reads and 50k updates over 20k keys (0.59 for zipf:0.9, 0.71 for zipf:1.2), so no fixed
# threshold on rho works. It is compared instead with the rho a shared ranking of the fitted
# distributions gives at the same sample sizes (simulated, CORRELATION_DRAWS Poisson draws):
# correlated when rho > CORRELATION_THRESHOLD x that. Independent rankings give rho ~ 0, a shared
# one ~ 1x, so the threshold sits mid-gap. When the expected rho is within CORRELATION_NOISE
# standard errors (1 / sqrt(keys)) of 0 the sample cannot tell, and the default (True) is kept.
CORRELATION_THRESHOLD = 0.5
CORRELATION_NOISE = 4.0
CORRELATION_DRAWS = 3
MIN_CORRELATION_KEYS = 20  # fewer keys touched by both: too few to tell, keep the default
_CORRELATION_SEED = 0x434F5252  # "CORR": the simulated rho is part of the estimate, so fixed
# Latest: a read's probability sums over its key's last LATEST_TERMS writes (the rest, older,
# add little: p_theta falls with recency), fitted on at most LATEST_READS reads.
LATEST_TERMS = 16
LATEST_READS = 1 << 17
_HOT_GRID = 60  # hot-set sizes tried (geometric) before polishing the best


@dataclass(frozen=True)
class DistributionFit:
    """The fits :func:`fit_distribution` compared; ``dist`` is the one chosen."""

    dist: KeyDistribution
    zipf_theta: float  # the best Zipf theta, whichever model won
    hot_keys: float  # the best hot set: its share of the keys ...
    hot_share: float  # ... and of the operations
    loglik_uniform: float  # composite log-likelihoods of the count histogram
    loglik_zipf: float
    loglik_hotset: float
    p_value: float  # of the likelihood-ratio test of the better fit against uniform
    samples: int  # operations counted
    population: int


def _checked_counts(counts: np.ndarray, population: int) -> np.ndarray:
    """Counts as int64, padded with zeros to ``population`` keys (untouched keys)."""
    c = np.asarray(counts)
    if c.ndim != 1:
        raise ValueError(f"counts must be a 1-D array; got shape {c.shape}")
    if c.size and not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"counts must be whole numbers (an integer array); got {c.dtype}")
    if c.size and int(c.min()) < 0:
        raise ValueError(f"counts must be >= 0; got {int(c.min())}")
    if isinstance(population, bool) or not isinstance(population, (int, np.integer)):
        raise ValueError(f"population must be an int; got {population!r}")
    if not max(1, c.size) <= population <= 2**53:
        raise ValueError(f"population must be in [max(1, len(counts)) = {max(1, c.size)}, "
                         f"2^53]; got {population}")
    out = np.zeros(int(population), dtype=np.int64) if population <= 1 << 27 else None
    if out is None:
        # Too many keys to hold: the histogram is all the fits need, so only touched keys stay.
        return c.astype(np.int64)
    out[: c.size] = c
    return out


@dataclass(frozen=True)
class _Histogram:
    """How many keys were seen c times, for each distinct c (zeros included)."""

    values: np.ndarray  # distinct counts
    keys: np.ndarray  # keys seen that many times
    log_fact: np.ndarray  # log c!
    total: int  # W, the operations
    n: int  # the population


def _histogram(counts: np.ndarray, population: int) -> _Histogram:
    values, keys = np.unique(counts, return_counts=True)
    zeros = population - counts.size  # untouched keys not in the array
    if zeros:
        if values.size and values[0] == 0:
            keys[0] += zeros
        else:
            values, keys = np.concatenate([[0], values]), np.concatenate([[zeros], keys])
    v = values.astype(float)
    return _Histogram(v, keys.astype(float), special.gammaln(v + 1.0), int(counts.sum()),
                      int(population))


def _mixture_loglik(hist: _Histogram, rates: np.ndarray, weights: np.ndarray) -> float:
    """sum_c keys_c log sum_j weights_j Poisson(c; rates_j), weights summing to 1."""
    rates = np.maximum(rates, 1e-300)
    log_pois = (hist.values[:, None] * np.log(rates)[None, :] - rates[None, :]
                - hist.log_fact[:, None])
    per_count = special.logsumexp(log_pois, axis=1, b=weights[None, :])
    return float(np.dot(hist.keys, per_count))


def _zipf_loglik(hist: _Histogram, theta: float, bins: object) -> float:
    prob = key_probabilities(KeyDistribution("zipf", theta=theta), bins, hist.n)
    count = bins.count  # type: ignore[attr-defined]
    return _mixture_loglik(hist, hist.total * prob, count / hist.n)


def _hotset_loglik(hist: _Histogram, h: float, p: float) -> float:
    """The two-level model with a continuous hot share h (the model rounds it to keys)."""
    rates = hist.total * np.array([p / (h * hist.n), (1.0 - p) / ((1.0 - h) * hist.n)])
    return _mixture_loglik(hist, rates, np.array([h, 1.0 - h]))


def _best_theta(nll) -> optimize.OptimizeResult:
    """The Zipf theta in [0, THETA_MAX] that minimizes ``nll`` (to 1e-4)."""
    return optimize.minimize_scalar(nll, bounds=(0.0, THETA_MAX), method="bounded",
                                    options={"xatol": 1e-4})


def _fit_zipf(hist: _Histogram) -> tuple[float, float]:
    bins = rank_bins(hist.n)
    theta = float(_best_theta(lambda t: -_zipf_loglik(hist, t, bins)).x)
    return theta, _zipf_loglik(hist, theta, bins)


def _fit_hotset(hist: _Histogram) -> tuple[float, float, float]:
    """(h, p, loglik): p profiled out on a geometric grid of h, then both polished."""
    n = hist.n
    lo = max(1.0 / n, 1e-4)
    best = (-math.inf, 0.5, 0.5)
    for h in np.geomspace(lo, 0.95, _HOT_GRID):
        # The hot keys are the busier ones: p > h (p = h is uniform).
        res = optimize.minimize_scalar(lambda p, h=h: -_hotset_loglik(hist, h, p),
                                       bounds=(h, 1.0 - 1e-9), method="bounded")
        if -res.fun > best[0]:
            best = (-float(res.fun), float(h), float(res.x))
    _, h0, p0 = best
    res = optimize.minimize(lambda x: -_hotset_loglik(hist, x[0], x[1]), np.array([h0, p0]),
                            method="L-BFGS-B", bounds=[(lo, 0.99), (lo, 1.0 - 1e-9)])
    h, p = (float(v) for v in res.x)
    ll = _hotset_loglik(hist, h, p)
    if ll < best[0]:  # the polish wandered off: keep the grid's best
        ll, h, p = best
    return h, p, ll


def fit_distribution(counts: np.ndarray, population: int) -> DistributionFit:
    """Fit uniform, Zipf and hot-set models to per-key operation counts (module docstring).

    counts: operations per key (keys never touched may be left out: they count 0);
    population: the keys that could have been touched (>= len(counts)).
    """
    c = _checked_counts(counts, population)
    n = int(population)
    hist = _histogram(c, n)
    W = hist.total
    if W == 0 or n == 1:  # nothing to fit: every model says the same
        return DistributionFit(KeyDistribution(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, W, n)
    ll_u = _mixture_loglik(hist, np.array([W / n]), np.ones(1))
    theta, ll_z = _fit_zipf(hist)
    h, p, ll_h = _fit_hotset(hist)
    if ll_z >= ll_h:
        stat, df = 2.0 * (ll_z - ll_u), 1
    else:
        stat, df = 2.0 * (ll_h - ll_u), 2
    p_value = float(stats.chi2.sf(max(stat, 0.0), df))
    dist = KeyDistribution()
    if p_value < SIGNIFICANCE:
        if ll_z >= ll_h and theta >= MIN_THETA:
            dist = KeyDistribution("zipf", theta=round(theta, 3))
        elif ll_z < ll_h:
            hot = min(max(round(h, 3), 0.001), 0.999)
            share = min(max(round(p, 3), 0.001), 0.999)
            if share > hot:
                dist = KeyDistribution("hotset", hot_keys=hot, hot_share=share)
    return DistributionFit(dist, theta, h, p, ll_u, ll_z, ll_h, p_value, W, n)


def estimate_distribution(counts: np.ndarray, population: int) -> KeyDistribution:
    """The key distribution behind per-key operation counts: ``zipf:THETA``, ``hotset:H:P``
    or ``uniform`` (:func:`fit_distribution` has the details and the likelihoods)."""
    return fit_distribution(counts, population).dist


def _zipf_log_probs(theta: float, n: int) -> np.ndarray:
    """log p_theta(r) for ranks r = 0..n-1 (exact normalization)."""
    w = -theta * np.log(np.arange(1, n + 1, dtype=float))
    return w - special.logsumexp(w)


def rank_ordered_theta(counts: np.ndarray, population: int) -> tuple[float, float]:
    """The textbook Zipf fit on counts sorted by size, biased upward for small samples (module
    docstring): (theta, its log-likelihood sum_k c_k log p_theta(k)). Kept for comparison, and
    as an optimistic bound on a popularity model's likelihood of the operations' keys."""
    c = np.sort(_checked_counts(counts, population))[::-1].astype(float)
    n = int(population)
    touched = int(np.count_nonzero(c))
    if touched == 0:
        return 0.0, 0.0
    head = c[:touched]  # untouched keys add nothing but normalization

    def nll(t: float) -> float:
        return -float(np.dot(head, _zipf_log_probs(t, n)[:touched]))

    res = _best_theta(nll)
    return float(res.x), -float(res.fun)


def _latest_fit(recency: np.ndarray, n: int) -> tuple[float, float]:
    """Zipf theta over recencies, observed directly (no ranking, so no ranking bias), and the
    log-likelihood per read. ``recency``: (reads, LATEST_TERMS), row g the recencies of the last
    writes of read g's key, newest first, -1 past the key's first write. A read's probability
    is the sum over those writes of p_theta(recency) over n recencies (the population; more if
    some read's newest write is older)."""
    n = max(n, int(recency[:, 0].max()) + 1)
    usable = (recency >= 0) & (recency < n)  # older writes are beyond the distribution
    log_r = np.log(np.where(usable, recency, 0) + 1.0)
    log_rank = np.log(np.arange(1, n + 1, dtype=float))

    def nll(t: float) -> float:
        per_read = special.logsumexp(np.where(usable, -t * log_r, -np.inf), axis=1)
        return -(float(per_read.sum()) - recency.shape[0] * special.logsumexp(-t * log_rank))

    res = _best_theta(nll)
    return float(res.x), -float(res.fun) / recency.shape[0]


@dataclass(frozen=True)
class SkewEstimate:
    """What :func:`estimate_skew` read from a trace (the Workload fields, and the evidence)."""

    write_keys: KeyDistribution  # of updates' keys over the existing keys
    read_keys: KeyDistribution  # of GETs' keys (``latest`` when they follow recent writes)
    update_fraction: float  # PUTs whose key existed
    correlated: bool
    write_theta: float  # the best Zipf fits, whichever model won (nan: nothing to fit)
    read_theta: float
    latest_theta: float  # Zipf over reads' recencies (nan when no GET follows a PUT)
    correlation: float  # Spearman's rho of read and write counts (nan when not computed)
    correlation_shared: float  # the rho a shared ranking would give (nan when not computed)
    population: int  # keys that existed when the operations began
    puts: int  # PUTs among the operations
    write_samples: int  # updates of those keys (the write fit's sample)
    read_samples: int  # GETs of those keys (the read fit's sample)


def _previous_same_key(keys: np.ndarray) -> np.ndarray:
    """For each position, the latest earlier position with the same key (-1: none)."""
    order = np.lexsort((np.arange(keys.size), keys))
    prev = np.full(keys.size, -1, dtype=np.int64)
    same = keys[order][1:] == keys[order][:-1]
    prev[order[1:][same]] = order[:-1][same]
    return prev


def _read_recencies(kinds: np.ndarray, keys: np.ndarray, ops: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """For the operations' GETs that follow a PUT of their key: the recencies of the key's last
    LATEST_TERMS PUTs (PUTs since, 0 for the newest write of all; -1 when there are fewer), as
    (reads, LATEST_TERMS), and the reads' keys."""
    events = np.flatnonzero((kinds == OpKind.PUT) | ((kinds == OpKind.GET) & ops))
    ek, is_put = keys[events], kinds[events] == OpKind.PUT
    puts_before = np.cumsum(is_put) - is_put  # PUTs earlier in the trace
    order = np.lexsort((events, ek))  # by key, then time: a key's writes precede its reads
    sorted_keys, sorted_put = ek[order], is_put[order]
    put_at = np.flatnonzero(sorted_put)
    get_at = np.flatnonzero(~sorted_put)
    before = np.searchsorted(put_at, get_at)  # PUTs ahead of each GET in this order
    rec = np.full((get_at.size, LATEST_TERMS), -1, dtype=np.int64)
    now = puts_before[order[get_at]]
    for m in range(LATEST_TERMS):
        j = before - 1 - m
        cand = put_at[np.maximum(j, 0)]
        ok = (j >= 0) & (sorted_keys[cand] == sorted_keys[get_at])
        rec[ok, m] = now[ok] - 1 - puts_before[order[cand[ok]]]
    seen = rec[:, 0] >= 0
    return rec[seen], sorted_keys[get_at][seen]


def _latest_evidence(kinds: np.ndarray, keys: np.ndarray, ops: np.ndarray, n: int
                     ) -> tuple[float, float, float] | None:
    """(latest theta, its log-likelihood per read, the best popularity model's per read) of the
    operations' GETs, or None when no GET follows a PUT of its key.

    ``latest`` reads the key of the r-th most recent write, so a read's probability is the sum
    of p_theta(r) over its key's writes. Keeping only the last LATEST_TERMS makes that a lower
    bound (using the newest alone biased theta up by 0.1 when hot keys are rewritten often:
    their reads look more recent than they were drawn), and the sorted-count Zipf fit is an
    upper bound on any popularity model's (it ranks keys as well as hindsight can), so
    ``latest`` wins only on clear evidence. At most LATEST_READS reads (evenly spaced) are fitted.
    """
    rec, read_keys = _read_recencies(kinds, keys, ops)
    if rec.shape[0] == 0:
        return None
    step = -(-rec.shape[0] // LATEST_READS)
    theta, ll_latest = _latest_fit(rec[::step], n)
    _, per_key = np.unique(read_keys, return_counts=True)
    population = max(int(np.unique(keys[kinds == OpKind.PUT]).size), per_key.size)
    _, ll_popular = rank_ordered_theta(per_key, population)
    return theta, ll_latest, ll_popular / rec.shape[0]


def _spearman_both(reads: np.ndarray, writes: np.ndarray) -> tuple[float, int]:
    """Spearman's rho over the keys touched by both, and how many there are."""
    both = (reads > 0) & (writes > 0)
    m = int(both.sum())
    if m < MIN_CORRELATION_KEYS:
        return math.nan, m
    rho = stats.spearmanr(reads[both], writes[both]).statistic
    return (float(rho) if np.isfinite(rho) else math.nan), m


def update_share(puts: int, distinct: int, dist: KeyDistribution, population: int
                 ) -> float | None:
    """The share of ``puts`` Puts that updated keys already there, from the ``distinct`` keys
    they wrote: S1 inverted (docs/MODEL.md S1, ``cost_models.skew.unique_writes``). Updates
    draw their keys from ``dist`` over ``population`` keys and repeat the hot ones, while each
    insert writes a new key, so D(W; u) = (1 - u) W + sum_k (1 - e^{-q_k u W}) falls as u rises,
    and u solves D(W; u) = distinct (1 when even all-updates would write more distinct keys,
    0 when they are all distinct). None when ``dist`` cannot tell them apart: when all-updates
    would still write nearly W distinct keys (fewer than 3 sqrt(W) and 2% of W repeats, as
    from a uniform distribution over many more keys than W), the count says nothing of u."""
    if puts <= 0 or population <= 0 or not 0 < distinct <= puts:
        return None
    bins = bins_for(population, dist)
    q = key_probabilities(dist, bins, population)
    count = (bins.hi - bins.lo).astype(float)

    def excess(u: float) -> float:
        return float(unique_writes(float(puts), u, q, count)) - distinct

    repeats = puts - (excess(1.0) + distinct)  # the repeats all-updates would write
    if repeats < max(3.0 * math.sqrt(puts), 0.02 * puts):
        return None
    if excess(1.0) >= 0.0:
        return 1.0
    if excess(0.0) <= 0.0:
        return 0.0
    return float(optimize.brentq(excess, 0.0, 1.0, xtol=1e-6))


def _rank_pmf(dist: KeyDistribution, n: int) -> np.ndarray:
    bins = bins_for(n, dist)
    return np.repeat(key_probabilities(dist, bins, n), (bins.hi - bins.lo))


def shared_ranking_rho(write_keys: KeyDistribution, read_keys: KeyDistribution, n: int,
                       writes: int, reads: int) -> float:
    """The Spearman rho (over keys touched by both) that ``writes`` and ``reads`` operations
    over n keys give when both rank the keys the same way: the ceiling sampling noise leaves
    on the observed rho (mean of CORRELATION_DRAWS seeded Poisson draws; nan if too few keys)."""
    rng = np.random.default_rng(_CORRELATION_SEED)
    q, r = _rank_pmf(write_keys, n), _rank_pmf(read_keys, n)
    rhos = [_spearman_both(rng.poisson(reads * r), rng.poisson(writes * q))[0]
            for _ in range(CORRELATION_DRAWS)]
    return float(np.mean(rhos))


def _correlated(rho: float, shared: float, keys: int) -> bool:
    """Whether an observed rho says the read-hot keys are the write-hot keys (see
    CORRELATION_THRESHOLD); True, the default, when the sample cannot tell."""
    if math.isnan(rho) or math.isnan(shared) or shared < CORRELATION_NOISE / math.sqrt(keys):
        return True
    return rho > CORRELATION_THRESHOLD * shared


def estimate_skew(trace: Trace) -> SkewEstimate:
    """The skew of a trace's operations (the records outside its load and warm-up,
    :func:`wacky_traces.operations_mask`, or all).

    The existing keys are those PUT before the operations (by the load and the warm-up); with
    none, every key the trace PUTs. update_fraction: the operations' PUTs whose key was PUT
    earlier and not DELETEd since. write_keys: fitted to the per-key counts of those updates over
    the existing keys (updates of keys the operations inserted are left out: they were not there
    all along).
    read_keys: fitted to the GETs of existing keys, or ``latest:THETA`` when the reads' recencies
    explain them better (:func:`_latest_evidence`). correlated: Spearman's rho of per-key read
    and write counts over the keys both touched, above CORRELATION_THRESHOLD times the rho a
    shared ranking would give at these sample sizes (:func:`shared_ranking_rho`). When either
    side is uniform or ``latest`` the model is the same either way, and when the sample cannot
    tell (too few keys, or an expected rho lost in noise), the default True is kept.
    """
    if len(trace) == 0:
        raise ValueError("trace has no operations: the key distributions are undefined")
    kinds, keys = trace.kinds, trace.keys
    ops = operations_mask(trace)
    is_put = kinds == OpKind.PUT

    # Updates: a PUT whose key's previous PUT or DELETE is a PUT.
    writes = np.flatnonzero(is_put | (kinds == OpKind.DELETE))
    prev = _previous_same_key(keys[writes])
    existed = np.zeros(len(trace), dtype=bool)
    has_prev = prev >= 0
    existed[writes[has_prev]] = kinds[writes[prev[has_prev]]] == OpKind.PUT
    op_puts = is_put & ops
    n_puts = int(op_puts.sum())
    updates = existed & op_puts
    update_fraction = float(updates.sum() / n_puts) if n_puts else 0.0

    before = ~ops & is_put
    population_keys = np.unique(keys[before] if before.any() else keys[is_put])
    n = int(population_keys.size)

    def per_key(sel: np.ndarray) -> np.ndarray:
        k = keys[sel]
        idx = np.searchsorted(population_keys, k)
        inside = idx < n
        inside[inside] = population_keys[idx[inside]] == k[inside]
        return np.bincount(idx[inside], minlength=n)

    nan = math.nan
    if n == 0:  # nothing was ever written: no key is known to exist
        return SkewEstimate(KeyDistribution(), KeyDistribution(), update_fraction, True,
                            nan, nan, nan, nan, nan, 0, n_puts, 0, 0)
    write_counts = per_key(updates)
    read_counts = per_key((kinds == OpKind.GET) & ops)
    wfit = fit_distribution(write_counts, n)
    rfit = fit_distribution(read_counts, n)
    read_dist = rfit.dist
    latest = _latest_evidence(kinds, keys, ops, n)
    latest_theta = nan
    if latest is not None:
        latest_theta, ll_latest, ll_popular = latest
        if ll_latest > ll_popular and latest_theta >= MIN_THETA:
            read_dist = KeyDistribution("latest", theta=round(latest_theta, 3))
    rho, both = _spearman_both(read_counts, write_counts)
    shared, correlated = math.nan, True
    # Only when both sides rank keys does it matter which ranking they share (latest reads
    # follow recency instead).
    if not (wfit.dist.is_uniform or read_dist.is_uniform or read_dist.kind == "latest"
            or math.isnan(rho)):
        shared = shared_ranking_rho(wfit.dist, rfit.dist, n, wfit.samples, rfit.samples)
        correlated = _correlated(rho, shared, both)
    return SkewEstimate(
        write_keys=wfit.dist, read_keys=read_dist, update_fraction=update_fraction,
        correlated=correlated,
        write_theta=wfit.zipf_theta if wfit.samples else nan,
        read_theta=rfit.zipf_theta if rfit.samples else nan,
        latest_theta=latest_theta, correlation=rho, correlation_shared=shared, population=n,
        puts=n_puts,
        write_samples=wfit.samples, read_samples=rfit.samples,
    )


def workload_from_trace(trace: Trace, entries_per_block: float) -> Workload:
    """The :class:`Workload` a trace implies (its operations outside the load and the warm-up,
    :func:`wacky_traces.operations_mask`).

    A range's length in entries is estimated from its key span and the density of the keys the
    trace writes, (distinct PUT keys) / (their key range); with no writes it counts as short.
    ``write_keys``, ``read_keys``, ``update_fraction`` and ``correlated`` are estimated from the
    operations' keys (:func:`estimate_skew`).
    """
    from wacky_traces import trace_fractions

    f = trace_fractions(trace)
    skew = estimate_skew(trace)
    range_blocks = 0.0
    puts = np.unique(trace.keys[trace.kinds == OpKind.PUT])
    if f["range_reads"] > 0 and puts.size > 1:
        density = puts.size / (float(puts[-1] - puts[0]) + 1.0)
        range_blocks = f["range_span"] * density / float(entries_per_block)
    return Workload(
        f["point_reads"], f["zero_reads"], f["writes"], f["range_reads"], range_blocks,
        write_keys=skew.write_keys, read_keys=skew.read_keys,
        update_fraction=skew.update_fraction, correlated=skew.correlated,
    )


def system_from_trace(trace: Trace) -> dict[str, float]:
    """The :class:`~wacky_model.types.System` fields a trace gives, by name: ``entry_bytes``
    from its header; ``entries``, ``block_bytes`` and ``buffer_bytes`` from its metadata's
    ``scale`` and the filter budget (``bits_per_entry`` or ``sum_fpr``) from its ``budget``, as
    ``wacky validate --save-trace`` writes them. A trace without a scale gives as ``entries``
    the distinct keys its load phase writes, if it has one. Values that are not positive
    numbers are ignored (the metadata is free JSON); System checks the rest."""
    meta = trace.meta if isinstance(trace.meta, dict) else {}

    def number(v: object, zero_ok: bool = False) -> float | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return None
        return v if v > 0 or (zero_ok and v == 0) else None

    out: dict[str, float] = {"entry_bytes": trace.entry_bytes}
    scale = meta.get("scale")
    scale = scale if isinstance(scale, dict) else {}
    for name in ("entries", "block_bytes", "buffer_bytes"):
        v = number(scale.get(name))
        if v is not None:
            out[name] = int(v) if float(v).is_integer() else v
    budget = meta.get("budget")
    budget = budget if isinstance(budget, dict) else {}
    for name in ("bits_per_entry", "sum_fpr"):
        v = number(budget.get(name), zero_ok=name == "bits_per_entry")
        if v is not None:
            out[name] = float(v)
            break
    if "entries" not in out:
        load = np.zeros(len(trace), dtype=bool)
        for p in trace.phases:
            if p.name == "load":
                load[p.start : p.stop] = True
        keys = np.unique(trace.keys[load & (trace.kinds == OpKind.PUT)])
        if keys.size:
            out["entries"] = int(keys.size)
    return out
