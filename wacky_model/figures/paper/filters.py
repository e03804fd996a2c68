"""Filters: where each cost comes from level by level (Figure 5), optimized (Monkey) vs uniform
allocations, and how close the closed-form memory approximations come (App. C, D, Eq 26)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from cost_models import memory
from cost_models.evaluate import Evaluation, evaluate
from wacky_model.figures.paper.common import PALETTE, styled


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
        return {"write amplification": self.write_amp / self.write_amp.sum(),
                "point reads (false positives)": self.false_positives / self.false_positives.sum(),
                "memory": self.memory / self.memory.sum()}


def level_contributions(
    T: float, C: float, X: float, K: float, Z: float, *, n_buffers: float,
    sum_fpr: float | None = None, bits_per_entry: float | None = None, uniform: bool = False,
    entries_per_block: int = 32,
) -> LevelContributions:
    """Per-level costs of one design (the data of Figure 5)."""
    e = evaluate(T, C, X, K, Z, n_buffers=n_buffers, entries_per_block=entries_per_block,
                 sum_fpr=sum_fpr, bits_per_entry=bits_per_entry, uniform=uniform)
    s = e.structure
    L = int(s.L)
    ratios, runs, frac = s.ratios[:L], s.runs[:L], s.fractions[:L]
    bound = s.run_bound[:L]  # Eq 14 counts rewrites by the merge rule's bound (costs.py)
    wa = np.append((ratios[:-1] - 1.0) / (bound[:-1] + 1.0), float(s.C) / bound[-1])
    fp = runs * e.fprs[:L]
    mem = frac * e.bloom_bits[:L]
    return LevelContributions(np.arange(1, L + 1), wa, fp, mem, e)


def level_breakdown_figure(contrib: LevelContributions, *, title: str = "") -> go.Figure:
    """Figure 5: cumulative share of each cost from Level 1 up to Level i."""
    fig = go.Figure()
    for name, share in contrib.shares().items():
        fig.add_trace(go.Scatter(x=contrib.levels, y=100 * np.cumsum(share), mode="lines+markers",
                                 name=name, hovertemplate="Levels 1..%{x}: %{y:.1f}%"))
    return styled(fig, "level i", "cumulative share of the cost from Levels 1..i (%)",
                  title=title, xaxis={"dtick": 1})


# Optimized (Monkey) vs uniform filters, and the closed-form approximations (App. C, D).


def allocation_figure(
    allocations: Mapping[str, LevelContributions], *, title: str = ""
) -> go.Figure:
    """Per-level FPR a_i p_i (log) and filter bits per key for several allocations."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("false positives per level a_i p_i",
                                                         "filter bits per key"))
    for i, (name, c) in enumerate(allocations.items()):
        colour = PALETTE[i % len(PALETTE)]
        fig.add_trace(go.Bar(x=c.levels, y=c.false_positives, name=name, marker_color=colour),
                      row=1, col=1)
        fig.add_trace(go.Bar(x=c.levels, y=c.evaluation.bloom_bits[: c.levels.size], name=name,
                             marker_color=colour, showlegend=False), row=1, col=2)
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_xaxes(title_text="level i", dtick=1)
    fig.update_layout(title=title, template="plotly_white", barmode="group")
    return fig


def sum_fpr_vs_memory(
    T: float, C: float, X: float, K: float, Z: float, *, n_buffers: float, bits: np.ndarray,
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
        colour = PALETTE[i % len(PALETTE)]
        for policy, dash in (("optimized", "solid"), ("uniform", "dash")):
            fig.add_trace(go.Scatter(x=c["bits"], y=c[policy], name=f"{name}, {policy}",
                                     line={"color": colour, "dash": dash}))
    return styled(fig, "filter memory (bits per entry)",
                  "sum of FPRs p (expected false positives per zero-result read)",
                  yaxis_type="log")


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
    fig.add_trace(go.Scatter(x=gap["n_buffers"], y=gap["exact"], mode="lines+markers",
                             name="exact sum over L levels",
                             text=[f"L={int(v)}" for v in gap["levels"]]))
    fig.add_trace(go.Scatter(x=gap["n_buffers"], y=gap["closed_form"], mode="lines",
                             name="closed form (errata 4)"))
    return styled(fig, "N/F (buffers of data)", "filter memory (bits per entry)", title=title,
                  xaxis_type="log")


def approximation_figure(
    errors: Mapping[float, np.ndarray], T: np.ndarray, *, threshold: float = 0.10
) -> go.Figure:
    """Relative error of Eq 26 against T, one curve per X, with the paper's 10% line."""
    fig = go.Figure()
    for x, err in errors.items():
        fig.add_trace(go.Scatter(x=T, y=100 * err, mode="lines+markers", name=f"X = {x:g}"))
    fig.add_hline(y=100 * threshold, line_dash="dash",
                  annotation_text="the paper's 'within 10%'")
    return styled(fig, "base ratio T", "memory Eq 26 leaves out (% of the exact sum)",
                  xaxis_type="log")

