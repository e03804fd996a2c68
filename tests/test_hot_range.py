"""A hot key range (``hotrange:H:P``, docs/MODEL.md S5r): the distribution's input and
refusals, the driver's contiguous hot keys, and the model's blocks that are all hot or all
cold."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from cost_models.skew import (
    SkewedWorkload,
    _live_count_pmf,
    _range_block_rates,
    key_map,
)
from validation import generators
from validation.native import SkewSession
from wacky_model.compat import KEY_REFUSALS
from wacky_model.skew import file_skew_costs, skew_costs, skew_tree, skewed_workload
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload

N = 50_000
SYSTEM = System(entries=N, entry_bytes=128, block_bytes=4096, buffer_bytes=32 << 10,
                bits_per_entry=5.0)
LEVELING = Design(T=10, C=9, X=1, K=0, Z=0)
FILES = Compaction(granularity="file", level1_runs=1)


def _reads(spec: str, u: float = 0.5, **kw) -> Workload:
    return Workload(point_reads=0.5, writes=0.5, read_keys=spec, update_fraction=u, **kw)


def _cache(spec: str, ranges: float) -> System:
    """SYSTEM with a cache of ``ranges`` times the hot keys' bytes."""
    hot = KeyDistribution.parse(spec).hot_count(N)
    return replace(SYSTEM, cache_bytes=int(ranges * hot * SYSTEM.entry_bytes))


# ---- the distribution -----------------------------------------------------------------------


def test_parse_round_trips_and_is_a_clustered_hot_set() -> None:
    for spec in ("hotrange:0.02:0.98", "hotrange:0.1:0.9", "hotrange:0.1:1", "hotrange:0.1:0"):
        d = KeyDistribution.parse(spec)
        assert d.spec == spec and KeyDistribution.parse(d.spec) == d
    d = KeyDistribution.parse(" HOTRANGE:0.1:0.9 ")
    assert (d.kind, d.hot_keys, d.hot_share) == ("hotrange", 0.1, 0.9)
    assert d.clustered and not d.is_uniform and d.hot_count(1000) == 100
    assert KeyDistribution.parse("hotrange:0.3:0.3").is_uniform  # every key alike: no range
    assert not KeyDistribution.parse("hotrange:0.3:0.3").clustered
    assert not KeyDistribution.parse("hotset:0.1:0.9").clustered
    w = _reads("hotrange:0.02:0.98")
    assert w.skewed and w.to_dict()["read_keys"] == "hotrange:0.02:0.98"
    assert Workload(**w.to_dict()) == w


@pytest.mark.parametrize("text, match", [
    ("hotrange:0:0.9", r"hotrange h must be in \(0, 1\) \(exclusive\); got 0"),
    ("hotrange:1:0.9", r"hotrange h must be in \(0, 1\)"),
    ("hotrange:-0.1:0.9", r"hotrange h must be in \(0, 1\)"),
    ("hotrange:0.1:1.2", r"hotrange p must be in \[0, 1\]; got 1.2"),
    ("hotrange:0.1:-0.1", r"hotrange p must be in \[0, 1\]"),
    ("hotrange:0.1", r"'hotrange:0.1' is not of the form hotrange:H:P"),
    ("hotrange:x:0.9", r"x:0.9 is not a number"),
    ("hotrange:0.1:nan", r"hot_share must be a finite number"),
    ("pareto", r"use uniform, zipf:THETA, hotset:H:P or latest \(for reads also hotrange:H:P\)"),
])
def test_bad_input_names_the_field(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        KeyDistribution.parse(text)
    with pytest.raises(ValueError, match="read_keys: .*" + match):
        _reads(text)


def test_hot_range_writes_and_correlated_skewed_writes_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match=r"write_keys: 'hotrange:0.1:0.9' as a write "
                                         r"distribution is not supported: .*S2f.*not priced"):
        Workload(point_reads=0.5, writes=0.5, write_keys="hotrange:0.1:0.9")
    with pytest.raises(ValueError, match=r"read_keys: 'hotrange:0.1:0.9' with skewed writes "
                                         r"and correlated=True is not supported.*correlated=Fa"):
        _reads("hotrange:0.1:0.9", write_keys="zipf:0.9")
    # Uncorrelated with skewed writes, or correlated with uniform writes: taken.
    assert _reads("hotrange:0.1:0.9", write_keys="zipf:0.9", correlated=False).read_keys.clustered
    assert _reads("hotrange:0.1:0.9", write_keys="latest", correlated=False).skewed
    assert _reads("hotrange:0.1:0.9", correlated=True).correlated
    for r in KEY_REFUSALS:
        assert r.field in ("write_keys", "read_keys") and len(r.reason) > 20
    # The math layer refuses the same, for callers that build its workload directly.
    hot = KeyDistribution.parse("hotrange:0.1:0.9")
    with pytest.raises(ValueError, match="reads only"):
        key_map(N, SkewedWorkload(hot, KeyDistribution(), 0.5))
    with pytest.raises(ValueError, match="correlated=False"):
        key_map(N, SkewedWorkload(KeyDistribution("zipf", theta=0.9), hot, 0.5))


