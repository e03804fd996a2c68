"""Skewed keys and an LRU block cache: S1-S8 in ``docs/MODEL.md`` ("Skew and a block cache").

Keys are ranked by popularity (rank 1 the hottest; ranks fall at random in the key space but
under ``hotrange``): ``uniform``; ``zipf`` theta; ``hotset`` h p (a share h of the keys gets a
share p of the operations); ``hotrange`` h p (reads only: the hot keys one contiguous stretch,
S5r); ``latest`` theta (YCSB's: reads of the r-th most recent write, updates of the r-th most
recent insert, S1l). Writes are a share ``u`` of updates and ``1 - u`` of inserts.

S1 Unique(w), the distinct keys among w writes; S2 write amplification with runs holding
Unique(their writes); S3 where a read's key lives (age bands); S4 the false positives above it;
S5 Che's LRU cache (t_C); S6 blocks die with their runs; S7 hit rates and a read's I/O; S8 (a
what-if) filters allocated by the weighted Lagrangian for these reads.

S3-S8 take a per-level ledger from any cycle model (:func:`tree_of_levels`): the whole-level
cycle (:func:`skewed_tree`, S2), file-granular merges (:func:`file_trees`, S2f, sizes from
``cost_models.partial``) and RocksDB's universal compaction (:func:`universal_tree`, U5).
Everything is a sum over bins of ranks, O(bins x levels) a design, except S5's block draws
(from a fixed seed). A :class:`KeyMap` holds what depends on the workload alone, built once a
search; :meth:`SkewedTree.costs` adds the cache (S5-S7), the costly part. The numerical
shortcuts are described in docs/MODEL.md and checked in tests/test_skew_speed.py.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from cost_models.evaluate import allocate_fprs
from cost_models.filters import (
    bloom_bits_per_key,
    lagrangian_fprs_for_memory,
    memory_bits_per_entry,
)
from cost_models.finite import fill_layout, realized_fpr, runs_over_fill
from cost_models.partial import LeveledFiles, WindowCosts, window_costs_many
from cost_models.universal import StepWindow, UniversalRules, _pick

EXACT_RANKS = 512  # ranks below this get a bin each; above, bins grow geometrically
BIN_GROWTH = 1.02
BLOCK_SAMPLES = 2048  # blocks drawn per level to estimate S5's sums over blocks
_SEED = 0x534B4557  # "SKEW": the block draws are part of the model, fixed for reproducibility


class KeyDist(Protocol):
    """Which keys operations touch (``wacky_model.types.KeyDist``, beside the
    ``Workload`` that holds it): what S1-S8 read of it."""

    kind: str  # uniform, zipf, hotset, hotrange or latest
    theta: float  # zipf and latest
    hot_keys: float  # hotset and hotrange: h, the share of the keys that is hot
    hot_share: float  # hotset and hotrange: p, the share of operations they receive

    @property
    def is_uniform(self) -> bool: ...

    @property
    def clustered(self) -> bool: ...  # hotrange: the hot keys are contiguous in key order

    def hot_count(self, n: int) -> int: ...


@dataclass(frozen=True)
class RankBins:
    """Ranks [lo, hi) (0-based) grouped into bins; ``prob`` is each key's probability in a bin
    (the bin's mean) under the distribution it was built for."""

    lo: np.ndarray
    hi: np.ndarray

    @property
    def count(self) -> np.ndarray:
        return (self.hi - self.lo).astype(float)


def rank_bins(n: int, breaks: tuple[int, ...] = ()) -> RankBins:
    """Bins over n ranks: one per rank up to EXACT_RANKS, then growing by BIN_GROWTH, split at
    ``breaks`` (a hot set's edge) so that every distribution is flat or smooth inside a bin."""
    n = int(n)
    if n < 1:
        raise ValueError(f"the key population must be >= 1; got {n}")
    edges = list(range(min(n, EXACT_RANKS) + 1))
    x = float(edges[-1])
    while edges[-1] < n:
        x = max(x * BIN_GROWTH, edges[-1] + 1.0)
        edges.append(min(n, int(x)))
    cuts = sorted(set(edges) | {b for b in breaks if 0 < b < n})
    e = np.array(cuts, dtype=np.int64)
    return RankBins(e[:-1], e[1:])


HOT_KINDS = ("hotset", "hotrange")  # a hot set, scattered or contiguous: the same chances


def bins_for(n: int, *dists: KeyDist) -> RankBins:
    """Bins fine enough for every distribution given (hot-set edges are bin edges)."""
    return rank_bins(n, tuple(d.hot_count(n) for d in dists if d.kind in HOT_KINDS))


def _zipf_mass(lo: np.ndarray, hi: np.ndarray, theta: float) -> np.ndarray:
    """sum_{r=lo+1}^{hi} r^-theta: exact for one-rank bins, else the midpoint integral, whose
    relative error is O(theta / lo^2) beyond EXACT_RANKS."""
    a, b = lo + 0.5, hi + 0.5
    if theta == 1.0:
        wide = np.log(b / a)
    else:
        wide = (b ** (1.0 - theta) - a ** (1.0 - theta)) / (1.0 - theta)
    single = (lo + 1.0) ** -theta
    return np.where(hi - lo == 1, single, wide)


def _between(first: np.ndarray | float, past: np.ndarray) -> np.ndarray:
    """(bands, bins): each band's share between its edges, ``first`` above the first edge,
    ``past`` (a row an edge) beyond each, 0 beyond the last."""
    width = past.shape[1]
    bounds = np.vstack([np.broadcast_to(first, (1, width)), past, np.zeros((1, width))])
    return bounds[:-1] - bounds[1:]


def key_probabilities(dist: KeyDist, bins: RankBins, n: int) -> np.ndarray:
    """Each key's probability per operation, by bin (sums to 1 over all n keys)."""
    lo, hi = bins.lo.astype(float), bins.hi.astype(float)
    if dist.kind in ("zipf", "latest") and dist.theta > 0.0:
        mass = _zipf_mass(lo, hi, dist.theta)
    elif dist.kind in HOT_KINDS:
        hot = dist.hot_count(n)
        mass = np.where(bins.hi <= hot, dist.hot_share / hot,
                        (1.0 - dist.hot_share) / (n - hot)) * (hi - lo)
    else:
        mass = hi - lo
    mass = mass / mass.sum()
    return mass / (hi - lo)


def unique_writes(w: np.ndarray | float, u: float, q: np.ndarray, count: np.ndarray
                  ) -> np.ndarray:
    """S1: expected distinct keys among w writes, a share u of them updates of existing keys
    drawn with per-key probabilities q (bins of ``count`` keys), the rest inserts of new keys.
    (1 - q)^(u w) ~ e^(-q u w) is exact to O(q^2 u w), and the hottest Zipf key has q < 0.2."""
    w = np.asarray(w, dtype=float)
    # The sums over bins as products with the bins' counts (one pass, no temporary).
    hits = -(np.expm1(-np.multiply.outer(w * u, q)) @ count)
    return (1.0 - u) * w + hits


NEWTON_STEPS = 200  # S1's inverse: a cap only; from a good start it takes a handful
NEWTON_TOL = 1e-13  # relative step at which the inverse stops (the bisection stopped at 1e-9)
UNREACHABLE = 1e18  # writes beyond which a band or a run is taken never to fill (S3)


def _unique_and_slope(w: np.ndarray, u: float, q: np.ndarray, count: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """S1's D(w) and dD/dw = (1 - u) + u sum_k q_k e^{-u q_k w}, for an array of w."""
    em = np.expm1(-np.multiply.outer(w * u, q))
    d = (1.0 - u) * w - em @ count
    slope = (1.0 - u) + u * ((1.0 + em) @ (count * q))
    return d, slope


def writes_for_unique_many(d: np.ndarray | float, u: float, q: np.ndarray, count: np.ndarray,
                           start: np.ndarray | None = None) -> np.ndarray:
    """S1 inverted elementwise: the writes whose distinct keys number d (inf if updates alone
    cannot reach it). Newton's method from w = d or ``start``: D is increasing and concave with
    D(w) <= w, so the iterates climb to the root without a bracket, quadratically once close."""
    return _invert_unique(d, u, float(count.sum()),
                          lambda w: _unique_and_slope(w, u, q, count), start)


def _invert_unique(d: np.ndarray | float, u: float, population: float,
                   unique_and_slope: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                   start: np.ndarray | None) -> np.ndarray:
    """:func:`writes_for_unique_many` for any increasing, concave D with D(w) <= w given as
    ``unique_and_slope`` (S1's, or S1l's under latest writes); with u = 1 D saturates at the
    ``population``, which no number of writes reaches."""
    d = np.asarray(d, dtype=float)
    out = np.zeros(d.shape)
    never = np.full(d.shape, u >= 1.0) & (d >= population * (1.0 - 1e-12))
    out[never] = math.inf
    todo = (d > 0.0) & ~never
    target = d[todo]
    w = target.copy() if start is None else np.maximum(np.broadcast_to(start, d.shape)[todo],
                                                       target)
    for _ in range(NEWTON_STEPS):
        got, slope = unique_and_slope(w)
        miss = target - got
        step = miss / slope
        w = np.maximum(w + step, target)
        # Done when the steps are negligible or D is hit as closely as its sum can resolve
        # (near saturation, u = 1, a tiny slope turns D's rounding into steps that never are).
        if np.all((np.abs(step) <= NEWTON_TOL * w) | (np.abs(miss) <= 1e-14 * target)):
            break
    out[todo] = w
    return out


def writes_for_unique(d: float, u: float, q: np.ndarray, count: np.ndarray) -> float:
    """S1 inverted: the writes whose distinct keys number d (inf if updates alone cannot)."""
    return float(writes_for_unique_many(float(d), u, q, count))


# ---- S1l: latest writes (docs/MODEL.md, "S1l. Unique(w) under latest writes") ---------------

# S2f's mean of D under latest writes has no closed form: a table of its integral on
# AREA_WRITES (:meth:`LatestWrites.mean_unique_and_slope`), and beyond it Gauss-Legendre, 4
# nodes a panel, on panels a decade wide below p (and one from 0 to p 10^-MEAN_DECADES), as D
# is smooth in ln w.
MEAN_DECADES = 8


def _mean_nodes() -> tuple[np.ndarray, np.ndarray]:
    """Nodes x in (0, 1) and weights (summing to 1): the mean of f over [0, p] is
    sum_j W_j f(p x_j)."""
    nodes, weights = np.polynomial.legendre.leggauss(4)
    edges = np.concatenate(([0.0], 10.0 ** -np.arange(MEAN_DECADES, -1, -1.0)))
    a, b = edges[:-1, None], edges[1:, None]
    return ((a + b) / 2 + (b - a) / 2 * nodes).ravel(), ((b - a) / 2 * weights).ravel()


_MEAN_X, _MEAN_W = _mean_nodes()
AREA_WRITES = np.geomspace(1e-2, 1e20, 16 * 22 + 1)  # S2f's table under latest writes


@dataclass(frozen=True, eq=False)
class LatestWrites:
    """S1l: updates of the key of the r-th most recent insert, r Zipf(theta) over the M keys present
    at the priced moment (YCSB's ``latest``). A key's rank is its insertion recency, growing by 1 -
    u a write on average; the Zipf is normalized over M (``zeta``) and goes on beyond it for the
    older keys a span's inserts push down (docs/MODEL.md S1l).

    The ranks are binned as S1's, each bin at ``pos``, the rank whose chance is the bin's mean (so
    with u = 1 every sum is S1's). C(x) = sum_{s < x} (s + 1)^-theta, linear between whole ranks
    below EXACT_RANKS and the midpoint integral beyond; Z(x) = C(x) / zeta."""

    theta: float
    u: float
    keys: float  # M: the keys present at the priced moment
    history: float  # H: writes since the load (inf: the steady state)
    zeta: float  # C(M)
    table: np.ndarray  # C(k) for k = 0..EXACT_RANKS
    bins: RankBins  # over the M ranks
    pos: np.ndarray  # each bin's representative rank
    # S1l's sums over the bins at their ranks, split for speed: the first ``split`` bins are
    # whole ranks below EXACT_RANKS (``weights``: (k + 1)^-theta of rank k), the others lie
    # where C is smooth (``far``: pos + 1/2 of each).
    split: int = 0
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    far: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # S3's latest-reads sums by H (inf: every H past the read bins), and H = inf's rows before
    # the sums (``_touched``), under inf, which the rows of a smaller H begin with.
    _reads: dict = field(default_factory=dict, repr=False)
    _rows: dict = field(default_factory=dict, repr=False)
    _area: dict = field(default_factory=dict, repr=False)  # S2f's table of int_0^w D

    def _far(self, y: np.ndarray) -> np.ndarray:
        """The antiderivative of y^-theta (the midpoint integral's, y = x + 1/2)."""
        if self.theta == 1.0:
            return np.log(y)
        return y ** (1.0 - self.theta) / (1.0 - self.theta)

    def weight(self, x: np.ndarray | float) -> np.ndarray:
        """C'(x): the (unnormalized) chance of the rank at x, (floor x + 1)^-theta in the exact
        ranks, (x + 1/2)^-theta beyond."""
        x = np.asarray(x, dtype=float)
        k = np.minimum(np.floor(x), EXACT_RANKS - 1)
        return np.where(x < EXACT_RANKS, k + 1.0, x + 0.5) ** -self.theta

    def cumulative(self, x: np.ndarray | float) -> np.ndarray:
        """C(x), x >= 0."""
        x = np.asarray(x, dtype=float)
        k = np.clip(np.floor(x), 0, EXACT_RANKS - 1).astype(np.intp)
        near = self.table[k] + (x - k) * (k + 1.0) ** -self.theta
        top = float(self.table[EXACT_RANKS])
        far = top + self._far(np.maximum(x, EXACT_RANKS) + 0.5) - self._far(EXACT_RANKS + 0.5)
        return np.where(x <= EXACT_RANKS, near, far)

    def rise(self, a: np.ndarray, s: np.ndarray) -> np.ndarray:
        """C(a + s) - C(a) for a, s >= 0 (broadcast), without the cancellation of the plain
        difference when s is small (u near 1, a short span)."""
        a, s = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(s, dtype=float))
        plain = self.cumulative(a + s) - self.cumulative(a)
        k = np.floor(a)
        same = (a < EXACT_RANKS) & (np.floor(a + s) == k)  # within one whole rank
        y = np.maximum(a, EXACT_RANKS) + 0.5
        ratio = np.log1p(s / y)
        far = (ratio if self.theta == 1.0
               else y ** (1.0 - self.theta) * np.expm1((1.0 - self.theta) * ratio)
               / (1.0 - self.theta))
        return np.where(a >= EXACT_RANKS, far, np.where(same, s * self.weight(a), plain))

    def positions(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The rank standing for each bin [lo, hi): lo for one rank, else where the chance is
        the bin's mean (the midpoint where that has no inverse)."""
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        c = hi - lo
        mid = (lo + hi - 1.0) / 2.0
        if self.theta == 0.0:
            return np.where(c <= 1.0, lo, mid)
        mean = (self.cumulative(hi) - self.cumulative(lo)) / np.maximum(c, 1e-300)
        at_mean = mean ** (-1.0 / self.theta) - 0.5
        return np.where(c <= 1.0, lo, np.where(lo >= EXACT_RANKS, at_mean, mid))

    def chances(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Each key's chance per update now, by bin [lo, hi) of ranks (the bin's mean)."""
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        return (self.cumulative(hi) - self.cumulative(lo)) / (self.zeta * (hi - lo))

    def _rise_at_bins(self, s: np.ndarray) -> np.ndarray:
        """(shifts, bins): C(pos + s) - C(pos) at every bin's rank, :meth:`rise` with the
        bins' split known (the whole ranks by table, the far ones by log1p and expm1)."""
        k0, theta = self.split, self.theta
        s = s[:, None]
        a = self.pos[None, :k0]
        x = a + s
        k = np.minimum(np.floor(x), EXACT_RANKS - 1).astype(np.intp)
        within = x < EXACT_RANKS
        upto = np.where(within, self.table[k] + (x - k) * self.weights[k],
                        self.table[EXACT_RANKS] + self._far(np.maximum(x, EXACT_RANKS) + 0.5)
                        - self._far(EXACT_RANKS + 0.5))
        near = np.where(within & (k == a), s * self.weights[a.astype(np.intp)],
                        upto - self.table[a.astype(np.intp)])
        ratio = np.log1p(s / self.far[None, :])
        far = (ratio if theta == 1.0 else self.far ** (1.0 - theta)
               * np.expm1((1.0 - theta) * ratio) / (1.0 - theta))
        return np.concatenate([near, far], axis=1)

    def _weight_at_bins(self, s: np.ndarray) -> np.ndarray:
        """(shifts, bins): C'(pos + s), :meth:`weight` at every bin's rank shifted by s."""
        s = s[:, None]
        x = self.pos[None, :self.split] + s
        k = np.minimum(np.floor(x), EXACT_RANKS - 1).astype(np.intp)
        near = np.where(x < EXACT_RANKS, self.weights[k], (x + 0.5) ** -self.theta)
        return np.concatenate([near, (self.far[None, :] + s) ** -self.theta], axis=1)

    def hazard(self, w: np.ndarray | float) -> np.ndarray:
        """H(a, w), (w..., bins): the updates a key at rank a (each bin's ``pos``) expects over
        the next w writes, u sum_{t<w} z(a + (1 - u) t) = u/(1 - u) [Z(a + (1 - u) w) - Z(a)]
        (S1l), u w z(a) when ranks never move (u = 1)."""
        w = np.asarray(w, dtype=float)
        u = self.u
        flat = w.reshape(-1)
        if u >= 1.0:
            h = np.multiply.outer(u * flat, self.weight(self.pos) / self.zeta)
        else:
            h = (u / (1.0 - u) / self.zeta) * self._rise_at_bins((1.0 - u) * flat)
        return h.reshape(w.shape + (self.pos.size,))

    def unique(self, w: np.ndarray | float) -> np.ndarray:
        """S1l's D(w) = (1 - u) w + sum_a (1 - e^{-H(a, w)}), elementwise."""
        w = np.asarray(w, dtype=float)
        return (1.0 - self.u) * w + np.sum(self.bins.count * -np.expm1(-self.hazard(w)),
                                           axis=-1)

    def unique_and_slope(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """D(w) and dD/dw = (1 - u) + u sum_a z(a + (1 - u) w) e^{-H(a, w)}."""
        w = np.asarray(w, dtype=float)
        u = self.u
        em = np.expm1(-self.hazard(w))
        d = (1.0 - u) * w + np.sum(self.bins.count * -em, axis=-1)
        dh = (u / self.zeta) * self._weight_at_bins((1.0 - u) * w.reshape(-1)).reshape(em.shape)
        return d, (1.0 - u) + np.sum(self.bins.count * (1.0 + em) * dh, axis=-1)

    def _area_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """S2f's int_0^w D on AREA_WRITES (Simpson's rule between its points, D(w) ~ w below
        the first), with D there: built once (about 20 ms), it makes a mean two evaluations
        of D instead of a quadrature's 36."""
        if not self._area:
            grid = AREA_WRITES
            mid = 0.5 * (grid[1:] + grid[:-1])
            d, dm = self.unique(grid), self.unique(mid)
            step = np.diff(grid) / 6.0 * (d[:-1] + 4.0 * dm + d[1:])
            area = np.concatenate(([0.5 * grid[0] * d[0]], 0.5 * grid[0] * d[0]
                                   + np.cumsum(step)))
            for a in (d, area):
                a.setflags(write=False)
            self._area.update(grid=grid, d=d, area=area)
        return self._area["grid"], self._area["d"], self._area["area"]

    def mean_unique_and_slope(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """S2f's mean of D over [0, p] and its slope, (D(p) - mean) / p: from the table of
        int_0^w D at its point below p plus Simpson's rule from there (a quadrature beyond
        the table, :data:`MEAN_DECADES`)."""
        p = np.asarray(p, dtype=float)
        grid, d_grid, area = self._area_table()
        inside = (p >= grid[0]) & (p <= grid[-1])
        j = np.clip(np.searchsorted(grid, p, side="right") - 1, 0, grid.size - 1)
        start = np.where(inside, grid[j], 0.0)
        d_start = np.where(inside, d_grid[j], 0.0)
        d_p, d_mid = self.unique(p), self.unique(0.5 * (start + p))
        total = np.where(inside, area[j], 0.0) + (p - start) / 6.0 * (d_start + 4.0 * d_mid
                                                                       + d_p)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(p > 0, total / np.where(p > 0, p, 1.0), 0.0)
        beyond = p > grid[-1]
        if beyond.any():
            mean = np.where(beyond, self.unique(np.multiply.outer(p, _MEAN_X)) @ _MEAN_W, mean)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(p > 0, (d_p - mean) / np.where(p > 0, p, 1.0), 0.5)
        return mean, slope

    def inserts(self, age: np.ndarray, hist: float) -> np.ndarray:
        """I(A): the inserts among the last A writes, (1 - u) of the writes since the load and
        every write of the load before them (H = inf: the steady state)."""
        age = np.asarray(age, dtype=float)
        during_load = np.maximum(age - hist, 0.0) if math.isfinite(hist) else np.zeros(age.shape)
        if self.u >= 1.0:  # no inserts after the load (and (1 - u) inf is no number)
            return during_load
        return (1.0 - self.u) * np.minimum(age, hist) + during_load

    def _recent_hazard(self, age: np.ndarray, pos: np.ndarray, hist: float) -> np.ndarray:
        """(ages, keys): the updates a key now at rank ``pos`` took over the last A writes (the
        load updated nothing): going back, its rank falls by 1 - u a write."""
        after = np.minimum(np.asarray(age, dtype=float), hist)[:, None]
        if self.u >= 1.0:
            with np.errstate(invalid="ignore"):
                return np.where(after > 0, after * self.u * self.weight(pos) / self.zeta, 0.0)
        back = np.minimum((1.0 - self.u) * after, pos[None, :])  # it was not there before
        return (self.u / (1.0 - self.u) / self.zeta) * self.rise(pos[None, :] - back, back)

    def survival(self, age: np.ndarray, lo: np.ndarray, hi: np.ndarray, hist: float,
                 kept: np.ndarray | None = None) -> np.ndarray:
        """(ages, bins): P(the newest write of a key of ranks [lo, hi) now is older than A): it
        was inserted before A (its rank is at least I(A); a share of a bin) and no update took
        it since (``kept``, e^-hazard, when the caller has it)."""
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        age = np.asarray(age, dtype=float)
        with np.errstate(invalid="ignore"):
            share = np.clip((hi[None, :] - self.inserts(age, hist)[:, None]) / (hi - lo)[None, :],
                            0.0, 1.0)
        share = np.nan_to_num(share, nan=0.0)
        if kept is None:
            kept = np.exp(-self._recent_hazard(age, self.positions(lo, hi), hist))
        return share * kept

    def placement(self, edges: np.ndarray, lo: np.ndarray, hi: np.ndarray, hist: float,
                  kept: np.ndarray | None = None) -> np.ndarray:
        """S3 (bands, bins): where keys of ranks [lo, hi) now have their newest version
        (``kept``: :meth:`survival`'s)."""
        return _between(1.0, self.survival(edges, lo, hi, hist, kept))

    def _touch_rows(self, read_lo: np.ndarray, read_hi: np.ndarray, mass: np.ndarray,
                    hist: float) -> np.ndarray:
        """(read bins, key bins): P(a read of a write of read bin j) x the chance that write
        touched each key of a key bin (:meth:`_touched`). Row j depends on read bin j alone, so
        the rows of a slice of the read bins are that slice of the rows."""
        u, klo, khi = self.u, self.bins.lo.astype(float), self.bins.hi.astype(float)
        c = khi - klo
        rlo, rhi = read_lo.astype(float), read_hi.astype(float)
        age = 0.5 * (rlo + rhi)
        after = age < hist
        ins_share = np.where(after, 1.0 - u, 1.0)[:, None]
        upd_share = np.where(after, u, 0.0)[:, None]
        a, b = self.inserts(rlo, hist)[:, None], self.inserts(rhi, hist)[:, None]
        over = np.clip(np.minimum(b, khi) - np.maximum(a, klo), 0.0, None)
        point = ((a >= klo) & (a < khi)).astype(float)  # no inserts in the bin: one rank
        ins = np.where(b > a, over / np.maximum(b - a, 1e-300), point) / c
        then = self.inserts(age, hist)[:, None]
        upd = (self.cumulative(np.maximum(khi - then, 0.0))
               - self.cumulative(np.maximum(klo - then, 0.0))) / (self.zeta * c)
        return mass[:, None] * (ins_share * ins + upd_share * upd)

    def _touched(self, read: RankBins, mass: np.ndarray, hist: float) -> np.ndarray:
        """(read bins + 1, key bins): over the writes of age bin j and beyond, P(a read of that
        write) x the chance it touched each key of a key bin: an insert (1 - u) of the key now at
        rank I(r), an update u of the key now at a. Kept per H, the same for every design.

        A read bin whose writes all came after the load (its oldest age at most H) has the same
        row at every such H, H = inf's: I(r) = (1 - u) r there. So every H past the last bin is
        H = inf, and below it only the older bins' rows are computed again (U5r asks at each
        sampled flush's own H, hundreds of them a design)."""
        after = int(np.searchsorted(read.hi.astype(float), hist, side="right"))  # hi <= H
        key = math.inf if after == read.hi.size else hist
        if key in self._reads:
            return self._reads[key]
        if key == math.inf or after == 0:
            touch = self._touch_rows(read.lo, read.hi, mass, key)
        else:
            self._touched(read, mass, math.inf)  # keeps H = inf's rows in _rows
            touch = np.vstack([self._rows[math.inf][:after],
                               self._touch_rows(read.lo[after:], read.hi[after:], mass[after:],
                                                hist)])
        out = np.vstack([np.cumsum(touch[::-1], axis=0)[::-1], np.zeros((1, touch.shape[1]))])
        out.setflags(write=False)
        self._reads[key] = out
        if key == math.inf:
            touch.setflags(write=False)
            self._rows[math.inf] = touch
        return out

    def latest_reads(self, edges: np.ndarray, read: RankBins, mass: np.ndarray, hist: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """S3 for ``latest`` reads under latest writes: (place, pop_count, pop_rate) over the key
        bins. A read of the write r ago finds its key older than e < r when no update took it in
        the last e writes: the reads landing beyond edge e are e^{-hazard over e} times those of
        writes older than e (:meth:`_touched`); a key's rate in a band is its landing over its
        time share there."""
        touched = self._touched(read, mass, hist)
        age = 0.5 * (read.lo + read.hi).astype(float)
        beyond = touched[np.searchsorted(age, edges, side="right")]
        klo, khi = self.bins.lo.astype(float), self.bins.hi.astype(float)
        # No update took the key since edge e: the landing's factor and the placement's (``pos``
        # is the key bins' positions(klo, khi), kept at construction).
        kept = np.exp(-self._recent_hazard(edges, self.pos, hist))
        landing = _between(touched[:1], kept * beyond)
        stay = self.placement(edges, klo, khi, hist, kept)
        rate = np.where(stay > 1e-12, landing / np.maximum(stay, 1e-12), 0.0)
        return stay, self.bins.count, rate


def latest_writes(entries: int, dist: KeyDist, u: float, history: float) -> LatestWrites:
    """S1l's map of the ranks for ``entries`` loaded keys, ``history`` writes after the load:
    the Zipf is over the M = entries + (1 - u) H keys then present (entries in the steady
    state, where the tree holds ``entries`` keys)."""
    m = float(entries) + ((1.0 - u) * history if math.isfinite(history) else 0.0)
    theta = float(dist.theta)
    table = np.concatenate(([0.0], np.cumsum(np.arange(1, EXACT_RANKS + 1, dtype=float)
                                            ** -theta)))
    table.setflags(write=False)
    bins = rank_bins(max(1, int(round(m))))
    shell = LatestWrites(theta, float(u), m, float(history), 1.0, table, bins, np.zeros(0))
    zeta = float(shell.cumulative(float(bins.hi[-1])))
    pos = shell.positions(bins.lo, bins.hi)
    split = int(np.searchsorted(pos, EXACT_RANKS))  # the bins of one whole rank below it
    weights = np.arange(1, EXACT_RANKS + 1, dtype=float) ** -theta
    far = pos[split:] + 0.5
    for a in (pos, weights, far):
        a.setflags(write=False)
    return replace(shell, zeta=zeta, pos=pos, split=split, weights=weights, far=far)


@dataclass(frozen=True)
class SkewedWorkload:
    """The operations the skew model prices (math layer: plain fields, checked by callers)."""

    write_dist: KeyDist
    read_dist: KeyDist
    update_fraction: float = 0.0  # u: writes that update an existing key
    correlated: bool = True  # the read-hot keys are the write-hot keys
    reads_per_write: float = 1.0  # existing-key reads per write
    zero_read_share: float = 0.0  # the share of point lookups that find nothing (S8's weights)
    # Writes since the N keys were loaded (one insert per write): sets which keys are still
    # where the load put them. inf: the steady state of this write mix, in which the N keys
    # are the inserts of the last N / (1 - u) writes.
    history_writes: float = math.inf


@dataclass(frozen=True)
class SkewedCosts:
    """Per-operation costs under skew (S2-S7); per-level tuples start at Level 1."""

    write_amp: float  # entries written by flushes and merges per write
    level_write_amp: tuple[float, ...]  # the part of it written into each level
    cycle_writes: float  # writes between two full merges of Level L (S2)
    point_read: float  # block reads per existing-key read drawn from the read distribution
    cache_hit_rate: float  # hits / (hits + misses) over every block a point read needs
    cache_hit_rate_per_level: tuple[float, ...]
    read_buffer_share: float  # reads served by the write buffer
    read_level_share: tuple[float, ...]  # reads whose newest version is at Level i
    false_positives: float  # blocks read in vain per read
    level_entries: tuple[float, ...]
    level_runs: tuple[float, ...]
    run_lifetime_writes: tuple[float, ...]  # mean life of a cached block's run, in writes
    characteristic_time_writes: float  # S5's t_C (inf when the cache never fills)
    zero_result_read: float  # false positives of a zero-result read, the engine's filters
    # S8, a what-if: the same filter memory allocated by the weighted Lagrangian for these reads
    # (probe weights per level), which the engine does not build.
    probe_weights: tuple[float, ...]
    weighted_point_read: float
    weighted_zero_result_read: float
    # B1 (LSbM): the compaction buffer's extra space, as a share of the levels' entries
    # (0 without a buffer), and the share of each level's blocks it keeps.
    buffer_space: float = 0.0
    buffer_kept: tuple[float, ...] = ()
    # S7f: the share of each level's blocks the cache holds (what a read of a block of the
    # level at random finds), the levels as the other per-level tuples; and how many of the
    # first are level 0's runs (S2f's RocksDB trees: 1 while level 0 holds runs, else 0).
    cached_share_per_level: tuple[float, ...] = ()
    level0_levels: int = 0
    # The runs a read that reaches each level probes (``_probed``: a level's own run only where
    # its files span the key, P7's coverage over the window); S7r's seeks. Empty: level_runs.
    level_probed: tuple[float, ...] = ()


def _log_interp(x: np.ndarray, log_x: np.ndarray, log_y: np.ndarray,
                outside: np.ndarray | float) -> np.ndarray:
    """A table of ln y against ln x read at x, ``outside`` where x is off the table."""
    with np.errstate(divide="ignore"):
        y = np.log(x)
    inside = (y >= log_x[0]) & (y <= log_x[-1])
    return np.where(inside, np.exp(np.interp(y, log_x, log_y)), outside)


@dataclass(frozen=True, eq=False)
class KeyMap:
    """The keys as S1-S7 see them for one population and workload: the rank bins, each key's
    write (q) and read (r) chance, and S1. None of it depends on the design, so a search builds
    it once (:func:`key_map`) and prices every candidate with it."""

    entries: int
    write_dist: KeyDist
    read_dist: KeyDist
    update_fraction: float
    bins: RankBins
    count: np.ndarray  # keys per bin
    q: np.ndarray  # each key's chance per write, by bin
    r: np.ndarray  # each key's chance per read, by bin
    # S1 tabulated, ln D and ln w on a log grid of w (empty: not tabulated), for starting
    # guesses of its inverse: a search inverts S1 some 10 times per design.
    log_unique: np.ndarray = field(default_factory=lambda: np.zeros(0))
    log_writes: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # S2f's mean of S1 tabulated the same way (ln of the mean, ln w), for its inverse's guesses.
    log_mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    log_mean_writes: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # S1l (``latest`` writes; None: q is stationary): q is then by insertion recency.
    latest: LatestWrites | None = None
    # S1 inverted at single values a search asks for again and again (a flush's F).
    _inverted: dict = field(default_factory=dict, repr=False)
    # Pure results a search's designs share, by what they depend on besides the map.
    _memo: dict = field(default_factory=dict, repr=False)

    def unique(self, w: np.ndarray | float) -> np.ndarray:
        """S1's D(w) (S1l's under latest writes), elementwise."""
        if self.latest is not None:
            return self.latest.unique(w)
        return unique_writes(w, self.update_fraction, self.q, self.count)

    def unique_one(self, w: float) -> float:
        """S1's D(w) of one number, with fewer array operations (the same to rounding)."""
        if self.latest is not None:
            return float(self.latest.unique(float(w)))
        u = self.update_fraction
        return (1.0 - u) * w - float(np.dot(self.count, np.expm1((-u * w) * self.q)))

    def guess_writes(self, d: np.ndarray | float) -> np.ndarray:
        """S1 inverted roughly (to ~1e-3 where tabulated, else d, a lower bound)."""
        d = np.asarray(d, dtype=float)
        return _log_interp(d, self.log_unique, self.log_writes, d) if self.log_unique.size else d

    def guess_write(self, d: float) -> float:
        """:meth:`guess_writes` of one number."""
        if d <= 0.0 or not self.log_unique.size:
            return d
        y = math.log(d)
        if not self.log_unique[0] <= y <= self.log_unique[-1]:
            return d
        return math.exp(float(np.interp(y, self.log_unique, self.log_writes)))

    def writes_for(self, d: np.ndarray | float) -> np.ndarray:
        """S1 inverted, elementwise (to NEWTON_TOL)."""
        if self.latest is not None:
            return _invert_unique(d, self.update_fraction, self.latest.keys,
                                  self.latest.unique_and_slope, self.guess_writes(d))
        return writes_for_unique_many(d, self.update_fraction, self.q, self.count,
                                      start=self.guess_writes(d))

    def writes_for_one(self, d: float) -> float:
        """:meth:`writes_for` of one number, kept: every design of a search inverts its F."""
        if d not in self._inverted:
            self._inverted[d] = float(self.writes_for(d))
        return self._inverted[d]

    def guess_mean_writes(self, e: np.ndarray) -> np.ndarray | None:
        """S2f's mean of S1 inverted roughly (None where not tabulated)."""
        if not self.log_mean.size:
            return None
        return _log_interp(e, self.log_mean, self.log_mean_writes, np.nan)

    def hottest_read_share(self, keys: float) -> float:
        """The reads that go to the ``keys`` keys read most: the most a cache holding blocks of
        that many keys' newest versions can serve (1 under ``latest``, whose hot keys move)."""
        if self.read_dist.kind == "latest" or keys >= self.entries:
            return 1.0
        order = np.argsort(-self.r, kind="stable")
        count, mass = self.count[order], (self.r * self.count)[order]
        before = np.concatenate(([0.0], np.cumsum(count)))
        i = int(np.searchsorted(before, keys, side="right")) - 1  # the bin the last key is in
        got = float(np.sum(mass[:i])) + (keys - before[i]) * float(self.r[order][i])
        return min(1.0, got)

    def serves(self, entries: int, workload: SkewedWorkload) -> bool:
        """Whether this is the map :func:`key_map` builds for ``entries`` and ``workload``."""
        return (self.entries == int(entries) and self.write_dist == workload.write_dist
                and self.read_dist == workload.read_dist
                and self.update_fraction == float(workload.update_fraction)
                # S1l's population is the keys present after the history's inserts.
                and (self.latest is None
                     or self.latest.history == float(workload.history_writes)))


TABLE_WRITES = np.geomspace(1.0, 1e20, 8 * 20 + 1)  # S1's table: 8 points a decade


def _check_clustered(workload: SkewedWorkload) -> None:
    """S5r prices a hot key range for reads whose placement (S3) does not depend on where a
    key sits: refuse it for writes, and for reads correlated with skewed writes (which would
    make the writes' hot keys a range too); wacky_model.compat.KEY_REFUSALS says why."""
    if workload.write_dist.kind == "hotrange":
        raise ValueError("hotrange is priced for reads only (S5r): the write distribution "
                         "must not be a hot key range")
    if (workload.read_dist.kind == "hotrange" and workload.correlated
            and not workload.write_dist.is_uniform):
        raise ValueError("hotrange reads correlated with skewed writes would make the writes' "
                         "hot keys a range: give correlated=False or uniform writes")


def key_map(entries: float, workload: SkewedWorkload, *, tabulate: bool = True) -> KeyMap:
    """The design-independent part of S1-S7 for ``entries`` keys under ``workload``.
    ``tabulate``: also tabulate S1 (about 1 ms), which pays when pricing several designs."""
    n = int(entries)
    u = float(workload.update_fraction)
    _check_clustered(workload)
    bins = bins_for(n, workload.write_dist, workload.read_dist)
    latest = None
    if workload.write_dist.kind == "latest":
        latest = latest_writes(n, workload.write_dist, u, float(workload.history_writes))
        q = latest.chances(bins.lo, bins.hi)  # the n newest keys' chances now
    else:
        q = key_probabilities(workload.write_dist, bins, n)
    arrays = [bins.count, q, key_probabilities(workload.read_dist, bins, n)]
    if tabulate:
        d = (unique_writes(TABLE_WRITES, u, arrays[1], arrays[0]) if latest is None
             else latest.unique(TABLE_WRITES))
        # Where D stops rising in floating point (updates alone saturate at N) the inverse
        # is left to Newton's method from d.
        rising = np.concatenate(([True], np.diff(d) > 0))
        keep = np.cumprod(rising).astype(bool)
        arrays += [np.log(d[keep]), np.log(TABLE_WRITES[keep])]
        # S2f's mean of D over [0, w] by the trapezoid rule (D(w) ~ w below the grid): guesses.
        area = 0.5 * TABLE_WRITES[0] * d[0] + np.concatenate(
            ([0.0], np.cumsum(0.5 * (d[1:] + d[:-1]) * np.diff(TABLE_WRITES))))
        mean = area / TABLE_WRITES
        keep = np.cumprod(np.concatenate(([True], np.diff(mean) > 0))).astype(bool)
        arrays += [np.log(mean[keep]), np.log(TABLE_WRITES[keep])]
    for a in arrays:
        a.setflags(write=False)  # shared by every design priced with the map
    return KeyMap(n, workload.write_dist, workload.read_dist, u, bins, *arrays, latest=latest)


@dataclass(frozen=True)
class _Level:
    entries: float  # mean entries over its fill
    runs: float  # mean runs
    batch_writes: float  # writes one arriving batch spans
    lives: np.ndarray  # lifetimes of its run versions, in writes
    weights: np.ndarray  # each version's share of the level's block-time
    # S3: the distinct keys of the level's age band, whose S1 inverse is the band's writes
    # (None: the level's mean entries, as for whole levels; a file-granular level's band
    # varies along the keys, S2f).
    band_entries: float | None = None
    # P7: the share of the keys inside the files of the level's own run, where a read that
    # passes the level probes it (a whole level: 1; a file-granular one: the walk's coverage).
    span: float = 1.0
    # U5r: each version's time at the level (a universal run sits at a rank for part of its
    # life), for S7f's run sizes (:func:`_smallness`); None: every version's life.
    times: np.ndarray | None = None

    @property
    def band(self) -> float:
        return self.entries if self.band_entries is None else self.band_entries

    def __post_init__(self) -> None:
        # Versions of equal life are one class to S6 (most live one batch): merge them.
        times = None if self.times is None else np.asarray(self.times, float).ravel()
        if np.size(self.lives) <= 1 or times is not None:  # nothing to merge (U5r: versions
            lives = np.array(np.ravel(self.lives), dtype=float)  # of one life differ in size)
            weights = np.array(np.ravel(self.weights), dtype=float)
        elif np.size(self.lives) <= 64:  # np.unique's overhead is most of a few versions' cost
            merged: dict[float, float] = {}
            for life, weight in zip(np.ravel(self.lives).tolist(),
                                    np.ravel(self.weights).tolist(), strict=True):
                merged[life] = merged.get(life, 0.0) + weight
            lives = np.array(sorted(merged), dtype=float)
            weights = np.array([merged[x] for x in lives.tolist()], dtype=float)
        else:
            lives, where = np.unique(np.asarray(self.lives, float), return_inverse=True)
            weights = np.bincount(where.ravel(), weights=np.asarray(self.weights, float).ravel(),
                                  minlength=lives.size)
        object.__setattr__(self, "lives", lives)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "times", times)


def _version_lives(m: int, q: int, sizes: np.ndarray, batch: float, end: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """S6: batch k (1..m) writes a new version of the active run holding sizes[k-1] entries;
    it lives one batch, or, when it completes a run (or is the last), until the level empties
    at batch ``end``. Returns the lives (in writes) and block-time weights."""
    k = np.arange(1, m + 1)
    completes = (k % q == 0) | (k == m)
    life = np.where(completes, end - k, 1.0) * batch
    time = sizes * life
    return life, time / max(time.sum(), 1e-300)


MAX_BATCHES_PER_RUN = 1 << 20  # M1's q_i is capped here (a run that updates can never fill)


def _unique_multiples(span: float, count: int, keys: KeyMap) -> np.ndarray:
    """D(e span) for e = 0..count (D(0) = 0), in slices so that a huge count stays in memory."""
    step = 2048
    if count < step:
        out = keys.unique(np.arange(count + 1) * span)
        out[0] = 0.0
        return out
    out = np.zeros(count + 1)
    for lo in range(1, count + 1, step):
        e = np.arange(lo, min(count, lo + step - 1) + 1)
        out[e] = keys.unique(e * span)
    return out


def _batches(writes: float, span: float) -> int:
    """The batches of ``span`` writes that reach ``writes`` (>= 1, capped)."""
    if not math.isfinite(writes):
        return MAX_BATCHES_PER_RUN
    return int(min(max(1.0, math.ceil(writes / span)), MAX_BATCHES_PER_RUN))


def _run_fill(run_cap: float, span: float, keys: KeyMap) -> tuple[int, np.ndarray]:
    """M1 in writes: q, the fewest batches (>= 1, capped) of ``span`` writes whose distinct keys
    fill ``run_cap``, and D(e span) for e = 0..q. q is read off S1's inverse and then checked
    against D itself, so that it is the count a batch-by-batch count gives."""
    q = _batches(keys.guess_write(run_cap), span)
    ups = _unique_multiples(span, q, keys)
    if q < MAX_BATCHES_PER_RUN and ups[q] < run_cap:
        q = max(q, _batches(float(keys.writes_for(run_cap)), span))
        ups = _unique_multiples(span, q, keys)
    while q < MAX_BATCHES_PER_RUN and ups[q] < run_cap:  # the root within rounding of q span
        q += 1
        ups = _unique_multiples(span, q, keys)
    while q > 1 and ups[q - 1] >= run_cap:
        q -= 1
    return q, ups[:q + 1]


def _upper_level(a: int, cap: float, span: float, keys: KeyMap) -> tuple[_Level, float, int]:
    """S2 (M1 in writes) for a level above Level L with a runs and capacity ``cap``, taking
    batches of ``span`` writes: the level, the entries merges write into it per write, and m, the
    batches a fill takes. Kept on the key map: a search's designs share levels."""
    memo = ("upper", a, cap, span)
    if memo in keys._memo:
        return keys._memo[memo]
    cap_hi = cap * (1.0 + 1e-9)
    run_cap = cap / a * (1.0 - 1e-9)
    # A run fills after qi batches; the level takes batches while its runs fit (M1).
    qi, ups = _run_fill(run_cap, span, keys)  # ups[e]: the active run after e batches
    full = float(ups[qi])
    # Batch k leaves f full runs and an active one of e batches; the fill stops before
    # the first batch that would overfill the level, at the latest when the runs that fit
    # whole (fit of them, so the batches past them overfill it) and one more are written.
    fit = a if full <= 0 else min(a, int(cap_hi // full))
    while fit < a and (fit + 1) * full <= cap_hi:
        fit += 1
    while fit > 0 and fit * full > cap_hi:
        fit -= 1
    f, e = np.divmod(np.arange(1, min(a, fit + 1) * qi + 1), qi)
    held = f * full + ups[e]
    over = np.flatnonzero(held > cap_hi)
    m = int(over[0]) if over.size else a * qi
    sizes_arr = ups[np.where(e == 0, qi, e)][:m]  # the run each batch rewrites
    held_after = np.concatenate(([0.0], held[:m]))
    wa = float(np.sum(sizes_arr)) / ((m + 1) * span)
    if m:
        lives, weights = _version_lives(m, qi, sizes_arr, span, m + 1)
    else:
        lives, weights = np.zeros(0), np.zeros(0)
    runs = float(runs_over_fill(np.float64(m), np.float64(qi)))
    level = _Level(float(np.mean(held_after)), runs, span, lives, weights)
    for x in (level.lives, level.weights):
        x.setflags(write=False)  # shared by every design with this level
    out = keys._memo[memo] = (level, wa, m)
    return out


def _levels_many(knobs: np.ndarray, S: float, layouts: np.ndarray, F: float, keys: KeyMap
                 ) -> tuple[list[tuple[list[_Level], list[float], float]], object]:
    """S2 of many designs (``knobs``: T, C, X, K, Z by design) at total size S: each one's
    levels, their write amplification per write, the writes between full merges of Level L, and
    the structures. M1's layout is one pass for all; levels are sized by the entries they hold,
    Level L's duplicates included (``layouts``), while the keys number S."""
    lay = fill_layout(*np.asarray(knobs, dtype=float), layouts, np.full(layouts.shape, F))
    L = np.sum(lay.s.valid, axis=-1)
    return [_cycle_levels(lay.runs[j], lay.caps[j], int(L[j]), S, F, float(layouts[j]), keys)
            for j in range(layouts.size)], lay.s


def _cycle_levels(runs: np.ndarray, caps: np.ndarray, L: int, S: float, F: float,
                  layout: float, keys: KeyMap) -> tuple[list[_Level], list[float], float]:
    """S2 for one design whose M1 layout has ``runs`` and ``caps`` on its L levels."""
    u = keys.update_fraction
    span = keys.writes_for_one(F)  # S1: a flush holds F distinct keys
    levels: list[_Level] = []
    level_wa: list[float] = []  # entries written per write by merges into each level
    for i in range(L - 1):
        level, wa, m = _upper_level(int(runs[i]), float(caps[i]), span, keys)
        levels.append(level)
        level_wa.append(wa)
        span *= m + 1
    # Level L (S2): each arriving batch either builds a run or, with a_L runs there, merges all.
    a_L = int(runs[L - 1])
    inserts = (1.0 - u) * span
    if a_L == 1:
        level_wa.append((S + inserts) / span)
        cycle = span
        levels.append(_Level(S, 1.0, span, np.array([span]), np.array([1.0])))
    else:
        # M3 with batches in writes: runs at Level L are not merged with each other, so the
        # level holds S0 plus every run's entries, duplicates included; a run is full at 1/a_L
        # of that (the capacity re-anchors on every merge into Level L). After a_L - 1 runs,
        # the next batch merges all of it into the S0 + inserts distinct keys.
        S0 = S
        held, runs_done, active_writes = S0, 0, 0.0
        active = 0.0  # D(active_writes): the active run's entries
        lives: list[float] = []  # in writes; < 0: until the full merge, from that time
        sizes: list[float] = []
        built_writes = clock = occupied = 0.0
        while runs_done < a_L - 1 and len(sizes) < 1 << 16:
            # Levels 1..L-1 re-anchor on Level L (App. E), so the batch grows with it (M3).
            batch = span * (held + active) / layout
            active_writes += batch
            clock += batch
            size = active = keys.unique_one(active_writes)
            built_writes += size
            occupied += batch * (held + size)
            lives.append(batch)
            sizes.append(size)
            if size >= (held + size) / a_L * (1.0 - 1e-9):
                lives[-1] = -clock
                held, runs_done, active_writes, active = held + size, runs_done + 1, 0.0, 0.0
        last = span * held / layout  # the batch that triggers the full merge
        cycle = clock + last
        occupied += last * held
        mean_L = occupied / cycle  # Level L's entries over the cycle, duplicates included
        life_arr = np.array([cycle] + [cycle + x if x < 0 else x for x in lives])
        size_arr = np.array([S0] + sizes)
        level_wa.append((built_writes + S0 + (1.0 - u) * cycle) / cycle)
        time = life_arr * size_arr
        per_run = len(sizes) / max(runs_done, 1)
        runs_L = a_L / 2.0 + (per_run - 1.0) / per_run  # M7's average when the start is unknown
        levels.append(_Level(mean_L, runs_L, span, life_arr, time / time.sum()))
    return levels, level_wa, cycle


def _age_edges(sizes: np.ndarray, keys: KeyMap, hist: float) -> np.ndarray:
    """S3: the ages A_0 < A_1 < ... bounding bands whose keys, still there, number ``sizes``:
    the keys written in (A_{i-1}, A_i] number D(A_i - A_{i-1}) in the steady state; in a
    validation window, D of the part after the load plus the writes before it (each the load's
    insert of a key of its own). S1's inverse gives each edge directly."""
    if not math.isfinite(hist):
        spans = keys.writes_for(sizes)
        return np.cumsum(np.where(spans > UNREACHABLE, math.inf, spans))
    edges, a = [], 0.0
    for size in sizes:
        if a >= hist:  # every write in the band is one of the load's
            b = a + size
        else:
            room = float(keys.unique(hist - a))  # the band's keys if it reaches back to the load
            b = (a + float(keys.writes_for(size)) if room >= size
                 else hist + (size - room))
        edges.append(b)
        a = b
    return np.array(edges)


def _age_edges_many(sizes: Sequence[np.ndarray], keys: KeyMap, hist: float
                    ) -> list[np.ndarray]:
    """:func:`_age_edges` of many designs' bands; in the steady state S1 is inverted for every
    band of every design in one Newton solve."""
    if math.isfinite(hist) or not sizes:
        return [_age_edges(x, keys, hist) for x in sizes]
    # Designs that share upper levels share their bands' sizes: each size inverted once.
    distinct, where = np.unique(np.concatenate(sizes), return_inverse=True)
    spans = keys.writes_for(distinct)[where.ravel()]
    spans = np.where(spans > UNREACHABLE, math.inf, spans)
    cuts = np.cumsum([x.size for x in sizes])[:-1]
    return [np.cumsum(x) for x in np.split(spans, cuts)]


def _latest_landing(edges: np.ndarray, mid: np.ndarray, mass_r: np.ndarray, u: float,
                    q: np.ndarray) -> np.ndarray:
    """S3 for ``latest``: (bands, keys), the reads of updated key k (drawn from q) that land in
    each band. A read of the write r ago (mass_r) finds k older than edge e with chance
    e^{-u q_k e} if e < r, else 0, so summed over r that is e^{-u q_k e} times the read mass
    beyond e; band i gets the difference between its two edges."""
    order = np.argsort(mid, kind="stable")
    tail = np.concatenate((np.cumsum(mass_r[order][::-1])[::-1], [0.0]))
    beyond = tail[np.searchsorted(mid[order], edges, side="right")]  # sum over mid_r > edge
    older = np.exp(-u * edges[:, None] * q[None, :]) * beyond[:, None]  # (edges, keys)
    return _between(mass_r.sum(), older)


@dataclass(frozen=True)
class _BlockDraws:
    """One level's share of S5's block draws, as ``rng.choice(keys, (BLOCK_SAMPLES, B), p)`` then
    ``rng.random((BLOCK_SAMPLES, B)) < fill`` draw them: the choice's uniforms sorted (a level's
    key mix splits them with one search per bin), each one's block, the liveness uniforms in the
    same order, and ``starts``, how many are below j / DRAW_BUCKETS for j = 0..DRAW_BUCKETS (and
    that count again), for :func:`_draws_below`."""

    keys: np.ndarray
    block: np.ndarray
    alive: np.ndarray
    starts: np.ndarray


DRAW_BUCKETS = 1 << 16  # a power of two, so that a uniform's bucket is exact


@functools.lru_cache(maxsize=32)
def _block_draws(entries_per_block: int, slot: int) -> _BlockDraws:
    """The draws of the ``slot``-th level that has live keys (S5), from the model's fixed seed:
    constants of the model, kept because sorting them is most of their cost (1.5 MB at B = 32)."""
    size = BLOCK_SAMPLES * entries_per_block
    bits = np.random.PCG64(_SEED)  # what np.random.default_rng(_SEED) runs on
    bits.advance(2 * slot * size)  # each level before it drew its keys and their liveness
    rng = np.random.Generator(bits)
    keys, alive = rng.random(size), rng.random(size)
    # Sorted by their top 16 bits first (a radix sort), then fully (a merge sort of runs that
    # are then nearly all in order): about a third of one argsort's time.
    bucket = (keys * float(DRAW_BUCKETS)).astype(np.uint16)
    coarse = np.argsort(bucket, kind="stable")
    order = coarse[np.argsort(keys[coarse], kind="stable")]
    starts = np.zeros(DRAW_BUCKETS + 2, dtype=np.intp)
    np.cumsum(np.bincount(bucket, minlength=DRAW_BUCKETS), out=starts[1:-1])
    starts[-1] = size
    out = _BlockDraws(keys[order], (order // entries_per_block).astype(np.intp), alive[order],
                      starts)
    for a in (out.keys, out.block, out.alive, out.starts):
        a.setflags(write=False)
    return out


def _draws_below(draws: _BlockDraws, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(draws.keys, values, side="left")`` for values in [0, 1], each found in its
    bucket of about one draw (a quarter faster than a binary search of the draws)."""
    at = (values * float(DRAW_BUCKETS)).astype(np.intp)  # exact: a power of two
    lo = draws.starts[at]
    size = draws.starts[at + 1] - lo
    # Each value against every draw of its bucket, bucket after bucket.
    which = np.repeat(np.arange(values.size), size)
    first = np.cumsum(size) - size
    draw = np.arange(which.size) + np.repeat(lo - first, size)
    below = which[draws.keys[draw] < values[which]]
    return lo + np.bincount(below, minlength=values.size)


BLOCK_RATES_KEPT = 1024  # levels whose block rates a search keeps (up to 36 kB each)


def _block_rates(levels: Sequence[_Level], place: np.ndarray, pop_count: np.ndarray,
                 pop_rate: np.ndarray, entries_per_block: int, reads_per_write: float,
                 memo: dict | None = None, slots: Sequence[int] | None = None) -> np.ndarray:
    """S5: (levels, BLOCK_SAMPLES), the read rates (per write) of the blocks drawn per level, B
    entries each from the level's live keys, a share of them older versions nobody reads (no live
    keys: zeros); draw for draw ``rng.choice``'s blocks (tests/test_skew_speed.py). ``memo``: a
    search's shared results, where a level's rates are kept by its live keys. ``slots``: each
    level's draws (None: the levels with live keys in turn), which U5r's phases of one level
    share."""
    kept_rates = {} if memo is None else memo.setdefault("block rates", {})
    out = np.zeros((len(levels), BLOCK_SAMPLES))
    slot = 0
    shared = pop_rate.strides[0] == 0  # every level's keys read at the same rates
    rates_key = np.ascontiguousarray(pop_rate[0], dtype=float).tobytes() if shared else b""
    lives = place[1:len(levels) + 1] * pop_count  # every level's live keys at once
    totals = lives.sum(axis=1).tolist()
    for i, lev in enumerate(levels):
        live, live_total = lives[i], totals[i]
        if live_total <= 0:
            continue
        fill = min(1.0, live_total / max(lev.entries, 1e-300))
        rates = rates_key or np.ascontiguousarray(pop_rate[i + 1], dtype=float).tobytes()
        if slots is not None:
            slot = int(slots[i])
        # Searching the level's draws is most of its cost (they fall out of the CPU's cache).
        kept = (entries_per_block, slot, live.tobytes(), rates, fill)
        row = kept_rates.get(kept)
        if row is None:
            draws = _block_draws(entries_per_block, slot)
            cdf = np.cumsum(live / live_total)  # as rng.choice builds it
            cdf /= cdf[-1]
            # The draws below cdf[k] and not below cdf[k-1] are of bin k.
            per_key = np.diff(_draws_below(draws, cdf), prepend=0)
            row = _drawn_rates(entries_per_block, slot, per_key.tobytes(), rates, fill)
            if len(kept_rates) < BLOCK_RATES_KEPT:
                kept_rates[kept] = row
        out[i] = row
        slot += 1
    return reads_per_write * out


@functools.lru_cache(maxsize=256)
def _drawn_rates(entries_per_block: int, slot: int, per_key: bytes, rates: bytes, fill: float
                 ) -> np.ndarray:
    """The summed rates of a level's BLOCK_SAMPLES blocks from the draws of its ``slot``, given the
    sorted draws per bin (``per_key``), the bins' rates and the live share. Kept: without updates,
    or with uncorrelated reads, every level's live keys mix alike (S3), so they draw alike."""
    draws = _block_draws(entries_per_block, slot)
    values = np.repeat(np.frombuffer(rates), np.frombuffer(per_key, dtype=np.intp))
    if fill < 1.0:  # the uniforms are below 1: all alive otherwise
        values = np.where(draws.alive < fill, values, 0.0)
    out = np.bincount(draws.block, weights=values, minlength=BLOCK_SAMPLES)
    out.setflags(write=False)
    return out


def _live_count_pmf(entries_per_block: int, fill: float) -> np.ndarray:
    """P(j of a block's B entries are live), j = 0..B: Binomial(B, fill), each entry of the
    level live with chance ``fill`` (as S5 draws them), by its log-pmf's recurrence."""
    B = int(entries_per_block)
    j = np.arange(B + 1, dtype=float)
    if fill <= 0.0 or fill >= 1.0:
        return (j == (B if fill >= 1.0 else 0)).astype(float)
    log_choose = np.concatenate(([0.0], np.cumsum(np.log(B - j[:-1]) - np.log(j[1:]))))
    return np.exp(log_choose + j * math.log(fill) + (B - j) * math.log1p(-fill))


def _range_block_rates(levels: Sequence[_Level], place: np.ndarray, pop_count: np.ndarray,
                       pop_rate: np.ndarray, entries_per_block: int, reads_per_write: float
                       ) -> tuple[np.ndarray, np.ndarray]:
    """S5r: (rates, shares), each (levels, terms): the read rates (per write) of a level's blocks
    when each bin's keys are one contiguous stretch of the key order (``hotrange``), and each
    rate's share of the level's blocks. Bin k's stretch holds live_k = place_k count_k live keys
    and the share count_k / n of the other entries: e_k = live_k + (E - sum live) count_k / n. A
    share e_k / E of the blocks lie there, each entry live with chance live_k / e_k: a block with
    j of them reads at j rate_k, j binomial (straddling blocks are left out). Bins alike in rate
    and liveness are one stretch to the sum."""
    B = int(entries_per_block)
    n = float(np.sum(pop_count))
    rows: list[tuple[np.ndarray, np.ndarray]] = []
    for i, lev in enumerate(levels):
        live = place[i + 1] * pop_count
        live_total = float(live.sum())
        if live_total <= 0:
            rows.append((np.zeros(0), np.zeros(0)))
            continue
        stretch = live + max(lev.entries - live_total, 0.0) * pop_count / n
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = np.where(stretch > 0, live / stretch, 0.0)
        share = stretch / stretch.sum()
        rate = np.asarray(pop_rate[i + 1], dtype=float)
        # One class per distinct (rate, fill), to 12 digits (the bins' rates are means that
        # round differently): its blocks' share summed.
        scale = max(float(rate.max()), 1e-300)
        _, first, where = np.unique(np.round(np.stack([rate / scale, fill]), 12), axis=1,
                                    return_index=True, return_inverse=True)
        class_share = np.bincount(where.ravel(), weights=share, minlength=first.size)
        j = np.arange(B + 1, dtype=float)
        values = np.concatenate([j * rate[b] for b in first])
        weights = np.concatenate([class_share[c] * _live_count_pmf(B, float(fill[b]))
                                  for c, b in enumerate(first)])
        rows.append((values, weights))
    width = max(1, max(v.size for v, _ in rows))
    rates, shares = np.zeros((len(levels), width)), np.zeros((len(levels), width))
    for i, (v, w) in enumerate(rows):
        rates[i, :v.size], shares[i, :w.size] = v, w
    return reads_per_write * rates, shares


NODE_SPREAD = 1.25  # S5-S6's sums group values within this factor of each other


def _grouped_nodes(values: np.ndarray, weights: np.ndarray | float, counts: np.ndarray,
                   spread: float = NODE_SPREAD, extra: np.ndarray | None = None
                   ) -> tuple[np.ndarray, ...]:
    """A short weighted stand-in for weighted values in rows (``counts`` values a row): each row's
    values binned by ln(value / the row's least) in steps of ln(spread), a bin of several replaced
    by two nodes at its weighted mean plus and minus its standard deviation, half its weight each.
    Each bin keeps its weight, mean and variance, so a smooth function's weighted sum changes by
    O((spread - 1)^3) (S5-S6's t_C and hit rates by ~1e-5 at 1.25; tests/test_skew_speed.py).
    Zeros and infinities are nodes of their own, as is every value with spread <= 1. ``weights``:
    one number when all weigh the same (bit for bit the same nodes when a power of two). Returns
    the nodes, their weights and rows, and with ``extra`` its weighted mean over each node."""
    alike = np.ndim(weights) == 0  # one weight for all
    n_rows = counts.size
    rows = np.repeat(np.arange(n_rows), counts)
    plain = np.isfinite(values)
    plain &= values > 0
    if spread <= 1.0 or not plain.any():
        out = values, np.broadcast_to(weights, values.shape).astype(float), rows
        return out if extra is None else (*out, extra)
    v, w, row = values, weights, rows
    odd = np.zeros(0, dtype=np.intp)  # where the zeros and infinities are
    if not plain.all():
        odd = np.flatnonzero(~plain)
        v, row = values[plain], rows[plain]
        w = weights if alike else weights[plain]
        counts = np.bincount(row, minlength=n_rows)
    filled = counts > 0
    least = np.full(n_rows, np.inf)
    least[filled] = np.minimum.reduceat(v, (np.cumsum(counts) - counts)[filled])
    # The arrays are long (every block of every level of a batch of trees): worked in place.
    x = v / least[row]
    np.log(x, out=x)
    x *= 1.0 / math.log(spread)
    step = np.floor(x, out=x).astype(np.intp)
    width = int(step.max()) + 1
    key = row * width
    key += step
    size = np.bincount(key, minlength=n_rows * width)
    used = np.flatnonzero(size)
    index = np.zeros(n_rows * width, dtype=np.intp)
    index[used] = np.arange(used.size)
    group = index[key]
    if alike:  # a bin's plain mean and variance, and its count's weight
        total = size[used] * float(weights)
        safe = size[used]
        mean = np.bincount(group, weights=v, minlength=used.size) / safe
    else:
        total = np.bincount(group, weights=w, minlength=used.size)
        safe = np.where(total > 0, total, 1.0)
        mean = np.bincount(group, weights=w * v, minlength=used.size) / safe
    spread_sq = np.subtract(v, mean[group])
    spread_sq *= spread_sq
    if not alike:
        spread_sq *= w
    sd = np.sqrt(np.bincount(group, weights=spread_sq, minlength=used.size) / safe)
    level = used // width
    one, many = size[used] == 1, size[used] > 1
    odd_weights = np.full(odd.size, float(weights)) if alike else weights[odd]
    out = (np.concatenate([mean[one], mean[many] - sd[many], mean[many] + sd[many],
                           values[odd]]),
           np.concatenate([total[one], total[many] / 2.0, total[many] / 2.0, odd_weights]),
           np.concatenate([level[one], level[many], level[many], rows[odd]]))
    if extra is None:
        return out
    x = extra[plain] if odd.size else extra
    x_mean = np.bincount(group, weights=x if alike else w * x, minlength=used.size) / safe
    return (*out, np.concatenate([x_mean[one], x_mean[many], x_mean[many], extra[odd]]))


@dataclass(frozen=True)
class _CacheTerms:
    """S5-S6's sums over blocks and run versions, flattened over the levels: term j is a block
    reading at rate lam[j] in a run that lives life[j], standing for occ[j] blocks of the cache
    and req[j] of its level's reads (per write)."""

    lam: np.ndarray
    life: np.ndarray
    occ: np.ndarray
    req: np.ndarray
    level: np.ndarray  # the level each term belongs to
    reads: np.ndarray  # per level: its blocks' mean read rate, sum of req over its terms
    mortal: bool  # every run dies (every life finite), the usual case
    # S6g: each term's blocks the cache keeps after their run is deleted (occ where the engine
    # leaves a deleted file's blocks in its LRU, as stock RocksDB does; 0 where it drops them);
    # None: no term's are kept.
    ghost: np.ndarray | None = None

    @property
    def keeps_dead(self) -> bool:
        """Some deleted run's blocks stay cached (S6g): then no cache is ever big enough."""
        return self.ghost is not None and bool(np.any(
            (self.ghost > 0) & np.isfinite(self.life) & (self.lam > 0)))

    def _ghosts(self, t: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """S6g per term: the deleted blocks' mean occupancy at t and its slope in ln t."""
        if self.ghost is None:
            zero = np.zeros_like(self.lam)
            return zero, zero
        g, dg = _dead_cached(self.lam, self.life, t)
        return self.ghost * g, self.ghost * dg

    @functools.cached_property
    def _neg_lam(self) -> np.ndarray:
        """-lam, which each of Newton's steps for t_C would otherwise negate again."""
        return -self.lam

    @functools.cached_property
    def _occ_lam(self) -> np.ndarray:
        """occ lam, the occupancy's slope's weights but for the age term."""
        return self.occ * self.lam

    def _mortal_hit(self, t: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """S6's h at a finite t > 0 (one for all, or one a term) when every run dies and every
        rate is > 0 (:func:`_hit` bit for bit: -x / lam = x / -lam exactly), and (life - t)^+
        e^{-lam t}."""
        neg, life = self._neg_lam, self.life
        cached_since = np.expm1(neg * np.minimum(t, life)) / neg  # integral of e^{-lam a}
        late = np.maximum(life - t, 0.0) * np.exp(neg * t)  # (life - t)^+ e^{-lam t}
        return np.clip(1.0 - (cached_since + late) / life, 0.0, 1.0), late

    def occupancy(self, t: float) -> float:
        """Che: the blocks cached, sum over blocks of P(cached) (S5 with S6's h), and S6g's
        blocks of deleted runs still cached."""
        if self.keeps_dead and math.isinf(t):
            return math.inf
        # Not ``@``: BLAS may thread a long dot product, which costs more than it saves here.
        live = float(np.sum(self.occ * _hit(self.lam, self.life, t)))
        return live if self.ghost is None else live + float(np.sum(self._ghosts(t)[0]))

    @functools.cached_property
    def _apart(self) -> tuple[_CacheTerms, np.ndarray, np.ndarray] | None:
        """The terms of runs that die, and the rates and blocks of those that never do (B1's
        blocks the buffer keeps at Level L), for their sums apart; None when a rate is 0."""
        if not np.all(self.lam > 0):
            return None
        dies = np.isfinite(self.life)
        mortal = _CacheTerms(self.lam[dies], self.life[dies], self.occ[dies], self.req[dies],
                             self.level[dies], self.reads, True,
                             None if self.ghost is None else self.ghost[dies])
        return mortal, self.lam[~dies], self.occ[~dies]

    def occupancy_and_slope(self, t: float) -> tuple[float, float]:
        """The occupancy at a finite t > 0 and its derivative in ln t."""
        if self.ghost is not None:  # S6g: the deleted runs' blocks besides the live ones
            g, dg = self._ghosts(t)
            h, dh = _hit_and_slope(self.lam, self.life, t)
            return (float(np.sum(self.occ * h)) + float(np.sum(g)),
                    t * float(np.sum(self.occ * dh)) + float(np.sum(dg)))
        if not self.mortal:
            if self._apart is None:
                h, dh = _hit_and_slope(self.lam, self.life, t)
                return float(np.sum(self.occ * h)), t * float(np.sum(self.occ * dh))
            # Che's 1 - e^{-lam t} for the runs that never die, the mortal sums for the rest.
            mortal, lam, occ = self._apart
            occupied, slope = mortal.occupancy_and_slope(t)
            decay = np.exp(-lam * t)
            return (occupied + float(np.sum(occ * (1.0 - decay))),
                    slope + t * float(np.sum(occ * lam * decay)))
        # _hit and its slope in one pass (every rate is > 0: blocks nobody reads are left out).
        h, late = self._mortal_hit(t)
        return (float(np.sum(self.occ * h)),
                t * float(np.sum(self._occ_lam * late / self.life)))

    def hit_rates(self, t: float, level_blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """S7: each level's request-weighted hit rate, sum lam h / sum lam, and the share of
        its ``level_blocks`` blocks cached, sum occ h / blocks (S7f: what a lookup reading a
        block of the level at random finds, as a zero-result lookup's false positive does)."""
        hit = (self._mortal_hit(t)[0] if self.mortal and 0.0 < t < math.inf
               else _hit(self.lam, self.life, t))
        return _level_hits(self, hit, level_blocks)


def _level_hits(terms: _CacheTerms, h: np.ndarray, level_blocks: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`_CacheTerms.hit_rates` from each term's chance ``h`` of being cached."""
    L = terms.reads.size
    hit = np.bincount(terms.level, weights=terms.req * h, minlength=L)
    cached = np.bincount(terms.level, weights=terms.occ * h, minlength=L)
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(terms.reads > 0, hit / np.where(terms.reads > 0, terms.reads, 1.0), 0.0)
    return hit, np.clip(cached / np.maximum(level_blocks, 1e-300), 0.0, 1.0)


@dataclass(frozen=True)
class _FalsePositives:
    """S7f: existing-key reads' false positives as cache requests, per level: ``bulk``, the rate
    (per write) every block gets from keys dense enough to be many a block; and the sparse keys,
    each reading a block of its own: ``rate``, ``keys`` and ``level`` per node."""

    bulk: np.ndarray
    rate: np.ndarray
    keys: np.ndarray
    level: np.ndarray


FpClasses = tuple[np.ndarray, np.ndarray, np.ndarray]  # S7f's rate classes: rate, keys, band


def _read_keys(tree: SkewedTree) -> tuple[np.ndarray, np.ndarray]:
    """S7f's rates (per write) of each population, a row for every band or, as usual when
    every band's keys are read alike, one for all; and the keys of each band and population
    that reads draw."""
    pop_rate = tree.pop_rate[:1] if tree.pop_rate.strides[0] == 0 else tree.pop_rate
    rate = tree.reads_per_write * np.asarray(pop_rate, dtype=float)
    keys_in = tree.place * tree.pop_count[None, :]
    if not np.all(rate > 0):  # keys nobody reads (all are read, usually)
        keys_in = np.where(rate > 0, keys_in, 0.0)
    return rate, keys_in


def _fp_classes(tree: SkewedTree, spread: float) -> FpClasses:
    """:func:`_false_positive_requests`' rate classes of one tree (:func:`_rate_classes`)."""
    rate, keys_in = _read_keys(tree)
    if spread > 1.0 and (keys_in > 0).any():
        return _rate_classes(keys_in, rate, spread)
    read = keys_in > 0
    band, pop = np.nonzero(read)
    return rate[band if rate.shape[0] > 1 else 0, pop], keys_in[read], band


def _fp_classes_many(trees: Sequence[SkewedTree], spread: float = NODE_SPREAD
                     ) -> list[FpClasses]:
    """:func:`_fp_classes` of many trees, in one pass when they read alike (one row of rates, the
    same for all, and the same least rate read), as a search's trees do: a class is a band's own."""
    read_keys = [_read_keys(tree) for tree in trees]
    rate = read_keys[0][0]
    if (spread <= 1.0 or rate.shape[0] != 1
            or not all(r.shape == rate.shape and np.array_equal(r, rate) for r, _ in read_keys)):
        return [_fp_classes(tree, spread) for tree in trees]
    keys_in = np.concatenate([k for _, k in read_keys])
    bands = np.array([k.shape[0] for _, k in read_keys])
    first = np.cumsum(bands) - bands
    present = np.logical_or.reduceat(keys_in > 0, first, axis=0)  # (trees, populations)
    if not present.any(axis=1).all():
        return [_fp_classes(tree, spread) for tree in trees]
    least = [float(rate[0, p].min()) for p in present]
    if any(x != least[0] for x in least):
        return [_fp_classes(tree, spread) for tree in trees]
    rho, keys, band = _rate_classes(keys_in, rate, spread)
    cut = np.searchsorted(band, first[1:])  # band after band: each tree's together
    return [(r, k, b - f) for r, k, b, f in zip(np.split(rho, cut), np.split(keys, cut),
                                               np.split(band, cut), first, strict=True)]


def _rate_classes(keys_in: np.ndarray, rate: np.ndarray, spread: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S7f's classes: each band's keys (``keys_in``, (bands, populations)) binned by ln(rate / the
    least rate read) in steps of ln(spread), ``rate`` a row per band or one for all. Returns each
    class's mean rate, keys and band, band after band, slowest first; the unread keys add zeros."""
    read = keys_in > 0
    least = float(rate[0, read.any(axis=0)].min() if rate.shape[0] == 1 else rate[read].min())
    with np.errstate(divide="ignore"):  # rates 0, of keys nobody reads: class 0 (no keys)
        step = np.floor(np.log(rate / least) / math.log(spread))
    # Unread keys slower than the least rate read are in no class either.
    step = np.maximum(np.where(rate > 0, step, 0.0), 0.0).astype(np.intp)
    width = int(step.max()) + 1
    key = (np.arange(keys_in.shape[0])[:, None] * width + step).ravel()
    size = keys_in.shape[0] * width
    keys = np.bincount(key, weights=keys_in.ravel(), minlength=size)
    used = np.flatnonzero(keys > 0)
    keys_rate = np.bincount(key, weights=(keys_in * rate).ravel(), minlength=size)
    return keys_rate[used] / keys[used], keys[used], used // width


def _false_positive_requests(tree: SkewedTree, level_blocks: np.ndarray,
                             spread: float = NODE_SPREAD, classes: FpClasses | None = None
                             ) -> _FalsePositives:
    """S7f. A read of a key deeper than Level i (or in another of its runs) probes each run there,
    whose filter passes the key with chance p_i for the run's life: the key then reads the block
    holding it at its own rate. Keys colder than the rate at which there is one such key a block
    are summed into every block (``bulk``); hotter ones are each their block's main reader
    (``keys``, ``rate``). Each band's keys go in classes of rates within ``spread`` (1: every
    population apart); ``classes``: :func:`_fp_classes`, when the caller has them."""
    L = len(tree.levels)
    rho, keys, band = _fp_classes(tree, spread) if classes is None else classes
    order = np.argsort(-rho, kind="stable")  # hottest first, for every level alike
    rho, keys, band = rho[order], keys[order], band[order]
    level = np.arange(L)[:, None]
    # Keys in deeper bands pass every run of Level i; keys of Level i (band i + 1) pass the
    # runs newer than theirs, (a_i - 1) / 2 of them on average (S4).
    runs = tree.runs[:, None]
    passes = np.where(band > level + 1, tree.probed[:, None],
                      np.where(band == level + 1, np.maximum(runs - 1.0, 0.0) / 2.0, 0.0))
    n = tree.fpr[:, None] * passes * keys
    # The hottest keys, up to one a block, are sparse; the rest are bulk: min(n, (blocks -
    # the keys hotter)^+), in place.
    sparse = np.cumsum(n, axis=1)
    sparse -= n
    np.subtract(level_blocks[:, None], sparse, out=sparse)
    np.maximum(sparse, 0.0, out=sparse)
    np.minimum(n, sparse, out=sparse)
    bulk = ((n - sparse) @ rho) / level_blocks
    # A sparse key slower than its level's mean block rate barely changes its block's: it is
    # priced in bulk too, which keeps the cache's sums short.
    mean = tree.share[1:] * tree.reads_per_write / level_blocks + bulk
    slow = rho[None, :] <= mean[:, None]
    bulk = bulk + ((sparse * slow) @ rho) / level_blocks
    at, col = np.nonzero((sparse > 0) & ~slow)
    return _FalsePositives(bulk, rho[col], sparse[at, col], at)


LifeNodes = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _smallness(lev: _Level) -> np.ndarray:
    """S7f: each run version's mean run size over its own, ē / e_v. A version's weight is its
    block-time share, e_v ℓ_v / Σ e ℓ, so e_v ∝ w_v / ℓ_v, and ē (a run's size averaged over
    its time) is Σ e ℓ / Σ ℓ: ē / e_v = ℓ_v / (w_v Σ ℓ), ℓ the version's time at the level
    (U5r's ``times``; its life where a version spends its life there). All 1 for one version
    or a run that never dies."""
    lives, w = lev.lives, lev.weights
    if lives.size < 2 or not np.all(np.isfinite(lives)) or np.any(w <= 0):
        return np.ones(lives.size)
    time = lives if lev.times is None else lev.times
    if not time.sum() > 0:  # no version is ever passed: no false positives to spread
        return np.ones(lives.size)
    return time / (w * time.sum())


def _life_nodes(levels: Sequence[_Level], spread: float) -> LifeNodes:
    """Every level's run-version lives shortened by :func:`_grouped_nodes`, level by level:
    (lives, weights, where each level's start, how many each level has, and each node's
    versions' mean :func:`_smallness`, weighted as the node weighs them)."""
    values = np.concatenate([lev.lives for lev in levels])
    weights = np.concatenate([lev.weights for lev in levels])
    counts = np.array([lev.lives.size for lev in levels])
    small = np.concatenate([_smallness(lev) for lev in levels])
    if spread > 1.0 and any(lev.times is not None for lev in levels):
        # U5r: a rank's runs differ in size as much as in life, and S7f's false positives
        # crowd a small run's few blocks: versions apart in size are nodes apart. A version no
        # read passes has smallness 0 (it takes no false positives, _smallness): it has no
        # size step (log 0), so such versions are a group of their own, below the others.
        passed = small > 0
        size = np.zeros(small.size, dtype=np.intp)
        if passed.any():
            step = np.floor(np.log(small[passed]) / math.log(spread)).astype(np.intp)
            size[passed] = step - step.min() + int(not passed.all())
        key = np.repeat(np.arange(len(levels)), counts) * (int(size.max()) + 1) + size
        by = np.argsort(key, kind="stable")
        rows, row = np.unique(key[by], return_inverse=True)
        life_n, lw_n, row_n, small_n = _grouped_nodes(
            values[by], weights[by], np.bincount(row.ravel()), spread, small[by])
        lev_l = rows[row_n] // (int(size.max()) + 1)
    else:
        life_n, lw_n, lev_l, small_n = _grouped_nodes(values, weights, counts, spread, small)
    order = np.argsort(lev_l, kind="stable")  # each level's lives together
    life_len = np.bincount(lev_l, minlength=len(levels))
    return (life_n[order], lw_n[order], np.cumsum(life_len) - life_len, life_len,
            small_n[order])


def _pairs(lev_n: np.ndarray, start: np.ndarray, length: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each node of level ``lev_n`` paired with every life node of its level (``start``,
    ``length`` per level): the pairs per node, each pair's life node and level."""
    reps = length[lev_n]
    first = np.cumsum(reps) - reps
    which = start[np.repeat(lev_n, reps)] + np.arange(int(reps.sum())) - np.repeat(first, reps)
    return reps, which, np.repeat(lev_n, reps)


def _with_false_positives(terms: _CacheTerms, fp: _FalsePositives, levels: Sequence[_Level],
                          level_blocks: np.ndarray, spread: float = NODE_SPREAD,
                          lives: LifeNodes | None = None) -> _CacheTerms:
    """S7f's sparse false positives added to S5-S6's terms: a block read by one reads at its rate
    plus its level's mean block rate for the run's life: a pair of terms, the first at the sum,
    the second taking the mean-rate occupancy and requests back out (summed per level and life:
    a third fewer terms). ``lives``: :func:`_life_nodes` at ``spread``, when the caller has them."""
    if not fp.rate.size:
        return terms
    L = len(levels)
    rate_n, keys_n, lev_n = _grouped_nodes(fp.rate, fp.keys, np.bincount(fp.level,
                                                                          minlength=L), spread)
    life_n, lw_n, start, length, _ = _life_nodes(levels, spread) if lives is None else lives
    reps, which, level = _pairs(lev_n, start, length)
    mean = terms.reads[level]
    occ = np.repeat(keys_n, reps) * lw_n[which]
    # A level nobody else reads: nothing to take back out (and no term at rate 0, S5).
    back = mean > 0
    rho = np.repeat(rate_n, reps)
    # What is taken back out, per life node (of one level, at its mean rate).
    taken = np.bincount(which[back], weights=occ[back], minlength=life_n.size)
    node = np.flatnonzero(np.bincount(which[back], minlength=life_n.size))
    node_level = np.repeat(np.arange(L), length)[node]
    node_mean, node_occ = terms.reads[node_level], taken[node]
    req = np.concatenate([terms.req, occ / level_blocks[level] * (rho + mean),
                          -(node_occ / level_blocks[node_level] * node_mean)])
    lvl = np.concatenate([terms.level, level, node_level])
    return _CacheTerms(np.concatenate([terms.lam, rho + mean, node_mean]),
                       np.concatenate([terms.life, life_n[which], life_n[node]]),
                       np.concatenate([terms.occ, occ, -node_occ]), req, lvl,
                       np.bincount(lvl, weights=req, minlength=L), terms.mortal,
                       None if terms.ghost is None else np.concatenate([terms.ghost, occ,
                                                                        -node_occ]))


RateNodes = tuple[np.ndarray, np.ndarray, np.ndarray]  # rates, weights, levels


def _rate_nodes(rates: np.ndarray, spread: float = NODE_SPREAD,
                block_weights: np.ndarray | None = None, bulk: np.ndarray | None = None
                ) -> RateNodes:
    """:func:`_cache_terms`' block-rate nodes, each level's rates shortened by
    :func:`_grouped_nodes` (blocks nobody reads left out: with S7f's ``bulk`` false positives
    every block of a level that has them is read)."""
    M = rates.shape[1]
    read = rates > 0
    if bulk is not None:
        read |= np.asarray(bulk)[:, None] > 0
    if block_weights is not None:
        read &= np.asarray(block_weights) > 0  # no blocks (a live count's pmf underflows)
    shares = 1.0 / M if block_weights is None else np.asarray(block_weights, dtype=float)[read]
    return _grouped_nodes(rates[read], shares, read.sum(axis=1), spread)


def _cache_terms(levels: tuple[_Level, ...], rates: np.ndarray, level_blocks: np.ndarray,
                 spread: float = NODE_SPREAD, block_weights: np.ndarray | None = None,
                 lives: LifeNodes | None = None, nodes: RateNodes | None = None,
                 bulk: np.ndarray | None = None) -> _CacheTerms:
    """The terms of S5-S6's sums: every block-rate node of a level with every node of its run
    versions' lives (both by :func:`_grouped_nodes`; ``spread`` 1: the full sums).
    ``block_weights``: each rate's share of its level's blocks (None: equally likely draws, S5;
    S5r's exact shares). Blocks nobody reads are left out: never cached, they serve no reads.
    ``lives``, ``nodes``: :func:`_life_nodes`, :func:`_rate_nodes`, when the caller has them.
    ``bulk``: S7f's false positives a block of a mean-sized run reads, which a run version reads
    times its :func:`_smallness`."""
    L = rates.shape[0]
    lam_n, w_n, lev_n = (_rate_nodes(rates, spread, block_weights, bulk) if nodes is None
                         else nodes)
    life_n, lw_n, life_start, life_len, small_n = (_life_nodes(levels, spread) if lives is None
                                                   else lives)
    reps, which, level = _pairs(lev_n, life_start, life_len)
    lam = np.repeat(lam_n, reps)
    weight = np.repeat(w_n, reps) * lw_n[which]
    if bulk is not None:
        lam += np.asarray(bulk)[level] * small_n[which]
        # U5r: a version no read passes takes no false positives: its unread blocks are out.
        read = lam > 0
        if not read.all():
            lam, weight, level, which = lam[read], weight[read], level[read], which[read]
    reads = np.bincount(level, weights=weight * lam, minlength=L)
    life = life_n[which]
    return _CacheTerms(lam, life, level_blocks[level] * weight, weight * lam, level, reads,
                       bool(np.all(np.isfinite(life))))


T_C_TOL = 1e-9  # S5: t_C is solved to this relative precision
T_C_LEAP = math.log(1e3)  # the longest step in ln t before the root is bracketed


def _characteristic_time(terms: _CacheTerms, cache_blocks: float) -> float:
    """S5: t_C with the cache full, sum over blocks P(cached at t_C) = cache_blocks (0 without a
    cache, inf when every block read fits). The occupancy never rises faster than t sum(occ lam),
    a lower bound on t_C; from there Newton's method in ln t, bisecting once bracketed."""
    if cache_blocks <= 0:
        return 0.0
    if terms.occupancy(math.inf) <= cache_blocks:
        return math.inf
    # Newton's method in x = ln t from the lower bound, where the occupancy is below the
    # cache, each step capped until one lands above it; then kept inside the bracket. S6g's
    # deleted blocks at most double the bound's rate (a block's copies, live and dead, were
    # each read within t: at most lam t (1 + m / life) <= 2 lam t of them).
    a, b = math.log(cache_blocks / (_GHOST_BOUND if terms.ghost is not None else 1.0)
                    / float(np.sum(terms.occ * terms.lam))), math.inf
    x = a
    for _ in range(200):
        if x > T_C_LN_MAX:  # still below the cache past any time a tree lives: it all fits
            return math.inf
        occupied, slope = terms.occupancy_and_slope(math.exp(x))
        f = occupied - cache_blocks
        if f == 0.0:
            break
        if f > 0:
            b = x
        else:
            a = x
        nxt = x - f / slope if slope > 0 else math.inf
        if math.isinf(b):
            nxt = min(nxt, x + T_C_LEAP)
        elif not a < nxt < b:
            nxt = 0.5 * (a + b)
        done = abs(nxt - x) <= T_C_TOL or b - a <= T_C_TOL
        x = nxt
        if done:
            break
    return math.exp(x)


# ln t past which _characteristic_time stops looking for t_C (e^600 writes: no run lives so
# long) and takes the cache as holding every block; exp overflows a little above 709.
T_C_LN_MAX = 600.0


def _characteristic_times(terms: _CacheTerms, counts: np.ndarray, cache_blocks: float
                          ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_characteristic_time` of many trees (cache_blocks > 0), their terms one tree's after
    another's, ``counts`` of each: each tree's Newton steps as alone, side by side. Returns t_C
    per tree and every term's h at t = inf."""
    n = counts.size
    nonempty = counts > 0
    starts = (np.cumsum(counts) - counts)[nonempty]

    def per_tree(x: np.ndarray) -> np.ndarray:
        out = np.zeros(n)
        if x.size:
            out[nonempty] = np.add.reduceat(x, starts)
        return out

    h_inf = _hit(terms.lam, terms.life, math.inf)
    # S6g: a tree some of whose deleted blocks stay cached never fits its cache.
    ghosts = (np.zeros(n, bool) if terms.ghost is None else per_tree(
        ((terms.ghost > 0) & np.isfinite(terms.life) & (terms.lam > 0)).astype(float)) > 0)
    with np.errstate(divide="ignore"):
        t_c = np.where((per_tree(terms.occ * h_inf) <= cache_blocks) & ~ghosts, math.inf, 0.0)
        a = np.log(cache_blocks / np.where(ghosts, _GHOST_BOUND, 1.0)
                   / per_tree(terms.occ * terms.lam))
    todo = t_c == 0.0
    b = np.full(n, math.inf)
    x = np.where(todo, a, 0.0)  # the others' x is never used
    occ_lam = terms.occ * terms.lam
    for _ in range(200):
        beyond = todo & (x > T_C_LN_MAX)  # as _characteristic_time: the cache holds it all
        t_c = np.where(beyond, math.inf, t_c)
        todo &= ~beyond
        if not todo.any():
            break
        t = np.exp(np.minimum(x, T_C_LN_MAX))
        t_term = np.repeat(t, counts)
        if terms.mortal:  # as _CacheTerms.occupancy_and_slope
            h, late = terms._mortal_hit(t_term)
            slope = t * per_tree(occ_lam * late / terms.life)
        else:
            h, dh = _hit_and_slope(terms.lam, terms.life, t_term)
            slope = t * per_tree(terms.occ * dh)
        f = per_tree(terms.occ * h) - cache_blocks
        if terms.ghost is not None:  # S6g
            g, dg = terms._ghosts(t_term)
            f, slope = f + per_tree(g), slope + per_tree(dg)
        todo &= f != 0.0
        b = np.where(todo & (f > 0), x, b)
        a = np.where(todo & ~(f > 0), x, a)
        with np.errstate(divide="ignore", invalid="ignore"):
            nxt = np.where(slope > 0, x - f / np.where(slope > 0, slope, 1.0), math.inf)
        nxt = np.where(np.isinf(b), np.minimum(nxt, x + T_C_LEAP),
                       np.where((a < nxt) & (nxt < b), nxt, 0.5 * (a + b)))
        done = (np.abs(nxt - x) <= T_C_TOL) | (b - a <= T_C_TOL)
        x = np.where(todo, nxt, x)
        todo &= ~done
    return np.where(t_c == 0.0, np.exp(np.minimum(x, T_C_LN_MAX)), t_c), h_inf


def _hit_and_slope(lam: np.ndarray, life: np.ndarray, t: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """S6's h at a finite t > 0 (as :func:`_hit`) and dh/dt = lam (life - t)^+ e^{-lam t} /
    life (lam e^{-lam t} for a run that never dies): the newest read must fall within t of
    now, not before the run's birth."""
    h = _hit_within(lam, life, t)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        decay = lam * np.exp(-lam * t)
        dh = np.where(np.isfinite(life), decay * np.maximum(life - t, 0.0) / life, decay)
    return h, dh


_GHOST_BOUND = 2.0  # S6g: live and deleted copies of a block together, at most 2 lam t cached


def _dead_cached(lam: np.ndarray, life: np.ndarray, t: float | np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """S6g: a block slot's deleted copies still in an LRU that keeps them t after their last
    read, on average over time, and its slope in ln t. A run living ``life`` dies once a life;
    its block was last read a (< min(t, life)) before, with density lam e^{-lam a}, and stays
    t - a more: per life, G = (t - 1/lam)(1 - e^{-lam m}) + m e^{-lam m}, m = min(t, life), so
    G / life blocks on average, and d(G / life)/d ln t = t (1 - e^{-lam m}) / life. None for a
    run that never dies."""
    lam = np.asarray(lam, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        finite = np.isfinite(life) & (lam > 0)
        life_f = np.where(finite, life, 1.0)
        lam_f = np.where(finite, lam, 1.0)
        m = np.minimum(t, life_f)
        x = lam_f * m
        gone = -np.expm1(-x)  # 1 - e^{-lam m}, the chance the block was read within m
        # (1 - e^{-x})/lam - m e^{-x} = m ((1 - e^{-x})/x - e^{-x}), ~ m x / 2 for small x
        early = np.where(x > 1e-6, m * (gone / np.where(x > 1e-6, x, 1.0) - np.exp(-x)),
                         m * x / 2.0)
        g = np.where(finite, (t * gone - early) / life_f, 0.0)
        dg = np.where(finite, t * gone / life_f, 0.0)
    return np.maximum(g, 0.0), dg


def _hit(lam: np.ndarray, life: np.ndarray, t: float) -> np.ndarray:
    """S6: the chance a read at rate lam finds its block cached, the block's run living
    ``life`` and the cache keeping blocks t after their last read (Che): 1 - E_a[e^{-lam
    min(t, a)}] with the run's age a uniform over its life."""
    lam = np.asarray(lam, dtype=float)
    if not math.isinf(t):
        return _hit_within(lam, life, t)
    x = lam * life
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        miss = np.where(x > 1e-12, -np.expm1(-x) / x, 1.0 - x / 2.0)
    return np.clip(1.0 - miss, 0.0, 1.0)


def _hit_within(lam: np.ndarray, life: np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """:func:`_hit` at a finite t, one for all or one per rate (trees solved together)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        forever = ~np.isfinite(life)  # no invalidation: Che's 1 - e^{-lam t}
        life_f = np.where(forever, 1.0, life)
        tt = np.minimum(t, life_f)
        inside = np.where(lam > 0, -np.expm1(-lam * tt) / np.where(lam > 0, lam, 1.0), tt)
        miss = (inside + np.maximum(life_f - t, 0.0) * np.exp(-lam * t)) / life_f
        miss = np.where(forever, np.exp(-lam * t), miss)
    return np.clip(1.0 - miss, 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class RunClasses:
    """U5r: each level's runs by class, a run's size (a factor of 2 apart) and the phase of its
    life: a universal rank holds a flush one time and a large run another, and a run's keys
    move to newer runs as they are written again, so S5-S6 take each class's blocks apart.
    ``place`` (levels, classes, populations) sums to the tree's ``place`` over the classes;
    ``rate`` the same shape, each key's chance per read while there (None: the tree's, the
    same for every band); ``levels``: per level and class, a :class:`_Level` of the class's
    mean entries and presence, its run versions' lives and block-time, and their exposure to
    false positives as ``times`` (S7f), None where no run of the class sat."""

    place: np.ndarray
    rate: np.ndarray | None
    levels: tuple[tuple[_Level | None, ...], ...]


@dataclass(frozen=True, eq=False)
class SkewedTree:
    """One design under skew before the cache: its levels (S2), where existing-key reads land
    (S3), their false positives (S4) and S8's what-if filters. :meth:`costs` adds the cache
    (S5-S7); :meth:`point_read_bound` bounds what any cache can save. Per-level arrays start at
    Level 1; ``share`` and ``place`` have the buffer first."""

    levels: tuple[_Level, ...]
    level_write_amp: tuple[float, ...]
    cycle_writes: float
    place: np.ndarray  # (bands, populations): where the keys reads touch live (S3)
    pop_count: np.ndarray  # keys per population
    pop_rate: np.ndarray  # (bands, populations): each key's chance per read while there
    share: np.ndarray  # the reads landing in each band
    runs: np.ndarray
    fpr: np.ndarray  # App. C's filters, as the engine builds them
    false_positives: np.ndarray  # blocks read in vain per read, at each level
    probe_weights: np.ndarray  # S8
    # S8: the filters' per-level rates the weighted Lagrangian gives for probe weights
    # (LevelFilters.reweigh); applied when first asked (:attr:`weighted_fpr`), as a search
    # stages many trees whose cache, and so whose S8, it never prices.
    reweigh: Callable[[np.ndarray], np.ndarray]
    entries_per_block: int
    reads_per_write: float
    # S5r: the read-hot keys are one contiguous stretch of the key order (hotrange), so a block
    # holds hot keys only or cold keys only.
    clustered_reads: bool = False
    # B1 (LSbM): per level, the lives (writes) and block-time weights a key's serving block has
    # while the compaction buffer keeps it, None where the level has no buffer; and the trim.
    buffered: tuple[tuple[np.ndarray, np.ndarray] | None, ...] | None = None
    buffer_trim: float = 0.8
    # B1: what ``buffered`` would be with a compaction buffer (file-granular trees, S2f:
    # :func:`buffered_lives` of the ledger), for :meth:`with_buffer`; None where none can be.
    buffer_option: tuple[tuple[np.ndarray, np.ndarray] | None, ...] | None = None
    # S2f: how many of the first levels are level 0's runs (1 while level 0 holds runs).
    level0_levels: int = 0
    # S2f: the engine level of each level (0 = level 0's runs, i = Level i), so that D1 can put
    # its terms on the level's device; None where the tree's levels are Levels 1..L in order.
    engine_levels: tuple[int, ...] | None = None
    # S6g: the engine leaves a deleted run's cached blocks in its LRU until they age out (stock
    # RocksDB 7.8); the native engine drops them when the merge deletes the run.
    dead_blocks_cached: bool = False
    # U5r: the levels' runs by class (S5-S6 per class), None where a level's blocks are one
    # population whose rates are taken as constant over their lives.
    classes: RunClasses | None = None
    # Pure results shared by the trees of one search (:attr:`KeyMap._memo`; S5's block rates).
    memo: dict = field(default_factory=dict, repr=False)
    # S5-S7's hit rates by cache size, worked out once (:func:`_cache_hits`); not an argument,
    # so that a tree made from this one (``replace``) works out its own.
    _hits: dict = field(default_factory=dict, init=False, repr=False)

    @functools.cached_property
    def weighted_fpr(self) -> np.ndarray:
        """S8: each level's false-positive rate with the filter memory allocated for these
        reads by the weighted Lagrangian (probe weights :attr:`probe_weights`)."""
        return self.reweigh(self.probe_weights)

    @functools.cached_property
    def probed(self) -> np.ndarray:
        """Runs a read that passes each level probes (:func:`_probed`)."""
        return _probed(self.levels, self.runs)

    @functools.cached_property
    def weighted_false_positives(self) -> np.ndarray:
        """S8: :attr:`false_positives` with the filters of :attr:`weighted_fpr`."""
        fpr_w, runs, target = self.weighted_fpr, self.runs, self.share[1:]
        passing = np.maximum(1.0 - np.cumsum(self.share)[1:], 0.0)
        return passing * self.probed * fpr_w + target * fpr_w * np.maximum(runs - 1.0, 0.0) / 2.0

    def with_buffer(self, trim: float) -> SkewedTree:
        """This tree with LSbM's compaction buffer trimmed at ``trim`` (B1): the same levels,
        reads and filters, the buffer changing only the lives of cached blocks (S6)."""
        if self.buffer_option is None:
            raise ValueError("only file-granular trees (S2f) take a compaction buffer (B1)")
        return replace(self, buffered=self.buffer_option, buffer_trim=float(trim))

    def point_read_bound(self, hit_share: float) -> float:
        """Block reads per existing-key read when at most ``hit_share`` of the reads can hit
        the cache (:meth:`KeyMap.hottest_read_share`): every read of a level's key beyond that
        share, and without a cache (``hit_share`` 0) the false positives too, which a cache
        may serve (S7f). No cache that holds that share does better."""
        unserved = float(self.false_positives.sum()) if hit_share <= 0 else 0.0
        return unserved + max(0.0, 1.0 - float(self.share[0]) - hit_share)

    def zero_result_read(self, cache_blocks: float) -> float:
        """S7f: block reads per zero-result lookup with an LRU cache of ``cache_blocks``
        blocks, ``costs(cache_blocks).zero_result_read``: a run's false positive reads a block
        of its level at random, cached with the level's cached share of blocks."""
        cached = _cache_hits(self, cache_blocks)[3]
        return float(np.sum(self.probed * self.fpr * (1.0 - cached)))

    def zero_result_bound(self, cache_blocks: float) -> float:
        """Block reads per zero-result lookup that no LRU cache of ``cache_blocks`` blocks
        avoids: it holds at most min(1, C / blocks_i) of level i's blocks (S7f)."""
        blocks = np.array([max(lev.entries / self.entries_per_block, 1.0)
                           for lev in self.levels])
        held = np.minimum(1.0, max(float(cache_blocks), 0.0) / blocks)
        return float(np.sum(self.probed * self.fpr * (1.0 - held)))

    def range_bound(self, cache_blocks: float) -> tuple[float, float]:
        """:func:`cached_range` (S7r) that no LRU cache of ``cache_blocks`` blocks goes below:
        it holds at most min(1, C / blocks_i) of level i's blocks (as :meth:`zero_result_bound`)."""
        blocks = np.array([max(lev.entries / self.entries_per_block, 1.0)
                           for lev in self.levels])
        held = np.minimum(1.0, max(float(cache_blocks), 0.0) / blocks)
        return cached_range(self.probed, [lev.entries for lev in self.levels], held,
                            self.level0_levels)

    def costs(self, cache_blocks: float) -> SkewedCosts:
        """S5-S7 with an LRU cache of ``cache_blocks`` blocks (0: none), and every cost."""
        return _with_cache(self, cache_blocks)

    def point_read(self, cache_blocks: float) -> float:
        """S7: block reads per existing-key read with an LRU cache of ``cache_blocks`` blocks,
        ``costs(cache_blocks).point_read`` without S8's what-if (which a search needs for its
        pick alone)."""
        accesses = self.share[1:] + self.false_positives
        return float(np.sum(accesses * (1.0 - _cache_hits(self, cache_blocks)[0])))


@dataclass(frozen=True, eq=False)
class LevelFilters:
    """The filters a ledger's levels have (S4) and S8's what-if: ``fpr`` is each run's false-
    positive rate per ledger level, as the engine builds them; ``reweigh`` maps S8's probe
    weights per ledger level to the rates the weighted Lagrangian gives the same memory."""

    fpr: np.ndarray
    reweigh: Callable[[np.ndarray], np.ndarray]


def _structure_filters(s: object, L: Sequence[int], budget: dict[str, np.float64]
                       ) -> list[LevelFilters]:
    """App. C's filters of whole-level designs' structures ``s`` (one row a design of L[j]
    levels; S4), and S8's reweighing, the budget allocated for all rows in one pass."""
    fprs = allocate_fprs(s, **budget)
    memory = memory_bits_per_entry(np.where(s.valid, s.fractions, 0.0), fprs)
    fpr = np.where(s.valid, realized_fpr(bloom_bits_per_key(fprs)), 0.0)

    def reweigher(j: int) -> Callable[[np.ndarray], np.ndarray]:
        # A row's own levels only: the batch pads every row to the deepest design's levels.
        n, a, valid, m = s.fractions[j, :L[j]], s.runs[j, :L[j]], s.valid[j, :L[j]], memory[j]

        def reweigh(weights: np.ndarray) -> np.ndarray:
            fprs_w = lagrangian_fprs_for_memory(n, np.maximum(a, 0.0), np.float64(m),
                                                weights=np.asarray(weights, dtype=float))
            return np.where(valid, realized_fpr(bloom_bits_per_key(fprs_w)), 0.0)

        return reweigh

    return [LevelFilters(fpr[j, :L[j]], reweigher(j)) for j in range(len(L))]


def skewed_tree(
    T: float, C: float, X: float, K: float, Z: float, *,
    entries: float, buffer_entries: float, entries_per_block: int,
    bits_per_entry: float | None = None, sum_fpr: float | None = None,
    workload: SkewedWorkload, keys: KeyMap | None = None,
) -> SkewedTree:
    """S1-S4 and S8 for one whole-level design holding ``entries`` keys (the population reads
    and updates draw from): :func:`skewed_trees` of one design."""
    return skewed_trees([(T, C, X, K, Z)], entries=entries, buffer_entries=buffer_entries,
                        entries_per_block=entries_per_block, bits_per_entry=bits_per_entry,
                        sum_fpr=sum_fpr, workload=workload, keys=keys)[0]


def skewed_trees(
    designs: Sequence[tuple[float, float, float, float, float]], *,
    entries: float, buffer_entries: float, entries_per_block: int,
    bits_per_entry: float | None = None, sum_fpr: float | None = None,
    workload: SkewedWorkload, keys: KeyMap | None = None,
) -> list[SkewedTree]:
    """S1-S4 and S8 for whole-level designs (T, C, X, K, Z each) holding ``entries`` keys. Filter
    memory: ``bits_per_entry`` or ``sum_fpr`` (App. C). ``keys``: the workload's :func:`key_map`
    (built here when None). S2 (:func:`_levels_many`) then :func:`tree_of_levels`, M1's layout,
    App. C's filters and S3's age edges worked out for all the designs at once."""
    if (bits_per_entry is None) == (sum_fpr is None):
        raise ValueError("give exactly one of bits_per_entry or sum_fpr")
    w = workload
    n = int(entries)
    keys = checked_key_map(n, w, keys)
    F = float(buffer_entries)
    hist = float(w.history_writes)
    S = file_keys(n, w)
    knobs = np.array(designs, dtype=float).reshape(-1, 5).T
    cycles, s = _levels_many(knobs, S, np.full(knobs.shape[1], S), F, keys)
    budget = ({"bits_per_entry": np.float64(bits_per_entry)} if sum_fpr is None
              else {"sum_fpr": np.float64(sum_fpr)})
    filters = _structure_filters(s, [len(c[0]) for c in cycles], budget)
    # Several runs at Level L hold duplicates: size those designs' levels by what they hold (S2).
    over = [j for j, c in enumerate(cycles) if c[0][-1].entries > S * (1.0 + 1e-9)]
    if over:
        redo, s_over = _levels_many(knobs[:, over], S,
                                    np.array([cycles[j][0][-1].entries for j in over]), F, keys)
        refit = _structure_filters(s_over, [len(c[0]) for c in redo], budget)
        for j, c, f in zip(over, redo, refit, strict=True):
            cycles[j], filters[j] = c, f
    # S3: age bands, the buffer (half full on average) then Level 1, ..., Level L-1.
    edges = _age_edges_many([np.array([F / 2.0] + [lev.band for lev in c[0][:-1]])
                             for c in cycles], keys, hist)
    return [tree_of_levels(levels, level_wa, cycle, f, entries=n, buffer_entries=F,
                           entries_per_block=entries_per_block, workload=w, keys=keys, edges=e)
            for (levels, level_wa, cycle), f, e in zip(cycles, filters, edges, strict=True)]


def checked_key_map(entries: int, workload: SkewedWorkload, keys: KeyMap | None) -> KeyMap:
    """``keys`` if it is the map of ``entries`` keys under ``workload``; built when None."""
    if keys is None:
        return key_map(entries, workload, tabulate=False)
    if not keys.serves(entries, workload):
        raise ValueError("keys is the key map of another population or workload")
    return keys


def _placement(edges: np.ndarray, keys: KeyMap, w: SkewedWorkload, hist: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S3: where the keys reads touch live, for the bands bounded by the ages ``edges`` (the
    buffer's band below the first, the last band beyond the last edge), ``hist`` writes after
    the load (inf: the steady state): (place, bands x populations), how many keys each
    population has (pop_count) and each key's chance per read while in a band (pop_rate)."""
    n = int(keys.entries)
    u = keys.update_fraction
    count, q, r = keys.count, keys.q, keys.r
    L = len(edges)

    def older_than(A: np.ndarray, qk: np.ndarray) -> np.ndarray:
        """P(a key's newest write is older than age A), per (age, bin)."""
        A = np.asarray(A, dtype=float)[:, None]
        if math.isfinite(hist):
            loaded_within = np.clip((A - hist) / n, 0.0, 1.0)
        else:
            # Steady state: the n keys arrived as the inserts of the last n / (1 - u) writes.
            # (An edge at infinity, a band that holds every key, keeps 0 with u = 1.)
            loaded_within = np.clip((1.0 - u) * np.minimum(A, UNREACHABLE) / n, 0.0, 1.0)
        decay = np.exp(-u * np.minimum(A, hist) * qk[None, :])
        return (1.0 - loaded_within) * decay

    def placed(qk: np.ndarray, correlated: bool) -> np.ndarray:
        """(bands, bins): where keys with write chances qk have their newest version."""
        if correlated:
            surv = older_than(edges, qk)
        else:
            mean_q = older_than(edges, qk) @ (count / count.sum())
            surv = np.repeat(mean_q[:, None], count.size, axis=1)
        return _between(1.0, surv)  # row 0: buffer, row i: Level i

    # The keys reads touch, as populations of bins: where they live (place, bands x bins), how
    # many (pop_count) and each key's chance per read while in a band (pop_rate, bands x bins).
    if keys.latest is not None:
        return _latest_write_reads(keys.latest, edges, keys, w, hist)
    if w.read_dist.kind == "latest":
        # A read of the r-th most recent write: with chance 1 - u an insert, still in the band
        # of age r; with chance u an update of key k (from q), whose newest write is younger
        # than r (:func:`_latest_landing`), read while in band i at its landing over its stay.
        bins = keys.bins
        mid = 0.5 * (bins.lo + bins.hi).astype(float)
        band = np.searchsorted(edges, mid, side="left")
        inserted = np.zeros((L + 1, count.size))
        inserted[band, np.arange(count.size)] = 1.0
        landing = _latest_landing(edges, mid, r * count, u, q)  # (bands, keys)
        stay = placed(q, True)  # (bands, keys): the keys' share of time in each band
        upd_rate = np.where(stay > 1e-12, u * q[None, :] * landing / np.maximum(stay, 1e-12),
                            0.0)
        return (np.hstack([inserted, stay]), np.concatenate([(1.0 - u) * count, count]),
                np.hstack([np.broadcast_to(r, inserted.shape), upd_rate]))
    place = placed(q, w.correlated)
    return place, count, np.broadcast_to(r, place.shape)


def tree_of_levels(
    levels: Sequence[_Level], level_wa: Sequence[float], cycle_writes: float,
    filters: LevelFilters, *, entries: int, buffer_entries: float, entries_per_block: int,
    workload: SkewedWorkload, keys: KeyMap, edges: np.ndarray | None = None,
    placement: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    classes: RunClasses | None = None,
) -> SkewedTree:
    """S3, S4 and S8 for any cycle model's per-level ledger: ``levels`` (mean entries and runs,
    S3's band, S6's lives and weights; level 0's runs first when a ledger has them), ``level_wa``
    (per write), ``cycle_writes`` and the filters. S5-S7 follow in :meth:`SkewedTree.costs`.
    ``placement``: S3's (place, pop_count, pop_rate) when the caller has placed the keys itself
    (U5, over its runs' own spans), else the bands of the levels' mean entries; ``classes``:
    the levels' runs by class, for S5-S6 (U5r)."""
    w = workload
    F = float(buffer_entries)
    B = int(entries_per_block)
    hist = float(w.history_writes)

    if placement is None:
        # S3: age bands, the buffer (half full on average) then Level 1, ..., Level L-1.
        edges_arr = edges if edges is not None else _age_edges(
            np.array([F / 2.0] + [lev.band for lev in levels[:-1]]), keys, hist)
        placement = _placement(edges_arr, keys, w, hist)
    place, pop_count, pop_rate = placement
    share = np.sum(place * pop_rate * pop_count[None, :], axis=1)  # reads landing in each band
    share = share / share.sum()

    # S4: false positives, with the filters the engine builds.
    fpr = filters.fpr
    runs = np.array([lev.runs for lev in levels])
    per_level_fp = _probed(levels, runs) * fpr
    passing = np.maximum(1.0 - np.cumsum(share)[1:], 0.0)  # reads that go past Level i
    target = share[1:]
    fp_i = passing * per_level_fp + target * fpr * np.maximum(runs - 1.0, 0.0) / 2.0

    # S8: probes per run of each level per lookup (zero-result reads probe every run), and the
    # filters the weighted Lagrangian gives that memory (docs/MODEL.md, weighted Lagrangian).
    z = float(w.zero_read_share)
    probe = passing + target * np.maximum(runs - 1.0, 0.0) / (2.0 * np.maximum(runs, 1.0))
    weights = z + (1.0 - z) * probe

    return SkewedTree(tuple(levels), tuple(float(x) for x in level_wa), float(cycle_writes),
                      place, pop_count, pop_rate, share, runs, fpr, fp_i, weights,
                      filters.reweigh, B, float(w.reads_per_write),
                      bool(w.read_dist.clustered), memo=keys._memo, classes=classes)


def _latest_write_reads(lw: LatestWrites, edges: np.ndarray, keys: KeyMap,
                        w: SkewedWorkload, hist: float
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S3 under latest writes (S1l): (place, pop_count, pop_rate), keys placed by their insertion
    recency. ``latest`` reads follow the writes (:meth:`LatestWrites.latest_reads`); correlated
    reads read the key of the r-th most recent insert; uncorrelated and uniform reads draw from
    the n loaded keys, whose popularity has nothing to do with recency: their mean placement."""
    if w.read_dist.kind == "latest":
        return lw.latest_reads(edges, keys.bins, keys.r * keys.count, hist)
    lo, hi = keys.bins.lo.astype(float), keys.bins.hi.astype(float)
    if w.correlated and not w.read_dist.is_uniform:
        place = lw.placement(edges, lo, hi, hist)
    else:
        offset = lw.keys - float(keys.count.sum())  # the inserts since the load are newer
        mean = lw.placement(edges, lo + offset, hi + offset, hist) @ (keys.count
                                                                      / keys.count.sum())
        place = np.repeat(mean[:, None], keys.count.size, axis=1)
    return place, keys.count, np.broadcast_to(keys.r, place.shape)


# ---- S2f: file-granular leveled trees (docs/MODEL.md, "S2f. Files") ----------------------------

SETTLED_FLUSHES = 32  # S2f: the uniform walk's window from the settled sizes, in flushes
# S2f's layout fixed point (file_trees): at most this many walks after the first, each design
# stopping once its total moves by less than this share of the keys.
LAYOUT_ROUNDS = 8
LAYOUT_TOLERANCE = 0.005


def mean_unique(p: np.ndarray | float, keys: KeyMap) -> np.ndarray:
    """S2f: the mean over a band uniform on [0, p] writes of S1's D, (1/p) int_0^p D(w) dw =
    (1 - u) p / 2 + sum_k (1 - (1 - e^{-x_k}) / x_k), x_k = u q_k p: a level whose band at a
    key grows from 0 (its sweep just passed) to p (about to pass) holds this many entries."""
    p = np.asarray(p, dtype=float)
    return _mean_and_slope(p, keys)[0]


def _mean_and_slope(p: np.ndarray, keys: KeyMap) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mean_unique` and its slope in p: S2f's closed form, S1l's quadrature."""
    if keys.latest is not None:
        return keys.latest.mean_unique_and_slope(p)
    return _mean_unique_and_slope(p, keys.update_fraction, keys.q, keys.count)


def _mean_unique_and_slope(p: np.ndarray, u: float, q: np.ndarray, count: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mean_unique` and its derivative in p, elementwise."""
    x = np.multiply.outer(p * u, q)
    small = x < 1e-4
    xs = np.where(small, 1.0, x)
    em = np.expm1(-xs)  # e^{-x} - 1
    # g(x) = 1 - (1 - e^{-x}) / x and g'(x) = (1 - e^{-x} - x e^{-x}) / x^2, by series near 0
    # (worked out where x is small only). In place: the arrays are designs' levels x bins.
    g = em / xs
    g += 1.0
    dg = 1.0 + em
    dg *= xs
    np.subtract(-em, dg, out=dg)
    xs *= xs
    dg /= xs
    if small.any():
        xm = x[small]
        g[small] = xm / 2.0 - xm * xm / 6.0
        dg[small] = 0.5 - xm / 3.0
    value = (1.0 - u) * p / 2.0 + g @ count
    slope = (1.0 - u) / 2.0 + dg @ (count * (u * q))
    return value, slope


def writes_for_mean_unique(e: np.ndarray | float, keys: KeyMap) -> np.ndarray:
    """S2f: :func:`mean_unique` inverted elementwise, the sweep period p (writes) of a level
    holding e entries on average (inf if updates alone cannot fill it). Newton's method from
    2 D^-1(e), which is left of the root (Jensen: the mean of concave D over [0, p] is at most
    D(p / 2)); the mean is increasing and concave too, so the iterates climb to the root."""
    e = np.asarray(e, dtype=float)
    out = np.zeros(e.shape)
    u = keys.update_fraction
    population = keys.count.sum() if keys.latest is None else keys.latest.keys
    never = np.full(e.shape, u >= 1.0) & (e >= population * (1.0 - 1e-9))
    out[never] = math.inf
    todo = (e > 0.0) & ~never
    target = e[todo]
    guess = keys.guess_mean_writes(target)  # near the root where tabulated: fewer steps
    p = np.full(target.shape, np.nan) if guess is None else guess
    far = ~np.isfinite(p)
    if far.any():
        p[far] = 2.0 * keys.writes_for(target[far])
    for _ in range(NEWTON_STEPS):
        got, slope = _mean_and_slope(p, keys)
        step = (target - got) / slope
        p = np.maximum(p + step, target)
        if np.all(np.abs(step) <= NEWTON_TOL * p):
            break
    out[todo] = p
    return out


def _unique_or_all(w: np.ndarray, keys: KeyMap) -> np.ndarray:
    """S1's D(w), with D(inf) the whole key population (u = 1) or inf."""
    w = np.asarray(w, dtype=float)
    finite = np.where(np.isfinite(w), w, UNREACHABLE)
    d = keys.unique(finite)
    return np.where(np.isfinite(w) | (keys.update_fraction >= 1.0), d, math.inf)


@dataclass(frozen=True)
class FileLedger:
    """S2f's ledger of one file-granular design: the levels (level 0's runs first when it holds
    any), each one's write amplification per write, Level L-1's sweep period (``cycle_writes``),
    the uniform walk's level of each (-1: level 0), and the upper levels' duplicates."""

    levels: tuple[_Level, ...]
    level_wa: tuple[float, ...]
    cycle_writes: float
    walk_level: tuple[int, ...]
    duplicates: float


def engine_levels(ledger: FileLedger) -> tuple[int, ...]:
    """S2f: the engine level of each of the ledger's levels (0 = level 0's runs): the walk's
    index j counts from Level 1 (P1-P5's ``WindowCosts``), so it is Level j + 1, and level 0's
    runs (``walk_level`` -1) are level 0. The levels the walk leaves empty are skipped, not
    renumbered, so D1 places each term on its own level's device."""
    return tuple(j + 1 for j in ledger.walk_level)


def _ledger_targets(policy: LeveledFiles, walk: WindowCosts) -> tuple[np.ndarray, np.ndarray]:
    """S2f: where :func:`file_ledger` inverts S1 for one design, from its uniform walk: the
    mean entries E of the levels that sweep (those holding data but the last; mean_unique's
    inverse is their period) and B, the entries P1 rewrites below each push (D's inverse)."""
    E = np.asarray(walk.level_entries, dtype=float)
    W = np.asarray(walk.level_write_amp, dtype=float)
    used = np.flatnonzero(E > 0.0)
    if used.size == 0:
        raise ValueError("the walk holds no data below level 0")
    push_u = _ledger_pushes(walk, float(policy.flush_entries), 2.0 * E[used[:-1]])  # uniform
    return E[used[:-1]], np.maximum(push_u * (W[used] - 1.0), 0.0)


def _ledger_inversions(targets: Sequence[tuple[np.ndarray, np.ndarray]], keys: KeyMap
                       ) -> list[tuple[np.ndarray, np.ndarray]]:
    """S1's inverses at the :func:`_ledger_targets` of many designs, each solved for all of
    them at once: per design, the sweeping levels' periods and the writes holding each B
    (0 where B is)."""
    natural = writes_for_mean_unique(np.concatenate([e for e, _ in targets]), keys)
    below = np.concatenate([b for _, b in targets])
    below_writes = np.where(below > 0, keys.writes_for(below), 0.0)
    cut_e = np.cumsum([e.size for e, _ in targets])[:-1]
    cut_b = np.cumsum([b.size for _, b in targets])[:-1]
    return list(zip(np.split(natural, cut_e), np.split(below_writes, cut_b), strict=True))


def file_ledgers(policies: Sequence[LeveledFiles], walks: Sequence[WindowCosts], keys: KeyMap,
                 *, flush_writes_last: bool | None = None,
                 flush_spans: Sequence[float] | None = None) -> list[FileLedger]:
    """:func:`file_ledger` of many designs (``flush_spans``: each one's S1 D^-1(F), when the
    caller has them), S1's inverses of all of them solved together."""
    targets = [_ledger_targets(p, w) for p, w in zip(policies, walks, strict=True)]
    spans = ([float(keys.writes_for(float(p.flush_entries))) for p in policies]
             if flush_spans is None else [float(f) for f in flush_spans])
    inversions = _ledger_inversions(targets, keys)
    # S1's D at every design's pushes, and at them plus what each rewrites below, at once.
    pushes = [_ledger_pushes(w, s1, natural)
              for w, s1, (natural, _) in zip(walks, spans, inversions, strict=True)]
    at = np.concatenate([np.concatenate([push, push + below])
                         for push, (_, below) in zip(pushes, inversions, strict=True)])
    d = np.split(_unique_or_all(at, keys), np.cumsum([2 * push.size for push in pushes])[:-1])
    return [file_ledger(p, w, keys, flush_writes_last=flush_writes_last, flush_span=f,
                        inversions=i, unique_at=np.split(x, 2))
            for p, w, f, i, x in zip(policies, walks, spans, inversions, d, strict=True)]


def _ledger_pushes(walk: WindowCosts, s1: float, natural: np.ndarray) -> np.ndarray:
    """:func:`file_ledger`'s pushes in writes under skew: the base level takes k flushes at
    once; a level below takes its upper level's sweep, whose period solves mean_unique(p) =
    E, but is never shorter than the pushes the upper level takes (a level whose target is
    below its batch drains every key at every push)."""
    push = [(2.0 * float(walk.level0_runs) + 1.0) * s1]
    for t in range(natural.size):
        push.append(max(push[t], float(natural[t])))
    return np.array(push)


def file_ledger(policy: LeveledFiles, walk: WindowCosts, keys: KeyMap, *,
                flush_writes_last: bool | None = None, flush_span: float | None = None,
                inversions: tuple[np.ndarray, np.ndarray] | None = None,
                unique_at: Sequence[np.ndarray] | None = None) -> FileLedger:
    """S2f: the per-level ledger of a file-granular leveled tree under S1's updates, from the
    uniform walk ``walk`` (P1-P5). Sizes in entries are the walk's; skew changes the writes a
    level's band spans, so what each merge writes and absorbs: level 0 holds (k - 1)/2 runs;
    the base level takes k flushes (k s_1 writes, s_1 = D^-1(F)) merged with B = k F (W_base -
    1) entries, into D(k s_1 + D^-1(B)); a level below the same with the upper level's sweep
    period p (E = mean_unique(p)) and B = 2 E_above (W - 1); blocks live a push period, a
    boundary file (native engine) one drain interval f p / D(p).

    ``flush_writes_last``: the flush that triggers level 0's merge is written as a level-0 run
    too (RocksDB; default unless the policy is the native engine's). ``flush_span``,
    ``inversions`` (at :func:`_ledger_targets`) and ``unique_at`` (D at the pushes, and at
    them plus what they rewrite below): S1's values, when the caller has them."""
    if flush_writes_last is None:
        flush_writes_last = policy.targets != "wacky"
    F, f = float(policy.flush_entries), float(policy.file_entries)
    # S1: a flush holds F distinct keys.
    s1 = float(keys.writes_for(F)) if flush_span is None else float(flush_span)
    E = np.asarray(walk.level_entries, dtype=float)
    used = np.flatnonzero(E > 0.0)
    if used.size == 0:
        raise ValueError("the walk holds no data below level 0")
    k_eff = 2.0 * float(walk.level0_runs) + 1.0  # flushes per merge into the base level
    levels: list[_Level] = []
    level_wa: list[float] = []
    walk_level: list[int] = []
    if policy.flush_writes:
        staged = k_eff if flush_writes_last else k_eff - 1.0
        flush_wa = F * staged / (k_eff * s1)
    else:
        flush_wa = 0.0
    if walk.level0_runs > 1e-9:
        k_int = max(2, int(round(k_eff)))
        life = (k_int - np.arange(1, k_int)) * s1  # run j waits k - j flushes for the merge
        runs0 = float(walk.level0_runs)
        levels.append(_Level(runs0 * F, runs0, s1, life, life / life.sum(),
                             band_entries=float(keys.unique_one(runs0 * s1))))
        level_wa.append(flush_wa)
        walk_level.append(-1)
        flush_wa = 0.0
    # The pushes (:func:`_ledger_pushes`; the last level sweeps nothing), and the writes that
    # reach B, P1's entries rewritten below each push.
    natural, below_writes = (_ledger_inversions([_ledger_targets(policy, walk)], keys)[0]
                             if inversions is None else inversions)
    push = _ledger_pushes(walk, s1, natural[:used.size - 1])  # under skew
    periods = push[1:]
    pushed, written = (unique_at if unique_at is not None else
                       (_unique_or_all(push, keys), _unique_or_all(push + below_writes, keys)))
    wa = written / push
    # S3's mean span in writes of each level but the last: half the sweep's period for a
    # level that sweeps at its own pace; a level drained at every push holds one push's span
    # on the share E / D(push) of the keys it keeps. Their D at once.
    upper = np.arange(used.size - 1)
    with np.errstate(invalid="ignore"):
        spans = np.where(natural[upper] > push[upper], periods[upper] / 2.0,
                         E[used[upper]] * push[upper] / np.maximum(pushed[upper], 1e-300))
    # (A level holding as many entries as there are keys spans every write: its band is all
    # the keys, D(inf), not NaN.)
    bands = _unique_or_all(spans, keys)
    u = keys.update_fraction
    # The layout's duplicates (S2f): a level's updated keys, whose older versions lie below. An
    # older version is an entry of a lower level, so a level has no more duplicates than the
    # levels below it hold (a static tree whose last level holds a few spilled entries is not
    # a tree of duplicates over them). Level 0's runs count as the levels do: they span
    # runs0 s_1 writes, (1 - u) of them inserts.
    below = np.concatenate([np.cumsum(E[used][::-1])[::-1][1:], [0.0]])
    duplicates = 0.0
    if walk.level0_runs > 1e-9:
        runs0 = float(walk.level0_runs)
        duplicates += min(max(runs0 * F - (1.0 - u) * runs0 * s1, 0.0), float(E[used].sum()))
    for t, j in enumerate(used):
        last = t == used.size - 1
        lives = [push[t]]
        weights = [1.0]
        if t > 0 and policy.boundary_files > 0:
            # One boundary file a push is cut through and merged again by the next drain of
            # the level above, a drain interval later (f of its D(p) entries a sweep).
            share = min(1.0, policy.boundary_files * f / max(written[t] / pushed[t] * f, f))
            drain = f * push[t] / max(float(pushed[t]), 1.0)
            # Block-time weights (S6): each class's blocks times its life.
            short = min(drain, float(push[t]))
            lives, weights = [push[t], short], [(1.0 - share) * push[t], share * short]
            if share >= 1.0:  # every file of the push is cut through (no overlap below)
                lives, weights = lives[1:], [1.0]
        band = None
        if not last:
            band = float(bands[t])
            # The band's inserts, (1 - u) of its mean span (none with u = 1, where a span
            # can be infinite: D saturates at N).
            duplicates += min(E[j] - ((1.0 - u) * spans[t] if u < 1.0 else 0.0), below[t])
        weights_arr = np.array(weights) / float(np.sum(weights))
        # An L2SM log's files over a key are probed as runs of the level (L1a).
        runs = 1.0 + (float(walk.log_coverage[j]) if walk.log_coverage else 0.0)
        levels.append(_Level(float(E[j]), runs, float(push[t]), np.array(lives), weights_arr,
                             band_entries=band,
                             span=float(walk.level_coverage[j]) if walk.level_coverage else 1.0))
        level_wa.append(float(wa[t]) + (flush_wa if t == 0 else 0.0))
        walk_level.append(int(j))
    cycle = float(push[-1])
    return FileLedger(tuple(levels), tuple(level_wa), cycle, tuple(walk_level),
                      max(duplicates, 0.0))


def settled_window(policy: LeveledFiles, entries: float) -> tuple[float, float]:
    """S2f's uniform walk: (preload, window) for :func:`cost_models.partial.window_costs`
    from the settled sizes, a window of SETTLED_FLUSHES flushes centred on ``entries``."""
    window = SETTLED_FLUSHES * float(policy.flush_entries)
    return max(0.0, float(entries) - window / 2.0), window


def file_keys(entries: int, workload: SkewedWorkload) -> float:
    """The keys the tree holds: the population and the inserts since the load (S2)."""
    hist = float(workload.history_writes)
    u = float(workload.update_fraction)
    return float(entries) + (1.0 - u) * (hist if math.isfinite(hist) else 0.0)


def file_walks(policies: Sequence[LeveledFiles], totals: Sequence[float]
               ) -> list[WindowCosts]:
    """The uniform walks (P1-P5) of ``policies`` from their settled sizes at ``totals``
    entries, walked together (:func:`cost_models.partial.window_costs_many`)."""
    args = [settled_window(p, m) for p, m in zip(policies, totals, strict=True)]
    return window_costs_many(policies, [a for a, _ in args], [w for _, w in args],
                             settled=True)


FilterRates = Callable[[Sequence[LeveledFiles], Sequence[WindowCosts], Sequence[float]],
                       list[tuple[np.ndarray, float, float]]]


def file_trees(
    policies: Sequence[LeveledFiles], filter_rates: FilterRates, *, entries: float,
    entries_per_block: int, workload: SkewedWorkload, keys: KeyMap | None = None,
    flush_writes_last: bool | None = None, buffer_trims: Sequence[float | None] | None = None,
) -> list[SkewedTree]:
    """S2f then S3, S4 and S8 (:func:`tree_of_levels`) for file-granular designs holding
    ``entries`` keys. The layout is the uniform walk at the entries the levels hold, duplicates
    included: once at the keys, then with the upper levels' duplicates added (S2's one
    fixed-point step). ``filter_rates(policies, walks, totals)`` gives, per design, each walk
    level's realized false-positive rate, level 0's, and the filter memory per entry (S8's)."""
    policies = list(policies)
    n = int(entries)
    keys = checked_key_map(n, workload, keys)
    K = file_keys(n, workload)
    walks = file_walks(policies, [K] * len(policies))
    flushes = sorted({float(p.flush_entries) for p in policies})
    span = dict(zip(flushes, keys.writes_for(np.array(flushes)).tolist(), strict=True))

    def ledgers_of(ps: list[LeveledFiles], ws: list[WindowCosts]) -> list[FileLedger]:
        return file_ledgers(ps, ws, keys, flush_writes_last=flush_writes_last,
                            flush_spans=[span[float(p.flush_entries)] for p in ps])

    ledgers = ledgers_of(policies, walks)
    # S2f's layout: the tree holds K + dup(walk at that total) entries, a fixed point. One step
    # from K is enough when the upper levels are small beside Level L (T = 10: they hold ~1/9 of
    # it), but at T = 2 they hold as much as Level L and, under updates, are nearly all
    # duplicates, so a step from K leaves the tree a fifth short (docs/MODEL.md S2f, "The
    # layout's fixed point"). dup grows with the total, so the steps from K rise to the least
    # fixed point; each design stops when its total moves by less than LAYOUT_TOLERANCE of K.
    # A step that leaves a design further from consistency than the step before has crossed
    # into a layout whose levels the keys cannot fill (the walk opened a level, and the levels
    # above it count as duplicates of entries it does not hold): there is no fixed point past
    # it, the tree sits at that edge, and the design keeps its last layout before it.
    walked = [K] * len(policies)
    gaps = [math.inf] * len(policies)
    for _ in range(LAYOUT_ROUNDS):
        again = [b for b, led in enumerate(ledgers)
                 if abs(K + led.duplicates - walked[b]) > LAYOUT_TOLERANCE * K]
        if not again:
            break
        totals = [K + ledgers[b].duplicates for b in again]
        rewalked = file_walks([policies[b] for b in again], totals)
        moved = False
        for b, t, w, led in zip(again, totals, rewalked,
                                ledgers_of([policies[b] for b in again], rewalked), strict=True):
            gap = abs(K + led.duplicates - t)
            if gap >= gaps[b] and gap > LAYOUT_TOLERANCE * K:
                continue  # diverging: keep the layout before this step
            walks[b], ledgers[b], walked[b], gaps[b], moved = w, led, t, gap, True
        if not moved:
            break
    totals = [K + led.duplicates for led in ledgers]
    rates = filter_rates(policies, walks, totals)
    # S3's age edges of every design at once (one Newton solve for all).
    edges = _age_edges_many([np.array([float(p.flush_entries) / 2.0]
                                      + [lev.band for lev in led.levels[:-1]])
                             for p, led in zip(policies, ledgers, strict=True)],
                            keys, float(workload.history_writes))
    trees = []
    for p, led, (fpr, fpr0, memory), e in zip(policies, ledgers, rates, edges, strict=True):
        fpr = np.asarray(fpr, dtype=float)
        at = np.array(led.walk_level)
        ledger_fpr = np.where(at < 0, fpr0, fpr[np.maximum(at, 0)])
        filters = _ledger_filters(led.levels, ledger_fpr, memory)
        tree = tree_of_levels(led.levels, led.level_wa, led.cycle_writes, filters,
                              entries=n, buffer_entries=p.flush_entries,
                              entries_per_block=entries_per_block, workload=workload,
                              keys=keys, edges=e)
        tree = replace(tree, buffer_option=buffered_lives(led),
                       level0_levels=int(bool(led.walk_level) and led.walk_level[0] < 0),
                       engine_levels=engine_levels(led))
        trim = None if buffer_trims is None else buffer_trims[len(trees)]
        if trim is not None:
            tree = tree.with_buffer(trim)
        trees.append(tree)
    return trees


# B1 (LSbM, docs/MODEL.md): a block of the compaction buffer serves a key from the key's arrival
# in a level until the level's own sweep takes it down; four nodes stand for that uniform stay.
BUFFER_LIFE_NODES = 4


def buffered_lives(ledger: FileLedger) -> tuple[tuple[np.ndarray, np.ndarray] | None, ...]:
    """B1: per ledger level, the lives and block-time weights of the buffered copy that serves
    a key there: none at level 0 and Level 1 (flushes enter Level 1 without a file to keep);
    at Levels 2..L-1 the key's stay, uniform on [0, P] with P the level's sweep period (the
    push it sends below); at Level L until the trim drops it (inf)."""
    out: list[tuple[np.ndarray, np.ndarray] | None] = []
    last = len(ledger.levels) - 1
    for t, at in enumerate(ledger.walk_level):
        if at < 1:
            out.append(None)
        elif t == last:
            out.append((np.array([math.inf]), np.array([1.0])))
        else:
            period = float(ledger.levels[t + 1].batch_writes)
            if not math.isfinite(period):  # the level never sweeps (it holds every key)
                out.append((np.array([math.inf]), np.array([1.0])))
                continue
            lives = period * (np.arange(BUFFER_LIFE_NODES) + 0.5) / BUFFER_LIFE_NODES
            out.append((lives, lives / lives.sum()))  # block-time: a stay of s weighs s
    return tuple(out)


def _ledger_filters(levels: Sequence[_Level], fpr: np.ndarray, memory: float) -> LevelFilters:
    """S4's rates as the engine builds them and S8's what-if: the same memory per entry
    allocated by the weighted Lagrangian over the ledger's levels and runs."""
    sizes = np.array([lev.entries for lev in levels])
    runs = np.array([lev.runs for lev in levels])

    def reweigh(weights: np.ndarray) -> np.ndarray:
        fprs_w = lagrangian_fprs_for_memory(sizes, runs, np.float64(memory), weights=weights)
        return np.asarray(realized_fpr(bloom_bits_per_key(fprs_w)), dtype=float)

    return LevelFilters(fpr, reweigh)


# ---- Universal compaction under skew (docs/MODEL.md, U5 and U5r) -----------------------------


@dataclass(slots=True)
class _UniRun:
    """One sorted run of a universal walk: the flushes of the load and the later flushes it
    holds (a contiguous span of write times, [lo, hi) in writes after the load, the load's
    inserts before 0), its entries and when it was written; ``rank``: the runs older than it,
    and ``since``: the counted flush from which it has had that rank."""

    loaded: int
    later: int
    entries: float
    born: int
    ident: int
    rank: int = 0
    since: int = 0
    lo: float = 0.0
    hi: float = 0.0


def _run_entries(loaded: float, later: float, n: float, keys: KeyMap) -> float:
    """U5: the distinct keys of a run holding ``loaded`` of the load's n inserts (random keys)
    and ``later`` writes after it: the load's keys, the later inserts, and the distinct keys
    the later updates touch (S1), less those that fall among its own loaded keys."""
    if later <= 0.0:
        return loaded
    u = keys.update_fraction
    updated = keys.unique_one(later) - (1.0 - u) * later
    return loaded + (1.0 - u) * later + updated * (1.0 - min(1.0, loaded / n))


@dataclass(frozen=True)
class UniStays:
    """U5r: the counted window's runs, a row per stay at one rank (ledger ``level``, newest
    first) from counted flush ``start`` to ``stop``; each run's birth (a counted flush,
    negative before the count) and life (flushes to the merge that takes it), its writes
    [``lo``, ``hi``) after the load and its entries; ``version``: which of its level's run
    versions (:class:`_Level`'s lives) the run is."""

    level: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    born: np.ndarray
    life: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    entries: np.ndarray
    version: np.ndarray


@dataclass(frozen=True)
class UniversalLedger:
    """U5's ledger: one ledger level per run rank (U5r: the runs older than it; newest first,
    the oldest run last), its mean entries and presence over the window, the lives of the runs
    that sat there, and the write amplification per write (flushes and merges)."""

    levels: tuple[_Level, ...]
    write_amp: float
    full_merges: int
    mean_runs: float
    window_writes: float = 0.0  # the writes counted
    writes_before: float = 0.0  # the writes after the load before the count began
    complete: bool = True  # a cycle window: it ended at a full merge, not at its cap
    merges_before: int = 0  # a cycle window: the full merges after the load up to its start
    stays: UniStays | None = None  # U5r: the runs' stays, where S3 places the keys
    flush_writes: float = 0.0  # writes a flush takes (RocksDB's memtable: F)
    first_writes: float = 0.0  # writes after the load when counted flush 0 is written


def universal_ledger(rules: UniversalRules, preload: float, window: float, keys: KeyMap, *,
                     cycle: bool = False) -> UniversalLedger:
    """U1-U4 on run sizes in entries, a run's entries S1's distinct keys of the writes it spans
    (:func:`_run_entries`): the load (``preload`` inserts, a flush of F at a time), then
    ``window`` writes, a flush every F writes holding D(F) keys (RocksDB's memtable keeps every
    write it takes: U5r). Ledger level j is the runs of the j-th highest rank (U5r): their
    entries and presence averaged over the window's flushes, and the lives of the runs there,
    weighed by entries and flushes (S6). With ``cycle``, ``window`` is the least warm-up and the
    window the next whole cycle of the largest run (:class:`cost_models.universal.StepWindow`),
    or, where none comes after the warm-up within its cap, the steady window after it
    (``StepWindow.steady``)."""
    F = float(rules.flush_entries)
    s1 = F  # U5r: a memtable of F entries flushes after F writes, overwrites included
    before = int(round(preload / F))
    steps = max(1, int(round(window / s1)))
    win = StepWindow.cycle(before, steps) if cycle else StepWindow(before, before + steps)
    # A run's entries by its flushes (S1 once); a flush after the load holds D(F) keys.
    entries_of: dict[tuple[int, int], float] = {
        (0, 1): _run_entries(0.0, s1, float(keys.entries), keys)}
    walk = _universal_walk(rules, before, win, keys, entries_of)
    if win.warm >= 0 and win.start is None:
        # No full merge after the warm-up within the cap (updates add entries only as
        # distinct keys): the same replay again, counting the steady window it reaches.
        win = StepWindow.steady(before, steps, win.merges_before)
        walk = _universal_walk(rules, before, win, keys, entries_of)
    stays, counts, lives, written, full, step = walk
    counted = win.counted(step)
    end_step = step + 1
    first = end_step - counted  # the first counted flush
    levels, kept = _rank_levels(stays, np.array(counts), lives, end_step, first, s1, counted)
    return UniversalLedger(tuple(levels), written / (counted * s1), full, sum(counts) / counted,
                           window_writes=counted * s1,
                           writes_before=max(0, first - before) * s1, complete=win.complete,
                           merges_before=win.merges_before, stays=kept, flush_writes=s1,
                           first_writes=(first - before + 1) * s1)


_UniWalk = tuple[list[tuple[_UniRun, int, int, int]], list[int], dict[int, int], float, int, int]


def _universal_walk(rules: UniversalRules, before: int, win: StepWindow, keys: KeyMap,
                    entries_of: dict[tuple[int, int], float]) -> _UniWalk:
    """:func:`universal_ledger`'s replay over ``win`` (which it advances), ``before`` flushes
    of the load first: the runs' stays at one rank (run, rank, from, to, in counted flushes,
    every run alive at the end closed there), the run count of every counted flush, the lives
    of the runs merged (flushes from birth to the merge that took them), the entries written
    and the full merges in the count, and the last step replayed. ``entries_of``: the runs'
    entries by their flushes of the load and after it, filled as new ones are met."""
    F = float(rules.flush_entries)
    n = float(keys.entries)
    s1 = F  # a flush after the load: F writes (U5r)
    runs: list[_UniRun] = []
    sizes: list[float] = []  # the runs' entries, for U1-U4's pick
    least = max(rules.trigger, 2)  # U1-U4 merge nothing below this many runs
    written = 0.0
    full = 0
    # A run's position (newest first) moves at nearly every flush, but its rank (the runs
    # older than it) only when runs older than it merge, and only for the runs newer than the
    # merge: the walk keeps each run's stays at one rank (run, rank, from, to, in counted
    # flushes) and the run count of every counted flush.
    stays: list[tuple[_UniRun, int, int, int]] = []
    counts: list[int] = []
    lives: dict[int, int] = {}  # flushes from birth to the merge that took the run
    ident = step = 0
    for step in range(win.total):
        counting = win.counting(step)
        k = len(counts)
        loading = step < before
        lo = (step - before) * (F if loading else s1)
        flushed = F if loading else entries_of[0, 1]
        runs.insert(0, _UniRun(int(loading), int(not loading), flushed, step, ident, len(runs),
                               k, lo, lo + (F if loading else s1)))
        ident += 1
        sizes.insert(0, flushed)
        if counting:
            written += flushed
        full_now = False
        while len(sizes) >= least and (stretch := _pick(sizes, rules)) is not None:
            start, end = stretch
            parts = runs[start:end]
            loaded = sum(r.loaded for r in parts)
            later = sum(r.later for r in parts)
            if (loaded, later) not in entries_of:
                entries_of[loaded, later] = _run_entries(loaded * F, later * s1, n, keys)
            merged = _UniRun(loaded, later, entries_of[loaded, later], step, ident,
                             parts[-1].rank, k, parts[-1].lo, parts[0].hi)
            ident += 1
            for r in parts:
                lives[r.ident] = step - r.born
                if r.since < k:
                    stays.append((r, r.rank, r.since, k))
            for r in runs[:start]:  # newer than the merge: end - start - 1 fewer runs older
                if r.since < k:
                    stays.append((r, r.rank, r.since, k))
                r.rank -= end - start - 1
                r.since = k
            full_now |= end - start == len(runs)
            if counting:
                written += merged.entries
                full += end - start == len(runs)
            runs[start:end] = [merged]
            sizes[start:end] = [merged.entries]
        if counting:
            counts.append(len(runs))
        if win.stop_after(step, full_now):
            break
    k = len(counts)
    stays.extend((r, r.rank, r.since, k) for r in runs if r.since < k)
    return stays, counts, lives, written, full, step


def _rank_levels(stays: list[tuple[_UniRun, int, int, int]], counts: np.ndarray,
                 lives: dict[int, int], end_step: int, first: int, s1: float, counted: int
                 ) -> tuple[list[_Level], UniStays | None]:
    """U5's ledger levels from the walk's stays (U5r): a run of rank r (the runs older than it)
    sits at level R - 1 - r, R the most runs the window holds, so the oldest run is always the
    last level. Each level's mean entries and presence over the counted flushes, and the lives
    of the runs that sat there, weighed by entries x flushes there (their block-time at the
    level, and their time there for S7f's sizes); and the stays
    themselves (:class:`UniStays`). A run still alive at the end is taken to be halfway through
    its life."""
    if not stays:
        return [], None
    R = int(counts.max())
    level = R - 1 - np.array([r for _, r, _, _ in stays])
    start = np.array([a for _, _, a, _ in stays])
    stop = np.array([b for _, _, _, b in stays])
    length = stop - start
    entries = np.array([r.entries for r, _, _, _ in stays])
    born = np.array([r.born for r, _, _, _ in stays])
    life = np.maximum([lives.get(r.ident, 2 * (end_step - r.born)) for r, _, _, _ in stays], 1)
    # Few lives and sizes recur (flush counts): each stay's (life, entries) as an index into
    # the distinct ones, a version of the level apiece (S6's life, S7f's size).
    pairs, which = np.unique(np.stack([life.astype(float), entries]), axis=1,
                             return_inverse=True)
    distinct = pairs[0]
    which = which.ravel()
    per_level = np.bincount(level, weights=entries * length, minlength=R) / counted
    presence = np.bincount(level, weights=length, minlength=R) / counted
    # A run's blocks are at its rank for its stay there: the block-time it brings.
    group = level * distinct.size + which
    block_time = np.bincount(group, weights=entries * length,
                             minlength=R * distinct.size).reshape(R, -1)
    time = np.bincount(group, weights=length, minlength=R * distinct.size).reshape(R, -1)
    levels = []
    version = np.zeros(level.size, dtype=np.intp)
    for p in range(R):
        mine = block_time[p] > 0
        w = block_time[p][mine]
        levels.append(_Level(float(per_level[p]), float(presence[p]), s1,
                             distinct[mine] * s1, w / max(w.sum(), 1e-300),
                             times=time[p][mine] * s1))
        at = level == p
        version[at] = np.searchsorted(np.flatnonzero(mine), which[at])
    kept = UniStays(level, start, stop, born - first, life,
                    np.array([r.lo for r, _, _, _ in stays]),
                    np.array([r.hi for r, _, _, _ in stays]), entries, version)
    return levels, kept


# U5r: S5-S6 take a run's blocks per phase of its life, its keys moving to newer runs as they
# are written again. 1, 2, 4, 8 and 16 phases price advise's reads-zipf0.9 universal pick at
# 0.0992, 0.0900, 0.0872, 0.0868 and 0.0867 I/O (docs/MODEL.md U5r): 4 is within 1% of 16.
RUN_PHASES = 4
# U5r: S3 is taken at every counted flush up to this many, else at this many, one a stratum
# of equal flushes (at the golden ratio's offsets, which no merge period aliases).
PLACEMENT_FLUSHES = 512
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def _placement_flushes(counted: int) -> np.ndarray:
    """U5r: the counted flushes S3 is taken at (each standing for an equal share of them)."""
    if counted <= PLACEMENT_FLUSHES:
        return np.arange(counted)
    stratum = counted / PLACEMENT_FLUSHES
    i = np.arange(PLACEMENT_FLUSHES)
    return np.minimum((stratum * (i + (i * _GOLDEN) % 1.0)).astype(np.intp), counted - 1)


def universal_placement(led: UniversalLedger, keys: KeyMap, workload: SkewedWorkload,
                        phases: int | None = None
                        ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], RunClasses]:
    """U5r: S3 at the runs' own spans. At a counted flush the runs are contiguous stretches of
    the writes, newest first, and a read midway to the next flush finds the buffer holding the
    last F/2 writes; S3 (:func:`_placement`) places the keys in those bands at that moment,
    ``hist`` its writes after the load. Averaged over the counted flushes, each run's band
    goes to its level (its rank) and its class there: its size, a factor of 2 apart from a
    flush's, and the phase of its life (``phases`` equal parts, :data:`RUN_PHASES` by
    default). A class's run versions weigh their block-time there, and their exposure to
    false positives is their time there weighed by the reads that pass them then (the reads
    landing in older runs: a rank's small young runs are passed by nearly every read, its large
    ones by few). Returns S3's (place, pop_count, pop_rate) and the :class:`RunClasses`."""
    phases = RUN_PHASES if phases is None else int(phases)
    st = led.stays
    L = len(led.levels)
    if st is None or L == 0:
        raise ValueError("universal_placement needs a ledger with its stays")
    s1 = led.flush_writes
    counted = int(round(led.window_writes / s1))
    at = _placement_flushes(counted)
    order = np.argsort(st.start, kind="stable")
    # Each sampled flush with the stays that hold it (a stay holds a contiguous run of them).
    lo_i = np.searchsorted(at, st.start[order], side="left")
    hi_i = np.searchsorted(at, st.stop[order], side="left")
    reps = hi_i - lo_i
    stay = np.repeat(order, reps)
    flush = np.arange(stay.size) - np.repeat(np.cumsum(reps) - reps - lo_i, reps)
    by = np.lexsort((st.level[stay], flush))  # each flush's runs, newest (level 0) first
    stay, flush = stay[by], flush[by]
    cut = np.flatnonzero(np.diff(flush)) + 1
    # A run's size class: a factor of 2 above the least run's (a flush's).
    size = np.floor(np.log2(st.entries / max(float(st.entries.min()), 1e-300)) + 1e-9)
    size = np.maximum(size, 0).astype(np.intp)
    C = (int(size.max()) + 1) * phases
    V = max(lev.lives.size for lev in led.levels)
    acc = acc_mass = None
    buffer = None
    shared = True
    weight = 1.0 / at.size
    block_time = np.zeros((L, C, V))  # entries x time, by level, class and version
    time = np.zeros((L, C, V))
    exposure = np.zeros((L, C, V))
    for rows in np.split(np.arange(stay.size), cut):
        if rows.size == 0:
            continue
        k = int(at[flush[rows[0]]])
        now = led.first_writes + k * s1 + s1 / 2.0
        j = stay[rows]
        edges = np.concatenate([[s1 / 2.0], now - st.lo[j][:-1]])
        place, pop_count, pop_rate = _placement(edges, keys, workload, now)
        if acc is None:
            acc = np.zeros((L, C, place.shape[1]))
            acc_mass = np.zeros_like(acc)
            buffer = np.zeros((2, place.shape[1]))
            shared = pop_rate.strides[0] == 0
        phase = np.clip((phases * (k - st.born[j] + 0.5) / st.life[j]).astype(np.intp), 0,
                        phases - 1)
        c = size[j] * phases + phase
        where = (st.level[j], c)
        np.add.at(acc, where, weight * place[1:])
        buffer[0] += weight * place[0]
        # The reads landing in each band now: those in runs older than a run pass it.
        reads = np.sum(place * pop_rate * pop_count[None, :], axis=1)
        passing = np.cumsum(reads[::-1])[::-1]
        passing = np.append(passing[2:], 0.0) / max(float(reads.sum()), 1e-300)
        v = (st.level[j], c, st.version[j])
        np.add.at(block_time, v, weight * st.entries[j])
        np.add.at(time, v, weight)
        np.add.at(exposure, v, weight * passing)
        if not shared:
            np.add.at(acc_mass, where, weight * place[1:] * pop_rate[1:])
            buffer[1] += weight * place[0] * pop_rate[0]
    assert acc is not None and acc_mass is not None and buffer is not None
    levels = []
    for i, lev in enumerate(led.levels):
        row: list[_Level | None] = []
        for c in range(C):
            bt = block_time[i, c, :lev.lives.size]
            mine = bt > 0
            if not mine.any():
                row.append(None)
                continue
            row.append(_Level(float(bt.sum()), float(time[i, c].sum()), s1,
                              lev.lives[mine], bt[mine] / bt.sum(),
                              times=exposure[i, c, :lev.lives.size][mine]))
        levels.append(tuple(row))
    place = np.vstack([buffer[:1], acc.sum(axis=1)])
    if shared:
        return ((place, pop_count, np.broadcast_to(pop_rate[0], place.shape)),
                RunClasses(acc, None, tuple(levels)))

    def per_key(mass: np.ndarray, where: np.ndarray) -> np.ndarray:
        return np.where(where > 1e-300, mass / np.maximum(where, 1e-300), 0.0)

    rate = np.vstack([per_key(buffer[1:], buffer[:1]),
                      per_key(acc_mass.sum(axis=1), acc.sum(axis=1))])
    return (place, pop_count, rate), RunClasses(acc, per_key(acc_mass, acc), tuple(levels))


def universal_tree(rules: UniversalRules, bits_per_key: float, *, entries: float,
                   entries_per_block: int, workload: SkewedWorkload, preload: float,
                   window: float, keys: KeyMap | None = None, cycle: bool = False
                   ) -> SkewedTree:
    """U5 then S3, S4 and S8 (:func:`tree_of_levels`) for RocksDB's universal compaction, every
    run's filter at ``bits_per_key``; the levels are run ranks, newest first (U5r), the keys
    placed at the runs' own spans over the window (:func:`universal_placement`)."""
    n = int(entries)
    keys = checked_key_map(n, workload, keys)
    led = universal_ledger(rules, preload, window, keys, cycle=cycle)
    if cycle:
        workload = replace(workload, history_writes=led.writes_before + led.window_writes / 2)
    placement, classes = universal_placement(led, keys, workload)
    levels = led.levels
    fpr = np.full(len(levels), float(realized_fpr(bits_per_key)))
    wa = [led.write_amp] + [0.0] * (len(levels) - 1)
    span = (led.window_writes if cycle
            else max(float(np.max(lev.lives)) for lev in levels))
    return tree_of_levels(levels, wa, span, _ledger_filters(levels, fpr, bits_per_key),
                          entries=n, buffer_entries=rules.flush_entries,
                          entries_per_block=entries_per_block, workload=workload, keys=keys,
                          placement=placement, classes=classes)


def skewed_costs(
    T: float, C: float, X: float, K: float, Z: float, *,
    entries: float, buffer_entries: float, entries_per_block: int,
    bits_per_entry: float | None = None, sum_fpr: float | None = None,
    workload: SkewedWorkload, cache_blocks: float, keys: KeyMap | None = None,
) -> SkewedCosts:
    """S1-S8 for one whole-level design (arguments as :func:`skewed_trees`); ``cache_blocks``:
    the LRU cache's size in blocks (0: no cache)."""
    return skewed_tree(T, C, X, K, Z, entries=entries, buffer_entries=buffer_entries,
                       entries_per_block=entries_per_block, bits_per_entry=bits_per_entry,
                       sum_fpr=sum_fpr, workload=workload, keys=keys).costs(cache_blocks)


# A cache size's result: each level's hit rate, t_C, its blocks' share B1 keeps and cached (S7f).
CacheSolved = tuple[np.ndarray, float, np.ndarray, np.ndarray]


def _cache_hits(tree: SkewedTree, cache_blocks: float
                ) -> CacheSolved:
    """S5-S7's cache for :meth:`SkewedTree.costs` (:data:`CacheSolved`), kept on the tree by
    cache size and in the search's memo (:func:`_kept_cache`): designs that differ in knobs alone
    build equal trees (at T = 2 Leveling, Tiering and Lazy Leveling are one), solved once."""
    cache_blocks = max(float(cache_blocks), 0.0)
    if cache_blocks not in tree._hits:
        solved = _kept_cache(tree, cache_blocks)
        if solved is None:
            solved = _solve_cache(tree, cache_blocks)
            _keep_cache(tree, cache_blocks, solved)
        tree._hits[cache_blocks] = solved
    return tree._hits[cache_blocks]


CACHES_KEPT = 256  # trees whose cache a search keeps (a few arrays of their levels each)


def _cache_key(tree: SkewedTree, cache_blocks: float) -> tuple:
    """Every input of :func:`_solve_cache` but where the keys live and are read (``place``,
    ``pop_count``, ``pop_rate``, long arrays that :func:`_kept_cache` compares instead)."""
    buffered = None if tree.buffered is None else (
        tree.buffer_trim, tuple(None if b is None else (b[0].tobytes(), b[1].tobytes())
                                for b in tree.buffered))
    classes = None if tree.classes is None else (
        tree.classes.place.tobytes(),
        None if tree.classes.rate is None else tree.classes.rate.tobytes(),
        tuple(tuple(None if c is None else (c.entries, c.runs, c.lives.tobytes(),
                                            c.weights.tobytes(), _times_bytes(c))
                    for c in row) for row in tree.classes.levels))
    return (cache_blocks, tree.entries_per_block, tree.reads_per_write, tree.clustered_reads,
            tree.dead_blocks_cached, classes,
            tuple((lev.entries, lev.lives.tobytes(), lev.weights.tobytes())
                  for lev in tree.levels),
            tree.runs.tobytes(), tree.probed.tobytes(), tree.fpr.tobytes(),
            tree.share.tobytes(), buffered)


def _times_bytes(lev: _Level) -> bytes:
    return b"" if lev.times is None else lev.times.tobytes()


def _kept_cache(tree: SkewedTree, cache_blocks: float
                ) -> CacheSolved | None:
    """The cache an equal tree of the search has had solved, None if none has. Equal inputs,
    equal results: the long arrays are compared whole, so nothing is taken for equal that is
    not."""
    arrays = (tree.place, tree.pop_count, tree.pop_rate)
    for other, solved in tree.memo.get("caches", {}).get(_cache_key(tree, cache_blocks), ()):
        if all(np.array_equal(a, b) for a, b in zip(arrays, other, strict=True)):
            return solved
    return None


def _keep_cache(tree: SkewedTree, cache_blocks: float,
                solved: CacheSolved) -> None:
    """:func:`_kept_cache`'s memo, which holds at most CACHES_KEPT kinds of tree."""
    kept = tree.memo.setdefault("caches", {})
    if len(kept) < CACHES_KEPT:
        kept.setdefault(_cache_key(tree, cache_blocks), []).append(
            ((tree.place, tree.pop_count, tree.pop_rate), solved))


def solve_caches(trees: Sequence[SkewedTree], cache_blocks: float) -> None:
    """S5-S7 for many trees with one cache size, worked out together and kept on each tree (read
    off by ``tree.costs`` and ``tree.point_read``): the trees' levels are rows of one set of
    sums, t_C one Newton solve for all (:func:`_characteristic_times`); each tree's results are
    its own but for the order of its sums. Trees with B1's buffer, S5r's hot range or U5r's
    run classes are solved one by one."""
    cache_blocks = max(float(cache_blocks), 0.0)
    todo: list[SkewedTree] = []  # one of each kind of tree (:func:`_kept_cache`)
    kinds: list[tuple] = []  # their _cache_key
    alike: list[list[SkewedTree]] = []  # the trees of each kind
    for tree in trees:
        if cache_blocks in tree._hits:
            continue
        if (cache_blocks <= 0 or tree.buffered is not None or tree.clustered_reads
                or tree.classes is not None):
            _cache_hits(tree, cache_blocks)
            continue
        solved = _kept_cache(tree, cache_blocks)
        if solved is not None:
            tree._hits[cache_blocks] = solved
            continue
        key = _cache_key(tree, cache_blocks)
        arrays = (tree.place, tree.pop_count, tree.pop_rate)
        for one, kind, same in zip(todo, kinds, alike, strict=True):
            if one is tree or (kind == key and all(
                    np.array_equal(x, y) for x, y in zip(
                        arrays, (one.place, one.pop_count, one.pop_rate), strict=True))):
                same.append(tree)
                break
        else:
            todo.append(tree)
            kinds.append(key)
            alike.append([tree])
    if len(todo) == 1:
        solved_all = [_cache_hits(todo[0], cache_blocks)]
    else:
        solved_all = _solve_caches(todo, cache_blocks) if todo else []
    for one, same, solved in zip(todo, alike, solved_all, strict=True):
        if cache_blocks not in one._hits:
            _keep_cache(one, cache_blocks, solved)
        for tree in same:
            tree._hits[cache_blocks] = solved


def _solve_caches(trees: Sequence[SkewedTree], cache_blocks: float
                  ) -> list[CacheSolved]:
    """:func:`_solve_cache` of many trees (none buffered, none with clustered reads) at a
    cache of ``cache_blocks`` > 0 blocks, the levels of all of them rows of one set of
    terms."""
    levels = tuple(lev for tree in trees for lev in tree.levels)
    sizes = np.array([len(tree.levels) for tree in trees])
    blocks, rates, fps = [], [], []
    for tree, classes in zip(trees, _fp_classes_many(trees), strict=True):
        level_blocks = np.array([max(lev.entries / tree.entries_per_block, 1.0)
                                 for lev in tree.levels])
        fp = _false_positive_requests(tree, level_blocks, classes=classes)
        rates.append(_block_rates(tree.levels, tree.place, tree.pop_count, tree.pop_rate,
                                  tree.entries_per_block, tree.reads_per_write, tree.memo))
        blocks.append(level_blocks)
        fps.append(fp)
    level_blocks = np.concatenate(blocks)
    first_row = np.cumsum(sizes) - sizes
    fp = _FalsePositives(np.concatenate([f.bulk for f in fps]),
                         np.concatenate([f.rate for f in fps]),
                         np.concatenate([f.keys for f in fps]),
                         np.concatenate([f.level + r for f, r in zip(fps, first_row,
                                                                     strict=True)]))
    lives = _life_nodes(levels, NODE_SPREAD)
    terms = _cache_terms(levels, np.concatenate(rates), level_blocks, lives=lives, bulk=fp.bulk)
    terms = _with_false_positives(terms, fp, levels, level_blocks, lives=lives)
    # S6g: the blocks of the trees whose engine keeps a deleted run's blocks cached.
    keeps = np.repeat([t.dead_blocks_cached for t in trees], sizes)
    ghost = terms.occ * keeps[terms.level] if keeps.any() else None
    # Each tree's terms side by side (its levels' rows are), so that its sums are segments.
    order = np.argsort(terms.level.astype(np.uint16) if len(levels) < 1 << 16 else terms.level,
                       kind="stable")  # a radix sort
    terms = _CacheTerms(terms.lam[order], terms.life[order], terms.occ[order], terms.req[order],
                        terms.level[order], terms.reads, terms.mortal,
                        None if ghost is None else ghost[order])
    counts = np.bincount(np.repeat(np.arange(len(trees)), sizes)[terms.level],
                         minlength=len(trees))
    t_c, h_inf = _characteristic_times(terms, counts, cache_blocks)
    # S7's hit rates, row by row, each tree's at its t_C.
    t_term = np.repeat(t_c, counts)
    finite = np.isfinite(t_term)
    if terms.mortal and finite.all():  # the usual case: _hit as _CacheTerms.hit_rates has it
        h = terms._mortal_hit(t_term)[0]
    else:
        h = h_inf.copy()
        h[finite] = _hit_within(terms.lam[finite], terms.life[finite], t_term[finite])
    hit, cached = _level_hits(terms, h, level_blocks)
    out = []
    cut = np.cumsum(sizes)[:-1]
    for j, (rows, share) in enumerate(zip(np.split(hit, cut), np.split(cached, cut),
                                          strict=True)):
        kept = np.zeros(sizes[j])
        for x in (rows, kept, share):
            x.setflags(write=False)
        out.append((rows, float(t_c[j]), kept, share))
    return out


UnbufferedTerms = tuple[np.ndarray, np.ndarray, np.ndarray | None, _FalsePositives, LifeNodes,
                        RateNodes | None, _CacheTerms]


def _unbuffered_terms(tree: SkewedTree) -> UnbufferedTerms:
    """:func:`_solve_cache`'s blocks per level, block rates and their weights, S7f's false
    positives, the lives' and rates' nodes and S5-S6's terms, which the compaction buffer (B1)
    leaves as they are: kept in the search's memo for a tree that may take the buffer (a
    search prices its pick again with it, :meth:`SkewedTree.with_buffer`, the same arrays)."""
    inputs = (tree.levels, tree.place, tree.pop_count, tree.pop_rate, tree.runs, tree.fpr,
              tree.share)
    key = ("unbuffered terms", id(tree.levels))
    if tree.buffer_option is not None:
        seen = tree.memo.get(key)
        if seen is not None and all(a is b for a, b in zip(seen[0], inputs, strict=True)):
            return seen[1]
    levels, B = tree.levels, tree.entries_per_block
    level_blocks = np.array([max(lev.entries / B, 1.0) for lev in levels])
    if tree.clustered_reads:
        rates, block_weights = _range_block_rates(levels, tree.place, tree.pop_count,
                                                  tree.pop_rate, B, tree.reads_per_write)
    else:
        rates = _block_rates(levels, tree.place, tree.pop_count, tree.pop_rate, B,
                             tree.reads_per_write, tree.memo)
        block_weights = None
    fp = _false_positive_requests(tree, level_blocks)
    lives = _life_nodes(levels, NODE_SPREAD)  # the keys' terms' and the false positives'
    terms = _cache_terms(levels, rates, level_blocks, block_weights=block_weights,
                         lives=lives, bulk=fp.bulk)
    # B1's own terms take the false positives at the level's mean run size (file-granular
    # trees, whose files are alike in size).
    rates = rates + fp.bulk[:, None]
    nodes = (_rate_nodes(rates, NODE_SPREAD, block_weights)
             if tree.buffer_option is not None or tree.buffered is not None else None)
    out = (level_blocks, rates, block_weights, fp, lives, nodes, terms)
    if tree.buffer_option is not None:  # the inputs kept too, so that the id stays theirs
        tree.memo[key] = (inputs, out)
    return out


def _solve_cache(tree: SkewedTree, cache_blocks: float
                 ) -> CacheSolved:
    """:func:`_cache_hits` worked out. A level's hit rate is over every block its reads need,
    its keys' and the false positives' (S7f)."""
    if tree.classes is not None and cache_blocks > 0:
        return _solve_classes(tree, cache_blocks)
    levels, L = tree.levels, len(tree.levels)
    # S5-S6. Without a cache nothing is cached and the blocks are not drawn.
    hit_level = np.zeros(L)
    t_c = 0.0
    kept = np.zeros(L)
    cached = np.zeros(L)
    if cache_blocks > 0:
        level_blocks, rates, block_weights, fp, lives, nodes, terms = _unbuffered_terms(tree)
        if tree.buffered is not None:
            terms, kept = _buffered_terms(tree, terms, rates, level_blocks, block_weights,
                                          cache_blocks, nodes)
        terms = _with_false_positives(terms, fp, levels, level_blocks, lives=lives)
        if tree.dead_blocks_cached:  # S6g
            terms = replace(terms, ghost=terms.occ)
        t_c = _characteristic_time(terms, cache_blocks)
        hit_level, cached = terms.hit_rates(t_c, level_blocks)
    for x in (hit_level, kept, cached):
        x.setflags(write=False)
    return hit_level, t_c, kept, cached


def _solve_classes(tree: SkewedTree, cache_blocks: float) -> CacheSolved:
    """U5r: :func:`_solve_cache` for a tree whose levels' runs come in classes
    (:class:`RunClasses`): each class of each level is a level of S5-S6's sums of its own, its
    blocks drawn from its keys and living its runs' lives, and S7f's false positives of a level
    fall on its classes by their exposure (the reads that pass them while they are there), on
    a class's versions by theirs (:func:`_smallness`). A level's hit rate is its classes'
    request-weighted, its cached share theirs weighted by their presence (a lookup reads the
    run there at the time)."""
    assert tree.classes is not None
    cl, L, B = tree.classes, len(tree.levels), tree.entries_per_block
    found = [(i, c, lev) for i, row in enumerate(cl.levels) for c, lev in enumerate(row)
             if lev is not None and lev.entries > 0]
    pseudo = tuple(lev for _, _, lev in found)
    parent = np.array([i for i, _, _ in found], dtype=np.intp)
    cls = np.array([c for _, c, _ in found], dtype=np.intp)
    P = tree.pop_count.size
    place = np.vstack([np.zeros((1, P)), cl.place[parent, cls]])
    rate = (np.broadcast_to(tree.pop_rate[0], place.shape) if cl.rate is None
            else np.vstack([np.zeros((1, P)), cl.rate[parent, cls]]))
    blocks = np.array([lev.entries / B for lev in pseudo])
    level_blocks = np.array([max(lev.entries / B, 1.0) for lev in tree.levels])
    if tree.clustered_reads:
        rates, weights = _range_block_rates(pseudo, place, tree.pop_count, rate, B,
                                            tree.reads_per_write)
    else:
        rates = _block_rates(pseudo, place, tree.pop_count, rate, B, tree.reads_per_write,
                             tree.memo, slots=parent)
        weights = None
    # S7f: a level's false positives on its classes by exposure (their presence where none is).
    fp = _false_positive_requests(tree, level_blocks)
    exposed = np.array([0.0 if lev.times is None else float(lev.times.sum()) for lev in pseudo])
    by = np.bincount(parent, weights=exposed, minlength=L)
    present = np.array([lev.runs for lev in pseudo])
    by_time = np.bincount(parent, weights=present, minlength=L)
    share = np.where(by[parent] > 0, exposed / np.where(by > 0, by, 1.0)[parent],
                     present / np.where(by_time > 0, by_time, 1.0)[parent])
    bulk = fp.bulk[parent] * level_blocks[parent] * share / np.maximum(blocks, 1e-300)
    # Each sparse node of a level, its keys shared among the level's classes. A class no read
    # passes (exposure 0 where its level's is not) takes none of them (U5r): a node of no keys
    # is no block, and left in it would be a zero-weight bin whose mean rate _grouped_nodes
    # takes as 0, a term at rate 0 where S6's h is 0/0.
    of = [np.flatnonzero((parent == i) & (share > 0)) for i in range(L)]
    node = sorted(((r, k * share[c], c) for r, k, i in zip(fp.rate, fp.keys, fp.level,
                                                          strict=True) for c in of[i]),
                  key=lambda x: x[2])  # class after class, as S7f's nodes are ordered
    sparse = _FalsePositives(bulk, np.array([r for r, _, _ in node]),
                             np.array([k for _, k, _ in node]),
                             np.array([c for _, _, c in node], dtype=np.intp))
    lives = _life_nodes(pseudo, NODE_SPREAD)
    terms = _cache_terms(pseudo, rates, blocks, block_weights=weights, lives=lives, bulk=bulk)
    terms = _with_false_positives(terms, sparse, pseudo, blocks, lives=lives)
    if tree.dead_blocks_cached:  # S6g
        terms = replace(terms, ghost=terms.occ)
    t_c = _characteristic_time(terms, cache_blocks)
    hit_c, cached_c = terms.hit_rates(t_c, blocks)
    reads = terms.reads * blocks
    asked = np.bincount(parent, weights=reads, minlength=L)
    hit_level = np.where(asked > 0, np.bincount(parent, weights=reads * hit_c, minlength=L)
                         / np.where(asked > 0, asked, 1.0), 0.0)
    # A lookup that reads a block of a level at random (S7f's zero-result false positive, S7r's
    # seek) reads the run there at the time: its classes' cached shares over their presence.
    there = np.bincount(parent, weights=present, minlength=L)
    cached = np.clip(np.bincount(parent, weights=cached_c * present, minlength=L)
                     / np.where(there > 0, there, 1.0), 0.0, 1.0)
    kept = np.zeros(L)
    for x in (hit_level, kept, cached):
        x.setflags(write=False)
    return hit_level, t_c, kept, cached


def _probed(levels: Sequence[_Level], runs: np.ndarray) -> np.ndarray:
    """Runs a read that passes each level probes: all of them, but the level's own run only
    where its files span the key (P7: a file-granular level's coverage)."""
    spans = np.array([lev.span for lev in levels])
    return runs if np.all(spans == 1.0) else runs - (1.0 - spans)


def _with_cache(tree: SkewedTree, cache_blocks: float) -> SkewedCosts:
    """:meth:`SkewedTree.costs`."""
    levels = tree.levels
    target = tree.share[1:]
    fp_i, runs = tree.false_positives, tree.runs
    hit_level, t_c, kept, cached = _cache_hits(tree, cache_blocks)
    accesses = target + fp_i
    hits = accesses * hit_level
    total_access = float(accesses.sum())
    return SkewedCosts(
        write_amp=float(sum(tree.level_write_amp)),
        level_write_amp=tree.level_write_amp,
        cycle_writes=tree.cycle_writes,
        point_read=float(np.sum(accesses - hits)),
        cache_hit_rate=float(hits.sum() / total_access) if total_access > 0 else 0.0,
        cache_hit_rate_per_level=tuple(float(x) for x in hit_level),
        read_buffer_share=float(tree.share[0]),
        read_level_share=tuple(float(x) for x in target),
        false_positives=float(fp_i.sum()),
        level_entries=tuple(lev.entries for lev in levels),
        level_runs=tuple(float(x) for x in runs),
        run_lifetime_writes=tuple(float(np.sum(lev.lives * lev.weights)) for lev in levels),
        characteristic_time_writes=t_c,
        # S7f: a zero-result lookup's false positive reads a block of the level at random.
        zero_result_read=float(np.sum(tree.probed * tree.fpr * (1.0 - cached))),
        probe_weights=tuple(float(x) for x in tree.probe_weights),
        # S8's what-if prices its own false positives as misses: it is not a cache's what-if.
        weighted_point_read=(float(np.sum(target * (1.0 - hit_level)))
                             + float(tree.weighted_false_positives.sum())),
        weighted_zero_result_read=float(np.sum(tree.probed * tree.weighted_fpr * (1.0 - cached))),
        buffer_space=float(np.sum(kept * [lev.entries for lev in levels])
                           / max(sum(lev.entries for lev in levels), 1.0)),
        buffer_kept=tuple(float(x) for x in kept) if tree.buffered is not None else (),
        cached_share_per_level=tuple(float(x) for x in cached),
        level0_levels=tree.level0_levels,
        level_probed=tuple(float(x) for x in tree.probed),
    )


def cached_range(level_runs: Sequence[float], level_entries: Sequence[float],
                 cached: Sequence[float], level0_levels: int = 0) -> tuple[float, float]:
    """S7r: a range read through the block cache, as the cost row's ``(range_runs,
    range_spread)`` (:func:`cost_models.costs.range_cost`: I/O = runs + blocks x spread). A
    range read seeks each run (one block) and scans the blocks its range spans; with uniform
    range starts the block it touches at level l is cached with the share of the level's blocks
    the cache holds, c_l (S7f), so

        range_runs = a_0 + sum_{l>=1} a_l (1 - c_l),
        range_spread = sum_l (N_l / N) (1 - c_l),

    a_l (``level_runs``: the runs a read probes at the level, its own only where its files span
    the key, :func:`_probed`) and N_l (``level_entries``) the levels' entries (N their sum),
    the first ``level0_levels`` of them level 0's runs (a_0). Level 0's files are young and
    RocksDB 7.8 does not put a flush's blocks in the cache, but reads do: S5-S6 give level 0 the
    share its point reads keep cached over a file's short life, and range reads take it too (a
    lower bound: their own touches fill the cache as well). Taking level 0 as uncached (c_0 = 0,
    this stage's first form) priced 1.98 I/O per range against RocksDB's 0.92 on ranges-zipf0.6's
    database (docs/ADVISE.md). With c = 0 it is (sum_l a_l, 1), the uncached cost of these
    levels. ``level0_levels`` is checked against the levels given.
    Stock RocksDB's iterators read through the block cache; the native engine's scans do not,
    so its ranges are not priced here."""
    runs = np.asarray(level_runs, dtype=float)
    entries = np.asarray(level_entries, dtype=float)
    c = np.array(cached, dtype=float)
    if not runs.shape == entries.shape == c.shape or runs.ndim != 1:
        raise ValueError(f"cached_range needs one run count, entry count and cached share per "
                         f"level: got {runs.shape}, {entries.shape} and {c.shape}")
    if not 0 <= level0_levels <= c.size:
        raise ValueError(f"level0_levels must be in [0, {c.size}]; got {level0_levels}")
    if np.any(~np.isfinite(c)) or np.any((c < 0.0) | (c > 1.0)):
        raise ValueError(f"cached shares must be in [0, 1]; got {c.tolist()}")
    if np.any(~(runs >= 0.0)) or np.any(~(entries >= 0.0)):
        raise ValueError("runs and entries must be >= 0")
    total = float(entries.sum())
    share = entries / total if total > 0.0 else np.zeros_like(entries)
    return float(np.sum(runs * (1.0 - c))), (float(np.sum(share * (1.0 - c))) if total > 0.0
                                              else 1.0)


def cached_range_of(costs: SkewedCosts) -> tuple[float, float]:
    """:func:`cached_range` with the levels, runs and cached shares of the skew stage's
    ``costs`` (S2f's trees: level 0 first while it holds runs)."""
    return cached_range(costs.level_probed or costs.level_runs, costs.level_entries,
                        costs.cached_share_per_level, costs.level0_levels)


def cached_range_seeks(costs: SkewedCosts) -> np.ndarray:
    """S7r's range_runs level by level, a_l (1 - c_l), the terms :func:`cached_range_of`
    sums (D1 places each at its level's device)."""
    runs = np.asarray(costs.level_probed or costs.level_runs, dtype=float)
    return runs * (1.0 - np.asarray(costs.cached_share_per_level, dtype=float))


def universal_range_bound(rules: UniversalRules, entries: float, cache_blocks: float,
                          entries_per_block: float) -> tuple[float, float]:
    """A lower bound on S7r's ``(range_runs, range_spread)`` (:func:`cached_range`) for U5's
    universal tree over a cycle after a load of ``entries`` keys (U5r), known without walking the
    cycle: the search's floor for a universal configuration it has not priced
    (docs/MODEL.md, "The search").

    * The last level is the oldest run, at every flush of the cycle (presence 1). The cycle
      starts at a full merge, which takes every load flush; a later merge that takes the oldest
      run keeps them: so it holds at least the load's ``round(N / F) F`` entries (U5's
      :func:`_run_entries` never falls below its loaded ones), ``n_old``.
    * S5's t_C keeps the cache's blocks, summed over every class of every level, at most C; the
      oldest run's classes have ``n_old / B`` blocks while present and sit at the last level
      all the time (U5r's cached share is over their presence), so c_L <= min(1, C B / n_old).
      Every other rank seeks at least 0 blocks: range_runs >= 1 - c_L.
    * When U1-U4 are checked (at least max(trigger, 2) runs), each merge they make is either
      U2's of everything or one chosen where U2 does not apply, which keeps the newer runs' sum
      or moves some of it into the oldest: after them the newer runs hold less than
      a = max_size_amplification_percent / 100 times the oldest. Below that many runs no
      rule is checked, and at most max(trigger, 2) - 2 flushes of at most F entries come in
      before one is. So at every flush the total is at most (1 + a) oldest + (max(trigger, 2)
      - 2) F, and so is its mean over the cycle: the oldest's share of the entries is at least
      n_old / ((1 + a) n_old + (max(trigger, 2) - 2) F), and range_spread >= it x (1 - c_L).

    ``entries_per_block``: the tree's (stock RocksDB's,
    :func:`wacky_model.skew.rocksdb_block_entries`)."""
    F = float(rules.flush_entries)
    oldest = round(float(entries) / F) * F  # as universal_ledger counts the load's flushes
    if oldest <= 0.0:
        return 0.0, 0.0
    held = min(1.0, max(float(cache_blocks), 0.0) * float(entries_per_block) / oldest)
    amp = rules.max_size_amplification_percent / 100.0
    unchecked = max(rules.trigger, 2) - 2
    share = oldest / ((1.0 + amp) * oldest + unchecked * F)
    return 1.0 - held, share * (1.0 - held)


BUFFER_ROUNDS = 4  # B1: the trim's choice and t_C settle in two or three rounds


def _buffered_terms(tree: SkewedTree, terms: _CacheTerms, rates: np.ndarray,
                    level_blocks: np.ndarray, block_weights: np.ndarray | None,
                    cache_blocks: float, nodes: RateNodes | None = None
                    ) -> tuple[_CacheTerms, np.ndarray]:
    """B1: S5-S6's terms with the compaction buffer. A block the buffer keeps lives the key's
    stay in its level (:func:`buffered_lives`) instead of its file's life; the trim keeps a file
    while ``buffer_trim`` of its blocks are cached: per block under a hot key range (S5r: a file
    is all hot or all cold), else by the level's mean. The choice and t_C are solved together
    (``nodes``: :func:`_rate_nodes`, when the caller has them). Returns the terms and each
    level's share of blocks kept."""
    L = len(tree.levels)
    buffered = np.array([b is not None for b in tree.buffered])
    long_levels = tuple(replace(lev, lives=b[0], weights=b[1]) if b is not None else lev
                        for lev, b in zip(tree.levels, tree.buffered, strict=True))
    long = _cache_terms(long_levels, rates, level_blocks, block_weights=block_weights,
                        nodes=nodes)
    floor = np.where(buffered, 0.0, math.inf)  # per level: the slowest block rate kept
    mixed = terms
    for _ in range(BUFFER_ROUNDS):
        keep_s = buffered[terms.level] & (terms.lam >= floor[terms.level])
        keep_l = buffered[long.level] & (long.lam >= floor[long.level])
        mixed = _CacheTerms(*(np.concatenate([getattr(terms, f)[~keep_s], getattr(long, f)[keep_l]])
                              for f in ("lam", "life", "occ", "req", "level")),
                            reads=terms.reads, mortal=False)
        t_c = _characteristic_time(mixed, cache_blocks)
        h = _hit(long.lam, long.life, t_c)
        cached = np.bincount(long.level, weights=long.occ * h, minlength=L)
        blocks = np.bincount(long.level, weights=long.occ, minlength=L)
        new = floor.copy()
        for i in np.flatnonzero(buffered):
            at = long.level == i
            if tree.clustered_reads:
                lam, where = np.unique(long.lam[at], return_inverse=True)
                share = (np.bincount(where, weights=(long.occ * h)[at])
                         / np.bincount(where, weights=long.occ[at]))
                ok = share >= tree.buffer_trim
                new[i] = float(lam[ok].min()) if ok.any() else math.inf
            else:
                new[i] = 0.0 if cached[i] >= tree.buffer_trim * blocks[i] else math.inf
        if np.array_equal(new, floor):
            break
        floor = new
    keep_l = buffered[long.level] & (long.lam >= floor[long.level])
    kept = (np.bincount(long.level, weights=long.occ * keep_l, minlength=L)
            / np.maximum(np.bincount(long.level, weights=long.occ, minlength=L), 1e-300))
    # Blocks nobody reads are not among the terms: they are trimmed (never cached).
    kept *= np.bincount(long.level, weights=long.occ, minlength=L) / np.maximum(level_blocks,
                                                                                 1e-300)
    return mixed, kept
