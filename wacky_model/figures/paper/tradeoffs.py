"""Trade-off curves (Figures 1, 4 and 7): write amplification against memory or range cost.

A :class:`Sweep` is a curve of designs on one system: a family over T, or LSM-bush with T and C
co-tuned along its frontier. The helpers read numbers off a curve for the notebooks' prose.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go

from cost_models.evaluate import Evaluation
from wacky_model.analysis import analyze_many
from wacky_model.families import Knobs
from wacky_model.figures.paper.common import PALETTE, paper_system, styled
from wacky_model.search import family_knobs
from wacky_model.types import System

CURVE_T_MAX = 64  # the paper's frontiers sweep T over two digits


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
    sizes: list[str] = []
    for sweep in sweeps:
        e = sweep_costs(sweep, sum_fpr=sum_fpr, realizable=realizable)
        family, _, size = sweep.name.partition(" @ ")
        colour = colours.setdefault(family, PALETTE[len(colours) % len(PALETTE)])
        if size and size not in sizes:
            sizes.append(size)
        dash = _DASHES[sizes.index(size) % len(_DASHES)] if size else "solid"
        fig.add_trace(go.Scatter(
            x=e.write_amp, y=y_of(e), mode="lines+markers", name=sweep.name, marker={"size": 4},
            line={"color": colour, "dash": dash},
            text=[f"T={t:g} C={c:.3g}" for t, c in zip(sweep.T, sweep.C, strict=True)],
            hovertemplate="%{text}<br>WA %{x:.2f}<br>%{y:.3g}<extra>%{fullData.name}</extra>"))
    styled(fig, "write amplification", y_title, title=title)
    if log_y:
        fig.update_layout(yaxis_type="log")
    return fig


def sized_sweeps(
    make: Callable[[System], Sweep], sizes: Mapping[str, float], **budget: float
) -> list[Sweep]:
    """The same sweep at each data size, named "<sweep> @ <size>" (Figures 1, 4 (B), 7 (B))."""
    sweeps = [(label, make(paper_system(entries, **budget))) for label, entries in sizes.items()]
    return [replace(sweep, name=f"{sweep.name} @ {label}") for label, sweep in sweeps]


def curve_at(sweep: Sweep, T: float, *, sum_fpr: float | None = 0.1) -> dict[str, float]:
    """The costs of the sweep's first design with base ratio ``T`` (for quoting in prose)."""
    idx = np.flatnonzero(np.isclose(sweep.T, T))
    if idx.size == 0:
        raise ValueError(f"T={T:g} is not on the sweep {sweep.name!r}")
    e = sweep_costs(sweep, sum_fpr=sum_fpr)
    i = int(idx[0])
    return {"T": float(sweep.T[i]), "C": float(sweep.C[i]), "write_amp": float(e.write_amp[i]),
            "memory": float(e.memory_bits_per_entry[i]), "range_runs": float(e.range_runs[i]),
            "levels": float(e.structure.L[i])}


def _least(values: np.ndarray, fits: np.ndarray) -> float:
    return float(np.min(values[fits])) if np.any(fits) else float("nan")


def write_amp_at_memory(sweep: Sweep, bits: float, *, sum_fpr: float = 0.1) -> float:
    """The least write amplification on the curve among designs needing <= ``bits`` bits/entry
    (NaN when none fits)."""
    e = sweep_costs(sweep, sum_fpr=sum_fpr)
    return _least(e.write_amp, e.memory_bits_per_entry <= bits)


def memory_at_write_amp(sweep: Sweep, write_amp: float, *, sum_fpr: float = 0.1) -> float:
    """The least memory on the curve among designs with write amplification <= ``write_amp``."""
    e = sweep_costs(sweep, sum_fpr=sum_fpr)
    return _least(e.memory_bits_per_entry, e.write_amp <= write_amp)
