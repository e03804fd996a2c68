"""The ``wacky`` command line: analyze a design, recommend one for a workload, plot frontiers.

Bad input prints one line, ``error: <message>``, on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from wacky_model.analysis import Analysis, analyze
from wacky_model.figures import frontier_html
from wacky_model.presets import PRESET_NAMES, preset
from wacky_model.search import recommend
from wacky_model.traces import read_trace, workload_from_trace
from wacky_model.types import Design, System, Workload

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Explore the Wacky continuum of LSM-tree merge policies.",
)

# Typer option declarations shared by the commands that take a system.
Entries = Annotated[float, typer.Option("--entries", help="Number of entries N.")]
EntryBytes = Annotated[int, typer.Option("--entry-bytes", help="Bytes per entry.")]
KeyBytes = Annotated[int, typer.Option("--key-bytes", help="Bytes per key.")]
BlockBytes = Annotated[int, typer.Option("--block-bytes", help="Bytes per storage block.")]
BufferBytes = Annotated[int, typer.Option("--buffer-bytes", help="Bytes of write buffer.")]
SumFpr = Annotated[
    float | None, typer.Option("--sum-fpr", help="Filter budget as the sum of FPRs p.")
]
BitsPerEntry = Annotated[
    float | None,
    typer.Option("--bits-per-entry", help="Filter budget in bits per entry (default 5)."),
]
HashLevels = Annotated[
    int, typer.Option("--hash-levels", help="Smallest levels served by a hash table (App. F).")
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]

DEFAULT_SYSTEM = System()


@app.callback()
def cli_root() -> None:
    """Explore the Wacky continuum of LSM-tree merge policies."""


def build_system(
    entries: float,
    entry_bytes: int,
    key_bytes: int,
    block_bytes: int,
    buffer_bytes: int,
    sum_fpr: float | None,
    bits_per_entry: float | None,
    hash_levels: int,
) -> System:
    return System(
        entries=entries,
        entry_bytes=entry_bytes,
        key_bytes=key_bytes,
        block_bytes=block_bytes,
        buffer_bytes=buffer_bytes,
        bits_per_entry=bits_per_entry,
        sum_fpr=sum_fpr,
        hash_levels=hash_levels,
    )


def build_design(
    preset_name: str | None,
    system: System,
    T: float | None,
    C: float | None,
    X: float | None,
    K: float | None,
    Z: float | None,
) -> Design:
    if preset_name is not None:
        extra = [n for n, v in (("X", X), ("K", K), ("Z", Z)) if v is not None]
        if extra:
            raise ValueError(f"--preset fixes {', '.join(extra)}; give only --T (and --C for cll)")
        return preset(preset_name, T=T, system=system, C=C)
    if T is None or C is None:
        raise ValueError("give --preset NAME, or the knobs --T and --C (optionally --X --K --Z)")
    return Design(T, C, 1.0 if X is None else X, 1.0 if K is None else K, 0.0 if Z is None else Z)


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


@app.command("analyze")
def analyze_command(
    preset_name: Annotated[
        str | None,
        typer.Option("--preset", help=f"One of: {', '.join(PRESET_NAMES)}."),
    ] = None,
    T: Annotated[float | None, typer.Option("--T", help="Base ratio (>= 2).")] = None,
    C: Annotated[float | None, typer.Option("--C", help="Capping ratio (>= 1).")] = None,
    X: Annotated[float | None, typer.Option("--X", help="Growth exponential (>= 1).")] = None,
    K: Annotated[float | None, typer.Option("--K", help="Greediness, Levels 1..L-1.")] = None,
    Z: Annotated[float | None, typer.Option("--Z", help="Greediness, Level L.")] = None,
    entries: Entries = DEFAULT_SYSTEM.entries,
    entry_bytes: EntryBytes = DEFAULT_SYSTEM.entry_bytes,
    key_bytes: KeyBytes = DEFAULT_SYSTEM.key_bytes,
    block_bytes: BlockBytes = DEFAULT_SYSTEM.block_bytes,
    buffer_bytes: BufferBytes = DEFAULT_SYSTEM.buffer_bytes,
    sum_fpr: SumFpr = None,
    bits_per_entry: BitsPerEntry = None,
    hash_levels: HashLevels = 0,
    as_json: JsonFlag = False,
) -> None:
    """Print the per-level table and the costs of one design."""
    system = build_system(entries, entry_bytes, key_bytes, block_bytes, buffer_bytes, sum_fpr,
                          bits_per_entry, hash_levels)
    design = build_design(preset_name, system, T, C, X, K, Z)
    result = analyze(design, system)
    if as_json:
        print(json.dumps(result.to_dict(), indent=2))
        return
    console = Console(width=None if sys.stdout.isatty() else 120)
    knobs = ", ".join(f"{k}={v:.4g}" for k, v in design.knobs.items())
    title = f"{preset_name or 'design'} ({knobs}, {design.filters} filters)"
    console.print(level_table(result, title))
    print_totals(console, result)


@app.command("recommend")
def recommend_command(
    point_reads: Annotated[float, typer.Option("--point-reads", help="Fraction of reads of "
                                               "existing entries.")] = 0.0,
    zero_reads: Annotated[float, typer.Option("--zero-reads", help="Fraction of zero-result "
                                              "reads.")] = 0.0,
    writes: Annotated[float, typer.Option("--writes", help="Fraction of writes.")] = 0.0,
    range_reads: Annotated[float, typer.Option("--range-reads", help="Fraction of range "
                                               "reads.")] = 0.0,
    range_blocks: Annotated[float, typer.Option("--range-blocks", help="Blocks each range "
                                                "read returns.")] = 0.0,
    method: Annotated[str, typer.Option("--method", help="global or projections.")] = "global",
    trace: Annotated[Path | None, typer.Option("--trace", help="Derive the workload from a "
                                               "trace file (lz4-compressed or plain).")] = None,
    entries: Entries = DEFAULT_SYSTEM.entries,
    entry_bytes: EntryBytes = DEFAULT_SYSTEM.entry_bytes,
    key_bytes: KeyBytes = DEFAULT_SYSTEM.key_bytes,
    block_bytes: BlockBytes = DEFAULT_SYSTEM.block_bytes,
    buffer_bytes: BufferBytes = DEFAULT_SYSTEM.buffer_bytes,
    sum_fpr: SumFpr = None,
    bits_per_entry: BitsPerEntry = None,
    hash_levels: HashLevels = 0,
    as_json: JsonFlag = False,
) -> None:
    """Recommend the design that minimizes the average I/O per operation (Eq 16)."""
    system = build_system(entries, entry_bytes, key_bytes, block_bytes, buffer_bytes, sum_fpr,
                          bits_per_entry, hash_levels)
    if trace is not None:
        if any((point_reads, zero_reads, writes, range_reads, range_blocks)):
            raise ValueError("give either --trace or the workload fractions, not both")
        try:
            parsed = read_trace(trace)
        except OSError as err:
            raise ValueError(f"trace: cannot read {trace}: {err.strerror}") from None
        workload = workload_from_trace(parsed, system.entries_per_block)
    else:
        workload = Workload(point_reads, zero_reads, writes, range_reads, range_blocks)
    rec = recommend(workload, system, method=method)
    if as_json:
        print(json.dumps(rec.to_dict(), indent=2))
        return
    console = Console(width=None if sys.stdout.isatty() else 120)
    knobs = ", ".join(f"{k}={v:.4g}" for k, v in rec.design.knobs.items())
    console.print(
        f"[bold]{rec.family}[/bold] ({knobs}): {rec.cost:.4g} I/O per operation "
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
    console.print(level_table(rec.analysis, "Recommended design, per level"))
    print_totals(console, rec.analysis)


@app.command("frontier")
def frontier_command(
    out: Annotated[Path, typer.Option("--out", help="HTML file to write.")],
    frontier_fpr: Annotated[float, typer.Option("--frontier-sum-fpr", help="Point-read cost "
                                                "held fixed: the sum of FPRs p.")] = 0.1,
    entries: Entries = DEFAULT_SYSTEM.entries,
    entry_bytes: EntryBytes = DEFAULT_SYSTEM.entry_bytes,
    key_bytes: KeyBytes = DEFAULT_SYSTEM.key_bytes,
    block_bytes: BlockBytes = DEFAULT_SYSTEM.block_bytes,
    buffer_bytes: BufferBytes = DEFAULT_SYSTEM.buffer_bytes,
    sum_fpr: SumFpr = None,
    bits_per_entry: BitsPerEntry = None,
) -> None:
    """Write the Pareto frontiers (memory and range cost vs write amplification) as HTML."""
    system = build_system(entries, entry_bytes, key_bytes, block_bytes, buffer_bytes, sum_fpr,
                          bits_per_entry, 0)
    if not frontier_fpr > 0:
        raise ValueError(f"frontier-sum-fpr must be > 0; got {frontier_fpr}")
    try:
        out.write_text(frontier_html(system, frontier_fpr), encoding="utf-8")
    except OSError as err:
        raise ValueError(f"out: cannot write {out}: {err.strerror}") from None
    print(f"wrote {out}")


def load_command_plugins(target: typer.Typer) -> None:
    """Let higher layers (validation, dashboard) add their commands through the
    ``wacky.commands`` entry-point group, so this module never imports them."""
    for ep in entry_points(group="wacky.commands"):
        ep.load()(target)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning a ValueError into one line on stderr and exit 2.

    Usage errors (unknown flags, wrong types) are click's: a message and exit 2 as well.
    """
    try:
        load_command_plugins(app)
        app(args=argv, prog_name="wacky")
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
