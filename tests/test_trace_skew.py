"""Skew estimated from traces (wacky_model.trace_skew) recovers what skewed_trace (below, a
generator of this test's traces over validation.generators' samplers) generated, and
workload_from_trace carries it into the Workload."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest

from validation.generators import _check_count, fresh_keys, load_trace, rank_sampler
from wacky_model.trace_skew import (
    SkewEstimate,
    estimate_distribution,
    estimate_skew,
    fit_distribution,
    rank_ordered_theta,
    workload_from_trace,
)
from wacky_model.types import KeyDistribution, Workload
from wacky_traces import OpKind, Phase, Trace, build_trace


# -- skewed traces ----------------------------------------------------------------------------
def _distribution(name: str, v: KeyDistribution | str) -> KeyDistribution:
    if isinstance(v, KeyDistribution):
        return v
    try:
        return KeyDistribution.parse(v)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def _share(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)) \
            or not 0.0 <= float(v) <= 1.0:
        raise ValueError(f"{name} must be a share in [0, 1], got {v!r}")
    return float(v)


def skewed_trace(
    n_load: int,
    n_ops: int,
    *,
    entry_bytes: int,
    seed: int,
    write_keys: KeyDistribution | str,
    read_keys: KeyDistribution | str,
    update_fraction: float,
    read_share: float,
    correlated: bool = True,
) -> Trace:
    """A "load" phase of ``n_load`` distinct fresh keys (:func:`load_trace`), then an "ops"
    phase of ``n_ops`` operations: a share ``read_share`` of GETs, the rest PUTs.

    Popularity ranks (:func:`rank_sampler`) map to loaded keys through a seeded permutation, so
    a key's rank says nothing about where it falls in the key space. PUTs are updates with
    probability ``update_fraction``, of the key of a ``write_keys`` rank, and otherwise inserts
    of fresh keys. GETs read the key of a ``read_keys`` rank through the same permutation when
    ``correlated`` (the read-hot keys are the write-hot keys) and an independent one otherwise;
    ``latest`` reads the key of the r-th most recent write (r = 0 the last one), load included,
    r drawn over ``n_load`` so it always names a write. ``meta`` records the settings.
    """
    n_load = _check_count("n_load", n_load)
    n_ops = _check_count("n_ops", n_ops)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    wd = _distribution("write_keys", write_keys)
    rd = _distribution("read_keys", read_keys)
    if wd.kind == "latest":
        raise ValueError("write_keys cannot be 'latest' (it describes reads of recent writes)")
    u = _share("update_fraction", update_fraction)
    share = _share("read_share", read_share)
    if not isinstance(correlated, bool):
        raise ValueError(f"correlated must be True or False, got {correlated!r}")
    if n_load == 0 and n_ops and (share > 0 or u > 0):
        raise ValueError("n_load must be >= 1 when the operations read or update loaded keys")

    load = load_trace(n_load, entry_bytes=entry_bytes, seed=seed)
    loaded = load.keys
    rng = np.random.default_rng([int(seed), 0x534B4557])  # stream tag: "SKEW"
    perm_w = rng.permutation(n_load)
    # Drawn either way, so a correlated and an uncorrelated trace share their other draws.
    perm_other = rng.permutation(n_load)
    perm_r = perm_w if correlated else perm_other

    is_read = rng.random(n_ops) < share
    is_update = ~is_read & (rng.random(n_ops) < u)
    is_insert = ~is_read & ~is_update
    kinds = np.where(is_read, np.uint8(OpKind.GET), np.uint8(OpKind.PUT)).astype(np.uint8)
    keys = np.zeros(n_ops, dtype=np.uint64)
    n_upd = int(is_update.sum())
    if n_upd:
        keys[is_update] = loaded[perm_w[rank_sampler(wd, n_load).draw(rng, n_upd)]]
    keys[is_insert] = fresh_keys(rng, int(is_insert.sum()), np.sort(loaded))

    n_read = int(is_read.sum())
    if n_read:
        ranks = rank_sampler(rd, n_load).draw(rng, n_read)
        if rd.kind == "latest":
            # History of writes, load first; before op i there are n_load + (writes before i).
            history = np.concatenate([loaded, keys[~is_read]])
            writes_before = n_load + np.cumsum(~is_read)[is_read]  # a read is not a write
            keys[is_read] = history[writes_before - 1 - ranks]
        else:
            keys[is_read] = loaded[perm_r[ranks]]
    meta = {
        "generator": "skewed_trace", "n_load": n_load, "n_ops": n_ops, "seed": int(seed),
        "write_keys": wd.spec, "read_keys": rd.spec, "update_fraction": u,
        "read_share": share, "correlated": correlated,
    }
    return Trace(
        np.concatenate([load.kinds, kinds]),
        np.concatenate([loaded, keys]),
        np.zeros(n_load + n_ops, np.uint64),
        (Phase("load", 0, n_load), Phase("ops", n_load, n_load + n_ops)),
        entry_bytes,
        meta,
    )


N_LOAD, N_OPS, EB = 20_000, 200_000, 32
THETA_TOL, HOT_TOL, U_TOL = 0.05, 0.03, 0.02


@functools.cache
def _trace(write: str, read: str, u: float, correlated: bool, read_share: float = 0.5,
           seed: int = 11) -> Trace:
    return skewed_trace(N_LOAD, N_OPS, entry_bytes=EB, seed=seed, write_keys=write,
                        read_keys=read, update_fraction=u, read_share=read_share,
                        correlated=correlated)


@functools.cache
def _estimate(*args: object) -> SkewEstimate:
    return estimate_skew(_trace(*args))


def _close(got: KeyDistribution, want: KeyDistribution) -> None:
    assert got.kind == want.kind, (got.spec, want.spec)
    if want.kind in ("zipf", "latest"):
        assert abs(got.theta - want.theta) <= THETA_TOL, (got.spec, want.spec)
    if want.kind == "hotset":
        assert abs(got.hot_keys - want.hot_keys) <= HOT_TOL, (got.spec, want.spec)
        assert abs(got.hot_share - want.hot_share) <= HOT_TOL, (got.spec, want.spec)


CASES = [
    ("zipf:0.6", "zipf:0.6", 0.5, True),
    ("zipf:0.6", "zipf:0.6", 0.5, False),
    ("zipf:0.9", "zipf:0.9", 0.3, True),
    ("zipf:0.9", "zipf:0.9", 0.3, False),
    ("zipf:1.2", "zipf:1.2", 0.8, True),
    ("zipf:1.2", "zipf:1.2", 0.8, False),
    ("hotset:0.1:0.9", "hotset:0.1:0.9", 0.5, True),
    ("hotset:0.1:0.9", "hotset:0.1:0.9", 0.5, False),
    ("hotset:0.2:0.5", "zipf:0.6", 0.6, False),
    ("uniform", "zipf:0.9", 0.2, True),
    ("uniform", "uniform", 0.5, True),
    ("zipf:0.9", "latest", 0.5, True),
    ("uniform", "latest", 0.2, True),
]


@pytest.mark.parametrize("write, read, u, correlated", CASES)
def test_estimate_recovers_the_generator(write: str, read: str, u: float,
                                         correlated: bool) -> None:
    e = _estimate(write, read, u, correlated)
    _close(e.write_keys, KeyDistribution.parse(write))
    _close(e.read_keys, KeyDistribution.parse(read))
    assert abs(e.update_fraction - u) <= U_TOL
    both_rank = not (KeyDistribution.parse(write).is_uniform
                     or KeyDistribution.parse(read).kind in ("uniform", "latest"))
    # When either side does not rank keys the model is the same either way: the default stays.
    assert e.correlated is (correlated if both_rank else True)
    assert e.population == N_LOAD
    # Every update is of a loaded key, and so is every GET but latest's.
    assert e.write_samples == round(e.update_fraction * e.puts)
    if KeyDistribution.parse(read).kind != "latest":
        assert e.puts + e.read_samples == N_OPS


def test_zipf_fits_are_close_to_the_truth() -> None:
    """The fitted theta (reported whichever model won) is within 0.01 at these sizes."""
    for theta in (0.6, 0.9, 1.2):
        e = _estimate(f"zipf:{theta}", f"zipf:{theta}", 0.5, True)
        assert abs(e.write_theta - theta) < 0.01 and abs(e.read_theta - theta) < 0.01


def test_correlation_is_measured_against_a_shared_ranking() -> None:
    shared = _estimate("zipf:0.6", "zipf:0.6", 0.5, True)
    apart = _estimate("zipf:0.6", "zipf:0.6", 0.5, False)
    # Sampling noise keeps rho low even when the ranking is shared (so rho > 0.5 would fail),
    # but it matches what a shared ranking gives at these sizes.
    assert shared.correlation < 0.5
    assert abs(shared.correlation - shared.correlation_shared) < 0.05
    assert abs(apart.correlation) < 0.05
    assert math.isnan(_estimate("uniform", "uniform", 0.5, True).correlation_shared)


def test_workload_from_trace_fills_the_skew_fields() -> None:
    t = _trace("zipf:0.9", "zipf:0.9", 0.3, False)
    e = estimate_skew(t)
    w = workload_from_trace(t, 4)
    assert isinstance(w, Workload) and w.skewed
    assert (w.write_keys, w.read_keys, w.update_fraction, w.correlated) == \
        (e.write_keys, e.read_keys, e.update_fraction, e.correlated)
    assert w.correlated is False and w.write_keys.kind == "zipf"
    assert abs(w.point_reads - 0.5) < 0.01 and abs(w.writes - 0.5) < 0.01
    assert w.zero_reads == 0 and w.range_reads == 0 and w.range_blocks == 0


def test_a_load_only_trace_is_all_inserts() -> None:
    """As before: with nothing outside the load, the load is the workload (all writes); its
    PUTs are of new keys, so nothing is an update and no key is hotter than another."""
    from validation.generators import load_trace

    t = load_trace(1000, entry_bytes=EB, seed=1)
    w = workload_from_trace(t, 4)
    assert w.writes == 1.0 and w.update_fraction == 0.0 and not w.skewed
    e = estimate_skew(t)
    assert e.puts == 1000 and e.population == 1000 and e.write_samples == 0
    assert math.isnan(e.write_theta) and e.correlated is True


def test_an_empty_trace_is_refused() -> None:
    empty = build_trace([], entry_bytes=EB, meta={})
    with pytest.raises(ValueError, match="no operations"):
        estimate_skew(empty)
    with pytest.raises(ValueError, match="no operations"):
        workload_from_trace(empty, 4)


def _phase(name: str, kind: OpKind, keys: list[int]):
    k = np.asarray(keys, np.uint64)
    return (name, np.full(k.size, int(kind), np.uint8), k, np.zeros(k.size, np.uint64))


def test_updates_follow_puts_and_deletes() -> None:
    """An update is a PUT of a key PUT before and not deleted since."""
    t = build_trace([
        _phase("load", OpKind.PUT, [1, 2]),
        _phase("a", OpKind.PUT, [1]),  # update
        _phase("b", OpKind.DELETE, [2]),
        _phase("c", OpKind.PUT, [2, 3, 3]),  # insert (deleted), insert, update
    ], entry_bytes=EB, meta={})
    e = estimate_skew(t)
    assert e.puts == 4 and e.update_fraction == 0.5
    assert e.population == 2 and e.write_samples == 1  # key 3 was not there all along


def test_without_a_load_every_put_key_is_the_population() -> None:
    t = build_trace([_phase("trace", OpKind.PUT, [5, 6, 7, 5]),
                     _phase("reads", OpKind.GET, [5, 6])], entry_bytes=EB, meta={})
    e = estimate_skew(t)
    assert e.population == 3 and e.puts == 4 and e.update_fraction == 0.25
    assert e.write_samples == 1 and e.read_samples == 2


def test_ranking_by_observed_counts_is_biased_and_the_fit_is_not() -> None:
    """The module docstring's claim: sorting counts inflates theta; the histogram fit does not."""
    n = 20_000
    rng = np.random.default_rng(3)
    uniform = np.bincount(rng.integers(0, n, n), minlength=n)  # one operation per key
    assert rank_ordered_theta(uniform, n)[0] > 0.3
    assert estimate_distribution(uniform, n).is_uniform
    ranks = rank_sampler(KeyDistribution("zipf", theta=0.6), n).draw(rng, 50_000)
    zipf = np.bincount(rng.permutation(n)[ranks], minlength=n)
    assert rank_ordered_theta(zipf, n)[0] - 0.6 > 0.03
    assert abs(fit_distribution(zipf, n).zipf_theta - 0.6) < 0.01