# ---- the driver -----------------------------------------------------------------------------


def test_hot_range_keys_are_consecutive_loaded_keys_from_a_seeded_start() -> None:
    loaded = generators.load_trace(10_000, entry_bytes=128, seed=1).keys
    order = generators.hot_range_keys(loaded, 200, np.random.default_rng(5))
    assert np.array_equal(np.sort(order), np.sort(loaded))  # a permutation of the loaded keys
    keys = np.sort(loaded)
    start = int(np.searchsorted(keys, order[0]))
    assert np.array_equal(order[:200], keys[start:start + 200])
    again = generators.hot_range_keys(loaded, 200, np.random.default_rng(5))
    assert np.array_equal(order, again)
    starts = {int(np.searchsorted(keys, generators.hot_range_keys(
        loaded, 200, np.random.default_rng(s))[0])) for s in range(8)}
    assert len(starts) > 1  # the start is drawn, not fixed
    with pytest.raises(ValueError, match="hot must be in"):
        generators.hot_range_keys(loaded, 0, np.random.default_rng(0))


@pytest.mark.parametrize("spec", ["hotrange:0.02:0.98", "hotrange:0.1:0.9", "hotrange:0.1:1"])
def test_the_driver_reads_the_range_with_its_share(spec: str) -> None:
    """SkewSession's reads: a share P of them inside one stretch of H n consecutive loaded
    keys, every one of them a loaded key; the writes stay uniform."""
    n = 20_000
    loaded = generators.load_trace(n, entry_bytes=128, seed=3).keys
    d = KeyDistribution.parse(spec)
    s = SkewSession(None, loaded, skewed_workload(_reads(spec)), np.random.default_rng(7),
                    10_000, F=512)
    reads = s.read_keys(50_000)
    hot = np.sort(s.read_rank_keys[:d.hot_count(n)])
    keys = np.sort(loaded)
    lo = int(np.searchsorted(keys, hot[0]))
    assert np.array_equal(hot, keys[lo:lo + hot.size])  # contiguous in key order
    inside = (reads >= hot[0]) & (reads <= hot[-1])
    assert inside.mean() == pytest.approx(d.hot_share, abs=0.01)
    assert np.isin(reads, loaded).all()


# ---- the model (S5r) ------------------------------------------------------------------------


def test_the_live_count_is_binomial() -> None:
    for B, f in ((32, 0.3), (32, 1.0), (32, 0.0), (1, 0.5), (512, 0.9)):
        pmf = _live_count_pmf(B, f)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
        assert pmf @ np.arange(B + 1) == pytest.approx(B * f, rel=1e-12, abs=1e-12)


def test_a_level_s_blocks_are_hot_in_the_range_s_share_at_its_mean_rate() -> None:
    """S5r per level: a share h of the blocks hold hot keys only, each reading at j times a hot
    key's rate (j live of B); the level's mean block rate is S5's exactly (the same keys read
    at the same rates, B / E of them a block)."""
    spec = "hotrange:0.1:0.9"
    tree = skew_tree(LEVELING, SYSTEM, _reads(spec), history_writes=N)
    B = SYSTEM.entries_per_block
    rates, shares = _range_block_rates(tree.levels, tree.place, tree.pop_count, tree.pop_rate,
                                       B, tree.reads_per_write)
    hot = KeyDistribution.parse(spec).hot_count(N)
    r_hot, r_cold = 0.9 / hot, 0.1 / (N - hot)
    j = np.arange(B + 1)
    for i, lev in enumerate(tree.levels):
        live = tree.place[i + 1] * tree.pop_count
        if live.sum() <= 0:
            continue
        # Two stretches (hot, cold), each B + 1 live counts: the hot one a share h of blocks.
        per_class = rates[i].reshape(2, B + 1) / tree.reads_per_write
        order = np.argsort(-per_class[:, 1])
        assert per_class[order] == pytest.approx(np.outer([r_hot, r_cold], j), rel=1e-9)
        assert shares[i].reshape(2, B + 1).sum(axis=1)[order] == pytest.approx([0.1, 0.9],
                                                                              rel=1e-9)
        mean = tree.reads_per_write * np.sum(live * tree.pop_rate[i + 1]) * B / max(
            lev.entries, live.sum())
        assert shares[i] @ rates[i] == pytest.approx(mean, rel=1e-9)


