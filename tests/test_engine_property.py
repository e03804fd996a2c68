"""Property-based tests: random operation sequences on the engine agree exactly with a dict.

The designs span the continuum (Leveling, Tiering, lazy leveling, LSM-bush with X = 2 and 3,
K and Z at 0, 0.5 and 1, C from 1 to T-1, hash tables for small levels) with buffers of one
to three tiny blocks, so a few hundred operations build several levels and run many merges,
preemptive merges and major compactions. Reopening after close() must give the same answers.
"""

from __future__ import annotations

import tempfile

import pytest
from engine_ops import OPS, apply_ops
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_engine import Engine

DESIGNS = [
    dict(T=2, C=1, X=1, K=0, Z=0),  # Leveling, T = 2
    dict(T=2, C=1, X=2, K=1, Z=0),  # QLSM-bush
    dict(T=2, C=1, X=3, K=1, Z=1),
    dict(T=3, C=2, X=1, K=1, Z=1),  # Tiering
    dict(T=3, C=1, X=2, K=0.5, Z=0.5),
    dict(T=4, C=3, X=1, K=1, Z=0),  # Lazy leveling
    dict(T=4, C=2, X=1.5, K=0.5, Z=1),
    dict(T=5, C=1, X=3, K=0, Z=0.5),
    dict(T=4, C=3, X=2, K=1, Z=1, hash_levels=2),
    dict(T=2, C=1, X=2, K=1, Z=0, hash_levels=3, sum_fpr=0.5),
    dict(T=3, C=1.5, X=1, K=0, Z=1, bits_per_entry=0),
    dict(T=6, C=5, X=2, K=0.5, Z=0, bits_per_entry=2),
]
LAYOUTS = [
    dict(entry_bytes=16, block_bytes=32, buffer_bytes=32),  # 2-entry buffer
    dict(entry_bytes=16, block_bytes=48, buffer_bytes=96),
    dict(entry_bytes=12, block_bytes=36, buffer_bytes=108),
]

def _check_all(e: Engine, model: dict[int, bytes]) -> None:
    assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())
    for k in list(range(62)) + [2**63, 2**64 - 1]:
        assert e.get(k) == model.get(k)


@pytest.mark.parametrize("layout", LAYOUTS, ids=["buf2", "buf6", "buf9"])
@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: "-".join(f"{k}{v}" for k, v in d.items()))
def test_engine_agrees_with_dict(design, layout) -> None:
    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=True,
    )
    @given(ops=OPS)
    def run(ops) -> None:
        kw = {**design, **layout}
        vb = kw["entry_bytes"] - 8
        with tempfile.TemporaryDirectory() as d:
            e = Engine(d + "/db", **kw)
            model: dict[int, bytes] = {}
            try:
                e = apply_ops(e, ops, model, vb, lambda: Engine(d + "/db", **kw))
                _check_all(e, model)
                for lv in e.levels():
                    assert len(lv["runs"]) <= lv["max_runs"]
                e.close()
                e = Engine(d + "/db", **kw)
                _check_all(e, model)
            finally:
                e.close()

    run()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    keys=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=400, unique=True),
    dels=st.sets(st.integers(0, 399), max_size=100),
)
def test_many_levels_with_wide_keys(keys, dels) -> None:
    """Wide random keys through a 1-entry-per-block, 2-block buffer QLSM-bush."""
    with tempfile.TemporaryDirectory() as d:
        kw = dict(T=2, C=1, X=2, K=1, Z=0, entry_bytes=9, block_bytes=9, buffer_bytes=18)
        with Engine(d + "/db", **kw) as e:
            model = {}
            for i, k in enumerate(keys):
                e.put(k, bytes([i % 256]))
                model[k] = bytes([i % 256])
            for i in dels:
                if i < len(keys):
                    e.delete(keys[i])
                    model.pop(keys[i], None)
            assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())
            for k in keys[:50]:
                assert e.get(k) == model.get(k)
