"""cost_models.partial (P1-P7 in docs/MODEL.md) and its RocksDB reading, wacky_model.rocksdb_model:
the derivations' consequences checked on the model's own paths, and bad input."""

from __future__ import annotations

import math

import pytest

from cost_models.partial import LeveledFiles, _dynamic_targets, _merge_cost, window_costs
from wacky_model.rocksdb_model import (
    DISK_OVERHEAD_BYTES,
    MEMTABLE_OVERHEAD_BYTES,
    leveled_costs,
    leveled_policy,
)
from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.types import Design, System

SYSTEM = System(entries=2e6, entry_bytes=128, buffer_bytes=1 << 20, bits_per_entry=5.0)


def test_one_file_moved_writes_itself_and_half_the_pushes_below() -> None:
    # P1: r = 10 -> the file and (10 - 1)/2 of it again, for a file small against its level.
    assert _merge_cost(1.0, 1e6, 1e7, 1.0) == pytest.approx(5.5, rel=1e-5)
    assert _merge_cost(100.0, 1_000.0, 0.0, 100.0) == 100.0  # an empty level below: the file
    assert _merge_cost(100.0, 1_000.0, 500.0, 100.0) == 100.0  # never less than the file
    # A file as large as its level spans all its keys: the whole level below but the newest
    # push ((r - 1) S_i), the whole-level merge.
    assert _merge_cost(1_000.0, 1_000.0, 10_000.0, 1_000.0) == pytest.approx(1_000.0 * 10)
    # Moving several files costs each file's share.
    assert _merge_cost(300.0, 1e6, 1e7, 100.0) == pytest.approx(3 * _merge_cost(100.0, 1e6, 1e7,
                                                                              100.0))


def test_static_levels_at_their_targets_cost_t_plus_one_over_two() -> None:
    """With small files, small flushes and a long window, the middle levels are at their targets
    and each entry that enters them costs (r + 1)/2 with r = T (P1, P2)."""
    T, F = 6.0, 1_000.0
    policy = LeveledFiles(T=T, flush_entries=F, file_entries=10.0, targets="static",
                          base_entries=50 * F, num_levels=4)
    w = window_costs(policy, preload=5e6, window=5e6)
    # r is taken at each level's mean over a batch (P1): a flush is 2% of Level 1.
    assert w.level_write_amp[1] == pytest.approx((T + 1) / 2, rel=0.03)
    assert w.level_write_amp[2] == pytest.approx((T + 1) / 2, rel=0.03)
    # Levels 1..3 sit at their targets less half a (tiny) file, plus a flush in the first.
    for i in range(3):
        assert w.level_entries[i] == pytest.approx(50 * F * T**i, rel=0.03)


def test_the_trigger_divides_the_first_levels_cost() -> None:
    """P3: k flushes merge into the base level together: k F + S_1 entries per k F."""
    F, base = 1_000.0, 20_000.0
    costs = {}
    for k in (1, 4):
        policy = LeveledFiles(T=4.0, flush_entries=F, file_entries=10.0, level0_runs=k,
                              targets="static", base_entries=base, num_levels=3)
        costs[k] = window_costs(policy, 1e6, 1e6)
        assert costs[k].level0_runs == pytest.approx((k - 1) / 2, abs=0.01)
    for k, w in costs.items():
        assert w.level_write_amp[0] == pytest.approx(1 + w.level_entries[0] / (k * F), rel=0.02)
    # The flush itself is written once more than the levels (RocksDB writes every flush).
    assert costs[1].write_amp == pytest.approx(1 + sum(costs[1].level_write_amp))


def test_files_as_large_as_the_level_empty_it() -> None:
    """P2: a file as large as twice the target drains the level completely."""
    policy = LeveledFiles(T=4.0, flush_entries=1_000.0, file_entries=2 * 8_000.0,
                          targets="static", base_entries=8_000.0, num_levels=3)
    w = window_costs(policy, 1e6, 1e6)
    small = window_costs(LeveledFiles(T=4.0, flush_entries=1_000.0, file_entries=10.0,
                                      targets="static", base_entries=8_000.0, num_levels=3),
                         1e6, 1e6)
    assert w.level_entries[0] < 0.6 * small.level_entries[0]


def test_a_level_spans_the_keys_only_while_and_where_it_holds_files() -> None:
    """P7: whole-level drains (files twice the target) move a level's every key, so a level
    that holds data spans all of them; drains of small files leave the upper levels part
    spanned, the last level (never drained) nearly all of it, never more than in use."""
    whole = window_costs(LeveledFiles(T=4.0, flush_entries=1_000.0, file_entries=1e8,
                                      targets="static", base_entries=8_000.0, num_levels=3),
                         1e6, 1e6)
    assert whole.level_coverage == pytest.approx(whole.level_in_use, rel=1e-12)
    files = window_costs(LeveledFiles(T=4.0, flush_entries=1_000.0, file_entries=2_000.0,
                                      targets="static", base_entries=8_000.0, num_levels=3),
                         1e6, 1e6)
    assert all(0.0 <= c <= u + 1e-12 for c, u in zip(files.level_coverage, files.level_in_use,
                                                       strict=True))
    assert 0.2 < files.level_coverage[0] < 0.9  # Level 1: a few files, drained one by one
    assert files.level_coverage[-1] > 0.99


