"""The skew model (cost_models.skew, S1-S7) on its own terms, and against the native engine.

Model-only checks compare each piece with a direct computation it does not share code with
(sampled distinct counts, a simulated LRU); the engine checks run the skewed steady window at a
small scale with the issue's targets: write amplification within 15%, the overall hit rate
within 0.05, existing-key read I/O within 15% or 0.02.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import replace

import numpy as np
import pytest

from cost_models.skew import (
    SkewedWorkload,
    _hit,
    bins_for,
    key_probabilities,
    skewed_costs,
    unique_writes,
    writes_for_unique,
)
from tests.lru import touch
from validation import generators
from validation.runner import validate
from validation.scale import Scale
from wacky_model.analysis import analyze
from wacky_model.search import recommend
from wacky_model.skew import needs_skew_model, skew_costs
from wacky_model.skew_search import skew_theta
from wacky_model.types import Design, KeyDistribution, System, Workload

DISTS = ["uniform", "zipf:0.6", "zipf:0.99", "zipf:1.3", "hotset:0.1:0.9"]


@pytest.mark.parametrize("spec", DISTS)
@pytest.mark.parametrize("u", [0.5, 1.0])
def test_unique_writes_match_sampled_distinct_counts(spec: str, u: float) -> None:
    n = 20_000
    d = KeyDistribution.parse(spec)
    bins = bins_for(n, d)
    q = key_probabilities(d, bins, n)
    sampler = generators.rank_sampler(d, n)
    for w in (500, 5_000, 50_000):
        # The mean distinct count of 8 independent streams (one stream's sd is ~3% at w=500).
        seen = []
        for seed in range(8):
            rng = np.random.default_rng([5, seed])
            updates = rng.random(w) < u
            ranks = sampler.draw(rng, int(updates.sum()))
            seen.append(np.unique(ranks).size + int((~updates).sum()))
        model = float(unique_writes(w, u, q, bins.count))
        assert model == pytest.approx(np.mean(seen), rel=0.025), (spec, u, w)
        assert writes_for_unique(model, u, q, bins.count) == pytest.approx(w, rel=1e-6)


def test_unique_writes_of_updates_alone_saturate_at_the_population() -> None:
    n = 1000
    d = KeyDistribution()
    bins = bins_for(n, d)
    q = key_probabilities(d, bins, n)
    assert float(unique_writes(1e9, 1.0, q, bins.count)) == pytest.approx(n)
    assert math.isinf(writes_for_unique(n, 1.0, q, bins.count))


def _lru_hit_rate(block_rates: np.ndarray, capacity: int, requests: int, seed: int) -> float:
    """A direct LRU simulation over blocks requested i.i.d. by ``block_rates``."""
    rng = np.random.default_rng(seed)
    p = block_rates / block_rates.sum()
    stream = rng.choice(p.size, size=requests, p=p)
    cache: OrderedDict[int, None] = OrderedDict()
    hits = 0  # counted after a warm-up of the first quarter
    for i, b in enumerate(stream.tolist()):
        hits += touch(cache, b, capacity) and i >= requests // 4
    return hits / (requests - requests // 4)


@pytest.mark.parametrize("theta", [0.6, 0.99, 1.3])
def test_che_approximation_matches_a_simulated_lru_without_invalidation(theta: float) -> None:
    blocks, capacity = 5_000, 250
    rates = np.arange(1, blocks + 1, dtype=float) ** -theta
    rates /= rates.sum()

    def occupancy(t: float) -> float:
        return float(_hit(rates, np.array([math.inf]), t).sum())

    lo, hi = 1e-3, 1e9
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if occupancy(mid) < capacity else (lo, mid)
    model = float(np.sum(rates * _hit(rates, np.array([math.inf]), lo)))
    assert model == pytest.approx(_lru_hit_rate(rates, capacity, 200_000, 1), abs=0.02)


def test_invalidation_lowers_the_hit_rate_and_shorter_lives_lower_it_more() -> None:
    lam = np.array([0.01, 0.1, 1.0])
    forever = _hit(lam, np.array([math.inf]), 100.0)
    long = _hit(lam, np.array([1000.0]), 100.0)
    short = _hit(lam, np.array([50.0]), 100.0)
    assert np.all(short < long) and np.all(long < forever + 1e-12)
    # With no cache limit (t_C infinite) a block misses once per life: 1 - (1 - e^-x) / x.
    x = lam * 1000.0
    np.testing.assert_allclose(_hit(lam, np.array([1000.0]), math.inf), 1 - (-np.expm1(-x)) / x)


def test_uniform_keys_without_a_cache_leave_today_s_costs_exactly() -> None:
    system = System(entries=2e6, buffer_bytes=1 << 20, bits_per_entry=10)
    plain = Workload(0.5, 0.1, 0.4)
    spelled = Workload(0.5, 0.1, 0.4, write_keys="uniform", read_keys="zipf:0",
                       update_fraction=0.0, correlated=False)
    assert not needs_skew_model(spelled, system)
    design = Design(10, 9, 1, 0, 0)
    assert replace(analyze(design, system, spelled), workload=plain) == analyze(
        design, system, plain)
    a, b = recommend(plain, system), recommend(spelled, system)
    assert a.skew is None and b.skew is None
    assert a.design == b.design and a.cost == b.cost


def test_a_cache_or_skew_switches_the_skew_model_on() -> None:
    system = System(entries=2e6, buffer_bytes=1 << 20, bits_per_entry=10)
    assert needs_skew_model(Workload(0.5, 0, 0.5, read_keys="zipf:0.9"), system)
    assert needs_skew_model(Workload(0.5, 0, 0.5, update_fraction=0.2), system)
    assert needs_skew_model(None, System(entries=2e6, bits_per_entry=10, cache_bytes=4096))


def test_more_skew_and_more_cache_mean_more_hits_and_fewer_reads() -> None:
    system = System(entries=1e6, buffer_bytes=1 << 20, bits_per_entry=10, cache_bytes=1 << 23)
    design = Design(10, 9, 1, 0, 0)
    rates = []
    for theta in (0.3, 0.8, 1.2):
        w = Workload(0.5, 0, 0.5, write_keys=f"zipf:{theta}", read_keys=f"zipf:{theta}",
                     update_fraction=1.0)
        rates.append(skew_costs(design, system, w))
    assert rates[0].cache_hit_rate < rates[1].cache_hit_rate < rates[2].cache_hit_rate
    assert rates[0].point_read > rates[1].point_read > rates[2].point_read
    # Updates of hot keys are absorbed: more skew, less write amplification.
    assert rates[0].write_amp > rates[1].write_amp > rates[2].write_amp
    w = Workload(0.5, 0, 0.5, write_keys="zipf:0.9", read_keys="zipf:0.9", update_fraction=1.0)
    small = skew_costs(design, System(entries=1e6, buffer_bytes=1 << 20, bits_per_entry=10,
                                      cache_bytes=1 << 20), w)
    big = skew_costs(design, system, w)
    assert small.cache_hit_rate < big.cache_hit_rate


def test_faster_compaction_lowers_the_hit_rate_more_for_greedier_policies() -> None:
    """The effect the LSbM paper describes: more writes per read shorten cached blocks' lives;
    leveling rewrites its levels more often than tiering, so it loses more."""
    system = System(entries=1e6, buffer_bytes=1 << 20, bits_per_entry=10, cache_bytes=1 << 23)

    def hit(design: Design, writes: float) -> float:
        w = Workload(1 - writes, 0, writes, write_keys="zipf:0.9", read_keys="zipf:0.9",
                     update_fraction=1.0)
        return skew_costs(design, system, w).cache_hit_rate

    leveling, tiering = Design(4, 3, 1, 0, 0), Design(4, 3, 1, 1, 1)
    drop_leveling = hit(leveling, 0.05) - hit(leveling, 0.8)
    drop_tiering = hit(tiering, 0.05) - hit(tiering, 0.8)
    assert drop_leveling > 0 and drop_tiering > 0
    assert drop_leveling > drop_tiering


def test_a_cache_larger_than_the_data_with_no_writes_is_all_hits() -> None:
    c = skewed_costs(10, 9, 1, 0, 0, entries=100_000, buffer_entries=1024,
                     entries_per_block=32, bits_per_entry=10,
                     workload=SkewedWorkload(KeyDistribution(), KeyDistribution(),
                                              reads_per_write=1e12), cache_blocks=10**9)
    assert math.isinf(c.characteristic_time_writes)
    assert c.cache_hit_rate > 0.98
    assert c.point_read < 0.02


def test_the_skew_search_pick_is_no_worse_than_the_uniform_pick_under_skew() -> None:
    system = System(entries=1e6, buffer_bytes=1 << 20, bits_per_entry=10, cache_bytes=1 << 24)
    w = Workload(0.7, 0.0, 0.3, write_keys="zipf:0.99", read_keys="zipf:0.99",
                 update_fraction=1.0)
    rec = recommend(w, system)
    assert rec.skew is not None
    assert rec.cost <= rec.skew.uniform_pick_theta + 1e-12
    assert rec.cost == pytest.approx(skew_theta(rec.design, rec.system, w).theta)
    assert rec.to_dict()["skew"]["uniform_pick_theta"] == rec.skew.uniform_pick_theta


SMALL = Scale(entries=50_000, buffer_bytes=32 << 10, reads=1000)
ENGINE_CASES = [
    ("leveling", Design(4, 3, 1, 0, 0), "zipf:0.9"),
    ("leveling", Design(4, 3, 1, 0, 0), "hotset:0.1:0.9"),
    ("tiering", Design(4, 3, 1, 1, 1), "zipf:0.9"),
    ("lazy leveling", Design(4, 3, 1, 1, 0), "zipf:1.2"),
]


@pytest.mark.parametrize(("name", "design", "spec"), ENGINE_CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in ENGINE_CASES])
def test_skew_model_predicts_the_engine_at_small_scale(name: str, design: Design,
                                                       spec: str, tmp_path) -> None:
    w = Workload(0.5, 0.0, 0.5, write_keys=spec, read_keys=spec, update_fraction=1.0)
    r = validate(design, workload=w, scale=SMALL, bits_per_entry=10,
                 cache_bytes=SMALL.entries * SMALL.entry_bytes // 20, workdir=tmp_path)
    p, m = r.predicted, r.measured
    assert r.model == "skew" and not r.checks.any
    assert p.write_amp == pytest.approx(m.write_amp, rel=0.15)
    assert abs(p.cache_hit_rate - m.cache_hit_rate) <= 0.05
    assert abs(p.point_read_uniform - m.point_read_uniform) <= max(
        0.15 * m.point_read_uniform, 0.02)
    doc = r.to_dict()
    assert len(doc["measured"]["cache_hit_rate_per_level"]) >= 3
    assert doc["skew"]["invalidated_blocks"] > 0  # merges dropped cached blocks


def test_validation_refuses_skew_without_reads_or_writes(tmp_path) -> None:
    w = Workload(1.0, 0.0, 0.0, read_keys="zipf:0.9")
    with pytest.raises(ValueError, match="writes > 0 and point_reads > 0"):
        validate(Design(4, 3, 1, 0, 0), workload=w, scale=SMALL, workdir=tmp_path)


def test_skew_aware_filters_never_cost_the_reads_they_serve_more() -> None:
    """S8: filters allocated for the probes skewed reads make (the weighted Lagrangian) cost those
    reads no more than App. C's at the same memory; with zero-result reads only, the weights are
    uniform and the allocation is App. C's."""
    system = System(entries=2e6, buffer_bytes=1 << 20, bits_per_entry=5, cache_bytes=1 << 24)
    for design in (Design(10, 9, 1, 0, 0), Design(4, 3, 1, 1, 1)):
        w = Workload(0.5, 0.0, 0.5, write_keys="zipf:0.99", read_keys="zipf:0.99",
                     update_fraction=1.0)
        c = skew_costs(design, system, w)
        assert c.weighted_point_read <= c.point_read + 1e-9
        zero_only = skew_costs(design, system, Workload(0.0, 0.5, 0.5, update_fraction=1.0))
        assert all(x == pytest.approx(1.0) for x in zero_only.probe_weights)
        assert zero_only.weighted_zero_result_read == pytest.approx(zero_only.zero_result_read,
                                                                     rel=1e-9)


@pytest.mark.parametrize("writes", ["uniform", "zipf:0.9"])
def test_latest_reads_are_predicted_at_small_scale(writes: str, tmp_path) -> None:
    """YCSB-D's reads of recent writes: inserts sit where their age puts them; an update's key
    is read u q_k of the time and lives where its newest write does (S3)."""
    w = Workload(0.5, 0.0, 0.5, write_keys=writes, read_keys="latest", update_fraction=0.5)
    r = validate(Design(4, 3, 1, 0, 0), workload=w, scale=SMALL, bits_per_entry=10,
                 cache_bytes=SMALL.entries * SMALL.entry_bytes // 20, workdir=tmp_path)
    p, m = r.predicted, r.measured
    assert not r.checks.any
    assert abs(p.cache_hit_rate - m.cache_hit_rate) <= 0.05
    assert abs(p.point_read_uniform - m.point_read_uniform) <= max(
        0.15 * m.point_read_uniform, 0.02)