def test_estimate_distribution_direct() -> None:
    n = 5000
    rng = np.random.default_rng(8)
    ranks = rank_sampler(KeyDistribution.parse("hotset:0.05:0.8"), n).draw(rng, 100_000)
    counts = np.bincount(ranks, minlength=n)  # rank order = key order: the fit must not care
    fit = fit_distribution(counts, n)
    _close(fit.dist, KeyDistribution.parse("hotset:0.05:0.8"))
    assert fit.loglik_hotset > fit.loglik_zipf > fit.loglik_uniform and fit.p_value < 1e-6
    assert fit.samples == 100_000 and fit.population == n
    shuffled = rng.permutation(counts)
    assert estimate_distribution(shuffled, n) == fit.dist
    touched = counts[counts > 0]  # untouched keys may be left out
    assert estimate_distribution(touched, n) == fit.dist
    assert estimate_distribution(np.zeros(10, np.int64), 10).is_uniform
    assert estimate_distribution(np.array([7]), 1).is_uniform


@pytest.mark.parametrize("counts, population, match", [
    (np.ones((2, 2), np.int64), 4, "counts must be a 1-D array"),
    (np.array([1.5, 2.0]), 2, "counts must be whole numbers"),
    (np.array([1, -1]), 2, "counts must be >= 0"),
    (np.array([1, 2, 3]), 2, r"population must be in \[max\(1, len\(counts\)\) = 3"),
    (np.array([], np.int64), 0, r"population must be in \[max\(1, len\(counts\)\) = 1"),
    (np.array([1]), 2.5, "population must be an int"),
    (np.array([1]), True, "population must be an int"),
])
def test_estimate_distribution_bad_input(counts, population, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        estimate_distribution(counts, population)


def test_skewed_trace_contract() -> None:
    t = _trace("zipf:1.2", "zipf:1.2", 0.8, True)
    assert t.phases == (Phase("load", 0, N_LOAD), Phase("ops", N_LOAD, N_LOAD + N_OPS))
    assert t.meta == {"generator": "skewed_trace", "n_load": N_LOAD, "n_ops": N_OPS, "seed": 11,
                      "write_keys": "zipf:1.2", "read_keys": "zipf:1.2",
                      "update_fraction": 0.8, "read_share": 0.5, "correlated": True}
    loaded = t.keys[:N_LOAD]
    assert np.unique(loaded).size == N_LOAD
    kinds, keys = t.kinds[N_LOAD:], t.keys[N_LOAD:]
    assert set(np.unique(kinds).tolist()) == {int(OpKind.PUT), int(OpKind.GET)}
    assert abs(np.mean(kinds == OpKind.GET) - 0.5) < 0.01
    assert np.isin(keys[kinds == OpKind.GET], loaded).all()
    puts = keys[kinds == OpKind.PUT]
    fresh = puts[~np.isin(puts, loaded)]
    assert np.unique(fresh).size == fresh.size  # inserts are distinct new keys
    assert abs(1 - fresh.size / puts.size - 0.8) < 0.01
    # Correlated: the hottest written key is the hottest read key.
    def hottest(k: np.ndarray) -> int:
        values, counts = np.unique(k, return_counts=True)
        return int(values[np.argmax(counts)])
    assert hottest(keys[kinds == OpKind.GET]) == hottest(puts[np.isin(puts, loaded)])
    again = skewed_trace(N_LOAD, N_OPS, entry_bytes=EB, seed=11, write_keys="zipf:1.2",
                         read_keys="zipf:1.2", update_fraction=0.8, read_share=0.5)
    assert again == t
    apart = _trace("zipf:1.2", "zipf:1.2", 0.8, False)
    a_kinds, a_keys = apart.kinds[N_LOAD:], apart.keys[N_LOAD:]
    a_puts = a_keys[a_kinds == OpKind.PUT]
    assert hottest(a_keys[a_kinds == OpKind.GET]) != hottest(a_puts[np.isin(a_puts, loaded)])


def test_skewed_trace_latest_reads_recent_writes() -> None:
    t = skewed_trace(1000, 5000, entry_bytes=EB, seed=2, write_keys="uniform",
                     read_keys="latest:1.5", update_fraction=0.0, read_share=0.5)
    kinds, keys = t.kinds[1000:], t.keys[1000:]
    loaded = t.keys[:1000]
    reads = keys[kinds == OpKind.GET]
    # Inserts are new keys, so most latest reads name keys the operations wrote.
    assert np.mean(~np.isin(reads, loaded)) > 0.9
    assert t.meta["read_keys"] == "latest:1.5"


@pytest.mark.parametrize("kwargs, match", [
    (dict(update_fraction=1.5), r"update_fraction must be a share in \[0, 1\]"),
    (dict(read_share=-0.1), r"read_share must be a share in \[0, 1\]"),
    (dict(write_keys="latest"), "write_keys cannot be 'latest'"),
    (dict(write_keys="zipf:2"), r"write_keys: zipf theta must be in \[0, 1.5\]"),
    (dict(read_keys="pareto"), "read_keys: unknown distribution 'pareto'"),
    (dict(correlated=1), "correlated must be True or False"),
    (dict(seed=-1), "seed must be an int >= 0"),
    (dict(n_load=0), "n_load must be >= 1"),
    (dict(n_ops=-5), "n_ops = -5"),
])
def test_skewed_trace_bad_input(kwargs: dict, match: str) -> None:
    args = dict(n_load=100, n_ops=100, entry_bytes=EB, seed=0, write_keys="uniform",
                read_keys="uniform", update_fraction=0.5, read_share=0.5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        skewed_trace(**args)


@pytest.mark.parametrize("dist", [KeyDistribution("zipf", theta=0.9),
                                  KeyDistribution("zipf", theta=0.3)])
@pytest.mark.parametrize("u", [1.0, 0.5, 0.0])
def test_the_update_share_is_s1_inverted_on_the_distinct_keys(dist, u) -> None:
    """advise's update share: W Puts, a share u of them updates of n keys drawn from ``dist``,
    the rest new keys; S1 inverted on their distinct keys gives u back (the repeats alone, the
    lower bound, give much less)."""
    from cost_models.skew import bins_for, key_probabilities
    from wacky_model.trace_skew import update_share

    n, W = 60_000, 8_000
    rng = np.random.default_rng(7)
    bins = bins_for(n, dist)
    q = np.repeat(key_probabilities(dist, bins, n), bins.hi - bins.lo)
    updates = rng.choice(n, int(u * W), p=q / q.sum())
    inserts = n + np.arange(W - updates.size)
    keys = np.concatenate([updates, inserts])
    distinct = np.unique(keys).size
    got = update_share(W, distinct, dist, n)
    assert got == pytest.approx(u, abs=0.05)
    if u == 1.0 and dist.theta == 0.9:
        assert 1 - distinct / W < 0.6  # the lower bound would say under 0.6


def test_the_update_share_says_when_the_keys_cannot_tell() -> None:
    from wacky_model.trace_skew import update_share

    # uniform over a billion keys: 10,000 updates would repeat about 0.05 keys
    assert update_share(10_000, 10_000, KeyDistribution(), 10**9) is None
    assert update_share(0, 0, KeyDistribution(), 100) is None
    assert update_share(100, 101, KeyDistribution(), 100) is None  # more distinct than Puts
