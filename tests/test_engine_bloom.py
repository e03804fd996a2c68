"""Bloom filters: measured false-positive rates match theory.

Two sources of randomness are separated. (1) The fill of one filter: after n keys with k probes
into m bits, the fraction of set bits has mean 1 - e^(-a), a = k n / m, and standard deviation
sqrt(e^(-a) (1 - (1 + a) e^(-a)) / m) (classical occupancy result). (2) The queries: given the
fill f, each negative query is a false positive with probability f^k independently, so Q
queries give a binomial count with standard deviation sqrt(Q p (1 - p)). Each check accepts 5
sigma (a false alarm below 1e-6), so a filter whose hashing is biased by more than about one
percent of its rate fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from native_engine import Engine, _engine


def _unique(rng: np.random.Generator, n: int, hi: int) -> np.ndarray:
    """n distinct uint64 keys uniform in [0, hi), in random order."""
    k = np.unique(rng.integers(0, hi, size=n + n // 10 + 10, dtype=np.uint64))[:n]
    assert k.size == n
    return rng.permutation(k)


@pytest.mark.parametrize("bits", [1.5, 3.0, 5.0, 8.0, 10.0])
def test_standalone_filter_fpr_matches_theory(bits: float) -> None:
    rng = np.random.default_rng(int(bits * 10))
    n, q = 20_000, 400_000
    keys = rng.choice(2**62, size=n + q, replace=False).astype(np.uint64)
    f = _engine.BloomFilter(n, bits)
    f.add_many(keys[:n])
    assert f.contains_many(keys[:n]).all()  # no false negatives
    assert f.num_probes == max(1, round(bits * math.log(2)))
    assert f.num_bits == math.ceil(n * bits)
    fp = int(f.contains_many(keys[n:]).sum())
    k, m = f.num_probes, f.num_bits
    a = k * n / m
    assert f.theoretical_fpr(n) == pytest.approx((1 - math.exp(-a)) ** k)
    # (1) the fill matches the occupancy law,
    fill = f.bits_set / m
    sd_fill = math.sqrt(math.exp(-a) * (1 - (1 + a) * math.exp(-a)) / m)
    assert abs(fill - (1 - math.exp(-a))) <= 5 * sd_fill, (fill, 1 - math.exp(-a), sd_fill)
    # (2) queries hit set bits independently: FPR = fill^k.
    p = fill**k
    sigma = math.sqrt(q * p * (1 - p))
    assert abs(fp - q * p) <= 5 * sigma + 1, (fp, q * p, sigma)


def test_sequential_keys_are_hashed_well() -> None:
    """Dense integer keys (the sequential workload) must not correlate with the probes."""
    n, q = 50_000, 300_000
    f = _engine.BloomFilter(n, 6.0)
    f.add_many(np.arange(n, dtype=np.uint64))
    fp = int(f.contains_many(np.arange(n, n + q, dtype=np.uint64)).sum())
    p = (f.bits_set / f.num_bits) ** f.num_probes
    assert abs(fp - q * p) <= 5 * math.sqrt(q * p * (1 - p)) + 1


@pytest.mark.parametrize(
    "design",
    [
        dict(T=4, C=3, X=1, K=0, Z=0, bits_per_entry=5),
        dict(T=2, C=1, X=2, K=1, Z=0, sum_fpr=0.8),
        dict(T=3, C=2, X=1, K=1, Z=1, bits_per_entry=8),
    ],
    ids=["leveling-M5", "qlsm-p0.8", "tiering-M8"],
)
def test_zero_result_reads_cost_what_the_filters_predict(tmp_path, design) -> None:
    """On a loaded engine, the I/O of zero-result reads equals the sum over runs of each run's
    filter FPR times the chance that the key falls inside the run's fences."""
    e = Engine(tmp_path / "db", **design, entry_bytes=32, block_bytes=256, buffer_bytes=2048)
    rng = np.random.default_rng(1)
    n = 30_000
    keys = _unique(rng, n, 2**63) * 2  # even keys
    e.put_many(keys, np.zeros((n, 24), dtype=np.uint8))
    e.flush()
    levels = e.levels()
    assert len(levels) >= 3
    expect_per_query = 0.0
    theory_per_query = 0.0
    var = 0.0
    for lv in levels:
        for r in lv["runs"]:
            inside = (r["max_key"] - r["min_key"] + 1) / 2**64
            p = r["filter_fpr_given_fill"] * inside
            expect_per_query += p
            theory_per_query += r["filter_fpr"] * inside
            var += p * (1 - p)
    # Filled filters agree with (1 - e^(-kn/m))^k (5% covers the fill noise of small runs).
    assert expect_per_query == pytest.approx(theory_per_query, rel=0.05)
    q = 100_000
    probes = rng.integers(0, 2**63, size=q, dtype=np.uint64) * 2 + 1  # odd: never inserted
    before = e.stats()["point_read"]["blocks_read"]
    _, found = e.get_many(probes)
    assert not found.any()
    measured = e.stats()["point_read"]["blocks_read"] - before
    sigma = math.sqrt(q * var)
    assert abs(measured - q * expect_per_query) <= 5 * sigma + 2, (
        measured,
        q * expect_per_query,
    )
    # Existing keys: exactly one block for the hit, plus false positives in newer runs.
    before = e.stats()["point_read"]["blocks_read"]
    _, found = e.get_many(keys[:5000])
    assert found.all()
    per_get = (e.stats()["point_read"]["blocks_read"] - before) / 5000
    assert 1.0 <= per_get <= 1.0 + expect_per_query + 0.05
    e.close()


