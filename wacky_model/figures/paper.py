"""Figures that reproduce the paper's analysis (Figures 1, 4, 5, 7, 8, 9-11 and App. D-F).

Each figure has a pure function that computes its data and a builder that draws it, so the
notebooks, the CLI and the dashboard can all reuse them. Every curve is the cost model's own
output (:mod:`cost_models`): nothing here is fitted to the paper's printed numbers.

Sizes follow the paper: 128-byte entries, 4 KB blocks (B = 32) and an 8 MB buffer, so N/F is the
data size in bytes over 8 MB (32 GB is 4096 buffers, 1 TB is 131072).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from cost_models import memory
from cost_models.evaluate import Evaluation, evaluate
from wacky_model.analysis import analyze_many
from wacky_model.search import DesignSpace, family_knobs, recommend_many
from wacky_model.types import System, Workload

ENTRY_BYTES = 128
# Figure 1, 4 (B) and 7 (B): data sizes in entries of 128 bytes.
PAPER_SIZES: dict[str, float] = {"32 GB": 2.0**28, "32 TB": 2.0**38, "32 PB": 2.0**48}
CURVE_T_MAX = 64  # the paper's frontiers sweep T over two digits

Knobs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def paper_system(entries: float, **budget: float) -> System:
    """The paper's hardware (128 B entries, 4 KB blocks, 8 MB buffer) holding ``entries``."""
    return System(entries=entries, entry_bytes=ENTRY_BYTES, **budget)


# ------------------------------------------------------------------------------------------
# Trade-off curves: Figures 1, 4 and 7
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    """One curve: a named sequence of designs (knob arrays) on one system."""

    name: str
    T: np.ndarray
    C: np.ndarray
    X: np.ndarray
    K: np.ndarray
    Z: np.ndarray
    system: System

    @property
    def knobs(self) -> Knobs:
        return (self.T, self.C, self.X, self.K, self.Z)


def family_sweep(
    family: str, system: System, *, t_max: float = CURVE_T_MAX, name: str | None = None
) -> Sweep:
    """A Figure 8 projection (a name of :data:`wacky_model.search.FAMILIES`) over T = 2..t_max."""
    knobs = family_knobs(system)
    if family not in knobs:
        raise ValueError(f"family must be one of {', '.join(knobs)}; got {family!r}")
    T = knobs[family][0]
    keep = T <= t_max
    T, C, X, K, Z = (np.asarray(k, dtype=float)[keep] for k in knobs[family])
    return Sweep(name or family, T, C, X, K, Z, system)


def bush_frontier_sweep(
    X: float, system: System, *, t_max: float = CURVE_T_MAX, name: str | None = None
) -> Sweep:
    """Figure 7 (A): LSM-bush with T and C co-tuned along its Pareto frontier.

    From T = t_max down to 2 with C = 1 (the left branch, towards less write amplification),
    then T = 3..t_max with C = T - 1 (the right branch, towards less memory). The point
    T = 2, C = 1 (the paper's black dot) joins the two.
    """
    left = np.arange(int(t_max), 1, -1, dtype=float)
    right = np.arange(3, int(t_max) + 1, dtype=float)
    T = np.concatenate([left, right])
    C = np.concatenate([np.ones_like(left), right - 1.0])
    ones = np.ones_like(T)
    return Sweep(name or f"LSM-bush X={X:g}", T, C, X * ones, ones, 0 * ones, system)


def sweep_costs(sweep: Sweep, *, sum_fpr: float | None = None, realizable: bool = False):
    """Every cost of the sweep's designs; ``sum_fpr`` overrides the system's filter budget."""
    system = sweep.system
    if sum_fpr is not None:
        system = replace(system, bits_per_entry=None, sum_fpr=sum_fpr)
    return analyze_many(*sweep.knobs, system, realizable=realizable)


_METRICS: dict[str, tuple[str, Callable[[Evaluation], np.ndarray]]] = {
    "memory": ("filter memory (bits per entry)", lambda e: e.memory_bits_per_entry),
    "range": ("range read cost (runs)", lambda e: e.range_runs),
    "point_read": ("point read cost (I/O)", lambda e: e.point_read),
}

_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")


