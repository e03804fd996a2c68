"""Choosing a design when keys are skewed, writes update, or a cache serves reads.

The table search prices designs with the finite model, which knows neither skew nor a cache.
The skew model (:mod:`wacky_model.skew`) costs a few ms a design, too slow for the whole table,
so the choice is made in two steps:

1. candidates: the table search's pick and its alternatives (the best of every family), and a
   grid of the classic families (Leveling, Tiering, Lazy Leveling) over T, all at the pick's
   memory split;
2. each is priced by the skew model's Theta, and the cheapest wins; a short local search then
   steps its T up and down while that lowers Theta.

The workload's keys are mapped once for every candidate (:func:`wacky_model.skew.skew_key_map`).
Each candidate is priced up to the cache first (S1-S4); the cache (S5-S7), most of the price, is
then priced in order of the Theta floor the best cache of the system's size could give (its
hits at most the reads of the hottest keys its blocks can hold), and skipped for a candidate
whose floor is above the best Theta found: it cannot win, so the pick is the one pricing every
cache gives. The caches the loop may price are worked out together beforehand, one pass of
S5-S7's sums for all (:func:`cost_models.skew.solve_caches`); which it prices is its own.

Theta under skew (Eq 16 with S2-S7): existing-key reads cost what a read drawn from the read
distribution costs, cache hits included; writes cost the skew model's write amplification / B
(times phi); zero-result and range reads keep the finite model's costs, which skew and a point
cache do not change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cost_models.limits import check_physical, physical
from cost_models.skew import KeyMap, SkewedTree, solve_caches
from cost_models.structure import structure
from wacky_model.analysis import SteadyCosts, steady_costs, steady_costs_many
from wacky_model.families import classify
from wacky_model.guardrails import Constraints
from wacky_model.skew import (
    SkewAnalysis,
    analysis_of,
    cache_blocks,
    needs_skew_model,
    skew_analysis,
    skew_key_map,
    skew_theta_of,
    skew_tree,
    skew_trees,
)
from wacky_model.types import Design, System, Workload

# The grid only seeds the local search, which then walks T by T_STEPS: on 48 random skewed
# workloads and systems (Zipf 0.6-1.2, a hot set, 20-90% updates, caches of 1 MiB-1 GiB) four
# ratios give the same picks as seven within 0.13% (worst), pricing 2.7x fewer designs.
GRID_T = (2.0, 4.0, 8.0, 16.0)
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
    alternatives_theta: tuple[float | None, ...] = ()  # each alternative's Θ under skew

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


def skew_theta(design: Design, system: System, workload: Workload, *,
               keys: KeyMap | None = None, finite: SteadyCosts | None = None,
               rho: float | None = None) -> SkewPriced:
    """Theta of ``design`` under the workload's skew and the system's cache (module doc).
    A search pricing many designs passes the workload's ``keys`` (:func:`skew_key_map`) and
    the design's ``finite`` costs when it has them (only workload-free ones are used)."""
    s = skew_analysis(design, system, workload, keys=keys)
    f = steady_costs(design, system, workload) if finite is None else finite
    return SkewPriced(design, skew_theta_of(system, workload, f, point_read=s.point_read,
                                            zero_result_read=s.zero_result_read,
                                            write_amp=s.write_amp, rho=rho), s)


@dataclass(frozen=True)
class _Priced:
    """A candidate whose cache was priced: its Theta and its tree, whose costs (with S8's
    what-if) are worked out for the pick alone."""

    design: Design
    theta: float
    tree: SkewedTree


@dataclass(frozen=True)
class _Staged:
    """A candidate priced but for the cache (S1-S4), and the least Theta any cache of the
    system's size could give it: its hits at most the reads of the keys its blocks can hold,
    false positives read (S7)."""

    design: Design
    tree: SkewedTree
    finite: SteadyCosts
    floor: float


def _feasible(design: Design, system: System) -> SteadyCosts | None:
    """The finite model's costs of a design the engine can build on this system (the checks
    ``analyze`` makes), None for one it cannot."""
    try:
        check_physical(structure(*design.knobs.values(), system.buffers), system.buffers,
                       system.entries)
        return steady_costs(design, system, None)
    except ValueError:
        return None


