"""What a validation reports: one ``Costs`` type for every model, the simulator and the engine,
the relative errors between them, and the whole result; ``to_dict`` gives the JSON of ``wacky
validate --json`` (its keys are part of the CLI's contract)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from cost_models.objective import cost_row, theta_of_row
from validation.scale import Scale
from wacky_model.types import Design, Workload, workload_vector

# The per-operation figures compared between a model and the engine, in report order.
METRICS = ("write_amp", "zero_result_read", "point_read", "point_read_uniform", "range_runs",
           "memory_bits_per_entry", "theta")


@dataclass(frozen=True)
class LevelShape:
    """One level of a tree: its runs and entries; ``max_runs`` is the engine's bound a_i."""

    level: int
    runs: int
    entries: float
    max_runs: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.max_runs is None:
            del out["max_runs"]
        return out


@dataclass(frozen=True)
class Costs:
    """Per-operation I/O of one design at one scale, from any source. ``write_amp`` is Eq 14
    times B; ``range_io`` one range read of the validation's length; ``theta`` Eq 16, if any."""

    write_amp: float
    zero_result_read: float
    point_read: float
    point_read_uniform: float
    range_runs: float
    range_io: float
    memory_bits_per_entry: float
    levels: tuple[LevelShape, ...]
    theta: float | None = None
    # With a block cache: hits / (hits + misses) over every block a point read needed, overall
    # and per level (Level 1 first). None when the run had no cache and no skew.
    cache_hit_rate: float | None = None
    cache_hit_rate_per_level: tuple[float, ...] | None = None

    def metric(self, name: str) -> float | None:
        return _metric(self, name)

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["levels"] = [row.to_dict() for row in self.levels]
        if self.cache_hit_rate_per_level is None:
            del out["cache_hit_rate"], out["cache_hit_rate_per_level"]
        else:
            out["cache_hit_rate_per_level"] = list(self.cache_hit_rate_per_level)
        return out


def _metric(costs: Costs | Errors, name: str) -> float | None:
    if name not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {name!r}")
    return getattr(costs, name)


def with_theta(c: Costs, workload: Workload | None, entries_per_block: int,
               write_cost_ratio: float = 1.0) -> Costs:
    """``c`` with Eq 16 for ``workload`` (None without one) by :mod:`cost_models.objective`:
    W = write_amp / B, ``range_io`` the range term, a write costing ``write_cost_ratio`` reads.
    Without a worst-case read (skew) every existing-key read is priced at the measured mean."""
    if workload is None:
        return replace(c, theta=None)
    point = c.point_read if c.point_read is not None else c.point_read_uniform
    row = cost_row(point_read=point, zero_result_read=c.zero_result_read,
                   write_cost=c.write_amp / entries_per_block, range_runs=c.range_io,
                   range_spread=0.0, point_read_uniform=c.point_read_uniform)
    return replace(c, theta=theta_of_row(row, workload_vector(workload, write_cost_ratio)))


def relative_error(predicted: float | None, measured: float | None) -> float | None:
    """(predicted - measured) / measured; 0 when both are 0, None when undefined."""
    if predicted is None or measured is None:
        return None
    if measured == 0:
        return 0.0 if predicted == 0 else None
    return (predicted - measured) / measured


@dataclass(frozen=True)
class LevelError:
    level: int
    runs_match: bool
    entries: float | None  # relative error of the level's entries


@dataclass(frozen=True)
class Errors:
    """Relative error (model - measured) / measured of each metric, and of the tree's shape."""

    write_amp: float | None
    zero_result_read: float | None
    point_read: float | None
    point_read_uniform: float | None
    range_runs: float | None
    memory_bits_per_entry: float | None
    theta: float | None
    levels: tuple[LevelError, ...]
    levels_match: bool

    def metric(self, name: str) -> float | None:
        return _metric(self, name)

    def to_dict(self) -> dict[str, Any]:
        return {**{m: getattr(self, m) for m in METRICS},
                "levels": [asdict(row) for row in self.levels], "levels_match": self.levels_match}


def compare(model: Costs, measured: Costs) -> Errors:
    """The errors of ``model`` against ``measured``; a level one side lacks counts as empty."""
    empty = LevelShape(level=0, runs=0, entries=0)
    n = max(len(model.levels), len(measured.levels))
    levels = []
    for i in range(n):
        p, m = (c.levels[i] if i < len(c.levels) else empty for c in (model, measured))
        levels.append(LevelError(i + 1, p.runs == m.runs, relative_error(p.entries, m.entries)))
    match = len(model.levels) == len(measured.levels) and all(r.runs_match for r in levels)
    return Errors(**{m: relative_error(model.metric(m), measured.metric(m)) for m in METRICS},
                  levels=tuple(levels), levels_match=match)


@dataclass(frozen=True)
class Checks:
    """Wrong answers the engine gave during a validation: all zero for a correct engine."""

    get_misses: int = 0
    zero_hits: int = 0
    wrong_values: int = 0

    @property
    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class EngineRun:
    """An engine's run for :func:`validation.runner.validate`: the measured costs, the
    predictions that depend on the run, and the engine's detail."""

    measured: Costs
    checks: Checks
    predicted: Costs
    simulated: Costs | None
    model: str = "finite"
    phase: str = "steady"
    window_writes: int | None = None
    conditioned: Costs | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    design: Design | None = None  # as it ran, when not as asked (stock RocksDB: uniform filters)


