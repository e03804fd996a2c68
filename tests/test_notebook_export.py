"""The notebooks exported as `jupyter nbconvert --to html --execute` would export them.

Each notebook is executed once (nbconvert's ExecutePreprocessor, the notebooks directory as the
working directory, as nbmake runs them) and exported with the HTML exporter. The export must keep
every plotly figure (plotly writes an HTML copy beside its own mimetype only when the notebook
sets a renderer that does: ``wacky_model.figures.notebook.setup``), must not print Python's
True/False in its prose or tables, and must not link to files outside the repository.

Executing the four notebooks takes about 1.5 minutes (notebooks 03 and 04 most of it);
``make test`` also executes them once more with nbmake.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter
from nbconvert.preprocessors import ExecutePreprocessor

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PLOTLY_MIME = "application/vnd.plotly.v1+json"
TIMEOUT_S = 900  # per cell; notebook 04 runs the engine


class _Visible(HTMLParser):
    """Text of the rendered prose and tables (p, li, td, th, headings), outside code and scripts,
    and every link target (href, src)."""

    PROSE = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"}
    HIDDEN = {"pre", "script", "style", "code"}

    def __init__(self) -> None:
        super().__init__()
        self.prose: list[str] = []
        self.links: list[str] = []
        self._open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("href", "src") and v]
        if tag not in ("br", "img", "hr", "meta", "link", "input"):
            self._open.append(tag)

    def handle_endtag(self, tag):
        if tag in self._open:
            while self._open and self._open.pop() != tag:
                pass

    def handle_data(self, data):
        if any(t in self.HIDDEN for t in self._open):
            return
        if any(t in self.PROSE for t in self._open):
            self.prose.append(data)


def _outside_repository(link: str) -> bool:
    if re.match(r"^[a-z][a-z0-9+.-]*:", link, re.I) or link.startswith(("#", "//")):
        return False  # a URL (http, data, mailto) or an anchor, not a file path
    target = (ROOT / "notebooks" / link.split("#")[0]).resolve()
    return not target.is_relative_to(ROOT)


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def exported(request):
    path = request.param
    nb = nbformat.read(path, as_version=4)
    shows = sum(c.source.count(".show()") for c in nb.cells if c.cell_type == "code")
    ExecutePreprocessor(timeout=TIMEOUT_S, kernel_name="python3").preprocess(
        nb, {"metadata": {"path": str(path.parent)}}
    )
    figures = sum(
        PLOTLY_MIME in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
        for o in c.outputs
    )
    html, _ = HTMLExporter().from_notebook_node(nb)
    return nb, shows, figures, html


def test_figures_survive_the_html_export(exported):
    nb, shows, figures, html = exported
    assert shows >= 1 and figures >= shows  # every .show() ran and wrote a plotly figure
    divs = html.count('class="plotly-graph-div"')
    assert divs >= figures, f"{figures} plotly figures, {divs} in the HTML"
    assert html.count("Plotly.newPlot") >= figures
    # plotly.js is embedded, not fetched from a CDN, so the export also works offline.
    assert not re.search(r"<script[^>]*src=[\"'][^\"']*plotly", html)


def test_prose_is_markdown_without_python_booleans(exported):
    nb, _, _, html = exported
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert not any("display(Markdown(" in s for s in code), "prose belongs in markdown cells"
    visible = _Visible()
    visible.feed(html)
    text = " ".join(visible.prose)
    assert text.strip()
    leaks = re.findall(r".{0,60}\b(?:True|False)\b.{0,20}", text)
    assert not leaks, leaks


def test_no_links_outside_the_repository(exported):
    nb, _, _, html = exported
    visible = _Visible()
    visible.feed(html)
    outside = [link for link in visible.links if _outside_repository(link)]
    assert not outside, outside
    sources = "\n".join(c.source for c in nb.cells)
    assert "shared/papers" not in sources, "the errata live in docs/ERRATA.md"
