"""What the models and the engine simulator predict for a validation, as :class:`Costs`.

Every engine's run (:mod:`validation.runner`) is compared with the same sources: the paper's
model, the model of the window it measured (finite, partial, universal or skew), and the
simulator replaying the engine's merge policy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from cost_models.costs import range_cost
from cost_models.finite import finite_costs
from native_engine.simulator import PolicyReplay, ReplaySession, grow, grown_costs
from validation import window
from validation.results import Costs, LevelShape, with_theta
from validation.scale import Scale
from validation.window import Counters
from wacky_model.analysis import analyze
from wacky_model.files import native_file_costs
from wacky_model.rocksdb_model import leveled_costs, universal_costs_of
from wacky_model.types import Compaction, Design, System, Workload


def range_entries_for(scale: Scale, workload: Workload | None, entries_per_block: int) -> int:
    """Entries per range read: the workload's range length if it has one, else a short range."""
    if workload is not None and workload.range_blocks > 0:
        return max(1, round(workload.range_blocks * entries_per_block))
    return scale.range_entries


def costs_of(m: Any, levels: tuple[LevelShape, ...], workload: Workload | None, B: int,
             range_entries: int | None = None, *, range_io: float | None = None,
             write_amp: float | None = None, write_cost_ratio: float = 1.0) -> Costs:
    """Any model's per-operation figures (the attributes every model's result shares) as
    :class:`Costs`, with Θ for ``workload``. A range read costs ``range_io``, else one block per
    run it probes plus the blocks of ``range_entries``."""
    if range_io is None:
        range_io = float(range_cost(m.range_runs, 1.0, range_entries / B))
    costs = Costs(write_amp=float(m.write_amp if write_amp is None else write_amp),
                  range_io=range_io, levels=levels,
                  **{k: float(getattr(m, k)) for k in ("zero_result_read", "point_read",
                                                       "point_read_uniform", "range_runs",
                                                       "memory_bits_per_entry")})
    return with_theta(costs, workload, B, write_cost_ratio)


def predict_paper(design: Design, system: System, workload: Workload | None) -> Costs:
    """The paper's model (realizable run counts) at exactly this scale, read off ``analyze``."""
    a = analyze(design, system, workload, realizable=True)
    levels = tuple(LevelShape(level=row.level, runs=int(row.runs), entries=row.capacity_entries)
                   for row in a.levels)
    # Without a workload, the paper's short range: one block per run.
    return costs_of(a, levels, workload, system.entries_per_block,
                    range_io=a.range_runs if a.range_cost is None else a.range_cost,
                    write_cost_ratio=system.write_cost_ratio)


def predict_finite(
    design: Design, system: System, workload: Workload | None, range_entries: int,
    *, steady_window: bool = True, level_L_runs: int | None = None,
) -> Costs:
    """The finite-N model (:mod:`cost_models.finite`) at exactly this scale.

    ``steady_window``: write amplification of the whole-level window (:mod:`validation.window`),
    which leaves out Level L's rare full merges (the model's ``window_write_amp``); otherwise the
    amortized figure with them. ``level_L_runs``: Level L's runs when the window starts, if
    known (else the model averages over it).
    """
    m = finite_costs(
        design.T, design.C, design.X, design.K, design.Z,
        entries=system.entries, buffer_entries=system.buffer_entries,
        uniform=design.filters == "uniform", level_L_runs=level_L_runs, **system.budget,
    )
    L = int(m.levels)
    levels = tuple(LevelShape(level=i + 1, runs=int(round(float(r))), entries=float(e))
                   for i, (r, e) in enumerate(zip(m.level_runs[:L], m.level_entries[:L],
                                                  strict=True)))
    return costs_of(m, levels, workload, system.entries_per_block, range_entries,
                    write_amp=m.window_write_amp if steady_window else m.write_amp,
                    write_cost_ratio=system.write_cost_ratio)


def leveled_to_costs(m: Any, workload: Workload | None, range_entries: int,
                     entries_per_block: int) -> Costs:
    """A file-granular or RocksDB model's costs (:class:`wacky_model.files.LeveledCosts`): each
    non-empty level one sorted run."""
    sizes = m.window.level_entries if m.window is not None else ()
    levels = tuple(LevelShape(level=i + 1, runs=1, entries=float(e))
                   for i, e in enumerate(e for e in sizes if e > 0))
    return costs_of(m, levels, workload, entries_per_block, range_entries)


def predict_files(design: Design, system: System, compaction: Compaction,
                  workload: Workload | None, range_entries: int, window: int) -> Costs:
    """The partial-merge model (:mod:`wacky_model.files`) of the engine with file-granular
    merges: ``window`` inserts after the preload of ``system.entries``, from an empty tree."""
    m = native_file_costs(design, system, compaction, system.entries, float(window))
    return leveled_to_costs(m, workload, range_entries, system.entries_per_block)


def predict_stock(exported: Any, workload: Workload | None, preload: int, window: int,
                  range_entries: int) -> Costs | None:
    """The model of RocksDB's own compaction for the exported options
    (:mod:`wacky_model.rocksdb_model`): partial merges for leveled compaction with one
    multiplier, the universal rules for universal compaction; None otherwise."""
    try:
        m = (universal_costs_of if exported.style == "universal" else leveled_costs)(
            exported, preload, window)
    except ValueError:
        return None
    return leveled_to_costs(m, workload, range_entries, exported.system.entries_per_block)