WINDOW_FACTS = ("major_compactions", "window_complete", "full_merges_skipped",
                "level_L_runs_at_start", "write_seconds", "write_cpu_seconds")


def window_detail(run: Any, *names: str) -> dict[str, Any]:
    """A window's facts for ``engine_detail``: ``names`` of them (default all) from ``run``, the
    others None."""
    got = {} if run is None else {
        "major_compactions": run.major_compactions, "window_complete": run.complete,
        "full_merges_skipped": run.full_merges_skipped,
        "level_L_runs_at_start": run.level_L_runs_at_start,
        # T1's insert time (validation/window.py), None where a window times none
        "write_seconds": getattr(run, "write_seconds", None),
        "write_cpu_seconds": getattr(run, "write_cpu_seconds", None)}
    out = {n: got.get(n) if n in (names or WINDOW_FACTS) else None for n in WINDOW_FACTS}
    return {**out, **disk_detail(run)}


def peak_space_detail(run: Any, predicted: float | None) -> dict[str, dict[str, float | None]]:
    """T5 beside what the engine metered: the most bytes of run files during the window over
    those at its end, predicted and measured (None where the engine meters none)."""
    d = disk_detail(run)
    measured = (d["peak_disk_bytes"] / d["disk_bytes"]
                if d["disk_bytes"] and d["peak_disk_bytes"] else None)
    return {"peak_space": {"predicted": predicted, "measured": measured}}


def disk_detail(run: Any) -> dict[str, int | None]:
    """The run files' bytes at a window's end and the most during it (a merge's inputs and
    output together); None where the engine meters none."""
    end = getattr(run, "end", None)  # a simulated window meters no disk
    return {name: getattr(end, name, 0) or None for name in ("disk_bytes", "peak_disk_bytes")}


@dataclass(frozen=True)
class ValidationResult:
    """One design predicted, simulated and measured at one scale, on any engine. ``predicted``
    is the window's ``model``; ``paper`` Eq 8-16 with whole run counts; ``simulated`` the merge
    policy's specification, whose agreement checks the engine, not any model (None under skew);
    ``conditioned`` the finite model told Level L's runs at the window's start (a_L > 1)."""

    design: Design
    scale: Scale
    budget: dict[str, float]
    workload: Workload | None
    predicted: Costs
    paper: Costs
    simulated: Costs | None
    measured: Costs
    checks: Checks
    seconds: float
    engine: str = "native"  # or "rocksdb"
    model: str = "finite"
    # "steady": a window of writes into the preloaded tree; "load": averages over the load.
    phase: str = "load"
    wal: bool = False  # False: the model prices flushes and merges only, as the engine did
    window_writes: int | None = None
    conditioned: Costs | None = None
    # What only some engines, windows or features report (the window's merges, the mix, the
    # compaction, RocksDB's run, skew's), JSON-ready and flat in ``to_dict``.
    engine_detail: dict[str, Any] = field(default_factory=dict)

    def detail(self, name: str, default: Any = None) -> Any:
        return self.engine_detail.get(name, default)

    @property
    def relative_error(self) -> Errors:
        return compare(self.predicted, self.measured)

    @property
    def paper_relative_error(self) -> Errors:
        return compare(self.paper, self.measured)

    @property
    def simulated_relative_error(self) -> Errors | None:
        return None if self.simulated is None else compare(self.simulated, self.measured)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``wacky validate --json``."""
        out = {"design": {**self.design.knobs, "filters": self.design.filters},
               "scale": asdict(self.scale), "budget": self.budget}
        for name in ("workload", "predicted", "paper", "simulated", "measured", "relative_error",
                     "paper_relative_error", "simulated_relative_error"):
            x = getattr(self, name)
            out[name] = None if x is None else x.to_dict()
        out.update(checks=asdict(self.checks), seconds=self.seconds, wal=self.wal,
                   phase=self.phase, window_writes=self.window_writes, engine=self.engine,
                   model=self.model)
        out.update(self.engine_detail)
        if self.conditioned is not None:
            out["predicted_given_level_L_runs"] = self.conditioned.to_dict()
            out["conditioned_relative_error"] = compare(self.conditioned, self.measured).to_dict()
        return out


def measured_levels(engine: Any) -> tuple[tuple[LevelShape, ...], float]:
    """The engine's tree (non-empty runs per level, a level of files one run, level 0 numbered
    0) and its filter bits per stored entry."""
    levels, bits, stored = [], 0.0, 0
    for lvl in engine.levels():
        runs = [r for r in lvl["runs"] if r["entries"] > 0]
        number = 0 if lvl["level"] == 0 else sum(1 for row in levels if row.level > 0) + 1
        levels.append(LevelShape(number, min(1, len(runs)) if lvl.get("files") else len(runs),
                                 sum(r["entries"] for r in runs), int(lvl["max_runs"])))
        for r in runs:
            bits += r["entries"] * r["filter_bits_per_key"]
            stored += r["entries"]
    return tuple(levels), (bits / stored if stored else 0.0)
