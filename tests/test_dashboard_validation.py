"""The dashboard's "Validate on engine" panel: background jobs, the comparison, stale results."""

from __future__ import annotations

import threading
from dataclasses import replace

from dash import no_update
from dashboard_helpers import fake_runner, find, services, text_of, views

from dashboard import layout as L
from dashboard import validation_panel as vp
from dashboard.jobs import (
    DEFAULT_SCALE,
    VALIDATION_SCALES,
    JobState,
    run_on_engine,
)
from validation.figures import error_axis_range, validation_figure, validation_html
from validation.results import Checks
from wacky_model.analysis import analyze
from wacky_model.types import Design, System


def test_validate_runs_in_the_background_and_reports_progress_then_the_comparison():
    release = threading.Event()
    reached = threading.Event()

    def slow_runner(request, progress):
        progress(0.4, "loading")
        reached.set()
        assert release.wait(10)
        return fake_runner(request, progress)

    svc = services(slow_runner)
    current = views(svc=svc)[L.CURRENT]
    job, poll_disabled, button_disabled, *_ = vp.validation_tick(L.VALIDATE, None, current,
                                                                 svc.jobs)
    assert job and poll_disabled is False and button_disabled is True
    assert reached.wait(10)
    _, poll_disabled, button_disabled, progress, status, view, _ = vp.validation_tick(
        L.POLL, job, current, svc.jobs)
    assert (poll_disabled, button_disabled, progress) == (False, True, "0.400")
    assert status == "40%: loading" and view is no_update
    release.set()
    assert svc.jobs.wait(job, 10).status == "done"
    _, poll_disabled, button_disabled, progress, status, view, _ = vp.validation_tick(
        L.POLL, job, current, svc.jobs)
    assert (poll_disabled, button_disabled, progress) == (True, False, "1")
    assert status.startswith("Validated in") and status.endswith(" s at 100,000 entries.")
    assert find(view, "validation-figure").figure.data  # the shared validation figure
    table = find(view, "validation-table")
    write_amp = next(r for r in table.data if r["metric"] == "write amplification")
    assert write_amp == {"metric": "write amplification", "predicted": "4", "paper": "4.5",
                         "simulated": "4", "measured": "5", "error": "-20.0%"}


def test_validate_without_a_valid_design_asks_to_fix_the_inputs():
    svc = services()
    current = views({"writes": None}, svc=svc)[L.CURRENT]
    job, poll_disabled, button_disabled, _, status, _, _ = vp.validation_tick(
        L.VALIDATE, None, current, svc.jobs)
    assert job is no_update and poll_disabled is True and button_disabled is False
    assert "Fix the inputs" in text_of(status)


def test_a_failed_validation_shows_its_error_inline():
    def failing(request, progress):
        raise ValueError("scale entries must lie in [1000, 1e9]")

    svc = services(failing)
    current = views(svc=svc)[L.CURRENT]
    job = vp.validation_tick(L.VALIDATE, None, current, svc.jobs)[0]
    assert svc.jobs.wait(job, 10).status == "failed"
    _, poll_disabled, button_disabled, _, status, _, validated = vp.validation_tick(
        L.POLL, job, current, svc.jobs)
    assert poll_disabled is True and button_disabled is False
    assert validated is None  # no results shown, so no stale marker either
    assert text_of(status) == ("Validation failed at 100,000 entries: scale entries must lie in "
                               "[1000, 1e9]. A larger run size gives the tree more room.")


