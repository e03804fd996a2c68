"""Latest writes (YCSB's ``latest`` for updates, docs/MODEL.md S1l): the workload accepts them,
the validation driver draws them, the skew model prices them.

Model checks compare with a computation they do not share code with (sampled streams of the
driver's generator, the model's own limits u = 1 and u = 0, a fine trapezoid); the engine check
runs the skewed steady window at a small scale with the skew model's targets.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import integrate

from cost_models.skew import (
    SkewedCosts,
    SkewedWorkload,
    bins_for,
    checked_key_map,
    key_map,
    key_probabilities,
    mean_unique,
    unique_writes,
    writes_for_mean_unique,
)
from validation import generators
from validation.native import SkewSession
from validation.runner import validate
from validation.scale import Scale
from wacky_model.skew import skew_costs, skewed_workload
from wacky_model.types import Design, KeyDistribution, System, Workload

LATEST = KeyDistribution.parse("latest")  # theta 0.99, YCSB's
UNIFORM = KeyDistribution()
SYSTEM = System(entries=200_000, entry_bytes=128, block_bytes=4096, buffer_bytes=64 << 10,
                bits_per_entry=5.0, cache_bytes=int(0.15 * 200_000 * 128))
DESIGNS = [Design(10, 9, 1, 0, 0), Design(4, 3, 1, 1, 1)]


@pytest.mark.parametrize("u", [0.5, 0.9])
def test_latest_unique_writes_match_sampled_distinct_counts(u: float) -> None:
    """S1l's D(w) against the mean distinct count of streams drawn as the driver draws them
    (every update over the keys inserted before it, the population growing)."""
    n = 20_000
    keys = key_map(n, SkewedWorkload(LATEST, UNIFORM, u))
    sampler = generators.recency_sampler(LATEST, n + 60_000)
    for w in (500, 5_000, 50_000):
        seen = []
        for seed in range(8):
            rng = np.random.default_rng([5, seed])
            is_update = rng.random(w) < u
            seen.append(np.unique(generators.latest_write_keys(rng, sampler, is_update,
                                                               n)).size)
        model = float(keys.unique(w))
        assert model == pytest.approx(np.mean(seen), rel=0.025), (u, w)
        assert float(keys.writes_for(model)) == pytest.approx(w, rel=1e-6)


def test_latest_writes_without_inserts_are_zipf_over_the_load_order() -> None:
    """u = 1: ranks never move, so S1l is S1 with the Zipf q, and in the steady state (no load
    order left to matter) every cost is the Zipf writes' whatever the reads."""
    n = 20_000
    zipf = KeyDistribution("zipf", theta=LATEST.theta)
    bins = bins_for(n, zipf)
    q = key_probabilities(zipf, bins, n)
    keys = key_map(n, SkewedWorkload(LATEST, UNIFORM, 1.0))
    w = np.array([10.0, 500.0, 5e4, 1e7])
    assert keys.unique(w) == pytest.approx(unique_writes(w, 1.0, q, bins.count), rel=1e-12)
    assert math.isinf(float(keys.writes_for(float(n))))
    for design in DESIGNS:
        for reads in ("uniform", "zipf:0.99", "latest"):
            a = skew_costs(design, SYSTEM, Workload(0.5, 0.0, 0.5, write_keys="latest",
                                                   read_keys=reads, update_fraction=1.0))
            b = skew_costs(design, SYSTEM, Workload(0.5, 0.0, 0.5, write_keys="zipf:0.99",
                                                   read_keys=reads, update_fraction=1.0))
            for name in ("write_amp", "point_read", "cache_hit_rate", "read_buffer_share"):
                assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9), (
                    design, reads, name)


