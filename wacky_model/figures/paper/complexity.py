"""Figure 8: the continuum's named designs, their costs, and its complexity cells checked.

The columns (and how their knobs follow T) are the rows of :data:`wacky_model.families.TABLE`
with a ``figure8`` heading; the complexity each column claims is written here, once per cell.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from cost_models.evaluate import Evaluation, evaluate
from wacky_model.analysis import analyze_many
from wacky_model.families import FIGURE8, Knobs, scll_capping_ratio
from wacky_model.figures.paper.common import table_figure
from wacky_model.types import System

FIGURE8_METRICS = ("zero_result_read", "point_read", "write_amp", "memory", "range_runs")

# The complexity cells of Figure 8 as functions of (n = N/F, T, C, p). The OCR of the table lost
# one cell in four rows; those are restored from Sections 2-4 (Lazy Leveling's WA is O(T + L),
# Section 2; Tiering's memory O(ln T/p), Section 2; Leveling's runs O(L), Section 2).
_Lg = Callable[..., np.ndarray]


def _log_t(n, T):
    return np.log(n) / np.log(T)


FIGURE8_COMPLEXITY: dict[tuple[str, str], tuple[str, _Lg]] = {}
for _col in FIGURE8:
    FIGURE8_COMPLEXITY[(_col, "zero_result_read")] = ("O(p)", lambda n, T, C, p: p + 0 * n * T)
    FIGURE8_COMPLEXITY[(_col, "point_read")] = ("O(1)", lambda n, T, C, p: 1.0 + 0 * n * T * p)
FIGURE8_COMPLEXITY.update({
    ("QLSM-bush", "write_amp"): ("O(C + log2 log_T N/F)",
                                 lambda n, T, C, p: C + np.log2(_log_t(n, T))),
    ("SCLL", "write_amp"): ("O(log_T N/F)", lambda n, T, C, p: _log_t(n, T)),
    ("CLL", "write_amp"): ("O(C + log_T N/F)", lambda n, T, C, p: C + _log_t(n, T)),
    ("Tiering/Monkey", "write_amp"): ("O(log_T N/F)", lambda n, T, C, p: _log_t(n, T)),
    ("Lazy Leveling", "write_amp"): ("O(T + log_T N/F)", lambda n, T, C, p: T + _log_t(n, T)),
    ("Leveling/Monkey", "write_amp"): ("O(T log_T N/F)", lambda n, T, C, p: T * _log_t(n, T)),
    ("QLSM-bush", "memory"): ("O(ln(T^(1/C)/p))",
                              lambda n, T, C, p: np.log(T ** (1 / C) / p + 0 * n)),
    ("SCLL", "memory"): ("O(ln(T^(1/L)/p))",
                         lambda n, T, C, p: np.log(T ** (1 / scll_capping_ratio(T, n)) / p)),
    ("CLL", "memory"): ("O(ln(T^(1/C)/p))", lambda n, T, C, p: np.log(T ** (1 / C) / p + 0 * n)),
    ("Tiering/Monkey", "memory"): ("O(ln(T/p))", lambda n, T, C, p: np.log(T / p + 0 * n)),
    ("Lazy Leveling", "memory"): ("O(ln(1/p))", lambda n, T, C, p: np.log(1 / p + 0 * n * T)),
    ("Leveling/Monkey", "memory"): ("O(ln(1/p))", lambda n, T, C, p: np.log(1 / p + 0 * n * T)),
    ("QLSM-bush", "range_runs"): ("O(sqrt(N/F T/C))", lambda n, T, C, p: np.sqrt(n * T / C)),
    ("SCLL", "range_runs"): ("O(T log_T N/F)", lambda n, T, C, p: T * _log_t(n, T)),
    ("CLL", "range_runs"): ("O(1 + T log_T N/(F C))",
                            lambda n, T, C, p: 1 + T * _log_t(n / C, T)),
    ("Tiering/Monkey", "range_runs"): ("O(T log_T N/F)", lambda n, T, C, p: T * _log_t(n, T)),
    ("Lazy Leveling", "range_runs"): ("O(1 + T log_T N/(F T))",
                                      lambda n, T, C, p: 1 + T * _log_t(n / T, T)),
    ("Leveling/Monkey", "range_runs"): ("O(log_T N/F)", lambda n, T, C, p: _log_t(n, T)),
})


def figure8_costs(column: str, T, C, n_buffers, p, *, entries_per_block: int = 32):
    """The model's costs for one Figure 8 column, broadcast over (T, C, n_buffers, p)."""
    T, C, n, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (T, C, n_buffers, p)))
    family = FIGURE8[column]
    # C is a knob of the column only where the family leaves it free (CLL, QLSM-bush).
    knobs = family.knobs(T, n, C=C if "C" in family.free else None)
    e = evaluate(*knobs, n_buffers=n, entries_per_block=entries_per_block, sum_fpr=p)
    return {**_metrics(e), "levels": e.structure.L}


