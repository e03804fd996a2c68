"""The structure drawing, Theta vs T per family, and the current design marked on frontiers."""

import numpy as np
import pytest

from wacky_model.analysis import analyze
from wacky_model.figures.design import (
    BOX_GAP,
    MAX_RUN_BOXES,
    level_widths,
    structure_figure,
    theta_by_family,
)
from wacky_model.figures.frontiers import memory_frontier, range_frontier
from wacky_model.presets import preset
from wacky_model.search import FAMILIES, DesignSpace, recommend
from wacky_model.types import System, Workload

SYSTEM = System(entries=2**31)
WORKLOAD = Workload(point_reads=0.3, zero_reads=0.2, writes=0.5)


def _boxes(fig, level):
    return [s for s in fig.layout.shapes if s.y0 < level < s.y1]


def test_structure_draws_each_level_with_its_runs():
    # Figure 3's CLL at T = 4, C = 1: tiered levels of T - 1 = 3 runs, one run at Level L.
    a = analyze(preset("cll", T=4), SYSTEM, realizable=True)
    fig = structure_figure(a)
    assert len(_boxes(fig, 0)) == 1  # the buffer
    for row in a.levels:
        assert len(_boxes(fig, row.level)) == int(row.runs)
    # Larger levels are drawn wider; the largest spans the full width.
    def extent(level):
        last = max(_boxes(fig, level), key=lambda b: b.x1)
        slot = (last.x1 - last.x0) / (1 - BOX_GAP)
        return last.x1 + slot * BOX_GAP / 2

    widths = [extent(row.level) for row in a.levels]
    assert widths == sorted(widths) and widths[-1] == pytest.approx(1.0)
    labels = [ann.text for ann in fig.layout.annotations]
    last = a.levels[-1]
    assert f"L{last.level}: 1 run" in labels[-1] and f"{last.fpr_per_run:.2g}" in labels[-1]


def test_a_level_with_many_runs_is_drawn_with_an_ellipsis():
    a = analyze(preset("qlsm-bush"), SYSTEM, realizable=True)
    busy = max(a.levels, key=lambda r: r.runs)
    assert busy.runs > MAX_RUN_BOXES
    fig = structure_figure(a)
    boxes = _boxes(fig, busy.level)
    assert len(boxes) == MAX_RUN_BOXES
    assert sum(b.line.dash == "dot" for b in boxes) == 1
    assert any(ann.text == "…" and ann.y == busy.level for ann in fig.layout.annotations)
    assert f"{int(busy.runs)} runs" in " ".join(ann.text for ann in fig.layout.annotations)


def test_level_widths_are_log_scaled_and_bounded():
    w = level_widths([1e3, 1e6, 1e9])
    assert w[0] == pytest.approx(0.3) and w[-1] == pytest.approx(1.0)
    assert w[1] - w[0] == pytest.approx(w[2] - w[1])
    assert np.all(level_widths([5, 5]) == 1.0)


def test_theta_by_family_has_one_curve_per_family_and_marks_the_current_design():
    space = DesignSpace.build(SYSTEM)
    rec = recommend(WORKLOAD, SYSTEM, space=space)
    fig = theta_by_family(SYSTEM, WORKLOAD, space=space,
                          current=(rec.design.T, rec.cost, "recommended"))
    curves = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in curves] == list(FAMILIES)
    # The dot on each curve is its minimum, which is what recommend reports per family.
    best = {alt.family: alt.cost for alt in rec.alternatives}
    for curve in curves:
        assert np.nanmin(curve.y) == pytest.approx(best[curve.name])
        # A T the family cannot build is a gap in its curve, not a spike to 1e30.
        assert np.nanmax(curve.y) < 1e3
    assert any(np.isnan(curve.y).any() for curve in curves)  # QLSM-bush and X=3 have gaps
    (star,) = [t for t in fig.data if t.name == "recommended"]
    assert star.y[0] == pytest.approx(rec.cost) and star.y[0] <= min(best.values()) + 1e-12


def test_frontiers_mark_the_design_where_its_costs_put_it():
    design = preset("lazy-leveling", T=8)
    fig = range_frontier(SYSTEM, design=design, label="mine")
    a = analyze(design, SYSTEM, realizable=True)
    assert fig.data[-1].name == "mine"
    assert (fig.data[-1].x[0], fig.data[-1].y[0]) == pytest.approx((a.write_amp, a.range_runs))
    # On the memory frontier the marked design lies on its own family's curve at T = 8.
    fig = memory_frontier(SYSTEM, 0.1, design=design)
    curve = next(t for t in fig.data if t.name == "Lazy Leveling")
    i = list(curve.text).index("T=8")
    assert (fig.data[-1].x[0], fig.data[-1].y[0]) == pytest.approx((curve.x[i], curve.y[i]))
    # Without a design the figures are as before.
    assert len(range_frontier(SYSTEM).data) == len(FAMILIES)
