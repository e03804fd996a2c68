"""How ``wacky`` shows results in a terminal: rich tables built from the typed results.

Only the result types are imported, and only for type checking, so rendering loads no engine.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:
    from validation.results import ValidationResult
    from wacky_model.analysis import Analysis
    from wacky_model.search import Recommendation
    from wacky_model.types import Design


def stdout_console(width: int = 120) -> Console:
    """The console for results: the terminal's width, or ``width`` when piped."""
    return Console(width=None if sys.stdout.isatty() else width)


def fmt(x: float | None, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.1%}" if pct else f"{x:.4g}"


def knob_text(design: Design) -> str:
    return ", ".join(f"{k}={v:.4g}" for k, v in design.knobs.items())


def level_table(result: Analysis, title: str) -> Table:
    table = Table(title=title)
    for col in ("level", "runs", "capacity (entries)", "x buffer", "FPR/run", "level FPR",
                "bits/entry", "filter"):
        table.add_column(col, justify="right")
    for row in result.levels:
        table.add_row(
            str(row.level),
            f"{row.runs:.4g}",
            f"{row.capacity_entries:.4g}",
            f"{row.buffer_multiple:.4g}",
            f"{row.fpr_per_run:.3g}",
            f"{row.level_fpr:.3%}",
            f"{row.filter_bits_per_entry:.2f}",
            row.structure,
        )
    return table


def print_totals(console: Console, result: Analysis) -> None:
    console.print(
        f"write amplification {result.write_amp:.3f}   write cost {result.write_cost:.4g} I/O\n"
        f"point read {result.point_read:.4f} I/O   zero-result read {result.zero_result_read:.4f} "
        f"I/O   range runs {result.range_runs:.4g}\n"
        f"filter memory {result.memory_bits_per_entry:.3f} bits/entry   fence pointers "
        f"{result.fence_bits_per_entry:.3f} bits/entry   sum of FPRs {result.sum_fpr:.4g}"
    )


def print_analysis(console: Console, result: Analysis, title: str) -> None:
    console.print(level_table(result, title))
    print_totals(console, result)


def print_recommendation(console: Console, rec: Recommendation) -> None:
    console.print(
        f"[bold]{rec.family}[/bold] ({knob_text(rec.design)}): {rec.cost:.4g} I/O per operation "
        f"({rec.method} search, {rec.search_ms:.1f} ms)"
    )
    if rec.bounds_hit:
        console.print(f"note: the optimum sits on the search bound of {', '.join(rec.bounds_hit)}")
    alternatives = Table(title="Each family at its own best T")
    for col in ("family", "T", "C", "X", "I/O per op", "relative throughput"):
        alternatives.add_column(col, justify="right")
    for alt in rec.alternatives:
        d = alt.design
        alternatives.add_row(alt.family, f"{d.T:.4g}", f"{d.C:.4g}", f"{d.X:.4g}",
                             f"{alt.cost:.4g}", f"{alt.relative_throughput:.3f}")
    console.print(alternatives)
    print_analysis(console, rec.analysis, "Recommended design, per level")


METRIC_LABELS = {
    "write_amp": "write amplification",
    "zero_result_read": "I/O per zero-result read",
    "point_read": "I/O per existing read (Level L)",
    "point_read_uniform": "I/O per existing read (uniform)",
    "range_runs": "runs probed per range read",
    "memory_bits_per_entry": "filter bits per entry",
    "theta": "Θ (I/O per operation)",
}


def validation_tables(result: ValidationResult) -> list[Table]:
    """The side-by-side report: metrics, then the structure level by level."""
    from validation.results import METRICS

    metrics = Table(title="Predicted vs measured")
    for col in ("metric", "paper model", "engine simulator", "measured", "paper error",
                "simulator error"):
        metrics.add_column(col, justify="right")
    paper_err, sim_err = result.relative_error, result.simulated_relative_error
    for m in METRICS:
        metrics.add_row(METRIC_LABELS[m], fmt(result.predicted.metric(m)),
                        fmt(result.simulated.metric(m)), fmt(result.measured.metric(m)),
                        fmt(paper_err.metric(m), True), fmt(sim_err.metric(m), True))
    levels = Table(title="Structure: runs and entries per level")
    for col in ("level", "runs (paper)", "runs (simulator)", "runs (measured)", "a_i bound",
                "entries (paper N_i)", "entries (simulator)", "entries (measured)"):
        levels.add_column(col, justify="right")
    sources = (result.predicted.levels, result.simulated.levels, result.measured.levels)

    def cell(shapes: tuple[Any, ...], i: int, field: str) -> str:
        return fmt(getattr(shapes[i], field)) if i < len(shapes) else "-"

    for i in range(max(len(s) for s in sources)):
        paper, simulated, measured = sources
        levels.add_row(str(i + 1), cell(paper, i, "runs"), cell(simulated, i, "runs"),
                       cell(measured, i, "runs"), cell(measured, i, "max_runs"),
                       cell(paper, i, "entries"), cell(simulated, i, "entries"),
                       cell(measured, i, "entries"))
    return [metrics, levels]


def replay_table(result: dict[str, Any], title: str) -> Table:
    table = Table(title=title)
    for col in ("phase", "operation", "count", "blocks read / op", "blocks written / op"):
        table.add_column(col, justify="right")
    for phase, kinds in result["phases"].items():
        for kind, t in kinds.items():
            table.add_row(phase, kind, str(t["count"]), fmt(t["read_per_op"]),
                          fmt(t["write_per_op"]))
    return table


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
