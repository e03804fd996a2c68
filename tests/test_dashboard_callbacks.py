"""The dashboard's callbacks called directly, as Dash would call them."""

from __future__ import annotations

import json
import re

import pytest
from dash import no_update
from dashboard_helpers import (
    KNOBS,
    SYSTEM,
    WORKLOAD,
    fake_runner,
    find,
    services,
    space_for,
    text_of,
    views,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard import callbacks as cb
from dashboard import help as HELP
from dashboard import layout as L
from dashboard.app import check_port, create_app
from wacky_cli.main import main as wacky_main
from wacky_model.analysis import analyze
from wacky_model.guardrails import DEFAULT_CONSTRAINTS
from wacky_model.search import recommend
from wacky_model.types import Design, System, Workload

# --------------------------------------------------------------------------- views


def test_recommend_mode_shows_the_recommendation_of_the_normalized_workload():
    out = views()
    system = System()
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), system,
                    space=space_for(system, DEFAULT_CONSTRAINTS))
    assert out[L.MESSAGE] == []
    assert out[cb.MESSAGE_STYLE] == {"display": "none"}
    assert text_of(find(out[L.CARD], "card-family")) == rec.family
    assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(rec.cost, rel=1e-3)
    assert out[L.CURRENT]["design"] == rec.design.knobs
    assert [r["family"] for r in out[L.ALTERNATIVES]] == [a.family for a in rec.alternatives]
    # The per-level table and the drawing describe the same levels.
    assert len(out[L.LEVELS]) == len(rec.analysis.levels)
    assert [t.name for t in out[L.THETA].data if t.showlegend is not False][-1].startswith(
        rec.family)
    assert "Normalized mix: point 20%, zero-result 20%, write 60%, range 0%" == out[L.MIX]


def test_weights_are_normalized_so_counts_and_percentages_agree():
    a = views({"point-reads": 1, "zero-reads": 1, "writes": 3, "range-reads": 0})
    b = views({"point-reads": 20, "zero-reads": 20, "writes": 60, "range-reads": 0})
    assert a[L.CURRENT] == b[L.CURRENT]


def test_changing_the_workload_changes_the_recommendation():
    writes = views({"point-reads": 5, "zero-reads": 5, "writes": 90})
    reads = views({"point-reads": 10, "zero-reads": 85, "writes": 5, "range-reads": 0})
    ranges = views({"point-reads": 0, "zero-reads": 0, "writes": 10, "range-reads": 90,
                    "range-blocks": 4})
    designs = {tuple(o[L.CURRENT]["design"].values()) for o in (writes, reads, ranges)}
    assert len(designs) == 3
    # Many range reads want few runs: fewer than the write-heavy design probes.
    assert ranges[L.CARD] is not no_update
    runs = lambda o: sum(float(r["runs"]) for r in o[L.LEVELS])  # noqa: E731
    assert runs(ranges) < runs(writes)


def test_manual_mode_analyzes_the_knobs_given():
    out = views(mode="manual", knobs={"T": 6, "C": 5, "X": 1, "K": 1, "Z": 1})
    expected = analyze(Design(6, 5, 1, 1, 1), System(), Workload(0.2, 0.2, 0.6, 0),
                       realizable=True)
    assert text_of(find(out[L.CARD], "card-family")) == "Tiering"
    # The card leads with the finite-N model (what the search optimizes), then the paper's Θ.
    assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(
        expected.finite.theta, rel=1e-3)
    assert float(text_of(find(out[L.CARD], "card-paper-theta"))) == pytest.approx(
        expected.theta, rel=1e-3)
    assert out[L.CURRENT]["design"] == {"T": 6.0, "C": 5.0, "X": 1.0, "K": 1.0, "Z": 1.0}
    assert "Manual design" in text_of(out[L.CARD])
    # Moving one knob moves the cost.
    moved = views(mode="manual", knobs={"T": 12, "C": 11, "X": 1, "K": 1, "Z": 1})
    assert text_of(find(moved[L.CARD], "card-theta")) != text_of(find(out[L.CARD],
                                                                      "card-theta"))


