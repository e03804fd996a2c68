"""The batch walk of cost_models.partial (window_costs_many) and wacky_model.files
(native_file_costs_many) against the one-design walk they must reproduce: every field of every
design's costs, for mixed batches of rules, sizes, preloads and windows."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cost_models.partial import (
    LeveledFiles,
    WindowCosts,
    _drain,
    _drain_many,
    _Draining,
    window_costs,
    window_costs_many,
)
from wacky_model.files import native_file_costs, native_file_costs_many
from wacky_model.granularity import FILE_RATIOS, FILE_SHARES, LEVEL1_RUNS, WINDOW_FLUSHES
from wacky_model.types import Compaction, Design, System


def assert_same(batch: WindowCosts, scalar: WindowCosts, rel: float = 1e-9) -> None:
    """Every field within ``rel`` (the batch is built to agree bit for bit)."""
    assert len(batch.level_entries) == len(scalar.level_entries)
    for name in ("write_amp", "level_write_amp", "level_entries", "level_in_use",
                 "level0_runs", "level_coverage", "peak_job_entries", "peak_merge_entries",
                 "end_entries"):
        a, b = getattr(batch, name), getattr(scalar, name)
        for x, y in zip(*(v if isinstance(v, tuple) else (v,) for v in (a, b)), strict=True):
            assert math.isclose(x, y, rel_tol=rel, abs_tol=0.0), (name, a, b)


@st.composite
def designs(draw: st.DrawFn, settled: bool) -> tuple[LeveledFiles, float, float]:
    """A policy, a preload and a window: T in [2, 32], triggers 1-8, files from a block-sized
    thousandth of a flush to ten flushes, preloads up to 1e9 entries, windows of 1 to 512
    flushes (a settled start skips the preload's flushes, so it may be any size; from an empty
    tree the preload is walked, so it is at most 1,000 flushes)."""
    rule = draw(st.sampled_from(["static", "dynamic", "wacky"]))
    T = draw(st.floats(2.0, 32.0) | st.integers(2, 32).map(float))
    F = draw(st.floats(100.0, 1e6))
    kw = dict(T=T, flush_entries=F, file_entries=max(1.0, F * draw(st.floats(1e-3, 10.0))),
              level0_runs=draw(st.sampled_from([1, 2, 4, 8])), targets=rule,
              flush_writes=draw(st.booleans()), boundary_files=float(draw(st.integers(0, 1))))
    if rule == "wacky":
        kw["C"] = draw(st.none() | st.floats(0.5, 2.0 * T))
    else:
        kw["base_entries"] = F * draw(st.floats(0.1, 100.0))
        kw["num_levels"] = draw(st.integers(1, 7))
    if settled:
        preload = draw(st.sampled_from([0.0, 1e9]) | st.floats(0.0, 1e9))
    else:
        preload = min(1e9, F * draw(st.integers(0, 1000)))
    window = F * draw(st.integers(1, 512)) * draw(st.sampled_from([1.0, 1.3]))
    return LeveledFiles(**kw), preload, window


@st.composite
def batches(draw: st.DrawFn) -> tuple[list[tuple[LeveledFiles, float, float]], bool]:
    settled = draw(st.booleans())
    return draw(st.lists(designs(settled), min_size=1, max_size=6)), settled


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_the_batch_walk_is_the_scalar_walk(batch) -> None:
    cases, settled = batch
    policies, preloads, windows = (list(x) for x in zip(*cases, strict=True))
    got = window_costs_many(policies, preloads, windows, settled)
    for w, p, a, n in zip(got, policies, preloads, windows, strict=True):
        assert_same(w, window_costs(p, a, n, settled))


def test_a_mixed_batch_of_every_rule_and_start_agrees_bit_for_bit() -> None:
    """Rows that end at different flushes, rules side by side, settled and empty starts in one
    batch, trees that grow levels on top (wacky, from empty)."""
    rules = [
        LeveledFiles(T=4.0, C=3.0, flush_entries=512.0, file_entries=512.0, targets="wacky",
                     flush_writes=False, boundary_files=1.0),
        LeveledFiles(T=10.0, flush_entries=6_000.0, file_entries=7_000.0, level0_runs=4,
                     targets="dynamic", base_entries=16_000.0, num_levels=3),
        LeveledFiles(T=6.0, flush_entries=1_000.0, file_entries=10.0, targets="static",
                     base_entries=50_000.0, num_levels=4),
        LeveledFiles(T=2.0, flush_entries=100.0, file_entries=25.0, level0_runs=2,
                     targets="wacky"),
    ]
    policies, preloads, windows, settled = [], [], [], []
    for p, (a, n, s) in itertools.product(rules, [(0.0, 1.0, False), (4e5, 2e5, False),
                                                  (4e5, 2e5, True), (1e9, 3e4, True)]):
        policies.append(p)
        preloads.append(a)
        windows.append(max(n, p.flush_entries))
        settled.append(s)
    got = window_costs_many(policies, preloads, windows, settled)
    want = [window_costs(*args) for args in zip(policies, preloads, windows, settled,
                                                strict=True)]
    assert got == want


def test_several_levels_over_at_once_drain_in_the_scalar_order() -> None:
    """A settled start can leave two levels just over targets that moved (found by search):
    the batch then drains one level per pass, the most overfull first, not a cascade."""
    policy = LeveledFiles(T=14.438510978737284, flush_entries=249.475231042725,
                          file_entries=1.0, targets="dynamic",
                          base_entries=166370.58276785983, num_levels=5)
    args = (822608033.305535, 1247.376155213625, True)
    assert window_costs_many([policy], *args) == [window_costs(policy, *args)]


def test_the_file_grid_prices_as_one_design_at_a_time() -> None:
    """The granularity choice's grid (granularity.file_grid), through wacky_model.files:
    equal to native_file_costs."""
    system = System()
    grid = [(Design(T, T - 1.0, 1.0, 0.0, 0.0),
             Compaction("file", max(system.block_bytes, int(share * system.buffer_bytes)), k))
            for T, k, share in itertools.product(FILE_RATIOS, LEVEL1_RUNS, FILE_SHARES)]
    grid += [(dataclasses.replace(d, filters="uniform"), c) for d, c in grid[:4]]
    args = (system.entries, WINDOW_FLUSHES * system.buffer_entries)
    got = native_file_costs_many([d for d, _ in grid], system, [c for _, c in grid], *args,
                                 settled=True)
    assert got == [native_file_costs(d, system, c, *args, settled=True) for d, c in grid]
    # A filter budget given as a sum of rates, and windows from an empty tree, per design.
    small = System(entries=1e6, sum_fpr=0.5)
    designs_, compactions = [d for d, _ in grid[:12]], [c for _, c in grid[:12]]
    preloads = [i * 1e4 for i in range(12)]
    got = native_file_costs_many(designs_, small, compactions, preloads, 2e5)
    assert got == [native_file_costs(d, small, c, a, 2e5)
                   for d, c, a in zip(designs_, compactions, preloads, strict=True)]


def test_bad_batches_are_named() -> None:
    p = LeveledFiles(T=4.0, flush_entries=1_000.0, file_entries=100.0, base_entries=4_000.0)
    assert window_costs_many([], 0.0, 1e3) == []
    with pytest.raises(ValueError, match="at least one flush"):
        window_costs_many([p, p], 0.0, [1e3, 10.0])
    with pytest.raises(ValueError, match="preload needs one value per policy"):
        window_costs_many([p, p], [0.0], 1e3)
    with pytest.raises(ValueError, match="one compaction per design"):
        native_file_costs_many([Design(4, 3, 1, 0, 0)], System(), [], 0.0, 1e6)


def test_drains_follow_the_scalar_order_from_any_sizes() -> None:
    """The batch's drains against the scalar's (cost_models.partial._drain) from sizes no walk
    reaches: several levels over at once (drained one per pass, the most overfull first),
    cascades, unused levels on top, and targets so large against a file that a drained level
    can stay over its target by rounding (its cascade is then left to the one-level passes)."""
    rng = np.random.default_rng(7)
    rows, width = 600, 6
    scale = np.where(rng.random(rows) < 0.2, 1e16, 10 ** rng.uniform(3, 8, rows))
    targets = scale[:, None] * np.cumprod(rng.uniform(1.5, 12.0, (rows, width)), axis=1)
    targets[:, -1] = math.inf
    S = np.where(rng.random((rows, width)) < 0.5, targets * rng.uniform(0.2, 6.0, (rows, width)),
                 targets * rng.uniform(0.0, 1.0, (rows, width)))
    S[:, -1] = scale * rng.uniform(0.0, 1e3, rows)
    unused = np.arange(width) < rng.integers(0, 3, rows)[:, None]  # dynamic targets' top
    S[unused], targets[unused] = 0.0, 0.0
    f = np.where(scale >= 1e16, 1.0, scale * rng.uniform(1e-3, 3.0, rows))
    boundary = rng.integers(0, 2, rows).astype(float)
    counting = rng.random(rows) < 0.8
    cover = np.where(S > 0, rng.uniform(0.05, 1.0, (rows, width)), 0.0)
    d = _Draining.make(S.copy(), targets, f, boundary, counting, np.arange(rows),
                       np.zeros((rows, width)), np.zeros((rows, width)), cover.copy())
    _drain_many(d)
    for b in range(rows):
        sizes, written, merges = S[b].tolist(), [0.0] * width, [0.0] * width
        covers = cover[b].tolist()
        _drain(sizes, targets[b].tolist(), float(f[b]), float(boundary[b]),
               written if counting[b] else None, merges if counting[b] else None, cover=covers)
        assert d.S[b].tolist() == sizes
        assert d.written[b].tolist() == written
        assert d.merges[b].tolist() == merges
        assert d.cover[b].tolist() == covers
