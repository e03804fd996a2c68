"""``analyze``: the per-level table and every cost of one design on one system."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from cost_models.costs import range_cost as range_cost_of
from cost_models.costs import space_amplification
from cost_models.devices import LevelLedger
from cost_models.evaluate import Evaluation, evaluate
from cost_models.finite import FiniteCosts, finite_costs, peak_space
from cost_models.limits import check_physical
from cost_models.objective import cost_row, theta_of_row
from wacky_model.guardrails import run_warnings
from wacky_model.types import Design, System, Workload, check_types, workload_vector


@dataclass(frozen=True)
class LevelRow:
    level: int
    runs: float
    capacity_entries: float
    buffer_multiple: float
    fpr_per_run: float
    level_fpr: float
    filter_bits_per_entry: float
    structure: str  # "bloom" or "hash"


@dataclass(frozen=True)
class SteadyCosts:
    """The finite-N model's steady-state costs of one design (``cost_models.finite``).

    ``write_amp`` amortizes Level L's full merges; ``full_merge_write_amp`` is their part of it.
    """

    write_amp: float
    write_cost: float
    full_merge_write_amp: float
    point_read: float
    point_read_uniform: float
    zero_result_read: float
    range_runs: float
    memory_bits_per_entry: float
    range_cost: float | None = None
    theta: float | None = None
    filter_probes: float = 0.0  # filters and hash tables a zero-result read probes
    # D1's per-level ledger (level 0 first, empty for whole levels), for levels on devices.
    ledger: LevelLedger | None = field(default=None, repr=False, compare=False)


def steady_costs(design: Design, system: System, workload: Workload | None = None) -> SteadyCosts:
    """:func:`cost_models.finite.finite_costs` of one design, with Theta for ``workload``."""
    m = steady_costs_many(*design.knobs.values(), system, uniform=design.filters == "uniform")
    B = system.entries_per_block
    write_cost = float(m.write_amp) / B
    range_cost = theta = None
    if workload is not None:
        # Every entry is in a run, so a long range spreads over all of the data.
        range_cost = float(range_cost_of(m.range_runs, 1.0, workload.range_blocks))
        row = cost_row(point_read=m.point_read, zero_result_read=m.zero_result_read,
                       write_cost=write_cost, range_runs=m.range_runs,
                       point_read_uniform=m.point_read_uniform, filter_probes=m.filter_probes)
        theta = theta_of_row(row, workload_vector(workload, system.write_cost_ratio,
                                                  system.probe_cost))
    return SteadyCosts(write_cost=write_cost, range_cost=range_cost, theta=theta,
                       ledger=m.level_ledger(), **_floats(m, _STEADY_FIELDS))


# The figures each result takes from the model's arrays as they are (as Python floats).
_STEADY_FIELDS = ("write_amp", "full_merge_write_amp", "point_read", "point_read_uniform",
                  "zero_result_read", "range_runs", "memory_bits_per_entry", "filter_probes")
_ANALYSIS_FIELDS = ("write_amp", "write_cost", "point_read", "point_read_uniform",
                    "zero_result_read", "range_runs", "memory_bits_per_entry",
                    "fence_bits_per_entry", "sum_fpr", "filter_probes")


def _floats(result: Any, names: tuple[str, ...]) -> dict[str, float]:
    return {name: float(getattr(result, name)) for name in names}


@dataclass(frozen=True)
class Analysis:
    design: Design
    system: System
    levels: tuple[LevelRow, ...]
    write_amp: float
    write_cost: float
    point_read: float
    point_read_uniform: float
    zero_result_read: float
    range_runs: float
    memory_bits_per_entry: float
    fence_bits_per_entry: float
    sum_fpr: float
    workload: Workload | None = None
    range_cost: float | None = None
    theta: float | None = None
    # The finite-N model beside the paper's (whose figures are the fields above).
    finite: SteadyCosts | None = None
    space_amp: float = 0.0  # worst case (cost_models.costs.space_amplification)
    # T5: the run files' peak during merges over the data (cost_models.finite.peak_space, M8).
    transient_space: float = 0.0
    warnings: tuple[str, ...] = ()  # run counts above the practical limit (guardrails)
    filter_probes: float = 0.0  # filters and hash tables a zero-result read probes
    # Under skewed keys, updates or a cache: the skew model's figures (wacky_model.skew).
    skew: Any = None

    @property
    def total_memory_bits_per_entry(self) -> float:
        """Write buffer + filters + fence pointers, per entry."""
        return (8.0 * self.system.buffer_bytes / self.system.entries
                + self.memory_bits_per_entry + self.fence_bits_per_entry)

    def to_dict(self) -> dict:
        """The JSON document of ``wacky analyze --json``."""
        out = {
            "design": self.design.knobs,
            "filters": self.design.filters,
            "levels": [asdict(row) for row in self.levels],
            "write_amp": self.write_amp,
            "write_cost": self.write_cost,
            "point_read": self.point_read,
            "point_read_uniform": self.point_read_uniform,
            "zero_result_read": self.zero_result_read,
            "range_runs": self.range_runs,
            "memory_bits_per_entry": self.memory_bits_per_entry,
            "fence_bits_per_entry": self.fence_bits_per_entry,
            "sum_fpr": self.sum_fpr,
            "filter_probes": self.filter_probes,
            "hash_levels": self.system.hash_levels,
            "space_amp": self.space_amp,
            "transient_space": self.transient_space,
            "warnings": list(self.warnings),
        }
        if self.workload is not None:
            out["workload"] = self.workload.to_dict()
            out["range_cost"] = self.range_cost
            out["theta"] = self.theta
        if self.finite is not None:
            out["finite"] = {k: v for k, v in asdict(self.finite).items() if k != "ledger"}
        if self.skew is not None:
            out["skew"] = self.skew.to_dict()
        return out


def steady_costs_many(
    T: np.ndarray | float,
    C: np.ndarray | float,
    X: np.ndarray | float,
    K: np.ndarray | float,
    Z: np.ndarray | float,
    system: System,
    *,
    uniform: bool = False,
) -> FiniteCosts:
    """The finite-N model's costs of a broadcast array of designs in one vectorized pass."""
    check_types(system=system)
    knobs = _checked_knobs(T, C, X, K, Z)
    return finite_costs(*knobs, entries=system.entries, buffer_entries=system.buffer_entries,
                        uniform=uniform, hash_levels=system.hash_levels, **system.budget)