def test_the_current_design_is_marked_on_every_figure():
    out = views(mode="manual", knobs={"T": 4, "C": 1, "X": 2, "K": 1, "Z": 0})
    a = analyze(Design(4, 1, 2, 1, 0), System(), Workload(0.2, 0.2, 0.6, 0), realizable=True)
    star = lambda fig: [t for t in fig.data if t.marker.symbol == "star"]  # noqa: E731
    (theta_star,) = star(out[L.THETA])
    assert theta_star.x[0] == 4 and theta_star.y[0] == pytest.approx(a.finite.theta, rel=1e-4)
    # Every star sits at the figures the card headlines (the finite-N model's), not at the
    # paper's closed forms that draw the frontiers' curves (issue 31).
    (range_star,) = star(out[L.RANGE_FRONTIER])
    assert range_star.x[0] == pytest.approx(a.finite.write_amp, rel=1e-4)
    assert range_star.y[0] == pytest.approx(a.finite.range_runs, rel=1e-4)
    (memory_star,) = star(out[L.MEMORY_FRONTIER])
    assert memory_star.x[0] == pytest.approx(a.finite.write_amp, rel=1e-4)
    assert memory_star.y[0] == pytest.approx(a.finite.memory_bits_per_entry, rel=1e-3)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"system": {"entries": None}}, "Entries N: the field is empty"),
        ({"system": {"entries": 0}}, "Entries N: must be between 1 and 2^53; got 0"),
        ({"system": {"entries": 1e30}}, "Entries N: must be between 1 and 2^53; got 1e+30"),
        ({"system": {"entries": "lots"}}, "Entries N: 'lots' is not a number"),
        ({"system": {"entries": "9" * 60}}, "Entries N: must be between 1 and 2^53; got 1e+60"),
        ({"system": {"entries": "x" * 60}}, "Entries N: 'xxxxxxxxxxxxxxxxxxxxxxxx…' is not"),
        ({"workload": {"write-keys": "zipf:2"}}, "Write keys: zipf theta must be in [0, 1.5]"),
        ({"workload": {"read-keys": "pareto"}}, "Read keys: unknown distribution 'pareto'"),
        ({"workload": {"update-fraction": 150}},
         "Updates (% of writes): must be between 0 and 100; got 150"),
        ({"workload": {"robust-rho": -1}},
         "Uncertainty ρ (robust tuning): must be between 0 and 100; got -1"),
        ({"workload": {"robust-rho": 0.5, "write-keys": "zipf:0.9"}},
         "robust tuning is not combined with key skew"),
        ({"system": {"cache-mib": -1}}, "Block cache (MiB): must be between 0 and 2^42; got -1"),
        ({"system": {"memory-split": ["on"], "memory-bits": 1}},
         "Total memory (bits/entry) must exceed the fence pointers"),
        ({"system": {"buffer-mib": 10**6}}, "make it smaller than the data"),
        ({"system": {"entries": 1000, "buffer-mib": 1}}, "make it smaller than the data"),
        ({"system": {"block-bytes": 100}}, "a block must hold at least one entry"),
        ({"system": {"entry-bytes": 12.5}}, "whole number of bytes"),
        ({"system": {"bits-per-entry": -1}},
         "Filter memory (bits/entry): must be between 0 and 10^6; got -1"),
        ({"workload": {"point-reads": 0, "zero-reads": 0, "writes": 0, "range-reads": 0}},
         "every operation weight is 0"),
        ({"workload": {"writes": -5}}, "Writes: must be between 0 and 10^12; got -5"),
        ({"system": {"entries": 2**53, "entry-bytes": 2**20}},
         "Entries N × Entry size (bytes): the data must be at most 2^62 bytes"),
        ({"system": {"buffer-mib": "1e308"}}, "Buffer (MiB): must be between 0 and 2^42"),
        ({"workload": {"range-blocks": None}}, "Range length (blocks): the field is empty"),
        ({"mode": "manual", "knobs": {"T": None}}, "T: base ratio: the field is empty"),
        ({"mode": "manual", "knobs": {"K": 3}},
         "K: greediness, levels 1..L-1: must be between 0 and 1; got 3"),
        ({"mode": "manual", "knobs": {"T": 1000}}, "T: base ratio: must be between 2 and 512"),
    ],
)
def test_bad_values_give_an_inline_message_and_no_design(change, expected):
    out = views(**change)
    message = text_of(out[L.MESSAGE])
    assert expected in message
    assert out[cb.MESSAGE_STYLE] == L.MESSAGE_STYLE  # shown
    assert out[L.CURRENT] is None  # nothing to validate
    for key in (L.CARD, L.STRUCTURE, L.THETA, L.MEMORY_FRONTIER, L.RANGE_FRONTIER):
        assert out[key] is no_update  # the last valid views stay


def test_every_bad_field_is_reported_at_once():
    out = views({"writes": None}, {"entries": None, "block-bytes": None})
    message = text_of(out[L.MESSAGE])
    for label in ("Writes", "Entries N", "Block size (bytes)"):
        assert f"{label}: the field is empty" in message
    # Checks that need several fields report together too, with the key fields' own.
    out = views({"write-keys": "zipf:9", "update-fraction": -1},
                {"entry-bytes": 12.5, "block-bytes": 0.5, "cache-mib": -2}, mode="manual",
                knobs={"T": 1, "K": 2})
    message = text_of(out[L.MESSAGE])
    for expected in ("Write keys: zipf theta", "Updates (% of writes): must be between 0 and 100",
                     "Entry size (bytes): must be a whole number", "Block size (bytes): must be "
                     "between 1 and 2^30", "Block cache (MiB): must be between", "T: base ratio",
                     "K: greediness"):
        assert expected in message


def test_mix_text_for_unusable_weights():
    assert cb.mix_text({**WORKLOAD, "writes": None}).startswith("Mix: enter")


def test_manual_controls_show_only_in_manual_mode():
    assert cb.manual_controls_style("manual") == {"display": "block"}
    assert cb.manual_controls_style("recommend") == {"display": "none"}


# --------------------------------------------------------------------------- knobs


def test_preset_buttons_set_the_sliders():
    out = cb.set_knobs({"type": L.PRESET_TYPE, "name": "leveling"}, "manual", None, SYSTEM)
    assert out == (10.0, 9.0, 1.0, 0.0, 0.0, "optimized", "")
    out = cb.set_knobs({"type": L.PRESET_TYPE, "name": "plain-tiering"}, "manual", None, SYSTEM)
    assert out[3:6] == (1.0, 1.0, "uniform")
    T, C, X, *_ = cb.set_knobs({"type": L.PRESET_TYPE, "name": "scll"}, "manual", None, SYSTEM)
    assert (T, X) == (30.0, 1.0) and 2 < C < 4  # C = log_T(N/F) = log_30(32768)
    assert C == 3.057  # the box shows 4 significant digits, not 3.0569257063575925


def test_a_preset_that_needs_the_system_says_so_when_it_is_bad():
    out = cb.set_knobs({"type": L.PRESET_TYPE, "name": "scll"}, "manual", None,
                       {**SYSTEM, "entries": 0})
    assert out[:6] == (no_update,) * 6
    assert "needs a valid system" in out[6] and "Entries N" in out[6]


def test_switching_to_manual_starts_from_the_design_shown():
    current = views()[L.CURRENT]
    out = cb.set_knobs(L.MODE, "manual", current, SYSTEM)
    assert out[:5] == tuple(float(f"{v:.4g}") for v in current["design"].values())
    assert cb.set_knobs(L.MODE, "recommend", current, SYSTEM) == (no_update,) * 7
    # A link with knobs switches to manual too; its knobs are not replaced by the design shown.
    link = "?mode=manual&T=6&C=5&X=1&K=1&Z=0"
    assert cb.set_knobs(L.MODE, "manual", current, SYSTEM, link)[:5] == (no_update,) * 5


# --------------------------------------------------------------------------- app and CLI


