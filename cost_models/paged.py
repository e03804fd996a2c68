"""G1: filters and indexes paged through the block cache (docs/MODEL.md "G1. Paged filters and
indexes"; RocksDB's ``cache_index_and_filter_blocks=true``).

With pinned metadata (the paper's and the default) a probe of a run costs its filter's false
positive rate only: the filter and the fence pointers are in memory. Paged, each file's filter
block and index block live on disk and share one LRU cache with the data blocks, so a probe
reads the filter block when the cache lacks it, and a positive reads the index block and the data
block the same way. Which blocks stay cached is Che's approximation over three kinds of block at
each level, each with its own size and request rate; a read's I/O is then the misses it meets.
Under skewed reads (G1 under skew) the keys hotter than the mean make their files' filter and
index blocks and their data blocks classes of their own, all in the same one cache.

This prices reads of a settled tree (no merge invalidates a cached block while they run): the
read phase after a load, which is what ``wacky sweep paged`` measures on RocksDB. Under writes
the blocks of merged files leave the cache sooner (S6); that is not priced here yet.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.optimize import brentq

# G1's tree: the partial-merge model's settled at N, averaged over this many flushes.
PAGED_WINDOW_FLUSHES = 64

# RocksDB 7.8's index block for format_version 5: per data block a separator key (the 8-byte user
# key and the 8-byte internal footer) and its BlockHandle, delta-encoded (the size alone, about
# 3 bytes with the entry header): 19 bytes, as benchmarks/check_paged.py reads off the cache.
ROCKSDB_INDEX_BYTES_PER_BLOCK = 19.0
# What RocksDB 7.8's LRU cache charges beyond a block's contents, for every kind: its handle and
# allocation (a 4,096-byte data block is charged 4,160; a filter about 60 bytes over its own).
# benchmarks/check_paged.py reads it off the cache's bytes-inserted counters.
ROCKSDB_CACHE_ENTRY_BYTES = 64.0


def rocksdb_filter_bytes(entries: float, bits_per_key: float) -> float:
    """A RocksDB 7.8 full filter's bytes (format_version 5, FastLocalBloom): the bits in whole
    64-byte cache lines, and 5 bytes of metadata."""
    return 64.0 * np.ceil(entries * bits_per_key / 512.0) + 5.0


# The native engine's blocks (native_engine/src/run.h, the metadata tail; Engine(paged_metadata=
# True)): its Bloom filter's bit array in whole 64-bit words, and one 8-byte fence per data block
# (a block's position is its number). Its cache charges an entry its contents only.
NATIVE_INDEX_BYTES_PER_BLOCK = 8.0
NATIVE_CACHE_ENTRY_BYTES = 0.0


def native_filter_bytes(entries: float, bits_per_key: float) -> float:
    """The native engine's filter block (bloom_filter.h): m = max(64, ceil(n b)) bits in
    ceil(m / 64) words of 8 bytes; none (0) without bits."""
    if bits_per_key <= 0 or entries <= 0:
        return 0.0
    bits = max(64.0, float(np.ceil(entries * bits_per_key)))
    return 8.0 * float(np.ceil(bits / 64.0))


def native_index_bytes(data_blocks: float) -> float:
    """The native engine's index block: one 8-byte fence per data block."""
    return NATIVE_INDEX_BYTES_PER_BLOCK * data_blocks


