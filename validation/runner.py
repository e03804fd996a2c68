"""One validation: predict a design's costs, build it in the engine, measure, compare.

``validate`` loads ``scale.entries`` unique entries into a fresh engine, then runs a read phase
(zero-result reads, reads of entries at Level L, reads of entries drawn uniformly, range reads)
and, given a workload, that workload's mix. It reports the same :class:`Costs` three times:

* ``predicted``: the paper's model (Eq 8-16, realizable run counts) at exactly this scale; its
  Theta is what ``analyze(design, system, workload, realizable=True)`` reports;
* ``simulated``: :mod:`validation.engine_simulator`, which replays the engine's merge policy
  (a check of the engine against its specification, not of the model);
* ``measured``: what the engine did, counted in blocks.

and the relative error (predicted - measured) / measured of each.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

import wacky_traces as tr
from cost_models.costs import range_cost
from cost_models.finite import finite_costs
from native_engine import Engine
from validation import generators
from validation.engine_simulator import grow, grown_costs, steady_window
from validation.replay import replay
from validation.results import (
    Checks,
    Costs,
    LevelShape,
    ValidationResult,
    measured_levels,
    with_theta,
)
from validation.scale import ENGINE_WAL, Scale
from validation.skew_runner import check_skew_workload
from validation.steady import WINDOW_CAP_LOADS, measure_window
from wacky_model.analysis import analyze
from wacky_model.files import LeveledCosts, native_file_costs
from wacky_model.skew import needs_skew_model
from wacky_model.types import Compaction, Design, System, Workload

Progress = Callable[[float, str], None]

LOAD_SHARE = 0.75  # of the progress bar: the load dominates the run time

__all__ = ["Scale", "ValidationResult", "predict_finite", "predict_paper", "predict_simulated",
           "validate"]

PHASES = ("steady", "load")


def range_entries_for(scale: Scale, workload: Workload | None, entries_per_block: int) -> int:
    """Entries per range read: the workload's range length if it has one, else a short range."""
    if workload is not None and workload.range_blocks > 0:
        return max(1, round(workload.range_blocks * entries_per_block))
    return scale.range_entries


def predict_paper(design: Design, system: System, workload: Workload | None) -> Costs:
    """The paper's model (realizable run counts) at exactly this scale, read off ``analyze``."""
    a = analyze(design, system, workload, realizable=True)
    costs = Costs(
        write_amp=a.write_amp,
        zero_result_read=a.zero_result_read,
        point_read=a.point_read,
        point_read_uniform=a.point_read_uniform,
        range_runs=a.range_runs,
        # Without a workload, the paper's short range: one block per run.
        range_io=a.range_runs if a.range_cost is None else a.range_cost,
        memory_bits_per_entry=a.memory_bits_per_entry,
        levels=tuple(
            LevelShape(level=row.level, runs=int(row.runs), entries=row.capacity_entries)
            for row in a.levels
        ),
    )
    return with_theta(costs, workload, system.entries_per_block, system.write_cost_ratio)


def predict_finite(
    design: Design, system: System, workload: Workload | None, range_entries: int,
    *, steady_window: bool = True, level_L_runs: int | None = None,
) -> Costs:
    """The finite-N model (:mod:`cost_models.finite`) at exactly this scale.

    ``steady_window``: write amplification of the window :mod:`validation.steady` measures,
    which leaves out Level L's rare full merges (the model's ``window_write_amp``); otherwise the
    amortized figure with them. ``level_L_runs``: Level L's runs when the window starts, if
    known (else the model averages over it).
    """
    m = finite_costs(
        design.T, design.C, design.X, design.K, design.Z,
        entries=system.entries, buffer_entries=system.buffer_entries,
        uniform=design.filters == "uniform", level_L_runs=level_L_runs, **system.budget,
    )
    runs = m.level_runs[: int(m.levels)]
    entries = m.level_entries[: int(m.levels)]
    costs = Costs(
        write_amp=float(m.window_write_amp if steady_window else m.write_amp),
        zero_result_read=float(m.zero_result_read),
        point_read=float(m.point_read),
        point_read_uniform=float(m.point_read_uniform),
        range_runs=float(m.range_runs),
        range_io=float(range_cost(m.range_runs, 1.0, range_entries / system.entries_per_block)),
        memory_bits_per_entry=float(m.memory_bits_per_entry),
        levels=tuple(
            LevelShape(level=i + 1, runs=int(round(float(r))), entries=float(e))
            for i, (r, e) in enumerate(zip(runs, entries, strict=True))
        ),
    )
    return with_theta(costs, workload, system.entries_per_block, system.write_cost_ratio)