def test_create_app_registers_the_callbacks_on_the_layout():
    app = create_app(runner=fake_runner)
    ids = {c.id for c in app.layout._traverse() if isinstance(getattr(c, "id", None), str)}
    assert {L.CARD, L.VALIDATE, L.POLL, L.MESSAGE, L.knob_id("T")} <= ids
    outputs = " ".join(app.callback_map)
    for component in (L.CARD, L.STRUCTURE, L.JOB, L.MANUAL_CONTROLS, L.knob_id("Z")):
        assert component in outputs


@pytest.mark.parametrize("port", [0, -1, 65536, True])
def test_bad_ports_are_refused(port):
    with pytest.raises(ValueError, match="port must be a whole number"):
        check_port(port)


def test_cli_refuses_a_bad_port_with_exit_2(capsys):
    assert wacky_main(["dashboard", "--port", "0"]) == 2
    assert "error: port must be a whole number in [1, 65535]; got 0" in capsys.readouterr().err


# --------------------------------------------------------------------------- any input at all

_value = st.one_of(st.none(), st.integers(-5, 10**10), st.floats(allow_nan=True,
                                                                  allow_infinity=True))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    workload=st.fixed_dictionaries({k: _value for k in WORKLOAD}),
    system=st.fixed_dictionaries({k: _value for k in SYSTEM}),
    mode=st.sampled_from(["recommend", "manual", None]),
    knobs=st.fixed_dictionaries({k: _value for k in KNOBS}),
)
def test_no_control_values_raise_instead_of_explaining_themselves(workload, system, mode, knobs):
    out = cb.update_views(workload, system, mode, knobs, "optimized", services())
    if out[L.CURRENT] is None:
        assert text_of(out[L.MESSAGE])  # refused, and said why
    else:
        assert out[L.MESSAGE] == [] and out[L.CARD] is not no_update


def test_card_flags_levels_over_the_practical_run_limit():
    many = views(mode="manual", knobs={"T": 100, "C": 99, "X": 1, "K": 1, "Z": 0})
    warnings = find(many[L.CARD], "card-warnings")
    assert warnings is not None and "RocksDB stops writes at 36" in text_of(warnings)
    few = views(mode="manual", knobs={"T": 10, "C": 9, "X": 1, "K": 0, "Z": 0})
    assert find(few[L.CARD], "card-warnings") is None


# --------------------------------------------------------------------------- state in the URL


def test_the_controls_round_trip_through_the_query_string():
    knobs = {"T": 5.5, "C": 4, "X": 1, "K": 1, "Z": 0}
    query = cb.state_query({**WORKLOAD, "writes": 5}, SYSTEM, "manual", knobs, "uniform")
    assert "entries=2147483648" in query and "T=5.5" in query
    state = cb.state_from_query(query)
    assert state["writes"] == 5 and state["entries"] == "2,147,483,648" and state["T"] == 5.5
    assert state["mode"] == "manual" and state["filters"] == "uniform"
    # The skew, the cache and the memory split travel too.
    skewed = {**WORKLOAD, "write-keys": "zipf:0.9", "read-keys": "latest", "update-fraction": 30,
              "correlated": [], "robust-rho": 0}
    split = {**SYSTEM, "entries": "2,147,483,648", "cache-mib": 512, "memory-split": ["on"],
             "memory-bits": 12}
    state = cb.state_from_query(cb.state_query(skewed, split, "recommend", knobs, "optimized"))
    assert (state["write-keys"], state["read-keys"], state["update-fraction"]) == (
        "zipf:0.9", "latest", 30)
    assert state["correlated"] == [] and state["memory-split"] == ["on"]
    assert (state["cache-mib"], state["memory-bits"], state["entries"]) == (
        512, 12, "2,147,483,648")
    # In recommend mode the knobs are not part of the state.
    assert "T=" not in cb.state_query(WORKLOAD, SYSTEM, "recommend", knobs, "optimized")


def test_loading_a_url_restores_the_controls_and_editing_writes_them_back():
    out = cb.sync_url(None, "?writes=5&zero-reads=abc&mode=manual&T=20&bogus=1", {})
    restored = dict(zip(cb.URL_CONTROLS, out[1:], strict=True))
    assert out[0] is no_update
    assert restored["writes"] == 5 and restored["mode"] == "manual" and restored["T"] == 20
    assert restored["zero-reads"] == "abc"  # the page then names the field and the value
    assert restored["entries"] is no_update
    assert cb.sync_url(None, "", {}) == (no_update,) * (len(cb.URL_CONTROLS) + 1)
    values = {**WORKLOAD, **SYSTEM, **KNOBS, "mode": "recommend", "filters": "optimized"}
    out = cb.sync_url("writes", "", values)
    assert out[0].startswith("?") and "writes=60" in out[0]
    assert set(out[1:]) == {no_update}
    assert cb.sync_url("writes", out[0], values)[0] is no_update  # unchanged: no new entry


# --------------------------------------------------------------------------- knob boxes


def test_knob_boxes_and_log_sliders_move_together():
    # Dragging T's log slider to 10^1.5 sets the box to 31.6; a box value moves the slider.
    assert cb.sync_knob("T", L.knob_slider_id("T"), 1.5, 10) == (no_update, 31.6)
    position, box = cb.sync_knob("C", L.knob_id("C"), 0.0, 100)
    assert position == pytest.approx(2.0) and box is no_update
    assert cb.sync_knob("X", L.knob_id("X"), 1, 2.5) == (2.5, no_update)  # linear
    # Out of range or empty: the slider stays and the box keeps what was typed (not clamped).
    assert cb.sync_knob("T", L.knob_id("T"), 1.0, 1000) == (no_update, no_update)
    assert cb.sync_knob("K", L.knob_id("K"), 1.0, None) == (no_update, no_update)


def test_knob_boxes_apply_on_enter():
    app = create_app(runner=fake_runner)
    names = {L.knob_id(n) for n in cb.KNOB_NAMES}
    boxes = {c.id: c for c in app.layout._traverse()
             if isinstance(getattr(c, "id", None), str) and c.id in names}
    assert len(boxes) == 5 and all(b.debounce is True for b in boxes.values())


# --------------------------------------------------------------------------- RocksDB panel


