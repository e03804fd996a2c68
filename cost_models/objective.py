"""Theta (Eq 16): the one place per-operation costs become one number.

Every model's costs reach Theta the same way: as a cost row (:data:`COST_ROW`, built by
:func:`cost_row` or a vectorized model's own stacking) times the workload's weights
(:func:`theta_weights`). Theta is linear in the row, which is what lets the search price a
table of designs for many workloads with one matrix product; the robust objective
(:mod:`cost_models.robust`) works on the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cost_models.costs import range_cost
from cost_models.robust import worst_case_cost
from cost_models.structure import ArrayLike


def theta(
    point_reads: ArrayLike, zero_reads: ArrayLike, writes: ArrayLike, range_reads: ArrayLike,
    R: ArrayLike, R_zero: ArrayLike, W: ArrayLike, V: ArrayLike, R_uniform: ArrayLike = 0.0,
    uniform_share: ArrayLike = 0.0, probes: ArrayLike = 0.0, probe_cost: ArrayLike = 0.0,
) -> np.ndarray:
    """Eq 16: average I/O per operation, Theta = r R + z R_zero + w W + v V. ``uniform_share`` of
    the existing-key reads pay ``R_uniform`` (the key drawn uniformly over the entries) instead
    of R (the key in Level L, the paper's worst case). Each point read also pays ``probe_cost``
    (a filter or hash-table probe, in block reads) per probe of :func:`filter_probes`; the
    paper's Theta is ``probe_cost = 0``."""
    u = np.asarray(uniform_share, dtype=float)
    reads = np.asarray(point_reads) + np.asarray(zero_reads)
    return (
        np.asarray(point_reads) * ((1.0 - u) * R + u * np.asarray(R_uniform))
        + np.asarray(zero_reads) * R_zero
        + np.asarray(writes) * W
        + np.asarray(range_reads) * V
        + reads * np.asarray(probe_cost) * np.asarray(probes)
    )


# A cost row holds, per design, what Theta needs whatever the workload: Theta is linear in it.
COST_ROW = ("point_read", "zero_result_read", "write_cost", "range_runs", "range_spread",
            "point_read_uniform", "filter_probes")


def theta_weights(
    point_reads: ArrayLike, zero_reads: ArrayLike, writes: ArrayLike, range_reads: ArrayLike,
    range_blocks: ArrayLike, write_cost_ratio: ArrayLike = 1.0, uniform_share: ArrayLike = 0.0,
    probe_cost: ArrayLike = 0.0,
) -> np.ndarray:
    """Eq 16 as a linear form over a cost row (:data:`COST_ROW`): Theta = row @ weights. The
    weights are :func:`theta` and :func:`range_cost` applied to the unit rows, so this is Eq 16
    itself, not a second copy of it. Workload arrays broadcast; weights are the last axis.
    ``write_cost_ratio`` (phi) charges a block written phi times a block read: the writes' weight
    is phi times their fraction; ``uniform_share`` and ``probe_cost`` as in :func:`theta`."""
    unit = np.eye(len(COST_ROW))
    writes = np.asarray(writes, dtype=float) * np.asarray(write_cost_ratio, dtype=float)
    args = [np.asarray(a, dtype=float)[..., None] for a in
            (point_reads, zero_reads, writes, range_reads, range_blocks)]
    return theta(
        *args[:4], unit[0], unit[1], unit[2], range_cost(unit[3], unit[4], args[4]),
        unit[5], np.asarray(uniform_share, dtype=float)[..., None],
        unit[6], np.asarray(probe_cost, dtype=float)[..., None],
    )


def theta_of_rows(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Theta of cost rows (..., c) for workload weights (W, c): shape (W, ...). einsum's own
    loop, not BLAS: a multi-threaded BLAS on a busy 2-core machine turned a 1 x 5 by 5 x G
    product from 0.1 ms into 10 ms."""
    return np.einsum("...c,wc->w...", rows, np.atleast_2d(weights))


def cost_row(
    *, point_read: ArrayLike, zero_result_read: ArrayLike, write_cost: ArrayLike,
    range_runs: ArrayLike, range_spread: ArrayLike = 1.0,
    point_read_uniform: ArrayLike | None = None, filter_probes: ArrayLike = 0.0,
) -> np.ndarray:
    """One cost row (:data:`COST_ROW`) from named costs; arrays broadcast, the row is the last
    axis. ``write_cost`` is Eq 14's W (write amplification over B). A range read costs
    ``range_runs + range_blocks * range_spread`` (:func:`cost_models.costs.range_cost`): give a
    measured range cost as ``range_runs`` with ``range_spread = 0``. Without
    ``point_read_uniform`` every existing-key read costs ``point_read`` (as under a key
    distribution, where reads are priced as drawn)."""
    uniform = point_read if point_read_uniform is None else point_read_uniform
    parts = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (
        point_read, zero_result_read, write_cost, range_runs, range_spread, uniform,
        filter_probes)))
    return np.stack(parts, axis=-1)


def theta_of_row(row: np.ndarray, weights: np.ndarray) -> float:
    """Theta of one cost row for one workload's weights."""
    return float(np.asarray(row, dtype=float) @ np.asarray(weights, dtype=float))


@dataclass(frozen=True)
class RobustWeights:
    """Workloads scored robustly (Endure): Theta at the worst workload within KL divergence
    ``rho`` of each one (:mod:`cost_models.robust`). Indexes like the (W, 6) weight matrix it
    replaces; ``wacky_model.types.robust_weights`` builds it from workloads."""

    fractions: np.ndarray  # (W, 4) operation fractions
    op_map: np.ndarray  # (W, c, 4): a cost row times this is the cost of each operation
    rho: float

    @property
    def shape(self) -> tuple[int, int]:
        return (self.fractions.shape[0], len(COST_ROW))

    def __getitem__(self, index) -> RobustWeights:
        return RobustWeights(self.fractions[index], self.op_map[index], self.rho)


Weights = np.ndarray | RobustWeights


def theta_own(rows: np.ndarray, weights: Weights) -> np.ndarray:
    """Theta of cost rows with a leading workload axis (W, ..., c) -> (W, ...)."""
    if isinstance(weights, RobustWeights):
        return np.stack([worst_case_cost(rows[w] @ weights.op_map[w], weights.fractions[w],
                                         weights.rho)
                         for w in range(weights.shape[0])])
    return np.einsum("w...c,wc->w...", rows, weights)


def theta_shared(rows: np.ndarray, weights: Weights) -> np.ndarray:
    """Theta of cost rows every workload shares (..., c) -> (W, ...): nominal or robust."""
    if isinstance(weights, RobustWeights):
        return np.stack([worst_case_cost(rows @ weights.op_map[w], weights.fractions[w],
                                         weights.rho)
                         for w in range(weights.shape[0])])
    return theta_of_rows(rows, weights)
