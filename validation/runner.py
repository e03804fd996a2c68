"""One validation: predict a design's costs, build it in the engine, measure, compare.

``validate`` loads ``scale.entries`` unique entries into a fresh engine, then runs a read phase
(zero-result reads, reads of entries at Level L, reads of entries drawn uniformly, short range
reads) and, given a workload, that workload's mix. It reports three sets of the same metrics:

* ``predicted``: the paper's model (Eq 8-16, realizable run counts) at exactly this scale;
* ``refined``: :mod:`cost_models.refined`, which replays the growth of the tree to N entries;
* ``measured``: what the engine did, counted in blocks.

and the relative error (predicted - measured) / measured of each model.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cost_models.refined import grow, grown_costs
from native_engine import Engine
from validation.replay import replay
from wacky_model import traces as tr
from wacky_model.analysis import analyze
from wacky_model.types import Design, System, Workload

Progress = Callable[[float, str], None]

METRICS = (
    "write_amp",
    "zero_result_read",
    "point_read",
    "point_read_uniform",
    "range_runs",
    "memory_bits_per_entry",
    "theta",
)
LOAD_SHARE = 0.75  # of the progress bar: the load dominates the run time


@dataclass(frozen=True)
class Scale:
    """How big the engine run is. The default gives at least three levels for T <= 10."""

    entries: int = 2_000_000
    entry_bytes: int = 128
    block_bytes: int = 4096
    buffer_bytes: int = 1 << 20
    reads: int = 20_000  # operations per read kind in the read phase
    mix_ops: int = 20_000  # operations of the workload's mix, when a workload is given
    range_entries: int = 4  # entries a short range read returns, about
    seed: int = 0

    def __post_init__(self) -> None:
        checks = (
            ("entries", self.entries, 1_000, 10**9),
            ("entry_bytes", self.entry_bytes, 16, 1 << 16),
            ("block_bytes", self.block_bytes, self.entry_bytes, 64 << 20),
            ("buffer_bytes", self.buffer_bytes, self.block_bytes, 1 << 34),
            ("reads", self.reads, 100, 10**8),
            ("mix_ops", self.mix_ops, 0, 10**8),
            ("range_entries", self.range_entries, 1, 1 << 20),
            ("seed", self.seed, 0, 2**63 - 1),
        )
        for name, value, low, high in checks:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"scale {name} must be an integer; got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"scale {name} must lie in [{low}, {high}]; got {value}")
        data = self.entries * self.entry_bytes
        if self.buffer_bytes * 4 > data:
            raise ValueError(
                f"scale buffer_bytes must be at most a quarter of the data "
                f"({data // 4} bytes for {self.entries} entries); got {self.buffer_bytes}"
            )

    @classmethod
    def small(cls) -> Scale:
        """A few seconds' run: for tests, notebooks and the dashboard."""
        return cls(entries=100_000, buffer_bytes=64 << 10, reads=4_000, mix_ops=2_000)

    def system(self, bits_per_entry: float | None, sum_fpr: float | None) -> System:
        return System(
            entries=self.entries,
            entry_bytes=self.entry_bytes,
            block_bytes=self.block_bytes,
            buffer_bytes=self.buffer_bytes,
            bits_per_entry=bits_per_entry,
            sum_fpr=sum_fpr,
        )