def test_the_rocksdb_panel_shows_the_export_with_its_grades():
    out = views(mode="manual", knobs={"T": 10, "C": 9, "X": 1, "K": 0, "Z": 0})
    panel = out[L.ROCKSDB]
    assert text_of(find(panel, "rocksdb-grade")) in ("exact", "approximate", "needs-driver")
    options = text_of(find(panel, "rocksdb-options"))
    assert "[CFOptions \"default\"]" in options and "write_buffer_size=" in options


def test_the_download_buttons_give_the_options_file_and_the_json():
    import json

    current = views(mode="manual", knobs={"T": 10, "C": 9, "X": 1, "K": 0, "Z": 0})[L.CURRENT]
    options = cb.rocksdb_download(L.ROCKSDB_OPTIONS_BUTTON, current)
    assert options["filename"] == "OPTIONS-wacky.ini"
    assert "[DBOptions]" in options["content"] and "compaction_style=" in options["content"]
    full = cb.rocksdb_download(L.ROCKSDB_JSON_BUTTON, current)
    assert full["filename"] == "wacky-rocksdb.json"
    data = json.loads(full["content"])
    assert data["design"]["T"] == 10 and data["grade"] and data["options"]
    assert cb.rocksdb_download(L.ROCKSDB_JSON_BUTTON, None) is no_update


# --------------------------------------------------------------------------- charts


def test_the_charts_keep_a_far_from_best_manual_design_in_view():
    import math

    out = views(mode="manual", knobs={"T": 512, "C": 4096, "X": 1, "K": 1, "Z": 1})
    theta = float(text_of(find(out[L.CARD], "card-theta")))
    lo, hi = out[L.THETA].layout.yaxis.range
    assert out[L.THETA].layout.yaxis.type == "log"
    assert lo < math.log10(theta) < hi  # the Θ-against-T axis includes the design
    for key in (L.MEMORY_FRONTIER, L.RANGE_FRONTIER):
        assert out[key].layout.xaxis.type == "log"  # write amplification spans decades


def test_a_design_with_a_sum_of_fprs_above_one_is_marked_at_its_own_memory():
    # 1 bit per entry on a tiered tree: the FPRs sum to more than 1, and the curves are held
    # at p = 1; the star stays at the design's own memory (the card's finite-N figure for its
    # 1 bit per entry), with a note, not at the 17 bits p = 1 would need.
    out = views(mode="manual", knobs={"T": 10, "C": 9, "X": 1, "K": 1, "Z": 1},
                system={"bits-per-entry": 1})
    fig = out[L.MEMORY_FRONTIER]
    (memory_star,) = [t for t in fig.data if t.marker.symbol == "star"]
    a = analyze(Design(10, 9, 1, 1, 1), System(bits_per_entry=1), Workload(0.2, 0.2, 0.6, 0),
                realizable=True)
    assert memory_star.y[0] == pytest.approx(a.finite.memory_bits_per_entry, rel=1e-3)
    assert memory_star.y[0] <= 1.0
    assert "> 1: shown at its own memory" in fig.layout.title.text


# --------------------------------------------------------------------------- skew, memory, robust


def test_numbers_are_read_as_people_type_them():
    for typed in ("2,147,483,648", "2^31", "2**31", "2_147_483_648", " 2147483648 "):
        assert cb.number("entries", typed) == 2**31
    assert cb.number("entries", "1e9") == 1e9


def test_key_skew_and_a_cache_are_priced_by_the_skew_model_on_the_card():
    out = views({"write-keys": "zipf:0.9", "read-keys": "zipf:0.9", "update-fraction": 50},
                {"cache-mib": 4096})
    assert out[L.MESSAGE] == []
    card = text_of(out[L.CARD])
    assert "under the key skew (skew model)" in card and "cache hit rate" in card
    assert out[L.CURRENT]["workload"]["write_keys"] == "zipf:0.9"
    assert out[L.CURRENT]["workload"]["update_fraction"] == 0.5
    assert out[L.CURRENT]["cache_fraction"] == pytest.approx(4096 * 2**20 / (2**31 * 128))
    # The headline is Θ under the skew, which differs from the uniform finite-N Θ.
    uniform = views()
    assert find(out[L.CARD], "card-theta").children != find(uniform[L.CARD],
                                                            "card-theta").children


def test_a_total_memory_budget_is_split_by_the_search_and_the_split_is_shown():
    out = views(system={"memory-split": ["on"], "memory-bits": 10})
    assert out[L.MESSAGE] == []
    card = text_of(out[L.CARD])
    assert "Memory, split by the search: buffer" in card and "= 10 bits/entry" in card
    system = System(**out[L.CURRENT]["system"])
    budget = System(memory_bits_per_entry=10)
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), budget,
                    space=space_for(budget, DEFAULT_CONSTRAINTS))
    assert system.buffer_bytes == rec.system.buffer_bytes
    assert system.bits_per_entry == pytest.approx(rec.system.bits_per_entry)
    # The download exports the design at the split, not at the buffer in the field.
    exported = json.loads(cb.rocksdb_download(L.ROCKSDB_JSON_BUTTON, out[L.CURRENT])["content"])
    assert str(rec.system.buffer_bytes) in json.dumps(exported)


def test_robust_tuning_reports_the_worst_case_against_the_nominal_design():
    out = views({"robust-rho": 0.5})
    assert out[L.MESSAGE] == []
    card = text_of(out[L.CARD])
    assert "Robust tuning for ρ = 0.5: the worst Θ over the workloads within ρ is" in card
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), System(), rho=0.5,
                    space=space_for(System(), DEFAULT_CONSTRAINTS))
    assert f"{rec.robust['robust_design']['worst_case_cost']:.4g}" in card
    assert f"{rec.robust['nominal_design']['worst_case_cost']:.4g}" in card


def test_the_system_summary_says_what_the_fields_add_up_to():
    assert cb.system_summary(SYSTEM) == ("2,147,483,648 entries = 256 GiB of data, 32 entries "
                                         "per block; the buffer holds 65,536 entries.")
    assert cb.system_summary({**SYSTEM, "entries": "bad"}) == ""


