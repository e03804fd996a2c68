"""Predicted vs measured: figures of a validation result and of a validation sweep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from validation.explain import models as explained_models
from validation.results import METRICS, ValidationResult

if TYPE_CHECKING:  # the sweep imports the engine; these figures must not (the dashboard uses them)
    from validation.sweep import SweepResult

METRIC_LABELS = {"write_amp": "write amp", "zero_result_read": "zero-result read",
                 "point_read": "read (Level L)", "point_read_uniform": "read (uniform)",
                 "range_runs": "range runs", "memory_bits_per_entry": "filter bits/entry",
                 "theta": "Θ"}


def _reported(result: ValidationResult) -> list[str]:
    return [m for m in METRICS if result.measured.metric(m) is not None]


# Each source keeps one colour in both panels (and one legend entry).
SOURCE_COLORS = {"finite model": "#636efa", "skew model": "#636efa", "paper model": "#ef553b",
                 "engine simulator": "#00cc96", "measured": "#222222"}
ERROR_AXIS_CAP = 100.0  # %: bars beyond it are cut at the axis edge and labelled with their value


def _pct(error: float) -> str:
    """A relative error (percent) as its label: whole percent when large."""
    return f"{error:+.0f}%" if abs(error) >= 100 else f"{error:+.1f}%"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.4g}"


def error_axis_range(errors_pct: Sequence[float | None]) -> tuple[float, float]:
    """The error panel's y range: errors within ±ERROR_AXIS_CAP in full, larger ones cut (one
    +5000% bar would squash the others). Each side spans its largest error within the cap (1.5
    times it, at least 10%, when some exceed it: those end at the edge, labelled)."""
    def side(mags: list[float]) -> float:
        if not mags:
            return 0.0
        if max(mags) <= ERROR_AXIS_CAP:
            return max(mags) * 1.6  # room for the labels outside the bars
        within = [m for m in mags if m <= ERROR_AXIS_CAP]
        return 1.5 * max(within + [10.0 / 1.5])

    values = [e for e in errors_pct if e is not None]
    hi, lo = side([e for e in values if e > 0]), side([-e for e in values if e < 0])
    pad = 0.3 * max(hi, lo, 1.0)  # a side with no bars still has room for labels
    return (-max(lo, pad), max(hi, pad))


def _error_bars(name: str, metrics: list[str], errors, costs, measured,
                axis: tuple[float, float]) -> go.Bar:
    """One model's relative errors as bars, each labelled with its value; bars beyond the axis
    are drawn to its edge (hatched) so the label, not the length, gives their size."""
    lo, hi = axis
    ys, texts, positions, patterns, hover = [], [], [], [], []
    for m in metrics:
        e = errors.metric(m)
        pct = None if e is None else 100 * e
        off = pct is not None and not lo <= pct <= hi
        ys.append(None if pct is None else min(max(pct, 0.97 * lo), 0.97 * hi))
        texts.append("" if pct is None else _pct(pct) + (" (off scale)" if off else ""))
        positions.append("inside" if off else "outside")
        patterns.append("/" if off else "")
        hover.append(f"{'undefined' if pct is None else _pct(pct)}: predicts "
                     f"{_num(costs.metric(m))}, measured {_num(measured.metric(m))}")
    return go.Bar(
        x=[METRIC_LABELS[m] for m in metrics], y=ys, name=name, legendgroup=name,
        marker={"color": SOURCE_COLORS.get(name), "pattern": {"shape": patterns}},
        text=texts, textposition=positions, textangle=-90, textfont={"size": 10},
        insidetextanchor="end", cliponaxis=False, customdata=hover,
        hovertemplate="%{x}: %{customdata}<extra>" + name + "</extra>",
    )


def validation_figure(result: ValidationResult) -> go.Figure:
    """Left: each model's relative error per metric (large errors cut at the axis, every value
    in its label). Right: entries per level of each model and of the engine, markers on a log
    axis (bars on a log axis start from an arbitrary baseline, so their lengths mislead)."""
    fig = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], horizontal_spacing=0.1,
                        subplot_titles=("Relative error (model - measured) / measured",
                                        "Entries per level (empty levels not drawn)"))
    metrics, models = _reported(result), explained_models(result)
    axis = error_axis_range([None if e is None else 100 * e
                             for _, _, errors in models for e in map(errors.metric, metrics)])
    for name, costs, errors in models:
        fig.add_trace(_error_bars(name, metrics, errors, costs, result.measured, axis),
                      row=1, col=1)
    shapes = [(models[0][0], result.predicted), ("paper model", result.paper),
              ("engine simulator", result.simulated), ("measured", result.measured)]
    for label, costs in ((label, c) for label, c in shapes if c is not None):
        rows = [row for row in costs.levels if row.entries > 0]  # log axis: empty levels out
        fig.add_trace(go.Scatter(
            x=[row.level for row in rows], y=[row.entries for row in rows],
            mode="markers+lines", name=label, legendgroup=label,
            showlegend=label == "measured",  # the models' entries are in the left panel's
            marker={"color": SOURCE_COLORS.get(label), "size": 9,
                    "symbol": "x" if label == "measured" else "circle"},
            line={"dash": "solid" if label == "measured" else "dot"},
            customdata=[row.runs for row in rows],
            hovertemplate="Level %{x}: %{y:.4g} entries in %{customdata} runs<extra>"
            + ("paper N_i" if label == "paper model" else label) + "</extra>"), row=1, col=2)
    fig.update_yaxes(title_text="%", range=list(axis), zeroline=True, row=1, col=1)
    fig.update_yaxes(title_text="entries", type="log", row=1, col=2)
    fig.update_xaxes(title_text="level", dtick=1, row=1, col=2)
    d = result.design
    fig.update_layout(
        barmode="group",
        title=(f"Validation of T={d.T:.4g}, C={d.C:.4g}, X={d.X:.4g}, K={d.K:.4g}, Z={d.Z:.4g}"
               f" ({d.filters} filters)"),
        legend={"orientation": "h", "y": -0.15}, uniformtext={"minsize": 8, "mode": "show"})
    return fig


def _fmt(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.1%}" if pct else f"{x:.4g}"


def _table(result: ValidationResult) -> go.Figure:
    metrics, models = _reported(result), explained_models(result)
    columns = [[METRIC_LABELS[m] for m in metrics]]
    columns += [[_fmt(costs.metric(m)) for m in metrics] for _, costs, _ in models]
    columns.append([_fmt(result.measured.metric(m)) for m in metrics])
    columns += [[_fmt(errors.metric(m), True) for m in metrics] for _, _, errors in models]
    header = (["metric"] + [name for name, _, _ in models] + ["measured"]
              + [f"{name} error" for name, _, _ in models])
    return go.Figure(go.Table(header={"values": header}, cells={"values": columns}))


def validation_html(result: ValidationResult) -> str:
    """A standalone HTML report: the table of values and :func:`validation_figure`."""
    parts = [_table(result).to_html(full_html=False, include_plotlyjs=True),  # works offline
             validation_figure(result).to_html(full_html=False, include_plotlyjs=False)]
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