@pytest.mark.parametrize("history", [math.inf, 150_000.0])
def test_latest_writes_without_updates_are_inserts(history: float) -> None:
    """u = 0: every write inserts, so D(w) = w and uniform reads cost what they cost under
    uniform writes; correlated Zipf reads (of the r-th most recent insert) are then reads of
    the r-th most recent write, ``latest`` reads, to within the two S3 paths' binning."""
    keys = key_map(20_000, SkewedWorkload(LATEST, UNIFORM, 0.0))
    w = np.array([1.0, 300.0, 1e6])
    assert keys.unique(w) == pytest.approx(w, rel=1e-12)
    def costs(design: Design, writes: str, reads: str) -> SkewedCosts:
        return skew_costs(design, SYSTEM, Workload(
            0.5, 0.0, 0.5, write_keys=writes, read_keys=reads, update_fraction=0.0),
            history_writes=history)

    for design in DESIGNS:
        a, b = costs(design, "latest", "uniform"), costs(design, "uniform", "uniform")
        for name in ("write_amp", "point_read", "cache_hit_rate"):
            assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9), name
        c, d = costs(design, "latest", "zipf:0.99"), costs(design, "latest", "latest")
        assert c.read_level_share == pytest.approx(d.read_level_share, abs=2e-3)
        assert c.point_read == pytest.approx(d.point_read, abs=2e-3)
        assert c.cache_hit_rate == pytest.approx(d.cache_hit_rate, abs=2e-3)


def test_latest_updates_absorb_more_than_a_static_zipf() -> None:
    """The hot ranks are the newest keys, often inserted within the span itself, so their
    updates add no distinct key: a span of latest writes holds fewer distinct keys than one of
    a static Zipf over the same ranks (the engine's write amplification agrees,
    benchmarks/check_latest_writes.py), and more than its inserts alone."""
    n = 200_000
    for u in (0.5, 0.9):
        latest = key_map(n, SkewedWorkload(LATEST, UNIFORM, u))
        static = key_map(n, SkewedWorkload(KeyDistribution("zipf", theta=0.99), UNIFORM, u))
        w = np.array([1e3, 1e4, 1e5])
        assert np.all(latest.unique(w) < static.unique(w))
        assert np.all(latest.unique(w) > (1.0 - u) * w)


def test_latest_mean_unique_is_the_mean_of_unique() -> None:
    """S2f's mean of D over [0, p] under latest writes (a table and Simpson's rule) against
    Simpson's rule of D on a fine grid of its own, and its inverse."""
    keys = key_map(50_000, SkewedWorkload(LATEST, UNIFORM, 0.7))
    p = np.array([50.0, 3e3, 2e5, 1e8])
    means = mean_unique(p, keys)
    for pi, got in zip(p, means, strict=True):
        x = np.geomspace(1e-9 * pi, pi, 4_001)
        d = keys.unique(x)
        want = (integrate.simpson(d, x=x) + 0.5 * x[0] * d[0]) / pi
        assert got == pytest.approx(want, rel=1e-5), pi
    assert writes_for_mean_unique(means, keys) == pytest.approx(p, rel=1e-9)


def test_a_latest_key_map_serves_its_history_only() -> None:
    """S1l's Zipf is over the keys present after the history's inserts: a map built for one
    history does not price another."""
    wl = SkewedWorkload(LATEST, UNIFORM, 0.5)
    keys = key_map(20_000, wl)
    assert checked_key_map(20_000, wl, keys) is keys
    later = replace(wl, history_writes=10_000.0)
    assert key_map(20_000, later).latest.keys == pytest.approx(25_000.0)
    with pytest.raises(ValueError, match="another population or workload"):
        checked_key_map(20_000, later, keys)


