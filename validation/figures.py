"""Predicted vs measured: figures of a validation result and of a validation sweep.

They take the plain JSON documents of ``wacky validate --json`` (``ValidationResult.to_dict()``)
so that this package never imports the validation layer above it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

METRIC_LABELS = {
    "write_amp": "write amp",
    "zero_result_read": "zero-result read",
    "point_read": "read (Level L)",
    "point_read_uniform": "read (uniform)",
    "range_runs": "range runs",
    "memory_bits_per_entry": "filter bits/entry",
    "theta": "Θ",
}
MODELS = (("predicted", "relative_error", "paper model"),
          ("refined", "refined_relative_error", "refined model"))


def validation_figure(result: Mapping[str, Any]) -> go.Figure:
    """Left: each model's relative error per metric. Right: entries per level, all three."""
    fig = make_subplots(
        rows=1, cols=2, column_widths=[0.55, 0.45],
        subplot_titles=("Relative error (model - measured) / measured", "Entries per level"),
    )
    metrics = [m for m in METRIC_LABELS if result["measured"].get(m) is not None]
    for _, err_key, name in MODELS:
        errs = [result[err_key][m] for m in metrics]
        fig.add_trace(
            go.Bar(
                x=[METRIC_LABELS[m] for m in metrics],
                y=[100 * e if e is not None else None for e in errs],
                name=name,
                hovertemplate="%{x}: %{y:.2f}%<extra>" + name + "</extra>",
            ),
            row=1, col=1,
        )
    for key, label in (("predicted", "paper N_i"), ("refined", "refined"),
                       ("measured", "measured")):
        levels = result[key]["levels"]
        fig.add_trace(
            go.Bar(
                x=[f"Level {row['level']}" for row in levels],
                y=[row["entries"] for row in levels],
                name=label,
                customdata=[row["runs"] for row in levels],
                hovertemplate="%{x}: %{y:.4g} entries in %{customdata} runs<extra>"
                + label + "</extra>",
            ),
            row=1, col=2,
        )
    fig.update_yaxes(title_text="%", row=1, col=1)
    fig.update_yaxes(title_text="entries", type="log", row=1, col=2)
    knobs = result["design"]
    fig.update_layout(
        barmode="group",
        title=("Validation of T={T:.4g}, C={C:.4g}, X={X:.4g}, K={K:.4g}, Z={Z:.4g}".format(
            **knobs) + f" ({knobs.get('filters', 'optimized')} filters)"),
        legend={"orientation": "h", "y": -0.15},
    )
    return fig


def _table(result: Mapping[str, Any]) -> go.Figure:
    metrics = [m for m in METRIC_LABELS if result["measured"].get(m) is not None]

    def fmt(x: float | None, pct: bool = False) -> str:
        if x is None:
            return "-"
        return f"{x:+.1%}" if pct else f"{x:.4g}"

    columns = [
        [METRIC_LABELS[m] for m in metrics],
        [fmt(result["predicted"][m]) for m in metrics],
        [fmt(result["refined"][m]) for m in metrics],
        [fmt(result["measured"][m]) for m in metrics],
        [fmt(result["relative_error"][m], True) for m in metrics],
        [fmt(result["refined_relative_error"][m], True) for m in metrics],
    ]
    header = ["metric", "paper model", "refined model", "measured", "paper error",
              "refined error"]
    return go.Figure(go.Table(header={"values": header}, cells={"values": columns}))


def validation_html(result: Mapping[str, Any]) -> str:
    """A standalone HTML report: the table of values and :func:`validation_figure`."""
    parts = [
        _table(result).to_html(full_html=False, include_plotlyjs="cdn"),
        validation_figure(result).to_html(full_html=False, include_plotlyjs=False),
    ]
    return "<html><head><meta charset='utf-8'><title>wacky validate</title></head><body>" + (
        "".join(parts) + "</body></html>")


def sweep_figure(results: Sequence[Mapping[str, Any]], metric: str) -> go.Figure:
    """Predicted (both models) against measured ``metric`` across a sweep, with y = x."""
    fig = go.Figure()
    measured = [r["measured"][metric] for r in results]
    names = [r.get("name", "") for r in results]
    for key, _, label in MODELS:
        fig.add_trace(go.Scatter(
            x=measured, y=[r[key][metric] for r in results], mode="markers", name=label,
            text=names, hovertemplate="%{text}<br>measured %{x:.4g}, model %{y:.4g}<extra>"
            + label + "</extra>",
        ))
    if measured:
        lo, hi = min(measured), max(measured)
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="y = x",
                                 line={"dash": "dot", "color": "gray"}))
    fig.update_layout(title=f"{METRIC_LABELS.get(metric, metric)}: model vs engine",
                      xaxis_title="measured", yaxis_title="model")
    return fig
