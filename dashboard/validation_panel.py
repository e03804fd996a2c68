"""The "Validate on engine" panel: start a validation in the background, poll it, show the
comparison, and mark it stale once the inputs change.

Its callbacks read the design shown from the ``current-design`` store that the main views write,
so this module depends on the layout's ids, not on the other callbacks.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, ctx, dash_table, dcc, html, no_update

from dashboard import layout as L
from dashboard.jobs import JobState, ValidationJobs, ValidationRequest
from validation.figures import validation_figure
from validation.results import Costs, ValidationResult
from wacky_model.types import Design, Workload

VALIDATED_METRICS = (
    ("theta", "Θ (I/O per op)"),
    ("write_amp", "write amplification"),
    ("point_read", "point read (I/O)"),
    ("point_read_uniform", "point read, uniform keys (I/O)"),
    ("zero_result_read", "zero-result read (I/O)"),
    ("range_runs", "range read (runs)"),
    ("range_io", "range read (I/O)"),
    ("memory_bits_per_entry", "filter memory (bits/entry)"),
)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def validation_request(current: dict) -> ValidationRequest:
    k = current["design"]
    w = current["workload"]
    return ValidationRequest(
        design=Design(k["T"], k["C"], k["X"], k["K"], k["Z"], current.get("filters", "optimized")),
        workload=Workload(**w),
        bits_per_entry=float(current["bits_per_entry"]),
    )


def _error(text: str) -> html.Span:
    return html.Span(text, style={"color": "#a40000"}, className="validation-error")


def comparison_rows(result: ValidationResult) -> list[dict]:
    """Finite model, paper model, engine simulator and measured side by side for each metric."""
    errors = result.relative_error

    def cell(costs: Costs, key: str) -> str:
        value = getattr(costs, key)
        return "–" if value is None else _fmt(value)

    rows = []
    for key, name in VALIDATED_METRICS:
        err = getattr(errors, key, None)
        rows.append({
            "metric": name, "predicted": cell(result.predicted, key),
            "paper": cell(result.paper, key),
            "simulated": cell(result.simulated, key), "measured": cell(result.measured, key),
            "error": "–" if err is None else f"{err:+.1%}",
        })
    return rows


def validation_view(state: JobState) -> html.Div:
    result = state.result
    if result is None:
        return html.Div()
    scale = result.scale
    columns = [("metric", "metric"), ("predicted", "predicted (finite model)"),
               ("paper", "paper model"), ("simulated", "engine simulator"),
               ("measured", "measured"), ("error", "relative error (finite model)")]
    return html.Div(
        [
            html.H4("Predicted vs measured on the engine", style={"marginTop": 0}),
            html.Div(
                f"{scale.entries:,} entries of {scale.entry_bytes} bytes, "
                f"{scale.buffer_bytes / 1024:g} KiB buffer; ran in {state.seconds:.1f} s. "
                "The engine simulator replays the engine's merge policy: it checks the engine "
                "against its specification, not the model's accuracy.",
                style={"fontSize": "90%", "color": "#444"},
            ),
            dash_table.DataTable(
                id="validation-table",
                columns=[{"id": c, "name": n} for c, n in columns],
                data=comparison_rows(result),
                style_cell={"fontFamily": "sans-serif", "fontSize": "13px",
                            "padding": "3px 8px", "textAlign": "right"},
            ),
            dcc.Graph(id="validation-figure", figure=validation_figure(result),
                      config={"displaylogo": False}),
        ]
    )


def validation_tick(
    trigger: Any, job_id: str | None, current: dict | None, jobs: ValidationJobs
) -> tuple[Any, ...]:
    """Start a validation (button) or report on the running one (interval).

    Returns (job id, poll disabled, button disabled, progress, status, result view), and on a
    start also the inputs validated (else no_update), for the stale marker.
    """
    out = _validation_tick(trigger, job_id, current, jobs)
    if trigger == L.VALIDATE:
        return out + (current or None,)
    state = jobs.state(job_id)
    # A failed validation shows no results, so nothing can be stale.
    return out + (None if state is not None and state.status == "failed" else no_update,)


def _validation_tick(
    trigger: Any, job_id: str | None, current: dict | None, jobs: ValidationJobs
) -> tuple[Any, ...]:
    if trigger == L.VALIDATE:
        if not current:
            return (no_update, True, False, "0",
                    _error("Fix the inputs above before validating."), no_update)
        try:
            request = validation_request(current)
        except (ValueError, KeyError, TypeError) as err:
            return (no_update, True, False, "0", _error(f"Cannot validate: {err}"), no_update)
        new_id = jobs.start(request)
        return (new_id, False, True, "0", "Validation queued…", html.Div())
    state = jobs.state(job_id)
    if state is None:
        return (no_update, True, False, no_update, no_update, no_update)
    if state.status == "failed":
        return (no_update, True, False, "0", _error(f"Validation failed: {state.error}"),
                no_update)
    if state.status == "done":
        return (no_update, True, False, "1", f"Validated in {state.seconds:.1f} s.",
                validation_view(state))
    return (no_update, False, True, f"{state.fraction:.3f}",
            f"{state.fraction:.0%}: {state.message}", no_update)


def stale_marker(current: dict | None, validated: dict | None) -> Any:
    """A marker over the validation results once the inputs differ from those validated."""
    if not validated or current == validated:
        return None
    k = validated.get("design", {})
    what = ", ".join(f"{n} = {v:.4g}" for n, v in k.items() if isinstance(v, (int, float)))
    return html.Div(
        [html.B("Stale: "),
         f"these results are for the inputs validated earlier ({validated.get('family', '')}: "
         f"{what}); the inputs have changed since. Press “Validate on engine” again."],
        style={"color": "#7a4b00", "background": "#fff6e0", "border": "1px solid #e0c080",
               "borderRadius": "6px", "padding": "4px 10px", "marginBottom": "8px"},
    )


def register(app: Dash, jobs: ValidationJobs) -> None:
    @app.callback(
        Output(L.JOB, "data"), Output(L.POLL, "disabled"), Output(L.VALIDATE, "disabled"),
        Output(L.PROGRESS, "value"), Output(L.STATUS, "children"),
        Output(L.VALIDATION_RESULT, "children"), Output(L.VALIDATED, "data"),
        Input(L.VALIDATE, "n_clicks"), Input(L.POLL, "n_intervals"),
        State(L.JOB, "data"), State(L.CURRENT, "data"),
        prevent_initial_call=True,
    )
    def _validation(_clicks, _ticks, job_id, current):
        return validation_tick(ctx.triggered_id, job_id, current, jobs)

    @app.callback(Output(L.VALIDATION_STALE, "children"),
                  Input(L.CURRENT, "data"), Input(L.VALIDATED, "data"))
    def _stale(current, validated):
        return stale_marker(current, validated)

    # The results appear far below the button: bring them into view when they arrive.
    app.clientside_callback(
        """
        function(children) {
            if (document.getElementById('validation-table')
                    || (children && children.props && children.props.children)) {
                setTimeout(function() {
                    var panel = document.getElementById('validation-panel');
                    if (panel) { panel.scrollIntoView({block: 'start'}); }
                }, 100);
            }
            return window.dash_clientside.no_update;
        }
        """,
        Output(L.SCROLLED, "data"), Input(L.VALIDATION_RESULT, "children"),
        prevent_initial_call=True,
    )
