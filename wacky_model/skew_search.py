"""Choosing a design when keys are skewed, writes update, or a cache serves reads.

The table search prices designs with the finite model, which knows neither skew nor a cache.
The skew model (:mod:`wacky_model.skew`) costs about 0.05-0.3 s a design, too slow for the whole
table, so the choice is made in two steps:

1. candidates: the table search's pick and its alternatives (the best of every family), and a
   grid of the classic families (Leveling, Tiering, Lazy Leveling) over T, all at the pick's
   memory split;
2. each is priced by the skew model's Theta, and the cheapest wins; a short local search then
   steps its T up and down while that lowers Theta.

Theta under skew (Eq 16 with S2-S7): existing-key reads cost what a read drawn from the read
distribution costs, cache hits included; writes cost the skew model's write amplification / B
(times phi); zero-result and range reads keep the finite model's costs, which skew and a point
cache do not change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cost_models.limits import check_physical
from cost_models.objective import cost_row, theta_of_row
from cost_models.structure import structure
from wacky_model.analysis import steady_costs
from wacky_model.families import classify
from wacky_model.guardrails import Constraints
from wacky_model.skew import SkewAnalysis, needs_skew_model, skew_analysis
from wacky_model.types import Design, System, Workload, workload_vector

GRID_T = (2.0, 3.0, 4.0, 6.0, 8.0, 10.0, 16.0)
GRID_SHAPES = ((0.0, 0.0), (1.0, 1.0), (1.0, 0.0))  # (K, Z): Leveling, Tiering, Lazy Leveling
T_STEPS = (0.8, 1.25)  # the local search's moves of T
LOCAL_ROUNDS = 6


@dataclass(frozen=True)
class SkewPriced:
    design: Design
    theta: float
    costs: SkewAnalysis


@dataclass(frozen=True)
class SkewChoice:
    """The skew model's pick, and what the uniform search's pick costs under the same skew."""

    design: Design
    family: str
    theta: float
    costs: SkewAnalysis
    uniform_pick: Design
    uniform_pick_theta: float
    candidates: int

    @property
    def gain(self) -> float:
        """How much cheaper the pick is than the uniform search's under skew (a share)."""
        return 1.0 - self.theta / self.uniform_pick_theta if self.uniform_pick_theta else 0.0

    def to_dict(self) -> dict:
        return {
            "design": self.design.knobs, "family": self.family, "theta": self.theta,
            "costs": self.costs.to_dict(), "uniform_pick": self.uniform_pick.knobs,
            "uniform_pick_theta": self.uniform_pick_theta, "gain": self.gain,
            "candidates": self.candidates,
        }


def skew_theta(design: Design, system: System, workload: Workload) -> SkewPriced:
    """Theta of ``design`` under the workload's skew and the system's cache (module doc)."""
    s = skew_analysis(design, system, workload)
    f = steady_costs(design, system, workload)
    # Existing-key reads are priced as drawn from the read distribution (S3-S7), so the
    # worst case and the uniform expectation both give way to it.
    row = cost_row(point_read=s.point_read, zero_result_read=f.zero_result_read,
                   write_cost=s.write_amp / system.entries_per_block, range_runs=f.range_runs,
                   filter_probes=f.filter_probes)
    theta = theta_of_row(row, workload_vector(workload, system.write_cost_ratio,
                                              system.probe_cost))
    return SkewPriced(design, theta, s)


def _feasible(design: Design, system: System) -> bool:
    """A design the engine can build on this system (the checks ``analyze`` makes)."""
    try:
        check_physical(structure(*design.knobs.values(), system.buffers), system.buffers,
                       system.entries)
        steady_costs(design, system, None)
    except ValueError:
        return False
    return True


def _allowed(design: Design, system: System, constraints: Constraints | None) -> bool:
    if constraints is None or not constraints.active:
        return True
    s = structure(*design.knobs.values(), system.buffers, integer_runs=True)
    return bool(np.all(constraints.allows(s)))


def choose_skewed(pick: Design, alternatives: tuple[Design, ...], workload: Workload,
                  system: System, constraints: Constraints | None = None) -> SkewChoice:
    """The cheapest candidate under skew (module doc); ``system`` is the pick's split. With
    ``constraints`` (guardrails) only designs they allow are candidates."""
    if not needs_skew_model(workload, system):
        raise ValueError("choose_skewed is for skewed workloads or a cache; the table search's "
                         "pick stands otherwise")
    seen: dict[tuple, SkewPriced] = {}

    def price(d: Design) -> SkewPriced | None:
        key = tuple(d.knobs.values())
        if key not in seen:
            if not _feasible(d, system) or not _allowed(d, system, constraints):
                return None
            seen[key] = skew_theta(d, system, workload)
        return seen[key]

    base = price(pick)
    if base is None:  # the table's pick passed the guardrails; only infeasibility fails it
        raise ValueError("the table search's pick cannot be priced under skew")
    for d in alternatives:
        price(d)
    for T in GRID_T:
        for K, Z in GRID_SHAPES:
            price(Design(T, T - 1.0, 1.0, K, Z))
    best = min(seen.values(), key=lambda p: p.theta)
    for _ in range(LOCAL_ROUNDS):
        k = best.design.knobs
        moves = []
        for step in T_STEPS:
            T = max(2.0, k["T"] * step)
            C = k["C"] if k["X"] != 1.0 or k["C"] != k["T"] - 1.0 else T - 1.0
            moves.append(Design(T, max(1.0, C), k["X"], k["K"], k["Z"]))
        priced = [p for p in (price(d) for d in moves) if p is not None]
        better = [p for p in priced if p.theta < best.theta * (1.0 - 1e-9)]
        if not better:
            break
        best = min(better, key=lambda p: p.theta)
    return SkewChoice(best.design, classify(best.design, system), best.theta, best.costs,
                      pick, base.theta, len(seen))


def describe(choice: SkewChoice) -> str:
    """One line for the terminal."""
    c = choice.costs
    if math.isclose(choice.theta, choice.uniform_pick_theta, rel_tol=1e-9):
        head = "the uniform-keys pick is also the best of the candidates under skew"
    else:
        head = (f"{choice.gain:.1%} cheaper than the uniform-keys pick "
                f"({choice.uniform_pick_theta:.4g} I/O per operation under the same skew)")
    return (f"{head}; write amplification {c.write_amp:.3g}, {c.point_read:.3g} I/O per "
            f"existing-key read, cache hit rate {c.cache_hit_rate:.1%} "
            f"({choice.candidates} designs priced by the skew model)")
