"""Design search: the (T, C, X, K, Z) and, with a total memory budget, the buffer size that
minimize Theta (Eq 16) for a workload.

Theta is linear in the workload once a design's costs are known: Theta = cost row @
``cost_models.objective.theta_weights(workload)``. So the search is split in two:

* **Per system** (:meth:`DesignSpace.build`), nothing depends on the workload. The space holds
  every Figure 8 projection over T and a *table* of candidate designs: a coarse grid over the
  knobs (and buffer sizes), plus the optimum of a fixed set of sample workloads found by a
  vectorized pattern search on the live cost model, pruned to the designs that are the best for
  some direction of the weights.
* **Per workload** (:func:`recommend`, :func:`recommend_many`): one matrix product with the
  table and an argmin, so a batch of workloads costs a few array operations; with ``refine``,
  then a short pattern search on the live model from the best candidates at distinct T.

There is one search: :func:`recommend` without a prebuilt space uses the system's table
(:func:`space_for`, built once per system, model and constraints), which the CLI and the
dashboard use too, so they give the same answer.

Methods: ``global`` (default) as above; ``projections`` is the paper's (Section 5, "Tractable
Search"): for each projection, step T upward from 2 until Theta reaches a local minimum, then
keep the best projection.

Every design evaluated here is realizable: its run counts are rounded the way the engine rounds
them (:func:`cost_models.structure.round_runs`) and its reported cost is that of the rounded design.
Search coordinates are (log2 T, log2 C, X, K, Z, log2 buffer blocks); the last one is fixed
unless the system gives a total memory budget. With a probe cost (``System.probe_cost``) each
design is priced with its best number of hash levels (App. F), which the cost row then holds.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cost_models.evaluate import allocate_fprs, cost_rows, hash_overspend
from cost_models.finite import finite_cost_rows
from cost_models.limits import physical
from cost_models.memory import split_memory
from cost_models.objective import (
    COST_ROW,
    Weights,
    theta_of_row,
    theta_of_rows,
    theta_own,
    theta_shared,
    theta_weights,
)
from cost_models.structure import num_levels, structure
from wacky_model.analysis import Analysis, analyze
from wacky_model.config import Configuration, Memory, keys_of
from wacky_model.families import PROJECTIONS, classify, name_of
from wacky_model.granularity import FilePick, file_best, file_pick, grid_read_keys
from wacky_model.guardrails import DEFAULT_CONSTRAINTS, LIFT_FLAG, Constraints, lifted_cap
from wacky_model.types import (
    Compaction,
    Design,
    KeyDistribution,
    System,
    Workload,
    check_types,
    robust_weights,
    workload_vector,
)

if TYPE_CHECKING:  # the skew model is imported where a workload needs it
    from pathlib import Path

    from cost_models.skew import KeyMap
    from wacky_model.devices import DeviceProfile

# Search bounds. The lower bounds are the continuum's own (T >= 2, C >= 1, X >= 1, K and Z in
# [0, 1]); the upper bounds for T, C and X are search limits, reported when an optimum hits them.
T_MAX = 512.0
C_MAX = 4096.0
X_MAX = 5.0
DIMS = 6  # (log2 T, log2 C, X, K, Z, log2 buffer blocks)
KNOB_LOWER = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
KNOB_UPPER = np.array([math.log2(T_MAX), math.log2(C_MAX), X_MAX, 1.0, 1.0])
UPPER_BOUND_NAMES = ("T", "C", "X")

# The table's grid spans the whole search box, so workloads whose optimum sits near a bound
# (almost no writes: huge T and C) start close to it. It only seeds the sample workloads'
# pattern searches, so it is coarse (tests/test_search.py checks the table against a fine grid).
COARSE_T = np.geomspace(2, T_MAX, 12)
COARSE_C = np.geomspace(1, C_MAX, 10)
COARSE_X = np.array([1.0, 1.5, 2.0, 3.0, 5.0])
COARSE_K = np.array([0.0, 0.5, 1.0])
COARSE_Z = np.array([0.0, 0.5, 1.0])
# With a memory budget: the buffer's share of the memory left after the fence pointers, a
# factor 8 apart (the pattern search refines the share between them).
SPLIT_SHARES = tuple(float(x) for x in np.geomspace(2.0**-12, 1.0, 5))


# Pattern-search effort, (starts per workload, rounds). Each of the table's sample workloads
# is refined from its best grid cell, for longer; a refinement after a table lookup starts from
# three candidates at distinct T and must stay fast (tests/test_search.py measures the table
# against an exhaustive fine grid).
SAMPLE_EFFORT = (1, 12)
LIVE_EFFORT = (3, 8)
# About half the table's spacing in each search coordinate.
INITIAL_STEP = np.array([0.2, 0.3, 0.125, 0.125, 0.125, 0.5])
PATTERN_SCALES = (1.0, -1.0, 2.0, -2.0, 4.0, -4.0)
STOP_SHRINK = 8.0
# Level counts jump along curves in the (T, C) plane, so moving T and C together escapes
# plateaus that axis moves cannot.
DIAGONAL_MOVES = np.array(
    [[a * s, b * s, 0.0, 0.0, 0.0, 0.0] for s in (1.0, 2.0) for a in (1, -1) for b in (1, -1)])
DEDUPLICATE_FROM = 2048  # candidates per call; below this, sorting them costs more than it saves
BUCKET_FROM = 256  # candidates per call from which trees of different depths are priced apart
WORKLOAD_CHUNK = 256  # workloads scored against the whole table at once (bounds memory)

# The table's pruning: a candidate stays if it is the best for one of these many directions of
# the workload weights (drawn once, seeded, from the workloads Eq 16 can express).
PRUNE_DIRECTIONS = 6000
TABLE_SAMPLES = 128  # sample workloads whose optima the table holds
PRUNE_SEED = 14

PROJECTION_T = np.arange(2, 400, dtype=float)
GRANULARITY_CHOICES = ("level", "file", "any")

# Every cost of a tree that cannot exist (cost_models.limits), so no workload's Theta picks it.
# Finite, because a workload weighs some costs by 0 and 0 * inf is NaN.
UNPHYSICAL_COST = 1e30

# The cost models the search can optimize: the finite-N model (cost_models.finite; the default)
# and the paper's Eq 8-16.
MODELS = ("finite", "paper")

PROBES, ZERO_RESULT = COST_ROW.index("filter_probes"), COST_ROW.index("zero_result_read")

# The search's projections, in the table's order (ties go to the earlier family).
FAMILIES = tuple(f.name for f in PROJECTIONS)


def buffer_limits(system: System) -> tuple[float, float]:
    """(lowest, highest) log2 of the buffer in blocks: fixed unless the memory is split."""
    if system.memory_split:
        return 0.0, math.log2(system.max_buffer_bytes // system.block_bytes)
    fixed = math.log2(system.buffer_bytes // system.block_bytes)
    return fixed, fixed


def memory_of(system: System, buffer_blocks=None) -> tuple[np.ndarray, dict]:
    """(F in entries, filter budget) of ``system`` with a buffer of ``buffer_blocks`` blocks
    (whole, at least one, within the memory budget); a fixed system ignores ``buffer_blocks``."""
    if not system.memory_split:
        return np.asarray(float(system.buffer_entries)), system.budget
    if buffer_blocks is None:
        raise ValueError("a system with a total memory budget needs buffer_blocks")
    top = system.max_buffer_bytes // system.block_bytes
    blocks = np.clip(np.floor(np.asarray(buffer_blocks, dtype=float) + 1e-9), 1.0, top)
    bits = np.minimum(split_memory(system.memory_bits_per_entry, system.fence_bits_per_entry,
                                   blocks, system.block_bytes, system.entries),
                      system.max_filter_bits)  # as System.with_buffer caps them
    return blocks * system.entries_per_block, {"bits_per_entry": bits}


def _model_rows(system: System, model: str, s, knobs, F, budget, hash_levels) -> np.ndarray:
    if model == "finite":
        return finite_cost_rows(
            *knobs, entries=system.entries, buffer_entries=F,
            entries_per_block=system.entries_per_block, hash_levels=hash_levels, **budget)
    if model == "paper":
        fprs = allocate_fprs(s, hash_levels=hash_levels, **budget)
        return cost_rows(s, fprs, system.entries_per_block, hash_levels)
    raise ValueError(f"model must be one of {', '.join(MODELS)}; got {model!r}")


def _with_hash_tables(system: System, model: str, s, knobs, F, budget,
                      rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each design's best number of hash levels (App. F) when a probe costs something, and its
    cost rows: (rows, hash levels).

    A hash table changes only what point reads cost: one probe for its level instead of one per
    run, paid for with filter memory taken from the other levels. Both parts scale with the
    point reads, so the choice is the same for every workload: the one that minimizes a
    zero-result read, probe_cost x probes + false positives. Tables that alone outgrow the
    memory budget are not considered.
    """
    def score(r: np.ndarray) -> np.ndarray:
        return r[..., PROBES] * system.probe_cost + r[..., ZERO_RESULT]

    best_h = np.zeros(rows.shape[:-1])
    best = score(rows)
    plain = allocate_fprs(s, **budget) if "bits_per_entry" in budget else None
    for h in range(1, int(np.max(s.L))):
        rows_h = _model_rows(system, model, s, knobs, F, budget, float(h))
        score_h = score(rows_h)
        better = (score_h < best) & (h < s.L)
        if plain is not None:
            better &= ~hash_overspend(s, plain, budget["bits_per_entry"], float(h))
        rows = np.where(better[..., None], rows_h, rows)
        best = np.where(better, score_h, best)
        best_h = np.where(better, float(h), best_h)
    return rows, best_h