def test_run_on_engine_validates_the_design_at_small_scale_with_skew_and_a_cache():
    # The one real engine run here (about 2 s): skewed keys and a cache take the skew path.
    current = {"design": {"T": 4.0, "C": 3.0, "X": 1.0, "K": 1.0, "Z": 0.0},
               "filters": "optimized", "family": "Lazy Leveling", "bits_per_entry": 5.0,
               "cache_fraction": 0.05, "entries": 2**31,
               "workload": {"point_reads": 0.5, "zero_reads": 0.0, "writes": 0.5,
                            "range_reads": 0.0, "range_blocks": 0.0, "write_keys": "zipf:0.9",
                            "read_keys": "zipf:0.9", "update_fraction": 0.5}}
    request = vp.validation_request(current, "small")
    seen = []
    result = run_on_engine(request, lambda f, m: seen.append(f))
    assert result.scale.entries <= 200_000 and result.model == "skew"
    assert result.detail("skew")["cache_bytes"] == request.cache_bytes > 0
    assert result.measured.write_amp > 0 and result.predicted.write_amp > 0
    assert seen and max(seen) <= 1.0
    rows = vp.comparison_rows(result)  # no simulator under skew: dashes, not a crash
    assert rows[0]["metric"] == "Θ (I/O per op)" and rows[0]["simulated"] == "–"
    assert rows[-1]["metric"] == "block cache hit rate" and "absolute" in rows[-1]["error"]
    words = text_of(vp.validation_view(JobState("done", request=request, result=result)))
    assert "predicted (skew model)" in words and "engine simulator : not run" in words


def test_validation_results_are_marked_stale_once_the_inputs_change():
    current = views()[L.CURRENT]
    svc = services()
    validated = vp.validation_tick(L.VALIDATE, None, current, svc.jobs)[-1]
    assert validated == current  # the inputs validated are kept
    assert vp.stale_marker(current, validated) is None
    assert vp.stale_marker(current, None) is None  # nothing validated yet
    changed = views({"writes": 5})[L.CURRENT]
    marker = text_of(vp.stale_marker(changed, validated))
    assert marker.startswith("Stale: ") and "validate" in marker.lower()
    assert vp.validation_tick(L.POLL, None, current, svc.jobs)[-1] is no_update




# ---- the run's size, skew and the cache ----------------------------------------------------

CURRENT = {"design": {"T": 10.0, "C": 9.0, "X": 1.0, "K": 1.0, "Z": 1.0}, "filters": "optimized",
           "family": "Tiering", "bits_per_entry": 5.0,
           "workload": {"point_reads": 0.2, "zero_reads": 0.2, "writes": 0.6,
                        "range_reads": 0.0, "range_blocks": 0.0}}
SKEWED = {**CURRENT, "cache_fraction": 0.1, "entries": 2**31,
          "workload": {**CURRENT["workload"], "write_keys": "zipf:0.9",
                       "read_keys": "hotset:0.1:0.9", "update_fraction": 0.5,
                       "correlated": False}}


def test_each_named_scale_is_a_request_at_that_size():
    sizes = []
    for key, choice in VALIDATION_SCALES.items():
        request = vp.validation_request(CURRENT, key)
        assert request.scale == choice.scale
        assert key in choice.label and "entries" in choice.label  # the label says what it is
        sizes.append(request.scale.entries)
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes) >= 3
    assert vp.validation_request(CURRENT).scale == VALIDATION_SCALES[DEFAULT_SCALE].scale


def test_the_layout_offers_the_named_scales():
    dropdown = find(L.build_layout(), L.VALIDATION_SCALE)
    assert [o["value"] for o in dropdown.options] == list(VALIDATION_SCALES)
    assert dropdown.value == DEFAULT_SCALE and dropdown.clearable is False


def test_an_unknown_scale_gives_an_inline_message_and_starts_nothing():
    svc = services()
    for bad in ("huge", None, 3):
        job, poll_disabled, button_disabled, _, status, _, _ = vp.validation_tick(
            L.VALIDATE, None, CURRENT, svc.jobs, bad)
        assert job is no_update and poll_disabled is True and button_disabled is False
        assert text_of(status).startswith("Cannot validate: choose a validation size")


