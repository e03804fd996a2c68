"""What a validation reports: one ``Costs`` type for the finite-N model, the paper's model, the
engine simulator and the engine's measurements, the relative errors between them, and the whole
result.

Everything here is a frozen dataclass; ``to_dict`` gives the JSON of ``wacky validate --json``
(its keys are part of the CLI's contract).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from cost_models.objective import cost_row, theta_of_row
from validation.scale import Scale
from wacky_model.types import Compaction, Design, Workload, workload_vector

# The per-operation figures compared between a model and the engine, in report order.
METRICS = (
    "write_amp",
    "zero_result_read",
    "point_read",
    "point_read_uniform",
    "range_runs",
    "memory_bits_per_entry",
    "theta",
)


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
    """Per-operation I/O of one design at one scale, from any source (model, simulator, engine).

    ``write_amp`` is blocks written per entry written times B (Eq 14 without the 1/B);
    ``range_io`` is the I/O of one range read of the validation's length; ``theta`` is Eq 16 for
    the workload, when there is one (:func:`with_theta`).
    """

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
        if name not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {name!r}")
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["levels"] = [row.to_dict() for row in self.levels]
        if self.cache_hit_rate_per_level is None:
            del out["cache_hit_rate"], out["cache_hit_rate_per_level"]
        else:
            out["cache_hit_rate_per_level"] = list(self.cache_hit_rate_per_level)
        return out


def with_theta(c: Costs, workload: Workload | None, entries_per_block: int,
               write_cost_ratio: float = 1.0) -> Costs:
    """``c`` with Eq 16 for ``workload`` (None without one), through the one Theta
    (:mod:`cost_models.objective`): W = write_amp / B (Eq 14), ``range_io`` as the range
    term, and a block written costing ``write_cost_ratio`` block reads. Costs with no
    worst-case read (measured under skew) price every existing-key read at its measured mean.
    """
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
        if name not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {name!r}")
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {m: getattr(self, m) for m in METRICS}
        out["levels"] = [asdict(row) for row in self.levels]
        out["levels_match"] = self.levels_match
        return out


def compare(model: Costs, measured: Costs) -> Errors:
    """The errors of ``model`` against ``measured``; a level one side lacks counts as empty."""
    empty = LevelShape(level=0, runs=0, entries=0)
    n = max(len(model.levels), len(measured.levels))
    levels = []
    for i in range(n):
        p = model.levels[i] if i < len(model.levels) else empty
        m = measured.levels[i] if i < len(measured.levels) else empty
        levels.append(LevelError(i + 1, p.runs == m.runs, relative_error(p.entries, m.entries)))
    match = len(model.levels) == len(measured.levels) and all(r.runs_match for r in levels)
    return Errors(
        **{m: relative_error(model.metric(m), measured.metric(m)) for m in METRICS},
        levels=tuple(levels),
        levels_match=match,
    )


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
class ValidationResult:
    """One design predicted, simulated and measured at one scale.

    ``predicted`` is the default model, the finite-N model (:mod:`cost_models.finite`);
    ``paper`` is Eq 8-16 with whole run counts; ``simulated`` is the engine simulator
    (:mod:`validation.engine_simulator`), an executable specification of the engine's merge
    policy whose agreement checks the engine, not any model; ``measured`` is the engine.
    """

    design: Design
    scale: Scale
    budget: dict[str, float]
    workload: Workload | None
    predicted: Costs
    paper: Costs
    simulated: Costs | None  # None under skew: the simulator replays uniform inserts only
    measured: Costs
    checks: Checks
    seconds: float
    mix_io_per_op: float | None = None
    # The engine ran without its write-ahead log: the model prices flushes and merges only.
    wal: bool = False
    # "steady": costs over a window of inserts into a preloaded tree (validation.window);
    # "load": averages over the load into an empty tree.
    phase: str = "load"
    window_writes: int | None = None
    major_compactions: int | None = None
    # The window ended at a run boundary of Level L (not at its cap), and how many windows that
    # held a full merge of Level L were set aside first (validation.window).
    window_complete: bool | None = None
    full_merges_skipped: int | None = None
    # How many runs Level L held when the window began (its history decides it, M7 in
    # docs/MODEL.md), and the finite-N model told that one number.
    level_L_runs_at_start: int | None = None
    conditioned: Costs | None = None
    # "native" (this project's engine) or "rocksdb" (stock RocksDB with the exported options:
    # its version, the seconds the writer waited for compaction to keep up, and the export's
    # grade).
    engine: str = "native"
    engine_version: str | None = None
    throttle_seconds: float | None = None
    rocksdb_grade: str | None = None
    # On RocksDB: stock compaction, or the Wacky compaction driver; with the driver, the entries
    # the design's policy wrote per insert (RocksDB's statistics also count each merged flush).
    stock: bool | None = None
    tree_write_amp: float | None = None
    level0_trigger: int | None = None  # stock: flushes level 0 gathers before merging
    # Stock: RocksDB's own write amplification in bytes (its format stores bytes_per_entry
    # bytes per entry; write_amp is in entries, as the models count), and which model
    # "predicted" is: "partial" (cost_models.partial, leveled) or "finite" (the Wacky model).
    write_amp_bytes: float | None = None
    bytes_per_entry: float | None = None
    model: str = "finite"
    # The native engine's compaction options, when not the paper's (wacky_model.types).
    compaction: Compaction | None = None
    # Under skewed keys or a cache (model "skew"): the window, the skew model's detail and the
    # cache's figures (validation.runner).
    skew: dict[str, Any] | None = None

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
        out = {
            "design": {**self.design.knobs, "filters": self.design.filters},
            "scale": asdict(self.scale),
            "budget": self.budget,
            "workload": None if self.workload is None else self.workload.to_dict(),
            "predicted": self.predicted.to_dict(),
            "paper": self.paper.to_dict(),
            "simulated": None if self.simulated is None else self.simulated.to_dict(),
            "measured": self.measured.to_dict(),
            "relative_error": self.relative_error.to_dict(),
            "paper_relative_error": self.paper_relative_error.to_dict(),
            "simulated_relative_error": (None if self.simulated_relative_error is None
                                         else self.simulated_relative_error.to_dict()),
            "checks": asdict(self.checks),
            "seconds": self.seconds,
            "wal": self.wal,
            "phase": self.phase,
            "window_writes": self.window_writes,
            "major_compactions": self.major_compactions,
            "window_complete": self.window_complete,
            "full_merges_skipped": self.full_merges_skipped,
            "level_L_runs_at_start": self.level_L_runs_at_start,
            "engine": self.engine,
            "model": self.model,
        }
        if self.compaction is not None:
            out["compaction"] = asdict(self.compaction)
        if self.engine == "rocksdb":
            out.update(rocksdb_version=self.engine_version, stock=self.stock,
                       throttle_seconds=self.throttle_seconds, rocksdb_grade=self.rocksdb_grade)
            if self.stock:
                out.update(level0_trigger=self.level0_trigger,
                           write_amp_bytes=self.write_amp_bytes,
                           bytes_per_entry=self.bytes_per_entry)
            else:
                out["tree_write_amp"] = self.tree_write_amp
        if self.conditioned is not None:
            out["predicted_given_level_L_runs"] = self.conditioned.to_dict()
            out["conditioned_relative_error"] = compare(self.conditioned, self.measured).to_dict()
        if self.mix_io_per_op is not None:
            out["mix_io_per_op"] = self.mix_io_per_op
        if self.skew is not None:
            out["skew"] = self.skew
        return out


def measured_levels(engine: Any) -> tuple[tuple[LevelShape, ...], float]:
    """The engine's tree (non-empty runs per level; a level of files is one sorted run; level
    0, when the engine has one, is the row numbered 0) and its filter bits per stored entry."""
    levels, bits, stored = [], 0.0, 0
    for lvl in engine.levels():
        runs = [r for r in lvl["runs"] if r["entries"] > 0]
        number = 0 if lvl["level"] == 0 else sum(1 for row in levels if row.level > 0) + 1
        levels.append(LevelShape(
            level=number,
            runs=min(1, len(runs)) if lvl.get("files") else len(runs),
            entries=sum(r["entries"] for r in runs),
            max_runs=int(lvl["max_runs"]),
        ))
        for r in runs:
            bits += r["entries"] * r["filter_bits_per_key"]
            stored += r["entries"]
    return tuple(levels), (bits / stored if stored else 0.0)