def tradeoff_figure(
    sweeps: Sequence[Sweep],
    *,
    metric: str = "memory",
    sum_fpr: float | None = 0.1,
    realizable: bool = False,
    title: str = "",
    log_y: bool = False,
) -> go.Figure:
    """One curve per sweep: write amplification (x) against ``metric`` (y), T as hover text.

    ``metric`` is "memory" (Figures 1, 4 (A, B), 7), "range" (Figure 4 (C)) or "point_read".
    Sweeps sharing a name prefix before " @ " share a colour; the size after it sets the dash.
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {', '.join(_METRICS)}; got {metric!r}")
    y_title, y_of = _METRICS[metric]
    fig = go.Figure()
    colours: dict[str, str] = {}
    palette = go.layout.Template().layout.colorway or _default_colours()
    sizes: list[str] = []
    for sweep in sweeps:
        e = sweep_costs(sweep, sum_fpr=sum_fpr, realizable=realizable)
        family, _, size = sweep.name.partition(" @ ")
        colour = colours.setdefault(family, palette[len(colours) % len(palette)])
        if size and size not in sizes:
            sizes.append(size)
        dash = _DASHES[sizes.index(size) % len(_DASHES)] if size else "solid"
        fig.add_trace(
            go.Scatter(
                x=e.write_amp,
                y=y_of(e),
                mode="lines+markers",
                name=sweep.name,
                marker={"size": 4},
                line={"color": colour, "dash": dash},
                text=[f"T={t:g} C={c:.3g}" for t, c in zip(sweep.T, sweep.C, strict=True)],
                hovertemplate="%{text}<br>WA %{x:.2f}<br>%{y:.3g}<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(
        title=title,
        xaxis_title="write amplification",
        yaxis_title=y_title,
        template="plotly_white",
    )
    if log_y:
        fig.update_layout(yaxis_type="log")
    return fig


def _default_colours() -> list[str]:
    return [
        "#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a",
        "#19d3f3", "#ff6692", "#b6e880", "#ff97ff", "#fecb52",
    ]  # fmt: skip


def sized_sweeps(
    make: Callable[[System], Sweep], sizes: Mapping[str, float], **budget: float
) -> list[Sweep]:
    """The same sweep at each data size, named "<sweep> @ <size>" (Figures 1, 4 (B), 7 (B))."""
    out = []
    for label, entries in sizes.items():
        sweep = make(paper_system(entries, **budget))
        out.append(replace(sweep, name=f"{sweep.name} @ {label}"))
    return out


def curve_at(sweep: Sweep, T: float, *, sum_fpr: float | None = 0.1) -> dict[str, float]:
    """The costs of the sweep's first design with base ratio ``T`` (for quoting in prose)."""
    idx = np.flatnonzero(np.isclose(sweep.T, T))
    if idx.size == 0:
        raise ValueError(f"T={T:g} is not on the sweep {sweep.name!r}")
    e = sweep_costs(sweep, sum_fpr=sum_fpr)
    i = int(idx[0])
    return {
        "T": float(sweep.T[i]),
        "C": float(sweep.C[i]),
        "write_amp": float(e.write_amp[i]),
        "memory": float(e.memory_bits_per_entry[i]),
        "range_runs": float(e.range_runs[i]),
        "levels": float(e.structure.L[i]),
    }


def write_amp_at_memory(sweep: Sweep, bits: float, *, sum_fpr: float = 0.1) -> float:
    """The least write amplification on the curve among designs needing <= ``bits`` bits/entry.

    NaN when no design of the sweep fits in ``bits``.
    """
    e = sweep_costs(sweep, sum_fpr=sum_fpr)
    fits = e.memory_bits_per_entry <= bits
    return float(np.min(e.write_amp[fits])) if np.any(fits) else float("nan")


def memory_at_write_amp(sweep: Sweep, write_amp: float, *, sum_fpr: float = 0.1) -> float:
    """The least memory on the curve among designs with write amplification <= ``write_amp``."""
    e = sweep_costs(sweep, sum_fpr=sum_fpr)
    fits = e.write_amp <= write_amp
    return float(np.min(e.memory_bits_per_entry[fits])) if np.any(fits) else float("nan")


# ------------------------------------------------------------------------------------------
# Figure 8: the continuum's named designs and their complexities
# ------------------------------------------------------------------------------------------