def test_dynamic_targets_follow_the_largest_level() -> None:
    # Largest level 1e6 at the bottom of 4, T = 10, base 20,000: targets 1e4 is below the
    # base's floor 2,000..20,000? 1e6 / 10^2 = 1e4 within (2e3, 2e4]: Level 2 is the base.
    t = _dynamic_targets([0.0, 0.0, 5e3, 1e6], 10.0, 2e4)
    assert t[0] == 0 and t[1] == pytest.approx(2e4) and t[2] == pytest.approx(1e5)
    assert math.isinf(t[3])
    assert _dynamic_targets([0.0, 0.0], 10.0, 2e4)[-1] == math.inf  # empty: all to the bottom


def test_the_native_engines_targets_grow_levels_on_top() -> None:
    policy = LeveledFiles(T=4.0, flush_entries=1_000.0, file_entries=500.0, targets="wacky",
                          C=3.0, flush_writes=False)
    w = window_costs(policy, 2e5, 2e5)
    # Eq 10 at n = 4e5 entries, F = 1,000: log_4(400 * 3/4 / 4) + 1 -> 5 levels
    assert len(w.level_entries) == 5
    assert w.write_amp > 1 and w.level0_runs == 0


@pytest.mark.parametrize("kwargs, message", [
    (dict(targets="tiered"), "targets must be one of"),
    (dict(T=1.0), "T must be above 1"),
    (dict(level0_runs=0), r"level0_runs must be in \[1, 1000\]"),
    (dict(file_entries=0.5), "at least 1 entry"),
    (dict(base_entries=0.0), "base_entries > 0"),
])
def test_bad_rules_are_named(kwargs, message) -> None:
    base = dict(T=4.0, flush_entries=1_000.0, file_entries=100.0, base_entries=4_000.0)
    with pytest.raises(ValueError, match=message):
        LeveledFiles(**(base | kwargs))
    with pytest.raises(ValueError, match="at least one flush"):
        window_costs(LeveledFiles(**base), 0.0, 10.0)


def test_rocksdb_options_are_read_back_into_the_model() -> None:
    e = rocksdb_export(Design(10, 9, 1, 0, 0), SYSTEM, level0_trigger=4, file_bytes=1 << 19)
    p = leveled_policy(e)
    disk = 128 + DISK_OVERHEAD_BYTES + 5.0 / 8
    assert p.T == 10 and p.level0_runs == 4 and p.targets == "dynamic"
    assert p.file_entries == pytest.approx((1 << 19) / disk)
    assert p.flush_entries == pytest.approx((1 << 20) / (128 + MEMTABLE_OVERHEAD_BYTES))
    assert p.num_levels == int(e.option("num_levels")) - 1
    c = leveled_costs(e, 2e6, 2e6)
    # Zero-result reads: one filter per level-0 run and per level as far as its files span the
    # keys (P7); an entry of the preload pays all of it but the last level's.
    w = c.window
    assert w is not None
    p = c.zero_result_read / (w.level0_runs + sum(w.level_coverage))
    assert c.point_read == pytest.approx(1 + p * (w.level0_runs + sum(w.level_coverage[:-1])))
    with pytest.raises(ValueError, match="prices leveled compaction"):
        leveled_policy(rocksdb_export(Design(4, 3, 1, 1, 1), SYSTEM))
    with pytest.raises(ValueError, match="one multiplier"):
        leveled_policy(rocksdb_export(Design(4, 3, 1.5, 0, 0), SYSTEM))


@pytest.mark.parametrize("bad", [1024, 10**9, 2.5, True])
def test_file_bytes_is_checked_on_export(bad) -> None:
    with pytest.raises(ValueError, match="file_bytes must be a whole number of bytes from one "
                                         "block to Level 1's capacity"):
        rocksdb_export(Design(10, 9, 1, 0, 0), SYSTEM, file_bytes=bad)


@pytest.mark.parametrize("policy", [
    LeveledFiles(T=4.0, C=3.0, flush_entries=512.0, file_entries=512.0, targets="wacky",
                 flush_writes=False),
    LeveledFiles(T=10.0, flush_entries=6_000.0, file_entries=7_000.0, level0_runs=4,
                 targets="dynamic", base_entries=16_000.0, num_levels=3),
])
def test_a_settled_start_is_where_an_empty_tree_goes(policy) -> None:
    """P5: starting the window at settled_sizes gives the window that growing the preload from
    an empty tree gives (the search prices from the settled tree to skip the preload)."""
    preload = 400 * policy.flush_entries
    grown = window_costs(policy, preload, preload)
    settled = window_costs(policy, preload, preload, settled=True)
    assert settled.write_amp == pytest.approx(grown.write_amp, rel=0.02)
    assert len(settled.level_entries) == len(grown.level_entries)