def _feasible_many(designs: list[Design], system: System
                   ) -> dict[tuple[float, ...], SteadyCosts | None]:
    """:func:`_feasible` of many designs by their knobs, in one vectorized pass of the limits
    and the finite model (one pass costs about what one design does)."""
    plain = [d for d in designs if d.filters == "optimized"]
    if not plain:
        return {tuple(d.knobs.values()): _feasible(d, system) for d in designs}
    knobs = np.array([list(d.knobs.values()) for d in plain], dtype=float).reshape(-1, 5).T
    try:
        ok = physical(structure(*knobs, system.buffers), system.buffers, system.entries)
        m = steady_costs_many(*knobs, system)
    except ValueError:  # a knob out of range: each on its own, to find which
        return {tuple(d.knobs.values()): _feasible(d, system) for d in designs}
    B = system.entries_per_block
    out: dict[tuple[float, ...], SteadyCosts | None] = {}
    for j, d in enumerate(plain):  # as steady_costs(d, system, None) builds them
        out[tuple(d.knobs.values())] = SteadyCosts(
            write_amp=float(m.write_amp[j]), write_cost=float(m.write_amp[j]) / B,
            full_merge_write_amp=float(m.full_merge_write_amp[j]),
            point_read=float(m.point_read[j]), point_read_uniform=float(m.point_read_uniform[j]),
            zero_result_read=float(m.zero_result_read[j]), range_runs=float(m.range_runs[j]),
            memory_bits_per_entry=float(m.memory_bits_per_entry[j]),
            filter_probes=float(m.filter_probes[j])) if ok[j] else None
    for d in designs:
        if d.filters != "optimized":
            out[tuple(d.knobs.values())] = _feasible(d, system)
    return out


def _allowed(design: Design, system: System, constraints: Constraints | None) -> bool:
    if constraints is None or not constraints.active:
        return True
    s = structure(*design.knobs.values(), system.buffers, integer_runs=True)
    return bool(np.all(constraints.allows(s, system.entries, system.buffer_entries)))


def _allowed_many(designs: list[Design], system: System, constraints: Constraints | None
                  ) -> dict[tuple[float, ...], bool]:
    """:func:`_allowed` of many designs by their knobs, their structures built in one pass."""
    if constraints is None or not constraints.active or not designs:
        return {tuple(d.knobs.values()): True for d in designs}
    knobs = np.array([list(d.knobs.values()) for d in designs], dtype=float).reshape(-1, 5).T
    try:
        ok = constraints.allows(structure(*knobs, system.buffers, integer_runs=True),
                                system.entries, system.buffer_entries)
    except ValueError:  # a knob out of range: each on its own
        return {tuple(d.knobs.values()): _allowed(d, system, constraints) for d in designs}
    return {tuple(d.knobs.values()): bool(a) for d, a in zip(designs, ok, strict=True)}


def t_moves(design: Design) -> list[Design]:
    """The local search's moves: T up and down by :data:`T_STEPS` (C follows a leveled
    C = T - 1; the other knobs stay)."""
    k = design.knobs
    moves = []
    for step in T_STEPS:
        T = max(2.0, k["T"] * step)
        C = k["C"] if k["X"] != 1.0 or k["C"] != k["T"] - 1.0 else T - 1.0
        moves.append(Design(T, max(1.0, C), k["X"], k["K"], k["Z"]))
    return moves


