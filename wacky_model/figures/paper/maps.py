"""Figures 9 and 10 as maps: the design the search picks across workloads, sizes and memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from wacky_model.families import MAP_COLORS, MAP_FAMILIES
from wacky_model.figures.paper.common import styled
from wacky_model.search import DesignSpace, recommend_many
from wacky_model.types import System, Workload


@dataclass(frozen=True)
class DesignMap:
    """The recommended design at every (x, y) of a grid: rows are y, columns are x."""

    x: np.ndarray
    y: np.ndarray
    x_title: str
    y_title: str
    families: np.ndarray  # (ny, nx) names from MAP_FAMILIES
    T: np.ndarray
    C: np.ndarray
    X: np.ndarray
    cost: np.ndarray  # Theta of the recommended design
    method: str

    def share(self, family: str) -> float:
        """Fraction of the map's cells where ``family`` is chosen."""
        return float(np.mean(self.families == family))


def design_map(
    x: Sequence[float],
    y: Sequence[float],
    *,
    workload_at: Callable[[float, float], Workload],
    system_at: Callable[[float], System],
    x_title: str,
    y_title: str,
    method: str = "projections",
) -> DesignMap:
    """Recommend a design for each cell: one DesignSpace per row (system), one batch per row."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    batches = []
    for yv in y:
        system = system_at(float(yv))
        batches.append(recommend_many([workload_at(float(xv), float(yv)) for xv in x], system,
                                      method=method, space=DesignSpace.build(system)))
    T, C, X = (np.array([[getattr(d, k) for d in b.designs] for b in batches]) for k in "TCX")
    return DesignMap(x, y, x_title, y_title, np.array([b.families for b in batches], dtype=object),
                     T, C, X, np.array([b.cost for b in batches]), method)


def design_map_figure(m: DesignMap, *, title: str = "", log_x: bool = False,
                      log_y: bool = False) -> go.Figure:
    """Heatmap of the chosen family (colour) with the chosen T written in each cell."""
    idx = np.vectorize(MAP_FAMILIES.index)(m.families).astype(float)
    n = len(MAP_FAMILIES)
    scale = []
    for i, colour in enumerate(MAP_COLORS):
        scale += [[i / n, colour], [(i + 1) / n, colour]]
    text = np.vectorize(lambda t: f"{t:.0f}")(m.T)
    hover = np.vectorize(lambda f, t, c, x: f"{f}<br>T={t:.3g} C={c:.3g} X={x:.3g}")(
        m.families, m.T, m.C, m.X)
    fig = go.Figure(go.Heatmap(
        x=m.x, y=m.y, z=idx + 0.5,  # category i fills [i, i + 1) of the colour scale
        zmin=0, zmax=n, colorscale=scale, text=text, texttemplate="%{text}", customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", showscale=False, xgap=1, ygap=1))
    for name, colour in zip(MAP_FAMILIES, MAP_COLORS, strict=True):
        if np.any(m.families == name):
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                     marker={"color": colour, "size": 12, "symbol": "square"}))
    styled(fig, m.x_title, m.y_title, title=title or f"Chosen design ({m.method}); cell text is T")
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return fig