def test_the_driver_updates_recent_inserts() -> None:
    """SkewSession under latest writes: inserts are the fresh keys in order, each update the
    key of the r-th most recent insert before it (the chunk's own inserts included), r Zipf
    over those keys; correlated Zipf reads read recent inserts, uniform reads the loaded
    keys."""
    n, u = 5_000, 0.5
    loaded = generators.load_trace(n, entry_bytes=128, seed=3).keys
    for reads in ("zipf:0.99", "uniform"):
        w = Workload(0.5, 0.0, 0.5, write_keys="latest", read_keys=reads, update_fraction=u)
        s = SkewSession(None, loaded, skewed_workload(w), np.random.default_rng(7), 20_000,
                        F=512)
        keys = np.concatenate([s.draw() for _ in range(100)])
        assert np.array_equal(s.by_insertion[:n], loaded)  # the load's order
        where = {int(k): i for i, k in enumerate(s.by_insertion.tolist())}
        count, recency, population = n, [], []
        for i in (where[int(k)] for k in keys.tolist()):
            if i == count:  # an insert takes the next fresh key
                count += 1
            else:
                assert i < count  # an update takes a key inserted before it
                recency.append(count - 1 - i)
                population.append(count)
        assert count == n + s.used_fresh
        assert len(recency) / keys.size == pytest.approx(u, abs=0.03)
        # The newest key's share of the updates is Zipf's, 1 / zeta(population), on average.
        zeta = np.cumsum(np.arange(1, count + 1) ** -0.99)
        want = np.mean(1.0 / zeta[np.array(population) - 1])
        got = np.mean(np.array(recency) == 0)
        assert got == pytest.approx(want, abs=4 * math.sqrt(want / len(recency)))
        at = np.array([where[int(k)] for k in s.read_keys(4_000).tolist()])
        if reads == "uniform":
            assert at.max() < n  # the loaded keys
        else:
            assert np.median(count - 1 - at) < 100  # the newest keys, Zipf-ranked


SMALL = Scale(entries=50_000, buffer_bytes=32 << 10, reads=1000)


@pytest.mark.parametrize("reads", ["latest", "zipf:0.99"])
def test_latest_writes_are_predicted_at_small_scale(reads: str, tmp_path) -> None:
    """The engine under YCSB's latest updates (half the writes), against the skew model: write
    amplification within 15%, the hit rate within 0.05, read I/O within 15% or 0.02."""
    w = Workload(0.5, 0.0, 0.5, write_keys="latest", read_keys=reads, update_fraction=0.5)
    r = validate(Design(4, 3, 1, 0, 0), workload=w, scale=SMALL, bits_per_entry=10,
                 cache_bytes=SMALL.entries * SMALL.entry_bytes // 20, workdir=tmp_path)
    p, m = r.predicted, r.measured
    assert r.model == "skew" and not r.checks.any
    assert p.write_amp == pytest.approx(m.write_amp, rel=0.15)
    assert abs(p.cache_hit_rate - m.cache_hit_rate) <= 0.05
    assert abs(p.point_read_uniform - m.point_read_uniform) <= max(
        0.15 * m.point_read_uniform, 0.02)


@pytest.mark.parametrize("history", [20_000.0, math.inf])
def test_latest_reads_keep_the_rows_every_history_shares(history: float) -> None:
    # S3's latest reads under latest writes: a read bin whose writes all came after the load has
    # H = inf's row at every such H, so _touched keeps those rows and computes the others again.
    # At every H, before the read bins, among them and past them, in any order, that gives
    # the sums computed whole, bit for bit.
    w = skewed_workload(Workload(0.2, 0.1, 0.6, 0.1, write_keys="latest:1.2",
                                 read_keys="latest:1.2", update_fraction=0.5),
                        history_writes=history)
    keys = key_map(50_000, w, tabulate=False)
    read, mass = keys.bins, keys.r * keys.count
    lw = keys.latest  # latest_reads takes its key bins' ranks from pos, kept at construction
    assert np.array_equal(lw.positions(lw.bins.lo.astype(float), lw.bins.hi.astype(float)),
                          lw.pos)
    hists = [0.0, 7.0, 600.0, 12_345.5, 49_999.0, 50_000.0, 1e6, math.inf, 3_000.0]
    for h in hists:
        rows = lw._touch_rows(read.lo, read.hi, mass, h)
        whole = np.vstack([np.cumsum(rows[::-1], axis=0)[::-1], np.zeros((1, rows.shape[1]))])
        assert np.array_equal(lw._touched(read, mass, h), whole)
