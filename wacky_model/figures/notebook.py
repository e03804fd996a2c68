"""Helpers for the notebooks: figures that survive HTML export, and markdown tables.

``setup()`` makes plotly write an HTML copy of every figure beside its own mimetype, so
``jupyter nbconvert --to html`` keeps the figures; plotly.js is embedded once per notebook, so the
export also works offline. ``table`` and ``facts`` turn rows of numbers into markdown tables
(tables only: the prose lives in the notebooks' markdown cells).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

# "notebook" (not "notebook_connected") embeds plotly.js instead of loading it from a CDN.
RENDERER = "plotly_mimetype+notebook"


def setup() -> None:
    """Set the plotly renderer for the notebooks (call once, in the first code cell)."""
    import plotly.io as pio

    pio.renderers.default = RENDERER


def fmt(value: object, digits: int = 3) -> str:
    """One table cell: floats to ``digits`` significant digits (whole numbers and values up to
    1e9 in full), booleans as yes/no, missing or non-finite values as a dash."""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, float | np.floating):
        v = float(value)
        if not np.isfinite(v):
            return "–"
        if v == round(v) and abs(v) < 1e9 or 10**digits <= abs(v) < 1e9:
            return f"{v:.0f}"  # whole numbers and large values in full, not as 6.55e+04
        return f"{v:.{digits}g}"
    if value is None:
        return "–"
    return str(value)


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], *, digits: int = 3
) -> str:
    """The markdown source of a table; strings are kept, numbers go through :func:`fmt`."""

    def cell(v: object) -> str:
        return fmt(v, digits).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def table(header: Sequence[str], rows: Sequence[Sequence[object]], *, digits: int = 3):
    """A markdown table for display in a notebook (``IPython.display.Markdown``)."""
    from IPython.display import Markdown

    return Markdown(markdown_table(header, rows, digits=digits))


def facts(values: Mapping[str, object], *, digits: int = 3, header=("quantity", "value")):
    """A two-column table of named numbers, for the figures a markdown cell refers to."""
    return table(header, [(k, v) for k, v in values.items()], digits=digits)