@dataclass(frozen=True)
class ValidationResult:
    design: Design
    scale: Scale
    budget: dict[str, float]
    workload: Workload | None
    predicted: dict[str, Any]
    refined: dict[str, Any]
    measured: dict[str, Any]
    checks: dict[str, int]
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def relative_error(self) -> dict[str, Any]:
        return relative_errors(self.predicted, self.measured)

    @property
    def refined_relative_error(self) -> dict[str, Any]:
        return relative_errors(self.refined, self.measured)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``wacky validate --json``."""
        return {
            "design": {**self.design.knobs, "filters": self.design.filters},
            "scale": asdict(self.scale),
            "budget": self.budget,
            "workload": None if self.workload is None else asdict(self.workload),
            "predicted": self.predicted,
            "refined": self.refined,
            "measured": self.measured,
            "relative_error": self.relative_error,
            "refined_relative_error": self.refined_relative_error,
            "checks": self.checks,
            "seconds": self.seconds,
            **self.extra,
        }


def relative_error(predicted: float | None, measured: float | None) -> float | None:
    """(predicted - measured) / measured; 0 when both are 0, None when undefined."""
    if predicted is None or measured is None:
        return None
    if measured == 0:
        return 0.0 if predicted == 0 else None
    return (predicted - measured) / measured


def relative_errors(model: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {m: relative_error(model.get(m), measured.get(m)) for m in METRICS}
    levels = []
    for i in range(max(len(model["levels"]), len(measured["levels"]))):
        p = model["levels"][i] if i < len(model["levels"]) else {"runs": 0, "entries": 0}
        m = measured["levels"][i] if i < len(measured["levels"]) else {"runs": 0, "entries": 0}
        levels.append({
            "level": i + 1,
            "runs_match": p["runs"] == m["runs"],
            "entries": relative_error(p["entries"], m["entries"]),
        })
    out["levels"] = levels
    out["levels_match"] = len(model["levels"]) == len(measured["levels"]) and all(
        row["runs_match"] for row in levels
    )
    return out


def range_entries_for(scale: Scale, workload: Workload | None, entries_per_block: int) -> int:
    """Entries per range read: the workload's range length if it has one, else a short range."""
    if workload is not None and workload.range_blocks > 0:
        return max(1, round(workload.range_blocks * entries_per_block))
    return scale.range_entries


def theta_of(costs: dict[str, float], workload: Workload | None, entries_per_block: int):
    """Eq 16 from per-operation costs: r R + z R_zero + w W + v (range I/O)."""
    if workload is None:
        return None
    return (
        workload.point_reads * costs["point_read"]
        + workload.zero_reads * costs["zero_result_read"]
        + workload.writes * costs["write_amp"] / entries_per_block
        + workload.range_reads * costs["range_io"]
    )


def predict_paper(
    design: Design, system: System, workload: Workload | None, range_entries: int
) -> dict[str, Any]:
    """The paper's model (realizable run counts) at exactly this scale."""
    a = analyze(design, system, realizable=True)
    B = system.entries_per_block
    out = {
        "write_amp": a.write_amp,
        "zero_result_read": a.zero_result_read,
        "point_read": a.point_read,
        "point_read_uniform": a.point_read_uniform,
        "range_runs": a.range_runs,
        # One block per run to reach the range, plus the result's blocks (Section 5).
        "range_io": a.range_runs + range_entries / B,
        "memory_bits_per_entry": a.memory_bits_per_entry,
        "levels": [
            {"level": row.level, "runs": int(row.runs), "entries": row.capacity_entries}
            for row in a.levels
        ],
    }
    out["theta"] = theta_of(out, workload, B)
    return out


def predict_refined(
    design: Design, system: System, workload: Workload | None, range_entries: int
) -> dict[str, Any]:
    """:mod:`cost_models.refined`: the tree that N unique inserts actually grow."""
    B = system.entries_per_block
    tree = grow(
        design.T, design.C, design.X, design.K, design.Z,
        entries=int(system.entries),
        buffer_entries=int(system.buffer_entries),
        entries_per_block=B,
        uniform=design.filters == "uniform",
        **system.budget,
    )
    c = grown_costs(tree, range_entries)
    out = {
        "write_amp": c.write_amp,
        "zero_result_read": c.zero_result_read,
        "point_read": c.point_read,
        "point_read_uniform": c.point_read_uniform,
        "range_runs": c.range_runs,
        "range_io": c.range_runs + range_entries / B,
        "memory_bits_per_entry": c.memory_bits_per_entry,
        "levels": [
            {"level": i + 1, "runs": len(lvl.run_entries), "entries": lvl.entries}
            for i, lvl in enumerate(tree.levels)
        ],
    }
    out["theta"] = theta_of(out, workload, B)
    return out


