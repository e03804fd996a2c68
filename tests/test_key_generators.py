"""The seeded rank samplers draw what cost_models.skew says they should (chi-square tests), and
the key distributions, workloads and systems refuse bad input by name."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cost_models.skew import bins_for, key_probabilities
from validation.generators import latest_write_keys, rank_sampler, recency_sampler
from wacky_model import System, Workload
from wacky_model.types import KeyDistribution

DRAWS = 200_000
MIN_EXPECTED = 5.0  # the chi-square approximation's usual floor per cell


def _rank_pmf(dist: KeyDistribution, n: int) -> np.ndarray:
    """The model's probability of each rank 0..n-1 (key_probabilities is per key, by bin)."""
    bins = bins_for(n, dist)
    return np.repeat(key_probabilities(dist, bins, n), bins.hi - bins.lo)


def _pooled(observed: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge runs of adjacent ranks until each cell expects >= MIN_EXPECTED draws; a short last
    run joins the cell before it. Adjacent ranks have similar probabilities, so pooling them
    loses little power."""
    obs, exp = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected, strict=True):
        o_acc, e_acc = o_acc + o, e_acc + e
        if e_acc >= MIN_EXPECTED:
            obs.append(o_acc)
            exp.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0:
        obs[-1] += o_acc
        exp[-1] += e_acc
    return np.array(obs), np.array(exp)


def _chi_square_p(draws: np.ndarray, expected_pmf: np.ndarray) -> float:
    n = expected_pmf.size
    observed = np.bincount(draws, minlength=n).astype(float)
    obs, exp = _pooled(observed, expected_pmf * draws.size)
    exp *= obs.sum() / exp.sum()  # chisquare wants equal totals; the pmf sums to 1 +- 1e-15
    return float(stats.chisquare(obs, exp).pvalue)


SPECS = ["uniform", "zipf:0.5", "zipf:0.99", "zipf:1.3", "hotset:0.1:0.9", "hotset:0.2:0.5",
         "latest"]


@pytest.mark.parametrize("n", [1000, 10_000])
@pytest.mark.parametrize("spec", SPECS)
def test_draws_follow_the_model(spec: str, n: int) -> None:
    dist = KeyDistribution.parse(spec)
    draws = rank_sampler(dist, n).draw(np.random.default_rng(12345), DRAWS)
    assert draws.shape == (DRAWS,) and draws.min() >= 0 and draws.max() < n
    p = _chi_square_p(draws, _rank_pmf(dist, n))
    assert p > 1e-3, (spec, n, p)


@pytest.mark.parametrize("spec", SPECS)
def test_key_probabilities_is_the_exact_pmf(spec: str) -> None:
    """The binned model agrees with the pmf written out rank by rank (wide bins integrate)."""
    dist = KeyDistribution.parse(spec)
    n = 10_000
    ranks = np.arange(n, dtype=float)
    if dist.kind in ("zipf", "latest"):
        exact = (ranks + 1.0) ** -dist.theta
    elif dist.kind == "hotset":
        hot = dist.hot_count(n)
        exact = np.where(ranks < hot, dist.hot_share / hot, (1.0 - dist.hot_share) / (n - hot))
    else:
        exact = np.ones(n)
    exact /= exact.sum()
    bins = bins_for(n, dist)
    model = key_probabilities(dist, bins, n)
    per_bin = np.add.reduceat(exact, bins.lo) / (bins.hi - bins.lo)
    np.testing.assert_allclose(model, per_bin, rtol=1e-5)


def test_the_test_can_fail() -> None:
    """A zipf:0.9 sample checked against zipf:0.7 is rejected overwhelmingly."""
    n = 1000
    draws = rank_sampler(KeyDistribution.parse("zipf:0.9"), n).draw(
        np.random.default_rng(7), DRAWS)
    assert _chi_square_p(draws, _rank_pmf(KeyDistribution.parse("zipf:0.7"), n)) < 1e-6
    assert _chi_square_p(draws, _rank_pmf(KeyDistribution.parse("zipf:0.9"), n)) > 1e-3


@pytest.mark.parametrize("spec", SPECS)
def test_draws_are_deterministic_and_in_range(spec: str) -> None:
    sampler = rank_sampler(KeyDistribution.parse(spec), 5000)
    a = sampler.draw(np.random.default_rng(99), 10_000)
    b = sampler.draw(np.random.default_rng(99), 10_000)
    c = sampler.draw(np.random.default_rng(100), 10_000)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a.min() >= 0 and a.max() < 5000
    two = rank_sampler(KeyDistribution.parse(spec), 2).draw(np.random.default_rng(0), 1000)
    assert set(two.tolist()) == {0, 1}


@pytest.mark.parametrize("spec", SPECS)
def test_one_key_draws_rank_zero(spec: str) -> None:
    one = rank_sampler(KeyDistribution.parse(spec), 1).draw(np.random.default_rng(0), 100)
    assert (one == 0).all()


@pytest.mark.parametrize("population", [1, 700, 10_000])
def test_recency_draws_follow_the_zipf_over_the_population(population: int) -> None:
    """YCSB's latest writes: a recency Zipf(theta) over the keys inserted so far, one sampler
    serving every population up to its limit."""
    dist = KeyDistribution.parse("latest")
    draws = recency_sampler(dist, 20_000).draw(np.random.default_rng(3),
                                               np.full(DRAWS, population))
    assert draws.min() >= 0 and draws.max() < population
    if population > 1:
        zipf = KeyDistribution("zipf", theta=dist.theta)
        assert _chi_square_p(draws, _rank_pmf(zipf, population)) > 1e-3


def test_latest_write_keys_count_the_chunks_own_inserts() -> None:
    """An insert takes the next index; an update draws over every key inserted before it, the
    chunk's earlier inserts included (the newest is the index just inserted)."""
    sampler = recency_sampler(KeyDistribution.parse("latest:1.5"), 100)
    is_update = np.array([False, True, False, False, True, True])
    got = latest_write_keys(np.random.default_rng(0), sampler, is_update, inserted=10)
    assert got[0] == 10 and got[2] == 11 and got[3] == 12  # inserts, in order
    assert got[1] <= 10 and got[4] <= 12 and got[5] <= 12  # updates, of keys before them
    again = latest_write_keys(np.random.default_rng(0), sampler, is_update, inserted=10)
    np.testing.assert_array_equal(got, again)
    # Theta 1.5 puts over a third of the updates on the newest key.
    many = latest_write_keys(np.random.default_rng(1), sampler, np.ones(4000, bool), 50)
    assert np.mean(many == 49) > 0.3
    with pytest.raises(ValueError, match=r"populations must be in \[1, 100\]"):
        latest_write_keys(np.random.default_rng(0), sampler, np.ones(3, bool), 101)
    with pytest.raises(ValueError, match="recencies are drawn for 'latest' writes"):
        recency_sampler(KeyDistribution.parse("zipf:0.9"), 10)


def test_sampler_bad_input() -> None:
    with pytest.raises(ValueError, match="n must be >= 1"):
        rank_sampler(KeyDistribution(), 0)
    with pytest.raises(ValueError, match="n = -3"):
        rank_sampler(KeyDistribution(), -3)
    with pytest.raises(ValueError, match="size"):
        rank_sampler(KeyDistribution(), 10).draw(np.random.default_rng(0), -1)


@pytest.mark.parametrize("make, match", [
    (lambda: KeyDistribution("zipf", theta=-0.1), r"theta must be in \[0, 1.5\]"),
    (lambda: KeyDistribution("zipf", theta=1.6), r"theta must be in \[0, 1.5\]"),
    (lambda: KeyDistribution.parse("zipf:-0.1"), r"theta must be in \[0, 1.5\]"),
    (lambda: KeyDistribution.parse("zipf:1.6"), r"theta must be in \[0, 1.5\]"),
    (lambda: KeyDistribution.parse("latest:1.6"), r"theta must be in \[0, 1.5\]"),
    (lambda: KeyDistribution.parse("zipf:nan"), "theta must be a finite number"),
    (lambda: KeyDistribution.parse("hotset:0:0.9"), r"hotset h must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:1:0.9"), r"hotset h must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:1.2:0.9"), r"hotset h must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:-0.1:0.9"), r"hotset h must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:0.1:0"), r"hotset p must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:0.1:1"), r"hotset p must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:0.1:1.2"), r"hotset p must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("hotset:0.1:-0.1"), r"hotset p must be in \(0, 1\)"),
    (lambda: KeyDistribution("hotset", hot_keys=0.1, hot_share=1.0),
     r"hotset p must be in \(0, 1\)"),
    (lambda: KeyDistribution.parse("zipf"), r"not of the form zipf:THETA"),
    (lambda: KeyDistribution.parse("zipf:x"), r"'zipf:x': x is not a number"),
    (lambda: KeyDistribution.parse("hotset:0.1"), r"not of the form hotset:H:P"),
    (lambda: KeyDistribution.parse("uniform:3"), r"not of the form uniform"),
    (lambda: KeyDistribution.parse("pareto"),
     r"unknown distribution 'pareto': use uniform, zipf:THETA, hotset:H:P or latest"),
    (lambda: KeyDistribution.parse(0.9), "a distribution is a string"),
    (lambda: KeyDistribution("pareto"), "distribution must be one of"),
    (lambda: KeyDistribution("zipf", theta=True), "theta must be a finite number"),
])
def test_key_distribution_bad_input(make, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_parse_round_trips_and_defaults() -> None:
    for spec in ("uniform", "zipf:0.9", "hotset:0.1:0.9", "latest:0.5"):
        assert KeyDistribution.parse(spec).spec == spec
    assert KeyDistribution.parse(" ZIPF:0.9 ") == KeyDistribution("zipf", theta=0.9)
    assert KeyDistribution.parse("latest").theta == 0.99  # YCSB's constant
    assert KeyDistribution.parse("zipf:0").is_uniform
    assert KeyDistribution.parse("hotset:0.3:0.3").is_uniform


@pytest.mark.parametrize("kwargs, match", [
    (dict(update_fraction=1.5), r"update_fraction must be a share in \[0, 1\]; got 1.5"),
    (dict(update_fraction=-0.1), r"update_fraction must be a share in \[0, 1\]"),
    (dict(write_keys="zipf:1.6"), r"write_keys: zipf theta must be in \[0, 1.5\]"),
    (dict(read_keys="hotset:0.1"), r"read_keys: 'hotset:0.1' is not of the form"),
    (dict(read_keys=0.9), "read_keys must be a distribution"),
    (dict(correlated=1), "correlated must be True or False"),
])
def test_workload_skew_fields_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Workload(writes=0.5, point_reads=0.5, **kwargs)


def test_workload_takes_latest_writes_and_round_trips_them() -> None:
    """``latest`` writes (YCSB's: updates of recently inserted keys) parse, keep their theta,
    make the workload skewed and come back from the JSON form."""
    w = Workload(writes=0.5, point_reads=0.5, write_keys="latest", read_keys="latest:0.8",
                 update_fraction=0.5)
    assert w.write_keys == KeyDistribution("latest", theta=0.99) and w.skewed
    doc = w.to_dict()
    assert doc["write_keys"] == "latest:0.99" and doc["read_keys"] == "latest:0.8"
    assert Workload(**doc) == w
    assert Workload(writes=1.0, write_keys="latest:0").write_keys.theta == 0.0
    with pytest.raises(ValueError, match=r"write_keys: zipf theta must be in \[0, 1.5\]"):
        Workload(writes=1.0, write_keys="latest:1.6")


def test_workload_skew_fields_accepted() -> None:
    w = Workload(writes=0.5, point_reads=0.5, write_keys="zipf:0.9", read_keys="latest",
                 update_fraction=0.5, correlated=False)
    assert w.write_keys == KeyDistribution("zipf", theta=0.9)
    assert w.read_keys.kind == "latest" and w.skewed
    assert not Workload(writes=1.0).skewed


@pytest.mark.parametrize("bad", [-1, 2**62 + 1, 1.5, True, "1"])
def test_system_cache_bytes_bad_input(bad: object) -> None:
    with pytest.raises(ValueError, match="cache_bytes must be a whole number of bytes"):
        System(cache_bytes=bad)  # type: ignore[arg-type]


def test_system_accepts_a_cache_bigger_than_the_data() -> None:
    s = System(cache_bytes=2**40)
    assert s.cache_bytes == 2**40 > s.entries * s.entry_bytes
    assert System(cache_bytes=0).cache_bytes == 0
