"""Does ``recommend --target rocksdb`` pick well on RocksDB itself?

For workloads spanning the read/write mix, each configuration the tuner recommends is measured on
stock RocksDB, with RocksDB's defaults (scaled to the buffer) and with a grid of multipliers at
the defaults, all under the stock protocol (``validation.rocksdb_runner.run_stock``). A
configuration's measured costs do not depend on the workload, so each is run once and Θ (Eq 16)
is taken from its measurements for every workload. The recommended configuration must be the
best measured or within ``TOLERANCE`` of it; the gain over the defaults is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import rocksdb_bridge
from validation.results import Costs, with_theta
from validation.rocksdb_runner import run_stock, stock_costs
from validation.scale import Scale
from wacky_model.rocksdb_tuning import (
    DEFAULT_BASE_BUFFERS,
    DEFAULT_MULTIPLIER,
    DEFAULT_TRIGGER,
    Priced,
    RocksDBConfig,
    recommend_rocksdb,
)
from wacky_model.types import System, Workload

TOLERANCE = 0.05
GRID_MULTIPLIERS = (4.0, 6.0, 8.0, 10.0, 12.0, 16.0)


def ranking_workloads(range_blocks: float) -> list[tuple[str, Workload]]:
    """Six mixes from write-heavy to read-heavy; short range reads of ``range_blocks``."""
    mixes = [("writes 90%", 0.05, 0.05, 0.90, 0.0), ("writes 70%", 0.10, 0.15, 0.70, 0.05),
             ("writes 50%", 0.20, 0.25, 0.50, 0.05), ("writes 30%", 0.30, 0.35, 0.30, 0.05),
             ("writes 10%", 0.40, 0.45, 0.10, 0.05), ("writes 2%", 0.48, 0.45, 0.02, 0.05)]
    return [(name, Workload(p, z, w, r, range_blocks)) for name, p, z, w, r in mixes]


def default_config(buffer_bytes: int, bits_per_key: float,
                   multiplier: float = DEFAULT_MULTIPLIER) -> RocksDBConfig:
    return RocksDBConfig(multiplier, DEFAULT_TRIGGER, False, buffer_bytes, buffer_bytes,
                         bits_per_key, DEFAULT_BASE_BUFFERS * buffer_bytes)


@dataclass(frozen=True)
class RankingRow:
    workload_name: str
    workload: Workload
    recommended: RocksDBConfig
    predicted: Priced
    measured_theta: dict[str, float]  # label -> measured Θ ("recommended", "defaults", "T=…")

    @property
    def best_label(self) -> str:
        return min(self.measured_theta, key=self.measured_theta.get)

    @property
    def gap_to_best(self) -> float:
        best = min(self.measured_theta.values())
        return self.measured_theta["recommended"] / best - 1.0

    @property
    def gain_over_defaults(self) -> float:
        return 1.0 - self.measured_theta["recommended"] / self.measured_theta["defaults"]

    @property
    def grid_best(self) -> tuple[str, float]:
        grid = {k: v for k, v in self.measured_theta.items() if k.startswith("T=")}
        label = min(grid, key=grid.get)
        return label, grid[label]


def run_ranking(scale: Scale, bits_per_entry: float = 5.0,
                on_done: Callable[[int, int, str], None] | None = None) -> list[RankingRow]:
    """Recommend for each workload, measure every distinct configuration once, rank."""
    from validation.runner import range_entries_for

    native = rocksdb_bridge.load()
    system = System(entries=scale.entries, entry_bytes=scale.entry_bytes,
                    block_bytes=scale.block_bytes, buffer_bytes=scale.buffer_bytes,
                    bits_per_entry=bits_per_entry)
    B = system.entries_per_block
    range_entries = range_entries_for(scale, None, B)
    workloads = ranking_workloads(range_entries / B)
    recs = [(name, w, recommend_rocksdb(w, system)) for name, w in workloads]
    buffer = scale.buffer_bytes
    configs: dict[RocksDBConfig, None] = {r.best.config: None for _, _, r in recs}
    configs[default_config(buffer, bits_per_entry)] = None
    for T in GRID_MULTIPLIERS:
        configs[default_config(buffer, bits_per_entry, T)] = None
    measured: dict[RocksDBConfig, Costs] = {}
    for i, config in enumerate(configs, start=1):
        run = run_stock(config.export(system), scale, range_entries, native,
                        lambda fraction, message: None, None)
        measured[config] = stock_costs(run, None, B)
        if on_done is not None:
            on_done(i, len(configs), _label(config))
    rows = []
    for name, w, rec in recs:
        thetas = {"recommended": _theta(measured[rec.best.config], w, B),
                  "defaults": _theta(measured[default_config(buffer, bits_per_entry)], w, B)}
        for T in GRID_MULTIPLIERS:
            thetas[f"T={T:g}"] = _theta(measured[default_config(buffer, bits_per_entry, T)], w, B)
        rows.append(RankingRow(name, w, rec.best.config, rec.best, thetas))
    return rows


def _theta(costs: Costs, workload: Workload, B: int) -> float:
    value = with_theta(replace(costs, theta=None), workload, B).theta
    assert value is not None
    return value


def _label(c: RocksDBConfig) -> str:
    return (f"multiplier {c.multiplier:g}, trigger {c.level0_trigger}, first level "
            f"{c.level_base_bytes // c.buffer_bytes} buffers, files "
            f"{c.file_bytes / c.buffer_bytes:g} buffers"
            + ("" if c.dynamic else ", static targets"))


def render_ranking(rows: Sequence[RankingRow]) -> list[str]:
    """Markdown lines: one row per workload."""
    lines = ["| workload (point / zero / writes / range) | recommended | Θ predicted | "
             "Θ measured | RocksDB's defaults | best grid multiplier | best measured | "
             "gap to best | gain over defaults |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        w = r.workload
        grid_label, grid_theta = r.grid_best
        lines.append(
            f"| {w.point_reads:g} / {w.zero_reads:g} / {w.writes:g} / {w.range_reads:g} | "
            f"{_label(r.recommended)} | {r.predicted.theta:.4g} | "
            f"{r.measured_theta['recommended']:.4g} | {r.measured_theta['defaults']:.4g} | "
            f"{grid_label}: {grid_theta:.4g} | {r.best_label} | {r.gap_to_best:+.1%} | "
            f"{r.gain_over_defaults:+.1%} |")
    return lines
