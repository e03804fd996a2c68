"""One validation, on any engine: predict a design's costs, build it, measure, compare.

:func:`validate` is the one runner core. It checks the request, prices the paper's model, hands
the run to the engine (the native engine here; RocksDB stock or driven in
:mod:`validation.rocksdb`), which measures one window (:mod:`validation.window`) with reads of
each kind spread over it and returns an :class:`EngineRun`, and assembles the one result type.
Every engine reports the same :class:`Costs` from several sources:

* ``predicted``: the model of the window measured: the finite-N model (whole levels), the
  partial-merge model (files), the skew model (skewed keys, updates, a block cache), or on
  stock RocksDB the model of its own compaction;
* ``paper``: Eq 8-16 with whole run counts; its Θ is what ``analyze`` reports;
* ``simulated``: :mod:`native_engine.simulator`, which replays the engine's merge policy
  (a check of the engine against its specification, not of the model; uniform inserts only);
* ``measured``: what the engine did, counted in blocks.

On the native engine, ``validate`` loads ``scale.entries`` unique entries and then measures the
window (or, ``phase="load"``, the load itself and a read phase after it), with the workload's
mix replayed after. Under skew, the worst-case read of a key at Level L is not measured
(``point_read`` is None: updates move keys out of Level L), ``point_read_uniform`` is an
existing-key read drawn from the workload's read distribution, cache hits included, and the
hit rates are compared in absolute terms.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

import wacky_traces as tr
from cost_models.skew import SkewedCosts
from native_engine import Engine
from validation import generators, window
from validation.native import NativeSession, SkewReads, SkewSession, UniformReads
from validation.predict import (
    predict_files,
    predict_finite,
    predict_paper,
    predict_simulated,
    predict_skew,
    range_entries_for,
    steady_references,
)
from validation.replay import replay
from validation.results import (
    Checks,
    Costs,
    EngineRun,
    ValidationResult,
    measured_levels,
    window_detail,
    with_theta,
)
from validation.scale import ENGINE_WAL, Scale
from validation.window import PacedReads
from wacky_model.config import Configuration
from wacky_model.skew import file_skew_costs, needs_skew_model, skew_costs, skewed_workload
from wacky_model.types import Compaction, Design, System, Workload

Progress = Callable[[float, str], None]

LOAD_SHARE = 0.75  # of the progress bar: the load dominates the run time
# Under skew: a warm-up of half a load, then a window of at least half a load and 1.2 predicted
# cycles of Level L, at most 8 loads; each stops after CAP_FACTOR times the window without a
# full-merge boundary. With file-granular merges (no cycle of Level L): a warm-up of half a
# load and a window of half a load, both fixed.
WARMUP_LOADS, WINDOW_LOADS, WINDOW_CYCLES, WINDOW_MAX_LOADS, CAP_FACTOR = 0.5, 0.5, 1.2, 8.0, 3

__all__ = ["Scale", "ValidationResult", "validate"]

PHASES = ("steady", "load")
ENGINES = ("native", "rocksdb")


def _per_op(totals: dict[str, Any], kind: str, attr: str) -> float:
    t = totals.get(kind)
    if t is None or t.count == 0:
        raise RuntimeError(f"the {kind} phase ran no operations")
    return getattr(t, attr) / t.count


def check_skew_workload(workload: Workload | None) -> Workload:
    if workload is None or workload.writes <= 0 or workload.point_reads <= 0:
        raise ValueError("validating skew or a cache needs a workload with writes > 0 and "
                         "point_reads > 0: the window runs writes with existing-key reads "
                         "between them")
    return workload


@contextmanager
def open_engine(design: Design, workdir: str | Path | None, **options: Any) -> Iterator[Any]:
    """A fresh native engine for ``design`` in a temporary directory, closed after use."""
    with tempfile.TemporaryDirectory(prefix="wacky-validate-", dir=workdir) as tmp:
        engine = Engine(Path(tmp) / "db", **design.knobs, filters=design.filters, wal=ENGINE_WAL,
                        **options)
        try:
            yield engine
        finally:
            engine.close()


def _engine_compaction(compaction: Compaction) -> dict[str, Any]:
    out: dict[str, Any] = dict(granularity=compaction.granularity,
                               level1_runs=compaction.level1_runs)
    # Engine refuses file_pick and file_bytes with whole-level merges (they would do nothing):
    # pass them when files are merged or when chosen, so a chosen one is refused, not ignored
    if compaction.granularity == "file" or compaction.file_pick != Compaction().file_pick:
        out["file_pick"] = compaction.file_pick
    if compaction.file_bytes is not None:
        out["file_bytes"] = compaction.file_bytes
    return out


def cannot_build(engine: str, stock: bool, compaction: Compaction, hash_levels: int = 0
                 ) -> str | None:
    """Why ``engine`` (with ``stock``) cannot build a configuration with this compaction and
    these hash levels, in one line that names the knob; None when it can. (A design stock
    RocksDB cannot express is refused by its export, knob by knob.)"""
    c, rocks = compaction, "use engine='rocksdb', stock=True (--engine rocksdb --stock)"
    if engine == "native" and c.style != "wacky":
        return (f"style={c.style!r}: RocksDB's universal compaction, not the native engine's; "
                f"{rocks}")
    if engine == "native" and c.sizing != "wacky":
        return (f"sizing={c.sizing!r}: RocksDB's level sizing (max_bytes_for_level_base), not "
                f"the native engine's; {rocks}")
    if engine == "rocksdb" and hash_levels:
        return f"hash_levels={hash_levels}: RocksDB builds Bloom filters, not hash tables"
    if engine == "rocksdb" and not stock and not c.is_default:
        return ("level0_trigger, file_bytes, file_pick, style and sizing apply to stock RocksDB "
                "(stock=True, --stock) only: the compaction driver runs the paper's policy")
    return None


def validate(
    design: Design | Configuration,
    *,
    workload: Workload | None = None,
    scale: Scale | None = None,
    bits_per_entry: float | None = None,
    sum_fpr: float | None = None,
    engine: str = "native",
    stock: bool = False,
    compaction: Compaction | None = None,
    cache_bytes: int = 0,
    phase: str = "steady",
    progress: Progress | None = None,
    save_trace: str | Path | None = None,
    workdir: str | Path | None = None,
) -> ValidationResult:
    """Predict, build, measure and compare ``design`` at ``scale`` (default: 2M entries) on
    ``engine`` ("native", or "rocksdb": the Wacky compaction driver, or with ``stock`` the
    exported options under RocksDB's own compaction, :mod:`validation.rocksdb`).

    Give the filter memory as ``bits_per_entry`` (default 5) or ``sum_fpr``. ``phase`` is
    "steady" (default: amortized costs over a window of inserts into the preloaded tree,
    :mod:`validation.window`) or "load" (averages over the load into an empty tree, native
    only). ``compaction`` on the native engine (file granularity, a level-1 trigger): the window
    is N inserts after the preload (no Level L cycle to align with), and the prediction is the
    partial-merge model's (``model`` "partial"); whole-level merges with a trigger above 1 are
    predicted by the finite model, which does not price the trigger. On stock RocksDB its
    ``level1_runs``, ``file_bytes`` and ``file_pick`` are the level-0 trigger, the target file
    size and the pick. A workload with skewed keys or updates, or a block cache of
    ``cache_bytes``, is validated against the skew model (``model`` "skew"): on the native
    engine over whole cycles of Level L with whole-level merges, and with file-granular merges
    (S2f) over a fixed window after a fixed warm-up, priced at the window's middle; on stock
    RocksDB over the same fixed window, with S2f or U5 for its compaction.

    ``design`` may be a :class:`wacky_model.config.Configuration` (what ``recommend`` returns):
    its design, compaction and filter bits per entry are validated; its buffer is the scale's.
    An engine that cannot build it says why, naming the knob (:func:`cannot_build`).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    hash_levels = 0
    if isinstance(design, Configuration):
        config, design = design, design.design
        compaction = compaction or config.compaction
        if config.memory is not None:
            hash_levels = config.memory.hash_levels
            if bits_per_entry is None and sum_fpr is None:
                bits_per_entry = config.memory.filter_bits_per_entry
    why = cannot_build(engine, stock, compaction or Compaction(), hash_levels)
    if why:
        raise ValueError(f"the {engine} engine cannot build this configuration: {why}")
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(PHASES)}; got {phase!r}")
    compaction = compaction or Compaction()
    scale = scale or Scale()
    if bits_per_entry is None and sum_fpr is None:
        bits_per_entry = 5.0
    system = scale.system(bits_per_entry, sum_fpr)  # validates the budget
    if cache_bytes:
        system = replace(system, cache_bytes=cache_bytes)
    report = progress or (lambda fraction, message: None)
    start = time.perf_counter()
    range_entries = range_entries_for(scale, workload, system.entries_per_block)
    if engine == "rocksdb":
        if save_trace is not None or phase != "steady":
            raise ValueError("RocksDB is validated in the steady phase and saves no trace")
        if needs_skew_model(workload, system):
            if not stock:
                raise ValueError("skewed keys, updates and a cache are validated on stock "
                                 "RocksDB only (stock=True): the compaction driver runs "
                                 "uniform inserts")
            check_skew_workload(workload)
        from validation.rocksdb import run_rocksdb

        run = run_rocksdb(design, system, scale, workload, range_entries, stock=stock,
                          compaction=compaction, report=report, workdir=workdir)
    else:
        if stock:
            raise ValueError("stock applies to the rocksdb engine only")
        run = _native(design, system, scale, workload, range_entries, phase=phase,
                      compaction=compaction, save_trace=save_trace, report=report,
                      workdir=workdir)
    report(1.0, "done")
    ran = run.design or design
    return ValidationResult(
        design=ran, scale=scale, budget=dict(system.budget), workload=workload,
        predicted=run.predicted, paper=predict_paper(ran, system, workload),
        simulated=run.simulated, measured=run.measured, checks=run.checks,
        seconds=time.perf_counter() - start, engine=engine, model=run.model, phase=run.phase,
        wal=ENGINE_WAL, window_writes=run.window_writes, conditioned=run.conditioned,
        engine_detail=run.detail)


