"""What the models (the paper's, and the window's: finite, partial, universal or skew) and the
engine simulator predict for a validation, as :class:`Costs`."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from cost_models.costs import range_cost
from cost_models.finite import finite_costs, peak_space
from cost_models.partial import WindowCosts
from cost_models.universal import universal_costs
from native_engine.simulator import PolicyReplay, ReplaySession, grow, grown_costs
from validation import window
from validation.results import Costs, LevelShape, with_theta
from validation.scale import Scale
from validation.window import Counters
from wacky_model.analysis import analyze
from wacky_model.files import native_file_costs
from wacky_model.rocksdb_model import leveled_costs, universal_costs_of, universal_rules
from wacky_model.types import Compaction, Design, System, Workload


def range_entries_for(scale: Scale, workload: Workload | None, entries_per_block: int) -> int:
    """Entries per range read: the workload's range length if it has one, else a short range."""
    if workload is not None and workload.range_blocks > 0:
        return max(1, round(workload.range_blocks * entries_per_block))
    return scale.range_entries


def costs_of(m: Any, levels: tuple[LevelShape, ...], workload: Workload | None, B: int,
             range_entries: int | None = None, *, range_io: float | None = None,
             write_amp: float | None = None, write_cost_ratio: float = 1.0) -> Costs:
    """Any model's figures as :class:`Costs` with Θ; a range read costs ``range_io``, else a block
    per run probed plus the blocks of ``range_entries``."""
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


def predict_finite(design: Design, system: System, workload: Workload | None, range_entries: int,
                   *, steady_window: bool = True, level_L_runs: int | None = None) -> Costs:
    """The finite-N model at exactly this scale. ``steady_window``: the whole-level window's
    write amplification, without Level L's rare full merges (else amortized with them).
    ``level_L_runs``: Level L's runs at the window's start, if known (else averaged over)."""
    m = finite_costs(*design.knobs.values(), entries=system.entries,
                     buffer_entries=system.buffer_entries, uniform=design.filters == "uniform",
                     level_L_runs=level_L_runs, **system.budget)
    L = int(m.levels)
    levels = tuple(LevelShape(level=i + 1, runs=int(round(float(r))), entries=float(e))
                   for i, (r, e) in enumerate(zip(m.level_runs[:L], m.level_entries[:L],
                                                  strict=True)))
    return costs_of(m, levels, workload, system.entries_per_block, range_entries,
                    write_amp=m.window_write_amp if steady_window else m.write_amp,
                    write_cost_ratio=system.write_cost_ratio)


def leveled_to_costs(m: Any, workload: Workload | None, range_entries: int,
                     entries_per_block: int) -> Costs:
    """A file-granular or RocksDB model's costs: each non-empty level one sorted run."""
    sizes = m.window.level_entries if m.window is not None else ()
    levels = tuple(LevelShape(level=i + 1, runs=1, entries=float(e))
                   for i, e in enumerate(e for e in sizes if e > 0))
    return costs_of(m, levels, workload, entries_per_block, range_entries)


def predict_files(design: Design, system: System, compaction: Compaction,
                  workload: Workload | None, range_entries: int, window: int) -> Costs:
    """The partial-merge model of file-granular merges: ``window`` inserts after the preload,
    from an empty tree."""
    m = native_file_costs(design, system, compaction, system.entries, float(window))
    return leveled_to_costs(m, workload, range_entries, system.entries_per_block)


def predict_stock(exported: Any, workload: Workload | None, preload: int, window: int,
                  range_entries: int) -> Costs | None:
    """The model of RocksDB's compaction for the exported options (partial merges for leveled
    with one multiplier, universal rules for universal); None otherwise."""
    try:
        m = (universal_costs_of if exported.style == "universal" else leveled_costs)(
            exported, preload, window)
    except ValueError:
        return None
    return leveled_to_costs(m, workload, range_entries, exported.system.entries_per_block)


def predict_simulated(design: Design, system: System, workload: Workload | None,
                      range_entries: int) -> Costs:
    """The tree the engine's policy grows from N inserts (every entry: a range's blocks are all
    of its result)."""
    tree = grow(*design.knobs.values(), entries=int(system.entries),
                buffer_entries=int(system.buffer_entries),
                entries_per_block=system.entries_per_block, uniform=design.filters == "uniform",
                **system.budget)
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


