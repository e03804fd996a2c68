"""Seeded random operation streams for validation: the load and the read/write mix.

The keys are uniform over [0, 2^64); the values are :func:`wacky_traces.value_for`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wacky_model.types import KeyDistribution
from wacky_traces.format import U64_MAX, OpKind, Phase, Trace, checked_array


def _check_count(name: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {type(v).__name__}")
    if not 0 <= int(v) <= 2**40:
        raise ValueError(f"{name} = {v} must be in [0, 2**40]")
    return int(v)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    return int(seed)


def _random_u64(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**64, size=n, dtype=np.uint64)


def fresh_keys(rng: np.random.Generator, n: int, taken_sorted: np.ndarray) -> np.ndarray:
    """``n`` distinct uniform random keys, none in ``taken_sorted``; redraws collisions."""
    out = np.zeros(0, dtype=np.uint64)
    while len(out) < n:
        cand = np.concatenate([out, _random_u64(rng, n - len(out))])
        # Keep the first occurrence of each key, in draw order, so the result is deterministic.
        _, first = np.unique(cand, return_index=True)
        cand = cand[np.sort(first)]
        if taken_sorted.size:
            pos = np.searchsorted(taken_sorted, cand)
            hit = taken_sorted[np.minimum(pos, taken_sorted.size - 1)] == cand
            cand = cand[~hit]
        out = cand
    return out


def load_trace(n_load: int, *, entry_bytes: int, seed: int) -> Trace:
    """A one-phase ("load") trace of ``n_load`` PUTs of distinct uniform random keys, in random
    order, determined by ``seed``."""
    n_load, seed = _check_count("n_load", n_load), _check_seed(seed)
    rng = np.random.default_rng([seed, 0x4C4F4144])  # stream tag: "LOAD"
    keys = fresh_keys(rng, n_load, np.zeros(0, dtype=np.uint64))
    return Trace(np.zeros(n_load, np.uint8), keys, np.zeros(n_load, np.uint64),
                 (Phase("load", 0, n_load),), entry_bytes,
                 {"generator": "load_trace", "n_load": n_load, "seed": seed})


_READ_KINDS = {"get": OpKind.GET, "zero": OpKind.ZERO, "range": OpKind.RANGE, "put": OpKind.PUT}


def read_ops(loaded_keys: np.ndarray, *, n: int, get_pool: np.ndarray,
             fractions: Mapping[str, float], range_entries: int,
             seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(kinds, keys, args)`` of ``n`` operations drawn i.i.d. from ``fractions`` (of "get",
    "zero", "range", "put"): gets of keys from ``get_pool``; zero-result reads and puts of
    distinct fresh keys; ranges ``[lo, lo + span]`` holding ``range_entries`` of the loaded keys
    on average, lo uniform over the starts that need no clamping."""
    n, seed = _check_count("n", n), _check_seed(seed)
    if (isinstance(range_entries, bool) or not isinstance(range_entries, (int, np.integer))
            or not 1 <= range_entries <= 2**62):
        raise ValueError(f"range_entries must be an int in [1, 2**62], got {range_entries!r}")
    loaded = checked_array("loaded_keys", loaded_keys, np.uint64)
    pool = checked_array("get_pool", get_pool, np.uint64)
    if unknown := set(fractions) - set(_READ_KINDS):
        raise ValueError(
            f"fractions has unknown kinds {sorted(unknown)}; valid: {sorted(_READ_KINDS)}")
    names = list(_READ_KINDS)
    p = np.array([float(fractions.get(k, 0.0)) for k in names])
    if not np.all(np.isfinite(p)) or (p < 0).any() or abs(p.sum() - 1.0) > 1e-6:
        raise ValueError(f"fractions must be >= 0 and sum to 1, got {dict(fractions)}")
    if p[0] > 0 and pool.size == 0:
        raise ValueError("get_pool is empty but fractions['get'] > 0")
    rng = np.random.default_rng([seed, 0x52454144])  # stream tag: "READ"
    cum = np.cumsum(p / p.sum())
    which = np.minimum(np.searchsorted(cum, rng.random(n), side="right"), len(names) - 1)
    table = np.array([int(_READ_KINDS[k]) for k in names], dtype=np.uint8)
    kinds, keys, args = table[which], np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint64)
    is_get = kinds == OpKind.GET
    keys[is_get] = pool[rng.integers(0, max(pool.size, 1), size=int(is_get.sum()))]
    fresh_slots = np.flatnonzero((kinds == OpKind.ZERO) | (kinds == OpKind.PUT))
    keys[fresh_slots] = fresh_keys(rng, fresh_slots.size, np.sort(loaded))
    is_range = kinds == OpKind.RANGE
    n_range = int(is_range.sum())
    # Keys are uniform over [0, 2**64): a width w holds w * N / 2**64 of N keys on average.
    width = (2**64 if loaded.size == 0
             else min(2**64, math.ceil(range_entries * 2**64 / loaded.size)))
    span = width - 1
    lo = rng.integers(0, U64_MAX - span, size=n_range, dtype=np.uint64, endpoint=True)
    keys[is_range] = lo
    args[is_range] = lo + np.uint64(span)  # lo <= U64_MAX - span: no overflow
    return kinds, keys, args