def test_filter_memory_follows_the_budget(tmp_path) -> None:
    """Average filter bits per entry over all runs stays near the bits_per_entry budget, and
    the allocation gives smaller levels more bits per key (Lagrangian, App. C)."""
    e = Engine(
        tmp_path / "db",
        T=3,
        C=2,
        X=1,
        K=1,
        Z=0,
        bits_per_entry=6,
        entry_bytes=32,
        block_bytes=256,
        buffer_bytes=2048,
    )
    rng = np.random.default_rng(2)
    n = 40_000
    e.put_many(_unique(rng, n, 2**63), np.zeros((n, 24), dtype=np.uint8))
    levels = e.levels()
    bits = sum(r["filter_bits_per_key"] * r["entries"] for lv in levels for r in lv["runs"])
    entries = sum(lv["entries"] for lv in levels)
    assert 0.75 * 6 <= bits / entries <= 1.25 * 6
    fprs = [lv["fpr"] for lv in levels]
    assert fprs == sorted(fprs)  # p_i grows with the level: more bits per key at small levels
    e.close()


def test_hash_levels_replace_filters(tmp_path) -> None:
    """App. F: Levels 1..hash_levels (below L) keep a hash table of key signatures instead of
    Bloom filters; answers stay exact and zero-result reads stay cheap."""
    kw = dict(
        T=2, C=1, X=2, K=1, Z=0, sum_fpr=0.2, entry_bytes=32, block_bytes=256, buffer_bytes=1024
    )
    e = Engine(tmp_path / "db", **kw, hash_levels=2)
    rng = np.random.default_rng(3)
    n = 20_000
    keys = _unique(rng, n, 2**62) * 2
    vals = rng.integers(0, 256, size=(n, 24), dtype=np.uint8)
    e.put_many(keys, vals)
    levels = e.levels()
    assert len(levels) >= 4
    for lv in levels:
        ht = lv["level"] <= 2 and lv["level"] < len(levels)
        assert lv["hash_table"] == ht
        if ht and lv["runs"]:
            assert all(r["hash_indexed"] for r in lv["runs"])
            assert lv["hash_signature_bits"] >= 1
        if not ht:
            assert not any(r["hash_indexed"] for r in lv["runs"])
    out, found = e.get_many(keys)
    assert found.all() and np.array_equal(out, vals)
    before = e.stats()["point_read"]["blocks_read"]
    q = 20_000
    _, found = e.get_many(rng.integers(0, 2**62, size=q, dtype=np.uint64) * 2 + 1)
    assert not found.any()
    per_query = (e.stats()["point_read"]["blocks_read"] - before) / q
    assert per_query < 0.5  # a budget of p = 0.2 (a loose bound: signatures are rounded up)
    e.close()
    with Engine(tmp_path / "db", **kw, hash_levels=2) as e2:  # indexes rebuilt on reopen
        out, found = e2.get_many(keys[:2000])
        assert found.all() and np.array_equal(out, vals[:2000])
