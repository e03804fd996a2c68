"""What the paper figures share: the paper's hardware, a palette, the layout, plain tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from wacky_model.types import System

ENTRY_BYTES = 128
# Figure 1, 4 (B) and 7 (B): data sizes in entries of 128 bytes.
PAPER_SIZES: dict[str, float] = {"32 GB": 2.0**28, "32 TB": 2.0**38, "32 PB": 2.0**48}
# Curves that are not families (sizes, allocations) take colours in this order.
PALETTE = (
    "#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a",
    "#19d3f3", "#ff6692", "#b6e880", "#ff97ff", "#fecb52",
)  # fmt: skip


def paper_system(entries: float, **budget: float) -> System:
    """The paper's hardware (128 B entries, 4 KB blocks, 8 MB buffer) holding ``entries``."""
    return System(entries=entries, entry_bytes=ENTRY_BYTES, **budget)


def styled(fig: go.Figure, x_title: str, y_title: str, **layout: object) -> go.Figure:
    """Axis titles on the white template, plus any other ``layout`` (title, axis types)."""
    fig.update_layout(xaxis_title=x_title, yaxis_title=y_title, template="plotly_white", **layout)
    return fig


def table_figure(
    header: Sequence[str], rows: Sequence[Sequence[object]], *, title: str = ""
) -> go.Figure:
    """A plain plotly table; floats are shown with 3 significant digits."""

    def fmt(v: object) -> str:
        if isinstance(v, float | np.floating):
            return "nan" if not np.isfinite(v) else f"{v:.3g}"
        return str(v)

    columns = [[fmt(r[i]) for r in rows] for i in range(len(header))]
    fig = go.Figure(go.Table(
        header={"values": list(header), "align": "left", "fill_color": "#e8e8f0"},
        cells={"values": columns, "align": "left"}))
    fig.update_layout(title=title, template="plotly_white", margin={"t": 40, "b": 10})
    return fig