def realizable_costs(system: System, T, C, X, K, Z, model: str = "finite",
                     constraints: Constraints | None = None, buffer_blocks=None,
                     with_hash_levels: bool = False):
    """Cost rows (:data:`COST_ROW`) of realizable designs under ``model``: Theta = row @ weights.
    Designs outside ``constraints`` cost UNPHYSICAL_COST. With a memory budget each design has
    its own buffer (``buffer_blocks``) and the rest of the memory for filters. With a probe cost
    each design has its best number of hash levels (``with_hash_levels`` returns them too)."""
    F, budget = memory_of(system, buffer_blocks)
    s = structure(T, C, X, K, Z, system.entries / F, integer_runs=True)
    knobs = (T, C, X, K, Z)
    rows = _model_rows(system, model, s, knobs, F, budget, system.hash_levels)
    hash_levels = np.full(rows.shape[:-1], float(system.hash_levels))
    if system.probe_cost > 0:
        rows, hash_levels = _with_hash_tables(system, model, s, knobs, F, budget, rows)
    ok = physical(s, system.entries / F, system.entries)
    if constraints is not None and constraints.active:
        ok = ok & constraints.allows(s, system.entries, F)
    rows = np.where(ok[..., None], rows, UNPHYSICAL_COST)
    return (rows, hash_levels) if with_hash_levels else rows


def to_knobs(u: np.ndarray) -> tuple[np.ndarray, ...]:
    """Search coordinates to the five knobs (T, C, X, K, Z)."""
    return 2.0 ** u[..., 0], 2.0 ** u[..., 1], u[..., 2], u[..., 3], u[..., 4]


def to_coords(T, C, X, K, Z, buffer_blocks) -> np.ndarray:
    return np.stack(np.broadcast_arrays(np.log2(T), np.log2(C), X, K, Z,
                                        np.log2(buffer_blocks)), axis=-1)