def native_paged_levels(levels: list[dict], key_lo: float, key_hi: float) -> list[PagedLevel]:
    """G1's view of a native engine's tree as ``Engine.levels()`` lists it, for reads of keys
    uniform over [key_lo, key_hi): per level its files, data blocks, the share of keys one of
    its runs covers (summed over runs: level 0's and tiered levels' runs each count), the mean
    FPR of its filters (the engine's own formula, ``filter_fpr``), its share of the entries, and
    per file the filter and index blocks of the engine's layout (``native_filter_bytes`` at each
    run's own bits per key, ``native_index_bytes``), averaged over its files."""
    span = float(key_hi - key_lo)
    total = sum(r["entries"] for lv in levels for r in lv["runs"]) or 1
    out = []
    for lv in levels:
        runs = [r for r in lv["runs"] if r["entries"] > 0]
        if not runs:
            continue
        n = len(runs)
        cover = sum(max(0.0, min(r["max_key"] + 1.0, key_hi) - max(float(r["min_key"]), key_lo))
                    for r in runs) / span
        blocks = float(sum(r["blocks"] for r in runs))
        out.append(PagedLevel(
            files=float(n), data_blocks=blocks, coverage=cover,
            fpr=float(np.mean([r["filter_fpr"] for r in runs])),
            share=sum(r["entries"] for r in runs) / total,
            filter_bytes=float(np.mean([native_filter_bytes(r["entries"],
                                                            r["filter_bits_per_key"])
                                        for r in runs])) + NATIVE_CACHE_ENTRY_BYTES,
            index_bytes=native_index_bytes(blocks / n) + NATIVE_CACHE_ENTRY_BYTES,
            level=int(lv["level"])))
    return out


@dataclass(frozen=True)
class PagedLevel:
    """One level of a settled tree as the cache sees it (level 0's runs are a level of
    ``files`` runs, each probed by every read)."""

    files: float  # files (runs) at the level
    data_blocks: float  # data blocks at the level
    coverage: float  # the share of keys whose lookups probe one of its files (P7; level 0: runs)
    fpr: float  # a probe's false-positive rate
    share: float  # the share of the data's keys that live here (existing-key reads)
    filter_bytes: float  # one file's filter block
    index_bytes: float  # one file's index block
    level: int = 0  # the tree's level (0: level 0), for D1's ledger (empty levels are left out)


@dataclass(frozen=True)
class PagedReads:
    """I/O per read with paged metadata, and the cache's hit rates per level and kind."""

    zero_result_read: float
    point_read_uniform: float  # an existing key drawn uniformly from the data
    point_read_deepest: float  # an existing key of the deepest level (the paper's worst case)
    filter_hit: tuple[float, ...]
    index_hit: tuple[float, ...]
    data_hit: tuple[float, ...]
    characteristic_time: float  # Che's T, in reads
    # I/O per zero-result read by kind: filter, index and data block misses.
    zero_result_by_kind: tuple[float, float, float]
    # Each read kind's I/O by level, in the order of the levels given (D1's ledger).
    zero_result_by_level: tuple[float, ...] = ()
    point_uniform_by_level: tuple[float, ...] = ()
    point_deepest_by_level: tuple[float, ...] = ()


@dataclass(frozen=True)
class ReadChances:
    """Which existing keys reads draw (G1 under skew): ``hottest``, the chances per existing-key
    read of the hottest keys, hottest first (any prefix of them: keys beyond it are no hotter
    than the last given), over a population of ``keys`` keys; ``squares``, the sum of every
    key's chance squared (0: the keys not set apart are taken as alike); ``counts``, how many
    keys have each chance of ``hottest`` (None: one each). Uniform: no key above 1/keys."""

    hottest: np.ndarray
    keys: float
    squares: float = 0.0
    # S3's rank bins give many keys one chance: G1 under skew makes one class of a bin's keys
    # at a level (Che's sum is linear in a class's count), not one per key, which costs memory
    # and time in proportion to the tree's blocks (millions of classes at 2^31 entries).
    counts: np.ndarray | None = None

    @property
    def per_key(self) -> np.ndarray:
        """How many keys have each chance of ``hottest``."""
        return (np.ones(np.size(self.hottest)) if self.counts is None
                else np.asarray(self.counts, dtype=float))


