"""Stock RocksDB's block cache under updates (issue 35, docs/MODEL.md S2f's layout fixed point,
S5's RocksDB blocks and S6g): a deleted file's blocks stay in RocksDB's LRU until they age out,
so a tree whose files are rewritten often fills even a cache larger than its live data; and a
multiplier-2 tree under updates holds as many duplicates as keys. Model only (fast)."""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import replace

import numpy as np
import pytest

from cost_models.rocksdb_format import data_block_entries
from cost_models.skew import LAYOUT_TOLERANCE, _CacheTerms, _characteristic_time, _dead_cached
from tests.lru import touch
from wacky_model.config import Configuration, Memory
from wacky_model.pricing import file_skew_trees
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload

# advise's pick for reads-zipf0.9 on the advise sweep's system (docs/VALIDATION.md): leveled,
# multiplier 2, dynamic level sizes, trigger 8; 60,000 keys of 108 B, an 8 MiB cache.
SYSTEM = System(entries=60_000, entry_bytes=108, block_bytes=4096, buffer_bytes=262144,
                bits_per_entry=10.0, cache_bytes=8 << 20)
T2 = Configuration(Design(2, 1, 1, 0, 0), Compaction(
    granularity="file", file_bytes=720896, level1_runs=8, sizing="dynamic",
    level_base_bytes=1441792), Memory(buffer_bytes=180224, filter_bits_per_entry=20.9))
ZIPF = KeyDistribution("zipf", theta=0.9)
UPDATES = Workload(0.6, 0.2, 0.2, write_keys=ZIPF, read_keys=ZIPF, update_fraction=1.0)


def _tree(config: Configuration = T2, workload: Workload = UPDATES):
    return file_skew_trees([config], config.system(SYSTEM), workload)[0]


def test_rocksdb_blocks_hold_its_own_format_s_entries() -> None:
    # 108 B + 8 B of sequence number + ~3 B of varints + ~1 B of restarts: 34, not 4096 // 108
    # = 37 (RocksDB 7.8 cut 60,000 such entries into 1,774-1,790 blocks: 33.5-33.8 a block).
    assert data_block_entries(108, 4096) == 34
    assert _tree().entries_per_block == 34 < SYSTEM.entries_per_block


def test_the_layout_is_its_own_fixed_point() -> None:
    # Every write updates a loaded key, so every entry above the last level is a duplicate
    # whose older version lies below: the tree holds the keys plus every upper entry (level 0's
    # runs included), to within the iteration's tolerance; one step from K left it a fifth
    # short (81,500 entries; RocksDB held 95,500-100,000 after a load of updates).
    entries = [lev.entries for lev in _tree().levels]
    assert sum(entries) == pytest.approx(60_000 + sum(entries[:-1]), rel=2 * LAYOUT_TOLERANCE)
    assert sum(entries) > 95_000


