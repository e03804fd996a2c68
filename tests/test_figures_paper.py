"""The paper-figure builders: their data must be the cost model's own numbers."""

import numpy as np
import pytest

from cost_models.evaluate import evaluate
from wacky_model.families import MAP_COLORS, MAP_FAMILIES
from wacky_model.figures.paper.common import PAPER_SIZES, paper_system, table_figure
from wacky_model.figures.paper.complexity import (
    ComplexityGrid,
    complexity_checks,
    complexity_figure,
    figure8_rows,
)
from wacky_model.figures.paper.filters import (
    approximation_errors,
    closed_form_gap,
    level_breakdown_figure,
    level_contributions,
    sum_fpr_vs_memory,
)
from wacky_model.figures.paper.hash_tables import FIGURE11_HEADER, hash_tradeoff, level_overview
from wacky_model.figures.paper.maps import design_map, design_map_figure
from wacky_model.figures.paper.tradeoffs import (
    bush_frontier_sweep,
    curve_at,
    family_sweep,
    sized_sweeps,
    tradeoff_figure,
    write_amp_at_memory,
)
from wacky_model.types import Workload

GB32 = paper_system(PAPER_SIZES["32 GB"], sum_fpr=0.1)


def test_tradeoff_curve_values_are_the_cost_model():
    sweep = family_sweep("Tiering", GB32, t_max=16)
    fig = tradeoff_figure([sweep], sum_fpr=0.1)
    (trace,) = fig.data
    e = evaluate(sweep.T, sweep.C, sweep.X, sweep.K, sweep.Z, n_buffers=GB32.buffers,
                 entries_per_block=32, sum_fpr=0.1)
    np.testing.assert_allclose(trace.x, e.write_amp)
    np.testing.assert_allclose(trace.y, e.memory_bits_per_entry)
    assert list(sweep.T) == list(range(2, 17))


def test_range_metric_and_sized_sweeps_share_colour_per_family():
    sweeps = sized_sweeps(lambda s: family_sweep("Lazy Leveling", s, t_max=8), PAPER_SIZES,
                          sum_fpr=0.1)
    fig = tradeoff_figure(sweeps, metric="range", log_y=True)
    assert [t.name for t in fig.data] == [f"Lazy Leveling @ {k}" for k in PAPER_SIZES]
    assert len({t.line.color for t in fig.data}) == 1
    assert len({t.line.dash for t in fig.data}) == 3
    with pytest.raises(ValueError):
        tradeoff_figure(sweeps, metric="nope")


def test_tiering_and_lazy_leveling_meet_at_t2_and_frontier_moves_out_with_n():
    tier = family_sweep("Tiering", GB32)
    lazy = family_sweep("Lazy Leveling", GB32)
    a, b = curve_at(tier, 2), curve_at(lazy, 2)
    assert a["memory"] == pytest.approx(b["memory"]) and a["write_amp"] == b["write_amp"]
    big = family_sweep("Tiering", paper_system(PAPER_SIZES["32 PB"], sum_fpr=0.1))
    assert write_amp_at_memory(big, 10) > 2 * write_amp_at_memory(tier, 10)


def test_bush_frontier_passes_through_the_black_dot():
    sweep = bush_frontier_sweep(2.0, GB32, t_max=8)
    i = int(np.flatnonzero(sweep.T == 2)[0])
    assert sweep.C[i] == 1
    assert np.all(sweep.C[:i] == 1)  # left branch: C = 1
    np.testing.assert_array_equal(sweep.C[i + 1 :], sweep.T[i + 1 :] - 1)  # right: C = T - 1
    assert np.all(sweep.X == 2)


def test_figure8_complexity_columns_check_numerically():
    checks = complexity_checks(ComplexityGrid.default(8))
    assert len(checks) == 30
    for c in checks:
        assert c.growth <= 1.05, c
        if np.isfinite(c.exponent):
            assert 0.7 <= c.exponent <= 1.3, c
        if c.metric == "zero_result_read":
            assert c.spread == pytest.approx(1.0)
        if c.metric == "point_read":
            assert c.spread <= 1.5, c
    assert len(complexity_figure(checks).data[0].cells.values[0]) == 30


def test_figure8_rows_and_table():
    rows = figure8_rows(GB32, {"Leveling": (10.0, 9.0, 1.0, 0.0, 0.0)})
    e = evaluate(10, 9, 1, 0, 0, n_buffers=GB32.buffers, entries_per_block=32, sum_fpr=0.1)
    assert rows[0]["write_amp"] == pytest.approx(float(e.write_amp))
    assert rows[0]["zero_result_read"] == pytest.approx(0.1)
    fig = table_figure(list(rows[0]), [list(rows[0].values())])
    assert fig.data[0].header.values[0] == "design"


