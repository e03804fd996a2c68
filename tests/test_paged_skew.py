"""G1 under skew (docs/MODEL.md "G1 under skew"): paged filter, index and data blocks of the
files and blocks hot keys live in, in one LRU cache. Uniform chances give G1's figures; no cache
misses every block whatever the keys, a cache of everything none; hot keys lower the misses of
the existing-key reads that fill the cache; a simulated LRU over a small tree; pricing and the
one table. The engine's check is tests/test_engine_paged_skew.py."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from cost_models.paged import PagedLevel, ReadChances, paged_reads, read_chances
from wacky_model.config import Configuration, Memory
from wacky_model.pricing import price
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload

LEVELS = [PagedLevel(files=3, data_blocks=300, coverage=3.0, fpr=0.01, share=0.05,
                     filter_bytes=1300, index_bytes=200, level=0),
          PagedLevel(files=10, data_blocks=3000, coverage=0.9, fpr=0.02, share=0.2,
                     filter_bytes=1300, index_bytes=200, level=1),
          PagedLevel(files=40, data_blocks=12000, coverage=0.97, fpr=0.01, share=0.75,
                     filter_bytes=1300, index_bytes=2000, level=2)]
KEYS = 15_300 * 32
CACHES = (0.0, 1e4, 1e5, 1e6, 1e7, 1e10)


def zipf(theta: float, n: int = KEYS) -> ReadChances:
    return read_chances(KeyDistribution("zipf", theta=theta), n, n)


@pytest.mark.parametrize("zero_share", [0.0, 0.3, 1.0])
def test_uniform_chances_give_g1s_reads(zero_share: float) -> None:
    uniform = ReadChances(np.full(5_000, 1.0 / KEYS), KEYS)
    for cache in CACHES:
        g1 = paged_reads(LEVELS, cache, 4096, zero_share)
        skew = paged_reads(LEVELS, cache, 4096, zero_share, uniform)
        _same_reads(skew, g1)
        assert np.allclose(g1.filter_hit, skew.filter_hit, rtol=1e-9, atol=1e-12)


def _same_reads(a, b) -> None:
    """Two PagedReads price every read alike, and hit data blocks alike (to 1e-9)."""
    for x, y in ((a.zero_result_read, b.zero_result_read),
                 (a.point_read_uniform, b.point_read_uniform),
                 (a.point_read_deepest, b.point_read_deepest)):
        assert x == pytest.approx(y, rel=1e-9, abs=1e-12)
    assert np.allclose(a.data_hit, b.data_hit, rtol=1e-9, atol=1e-12)


def test_g1s_closed_form_holds_for_uniform_keys() -> None:
    """G1's formulas (docs/MODEL.md G1) from its hit rates: the class sums give the same."""
    share = np.array([lv.share for lv in LEVELS])
    below = 1.0 - np.cumsum(share)
    cover = np.array([lv.coverage for lv in LEVELS])
    p = np.array([lv.fpr for lv in LEVELS])
    for cache in CACHES[1:-1]:
        r = paged_reads(LEVELS, cache, 4096, 0.3)
        hf, hx, hd = (np.array(h) for h in (r.filter_hit, r.index_hit, r.data_hit))
        probe = (1 - hf) + p * ((1 - hx) + (1 - hd))
        own = (1 - hf) + (1 - hx) + (1 - hd)
        assert r.point_read_uniform == pytest.approx(float(np.sum(cover * below * probe
                                                                  + share * own)), rel=1e-12)
        assert r.zero_result_read == pytest.approx(float(np.sum(cover * probe)), rel=1e-12)


def test_nearly_uniform_chances_are_nearly_g1s() -> None:
    """Keys a hair hotter than the mean are set apart (classes of their own), and the result
    moves by about that hair: the classes sum to G1's rows."""
    for cache in CACHES[1:-1]:
        g1 = paged_reads(LEVELS, cache, 4096, 0.0)
        near = paged_reads(LEVELS, cache, 4096, 0.0, zipf(1e-6))
        assert len(near.filter_hit) == len(g1.filter_hit)
        assert near.point_read_uniform == pytest.approx(g1.point_read_uniform, rel=1e-4)
        assert near.characteristic_time == pytest.approx(g1.characteristic_time, rel=1e-4)


