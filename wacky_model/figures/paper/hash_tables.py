"""Hash tables for the small levels (App. F and G) and Figure 11's per-level overview."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from cost_models.evaluate import Evaluation, evaluate
from wacky_model.figures.paper.common import styled


def hash_tradeoff(
    T: float, C: float, X: float, K: float, Z: float, *, n_buffers: float, sum_fpr: float,
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
    return {"hash_levels": h, "memory": np.asarray(e.memory_bits_per_entry), "probes": probes,
            "sum_fpr": np.asarray(e.sum_fpr)}


def hash_tradeoff_figure(data: Mapping[str, np.ndarray], *, title: str = "") -> go.Figure:
    """App. F: memory against filter probes per point read as hash tables replace filters."""
    fig = go.Figure(go.Scatter(x=data["probes"], y=data["memory"], mode="lines+markers+text",
                               text=[f"h={h}" for h in data["hash_levels"]],
                               textposition="top right", name="hash tables at Levels 1..h"))
    return styled(fig, "filter / hash-table probes per point read", "memory (bits per entry)",
                  title=title, xaxis_type="log")


def level_overview(e: Evaluation, n_buffers: float) -> list[tuple]:
    """Figure 11's rows: level, runs, N_i/F, a_i p_i, HT or BFs, bits per entry, fence bits."""
    s = e.structure
    L = int(s.L)
    rows = []
    for i in range(L):
        hashed = bool(e.hash_mask[i])
        rows.append((i + 1, float(s.runs[i]), float(s.fractions[i] * n_buffers),
                     float(s.runs[i] * e.fprs[i]), "HT" if hashed else "BFs",
                     float(e.hash_bits[i] if hashed else e.bloom_bits[i]),
                     float(e.fence_bits_per_entry)))
    rows.append(("totals", float(np.sum(s.runs[:L])), float(np.sum(s.fractions[:L]) * n_buffers),
                 float(e.sum_fpr), "", float(e.memory_bits_per_entry),
                 float(e.fence_bits_per_entry)))
    return rows


FIGURE11_HEADER = ("level", "runs a_i", "buffer multiple N_i/F", "FPR per level a_i p_i",
                   "HT or BF?", "HT or BF bits per entry", "FP bits per entry")