def test_a_static_tree_whose_last_level_barely_spills_is_not_a_tree_of_duplicates() -> None:
    # Multiplier 10, static sizes: the walk spills a few hundred entries past the level that
    # holds the keys; the levels above count as duplicates of what lies below them, no more.
    t10 = Configuration(Design(10, 9, 1, 0, 0), Compaction(
        granularity="file", file_bytes=262144, level1_runs=4, sizing="static",
        level_base_bytes=1 << 20), Memory(buffer_bytes=262144, filter_bits_per_entry=10.0))
    costs = _tree(t10).costs(SYSTEM.cache_bytes // SYSTEM.block_bytes)
    assert sum(costs.level_entries) < 1.25 * 60_000
    assert all(math.isfinite(x) for x in costs.cache_hit_rate_per_level)
    assert 0.8 < costs.cache_hit_rate < 1.0


def test_dead_blocks_limits() -> None:
    lam = np.array([1e6, 1e-9, 0.5, 0.5])
    life = np.array([10.0, 10.0, math.inf, 10.0])
    t = 40.0
    g, dg = _dead_cached(lam, life, t)
    # read just before every death, a block stays t more: t / life copies; never read: none;
    # a run that never dies leaves none.
    assert g[0] == pytest.approx(t / 10.0, rel=1e-4)
    assert g[1] == pytest.approx(0.0, abs=1e-6)
    assert g[2] == 0.0 and dg[2] == 0.0
    # the slope in ln t is t dG/dt
    eps = 1e-6
    g_hi = _dead_cached(lam, life, t * math.exp(eps))[0]
    g_lo = _dead_cached(lam, life, t * math.exp(-eps))[0]
    assert dg[3] == pytest.approx((g_hi[3] - g_lo[3]) / (2 * eps), rel=1e-5)
    # below the life the formula is t - (1 - e^{-lam t}) / lam, per life
    g_short = _dead_cached(np.array([0.5]), np.array([100.0]), 10.0)[0][0]
    assert g_short == pytest.approx((10.0 - (1 - math.exp(-5.0)) / 0.5) / 100.0, rel=1e-9)


def _simulated_lru(rates: np.ndarray, life: float, cache: int, reads: int, seed: int,
                   drop_dead: bool) -> float:
    """An LRU of ``cache`` blocks over slots read at ``rates`` (per unit time), each slot's block
    replaced by a new one every ``life`` (phases staggered), its old copy left in the LRU
    unless ``drop_dead``: the hit rate of ``reads`` Poisson reads after a warm-up."""
    rng = np.random.default_rng(seed)
    total = float(rates.sum())
    times = np.cumsum(rng.exponential(1.0 / total, reads))
    slots = rng.choice(rates.size, reads, p=rates / total)
    phase = rng.uniform(0.0, life, rates.size)
    lru: OrderedDict[tuple[int, int], None] = OrderedDict()
    hits = counted = 0
    for i, (when, slot) in enumerate(zip(times, slots, strict=True)):
        version = int((when + phase[slot]) // life)
        key = (int(slot), version)
        if drop_dead:
            lru.pop((int(slot), version - 1), None)
        hit = touch(lru, key, cache)
        if i >= reads // 4:
            counted += 1
            hits += hit
    return hits / counted


@pytest.mark.parametrize("drop_dead", [False, True], ids=["rocksdb", "native"])
def test_che_with_dead_blocks_matches_a_simulated_lru(drop_dead: bool) -> None:
    # 400 block slots with Zipf rates, each rewritten every `life`, a cache of 300 blocks: more
    # than the live blocks read most, and with dead copies kept (RocksDB) the cache fills with
    # them; S6g's occupancy predicts the hit rate either way.
    n, cache, life = 400, 300, 2_000.0
    rates = 1.0 / np.arange(1, n + 1) ** 0.9
    rates /= rates.sum()
    terms = _CacheTerms(rates, np.full(n, life), np.ones(n), rates, np.zeros(n, dtype=np.intp),
                        np.array([rates.sum()]), True, None if drop_dead else np.ones(n))
    t_c = _characteristic_time(terms, cache)
    predicted = float(terms.hit_rates(t_c, np.array([float(n)]))[0][0])
    measured = _simulated_lru(rates, life, cache, 120_000, seed=3, drop_dead=drop_dead)
    assert predicted == pytest.approx(measured, abs=0.02)
    if drop_dead:
        assert math.isinf(t_c)  # the live blocks fit: only invalidation misses
    else:
        assert math.isfinite(t_c)


def test_dead_blocks_cost_hits_even_when_the_cache_exceeds_the_live_data() -> None:
    # S6g's bound: with a cache 2.5x the live data, a tree whose deleted blocks are dropped keeps
    # every block read since its file was written (t_C = inf); RocksDB's keeps the dead copies
    # too, so t_C is finite and no level's hit rate is higher than with them dropped.
    big = replace(SYSTEM, cache_bytes=32 << 20)
    tree = file_skew_trees([T2], T2.system(big), UPDATES)[0]
    assert tree.dead_blocks_cached
    blocks = big.cache_bytes // big.block_bytes
    assert sum(lev.entries for lev in tree.levels) / tree.entries_per_block < blocks / 2
    kept, dropped = tree.costs(blocks), replace(tree, dead_blocks_cached=False).costs(blocks)
    assert math.isinf(dropped.characteristic_time_writes)
    assert math.isfinite(kept.characteristic_time_writes)
    assert all(k <= d + 1e-12 for k, d in zip(kept.cache_hit_rate_per_level,
                                               dropped.cache_hit_rate_per_level, strict=True))
    # At the sweep's 8 MiB the dead copies cost the last level most of its hits (RocksDB
    # measured 0.61-0.69 there; without S6g and the layout the model said 0.959).
    small = _tree().costs(SYSTEM.cache_bytes // SYSTEM.block_bytes)
    assert small.cache_hit_rate_per_level[-1] < 0.75