def predict_simulated(
    design: Design, system: System, workload: Workload | None, range_entries: int
) -> Costs:
    """:mod:`native_engine.simulator`: the tree the engine's policy grows from N inserts.
    The simulated tree holds every entry, so the range's blocks are all of its result."""
    tree = grow(
        *design.knobs.values(), entries=int(system.entries),
        buffer_entries=int(system.buffer_entries), entries_per_block=system.entries_per_block,
        uniform=design.filters == "uniform", **system.budget,
    )
    levels = tuple(LevelShape(level=i + 1, runs=len(lvl.run_entries), entries=lvl.entries)
                   for i, lvl in enumerate(tree.levels))
    return costs_of(grown_costs(tree, range_entries), levels, workload,
                    system.entries_per_block, range_entries,
                    write_cost_ratio=system.write_cost_ratio)


class SimulatorSession(ReplaySession):
    """The engine simulator's session, its blocks written as :class:`Counters`."""

    def counters(self) -> Counters:  # type: ignore[override]
        return Counters("blocks", self.replay.blocks_written)


@dataclass(frozen=True)
class SimulatedWindow:
    """The steady window of :mod:`validation.window`, replayed by the engine simulator."""

    write_amp: float  # blocks written per block inserted over the window
    writes: int  # inserts in the window
    major_compactions: int
    full_merges_skipped: int
    level_L_runs_at_start: int
    complete: bool  # ended at a run boundary, not at the cap


def steady_window(
    T: float, C: float, X: float, K: float, Z: float, *, entries: int, buffer_entries: int,
    entries_per_block: int, bits_per_entry: float | None = None, sum_fpr: float | None = None,
    uniform: bool = False,
) -> SimulatedWindow:
    """Preload ``entries`` into the simulator (:class:`native_engine.simulator.PolicyReplay`),
    then the whole-level window (:func:`validation.window.measure`)."""
    replay = PolicyReplay.start((T, C, X, K, Z), buffer_entries, entries_per_block,
                                bits_per_entry, sum_fpr, uniform)
    for _ in range((entries - 1) // buffer_entries):  # its last buffer flushes in the warm-up
        replay.flush()
    run = window.measure(SimulatorSession(replay, replay.flush),
                         window.whole_levels(entries, buffer_entries))
    return SimulatedWindow(
        write_amp=run.delta.written * entries_per_block / run.writes if run.writes
        else math.nan,
        writes=run.writes,
        major_compactions=run.major_compactions,
        full_merges_skipped=run.full_merges_skipped,
        level_L_runs_at_start=run.level_L_runs_at_start,
        complete=run.complete,
    )


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
        uniform=design.filters == "uniform", **system.budget)
    simulated = with_theta(replace(simulated, write_amp=sim_window.write_amp), workload, B)
    conditioned = None
    if level_L_max_runs and level_L_max_runs > 1:
        conditioned = predict_finite(design, system, workload, range_entries,
                                     level_L_runs=level_L_runs_at_start)
    return simulated, conditioned


def predict_skew(model: Any, base: Costs, measured: Costs, workload: Workload, system: System,
                 run: Any, reads: int, *, level0_staged: bool,
                 level0_measured: float | None = None) -> tuple[Costs, Costs, dict[str, Any]]:
    """The skew model's costs (``model``, S1-S7 or a file-granular or RocksDB variant, priced
    at ``history_writes`` mid-window of ``run``) over ``base``, the design's model for the
    zero-result and range reads; returns (measured, predicted, the ``skew`` detail), Θ priced
    under skew for both: every existing-key read at the read distribution's mean (the worst
    case is not measured: updates move keys out of Level L). ``level0_staged``: the model's
    per-level tuples start at level 0, which goes apart (``level0_cache_hit_rate``, with
    ``level0_measured``): the result's start at Level 1."""
    per_level = tuple(model.cache_hit_rate_per_level)
    level0 = per_level[0] if level0_staged and per_level else None
    predicted = replace(base, write_amp=model.write_amp, point_read_uniform=model.point_read,
                        cache_hit_rate=model.cache_hit_rate,
                        cache_hit_rate_per_level=per_level[1:] if level0_staged else per_level)
    priced = replace(workload, expected_point_reads=1.0)

    def theta_of(c: Costs) -> Costs:  # the worst case carries no weight when u = 1
        return replace(with_theta(replace(c, point_read=0.0), priced, system.entries_per_block),
                       point_read=c.point_read)

    detail = {
        "workload": {"write_keys": workload.write_keys.spec, "read_keys": workload.read_keys.spec,
                     "update_fraction": workload.update_fraction,
                     "correlated": workload.correlated},
        "cache_bytes": system.cache_bytes,
        "cache_hit_rate_error": model.cache_hit_rate - measured.cache_hit_rate,  # model - engine
        "warmup_writes": run.warmup_writes,
        "history_writes": run.warmup_writes + run.writes / 2.0,
        "reads": reads,
        "model": {
            "level_write_amp": list(model.level_write_amp),
            "cycle_writes": model.cycle_writes,
            "read_buffer_share": model.read_buffer_share,
            "read_level_share": list(model.read_level_share),
            "run_lifetime_writes": list(model.run_lifetime_writes),
            "characteristic_time_writes": (None if math.isinf(model.characteristic_time_writes)
                                           else model.characteristic_time_writes),
        },
    }
    if level0_staged:  # level 0's hit rate, apart: the result's per-level tuples start at Level 1
        detail["level0_cache_hit_rate"] = {"predicted": level0, "measured": level0_measured}
    return theta_of(measured), theta_of(predicted), detail
