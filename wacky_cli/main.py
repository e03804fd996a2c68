"""The ``wacky`` command. Bad input prints ``error: <message>`` (in the flags' terms) on stderr
and exits 2. Commands import what they need when they run (``wacky analyze`` loads no engine);
progress goes to stderr, so ``--json`` output on stdout stays one clean document."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from wacky_cli.options import (
    COMPACTION_DEFAULTS,
    COMPACTION_OPTIONS,
    DESIGN_OPTIONS,
    FILTER_BUDGET_OPTIONS,
    FLAGS,
    GUARDRAIL_OPTIONS,
    SYSTEM_OPTIONS,
    WORKLOAD,
    WORKLOAD_OPTIONS,
    CacheBytesFlag,
    CompactionChoice,
    DesignChoice,
    FilterBudget,
    JsonFlag,
    OutFile,
    ProfileFile,
    compaction_flags,
    in_flags,
    scale_options,
    takes,
    whole,
)
from wacky_model.guardrails import Constraints
from wacky_model.types import Compaction, Design, System, Workload

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Explore the Wacky continuum of LSM-tree merge policies.",
)


def _write(path: Path, text: str, flag: str, mode: str = "w") -> None:
    try:
        with path.open(mode, encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        raise ValueError(f"{flag}: cannot write {path}: {err.strerror}") from None


def _print_json(doc: Any) -> None:
    print(json.dumps(doc, indent=2))


def _check_writable(path: Path | None, flag: str) -> None:
    """Fail before a long run, not after it, when an output file cannot be written."""
    if path is not None:
        existed = path.exists()
        _write(path, "", flag, "a")
        if not existed:
            path.unlink()


def _fail_on_wrong_answers(get_misses: int, zero_hits: int, wrong_values: int) -> None:
    """Exit 1, saying so on stderr, when the engine answered any read wrongly."""
    if get_misses or zero_hits or wrong_values:
        print(f"error: the engine answered wrongly: {get_misses} reads of existing keys found "
              f"nothing, {zero_hits} reads of absent keys found a value, {wrong_values} values "
              "were wrong", file=sys.stderr)
        raise typer.Exit(1)


Workers = Annotated[int, typer.Option("--workers", help="Parallel runs of a sweep's cases: the "
                                     "processes of a local Dask cluster (1: one at a time).")]
CORES = os.cpu_count() or 1  # sweep's default --workers: a Dask worker per core


@app.command("analyze")
@takes(system=SYSTEM_OPTIONS, design=DESIGN_OPTIONS, workload=WORKLOAD_OPTIONS,
       compaction=COMPACTION_OPTIONS)
def analyze_command(system: System, design: DesignChoice, workload: Workload | None,
                    compaction: CompactionChoice, as_json: JsonFlag = False,
                    profile: ProfileFile = None) -> None:
    """Print the per-level table and the costs of one design (and Θ for a workload)."""
    from wacky_cli.render import (
        devices_text,
        insert_rate_text,
        knob_text,
        print_analysis,
        stdout_console,
        system_text,
    )
    from wacky_model.analysis import analyze

    machine = _read_profile(profile)
    resolved = design.resolve(system)
    merges = compaction.resolve("level")
    on_devices = _devices_of(resolved, merges, system, workload)
    if merges.granularity == "file":
        _analyze_files(resolved, system, merges, workload, as_json, machine, on_devices)
        return
    if dataclasses.replace(compaction, level_devices=None) != COMPACTION_DEFAULTS:
        raise ValueError("--file-bytes, --level1-runs and --file-pick go with --granularity file")
    result = analyze(resolved, system, workload)
    rate = None if machine is None else _insert_rate(result.finite.write_amp, machine)
    if as_json:
        _print_json({**result.to_dict(), **({} if machine is None else {
            "insert_rate": rate, "profile": machine.name}),
            **({} if on_devices is None else {"devices": on_devices})})
        return
    title = f"{design.preset or 'design'} ({knob_text(resolved)}, {resolved.filters} filters)"
    console = stdout_console()
    console.print(system_text(result.system), highlight=False)
    print_analysis(console, result, title)
    if rate is not None:
        console.print(insert_rate_text(rate, machine.name), highlight=False)
    if on_devices is not None:
        console.print(devices_text(on_devices), highlight=False)


def _devices_of(design: Design, compaction: Compaction, system: System,
                workload: Workload | None) -> dict[str, Any] | None:
    """D1 for ``analyze``: each device's levels, bytes held and bytes written per insert (and
    Θ at the devices' costs with a workload); None when no level is placed and the system has
    one device."""
    if not compaction.level_devices and len(system.devices) <= 1:
        return None
    from cost_models.devices import devices_of_levels
    from wacky_model.config import Configuration
    from wacky_model.pricing import price

    mix = workload or Workload(point_reads=0.25, zero_reads=0.25, writes=0.25,
                               range_reads=0.25)
    try:
        p = _compat_words(lambda: price(Configuration(design, compaction), mix, system))
    except ValueError as e:
        raise ValueError(compaction_flags(str(e))) from None
    assert p.devices is not None
    names = [d.name for d in system.devices] or ["own"]
    assert p.ledger is not None  # priced with D1, as p.devices says
    where = devices_of_levels(compaction.level_devices, len(p.ledger.writes))
    return {"level_devices": [int(d) for d in where],
            "devices": [{"name": n, "levels": [i for i, d in enumerate(where) if d == k],
                         "bytes_held": h, "bytes_written_per_insert": w}
                        for k, (n, h, w) in enumerate(zip(
                            names, p.devices.bytes_held, p.devices.bytes_written_per_insert,
                            strict=False))],
            "theta": p.theta if workload is not None else None}


def _read_profile(path: Path | None) -> Any:
    """The machine profile of --profile (None without one); a bad file is a flag error."""
    if path is None:
        return None
    from wacky_model.devices import read_profile

    try:
        machine = read_profile(path)
    except (OSError, ValueError) as e:
        raise typer.BadParameter(str(e), param_hint="'--profile'") from None
    if machine.cpu_ns_per_put is None or machine.cpu_ns_per_entry_merged is None:
        raise typer.BadParameter(f"{path} has no CPU costs (calibrate without --no-cpu)",
                                 param_hint="'--profile'")
    return machine


def _insert_rate(write_amp: float, machine: Any) -> float:
    from cost_models.throughput import insert_rate

    return insert_rate(write_amp, machine.cpu_ns_per_put, machine.cpu_ns_per_entry_merged)


def _analyze_files(design: Design, system: System, compaction: Compaction,
                   workload: Workload | None, as_json: bool, machine: Any = None,
                   on_devices: dict[str, Any] | None = None) -> None:
    from wacky_cli.render import print_files_analysis
    from wacky_model.compat import check, features_in
    from wacky_model.granularity import analyze_files

    if workload is not None:
        _compat_words(lambda: check(features_in(workload, system) | {"files"}))
    elif system.cache_bytes > 0:
        _compat_words(lambda: check({"cache", "files"}))
    try:
        doc = analyze_files(design, system, compaction, workload)
    except ValueError as e:
        raise ValueError(compaction_flags(str(e))) from None
    if machine is not None:
        doc.update(insert_rate=_insert_rate(doc["write_amp"], machine), profile=machine.name)
    if on_devices is not None:
        doc["devices"] = on_devices
    if as_json:
        _print_json(doc)
        return
    print_files_analysis(design, system, doc)
    if on_devices is not None:
        from wacky_cli.render import devices_text, stdout_console

        stdout_console().print(devices_text(on_devices), highlight=False)


@app.command("export")
@takes(system=SYSTEM_OPTIONS, design=DESIGN_OPTIONS, compaction=COMPACTION_OPTIONS)
def export_command(
    system: System,
    design: DesignChoice,
    compaction: CompactionChoice,
    rocksdb: Annotated[bool, typer.Option(
        "--rocksdb", help="Export as RocksDB options (the only target so far).")] = False,
    out: OutFile = None,  # type: ignore[assignment]  # optional here: stdout without it
    as_json: JsonFlag = False,
) -> None:
    """Write a design as stock RocksDB options, with a reason and a grade for each knob."""
    from wacky_model.rocksdb_options import rocksdb_export

    if not rocksdb:
        raise ValueError("give --rocksdb: RocksDB is the only export target")
    try:
        c = _stock_compaction(compaction)
        exported = rocksdb_export(design.resolve(system), system, level0_trigger=c.level1_runs,
                                  file_bytes=c.file_bytes, file_pick=c.file_pick,
                                  side_runs=c.side_runs, l0_partitions=c.l0_partitions,
                                  level_devices=c.level_devices)
    except ValueError as e:
        raise ValueError(compaction_flags(str(e))) from None
    text = json.dumps(exported.to_dict(), indent=2) if as_json else exported.options_file()
    if out is None:
        print(text)
        return
    _write(out, text + "\n", "--out")
    print(f"wrote {out} (grade of the design: {exported.grade})", file=sys.stderr)


# What recommend --trace may take from a trace's metadata (each unless its flag is given).
BUDGET_FLAGS = {"bits_per_entry", "sum_fpr", "memory_bits_per_entry", "memory_bytes"}
SYSTEM_PARAMS = {"entries", "entry_bytes", "block_bytes", "buffer_bytes"} | BUDGET_FLAGS


@functools.cache
def _read_trace(path: Path) -> Any:
    """The ``--trace`` file, read once for the flags and the command."""
    from wacky_traces import read_trace

    try:
        return read_trace(path)
    except OSError as err:
        raise ValueError(f"--trace: cannot read {path}: {err.strerror}") from None


def _trace_offer(path: Path, ctx: typer.Context) -> tuple[Any, set[str], dict, dict]:
    """The trace, the system flags given, the values it offers and those taken: a flag given
    wins; a budget flag keeps out the trace's budget, a total memory its buffer."""
    from wacky_model.trace_skew import system_from_trace

    parsed = _read_trace(path)
    sources = {n: ctx.get_parameter_source(n) for n in SYSTEM_PARAMS}
    given = {n for n, src in sources.items()
             if src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP")}
    kept = (given | (BUDGET_FLAGS if given & BUDGET_FLAGS else set())
            | ({"buffer_bytes"} if given & {"memory_bits_per_entry", "memory_bytes"} else set()))
    offered = system_from_trace(parsed)
    return parsed, given, offered, {n: v for n, v in offered.items() if n not in kept}


def _trace_scale(values: dict[str, Any]) -> dict[str, Any]:
    """``recommend --trace``: the trace's scale replaces the system flags left at their
    defaults before the system is built, so ``--memory-bytes`` is checked at the trace's
    entries, not the default 2^31. :func:`_from_trace` does the rest."""
    if values.get("trace") is None:
        return values
    try:
        taken = _trace_offer(values["trace"], values["ctx"])[3]
    except ValueError:  # _from_trace says why
        return values
    taken = {n: v for n, v in taken.items() if n not in ("bits_per_entry", "sum_fpr")}
    out = {**values, **taken}
    try:  # refused at the trace's scale: say where the values came from
        SYSTEM_OPTIONS.build(**{f.name: out[f.name] for f in SYSTEM_OPTIONS.flags})
    except ValueError as err:
        raise _refused_at_trace(err, values["trace"], taken) from None
    return out


def _refused_at_trace(err: ValueError, path: Path, taken: dict[str, Any]) -> ValueError:
    return ValueError(f"{in_flags(str(err))} (from the trace {path}: {_flag_values(taken)}; a "
                      "flag given on the command line wins over the trace)")


@app.command("recommend")
@takes(system=SYSTEM_OPTIONS, workload=WORKLOAD_OPTIONS, constraints=GUARDRAIL_OPTIONS,
       compaction=COMPACTION_OPTIONS, prepare=_trace_scale)
def recommend_command(
    ctx: typer.Context,
    system: System,
    workload: Workload | None,
    constraints: Constraints,
    compaction: CompactionChoice,
    method: Annotated[str, typer.Option("--method", help="global or projections.")] = "global",
    model: Annotated[str, typer.Option(
        "--model", help="The cost model to optimize: finite (steady state at this N, the "
        "default) or paper (Eq 8-16).")] = "finite",
    trace: Annotated[Path | None, typer.Option(
        "--trace", help="Derive the workload from a trace file (lz4, binary or text), less "
        "its load and warm-up, and the system from its metadata (entries, entry size, block "
        "and buffer size, filter budget); a system flag you give wins.",
        rich_help_panel="Workload")] = None,
    robust: Annotated[float | None, typer.Option(
        "--robust", help="rho: minimize the worst Θ over workloads within KL divergence rho "
        "of the given one (Endure's robust tuning), and compare with the nominal design.",
        rich_help_panel="Workload")] = None,
    target: Annotated[str, typer.Option(
        "--target", help="wacky: any design of the continuum (the default); rocksdb: only "
        "what stock RocksDB runs (leveled compaction's multiplier, level-0 trigger, first "
        "level and file sizes, or universal compaction's trigger and size-amplification "
        "limit; the memory split), priced by the partial-merge model or U1-U4, with its "
        "OPTIONS file (--out).")] = "wacky",
    out: OutFile = None,  # type: ignore[assignment]  # optional here: no file without it
    as_json: JsonFlag = False,
    profile: ProfileFile = None,
    write_rate: Annotated[float | None, typer.Option(
        "--write-rate", help="With --target rocksdb and --profile: recommend only options "
        "whose sustainable write rate (T2, docs/MODEL.md) on the profile's machine reaches "
        "this many inserts per second, so writes at it do not stall.",
        rich_help_panel="Guardrails")] = None,
    objective: Annotated[str, typer.Option(
        "--objective", help="io: minimize the average I/O per operation (Θ, Eq 16); "
        "throughput: minimize the time per operation on the --profile's machine (docs/"
        "MODEL.md). Native engine (T4): blocks read at its latency, blocks written at its "
        "merge CPU and bandwidth, probes at its CPU. --target rocksdb (T7): one client "
        "thread's time (T6) among the options whose background compaction sustains the "
        "writes of their own throughput (T2).")] = "io",
) -> None:
    """Recommend the design that minimizes the average I/O per operation (Eq 16), or with
    --objective throughput the time per operation on a calibrated machine."""
    from wacky_cli.render import (
        print_recommendation,
        print_rocksdb_recommendation,
        stdout_console,
        throughput_text,
    )
    from wacky_model.search import recommend
    from wacky_model.table_store import default_dir

    derived: dict[str, Any] | None = None  # what --trace derived, for the output
    if trace is not None:
        if workload is not None:
            raise ValueError("give either --trace or the workload fractions, not both")
        workload, system, derived = _from_trace(trace, system, ctx)
    elif workload is None:
        raise ValueError("give the workload: --point-reads, --zero-reads, --writes and "
                         "--range-reads (fractions summing to 1), or --trace FILE")
    if model not in ("finite", "paper"):
        raise ValueError(f"--model must be finite or paper; got {model!r}")
    if robust is not None and not (math.isfinite(robust) and robust >= 0):
        raise ValueError(f"--robust must be a number >= 0 (a KL divergence); got {robust:g}")
    if system.probe_cost > 0 and system.hash_levels > 0:
        raise ValueError("with --probe-cost the search chooses the hash levels; leave out "
                         "--hash-levels")
    if target not in ("wacky", "rocksdb"):
        raise ValueError(f"--target must be wacky or rocksdb; got {target!r}")
    # --level1-runs pins the level-0 trigger; the search chooses it otherwise.
    trigger = compaction.level1_runs if compaction.level1_runs != 1 else None
    _refuse_side_runs(compaction)
    if objective not in ("io", "throughput"):
        raise typer.BadParameter(f"must be io or throughput; got {objective!r}",
                                 param_hint="'--objective'")
    machine = _recommend_profile(profile, target, write_rate, objective)
    io_system = system
    if objective == "throughput" and target != "rocksdb":  # T4; RocksDB's T7 takes the machine
        from wacky_model.throughput import in_seconds

        system = in_seconds(system, machine)
    if write_rate is not None:
        from wacky_model.guardrails import WriteRate

        constraints = dataclasses.replace(constraints, write_rate=WriteRate(write_rate, machine))
    if target == "rocksdb":
        if (compaction.granularity, compaction.file_bytes,
                compaction.file_pick) != (None, None, "least_overlap"):
            raise ValueError("--target rocksdb searches the file size itself (stock RocksDB "
                             "merges files): leave out --granularity, --file-bytes and "
                             "--file-pick (--level1-runs pins the level-0 trigger)")
        rec: Any = _recommend_rocksdb(workload, system, constraints, method, model, robust,
                                      out, trigger,
                                      machine if objective == "throughput" else None)
    else:
        if out is not None:
            raise ValueError("--out writes the OPTIONS file of --target rocksdb")
        if compaction.file_bytes is not None or compaction.file_pick != "least_overlap":
            raise ValueError("recommend searches --file-bytes itself; give only --granularity "
                             "(level, file, or leave it out for both) and, to pin the level-0 "
                             "trigger, --level1-runs")
        granularity = compaction.granularity or "any"
        if granularity not in ("level", "file", "any"):
            raise ValueError(f"--granularity must be level or file; got {granularity!r}")
        if granularity == "level" and trigger is not None:
            raise ValueError("--level1-runs above 1 goes with file-granular merges: leave out "
                             "--granularity level")
        # The system's table is kept between calls (a new process would build it again).
        rec = _compat_words(lambda: recommend(workload, system, method=method, model=model,
                                              constraints=constraints, rho=robust,
                                              granularity=granularity, level0_trigger=trigger,
                                              tables=default_dir()))
    if objective == "throughput" and target != "rocksdb":
        from wacky_model.throughput import native_time

        time = native_time(rec, workload, io_system, system, machine, constraints, trigger)
    else:
        from wacky_model.stalls import stock_time

        time = None if machine is None else stock_time(rec, system, machine, write_rate)
    if objective == "throughput" and target == "rocksdb":
        from wacky_model.rocksdb_throughput import report
        from wacky_model.rocksdb_tuning import recommend_rocksdb

        io = recommend_rocksdb(workload, system, constraints, robust, trigger)  # priced alike
        time = {**(time or {}), "throughput": report(rec, io.best, machine)}
    if as_json:
        doc = rec.to_dict() if derived is None else {**rec.to_dict(), "trace": derived}
        _print_json(doc if time is None else {**doc, "time": time})
        return
    console = stdout_console()
    if derived is not None:  # print_recommendation prints the system itself
        _print_trace_inputs(console, derived, system if target == "rocksdb" else None)
    if target == "rocksdb":
        print_rocksdb_recommendation(console, rec, out, time)
    else:
        print_recommendation(console, rec)
        if time is not None:
            console.print(throughput_text(time), highlight=False)


def _refuse_side_runs(compaction: CompactionChoice) -> None:
    """recommend chooses the side runs itself: say so rather than drop a flag."""
    from wacky_model.granularity import LOG_RATIOS

    if compaction.log_ratio is not None:
        raise ValueError("recommend chooses L2SM's log itself (a log ratio of "
                         f"{', '.join(f'{r:g}' for r in LOG_RATIOS)} on file-granular designs, "
                         "whichever prices lowest): leave out --log-ratio")
    if compaction.l0_partitions != 1:
        raise ValueError("recommend does not take --l0-partitions: by the model partitions "
                         "write the same bytes and merge Level 1 more often (docs/MODEL.md "
                         "P6, wacky sweep ohdb), so they never lower the cost it minimizes; "
                         "price one with wacky analyze or measure it with wacky validate")
    if compaction.compaction_buffer:
        raise ValueError("recommend does not take --compaction-buffer: it prices the buffer and "
                         "reports what it would buy beside its pick, but the native engine has "
                         "not confirmed that estimate (wacky sweep lsbm); validate it instead "
                         "(wacky validate --compaction-buffer)")
    if compaction.floating is not None:
        raise ValueError("recommend chooses floating itself (Tidal-tree's γ 1 on its file-"
                         "granular pick, under skewed reads with a probe cost, when F1-F4 say it "
                         "pays): leave out --floating; price a γ with wacky analyze "
                         "--granularity file --floating")


def _from_trace(path: Path, system: System,
                ctx: typer.Context) -> tuple[Workload, System, dict[str, Any]]:
    """The workload (the operations outside the load and warm-up) and the system ``recommend
    --trace`` derives, and how it got them, for the output."""
    from dataclasses import asdict, replace

    from wacky_model.trace_skew import workload_from_trace
    from wacky_traces import left_out, operations_mask

    parsed, given, offered, taken = _trace_offer(path, ctx)
    try:
        system = replace(system, **taken | ({"bits_per_entry": None} if "sum_fpr" in taken
                                            else {}))
    except ValueError as err:
        raise _refused_at_trace(err, path, taken) from None
    workload = workload_from_trace(parsed, system.entries_per_block)
    derived = {
        "path": str(path),
        "records": len(parsed),
        "operations": int(operations_mask(parsed).sum()),
        "left_out": left_out(parsed),
        "workload": workload.to_dict(),
        "system": asdict(system),
        "from_trace": taken,
        "from_flags": sorted(_flag(n) for n in given),
        "overridden": {n: v for n, v in offered.items() if n not in taken},
    }
    return workload, system, derived


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _flag_values(values: dict[str, Any]) -> str:
    """System values as their flags: ``--entries 1,000, --sum-fpr 0.1``."""
    return ", ".join(f"{_flag(n)} {f'{v:,}' if isinstance(v, int) else f'{v:g}'}"
                     for n, v in values.items())


def _print_trace_inputs(console: Any, derived: dict[str, Any], system: System | None) -> None:
    """recommend --trace: the operations used, the workload as flags, the trace's values."""
    from wacky_cli.render import system_text

    skipped = derived["left_out"]
    parts = [f"the {what} ({skipped[key]:,} {unit})" for key, what, unit in (
        ("load", "load", "records"), ("warm_up", "warm-up", "inserts before the measured window"))
        if skipped[key]]
    console.print(f"trace {derived['path']}: {derived['records']:,} records; the workload is "
                  f"its {derived['operations']:,} measured operations"
                  + (f", leaving out {' and '.join(parts)}" if parts else ""), highlight=False)
    w = derived["workload"]
    flags = [f"{_flag(k)} {w[k]:.4g}" for k in ("point_reads", "zero_reads", "writes",
                                                 "range_reads", "range_blocks")
             if k != "range_blocks" or w["range_reads"]]
    flags += [f"--{dist}-dist {w[f'{dist}_keys']}" for dist in ("write", "read")
              if w[f"{dist}_keys"] != "uniform"]
    if w["update_fraction"]:
        flags.append(f"--update-fraction {w['update_fraction']:.4g}")
    if not w["correlated"]:
        flags.append("--uncorrelated")
    console.print(f"workload: {' '.join(flags)}", highlight=False)
    line = f"from the trace: {_flag_values(derived['from_trace']) or 'nothing'}"
    if derived["overridden"]:
        line += "; your flags win over the trace's " + _flag_values(derived["overridden"])
    console.print(line + "; the rest: the flags' defaults or yours", highlight=False)
    if system is not None:
        console.print(system_text(system), highlight=False)


# The CLI's words for the features of wacky_model.compat, so a refusal names the flags.
COMPAT_FLAGS = {
    "skew": "--write-dist, --read-dist or --update-fraction",
    "cache": "--cache-bytes", "files": "--granularity file", "paper": "--model paper",
    "robust": "--robust", "guardrails": "--max-runs-per-level and the other guardrails",
    "rocksdb": "--target rocksdb", "memory_split": "--memory-bits-per-entry",
    "probe_cost": "--probe-cost", "hash_levels": "--hash-levels",
    "level0_trigger": "--level1-runs above 1", "universal": "universal compaction",
    "l2sm_log": "--log-ratio", "lsbm_buffer": "--compaction-buffer",
    "l0_partitions": "--l0-partitions", "devices": "--device or --level-devices",
    "paged": "--paged-metadata", "floating": "--floating",
    "time_objective": "--objective throughput",
    "placed_skew": "--write-dist, --update-fraction, or --read-dist latest or hotrange",
}


def _compat_words(call: Callable[[], Any]) -> Any:
    """Run ``call``, a refusal of wacky_model.compat reworded with the CLI's flags."""
    from wacky_model.compat import FEATURES

    try:
        return call()
    except ValueError as err:
        text = str(err)
        for name, words in FEATURES.items():
            text = text.replace(words, COMPAT_FLAGS[name])
        raise ValueError(text) from None


def _recommend_profile(path: Path | None, target: str, write_rate: float | None,
                       objective: str) -> Any:
    """recommend's --profile: RocksDB's figures with --target rocksdb (T2, T3; with --objective
    throughput its read figures too, T6 and T7), or the native engine's with --objective
    throughput (T4)."""
    if path is None:
        for flag, given in (("'--write-rate'", write_rate is not None),
                            ("'--objective'", objective == "throughput")):
            if given:
                raise typer.BadParameter("needs --profile (wacky calibrate --out FILE): the "
                                         "rates are the machine's", param_hint=flag)
        return None
    if target != "rocksdb" and objective != "throughput":
        raise typer.BadParameter("recommend takes a profile with --target rocksdb (T2's "
                                 "sustainable write rate) or --objective throughput (T4); the "
                                 "native engine's insert rate alone is analyze --profile's",
                                 param_hint="'--profile'")
    from wacky_model.devices import read_profile

    try:
        machine = read_profile(path)
    except (OSError, ValueError) as e:
        raise typer.BadParameter(str(e), param_hint="'--profile'") from None
    if target == "rocksdb" and not machine.has_rocksdb:
        raise typer.BadParameter(f"{path} has no RocksDB figures (rocksdb_ns_per_put, ...): "
                                 "run wacky calibrate with the RocksDB bridge built",
                                 param_hint="'--profile'")
    if target == "rocksdb" and objective == "throughput" and not machine.has_rocksdb_reads:
        raise typer.BadParameter(f"{path} has no RocksDB read figures (rocksdb_ns_per_get, "
                                 "rocksdb_ns_per_zero_get, rocksdb_ns_per_seek, "
                                 "rocksdb_ns_per_next), which --objective throughput on RocksDB "
                                 "needs (T6, T7): run wacky calibrate with the RocksDB bridge "
                                 "built", param_hint="'--profile'")
    if target != "rocksdb" and objective == "throughput" and None in (
            machine.cpu_ns_per_put, machine.cpu_ns_per_entry_merged, machine.cpu_ns_per_probe):
        raise typer.BadParameter(f"{path} has no CPU costs (calibrate without --no-cpu)",
                                 param_hint="'--profile'")
    if write_rate is not None and not (math.isfinite(write_rate) and write_rate > 0):
        raise typer.BadParameter(f"must be a number of inserts per second above 0; got "
                                 f"{write_rate:g}", param_hint="'--write-rate'")
    return machine


def _recommend_rocksdb(workload: Workload, system: System, constraints: Constraints,
                       method: str, model: str, robust: float | None, out: Path | None,
                       trigger: int | None, throughput_on: Any = None) -> Any:
    """``recommend --target rocksdb``: stock RocksDB's options, their OPTIONS file in ``out``;
    with ``throughput_on`` (a profile), for throughput on that machine (T7)."""
    from wacky_model.compat import check, features_in
    from wacky_model.rocksdb_tuning import recommend_rocksdb

    if method != "global":
        raise ValueError("--target rocksdb searches stock RocksDB's options over its own grid; "
                         "leave out --method")
    _compat_words(lambda: check(features_in(workload, system, model, robust, constraints)
                                | {"rocksdb"}))
    _check_writable(out, "--out")
    rec = _compat_words(lambda: recommend_rocksdb(workload, system, constraints, robust,
                                                  trigger, throughput_on))
    if out is not None:
        _write(out, rec.export.options_file() + "\n", "--out")
    return rec


@app.command("frontier")
@takes(system=SYSTEM_OPTIONS)
def frontier_command(
    system: System,
    out: OutFile,
    frontier_fpr: Annotated[float, typer.Option(
        "--frontier-sum-fpr", help="Point-read cost held fixed: the sum of FPRs p.")] = 0.1,
) -> None:
    """Write the Pareto frontiers (memory and range cost vs write amplification) as HTML."""
    from wacky_model.figures import frontier_html

    if not frontier_fpr > 0:
        raise ValueError(f"--frontier-sum-fpr must be > 0; got {frontier_fpr}")
    if system.memory_split:  # the frontiers hold the buffer fixed: the given one
        system = system.with_buffer(system.buffer_bytes)
    _write(out, frontier_html(system, frontier_fpr), "--out")
    print(f"wrote {out}")


def _stock_compaction(choice: CompactionChoice) -> Compaction:
    """The compaction flags of stock RocksDB: its leveled compaction merges files."""
    compaction = choice.resolve("file")
    if compaction.granularity != "file":
        raise ValueError("--granularity level: stock RocksDB's leveled compaction merges a file "
                         "at a time; whole-level merges need the Wacky compaction driver")
    return compaction


@app.command("validate")
@takes(scale=scale_options(), budget=FILTER_BUDGET_OPTIONS, design=DESIGN_OPTIONS,
       workload=WORKLOAD_OPTIONS, compaction=COMPACTION_OPTIONS)
def validate_command(
    scale: Any,
    budget: FilterBudget,
    design: DesignChoice,
    workload: Workload | None,
    compaction: CompactionChoice,
    use_recommendation: Annotated[bool, typer.Option(
        "--recommend", help="Validate the design recommended for the workload.",
        rich_help_panel="Design")] = False,
    as_json: JsonFlag = False,
    html: Annotated[Path | None, typer.Option("--html", help="Write a plotly report.")] = None,
    save_trace: Annotated[Path | None, typer.Option(
        "--save-trace", help="Save the operation stream as an lz4 trace.")] = None,
    sweep: Annotated[bool, typer.Option(
        "--sweep", help="Validate the whole continuum; write a markdown table.")] = False,
    out: OutFile = Path("docs/VALIDATION.md"),
    workers: Workers = 2,
    phase: Annotated[str, typer.Option(
        "--phase", help="steady: costs over a window of inserts into the preloaded tree, "
        "spanning a merge into the largest level; load: averages over the load into an empty "
        "tree.", rich_help_panel="Engine run")] = "steady",
    engine: Annotated[str, typer.Option(
        "--engine", help="native: this project's engine; rocksdb: RocksDB, run by the Wacky "
        "compaction driver (or with --stock, by RocksDB's own compaction); simulator: the "
        "engine simulator, the merge policy's executable specification (uniform inserts, whole "
        "levels).",
        rich_help_panel="Engine run")] = "native",
    stock: Annotated[bool, typer.Option(
        "--stock", help="On RocksDB: the exported options under RocksDB's own compaction.",
        rich_help_panel="Engine run")] = False,
    cache_bytes: CacheBytesFlag = 0,
    skew_sweep: Annotated[bool, typer.Option(
        "--skew", help="With --sweep: skewed keys and a block cache on four designs (the skew "
        "section of --out and docs/validation-cache.png).",
        rich_help_panel="Engine run")] = False,
) -> None:
    """Build a design in the engine, measure it and compare with the models."""
    from rich.console import Console

    from validation.progress import progress  # a bar on a terminal, else a line per step
    from wacky_cli.render import knob_text, print_table, stdout_console, validation_tables

    console = Console(stderr=True)
    for path, flag in ((html, "--html"), (save_trace, "--save-trace")):
        _check_writable(path, flag)
    skewed = cache_bytes != 0 or (workload is not None and workload.skewed)
    rocksdb = engine == "rocksdb"
    for refused, why in (  # the first combination that applies is the one named
        (engine not in ("native", "rocksdb", "simulator"),
         f"--engine must be native, rocksdb or simulator; got {engine!r}"),
        (not rocksdb and stock, "--stock applies to --engine rocksdb only"),
        (engine == "simulator" and sweep,
         "--sweep runs the native engine or RocksDB: leave out --engine simulator"),
        (skewed and save_trace is not None, "--save-trace is not written under skewed keys or "
         "a cache yet: the skewed window drives the engine directly"),
        (skewed and (sweep or (rocksdb and not stock)), "--write-dist, --read-dist, "
         "--update-fraction and --cache-bytes run on the native engine or on stock RocksDB "
         "(--stock), one design at a time (wacky sweep skew or rocksdb-skew for the tables): "
         "add --stock to --engine rocksdb, and leave out --sweep"),
        (rocksdb and (save_trace is not None or phase != "steady"), "--engine rocksdb runs in "
         "the steady phase and saves no trace: leave out --save-trace and --phase load"),
        (rocksdb and sweep and stock, "--sweep --engine rocksdb runs both the driver and stock "
         "RocksDB: leave out --stock"),
    ):
        if refused:
            raise ValueError(why)
    native_compaction = compaction.resolve()
    if engine == "rocksdb" and stock:
        engine_compaction = _stock_compaction(compaction)
    else:
        engine_compaction = None
        files_sweep = sweep and engine == "native" and native_compaction == Compaction("file")
        if not native_compaction.is_default and (engine == "rocksdb" or sweep) and not files_sweep:
            raise ValueError("--granularity, --file-bytes, --level1-runs and --file-pick apply "
                             "to one run on the native engine or on stock RocksDB (--stock); "
                             "the compaction driver runs the paper's policy")
        if not native_compaction.is_default and phase != "steady":
            raise ValueError("--granularity, --file-bytes and --level1-runs are validated in "
                             "the steady phase: leave out --phase load")
    if skew_sweep and (not sweep or engine != "native" or workload is not None or cache_bytes):
        raise ValueError("--skew goes with --sweep on the native engine, which sets the "
                         "workloads and the cache itself: leave out --engine, the workload "
                         "flags and --cache-bytes")
    if sweep:  # an alias of `wacky sweep`: the flags name the case set
        name = ("skew" if skew_sweep else "rocksdb" if engine == "rocksdb"
                else "files" if native_compaction.granularity == "file" else "families")
        _run_sweep(name, scale, budget, out, workers, console)
        return
    from dataclasses import replace

    from validation.runner import validate

    # The recommendation prices the cache the engine will have.
    system = replace(scale.system(budget.bits_per_entry, budget.sum_fpr), cache_bytes=cache_bytes)
    if use_recommendation:
        from wacky_model.search import recommend

        if workload is None:
            raise ValueError("--recommend needs a workload: give --point-reads, "
                             "--zero-reads, --writes and --range-reads")
        resolved = recommend(workload, system).design
    else:
        resolved = design.resolve(system)
    with progress(console) as bar:
        task = bar.add_task("validating", total=1.0)
        result = validate(
            resolved, workload=workload, scale=scale, bits_per_entry=budget.bits_per_entry,
            sum_fpr=budget.sum_fpr, engine=engine, stock=stock, save_trace=save_trace,
            phase=phase, compaction=engine_compaction or native_compaction,
            cache_bytes=cache_bytes, progress=lambda fraction, message: bar.update(
                task, completed=fraction, description=message))
    if html is not None:
        from validation.figures import validation_html

        _write(html, validation_html(result), "--html")
    from validation.explain import large_error_notes, window_notes

    notes = window_notes(result) + large_error_notes(result)
    if as_json:
        _print_json({**result.to_dict(), "notes": notes})
    else:
        stdout = stdout_console(140)
        # On stock RocksDB the design ran with uniform filters (result.design says so).
        stdout.print(f"[bold]{knob_text(resolved)}[/bold] ({result.design.filters} filters), "
                     f"{scale.entries:,} entries of {scale.entry_bytes} B, "
                     f"{result.seconds:.1f} s")
        d = result.detail
        if result.engine == "rocksdb" and d("stock"):
            stdout.print(f"RocksDB {d('rocksdb_version')}, stock compaction with the exported "
                         f"options (grade: {d('rocksdb_grade')}): a window of "
                         f"{result.window_writes:,} "
                         f"{'writes' if result.model == 'skew' else 'inserts'} into the "
                         f"preloaded tree; the writer waited {d('throttle_seconds'):.1f} s for "
                         "compaction to keep up.")
        elif result.engine == "rocksdb":
            stdout.print(f"RocksDB {d('rocksdb_version')}, run by the Wacky compaction driver: "
                         f"a window of {result.window_writes:,} inserts into the preloaded "
                         f"tree, spanning {d('major_compactions')} merge(s) into the largest "
                         f"level. The policy wrote {d('tree_write_amp'):.3g} entries per "
                         "insert; RocksDB's statistics (write_amp) also count the level-0 file "
                         "of each flush the driver merges at once, and SST overhead.")
        elif (c := d("compaction")) is not None and result.model != "skew":
            stdout.print(f"Granularity {c['granularity']} (level-1 trigger {c['level1_runs']}"
                         + (f", files of {c['file_bytes'] or scale.buffer_bytes:,} B, "
                            f"{c['file_pick'].replace('_', ' ')} picking"
                            if c["granularity"] == "file" else "")
                         + f"): a window of {result.window_writes:,} inserts after the preload; "
                         + ("predicted by the partial-merge model" if result.model == "partial"
                            else "the finite model does not price the level-1 trigger"))
        elif result.model == "skew":
            sk = d("skew") or {}
            wl = sk.get("workload", {})
            files = d("compaction") or {}  # file-granular merges: a fixed window (S2f)
            span = (f"after a warm-up of {sk.get('warmup_writes', 0):,} writes, with "
                    f"file-granular merges (level-1 trigger {files.get('level1_runs')})"
                    if files else
                    f"after the preload, spanning {d('major_compactions')} merge(s) into the "
                    f"largest level{'' if d('window_complete') else ' (cut short: no full merge)'}")
            stdout.print(
                f"Skew: writes {wl.get('write_keys')} ({wl.get('update_fraction', 0):.0%} "
                f"updates), reads {wl.get('read_keys')}"
                f"{'' if wl.get('correlated', True) else ' (uncorrelated)'}, a cache of "
                f"{sk.get('cache_bytes', 0):,} B: a window of {result.window_writes:,} writes "
                f"{span}; {sk.get('invalidated_blocks', 0):,} cached blocks dropped by merges. "
                "Predicted by the skew model (docs/MODEL.md, "
                + ("S2f, S3-S7)." if files else "S1-S7)."))
        elif result.phase == "steady":
            stdout.print(f"Steady state: a window of {result.window_writes:,} inserts into the "
                         f"preloaded tree, spanning {d('major_compactions')} merge(s) into "
                         "the largest level.")
        if engine == "simulator":
            stdout.print("Measured by the engine simulator (native_engine/simulator.py), the "
                         "merge policy's executable specification: it checks the engine "
                         "against its specification, not the model.")
        elif not result.wal:
            stdout.print("The engine ran without its write-ahead log: the I/O measured is "
                         "flushes and merges, the I/O the model prices.")
        for table in validation_tables(result):
            print_table(stdout, table)
        for note in notes:  # errors above 25% in words, and the measurement's own faults
            stdout.print(f"note: {note}")
    checks = result.checks
    _fail_on_wrong_answers(checks.get_misses, checks.zero_hits, checks.wrong_values)


def _run_sweep(name: str, scale: Any, budget: FilterBudget, out: Path, workers: int,
               console: Any, scheduler: str | None = None, cache_dir: Path | None = None,
               fresh: bool = False) -> None:
    """Run case set ``name`` of validation.sweep.SWEEPS into ``out``."""
    from validation.scale import Scale
    from validation.sweep import SWEEPS, default_cache_dir, run_sweep

    _check_writable(out, "--out")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1; got {workers}")
    cache_dir = cache_dir or default_cache_dir()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--cache-dir: cannot write {cache_dir}: {err.strerror}") from None
    _check_writable(cache_dir / ".probe", "--cache-dir")
    if name == "rocksdb":
        import rocksdb_bridge

        rocksdb_bridge.load()  # says how to install it before any run starts
    command = SWEEPS[name].command + (
        f" --entries {scale.entries}" if scale.entries != Scale().entries else "")
    budget_kw = {k: v for k, v in vars(budget).items() if v is not None}  # one of the two
    try:
        run_sweep(name, scale, out=out, console=console, workers=workers, budget=budget_kw,
                  command=command, scheduler=scheduler, cache_dir=cache_dir, fresh=fresh)
    except ConnectionError as err:
        raise ValueError(f"--scheduler: {err}") from None


@app.command("sweep")
@takes(scale=scale_options(), budget=FILTER_BUDGET_OPTIONS)
def sweep_command(
    scale: Any,
    budget: FilterBudget,
    caseset: Annotated[str | None, typer.Argument(
        help="The case set to run (see --list); it writes its section of --out.")] = None,
    list_sets: Annotated[bool, typer.Option("--list", help="Name the case sets.")] = False,
    out: OutFile = Path("docs/VALIDATION.md"),
    workers: Workers = CORES,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Run the cases on the Dask cluster of this scheduler "
        "(tcp://HOST:PORT) instead of local workers.")] = None,
    cache_dir: Annotated[Path | None, typer.Option(
        "--cache-dir", help="Where finished cases are kept, so that a rerun skips them "
        "(default: $XDG_CACHE_HOME/wacky/sweeps or ~/.cache/wacky/sweeps).")] = None,
    fresh: Annotated[bool, typer.Option(
        "--fresh", help="Run every case again, replacing what the cache holds.")] = False,
) -> None:
    """Validate a case set in bulk and write its section of docs/VALIDATION.md."""
    from rich.console import Console

    from validation.sweep import SWEEPS

    if list_sets or caseset is None:
        for s in SWEEPS.values():
            print(f"{s.name:10} ~{s.minutes:g} min   {s.about} (also: {s.command})")
        return
    if caseset not in SWEEPS:
        raise ValueError(f"case set must be one of {', '.join(SWEEPS)}; got {caseset!r}")
    _run_sweep(caseset, scale, budget, out, workers, Console(stderr=True), scheduler,
               cache_dir, fresh)


