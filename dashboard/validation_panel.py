"""The "Validate on engine" panel: start a validation in the background, poll it, show the
comparison, and mark it stale once the inputs change. It reads the design shown from the
``current-design`` store, so it depends on the layout's ids, not on the other callbacks.
"""

from __future__ import annotations

from typing import Any

from dash import Dash, Input, Output, State, ctx, dash_table, dcc, html, no_update

from dashboard import layout as L
from dashboard.jobs import (
    DEFAULT_SCALE,
    VALIDATION_SCALES,
    JobState,
    ValidationJobs,
    ValidationRequest,
    scale_named,
    stock_rocksdb_refusal,
)
from validation.explain import (  # noqa: F401  (the panel's words; tests read them here)
    VALIDATED_METRICS,
    large_error_notes,
    model_name,
    window_notes,
)
from validation.figures import validation_figure
from validation.results import Costs, ValidationResult, relative_error
from wacky_model.types import Compaction, Design, Log, Workload


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _cache_fraction(current: dict) -> float:
    """The page's block cache as a share of its data (0 without one)."""
    value = current.get("cache_fraction") or 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
        raise ValueError(f"the block cache share must be a number >= 0; got {value!r}")
    return float(value)


def page_levels(current: dict) -> int | None:
    """The levels of the page's tree as the card counts them; None when absent."""
    levels = current.get("levels")
    return levels if isinstance(levels, int) and not isinstance(levels, bool) else None


def shown_design(current: dict) -> Design:
    """The design of the ``current-design`` store."""
    k = current["design"]
    return Design(k["T"], k["C"], k["X"], k["K"], k["Z"], current.get("filters", "optimized"))


def validation_request(current: dict, scale_key: object = DEFAULT_SCALE) -> ValidationRequest:
    """The request for the inputs shown (the ``current-design`` store) at the size chosen; the
    store's optional fields (``cache_fraction``, ``entries``, ...) are used when present."""
    design, w = shown_design(current), current["workload"]
    entries = current.get("entries")
    scale = scale_named(scale_key)
    c = current.get("compaction") or {"granularity": "level"}
    if c.get("target") == "rocksdb":  # RocksDB's own level sizing: not the native engine's
        raise ValueError(stock_rocksdb_refusal(current, scale))
    ratio = float(c.get("log_ratio") or 0.0)
    compaction = (Compaction("file", max(1, round(c["file_share"] * scale.buffer_bytes)),
                             int(c["level1_runs"]), log=Log(ratio) if ratio > 0 else None)
                  if c["granularity"] == "file" else Compaction())
    return ValidationRequest(
        design=design, workload=Workload(**w),
        bits_per_entry=float(current["bits_per_entry"]), scale=scale, compaction=compaction,
        cache_fraction=_cache_fraction(current),
        page_entries=float(entries) if isinstance(entries, (int, float)) else None,
        page_levels=page_levels(current))


def _error(text: str) -> html.Span:
    return html.Span(text, style={"color": "#a40000"}, className="validation-error")


def comparison_rows(result: ValidationResult) -> list[dict]:
    """Predicted, paper model, engine simulator and measured side by side for each metric;
    with a cache or skew, the block cache's hit rate too."""
    errors = result.relative_error

    def cell(costs: Costs | None, key: str) -> str:
        # No simulator under skew (it replays uniform inserts), and skew runs leave some
        # figures unmeasured: a dash, not an error.
        value = None if costs is None else getattr(costs, key)
        return "–" if value is None else _fmt(value)

    rows = []
    for key, name in VALIDATED_METRICS:
        if key == "point_read_uniform" and result.model == "skew":
            name = "point read, the workload's keys (I/O)"  # what the skew window reads
        # Errors has no range_io (the CLI's JSON keys are fixed): work it out here.
        err = (relative_error(result.predicted.range_io, result.measured.range_io)
               if key == "range_io" else getattr(errors, key, None))
        rows.append({"metric": name, **{column: cell(getattr(result, column), key) for column in
                                        ("predicted", "paper", "simulated", "measured")},
                     "error": "–" if err is None else f"{err:+.1%}"})
    hit, measured_hit = result.predicted.cache_hit_rate, result.measured.cache_hit_rate
    if measured_hit is not None:
        # A hit rate is already a share: compared in absolute terms, as the skew runner does.
        rows.append({"metric": "block cache hit rate",
                     "predicted": cell(result.predicted, "cache_hit_rate"), "paper": "–",
                     "simulated": "–", "measured": _fmt(measured_hit),
                     "error": "–" if hit is None else f"{hit - measured_hit:+.3f} (absolute)"})
    return rows