def _scll_c(T: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.maximum(1.0, np.log(n) / np.log(T))


# Column -> knobs(T, C, n_buffers). C is only a free knob for QLSM-bush and CLL.
FIGURE8_DESIGNS: dict[str, Callable[..., Knobs]] = {
    "QLSM-bush": lambda T, C, n: (T, C, 2.0 + 0 * T, 1.0 + 0 * T, 0 * T),
    "SCLL": lambda T, C, n: (T, _scll_c(T, n), 1.0 + 0 * T, 1.0 + 0 * T, 0 * T),
    "CLL": lambda T, C, n: (T, C, 1.0 + 0 * T, 1.0 + 0 * T, 0 * T),
    "Tiering/Monkey": lambda T, C, n: (T, T - 1.0, 1.0 + 0 * T, 1.0 + 0 * T, 1.0 + 0 * T),
    "Lazy Leveling": lambda T, C, n: (T, T - 1.0, 1.0 + 0 * T, 1.0 + 0 * T, 0 * T),
    "Leveling/Monkey": lambda T, C, n: (T, T - 1.0, 1.0 + 0 * T, 0 * T, 0 * T),
}

FIGURE8_METRICS = ("zero_result_read", "point_read", "write_amp", "memory", "range_runs")

# The complexity cells of Figure 8 as functions of (n = N/F, T, C, p). The OCR of the table lost
# one cell in four rows; those are restored from Sections 2-4 (Lazy Leveling's WA is O(T + L),
# Section 2; Tiering's memory O(ln T/p), Section 2; Leveling's runs O(L), Section 2).
_Lg = Callable[..., np.ndarray]


def _log_t(n, T):
    return np.log(n) / np.log(T)


FIGURE8_COMPLEXITY: dict[tuple[str, str], tuple[str, _Lg]] = {}
for _col in FIGURE8_DESIGNS:
    FIGURE8_COMPLEXITY[(_col, "zero_result_read")] = ("O(p)", lambda n, T, C, p: p + 0 * n * T)
    FIGURE8_COMPLEXITY[(_col, "point_read")] = ("O(1)", lambda n, T, C, p: 1.0 + 0 * n * T * p)
FIGURE8_COMPLEXITY.update(
    {
        ("QLSM-bush", "write_amp"): (
            "O(C + log2 log_T N/F)",
            lambda n, T, C, p: C + np.log2(_log_t(n, T)),
        ),
        ("SCLL", "write_amp"): ("O(log_T N/F)", lambda n, T, C, p: _log_t(n, T)),
        ("CLL", "write_amp"): ("O(C + log_T N/F)", lambda n, T, C, p: C + _log_t(n, T)),
        ("Tiering/Monkey", "write_amp"): ("O(log_T N/F)", lambda n, T, C, p: _log_t(n, T)),
        ("Lazy Leveling", "write_amp"): ("O(T + log_T N/F)", lambda n, T, C, p: T + _log_t(n, T)),
        ("Leveling/Monkey", "write_amp"): (
            "O(T log_T N/F)",
            lambda n, T, C, p: T * _log_t(n, T),
        ),
        ("QLSM-bush", "memory"): (
            "O(ln(T^(1/C)/p))",
            lambda n, T, C, p: np.log(T ** (1 / C) / p + 0 * n),
        ),
        ("SCLL", "memory"): (
            "O(ln(T^(1/L)/p))",
            lambda n, T, C, p: np.log(T ** (1 / _scll_c(T, n)) / p),
        ),
        ("CLL", "memory"): (
            "O(ln(T^(1/C)/p))",
            lambda n, T, C, p: np.log(T ** (1 / C) / p + 0 * n),
        ),
        ("Tiering/Monkey", "memory"): ("O(ln(T/p))", lambda n, T, C, p: np.log(T / p + 0 * n)),
        ("Lazy Leveling", "memory"): ("O(ln(1/p))", lambda n, T, C, p: np.log(1 / p + 0 * n * T)),
        ("Leveling/Monkey", "memory"): ("O(ln(1/p))", lambda n, T, C, p: np.log(1 / p + 0 * n * T)),
        ("QLSM-bush", "range_runs"): (
            "O(sqrt(N/F T/C))",
            lambda n, T, C, p: np.sqrt(n * T / C),
        ),
        ("SCLL", "range_runs"): ("O(T log_T N/F)", lambda n, T, C, p: T * _log_t(n, T)),
        ("CLL", "range_runs"): (
            "O(1 + T log_T N/(F C))",
            lambda n, T, C, p: 1 + T * _log_t(n / C, T),
        ),
        ("Tiering/Monkey", "range_runs"): ("O(T log_T N/F)", lambda n, T, C, p: T * _log_t(n, T)),
        ("Lazy Leveling", "range_runs"): (
            "O(1 + T log_T N/(F T))",
            lambda n, T, C, p: 1 + T * _log_t(n / T, T),
        ),
        ("Leveling/Monkey", "range_runs"): ("O(log_T N/F)", lambda n, T, C, p: _log_t(n, T)),
    }
)


def figure8_costs(column: str, T, C, n_buffers, p, *, entries_per_block: int = 32):
    """The model's costs for one Figure 8 column, broadcast over (T, C, n_buffers, p)."""
    T, C, n, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (T, C, n_buffers, p)))
    knobs = FIGURE8_DESIGNS[column](T, C, n)
    e = evaluate(*knobs, n_buffers=n, entries_per_block=entries_per_block, sum_fpr=p)
    return {
        "zero_result_read": e.zero_result_read,
        "point_read": e.point_read,
        "write_amp": e.write_amp,
        "memory": e.memory_bits_per_entry,
        "range_runs": e.range_runs,
        "levels": e.structure.L,
    }


