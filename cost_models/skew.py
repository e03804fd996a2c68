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
independent of N, except S5's block composition, drawn once from a fixed seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from cost_models.evaluate import allocate_fprs
from cost_models.filters import (
    bloom_bits_per_key,
    lagrangian_fprs_for_memory,
    memory_bits_per_entry,
)
from cost_models.finite import fill_layout, realized_fpr, runs_over_fill

DISTRIBUTIONS = ("uniform", "zipf", "hotset", "latest")
THETA_MAX = 1.5
LATEST_THETA = 0.99  # YCSB's ZIPFIAN_CONSTANT, which its "latest" generator uses
EXACT_RANKS = 512  # ranks below this get a bin each; above, bins grow geometrically
BIN_GROWTH = 1.02
BLOCK_SAMPLES = 2048  # blocks drawn per level to estimate S5's sums over blocks
_SEED = 0x534B4557  # "SKEW": the block draws are part of the model, fixed for reproducibility


@dataclass(frozen=True)
class KeyDistribution:
    """Which keys operations touch. Use :meth:`parse` for the ``zipf:0.9`` form."""

    kind: str = "uniform"
    theta: float = 0.0  # zipf and latest
    hot_keys: float = 0.0  # hotset: h, the share of the keys that is hot
    hot_share: float = 0.0  # hotset: p, the share of operations they receive

    def __post_init__(self) -> None:
        if self.kind not in DISTRIBUTIONS:
            raise ValueError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}; got "
                             f"{self.kind!r}")
        for name in ("theta", "hot_keys", "hot_share"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number; got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.kind in ("zipf", "latest") and not 0.0 <= self.theta <= THETA_MAX:
            raise ValueError(f"zipf theta must be in [0, {THETA_MAX}]; got {self.theta:g}")
        if self.kind == "hotset":
            for name, v in (("h", self.hot_keys), ("p", self.hot_share)):
                if not 0.0 < v < 1.0:
                    raise ValueError(f"hotset {name} must be in (0, 1) (exclusive); got {v:g}")

    @classmethod
    def parse(cls, text: str) -> KeyDistribution:
        """``uniform``, ``zipf:THETA``, ``hotset:H:P``, ``latest`` or ``latest:THETA``."""
        if not isinstance(text, str):
            raise ValueError(f"a distribution is a string such as 'zipf:0.9'; got {text!r}")
        kind, *args = text.strip().lower().split(":")
        want = {"uniform": (0,), "zipf": (1,), "hotset": (2,), "latest": (0, 1)}
        if kind not in want:
            raise ValueError(f"unknown distribution {text!r}: use uniform, zipf:THETA, "
                             "hotset:H:P or latest")
        if len(args) not in want[kind]:
            forms = {"uniform": "uniform", "zipf": "zipf:THETA (e.g. zipf:0.9)",
                     "hotset": "hotset:H:P (e.g. hotset:0.1:0.9)",
                     "latest": "latest or latest:THETA"}
            raise ValueError(f"{text!r} is not of the form {forms[kind]}")
        try:
            nums = [float(a) for a in args]
        except ValueError:
            raise ValueError(f"{text!r}: {':'.join(args)} is not a number") from None
        if kind == "zipf":
            return cls("zipf", theta=nums[0])
        if kind == "hotset":
            return cls("hotset", hot_keys=nums[0], hot_share=nums[1])
        if kind == "latest":
            return cls("latest", theta=nums[0] if nums else LATEST_THETA)
        return cls()

    @property
    def spec(self) -> str:
        """The text :meth:`parse` reads back."""
        if self.kind in ("zipf", "latest"):
            return f"{self.kind}:{self.theta:g}"
        if self.kind == "hotset":
            return f"hotset:{self.hot_keys:g}:{self.hot_share:g}"
        return "uniform"

    @property
    def is_uniform(self) -> bool:
        """Every key equally likely (so rank order carries no information)."""
        return (self.kind == "uniform" or (self.kind == "zipf" and self.theta == 0.0)
                or (self.kind == "hotset" and self.hot_keys == self.hot_share))

    def hot_count(self, n: int) -> int:
        """The hot set's size for a population of n keys (at least 1, at most n - 1)."""
        return int(min(max(1, round(self.hot_keys * n)), max(1, n - 1)))


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


def bins_for(n: int, *dists: KeyDistribution) -> RankBins:
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


def key_probabilities(dist: KeyDistribution, bins: RankBins, n: int) -> np.ndarray:
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


def writes_for_unique(d: float, u: float, q: np.ndarray, count: np.ndarray) -> float:
    """S1 inverted: the writes whose distinct keys number d (inf if updates alone cannot)."""
    if d <= 0.0:
        return 0.0
    if u >= 1.0 and d >= count.sum() * (1.0 - 1e-12):
        return math.inf
    lo, hi = d, 2.0 * d
    while unique_writes(hi, u, q, count) < d:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return math.inf
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if unique_writes(mid, u, q, count) < d:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * hi:
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class SkewedWorkload:
    """The operations the skew model prices (math layer: plain fields, checked by callers)."""

    write_dist: KeyDistribution = field(default_factory=KeyDistribution)
    read_dist: KeyDistribution = field(default_factory=KeyDistribution)
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


def _levels(T: float, C: float, X: float, K: float, Z: float, S: float, F: float, u: float,
            q: np.ndarray, count: np.ndarray, layout_size: float | None = None
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
    uniq = lambda w: float(unique_writes(w, u, q, count))  # noqa: E731
    span = writes_for_unique(F, u, q, count)  # S1: a flush holds F distinct keys
    levels: list[_Level] = []
    level_wa: list[float] = []  # entries written per write by merges into each level
    for i in range(L - 1):
        a = int(lay.runs[i])
        cap_hi = float(lay.caps[i]) * (1.0 + 1e-9)
        run_cap = float(lay.caps[i]) / a * (1.0 - 1e-9)
        # A run fills after qi batches; the level takes batches while its runs fit (M1).
        qi = 1
        while uniq((qi) * span) < run_cap and qi < 1 << 20:
            qi += 1
        full = uniq(qi * span)
        sizes = []
        m = 0
        while m < a * qi:
            k = m + 1
            f, e = divmod(k, qi)
            held = f * full + (uniq(e * span) if e else 0.0)
            if held > cap_hi:
                break
            m = k
            sizes.append(uniq((e if e else qi) * span))
        sizes_arr = np.array(sizes if sizes else [0.0])
        if m == 0:
            m, sizes_arr = 0, np.zeros(0)
        held_after = [0.0] + [divmod(k, qi)[0] * full
                              + (uniq(divmod(k, qi)[1] * span) if divmod(k, qi)[1] else 0.0)
                              for k in range(1, m + 1)]
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
        lives: list[float] = []  # in writes; < 0: until the full merge, from that time
        sizes: list[float] = []
        built_writes = clock = occupied = 0.0
        while runs_done < a_L - 1 and len(sizes) < 1 << 16:
            # Levels 1..L-1 re-anchor on Level L (App. E), so the batch grows with it (M3).
            batch = span * (held + (uniq(active_writes) if active_writes else 0.0)) / layout
            active_writes += batch
            clock += batch
            size = uniq(active_writes)
            built_writes += size
            occupied += batch * (held + size)
            lives.append(batch)
            sizes.append(size)
            if size >= (held + size) / a_L * (1.0 - 1e-9):
                lives[-1] = -clock
                held, runs_done, active_writes = held + size, runs_done + 1, 0.0
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


def skewed_costs(
    T: float, C: float, X: float, K: float, Z: float, *,
    entries: float, buffer_entries: float, entries_per_block: int,
    bits_per_entry: float | None = None, sum_fpr: float | None = None,
    workload: SkewedWorkload, cache_blocks: float,
) -> SkewedCosts:
    """S1-S8 for one whole-level design holding ``entries`` keys (the population reads and
    updates draw from). The filter memory is ``bits_per_entry`` or ``sum_fpr`` (App. C);
    ``cache_blocks``: the LRU cache's size in blocks (0: no cache)."""
    if (bits_per_entry is None) == (sum_fpr is None):
        raise ValueError("give exactly one of bits_per_entry or sum_fpr")
    w = workload
    n = int(entries)
    u = float(w.update_fraction)
    F = float(buffer_entries)
    B = int(entries_per_block)
    rng = np.random.default_rng(_SEED)
    bins = bins_for(n, w.write_dist, w.read_dist)
    count = bins.count
    q = key_probabilities(w.write_dist, bins, n)
    r = key_probabilities(w.read_dist, bins, n)
    hist = float(w.history_writes)
    S = n + (1.0 - u) * (hist if math.isfinite(hist) else 0.0)
    levels, level_wa, cycle, s = _levels(T, C, X, K, Z, S, F, u, q, count)
    if levels[-1].entries > S * (1.0 + 1e-9):
        # Several runs at Level L hold duplicates: size the levels by what they hold (S2).
        levels, level_wa, cycle, s = _levels(T, C, X, K, Z, S, F, u, q, count,
                                             layout_size=levels[-1].entries)
    L = len(levels)

    # S3: age bands. Ages are in writes; the keys written in (a, b] that are still there.
    def band_unique(a: float, b: float) -> float:
        if not math.isfinite(hist):
            return float(unique_writes(b - a, u, q, count))
        mixed = max(0.0, min(b, hist) - min(a, hist))
        return float(unique_writes(mixed, u, q, count)) + max(0.0, b - max(a, hist))

    def band_end(a: float, size: float) -> float:
        lo, hi = a, a + max(size, 1.0)
        while band_unique(a, hi) < size:
            lo, hi = hi, a + 2.0 * (hi - a)
            if hi - a > 1e18:
                return math.inf
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if band_unique(a, mid) < size else (lo, mid)
        return 0.5 * (lo + hi)

    edges = [band_end(0.0, F / 2.0)]  # the buffer is half full on average
    for lev in levels[:-1]:
        edges.append(band_end(edges[-1], lev.entries))
    edges_arr = np.array(edges)  # ages bounding buffer, Level 1, ..., Level L-1

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
        mass_r = r * count  # reads per recency bin
        decay = np.exp(-u * edges_arr[:, None, None] * q[None, None, :])  # (edges, 1, keys)
        younger = edges_arr[:, None, None] < mid[None, :, None]  # (edges, recency, 1)
        surv = np.where(younger, decay, 0.0)  # P(age > edge | written r ago), (edges, rec, keys)
        ones = np.ones((1, mid.size, q.size))
        cond = np.concatenate([ones, surv], axis=0) - np.concatenate([surv, 0 * ones], axis=0)
        landing = np.einsum("r,irk->ik", mass_r, cond)  # (bands, keys): reads that land there
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
    false_pos = float(fp_i.sum())

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

    # S5-S6: blocks per level, their read rates (per write), and Che's t_C.
    rate_sets, level_blocks = [], []
    for i, lev in enumerate(levels):
        live = place[i + 1] * pop_count
        live_total = float(live.sum())
        blocks = max(lev.entries / B, 1.0)
        level_blocks.append(blocks)
        fill = min(1.0, live_total / max(lev.entries, 1e-300))
        if live_total <= 0:
            rate_sets.append(np.zeros(1))
            continue
        pick = rng.choice(pop_count.size, size=(BLOCK_SAMPLES, B), p=live / live_total)
        alive = rng.random((BLOCK_SAMPLES, B)) < fill  # the rest are older versions
        rates = pop_rate[i + 1]
        rate_sets.append(w.reads_per_write * np.sum(np.where(alive, rates[pick], 0.0), axis=1))

    def occupancy(t: float) -> float:
        total = 0.0
        for lev, lam, nb in zip(levels, rate_sets, level_blocks, strict=True):
            h = _hit(lam[:, None], lev.lives[None, :], t) @ lev.weights
            total += nb * float(h.mean())
        return total

    cache_blocks = max(float(cache_blocks), 0.0)
    if cache_blocks <= 0:
        t_c = 0.0
    elif occupancy(math.inf) <= cache_blocks:
        t_c = math.inf
    else:
        # Occupancy rises with t_C from 0 to above the cache: a root in log t_C.
        hi = 1.0
        while occupancy(hi) < cache_blocks:
            hi *= 16.0
        lo = hi / 16.0
        while lo > 1e-12 and occupancy(lo) > cache_blocks:
            lo /= 16.0
        # Imported here: scipy.optimize costs ~0.3 s at import, and only a cache needs it.
        from scipy.optimize import brentq

        t_c = math.exp(brentq(lambda x: occupancy(math.exp(x)) - cache_blocks,
                              math.log(lo), math.log(hi), xtol=1e-6, rtol=1e-8))
    hit_level = []
    for lev, lam in zip(levels, rate_sets, strict=True):
        if t_c == 0.0 or lam.sum() <= 0:
            hit_level.append(0.0)
            continue
        h = _hit(lam[:, None], lev.lives[None, :], t_c) @ lev.weights
        hit_level.append(float(np.sum(lam * h) / lam.sum()))
    hits = target * np.array(hit_level)
    accesses = target + fp_i
    with np.errstate(divide="ignore", invalid="ignore"):
        per_level = np.where(accesses > 0, hits / accesses, 0.0)
    total_access = float(accesses.sum())
    lives = tuple(float(np.sum(lev.lives * lev.weights)) for lev in levels)
    return SkewedCosts(
        write_amp=float(sum(level_wa)),
        level_write_amp=tuple(level_wa),
        cycle_writes=cycle,
        point_read=float(np.sum(target - hits)) + false_pos,
        cache_hit_rate=float(hits.sum() / total_access) if total_access > 0 else 0.0,
        cache_hit_rate_per_level=tuple(float(x) for x in per_level),
        read_buffer_share=float(share[0]),
        read_level_share=tuple(float(x) for x in target),
        false_positives=false_pos,
        level_entries=tuple(lev.entries for lev in levels),
        level_runs=tuple(float(x) for x in runs),
        run_lifetime_writes=lives,
        characteristic_time_writes=t_c,
        zero_result_read=float(np.sum(runs * fpr)),
        probe_weights=tuple(float(x) for x in weights),
        weighted_point_read=float(np.sum(target - hits)) + float(fp_w.sum()),
        weighted_zero_result_read=float(np.sum(runs * fpr_w)),
    )