def _measured_levels(engine: Engine) -> tuple[list[dict[str, Any]], float]:
    levels, bits, stored = [], 0.0, 0
    for lvl in engine.levels():
        runs = [r for r in lvl["runs"] if r["entries"] > 0]
        levels.append({
            "level": len(levels) + 1,
            "runs": len(runs),
            "entries": sum(r["entries"] for r in runs),
            "max_runs": int(lvl["max_runs"]),
        })
        for r in runs:
            bits += r["entries"] * r["filter_bits_per_key"]
            stored += r["entries"]
    return levels, (bits / stored if stored else 0.0)


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
) -> ValidationResult:
    """Predict, build, measure and compare ``design`` at ``scale`` (default: 2M entries).

    Give the filter memory as ``bits_per_entry`` (default 5) or ``sum_fpr``.
    """
    scale = scale or Scale()
    if bits_per_entry is None and sum_fpr is None:
        bits_per_entry = 5.0
    system = scale.system(bits_per_entry, sum_fpr)  # validates the budget
    report = progress or (lambda fraction, message: None)
    start = time.perf_counter()
    B = system.entries_per_block
    range_entries = range_entries_for(scale, workload, B)
    predicted = predict_paper(design, system, workload, range_entries)
    refined = predict_refined(design, system, workload, range_entries)

    with tempfile.TemporaryDirectory(prefix="wacky-validate-", dir=workdir) as tmp:
        engine = Engine(
            Path(tmp) / "db",
            **design.knobs,
            filters=design.filters,
            entry_bytes=scale.entry_bytes,
            block_bytes=scale.block_bytes,
            buffer_bytes=scale.buffer_bytes,
            **system.budget,
        )
        try:
            load = tr.load_trace(scale.entries, entry_bytes=scale.entry_bytes, seed=scale.seed)
            report(0.0, "loading")
            loaded = replay(
                engine, load,
                progress=lambda done, total: report(LOAD_SHARE * done / total, "loading"),
            )
            levels, memory = _measured_levels(engine)
            keys = load.keys
            level_L_keys = keys[: levels[-1]["entries"]]  # Level L holds the oldest entries
            parts = _read_parts(keys, level_L_keys, scale, workload, range_entries)
            full = tr.build_trace(
                [("load", load.kinds, load.keys, load.args), *parts],
                entry_bytes=scale.entry_bytes,
                meta={"design": design.knobs, "filters": design.filters, "scale": asdict(scale),
                      "budget": system.budget},
            )
            read_phases = [p[0] for p in parts]
            reads = replay(
                engine, full, phases=read_phases,
                progress=lambda done, total: report(
                    LOAD_SHARE + (1 - LOAD_SHARE) * done / total, "reading"),
            )
            if save_trace is not None:
                tr.write_trace(save_trace, full)
        finally:
            engine.close()

    phases = {**loaded.phases, **reads.phases}
    measured: dict[str, Any] = {
        "write_amp": phases["load"]["put"].blocks_written * B / scale.entries,
        "zero_result_read": _per_op(phases["zero"], "zero", "blocks_read"),
        "point_read": _per_op(phases["level_L_reads"], "get", "blocks_read"),
        "point_read_uniform": _per_op(phases["uniform_reads"], "get", "blocks_read"),
        "range_runs": _per_op(phases["range"], "range", "runs_probed"),
        "range_io": _per_op(phases["range"], "range", "blocks_read"),
        "memory_bits_per_entry": memory,
        "levels": levels,
    }
    measured["theta"] = theta_of(measured, workload, B)
    extra: dict[str, Any] = {}
    if "mix" in phases:
        mix = phases["mix"]
        ops = sum(t.count for t in mix.values())
        io = sum(t.blocks_read + t.blocks_written for t in mix.values())
        extra["mix_io_per_op"] = io / ops if ops else None
    checks = {
        "get_misses": loaded.get_misses + reads.get_misses,
        "zero_hits": loaded.zero_hits + reads.zero_hits,
        "wrong_values": loaded.wrong_values + reads.wrong_values,
    }
    report(1.0, "done")
    return ValidationResult(
        design=design,
        scale=scale,
        budget=dict(system.budget),
        workload=workload,
        predicted=predicted,
        refined=refined,
        measured=measured,
        checks=checks,
        seconds=time.perf_counter() - start,
        extra=extra,
    )


def _read_parts(
    keys: np.ndarray,
    level_L_keys: np.ndarray,
    scale: Scale,
    workload: Workload | None,
    range_entries: int,
) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """The read phase, one sub-phase per kind so each is measured alone, then the mix."""
    specs = [
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
        kinds, op_keys, args = tr.read_ops(
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
            **budget,
        )
        try:
            result = replay(engine, trace)
        finally:
            engine.close()
    out = result.to_dict()
    out["design"] = {**design.knobs, "filters": design.filters}
    return out
