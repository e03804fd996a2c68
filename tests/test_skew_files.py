"""The file-granular skew model (docs/MODEL.md, S2f): the ledger of partial merges under skewed
keys, updates and a block cache, priced by S3-S8 (cost_models.skew.file_trees)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cost_models.partial import LeveledFiles, window_costs
from cost_models.skew import (
    SkewedWorkload,
    file_ledger,
    key_map,
    mean_unique,
    settled_window,
    writes_for_mean_unique,
)
from wacky_model.files import native_filter_rates, native_policy, window_reads
from wacky_model.skew import (
    file_skew_costs,
    file_skew_costs_many,
    file_skew_trees,
    leveled_skew_costs,
    leveled_skew_costs_many,
    skew_key_map,
)
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload

N = 100_000
SYSTEM = System(entries=N, entry_bytes=128, block_bytes=4096, buffer_bytes=32 << 10,
                bits_per_entry=5.0)  # F = 256, N/F = 390
DESIGNS = [(4, 1), (4, 4), (10, 1), (10, 4)]


def _design(T: int) -> Design:
    return Design(T=T, C=T - 1, X=1, K=0, Z=0)


def _files(k: int, file_bytes: int | None = None) -> Compaction:
    return Compaction(granularity="file", level1_runs=k, file_bytes=file_bytes)


def _skewed(theta: float, u: float = 0.5) -> Workload:
    d = KeyDistribution("zipf", theta) if theta > 0 else KeyDistribution()
    return Workload(point_reads=0.5, writes=0.5, write_keys=d, read_keys=d, update_fraction=u)


def _walk(policy: LeveledFiles):
    return window_costs(policy, *settled_window(policy, N), settled=True)


@pytest.mark.parametrize("T, k", DESIGNS)
def test_uniform_keys_without_updates_are_the_partial_models_write_amplification(T, k):
    # By construction (B_i is calibrated on the walk, D(w) = w), so the tolerance is S1's and
    # S2f's Newton tolerance: 1e-9 relative. The one difference is the native engine's staging
    # of k - 1 flushes in k, where P3's walk counts k (a flush's F per k F inserted).
    c = file_skew_costs(_design(T), SYSTEM, _files(k), None)
    w = _walk(native_policy(_design(T), SYSTEM, _files(k)))
    staged = 1.0 / k if k > 1 else 0.0
    assert c.write_amp == pytest.approx(w.write_amp - staged, rel=1e-9)
    below0 = c.level_write_amp[1:] if k > 1 else c.level_write_amp
    assert below0 == pytest.approx(w.level_write_amp, rel=1e-9)
    assert c.level_entries[-len(w.level_entries):] == pytest.approx(w.level_entries, rel=1e-12)


@pytest.mark.parametrize("T, k", DESIGNS)
def test_uniform_keys_without_updates_read_as_the_partial_model_reads(T, k):
    # P7's uniform existing-key read over the same walk and filters. The skew model also lets
    # the buffer answer F/2 of N reads and places the keys by their age bands, not by the
    # levels' entries: both move the read by well under 1%.
    design, comp = _design(T), _files(k)
    c = file_skew_costs(design, SYSTEM, comp, None)
    policy = native_policy(design, SYSTEM, comp)
    w = _walk(policy)
    fpr, fpr0, bits = native_filter_rates([design.filters], SYSTEM, [policy], [w], [N])[0]
    p6 = window_reads(w, fpr, fpr0, bits)
    assert c.point_read == pytest.approx(p6.point_read_uniform, rel=0.01)
    assert c.zero_result_read == pytest.approx(p6.zero_result_read, rel=0.02)
    assert c.cache_hit_rate == 0.0


def test_more_cache_never_lowers_the_hit_rate():
    design, comp, wl = _design(4), _files(2), _skewed(0.9)
    keys = skew_key_map(SYSTEM, wl)
    rates = []
    for cache in (0, 40_000, 400_000, 1_600_000, 6_400_000, 1 << 30):
        system = System(**{**SYSTEM.__dict__, "cache_bytes": cache})
        c = file_skew_costs(design, system, comp, wl, keys=keys)
        rates.append(c.cache_hit_rate)
        assert c.point_read >= c.false_positives - 1e-12
    assert rates[0] == 0.0
    assert all(b >= a - 1e-9 for a, b in zip(rates, rates[1:], strict=False))
    assert rates[-1] > rates[1]


@pytest.mark.parametrize("T, k", DESIGNS)
def test_more_skew_or_more_updates_never_raise_write_amplification(T, k):
    design, comp = _design(T), _files(k)
    by_theta = [file_skew_costs(design, SYSTEM, comp, _skewed(t)).write_amp
                for t in (0.0, 0.3, 0.6, 0.9, 1.2, 1.5)]
    by_updates = [file_skew_costs(design, SYSTEM, comp, _skewed(0.9, u)).write_amp
                  for u in (0.0, 0.25, 0.5, 0.75, 1.0)]
    for seq in (by_theta, by_updates):
        assert all(b <= a * (1 + 1e-9) for a, b in zip(seq, seq[1:], strict=False)), seq
    assert by_theta[-1] < 0.8 * by_theta[0]


@pytest.mark.parametrize("T, k", DESIGNS)
def test_the_ledger_has_level_0_then_the_levels_below(T, k):
    design, comp, wl = _design(T), _files(k), _skewed(1.2)
    tree = file_skew_trees([design], SYSTEM, comp, wl)[0]
    walk_levels = len(_walk(native_policy(design, SYSTEM, comp)).level_entries)
    L = len(tree.levels)
    assert L == walk_levels + (k > 1)
    assert len(tree.level_write_amp) == L == tree.runs.size == tree.fpr.size
    assert tree.share.size == L + 1 and tree.share.sum() == pytest.approx(1.0)
    if k > 1:
        level0 = tree.levels[0]
        assert level0.runs == pytest.approx((k - 1) / 2)
        assert level0.entries == pytest.approx((k - 1) / 2 * SYSTEM.buffer_entries)
        # Run j waits k - j flushes for the merge.
        assert level0.lives.size == k - 1
        assert tree.fpr[0] == tree.fpr[1]  # level 0's runs take Level 1's filter
    assert np.all(tree.runs[k > 1:] == 1.0)
    for lev in tree.levels:
        assert np.all(np.isfinite(lev.lives)) and np.all(lev.lives > 0)
        assert lev.weights.sum() == pytest.approx(1.0)
    # A level is rewritten at every push from above: the pushes never shorten going down.
    pushes = [lev.batch_writes for lev in tree.levels[k > 1:]]
    assert all(b >= a for a, b in zip(pushes, pushes[1:], strict=False))
    assert tree.cycle_writes == pushes[-1]
    c = tree.costs(200)
    assert len(c.cache_hit_rate_per_level) == L == len(c.run_lifetime_writes)


def test_mean_unique_inverts_and_is_half_the_span_for_uniform_keys():
    wl = SkewedWorkload(KeyDistribution("zipf", 0.99), KeyDistribution("zipf", 0.99), 0.7)
    keys = key_map(N, wl)
    e = np.array([10.0, 300.0, 5_000.0, 60_000.0])
    p = writes_for_mean_unique(e, keys)
    assert mean_unique(p, keys) == pytest.approx(e, rel=1e-9)
    assert np.all(p >= 2 * keys.writes_for(e) * (1 - 1e-12))  # Jensen: the start is left
    # The direct mean of D over [0, p] (a fine midpoint rule).
    w = (np.arange(4000) + 0.5) / 4000 * p[2]
    assert float(np.mean(keys.unique(w))) == pytest.approx(e[2], rel=1e-5)
    uniform = key_map(N, SkewedWorkload(KeyDistribution(), KeyDistribution(), 0.0))
    assert writes_for_mean_unique(e, uniform) == pytest.approx(2 * e)
    updates_only = key_map(N, SkewedWorkload(KeyDistribution(), KeyDistribution(), 1.0))
    assert math.isinf(float(writes_for_mean_unique(float(N), updates_only)))


def test_many_designs_price_as_each_alone():
    wl = _skewed(0.9)
    system = System(**{**SYSTEM.__dict__, "cache_bytes": 1_000_000})
    keys = skew_key_map(system, wl)
    designs = [_design(T) for T, _ in DESIGNS] + [_design(6)]
    comps = [_files(k) for _, k in DESIGNS] + [_files(3, 64 << 10)]
    many = file_skew_costs_many(designs, system, comps, wl, keys=keys)
    for d, c, got in zip(designs, comps, many, strict=True):
        alone = file_skew_costs(d, system, c, wl)
        assert got.write_amp == pytest.approx(alone.write_amp, rel=1e-12)
        assert got.cache_hit_rate == pytest.approx(alone.cache_hit_rate, rel=1e-9)
        assert got.point_read == pytest.approx(alone.point_read, rel=1e-9)


def test_rocksdb_leveled_reduces_to_the_partial_walk_and_absorbs_updates():
    policy = LeveledFiles(T=10, flush_entries=256, file_entries=256, level0_runs=4,
                          targets="dynamic", base_entries=1024, num_levels=6)
    c = leveled_skew_costs(policy, 10.0, SYSTEM, None)
    w = _walk(policy)
    assert c.write_amp == pytest.approx(w.write_amp, rel=1e-9)  # every flush is written
    assert len(c.level_entries) == 1 + sum(e > 0 for e in w.level_entries)  # level 0 first
    skewed = leveled_skew_costs_many([policy, policy], [10.0, 5.0], SYSTEM, _skewed(1.2))
    assert skewed[0].write_amp < 0.8 * c.write_amp
    assert skewed[1].zero_result_read > skewed[0].zero_result_read  # fewer bits per key


def test_whole_level_merges_are_refused():
    with pytest.raises(ValueError, match="granularity='file'"):
        file_skew_costs(_design(4), SYSTEM, Compaction(), None)
    with pytest.raises(ValueError, match="K = 0"):
        file_skew_costs(Design(T=4, C=3, X=1, K=1, Z=0), SYSTEM, _files(1), None)


def test_file_ledger_takes_the_native_staging_by_default():
    policy = native_policy(_design(4), SYSTEM, _files(4))
    keys = key_map(N, SkewedWorkload(KeyDistribution(), KeyDistribution(), 0.0))
    w = _walk(policy)
    native = file_ledger(policy, w, keys)
    staged_all = file_ledger(policy, w, keys, flush_writes_last=True)
    assert native.level_wa[0] == pytest.approx(0.75)  # 3 of 4 flushes staged
    assert staged_all.level_wa[0] == pytest.approx(1.0)


@pytest.mark.skipif(not (Path(__file__).resolve().parent.parent / "build").exists(),
                    reason="the native engine is not built")
def test_universal_reduces_to_u1_u4_and_the_cache_helps():
    from cost_models.universal import UniversalRules, universal_costs
    from wacky_model.skew import universal_skew_costs

    rules = UniversalRules(flush_entries=256, trigger=4)
    u = universal_costs(rules, N, N)
    c = universal_skew_costs(rules, 10.0, SYSTEM, None, preload=N, window=N)
    assert c.write_amp == pytest.approx(u.write_amp, rel=1e-12)  # D(w) = w: the same walk
    assert sum(c.level_runs) == pytest.approx(u.runs, rel=1e-12)
    wl = _skewed(1.2)
    cached = System(**{**SYSTEM.__dict__, "cache_bytes": 2_000_000})
    a = universal_skew_costs(rules, 10.0, SYSTEM, wl, preload=N, window=N)
    b = universal_skew_costs(rules, 10.0, cached, wl, preload=N, window=N)
    assert a.cache_hit_rate == 0.0 < b.cache_hit_rate
    assert b.point_read < a.point_read


def test_a_universal_cycle_runs_from_one_full_merge_to_the_next():
    """The window validation measures universal compaction over (a whole cycle of the largest
    run): U1-U4 and U5 count from the flush after a full merge past the warm-up through the
    next full merge, and agree with each other when nothing is skewed."""
    from cost_models.universal import UniversalRules, universal_costs
    from wacky_model.skew import universal_skew_costs

    rules = UniversalRules(flush_entries=256, trigger=12, min_merge_width=4,
                           max_size_amplification_percent=298)
    u = universal_costs(rules, N, N // 2, cycle=True)
    assert u.complete and u.full_merges == 1 and len(u.final_runs) == 1
    # The same flushes replayed as a fixed window: the cycle's start is where the count began.
    start = round(N / 256)
    fixed = [universal_costs(rules, (start + k) * 256, u.window_flushes * 256)
             for k in range(4 * start)]
    assert any(f.write_amp == pytest.approx(u.write_amp, rel=1e-12) and f.full_merges == 1
               and len(f.final_runs) == 1 for f in fixed)
    c = universal_skew_costs(rules, 10.0, SYSTEM, None, preload=N, window=N // 2, cycle=True)
    assert c.write_amp == pytest.approx(u.write_amp, rel=1e-12)
    assert c.cycle_writes == pytest.approx(u.window_flushes * 256)
    from cost_models.universal import StepWindow

    w = StepWindow.cycle(before=2, warm=1)  # a full merge in the load does not start it
    assert [w.stop_after(step, full) for step, full in enumerate([1, 0, 0, 1, 0, 1])] == [
        False, False, False, False, False, True]
    assert (w.start, w.counted(5), w.complete) == (4, 2, True)
    with pytest.raises(ValueError, match="no full merge"):
        StepWindow.cycle(before=2, warm=1).counted(9)


def test_a_tree_takes_the_compaction_buffer_as_the_buffered_walk_prices_it() -> None:
    """B1 on a staged tree (SkewedTree.with_buffer, the file search's pick) is the tree priced
    with the buffer from the start; point_read is costs' without S8's what-if."""
    from wacky_model.skew import cache_blocks
    from wacky_model.types import Buffer

    system = System(entries=2**26, cache_bytes=64 << 20)
    workload = Workload(0.4, 0.1, 0.5, write_keys="zipf:0.9", read_keys="zipf:0.9",
                        update_fraction=0.5)
    design, plain = Design(6, 5, 1, 0, 0), Compaction(granularity="file", level1_runs=2)
    buffered = Compaction(granularity="file", level1_runs=2, buffer=Buffer())
    keys = skew_key_map(system, workload)
    [tree] = file_skew_trees([design], system, plain, workload, keys=keys)
    [fresh] = file_skew_trees([design], system, buffered, workload, keys=keys)
    blocks = cache_blocks(system)
    a, b = tree.with_buffer(Buffer().trim).costs(blocks), fresh.costs(blocks)
    for field, x in a.__dict__.items():
        np.testing.assert_allclose(x, getattr(b, field), rtol=1e-9, err_msg=field)
    assert tree.buffered is None and tree.with_buffer(0.8).buffered is not None
    assert tree.point_read(blocks) == tree.costs(blocks).point_read