@dataclass(frozen=True)
class RankSampler:
    """Seeded draws of popularity ranks (0 the hottest; ``latest``: 0 the most recent write) over
    n keys, by inverse transform on the exact CDF."""

    dist: KeyDistribution
    n: int
    cdf: np.ndarray | None  # None: uniform over the n ranks

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        size = _check_count("size", size)
        d = self.dist
        if self.cdf is not None:
            return np.minimum(np.searchsorted(self.cdf, rng.random(size), side="right"),
                              self.n - 1)
        if d.kind in ("hotset", "hotrange") and not d.is_uniform and self.n > 1:
            hot = d.hot_count(self.n)
            is_hot = rng.random(size) < d.hot_share
            return np.where(is_hot, rng.integers(0, hot, size),
                            rng.integers(hot, self.n, size)).astype(np.int64)
        return rng.integers(0, self.n, size).astype(np.int64)


def rank_sampler(dist: KeyDistribution, n: int) -> RankSampler:
    """A sampler of ranks over ``n`` keys (the CDF is built once: O(n) memory)."""
    n = _check_count("n", n)
    if n < 1:
        raise ValueError("n must be >= 1: a distribution needs keys to draw from")
    cdf = None
    if dist.kind in ("zipf", "latest") and dist.theta > 0.0:
        w = np.arange(1, n + 1, dtype=float) ** -dist.theta
        cdf = np.cumsum(w)
        cdf /= cdf[-1]
    return RankSampler(dist, n, cdf)


def hot_range_keys(loaded: np.ndarray, hot: int, rng: np.random.Generator) -> np.ndarray:
    """The ``loaded`` keys in rank order for a hot key range (S5r): ``hot`` consecutive keys from
    a uniformly drawn start (no end of the key space favoured), then the rest in key order."""
    keys = np.sort(checked_array("loaded", loaded, np.uint64))
    hot = int(hot)
    if not 0 < hot <= keys.size:
        raise ValueError(f"hot must be in [1, {keys.size}] (the loaded keys); got {hot}")
    start = int(rng.integers(0, keys.size - hot + 1))
    return np.concatenate([keys[start:start + hot], keys[:start], keys[start + hot:]])


@dataclass(frozen=True)
class RecencySampler:
    """Seeded insertion recencies (0 the newest) under ``latest`` writes, YCSB's
    SkewedLatestGenerator: Zipf(theta) over the keys inserted so far. ``cum`` holds cumulative
    weights over up to ``limit`` keys: a draw for a population m inverts its first m."""

    dist: KeyDistribution
    cum: np.ndarray

    @property
    def limit(self) -> int:
        return int(self.cum.size)

    def draw(self, rng: np.random.Generator, populations: np.ndarray) -> np.ndarray:
        """One recency per entry of ``populations`` (each in [1, limit])."""
        m = np.asarray(populations, dtype=np.int64)
        if m.size and (m.min() < 1 or m.max() > self.limit):
            raise ValueError(f"populations must be in [1, {self.limit}]; got "
                             f"[{int(m.min())}, {int(m.max())}]")
        x = rng.random(m.size) * self.cum[m - 1]
        return np.minimum(np.searchsorted(self.cum, x, side="right"), m - 1)


def recency_sampler(dist: KeyDistribution, limit: int) -> RecencySampler:
    """A sampler of recencies over populations of up to ``limit`` keys (O(limit) memory)."""
    limit = _check_count("limit", limit)
    if dist.kind != "latest":
        raise ValueError(f"recencies are drawn for 'latest' writes; got {dist.spec!r}")
    if limit < 1:
        raise ValueError("limit must be >= 1: a distribution needs keys to draw from")
    cum = np.cumsum(np.arange(1, limit + 1, dtype=float) ** -dist.theta)
    cum.setflags(write=False)
    return RecencySampler(dist, cum)


def latest_write_keys(rng: np.random.Generator, sampler: RecencySampler,
                      is_update: np.ndarray, inserted: int) -> np.ndarray:
    """The insertion indices (0 the first loaded) of a chunk of writes under ``latest``: an insert
    the next, an update the r-th most recent insert before it (the chunk's own included)."""
    is_update = np.asarray(is_update, dtype=bool)
    # Inserts before each write of the chunk, its own excluded.
    before = inserted + np.cumsum(~is_update) - (~is_update)
    out = before.astype(np.int64)  # an insert's index is the count before it
    ups = np.flatnonzero(is_update)
    if ups.size:
        m = before[ups]
        out[ups] = m - 1 - sampler.draw(rng, m)
    return out
