"""``wacky validate`` and ``wacky replay``, registered on the wacky CLI through the
``wacky.commands`` entry point (wacky_model never imports this package).

Progress goes to stderr, so ``--json`` output on stdout stays one clean document.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from validation.results import METRICS, ValidationResult
from validation.runner import Scale, replay_file, validate
from wacky_model.cli import BitsPerEntry, SumFpr, build_design
from wacky_model.presets import PRESET_NAMES
from wacky_model.search import recommend
from wacky_model.types import Workload

DEFAULT_SCALE = Scale()

LABELS = {
    "write_amp": "write amplification",
    "zero_result_read": "I/O per zero-result read",
    "point_read": "I/O per existing read (Level L)",
    "point_read_uniform": "I/O per existing read (uniform)",
    "range_runs": "runs probed per range read",
    "memory_bits_per_entry": "filter bits per entry",
    "theta": "Θ (I/O per operation)",
}


def _fmt(x: Any, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.1%}" if pct else f"{x:.4g}"


def result_tables(result: ValidationResult) -> list[Table]:
    """The side-by-side report: metrics, then the structure level by level."""
    d = result.to_dict()
    metrics = Table(title="Predicted vs measured")
    for col in ("metric", "paper model", "refined model", "measured", "paper error",
                "refined error"):
        metrics.add_column(col, justify="right")
    for m in METRICS:
        metrics.add_row(LABELS[m], _fmt(d["predicted"][m]), _fmt(d["refined"][m]),
                        _fmt(d["measured"][m]), _fmt(d["relative_error"][m], True),
                        _fmt(d["refined_relative_error"][m], True))
    levels = Table(title="Structure: runs and entries per level")
    for col in ("level", "runs (paper)", "runs (refined)", "runs (measured)", "a_i bound",
                "entries (paper N_i)", "entries (refined)", "entries (measured)"):
        levels.add_column(col, justify="right")
    rows = max(len(d["predicted"]["levels"]), len(d["measured"]["levels"]))

    def cell(which: str, i: int, key: str) -> str:
        lv = d[which]["levels"]
        return _fmt(lv[i][key]) if i < len(lv) else "-"

    for i in range(rows):
        levels.add_row(str(i + 1), cell("predicted", i, "runs"), cell("refined", i, "runs"),
                       cell("measured", i, "runs"), cell("measured", i, "max_runs"),
                       cell("predicted", i, "entries"), cell("refined", i, "entries"),
                       cell("measured", i, "entries"))
    return [metrics, levels]


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


def _workload_or_none(point_reads: float, zero_reads: float, writes: float,
                      range_reads: float, range_blocks: float) -> Workload | None:
    if point_reads == zero_reads == writes == range_reads == 0:
        return None
    return Workload(point_reads, zero_reads, writes, range_reads, range_blocks)


def register(app: typer.Typer) -> None:
    """Add ``validate`` and ``replay`` to the wacky CLI."""

    @app.command("validate")
    def validate_command(
        preset_name: Annotated[
            str | None, typer.Option("--preset", help=f"One of: {', '.join(PRESET_NAMES)}.")
        ] = None,
        T: Annotated[float | None, typer.Option("--T", help="Base ratio (>= 2).")] = None,
        C: Annotated[float | None, typer.Option("--C", help="Capping ratio (>= 1).")] = None,
        X: Annotated[float | None, typer.Option("--X", help="Growth exponential.")] = None,
        K: Annotated[float | None, typer.Option("--K", help="Greediness, Levels 1..L-1.")] = None,
        Z: Annotated[float | None, typer.Option("--Z", help="Greediness, Level L.")] = None,
        filters: Annotated[str, typer.Option("--filters", help="optimized or uniform.")] = (
            "optimized"),
        use_recommendation: Annotated[bool, typer.Option(
            "--recommend", help="Validate the design recommended for the workload.")] = False,
        point_reads: Annotated[float, typer.Option("--point-reads")] = 0.0,
        zero_reads: Annotated[float, typer.Option("--zero-reads")] = 0.0,
        writes: Annotated[float, typer.Option("--writes")] = 0.0,
        range_reads: Annotated[float, typer.Option("--range-reads")] = 0.0,
        range_blocks: Annotated[float, typer.Option("--range-blocks")] = 0.0,
        entries: Annotated[int, typer.Option("--entries", help="Entries loaded.")] = (
            DEFAULT_SCALE.entries),
        entry_bytes: Annotated[int, typer.Option("--entry-bytes")] = DEFAULT_SCALE.entry_bytes,
        block_bytes: Annotated[int, typer.Option("--block-bytes")] = DEFAULT_SCALE.block_bytes,
        buffer_bytes: Annotated[int, typer.Option("--buffer-bytes")] = (
            DEFAULT_SCALE.buffer_bytes),
        reads: Annotated[int, typer.Option("--reads", help="Reads per kind measured.")] = (
            DEFAULT_SCALE.reads),
        seed: Annotated[int, typer.Option("--seed")] = DEFAULT_SCALE.seed,
        sum_fpr: SumFpr = None,
        bits_per_entry: BitsPerEntry = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = (
            False),
        html: Annotated[Path | None, typer.Option("--html", help="Write a plotly report.")] = (
            None),
        save_trace: Annotated[Path | None, typer.Option(
            "--save-trace", help="Save the operation stream as an lz4 trace.")] = None,
        sweep: Annotated[bool, typer.Option(
            "--sweep", help="Validate the whole continuum; write docs/VALIDATION.md.")] = False,
        out: Annotated[Path, typer.Option("--out", help="Where --sweep writes its table.")] = (
            Path("docs/VALIDATION.md")),
        workers: Annotated[int, typer.Option("--workers", help="Parallel runs (--sweep).")] = 2,
    ) -> None:
        """Build a design in the engine, measure it and compare with the models."""
        scale = Scale(entries=entries, entry_bytes=entry_bytes, block_bytes=block_bytes,
                      buffer_bytes=buffer_bytes, reads=reads, seed=seed)
        console = Console(stderr=True)
        if sweep:
            from validation.sweep import run_sweep  # the sweep pulls in process pools

            run_sweep(scale, out=out, workers=workers, console=console,
                      bits_per_entry=bits_per_entry, sum_fpr=sum_fpr)
            return
        if bits_per_entry is None and sum_fpr is None:
            bits_per_entry = 5.0
        system = scale.system(bits_per_entry, sum_fpr)
        workload = _workload_or_none(point_reads, zero_reads, writes, range_reads, range_blocks)
        if use_recommendation:
            if workload is None:
                raise ValueError("--recommend needs a workload: give --point-reads, "
                                 "--zero-reads, --writes and --range-reads")
            design = recommend(workload, system).design
        else:
            design = build_design(preset_name, system, T, C, X, K, Z)
        if filters != design.filters:
            design = replace(design, filters=filters)
        with progress_bar(console) as bar:
            task = bar.add_task("validating", total=1.0)
            result = validate(
                design, workload=workload, scale=scale, bits_per_entry=bits_per_entry,
                sum_fpr=sum_fpr, save_trace=save_trace,
                progress=lambda f, msg: bar.update(task, completed=f, description=msg),
            )
        if html is not None:
            from validation.figures import validation_html

            try:
                html.write_text(validation_html(result), encoding="utf-8")
            except OSError as err:
                raise ValueError(f"html: cannot write {html}: {err.strerror}") from None
        if as_json:
            print(json.dumps(result.to_dict(), indent=2))
            return
        stdout = Console(width=None if sys.stdout.isatty() else 140)
        knobs = ", ".join(f"{k}={v:.4g}" for k, v in design.knobs.items())
        stdout.print(f"[bold]{knobs}[/bold] ({design.filters} filters), {scale.entries:,} "
                     f"entries of {scale.entry_bytes} B, {result.seconds:.1f} s")
        for table in result_tables(result):
            stdout.print(table)
        if any(result.checks.values()):
            stdout.print(f"[red]engine answered wrongly: {result.checks}[/red]")

    @app.command("replay")
    def replay_command(
        path: Annotated[Path, typer.Argument(help="A trace file (lz4, binary or text).")],
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = (
            False),
    ) -> None:
        """Replay a saved trace through a fresh engine built with the trace's design."""
        result = replay_file(path)
        if as_json:
            print(json.dumps(result, indent=2))
            return
        table = Table(title=f"Replay of {path}")
        for col in ("phase", "operation", "count", "blocks read / op", "blocks written / op"):
            table.add_column(col, justify="right")
        for phase, kinds in result["phases"].items():
            for kind, t in kinds.items():
                table.add_row(phase, kind, str(t["count"]), _fmt(t["read_per_op"]),
                              _fmt(t["write_per_op"]))
        Console().print(table)