def source_notes(result: ValidationResult) -> list[Any]:
    """What each column of the comparison is, in plain words."""
    predicted = ("the skew model: the finite-N model's tree with the workload's skewed keys, "
                 "updates and block cache priced in" if result.model == "skew" else
                 "the finite-N model, the one the card above shows: the costs of the tree this "
                 "design actually holds at this N")
    simulator = (": not run; it replays uniform inserts only, not skewed keys, updates or a "
                 "cache." if result.simulated is None else
                 ": a replay of the engine's own merge policy. It checks the engine against its "
                 "specification, not the model's accuracy.")
    return [html.Li([html.B(name), words]) for name, words in (
        (f"predicted ({model_name(result)})", f": {predicted}."),
        ("paper model", ": the paper's Eq 8-16, which count every level full."),
        ("engine simulator", simulator),
        ("measured", ": the blocks the engine read and wrote, counted, per operation."))]


def scale_note(result: ValidationResult, request: ValidationRequest | None) -> str:
    """The run is smaller than the page's system: say so, and what that changes."""
    scale = result.scale
    # Counted as the card counts the page's levels (the paper's structure, analyze), so the
    # two numbers compare like with like.
    levels = len(result.paper.levels)
    page, page_levels = ((None, None) if request is None
                         else (request.page_entries, request.page_levels))
    page_n = "the page's N" if page is None else f"the page's N = {page:,.0f}"
    theirs = ("the levels of the page's tree the card above shows" if page_levels is None
              else f"the {page_levels} of the page's tree (the card above)")
    text = (f"This run holds {scale.entries:,} entries of {scale.entry_bytes} bytes with a "
            f"{scale.buffer_bytes / 1024:g} KiB buffer, not {page_n}. Its tree has {levels} "
            f"level{'s' if levels != 1 else ''}, not {theirs}, so every figure here, "
            "predicted ones included, differs from the card's. What carries over to the page "
            "is how close the model comes to the engine.")
    if request is not None and request.cache_bytes > 0:
        text += (f" The block cache is {request.cache_fraction:.1%} of the data, as on the "
                 f"page: {request.cache_bytes / 2**20:.2f} MiB at this size.")
    return text


def explanation(result: ValidationResult, request: ValidationRequest | None) -> html.Div:
    """Above the comparison: what the columns are, why the numbers differ from the card, and
    what any large error or imperfect measurement means."""
    style = {"fontSize": "90%", "color": "#444", "margin": "4px 0"}
    parts: list[Any] = [html.Ul(source_notes(result), style={**style, "paddingLeft": "20px"}),
                        html.P(scale_note(result, request), style=style)]
    warnings = window_notes(result) + large_error_notes(result)
    if warnings:
        parts.append(html.Ul([html.Li(text) for text in warnings], id=L.VALIDATION_NOTES,
                             style={**style, "color": "#7a4b00", "paddingLeft": "20px"}))
    return html.Div(parts, id=L.VALIDATION_EXPLAINED)


def validation_view(state: JobState) -> html.Div:
    result = state.result
    if result is None:
        return html.Div()
    model = model_name(result)
    columns = [("metric", "metric"), ("predicted", f"predicted ({model})"),
               ("paper", "paper model"), ("simulated", "engine simulator"),
               ("measured", "measured"), ("error", f"relative error ({model})")]
    return html.Div([
        html.H4("Predicted vs measured on the engine", style={"marginTop": 0}),
        html.Div(f"Ran in {state.seconds:.1f} s.", style={"fontSize": "90%", "color": "#444"}),
        explanation(result, state.request),
        # At 1280 px the headers wrap, and a table still too wide scrolls inside its card
        # rather than the page sideways.
        dash_table.DataTable(
            id="validation-table", columns=[{"id": c, "name": n} for c, n in columns],
            data=comparison_rows(result),
            style_cell={"fontFamily": "sans-serif", "fontSize": "13px", "padding": "3px 8px",
                        "textAlign": "right", "whiteSpace": "normal", "height": "auto"},
            style_table={"overflowX": "auto", "maxWidth": "100%"}),
        # In a card of about 800 px (a 1280 px window): smaller panel titles, so that the two
        # do not run into each other.
        dcc.Graph(id="validation-figure",
                  figure=validation_figure(result).update_annotations(font_size=12),
                  config={"displaylogo": False}),
    ])


