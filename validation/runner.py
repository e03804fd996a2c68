"""One validation on any engine (:func:`validate`): check the request, price the paper's model,
let the engine's adapter measure one window, and assemble the :class:`ValidationResult`."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import wacky_traces as tr
from validation.adapters import ADAPTERS, adapter_for
from validation.native import Progress, open_engine
from validation.predict import predict_paper, range_entries_for
from validation.replay import replay
from validation.results import ValidationResult
from validation.scale import ENGINE_WAL, Scale
from wacky_model.config import Configuration
from wacky_model.types import Compaction, Design, Workload

__all__ = ["Scale", "ValidationResult", "validate"]

PHASES = ("steady", "load")


def cannot_build(engine: str, stock: bool, compaction: Compaction, hash_levels: int = 0
                 ) -> str | None:
    """Why ``engine`` (with ``stock``) cannot build this configuration, naming the knob; None when
    it can (:meth:`validation.adapters.Adapter.refuses`)."""
    name = "rocksdb-stock" if engine == "rocksdb" and stock else engine
    return ADAPTERS[name].refuses(compaction, hash_levels)


def validate(design: Design | Configuration, *, workload: Workload | None = None,
             scale: Scale | None = None, bits_per_entry: float | None = None,
             sum_fpr: float | None = None, engine: str = "native", stock: bool = False,
             compaction: Compaction | None = None, cache_bytes: int = 0, phase: str = "steady",
             progress: Progress | None = None, save_trace: str | Path | None = None,
             workdir: str | Path | None = None) -> ValidationResult:
    """Predict, build, measure and compare ``design`` at ``scale`` (default: 2M entries) on
    ``engine`` ("native", "simulator", or "rocksdb": the driver, or with ``stock`` RocksDB's own
    compaction). The filter memory is ``bits_per_entry`` (default 5) or ``sum_fpr``. ``phase``
    "steady" measures a window of inserts into the preloaded tree, "load" the load (native only).
    The model predicting is the window's: finite (whole levels), partial (files), skew (skewed
    keys, updates or a cache of ``cache_bytes``), or stock RocksDB's, whose level-0 trigger, file
    size and pick are ``compaction``'s. ``design`` may be a ``Configuration`` (what ``recommend``
    returns): its design, compaction and filter bits are validated at the scale's buffer."""
    adapter = adapter_for(engine, stock)
    hash_levels = 0
    if isinstance(design, Configuration):
        config, design = design, design.design
        compaction = compaction or config.compaction
        if config.memory is not None:
            hash_levels = config.memory.hash_levels
            if bits_per_entry is None and sum_fpr is None:
                bits_per_entry = config.memory.filter_bits_per_entry
    why = adapter.refuses(compaction or Compaction(), hash_levels)
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
    run = adapter.run(design, system, scale, workload, range_entries, phase=phase,
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


def replay_file(path: str | Path, workdir: str | Path | None = None) -> dict[str, Any]:
    """Replay a saved trace into a fresh engine built as its metadata describes, else the default
    design (T=10, C=9, leveled, 5 bits per entry)."""
    try:
        trace = tr.read_trace(path)
    except OSError as err:
        raise ValueError(f"trace: cannot read {path}: {err.strerror}") from None
    meta = trace.meta or {}
    knobs = meta.get("design", {"T": 10.0, "C": 9.0, "X": 1.0, "K": 0.0, "Z": 0.0})
    design = Design(**knobs, filters=meta.get("filters", "optimized"))
    scale = meta.get("scale", {})
    budget = meta.get("budget", {"bits_per_entry": 5.0})
    built = {"entry_bytes": trace.entry_bytes, "block_bytes": int(scale.get("block_bytes", 4096)),
             "buffer_bytes": int(scale.get("buffer_bytes", 1 << 20)), **budget}
    with open_engine(design, workdir, **built) as engine:
        result = replay(engine, trace)
    # What the engine was built with, and whether the design came from the trace.
    return {**result.to_dict(), "design": {**design.knobs, "filters": design.filters},
            "engine": {**built, "design_from_trace": "design" in meta}}