def test_skewed_keys_updates_and_the_cache_share_reach_the_request():
    request = vp.validation_request(SKEWED, "medium")
    w = request.workload
    assert (w.write_keys.kind, w.read_keys.kind) == ("zipf", "hotset")
    assert (w.update_fraction, w.correlated) == (0.5, False)
    assert request.page_entries == 2**31
    # The cache is the same share of the data at the run's size as on the page.
    assert request.cache_fraction == 0.1
    assert request.cache_bytes == round(0.1 * 500_000 * 128)
    # Without the optional fields: uniform keys, no cache, the page's N unknown.
    plain = vp.validation_request(CURRENT)
    assert not plain.workload.skewed and plain.cache_bytes == 0 and plain.page_entries is None


def test_a_bad_cache_share_gives_an_inline_message():
    svc = services()
    for bad in ("lots", -0.5, float("nan"), True):
        status = vp.validation_tick(L.VALIDATE, None, {**CURRENT, "cache_fraction": bad},
                                    svc.jobs)[4]
        assert text_of(status).startswith("Cannot validate: the block cache share"), bad


def test_run_on_engine_passes_the_scale_and_the_cache_to_validate(monkeypatch):
    import validation.runner

    seen = {}

    def fake_validate(design, **kwargs):
        seen.update(kwargs, design=design)
        return "result"

    monkeypatch.setattr(validation.runner, "validate", fake_validate)
    request = vp.validation_request(SKEWED, "large")
    assert run_on_engine(request, lambda f, m: None) == "result"
    assert seen["scale"] == VALIDATION_SCALES["large"].scale
    assert seen["cache_bytes"] == round(0.1 * 2_000_000 * 128) > 0
    assert seen["workload"] == request.workload and seen["bits_per_entry"] == 5.0


# ---- the words above the comparison -------------------------------------------------------

def _result(request=None, **measured):
    request = request or vp.validation_request(CURRENT)
    result = fake_runner(request, lambda f, m: None)
    return replace(result, measured=replace(result.measured, **measured))


def test_the_view_explains_the_columns_and_the_smaller_run():
    request = vp.validation_request(SKEWED, "small")
    svc = services()
    job = svc.jobs.start(request)
    state = svc.jobs.wait(job, 10)
    assert state.request == request
    words = text_of(vp.validation_view(state))
    for column in ("predicted (finite model)", "paper model", "engine simulator", "measured"):
        assert column in words
    assert "specification, not the model's accuracy" in words
    # The run's N, its levels (the fake tree has 2) and the page's N.
    assert "100,000 entries" in words and "2 levels" in words and "2,147,483,648" in words
    assert "differs from the card" in words and "not the levels of the page's tree" in words
    assert "block cache is 10.0% of the data" in words and "1.22 MiB" in words


def test_a_large_error_on_a_small_measured_figure_is_explained():
    # The finite model predicts 6 runs per range read; suppose the engine measured 0.11.
    result = _result(range_runs=0.11)
    notes = vp.large_error_notes(result)
    assert len(notes) == 1 and notes[0].startswith("range read (runs): measured 0.11")
    assert "+5355%" in notes[0]  # (6 - 0.11) / 0.11
    assert "Range reads are 0% of this workload" in notes[0]
    assert vp.large_error_notes(_result()) == []  # the fake's errors are all within 25%


def test_a_large_error_on_a_small_predicted_figure_is_explained():
    result = _result(zero_result_read=1.1)  # predicted 0.2
    (note,) = vp.large_error_notes(result)
    assert "-82%" in note and "a real gap" in note and "read the gap" not in note
    assert "false positives" not in note  # 0.2 and 1.1 are not a handful of rare events
    result = _result(zero_result_read=2.5, write_amp=4.0)
    result = replace(result, predicted=replace(result.predicted, zero_result_read=0.02),
                     paper=replace(result.paper, zero_result_read=0.02))
    (note,) = vp.large_error_notes(result)
    assert "predicts almost nothing" in note and "read the gap, 2.5 I/O" in note
    assert "false positives" in note
    (note,) = vp.large_error_notes(_result(zero_result_read=0.0))
    assert note.startswith("zero-result read (I/O): the engine measured 0, so there is no "
                           "relative error") and "the finite model predicts 0.2" in note