@pytest.mark.parametrize("spec", ["zipf:0.99", "zipf:0.5", "hotset:0.01:0.9"])
def test_a_bins_keys_as_one_class_price_as_each_key_alone(spec: str) -> None:
    """read_chances gives S3's rank bins as chances with counts; G1 under skew makes one class
    of a bin's keys at a row. The same keys one by one (counts None) give the same reads."""
    dist = KeyDistribution.parse(spec)
    binned = read_chances(dist, KEYS, 20_000)
    assert binned.counts is not None and binned.counts.sum() == 20_000
    assert binned.hottest.size < 2_000  # far fewer classes than keys
    one_by_one = ReadChances(np.repeat(binned.hottest, binned.counts.astype(np.int64)), KEYS,
                             binned.squares)
    for cache in CACHES:
        for zero_share in (0.0, 0.4):
            _same_reads(paged_reads(LEVELS, cache, 4096, zero_share, binned),
                        paged_reads(LEVELS, cache, 4096, zero_share, one_by_one))


def test_no_cache_misses_every_request_and_a_cache_of_everything_none() -> None:
    skew = zipf(0.99)
    none = paged_reads(LEVELS, 0.0, 4096, 0.0, skew)
    # Every request a miss: per level s_i + c_i S_{>i} filters, s_i + c_i p_i S_{>i} index and
    # data blocks, whatever the keys.
    share = np.array([lv.share for lv in LEVELS])
    below = 1.0 - np.cumsum(share)
    cover = np.array([lv.coverage for lv in LEVELS])
    fpr = np.array([lv.fpr for lv in LEVELS])
    asks = (share + cover * below) + 2 * (share + cover * fpr * below)
    assert none.point_read_uniform == pytest.approx(float(asks.sum()), rel=1e-12)
    assert none.zero_result_read == pytest.approx(float(np.sum(cover * (1 + 2 * fpr))))
    everything = paged_reads(LEVELS, 1e12, 4096, 0.0, skew)
    assert everything.point_read_uniform == pytest.approx(0.0, abs=1e-12)
    assert everything.zero_result_read == pytest.approx(0.0, abs=1e-12)


def test_hot_keys_lower_the_misses_of_the_reads_that_fill_the_cache() -> None:
    last = None
    for cache in (1e5, 1e6, 1e7):
        uniform = paged_reads(LEVELS, cache, 4096, 0.0).point_read_uniform
        mild = paged_reads(LEVELS, cache, 4096, 0.0, zipf(0.6)).point_read_uniform
        hot = paged_reads(LEVELS, cache, 4096, 0.0, zipf(0.99)).point_read_uniform
        assert hot < mild < uniform
        assert last is None or hot < last  # more cache, fewer misses
        last = hot
    # Zero-result reads fill the cache evenly: existing keys' skew then changes nothing.
    z = paged_reads(LEVELS, 1e6, 4096, 1.0)
    assert paged_reads(LEVELS, 1e6, 4096, 1.0, zipf(0.99)).point_read_uniform == \
        pytest.approx(z.point_read_uniform, rel=1e-9)


