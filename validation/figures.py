"""Predicted vs measured: figures of a validation result and of a validation sweep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from validation.results import METRICS, ValidationResult

if TYPE_CHECKING:  # the sweep imports the engine; these figures must not (the dashboard uses them)
    from validation.sweep import SweepResult

METRIC_LABELS = {
    "write_amp": "write amp",
    "zero_result_read": "zero-result read",
    "point_read": "read (Level L)",
    "point_read_uniform": "read (uniform)",
    "range_runs": "range runs",
    "memory_bits_per_entry": "filter bits/entry",
    "theta": "Θ",
}


def _models(result: ValidationResult):
    """(label, figures, errors) of each model, in report order."""
    first = "skew model" if result.model == "skew" else "finite model"
    models = [(first, result.predicted, result.relative_error),
              ("paper model", result.paper, result.paper_relative_error)]
    if result.simulated is not None:  # None under skew: the simulator replays uniform inserts
        models.append(("engine simulator", result.simulated, result.simulated_relative_error))
    return tuple(models)


def _reported(result: ValidationResult) -> list[str]:
    return [m for m in METRICS if result.measured.metric(m) is not None]


def validation_figure(result: ValidationResult) -> go.Figure:
    """Left: each model's relative error per metric. Right: entries per level, all three."""
    fig = make_subplots(
        rows=1, cols=2, column_widths=[0.55, 0.45],
        subplot_titles=("Relative error (model - measured) / measured", "Entries per level"),
    )
    metrics = _reported(result)
    for name, _, errors in _models(result):
        errs = [errors.metric(m) for m in metrics]
        fig.add_trace(
            go.Bar(
                x=[METRIC_LABELS[m] for m in metrics],
                y=[100 * e if e is not None else None for e in errs],
                name=name,
                hovertemplate="%{x}: %{y:.2f}%<extra>" + name + "</extra>",
            ),
            row=1, col=1,
        )
    shapes = [("finite model", result.predicted), ("paper N_i", result.paper),
              ("engine simulator", result.simulated), ("measured", result.measured)]
    for label, costs in ((label, c) for label, c in shapes if c is not None):
        fig.add_trace(
            go.Bar(
                x=[f"Level {row.level}" for row in costs.levels],
                y=[row.entries for row in costs.levels],
                name=label,
                customdata=[row.runs for row in costs.levels],
                hovertemplate="%{x}: %{y:.4g} entries in %{customdata} runs<extra>"
                + label + "</extra>",
            ),
            row=1, col=2,
        )
    fig.update_yaxes(title_text="%", row=1, col=1)
    fig.update_yaxes(title_text="entries", type="log", row=1, col=2)
    d = result.design
    fig.update_layout(
        barmode="group",
        title=(f"Validation of T={d.T:.4g}, C={d.C:.4g}, X={d.X:.4g}, K={d.K:.4g}, Z={d.Z:.4g}"
               f" ({d.filters} filters)"),
        legend={"orientation": "h", "y": -0.15},
    )
    return fig


def _fmt(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.1%}" if pct else f"{x:.4g}"


def _table(result: ValidationResult) -> go.Figure:
    metrics = _reported(result)
    models = _models(result)
    columns = [[METRIC_LABELS[m] for m in metrics]]
    columns += [[_fmt(costs.metric(m)) for m in metrics] for _, costs, _ in models]
    columns.append([_fmt(result.measured.metric(m)) for m in metrics])
    columns += [[_fmt(errors.metric(m), True) for m in metrics] for _, _, errors in models]
    header = (["metric"] + [name for name, _, _ in models] + ["measured"]
              + [f"{name} error" for name, _, _ in models])
    return go.Figure(go.Table(header={"values": header}, cells={"values": columns}))


def validation_html(result: ValidationResult) -> str:
    """A standalone HTML report: the table of values and :func:`validation_figure`."""
    parts = [
        # plotly.js inline, so the report works offline.
        _table(result).to_html(full_html=False, include_plotlyjs=True),
        validation_figure(result).to_html(full_html=False, include_plotlyjs=False),
    ]
    return "<html><head><meta charset='utf-8'><title>wacky validate</title></head><body>" + (
        "".join(parts) + "</body></html>")


def sweep_figure(results: Sequence[SweepResult], metric: str) -> go.Figure:
    """Each model (finite, paper, engine simulator) against measured ``metric``, with y = x."""
    fig = go.Figure()
    measured = [r.result.measured.metric(metric) for r in results]
    names = [r.name for r in results]
    for model, label in (("finite", "finite model"), ("paper", "paper model"),
                         ("simulator", "engine simulator")):
        fig.add_trace(go.Scatter(
            x=measured, y=[r.source(model).metric(metric) for r in results], mode="markers",
            name=label, text=names,
            hovertemplate="%{text}<br>measured %{x:.4g}, model %{y:.4g}<extra>" + label
            + "</extra>",
        ))
    if measured:
        lo, hi = min(measured), max(measured)
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="y = x",
                                 line={"dash": "dot", "color": "gray"}))
    fig.update_layout(title=f"{METRIC_LABELS.get(metric, metric)}: model vs engine",
                      xaxis_title="measured", yaxis_title="model")
    return fig
