"""Frontier figures: one curve per family, with the trade-offs the paper reports."""

import numpy as np

from wacky_model.figures import memory_frontier, range_frontier
from wacky_model.search import FAMILIES
from wacky_model.types import System

SYSTEM = System(entries=2**31)


def test_memory_frontier_has_one_curve_per_family_and_qlsm_bush_dominates_tiering():
    fig = memory_frontier(SYSTEM, sum_fpr=0.1)
    traces = {t.name: t for t in fig.data}
    assert list(traces) == list(FAMILIES)
    # Tiering needs more memory than Lazy Leveling for the same p at every T (Figure 1).
    tier, lazy = traces["Tiering"], traces["Lazy Leveling"]
    assert np.all(np.asarray(tier.y) >= np.asarray(lazy.y) - 1e-9)
    # QLSM-bush reaches write amplifications no Leveling point reaches (Figure 7).
    assert min(traces["QLSM-bush"].x) < min(traces["Leveling"].x)


def test_range_frontier_leveling_has_the_fewest_runs():
    fig = range_frontier(SYSTEM)
    runs = {t.name: min(t.y) for t in fig.data}
    assert runs["Leveling"] == min(runs.values())
    assert runs["LSM-bush (X=3)"] > runs["Lazy Leveling"]
