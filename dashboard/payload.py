"""Figures made light for the wire: every edit re-sends them, so their size is the page's lag.
:func:`lighten` trims what made the default views about 180 KB: the full plotly template in each
figure (about 7 KB, mostly colour scales and 3-D and map defaults), curves with a point at every
integer T up to 400 (on a log axis most share a pixel), and numbers at full double precision.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# The parts of plotly_white that a 2-D chart of lines, markers, bars and tables uses.
_LAYOUT_KEYS = ("colorway", "font", "hovermode", "hoverlabel", "paper_bgcolor", "plot_bgcolor",
                "xaxis", "yaxis", "title", "annotationdefaults", "shapedefaults")
_TRACE_TYPES = ("scatter", "bar", "table")
DIGITS = 5  # significant digits kept: the hover labels show 4
MIN_LOG_STEP = 0.008  # decades between kept points of a dense curve on a log x axis


def light_template(name: str = "plotly_white") -> go.layout.Template:
    full = pio.templates[name]
    layout = {k: full.layout[k] for k in _LAYOUT_KEYS if full.layout[k] is not None}
    data = {t: full.data[t] for t in _TRACE_TYPES if full.data[t]}
    return go.layout.Template(layout=layout, data=data)


LIGHT_TEMPLATE = light_template()


def _rounded(values: np.ndarray) -> list[float | None]:
    return [None if v is None or not math.isfinite(v) else float(f"{v:.{DIGITS}g}")
            for v in values.tolist()]


def _log_spaced(x: np.ndarray) -> np.ndarray:
    """Indices of the points of an increasing positive x to keep: each at least MIN_LOG_STEP
    decades past the last one kept, and always the last point."""
    keep = [0]
    last = math.log10(x[0])
    for i in range(1, len(x)):
        lx = math.log10(x[i])
        if lx - last >= MIN_LOG_STEP or i == len(x) - 1:
            keep.append(i)
            last = lx
    return np.asarray(keep)


def _numeric(values) -> np.ndarray | None:
    if values is None or isinstance(values, str):
        return None
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None
    return array if array.ndim == 1 else None


def lighten(fig: go.Figure) -> go.Figure:
    """The same chart, lighter: the trimmed template, dense log-x curves thinned, numbers at
    DIGITS significant digits. Markers and short traces keep every point."""
    template_title = fig.layout.template.layout.title if fig.layout.template else None
    fig.layout.template = LIGHT_TEMPLATE
    if template_title is not None and fig.layout.title.x is None:
        fig.layout.title.x = template_title.x
    log_x = fig.layout.xaxis.type == "log"
    for trace in fig.data:
        if trace.type != "scatter":
            continue
        x, y = _numeric(trace.x), _numeric(trace.y)
        if x is None or y is None or len(x) != len(y):
            continue
        if (log_x and len(x) > 50 and trace.mode == "lines" and np.all(x > 0)
                and np.all(np.diff(x) > 0)):
            keep = _log_spaced(x)
            x, y = x[keep], y[keep]
        trace.x, trace.y = _rounded(x), _rounded(y)
    return fig