def validation_tick(trigger: Any, job_id: str | None, current: dict | None,
                    jobs: ValidationJobs, scale_key: object = DEFAULT_SCALE) -> tuple[Any, ...]:
    """Start a validation (button) at the size ``scale_key`` names, or report on the running
    one (interval). Returns (job id, poll disabled, button disabled, progress, status, result
    view, inputs validated); the last, for the stale marker, is set on a start and cleared
    when the validation fails (it shows no results, so nothing can be stale)."""
    if trigger == L.VALIDATE:
        if not current:
            return (no_update, True, False, "0",
                    _error("Fix the inputs above before validating."), no_update, None)
        try:
            request = validation_request(current, scale_key)
        except (ValueError, KeyError, TypeError) as err:
            return (no_update, True, False, "0", _error(f"Cannot validate: {err}"), no_update,
                    current)
        return (jobs.start(request), False, True, "0", "Validation queued…", html.Div(), current)
    state = jobs.state(job_id)
    if state is None:
        return (no_update, True, False, no_update, no_update, no_update, no_update)
    # The run's size matters: a design can fit the page's N and not a small run's tree.
    size = "" if state.request is None else f" at {state.request.scale.entries:,} entries"
    if state.status == "failed":
        # Too many runs in a level of a small run's tree often fit a larger one.
        largest = max(choice.scale.entries for choice in VALIDATION_SCALES.values())
        hint = ("" if state.request is None or state.request.scale.entries >= largest
                else ". A larger run size gives the tree more room.")
        return (no_update, True, False, "0",
                _error(f"Validation failed{size}: {state.error}{hint}"), no_update, None)
    if state.status == "done":
        return (no_update, True, False, "1", f"Validated in {state.seconds:.1f} s{size}.",
                validation_view(state), no_update)
    return (no_update, False, True, f"{state.fraction:.3f}",
            f"{state.fraction:.0%}: {state.message}", no_update, no_update)


def stale_marker(current: dict | None, validated: dict | None) -> Any:
    """A marker over the validation results once the inputs differ from those validated."""
    if not validated or current == validated:
        return None
    k = validated.get("design", {})
    what = ", ".join(f"{n} = {v:.4g}" for n, v in k.items() if isinstance(v, (int, float)))
    return html.Div([html.B("Stale: "), "these results are for the inputs validated earlier "
                     f"({validated.get('family', '')}: {what}); the inputs have changed since. "
                     "Press “Validate on engine” again."],
                    style={"color": "#7a4b00", "background": "#fff6e0",
                           "border": "1px solid #e0c080", "borderRadius": "6px",
                           "padding": "4px 10px", "marginBottom": "8px"})


def register(app: Dash, jobs: ValidationJobs) -> None:
    @app.callback(Output(L.JOB, "data"), Output(L.POLL, "disabled"),
                  Output(L.VALIDATE, "disabled"), Output(L.PROGRESS, "value"),
                  Output(L.STATUS, "children"), Output(L.VALIDATION_RESULT, "children"),
                  Output(L.VALIDATED, "data"),
                  Input(L.VALIDATE, "n_clicks"), Input(L.POLL, "n_intervals"),
                  State(L.JOB, "data"), State(L.CURRENT, "data"),
                  State(L.VALIDATION_SCALE, "value"), prevent_initial_call=True)
    def _validation(_clicks, _ticks, job_id, current, scale_key):
        return validation_tick(ctx.triggered_id, job_id, current, jobs, scale_key)

    app.callback(Output(L.VALIDATION_STALE, "children"), Input(L.CURRENT, "data"),
                 Input(L.VALIDATED, "data"))(stale_marker)

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