def steady_window(T: float, C: float, X: float, K: float, Z: float, *, entries: int,
                  buffer_entries: int, entries_per_block: int, bits_per_entry: float | None = None,
                  sum_fpr: float | None = None, uniform: bool = False) -> SimulatedWindow:
    """Preload ``entries`` into the simulator, then measure the whole-level window."""
    replay = PolicyReplay.start((T, C, X, K, Z), buffer_entries, entries_per_block,
                                bits_per_entry, sum_fpr, uniform)
    for _ in range((entries - 1) // buffer_entries):  # its last buffer flushes in the warm-up
        replay.flush()
    run = window.measure(SimulatorSession(replay, replay.flush),
                         window.whole_levels(entries, buffer_entries))
    return SimulatedWindow(
        run.delta.written * entries_per_block / run.writes if run.writes else math.nan,
        run.writes, run.major_compactions, run.full_merges_skipped, run.level_L_runs_at_start,
        run.complete)


def steady_references(design: Design, system: System, workload: Workload | None,
                      range_entries: int, final_entries: int, level_L_max_runs: int | None,
                      level_L_runs_at_start: int) -> tuple[Costs, Costs | None]:
    """(simulated, conditioned): the simulator's costs of the tree the engine ended with
    (``final_entries``: levels compare exactly), with the write amplification of the same window
    replayed; and the finite model at N told Level L's runs at the window's start (None when
    a_L = 1)."""
    B = system.entries_per_block
    final = replace(system, entries=float(final_entries))
    simulated = predict_simulated(design, final, workload, range_entries)
    sim_window = steady_window(
        *design.knobs.values(), entries=int(system.entries),
        buffer_entries=system.buffer_entries, entries_per_block=B,
        uniform=design.filters == "uniform", **system.budget)
    simulated = with_theta(replace(simulated, write_amp=sim_window.write_amp), workload, B)
    return simulated, (predict_finite(design, system, workload, range_entries,
                                      level_L_runs=level_L_runs_at_start)
                       if level_L_max_runs and level_L_max_runs > 1 else None)


def predict_skew(model: Any, base: Costs, measured: Costs, workload: Workload, system: System,
                 run: Any, reads: int, *, level0_staged: bool,
                 level0_measured: float | None = None) -> tuple[Costs, Costs, dict[str, Any]]:
    """(measured, predicted, the ``skew`` detail): the skew ``model`` (priced mid-window) over
    ``base`` (the design's model of the zero-result and range reads), Θ of both pricing every
    existing-key read at the distribution's mean (updates move keys out of Level L).
    ``level0_staged``: the model's per-level tuples start at level 0, reported apart with
    ``level0_measured``."""
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


def peak_space_native(design: Design, compaction: Compaction, walk: WindowCosts | None,
                      entries: float, buffer_entries: float) -> float:
    """T5 on the native engine: the most bytes of run files during the window over those at its
    end. Files: the partial walk, one job per flush (the engine installs a flush's merges
    together); whole levels: M8 at the tree's size at the window's end."""
    if compaction.granularity == "file":
        if walk is None or walk.end_entries <= 0:
            raise ValueError("a file-granular design's peak space needs its partial walk")
        return walk.peak_space(stock=False)
    return float(peak_space(*design.knobs.values(), entries=entries,
                            buffer_entries=buffer_entries))


def peak_space_stock(exported: Any, preload: float, window: float, *,
                     cycle: bool = False) -> float | None:
    """T5 on stock RocksDB, which deletes each compaction's inputs once it installed its outputs:
    leveled, the partial walk with one merge at a time; universal, U1-U4's merges (over its
    cycle with ``cycle``). None for a design neither model prices."""
    try:
        if exported.style == "universal":
            u = universal_costs(universal_rules(exported), preload, window, cycle=cycle)
            return u.peak_entries / u.end_entries
        w = leveled_costs(exported, preload, window).window
    except ValueError:
        return None
    return None if w is None or w.end_entries <= 0 else w.peak_space(stock=True)