def test_every_labelled_control_has_help_text():
    labels = []

    def walk(component):
        if getattr(component, "_type", None) == "Label":
            labels.append(component)
        children = getattr(component, "children", None)
        for child in children if isinstance(children, (list, tuple)) else [children]:
            if hasattr(child, "to_plotly_json"):
                walk(child)

    walk(L.build_layout())
    assert len(labels) >= 20
    untitled = [label.htmlFor for label in labels if len(getattr(label, "title", "")) < 20]
    assert untitled == []
    for name, _ in cb.COST_ROWS:
        assert name in HELP.METRICS


@pytest.mark.parametrize("value", [-1, 0, 0.5, 1e30, "1e308", "nan", "abc", 2**70])
def test_no_message_names_an_internal_field_or_prints_a_huge_number(value):
    """Every field, fed nonsense: the message names fields as the page labels them and never
    prints a number of 13 digits or more (a 31-digit byte count was seen)."""
    internal = re.compile(r"\b[a-z]+_[a-z_]+\b")
    for group, names in (("workload", cb.WORKLOAD_CONTROLS), ("system", cb.SYSTEM_CONTROLS)):
        for name in names:
            if name in (L.CORRELATED, L.MEMORY_SPLIT):
                continue
            change = {group: {name: value}}
            if name == L.MEMORY_BITS[0]:
                change = {"system": {L.MEMORY_SPLIT: ["on"], name: value}}
            message = text_of(views(**change)[L.MESSAGE])
            assert not internal.search(message), (name, message)
            computed = re.sub(r"'[^']*'", "", message)  # not the echo of what was typed
            assert not re.search(r"\d{13,}", computed.replace(",", "")), (name, message)


def test_a_run_limit_keeps_the_recommendation_within_it_and_the_warning_names_the_field():
    free = views(system={"max-runs": 0})  # 0 lifts the default cap of 36
    assert "the field “Max runs per level (0: no limit)” limits it" in text_of(
        find(free[L.CARD], "card-warnings"))
    default = views()  # the field's default is recommend's cap, 36: no warning, and its cost
    assert find(default[L.CARD], "card-warnings") is None
    assert "Without the cap (“Max runs per level (0: no limit)” at 0)" in text_of(default[L.CARD])
    limited = views(system={"max-runs": 36})
    assert limited[L.MESSAGE] == [] and find(limited[L.CARD], "card-warnings") is None
    k = limited[L.CURRENT]["design"]
    a = analyze(Design(**k), System(), realizable=True)
    assert max(row.runs for row in a.levels) <= 36
    assert "max-runs=36" in cb.state_query(WORKLOAD, {**SYSTEM, "max-runs": 36}, "recommend",
                                           KNOBS, "optimized")
    message = text_of(views(system={"max-runs": 2.5})[L.MESSAGE])
    assert "Max runs per level (0: no limit): must be a whole number; got 2.5" in message


def test_a_manual_design_is_compared_with_the_robust_pick_at_the_same_workload():
    out = views({"robust-rho": 0.5}, mode="manual")
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), System(), rho=0.5,
                    space=space_for(System(), DEFAULT_CONSTRAINTS))
    nominal = rec.robust["robust_design"]["nominal_cost"]
    theta = analyze(Design(**KNOBS), System(), Workload(0.2, 0.2, 0.6, 0.0),
                    realizable=True).finite.theta
    assert (f"has Θ = {nominal:.4g} at this workload (worst case {rec.cost:.4g}): this design "
            f"reaches {nominal / theta:.0%} of its throughput here") in text_of(out[L.CARD])


# ------------------------------------------------------------------ merges, trigger, target

STOCK = {"target": "rocksdb"}


def test_the_search_menus_have_labels_help_and_the_searched_defaults():
    page = L.build_layout()
    for field, label, options, default in L.SEARCH_CHOICES:
        menu = find(page, field)
        assert menu is not None and menu.value == default and menu.clearable is False
        assert [o["label"] for o in menu.options] == [text for _, text in options]
        assert len(HELP.CONTROLS[field]) > 40 and cb.LABELS[field] == label
    assert [o["label"] for o in find(page, "merges").options] == [
        "Any — the search chooses", "Whole levels", "Files"]
    assert [o["label"] for o in find(page, "level0-trigger").options] == [
        "Searched", "1", "2", "4", "8"]
    assert [o["label"] for o in find(page, "target").options] == [
        "This project's engine", "Stock RocksDB"]
    # The defaults are the library's: the search chooses everything.
    assert cb.parse_pins(cb.default_controls()[1]) == cb.SEARCHED == cb.SearchPins()


def test_a_stock_rocksdb_pick_is_the_librarys_with_its_options_on_the_card():
    from wacky_model.rocksdb_tuning import RocksDBConfig

    out = views(system=STOCK)
    assert out[L.MESSAGE] == []
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), System(), target="rocksdb")
    assert rec.model == "rocksdb"
    assert out[L.CURRENT]["configuration"] == rec.configuration.to_dict()
    assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(rec.cost, rel=1e-3)
    card = text_of(out[L.CARD])
    assert "Recommended stock RocksDB configuration" in card and "on stock RocksDB" in card
    exported = RocksDBConfig.of(rec.configuration).export(rec.system)
    options = exported.options_dict()
    table = text_of(find(out[L.CARD], "card-rocksdb-options"))
    for name in ("compaction_style", "max_bytes_for_level_multiplier",
                 "level0_file_num_compaction_trigger", "target_file_size_base",
                 "max_bytes_for_level_base", "write_buffer_size"):
        value = options[name]
        assert name in table and (f"{int(value):,}" if value.isdigit() else value) in table
    assert f"bits per key {exported.bits_per_key:g}" in table
    # The panel below shows the same OPTIONS file, and its download is that file.
    assert text_of(find(out[L.ROCKSDB], "rocksdb-options")) == exported.options_file()
    download = cb.rocksdb_download(L.ROCKSDB_OPTIONS_BUTTON, out[L.CURRENT])
    assert download["content"] == exported.options_file() + "\n"
    full = json.loads(cb.rocksdb_download(L.ROCKSDB_JSON_BUTTON, out[L.CURRENT])["content"])
    assert full == exported.to_dict()


