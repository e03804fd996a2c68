"""The family table is the one source: every consumer's list is the table's, and its rules hold."""

import math

import numpy as np
import pytest
from plotly.colors import qualitative

from wacky_model import families as fam
from wacky_model.figures.design import FAMILY_COLORS
from wacky_model.figures.paper import complexity, maps
from wacky_model.presets import DEFAULT_T, PRESET_NAMES, preset
from wacky_model.search import FAMILIES, PROJECTION_T, family_knobs
from wacky_model.types import Design, System

SYSTEM = System(entries=2**31)


def test_the_search_projections_are_the_table_rows_in_their_historical_order():
    assert FAMILIES == tuple(f.name for f in fam.TABLE if f.projection)
    # The search breaks ties by this order (Tiering and Lazy Leveling coincide at T = 2).
    assert FAMILIES == (
        "Leveling", "Tiering", "Lazy Leveling", "CLL (C=1)", "CLL (C=2)", "CLL (C=4)", "SCLL",
        "QLSM-bush", "LSM-bush (X=1.5)", "LSM-bush (X=3)",
    )  # fmt: skip
    assert list(family_knobs(SYSTEM)) == list(FAMILIES)


def test_presets_come_from_the_table():
    assert PRESET_NAMES == tuple(f.preset for f in fam.TABLE if f.preset is not None)
    assert PRESET_NAMES == ("leveling", "tiering", "lazy-leveling", "cll", "scll", "qlsm-bush",
                            "plain-leveling", "plain-tiering")
    assert DEFAULT_T == {f.preset: f.default_T for f in fam.TABLE if f.preset is not None}
    for name in PRESET_NAMES:
        family = fam.PRESETS[name]
        d = preset(name, T=6.0, system=SYSTEM)
        assert d.filters == family.filters
        assert tuple(d.knobs.values()) == tuple(float(v) for v in family.knobs(6.0,
                                                                               SYSTEM.buffers))


def test_figures_and_sweep_derive_from_the_table():
    assert list(complexity.FIGURE8) == [f.figure8 for f in fam.TABLE if f.figure8]
    for column in complexity.FIGURE8:
        for metric in complexity.FIGURE8_METRICS:
            assert (column, metric) in complexity.FIGURE8_COMPLEXITY
    assert maps.MAP_FAMILIES == tuple(f.name for f in fam.TABLE if f.on_map) + (fam.WACKY,)
    assert len(set(maps.MAP_COLORS)) == len(maps.MAP_COLORS) == len(maps.MAP_FAMILIES)
    assert FAMILY_COLORS == {f.name: f.color for f in fam.TABLE}
    # The projections keep plotly's default colours, in order (the dashboard's Theta plot).
    assert [FAMILY_COLORS[n].upper() for n in FAMILIES] == [c.upper() for c in qualitative.Plotly]


def test_the_validation_sweep_runs_every_figure8_column_with_a_preset():
    from validation import families as sweep  # here, so the engine's imports only concern this test
    columns = [f for f in fam.TABLE if f.figure8 and f.preset]
    assert tuple(sweep.FAMILY_PRESETS) == tuple(f.preset for f in columns)
    assert {k: tuple(v) for k, v in sweep.FAMILY_T.items()} == {f.preset: f.sweep_T
                                                                for f in columns}


def test_names_are_unique_and_every_map_family_classifies_as_itself():
    names = [f.name for f in fam.TABLE]
    assert len(set(names)) == len(names) and fam.WACKY not in names
    assert len(set(PRESET_NAMES)) == len(PRESET_NAMES)
    system = System(entries=2.0**40)
    for family in (f for f in fam.TABLE if f.on_map):
        for T in (5.0, 10.0, 20.0):
            knobs = (float(v) for v in family.knobs(T, system.buffers))
            assert fam.classify(Design(*knobs), system) == family.name, (family.name, T)


def test_every_projection_is_one_of_the_map_families():
    for family in fam.PROJECTIONS:
        T, C, X, K, Z = (float(v) for v in family.knobs(10.0, SYSTEM.buffers))
        assert fam.classify(Design(T, C, X, K, Z), SYSTEM) in fam.MAP_FAMILIES[:-1], family.name


def test_classify_prefers_the_most_specific_family_then_the_table_order():
    # Lazy Leveling at T = 2 is CLL with C = 1: the fixed family wins over the free one.
    assert fam.classify(Design(2, 1, 1, 1, 0), SYSTEM) == "Lazy Leveling"
    # C = T - 1 within SCLL's slack of log_T(N/F): both fixed, the earlier row wins.
    T = 6.5
    scll_c = float(fam.scll_capping_ratio(T, SYSTEM.buffers))
    assert abs(scll_c - (T - 1)) <= 0.5
    assert fam.classify(Design(T, T - 1, 1, 1, 0), SYSTEM) == "Lazy Leveling"
    assert fam.classify(Design(10, 2.0, 1, 1, 0), SYSTEM) == "CLL"
    assert fam.classify(Design(10, 9, 1, 0, 0, "uniform"), SYSTEM) == fam.WACKY
    assert fam.classify(Design(10, 9, 1.5, 0, 0), SYSTEM) == fam.WACKY


def test_knobs_are_vectorized_over_t_and_the_data_size():
    scll = fam.PRESETS["scll"]
    T = np.array([2.0, 4.0, 16.0])
    n = np.array([[1.0], [2.0**20]])
    knobs = scll.knobs(T, n)
    assert all(k.shape == (2, 3) for k in knobs)
    np.testing.assert_array_equal(knobs[1][0], 1.0)  # C >= 1 even with one buffer of data
    np.testing.assert_allclose(knobs[1][1], 20 * math.log(2) / np.log(T))
    # The search, the preset and Figure 8 read the same SCLL C.
    search_c = family_knobs(SYSTEM)["SCLL"][1][PROJECTION_T == 30.0][0]
    assert preset("scll", system=SYSTEM).C == search_c
    assert complexity.FIGURE8["SCLL"] is scll


def test_only_free_knobs_can_be_set():
    assert fam.PRESETS["cll"].knobs(10.0, 1.0, C=3.0)[1] == 3.0
    with pytest.raises(ValueError, match="C is fixed in the Leveling family"):
        fam.PRESETS["leveling"].knobs(10.0, 1.0, C=3.0)
    with pytest.raises(ValueError, match="X is fixed"):
        fam.PRESETS["qlsm-bush"].knobs(2.0, 1.0, X=3.0)