def _native(design: Design, system: System, scale: Scale, workload: Workload | None,
            range_entries: int, *, phase: str, compaction: Compaction,
            save_trace: str | Path | None, report: Progress,
            workdir: str | Path | None) -> EngineRun:
    """The native engine: the load, then the window of uniform or skewed keys."""
    if not compaction.is_default and phase != "steady":
        raise ValueError("granularity, file_bytes and level1_runs are validated in the steady "
                         "phase only")
    skew = needs_skew_model(workload, system)
    files = compaction.granularity == "file"
    if skew and ((not compaction.is_default and not files) or phase != "steady"):
        raise ValueError("skewed keys, updates and a cache are validated in the steady phase, "
                         "with whole-level merges or --granularity file (the skew model prices "
                         "a level-1 trigger with files only): leave out --phase load, or give "
                         "--level1-runs with --granularity file")
    if skew:
        check_skew_workload(workload)
        if save_trace is not None:
            raise ValueError("save_trace is not written under skewed keys or a cache yet: the "
                             "skewed window drives the engine directly")
    with open_engine(design, workdir, entry_bytes=scale.entry_bytes,
                     block_bytes=scale.block_bytes, buffer_bytes=scale.buffer_bytes,
                     cache_bytes=system.cache_bytes, **system.budget,
                     **_engine_compaction(compaction)) as engine:
        load = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes,
                                     seed=scale.seed)
        report(0.0, "loading")
        loaded = replay(engine, load, progress=lambda done, total: report(
            LOAD_SHARE * done / total, "loading"))
        report(LOAD_SHARE, "steady-state window" if phase == "steady" else "reading")
        measure = _skewed if skew else _uniform
        return measure(engine, design, system, scale, workload, range_entries, load, loaded,
                       phase=phase, compaction=compaction, save_trace=save_trace,
                       report=report)