def test_a_file_granular_pick_shows_and_exports_its_files_and_trigger():
    out = views(system={"merges": "file", "level0-trigger": "4"})
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), System(), granularity="file",
                    level0_trigger=4)
    c = rec.compaction
    assert out[L.CURRENT]["configuration"] == rec.configuration.to_dict()
    assert out[L.CURRENT]["compaction"]["level1_runs"] == c.level1_runs == 4
    assert out[L.CURRENT]["rocksdb"] is None  # not a stock RocksDB configuration
    configuration = text_of(find(out[L.CARD], "card-configuration"))
    assert f"files of {cb._bytes(c.file_bytes)} ({c.file_bytes:,} B)" in configuration
    assert "level-0 trigger 4" in configuration
    assert "Level sizes: the design's" in configuration
    options = text_of(find(out[L.ROCKSDB], "rocksdb-options"))
    assert "level0_file_num_compaction_trigger=4" in options
    assert f"target_file_size_base={c.file_bytes}" in options
    # Whole levels only: the card says so, and the search's note says what it covered.
    level = views(system={"merges": "level"})
    assert "Merges: whole levels" in text_of(find(level[L.CARD], "card-configuration"))
    assert level[L.CURRENT]["configuration"]["compaction"]["granularity"] == "level"


def test_the_menus_round_trip_through_the_url():
    system = {**SYSTEM, "merges": "file", "level0-trigger": "4", "target": "rocksdb"}
    query = cb.state_query(WORKLOAD, system, "recommend", KNOBS, "optimized")
    assert "merges=file" in query and "level0-trigger=4" in query and "target=rocksdb" in query
    state = cb.state_from_query(query)
    assert (state["merges"], state["level0-trigger"], state["target"]) == ("file", "4",
                                                                           "rocksdb")
    restored = dict(zip(cb.URL_CONTROLS, cb.sync_url(None, query, {})[1:], strict=True))
    assert (restored["merges"], restored["level0-trigger"], restored["target"]) == (
        "file", "4", "rocksdb")
    # Editing a menu writes the URL.
    values = {**WORKLOAD, **SYSTEM, **KNOBS, "mode": "recommend", "filters": "optimized",
              "target": "rocksdb"}
    assert "target=rocksdb" in cb.sync_url("target", "", values)[0]


@pytest.mark.parametrize(
    ("pins", "expected"),
    [
        ({"merges": "level", "level0-trigger": "4"},
         "Cannot recommend: “Level-0 trigger” above 1 with “Merges: Whole levels”: whole-level "
         "merges absorb every flush into Level 1"),
        ({"merges": "level", "target": "rocksdb"},
         "Cannot recommend: “Target: Stock RocksDB” with “Merges: Whole levels”: stock RocksDB "
         "merges files; a whole-level design runs on RocksDB under the Wacky driver (“Target: "
         "This project's engine”)"),
        ({"level0-trigger": "3"}, "Level-0 trigger: '3' is not a choice; choose Searched, 1, "
                                  "2, 4 or 8"),
        ({"merges": "files", "target": "stock"},
         "Merges: 'files' is not a choice; choose Any — the search chooses, Whole levels or "
         "Files"),
        ({"max-runs": 1, "level0-trigger": "4"},
         "the field “Max runs per level (0: no limit)” at 1"),
    ],
)
def test_bad_combinations_are_refused_inline_by_the_fields_labels(pins, expected):
    out = views(system=pins)
    message = text_of(out[L.MESSAGE])
    assert expected in message
    assert not re.search(r"\b[a-z]+_[a-z_]+\b|='|target|granularity", message), message
    assert out[L.CURRENT] is None and out[L.CARD] is no_update


def test_every_library_word_for_a_feature_the_page_reaches_becomes_the_pages():
    from wacky_model.compat import FEATURES

    for name in ("skew", "cache", "memory_split", "robust", "guardrails", "files",
                 "level0_trigger", "rocksdb"):
        words = cb.search_words(f"{FEATURES[name]} with x is not supported: a reason")
        assert not re.search(r"\b[a-z]+_[a-z_]+\b|='|\bSystem\.|\bWorkload\.|\(constraints\)",
                             words), words
        assert "“" in words  # it names a field as the page labels it


def test_validating_a_stock_rocksdb_pick_gives_the_command_for_stock_rocksdb():
    import shlex

    import typer.main

    from dashboard.validation_panel import validation_tick
    from wacky_cli.main import app

    started = []
    jobs = services(lambda request, progress: started.append(request)).jobs
    current = views(system=STOCK)[L.CURRENT]
    out = validation_tick(L.VALIDATE, None, current, jobs, "small")
    status = text_of(out[4])
    assert status.startswith("Cannot validate: the native engine cannot build stock RocksDB's "
                             "level sizing")
    assert out[0] is no_update and out[2] is False and started == []  # nothing ran
    command = status.split(" with: ", 1)[1]
    assert command.startswith("wacky validate --engine rocksdb --stock ")
    # The CLI takes it as it stands: its flags and values parse.
    args = shlex.split(command)[2:]
    params = typer.main.get_command(app).commands["validate"].make_context("validate",
                                                                         args).params
    stock = current["rocksdb"]
    assert params["stock"] and params["engine"] == "rocksdb" and params["T"] == stock[
        "multiplier"]
    assert params["level1_runs"] == stock["level0_trigger"]
    assert params["file_bytes"] == round(current["compaction"]["file_share"] * 65536)
    assert params["bits_per_entry"] == stock["bits_per_key"] and params["entries"] == 100_000


