"""One Theta (issue 29): every model's Theta is its cost row times the workload's weights
(cost_models/objective.py), so a block written costs phi block reads and a filter probe its
probe cost on every path, including the ones that used to write Eq 16 out by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cost_models.objective import COST_ROW, cost_row, theta, theta_of_row
from validation.results import Costs, with_theta
from wacky_model import Design, System, Workload, analyze
from wacky_model.analysis import steady_costs
from wacky_model.files import native_file_costs
from wacky_model.granularity import file_cost
from wacky_model.rocksdb_tuning import RocksDBConfig, price
from wacky_model.skew_search import skew_theta
from wacky_model.types import Compaction, workload_vector

W = Workload(point_reads=0.3, zero_reads=0.2, writes=0.4, range_reads=0.1, range_blocks=3.0)
SYSTEM = System(entries=2**24, bits_per_entry=6)
LAZY = Design(T=6, C=5, X=1, K=1, Z=0)


def test_the_linear_form_is_eq16() -> None:
    row = cost_row(point_read=1.2, zero_result_read=0.3, write_cost=0.5, range_runs=7.0,
                   range_spread=0.9, point_read_uniform=1.1, filter_probes=8.0)
    assert row.shape == (len(COST_ROW),)
    direct = theta(0.3, 0.2, 0.4 * 2.0, 0.1, 1.2, 0.3, 0.5, 7.0 + 3.0 * 0.9, 1.1, 0.25, 8.0,
                   0.01)
    weights = workload_vector(replace(W, expected_point_reads=0.25), 2.0, 0.01)
    assert theta_of_row(row, weights) == pytest.approx(float(direct), rel=1e-12)


def _paths(system: System) -> dict[str, float]:
    """Theta of the same workload on every path that prices a design."""
    skewed = replace(W, write_keys="zipf:0.9", read_keys="zipf:0.9")
    files = native_file_costs(Design(T=6, C=5, X=1, K=0, Z=0), system, Compaction(), 2**20,
                              2**18)
    measured = Costs(write_amp=9.0, zero_result_read=0.2, point_read=1.3,
                     point_read_uniform=1.1, range_runs=6.0, range_io=9.0,
                     memory_bits_per_entry=6.0, levels=())
    return {
        "analyze (paper)": analyze(LAZY, system, W).theta,
        "finite": steady_costs(LAZY, system, W).theta,
        "skew": skew_theta(LAZY, system, skewed).theta,
        "files": file_cost(files, W, system),
        "rocksdb": price(RocksDBConfig(10.0, 4, True, 8 << 20, 8 << 20, 10.0, 32 << 20), W,
                         system).theta,
        "measured": with_theta(measured, W, system.entries_per_block,
                               system.write_cost_ratio).theta,
    }


def test_every_path_charges_phi_for_its_writes() -> None:
    """Theta is linear in phi: doubling it adds the writes' share of W once more."""
    base, dear = _paths(SYSTEM), _paths(replace(SYSTEM, write_cost_ratio=2.0))
    for path in base:
        assert dear[path] > base[path], path


def test_every_path_that_probes_filters_charges_the_probe_cost() -> None:
    cheap, dear = _paths(SYSTEM), _paths(replace(SYSTEM, probe_cost=1e-3))
    for path in ("analyze (paper)", "finite", "skew", "files", "rocksdb"):
        assert dear[path] > cheap[path], path
    assert dear["measured"] == cheap["measured"]  # measured I/O counts no in-memory probe