def leveled_to_costs(m: LeveledCosts, workload: Workload | None, range_entries: int,
                     entries_per_block: int) -> Costs:
    """A file-granular or RocksDB model's costs (:class:`wacky_model.files.LeveledCosts`) as
    :class:`Costs`: each non-empty level one sorted run."""
    sizes = m.window.level_entries if m.window is not None else ()
    levels = tuple(LevelShape(level=i + 1, runs=1, entries=float(e))
                   for i, e in enumerate(e for e in sizes if e > 0))
    return with_theta(Costs(
        write_amp=m.write_amp,
        zero_result_read=m.zero_result_read,
        point_read=m.point_read,
        point_read_uniform=m.point_read_uniform,
        range_runs=m.range_runs,
        range_io=float(range_cost(m.range_runs, 1.0, range_entries / entries_per_block)),
        memory_bits_per_entry=m.memory_bits_per_entry,
        levels=levels,
    ), workload, entries_per_block)


def predict_files(design: Design, system: System, compaction: Compaction,
                  workload: Workload | None, range_entries: int, window: int) -> Costs:
    """The partial-merge model (:mod:`wacky_model.files`) of the engine with file-granular
    merges: ``window`` inserts after the preload of ``system.entries``, from an empty tree."""
    m = native_file_costs(design, system, compaction, system.entries, float(window))
    return leveled_to_costs(m, workload, range_entries, system.entries_per_block)


def predict_simulated(
    design: Design, system: System, workload: Workload | None, range_entries: int
) -> Costs:
    """:mod:`validation.engine_simulator`: the tree the engine's policy grows from N inserts."""
    tree = grow(
        design.T, design.C, design.X, design.K, design.Z,
        entries=int(system.entries),
        buffer_entries=int(system.buffer_entries),
        entries_per_block=system.entries_per_block,
        uniform=design.filters == "uniform",
        **system.budget,
    )
    c = grown_costs(tree, range_entries)
    costs = Costs(
        write_amp=c.write_amp,
        zero_result_read=c.zero_result_read,
        point_read=c.point_read,
        point_read_uniform=c.point_read_uniform,
        range_runs=c.range_runs,
        # The simulated tree holds every entry, so the range's blocks are all of its result.
        range_io=float(range_cost(c.range_runs, 1.0, range_entries / system.entries_per_block)),
        memory_bits_per_entry=c.memory_bits_per_entry,
        levels=tuple(
            LevelShape(level=i + 1, runs=len(lvl.run_entries), entries=lvl.entries)
            for i, lvl in enumerate(tree.levels)
        ),
    )
    return with_theta(costs, workload, system.entries_per_block, system.write_cost_ratio)


def steady_references(
    design: Design, system: System, workload: Workload | None, range_entries: int,
    final_entries: int, level_L_max_runs: int | None, level_L_runs_at_start: int,
) -> tuple[Costs, Costs | None]:
    """The simulator's costs for a steady window, and the finite model told Level L's runs at
    the window's start (None when a_L = 1): (simulated, conditioned).

    The model is asked at N, the preload: Eq 14-16 price a tree of N entries (the warm-up and
    the window add up to one fill cycle each). The simulator grows the tree the engine ended
    with (``final_entries``, every key inserted), so its levels can be compared exactly, and its
    write amplification is that of the same window, replayed (``steady_window``)."""
    B = system.entries_per_block
    final = replace(system, entries=float(final_entries))
    simulated = predict_simulated(design, final, workload, range_entries)
    sim_window = steady_window(
        *design.knobs.values(), entries=int(system.entries),
        buffer_entries=system.buffer_entries, entries_per_block=B,
        uniform=design.filters == "uniform", cap_loads=WINDOW_CAP_LOADS, **system.budget)
    simulated = with_theta(replace(simulated, write_amp=sim_window.write_amp), workload, B)
    conditioned = None
    if level_L_max_runs and level_L_max_runs > 1:
        conditioned = predict_finite(design, system, workload, range_entries,
                                     level_L_runs=level_L_runs_at_start)
    return simulated, conditioned