def _metrics(e: Evaluation) -> dict[str, np.ndarray]:
    """:data:`FIGURE8_METRICS` of an evaluation ("memory": the filters' bits per entry)."""
    return {m: getattr(e, "memory_bits_per_entry" if m == "memory" else m)
            for m in FIGURE8_METRICS}


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
        base = (self.base_n, self.base_T, self.base_C, self.base_p)
        parts = []
        for i, values in enumerate((self.n_buffers, self.T, self.C, self.p)):
            cols = [np.full(values.size, v) for v in base]
            cols[i] = values
            parts.append(np.stack(cols))
        return tuple(np.concatenate(parts, axis=1))


def complexity_checks(grid: ComplexityGrid | None = None) -> list[ComplexityCheck]:
    """Every complexity cell of Figure 8 checked against the model (see :class:`ComplexityCheck`).

    p only enters the memory and zero-result rows; C only QLSM-bush and CLL. Quantities a cell
    does not depend on are still swept: the spread then shows the cost does not depend on them.
    """
    grid = grid or ComplexityGrid.default()
    n, T, C, p = grid.points()
    out = []
    for column in FIGURE8:
        costs = figure8_costs(column, T, C, n, p)
        for metric in FIGURE8_METRICS:
            claim, fn = FIGURE8_COMPLEXITY[(column, metric)]
            cost = np.asarray(costs[metric], dtype=float)
            expr = np.asarray(fn(n, T, C, p), dtype=float) * np.ones_like(cost)
            ratio = cost / expr
            lx, ly = np.log(expr), np.log(cost)
            exponent = float("nan") if np.ptp(lx) < 1e-9 else float(np.polyfit(lx, ly, 1)[0])
            n_sweep = ratio[: grid.n_buffers.size]
            half = n_sweep.size // 2
            out.append(ComplexityCheck(
                column, metric, claim, exponent, float(np.max(ratio) / np.min(ratio)),
                float(np.max(n_sweep[half:]) / np.max(n_sweep[:half])), int(cost.size)))
    return out


def figure8_rows(system: System, designs: Mapping[str, Knobs]) -> list[dict[str, float | str]]:
    """The model's costs for named designs on ``system`` (one row each, knobs included)."""
    rows = []
    for name, knobs in designs.items():
        e = analyze_many(*knobs, system)
        rows.append({"design": name, **{k: float(v) for k, v in zip("TCXKZ", knobs, strict=True)},
                     "levels": int(e.structure.L),
                     **{m: float(v) for m, v in _metrics(e).items()}})
    return rows


def complexity_figure(checks: Sequence[ComplexityCheck]) -> go.Figure:
    """Figure 8's complexity cells with the fitted exponent and spread of each."""
    rows = [(c.column, c.metric, c.claim, c.exponent, c.spread, c.growth) for c in checks]
    return table_figure(("design", "cost", "Figure 8 says", "fitted exponent",
                         "spread of cost/claim", "growth of cost/claim with N"), rows,
                        title="Figure 8's complexity columns, checked against the model")