def _simulated_misses(levels: int, keys: int, reads: int, cache: int, theta: float,
                      seed: int = 3) -> tuple[float, list[PagedLevel]]:
    """A settled tree of ``keys`` keys loaded in random order: levels of files (each file a
    filter block of 4 units and an index block of 1; data blocks of 8 keys, 8 units), T = 4,
    keys scattered over the key order; Zipf reads through an LRU of ``cache`` units, false
    positives none (p = 0). Returns the misses per read after a warm-up, and G1's levels."""
    rng = np.random.default_rng(seed)
    sizes = [keys * 4 ** i for i in range(levels)]
    sizes = [round(keys * s / sum(sizes)) for s in sizes]
    sizes[-1] = keys - sum(sizes[:-1])
    level_of = rng.permutation(np.repeat(np.arange(levels), sizes))  # by popularity rank
    position = rng.permutation(keys)  # the place of each rank in the key order
    per_file, per_block = 64, 8
    where = {}
    paged = []
    for i in range(levels):
        ranks = np.flatnonzero(level_of == i)
        ranks = ranks[np.argsort(position[ranks])]  # the level's keys in key order
        files = -(-ranks.size // per_file)
        for j, r in enumerate(ranks):
            where[(i, int(r))] = (j // per_file, j // per_block)
        # a file spans the key order between its first and last key: the share of keys covered
        bounds = [position[ranks[f * per_file]] for f in range(files)] + [keys]
        paged.append((ranks, files, bounds))
    lru: collections.OrderedDict = collections.OrderedDict()
    used = 0
    z = 1.0 / np.arange(1, keys + 1) ** theta
    drawn = rng.choice(keys, size=reads, p=z / z.sum())
    misses = 0
    counted = 0

    def get(block: tuple, size: int) -> int:
        nonlocal used
        if block in lru:
            lru.move_to_end(block)
            return 0
        lru[block] = size
        used += size
        while used > cache:
            used -= lru.popitem(last=False)[1]
        return 1

    for n, r in enumerate(drawn):
        cost = 0
        for i in range(levels):
            ranks, files, bounds = paged[i]
            if level_of[r] == i:
                f, b = where[(i, int(r))]
                cost += get(("f", i, f), 4) + get(("x", i, f), 1) + get(("d", i, b), 8)
                break
            f = int(np.searchsorted(bounds, position[r], side="right")) - 1
            if f >= 0:  # a file's range holds the key: its filter is probed (and answers no)
                cost += get(("f", i, f), 4)
        if n >= reads // 2:
            misses += cost
            counted += 1
    levels_g1 = []
    for i in range(levels):
        ranks, files, bounds = paged[i]
        cover = 1.0 - position[ranks[0]] / keys  # the key order the level's files span
        levels_g1.append(PagedLevel(files=files, data_blocks=ranks.size / per_block,
                                    coverage=cover, fpr=0.0, share=ranks.size / keys,
                                    filter_bytes=4, index_bytes=1))
    return misses / counted, levels_g1


def test_che_under_skew_matches_a_simulated_lru() -> None:
    keys = 20_000
    # Measured 3.06, 1.89, 2.61, 0.96 misses a read; G1 under skew 3.20, 1.99, 2.64, 1.00 (a
    # block's hot keys set apart are taken one to a block: a few blocks hold two, which keeps
    # them cached more); G1 with uniform keys 3.71, 2.73, 2.73, 1.68.
    for cache, theta in ((300, 0.99), (1_000, 0.99), (1_000, 0.7), (3_000, 0.99)):
        measured, levels = _simulated_misses(3, keys, 120_000, cache, theta)
        chances = read_chances(KeyDistribution("zipf", theta=theta), keys, keys)
        model = paged_reads(levels, cache, 8, 0.0, chances).point_read_uniform
        uniform = paged_reads(levels, cache, 8, 0.0).point_read_uniform
        assert model == pytest.approx(measured, rel=0.07), (cache, theta, model, measured)
        assert abs(model - measured) < abs(uniform - measured)


def test_price_takes_skewed_reads_with_paged_metadata_and_refuses_what_it_does_not() -> None:
    system = System(entries=200_000, entry_bytes=128, block_bytes=4096, buffer_bytes=65_536,
                    bits_per_entry=10, cache_bytes=65_536, paged_metadata=True)
    config = Configuration(Design(4, 3, 1, 0, 0), Compaction("file", 16_384), Memory.of(system))
    uniform = price(config, Workload(point_reads=0.5, zero_reads=0.5, writes=0.0), system)
    hot = price(config, Workload(point_reads=0.5, zero_reads=0.5, writes=0.0,
                                 read_keys="zipf:0.99"), system)
    assert hot.model == uniform.model == "files"
    assert hot.zero_result_read == pytest.approx(uniform.zero_result_read, rel=1e-12)
    # uniform: the deepest key's reads (the worst case); skewed: the read distribution's
    assert hot.point_read < uniform.detail.point_read_uniform < uniform.point_read
    for refused in (dict(write_keys="zipf:0.99"), dict(update_fraction=0.5),
                    dict(read_keys="latest:0.99"), dict(read_keys="hotrange:0.1:0.9")):
        with pytest.raises(ValueError, match="paged filters"):
            price(config, Workload(point_reads=0.25, zero_reads=0.25, writes=0.5, **refused),
                  system)


def test_price_takes_skewed_reads_on_stock_rocksdb_too() -> None:
    """RocksDB's leveled export (``rocksdb_model.paged_costs``) through the same G1 under skew;
    benchmarks/check_paged_skew.py --rocksdb compares it with RocksDB."""
    system = System(entries=200_000, entry_bytes=128, block_bytes=4096, buffer_bytes=131_072,
                    bits_per_entry=10, cache_bytes=262_144, paged_metadata=True)
    config = Configuration(Design(10, 9, 1, 0, 0),
                           Compaction("file", 65_536, sizing="static", level_base_bytes=524_288),
                           Memory.of(system))
    uniform = price(config, Workload(point_reads=0.5, zero_reads=0.5, writes=0.0), system)
    hot = price(config, Workload(point_reads=0.5, zero_reads=0.5, writes=0.0,
                                 read_keys="zipf:0.99"), system)
    assert hot.model == uniform.model == "rocksdb"
    assert hot.zero_result_read == pytest.approx(uniform.zero_result_read, rel=1e-12)
    assert hot.point_read == hot.detail.point_read_uniform < uniform.detail.point_read_uniform


# A read-heavy mix through a cache of about a tenth of the metadata and hot data: skewed reads
# change the pick on both targets (the uniform one prices the deepest key, the skewed one the
# read distribution's expectation, docs/MODEL.md "G1 under skew").
SEARCHED = System(entries=1e6, entry_bytes=256, buffer_bytes=1 << 20, bits_per_entry=10,
                  cache_bytes=1 << 20, paged_metadata=True)
READS = dict(point_reads=0.9, writes=0.1)


def _pick(rec) -> tuple:
    c = rec.compaction
    return rec.design.T, c.level1_runs, c.file_bytes, c.level_base_bytes, c.sizing


@pytest.mark.parametrize("target", ["native", "rocksdb"])
def test_the_searches_take_skewed_reads_with_paged_metadata(target: str) -> None:
    """recommend (the native engine's file grid; stock RocksDB's) re-prices the grid's paged
    reads with the workload's read keys: each pick's Θ is price()'s for its workload, skew
    changes the pick here, and each pick is no worse than the other's under its own keys."""
    from wacky_model.search import recommend

    kw = dict(granularity="file") if target == "native" else dict(target="rocksdb")
    uniform, hot = Workload(**READS), Workload(**READS, read_keys="zipf:0.99")
    picks = {w: recommend(w, SEARCHED, **kw) for w in (uniform, hot)}
    for w, rec in picks.items():
        assert rec.configuration.target == target
        assert price(rec.configuration, w, SEARCHED).theta == pytest.approx(rec.cost, rel=1e-9)
    assert _pick(picks[uniform]) != _pick(picks[hot])
    for w, rec in picks.items():
        other = picks[hot if w is uniform else uniform].configuration
        assert price(other, w, SEARCHED).theta >= rec.cost * (1 - 1e-9)


def test_the_native_search_under_skew_is_the_best_price_over_its_grid() -> None:
    """Brute force: every design of the grid the search scored, priced one by one by price()
    under the skewed workload; the search's Θ is the least of them."""
    from wacky_model.granularity import file_grid, grid_read_keys
    from wacky_model.search import recommend

    hot = Workload(**READS, read_keys="zipf:0.99")
    rec = recommend(hot, SEARCHED, granularity="file")
    grid = file_grid(SEARCHED, rec.constraints, None, grid_read_keys(hot, SEARCHED))
    best = min(price(Configuration(d, c, Memory.of(SEARCHED)), hot, SEARCHED).theta
               for d, c in zip(grid.designs, grid.compactions, strict=True))
    assert rec.cost == pytest.approx(best, rel=1e-9)


def test_a_batch_prices_each_read_distribution_on_its_own_grid() -> None:
    """recommend_many: workloads with different read keys under paged metadata get the picks
    recommend gives each alone (the grids are kept per read distribution)."""
    from wacky_model.search import recommend, recommend_many

    mixes = [Workload(**READS), Workload(**READS, read_keys="zipf:0.99"),
             Workload(**READS, read_keys="hotset:0.01:0.9")]
    for kw in (dict(granularity="file"), dict(target="rocksdb")):
        batch = recommend_many(mixes, SEARCHED, **kw)
        alone = [recommend(w, SEARCHED, **kw).cost for w in mixes]
        assert batch.cost == pytest.approx(alone, rel=1e-9)


def test_recommend_rocksdb_prices_its_references_under_the_same_keys() -> None:
    """recommend_rocksdb's pick and RocksDB's defaults beside it, under skewed reads: both are
    price()'s."""
    from wacky_model.rocksdb_tuning import recommend_rocksdb

    hot = Workload(**READS, read_keys="zipf:0.99")
    rec = recommend_rocksdb(hot, SEARCHED)
    for priced in (rec.best, rec.default, rec.best_multiplier_only):
        assert price(priced.config.configuration, hot, SEARCHED).theta == pytest.approx(
            priced.theta, rel=1e-9)