def test_level_contributions_sum_to_the_totals():
    c = level_contributions(12.0, 9.0, 1.0, 1.0, 0.0, n_buffers=2.0**34, sum_fpr=0.1)
    e = c.evaluation
    assert c.levels.size == int(e.structure.L)
    assert c.write_amp.sum() == pytest.approx(float(e.write_amp))
    assert c.false_positives.sum() == pytest.approx(0.1)
    assert c.memory.sum() == pytest.approx(float(e.memory_bits_per_entry))
    fig = level_breakdown_figure(c)
    assert all(t.y[-1] == pytest.approx(100.0) for t in fig.data)


def test_optimized_filters_never_lose_to_uniform():
    bits = np.linspace(1, 12, 12)
    c = sum_fpr_vs_memory(2.0, 1.0, 2.0, 1.0, 0.0, n_buffers=32768, bits=bits)
    assert np.all(c["optimized"] <= c["uniform"] * (1 + 1e-12))
    e = evaluate(2.0, 1.0, 2.0, 1.0, 0.0, n_buffers=32768, entries_per_block=32,
                 bits_per_entry=5.0)
    assert c["optimized"][np.flatnonzero(bits == 5)[0]] == pytest.approx(float(e.sum_fpr))


def test_eq26_misses_by_13_percent_for_qlsm_bush_at_t2():
    errs = approximation_errors(np.array([2.0, 4.0, 10.0]), [2.0], n_buffers=131072, sum_fpr=0.1)
    assert errs[2.0][0] == pytest.approx(0.132, abs=0.002)
    assert np.all(errs[2.0][1:] < 0.10) and np.all(errs[2.0] >= 0)


def test_closed_form_gap_closes_as_levels_grow():
    g = closed_form_gap(10.0, 1.0, 1.0, 0.0, sum_fpr=0.1, n_buffers=np.geomspace(10, 1e9, 9))
    gap = np.abs(g["closed_form"] - g["exact"])
    assert np.all(np.diff(gap) <= 1e-12) and gap[-1] < 1e-6


def test_figure11_rows_match_the_paper_table():
    e = evaluate(2.0, 1.0, 2.0, 1.0, 0.0, n_buffers=131072, entries_per_block=32, sum_fpr=0.1,
                 hash_levels=2)
    rows = level_overview(e, 131072)
    assert len(rows[0]) == len(FIGURE11_HEADER)
    assert [round(r[1]) for r in rows[:-1]] == [255, 15, 3, 1, 1]
    assert [round(r[2]) for r in rows[:-1]] == [510, 7680, 24576, 32768, 65536]
    np.testing.assert_allclose([100 * r[3] for r in rows[:-1]], [0.04, 0.59, 1.88, 2.5, 5.0],
                               atol=0.005)
    assert [r[4] for r in rows[:-1]] == ["HT", "HT", "BFs", "BFs", "BFs"]
    assert rows[0][5] == 60 and rows[1][5] == 56
    assert rows[2][5] == pytest.approx(10.56, abs=0.01)  # the paper prints 10.8
    assert rows[-1][3] == pytest.approx(0.1) and rows[-1][6] == 4


def test_hash_tables_trade_memory_for_probes_at_the_same_p():
    h = hash_tradeoff(2.0, 1.0, 2.0, 1.0, 0.0, n_buffers=131072, sum_fpr=0.1)
    assert list(h["hash_levels"]) == [0, 1, 2, 3, 4]
    assert np.all(np.diff(h["probes"]) <= 0) and np.all(np.diff(h["memory"]) >= 0)
    assert h["probes"][0] == pytest.approx(275) and h["probes"][2] == pytest.approx(7)
    np.testing.assert_allclose(h["sum_fpr"], 0.1)


def test_design_map_and_its_figure():
    system = paper_system(2.0**31, bits_per_entry=5.0)
    m = design_map(
        [0.2, 0.8],
        [0.0, 1.0],
        workload_at=lambda x, y: Workload(point_reads=x * (1 - y), zero_reads=x * y,
                                          writes=1 - x),
        system_at=lambda y: system,
        x_title="reads",
        y_title="zero share",
    )
    assert m.families.shape == (2, 2) and set(m.families.ravel()) <= set(MAP_FAMILIES)
    assert np.all(m.T >= 2)
    fig = design_map_figure(m)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (2, 2)
    np.testing.assert_array_equal(
        z - 0.5, np.vectorize(MAP_FAMILIES.index)(m.families).astype(float)
    )
    legend = {t.name for t in fig.data[1:]}
    assert legend == set(m.families.ravel())
    colours = dict(zip(MAP_FAMILIES, MAP_COLORS, strict=True))
    assert all(t.marker.color == colours[t.name] for t in fig.data[1:])
