"""The dashboard's "Validate on engine" panel: background jobs, the comparison, stale results."""

from __future__ import annotations

import threading

from dash import no_update
from dashboard_helpers import fake_runner, find, services, text_of, views

from dashboard import layout as L
from dashboard import validation_panel as vp
from dashboard.jobs import ValidationRequest, run_on_engine
from wacky_model.types import Design, Workload


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
    assert status.startswith("Validated in")
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
    assert text_of(status) == "Validation failed: scale entries must lie in [1000, 1e9]"


def test_run_on_engine_validates_the_design_at_small_scale():
    request = ValidationRequest(Design(4, 3, 1, 1, 0), Workload(0.5, 0, 0.5, 0), 5.0)
    seen = []
    result = run_on_engine(request, lambda f, m: seen.append(f))
    assert result.scale.entries <= 200_000
    assert result.measured.write_amp > 0 and result.predicted.write_amp > 0
    assert seen and max(seen) <= 1.0
    assert vp.comparison_rows(result)[0]["metric"] == "Θ (I/O per op)"



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


