"""S7f: false positives' blocks as cache requests (docs/MODEL.md S7f)."""

from __future__ import annotations

import numpy as np
import pytest

import cost_models.skew as cs
from cost_models.universal import UniversalRules
from wacky_model.skew import cache_blocks, skew_key_map, skew_tree, universal_skew_costs
from wacky_model.types import Design, System, Workload

SYSTEM = System(entries=200_000, entry_bytes=128, buffer_bytes=131072, bits_per_entry=5.0,
                cache_bytes=3_840_000)
ZIPF = Workload(point_reads=0.5, writes=0.5, write_keys="zipf:0.9", read_keys="zipf:0.9",
                update_fraction=0.5)


def test_a_run_versions_smallness_averages_to_one_over_its_block_time() -> None:
    """ē / e_v weighted by block-time share is 1: the false positives' requests a level gets
    are the same whatever sizes its versions have, only spread over their own blocks."""
    lives = np.array([10.0, 40.0, 50.0])
    sizes = np.array([5.0, 1.0, 2.0])
    w = sizes * lives / np.sum(sizes * lives)
    level = cs._Level(2.0, 1.0, 1.0, lives, w)
    small = cs._smallness(level)
    mean_size = np.sum(sizes * lives) / lives.sum()
    np.testing.assert_allclose(small, mean_size / sizes)
    assert np.sum(w * small) == pytest.approx(1.0)


def test_the_cache_keeps_every_request_of_a_level() -> None:
    """The terms' requests at each level add up to its keys' reads and false positives per
    block (S5 and S7f), whether or not the versions' sizes differ."""
    rules = UniversalRules(trigger=12, min_merge_width=4, max_size_amplification_percent=298,
                           flush_entries=789.59)
    trees = []
    original = cs._with_cache

    def keep(tree, blocks):
        trees.append(tree)
        return original(tree, blocks)

    cs._with_cache = keep
    try:
        universal_skew_costs(rules, 5.0, SYSTEM, ZIPF, preload=200_000, window=100_000,
                             cycle=True)
    finally:
        cs._with_cache = original
    tree = trees[-1]
    B = tree.entries_per_block
    blocks = np.array([max(lev.entries / B, 1.0) for lev in tree.levels])
    rates = cs._block_rates(tree.levels, tree.place, tree.pop_count, tree.pop_rate, B,
                            tree.reads_per_write)
    fp = cs._false_positive_requests(tree, blocks)
    terms = cs._cache_terms(tree.levels, rates, blocks, spread=1.0, bulk=fp.bulk)
    want = rates.mean(axis=1) + fp.bulk
    np.testing.assert_allclose(terms.reads, want, rtol=1e-9)
    assert any(np.ptp(cs._smallness(lev)) > 0.5 for lev in tree.levels)  # sizes do differ


def test_the_search_bound_never_exceeds_the_price_with_a_cache() -> None:
    """A cache may serve false positives: the bound the skew search prunes by stays below the
    price (benchmarks/check_false_positive_hits.py --bound runs the wider grid)."""
    keys = skew_key_map(SYSTEM, ZIPF)
    blocks = cache_blocks(SYSTEM)
    share = keys.hottest_read_share(blocks * SYSTEM.entries_per_block)
    for T, K, Z in ((10, 0, 0), (4, 1, 1), (6, 1, 0)):
        tree = skew_tree(Design(T, T - 1, 1, K, Z), SYSTEM, ZIPF, keys=keys)
        assert tree.point_read_bound(share) <= tree.costs(blocks).point_read
        assert tree.point_read_bound(0.0) == pytest.approx(tree.costs(0).point_read)


def test_a_zero_result_lookup_reads_through_the_cache_no_better_than_it_can() -> None:
    """S7f: a zero-result lookup's false positives find their blocks cached with each level's
    cached share, so a cache lowers its I/O, but never below the blocks a cache of C blocks
    cannot hold, sum a_i p_i max(0, 1 - C / blocks_i); without a cache it is sum a_i p_i."""
    blocks = cache_blocks(SYSTEM)
    for T, K, Z in ((10, 0, 0), (4, 1, 1)):
        tree = skew_tree(Design(T, T - 1, 1, K, Z), SYSTEM, ZIPF)
        per_level = tree.runs * tree.fpr
        assert tree.costs(0).zero_result_read == pytest.approx(float(per_level.sum()))
        cached = tree.costs(blocks).zero_result_read
        level_blocks = np.array([max(lev.entries / tree.entries_per_block, 1.0)
                                 for lev in tree.levels])
        floor = float(np.sum(per_level * np.maximum(0.0, 1.0 - blocks / level_blocks)))
        assert floor - 1e-12 <= cached < float(per_level.sum())
        # The search prices and prunes by the same two figures (SkewedTree's methods).
        assert tree.zero_result_read(blocks) == cached
        assert tree.zero_result_bound(blocks) == pytest.approx(floor, rel=1e-12)


def test_theta_under_skew_prices_zero_result_lookups_through_the_cache() -> None:
    """One Θ: what the search reports for a skewed pick is the zero-result cost the skew
    model predicts the engines with (S7f), not the cache-less finite model's; the pricing
    function gives the same figure for the same configuration."""
    from wacky_model.pricing import price
    from wacky_model.search import recommend

    workload = Workload(point_reads=0.3, zero_reads=0.4, writes=0.3, write_keys="zipf:0.9",
                        read_keys="zipf:0.9", update_fraction=0.5)
    rec = recommend(workload, SYSTEM, granularity="level")
    tree = skew_tree(rec.design, rec.system, workload)
    want = tree.zero_result_read(cache_blocks(rec.system))
    assert rec.costs["zero_result_read"] == pytest.approx(want, rel=1e-9)
    assert want < tree.zero_result_read(0)  # the cache served some false positives
    again = price(rec.configuration, workload, SYSTEM)
    assert again.zero_result_read == pytest.approx(want, rel=1e-9)
    assert again.theta == pytest.approx(rec.cost, rel=1e-9)