def test_an_incomplete_window_or_wrong_answers_are_said():
    result = replace(_result(), phase="steady", checks=Checks(get_misses=2),
                     engine_detail={"window_complete": False, "major_compactions": 0})
    notes = " ".join(vp.window_notes(result))
    assert "hit its length cap" in notes and "No merge into the largest level" in notes
    assert "2 missed keys" in notes
    assert vp.window_notes(replace(_result(), engine_detail={"window_complete": True,
                                                             "major_compactions": 3})) == []
    state = JobState("done", result=result, seconds=1.0)
    notes_list = find(vp.validation_view(state), L.VALIDATION_NOTES)
    assert "hit its length cap" in text_of(notes_list)


# ---- the figure ---------------------------------------------------------------------------

def test_a_huge_error_does_not_hide_a_small_one():
    # Paper model +5000% on range runs, finite model +5% on write amplification.
    result = _result(write_amp=4.0 / 1.05, range_runs=6.0)
    result = replace(result, paper=replace(result.paper, range_runs=6.0 * 51))
    fig = validation_figure(result)
    lo, hi = fig.layout.yaxis.range
    assert 5 < hi < 100 and lo < 0  # the +5% bar spans a visible part of the axis
    bars = {t.name: t for t in fig.data if t.type == "bar"}
    finite = dict(zip(bars["finite model"].x, bars["finite model"].text, strict=True))
    paper = dict(zip(bars["paper model"].x, bars["paper model"].y, strict=True))
    assert finite["write amp"] == "+5.0%"
    assert "+5000%" in dict(zip(bars["paper model"].x, bars["paper model"].text,
                                strict=True))["range runs"]
    assert paper["range runs"] <= hi  # drawn to the edge, its value in its label
    assert all(t.customdata is not None for t in bars.values())  # and on hover


def test_small_errors_get_the_whole_axis():
    lo, hi = error_axis_range([5.0, -2.0, None, 1.0])
    assert 5 < hi <= 10 and -4 <= lo < -2
    lo, hi = error_axis_range([5336.0, 5.0, -3.0])
    assert 5 < hi <= 15  # the largest error within ±100%, with room; +5336% is cut
    assert error_axis_range([])[1] > 0


def test_entries_per_level_are_not_bars_on_a_log_axis():
    fig = validation_figure(_result())
    log_axes = {name.replace("axis", "") for name in ("yaxis", "yaxis2")
                if fig.layout[name].type == "log"}
    assert log_axes == {"y2"}
    on_log = [t for t in fig.data if t.yaxis == "y2"]
    assert on_log and all(t.type == "scatter" and "markers" in t.mode for t in on_log)
    assert {t.name for t in on_log} >= {"finite model", "measured"}
    assert not [t for t in fig.data if t.type == "bar" and t.yaxis == "y2"]


def test_the_standalone_report_still_renders():
    page = validation_html(_result(range_runs=0.11))
    assert page.startswith("<html>") and "Relative error" in page and "off scale" in page


def test_the_words_count_the_page_levels_the_card_counts():
    current = views(mode="manual")[L.CURRENT]  # Leveling, T = 10, on the default page
    request = vp.validation_request(current, "small")
    assert request.page_entries == 2**31
    assert request.page_levels == 5  # 2^31 entries / 65,536 per buffer: five levels at T = 10
    result = fake_runner(request, lambda f, m: None)
    assert "Its tree has 2 levels, not the 5 of the page's tree" in vp.scale_note(result, request)
    assert request.page_levels == len(analyze(Design(10, 9, 1, 0, 0), System(),
                                              realizable=True).levels)
    broken = {**current, "levels": "five"}
    assert vp.validation_request(broken).page_levels is None  # the words fall back, no error