def paged_reads(levels: list[PagedLevel], cache_bytes: float, block_bytes: float,
                zero_share: float, chances: ReadChances | None = None) -> PagedReads:
    """G1: the I/O of zero-result and existing-key reads when a share ``zero_share`` of the reads
    that fill the cache are zero-result (the rest existing keys), through an LRU cache of
    ``cache_bytes``. Without ``chances`` existing keys are drawn uniformly: each level's probes
    spread evenly over its files, its data-block reads over its data blocks. With ``chances``
    (docs/MODEL.md "G1 under skew") the keys hotter than the mean make the files and blocks they
    live in hotter, each a class of blocks of its own, and every kind shares the one cache."""
    if not 0.0 <= zero_share <= 1.0:
        raise ValueError(f"zero_share must be in [0, 1]; got {zero_share:g}")
    if cache_bytes < 0:
        raise ValueError(f"cache_bytes must be >= 0; got {cache_bytes:g}")
    n = len(levels)
    files = np.array([lv.files for lv in levels], dtype=float)
    blocks = np.array([lv.data_blocks for lv in levels], dtype=float)
    cover = np.array([lv.coverage for lv in levels], dtype=float)
    fpr = np.array([lv.fpr for lv in levels], dtype=float)
    share = np.array([lv.share for lv in levels], dtype=float)
    share = share / share.sum() if share.sum() > 0 else share
    below = share.sum() - np.cumsum(share)  # an existing key deeper than level i
    e = 1.0 - zero_share
    # Requests per read of each kind at each level (filter, index, data; rows k * n + i): a
    # zero-result read's, and an existing key's (its own level's, and the levels above it).
    zero_req = np.concatenate([cover, cover * fpr, cover * fpr])
    own = np.concatenate([share, share, share])
    passing = np.concatenate([cover * below, cover * fpr * below, cover * fpr * below])
    sizes = np.concatenate([[lv.filter_bytes for lv in levels], [lv.index_bytes for lv in levels],
                            np.full(n, float(block_bytes))])
    units = np.concatenate([files, files, blocks])
    # Each kind's blocks in classes (G1 under skew): the rows' units at a rate per read of each
    # kind, zero-result and existing, and how many of them there are.
    cls_row, cls_count, cls_present = _unit_classes(units, own + passing, chances)
    with np.errstate(divide="ignore", invalid="ignore"):
        zero_rate = np.where(units > 0, zero_req / units, 0.0)
    rates = zero_share * zero_rate[cls_row] + e * cls_present
    rates = np.where(cls_count > 0, rates, 0.0)
    t = _characteristic_time(rates, cls_count, sizes[cls_row], cache_bytes)
    hit = -np.expm1(-rates * t) if np.isfinite(t) else np.where(rates > 0, 1.0, 0.0)
    # Per row: the share of its units cached (what a zero-result read, uniform over the keys,
    # finds), and an existing-key read's misses there (request-weighted over the classes).
    rows = 3 * n
    cached = np.bincount(cls_row, weights=cls_count * hit, minlength=rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        cached = np.where(units > 0, cached / units, 0.0)
    asked = np.bincount(cls_row, weights=cls_count * cls_present, minlength=rows)
    missed = np.bincount(cls_row, weights=cls_count * cls_present * (1.0 - hit), minlength=rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        present_hit = np.where(asked > 0, 1.0 - missed / asked, cached)
    hf, hx, hd = present_hit[:n], present_hit[n:2 * n], present_hit[2 * n:]
    cf, cx, cd = cached[:n], cached[n:2 * n], cached[2 * n:]
    z_filter, z_index, z_data = cover * (1.0 - cf), cover * fpr * (1.0 - cx), \
        cover * fpr * (1.0 - cd)
    # An existing key's misses by level: every class's requests that miss (uniform keys: G1's
    # c_i S_{>i} [(1 - h^f) + p_i ((1 - h^x) + (1 - h^d))] + s_i [...]).
    point = missed[:n] + missed[n:2 * n] + missed[2 * n:]
    miss_probe = (1.0 - hf) + fpr * ((1.0 - hx) + (1.0 - hd))  # a probe that finds nothing
    miss_own = (1.0 - hf) + (1.0 - hx) + (1.0 - hd)  # the probe that finds the key
    deepest = int(np.flatnonzero(share > 0)[-1]) if np.any(share > 0) else n - 1
    worst = np.zeros(n)
    if n:
        worst[:deepest] = (cover * miss_probe)[:deepest]
        worst[deepest] = miss_own[deepest]
    zero = z_filter + z_index + z_data
    return PagedReads(zero_result_read=float(np.sum(zero)), point_read_uniform=float(np.sum(point)),
                      point_read_deepest=float(np.sum(worst)),
                      filter_hit=tuple(map(float, hf)), index_hit=tuple(map(float, hx)),
                      data_hit=tuple(map(float, hd)), characteristic_time=float(t),
                      zero_result_by_kind=(float(np.sum(z_filter)), float(np.sum(z_index)),
                                           float(np.sum(z_data))),
                      zero_result_by_level=tuple(map(float, zero)),
                      point_uniform_by_level=tuple(map(float, point)),
                      point_deepest_by_level=tuple(map(float, worst)))


def _unit_classes(units: np.ndarray, asks: np.ndarray, chances: ReadChances | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """G1 under skew: each row's ``units`` blocks (a level's filter, index or data blocks) in
    classes, as (row, count, requests per existing-key read of one block). ``asks``: the row's
    requests per existing-key read for a key of mean chance. A key hotter than the mean (chance
    r > 1/N) is a class of its own (the keys of one chance, ``ReadChances.counts``, one
    class together): the ``asks`` units it would request (its presence: its
    level's share, and the probes and false positives it makes passing), each at its r on top of
    the rest's requests, the hottest first until the keys set apart fill the row's units. The
    rest's requests of a block are a sum over the n = asks N_rest / units keys it serves, drawn
    from the rest: their mean, and their spread as two classes at the mean -/+ the sum's
    standard deviation (S5's moment-matched pair). Without ``chances``, or with uniform ones,
    each row is one class: G1's."""
    rows = np.arange(units.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(units > 0, asks / units, 0.0)
    if chances is None:
        return rows, units, mean
    hot, many = np.asarray(chances.hottest, dtype=float), chances.per_key
    keep = hot > (1.0 + 1e-9) / chances.keys  # a prefix: the chances fall
    hot, many = hot[keep], many[keep]
    if not hot.size:
        return rows, units, mean
    before = np.cumsum(many) - many  # the keys hotter than each chance's
    out_row, out_count, out_rate = [], [], []
    for k in rows:
        if units[k] <= 0 or asks[k] <= 0:
            out_row.append(np.array([k]))
            out_count.append(np.array([units[k]]))
            out_rate.append(np.zeros(1))
            continue
        # Each hot key stands for asks[k] units (its expected presence), until they fill the row;
        # the keys of one chance are one class of their units.
        taken = np.clip(float(units[k] // asks[k]) - before, 0.0, many)
        apart, n = hot[taken > 0], taken[taken > 0]
        rest_keys = max(chances.keys - float(n.sum()), 1.0)
        rest_sum = max(1.0 - float(np.sum(apart * n)), 0.0)
        rest = asks[k] * rest_sum / units[k]
        var = max(chances.squares - float(np.sum(apart ** 2 * n)), 0.0) / rest_keys \
            - (rest_sum / rest_keys) ** 2
        spread = min(np.sqrt(asks[k] * rest_keys / units[k] * max(var, 0.0)), rest)
        count = np.concatenate([[units[k] - asks[k] * float(n.sum())], asks[k] * n])
        rate = rest + np.concatenate([[0.0], apart])
        out_row.append(np.full(2 * count.size, k))
        out_count.append(np.concatenate([count, count]) / 2.0)
        out_rate.append(np.concatenate([rate - spread, rate + spread]))
    return (np.concatenate(out_row).astype(np.intp), np.concatenate(out_count),
            np.concatenate(out_rate))


def with_paged_reads(costs: Any, levels: list[PagedLevel], zero: PagedReads,
                     present: PagedReads, skewed: bool = False) -> Any:
    """``costs`` (a cycle model's, with ``zero_result_read``, ``point_read``,
    ``point_read_uniform`` and D1's per-level ``ledger``) with G1's reads: ``zero`` priced with
    the cache filled by zero-result reads, ``present`` by existing keys. The ledger's reads
    become each level's misses (filter, index and data blocks, where the level's files live),
    so D1 places a miss on its level's device. ``skewed``: existing keys are drawn from a skewed
    read distribution (G1 under skew), whose expectation replaces the worst case too, as S7's
    does under the skew model."""
    ledger = costs.ledger
    if ledger is not None:
        at = [lv.level for lv in levels]
        if at and max(at) >= len(ledger.writes):
            raise ValueError(f"G1's levels reach level {max(at)}; the ledger has "
                             f"{len(ledger.writes)}")

        def by_level(terms: tuple[float, ...]) -> np.ndarray:
            out = np.zeros(len(ledger.writes))
            np.add.at(out, at, terms)
            return out

        ledger = replace(ledger, zero_result=by_level(zero.zero_result_by_level),
                         point_read=by_level(present.point_uniform_by_level if skewed
                                             else present.point_deepest_by_level),
                         point_read_uniform=by_level(present.point_uniform_by_level))
    return replace(costs, zero_result_read=zero.zero_result_read,
                   point_read=(present.point_read_uniform if skewed
                               else present.point_read_deepest),
                   point_read_uniform=present.point_read_uniform, ledger=ledger)


def _characteristic_time(rates: np.ndarray, counts: np.ndarray, sizes: np.ndarray,
                         cache_bytes: float) -> float:
    """Che's T: the cached bytes sum_k counts_k sizes_k (1 - e^{-rates_k T}) equal the cache.
    inf when every block that is ever read fits."""
    used = rates > 0
    total = float(np.sum((counts * sizes)[used]))
    if cache_bytes >= total:
        return float("inf")
    if cache_bytes <= 0:
        return 0.0

    def excess(t: float) -> float:  # cached bytes over the cache, increasing in t
        return float(np.sum(counts * sizes * -np.expm1(-rates * t))) - cache_bytes

    hi = 1.0
    while excess(hi) < 0.0:
        hi *= 2.0
    return float(brentq(excess, 0.0, hi, xtol=1e-12 * hi, rtol=1e-12))


def read_chances(dist: Any, keys: int, hottest: int) -> ReadChances:
    """G1 under skew: the chances per read of the ``hottest`` hottest of ``keys`` keys that
    ``dist`` (a read distribution, ``cost_models.skew.KeyDist``) draws, as S3 takes them
    (``cost_models.skew.key_probabilities``, by rank bins, a bin's keys at its mean)."""
    from cost_models.skew import bins_for, key_probabilities

    bins = bins_for(keys, dist)
    prob = key_probabilities(dist, bins, keys)
    count = bins.count
    hottest = max(int(hottest), 1)
    upto = int(np.searchsorted(np.cumsum(count), hottest)) + 1
    # A bin's keys as one chance and its count, the last bin cut at ``hottest`` keys.
    taken = np.minimum(count[:upto], hottest - (np.cumsum(count[:upto]) - count[:upto]))
    return ReadChances(prob[:upto], float(keys), float(np.sum(prob ** 2 * count)), taken)


def hottest_needed(levels: list[PagedLevel]) -> int:
    """The most keys G1 under skew sets apart at any of ``levels``' rows (one per block)."""
    return int(max((max(lv.files, lv.data_blocks) for lv in levels), default=1.0)) + 1


def paged_reads_of(levels: list[PagedLevel], cache_bytes: float, block_bytes: float,
                   read_keys: Any, keys: int) -> tuple[PagedReads, PagedReads, bool]:
    """Both engines' G1: zero-result reads priced with the cache filled by them alone, existing
    keys by theirs, drawn by ``read_keys`` (a ``KeyDist``; None or uniform: G1's), and whether
    they were skewed (G1 under skew)."""
    skewed = read_keys is not None and not read_keys.is_uniform
    chances = read_chances(read_keys, keys, hottest_needed(levels)) if skewed else None
    return (paged_reads(levels, cache_bytes, block_bytes, 1.0),
            paged_reads(levels, cache_bytes, block_bytes, 0.0, chances), skewed)