def _per_op(totals: dict[str, Any], kind: str, attr: str) -> float:
    t = totals.get(kind)
    if t is None or t.count == 0:
        raise RuntimeError(f"the {kind} phase ran no operations")
    return getattr(t, attr) / t.count


def validate(
    design: Design,
    *,
    workload: Workload | None = None,
    scale: Scale | None = None,
    bits_per_entry: float | None = None,
    sum_fpr: float | None = None,
    progress: Progress | None = None,
    save_trace: str | Path | None = None,
    workdir: str | Path | None = None,
    phase: str = "steady",
    compaction: Compaction | None = None,
    cache_bytes: int = 0,
) -> ValidationResult:
    """Predict, build, measure and compare ``design`` at ``scale`` (default: 2M entries).

    Give the filter memory as ``bits_per_entry`` (default 5) or ``sum_fpr``. ``phase`` is
    "steady" (default: amortized costs over a window of inserts into the preloaded tree,
    :mod:`validation.steady`) or "load" (averages over the load into an empty tree).
    ``compaction`` (file granularity, a level-1 trigger): the engine runs it, the window is N
    inserts after the preload (no Level L cycle to align with), and the prediction is the
    partial-merge model's (``model`` "partial"); whole-level merges with a trigger above 1 are
    predicted by the finite model, which does not price the trigger (``model`` "finite").
    A workload with skewed keys or updates, or a block cache of ``cache_bytes``, is validated
    by :mod:`validation.skew_runner` against the skew model (``model`` "skew").
    """
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(PHASES)}; got {phase!r}")
    compaction = compaction or Compaction()
    files = compaction.granularity == "file"
    if not compaction.is_default and phase != "steady":
        raise ValueError("granularity, file_bytes and level1_runs are validated in the steady "
                         "phase only")
    scale = scale or Scale()
    if bits_per_entry is None and sum_fpr is None:
        bits_per_entry = 5.0
    system = scale.system(bits_per_entry, sum_fpr)  # validates the budget
    if cache_bytes:
        system = replace(system, cache_bytes=cache_bytes)
    skew = needs_skew_model(workload, system)
    if skew and (files or not compaction.is_default or phase != "steady"):
        raise ValueError("skewed keys, updates and a cache are validated with whole-level "
                         "merges in the steady phase: leave out --granularity file, "
                         "--level1-runs and --phase load")
    if skew:
        check_skew_workload(workload)
        if save_trace is not None:
            raise ValueError("save_trace is not written under skewed keys or a cache yet: the "
                             "skewed window drives the engine directly")
    report = progress or (lambda fraction, message: None)
    start = time.perf_counter()
    B = system.entries_per_block
    range_entries = range_entries_for(scale, workload, B)
    paper = predict_paper(design, system, workload)
    if skew:
        from validation.skew_runner import validate_skew

        finite = predict_finite(design, system, workload, range_entries, steady_window=False)
        return validate_skew(design, workload=workload, scale=scale, system=system,
                             range_entries=range_entries, paper=paper, finite=finite,
                             progress=report, workdir=workdir)
    if files:
        predicted = predict_files(design, system, compaction, workload, range_entries,
                                  scale.entries)
    else:
        predicted = predict_finite(design, system, workload, range_entries,
                                   steady_window=phase == "steady")
    engine_compaction = dict(granularity=compaction.granularity,
                             level1_runs=compaction.level1_runs)
    # Engine refuses file_pick and file_bytes with whole-level merges (they would do nothing):
    # pass them when files are merged or when chosen, so a chosen one is refused, not ignored
    if files or compaction.file_pick != Compaction().file_pick:
        engine_compaction["file_pick"] = compaction.file_pick
    if compaction.file_bytes is not None:
        engine_compaction["file_bytes"] = compaction.file_bytes

    with tempfile.TemporaryDirectory(prefix="wacky-validate-", dir=workdir) as tmp:
        engine = Engine(
            Path(tmp) / "db",
            **design.knobs,
            filters=design.filters,
            entry_bytes=scale.entry_bytes,
            block_bytes=scale.block_bytes,
            buffer_bytes=scale.buffer_bytes,
            wal=ENGINE_WAL,
            **system.budget,
            **engine_compaction,
        )
        try:
            load = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes,
                                         seed=scale.seed)
            report(0.0, "loading")
            loaded = replay(
                engine, load,
                progress=lambda done, total: report(LOAD_SHARE * done / total, "loading"),
            )
            levels, memory = measured_levels(engine)
            keys = load.keys
            level_L_keys = keys[: int(levels[-1].entries)]  # Level L holds the oldest entries
            window = None
            if phase == "steady":
                report(LOAD_SHARE, "steady-state window")
                window = measure_window(
                    engine, keys, level_L_keys, entry_bytes=scale.entry_bytes,
                    reads=scale.reads, range_entries=range_entries,
                    seed=scale.seed * 1_000_003 + 17,
                    fixed_writes=None if compaction.is_default else scale.entries)
                levels, memory = measured_levels(engine)
                keys = np.concatenate([keys, window.inserted])
            parts = _read_parts(keys, level_L_keys, scale, workload, range_entries,
                                mix_only=phase == "steady")
            full = tr.build_trace(
                [("load", load.kinds, load.keys, load.args),
                 *(window.parts if window else []), *parts],
                entry_bytes=scale.entry_bytes,
                meta={"design": design.knobs, "filters": design.filters, "scale": asdict(scale),
                      "budget": system.budget, "phase": phase},
            )
            read_phases = [p[0] for p in parts]
            reads = replay(
                engine, full, phases=read_phases,
                progress=lambda done, total: report(
                    LOAD_SHARE + (1 - LOAD_SHARE) * done / total, "reading"),
            ) if read_phases else None
            if save_trace is not None:
                tr.write_trace(save_trace, full)
        finally:
            engine.close()

    phases = {**loaded.phases, **(reads.phases if reads else {})}
    conditioned = None
    if window is None:
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
        measured = Costs(
            write_amp=window.blocks_written * B / window.writes,
            zero_result_read=window.per_read("zero", 0),
            point_read=window.per_read("level_L_reads", 0),
            point_read_uniform=window.per_read("uniform_reads", 0),
            range_runs=window.per_read("range", 1),
            range_io=window.per_read("range", 0),
            memory_bits_per_entry=memory,
            levels=levels,
        )
        simulated, conditioned = steady_references(
            design, system, workload, range_entries, scale.entries + int(window.inserted.size),
            levels[-1].max_runs, window.level_L_runs_at_start)
    measured = with_theta(measured, workload, B)
    mix_io_per_op = None
    if "mix" in phases:
        mix = phases["mix"]
        ops = sum(t.count for t in mix.values())
        io = sum(t.blocks_read + t.blocks_written for t in mix.values())
        mix_io_per_op = io / ops if ops else None
    extra = [0, 0, 0] if window is None else window.checks
    later = [0, 0, 0] if reads is None else [reads.get_misses, reads.zero_hits, reads.wrong_values]
    checks = Checks(
        get_misses=loaded.get_misses + later[0] + extra[0],
        zero_hits=loaded.zero_hits + later[1] + extra[1],
        wrong_values=loaded.wrong_values + later[2] + extra[2],
    )
    report(1.0, "done")
    return ValidationResult(
        design=design,
        scale=scale,
        budget=dict(system.budget),
        workload=workload,
        predicted=predicted,
        paper=paper,
        simulated=simulated,
        measured=measured,
        checks=checks,
        seconds=time.perf_counter() - start,
        mix_io_per_op=mix_io_per_op,
        wal=ENGINE_WAL,
        phase=phase,
        window_writes=None if window is None else window.writes,
        major_compactions=None if window is None else window.major_compactions,
        window_complete=None if window is None else window.complete,
        full_merges_skipped=None if window is None else window.full_merges_skipped,
        level_L_runs_at_start=None if window is None else window.level_L_runs_at_start,
        conditioned=conditioned,
        model="partial" if files else "finite",
        compaction=None if compaction.is_default else compaction,
    )


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
    with tempfile.TemporaryDirectory(prefix="wacky-replay-", dir=workdir) as tmp:
        engine = Engine(
            Path(tmp) / "db",
            **design.knobs,
            filters=design.filters,
            entry_bytes=trace.entry_bytes,
            block_bytes=int(scale.get("block_bytes", 4096)),
            buffer_bytes=int(scale.get("buffer_bytes", 1 << 20)),
            wal=ENGINE_WAL,
            **budget,
        )
        try:
            result = replay(engine, trace)
        finally:
            engine.close()
    out = result.to_dict()
    out["design"] = {**design.knobs, "filters": design.filters}
    return out
