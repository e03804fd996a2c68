"""Skewed keys and an LRU block cache: S1-S7 in ``docs/MODEL.md`` ("Skew and a block cache").

Keys are ranked by popularity, rank 1 the hottest, and ranks are assigned at random to keys, so
a key's rank says nothing about where its key falls in the key space. Four distributions:

* ``uniform``;
* ``zipf`` theta: P(rank r) proportional to r^-theta, theta in [0, 1.5] (YCSB's default 0.99);
* ``hotset`` h p: a fraction h of the keys receives a fraction p of the operations;
* ``latest`` theta: a read of the key of the r-th most recent write, r Zipf-distributed
  (YCSB-D; theta defaults to YCSB's 0.99).

Writes are a share ``u`` of updates of existing keys (drawn from the write distribution) and
``1 - u`` of inserts of new keys. The model, for one whole-level Wacky design:

* S1 Unique(w), the distinct keys among w writes: (1-u) w + sum_k (1 - e^{-u q_k w}).
* S2 Write amplification: M1-M3 of the finite model with every batch counted in writes, a run
  holding Unique(its writes) entries: updates of hot keys are absorbed when runs merge.
* S3 Where a read's key lives: Level i holds the keys whose newest write falls in its age band,
  sized so that the band's unique keys fill the level's mean entries.
* S4 The probes of an existing-key read: the false positives of the runs above its key.
* S5 The LRU cache with Che's approximation: a block stays cached for a characteristic time
  t_C after its last read, found from the cache's size.
* S6 Invalidation: a block dies with its run, so a read hits only if the block was read since
  its run was written, h(lambda, l, t_C) for a run that lives l.
* S7 Hit rates per level and overall, and the I/O of a read.
* S8 (a what-if) The filter memory allocated for these reads by the weighted Lagrangian.

Everything is a sum over bins of ranks (:func:`rank_bins`), so a design costs O(bins x levels),
independent of N, except S5's block composition, drawn once from a fixed seed. What depends on
the workload alone (the bins, the keys' chances, S1 tabulated) is a :class:`KeyMap` that a search
builds once; :func:`skewed_tree` prices a design up to the cache (S1-S4, S8) and
:meth:`SkewedTree.costs` adds the cache (S5-S7), the costly part. The numerical shortcuts (S1's
inverse by Newton's method, S5's draws from sorted uniforms, S5-S6's sums on moment-matched
nodes, t_C by Newton's method) are described in docs/MODEL.md and checked against the direct
computations in tests/test_skew_speed.py.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from cost_models.evaluate import allocate_fprs
from cost_models.filters import (
    bloom_bits_per_key,
    lagrangian_fprs_for_memory,
    memory_bits_per_entry,
)
from cost_models.finite import fill_layout, realized_fpr, runs_over_fill

EXACT_RANKS = 512  # ranks below this get a bin each; above, bins grow geometrically
BIN_GROWTH = 1.02
BLOCK_SAMPLES = 2048  # blocks drawn per level to estimate S5's sums over blocks
_SEED = 0x534B4557  # "SKEW": the block draws are part of the model, fixed for reproducibility


class KeyDist(Protocol):
    """Which keys operations touch (``wacky_model.types.KeyDist``, beside the
    ``Workload`` that holds it): what S1-S8 read of it."""

    kind: str  # uniform, zipf, hotset or latest
    theta: float  # zipf and latest
    hot_keys: float  # hotset: h, the share of the keys that is hot
    hot_share: float  # hotset: p, the share of operations they receive

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


def bins_for(n: int, *dists: KeyDist) -> RankBins:
    """Bins fine enough for every distribution given (hot-set edges are bin edges)."""
    return rank_bins(n, tuple(d.hot_count(n) for d in dists if d.kind == "hotset"))


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


def key_probabilities(dist: KeyDist, bins: RankBins, n: int) -> np.ndarray:
    """Each key's probability per operation, by bin (sums to 1 over all n keys)."""
    lo, hi = bins.lo.astype(float), bins.hi.astype(float)
    if dist.kind in ("zipf", "latest") and dist.theta > 0.0:
        mass = _zipf_mass(lo, hi, dist.theta)
    elif dist.kind == "hotset":
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
    hits = np.sum(count * -np.expm1(-np.multiply.outer(w * u, q)), axis=-1)
    return (1.0 - u) * w + hits


NEWTON_STEPS = 200  # S1's inverse: a cap only; from a good start it takes a handful
NEWTON_TOL = 1e-13  # relative step at which the inverse stops (the bisection stopped at 1e-9)
UNREACHABLE = 1e18  # writes beyond which a band or a run is taken never to fill (S3)


