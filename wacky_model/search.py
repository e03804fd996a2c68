"""Design search: the (T, C, X, K, Z) that minimizes Theta (Eq 16) for a workload.

Two methods:

* ``projections`` -- the paper's (Section 5, "Tractable Search"): for each Figure 8 projection,
  step T upward from 2 until Theta reaches a local minimum, then keep the best projection.
* ``global`` (default) -- all five knobs: a coarse grid whose cost table is built once per system,
  then a vectorized compass search from the best few cells and from the best projections, then
  snapping knobs to canonical values (K, Z in {0, 1}, X = 1, whole T and C) where that costs
  nothing.

Theta is linear in the workload fractions once a design's costs are known, so one cost table
serves every workload: Theta = cost row @ ``cost_models.costs.theta_weights(workload)``.

Every design evaluated here is realizable: its run counts are rounded the way the engine rounds
them (:func:`cost_models.structure.round_runs`) and its reported cost is that of the rounded design.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cost_models.costs import COST_ROW, theta_of_rows, theta_weights
from cost_models.evaluate import allocate_fprs, cost_rows
from cost_models.finite import finite_cost_rows
from cost_models.limits import physical
from cost_models.robust import worst_case_cost
from cost_models.structure import structure
from wacky_model.analysis import Analysis, analyze
from wacky_model.families import PROJECTIONS, classify
from wacky_model.guardrails import Constraints
from wacky_model.types import Design, System, Workload

# Search bounds. The lower bounds are the continuum's own (T >= 2, C >= 1, X >= 1, K and Z in
# [0, 1]); the upper bounds for T, C and X are search limits, reported when an optimum hits them.
T_MAX = 512.0
C_MAX = 4096.0
X_MAX = 5.0
LOWER = np.array([1.0, 0.0, 1.0, 0.0, 0.0])  # in search coordinates (log2 T, log2 C, X, K, Z)
UPPER = np.array([math.log2(T_MAX), math.log2(C_MAX), X_MAX, 1.0, 1.0])
UPPER_BOUND_NAMES = ("T", "C", "X")

# The table grid spans the whole search box, so workloads whose optimum sits near a bound
# (almost no writes: huge T and C) start close to it.
COARSE_T = np.geomspace(2, T_MAX, 24)
COARSE_C = np.geomspace(1, C_MAX, 20)
COARSE_X = np.array([1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0])
COARSE_K = np.array([0.0, 0.5, 1.0])
COARSE_Z = np.array([0.0, 0.5, 1.0])



@dataclass(frozen=True)
class SearchEffort:
    """How hard the global search refines: starts from the table and pattern-search rounds."""

    starts: int
    iterations: int


# ``recommend`` refines thoroughly; ``recommend_many`` trades a little optimality for throughput
# (tests/test_search.py measures both against an exhaustive fine grid).
THOROUGH = SearchEffort(starts=4, iterations=16)
FAST = SearchEffort(starts=1, iterations=8)
# Level counts jump along curves in the (T, C) plane, so moving T and C together escapes
# plateaus that axis moves cannot.
DIAGONAL_MOVES = np.array(
    [[a * s, b * s, 0.0, 0.0, 0.0] for s in (1.0, 2.0) for a in (1, -1) for b in (1, -1)]
)
WORKLOAD_CHUNK = 128  # workloads scored against the whole table at once (bounds memory)
DEDUPLICATE_FROM = 2048  # candidates per call; below this, sorting them costs more than it saves
# About half the table's spacing in each search coordinate.
INITIAL_STEP = np.array([0.2, 0.3, 0.125, 0.125, 0.125])
PATTERN_SCALES = (1.0, -1.0, 2.0, -2.0, 4.0, -4.0)
STOP_SHRINK = 8.0

PROJECTION_T = np.arange(2, 400, dtype=float)

# Every cost of a tree that cannot exist (cost_models.limits), so no workload's Theta picks it.
# Finite, because a workload weighs some costs by 0 and 0 * inf is NaN.
UNPHYSICAL_COST = 1e30

# The cost models the search can optimize: the finite-N model (cost_models.finite; the default)
# and the paper's Eq 8-16.
MODELS = ("finite", "paper")

# The search's projections, in the table's order (ties go to the earlier family).
FAMILIES = tuple(f.name for f in PROJECTIONS)


def realizable_costs(system: System, T, C, X, K, Z, model: str = "finite",
                     constraints: Constraints | None = None) -> np.ndarray:
    """Cost rows (R, R_zero, W, V_runs, spread) of realizable designs under ``model``:
    Theta = row @ weights. Designs outside ``constraints`` cost UNPHYSICAL_COST."""
    s = structure(T, C, X, K, Z, system.buffers, integer_runs=True)
    if model == "finite":
        rows = finite_cost_rows(
            T, C, X, K, Z, entries=system.entries, buffer_entries=system.buffer_entries,
            entries_per_block=system.entries_per_block, **system.budget)
    elif model == "paper":
        rows = cost_rows(s, allocate_fprs(s, **system.budget), system.entries_per_block)
    else:
        raise ValueError(f"model must be one of {', '.join(MODELS)}; got {model!r}")
    ok = physical(s, system.buffers, system.entries)
    if constraints is not None and constraints.active:
        ok = ok & constraints.allows(s)
    return np.where(ok[..., None], rows, UNPHYSICAL_COST)


def workload_vector(w: Workload, write_cost_ratio: float = 1.0) -> np.ndarray:
    """The weights that turn a cost row into Theta (Eq 16, range cost in blocks; a block
    written costs ``write_cost_ratio`` block reads)."""
    return theta_weights(*w.fractions, w.range_blocks, write_cost_ratio,
                         w.expected_point_reads)


@dataclass(frozen=True)
class RobustWeights:
    """Workloads scored robustly (Endure): Theta at the worst workload within KL divergence
    ``rho`` of each one (:mod:`cost_models.robust`). Indexes like the (W, 5) weight matrix it
    replaces."""

    fractions: np.ndarray  # (W, 4) operation fractions
    op_map: np.ndarray  # (W, 5, 4): a cost row times this is the cost of each operation
    rho: float

    @classmethod
    def of(cls, workloads: list[Workload], write_cost_ratio: float, rho: float) -> RobustWeights:
        if not isinstance(rho, (int, float)) or not math.isfinite(rho) or rho < 0:
            raise ValueError(f"rho must be a finite number >= 0; got {rho!r}")
        fractions = np.array([w.fractions for w in workloads], dtype=float)
        # Each operation's cost is Theta of the workload that runs only it (one home: Eq 16).
        op_map = np.stack([
            np.stack([theta_weights(*np.eye(4)[j], w.range_blocks, write_cost_ratio,
                                    w.expected_point_reads) for j in range(4)], axis=-1)
            for w in workloads])
        return cls(fractions, op_map, float(rho))

    @property
    def shape(self) -> tuple[int, int]:
        return (self.fractions.shape[0], len(COST_ROW))

    def __getitem__(self, index) -> RobustWeights:
        return RobustWeights(self.fractions[index], self.op_map[index], self.rho)


Weights = np.ndarray | RobustWeights


def _own(rows: np.ndarray, weights: Weights) -> np.ndarray:
    """Theta of cost rows with a leading workload axis (W, ..., 5) -> (W, ...)."""
    if isinstance(weights, RobustWeights):
        return np.stack([worst_case_cost(rows[w] @ weights.op_map[w], weights.fractions[w],
                                         weights.rho)
                         for w in range(weights.shape[0])])
    return np.einsum("w...c,wc->w...", rows, weights)


def _shared(rows: np.ndarray, weights: Weights) -> np.ndarray:
    """Theta of cost rows every workload shares (..., 5) -> (W, ...)."""
    if isinstance(weights, RobustWeights):
        return np.stack([worst_case_cost(rows @ weights.op_map[w], weights.fractions[w],
                                         weights.rho)
                         for w in range(weights.shape[0])])
    return theta_of_rows(rows, weights)


def to_knobs(u: np.ndarray) -> tuple[np.ndarray, ...]:
    """Search coordinates (log2 T, log2 C, X, K, Z) to knobs."""
    return 2.0 ** u[..., 0], 2.0 ** u[..., 1], u[..., 2], u[..., 3], u[..., 4]


def to_coords(T, C, X, K, Z) -> np.ndarray:
    return np.stack(np.broadcast_arrays(np.log2(T), np.log2(C), X, K, Z), axis=-1)


def family_knobs(system: System) -> dict[str, tuple[np.ndarray, ...]]:
    """Each Figure 8 projection as knob arrays over ``PROJECTION_T`` (Section 5)."""
    return {f.name: f.knobs(PROJECTION_T, system.buffers) for f in PROJECTIONS}


@dataclass(frozen=True)
class DesignSpace:
    """The realizable designs' cost tables for one system: the coarse grid and the projections."""

    system: System
    model: str  # the cost model of the tables (MODELS)
    grid: np.ndarray  # (G, 5) search coordinates
    grid_shape: tuple[int, ...]  # meshgrid shape (nC, nT, nX, nK, nZ)
    grid_costs: np.ndarray  # (G, 5) cost rows
    family_coords: np.ndarray  # (F, P, 5) projections, F families x P values of T
    family_costs: np.ndarray  # (F, P, 5)
    build_ms: float = field(default=0.0, compare=False)
    constraints: Constraints | None = None

    @classmethod
    def build(cls, system: System, model: str = "finite", grid: bool = True,
              constraints: Constraints | None = None) -> DesignSpace:
        """The tables for ``system``; ``grid=False`` leaves out the coarse grid (the search's
        starts) and keeps the projections (the alternatives)."""
        if model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}; got {model!r}")
        if system.memory_split:
            raise ValueError("a system with a total memory budget needs MemorySpace.build: "
                             "the design tables depend on the split")
        start = time.perf_counter()
        T, C, X, K, Z = (
            g.ravel() for g in np.meshgrid(COARSE_T, COARSE_C, COARSE_X, COARSE_K, COARSE_Z)
        )
        if not grid:
            T, C, X, K, Z = (v[:0] for v in (T, C, X, K, Z))
        fam = family_knobs(system)
        fam_arrays = [np.stack(v) for v in fam.values()]  # each (5, P)
        fam_knobs = np.concatenate(fam_arrays, axis=1)  # (5, F*P)
        all_knobs = [np.concatenate([g, f]) for g, f in zip((T, C, X, K, Z), fam_knobs,
                                                             strict=True)]
        costs = realizable_costs(system, *all_knobs, model=model, constraints=constraints)
        g = T.size
        n_fam, n_t = len(fam), PROJECTION_T.size
        return cls(
            system=system,
            model=model,
            grid=to_coords(T, C, X, K, Z),
            grid_shape=(COARSE_C.size, COARSE_T.size, COARSE_X.size, COARSE_K.size,
                        COARSE_Z.size),
            grid_costs=costs[:g],
            family_coords=to_coords(*fam_knobs).reshape(n_fam, n_t, 5),
            family_costs=costs[g:].reshape(n_fam, n_t, len(COST_ROW)),
            build_ms=(time.perf_counter() - start) * 1e3,
            constraints=constraints,
        )

    def evaluate_coords(self, u: np.ndarray) -> np.ndarray:
        """Cost rows of arbitrary search coordinates (any leading shape)."""
        return evaluate_coords(self.system, self.model, u, self.constraints)

    def family_best(self, weights: Weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each workload (rows of ``weights``) and family: the best T index, and the paper's
        first local minimum when stepping T upward. Returns (theta, best_idx, first_local_idx)."""
        theta = _shared(self.family_costs, weights)
        best = np.argmin(theta, axis=-1)
        rising = np.diff(theta, axis=-1) > 0
        # The first T whose successor is costlier is where the paper's upward stepping stops.
        has_rise = rising.any(axis=-1)
        first = np.where(has_rise, np.argmax(rising, axis=-1), theta.shape[-1] - 1)
        return theta, best, first


def evaluate_coords(system: System, model: str, u: np.ndarray,
                    constraints: Constraints | None = None) -> np.ndarray:
    """Cost rows of arbitrary search coordinates (any leading shape) on ``system``.

    A batch of searches starts from the same table cells and steps on the same lattice, so
    most candidates repeat (about 30 times over for 1,000 workloads): each distinct one is
    evaluated once.
    """
    flat = u.reshape(-1, u.shape[-1])
    if flat.shape[0] < DEDUPLICATE_FROM:
        return realizable_costs(system, *to_knobs(u), model=model, constraints=constraints)
    distinct, inverse = np.unique(flat, axis=0, return_inverse=True)
    rows = realizable_costs(system, *to_knobs(distinct), model=model, constraints=constraints)
    return rows[inverse.reshape(-1)].reshape(*u.shape[:-1], rows.shape[-1])


def family_theta(
    system: System, workload: Workload, space: DesignSpace | None = None, model: str = "finite"
) -> dict[str, np.ndarray]:
    """Theta (Eq 16) of each family along ``PROJECTION_T``, for realizable designs.

    A prebuilt ``space`` for ``system`` already holds these cost rows; without it they are
    computed here.
    """
    weights = workload_vector(workload, system.write_cost_ratio)
    if space is not None:
        _check_space(space, system, model)
        rows = space.family_costs
    else:
        rows = np.stack([realizable_costs(system, *k, model=model)
                         for k in family_knobs(system).values()])
    return dict(zip(FAMILIES, theta_of_rows(rows, weights)[0], strict=True))


def _check_space(space: DesignSpace | MemorySpace, system: System, model: str,
                 constraints: Constraints | None = None) -> None:
    """A prebuilt space must be of the system's kind, for the same system, model and
    constraints."""
    kind = MemorySpace if system.memory_split else DesignSpace
    if not isinstance(space, kind) or space.system != system:
        raise ValueError(f"space was built for a different system; build it with "
                         f"{kind.__name__}.build(system)")
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


@dataclass(frozen=True)
class Alternative:
    family: str
    design: Design
    cost: float
    relative_throughput: float


@dataclass(frozen=True)
class Recommendation:
    design: Design
    family: str
    cost: float
    model: str
    analysis: Analysis
    alternatives: tuple[Alternative, ...]
    method: str
    search_ms: float
    bounds_hit: tuple[str, ...]
    robust: dict[str, Any] | None = None  # with rho: the robust and nominal designs' costs

    @property
    def costs(self) -> dict[str, float]:
        """The recommended design's costs under the model the search optimized."""
        a = self.analysis.finite if self.model == "finite" else self.analysis
        assert a is not None  # analyze always reports the finite model
        return {
            "write_cost": a.write_cost,
            "write_amp": a.write_amp,
            "point_read": a.point_read,
            "zero_result_read": a.zero_result_read,
            "range_runs": a.range_runs,
            "memory_bits_per_entry": a.memory_bits_per_entry,
        }

    def to_dict(self) -> dict:
        """The JSON document of ``wacky recommend --json``."""
        return {
            "design": self.design.knobs,
            "family": self.family,
            "model": self.model,
            "cost": self.cost,
            "costs": self.costs,
            "alternatives": [
                {
                    "family": alt.family,
                    "design": alt.design.knobs,
                    "cost": alt.cost,
                    "relative_throughput": alt.relative_throughput,
                }
                for alt in self.alternatives
            ],
            "levels": self.analysis.to_dict()["levels"],
            "method": self.method,
            "search_ms": self.search_ms,
            "bounds_hit": list(self.bounds_hit),
            "robust": self.robust,
            "space_amp": self.analysis.space_amp,
            "warnings": list(self.analysis.warnings),
            **self.memory,
        }

    @property
    def memory(self) -> dict[str, float]:
        """The memory of the system the design was tuned for: the chosen buffer/filter split
        when the system gave a total budget."""
        a = self.analysis
        return {
            "buffer_bytes": a.system.buffer_bytes,
            "filter_bits_per_entry": a.memory_bits_per_entry,
            "fence_bits_per_entry": a.fence_bits_per_entry,
            "memory_bits_per_entry_total": 8.0 * a.system.buffer_bytes / a.system.entries
            + a.memory_bits_per_entry + a.fence_bits_per_entry,
        }


def _pattern_search(
    evaluate: Callable[[np.ndarray], np.ndarray], starts: np.ndarray, weights: Weights,
    iterations: int,
) -> np.ndarray:
    """Vectorized multi-scale pattern search from ``starts`` (W, S, 5) for ``weights`` (W, 5).

    Each round tries steps of 1, 2 and 4 times the current step, both ways, along every
    coordinate (the level count makes Theta jump, so a single small step can stall), moves to
    the best improvement, and halves the step of a start that found none. Returns the best
    point per workload (W, 5).
    """
    dim = starts.shape[-1]
    u = np.clip(starts, LOWER, UPPER)
    cost = _own(evaluate(u), weights)
    step = np.broadcast_to(INITIAL_STEP, u.shape).copy()
    unit = np.concatenate([s * np.eye(dim) for s in PATTERN_SCALES] + [DIAGONAL_MOVES])
    for _ in range(iterations):
        cand = np.clip(u[:, :, None, :] + unit[None, None] * step[:, :, None, :], LOWER, UPPER)
        cand_cost = _own(evaluate(cand), weights)
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
    return np.take_along_axis(u, winner[:, None, None], 1)[:, 0]


def _diverse_starts(space: DesignSpace, grid_theta: np.ndarray, count: int) -> np.ndarray:
    """The best grid cell for each coarse T, then the best ``count`` of those (W, S, 5).

    Ties are common (many knob settings give the same realizable design), so the plain top cells
    are often one design; spreading the starts over T escapes the level-count plateaus.
    """
    n_w = grid_theta.shape[0]
    per_t = grid_theta.reshape(n_w, *space.grid_shape)  # (W, nC, nT, nX, nK, nZ) from meshgrid
    per_t = np.moveaxis(per_t, 2, 1).reshape(n_w, space.grid_shape[1], -1)  # (W, nT, rest)
    best_in_t = np.argmin(per_t, axis=-1)
    best_theta = np.take_along_axis(per_t, best_in_t[..., None], -1)[..., 0]
    order = np.argsort(best_theta, axis=-1)[:, :count]
    rest = np.take_along_axis(best_in_t, order, -1)
    nT = space.grid_shape[1]
    rest_shape = space.grid_shape[2:]
    c_idx, rest_flat = np.divmod(rest, int(np.prod(rest_shape)))
    flat = (c_idx * nT + order) * int(np.prod(rest_shape)) + rest_flat
    return space.grid[flat]


def _snap_options(
    space: DesignSpace, u: np.ndarray, weights: Weights, options: list[tuple]
) -> tuple[np.ndarray, np.ndarray]:
    """Among ``options`` (knob tuples; the first is the current design) keep the most canonical
    one (most whole-number coordinates) whose Theta is no higher than the current one's."""
    cand = np.clip(np.stack([to_coords(*o) for o in options], axis=1), LOWER, UPPER)
    cost = _own(space.evaluate_coords(cand), weights)
    canonical = np.sum(np.isclose(cand, np.round(cand)), axis=-1)
    acceptable = cost <= cost[:, :1] * (1 + 1e-9)
    score = np.where(acceptable, canonical - cost / (cost[:, :1] * 10), -np.inf)
    pick = np.argmax(score, axis=-1)
    return (
        np.take_along_axis(cand, pick[:, None, None], 1)[:, 0],
        np.take_along_axis(cost, pick[:, None], 1)[:, 0],
    )


def _snap(
    space: DesignSpace, u: np.ndarray, weights: Weights
) -> tuple[np.ndarray, np.ndarray]:
    """Replace knobs by canonical values wherever that does not raise Theta: first K, Z in
    {0, 1} and X = 1, then whole T and C or C = T - 1. Returns (coords, Theta)."""
    T, C, X, K, Z = to_knobs(u)
    zero, one = np.zeros_like(K), np.ones_like(K)
    shapes = [(T, C, x, k, z) for k in (K, zero, one) for z in (Z, zero, one) for x in (X, one)]
    u, _ = _snap_options(space, u, weights, shapes)
    T, C, X, K, Z = to_knobs(u)
    whole_t = np.maximum(2.0, np.round(T))
    sizes = [
        (t, c, X, K, Z)
        for t in (T, whole_t)
        for c in (C, np.maximum(1.0, np.round(C)), np.maximum(1.0, t - 1))
    ]
    return _snap_options(space, u, weights, sizes)


def _design(u: np.ndarray) -> Design:
    T, C, X, K, Z = (float(v) for v in to_knobs(u))
    return Design(T=T, C=C, X=X, K=K, Z=Z)


def _bounds_hit(u: np.ndarray) -> tuple[str, ...]:
    return tuple(
        name for i, name in enumerate(UPPER_BOUND_NAMES) if u[i] >= UPPER[i] - 1e-9
    )


def search_coords(
    space: DesignSpace,
    weights: Weights,
    method: str = "global",
    effort: SearchEffort = THOROUGH,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Best search coordinates for each workload row of ``weights`` (W, 5).

    Returns (coords (W, 5), family theta (W, F, P), family best index, family first local min).
    """
    if method not in ("global", "projections"):
        raise ValueError(f"method must be 'global' or 'projections'; got {method!r}")
    fam_theta, fam_best, fam_first = space.family_best(weights)
    n_w = weights.shape[0]
    rows = np.arange(n_w)
    first_theta = np.take_along_axis(fam_theta, fam_first[..., None], -1)[..., 0]  # (W, F)
    paper_family = np.argmin(first_theta, axis=-1)
    paper_u = space.family_coords[paper_family, fam_first[rows, paper_family]]
    if method == "projections":
        return paper_u, fam_theta, fam_best, fam_first
    best_theta = np.take_along_axis(fam_theta, fam_best[..., None], -1)[..., 0]
    best_family = np.argmin(best_theta, axis=-1)
    family_u = space.family_coords[best_family, fam_best[rows, best_family]]
    starts = np.concatenate(
        [
            _diverse_starts(
                space,
                _shared(space.grid_costs, weights[i : i + WORKLOAD_CHUNK]),
                effort.starts,
            )
            for i in range(0, n_w, WORKLOAD_CHUNK)
        ]
    )
    u = _pattern_search(space.evaluate_coords, starts, weights, effort.iterations)
    u, cost = _snap(space, u, weights)
    # The projections' best is a candidate too, so the global search is never worse than it.
    family_wins = best_theta[rows, best_family] < cost
    u = np.where(family_wins[:, None], family_u, u)
    return u, fam_theta, fam_best, fam_first


def _recommendation(
    space: DesignSpace,
    workload: Workload,
    u: np.ndarray,
    fam_theta: np.ndarray,
    fam_best: np.ndarray,
    method: str,
    search_ms: float,
) -> Recommendation:
    design = _design(u)
    result = analyze(design, space.system, workload, realizable=True)
    cost = result.finite.theta if space.model == "finite" else result.theta
    alternatives = []
    for f, name in enumerate(FAMILIES):
        idx = fam_best[f]
        alt_design = _design(space.family_coords[f, idx])
        theta = float(fam_theta[f, idx])
        alternatives.append(Alternative(name, alt_design, theta, cost / theta))
    return Recommendation(
        design=design,
        family=classify(design, space.system),
        cost=float(cost),
        model=space.model,
        analysis=result,
        alternatives=tuple(alternatives),
        method=method,
        search_ms=search_ms,
        bounds_hit=_bounds_hit(u),
    )


# The memory split: the buffer's share of the memory left after the fence pointers, on a
# geometric grid (factor 4 apart) searched with a full table each, then refined between the
# best share's neighbours by golden-section search on log(buffer).
SPLIT_SHARES = tuple(float(x) for x in np.geomspace(2.0**-12, 1.0, 7))
SPLIT_REFINE_PROBES = 8
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def split_buffers(system: System) -> tuple[int, ...]:
    """The buffer sizes (whole blocks) of :data:`SPLIT_SHARES` for a memory-budget system."""
    spare = (system.memory_bits_per_entry - system.fence_bits_per_entry) * system.entries / 8
    out = sorted({system.with_buffer(share * spare).buffer_bytes for share in SPLIT_SHARES})
    return tuple(out)


@dataclass(frozen=True)
class MemorySpace:
    """The design tables of a memory-budget system: one :class:`DesignSpace` per candidate
    buffer size of :func:`split_buffers`."""

    system: System
    model: str
    buffers: tuple[int, ...]
    spaces: tuple[DesignSpace, ...]
    build_ms: float = field(default=0.0, compare=False)
    constraints: Constraints | None = None

    @classmethod
    def build(cls, system: System, model: str = "finite",
              constraints: Constraints | None = None) -> MemorySpace:
        if not system.memory_split:
            raise ValueError("MemorySpace needs a system with memory_bits_per_entry")
        start = time.perf_counter()
        buffers = split_buffers(system)
        spaces = tuple(DesignSpace.build(system.with_buffer(b), model, constraints=constraints)
                       for b in buffers)
        return cls(system, model, buffers, spaces, (time.perf_counter() - start) * 1e3,
                   constraints)


def _search_split(
    space: MemorySpace, weights: Weights, method: str, effort: SearchEffort
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every workload searched at every candidate buffer: (coords (W, K, 5), Theta (W, K),
    buffer index of the best (W,))."""
    us, costs = [], []
    for sp in space.spaces:
        u, *_ = search_coords(sp, weights, method, effort)
        us.append(u)
        costs.append(_own(sp.evaluate_coords(u), weights))
    u_all, cost = np.stack(us, axis=1), np.stack(costs, axis=1)
    return u_all, cost, np.argmin(cost, axis=1)


def _refine_split(
    space: MemorySpace, weights: Weights, u: np.ndarray, k: int, cost: float
) -> tuple[float, np.ndarray, float]:
    """Golden-section search on log2(buffer) between the neighbours of candidate ``k``; each
    probe re-tunes the five knobs by a short pattern search from ``u``. Returns (buffer bytes,
    coords, Theta), never worse than the candidate's."""
    logs = np.log2(space.buffers)
    lo, hi = logs[max(k - 1, 0)], logs[min(k + 1, len(logs) - 1)]
    best = (float(space.buffers[k]), u, cost)

    def probe(x: float) -> float:
        nonlocal best
        system = space.system.with_buffer(2.0**x)
        evaluate = functools.partial(evaluate_coords, system, space.model,
                                     constraints=space.constraints)
        v = _pattern_search(evaluate, u[None, None], weights, FAST.iterations)
        theta = float(_own(evaluate(v), weights)[0])
        if theta < best[2]:
            best = (float(system.buffer_bytes), v[0], theta)
        return theta

    a, b = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
    fa, fb = probe(a), probe(b)
    for _ in range(SPLIT_REFINE_PROBES - 2):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - GOLDEN * (hi - lo)
            fa = probe(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + GOLDEN * (hi - lo)
            fb = probe(b)
    return best


def _recommend_memory(
    workload: Workload, space: MemorySpace, method: str, start: float,
    constraints: Constraints | None, weights: Weights,
) -> Recommendation:
    system, model = space.system, space.model
    u_all, cost, best = _search_split(space, weights, method, THOROUGH)
    _check_feasible(cost[np.arange(1), best], constraints)
    k = int(best[0])
    buffer, u, theta = float(space.buffers[k]), u_all[0, k], float(cost[0, k])
    if method == "global":
        buffer, u, theta = _refine_split(space, weights, u, k, theta)
    chosen = system.with_buffer(buffer)
    fixed = DesignSpace.build(chosen, model, grid=False, constraints=constraints)
    fam_theta, fam_best, _ = fixed.family_best(weights)
    # Each family at its best T on the chosen split is a candidate too (never worse than them).
    fam_min = np.take_along_axis(fam_theta, fam_best[..., None], -1)[0, :, 0]
    f = int(np.argmin(fam_min))
    if method == "global" and fam_min[f] < theta:
        u = fixed.family_coords[f, fam_best[0, f]]
    search_ms = (time.perf_counter() - start) * 1e3
    rec = _recommendation(fixed, workload, u, fam_theta[0], fam_best[0], method, search_ms)
    hit = list(rec.bounds_hit)
    if chosen.buffer_bytes >= space.buffers[-1] and len(space.buffers) > 1:
        hit.append("buffer")
    return dataclasses.replace(rec, bounds_hit=tuple(hit))


def recommend(
    workload: Workload,
    system: System,
    *,
    method: str = "global",
    space: DesignSpace | MemorySpace | None = None,
    model: str = "finite",
    constraints: Constraints | None = None,
    rho: float | None = None,
) -> Recommendation:
    """The design that minimizes Theta for ``workload`` on ``system`` under ``model``
    (:data:`MODELS`: the finite-N model by default, or the paper's Eq 8-16).

    Pass a prebuilt :class:`DesignSpace` to reuse its cost tables across calls for one system.
    With a total memory budget (``system.memory_bits_per_entry``) the buffer/filter split is
    searched too (:class:`MemorySpace`), and the recommendation's ``system`` is the split.
    ``constraints`` (guardrails) exclude designs with too many runs or too much space
    amplification; a prebuilt space must have been built with the same ones. With ``rho``
    the design minimizes the worst Theta over workloads within KL divergence ``rho`` of
    ``workload`` (Endure's robust tuning); its ``cost`` is that worst case, and ``robust``
    compares it with the nominal design.
    """
    start = time.perf_counter()
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}; got {model!r}")
    if system.memory_split:
        if space is None:
            space = MemorySpace.build(system, model, constraints)
        else:
            _check_space(space, system, model, constraints)
    elif space is None:
        space = DesignSpace.build(system, model, constraints=constraints)
    else:
        _check_space(space, system, model, constraints)
    nominal_weights = workload_vector(workload, system.write_cost_ratio)[None]
    if rho is None:
        return _search_one(workload, space, method, constraints, nominal_weights, start)
    robust_weights = RobustWeights.of([workload], system.write_cost_ratio, rho)
    rec = _search_one(workload, space, method, constraints, robust_weights, start)
    nominal = _search_one(workload, space, method, constraints, nominal_weights,
                          time.perf_counter())

    def both(r: Recommendation) -> dict[str, Any]:
        at = r.analysis.system
        rows = evaluate_coords(at, model, to_coords(*r.design.knobs.values())[None],
                               constraints)
        return {"design": r.design.knobs, "buffer_bytes": at.buffer_bytes,
                "nominal_cost": float(_own(rows, nominal_weights)[0]),
                "worst_case_cost": float(_own(rows, robust_weights)[0])}

    mine, theirs = both(rec), both(nominal)
    report = {"rho": float(rho), "robust_design": mine, "nominal_design": theirs}
    worst = mine["worst_case_cost"]
    alternatives = tuple(dataclasses.replace(alt, relative_throughput=worst / alt.cost)
                         for alt in rec.alternatives)
    return dataclasses.replace(rec, cost=worst, alternatives=alternatives, robust=report)


def _search_one(
    workload: Workload, space: DesignSpace | MemorySpace, method: str,
    constraints: Constraints | None, weights: Weights, start: float,
) -> Recommendation:
    if isinstance(space, MemorySpace):
        return _recommend_memory(workload, space, method, start, constraints, weights)
    u, fam_theta, fam_best, _ = search_coords(space, weights, method)
    _check_feasible(_own(space.evaluate_coords(u), weights), constraints)
    search_ms = (time.perf_counter() - start) * 1e3
    return _recommendation(space, workload, u[0], fam_theta[0], fam_best[0], method, search_ms)


@dataclass(frozen=True)
class RecommendationBatch:
    """Results of :func:`recommend_many`, one row per workload."""

    designs: tuple[Design, ...]
    families: tuple[str, ...]
    cost: np.ndarray  # Theta of each recommended (realizable) design
    family_cost: np.ndarray  # (W, families): each family at its own best T
    method: str
    search_ms: float  # wall time of the whole batch
    buffer_bytes: np.ndarray | None = None  # the chosen split per workload (memory budgets)

    def __len__(self) -> int:
        return len(self.designs)


def recommend_many(
    workloads: list[Workload],
    system: System,
    *,
    method: str = "global",
    effort: SearchEffort = FAST,
    space: DesignSpace | MemorySpace | None = None,
    model: str = "finite",
    constraints: Constraints | None = None,
) -> RecommendationBatch:
    """Recommend a design for each workload on one system, searched in one vectorized pass.

    With a total memory budget each workload gets the best of the candidate splits
    (:func:`split_buffers`), without the golden-section refinement of :func:`recommend`."""
    start = time.perf_counter()
    if not workloads:
        raise ValueError("workloads must hold at least one Workload")
    if system.memory_split:
        return _recommend_many_memory(workloads, system, method, effort, space, model, start,
                                      constraints)
    if space is None:
        space = DesignSpace.build(system, model, constraints=constraints)
    else:
        _check_space(space, system, model, constraints)
    weights = np.stack([workload_vector(w, system.write_cost_ratio) for w in workloads])
    u, fam_theta, fam_best, _ = search_coords(space, weights, method, effort)
    cost = _own(space.evaluate_coords(u), weights)
    _check_feasible(cost, constraints)
    designs = tuple(_design(row) for row in u)
    return RecommendationBatch(
        designs=designs,
        families=tuple(classify(d, system) for d in designs),
        cost=cost,
        family_cost=np.take_along_axis(fam_theta, fam_best[..., None], -1)[..., 0],
        method=method,
        search_ms=(time.perf_counter() - start) * 1e3,
    )


def _recommend_many_memory(
    workloads: list[Workload], system: System, method: str, effort: SearchEffort,
    space: DesignSpace | MemorySpace | None, model: str, start: float,
    constraints: Constraints | None,
) -> RecommendationBatch:
    if space is None:
        space = MemorySpace.build(system, model, constraints)
    else:
        _check_space(space, system, model, constraints)
    weights = np.stack([workload_vector(w, system.write_cost_ratio) for w in workloads])
    u_all, cost, best = _search_split(space, weights, method, effort)
    rows = np.arange(len(workloads))
    _check_feasible(cost[rows, best], constraints)
    u = u_all[rows, best]
    family_cost = np.empty((len(workloads), len(FAMILIES)))
    for k, sp in enumerate(space.spaces):
        mine = best == k
        if mine.any():
            fam_theta, fam_best, _ = sp.family_best(weights[mine])
            family_cost[mine] = np.take_along_axis(fam_theta, fam_best[..., None], -1)[..., 0]
    buffers = np.asarray(space.buffers)[best]
    designs = tuple(_design(row) for row in u)
    return RecommendationBatch(
        designs=designs,
        families=tuple(classify(d, system.with_buffer(float(b)))
                       for d, b in zip(designs, buffers, strict=True)),
        cost=cost[rows, best],
        family_cost=family_cost,
        method=method,
        search_ms=(time.perf_counter() - start) * 1e3,
        buffer_bytes=buffers,
    )