@pytest.mark.parametrize("spec", ["hotrange:0.02:0.98", "hotrange:0.1:0.9"])
@pytest.mark.parametrize("files", [False, True])
def test_only_the_cache_sees_the_range(spec: str, files: bool) -> None:
    """S1-S4 are the scattered hot set's (where a key sits says nothing about its age), and so
    is every cost without a cache; with a cache that holds the range, its hit rate is far
    above the scattered set's, and it rises with the cache."""
    costs = {}
    for kind in ("hotrange", "hotset"):
        for ranges in (0.0, 0.5, 1.5):
            w = _reads(spec.replace("hotrange", kind))
            system = _cache(spec, ranges)
            costs[kind, ranges] = (file_skew_costs(LEVELING, system, FILES, w, history_writes=N)
                                   if files else skew_costs(LEVELING, system, w))
    a, b = costs["hotrange", 0.0], costs["hotset", 0.0]
    assert a == b
    near, far = costs["hotrange", 1.5], costs["hotset", 1.5]
    assert near.read_level_share == far.read_level_share and near.write_amp == far.write_amp
    assert near.false_positives == far.false_positives
    assert near.cache_hit_rate > far.cache_hit_rate + 0.3
    assert costs["hotrange", 1.5].cache_hit_rate > costs["hotrange", 0.5].cache_hit_rate > 0.1
    assert near.point_read < far.point_read


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_a_range_read_always_or_never_prices(share: float) -> None:
    spec = f"hotrange:0.1:{share:g}"
    c = skew_costs(LEVELING, _cache(spec, 1.5), _reads(spec))
    assert 0.0 <= c.cache_hit_rate <= 1.0 and np.isfinite(c.point_read)
    if share == 1.0:
        assert c.cache_hit_rate > 0.5  # the cold keys are never read, the range is cached


def test_uncorrelated_reads_under_skewed_and_latest_writes_price() -> None:
    for writes in ("zipf:0.9", "latest"):
        w = _reads("hotrange:0.1:0.9", write_keys=writes, correlated=False)
        c = file_skew_costs(LEVELING, _cache("hotrange:0.1:0.9", 1.5), FILES, w,
                            history_writes=N)
        assert 0.3 < c.cache_hit_rate <= 1.0


@pytest.mark.parametrize("u", [0.5, 1.0])
def test_the_hit_rate_rises_with_the_cache_without_warnings(u: float) -> None:
    """At the benchmark's size (benchmarks/check_hot_range.py): with u = 1 most of a deep
    level's entries are older versions, so a hot block's live count is small and its pmf at B
    underflows; those terms must not become blocks read at rate 0."""
    n = 200_000
    system = System(entries=n, entry_bytes=128, block_bytes=4096, buffer_bytes=64 << 10,
                    bits_per_entry=5.0)
    spec = "hotrange:0.02:0.98"
    hot = KeyDistribution.parse(spec).hot_count(n)
    rates = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for ranges in (0.5, 1.0, 1.5, 3.0):
            s = replace(system, cache_bytes=int(ranges * hot * 128))
            rates.append(file_skew_costs(LEVELING, s, FILES, _reads(spec, u),
                                         history_writes=n * 0.75).cache_hit_rate)
    assert all(a < b for a, b in zip(rates, rates[1:], strict=False)), rates
    assert 0.2 < rates[0] < 0.5 and rates[-1] > 0.9


def test_the_search_s_floor_still_bounds_a_range_s_reads() -> None:
    """A cache of C blocks holds at most C B keys' newest versions, clustered or not, so the
    skew search's floor (KeyMap.hottest_read_share) stays below S5r's read cost."""
    from wacky_model.skew import cache_blocks, skew_key_map

    for ranges in (0.5, 1.5, 5.0):
        system = _cache("hotrange:0.02:0.98", ranges)
        w = _reads("hotrange:0.02:0.98")
        blocks = cache_blocks(system)
        share = skew_key_map(system, w).hottest_read_share(blocks * system.entries_per_block)
        tree = skew_tree(LEVELING, system, w)
        assert tree.costs(blocks).point_read >= tree.point_read_bound(share) * (1 - 1e-12)
