"""Costs of a design under skewed keys, updates and a block cache (``cost_models.skew``).

The plain-words face of S1-S7 (docs/MODEL.md, "Skew and a block cache"): a :class:`Workload`
says which keys writes and reads touch and how many writes are updates; a :class:`System` says
how big the cache is. With uniform keys, no updates and no cache nothing here is used, and every
cost is the finite model's exactly (``Workload.skewed`` and ``System.cache_bytes`` decide).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from cost_models.objective import cost_row, theta_shared
from cost_models.skew import (
    KeyMap,
    SkewedCosts,
    SkewedTree,
    SkewedWorkload,
    key_map,
    skewed_tree,
)
from wacky_model.types import (
    Design,
    KeyDistribution,
    System,
    Workload,
    robust_weights,
    workload_vector,
)

# A read-only workload priced as one write per this many reads: runs then outlive any cache.
NO_WRITES_READS_PER_WRITE = 1e12


@dataclass(frozen=True)
class SkewAnalysis:
    """What the skew model says about one design (``wacky analyze --json``'s ``skew``)."""

    write_amp: float  # entries written per write, updates absorbed
    point_read: float  # block reads per existing-key read drawn from the read distribution
    cache_hit_rate: float
    cache_hit_rate_per_level: tuple[float, ...]
    read_buffer_share: float  # existing-key reads the write buffer answers
    read_level_share: tuple[float, ...]  # existing-key reads whose newest version is at Level i
    run_lifetime_writes: tuple[float, ...]  # how long a cached block's run lives, per level
    cycle_writes: float  # writes between full merges of Level L
    # What filters allocated for these reads would give (the weighted Lagrangian, S8); the
    # engine builds App. C's, which the figures above price.
    skew_aware_filters: dict[str, float | list[float]] | None = None
    theta: float | None = None  # Eq 16 under the skew, with a workload (skew_search)

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def needs_skew_model(workload: Workload | None, system: System) -> bool:
    """True when the skew model prices something the finite model does not."""
    return system.cache_bytes > 0 or (workload is not None and workload.skewed)


def reads_per_write(workload: Workload | None) -> float:
    """Existing-key reads per write, which set how long a cached block lives in reads."""
    if workload is None:
        return 1.0
    if workload.writes <= 0:
        return math.inf
    return workload.point_reads / workload.writes


def skewed_workload(workload: Workload | None, *, history_writes: float = math.inf
                    ) -> SkewedWorkload:
    """The math layer's form of ``workload`` (uniform, one read per write, when None)."""
    if workload is None:
        return SkewedWorkload(KeyDistribution(), KeyDistribution(),
                              history_writes=history_writes)
    lookups = workload.point_reads + workload.zero_reads
    return SkewedWorkload(workload.write_keys, workload.read_keys, workload.update_fraction,
                          workload.correlated, reads_per_write(workload),
                          workload.zero_reads / lookups if lookups > 0 else 0.0,
                          history_writes)


def skew_key_map(system: System, workload: Workload | None) -> KeyMap:
    """What S1-S7 know of the keys of ``workload`` on ``system`` whatever the design: built
    once, it prices any number of designs (``skew_costs(..., keys=)``)."""
    return key_map(system.entries, skewed_workload(workload))


def skew_tree(design: Design, system: System, workload: Workload | None, *,
              history_writes: float = math.inf, keys: KeyMap | None = None) -> SkewedTree:
    """S1-S4 (and S8) for ``design`` holding ``system.entries`` keys, before the cache:
    ``.costs(cache_blocks(system))`` is :func:`skew_costs`. ``history_writes``: the writes since
    the keys were loaded (inf: the steady state of the workload's writes). ``keys``: the
    workload's :func:`skew_key_map` on this system, when pricing many designs."""
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    if design.filters != "optimized":
        raise ValueError("the skew model prices optimized (App. C) filters only; got filters="
                         f"{design.filters!r}")
    w = skewed_workload(workload, history_writes=history_writes)
    if math.isinf(w.reads_per_write):  # no writes: nothing invalidates, blocks live on
        w = replace(w, reads_per_write=NO_WRITES_READS_PER_WRITE)
    return skewed_tree(
        *design.knobs.values(), entries=system.entries, buffer_entries=system.buffer_entries,
        entries_per_block=system.entries_per_block, **system.budget, workload=w, keys=keys)


def cache_blocks(system: System) -> int:
    """The LRU cache's size in blocks."""
    return system.cache_bytes // system.block_bytes


def skew_costs(design: Design, system: System, workload: Workload | None, *,
               history_writes: float = math.inf, keys: KeyMap | None = None) -> SkewedCosts:
    """S1-S7 for ``design`` holding ``system.entries`` keys (arguments as :func:`skew_tree`)."""
    tree = skew_tree(design, system, workload, history_writes=history_writes, keys=keys)
    return tree.costs(cache_blocks(system))


def analysis_of(c: SkewedCosts) -> SkewAnalysis:
    """The plain-words face of the skew model's costs."""
    return SkewAnalysis(
        write_amp=c.write_amp, point_read=c.point_read, cache_hit_rate=c.cache_hit_rate,
        cache_hit_rate_per_level=c.cache_hit_rate_per_level,
        read_buffer_share=c.read_buffer_share, read_level_share=c.read_level_share,
        run_lifetime_writes=c.run_lifetime_writes, cycle_writes=c.cycle_writes,
        skew_aware_filters={"probe_weights": list(c.probe_weights),
                            "point_read": c.weighted_point_read,
                            "zero_result_read": c.weighted_zero_result_read,
                            "zero_result_read_app_c": c.zero_result_read})


def skew_analysis(design: Design, system: System, workload: Workload | None, *,
                  keys: KeyMap | None = None) -> SkewAnalysis:
    return analysis_of(skew_costs(design, system, workload, keys=keys))


def skew_theta_of(system: System, workload: Workload, finite: Any, *, point_read: float,
                  write_amp: float, rho: float | None = None) -> float:
    """Theta under skew (``wacky_model.skew_search``'s doc) from the skew model's existing-key
    read and write amplification and the finite model's other costs (``finite``, the design's
    ``SteadyCosts``); with ``rho``, its worst case over the mixes within KL ``rho`` (Endure's
    robust objective on the same row: each operation keeps its cost at the nominal mix)."""
    # Existing-key reads are priced as drawn from the read distribution (S3-S7), so the
    # worst case and the uniform expectation both give way to it.
    row = cost_row(point_read=point_read, zero_result_read=finite.zero_result_read,
                   write_cost=write_amp / system.entries_per_block,
                   range_runs=finite.range_runs, filter_probes=finite.filter_probes)
    weights = (workload_vector(workload, system.write_cost_ratio, system.probe_cost)[None]
               if rho is None else
               robust_weights([workload], system.write_cost_ratio, rho, system.probe_cost))
    return float(theta_shared(row, weights)[0])
