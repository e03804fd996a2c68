"""Validation under skewed keys, updates and a block cache: the skew model against the engine.

After the usual preload, :func:`validation.skew_window.measure_skew_window` runs the workload's
writes (updates and inserts) with its existing-key reads between them, over whole cycles of
Level L. ``point_read_uniform`` is here the I/O of an existing-key read
drawn from the workload's read distribution, cache hits included; ``cache_hit_rate`` and
``cache_hit_rate_per_level`` are compared in absolute terms (the issue's target is 0.05).

The prediction is :mod:`cost_models.skew` (write amplification, existing-key reads, the cache)
next to the finite model (zero-result and range reads, which skew does not change; they run
spread over the window, counted apart from the skewed reads). The worst-case read of a key at
Level L is not measured (``point_read`` is None): updates move keys out of Level L.
There is no simulator reference: the engine simulator replays uniform inserts only.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from validation import generators
from validation.replay import replay
from validation.results import Checks, Costs, ValidationResult, measured_levels, with_theta
from validation.scale import ENGINE_WAL, Scale
from validation.skew_window import measure_skew_window
from wacky_model.skew import skew_costs, skewed_workload
from wacky_model.types import Design, System, Workload

WARMUP_LOADS = 0.5  # the warm-up is this many times N writes
WINDOW_LOADS = 0.5  # the window is at least this many times N writes ...
WINDOW_CYCLES = 1.2  # ... and this many predicted cycles of Level L ...
WINDOW_MAX_LOADS = 8.0  # ... but at most this many times N


def _with_skew(c: Costs, write_amp: float, read: float, hit: float,
               per_level: tuple[float, ...]) -> Costs:
    return replace(c, write_amp=write_amp, point_read_uniform=read, cache_hit_rate=hit,
                   cache_hit_rate_per_level=per_level)


def check_skew_workload(workload: Workload | None) -> Workload:
    if workload is None or workload.writes <= 0 or workload.point_reads <= 0:
        raise ValueError("validating skew or a cache needs a workload with writes > 0 and "
                         "point_reads > 0: the window runs writes with existing-key reads "
                         "between them")
    return workload


def validate_skew(
    design: Design,
    *,
    workload: Workload | None,
    scale: Scale,
    system: System,
    range_entries: int,
    paper: Costs,
    finite: Costs,
    progress: Any = None,
    workdir: str | Path | None = None,
) -> ValidationResult:
    """Run ``design`` on the engine under ``workload``'s skew and ``system.cache_bytes``; the
    paper's and the finite model's predictions are passed in (validation.runner makes them)."""
    from native_engine import Engine

    workload = check_skew_workload(workload)
    report = progress or (lambda fraction, message: None)
    start = time.perf_counter()
    B = system.entries_per_block
    n = scale.entries
    steady = skew_costs(design, system, workload)
    window_writes = int(min(WINDOW_MAX_LOADS * n,
                            max(WINDOW_LOADS * n, WINDOW_CYCLES * steady.cycle_writes)))
    with tempfile.TemporaryDirectory(prefix="wacky-validate-", dir=workdir) as tmp:
        engine = Engine(Path(tmp) / "db", **design.knobs, filters=design.filters,
                        entry_bytes=scale.entry_bytes, block_bytes=scale.block_bytes,
                        buffer_bytes=scale.buffer_bytes, wal=ENGINE_WAL,
                        cache_bytes=system.cache_bytes, **system.budget)
        try:
            load = generators.load_trace(n, entry_bytes=scale.entry_bytes, seed=scale.seed)
            report(0.0, "loading")
            loaded = replay(engine, load)
            report(0.2, "skewed window")
            side = scale.reads
            _, zero_keys, _ = generators.read_ops(
                load.keys, n=side, get_pool=load.keys, fractions={"zero": 1.0},
                range_entries=range_entries, seed=scale.seed * 1_000_003 + 31)
            _, range_lo, range_hi = generators.read_ops(
                load.keys, n=side, get_pool=load.keys, fractions={"range": 1.0},
                range_entries=range_entries, seed=scale.seed * 1_000_003 + 37)
            window = measure_skew_window(
                engine, load.keys, workload=skewed_workload(workload),
                warmup_writes=int(WARMUP_LOADS * n), window_writes=window_writes,
                seed=scale.seed * 1_000_003 + 29, zero_keys=zero_keys,
                ranges=np.stack([range_lo, range_hi], axis=1))
            levels, memory = measured_levels(engine)
        finally:
            engine.close()
    model = skew_costs(design, system, workload, history_writes=window.history_writes)
    zero, ranged = window.side["zero"], window.side["range"]
    measured = Costs(
        write_amp=window.blocks_written * B / window.writes,
        zero_result_read=zero[1] / max(zero[0], 1),
        # The worst case needs keys known to sit at Level L, which updates move: not measured.
        point_read=None,  # type: ignore[arg-type]
        point_read_uniform=window.read_blocks / window.reads,
        range_runs=ranged[2] / max(ranged[0], 1),
        range_io=ranged[1] / max(ranged[0], 1),
        memory_bits_per_entry=memory,
        levels=levels,
        cache_hit_rate=window.hit_rate,
        cache_hit_rate_per_level=window.hit_rate_per_level,
    )
    # Under skew an existing-key read costs what a read drawn from the read distribution costs.
    priced = replace(workload, expected_point_reads=1.0)

    def theta_of(c: Costs) -> Costs:  # the worst case carries no weight when u = 1
        return replace(with_theta(replace(c, point_read=0.0), priced, B),
                       point_read=c.point_read)

    measured = theta_of(measured)
    predicted = theta_of(
        _with_skew(finite, model.write_amp, model.point_read, model.cache_hit_rate,
                   model.cache_hit_rate_per_level))
    checks = Checks(get_misses=loaded.get_misses + window.not_found,
                    zero_hits=loaded.zero_hits + window.zero_hits,
                    wrong_values=loaded.wrong_values + window.wrong_values)
    hit_error = model.cache_hit_rate - window.hit_rate
    detail = {
        "workload": {"write_keys": workload.write_keys.spec, "read_keys": workload.read_keys.spec,
                     "update_fraction": workload.update_fraction,
                     "correlated": workload.correlated},
        "cache_bytes": system.cache_bytes,
        "cache_hit_rate_error": hit_error,  # absolute: predicted - measured
        "warmup_writes": window.warmup_writes,
        "history_writes": window.history_writes,
        "reads": window.reads,
        "invalidated_blocks": window.invalidated,
        "timeline": [{"writes": w, "hit_rate": h} for w, h in window.timeline],
        "measured_level_write_amp": [b * B / window.writes
                                     for b in window.level_blocks_written],
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
    report(1.0, "done")
    return ValidationResult(
        design=design, scale=scale, budget=dict(system.budget), workload=workload,
        predicted=predicted, paper=paper, simulated=None, measured=measured, checks=checks,
        seconds=time.perf_counter() - start, wal=ENGINE_WAL, phase="steady",
        window_writes=window.writes, major_compactions=window.major_compactions,
        window_complete=window.complete, model="skew", skew=detail)
