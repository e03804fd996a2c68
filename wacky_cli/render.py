"""How ``wacky`` shows results in a terminal: rich tables built from the typed results.
Result types are imported only for type checking, so rendering loads no engine."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from validation.results import ValidationResult
    from wacky_model.analysis import Analysis
    from wacky_model.search import Recommendation
    from wacky_model.types import Design, System


def stdout_console(width: int = 120) -> Console:
    """The console for results: the terminal's width (or $COLUMNS), else ``width`` when piped."""
    own = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
    return Console(width=None if own else width)


def new_table(title: str, columns: Iterable[str], rows: Iterable[Sequence[str]] = (),
              overflow: str = "fold") -> Table:
    """A table of right-justified columns; a cell that does not fit folds (no digit is lost)."""
    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right", overflow=overflow)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    return table


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` with no number cut: columns that do not fit are left out from the right,
    with a caption naming them (``--json`` has everything)."""
    for col in table.columns:
        words = str(col.header).split() or [""]
        col.min_width = max([len(str(c)) for c in col._cells] + [len(w) for w in words])
    dropped = []
    # Each column adds its padding (2) and a border (1); the table one more border.
    while len(table.columns) > 2 and sum(
            (c.min_width or 0) + 3 for c in table.columns) + 1 > console.width:
        dropped.append(str(table.columns.pop().header))
    if dropped:
        table.caption = (f"not shown at {console.width} columns: {', '.join(reversed(dropped))}"
                         " (widen the terminal or use --json)")
    console.print(table)


def fmt(x: float | None, pct: bool = False) -> str:
    return "-" if x is None else f"{x:+.1%}" if pct else f"{x:.4g}"


def system_text(system: System) -> str:
    """The system a result assumed, in the flags' terms."""
    if system.memory_bits_per_entry is not None:
        memory = f"memory {system.memory_bits_per_entry:.4g} bits/entry (split by the search)"
    elif system.sum_fpr is not None:
        memory = f"buffer {system.buffer_bytes:,} B, filters for a sum of FPRs {system.sum_fpr:g}"
    else:
        bits = 5.0 if system.bits_per_entry is None else system.bits_per_entry
        memory = f"buffer {system.buffer_bytes:,} B, filters {bits:.4g} bits/entry"
    extra = [text for on, text in (
        (system.cache_bytes, f"block cache {system.cache_bytes:,} B"),
        (system.write_cost_ratio != 1.0, f"write cost ratio {system.write_cost_ratio:g}"),
        (system.probe_cost, f"probe cost {system.probe_cost:g}"),
        (system.hash_levels, f"{system.hash_levels} hash level(s)")) if on]
    return (f"system: {system.entries:,.0f} entries of {system.entry_bytes} B "
            f"(keys {system.key_bytes} B), {system.block_bytes:,} B blocks, {memory}"
            + "".join(f", {e}" for e in extra))


def knob_text(design: Design) -> str:
    return ", ".join(f"{k}={v:.4g}" for k, v in design.knobs.items())


def level_table(result: Analysis, title: str) -> Table:
    return new_table(title, ("level", "runs", "capacity (entries)", "x buffer", "FPR/run",
                             "level FPR", "bits/entry", "filter"),
                     ((str(r.level), f"{r.runs:.4g}", f"{r.capacity_entries:.4g}",
                       f"{r.buffer_multiple:.4g}", f"{r.fpr_per_run:.3g}", f"{r.level_fpr:.3%}",
                       f"{r.filter_bits_per_entry:.2f}", r.structure) for r in result.levels))


def files_level_table(title: str, rows: list[dict[str, Any]], in_use: bool = False) -> Table:
    """Per level of a file-granular design (``analyze_files``' or a recommendation's levels)."""
    return new_table(title, ("level", "mean entries", "write amp", "in use")[:4 if in_use else 3],
                     ((str(r["level"]), f"{r['mean_entries']:,.0f}", f"{r['write_amp']:.3g}",
                       *([f"{r['share_of_window_in_use']:.0%}"] if in_use else []))
                      for r in rows), overflow="ellipsis")


def print_totals(console: Console, result: Analysis) -> None:
    finite = result.finite
    rows = [("write amplification", "write_amp"), ("write cost (I/O per write)", "write_cost"),
            ("existing-key read, Level L (I/O)", "point_read"),
            ("existing-key read, uniform (I/O)", "point_read_uniform"),
            ("zero-result read (I/O)", "zero_result_read"), ("runs per range read", "range_runs"),
            ("filter bits per entry", "memory_bits_per_entry"),
            ("filter and hash probes per zero-result read", "filter_probes")]
    if result.theta is not None:
        rows.append(("Θ (I/O per operation)", "theta"))
    print_table(console, new_table(
        "Costs: the finite-N model (steady state at this N) and the paper's Eq 8-16",
        ("cost", "finite model", "paper model"),
        ((label, fmt(getattr(finite, key) if finite else None), fmt(getattr(result, key)))
         for label, key in rows)))
    if finite is not None and finite.full_merge_write_amp > 0:
        console.print(f"of the finite model's write amplification, "
                      f"{finite.full_merge_write_amp:.3g} is Level L's full merges (every a_L "
                      "runs)")
    console.print(f"fence pointers {result.fence_bits_per_entry:.3f} bits/entry   sum of FPRs "
                  f"(paper) {result.sum_fpr:.4g}   worst-case space amplification "
                  f"{result.space_amp:.3g}   peak disk during merges "
                  f"{result.transient_space:.2f}x the data")
    for warning in result.warnings:
        console.print(f"[bold yellow]warning:[/bold yellow] {warning}")


def print_analysis(console: Console, result: Analysis, title: str) -> None:
    print_table(console, level_table(result, title))
    print_totals(console, result)
    if result.skew is not None:
        k = result.skew
        levels = ", ".join(f"L{i + 1} {h:.0%}" for i, h in enumerate(k.cache_hit_rate_per_level))
        console.print(
            f"skew and cache (docs/MODEL.md, S1-S7): write amplification {k.write_amp:.3g} per "
            f"write, {k.point_read:.3g} I/O per existing-key read, cache hit rate "
            f"{k.cache_hit_rate:.1%} ({levels}); {k.read_buffer_share:.1%} of existing-key "
            "reads are answered by the write buffer"
            + ("" if k.theta is None else f"; Θ under the skew {k.theta:.4g} I/O per operation"))


def insert_rate_text(rate: float, profile: str) -> str:
    """T1's line: the native engine's inserts per second on a calibrated machine."""
    return (f"insert throughput {rate:,.0f} inserts/s on the native engine with {profile}'s "
            "CPU costs (T1: a put and the write amplification's merges, in the writer's thread)")


def devices_text(doc: dict[str, Any]) -> str:
    """D1's lines: each device's levels, the bytes it holds and writes per insert, and Θ at the
    devices' costs when a workload was given."""
    def levels(ls: list[int]) -> str:
        if not ls:
            return "no level"
        return f"level {ls[0]}" if len(ls) == 1 else f"levels {ls[0]}-{ls[-1]}"

    lines = ["devices (D1, docs/MODEL.md; the last level listed goes on for deeper levels):"]
    for d in doc["devices"]:
        lines.append(f"  {d['name']}: {levels(d['levels'])}, holds {d['bytes_held']:,.0f} bytes, "
                     f"writes {d['bytes_written_per_insert']:,.1f} bytes per insert")
    if doc.get("theta") is not None:
        lines.append(f"  Θ at the devices' costs: {doc['theta']:.4g}")
    return "\n".join(lines)


def print_files_analysis(design: Design, system: System, doc: dict[str, Any]) -> None:
    """``analyze --granularity file``: the costs of ``analyze_files`` and its levels."""
    console = stdout_console()
    console.print(system_text(system), highlight=False)
    c = doc["compaction"]
    log = f", L2SM's log {c['log_ratio']:g} of the tree (L1)" if c.get("log_ratio") else ""
    console.print(f"[bold]{knob_text(design)}[/bold], file-granular merges: files of "
                  f"{c['file_bytes']:,} B, level-1 trigger {c['level1_runs']}{log} (partial-"
                  "merge model, a window of inserts from the settled tree)", highlight=False)
    console.print(f"write amplification {doc['write_amp']:.4g}; zero-result read "
                  f"{doc['zero_result_read']:.4g} I/O; existing-key read {doc['point_read']:.4g}"
                  f" I/O; runs a range read visits {doc['range_runs']:.4g}"
                  + ("" if doc["theta"] is None else f"; Θ {doc['theta']:.4g} I/O per operation")
                  + f"; peak disk during merges {doc['transient_space']:.2f}x the data",
                  highlight=False)
    if doc.get("keys") and doc["keys"] != "uniform keys":
        console.print(f"keys: {doc['keys']}", highlight=False)
    f = doc.get("floating")
    if f is not None:
        console.print(f"Tidal-tree's floating (F1-F4): files checked per existing-key read "
                      f"{f['probes_without']:.3g} -> {f['probes_with']:.3g}, "
                      f"{f['extra_writes']:.3g} more entries written per insert",
                      highlight=False)
    if doc.get("insert_rate") is not None:
        console.print(insert_rate_text(doc["insert_rate"], doc["profile"]), highlight=False)
    print_table(console, files_level_table("Per level (the window's means)", doc["levels"]))


def print_recommendation(console: Console, rec: Recommendation) -> None:
    from wacky_cli.options import in_flags
    from wacky_model.config import keys_of
    from wacky_model.guardrails import PRACTICAL_RUNS_PER_LEVEL
    from wacky_model.search import UNPHYSICAL_COST
    from wacky_model.types import Design

    console.print(system_text(rec.system), highlight=False)
    if rec.file_costs is not None:
        searched = ("the partial-merge model of file-granular merges"
                    + (" with the skew stage (S2f)" if rec.skew is not None else ""))
    elif rec.skew is not None:
        searched = f"the skew model's pick among {rec.skew.candidates} designs"
    else:
        searched = f"{rec.method} search of the {rec.model} model"
    c = rec.compaction
    merges = ("whole-level merges" if c.granularity == "level" else
              f"file-granular merges, files of {c.file_bytes:,} B, level-1 trigger "
              f"{c.level1_runs}" + (", LSbM's compaction buffer" if c.buffer else "")
              + (f", L2SM's log ({c.log.ratio:g})" if c.log else ""))
    console.print(f"[bold]{rec.family}[/bold] ({knob_text(rec.design)}; {merges}): "
                  f"{rec.cost:.4g} I/O per operation ({searched}, {rec.search_ms:.1f} ms)")
    cap = rec.without_cap
    if cap is not None:
        console.print(
            f"cap: at most {cap['cap']} runs per level (RocksDB stops writes at "
            f"{PRACTICAL_RUNS_PER_LEVEL} level-0 files); without the cap ({cap['lift']}): "
            f"{cap['family']} {knob_text(Design(**cap['design']))}, Θ {cap['theta_lower']:.1%} "
            f"lower, {cap['max_runs_per_level']:,.0f} runs in Level {cap['level']}",
            highlight=False)
    console.print(f"keys: {keys_of(rec.workload, rec.system)}", highlight=False)
    if rec.placement is not None:  # D1: where the levels go, and why
        from wacky_model.placement import describe

        console.print(f"placement: {describe(rec.placement)}", highlight=False)
    if rec.granularity is not None:
        console.print(f"[bold]granularity[/bold]: {rec.granularity['reason']}", highlight=False)
    beaten = rec.beaten_by
    if beaten is not None:
        console.print(
            f"note: the table below beats this pick: {beaten.family} ({knob_text(beaten.design)}) "
            f"costs {beaten.cost:.4g} I/O per operation, {1 - beaten.cost / rec.cost:.1%} less"
            + (" (the projections method stops at the first T whose neighbour costs more; "
               "--method global searches every knob)" if rec.method == "projections" else ""),
            highlight=False)
    if rec.skew is not None:
        from wacky_model.skew_search import describe

        console.print(f"skew: {describe(rec.skew)}")
    mem = rec.memory
    console.print(
        f"memory: {mem['memory_bits_per_entry_total']:.4g} bits per entry = buffer "
        f"{mem['buffer_bytes']:,} B ({8 * mem['buffer_bytes'] / rec.analysis.system.entries:.3g}"
        f" bits/entry) + filters {mem['filter_bits_per_entry']:.4g} + fence pointers "
        f"{mem['fence_bits_per_entry']:.4g}")
    if rec.system.probe_cost > 0:
        h = rec.system.hash_levels
        console.print(
            f"hash tables (probe cost {rec.system.probe_cost:g} block reads): "
            + (("Level 1" if h == 1 else f"Levels 1..{h}") + ", inside the filter memory" if h
               else "none pay off"))
    if rec.bounds_hit:
        console.print(f"note: the optimum sits on the search bound of {', '.join(rec.bounds_hit)}")
    if rec.robust is not None:
        print_table(console, new_table(
            f"Robust (rho = {rec.robust['rho']:g}) vs nominal tuning, I/O per operation",
            ("design", "T", "C", "X", "K", "Z", "at the workload", "worst case"),
            ((label, *(f"{d['design'][k]:.4g}" for k in "TCXKZ"), f"{d['nominal_cost']:.4g}",
              f"{d['worst_case_cost']:.4g}")
             for label, d in (("robust", rec.robust["robust_design"]),
                              ("nominal", rec.robust["nominal_design"])))))
    # The families are the whole-level table's, priced again under the skew when there is one.
    priced = ("the skew model, under the skew and the cache" if rec.skew is not None else
              f"the {'paper' if rec.model == 'paper' else 'finite'} model, uniform keys")
    # A cost of UNPHYSICAL_COST: no design of the family meets the guardrails.
    excluded = [a.cost >= UNPHYSICAL_COST / 2 for a in rec.alternatives]
    if rec.alternatives:  # a file-side pick alone (files asked, or stock RocksDB) has none
        print_table(console, new_table(
            f"Each family at its own best T: whole levels, {priced}",
            ("family", "T", "C", "X", "I/O per op", "relative throughput"),
            ((a.family, *(["-"] * 5 if out else [
                f"{a.design.T:.4g}", f"{a.design.C:.4g}", f"{a.design.X:.4g}",
                f"{a.cost:.4g}", f"{a.relative_throughput:.3f}"]))
             for a, out in zip(rec.alternatives, excluded, strict=True))))
        if any(excluded):
            console.print("-: no design of the family meets the guardrails"
                          + (f" ({in_flags(rec.constraints.describe())})"
                             if rec.constraints is not None else ""), highlight=False)
    if rec.file_costs is None:
        print_analysis(console, rec.analysis, "Recommended design, per level")
    else:
        print_table(console, files_level_table("Recommended design, per level (the "
                                               "partial-merge model's window, uniform keys)",
                                               rec.levels, in_use=True))


def print_rocksdb_recommendation(console: Console, rec: Any, out: Any,
                                 time: dict[str, Any] | None = None) -> None:
    """``recommend --target rocksdb``: the options, their costs (and RocksDB's defaults'), why;
    with a profile, the sustainable write rate and stalls (``time``: T2, T3), and with the
    throughput objective its operations per second (``time["throughput"]``: T7)."""
    b = rec.best
    c = b.config
    chosen = (", chosen for throughput (T7)" if rec.objective == "throughput"
              else "")
    console.print(f"[bold]Stock RocksDB, {c.style} compaction[/bold]{chosen}: {b.theta:.4g} I/O "
                  f"per operation ({c.model} model, {rec.configurations} configurations)")
    console.print(c.options_text(), highlight=False)
    multiplier = rec.best_multiplier_only
    print_table(console, new_table(
        "Predicted costs per operation; peak disk: during compactions, × the data",
        ("configuration", "I/O per op", "write amp", "zero-result I/O", "existing-key I/O",
         "runs", "peak disk"),
        ((label, f"{p.theta:.4g}", f"{p.costs.write_amp:.3g}",
          f"{p.costs.zero_result_read:.3g}", f"{p.costs.point_read:.3g}",
          f"{p.costs.range_runs:.3g}", f"{p.transient_space:.2f}")
         for label, p in (("recommended", b), ("RocksDB's defaults", rec.default),
                          (f"defaults, best multiplier ({multiplier.config.multiplier:g})",
                           multiplier)))))
    console.print(f"gain over RocksDB's defaults (scaled to this buffer: trigger 4, a first "
                  f"level of 4 buffers, multiplier 10, files of one buffer): "
                  f"{1 - b.theta / rec.default.theta:.1%} fewer I/O per operation")
    console.print("Why each option (against the best configuration that differs in it alone):")
    for line in rec.reasons:
        console.print(f"  {line}")
    if time is not None:
        for label, t in (("recommended", time["recommended"]),
                         ("RocksDB's defaults", time["defaults"])):
            console.print(stall_text(label, t), highlight=False)
        if "throughput" in time:  # --objective throughput (T7)
            from wacky_model.rocksdb_throughput import throughput_text as text

            console.print(text(time["throughput"]), highlight=False)
    if out is not None:
        console.print(f"wrote the OPTIONS file to {out}")


def throughput_text(t: dict[str, Any]) -> str:
    """recommend --objective throughput: the library's line (the dashboard shows the same)."""
    from wacky_model.throughput import throughput_text as text

    return text(t)


def stall_text(label: str, t: dict[str, Any]) -> str:
    """One line of T2 and T3: the library's (the dashboard shows the same)."""
    from wacky_model.stalls import stall_text as text

    return text(label, t)


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

    skew = result.model == "skew"
    err, paper_err, simulated = result.relative_error, result.paper_relative_error, result.simulated
    labels = dict(METRIC_LABELS)
    if skew:
        labels["point_read_uniform"] = "I/O per existing read (read distribution)"
    metrics = new_table(
        "Predicted vs measured", ("metric", "skew model" if skew else "finite model",
                                  "paper model", "engine simulator", "measured", "model error",
                                  "paper error"),
        ((labels[m], fmt(result.predicted.metric(m)), fmt(result.paper.metric(m)),
          "-" if simulated is None else fmt(simulated.metric(m)), fmt(result.measured.metric(m)),
          fmt(err.metric(m), True), fmt(paper_err.metric(m), True)) for m in METRICS))
    p, q = result.predicted, result.measured
    if p.cache_hit_rate is not None and q.cache_hit_rate is not None:
        metrics.add_row("cache hit rate", fmt(p.cache_hit_rate), "-", "-", fmt(q.cache_hit_rate),
                        f"{p.cache_hit_rate - q.cache_hit_rate:+.3f} abs", "-")
        for i, (a, b) in enumerate(zip(p.cache_hit_rate_per_level or (),
                                       q.cache_hit_rate_per_level or (), strict=False)):
            metrics.add_row(f"  hit rate, Level {i + 1}", fmt(a), "-", "-", fmt(b),
                            f"{a - b:+.3f} abs", "-")
    finite, paper = result.predicted.levels, result.paper.levels
    simulated_levels = () if simulated is None else simulated.levels
    measured = tuple(lv for lv in q.levels if lv.level != 0)
    columns = ((finite, "runs"), (simulated_levels, "runs"), (measured, "runs"),
               (measured, "max_runs"), (paper, "entries"), (simulated_levels, "entries"),
               (measured, "entries"))
    # Level 0 (a level-1 trigger above 1) is the engine's alone: its own row, first.
    rows = [("0", "-", "-", fmt(lv.runs), fmt(lv.max_runs), "-", "-", fmt(lv.entries))
            for lv in q.levels if lv.level == 0]
    rows += [(str(i + 1), *(fmt(getattr(s[i], f)) if i < len(s) else "-" for s, f in columns))
             for i in range(max(map(len, (finite, paper, simulated_levels, measured))))]
    return [metrics, new_table("Structure: runs and entries per level",
                               ("level", "runs (finite, mean)", "runs (simulator)",
                                "runs (measured)", "a_i bound", "entries (paper N_i)",
                                "entries (simulator)", "entries (measured)"), rows)]


def print_replay(console: Console, result: dict[str, Any], path: str, verbose: bool) -> None:
    """``wacky replay``: the design, the operations and I/O by kind (load, warm-up and measured
    apart) with totals, whether every answer was right, and each phase if ``verbose``."""
    from wacky_model.families import name_of
    from wacky_model.types import Design, System

    eng, knobs = result["engine"], dict(result["design"])
    design = Design(**knobs)
    summary = result["summary"]
    puts = sum(t.get("put", {}).get("count", 0) for t in summary["parts"].values())
    try:
        system = System(entries=max(puts, 2 * eng["buffer_bytes"] // eng["entry_bytes"]),
                        entry_bytes=eng["entry_bytes"], block_bytes=eng["block_bytes"],
                        buffer_bytes=eng["buffer_bytes"])
        family = name_of(design, system) + " "
    except ValueError:
        family = ""
    budget = (f"{eng['bits_per_entry']:g} bits/entry" if "bits_per_entry" in eng
              else f"a sum of FPRs {eng.get('sum_fpr', 0):g}")
    source = "" if eng["design_from_trace"] else " (the trace names none: the default)"
    console.print(f"Replay of {path}", style="bold", highlight=False)
    console.print(f"design: {family}({knob_text(design)}), {design.filters} filters of {budget}"
                  f"{source}; {eng['entry_bytes']} B entries, {eng['block_bytes']:,} B blocks, "
                  f"buffer {eng['buffer_bytes']:,} B", highlight=False)
    console.print(f"{result['records']:,} operations in {len(result['phases']):,} phases, "
                  f"replayed in {result['seconds']:.2f} s", highlight=False)
    def cells(t: dict[str, Any]) -> tuple[str, ...]:
        return (f"{t['count']:,}", f"{t['blocks_read']:,}", f"{t['blocks_written']:,}",
                fmt(t["read_per_op"]), fmt(t["write_per_op"]))

    table = new_table("Operations and I/O by kind",
                      ("part", "operation", "count", "blocks read", "blocks written", "read / op",
                       "written / op"),
                      ((part.replace("_", "-"), kind, *cells(t))
                       for part, kinds in summary["parts"].items() for kind, t in kinds.items()))
    table.add_row("total", "all", *cells(summary["total"]), style="bold")
    print_table(console, table)
    reads = {k: sum(p.get(k, {}).get("count", 0) for p in summary["parts"].values())
             for k in ("get", "zero", "range")}
    if result["ok"]:
        console.print(f"every answer was correct: {reads['get']:,} reads of existing keys, "
                      f"{reads['zero']:,} zero-result reads and {reads['range']:,} range reads",
                      highlight=False)
    else:
        console.print(f"[bold red]wrong answers[/bold red]: {result['get_misses']:,} reads of "
                      f"existing keys found nothing, {result['zero_hits']:,} reads of absent "
                      f"keys found a value, {result['wrong_values']:,} values were wrong",
                      highlight=False)
    if verbose:
        print_table(console, new_table(
            f"Per phase ({len(result['phases']):,})",
            ("phase", "operation", "count", "blocks read / op", "blocks written / op"),
            ((phase, kind, str(t["count"]), fmt(t["read_per_op"]), fmt(t["write_per_op"]))
             for phase, kinds in result["phases"].items() for kind, t in kinds.items())))
    else:
        console.print(f"(the {len(result['phases']):,} phases one by one: --verbose)",
                      highlight=False)