@app.command("replay")
def replay_command(
    path: Annotated[Path, typer.Argument(help="A trace file (lz4, binary or text).")],
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Also print every phase of the trace (validation traces have "
        "hundreds), with its operations and I/O per operation.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Replay a saved trace through a fresh engine built with the trace's design: the design,
    the operations and I/O by kind, and whether every answer was right."""
    from validation.replay import replay_summary
    from validation.runner import replay_file
    from wacky_cli.render import print_replay, stdout_console

    result = replay_file(path)
    result["summary"] = replay_summary(result["phases"])
    if as_json:
        _print_json(result)
    else:
        print_replay(stdout_console(), result, str(path), verbose)
    _fail_on_wrong_answers(result["get_misses"], result["zero_hits"], result["wrong_values"])


@app.command("calibrate")
def calibrate_command(
    directory: Annotated[Path, typer.Option(
        "--dir", help="A directory on the device to measure (a scratch file is written there "
        "and deleted); it must take direct I/O, so not tmpfs.")] = Path("."),
    size_mib: Annotated[float, typer.Option(
        "--size-mib", help="The scratch file's size in MiB, at least 4: large against the "
        "device's cache.")] = 256.0,
    random_seconds: Annotated[float, typer.Option(
        "--random-seconds", help="How long to time random block reads, in (0, 600].")] = 2.0,
    cpu: Annotated[bool, typer.Option(
        "--cpu/--no-cpu", help="Also time the native engine's CPU per entry merged and per "
        "filter probe, and RocksDB's per put, per compaction byte and per flush byte (when the "
        "RocksDB bridge is built): the time model's (T1-T3).")] = True,
    out: OutFile = None,  # type: ignore[assignment]  # optional here: no file without it
    as_json: JsonFlag = False,
) -> None:
    """Measure this machine with direct I/O (sequential write and read bandwidth, random block
    reads at queue depth 1) and the native engine's CPU, and print or write the profile."""
    from validation.calibrate import calibrate
    from wacky_model.devices import UNITS, write_profile

    _check_writable(out, "--out")
    profile = calibrate(directory, size_mib, random_seconds=random_seconds, cpu=cpu,
                        report=lambda m: print(m, file=sys.stderr))
    if out is not None:
        write_profile(profile, out)
        print(f"wrote {out}", file=sys.stderr)
    if as_json:
        _print_json(profile.to_dict())
        return
    print(f"{profile.name} ({profile.method})")
    for name, unit in UNITS.items():
        value = getattr(profile, name)
        if value is not None:
            shown = f"{value:>14,}" if isinstance(value, int) else f"{value:>14,.1f}"
            print(f"  {name:<32} {shown}   {unit}")


@app.command("verify")
def verify_command(
    path: Annotated[Path, typer.Argument(help="An engine directory (not open).")],
    as_json: JsonFlag = False,
    clean_lost: Annotated[bool, typer.Option(
        "--clean-lost", help="After verifying, empty the directory's lost/ folder (the one "
        "write this command makes, refused when a problem was found).")] = False,
) -> None:
    """Check an engine directory without changing it: every block of every run against its
    checksum, the live logs replayed in memory, and what opening would move to lost/. For a
    run that cannot be read it lists the keys lost with it (level, key range, entries) and
    how to open the rest read-only (native_engine.Engine.open(PATH, salvage=True))."""
    from native_engine import CorruptionError, verify_directory

    if not path.is_dir():  # a usage error, named before the engine looks for a MANIFEST
        what = "not a directory" if path.exists() else "no such directory"
        raise ValueError(f"cannot verify {path}: {what}, so not an engine directory (nothing "
                         "was read or changed)")
    try:
        report = verify_directory(path)
    except (CorruptionError, FileNotFoundError) as err:
        # damage the check could not get past (or a missing MANIFEST): a finding, exit 1
        print(f"error: {_os_error_text(err)}", file=sys.stderr)
        raise typer.Exit(1) from None
    except OSError as err:  # e.g. in use by an open engine: no verdict, a usage error
        raise ValueError(f"cannot verify {path}: {_os_error_text(err)}") from None
    failed = bool(report["problems"]) or report["lost_writes"] or not report["ok"]
    cleaned = _clean_lost(path) if clean_lost and not failed else None
    if as_json:
        _print_json({"path": str(path), **report}
                    | ({"cleaned": cleaned} if clean_lost else {}))
    else:
        print("\n".join(_verify_lines(str(path), report, cleaned)))
        for warning in report["warnings"]:
            print(f"warning: {warning}", file=sys.stderr)
    if failed:
        print("\n".join(_verify_errors(str(path), report, clean_lost)), file=sys.stderr)
        raise typer.Exit(1)


def _os_error_text(err: OSError) -> str:
    """The engine's message (it names the file) without Python's "[Errno 5]" prefix."""
    text = err.strerror or str(err)
    return f"{err.filename}: {text}" if err.filename else text


def _clean_lost(path: Path) -> dict[str, int]:
    from native_engine import clean_lost

    try:
        return clean_lost(path)
    except OSError as err:
        raise ValueError(f"--clean-lost: cannot empty {path / 'lost'}: "
                         f"{_os_error_text(err)}") from None


def _verify_lines(path: str, report: dict[str, Any], cleaned: dict[str, int] | None) -> list[str]:
    """The human report of ``wacky verify`` on stdout: what was checked, and lost/."""
    lines = [
        f"{path}: {report['runs']} runs, {report['blocks']:,} blocks, {report['entries']:,} "
        "entries checked",
        f"live logs: {report['logs']}, {report['log_records']:,} records, "
        f"{report['log_entries']:,} entries replayed in memory"
        + (f", a torn tail of {report['log_tail_dropped_bytes']:,} bytes dropped"
           if report["log_tail_dropped_bytes"] else ""),
        f"lost/: {report['lost_files']} files, {report['lost_bytes']:,} bytes",
    ]
    if cleaned is not None:
        lines.append(f"lost/ emptied: {cleaned['files']} files, {cleaned['bytes']:,} bytes "
                     "removed")
    damaged = report.get("damaged_runs") or []
    if damaged:
        lines.append(f"lost keys: {len(damaged)} run{'s' if len(damaged) != 1 else ''} cannot "
                     "be read; each key in its range may have lost its newest version or its "
                     "deletion")
        for run in damaged:
            level = "level 0" if run["level"] == 0 else f"Level {run['level']}"
            lines.append(f"  {Path(run['file']).name}: {level}, keys [{run['min_key']}, "
                         f"{run['max_key']}], {run['entries']:,} entries "
                         f"({run['tombstones']:,} tombstones)")
        lines.append(f"the other runs can be read: native_engine.Engine.open({path!r}, "
                     "salvage=True) opens them read-only, changing nothing; a read of a lost "
                     "key raises CorruptionError instead of answering")
    if report["ok"] and not report["problems"]:
        lines.append("ok: every checksum matches and every acknowledged write is recoverable")
    return lines


def _verify_errors(path: str, report: dict[str, Any], clean_lost: bool) -> list[str]:
    """The ``error:`` lines of a failed verification: each problem (each names its file)."""
    lines = [f"error: {problem}" for problem in report["problems"]]
    if report["lost_writes"]:
        lines.append(f"error: {path}: acknowledged writes cannot be recovered")
    elif not lines:
        lines.append(f"error: {path}: verification failed")
    if clean_lost:
        lines.append("error: lost/ was not emptied: with a problem found, it may hold what a "
                     "recovery needs")
    return lines


@app.command("dashboard")
def dashboard_command(
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1.")] = 8050,
) -> None:
    """Serve the interactive tuner on http://127.0.0.1:PORT (local only)."""
    from dashboard.app import check_port, serve

    check_port(port)
    print(f"wacky dashboard on http://127.0.0.1:{port}/ (Ctrl+C to stop)")
    serve(port)


@app.command("advise")
def advise_command(
    db_dir: Annotated[Path | None, typer.Argument(
        help="The database's directory: its latest OPTIONS file and LOG are read, and it is "
        "opened read-only (never written) for its keys. Optional with --options and --log.")
    ] = None,
    options: Annotated[Path | None, typer.Option(
        "--options", help="The OPTIONS file (default: DB_DIR's newest OPTIONS-<n>).")] = None,
    log: Annotated[Path | None, typer.Option(
        "--log", help="The info LOG (default: DB_DIR/LOG).")] = None,
    stats: Annotated[Path | None, typer.Option(
        "--stats", help="A file with a STATISTICS dump (default: the LOG's last).")] = None,
    trace: Annotated[Path | None, typer.Option(
        "--query-trace", help="A RocksDB query trace (DB::StartTrace): the mix and the key "
        "distributions.")] = None,
    entries: Annotated[float | None, FLAGS["entries"].option()] = None,
    entry_bytes: Annotated[int | None, FLAGS["entry_bytes"].option()] = None,
    key_bytes: Annotated[int | None, FLAGS["key_bytes"].option()] = None,
    point_reads: Annotated[float | None, FLAGS["point_reads"].option()] = None,
    zero_reads: Annotated[float | None, FLAGS["zero_reads"].option()] = None,
    writes: Annotated[float | None, FLAGS["writes"].option()] = None,
    range_reads: Annotated[float | None, FLAGS["range_reads"].option()] = None,
    range_entries: Annotated[float | None, typer.Option(
        "--range-entries", parser=whole, help="Entries a range read returns (advise infers "
        "them from a trace's iterators).", rich_help_panel=WORKLOAD)] = None,
    write_keys: Annotated[str | None, FLAGS["write_keys"].option()] = None,
    read_keys: Annotated[str | None, FLAGS["read_keys"].option()] = None,
    update_fraction: Annotated[float | None, FLAGS["update_fraction"].option()] = None,
    allow_unknown_options: Annotated[bool, typer.Option(
        "--allow-unknown-options", help="Advise even when the OPTIONS file has options "
        "RocksDB 7.8.3 does not know (from a newer RocksDB).")] = False,
    out: OutFile = None,  # type: ignore[assignment]  # optional here: no file without it
    as_json: JsonFlag = False,
) -> None:
    """Tune a RocksDB that is already running, from its OPTIONS file, its LOG (compaction
    stats, statistics) and optionally a trace: what it inferred and from where, the model's
    costs of the current options against the LOG's measurements, and the options to change
    (docs/ADVISE.md). A system or workload flag given overrides what advise infers (the mix's
    four flags go together: those not given are 0). It never writes to the database."""
    from wacky_cli.advise_render import print_advice
    from wacky_cli.render import stdout_console
    from wacky_model.advise import Overrides, advise

    _check_writable(out, "--out")
    advice = advise(db_dir, options=options, log=log, stats=stats, trace=trace,
                    overrides=Overrides(
                        entries=entries, entry_bytes=entry_bytes, key_bytes=key_bytes,
                        point_reads=point_reads, zero_reads=zero_reads, writes=writes,
                        range_reads=range_reads, range_entries=range_entries,
                        write_keys=write_keys, read_keys=read_keys,
                        update_fraction=update_fraction),
                    allow_unknown_options=allow_unknown_options)
    if out is not None:
        _write(out, advice.options_file(), "--out")
    if as_json:
        _print_json(advice.to_dict() | {"out": None if out is None else str(out)})
    else:
        print_advice(stdout_console(), advice, out)


def main(argv: list[str] | None = None) -> int:
    """Run the app: a ValueError (like click's usage errors) is one line on stderr, exit 2."""
    from rocksdb_bridge import RocksDBUnavailable

    try:
        app(args=argv, prog_name="wacky", standalone_mode=True)
    except (ValueError, RocksDBUnavailable) as err:
        print(f"error: {in_flags(str(err)) if isinstance(err, ValueError) else err}",
              file=sys.stderr)
        return 2
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
