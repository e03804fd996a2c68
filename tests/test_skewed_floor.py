"""The skewed search's floor (``granularity.skewed_floor``) is a floor: no configuration the skew
stage prices costs less than it, so the search, which stops at the first floor above the best Θ
found, never leaves unpriced a configuration that would have won.

Since U5r stock RocksDB's universal range reads are priced through the block cache (S7r); the
floor of a universal configuration, which is not walked before it is reached, charged them
uncached. At 50,000 keys of 108 B under a 16 MiB cache (all of the data, three times), Zipf 0.9
updates and half the operations range reads of 8 blocks, universal compaction's floors were
5.4 to 6.6 times their prices (1.4 to 2.3 times under caches of a fifth and three quarters of
the data), and with every universal configuration shortlisted the search
picked leveled compaction at Θ 0.813 where pricing every one of them finds universal (trigger
16, 400%) at 0.672."""

from __future__ import annotations

import pytest

import wacky_model.granularity as granularity
from cost_models.objective import theta_shared
from cost_models.skew import universal_range_bound
from cost_models.universal import UniversalRules
from wacky_model.granularity import FileGrid, SkewStage, file_pick, file_weights, skewed_floor
from wacky_model.guardrails import DEFAULT_CONSTRAINTS
from wacky_model.rocksdb_tuning import stock_grid
from wacky_model.skew import skew_key_map
from wacky_model.types import KeyDistribution, System, Workload

ZIPF = KeyDistribution("zipf", theta=0.9)


def _system(cache_bytes: int) -> System:
    return System(entries=5e4, entry_bytes=108, key_bytes=8, buffer_bytes=65536,
                  bits_per_entry=10.0, cache_bytes=cache_bytes)


def _ranges(range_blocks: float = 8.0, keys: KeyDistribution = ZIPF,
            update_fraction: float = 1.0) -> Workload:
    """Half the operations range reads, skewed updates and reads."""
    return Workload(0.3, 0.0, 0.5, 0.2, range_blocks=range_blocks, write_keys=keys,
                    read_keys=keys, update_fraction=update_fraction)


def _small_grid(system: System, stride: int = 40) -> list[tuple[System, FileGrid]]:
    """Stock RocksDB's grid at its memory split: every universal configuration and every
    ``stride``-th leveled one (a leveled tree costs about 50 ms, a universal walk 250 ms here)."""
    [(split, grid)] = stock_grid(system, DEFAULT_CONSTRAINTS)
    leveled = [j for j, c in enumerate(grid.compactions) if c.style != "universal"]
    keep = sorted(leveled[::stride]
                  + [j for j, c in enumerate(grid.compactions) if c.style == "universal"])
    return [(split, FileGrid(tuple(grid.designs[j] for j in keep),
                             tuple(grid.compactions[j] for j in keep),
                             tuple(grid.costs[j] for j in keep), grid.rows[keep]))]


@pytest.mark.parametrize(("cache_bytes", "workload"), [
    (16 << 20, _ranges()),  # the cache holds the data three times
    (1 << 20, _ranges()),  # a fifth of it: the bound's cached share is below 1
    (4 << 20, _ranges(2.0, KeyDistribution("zipf", theta=1.2), 0.5)),
])
def test_the_floor_is_never_above_the_price(cache_bytes: int, workload: Workload) -> None:
    grids = _small_grid(_system(cache_bytes))
    split, grid = grids[0]
    stage = SkewStage(tuple(grids), workload, skew_key_map(split, workload))
    weights = file_weights([workload], split, None)
    styles = set()
    for j, compaction in enumerate(grid.compactions):
        costs = stage.costs(0, j)[0]
        theta = float(theta_shared(costs.row(split.entries_per_block), weights)[0])
        floor = skewed_floor(stage, 0, j, weights)
        assert floor <= theta * (1.0 + 1e-9), (compaction, floor, theta)
        styles.add(compaction.style)
    assert styles == {"wacky", "universal"}


def test_the_floor_skips_no_universal_configuration_that_would_win(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every universal configuration shortlisted (and no descent, which would price the best
    of the other style whatever its floor): the search's pick is the one it makes pricing
    every staged configuration. Before the bound: leveled T=8 at 0.8131 against universal
    (trigger 16, 400%) at 0.6721."""
    system, workload = _system(16 << 20), _ranges()
    grids = list(stock_grid(system, DEFAULT_CONSTRAINTS))
    monkeypatch.setattr(granularity, "UNIVERSAL_REPRICE", 10**6)
    pick = file_pick(grids, workload, None)
    monkeypatch.setattr(granularity, "skewed_floor", lambda *args, **kwargs: 0.0)
    every = file_pick(grids, workload, None)
    assert every.compaction.style == "universal"  # the case is one where the floor matters
    assert pick.theta == pytest.approx(every.theta, rel=1e-9)
    assert pick.compaction == every.compaction


def test_the_universal_range_bound_at_its_ends() -> None:
    """No cache: the oldest run's seek and its least share of the entries; a cache that holds
    the oldest run: nothing (the bound gives up); more runs unchecked or a larger size
    amplification limit: a smaller share."""
    rules = UniversalRules(trigger=16, max_size_amplification_percent=200.0, flush_entries=500.0)
    runs, spread = universal_range_bound(rules, 50_000, 0, 30)
    assert runs == 1.0 and spread == pytest.approx(50_000 / (3 * 50_000 + 14 * 500))
    assert universal_range_bound(rules, 50_000, 50_000 / 30, 30) == (0.0, 0.0)
    half = universal_range_bound(rules, 50_000, 50_000 / 60, 30)
    assert half == (pytest.approx(0.5), pytest.approx(spread / 2))
    wider = UniversalRules(trigger=32, max_size_amplification_percent=400.0, flush_entries=500.0)
    assert universal_range_bound(wider, 50_000, 0, 30)[1] < spread