@dataclass(frozen=True)
class ComplexityCheck:
    """How one cost of one column grows against the expression Figure 8 states for it.

    ``exponent`` is the least-squares slope of log(cost) against log(expression) over sweeps of
    N/F, T, C and p; 1 means the cost grows like the expression. ``spread`` is max/min of
    cost/expression over the same points: a bounded spread is what O() claims.
    Constant expressions (O(1)) have no slope: ``exponent`` is NaN and only the spread counts.
    ``growth`` is max(cost/expression) over the larger half of the N/F sweep divided by the same
    over the smaller half: at most about 1 when the expression bounds the cost from above as the
    data grows, even where the level count's ceiling makes the cost jump in steps.
    """

    column: str
    metric: str
    claim: str
    exponent: float
    spread: float
    growth: float
    points: int


@dataclass(frozen=True)
class ComplexityGrid:
    """The sweeps a complexity check runs over (each sweep varies one quantity)."""

    n_buffers: np.ndarray
    T: np.ndarray
    C: np.ndarray
    p: np.ndarray
    base_n: float = 2.0**30
    base_T: float = 10.0
    base_C: float = 2.0
    base_p: float = 0.1

    @classmethod
    def default(cls, resolution: int = 16) -> ComplexityGrid:
        return cls(
            n_buffers=np.geomspace(2.0**10, 2.0**50, resolution),
            T=np.unique(np.round(np.geomspace(2, 64, resolution))),
            C=np.geomspace(1, 16, max(4, resolution // 2)),
            p=np.geomspace(1e-5, 0.5, resolution),
        )

    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(n, T, C, p) of every point: one sweep per quantity around the base point."""
        parts = []
        for name, values in (("n", self.n_buffers), ("T", self.T), ("C", self.C), ("p", self.p)):
            base = {"n": self.base_n, "T": self.base_T, "C": self.base_C, "p": self.base_p}
            cols = {k: np.full(values.size, v) for k, v in base.items()}
            cols[name] = values
            parts.append(np.stack([cols["n"], cols["T"], cols["C"], cols["p"]]))
        return tuple(np.concatenate(parts, axis=1))


def complexity_checks(grid: ComplexityGrid | None = None) -> list[ComplexityCheck]:
    """Every complexity cell of Figure 8 checked against the model (see :class:`ComplexityCheck`).

    p only enters the memory and zero-result rows; C only QLSM-bush and CLL. Quantities a cell
    does not depend on are still swept: the spread then shows the cost does not depend on them.
    """
    grid = grid or ComplexityGrid.default()
    n, T, C, p = grid.points()
    out = []
    for column in FIGURE8_DESIGNS:
        costs = figure8_costs(column, T, C, n, p)
        for metric in FIGURE8_METRICS:
            claim, fn = FIGURE8_COMPLEXITY[(column, metric)]
            cost = np.asarray(costs[metric], dtype=float)
            expr = np.asarray(fn(n, T, C, p), dtype=float) * np.ones_like(cost)
            ratio = cost / expr
            lx, ly = np.log(expr), np.log(cost)
            if np.ptp(lx) < 1e-9:
                exponent = float("nan")
            else:
                exponent = float(np.polyfit(lx, ly, 1)[0])
            n_sweep = ratio[: grid.n_buffers.size]
            half = n_sweep.size // 2
            out.append(
                ComplexityCheck(
                    column,
                    metric,
                    claim,
                    exponent,
                    float(np.max(ratio) / np.min(ratio)),
                    float(np.max(n_sweep[half:]) / np.max(n_sweep[:half])),
                    int(cost.size),
                )
            )
    return out


def figure8_rows(system: System, designs: Mapping[str, Knobs]) -> list[dict[str, float | str]]:
    """The model's costs for named designs on ``system`` (one row each, knobs included)."""
    rows = []
    for name, knobs in designs.items():
        e = analyze_many(*knobs, system)
        rows.append(
            {
                "design": name,
                **{k: float(v) for k, v in zip("TCXKZ", knobs, strict=True)},
                "levels": int(e.structure.L),
                "zero_result_read": float(e.zero_result_read),
                "point_read": float(e.point_read),
                "write_amp": float(e.write_amp),
                "memory": float(e.memory_bits_per_entry),
                "range_runs": float(e.range_runs),
            }
        )
    return rows


def table_figure(
    header: Sequence[str], rows: Sequence[Sequence[object]], *, title: str = ""
) -> go.Figure:
    """A plain plotly table; floats are shown with 3 significant digits."""

    def fmt(v: object) -> str:
        if isinstance(v, float | np.floating):
            return "nan" if not np.isfinite(v) else f"{v:.3g}"
        return str(v)

    columns = [[fmt(r[i]) for r in rows] for i in range(len(header))]
    fig = go.Figure(
        go.Table(
            header={"values": list(header), "align": "left", "fill_color": "#e8e8f0"},
            cells={"values": columns, "align": "left"},
        )
    )
    fig.update_layout(title=title, template="plotly_white", margin={"t": 40, "b": 10})
    return fig


def complexity_figure(checks: Sequence[ComplexityCheck]) -> go.Figure:
    """Figure 8's complexity cells with the fitted exponent and spread of each."""
    rows = [(c.column, c.metric, c.claim, c.exponent, c.spread, c.growth) for c in checks]
    return table_figure(
        (
            "design",
            "cost",
            "Figure 8 says",
            "fitted exponent",
            "spread of cost/claim",
            "growth of cost/claim with N",
        ),
        rows,
        title="Figure 8's complexity columns, checked against the model",
    )


# ------------------------------------------------------------------------------------------
# Figure 5: where each cost comes from, level by level
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelContributions:
    """Each level's share of write amplification, point-read false positives and memory."""

    levels: np.ndarray  # 1..L
    write_amp: np.ndarray  # per level, summing to the model's WA (Eq 14)
    false_positives: np.ndarray  # a_i p_i, summing to p (Eq 15)
    memory: np.ndarray  # N_i/N * bits per key, summing to the model's bits per entry
    evaluation: Evaluation

    def shares(self) -> dict[str, np.ndarray]:
        """Each cost's per-level fraction of its total."""
        return {
            "write amplification": self.write_amp / self.write_amp.sum(),
            "point reads (false positives)": self.false_positives / self.false_positives.sum(),
            "memory": self.memory / self.memory.sum(),
        }


def level_contributions(
    T: float,
    C: float,
    X: float,
    K: float,
    Z: float,
    *,
    n_buffers: float,
    sum_fpr: float | None = None,
    bits_per_entry: float | None = None,
    uniform: bool = False,
    entries_per_block: int = 32,
) -> LevelContributions:
    """Per-level costs of one design (the data of Figure 5)."""
    e = evaluate(
        T,
        C,
        X,
        K,
        Z,
        n_buffers=n_buffers,
        entries_per_block=entries_per_block,
        sum_fpr=sum_fpr,
        bits_per_entry=bits_per_entry,
        uniform=uniform,
    )
    s = e.structure
    L = int(s.L)
    ratios, runs, frac = s.ratios[:L], s.runs[:L], s.fractions[:L]
    wa = np.append((ratios[:-1] - 1.0) / (runs[:-1] + 1.0), float(s.C) / runs[-1])
    fp = runs * e.fprs[:L]
    mem = frac * e.bloom_bits[:L]
    return LevelContributions(np.arange(1, L + 1), wa, fp, mem, e)


def level_breakdown_figure(contrib: LevelContributions, *, title: str = "") -> go.Figure:
    """Figure 5: cumulative share of each cost from Level 1 up to Level i."""
    fig = go.Figure()
    for name, share in contrib.shares().items():
        fig.add_trace(
            go.Scatter(
                x=contrib.levels,
                y=100 * np.cumsum(share),
                mode="lines+markers",
                name=name,
                hovertemplate="Levels 1..%{x}: %{y:.1f}%",
            )
        )
    fig.update_layout(
        title=title,
        xaxis_title="level i",
        yaxis_title="cumulative share of the cost from Levels 1..i (%)",
        template="plotly_white",
        xaxis={"dtick": 1},
    )
    return fig


# ------------------------------------------------------------------------------------------
# Filters: optimized (Monkey) vs uniform, and the closed-form approximations (App. C, D)
# ------------------------------------------------------------------------------------------


def allocation_figure(
    allocations: Mapping[str, LevelContributions], *, title: str = ""
) -> go.Figure:
    """Per-level FPR a_i p_i (log) and filter bits per key for several allocations."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("false positives per level a_i p_i", "filter bits per key"),
    )
    for i, (name, c) in enumerate(allocations.items()):
        colour = _default_colours()[i % 10]
        e = c.evaluation
        L = c.levels.size
        fig.add_trace(
            go.Bar(x=c.levels, y=c.false_positives, name=name, marker_color=colour),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Bar(
                x=c.levels,
                y=e.bloom_bits[:L],
                name=name,
                marker_color=colour,
                showlegend=False,
            ),
            row=1,
            col=2,
        )
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_xaxes(title_text="level i", dtick=1)
    fig.update_layout(title=title, template="plotly_white", barmode="group")
    return fig


def sum_fpr_vs_memory(
    T: float,
    C: float,
    X: float,
    K: float,
    Z: float,
    *,
    n_buffers: float,
    bits: np.ndarray,
    entries_per_block: int = 32,
) -> dict[str, np.ndarray]:
    """p reached with ``bits`` bits per entry: optimized (App. C) and uniform allocations."""
    kw = {"n_buffers": n_buffers, "entries_per_block": entries_per_block}
    bits = np.asarray(bits, dtype=float)
    knobs = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (T, C, X, K, Z, bits)))[:5]
    opt = evaluate(*knobs, bits_per_entry=bits, **kw)
    uni = evaluate(*knobs, bits_per_entry=bits, uniform=True, **kw)
    return {"bits": bits, "optimized": opt.sum_fpr, "uniform": uni.sum_fpr}


def sum_fpr_vs_memory_figure(curves: Mapping[str, Mapping[str, np.ndarray]]) -> go.Figure:
    """Sum of FPRs p (log) against filter memory, optimized (solid) and uniform (dashed)."""
    fig = go.Figure()
    for i, (name, c) in enumerate(curves.items()):
        colour = _default_colours()[i % 10]
        for policy, dash in (("optimized", "solid"), ("uniform", "dash")):
            fig.add_trace(
                go.Scatter(
                    x=c["bits"],
                    y=c[policy],
                    name=f"{name}, {policy}",
                    line={"color": colour, "dash": dash},
                )
            )
    fig.update_layout(
        xaxis_title="filter memory (bits per entry)",
        yaxis_title="sum of FPRs p (expected false positives per zero-result read)",
        yaxis_type="log",
        template="plotly_white",
    )
    return fig


def approximation_errors(
    T: np.ndarray, X: Sequence[float], *, n_buffers: float, sum_fpr: float, C: float = 1.0
) -> dict[float, np.ndarray]:
    """Eq 26 (largest three levels only) relative to the exact sum, for each X over T.

    Returned as (exact - Eq 26)/exact: Eq 26 always leaves out the smaller levels' memory.
    """
    T = np.asarray(T, dtype=float)
    out = {}
    for x in X:
        e = evaluate(T, C, x, 1.0, 0.0, n_buffers=n_buffers, entries_per_block=32, sum_fpr=sum_fpr)
        exact = memory.exact_memory(e.structure, e.fprs)
        approx = memory.three_level_memory(e.structure, e.fprs)
        out[float(x)] = (exact - approx) / exact
    return out


def closed_form_gap(
    T: float, C: float, K: float, Z: float, *, sum_fpr: float, n_buffers: np.ndarray
) -> dict[str, np.ndarray]:
    """Errata 4's closed form (infinitely many levels) against the exact sum as N/F grows."""
    n = np.asarray(n_buffers, dtype=float)
    e = evaluate(T, C, 1.0, K, Z, n_buffers=n, entries_per_block=32, sum_fpr=sum_fpr)
    exact = memory.exact_memory(e.structure, e.fprs)
    closed = memory.closed_form_memory_cll(T, C, K, Z, sum_fpr) * np.ones_like(exact)
    return {"n_buffers": n, "levels": e.structure.L, "exact": exact, "closed_form": closed}


def closed_form_gap_figure(gap: Mapping[str, np.ndarray], *, title: str = "") -> go.Figure:
    """Exact per-level memory and errata 4's closed form against N/F (log x)."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=gap["n_buffers"],
            y=gap["exact"],
            mode="lines+markers",
            name="exact sum over L levels",
            text=[f"L={int(v)}" for v in gap["levels"]],
        )
    )
    fig.add_trace(
        go.Scatter(
            x=gap["n_buffers"], y=gap["closed_form"], mode="lines", name="closed form (errata 4)"
        )
    )
    fig.update_layout(
        title=title,
        xaxis_title="N/F (buffers of data)",
        yaxis_title="filter memory (bits per entry)",
        xaxis_type="log",
        template="plotly_white",
    )
    return fig


def approximation_figure(
    errors: Mapping[float, np.ndarray], T: np.ndarray, *, threshold: float = 0.10
) -> go.Figure:
    """Relative error of Eq 26 against T, one curve per X, with the paper's 10% line."""
    fig = go.Figure()
    for x, err in errors.items():
        fig.add_trace(go.Scatter(x=T, y=100 * err, mode="lines+markers", name=f"X = {x:g}"))
    fig.add_hline(
        y=100 * threshold, line_dash="dash", annotation_text="the paper's 'within 10%'"
    )
    fig.update_layout(
        xaxis_title="base ratio T",
        yaxis_title="memory Eq 26 leaves out (% of the exact sum)",
        xaxis_type="log",
        template="plotly_white",
    )
    return fig


# ------------------------------------------------------------------------------------------
# App. F and G: hash tables for small levels, Figure 11
# ------------------------------------------------------------------------------------------


def hash_tradeoff(
    T: float,
    C: float,
    X: float,
    K: float,
    Z: float,
    *,
    n_buffers: float,
    sum_fpr: float,
    entries_per_block: int = 32,
) -> dict[str, np.ndarray]:
    """Memory and probes per point read with hash tables at the h smallest levels, h = 0..L-1.

    A level with a hash table costs one probe; a level with Bloom filters one probe per run.
    """
    probe = evaluate(T, C, X, K, Z, n_buffers=n_buffers, entries_per_block=entries_per_block,
                     sum_fpr=sum_fpr)
    L = int(probe.structure.L)
    h = np.arange(0, L)
    ones = np.ones(h.shape)
    e = evaluate(T * ones, C * ones, X * ones, K * ones, Z * ones, n_buffers=n_buffers,
                 entries_per_block=entries_per_block, sum_fpr=sum_fpr, hash_levels=h)
    runs = e.structure.runs
    probes = np.sum(np.where(e.hash_mask, 0.0, runs), axis=-1) + np.sum(e.hash_mask, axis=-1)
    return {
        "hash_levels": h,
        "memory": np.asarray(e.memory_bits_per_entry),
        "probes": probes,
        "sum_fpr": np.asarray(e.sum_fpr),
    }


def hash_tradeoff_figure(data: Mapping[str, np.ndarray], *, title: str = "") -> go.Figure:
    """App. F: memory against filter probes per point read as hash tables replace filters."""
    fig = go.Figure(
        go.Scatter(
            x=data["probes"],
            y=data["memory"],
            mode="lines+markers+text",
            text=[f"h={h}" for h in data["hash_levels"]],
            textposition="top right",
            name="hash tables at Levels 1..h",
        )
    )
    fig.update_layout(
        title=title,
        xaxis_title="filter / hash-table probes per point read",
        yaxis_title="memory (bits per entry)",
        xaxis_type="log",
        template="plotly_white",
    )
    return fig


def level_overview(e: Evaluation, n_buffers: float) -> list[tuple]:
    """Figure 11's rows: level, runs, N_i/F, a_i p_i, HT or BFs, bits per entry, fence bits."""
    s = e.structure
    L = int(s.L)
    rows = []
    for i in range(L):
        hashed = bool(e.hash_mask[i])
        rows.append(
            (
                i + 1,
                float(s.runs[i]),
                float(s.fractions[i] * n_buffers),
                float(s.runs[i] * e.fprs[i]),
                "HT" if hashed else "BFs",
                float(e.hash_bits[i] if hashed else e.bloom_bits[i]),
                float(e.fence_bits_per_entry),
            )
        )
    rows.append(
        (
            "totals",
            float(np.sum(s.runs[:L])),
            float(np.sum(s.fractions[:L]) * n_buffers),
            float(e.sum_fpr),
            "",
            float(e.memory_bits_per_entry),
            float(e.fence_bits_per_entry),
        )
    )
    return rows


FIGURE11_HEADER = (
    "level",
    "runs a_i",
    "buffer multiple N_i/F",
    "FPR per level a_i p_i",
    "HT or BF?",
    "HT or BF bits per entry",
    "FP bits per entry",
)


# ------------------------------------------------------------------------------------------
# Figures 9 and 10: the design chosen across workloads, data sizes and memory
# ------------------------------------------------------------------------------------------

# Colour order of the maps: from the greediest merging to the laziest.
MAP_FAMILIES = (
    "Leveling",
    "Lazy Leveling",
    "Tiering",
    "CLL",
    "SCLL",
    "QLSM-bush",
    "LSM-bush",
    "Wacky",
)
MAP_COLOURS = (
    "#1f77b4", "#2ca02c", "#8c564b", "#bcbd22", "#ff7f0e", "#d62728", "#9467bd", "#7f7f7f",
)  # fmt: skip


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
    fams, Ts, Cs, Xs, cost = [], [], [], [], []
    for yv in y:
        system = system_at(float(yv))
        space = DesignSpace.build(system)
        batch = recommend_many(
            [workload_at(float(xv), float(yv)) for xv in x], system, method=method, space=space
        )
        fams.append(batch.families)
        Ts.append([d.T for d in batch.designs])
        Cs.append([d.C for d in batch.designs])
        Xs.append([d.X for d in batch.designs])
        cost.append(batch.cost)
    return DesignMap(
        x,
        y,
        x_title,
        y_title,
        np.array(fams, dtype=object),
        np.array(Ts),
        np.array(Cs),
        np.array(Xs),
        np.array(cost),
        method,
    )


def design_map_figure(m: DesignMap, *, title: str = "", log_x: bool = False,
                      log_y: bool = False) -> go.Figure:
    """Heatmap of the chosen family (colour) with the chosen T written in each cell."""
    idx = np.vectorize(MAP_FAMILIES.index)(m.families).astype(float)
    n = len(MAP_FAMILIES)
    scale = []
    for i, colour in enumerate(MAP_COLOURS):
        scale += [[i / n, colour], [(i + 1) / n, colour]]
    text = np.vectorize(lambda t: f"{t:.0f}")(m.T)
    hover = np.vectorize(lambda f, t, c, x: f"{f}<br>T={t:.3g} C={c:.3g} X={x:.3g}")(
        m.families, m.T, m.C, m.X
    )
    fig = go.Figure(
        go.Heatmap(
            x=m.x,
            y=m.y,
            z=idx + 0.5,  # category i fills [i, i + 1) of the colour scale
            zmin=0,
            zmax=n,
            colorscale=scale,
            text=text,
            texttemplate="%{text}",
            customdata=hover,
            hovertemplate="%{customdata}<extra></extra>",
            showscale=False,
            xgap=1,
            ygap=1,
        )
    )
    for name, colour in zip(MAP_FAMILIES, MAP_COLOURS, strict=True):
        if np.any(m.families == name):
            fig.add_trace(
                go.Scatter(
                    x=[None], y=[None], mode="markers", name=name,
                    marker={"color": colour, "size": 12, "symbol": "square"},
                )
            )
    fig.update_layout(
        title=title or f"Chosen design ({m.method}); cell text is T",
        xaxis_title=m.x_title,
        yaxis_title=m.y_title,
        template="plotly_white",
    )
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return fig