def test_the_disk_guardrail_caps_merges_peak_and_names_its_field() -> None:
    """The page's "Max disk during merges" field is recommend's max_transient_space (T5): the
    card says the pick's peak, and a limit of 1 or less is refused in the page's words."""
    from wacky_model.guardrails import Constraints

    assert cb.parse_constraints({}) is cb.DEFAULT_CONSTRAINTS
    assert cb.parse_constraints({"max-peak-disk": 0}) is cb.DEFAULT_CONSTRAINTS
    assert cb.parse_constraints({"max-runs": 0, "max-peak-disk": 1.5}) == Constraints(
        max_transient_space=1.5)
    assert cb.parse_constraints({"max-peak-disk": 1.5}) == Constraints(
        max_runs_per_level=36, max_transient_space=1.5)
    with pytest.raises(ValueError, match="Max disk during merges.*must be a number > 1"):
        cb.parse_constraints({"max-peak-disk": 0.9})
    capped = views(system={"max-peak-disk": 1.3})
    assert "Disk: merges need up to" in text_of(capped[L.CARD])


# ------------------------------------------- probe cost, paged metadata, devices, floating

# Each field beside the CLI flags that say the same, on the default system and 20/20/60 unless
# the case changes them: (fields, workload fields, CLI flags).
OPTION_CASES = {
    "probe cost": ({"probe-cost": 0.5}, {}, ["--probe-cost", "0.5"]),
    "paged metadata": ({"paged-metadata": ["on"], "merges": "file", "cache-mib": 64}, {},
                       ["--paged-metadata", "--granularity", "file",
                        "--cache-bytes", str(64 << 20)]),
    "devices": ({"entries": 1e8, "own-device-gib": 1, "device2-read": 10, "device2-write": 10},
                {"point-reads": 50, "zero-reads": 0, "writes": 50},
                ["--entries", "1e8", "--device", "own:1:1:1G", "--device", "second:10:10"]),
}
# What each case is without its field (the change the field makes is measured against it).
WITHOUT = {"probe cost": {"probe-cost": 0}, "paged metadata": {"paged-metadata": []},
           "devices": {"own-device-gib": "", "device2-read": "", "device2-write": ""}}


def cli_recommendation(flags: list[str], workload: dict, capsys, monkeypatch, tmp_path) -> dict:
    """``wacky recommend ... --json`` in this process (its tables kept under ``tmp_path``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    w = {**WORKLOAD, **workload}
    total = sum(w[k] for k in ("point-reads", "zero-reads", "writes", "range-reads"))
    mix = [f"--{k}={w[k] / total!r}" for k in ("point-reads", "zero-reads", "writes",
                                                "range-reads")]
    capsys.readouterr()
    assert wacky_main(["recommend", *mix, *flags, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_probe_cost_paged_metadata_and_devices_recommend_what_the_cli_does(
        case, capsys, monkeypatch, tmp_path):
    fields, workload, flags = OPTION_CASES[case]
    out = views(workload, fields)
    assert out[L.MESSAGE] == []
    doc = cli_recommendation(flags, workload, capsys, monkeypatch, tmp_path)
    shown = out[L.CURRENT]
    assert shown["design"] == pytest.approx(doc["design"], rel=1e-9)
    assert shown["configuration"] == doc["configuration"]
    # The CLI's headline Θ is on the card (on two devices, the placement's: at their costs).
    assert f"{doc['cost']:.4g}" in text_of(out[L.CARD])
    # The field changes the pick (its design, merges or placement), as the flag does.
    before = views(workload, {**fields, **WITHOUT[case]})[L.CURRENT]
    assert before["configuration"] != shown["configuration"]


def test_the_pick_on_two_devices_shows_its_placement_as_the_cli_prints_it(
        capsys, monkeypatch, tmp_path):
    from wacky_model.placement import describe

    fields, workload, flags = OPTION_CASES["devices"]
    out = views(workload, fields)
    doc = cli_recommendation(flags, workload, capsys, monkeypatch, tmp_path)
    card = text_of(out[L.CARD])
    assert "Placement: " + describe(doc["placement"]) in card
    assert "levels 0-1 on own, level 2 and below on second" in card
    assert out[L.CURRENT]["configuration"]["compaction"]["level_devices"] == [0, 0, 1]
    # Empty device fields: one device, today's system.
    assert cb.parse_devices({}) == () and cb.parse_system(cb.default_controls()[1]) == System()


def test_paged_metadata_under_skewed_reads_recommends_what_the_cli_does(capsys, monkeypatch,
                                                                         tmp_path):
    """Paged metadata with Zipf reads (G1 under skew in the search): the page's pick is the
    CLI's, and the skew changes it against uniform reads through the same cache."""
    workload = {"point-reads": 90, "zero-reads": 0, "writes": 10, "read-keys": "zipf:0.99"}
    fields = {"entries": 1e6, "entry-bytes": 256, "paged-metadata": ["on"], "merges": "file",
              "cache-mib": 1}
    out = views(workload, fields)
    assert out[L.MESSAGE] == []
    doc = cli_recommendation(["--entries", "1e6", "--entry-bytes", "256", "--paged-metadata",
                              "--granularity", "file", "--cache-bytes", str(1 << 20),
                              "--read-dist", "zipf:0.99"], workload, capsys, monkeypatch,
                             tmp_path)
    assert out[L.CURRENT]["configuration"] == doc["configuration"]
    assert f"{doc['cost']:.4g}" in text_of(out[L.CARD])
    uniform = views({**workload, "read-keys": "uniform"}, fields)
    assert uniform[L.MESSAGE] == []
    assert uniform[L.CURRENT]["configuration"] != out[L.CURRENT]["configuration"]


# A file-granular pick under skewed reads with a probe cost: where the search tries floating.
FLOAT_WORKLOAD = {"point-reads": 90, "zero-reads": 0, "writes": 10, "read-keys": "zipf:0.99"}
FLOAT_SYSTEM = {"entries": 1e6, "entry-bytes": 1024, "probe-cost": 0.5, "merges": "file"}


