"""The seeded generators of validation's operation streams (validation.generators)."""

from __future__ import annotations

import numpy as np
import pytest

from validation.generators import load_trace, read_ops
from wacky_traces import OpKind, Phase

EB = 32
P, G, Z, R, D = (int(k) for k in OpKind)
U64 = 2**64 - 1


def test_load_trace_distinct_and_deterministic() -> None:
    a = load_trace(5000, entry_bytes=EB, seed=3)
    assert len(a) == 5000 and len(np.unique(a.keys)) == 5000
    assert a.counts() == {"put": 5000, "get": 0, "zero": 0, "range": 0, "delete": 0}
    assert a.phases == (Phase("load", 0, 5000),)
    assert a == load_trace(5000, entry_bytes=EB, seed=3)
    assert not np.array_equal(a.keys, load_trace(5000, entry_bytes=EB, seed=4).keys)
    assert not np.all(np.diff(a.keys.astype(np.float64)) > 0)  # random order, not sorted
    assert len(load_trace(0, entry_bytes=EB, seed=0)) == 0
    with pytest.raises(ValueError, match="n_load"):
        load_trace(-1, entry_bytes=EB, seed=0)


def test_read_ops_respects_its_contract() -> None:
    loaded = load_trace(4000, entry_bytes=EB, seed=1).keys
    pool = loaded[:1000]
    fr = {"get": 0.4, "zero": 0.25, "range": 0.15, "put": 0.2}
    kinds, keys, args = read_ops(
        loaded, n=20000, get_pool=pool, fractions=fr, range_entries=10, seed=5
    )
    assert kinds.dtype == np.uint8 and keys.dtype == args.dtype == np.uint64
    c = np.bincount(kinds, minlength=5) / 20000
    assert abs(c[G] - 0.4) < 0.02 and abs(c[Z] - 0.25) < 0.02
    assert abs(c[R] - 0.15) < 0.02 and abs(c[P] - 0.2) < 0.02 and c[D] == 0
    assert np.isin(keys[kinds == G], pool).all()
    fresh = keys[(kinds == Z) | (kinds == P)]
    assert not np.isin(fresh, loaded).any()
    assert len(np.unique(fresh)) == len(fresh)  # no zero key equals a put key
    rk, ra = keys[kinds == R], args[kinds == R]
    assert (ra >= rk).all() and (args[kinds != R] == 0).all()
    # The span holds range_entries of the loaded keys on average.
    held = np.searchsorted(np.sort(loaded), ra, side="right") - np.searchsorted(np.sort(loaded), rk)
    assert 8 < held.mean() < 12
    again = read_ops(loaded, n=20000, get_pool=pool, fractions=fr, range_entries=10, seed=5)
    assert all(np.array_equal(x, y) for x, y in zip((kinds, keys, args), again, strict=True))


def test_read_ops_huge_ranges_clamp_and_bad_input() -> None:
    loaded = np.array([5, 9], dtype=np.uint64)
    kinds, keys, args = read_ops(
        loaded, n=50, get_pool=loaded, fractions={"range": 1.0}, range_entries=4, seed=0
    )
    assert (kinds == R).all() and (keys == 0).all() and (args == U64).all()
    for bad, match in [
        (dict(fractions={"get": 0.5}), "sum to 1"),
        (dict(fractions={"scan": 1.0}), "unknown kinds"),
        (dict(fractions={"get": 1.5, "put": -0.5}), ">= 0"),
        (dict(get_pool=np.zeros(0, np.uint64)), "get_pool"),
        (dict(range_entries=0), "range_entries"),
        (dict(n=-3), "n = -3"),
    ]:
        kw = dict(n=5, get_pool=loaded, fractions={"get": 1.0}, range_entries=4, seed=0)
        kw.update(bad)
        with pytest.raises(ValueError, match=match):
            read_ops(loaded, **kw)