def _unique_and_slope(w: np.ndarray, u: float, q: np.ndarray, count: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """S1's D(w) and dD/dw = (1 - u) + u sum_k q_k e^{-u q_k w}, for an array of w."""
    em = np.expm1(-np.multiply.outer(w * u, q))
    d = (1.0 - u) * w + np.sum(count * -em, axis=-1)
    slope = (1.0 - u) + u * np.sum((count * q) * (1.0 + em), axis=-1)
    return d, slope


def writes_for_unique_many(d: np.ndarray | float, u: float, q: np.ndarray, count: np.ndarray,
                           start: np.ndarray | None = None) -> np.ndarray:
    """S1 inverted elementwise: the writes whose distinct keys number d (inf if updates alone
    cannot reach d). Newton's method, all at once, from w = d or the guesses ``start``: D is
    increasing and concave with D(w) <= w (a write adds at most one key), so the root is at
    least d, a step from the left lands at or below the root, the iterates then climb to it
    without a bracket, quadratically once close, and a step from the right lands left of it
    (at d at the lowest)."""
    d = np.asarray(d, dtype=float)
    out = np.zeros(d.shape)
    never = np.full(d.shape, u >= 1.0) & (d >= count.sum() * (1.0 - 1e-12))
    out[never] = math.inf
    todo = (d > 0.0) & ~never
    target = d[todo]
    w = target.copy() if start is None else np.maximum(np.broadcast_to(start, d.shape)[todo],
                                                       target)
    for _ in range(NEWTON_STEPS):
        got, slope = _unique_and_slope(w, u, q, count)
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

    def unique(self, w: np.ndarray | float) -> np.ndarray:
        """S1's D(w), elementwise."""
        return unique_writes(w, self.update_fraction, self.q, self.count)

    def unique_one(self, w: float) -> float:
        """S1's D(w) of one number, with fewer array operations (the same to rounding)."""
        u = self.update_fraction
        return (1.0 - u) * w - float(np.dot(self.count, np.expm1((-u * w) * self.q)))

    def guess_writes(self, d: np.ndarray | float) -> np.ndarray:
        """S1 inverted roughly (to ~1e-3 where tabulated, else d, a lower bound)."""
        d = np.asarray(d, dtype=float)
        if not self.log_unique.size:
            return d
        with np.errstate(divide="ignore"):
            y = np.log(d)
        inside = (y >= self.log_unique[0]) & (y <= self.log_unique[-1])
        return np.where(inside, np.exp(np.interp(y, self.log_unique, self.log_writes)), d)

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
        return writes_for_unique_many(d, self.update_fraction, self.q, self.count,
                                      start=self.guess_writes(d))

    def serves(self, entries: int, workload: SkewedWorkload) -> bool:
        """Whether this is the map :func:`key_map` builds for ``entries`` and ``workload``."""
        return (self.entries == int(entries) and self.write_dist == workload.write_dist
                and self.read_dist == workload.read_dist
                and self.update_fraction == float(workload.update_fraction))


TABLE_WRITES = np.geomspace(1.0, 1e20, 8 * 20 + 1)  # S1's table: 8 points a decade


def key_map(entries: float, workload: SkewedWorkload, *, tabulate: bool = True) -> KeyMap:
    """The design-independent part of S1-S7 for ``entries`` keys under ``workload``.
    ``tabulate``: also tabulate S1 (about 1 ms), which pays when pricing several designs."""
    n = int(entries)
    u = float(workload.update_fraction)
    bins = bins_for(n, workload.write_dist, workload.read_dist)
    arrays = [bins.count, key_probabilities(workload.write_dist, bins, n),
              key_probabilities(workload.read_dist, bins, n)]
    if tabulate:
        d = unique_writes(TABLE_WRITES, u, arrays[1], arrays[0])
        # Where D stops rising in floating point (updates alone saturate at N) the inverse
        # is left to Newton's method from d.
        rising = np.concatenate(([True], np.diff(d) > 0))
        keep = np.cumprod(rising).astype(bool)
        arrays += [np.log(d[keep]), np.log(TABLE_WRITES[keep])]
    for a in arrays:
        a.setflags(write=False)  # shared by every design priced with the map
    return KeyMap(n, workload.write_dist, workload.read_dist, u, bins, *arrays)


@dataclass(frozen=True)
class _Level:
    entries: float  # mean entries over its fill
    runs: float  # mean runs
    batch_writes: float  # writes one arriving batch spans
    lives: np.ndarray  # lifetimes of its run versions, in writes
    weights: np.ndarray  # each version's share of the level's block-time

    def __post_init__(self) -> None:
        # Versions of equal life are one class to S6 (most live one batch): merge them.
        lives, where = np.unique(np.asarray(self.lives, float), return_inverse=True)
        weights = np.bincount(where.ravel(), weights=np.asarray(self.weights, float).ravel(),
                              minlength=lives.size)
        object.__setattr__(self, "lives", lives)
        object.__setattr__(self, "weights", weights)


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
    """M1 in writes: q, the fewest batches (>= 1) of ``span`` writes whose distinct keys fill a
    run of ``run_cap`` entries, D(q span) >= run_cap (capped at MAX_BATCHES_PER_RUN), and D(e
    span) for e = 0..q, the active run after e batches. q is read off S1's inverse (its table's
    guess, or the inverse itself when the guess falls short) and then checked against D
    itself, so that it is the count a batch-by-batch count gives."""
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


def _levels(T: float, C: float, X: float, K: float, Z: float, S: float, F: float,
            keys: KeyMap, layout_size: float | None = None
            ) -> tuple[list[_Level], list[float], float, object]:
    """S2: the levels of the cycle at total size S with batches counted in writes; returns
    them, each level's write amplification per write, the writes between full merges of Level
    L, and the structure (for the filters)."""
    # The engine sizes its levels by the entries it holds, duplicates in Level L's runs included
    # (``layout_size``, S2); the keys themselves number S.
    layout = S if layout_size is None else layout_size
    lay = fill_layout(*(np.asarray(v, dtype=float) for v in (T, C, X, K, Z, layout, F)))
    s = lay.s
    L = int(np.sum(s.valid))
    u = keys.update_fraction
    span = float(keys.writes_for(F))  # S1: a flush holds F distinct keys
    levels: list[_Level] = []
    level_wa: list[float] = []  # entries written per write by merges into each level
    for i in range(L - 1):
        a = int(lay.runs[i])
        cap_hi = float(lay.caps[i]) * (1.0 + 1e-9)
        run_cap = float(lay.caps[i]) / a * (1.0 - 1e-9)
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
        level_wa.append(float(np.sum(sizes_arr)) / ((m + 1) * span))
        if m:
            lives, weights = _version_lives(m, qi, sizes_arr, span, m + 1)
        else:
            lives, weights = np.zeros(0), np.zeros(0)
        runs = float(runs_over_fill(np.float64(m), np.float64(qi)))
        levels.append(_Level(float(np.mean(held_after)), runs, span, lives, weights))
        span *= m + 1
    # Level L (S2): each arriving batch either builds a run or, with a_L runs there, merges all.
    a_L = int(lay.runs[L - 1])
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
    return levels, level_wa, cycle, s


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
    bounds = np.vstack([np.full((1, q.size), mass_r.sum()), older, np.zeros((1, q.size))])
    return bounds[:-1] - bounds[1:]


@dataclass(frozen=True)
class _BlockDraws:
    """One level's share of S5's block draws, as ``rng.choice(keys, (BLOCK_SAMPLES, B), p)``
    then ``rng.random((BLOCK_SAMPLES, B)) < fill`` would draw them: the choice's uniforms sorted
    (so a level's key mix splits them with one search per bin, not one per draw), the block of
    each, and the liveness uniforms in the same order."""

    keys: np.ndarray
    block: np.ndarray
    alive: np.ndarray


@functools.lru_cache(maxsize=32)
def _block_draws(entries_per_block: int, slot: int) -> _BlockDraws:
    """The draws of the ``slot``-th level that has live keys (S5), from the model's fixed seed.
    They are constants of the model, the same for every workload and design, and sorting them
    is most of the cost of a level's draws, so they are kept (1.5 MB a level at B = 32)."""
    size = BLOCK_SAMPLES * entries_per_block
    bits = np.random.PCG64(_SEED)  # what np.random.default_rng(_SEED) runs on
    bits.advance(2 * slot * size)  # each level before it drew its keys and their liveness
    rng = np.random.Generator(bits)
    keys, alive = rng.random(size), rng.random(size)
    # Sorted by their top 16 bits first (a radix sort), then fully (a merge sort of runs that
    # are then nearly all in order): about a third of one argsort's time.
    coarse = np.argsort((keys * 65536.0).astype(np.uint16), kind="stable")
    order = coarse[np.argsort(keys[coarse], kind="stable")]
    out = _BlockDraws(keys[order], (order // entries_per_block).astype(np.intp), alive[order])
    for a in (out.keys, out.block, out.alive):
        a.setflags(write=False)
    return out


def _block_rates(levels: list[_Level], place: np.ndarray, pop_count: np.ndarray,
                 pop_rate: np.ndarray, entries_per_block: int, reads_per_write: float
                 ) -> np.ndarray:
    """S5: (levels, BLOCK_SAMPLES), the read rates (per write) of the blocks drawn per level,
    each B entries drawn from the level's live keys, a share of them older versions nobody
    reads (a level without live keys: zeros). Draw for draw the blocks ``rng.choice`` gives
    from the fixed seed (tests/test_skew_speed.py checks)."""
    out = np.zeros((len(levels), BLOCK_SAMPLES))
    slot = 0
    shared = pop_rate.strides[0] == 0  # every level's keys read at the same rates
    rates_key = np.ascontiguousarray(pop_rate[0], dtype=float).tobytes() if shared else b""
    for i, lev in enumerate(levels):
        live = place[i + 1] * pop_count
        live_total = float(live.sum())
        if live_total <= 0:
            continue
        fill = min(1.0, live_total / max(lev.entries, 1e-300))
        draws = _block_draws(entries_per_block, slot)
        cdf = np.cumsum(live / live_total)  # as rng.choice builds it
        cdf /= cdf[-1]
        # The draws below cdf[k] and not below cdf[k-1] are of bin k: a run of the sorted ones.
        per_key = np.diff(np.searchsorted(draws.keys, cdf, side="left"), prepend=0)
        rates = rates_key or np.ascontiguousarray(pop_rate[i + 1], dtype=float).tobytes()
        out[i] = _drawn_rates(entries_per_block, slot, per_key.tobytes(), rates, fill)
        slot += 1
    return reads_per_write * out


@functools.lru_cache(maxsize=256)
def _drawn_rates(entries_per_block: int, slot: int, per_key: bytes, rates: bytes, fill: float
                 ) -> np.ndarray:
    """The summed rates of a level's BLOCK_SAMPLES blocks from the draws of its ``slot``, given
    how many of the sorted draws fall in each bin (``per_key``), the bins' rates and the share
    of live entries (:func:`_block_rates`). Kept, because the same draws recur: without
    updates, or with uncorrelated reads, every level's live keys are mixed alike (S3), so every
    level of every design in a search draws the same blocks (about 16 kB each)."""
    draws = _block_draws(entries_per_block, slot)
    values = np.repeat(np.frombuffer(rates), np.frombuffer(per_key, dtype=np.intp))
    if fill < 1.0:  # the uniforms are below 1: all alive otherwise
        values = np.where(draws.alive < fill, values, 0.0)
    out = np.bincount(draws.block, weights=values, minlength=BLOCK_SAMPLES)
    out.setflags(write=False)
    return out


NODE_SPREAD = 1.25  # S5-S6's sums group values within this factor of each other


def _grouped_nodes(values: np.ndarray, weights: np.ndarray, counts: np.ndarray,
                   spread: float = NODE_SPREAD) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A short weighted stand-in for weighted values in rows (levels; ``counts`` values a row,
    row after row): in each row the values are binned by ln(value / the row's least) in steps
    of ln(spread), and every bin of several is replaced by two nodes at its weighted mean plus
    and minus its standard deviation with half its weight each, a lone value by itself. Each
    bin keeps its weight, mean and variance, so a smooth function's weighted sum changes by
    O((spread - 1)^3) of its scale (S5-S6's t_C and hit rates by ~1e-5 at 1.25;
    tests/test_skew_speed.py measures it against the full sums). Zeros and infinities are nodes
    of their own, as is every value with spread <= 1. Returns the nodes, their weights and
    their rows."""
    n_rows = counts.size
    rows = np.repeat(np.arange(n_rows), counts)
    plain = (values > 0) & np.isfinite(values)
    if spread <= 1.0 or not plain.any():
        return values, weights, rows
    odd = ~plain
    v, w, row = values, weights, rows
    if odd.any():
        v, w, row = values[plain], weights[plain], rows[plain]
        counts = np.bincount(row, minlength=n_rows)
    filled = counts > 0
    least = np.full(n_rows, np.inf)
    least[filled] = np.minimum.reduceat(v, (np.cumsum(counts) - counts)[filled])
    step = np.floor(np.log(v / least[row]) * (1.0 / math.log(spread))).astype(np.intp)
    width = int(step.max()) + 1
    key = row * width + step
    size = np.bincount(key, minlength=n_rows * width)
    used = np.flatnonzero(size)
    index = np.zeros(n_rows * width, dtype=np.intp)
    index[used] = np.arange(used.size)
    group = index[key]
    total = np.bincount(group, weights=w, minlength=used.size)
    safe = np.where(total > 0, total, 1.0)
    mean = np.bincount(group, weights=w * v, minlength=used.size) / safe
    sd = np.sqrt(np.bincount(group, weights=w * (v - mean[group]) ** 2, minlength=used.size)
                 / safe)
    level = used // width
    one, many = size[used] == 1, size[used] > 1
    return (np.concatenate([mean[one], mean[many] - sd[many], mean[many] + sd[many],
                            values[odd]]),
            np.concatenate([total[one], total[many] / 2.0, total[many] / 2.0, weights[odd]]),
            np.concatenate([level[one], level[many], level[many], rows[odd]]))


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

    def occupancy(self, t: float) -> float:
        """Che: the blocks cached, sum over blocks of P(cached) (S5 with S6's h)."""
        # Not ``@``: BLAS may thread a long dot product, which costs more than it saves here.
        return float(np.sum(self.occ * _hit(self.lam, self.life, t)))

    def occupancy_and_slope(self, t: float) -> tuple[float, float]:
        """The occupancy at a finite t > 0 and its derivative in ln t."""
        if not self.mortal:
            h, dh = _hit_and_slope(self.lam, self.life, t)
            return float(np.sum(self.occ * h)), t * float(np.sum(self.occ * dh))
        # _hit and its slope in one pass (every rate is > 0: blocks nobody reads are left out).
        lam, life = self.lam, self.life
        cached_since = -np.expm1(-lam * np.minimum(t, life)) / lam  # integral of e^{-lam a}
        late = np.maximum(life - t, 0.0) * np.exp(-lam * t)  # (life - t)^+ e^{-lam t}
        h = np.clip(1.0 - (cached_since + late) / life, 0.0, 1.0)
        return float(np.sum(self.occ * h)), t * float(np.sum(self.occ * lam * late / life))

    def hit_rates(self, t: float) -> np.ndarray:
        """S7: each level's request-weighted hit rate, sum lam h / sum lam."""
        h = np.bincount(self.level, weights=self.req * _hit(self.lam, self.life, t),
                        minlength=self.reads.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.reads > 0, h / np.where(self.reads > 0, self.reads, 1.0), 0.0)


def _cache_terms(levels: tuple[_Level, ...], rates: np.ndarray, level_blocks: np.ndarray,
                 spread: float = NODE_SPREAD) -> _CacheTerms:
    """The terms of S5-S6's sums: every block-rate node of a level with every node of its run
    versions' lives (both shortened by :func:`_grouped_nodes`; ``spread`` 1: the full sums).
    Blocks nobody reads (rate 0) are left out: never cached, they serve no reads."""
    L, M = rates.shape
    read = rates > 0
    lam_n, w_n, lev_n = _grouped_nodes(rates[read], np.full(int(read.sum()), 1.0 / M),
                                       read.sum(axis=1), spread)
    life_n, lw_n, lev_l = _grouped_nodes(np.concatenate([lev.lives for lev in levels]),
                                         np.concatenate([lev.weights for lev in levels]),
                                         np.array([lev.lives.size for lev in levels]), spread)
    order = np.argsort(lev_l, kind="stable")  # each level's lives together
    life_n, lw_n = life_n[order], lw_n[order]
    life_len = np.bincount(lev_l, minlength=L)
    life_start = np.cumsum(life_len) - life_len
    reps = life_len[lev_n]  # each rate node pairs with every life of its level
    first = np.cumsum(reps) - reps
    which = (life_start[np.repeat(lev_n, reps)] + np.arange(int(reps.sum()))
             - np.repeat(first, reps))
    lam, level = np.repeat(lam_n, reps), np.repeat(lev_n, reps)
    weight = np.repeat(w_n, reps) * lw_n[which]
    reads = np.bincount(lev_n, weights=w_n * lam_n, minlength=L)
    life = life_n[which]
    return _CacheTerms(lam, life, level_blocks[level] * weight, weight * lam, level, reads,
                       bool(np.all(np.isfinite(life))))


T_C_TOL = 1e-9  # S5: t_C is solved to this relative precision
T_C_LEAP = math.log(1e3)  # the longest step in ln t before the root is bracketed


def _characteristic_time(terms: _CacheTerms, cache_blocks: float) -> float:
    """S5: t_C with the cache full, sum over blocks P(cached at t_C) = cache_blocks (0 without
    a cache, inf when every block the reads touch fits). The occupancy rises with t from 0 and
    never faster than t sum(occ lam) (h <= lam t), which bounds t_C from below; from there
    Newton's method in ln t with the occupancy's derivative, bisecting the bracket once it has
    one when a step would leave it."""
    if cache_blocks <= 0:
        return 0.0
    if terms.occupancy(math.inf) <= cache_blocks:
        return math.inf
    # Newton's method in x = ln t from the lower bound, where the occupancy is below the
    # cache, each step capped until one lands above it; then kept inside the bracket.
    a, b = math.log(cache_blocks / float(np.sum(terms.occ * terms.lam))), math.inf
    x = a
    for _ in range(200):
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


def _hit_and_slope(lam: np.ndarray, life: np.ndarray, t: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """S6's h at a finite t > 0 (as :func:`_hit`) and dh/dt = lam (life - t)^+ e^{-lam t} /
    life (lam e^{-lam t} for a run that never dies): the newest read must fall within t of
    now, not before the run's birth."""
    h = _hit(lam, life, t)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        decay = lam * np.exp(-lam * t)
        dh = np.where(np.isfinite(life), decay * np.maximum(life - t, 0.0) / life, decay)
    return h, dh


def _hit(lam: np.ndarray, life: np.ndarray, t: float) -> np.ndarray:
    """S6: the chance a read at rate lam finds its block cached, the block's run living
    ``life`` and the cache keeping blocks t after their last read (Che): 1 - E_a[e^{-lam
    min(t, a)}] with the run's age a uniform over its life."""
    lam = np.asarray(lam, dtype=float)
    x = lam * life
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if math.isinf(t):
            miss = np.where(x > 1e-12, -np.expm1(-x) / x, 1.0 - x / 2.0)
        else:
            forever = ~np.isfinite(life)  # no invalidation: Che's 1 - e^{-lam t}
            life_f = np.where(forever, 1.0, life)
            tt = np.minimum(t, life_f)
            inside = np.where(lam > 0, -np.expm1(-lam * tt) / np.where(lam > 0, lam, 1.0), tt)
            miss = (inside + np.maximum(life_f - t, 0.0) * np.exp(-lam * t)) / life_f
            miss = np.where(forever, np.exp(-lam * t), miss)
    return np.clip(1.0 - miss, 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class SkewedTree:
    """One design under skew before the cache: its levels (S2), where existing-key reads land
    (S3), their false positives (S4) and S8's what-if filters. :meth:`costs` adds the cache
    (S5-S7), most of a design's price; :attr:`point_read_floor` bounds what any cache can
    save, so a search can skip the cache of designs that cannot win (wacky_model.skew_search).
    Per-level arrays start at Level 1; ``share`` and ``place`` have the buffer first."""

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
    weighted_fpr: np.ndarray  # S8
    weighted_false_positives: np.ndarray  # S8
    entries_per_block: int
    reads_per_write: float

    @property
    def point_read_floor(self) -> float:
        """Block reads per existing-key read if every block a read needs were cached: the false
        positives alone (S4, which count as misses, S7). No cache does better."""
        return float(self.false_positives.sum())

    def costs(self, cache_blocks: float) -> SkewedCosts:
        """S5-S7 with an LRU cache of ``cache_blocks`` blocks (0: none), and every cost."""
        return _with_cache(self, cache_blocks)


def skewed_tree(
    T: float, C: float, X: float, K: float, Z: float, *,
    entries: float, buffer_entries: float, entries_per_block: int,
    bits_per_entry: float | None = None, sum_fpr: float | None = None,
    workload: SkewedWorkload, keys: KeyMap | None = None,
) -> SkewedTree:
    """S1-S4 and S8 for one whole-level design holding ``entries`` keys (the population reads
    and updates draw from). The filter memory is ``bits_per_entry`` or ``sum_fpr`` (App. C).
    ``keys``: the workload's :func:`key_map`, when pricing many designs for one workload
    (built here otherwise)."""
    if (bits_per_entry is None) == (sum_fpr is None):
        raise ValueError("give exactly one of bits_per_entry or sum_fpr")
    w = workload
    n = int(entries)
    if keys is None:
        keys = key_map(n, w, tabulate=False)
    elif not keys.serves(n, w):
        raise ValueError("keys is the key map of another population or workload")
    u = keys.update_fraction
    F = float(buffer_entries)
    B = int(entries_per_block)
    bins, count, q, r = keys.bins, keys.count, keys.q, keys.r
    hist = float(w.history_writes)
    S = n + (1.0 - u) * (hist if math.isfinite(hist) else 0.0)
    levels, level_wa, cycle, s = _levels(T, C, X, K, Z, S, F, keys)
    if levels[-1].entries > S * (1.0 + 1e-9):
        # Several runs at Level L hold duplicates: size the levels by what they hold (S2).
        levels, level_wa, cycle, s = _levels(T, C, X, K, Z, S, F, keys,
                                             layout_size=levels[-1].entries)
    L = len(levels)

    # S3: age bands, the buffer (half full on average) then Level 1, ..., Level L-1.
    edges_arr = _age_edges(np.array([F / 2.0] + [lev.entries for lev in levels[:-1]]),
                           keys, hist)

    def older_than(A: np.ndarray, qk: np.ndarray) -> np.ndarray:
        """P(a key's newest write is older than age A), per (age, bin)."""
        A = np.asarray(A, dtype=float)[:, None]
        if math.isfinite(hist):
            loaded_within = np.clip((A - hist) / n, 0.0, 1.0)
        else:
            # Steady state: the n keys arrived as the inserts of the last n / (1 - u) writes.
            loaded_within = np.clip((1.0 - u) * A / n, 0.0, 1.0)
        decay = np.exp(-u * np.minimum(A, hist) * qk[None, :])
        return (1.0 - loaded_within) * decay

    def placed(qk: np.ndarray, correlated: bool) -> np.ndarray:
        """(bands, bins): where keys with write chances qk have their newest version."""
        if correlated:
            surv = older_than(edges_arr, qk)
        else:
            mean_q = older_than(edges_arr, qk) @ (count / count.sum())
            surv = np.repeat(mean_q[:, None], count.size, axis=1)
        bounds = np.vstack([np.ones((1, count.size)), surv, np.zeros((1, count.size))])
        return bounds[:-1] - bounds[1:]  # row 0: buffer, row i: Level i

    # The keys reads touch, as populations of bins: where they live (place, bands x bins), how
    # many keys (pop_count) and each key's chance per read while it is in a band (pop_rate,
    # bands x bins: a key read more when it is newer reads at a rate that depends on its band).
    if w.read_dist.kind == "latest":
        # A read of the r-th most recent write. With chance 1 - u that write inserted a key,
        # which nothing rewrote since: it is in the band holding age r. With chance u it updated
        # a key k drawn from q, whose newest write is then younger than r: age > a with chance
        # e^{-u q_k a} for a < r, 0 beyond. Key k is read u q_k of the time in all; while in band
        # i at the rate that, times its share of time there (S3), gives its reads landing there.
        mid = 0.5 * (bins.lo + bins.hi).astype(float)
        band = np.searchsorted(edges_arr, mid, side="left")
        inserted = np.zeros((L + 1, count.size))
        inserted[band, np.arange(count.size)] = 1.0
        landing = _latest_landing(edges_arr, mid, r * count, u, q)  # (bands, keys)
        stay = placed(q, True)  # (bands, keys): the keys' share of time in each band
        upd_rate = np.where(stay > 1e-12, u * q[None, :] * landing / np.maximum(stay, 1e-12),
                            0.0)
        place = np.hstack([inserted, stay])
        pop_count = np.concatenate([(1.0 - u) * count, count])
        pop_rate = np.hstack([np.broadcast_to(r, inserted.shape), upd_rate])
    else:
        place = placed(q, w.correlated)
        pop_count = count
        pop_rate = np.broadcast_to(r, place.shape)
    share = np.sum(place * pop_rate * pop_count[None, :], axis=1)  # reads landing in each band
    share = share / share.sum()

    # S4: false positives, with the filters the engine builds (App. C, as in the finite model).
    budget = ({"bits_per_entry": np.float64(bits_per_entry)} if sum_fpr is None
              else {"sum_fpr": np.float64(sum_fpr)})
    fprs = allocate_fprs(s, **budget)
    memory = float(memory_bits_per_entry(np.where(s.valid, s.fractions, 0.0), fprs))
    fpr = np.where(s.valid, realized_fpr(bloom_bits_per_key(fprs)), 0.0)[:L]
    runs = np.array([lev.runs for lev in levels])
    per_level_fp = runs * fpr
    passing = np.maximum(1.0 - np.cumsum(share)[1:], 0.0)  # reads that go past Level i
    target = share[1:]
    fp_i = passing * per_level_fp + target * fpr * np.maximum(runs - 1.0, 0.0) / 2.0

    # S8: probes per run of each level per lookup (zero-result reads probe every run), and the
    # filters the weighted Lagrangian gives that memory (docs/MODEL.md, weighted Lagrangian).
    z = float(w.zero_read_share)
    probe = passing + target * np.maximum(runs - 1.0, 0.0) / (2.0 * np.maximum(runs, 1.0))
    weights = z + (1.0 - z) * probe
    padded = np.zeros(s.runs.shape[-1])
    padded[:L] = weights
    fprs_w = lagrangian_fprs_for_memory(s.fractions, np.maximum(s.runs, 0.0),
                                        np.float64(memory), weights=padded)
    fpr_w = np.where(s.valid, realized_fpr(bloom_bits_per_key(fprs_w)), 0.0)[:L]
    fp_w = passing * runs * fpr_w + target * fpr_w * np.maximum(runs - 1.0, 0.0) / 2.0

    return SkewedTree(tuple(levels), tuple(level_wa), cycle, place, pop_count, pop_rate, share,
                      runs, fpr, fp_i, weights, fpr_w, fp_w, B, float(w.reads_per_write))


def skewed_costs(
    T: float, C: float, X: float, K: float, Z: float, *,
    entries: float, buffer_entries: float, entries_per_block: int,
    bits_per_entry: float | None = None, sum_fpr: float | None = None,
    workload: SkewedWorkload, cache_blocks: float, keys: KeyMap | None = None,
) -> SkewedCosts:
    """S1-S8 for one whole-level design holding ``entries`` keys (the population reads and
    updates draw from). The filter memory is ``bits_per_entry`` or ``sum_fpr`` (App. C);
    ``cache_blocks``: the LRU cache's size in blocks (0: no cache). ``keys``: the workload's
    :func:`key_map`, when pricing many designs for one workload (built here otherwise)."""
    return skewed_tree(T, C, X, K, Z, entries=entries, buffer_entries=buffer_entries,
                       entries_per_block=entries_per_block, bits_per_entry=bits_per_entry,
                       sum_fpr=sum_fpr, workload=workload, keys=keys).costs(cache_blocks)


def _with_cache(tree: SkewedTree, cache_blocks: float) -> SkewedCosts:
    """:meth:`SkewedTree.costs`."""
    levels, L, B = tree.levels, len(tree.levels), tree.entries_per_block
    target = tree.share[1:]
    fp_i, runs = tree.false_positives, tree.runs
    false_pos = tree.point_read_floor

    # S5-S6: blocks per level, their read rates (per write), and Che's t_C. Without a cache
    # nothing is cached and the blocks are not drawn.
    cache_blocks = max(float(cache_blocks), 0.0)
    hit_level = np.zeros(L)
    t_c = 0.0
    if cache_blocks > 0:
        level_blocks = np.array([max(lev.entries / B, 1.0) for lev in levels])
        rates = _block_rates(levels, tree.place, tree.pop_count, tree.pop_rate, B,
                             tree.reads_per_write)
        terms = _cache_terms(levels, rates, level_blocks)
        t_c = _characteristic_time(terms, cache_blocks)
        hit_level = terms.hit_rates(t_c)
    hits = target * hit_level
    accesses = target + fp_i
    with np.errstate(divide="ignore", invalid="ignore"):
        per_level = np.where(accesses > 0, hits / accesses, 0.0)
    total_access = float(accesses.sum())
    lives = tuple(float(np.sum(lev.lives * lev.weights)) for lev in levels)
    return SkewedCosts(
        write_amp=float(sum(tree.level_write_amp)),
        level_write_amp=tree.level_write_amp,
        cycle_writes=tree.cycle_writes,
        point_read=float(np.sum(target - hits)) + false_pos,
        cache_hit_rate=float(hits.sum() / total_access) if total_access > 0 else 0.0,
        cache_hit_rate_per_level=tuple(float(x) for x in per_level),
        read_buffer_share=float(tree.share[0]),
        read_level_share=tuple(float(x) for x in target),
        false_positives=false_pos,
        level_entries=tuple(lev.entries for lev in levels),
        level_runs=tuple(float(x) for x in runs),
        run_lifetime_writes=lives,
        characteristic_time_writes=t_c,
        zero_result_read=float(np.sum(runs * tree.fpr)),
        probe_weights=tuple(float(x) for x in tree.probe_weights),
        weighted_point_read=(float(np.sum(target - hits))
                             + float(tree.weighted_false_positives.sum())),
        weighted_zero_result_read=float(np.sum(runs * tree.weighted_fpr)),
    )