def test_floating_prices_the_pick_as_the_cli_analyze_floating_does(capsys, monkeypatch,
                                                                   tmp_path):
    out = views(FLOAT_WORKLOAD, {**FLOAT_SYSTEM, "floating-gamma": 2})
    assert out[L.MESSAGE] == []
    flags = ["--entries", "1e6", "--entry-bytes", "1024", "--probe-cost", "0.5",
             "--read-dist", "zipf:0.99"]
    rec = cli_recommendation([*flags, "--granularity", "file"], FLOAT_WORKLOAD, capsys,
                             monkeypatch, tmp_path)
    assert out[L.CURRENT]["configuration"] == rec["configuration"]  # γ leaves the pick as is
    c, d = rec["configuration"]["compaction"], rec["design"]
    capsys.readouterr()
    assert wacky_main(["analyze", *(f"--{k}={d[k]!r}" for k in "TCXKZ"), "--granularity",
                       "file", "--file-bytes", str(c["file_bytes"]), "--level1-runs",
                       str(c["level0_trigger"]), "--floating", "2", *flags,
                       "--point-reads", "0.9", "--writes", "0.1", "--json"]) == 0
    priced = json.loads(capsys.readouterr().out)
    card = text_of(out[L.CARD])
    assert f"Floating at γ = 2 (Tidal-tree, docs/MODEL.md F1-F4): Θ {priced['theta']:.4g}" in card
    f = priced["floating"]
    assert f"{f['probes_without']:.3g} -> {f['probes_with']:.3g}" in card
    # The search's own try of floating, in its words, though the merges are pinned.
    assert f"Granularity: {rec['granularity_choice']['reason']}" in card
    assert "without Tidal-tree's floating (gamma 1 would change Θ by" in card


def test_the_searchs_floating_reason_names_the_probe_cost_field():
    """The search declines floating without a probe cost in the CLI's words; the page names
    its field (wacky_model.search's words for a pick whose floating was priced)."""
    library = ("files asked, without Tidal-tree's floating (with filters in memory and no "
               "probe cost a check it saves costs no I/O; give --probe-cost)")
    assert cb.page_words(library).endswith(
        "costs no I/O; give the field “Probe cost (block reads)”)")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"probe-cost": 2}, "Probe cost (block reads): must be between 0 and 1; got 2"),
        ({"probe-cost": "x"}, "Probe cost (block reads): 'x' is not a number"),
        ({"device2-read": -1, "device2-write": 1},
         "Second device: read cost (block reads): must be above 0 and at most 10^6; got -1"),
        ({"device2-read": 10},
         "Second device: write cost (block reads): the field is empty; give the second "
         "device's read and write costs together"),
        ({"device2-gib": 100}, "Second device: capacity (GiB; empty: no limit): give the "
                               "second device's read and write costs too"),
        ({"own-device-gib": 0}, "Own device: capacity (GiB; empty: no limit): must be above 0"),
        ({"floating-gamma": 0}, "Floating γ (Tidal-tree; empty: off): must be above 0"),
        ({"floating-gamma": "big"}, "Floating γ (Tidal-tree; empty: off): 'big' is not a number"),
    ],
)
def test_bad_probe_device_and_floating_values_name_their_fields(change, expected):
    out = views(system=change)
    assert expected in text_of(out[L.MESSAGE])
    assert out[L.CURRENT] is None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"paged-metadata": ["on"]},
         "Cannot recommend: paged filters and indexes (“filters and indexes paged through the "
         "cache” ticked) on the native engine needs “Merges: Files”"),
        ({"floating-gamma": 1, "target": "rocksdb"},
         "Tidal-tree's floating of hot files (“Floating γ (Tidal-tree; empty: off)”) with the "
         "stock RocksDB target (“Target: Stock RocksDB”) is not supported: stock RocksDB only "
         "moves data down"),
        ({"floating-gamma": 1, "merges": "level"},
         "“Floating γ (Tidal-tree; empty: off)”: floating moves files, and the pick merges "
         "whole levels; choose “Merges: Files”"),
    ],
)
def test_combinations_the_library_refuses_show_its_refusal_in_the_pages_words(change, expected):
    out = views(system=change)
    message = text_of(out[L.MESSAGE])
    assert expected in message
    assert not re.search(r"\b[a-z]+_[a-z_]+\b|='|System\.|Compaction\(", message), message
    assert out[L.CURRENT] is None


def test_the_new_fields_have_help_and_round_trip_through_the_url():
    page = L.build_layout()
    for field in (*cb.OPTION_IDS, L.PAGED):
        assert find(page, field) is not None and len(HELP.CONTROLS[field]) > 40
    system = {**SYSTEM, "probe-cost": 0.25, "paged-metadata": ["on"], "own-device-gib": 2,
              "device2-read": 10, "device2-write": 5, "device2-gib": 100, "floating-gamma": 1.5}
    state = cb.state_from_query(cb.state_query(WORKLOAD, system, "recommend", KNOBS,
                                               "optimized"))
    assert {k: state[k] for k in system if k not in SYSTEM} == {
        k: v for k, v in system.items() if k not in SYSTEM}
    # Empty boxes stay out of the URL: a link without them is today's page.
    assert "device2" not in cb.state_query(WORKLOAD, cb.default_controls()[1], "recommend",
                                           KNOBS, "optimized")


def test_a_manual_design_on_two_devices_is_placed_before_it_is_compared():
    """The pick's Θ is at the devices' costs, so the manual design's is too (placed as the
    search places the pick); devices too small for the data are refused by their labels."""
    from wacky_model.config import Configuration
    from wacky_model.placement import place

    fields, workload, _ = OPTION_CASES["devices"]
    out = views(workload, fields, mode="manual")
    system = cb.parse_system({**SYSTEM, **fields})
    best, _ = place(Configuration(Design(**KNOBS)), Workload(0.5, 0.0, 0.5, 0.0), system)
    rec = recommend(Workload(0.5, 0.0, 0.5, 0.0), system,
                    space=space_for(system, DEFAULT_CONSTRAINTS))
    card = text_of(out[L.CARD])
    assert f"this design reaches {rec.cost / best.theta:.0%} of its throughput" in card
    assert "Placement (this design at its cheapest that fits): levels 0-" in card
    small = views(workload, {**fields, "device2-gib": 1})
    assert ("no placement of the levels fits the devices" in text_of(small[L.MESSAGE])
            and "(“Own device: capacity (GiB; empty: no limit)”, “Second device: capacity "
                "(GiB; empty: no limit)”)" in text_of(small[L.MESSAGE]))