def evaluate_coords(system: System, model: str, u: np.ndarray,
                    constraints: Constraints | None = None) -> np.ndarray:
    """Cost rows of arbitrary search coordinates (any leading shape) on ``system``.

    A batch of searches starts from the same cells and steps on the same lattice, so most
    candidates repeat: each distinct one is evaluated once.
    """
    def costs(v: np.ndarray) -> np.ndarray:
        return realizable_costs(system, *to_knobs(v), model=model, constraints=constraints,
                                buffer_blocks=2.0 ** v[..., 5])

    flat = np.ascontiguousarray(u.reshape(-1, u.shape[-1]))
    if flat.shape[0] < BUCKET_FROM:
        return costs(u)
    if flat.shape[0] >= DEDUPLICATE_FROM:
        flat, inverse = np.unique(flat, axis=0, return_inverse=True)
    else:
        inverse = np.arange(flat.shape[0])
    # The model pads every design to the deepest tree in the call: evaluate shallow and deep
    # trees apart.
    F, _ = memory_of(system, 2.0 ** flat[:, 5])
    T, C, X, _, _ = to_knobs(flat)
    order = np.argsort(num_levels(T, C, X, system.entries / F), kind="stable")
    rows = np.empty((flat.shape[0], len(COST_ROW)))
    for part in np.array_split(order, max(1, min(4, order.size // BUCKET_FROM))):
        rows[part] = costs(flat[part])
    return rows[inverse.reshape(-1)].reshape(*u.shape[:-1], rows.shape[-1])


def _share_blocks(system: System, shares) -> np.ndarray:
    """Buffer sizes in whole blocks for shares of the memory left after the fence pointers."""
    if not system.memory_split:
        return np.array([float(system.buffer_bytes // system.block_bytes)])
    spare = (system.memory_bits_per_entry - system.fence_bits_per_entry) * system.entries / 8
    top = system.max_buffer_bytes // system.block_bytes
    return np.unique(np.clip(np.floor(np.asarray(shares) * spare / system.block_bytes), 1, top))


def _family_table(system: System, t_axis: np.ndarray, shares) -> np.ndarray:
    """Each Figure 8 projection over ``t_axis`` at each buffer size: coords (F, nB, nT, 6)."""
    blocks = _share_blocks(system, shares)
    F, _ = memory_of(system, blocks)
    n_buffers = system.entries / np.broadcast_to(F, blocks.shape)[:, None]  # (nB, 1)
    return np.stack([
        to_coords(*f.knobs(t_axis[None, :], n_buffers), blocks[:, None]) for f in PROJECTIONS])


def family_knobs(system: System) -> dict[str, tuple[np.ndarray, ...]]:
    """Each Figure 8 projection as knob arrays over ``PROJECTION_T`` (Section 5)."""
    return {f.name: f.knobs(PROJECTION_T, system.buffers) for f in PROJECTIONS}


def sample_weights(system: System, count: int, seed: int) -> np.ndarray:
    """``count`` workload weight vectors spread over what Eq 16 can express: operation mixes
    from a Dirichlet(0.5) (corners and edges included), range lengths log-uniform up to 10^4
    blocks, and the share of existing-key reads priced at their expected cost in [0, 1]."""
    rng = np.random.default_rng(seed)
    mix = rng.dirichlet(np.full(4, 0.5), count)
    # Some mixes leave out an operation altogether, as real workloads do.
    mix = np.where(rng.random((count, 4)) < 0.15, 0.0, mix)
    mix[mix.sum(axis=1) == 0, 2] = 1.0
    mix /= mix.sum(axis=1, keepdims=True)
    range_blocks = np.where(rng.random(count) < 0.3, 0.0, 10.0 ** rng.uniform(-1, 4, count))
    share = np.where(rng.random(count) < 0.5, 0.0, rng.random(count))
    return theta_weights(*mix.T, range_blocks, system.write_cost_ratio, share,
                         system.probe_cost)


@dataclass(frozen=True)
class DesignSpace:
    """What the search needs for one system, model and set of constraints, whatever the
    workload: the projections' cost tables and (``table``) the candidate table."""

    system: System
    model: str  # the cost model of the tables (MODELS)
    lower: np.ndarray  # (6,) the search box
    upper: np.ndarray
    family_coords: np.ndarray  # (F, nB, nT, 6): projections x buffer sizes x T
    family_costs: np.ndarray  # (F, nB, nT, 6)
    coords: np.ndarray  # (G, 6) the candidate table
    costs: np.ndarray  # (G, 6)
    # Each projection's candidates for its best design (the alternatives), padded with
    # UNPHYSICAL_COST rows: (F, A, 6) coords and cost rows.
    alt_coords: np.ndarray
    alt_costs: np.ndarray
    table_families: tuple[str, ...] = ()  # the family of each table candidate
    table_hash_levels: np.ndarray | None = None  # and the hash levels it was priced with
    build_ms: float = field(default=0.0, compare=False)
    constraints: Constraints | None = None

    @classmethod
    def build(cls, system: System, model: str = "finite",
              constraints: Constraints | None = None) -> DesignSpace:
        """The tables for ``system`` (about half a second; :func:`space_for` keeps the last
        few)."""
        _check_choice("model", model, MODELS)
        start = time.perf_counter()
        low, high = buffer_limits(system)
        lower, upper = np.append(KNOB_LOWER, low), np.append(KNOB_UPPER, high)
        fam_u = _family_table(system, PROJECTION_T, SPLIT_SHARES)
        fam_costs = evaluate_coords(system, model, fam_u, constraints)
        n_f, n_c = len(PROJECTIONS), len(COST_ROW)
        space = cls(system, model, lower, upper, fam_u, fam_costs, fam_u.reshape(-1, DIMS),
                    fam_costs.reshape(-1, n_c), fam_u.reshape(n_f, -1, DIMS),
                    fam_costs.reshape(n_f, -1, n_c), constraints=constraints)
        coords, costs = _build_table(space)
        alt_coords, alt_costs = _alternatives_table(space)
        families = tuple(classify(_design(u), _split_at(space, u)) for u in coords)
        space = dataclasses.replace(space, coords=coords, costs=costs, alt_coords=alt_coords,
                                    alt_costs=alt_costs, table_families=families,
                                    table_hash_levels=_hash_levels_of(space, coords))
        return dataclasses.replace(space, build_ms=(time.perf_counter() - start) * 1e3)

    def evaluate_coords(self, u: np.ndarray) -> np.ndarray:
        """Cost rows of arbitrary search coordinates (any leading shape)."""
        return evaluate_coords(self.system, self.model, u, self.constraints)

    def family_best(self, weights: Weights) -> tuple[np.ndarray, np.ndarray]:
        """Each family's best design for each workload (rows of ``weights``): (coords (W, F, 6),
        Theta (W, F))."""
        theta = theta_shared(self.alt_costs, weights)  # (W, F, A)
        best = np.argmin(theta, axis=-1)
        f = np.arange(theta.shape[1])
        return self.alt_coords[f, best], np.take_along_axis(theta, best[..., None], -1)[..., 0]

    def paper_choice(self, weights: Weights) -> tuple[np.ndarray, np.ndarray]:
        """The paper's tractable search: in each projection, step T upward until Theta rises,
        at the buffer where that local minimum is lowest; keep the best projection. Returns
        (coords (W, 6), Theta (W,))."""
        theta = theta_shared(self.family_costs, weights)  # (W, F, nB, nT)
        n_w, n_f, n_b, n_t = theta.shape
        rising = np.diff(theta, axis=-1) > 0
        first_t = np.where(rising.any(axis=-1), np.argmax(rising, axis=-1), n_t - 1)
        first_theta = np.take_along_axis(theta, first_t[..., None], -1)[..., 0]  # (W, F, nB)
        flat = first_theta.reshape(n_w, -1)
        pick = np.argmin(flat, axis=-1)
        f, b = np.divmod(pick, n_b)
        t = first_t.reshape(n_w, -1)[np.arange(n_w), pick]
        return self.family_coords[f, b, t], flat[np.arange(n_w), pick]


def _build_table(space: DesignSpace) -> tuple[np.ndarray, np.ndarray]:
    """The candidate table: the coarse grid at each buffer size, the projections, and each
    sample workload's optimum from a thorough pattern search; pruned to the candidates that
    are the best for some direction of the weights (:data:`PRUNE_DIRECTIONS`)."""
    system = space.system
    grid = np.stack([g.ravel() for g in np.meshgrid(
        np.log2(COARSE_T), np.log2(COARSE_C), COARSE_X, COARSE_K, COARSE_Z,
        np.log2(_share_blocks(system, SPLIT_SHARES)))], axis=-1)
    grid_costs = space.evaluate_coords(grid)
    coords = np.concatenate([grid, space.family_coords.reshape(-1, DIMS)])
    costs = np.concatenate([grid_costs, space.family_costs.reshape(-1, len(COST_ROW))])
    # Plateaus of the realizable space make many candidates cost the same: keep one of each.
    costs, first = np.unique(costs, axis=0, return_index=True)
    coords = coords[first]
    samples = sample_weights(system, TABLE_SAMPLES, PRUNE_SEED)
    # Every design the pattern searches try is a candidate: near the samples' optima they are
    # what other workloads, between the samples, want.
    seen: list = []
    u, _ = _pattern_search(space, coords, costs, samples, SAMPLE_EFFORT, seen)
    coords = np.concatenate([coords, u, *(c for c, _ in seen)])
    costs = np.concatenate([costs, space.evaluate_coords(u), *(r for _, r in seen)])
    costs, first = np.unique(costs, axis=0, return_index=True)
    coords = coords[first]
    keep = _supporting(costs, sample_weights(system, PRUNE_DIRECTIONS, PRUNE_SEED + 1))
    return coords[keep], costs[keep]


def _supporting(costs: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Indices of the rows that are the cheapest for at least one of ``directions``."""
    ok = np.all(costs < UNPHYSICAL_COST / 2, axis=-1)
    index = np.flatnonzero(ok)
    if index.size == 0:
        return np.flatnonzero(np.all(costs >= UNPHYSICAL_COST / 2, axis=-1))[:1]
    # Scaled to the cheapest value per column, so float32 keeps the ties' order.
    rows = (costs[index] / np.maximum(costs[index].min(axis=0), 1e-300)).astype(np.float32)
    scaled = (directions * np.maximum(costs[index].min(axis=0), 1e-300)).astype(np.float32)
    best = np.concatenate([np.argmin(scaled[i : i + 512] @ rows.T, axis=1)
                           for i in range(0, scaled.shape[0], 512)])
    return index[np.unique(best)]


def _alternatives_table(space: DesignSpace) -> tuple[np.ndarray, np.ndarray]:
    """Each projection's rows that are its best for some direction of the weights, padded to
    one width with unphysical rows: (coords (F, A, 6), costs (F, A, 6))."""
    directions = sample_weights(space.system, PRUNE_DIRECTIONS, PRUNE_SEED + 1)
    n_f = len(PROJECTIONS)
    coords = space.family_coords.reshape(n_f, -1, DIMS)
    costs = space.family_costs.reshape(n_f, -1, len(COST_ROW))
    keep = [_supporting(costs[f], directions) for f in range(n_f)]
    width = max(k.size for k in keep)
    out_u = np.repeat(coords[:, :1], width, axis=1)
    out_c = np.full((n_f, width, len(COST_ROW)), UNPHYSICAL_COST)
    for f, k in enumerate(keep):
        out_u[f, : k.size], out_c[f, : k.size] = coords[f, k], costs[f, k]
    return out_u, out_c


def family_theta(
    system: System, workload: Workload, space: DesignSpace | None = None, model: str = "finite"
) -> dict[str, np.ndarray]:
    """Theta (Eq 16) of each family along ``PROJECTION_T``, for realizable designs of a system
    with a fixed buffer. A prebuilt ``space`` for ``system`` already holds these cost rows."""
    if system.memory_split:
        raise ValueError("family_theta needs a fixed buffer: choose a split first "
                         "(System.with_buffer, or recommend)")
    weights = workload_vector(workload, system.write_cost_ratio, system.probe_cost)
    if space is not None:
        _check_space(space, system, model)
        rows = space.family_costs[:, 0]
    else:
        rows = np.stack([realizable_costs(system, *k, model=model)
                         for k in family_knobs(system).values()])
    return dict(zip(FAMILIES, theta_of_rows(rows, weights)[0], strict=True))


def _check_space(space: DesignSpace, system: System, model: str,
                 constraints: Constraints | None = None) -> None:
    """A prebuilt space must be for the same system, model and constraints."""
    if not isinstance(space, DesignSpace) or space.system != system:
        raise ValueError("space was built for a different system; build it with "
                         "DesignSpace.build(system)")
    if space.model != model:
        raise ValueError(f"space was built for model {space.model!r}, not {model!r}")
    if _active(space.constraints) != _active(constraints):
        raise ValueError("space was built for other constraints; build it with the same ones")


def _active(constraints: Constraints | None) -> Constraints | None:
    return constraints if constraints is not None and constraints.active else None


def _check_feasible(cost: np.ndarray, constraints: Constraints | None) -> None:
    if np.any(cost >= UNPHYSICAL_COST / 2):
        if _active(constraints) is not None:
            raise ValueError(f"no design meets the constraints ({constraints.describe()}) on "
                             "this system; loosen them")
        raise ValueError("no physical design found for this system")


def _default_constraints(constraints: Constraints | None,
                         space: DesignSpace | None) -> Constraints | None:
    """Left at their default, the constraints are :data:`DEFAULT_CONSTRAINTS`, or a given
    space's (a space is built for one set of constraints)."""
    if constraints is DEFAULT_CONSTRAINTS and space is not None:
        return space.constraints
    return constraints


@dataclass(frozen=True)
class Alternative:
    family: str
    design: Design
    cost: float
    relative_throughput: float
    buffer_bytes: int = 0  # the split it was priced at (the system's buffer unless split)


@dataclass(frozen=True)
class Recommendation:
    design: Design
    family: str
    cost: float
    model: str  # what priced ``cost``: "finite" or "paper" (the table), "skew", "files"
    system: System  # the system the design was tuned for: the chosen split of a memory budget
    workload: Workload
    alternatives: tuple[Alternative, ...]
    method: str
    search_ms: float
    bounds_hit: tuple[str, ...]
    robust: dict[str, Any] | None = None  # with rho: the robust and nominal designs' costs
    # Under skewed keys, updates or a cache: the skew model's pick (which ``design`` then is)
    # and the table search's pick it replaced (wacky_model.skew_search).
    skew: Any = None
    # How merges are cut in the design priced: whole levels, or files (then ``file_costs``
    # holds the partial-merge model's costs, ``model`` is "files", ``design`` is Leveling).
    compaction: Compaction = field(default_factory=Compaction)
    file_costs: Any = None  # wacky_model.files.LeveledCosts of a file-granular pick
    # The whole-level against file-granular comparison: what each side cost, or why files were
    # not compared (wacky_model.compat).
    granularity: dict[str, Any] | None = None
    # The guardrails the search honoured (recommend's DEFAULT_CONSTRAINTS unless told otherwise)
    # and recommend's arguments, from which ``without_cap`` searches again without the cap.
    constraints: Constraints | None = None
    request: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    # D1: with more than one device, where the levels go and why (wacky_model.placement); the
    # placement is compaction.level_devices and ``cost`` is Θ at the devices' costs.
    placement: dict[str, Any] | None = None

    @property
    def max_runs_per_level(self) -> tuple[float, int]:
        """(the most runs any level of the pick holds, that level): whole-level designs from
        the per-level table; a file-granular pick's level 0 holds its trigger's runs."""
        if self.file_costs is not None:
            return float(self.compaction.level1_runs), 1
        runs = [row.runs for row in self.analysis.levels]
        i = int(np.argmax(runs))
        return float(runs[i]), i + 1

    @functools.cached_property
    def without_cap(self) -> dict[str, Any] | None:
        """What the runs-per-level cap costs: the pick of the same search without it (the other
        guardrails kept), when that pick holds more runs in a level than the cap allows and
        costs less; None when no cap was in force or it does not bind. Searched when first
        asked for (the CLI, the dashboard and ``to_dict`` ask), so that ``recommend`` itself
        stays a lookup."""
        cap = None if self.constraints is None else self.constraints.max_runs_per_level
        if cap is None or self.request is None:
            return None
        free = recommend(**{**self.request, "constraints": lifted_cap(self.constraints)})
        runs, level = free.max_runs_per_level
        if runs <= cap or not free.cost < self.cost:  # within the cap, or it costs nothing
            return None
        return {"cap": cap, "lift": LIFT_FLAG, "family": free.family, "design": free.design.knobs,
                "granularity": free.compaction.granularity, "cost": free.cost,
                # Θ of the uncapped pick relative to the capped one: 0.078 is 7.8% lower.
                "theta_lower": 1.0 - free.cost / self.cost if self.cost > 0 else 0.0,
                "max_runs_per_level": runs, "level": level}

    @property
    def beaten_by(self) -> Alternative | None:
        """The cheapest alternative when it costs less than the pick (the paper's projections
        method stops at the first T whose neighbour costs more, so a family's best T found
        another way can beat it); None otherwise."""
        if self.skew is not None or self.file_costs is not None:
            return None  # the pick was priced by another model than the table's
        best = min(self.alternatives, key=lambda a: a.cost, default=None)
        if best is None or not best.cost < self.cost * (1.0 - 1e-9):
            return None
        return best

    @property
    def configuration(self) -> Configuration:
        """What was priced, in the one configuration type: the design, how its merges are cut
        (whole levels or files, the trigger, the sizing) and its memory."""
        bits = self.system.bits_per_entry  # what the pick was priced with, when given
        return Configuration(self.design, self.compaction, Memory(
            int(self.system.buffer_bytes),
            float(self.memory["filter_bits_per_entry"] if bits is None else bits),
            int(self.system.hash_levels)))

    @functools.cached_property
    def analysis(self) -> Analysis:
        """The per-level table and every cost of the design (computed when first asked for,
        so that the search itself stays a table lookup)."""
        return analyze(self.design, self.system, self.workload, realizable=True)

    @property
    def costs(self) -> dict[str, float]:
        """The recommended design's costs under the model that priced it: the partial-merge
        model's for a file-granular pick; for a skewed pick, what skew_theta priced (S2-S7f)
        with the rest uniform (finite)."""
        a = k = self.file_costs
        if a is None:
            a = self.analysis.finite if self.model in ("finite", "skew") else self.analysis
            assert a is not None  # analyze always reports the finite model
            k = a if self.skew is None else self.skew.costs
        return {"write_cost": (a.write_cost if k is a and self.file_costs is None
                               else k.write_amp / self.system.entries_per_block),
                "write_amp": k.write_amp, "point_read": k.point_read,
                "zero_result_read": k.zero_result_read, "range_runs": a.range_runs,
                "memory_bits_per_entry": a.memory_bits_per_entry}

    def to_dict(self) -> dict:
        """The JSON document of ``wacky recommend --json``."""
        c, beaten = self.compaction, self.beaten_by
        return {
            "design": self.design.knobs, "granularity": c.granularity,
            "compaction": {"granularity": c.granularity, "file_bytes": c.file_bytes,
                           "level1_runs": c.level1_runs,
                           "compaction_buffer": c.buffer is not None,
                           "log_ratio": 0.0 if c.log is None else c.log.ratio},
            "configuration": self.configuration.to_dict(), "family": self.family,
            "model": self.model, "keys": keys_of(self.workload, self.system), "cost": self.cost,
            "costs": self.costs,
            "alternatives": [{**dataclasses.asdict(a), "design": a.design.knobs}
                             for a in self.alternatives],
            "levels": self.levels, "method": self.method, "search_ms": self.search_ms,
            "bounds_hit": list(self.bounds_hit), "robust": self.robust,
            "skew": None if self.skew is None else self.skew.to_dict(),
            "granularity_choice": self.granularity,
            "beaten_by": None if beaten is None else {
                "family": beaten.family, "design": beaten.design.knobs, "cost": beaten.cost},
            "space_amp": self.analysis.space_amp,
            "transient_space": self.transient_space,
            "warnings": [] if self.file_costs is not None else list(self.analysis.warnings),
            "constraints": dataclasses.asdict(Constraints() if self.constraints is None
                                              else self.constraints),
            "without_cap": self.without_cap,
            "placement": self.placement,
            **self.memory,
        }

    @property
    def levels(self) -> list[dict[str, Any]]:
        """Per level: the analysis's rows, or a file-granular pick's window sizes."""
        if self.file_costs is None:
            return self.analysis.to_dict()["levels"]
        w = self.file_costs.window
        if w is None:  # universal compaction: sorted runs, no levels
            return []
        return [{"level": i, "mean_entries": e, "write_amp": a, "share_of_window_in_use": u}
                for i, (e, a, u) in enumerate(zip(w.level_entries, w.level_write_amp,
                                                  w.level_in_use, strict=True), start=1)]

    @property
    def transient_space(self) -> float:
        """T5: the run files' peak during merges over the data: a file-granular pick's walk
        (one job per flush as the native engine installs them, one merge at a time on stock
        RocksDB), universal compaction's full merge, else M8."""
        if self.file_costs is None:
            return self.analysis.transient_space
        return self.file_costs.transient_space(stock=self.model == "rocksdb")

    @property
    def memory(self) -> dict[str, float]:
        """The memory of the system the design was tuned for: the chosen buffer/filter split
        when the system gave a total budget, and the hash levels chosen with a probe cost."""
        a = self.analysis
        filters = (a.memory_bits_per_entry if self.file_costs is None
                   else self.file_costs.memory_bits_per_entry)
        return {"hash_levels": a.system.hash_levels, "buffer_bytes": a.system.buffer_bytes,
                "filter_bits_per_entry": filters, "fence_bits_per_entry": a.fence_bits_per_entry,
                "memory_bits_per_entry_total": (a.total_memory_bits_per_entry
                                                - a.memory_bits_per_entry + filters)}


def _moves(space: DesignSpace) -> np.ndarray:
    """The pattern search's unit moves along the free coordinates of the space."""
    free = np.flatnonzero(space.upper > space.lower)
    axes = np.eye(DIMS)[free]
    return np.concatenate([s * axes for s in PATTERN_SCALES] + [DIAGONAL_MOVES])


def _pattern_search(space: DesignSpace, coords: np.ndarray, costs: np.ndarray,
                    weights: Weights, effort: tuple[int, int],
                    seen: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized multi-scale pattern search on the live model from the best ``effort[0]``
    candidates at distinct T (:func:`_diverse_starts`) for ``effort[1]`` rounds, then
    :func:`_snap`: the best point per workload and its Theta ((W, 6), (W,)).

    Each round tries steps of 1, 2 and 4 times the current step, both ways, along every free
    coordinate (the level count makes Theta jump, so a single small step can stall), moves to
    the best improvement, and halves the step of a start that found none. Every candidate
    tried is appended to ``seen`` as (coords, cost rows), when given.
    """
    lower, upper = space.lower, space.upper
    starts, cost = _diverse_starts(coords, costs, weights, effort[0])
    u = np.clip(starts, lower, upper)
    step = np.broadcast_to(INITIAL_STEP, u.shape).copy()
    unit = _moves(space)
    for _ in range(effort[1]):
        cand = np.clip(u[:, :, None, :] + unit[None, None] * step[:, :, None, :], lower, upper)
        rows = space.evaluate_coords(cand)
        if seen is not None:
            seen.append((cand.reshape(-1, DIMS), rows.reshape(-1, rows.shape[-1])))
        cand_cost = theta_own(rows, weights)
        best = np.argmin(cand_cost, axis=-1)
        best_cost = np.take_along_axis(cand_cost, best[..., None], -1)[..., 0]
        improved = best_cost < cost * (1 - 1e-12)
        best_u = np.take_along_axis(cand, best[..., None, None], 2)[:, :, 0]
        u = np.where(improved[..., None], best_u, u)
        cost = np.where(improved, best_cost, cost)
        step = np.where(improved[..., None], step, step / 2)
        if np.all(step < INITIAL_STEP / STOP_SHRINK):
            break  # every start has converged to well below the table's spacing
    winner = np.argmin(cost, axis=-1)
    return _snap(space, np.take_along_axis(u, winner[:, None, None], 1)[:, 0], weights)


def _diverse_starts(coords: np.ndarray, costs: np.ndarray, weights: Weights,
                    count: int) -> tuple[np.ndarray, np.ndarray]:
    """For each workload, the best ``count`` candidates with distinct T (to the table's
    spacing): (coords (W, S, 6), Theta (W, S)).

    Ties are common (many knob settings give the same realizable design), so the plain top
    candidates are often one design; spreading the starts over T escapes the level-count
    plateaus.
    """
    t_bin = np.round(coords[:, 0] / 0.35).astype(int)
    out = np.empty((weights.shape[0], count, DIMS))
    out_theta = np.empty((weights.shape[0], count))
    for i in range(0, weights.shape[0], WORKLOAD_CHUNK):
        theta = theta_shared(costs, weights[i : i + WORKLOAD_CHUNK])  # (w, G)
        top = min(256, theta.shape[1])
        best = np.argpartition(theta, top - 1, axis=-1)[:, :top]
        best = np.take_along_axis(best, np.argsort(np.take_along_axis(theta, best, -1)), -1)
        for w, row in enumerate(best):
            _, first = np.unique(t_bin[row], return_index=True)
            picked = row[np.sort(first)[:count]]
            picked = np.resize(picked, count)  # fewer distinct T than starts: repeat
            out[i + w] = coords[picked]
            out_theta[i + w] = theta[w, picked]
    return out, out_theta


def _snap(space: DesignSpace, u: np.ndarray, weights: Weights) -> tuple[np.ndarray, np.ndarray]:
    """Replace knobs by canonical values wherever that does not raise Theta: K, Z in {0, 1},
    X = 1, whole T and C, or C = T - 1 (all combinations, in one model call). Of the options
    (the first is the current design), keeps the most canonical one (most whole-number
    coordinates) whose Theta is no higher. Returns (coords, Theta)."""
    T, C, X, K, Z = to_knobs(u)
    blocks = np.floor(2.0 ** u[..., 5] + 1e-9)
    zero, one = np.zeros_like(K), np.ones_like(K)
    whole_t = np.maximum(2.0, np.round(T))
    options = [(t, c, x, k, z, blocks)
               for t in (T, whole_t)
               for c in (C, np.maximum(1.0, np.round(C)), np.maximum(1.0, t - 1))
               for k in (K, zero, one) for z in (Z, zero, one) for x in (X, one)]
    cand = np.clip(np.stack([to_coords(*o) for o in options], axis=1), space.lower,
                   space.upper)
    cost = theta_own(space.evaluate_coords(cand), weights)
    canonical = np.sum(np.isclose(cand[..., :5], np.round(cand[..., :5])), axis=-1)
    acceptable = cost <= cost[:, :1] * (1 + 1e-9)
    score = np.where(acceptable, canonical - cost / (cost[:, :1] * 10), -np.inf)
    pick = np.argmax(score, axis=-1)
    return (np.take_along_axis(cand, pick[:, None, None], 1)[:, 0],
            np.take_along_axis(cost, pick[:, None], 1)[:, 0])


def _table_best(space: DesignSpace, weights: Weights) -> tuple[np.ndarray, np.ndarray]:
    """The table's cheapest candidate per workload: (row index (W,), Theta (W,))."""
    index, cost = [], []
    for i in range(0, weights.shape[0], WORKLOAD_CHUNK):
        theta = theta_shared(space.costs, weights[i : i + WORKLOAD_CHUNK])
        j = np.argmin(theta, axis=-1)
        index.append(j)
        cost.append(theta[np.arange(j.size), j])
    return np.concatenate(index), np.concatenate(cost)


@dataclass(frozen=True)
class SearchResult:
    """The search's answer for each of W workloads."""

    coords: np.ndarray  # (W, 6)
    cost: np.ndarray  # (W,) Theta
    family_coords: np.ndarray  # (W, F, 6) each family's best design
    family_cost: np.ndarray  # (W, F)
    table_row: np.ndarray  # (W,) the table candidate chosen, or -1 when found elsewhere


def search_coords(
    space: DesignSpace,
    weights: Weights,
    method: str = "global",
    refine: bool = False,
) -> SearchResult:
    """Best search coordinates for each workload row of ``weights`` (W, 6).

    ``global`` takes the best of the table and of the projections and, with ``refine``, a short
    pattern search on the live model from the best candidates at distinct T.
    ``projections`` is the paper's method (:meth:`DesignSpace.paper_choice`).
    """
    if method not in ("global", "projections"):
        raise ValueError(f"method must be 'global' or 'projections'; got {method!r}")
    fam_u, fam_cost = space.family_best(weights)
    n_w = weights.shape[0]
    if method == "projections":
        u, cost = space.paper_choice(weights)
        return SearchResult(u, cost, fam_u, fam_cost, np.full(n_w, -1))
    f = np.argmin(fam_cost, axis=-1)
    u, cost = fam_u[np.arange(n_w), f], fam_cost[np.arange(n_w), f]
    row, table_cost = _table_best(space, weights)
    wins = table_cost <= cost
    u = np.where(wins[:, None], space.coords[row], u)
    cost, row = np.where(wins, table_cost, cost), np.where(wins, row, -1)
    if refine:
        # Starts: the best candidates of the table and the projections, at distinct T.
        v, v_cost = _pattern_search(
            space, np.concatenate([space.coords, space.alt_coords.reshape(-1, DIMS)]),
            np.concatenate([space.costs, space.alt_costs.reshape(-1, len(COST_ROW))]),
            weights, LIVE_EFFORT)
        wins = v_cost < cost
        u, cost = np.where(wins[:, None], v, u), np.where(wins, v_cost, cost)
        row = np.where(wins, -1, row)
    return SearchResult(u, cost, fam_u, fam_cost, row)


def _design(u: np.ndarray) -> Design:
    T, C, X, K, Z = (float(v) for v in to_knobs(u))
    return Design(T=T, C=C, X=X, K=K, Z=Z)


def _buffer_bytes(space: DesignSpace, u: np.ndarray) -> np.ndarray:
    """The buffer (bytes) each design's coordinates give, as the cost model rounds it."""
    system = space.system
    if not system.memory_split:
        return np.full(u.shape[0], system.buffer_bytes, dtype=np.int64)
    F, _ = memory_of(system, 2.0 ** u[:, 5])
    return (F // system.entries_per_block * system.block_bytes).astype(np.int64)


def _split_at(space: DesignSpace, u: np.ndarray) -> System:
    """The system a design was priced on, as far as its buffer coordinate gives it."""
    system = space.system
    if not system.memory_split:
        return system
    return system.with_buffer(float(_buffer_bytes(space, u[None])[0]))


def _hash_levels_of(space: DesignSpace, u: np.ndarray) -> np.ndarray:
    """The hash levels each design (coords (..., 6)) was priced with: its best, with a probe
    cost; the system's, without."""
    if space.system.probe_cost <= 0:
        return np.full(u.shape[:-1], space.system.hash_levels)
    _, h = realizable_costs(space.system, *to_knobs(u), model=space.model,
                            buffer_blocks=2.0 ** u[..., 5], with_hash_levels=True)
    return h.astype(int)


def _system_at(space: DesignSpace, u: np.ndarray, row: int = -1) -> System:
    """The system a design was priced on: the split its buffer coordinate gives, and with a
    probe cost the hash levels it was priced with (the table's, for a table row)."""
    system = _split_at(space, u)
    if space.system.probe_cost > 0:
        h = space.table_hash_levels[row] if row >= 0 else _hash_levels_of(space, u)
        system = dataclasses.replace(system, hash_levels=int(h))
    return system


def _bounds_hit(space: DesignSpace, u: np.ndarray) -> tuple[str, ...]:
    hit = [name for i, name in enumerate(UPPER_BOUND_NAMES) if u[i] >= space.upper[i] - 1e-9]
    if space.system.memory_split and u[5] >= space.upper[5] - 1e-9:
        hit.append("buffer")
    return tuple(hit)


def _search_one(
    workload: Workload, space: DesignSpace, method: str, constraints: Constraints | None,
    weights: Weights, start: float, refine: bool,
) -> Recommendation:
    """The search for one workload (``weights`` (1, 6)), with each family's best design as the
    alternatives."""
    found = search_coords(space, weights, method, refine)
    _check_feasible(found.cost, constraints)
    u, cost, row = found.coords[0], float(found.cost[0]), int(found.table_row[0])
    design, system = _design(u), _system_at(space, u, row)
    alternatives = tuple(
        Alternative(name, _design(a), float(t), cost / float(t),
                    int(_buffer_bytes(space, a[None])[0]))
        for name, a, t in zip(FAMILIES, found.family_coords[0], found.family_cost[0],
                              strict=True))
    return Recommendation(
        design=design, family=space.table_families[row] if row >= 0 else classify(design, system),
        cost=cost, model=space.model, system=system, workload=workload,
        alternatives=alternatives, method=method, search_ms=(time.perf_counter() - start) * 1e3,
        bounds_hit=_bounds_hit(space, u))


@functools.lru_cache(maxsize=8)
def space_for(system: System, model: str = "finite",
              constraints: Constraints | None = None, tables: Path | None = None
              ) -> DesignSpace:
    """The table of ``system``: built on first use, then kept (the last 8 systems), so that
    every caller of :func:`recommend` searches the same candidates. A pure function of frozen
    inputs, so keeping it changes no answer. ``tables``: a directory where tables are also
    kept between processes (:mod:`wacky_model.table_store`)."""
    constraints = _active(constraints)
    if tables is None:
        return DesignSpace.build(system, model, constraints)
    from wacky_model.table_store import kept

    return kept(("DesignSpace", system, model, constraints),
                lambda: DesignSpace.build(system, model, constraints), tables)


def _prepare(system: System, model: str, space: DesignSpace | None,
             constraints: Constraints | None) -> DesignSpace:
    _check_choice("model", model, MODELS)
    if space is None:
        return space_for(system, model, _active(constraints))
    _check_space(space, system, model, constraints)
    return space


def recommend(
    workload: Workload,
    system: System,
    *,
    method: str = "global",
    space: DesignSpace | None = None,
    model: str = "finite",
    constraints: Constraints | None = DEFAULT_CONSTRAINTS,
    rho: float | None = None,
    refine: bool = False,
    granularity: str = "any",
    target: str = "native",
    level0_trigger: int | None = None,
    tables: Path | None = None,
    throughput_on: DeviceProfile | None = None,
) -> Recommendation:
    """The design that minimizes Theta for ``workload`` on ``system`` under ``model``
    (:data:`MODELS`: the finite-N model by default, or the paper's Eq 8-16).

    The search looks the workload up in the system's table (``space``, or :func:`space_for`'s):
    well under a millisecond, within 1% of an exhaustive fine grid (tests/test_search.py).
    ``refine=True`` adds a short pattern search on the live model (about 15 ms), which can
    leave the table's candidates for a slightly cheaper design. With a total memory budget
    (``system.memory_bits_per_entry``) the buffer/filter split is searched too, and the
    recommendation's ``system`` is the split. ``constraints`` (guardrails) exclude designs with
    too many runs or too much space amplification: by default
    :data:`~wacky_model.guardrails.DEFAULT_CONSTRAINTS` (at most 36 runs in any level, RocksDB's
    write stop) or a given ``space``'s, which must have been built with the same ones;
    ``None`` or ``Constraints()`` lifts them. ``Recommendation.without_cap`` says what a
    runs-per-level cap costs. With ``rho`` the design minimizes the worst Theta over workloads
    within KL divergence ``rho`` of ``workload`` (Endure's robust tuning): ``cost`` is that
    worst case, and ``robust`` compares it with the nominal design.

    ``granularity``: "level" searches whole-level merges (the continuum), "file" leveled
    designs with file-granular merges and a level-1 trigger, "any" both, returning the cheaper.
    Combinations that cannot be priced together are refused by :mod:`wacky_model.compat`, or,
    with "any", leave files out with the reason. ``target``: "native" searches what the native
    engine builds (and RocksDB under the Wacky driver); "rocksdb" what stock RocksDB expresses
    (its leveled compaction with files, its level sizing, one bits per key: the file side over
    :func:`wacky_model.rocksdb_tuning.stock_grid`). ``level0_trigger`` pins the level-0 trigger
    (flushes gathered before they merge); above 1 only file-granular designs have one.
    ``tables``: a directory where the system's table is kept between processes (the CLI passes
    :func:`wacky_model.table_store.default_dir`), read instead of built (about half a second).
    ``throughput_on`` (``target="rocksdb"``, a profile with RocksDB's figures): the throughput
    objective on that machine instead of Θ (T7, :func:`wacky_model.rocksdb_throughput.time_pick`
    over the same grid); the native engine's (T4) is this search on
    :func:`wacky_model.throughput.in_seconds`'s system.
    """
    start = time.perf_counter()
    check_types(workload=workload, system=system)
    constraints = _default_constraints(constraints, space)
    if constraints is not None and constraints.write_rate is not None and target != "rocksdb":
        raise ValueError("write_rate applies to target='rocksdb': T2 prices RocksDB's "
                         "background compaction; the native engine merges in the writer's "
                         "thread, at T1's insert rate, and never stalls")
    if throughput_on is not None and target != "rocksdb":
        raise ValueError("throughput_on applies to target='rocksdb' (T7: RocksDB's writes run "
                         "in background threads); the native engine's throughput objective is "
                         "the search on wacky_model.throughput.in_seconds's system (T4)")
    request = dict(workload=workload, system=system, method=method, model=model,
                   constraints=constraints, rho=rho, refine=refine, granularity=granularity,
                   target=target, level0_trigger=level0_trigger, tables=tables,
                   throughput_on=throughput_on)
    rec = _recommend(workload, system, method, space, model, constraints, rho, refine,
                     granularity, target, level0_trigger, start, tables, throughput_on)
    if len(system.devices) > 1:
        from wacky_model.placement import place_recommendation

        rec = place_recommendation(rec, workload, system)
    return dataclasses.replace(rec, constraints=_active(constraints), request=request)


def _recommend(workload: Workload, system: System, method: str, space: DesignSpace | None,
               model: str, constraints: Constraints | None, rho: float | None, refine: bool,
               granularity: str, target: str, level0_trigger: int | None, start: float,
               tables: Path | None = None,
               throughput_on: DeviceProfile | None = None) -> Recommendation:
    features = _checked_features([workload], system, model, rho, constraints, granularity,
                                 target, level0_trigger)
    if _files_only(granularity, target, level0_trigger):
        return _recommend_files(workload, system, constraints, rho, target, granularity,
                                level0_trigger, start, throughput_on)
    from wacky_model.skew import needs_skew_model, skew_key_map

    # The workload's keys (S1-S7's key map) for both sides' skew stages, built once.
    keys = skew_key_map(system, workload) if needs_skew_model(workload, system) else None
    if space is None and tables is not None:
        space = space_for(system, model, _active(constraints), tables)
    # The whole-level search: the table, the refinement, then the robust objective and the
    # skew model's re-pricing.
    space = _prepare(system, model, space, constraints)
    nominal = workload_vector(workload, system.write_cost_ratio, system.probe_cost)[None]
    if rho is None:
        rec = _search_one(workload, space, method, constraints, nominal, start, refine)
    else:
        rec = _robust(workload, space, method, constraints, nominal, rho, start, refine)
    if keys is not None:
        rec = _reprice_skewed(rec, workload, constraints, rho, start, keys)
    if granularity == "level":
        return rec
    return _choose_granularity(rec, workload, system, features, constraints, rho, start,
                               level0_trigger, keys)


TARGETS = ("native", "rocksdb")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def _checked_features(workloads: list[Workload], system: System, model: str,
                      rho: float | None, constraints: Constraints | None, granularity: str,
                      target: str, level0_trigger: int | None) -> set[str]:
    """The compat features the inputs and the caller's pins put in play, once the choices are
    valid and :mod:`wacky_model.compat` prices them together."""
    from wacky_model.compat import check, features_in

    _check_choice("granularity", granularity, GRANULARITY_CHOICES)
    _check_choice("target", target, TARGETS)
    if target == "rocksdb" and granularity == "level":
        raise ValueError("target='rocksdb' with granularity='level': stock RocksDB merges "
                         "files; a whole-level design runs on RocksDB under the Wacky driver "
                         "(target='native')")
    if level0_trigger is not None and (isinstance(level0_trigger, bool) or not isinstance(
            level0_trigger, int) or not 1 <= level0_trigger <= 1000):
        raise ValueError(f"level0_trigger must be a whole number in [1, 1000]; got "
                         f"{level0_trigger!r}")
    pinned = (level0_trigger or 1) > 1
    if granularity == "level" and pinned:
        raise ValueError("level0_trigger above 1 with granularity='level': whole-level merges "
                         "absorb every flush into Level 1; the trigger is a file-granular knob")
    features = set().union(*(features_in(w, system, model, rho, constraints) for w in workloads))
    features |= {name for name, used in (
        ("files", granularity == "file" or pinned), ("level0_trigger", pinned),
        ("rocksdb", target == "rocksdb")) if used}
    check(features)
    if "paged" in features and target != "rocksdb" and granularity != "file":
        from wacky_model.compat import FEATURES

        raise ValueError(f"{FEATURES['paged']} on the native engine needs granularity='file': "
                         "G1 prices a level's files' filter and index blocks, and a whole "
                         "level's filter would be one block of the level's size")
    return features


def _files_only(granularity: str, target: str, level0_trigger: int | None) -> bool:
    """Whether only the file side is searched: files asked, a trigger pinned, or stock
    RocksDB's target."""
    return target == "rocksdb" or granularity == "file" or (level0_trigger or 1) > 1


def _side_grids(system: System, constraints: Constraints | None, target: str,
                granularity: str, level0_trigger: int | None,
                read_keys: KeyDistribution | None = None) -> list[tuple[System, Any]]:
    """:func:`_file_grids` of the file side alone; stock RocksDB's universal compaction is
    searched unless files are asked."""
    return _file_grids(system, _active(constraints), target, level0_trigger,
                       target == "rocksdb" and granularity != "file", read_keys)


def _recommend_files(workload: Workload, system: System, constraints: Constraints | None,
                     rho: float | None, target: str, granularity: str,
                     level0_trigger: int | None, start: float,
                     throughput_on: DeviceProfile | None = None) -> Recommendation:
    """The file side's pick (:func:`_files_only`), with no whole-level side to compare; with
    ``throughput_on`` (stock RocksDB), T7's pick over the same grids."""
    grids = _side_grids(system, constraints, target, granularity, level0_trigger,
                        grid_read_keys(workload, system))
    if throughput_on is not None:
        from wacky_model.rocksdb_throughput import time_pick
        from wacky_model.rocksdb_tuning import stock_neighbors

        pick = time_pick(grids, workload, throughput_on, rho, stock_neighbors(grids, True))
    else:
        pick = file_pick(grids, workload, rho, neighbors=_neighbors(grids, target))
    design, compaction = pick.design, pick.compaction
    universal = compaction.style == "universal"
    buffer = getattr(pick, "buffer", None)
    if target == "rocksdb":
        reason = (f"stock RocksDB's {'universal' if universal else 'leveled'} compaction "
                  "(target rocksdb" + (f", the least time on {throughput_on.name}, T7)"
                                       if throughput_on is not None else ")"))
    else:
        reason = ("files asked" + _log_text(pick.log) + _buffer_text(buffer)
                  + _float_text(pick.floating) + _partitions_text(pick.partitions))
    return Recommendation(
        design=design, family=_file_family(pick), cost=pick.theta,
        model="universal" if universal else "rocksdb" if target == "rocksdb" else "files",
        system=pick.system, workload=workload,
        alternatives=(), method="grid", search_ms=(time.perf_counter() - start) * 1e3,
        bounds_hit=(), robust=_file_robust(workload, pick, rho), compaction=compaction,
        file_costs=pick.costs, skew=pick.skew,
        granularity={"picked": "universal" if universal else "file", "level": None,
                     "reason": reason,
                     "file": {"design": design.knobs, "cost": pick.theta,
                              "level1_runs": compaction.level1_runs,
                              "file_bytes": compaction.file_bytes,
                              "compaction_buffer": buffer, "log": pick.log,
                              "floating": pick.floating, "partitions": pick.partitions}})


def _file_family(pick: FilePick) -> str:
    if pick.compaction.style == "universal":
        return "RocksDB universal compaction"
    return name_of(pick.design, pick.system)


def _file_robust(workload: Workload, pick: FilePick, rho: float | None) -> dict | None:
    """With ``rho``: the file pick's nominal Θ beside its worst case (its ``theta``)."""
    if rho is None:
        return None
    split = pick.system
    nominal = theta_of_row(pick.costs.row(split.entries_per_block), workload_vector(
        workload, split.write_cost_ratio, split.probe_cost))
    return {"rho": float(rho), "robust_design": {
        "design": pick.design.knobs, "granularity": "file", "buffer_bytes": split.buffer_bytes,
        "nominal_cost": nominal, "worst_case_cost": pick.theta}}


def _log_text(log: dict[str, Any] | None) -> str:
    """What L2SM's log buys on a file-granular pick (FilePick.log), in words."""
    if log is None:
        return ""
    change = log["theta_with"] / log["theta_without"] - 1
    if log["chosen"]:
        return (f", with L2SM's log (ratio {log['ratio']:g}: write amplification "
                f"{log['write_amp_without']:.3g} -> {log['write_amp_with']:.3g}, zero-result "
                f"I/O {log['zero_result_without']:.4f} -> {log['zero_result_with']:.4f}, Θ "
                f"{change:+.2%})")
    return f", without L2SM's log (ratio {log['ratio']:g} would change Θ by {change:+.2%})"


def _float_text(f: dict[str, Any] | None) -> str:
    """What Tidal-tree's floating buys on a file-granular pick (FilePick.floating), in words."""
    if f is None:
        return ""
    if f["theta_with"] is None:
        return (", without Tidal-tree's floating (with filters in memory and no probe cost a "
                "check it saves costs no I/O; give --probe-cost)")
    change = f["theta_with"] / f["theta_without"] - 1
    what = (f"files checked per existing-key read {f['probes_without']:.2f} -> "
            f"{f['probes_with']:.2f}, write amplification {f['write_amp_without']:.3g} -> "
            f"{f['write_amp_with']:.3g}")
    if f["chosen"]:
        return (f", with Tidal-tree's floating (gamma {f['gamma']:g}: {what}, Θ "
                f"{f['theta_without']:.4g} without it)")
    return (f", without Tidal-tree's floating (gamma {f['gamma']:g} would change Θ by "
            f"{change:+.2%}: {what})")


def _partitions_text(p: dict[str, Any] | None) -> str:
    """What OHDB's partitioned level 0 buys on a file-granular pick (FilePick.partitions), in
    words."""
    if p is None:
        return ""
    change = p["theta_with"] / p["theta_without"] - 1
    merges = ""
    if p["level1_merges_without"] is not None and p["level1_merges_with"] is not None:
        merges = (f", merges into Level 1 per flush {p['level1_merges_without']:.3g} -> "
                  f"{p['level1_merges_with']:.3g}")
    what = (f"write amplification {p['write_amp_without']:.3g} -> {p['write_amp_with']:.3g}"
            f"{merges}")
    if p["chosen"]:
        return (f", with OHDB's partitioned level 0 ({p['partitions']} partitions: {what}, Θ "
                f"{change:+.2%})")
    return (f", without OHDB's partitioned level 0 ({p['partitions']} partitions would change "
            f"Θ by {change:+.2%}: {what}; each partition merges its share of level 0 with its "
            f"share of Level 1, so they save no bytes, and the search takes them only for a "
            f"gain above {p['gain_needed']:.0%}, the engines' resolution: docs/MODEL.md P6)")


def _buffer_text(b: dict[str, Any] | None) -> str:
    """What LSbM's compaction buffer buys on a file-granular pick (FilePick.buffer), in words."""
    if b is None:
        return ""
    if b["chosen"]:
        return (f", with LSbM's compaction buffer (hit rate {b['hit_rate_without']:.3f} -> "
                f"{b['hit_rate_with']:.3f}, Θ {b['theta_without']:.4g} without it, "
                f"+{b['space_with']:.1%} space)")
    change = b["theta_with"] / b["theta_without"] - 1
    on = " of the design without the log" if b.get("without_log") else ""
    if change < 0:  # B1 says it pays, but the engine has not confirmed it (BUFFER_CHOSEN)
        return (f", without LSbM's compaction buffer (B1 says it would change Θ{on} by "
                f"{change:+.2%} and the hit rate {b['hit_rate_without']:.3f} -> "
                f"{b['hit_rate_with']:.3f}, but on the native engine it has not: wacky sweep "
                "lsbm)")
    return f", without LSbM's compaction buffer (it would change Θ{on} by {change:+.2%})"


def _file_grids(system: System, constraints: Constraints | None, target: str = "native",
                level0_trigger: int | None = None, universal: bool = False,
                read_keys: KeyDistribution | None = None) -> list[tuple[System, Any]]:
    """The file-granular grids to search: the system's, or with a total memory budget one per
    split of :data:`SPLIT_SHARES` (the file side chooses its own split, as the table does);
    for ``target="rocksdb"`` stock RocksDB's (:func:`wacky_model.rocksdb_tuning.stock_grid`).
    ``level0_trigger`` keeps the designs with that trigger; ``universal`` adds stock RocksDB's
    universal compaction; ``read_keys``: the workload's as the grids' costs take them
    (:func:`wacky_model.granularity.grid_read_keys`)."""
    if target == "rocksdb":
        from wacky_model.rocksdb_tuning import stock_grid

        return list(stock_grid(system, constraints, level0_trigger, universal, read_keys))
    from wacky_model.granularity import file_grid

    if not system.memory_split:
        return [(system, file_grid(system, constraints, level0_trigger, read_keys))]
    out = []
    for blocks in _share_blocks(system, SPLIT_SHARES):
        split = system.with_buffer(float(blocks) * system.block_bytes)
        try:
            out.append((split, file_grid(split, constraints, level0_trigger, read_keys)))
        except ValueError:  # no file design fits (or passes the guardrails) at this split
            continue
    if not out:
        raise ValueError("no file-granular design fits this system's memory budget")
    return out


def _choose_granularity(rec: Recommendation, workload: Workload, system: System,
                        features: set[str], constraints: Constraints | None, rho: float | None,
                        start: float, level0_trigger: int | None = None,
                        keys: KeyMap | None = None) -> Recommendation:
    """granularity="any": whole levels (``rec``) or the best file-granular design, whichever
    has the lower Theta (with ``rho``, the lower worst case); both are finite-N models of a
    store taking inserts, each at its own memory split ("file" alone is _recommend_files).
    ``keys``: the workload's key map under skew or a cache (built when None)."""
    from wacky_model.compat import refusals

    gaps = refusals(features | {"files"})
    if gaps:
        return replace(rec, granularity={"picked": "level", "file": None,
                                         "reason": "files not compared: " + gaps[0].reason})
    best = file_pick(_file_grids(system, _active(constraints), "native", level0_trigger,
                                 read_keys=grid_read_keys(workload, system)),
                     workload, rho, bound=rec.cost, keys=keys)
    f, c, split = best.compaction, best.costs, best.system
    file_doc = {"design": best.design.knobs, "level1_runs": f.level1_runs,
                "file_bytes": f.file_bytes, "cost": best.theta, "write_amp": c.write_amp,
                "zero_result_read": c.zero_result_read, "point_read": c.point_read,
                "range_runs": c.range_runs, "compaction_buffer": best.buffer, "log": best.log,
                "floating": best.floating, "partitions": best.partitions}
    level_doc = {"design": rec.design.knobs, "family": rec.family, "cost": rec.cost}
    file_text = (f"file-granular Leveling T={best.design.T:g}, level-1 trigger {f.level1_runs},"
                 f" files of {f.file_bytes:,} B: Θ {best.theta:.4g}{_log_text(best.log)}"
                 f"{_buffer_text(best.buffer)}{_float_text(best.floating)}"
                 f"{_partitions_text(best.partitions)}")
    if best.floor < best.theta:  # designs left unpriced could be cheaper, but not below this
        file_text = (f"the file-granular designs: Θ at least {best.floor:.4g} (the best priced, "
                     f"Leveling T={best.design.T:g}, {best.theta:.4g})")
    level_text = f"whole-level {rec.family}: Θ {rec.cost:.4g}"
    if best.theta < rec.cost:
        reason = f"{file_text} beats {level_text} by {1 - best.theta / rec.cost:.1%}"
        robust = rec.robust
        if robust is not None:  # the robust pick is now this file-granular design
            robust = {**robust, **(_file_robust(workload, best, rho) or {})}
        return replace(rec, design=best.design, family=name_of(best.design, split),
                       system=split, cost=best.theta, model="files", compaction=f,
                       file_costs=c, skew=best.skew, bounds_hit=(), robust=robust,
                       alternatives=tuple(replace(a, relative_throughput=best.theta / a.cost)
                                          for a in rec.alternatives),
                       granularity={"picked": "file", "level": level_doc, "file": file_doc,
                                    "reason": reason},
                       search_ms=(time.perf_counter() - start) * 1e3)
    margin = 1 - rec.cost / min(best.theta, best.floor)
    return replace(rec, granularity={
        "picked": "level", "level": level_doc, "file": file_doc,
        "reason": f"{level_text} beats {file_text} by "
                  f"{'at least ' if best.floor < best.theta else ''}{margin:.1%}"},
        search_ms=(time.perf_counter() - start) * 1e3)


def _robust_entry(design: Design, buffer_bytes: int, nominal: float, worst: float) -> dict:
    return {"design": design.knobs, "buffer_bytes": buffer_bytes, "nominal_cost": nominal,
            "worst_case_cost": worst}


def _robust(workload: Workload, space: DesignSpace, method: str,
            constraints: Constraints | None, nominal_weights: np.ndarray, rho: float,
            start: float, refine: bool) -> Recommendation:
    """The table's design with the least worst case, compared with the nominal design."""
    system = space.system
    robust_w = robust_weights([workload], system.write_cost_ratio, rho, system.probe_cost)
    rec = _search_one(workload, space, method, constraints, robust_w, start, refine)
    nominal = _search_one(workload, space, method, constraints, nominal_weights,
                          time.perf_counter(), refine)

    def both(r: Recommendation) -> dict[str, Any]:
        u = to_coords(*r.design.knobs.values(), r.system.buffer_bytes // r.system.block_bytes)
        rows = space.evaluate_coords(u[None])
        return _robust_entry(r.design, r.system.buffer_bytes,
                             float(theta_own(rows, nominal_weights)[0]),
                             float(theta_own(rows, robust_w)[0]))

    mine = both(rec)
    worst = mine["worst_case_cost"]
    return replace(rec, cost=worst, robust={"rho": float(rho), "robust_design": mine,
                                            "nominal_design": both(nominal)},
                   alternatives=tuple(replace(alt, relative_throughput=worst / alt.cost)
                                      for alt in rec.alternatives))


def _reprice_skewed(rec: Recommendation, workload: Workload, constraints: Constraints | None,
                    rho: float | None, start: float, keys: KeyMap) -> Recommendation:
    """Skewed keys, updates or a cache: the skew model re-prices the table's pick, its
    alternatives and the classic families with the workload's key map ``keys``, and the
    cheapest (or least worst case) wins; the alternatives are shown at their Θ under the
    skew."""
    from wacky_model.skew_search import choose_skewed, skew_theta

    alts = tuple(a.design for a in rec.alternatives)
    choice = choose_skewed(rec.design, alts, workload, rec.system, constraints, rho, keys=keys)
    alternatives = tuple(replace(a, cost=t, relative_throughput=choice.theta / t)
                         for a, t in zip(rec.alternatives, choice.alternatives_theta,
                                         strict=True) if t is not None)
    robust = None
    if rho is not None:
        nominal = choose_skewed(rec.design, alts, workload, rec.system, constraints, keys=keys)
        b = rec.system.buffer_bytes
        robust = {"rho": float(rho), "robust_design": _robust_entry(
            choice.design, b, skew_theta(choice.design, rec.system, workload).theta,
            choice.theta), "nominal_design": _robust_entry(
            nominal.design, b, nominal.theta,
            skew_theta(nominal.design, rec.system, workload, rho=rho).theta)}
    return replace(rec, design=choice.design, family=choice.family, cost=choice.theta,
                   model="skew", skew=choice, alternatives=alternatives, robust=robust,
                   search_ms=(time.perf_counter() - start) * 1e3)


@dataclass(frozen=True)
class RecommendationBatch:
    """Results of :func:`recommend_many`, one row per workload."""

    designs: tuple[Design, ...]
    families: tuple[str, ...]
    cost: np.ndarray  # Theta of each recommended (realizable) design, by its own model
    family_cost: np.ndarray  # (W, families): each family at its own best T (and split)
    method: str
    search_ms: float  # wall time of the whole batch
    buffer_bytes: np.ndarray  # the buffer of each design (the chosen split, with a budget)
    hash_levels: np.ndarray | None = None  # each design's hash levels (chosen with a probe cost)
    # Per workload: how its design merges, and the model that priced its cost ("finite" or
    # "paper" for the table, "skew" under skewed keys or a cache, "files" for file merges).
    compactions: tuple[Compaction, ...] = ()
    models: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.designs)


def recommend_many(
    workloads: list[Workload],
    system: System,
    *,
    method: str = "global",
    space: DesignSpace | None = None,
    model: str = "finite",
    constraints: Constraints | None = DEFAULT_CONSTRAINTS,
    refine: bool = False,
    rho: float | None = None,
    granularity: str = "any",
    target: str = "native",
    level0_trigger: int | None = None,
) -> RecommendationBatch:
    """:func:`recommend` for each workload on one system, with the same inputs: one lookup of
    every workload in the system's table (and with ``refine`` one vectorized pattern search
    for all of them), the file-granular grid (or with ``target="rocksdb"`` stock RocksDB's)
    priced once for the batch, and the skew model's re-pricing for each workload with skewed
    keys or a cache (which is per workload)."""
    start = time.perf_counter()
    check_types(workloads=workloads, system=system)
    constraints = _default_constraints(constraints, space)
    if not workloads:
        raise ValueError("workloads must hold at least one Workload")
    features = _checked_features(workloads, system, model, rho, constraints, granularity,
                                 target, level0_trigger)
    n = len(workloads)
    if _files_only(granularity, target, level0_trigger):
        # The file side alone: one scoring of the grids for the batch (for each read
        # distribution under paged metadata, whose grids' costs take it).
        picks = _file_picks_by_keys(
            lambda keys: _side_grids(system, constraints, target, granularity, level0_trigger,
                                     keys), workloads, system, rho, target)
        styles = [p.compaction.style == "universal" for p in picks]
        return RecommendationBatch(
            designs=tuple(p.design for p in picks), families=tuple(map(_file_family, picks)),
            cost=np.array([p.theta for p in picks]),
            family_cost=np.zeros((n, 0)),  # no whole-level families on this side
            method=method, search_ms=(time.perf_counter() - start) * 1e3,
            buffer_bytes=np.array([p.system.buffer_bytes for p in picks]),
            hash_levels=np.zeros(n, dtype=int), compactions=tuple(p.compaction for p in picks),
            models=tuple("universal" if u else "rocksdb" if target == "rocksdb" else "files"
                         for u in styles))
    space = _prepare(system, model, space, constraints)
    weights: Weights = (np.stack([workload_vector(w, system.write_cost_ratio, system.probe_cost)
                                  for w in workloads]) if rho is None else
                        robust_weights(workloads, system.write_cost_ratio, rho,
                                         system.probe_cost))
    found = search_coords(space, weights, method, refine)
    _check_feasible(found.cost, constraints)
    designs = [_design(row) for row in found.coords]
    families = [space.table_families[row] if row >= 0 else classify(d, _split_at(space, u))
                for d, u, row in zip(designs, found.coords, found.table_row, strict=True)]
    cost = found.cost.copy()
    compactions, models = [Compaction()] * n, [model] * n
    from wacky_model.compat import refusals
    from wacky_model.skew import needs_skew_model

    for i, w in enumerate(workloads):
        if needs_skew_model(w, system):
            from wacky_model.skew_search import choose_skewed

            at = _system_at(space, found.coords[i], int(found.table_row[i]))
            choice = choose_skewed(designs[i], tuple(_design(u) for u in found.family_coords[i]),
                                   w, at, constraints, rho)
            designs[i], families[i], cost[i], models[i] = (choice.design, choice.family,
                                                           choice.theta, "skew")
    buffers = _buffer_bytes(space, found.coords)
    if granularity != "level" and not refusals(features | {"files"}):
        grids_for = functools.partial(_file_grids, system, _active(constraints), "native",
                                      level0_trigger, False)
        for i, pick in enumerate(_file_picks_by_keys(grids_for, workloads, system, rho,
                                                     "native")):
            if pick.theta < cost[i]:
                designs[i], compactions[i], cost[i], models[i] = (
                    pick.design, pick.compaction, pick.theta, "files")
                families[i] = name_of(pick.design, pick.system)
                buffers[i] = pick.system.buffer_bytes
    return RecommendationBatch(
        designs=tuple(designs), families=tuple(families), cost=cost,
        family_cost=found.family_cost, method=method,
        search_ms=(time.perf_counter() - start) * 1e3, buffer_bytes=buffers,
        hash_levels=_batch_hash_levels(space, found), compactions=tuple(compactions),
        models=tuple(models))


def _neighbors(grids: list[tuple[System, Any]], target: str) -> Any:
    """The file search's descent neighbors (granularity.file_pick): stock RocksDB's for its
    grids, none for the native engine's."""
    if target != "rocksdb":
        return None
    from wacky_model.rocksdb_tuning import stock_neighbors

    return stock_neighbors(grids)


def _file_picks_by_keys(grids_for: Callable[[KeyDistribution | None], list[tuple[System, Any]]],
                        workloads: list[Workload], system: System, rho: float | None,
                        target: str) -> list[FilePick]:
    """:func:`_file_picks` of ``workloads`` on the grids ``grids_for`` gives each group of them
    whose grids' costs take the same keys (:func:`wacky_model.granularity.grid_read_keys`:
    skewed reads under paged metadata; one group otherwise), in the workloads' order."""
    keys = [grid_read_keys(w, system) for w in workloads]
    out: list[FilePick | None] = [None] * len(workloads)
    for k in dict.fromkeys(keys):
        index = [i for i, x in enumerate(keys) if x == k]
        grids = grids_for(k)
        for i, pick in zip(index, _file_picks(grids, [workloads[i] for i in index], rho,
                                              _neighbors(grids, target)), strict=True):
            out[i] = pick
    return out  # type: ignore[return-value]


def _file_picks(grids: list[tuple[System, Any]], workloads: list[Workload], rho: float | None,
                neighbors: Any = None) -> list[FilePick]:
    """:func:`wacky_model.granularity.file_pick` for each workload: the uniform ones scored
    together, the skewed ones re-priced one by one (their skew stage is per workload)."""
    from wacky_model.granularity import file_weights, with_partitions
    from wacky_model.skew import needs_skew_model

    out = []
    for (split, g, j, t), w in zip(file_best(grids, workloads, rho), workloads, strict=True):
        if needs_skew_model(w, grids[0][0]):
            out.append(file_pick(grids, w, rho, neighbors=neighbors))
        else:  # as file_pick prices the pick: with OHDB's partitions tried on it
            out.append(with_partitions(FilePick(split, g.designs[j], g.compactions[j],
                                                g.costs[j], t), w,
                                       file_weights([w], split, rho)))
    return out


def _batch_hash_levels(space: DesignSpace, found: SearchResult) -> np.ndarray:
    """Each result's hash levels: the table's for a table row, priced again for the rest."""
    out = np.full(found.table_row.shape, space.system.hash_levels)
    if space.system.probe_cost <= 0:
        return out
    row = found.table_row
    hit = row >= 0
    out[hit] = space.table_hash_levels[row[hit]]
    if not hit.all():
        out[~hit] = _hash_levels_of(space, found.coords[~hit])
    return out
