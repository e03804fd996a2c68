"""S7r (docs/MODEL.md): stock RocksDB's range reads through its block cache. The formula alone
(nothing cached: the uncached cost of the levels; everything cached: nothing, level 0 too), and
through ``price()``: a cache larger than the data prices range reads below the uncached cost,
without a cache they are the uniform model's, the native engine's do not change, and the stock
search's Θ is price()'s."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cost_models.objective import COST_ROW
from cost_models.skew import cached_range
from wacky_model.pricing import price
from wacky_model.types import System, Workload

RUNS, SPREAD = COST_ROW.index("range_runs"), COST_ROW.index("range_spread")
LEVEL_RUNS = [1.5, 1.0, 1.0, 1.0]  # level 0's 1.5 runs, then Levels 1-3
ENTRIES = [3e3, 1e4, 1e5, 1e6]


def test_nothing_cached_is_the_uncached_cost() -> None:
    assert cached_range(LEVEL_RUNS, ENTRIES, [0.0] * 4, 1) == pytest.approx((4.5, 1.0))


def test_everything_cached_costs_nothing() -> None:
    # Level 0 too: reads put its blocks in the cache (a flush does not).
    assert cached_range(LEVEL_RUNS, ENTRIES, [1.0] * 4, 1) == (0.0, 0.0)
    assert cached_range([1.0] * 3, ENTRIES[1:], [1.0] * 3, 0) == (0.0, 0.0)


def test_a_share_cached_is_the_sum_over_levels() -> None:
    cached = [0.7, 0.5, 0.25, 0.1]  # level 0's too: the share its point reads keep cached
    runs, spread = cached_range(LEVEL_RUNS, ENTRIES, cached, 1)
    assert runs == pytest.approx(1.5 * 0.3 + 0.5 + 0.75 + 0.9)
    share = np.array(ENTRIES) / sum(ENTRIES)
    assert spread == pytest.approx(share[0] * 0.3 + share[1] * 0.5 + share[2] * 0.75
                                   + share[3] * 0.9)


@pytest.mark.parametrize(("args", "message"), [
    ((LEVEL_RUNS, ENTRIES[:3], [0.0] * 4, 1), "one run count"),
    ((LEVEL_RUNS, ENTRIES, [0.0] * 4, 5), "level0_levels"),
    ((LEVEL_RUNS, ENTRIES, [0.0, 0.0, 1.5, 0.0], 1), r"\[0, 1\]"),
    (([-1.0, 1.0, 1.0, 1.0], ENTRIES, [0.0] * 4, 1), ">= 0"),
])
def test_bad_input_is_refused(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        cached_range(*args)


SKEWED = Workload(0.3, 0.1, 0.4, 0.2, 1.0, write_keys="zipf:0.6", read_keys="zipf:0.6",
                  update_fraction=0.5)
SYSTEM = System(entries=2**18, entry_bytes=128, buffer_bytes=1 << 20, bits_per_entry=10.0,
                cache_bytes=64 << 20)  # the cache is twice the data


@pytest.fixture(scope="module")
def stock():
    from wacky_model.rocksdb_tuning import recommend_rocksdb

    return recommend_rocksdb(SKEWED, SYSTEM)


def test_a_cache_larger_than_the_data_makes_range_reads_cheaper(stock) -> None:
    for p in (stock.best, stock.default):
        assert p.config.style != "universal"
        at = p.config.system(SYSTEM)
        cached = price(p.config.configuration, SKEWED, at)
        bare = price(p.config.configuration, SKEWED, replace(at, cache_bytes=0))
        assert bare.row[RUNS] == bare.range_runs and bare.row[SPREAD] == 1.0
        assert cached.range_runs == cached.row[RUNS]  # Priced says what the row prices
        assert cached.row[RUNS] < bare.row[RUNS] and cached.row[SPREAD] < 1.0
        assert (cached.row[RUNS] + SKEWED.range_blocks * cached.row[SPREAD]
                < bare.row[RUNS] + SKEWED.range_blocks)
        # The search's and the tuner's Θ is price()'s.
        assert cached.theta == pytest.approx(p.theta, rel=1e-9)


def test_the_native_engines_ranges_are_not_priced_through_its_cache() -> None:
    from wacky_model.config import Configuration
    from wacky_model.types import Compaction, Design

    config = Configuration(Design(10, 9, 1, 0, 0), Compaction(granularity="file"))
    assert config.target == "native"
    cached = price(config, SKEWED, SYSTEM)
    assert cached.row[RUNS] == cached.range_runs and cached.row[SPREAD] == 1.0