def _checked_knobs(T, C, X, K, Z) -> list[np.ndarray]:
    knobs = [np.asarray(v, dtype=float) for v in (T, C, X, K, Z)]
    bounds = zip("TCXKZ", knobs, (2, 1, 1, 0, 0), (np.inf, np.inf, 64, 1, 1), strict=True)
    for name, v, low, high in bounds:
        if np.any(~np.isfinite(v)) or np.any(v < low) or np.any(v > high):
            raise ValueError(f"{name} must lie in [{low}, {high}] and be finite")
    return knobs


def analyze_many(
    T: np.ndarray | float,
    C: np.ndarray | float,
    X: np.ndarray | float,
    K: np.ndarray | float,
    Z: np.ndarray | float,
    system: System,
    *,
    uniform: bool = False,
    realizable: bool = False,
) -> Evaluation:
    """Every cost of a broadcast array of designs in one vectorized pass (no validation per row).

    The knob arrays must already be in range (T >= 2, C >= 1, X >= 1, 0 <= K, Z <= 1).
    """
    check_types(system=system)
    knobs = _checked_knobs(T, C, X, K, Z)
    return evaluate(
        *knobs,
        n_buffers=system.buffers,
        entries_per_block=system.entries_per_block,
        uniform=uniform,
        integer_runs=realizable,
        hash_levels=system.hash_levels,
        key_bytes=system.key_bytes,
        **system.budget,
    )


def analyze(
    design: Design,
    system: System,
    workload: Workload | None = None,
    *,
    realizable: bool = False,
) -> Analysis:
    """Analyze one design: per-level table, totals and, given a workload, Theta (Eq 16).

    ``realizable`` rounds each level's run count to the whole number the engine builds. A
    system with a total memory budget is analyzed at its ``buffer_bytes``, with the rest of
    the memory for filters (``System.with_buffer``).
    """
    check_types(design=design, system=system, workload=workload, optional=("workload",))
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    e = analyze_many(
        design.T,
        design.C,
        design.X,
        design.K,
        design.Z,
        system,
        uniform=design.filters == "uniform",
        realizable=realizable,
    )
    s = e.structure
    check_physical(s, system.buffers, system.entries)
    rows = []
    for i in range(int(s.L)):
        hashed = bool(e.hash_mask[i])
        runs = float(s.runs[i])
        fpr = float(e.fprs[i])
        rows.append(
            LevelRow(
                level=i + 1,
                runs=runs,
                capacity_entries=float(s.fractions[i] * system.entries),
                buffer_multiple=float(s.fractions[i] * system.buffers),
                fpr_per_run=fpr,
                level_fpr=runs * fpr,
                filter_bits_per_entry=float(e.hash_bits[i] if hashed else e.bloom_bits[i]),
                structure="hash" if hashed else "bloom",
            )
        )
    range_cost = theta = None
    if workload is not None:
        range_cost = float(e.range_cost(workload.range_blocks))
        theta = theta_of_row(e.row, workload_vector(workload, system.write_cost_ratio,
                                                    system.probe_cost))
    finite = steady_costs(design, system, workload)
    return Analysis(
        design=design,
        system=system,
        levels=tuple(rows),
        workload=workload,
        range_cost=range_cost,
        theta=theta,
        finite=finite,
        space_amp=float(space_amplification(s)),
        transient_space=float(peak_space(*design.knobs.values(), entries=system.entries,
                                         buffer_entries=system.buffer_entries)),
        warnings=run_warnings([row.runs for row in rows]),
        skew=_skew_of(design, system, workload, finite),
        **_floats(e, _ANALYSIS_FIELDS),
    )


def _skew_of(design: Design, system: System, workload: Workload | None,
             finite: SteadyCosts) -> Any:
    from dataclasses import replace

    from wacky_model.skew import needs_skew_model, skew_analysis, skew_theta_of

    if not needs_skew_model(workload, system) or design.filters != "optimized":
        return None
    s = skew_analysis(design, system, workload)
    if workload is None:
        return s
    return replace(s, theta=skew_theta_of(system, workload, finite, point_read=s.point_read,
                                          zero_result_read=s.zero_result_read,
                                          write_amp=s.write_amp))
