"""Valid skewed workloads with updates that U5r (docs/MODEL.md) could not price: stock RocksDB's
universal compaction under `latest` or Zipf writes that update keys, through the public API
(``recommend(target="rocksdb")`` and ``price`` of the universal configuration), and each root
cause on its own. Every case here raised before its fix:

1. NaN cached shares (``cached_range``'s "cached shares must be in [0, 1]"): a run class no read
   passes took S7f's sparse false-positive nodes with no keys, a zero-weight bin whose mean
   rate ``_grouped_nodes`` takes as 0, and S6's h of a rate-0 term is 0/0.
2. A negative ``bincount`` in ``_life_nodes``: a run version no read passes has S7f smallness 0,
   and ln 0 made its size step the most negative integer, the rows' keys overflowing.
3. "the universal replay reached no full merge": under skewed updates the newer runs gain
   entries only as distinct keys, so U2's full merge may come later than the cycle's cap, or
   never; the steady window after the cap is counted instead (``StepWindow.steady``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import cost_models.universal as cu
from cost_models.skew import _Level, _life_nodes, key_map, universal_ledger
from cost_models.universal import UniversalOptions, UniversalRules, universal_costs
from wacky_model.pricing import price
from wacky_model.rocksdb_tuning import UniversalConfig
from wacky_model.search import recommend
from wacky_model.skew import _priced_workload
from wacky_model.types import System, Workload

MiB = 2**20
# 50,000 keys of 108 bytes, a 64 KiB memtable (449 RocksDB entries), a cache of a third of them.
SMALL = System(entries=50_000, entry_bytes=108, key_bytes=8, buffer_bytes=65_536,
               bits_per_entry=10, cache_bytes=2 * MiB)
# 200,000 keys and a 32 KiB memtable (224 entries): a cycle of the largest run is long.
LARGER = System(entries=200_000, entry_bytes=108, key_bytes=8, buffer_bytes=32_768,
                bits_per_entry=10, cache_bytes=2 * MiB)


def _workload(writes: str, update: float, mix: tuple[float, ...] = (0.2, 0.1, 0.6, 0.1),
              reads: str = "zipf:1.2") -> Workload:
    return Workload(*mix, write_keys=writes, read_keys=reads, update_fraction=update)


def _universal(system: System, trigger: int, amp: float):
    return UniversalConfig(UniversalOptions(trigger=trigger, max_size_amplification_percent=amp),
                           system.buffer_bytes, float(system.bits_per_entry)).configuration


def _check_priced(p) -> None:
    """A price is a price: finite, and every hit rate and cached share a share."""
    for v in (p.theta, p.write_amp, p.point_read, p.zero_result_read, p.range_runs):
        assert math.isfinite(v) and v >= 0.0
    k = p.detail
    for share in (*k.cache_hit_rate_per_level, k.cache_hit_rate):
        assert 0.0 <= share <= 1.0


# (system, writes, update share, trigger, max_size_amplification_percent): the crash it raised.
PRICED = [
    pytest.param(SMALL, "latest:1.2", 0.5, 16, 200.0, id="nan-cached-share-16-200"),
    pytest.param(SMALL, "latest:1.2", 0.5, 24, 400.0, id="nan-cached-share-24-400"),
    # Inserts only: correlated reads take the N newest inserts, which no older run holds.
    pytest.param(SMALL, "latest:0.6", 0.0, 16, 200.0, id="nan-cached-share-inserts"),
    pytest.param(SMALL, "latest:0.6", 0.5, 24, 200.0, id="negative-bincount-24-200"),
    pytest.param(LARGER, "zipf:1.2", 1.0, 16, 400.0, id="no-full-merge-16-400"),
]


@pytest.mark.parametrize(("system", "writes", "update", "trigger", "amp"), PRICED)
def test_a_universal_configuration_under_skewed_updates_is_priced(system, writes, update,
                                                                   trigger, amp) -> None:
    _check_priced(price(_universal(system, trigger, amp), _workload(writes, update), system))


# (system, writes, update share, mix): recommend(target="rocksdb") raised on each.
RECOMMENDED = [
    pytest.param(SMALL, "latest:1.2", 0.5, (0.2, 0.1, 0.6, 0.1), id="nan-cached-share"),
    pytest.param(SMALL, "latest:0.6", 0.5, (0.3, 0.0, 0.7, 0.0), id="negative-bincount"),
    pytest.param(LARGER, "zipf:1.2", 1.0, (0.2, 0.1, 0.6, 0.1), id="no-full-merge"),
]


@pytest.mark.parametrize(("system", "writes", "update", "mix"), RECOMMENDED)
def test_the_rocksdb_target_recommends_under_skewed_updates(system, writes, update,
                                                             mix) -> None:
    workload = _workload(writes, update, mix)
    rec = recommend(workload, system, target="rocksdb")
    assert math.isfinite(rec.cost) and rec.cost > 0.0
    # The pick is priced as price() prices it.
    assert price(rec.configuration, workload, system).theta == pytest.approx(rec.cost, rel=1e-9)


def test_a_version_no_read_passes_is_a_life_node_of_its_own() -> None:
    # U5r: a rank's run versions weigh their block-time; their exposure to false positives
    # (``times``) is 0 for a version no read passes while it sits there: S7f's smallness 0.
    lev = _Level(1_000.0, 1.0, 100.0, np.array([4_000.0, 9_000.0, 20_000.0]),
                 np.array([0.2, 0.3, 0.5]), times=np.array([2.0, 0.0, 1.0]))
    other = _Level(500.0, 0.5, 100.0, np.array([3_000.0]), np.array([1.0]),
                   times=np.array([1.0]))
    lives, weights, start, length, small = _life_nodes((lev, other), 1.25)
    assert np.all(length >= 0) and length.sum() == lives.size == 4
    assert start.tolist() == [0, 3]
    # Each level's nodes keep its versions' weight; the unexposed version's node has no
    # false positives, the others their smallness (time / (weight x total time)).
    assert weights[:3].sum() == pytest.approx(1.0) and weights[3] == pytest.approx(1.0)
    assert sorted(small[:3].tolist()) == pytest.approx([0.0, 1.0 / 0.5 / 3.0, 2.0 / 0.2 / 3.0])
    assert small[:3][lives[:3] == 9_000.0] == pytest.approx([0.0])


def _zipf_updates_ledger(cap_loads: int, monkeypatch: pytest.MonkeyPatch):
    # Zipf 1.2, every write an update, 200,000 keys, F = 100, trigger 24, 400%: the first full
    # merge after the warm-up comes 25 loads after the load, past the cycle's cap of 12.
    monkeypatch.setattr(cu, "CYCLE_CAP_LOADS", cap_loads)
    n = 200_000
    w = _priced_workload(_workload("zipf:1.2", 1.0, (0.5, 0.0, 0.5, 0.0)), math.inf)
    rules = UniversalRules(flush_entries=100, trigger=24, max_size_amplification_percent=400)
    return universal_ledger(rules, n, n / 2, key_map(n, w, tabulate=False), cycle=True)


def test_with_no_full_merge_within_the_cap_the_steady_window_is_counted(monkeypatch) -> None:
    steady = _zipf_updates_ledger(cu.CYCLE_CAP_LOADS, monkeypatch)
    assert not steady.complete and steady.full_merges == 0
    cap = cu.CYCLE_CAP_LOADS * 2_000  # flushes: 12 loads of 2,000
    assert steady.window_writes == pytest.approx(cap * 100)
    assert steady.writes_before == pytest.approx((1_000 + cap) * 100)  # warm-up, then the cap
    # The whole cycle, found with a cap five times as long (5.1 M writes, one full merge):
    # the steady window prices its write amplification and runs within 2%.
    cycle = _zipf_updates_ledger(5 * cu.CYCLE_CAP_LOADS, monkeypatch)
    assert cycle.complete and cycle.full_merges == 1
    assert steady.write_amp == pytest.approx(cycle.write_amp, rel=0.02)
    assert steady.mean_runs == pytest.approx(cycle.mean_runs, rel=0.02)


def test_u1_u4_count_the_steady_window_where_no_full_merge_comes() -> None:
    # At most two runs merge (max_merge_width) and only with three or more (trigger), so after
    # the load's first merges no merge takes every run: U1-U4 follow the rules over the
    # steady window, as the ledger does with uniform keys and no updates.
    rules = UniversalRules(flush_entries=100, trigger=3, max_merge_width=2,
                           max_size_amplification_percent=1e9)
    u = universal_costs(rules, 20_000, 10_000, cycle=True)
    assert not u.complete and u.full_merges == 0
    assert u.window_flushes == cu.CYCLE_CAP_LOADS * 200
    w = _priced_workload(Workload(0.5, 0.0, 0.5), math.inf)
    led = universal_ledger(rules, 20_000, 10_000, key_map(20_000, w, tabulate=False),
                           cycle=True)
    assert (led.write_amp, led.mean_runs) == pytest.approx((u.write_amp, u.runs), rel=1e-12)
    assert led.merges_before == u.merges_before