def choose_skewed(pick: Design, alternatives: tuple[Design, ...], workload: Workload,
                  system: System, constraints: Constraints | None = None,
                  rho: float | None = None, *, keys: KeyMap | None = None) -> SkewChoice:
    """The cheapest candidate under skew (module doc); ``system`` is the pick's split. With
    ``constraints`` (guardrails) only designs they allow are candidates; with ``rho``, the
    cheapest worst case (:func:`wacky_model.skew.skew_theta_of`). ``keys``: the workload's
    :func:`wacky_model.skew.skew_key_map` on ``system``, when the caller has it."""
    if not needs_skew_model(workload, system):
        raise ValueError("choose_skewed is for skewed workloads or a cache; the table search's "
                         "pick stands otherwise")
    if keys is None:  # the workload's keys, the same for every candidate
        keys = skew_key_map(system, workload)
    blocks = cache_blocks(system)
    # The most reads any cache of that many blocks can serve: its blocks hold the newest
    # versions of at most blocks x B keys, read at most as often as the hottest keys.
    hit_share = keys.hottest_read_share(blocks * system.entries_per_block)
    grid = [Design(T, T - 1.0, 1.0, K, Z) for T in GRID_T for K, Z in GRID_SHAPES]
    finite = _feasible_many([pick, *alternatives, *grid], system)
    allowed = _allowed_many([pick, *alternatives, *grid], system, constraints)
    staged: dict[tuple, _Staged] = {}  # every feasible candidate, in the order it came
    priced: dict[tuple, _Priced] = {}  # those whose cache was priced too
    trees: dict[tuple, SkewedTree] = {}  # the trees of candidates about to be staged

    def grow(designs: list[Design]) -> None:
        """The trees of the feasible, allowed ``designs`` not staged yet, built together (one
        pass of S2's layout, the filters and S3's edges costs about what one design does).
        Others are left to :func:`stage`, which reports what the skew model cannot price."""
        todo = {tuple(d.knobs.values()): d for d in designs if d.filters == "optimized"}
        todo = {k: d for k, d in todo.items() if k not in staged and k not in trees
                and finite.get(k) is not None and allowed.get(k, False)}
        if todo:
            trees.update(zip(todo, skew_trees(list(todo.values()), system, workload,
                                              keys=keys), strict=True))

    def stage(d: Design) -> _Staged | None:
        key = tuple(d.knobs.values())
        if key not in staged:
            f = finite[key] if key in finite else _feasible(d, system)
            if f is None or not allowed.get(key, False):
                return None
            tree = trees.pop(key) if key in trees else skew_tree(d, system, workload, keys=keys)
            staged[key] = _Staged(d, tree, f, skew_theta_of(
                system, workload, f, point_read=tree.point_read_bound(hit_share),
                zero_result_read=tree.zero_result_bound(blocks),
                write_amp=sum(tree.level_write_amp), rho=rho))
        return staged[key]

    def solve(sts: list[_Staged]) -> None:
        """The caches of ``sts`` about to be priced, worked out together (one pass of S5-S7's
        sums for all, :func:`cost_models.skew.solve_caches`): :func:`price` then reads them
        off. Which candidates are priced, and so the pick, stays the loops' own."""
        solve_caches([st.tree for st in sts if tuple(st.design.knobs.values()) not in priced],
                     blocks)

    def price(st: _Staged) -> _Priced:
        key = tuple(st.design.knobs.values())
        if key not in priced:
            priced[key] = _Priced(st.design, skew_theta_of(
                system, workload, st.finite, point_read=st.tree.point_read(blocks),
                zero_result_read=st.tree.zero_result_read(blocks),
                write_amp=sum(st.tree.level_write_amp), rho=rho), st.tree)
        return priced[key]

    grow([pick, *alternatives, *grid])
    first = stage(pick)
    if first is None:  # the table's pick passed the guardrails; only infeasibility fails it
        raise ValueError("the table search's pick cannot be priced under skew")
    base = price(first)
    others = [st for st in (stage(d) for d in (*alternatives, *grid)) if st is not None]
    # The cache is most of a design's price. Priced cheapest floor first, a candidate whose
    # floor is above the best Theta so far cannot win, nor can any after it: the pick is the
    # one pricing every candidate gives (ties, which the margin keeps priced, go to the first).
    bound = base.theta
    ranked = sorted(others, key=lambda st: st.floor)
    # Every candidate the loop may price (it stops sooner when the bound falls below floors).
    solve([st for st in ranked if st.floor <= bound * (1.0 + 1e-9)])
    for st in ranked:
        if st.floor > bound * (1.0 + 1e-9):
            break
        bound = min(bound, price(st).theta)
    best = min((priced[k] for k in staged if k in priced), key=lambda p: p.theta)
    for _ in range(LOCAL_ROUNDS):
        moves = t_moves(best.design)
        new = [d for d in moves if tuple(d.knobs.values()) not in staged]
        finite.update(_feasible_many(new, system))
        allowed.update(_allowed_many(new, system, constraints))
        grow(new)
        # A move whose floor is at the best Theta cannot beat it.
        hopeful = [st for st in (stage(d) for d in moves)
                   if st is not None and st.floor < best.theta]
        solve(hopeful)
        better = [p for p in map(price, hopeful) if p.theta < best.theta * (1.0 - 1e-9)]
        if not better:
            break
        best = min(better, key=lambda p: p.theta)
    # The alternatives shown beside the pick are priced by the same model.
    alt_theta = tuple(None if st is None else price(st).theta
                      for st in (stage(d) for d in alternatives))
    return SkewChoice(best.design, classify(best.design, system), best.theta,
                      analysis_of(best.tree.costs(blocks)), pick, base.theta, len(staged),
                      alt_theta)


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
