"""One design drawn the way the paper draws it, and Theta as a function of T for each family.

``structure_figure`` follows Figures 3 and 6: the buffer on top, then one row per level with
its runs as boxes, widths growing with capacity and each run labelled with its false-positive
rate. ``theta_by_family`` plots Eq 16 along every Figure 8 projection, the curves the paper's
tractable search steps along (Section 5).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from wacky_model.analysis import Analysis
from wacky_model.families import TABLE
from wacky_model.search import PROJECTION_T, UNPHYSICAL_COST, DesignSpace, family_theta
from wacky_model.types import System, Workload

# A level can hold hundreds of runs (QLSM-bush's Level 1); past this many we draw the first
# few and an ellipsis box, as the paper's figures do with "...".
MAX_RUN_BOXES = 10
FPR_COLORSCALE = "Viridis"
ROW_HEIGHT_PX = 46
BOX_GAP = 0.15  # fraction of a run box's slot left blank between neighbours
LABEL_X = 1.04  # annotations sit to the right of the widest level
# One fixed colour per family, whatever other traces a figure has.
FAMILY_COLORS = {f.name: f.color for f in TABLE}
# Far from their optimum the curves climb by orders of magnitude; show up to this multiple of
# the best Theta so the minima, which are what the search compares, stay readable.
THETA_Y_SPAN = 4.0


def _fmt_count(x: float) -> str:
    """Entry counts the way people read them: 8.39M, 1.07G."""
    for limit, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= limit:
            return f"{x / limit:.3g}{suffix}"
    return f"{x:.3g}"


def level_widths(capacities: list[float]) -> np.ndarray:
    """Row widths in (0, 1]: log-scaled capacity, so a level 10^4 times smaller is still seen.

    Linear widths would make every level but the last two invisible for real data sizes.
    """
    caps = np.maximum(np.asarray(capacities, dtype=float), 1.0)
    logs = np.log10(caps)
    lo, hi = logs.min(), logs.max()
    if hi - lo < 1e-12:
        return np.ones_like(caps)
    return 0.3 + 0.7 * (logs - lo) / (hi - lo)


def _fpr_color(fpr: float, lo: float, hi: float) -> str:
    t = 0.5 if hi - lo < 1e-12 else (math.log10(max(fpr, 1e-300)) - lo) / (hi - lo)
    return sample_colorscale(FPR_COLORSCALE, [min(1.0, max(0.0, t))])[0]


def structure_figure(analysis: Analysis, title: str | None = None) -> go.Figure:
    """Levels as rows, their runs as boxes coloured by FPR per run (Figures 3 and 6).

    Works on any :class:`Analysis`; with ``realizable=True`` the run counts are the whole
    numbers the engine builds.
    """
    levels = analysis.levels
    system = analysis.system
    buffer_entries = system.buffer_entries
    widths = level_widths([buffer_entries] + [row.capacity_entries for row in levels])
    fprs = [row.fpr_per_run for row in levels]
    log_fprs = [math.log10(max(f, 1e-300)) for f in fprs] or [0.0]
    lo, hi = min(log_fprs), max(log_fprs)

    fig = go.Figure()
    shapes, annotations = [], []
    hover_x, hover_y, hover_text = [], [], []

    # The buffer (Level 0 in the paper's drawings): one box, in memory.
    bw = widths[0]
    shapes.append(dict(type="rect", x0=0, x1=bw, y0=-0.35, y1=0.35, fillcolor="#dddddd",
                       line={"color": "#555555", "width": 1}))
    annotations.append(dict(x=LABEL_X, y=0, xanchor="left", showarrow=False,
                            text=f"buffer: {_fmt_count(buffer_entries)} entries"))
    hover_x.append(bw / 2)
    hover_y.append(0)
    hover_text.append(f"buffer<br>{buffer_entries:,} entries")

    for i, row in enumerate(levels, start=1):
        width = widths[i]
        runs = max(1, int(round(row.runs)))
        shown = min(runs, MAX_RUN_BOXES)
        slot = width / shown
        color = _fpr_color(row.fpr_per_run, lo, hi)
        per_run = row.capacity_entries / max(row.runs, 1e-12)
        for j in range(shown):
            x0 = j * slot + slot * BOX_GAP / 2
            x1 = (j + 1) * slot - slot * BOX_GAP / 2
            ellipsis = runs > shown and j == shown - 2
            shapes.append(dict(type="rect", x0=x0, x1=x1, y0=i - 0.35, y1=i + 0.35,
                               fillcolor="white" if ellipsis else color,
                               line={"color": "#333333", "width": 1,
                                     "dash": "dot" if ellipsis else "solid"}))
            if ellipsis:
                annotations.append(dict(x=(x0 + x1) / 2, y=i, text="…", showarrow=False,
                                        font={"size": 14}))
        label = "run" if runs == 1 else "runs"
        annotations.append(dict(x=LABEL_X, y=i, xanchor="left", showarrow=False,
                                text=(f"L{row.level}: {runs} {label} × {_fmt_count(per_run)}, "
                                      f"FPR/run {row.fpr_per_run:.2g}")))
        hover_x.append(width / 2)
        hover_y.append(i)
        hover_text.append(
            f"Level {row.level}<br>{runs} {label}, {row.capacity_entries:,.0f} entries"
            f"<br>{row.buffer_multiple:.4g} x buffer<br>FPR per run {row.fpr_per_run:.3g}"
            f"<br>level FPR {row.level_fpr:.3g}<br>{row.filter_bits_per_entry:.2f} bits/entry "
            f"({row.structure})")

    # Invisible markers carry the hover text and the FPR colour bar.
    fig.add_trace(go.Scatter(
        x=hover_x, y=hover_y, text=hover_text, mode="markers", hoverinfo="text",
        showlegend=False, name="levels",
        marker={"size": 1, "opacity": 0, "color": [lo] + log_fprs[: len(levels)],
                "colorscale": FPR_COLORSCALE, "cmin": lo, "cmax": hi if hi > lo else lo + 1,
                "colorbar": {"title": {"text": "log10 FPR/run"}, "len": 0.8, "thickness": 12},
                "showscale": bool(levels)}))
    knobs = ", ".join(f"{k}={v:.3g}" for k, v in analysis.design.knobs.items())
    fig.update_layout(
        title=title or f"Structure ({knobs}); widths: log capacity", shapes=shapes,
        annotations=annotations,
        xaxis={"visible": False, "range": [-0.02, 1.75], "fixedrange": True},
        yaxis={"visible": False, "range": [len(levels) + 0.6, -0.6], "fixedrange": True},
        height=110 + ROW_HEIGHT_PX * (len(levels) + 1),
        margin={"l": 10, "r": 10, "t": 50, "b": 10}, template="plotly_white")
    return fig


def theta_by_family(
    system: System,
    workload: Workload,
    *,
    space: DesignSpace | None = None,
    current: tuple[float, float, str] | None = None,
    t_max: float = 400.0,
) -> go.Figure:
    """Theta against T, one curve per family, each family's best T dotted; ``current`` is a
    ``(T, Theta, label)`` to mark with a star."""
    keep = PROJECTION_T <= t_max
    fig = go.Figure()
    lowest = math.inf
    for name, theta in family_theta(system, workload, space).items():
        # Designs the family cannot build at some T (UNPHYSICAL_COST) are gaps, not spikes.
        T, y = PROJECTION_T[keep], np.where(theta[keep] >= UNPHYSICAL_COST, np.nan, theta[keep])
        color = FAMILY_COLORS[name]
        fig.add_trace(go.Scatter(x=T, y=y, mode="lines", name=name, legendgroup=name,
                                 line={"color": color},
                                 hovertemplate=f"{name}<br>T=%{{x:g}}<br>Θ=%{{y:.4g}}"
                                 "<extra></extra>"))
        best = int(np.nanargmin(y))
        lowest = min(lowest, float(y[best]))
        fig.add_trace(go.Scatter(
            x=[T[best]], y=[y[best]], mode="markers", legendgroup=name, showlegend=False,
            marker={"size": 8, "color": color},
            hovertemplate=f"{name} best<br>T=%{{x:g}}<br>Θ=%{{y:.4g}}<extra></extra>"))
    if current is not None:
        add_current_marker(fig, current[0], current[1], current[2])
        lowest = min(lowest, current[1])
    fig.update_layout(
        title="Θ (average I/O per operation) vs base ratio T; dots: each family's best T",
        xaxis={"title": "T (base ratio)", "type": "log"},
        yaxis={"title": "Θ (I/O per operation)", "type": "log",
               "range": [math.log10(lowest * 0.9), math.log10(lowest * THETA_Y_SPAN)]},
        height=520, template="plotly_white")
    return fig


def add_current_marker(fig: go.Figure, x: float, y: float, label: str) -> go.Figure:
    """Mark one design on a figure: a black star with its label (used on every view)."""
    fig.add_trace(go.Scatter(
        x=[x], y=[y], mode="markers+text", name=label, text=[label], textposition="top right",
        marker={"symbol": "star", "size": 16, "color": "black",
                "line": {"color": "white", "width": 1}},
        hovertemplate=f"{label}<br>%{{x:.4g}}, %{{y:.4g}}<extra></extra>"))
    return fig


def throughput_by_write_share(shares: tuple[float, ...], ops: dict[str, list[float]],
                              current: str, machine: str) -> go.Figure:
    """Operations per second against the write share (wacky_model.throughput.ops_by_write_share):
    one line per family at its best T, and the design shown (``current``, black) on top."""
    fig = go.Figure()
    for name, y in ops.items():
        mine = name == current
        color = "black" if mine else FAMILY_COLORS.get(name, "gray")
        fig.add_trace(go.Scatter(
            x=list(shares), y=y, mode="lines+markers", name=name,
            line={"color": color, "width": 3 if mine else 1.5, "dash": "solid"},
            marker={"symbol": "star" if mine else "circle", "size": 9 if mine else 5},
            hovertemplate=f"{name}<br>writes %{{x:.0%}}<br>%{{y:,.0f}} ops/s<extra></extra>"))
    fig.update_layout(
        title=f"Throughput (T4, one thread, on {machine}) vs the share of writes; each design "
              "as picked for the page's mix",
        xaxis={"title": "share of operations that write", "tickformat": ".0%"},
        yaxis={"title": "operations per second", "type": "log"},
        height=460, template="plotly_white")
    return fig


def message_figure(text: str) -> go.Figure:
    """An empty chart that says why it is empty (what it needs)."""
    fig = go.Figure()
    fig.add_annotation(text=text, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(xaxis={"visible": False}, yaxis={"visible": False}, height=160,
                      template="plotly_white")
    return fig
