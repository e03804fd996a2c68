"""The one pricing function: any :class:`~wacky_model.config.Configuration`, any workload.

:func:`price` prices a configuration with the cycle model its compaction needs and the stages
the workload and the system put in play, and returns one cost type (:class:`Priced`) whose
``model`` and ``keys`` say what priced it:

* whole levels, uniform keys and no cache: the finite model (M1-M7), or the paper's Eq 8-16;
* whole levels under skewed keys, updates or a cache: the skew model (S1-S8);
* files: the partial-merge model (P1-P6) with the engine's sizing, or stock RocksDB's;
* universal: U1-U4.

Θ is Eq 16 applied once (:mod:`cost_models.objective`) to the cost row, with the workload's
weights, or with ``rho`` the robust objective's worst case. The search prices its tables with
the same models in batches; this is the function that prices one configuration, which a
recommendation's cost can always be checked against.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from cost_models.objective import COST_ROW, cost_row, theta_shared
from wacky_model.config import Configuration, features_of, keys_of, weights_of
from wacky_model.types import Compaction, Design, System, Workload

# What priced a configuration (Priced.model).
MODELS = ("finite", "paper", "skew", "files", "rocksdb", "universal")
# A file-granular configuration is priced over a window of this many flushes from the settled
# tree (P5), as the search's file side and the RocksDB target price it.
WINDOW_FLUSHES = 256


@dataclass(frozen=True)
class Priced:
    """The one cost type: a configuration's costs per operation, the cost row Θ is linear in
    (:data:`cost_models.objective.COST_ROW`), Θ, and what priced them."""

    configuration: Configuration
    model: str  # the cycle model (MODELS), or "skew" when S1-S8 priced whole levels
    keys: str  # the key distributions and cache the costs assume, in words
    write_amp: float
    point_read: float  # an existing key: Level L's (the paper's worst case), or under skew drawn
    zero_result_read: float
    range_runs: float
    memory_bits_per_entry: float
    row: np.ndarray
    theta: float  # Eq 16 (with rho: the worst case within KL rho)
    cache_hit_rate: float | None = None
    detail: Any = None  # the model's own result (its per-level figures)

    def to_dict(self) -> dict[str, Any]:
        return {"configuration": self.configuration.to_dict(), "model": self.model,
                "keys": self.keys, "theta": self.theta, "write_amp": self.write_amp,
                "point_read": self.point_read, "zero_result_read": self.zero_result_read,
                "range_runs": self.range_runs, "memory_bits_per_entry": self.memory_bits_per_entry,
                "cache_hit_rate": self.cache_hit_rate,
                "row": dict(zip(COST_ROW, map(float, self.row), strict=True))}


def price(config: Configuration, workload: Workload, system: System, *, model: str = "finite",
          rho: float | None = None) -> Priced:
    """``config`` on ``system`` under ``workload`` (module doc): the cycle model its compaction
    needs, then the skew stage when the workload or the system put it in play, then Θ.
    ``model`` chooses the finite model or the paper's for whole levels; combinations
    :mod:`wacky_model.compat` refuses raise ``ValueError``."""
    from wacky_model.compat import check, features_in
    from wacky_model.skew import needs_skew_model

    features = features_in(workload, system, model, rho) | features_of(config)
    if config.memory is not None:  # the configuration fixes the hash levels: none are "given"
        features.discard("hash_levels")
    check(features)
    s = config.system(system)
    c = config.compaction
    name, costs = _cycle(config, s, model)
    probes = getattr(costs, "filter_probes", costs.range_runs)
    point_read, write_amp, hit, detail = costs.point_read, costs.write_amp, None, costs
    if needs_skew_model(workload, s):
        if c.granularity == "file" or c.style == "universal":
            from wacky_model.skew import file_skew_analysis

            k = file_skew_analysis(config.design, c, s, workload)
        else:
            from wacky_model.skew import skew_analysis

            k = skew_analysis(config.design, s, workload)
            name = "skew"
        point_read, write_amp, hit, detail = k.point_read, k.write_amp, k.cache_hit_rate, k
    # Under skew, existing-key reads are drawn from the read distribution (S3-S7): the worst
    # case and the uniform expectation both give way to it.
    row = cost_row(point_read=point_read, zero_result_read=costs.zero_result_read,
                   write_cost=write_amp / s.entries_per_block, range_runs=costs.range_runs,
                   point_read_uniform=(costs.point_read_uniform if hit is None and detail is costs
                                       else None), filter_probes=probes)
    theta = float(theta_shared(row, weights_of(workload, s, rho))[0])
    return Priced(config, name, keys_of(workload, s), float(write_amp), float(point_read),
                  float(costs.zero_result_read), float(costs.range_runs),
                  float(costs.memory_bits_per_entry), row, theta, hit, detail)


def _cycle(config: Configuration, system: System, model: str) -> tuple[str, Any]:
    """The cycle model's name and costs (uniform keys, no cache)."""
    c = config.compaction
    if c.granularity == "file" or c.style == "universal":
        costs = _file_costs(config.design, c, system)
        return ("universal" if c.style == "universal" else
                "rocksdb" if config.target == "rocksdb" else "files"), costs
    from wacky_model.analysis import analyze

    a = analyze(config.design, system, realizable=True)
    return model, (a.finite if model == "finite" else a)


@functools.lru_cache(maxsize=4096)
def _file_costs(design: Design, compaction: Compaction, system: System) -> Any:
    """The partial-merge (or universal) model's costs over ``WINDOW_FLUSHES`` flushes from the
    settled tree, as the search's file side and the RocksDB target price them (P5)."""
    if compaction.sizing == "wacky" and compaction.style == "wacky":
        from wacky_model.files import native_file_costs

        return native_file_costs(design, system, compaction, system.entries,
                                 WINDOW_FLUSHES * system.buffer_entries, settled=True)
    from wacky_model.rocksdb_tuning import stock_costs

    return stock_costs(design, compaction, system)
