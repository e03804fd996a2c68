"""Pareto frontiers: write amplification against memory and against range cost."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from wacky_model.analysis import analyze, analyze_many
from wacky_model.figures.design import FAMILY_COLORS, add_current_marker
from wacky_model.search import FAMILIES, PROJECTION_T, RecommendationBatch, family_knobs
from wacky_model.types import Design, System

FRONTIER_T_MAX = 64  # the paper's frontiers sweep T over two digits at most


def _frontier(system: System, y_of, y_hover: str, title: str, y_title: str,
              design: Design | None, label: str) -> go.Figure:
    """One curve per family over T = 2..FRONTIER_T_MAX: write amplification against
    ``y_of(evaluation)``; ``design``, if given, is marked with ``label``."""
    keep = PROJECTION_T <= FRONTIER_T_MAX
    fig = go.Figure()
    for name, knobs in family_knobs(system).items():
        e = analyze_many(*(k[keep] for k in knobs), system, realizable=True)
        fig.add_trace(go.Scatter(x=e.write_amp, y=y_of(e), mode="lines+markers", name=name,
                                 line={"color": FAMILY_COLORS[name]},
                                 text=[f"T={t:g}" for t in PROJECTION_T[keep]],
                                 hovertemplate="%{text}<br>WA %{x:.2f}<br>" + y_hover))
    fig.update_layout(title=title, xaxis_title="write amplification", yaxis_title=y_title,
                      template="plotly_white")
    if design is not None:
        a = analyze(design, system, realizable=True)
        add_current_marker(fig, a.write_amp, y_of(a), label)
    return fig


def memory_frontier(
    system: System, sum_fpr: float = 0.1, *, design: Design | None = None,
    label: str = "current design",
) -> go.Figure:
    """Filter memory vs write amplification at a fixed point-read cost (Figures 1, 4, 7).

    Every family is swept over T with the sum of FPRs held at ``sum_fpr``; ``design``, if
    given, is marked at the memory it needs for that same point-read cost.
    """
    return _frontier(replace(system, bits_per_entry=None, sum_fpr=sum_fpr),
                     lambda e: e.memory_bits_per_entry, "%{y:.2f} bits/entry",
                     f"Memory vs write amplification at sum of FPRs p = {sum_fpr:.3g} "
                     f"(N = {system.entries:.3g} entries)", "filter memory (bits per entry)",
                     design, label)


def range_frontier(
    system: System, *, design: Design | None = None, label: str = "current design"
) -> go.Figure:
    """Range-read cost (runs probed) vs write amplification (Figure 4 (C)); ``design``, if
    given, is marked."""
    fig = _frontier(system, lambda e: e.range_runs, "%{y:.0f} runs",
                    "Range-read cost vs write amplification", "range read cost (runs)",
                    design, label)
    return fig.update_layout(yaxis_type="log")


def relative_throughput(batch: RecommendationBatch, x: np.ndarray, x_title: str) -> go.Figure:
    """Each family's throughput relative to the recommendation across workloads (Figure 9)."""
    fig = go.Figure()
    for f, name in enumerate(FAMILIES):
        fig.add_trace(go.Scatter(x=x, y=batch.cost / batch.family_cost[:, f], name=name,
                                 line={"color": FAMILY_COLORS[name]}))
    fig.add_trace(go.Scatter(x=x, y=np.ones_like(x, dtype=float), name="recommended",
                             text=list(batch.families), line={"color": "black", "width": 3}))
    fig.update_layout(xaxis_title=x_title,
                      yaxis_title="throughput relative to the recommendation",
                      template="plotly_white")
    return fig


def frontier_html(system: System, sum_fpr: float = 0.1) -> str:
    """Both frontiers in one self-contained HTML page (plotly.js embedded, works offline)."""
    figs = [memory_frontier(system, sum_fpr), range_frontier(system)]
    parts = [fig.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, fig in enumerate(figs)]
    return ("<html><head><meta charset='utf-8'><title>wacky frontiers</title></head><body>"
            + "".join(parts) + "</body></html>")