def _uniform(engine: Any, design: Design, system: System, scale: Scale,
             workload: Workload | None, range_entries: int, load: tr.Trace, loaded: Any, *,
             phase: str, compaction: Compaction, save_trace: str | Path | None,
             report: Progress) -> dict[str, Any]:
    """Uniform keys: the whole-level window (or N inserts with ``compaction``), or the load
    phase, then the read phase (and the workload's mix) replayed from one trace."""
    B = system.entries_per_block
    files = compaction.granularity == "file"
    if files:
        predicted = predict_files(design, system, compaction, workload, range_entries,
                                  scale.entries)
    else:
        predicted = predict_finite(design, system, workload, range_entries,
                                   steady_window=phase == "steady")
    levels, memory = measured_levels(engine)
    keys = load.keys
    level_L_keys = keys[: int(levels[-1].entries)]  # Level L holds the oldest entries
    run = session = reads = None
    if phase == "steady":
        F = int(engine.buffer_entries)
        rule = (window.whole_levels(scale.entries, F) if compaction.is_default
                else window.fixed(max(F, -(-scale.entries // F) * F), settle_reads=True))
        seed = scale.seed * 1_000_003 + 17
        rng = np.random.default_rng([seed, 0x5354454144])  # stream tag: "STEAD"
        session = NativeSession(engine, generators.fresh_keys(rng, 2 * rule.cap + F,
                                                              np.sort(keys)), scale.entry_bytes)
        reads = UniformReads(session, keys, level_L_keys, scale.reads, range_entries, seed, rng)
        run = window.measure(session, rule,
                             PacedReads(reads.batch, reads.reset, scale.reads, session.F))
        levels, memory = measured_levels(engine)
        keys = np.concatenate([keys, session.fresh[: session.used]])
    parts = _read_parts(keys, level_L_keys, scale, workload, range_entries,
                        mix_only=phase == "steady")
    full = tr.build_trace(
        [("load", load.kinds, load.keys, load.args), *(session.parts if session else []),
         *parts],
        entry_bytes=scale.entry_bytes,
        meta={"design": design.knobs, "filters": design.filters, "scale": asdict(scale),
              "budget": system.budget, "phase": phase},
    )
    read_phases = [p[0] for p in parts]
    later = replay(
        engine, full, phases=read_phases,
        progress=lambda done, total: report(
            LOAD_SHARE + (1 - LOAD_SHARE) * done / total, "reading"),
    ) if read_phases else None
    if save_trace is not None:
        tr.write_trace(save_trace, full)

    phases = {**loaded.phases, **(later.phases if later else {})}
    conditioned = None
    if run is None:
        measured = Costs(
            write_amp=phases["load"]["put"].blocks_written * B / scale.entries,
            zero_result_read=_per_op(phases["zero"], "zero", "blocks_read"),
            point_read=_per_op(phases["level_L_reads"], "get", "blocks_read"),
            point_read_uniform=_per_op(phases["uniform_reads"], "get", "blocks_read"),
            range_runs=_per_op(phases["range"], "range", "runs_probed"),
            range_io=_per_op(phases["range"], "range", "blocks_read"),
            memory_bits_per_entry=memory,
            levels=levels,
        )
        simulated = predict_simulated(design, system, workload, range_entries)
    else:
        blocks = run.end["total"]["blocks_written"] - run.begin["total"]["blocks_written"]
        measured = Costs(
            write_amp=blocks * B / run.writes,
            zero_result_read=reads.per_read("zero", 0),
            point_read=reads.per_read("level_L_reads", 0),
            point_read_uniform=reads.per_read("uniform_reads", 0),
            range_runs=reads.per_read("range", 1),
            range_io=reads.per_read("range", 0),
            memory_bits_per_entry=memory,
            levels=levels,
        )
        simulated, conditioned = steady_references(
            design, system, workload, range_entries, scale.entries + session.used,
            levels[-1].max_runs, run.level_L_runs_at_start)
    counts = [a + b + c for a, b, c in zip(
        (loaded.get_misses, loaded.zero_hits, loaded.wrong_values),
        [0, 0, 0] if later is None else (later.get_misses, later.zero_hits, later.wrong_values),
        [0, 0, 0] if session is None else session.checks, strict=True)]
    detail = window_detail(run)
    if "mix" in phases:
        mix = phases["mix"]
        ops = sum(t.count for t in mix.values())
        io = sum(t.blocks_read + t.blocks_written for t in mix.values())
        if ops:
            detail["mix_io_per_op"] = io / ops
    if not compaction.is_default:
        detail["compaction"] = asdict(compaction)
    return EngineRun(
        measured=with_theta(measured, workload, B), checks=Checks(*counts), predicted=predicted,
        simulated=simulated, model="partial" if files else "finite", phase=phase,
        window_writes=None if run is None else run.writes, conditioned=conditioned,
        detail=detail)


def _skew_rule(design: Design, system: System, compaction: Compaction, workload: Workload,
               n: int) -> window.WindowRule:
    """Whole levels: full-merge boundaries around at least 1.2 predicted cycles of Level L.
    Files: half a load of warm-up, then half a load, the window ``file_skew_costs`` prices at
    its middle (there is no cycle of Level L to align with)."""
    if compaction.granularity == "file":
        return window.half_loads(n)
    window_writes = int(min(WINDOW_MAX_LOADS * n, max(
        WINDOW_LOADS * n, WINDOW_CYCLES * skew_costs(design, system, workload).cycle_writes)))
    return window.full_merges(int(WARMUP_LOADS * n), window_writes, CAP_FACTOR)


def _skew_model(design: Design, system: System, compaction: Compaction, workload: Workload,
                history: float) -> SkewedCosts:
    """The skew model of the design as the engine merges it (S2 whole levels, S2f files), with
    ``history`` writes since the load."""
    if compaction.granularity == "file":
        return file_skew_costs(design, system, compaction, workload, history_writes=history)
    return skew_costs(design, system, workload, history_writes=history)


def _skewed(engine: Any, design: Design, system: System, scale: Scale, workload: Workload,
            range_entries: int, load: tr.Trace, loaded: Any, *, compaction: Compaction,
            **_: Any) -> EngineRun:
    """Skewed keys, updates, a block cache: the workload's writes with its existing-key reads
    between them (whole levels: over whole cycles of Level L, the full-merge window; files: a
    fixed window after a fixed warm-up), zero-result and range reads spread over it; the skew
    model predicts (S2 or S2f). Zero-result and range reads, which skew does not change, are the
    finite model's with whole levels; with files the partial-merge model's range reads and S2f's
    zero-result reads (its tree holds the updates absorbed). No simulator: it replays uniform
    inserts only."""
    B, n = system.entries_per_block, scale.entries
    files = compaction.granularity == "file"
    rule = _skew_rule(design, system, compaction, workload, n)
    warmup_cap = rule.cap if rule.warmup_cap is None else rule.warmup_cap
    _, zero_keys, _ = generators.read_ops(
        load.keys, n=scale.reads, get_pool=load.keys, fractions={"zero": 1.0},
        range_entries=range_entries, seed=scale.seed * 1_000_003 + 31)
    _, range_lo, range_hi = generators.read_ops(
        load.keys, n=scale.reads, get_pool=load.keys, fractions={"range": 1.0},
        range_entries=range_entries, seed=scale.seed * 1_000_003 + 37)
    chunk = max(1, int(engine.buffer_entries) // 8)
    session = SkewSession(engine, load.keys, skewed_workload(workload),
                          np.random.default_rng([scale.seed * 1_000_003 + 29, 0x534B4557]),
                          warmup_cap + rule.cap + 2 * chunk)  # stream tag: "SKEW"
    window_writes = rule.min_writes or rule.cap
    reads = SkewReads(session, window_writes, zero_keys, np.stack([range_lo, range_hi], axis=1))
    run = window.measure(session, rule, reads)
    levels, memory = measured_levels(engine)
    begin, end = run.begin, run.end

    def written(s: dict) -> int:
        return int(s["flush"]["blocks_written"] + s["merge_total"]["blocks_written"])

    # Blocks written by merges into each level over the window, Level 1 with the flushes.
    per_level = [int(m["blocks_written"]) for m in end["merge"]]
    for i, m in enumerate(begin["merge"]):
        per_level[i] -= int(m["blocks_written"])
    if per_level:
        per_level[0] += int(end["flush"]["blocks_written"] - begin["flush"]["blocks_written"])
    model = _skew_model(design, system, compaction, workload,
                        run.warmup_writes + run.writes / 2.0)  # writes since the load
    if files:
        inserts = max(1.0, (1.0 - workload.update_fraction) * (run.warmup_writes + run.writes))
        base = replace(predict_files(design, system, compaction, workload, range_entries,
                                     round(inserts)), zero_result_read=model.zero_result_read)
    else:
        base = predict_finite(design, system, workload, range_entries, steady_window=False)
    zero, ranged = reads.side["zero"], reads.side["range"]
    measured, predicted, detail = predict_skew(model, base, Costs(
        write_amp=(written(end) - written(begin)) * B / run.writes,
        zero_result_read=zero[1] / max(zero[0], 1),
        # The worst case needs keys known to sit at Level L, which updates move: not measured.
        point_read=None,  # type: ignore[arg-type]
        point_read_uniform=reads.blocks / reads.reads,
        range_runs=ranged[2] / max(ranged[0], 1),
        range_io=ranged[1] / max(ranged[0], 1),
        memory_bits_per_entry=memory,
        levels=levels,
        cache_hit_rate=reads.hit_rate,
        cache_hit_rate_per_level=reads.hit_rate_per_level,
    ), workload, system, run, reads.reads, level0_staged=files and compaction.level1_runs > 1,
        level0_measured=reads.level0_hit_rate)
    detail.update(
        invalidated_blocks=int(end["cache_invalidated_blocks"]
                               - begin["cache_invalidated_blocks"]),
        timeline=[{"writes": w, "hit_rate": h} for w, h in reads.timeline],
        measured_level_write_amp=[b * B / run.writes for b in per_level])
    facts = window_detail(run, "window_complete")
    if files:
        facts["compaction"] = asdict(compaction)
    return EngineRun(
        measured=measured, predicted=predicted, simulated=None,
        checks=Checks(get_misses=loaded.get_misses + reads.not_found,
                      zero_hits=loaded.zero_hits + reads.zero_hits,
                      wrong_values=loaded.wrong_values + reads.wrong_values),
        model="skew", window_writes=run.writes,
        detail={**facts,
                "major_compactions": int(end["major_compactions"] - begin["major_compactions"]),
                "skew": detail})


def _read_parts(
    keys: np.ndarray,
    level_L_keys: np.ndarray,
    scale: Scale,
    workload: Workload | None,
    range_entries: int,
    *,
    mix_only: bool = False,
) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """The read phase, one sub-phase per kind so each is measured alone, then the mix.
    ``mix_only``: just the mix (the steady window measured the reads already)."""
    specs = [] if mix_only else [
        ("zero", {"zero": 1.0}, keys),
        ("level_L_reads", {"get": 1.0}, level_L_keys),
        ("uniform_reads", {"get": 1.0}, keys),
        ("range", {"range": 1.0}, keys),
    ]
    if workload is not None and scale.mix_ops > 0:
        fractions = {
            "get": workload.point_reads,
            "zero": workload.zero_reads,
            "put": workload.writes,
            "range": workload.range_reads,
        }
        specs.append(("mix", fractions, keys))
    parts = []
    for k, (name, fractions, pool) in enumerate(specs):
        n = scale.mix_ops if name == "mix" else scale.reads
        kinds, op_keys, args = generators.read_ops(
            keys, n=n, get_pool=pool, fractions=fractions, range_entries=range_entries,
            seed=scale.seed * 1_000_003 + k + 1,
        )
        parts.append((name, kinds, op_keys, args))
    return parts


def replay_file(path: str | Path, workdir: str | Path | None = None) -> dict[str, Any]:
    """Replay a saved trace into a fresh engine built as the trace's metadata describes.

    Traces saved by :func:`validate` carry the design, scale and budget; other traces replay
    into the default design (T=10, C=9, leveled, 5 bits per entry) with the trace's entry size.
    """
    try:
        trace = tr.read_trace(path)
    except OSError as err:
        raise ValueError(f"trace: cannot read {path}: {err.strerror}") from None
    meta = trace.meta or {}
    knobs = meta.get("design", {"T": 10.0, "C": 9.0, "X": 1.0, "K": 0.0, "Z": 0.0})
    design = Design(**knobs, filters=meta.get("filters", "optimized"))
    scale = meta.get("scale", {})
    budget = meta.get("budget", {"bits_per_entry": 5.0})
    with open_engine(design, workdir, entry_bytes=trace.entry_bytes,
                     block_bytes=int(scale.get("block_bytes", 4096)),
                     buffer_bytes=int(scale.get("buffer_bytes", 1 << 20)), **budget) as engine:
        result = replay(engine, trace)
    out = result.to_dict()
    out["design"] = {**design.knobs, "filters": design.filters}
    # What the engine was built with, and whether the design came from the trace.
    out["engine"] = {"entry_bytes": trace.entry_bytes,
                     "block_bytes": int(scale.get("block_bytes", 4096)),
                     "buffer_bytes": int(scale.get("buffer_bytes", 1 << 20)), **budget,
                     "design_from_trace": "design" in meta}
    return out
