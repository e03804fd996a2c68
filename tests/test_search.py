"""Design search: optimality against an exhaustive grid, the paper's findings, bounds, CLI."""

import math

import numpy as np
import pytest

from wacky_model.guardrails import DEFAULT_CONSTRAINTS
from wacky_model.search import (
    FAMILIES,
    PROJECTION_T,
    DesignSpace,
    classify,
    family_theta,
    realizable_costs,
    recommend,
    recommend_many,
    search_coords,
    workload_vector,
)
from wacky_model.types import Design, System, Workload

FAMILY_SYSTEM = System(entries=2**31)
FAMILY_WORKLOAD = Workload(point_reads=0.3, zero_reads=0.2, writes=0.4, range_reads=0.1)

# The paper's settings (Section 6): 256 GB of 128-byte entries, 4 KB blocks, 8 MB buffer, 5 bits.
PAPER = System(entries=2**31, entry_bytes=128, block_bytes=4096, buffer_bytes=8 * 2**20,
               bits_per_entry=5.0)


def fine_grid_best(system: System, weights: np.ndarray, model: str, points: int) -> np.ndarray:
    """Exhaustive fine grid over the realizable space (its values differ from the search table);
    ``points`` values of T (and proportionally of the other knobs)."""
    T = np.geomspace(2, 512, points)
    C = np.geomspace(1, 4096, points * 3 // 4)
    X = np.linspace(1, 5, points // 3)
    K = np.linspace(0, 1, 6)
    Z = np.linspace(0, 1, 6)
    grid = [v.ravel() for v in np.meshgrid(T, C, X, K, Z)]
    best = np.full(weights.shape[0], np.inf)
    for i in range(0, grid[0].size, 100_000):
        costs = realizable_costs(system, *(v[i : i + 100_000] for v in grid), model=model)
        best = np.minimum(best, np.einsum("gc,wc->wg", costs, weights).min(axis=1))
    return best


def random_cases(seed: int, systems: int, per_system: int):
    rng = np.random.default_rng(seed)
    for _ in range(systems):
        entry_bytes = int(rng.choice([64, 128, 256, 1024]))
        buffer_bytes = int(2 ** rng.uniform(20, 28))
        system = System(
            entries=float(buffer_bytes / entry_bytes * 2 ** rng.uniform(10, 30)),
            entry_bytes=entry_bytes,
            buffer_bytes=buffer_bytes,
            bits_per_entry=float(rng.uniform(0, 20)),
        )
        workloads = [
            Workload(*rng.dirichlet(np.full(4, 0.7)), range_blocks=float(rng.choice([0, 1, 10])))
            for _ in range(per_system)
        ]
        yield system, workloads


# The finite model costs about 5x the paper's per design, so its exhaustive check is smaller.
OPTIMALITY_CASES = {"paper": (20, 40), "finite": (5, 28)}  # systems, grid points of T


@pytest.mark.parametrize("model", list(OPTIMALITY_CASES))
def test_global_search_is_near_the_exhaustive_optimum_and_never_worse_than_projections(model):
    n_systems, points = OPTIMALITY_CASES[model]
    gaps, vs_projections = [], []
    for system, workloads in random_cases(seed=2026, systems=n_systems, per_system=10):
        space = DesignSpace.build(system, model)
        weights = np.stack([workload_vector(w) for w in workloads])
        found = search_coords(space, weights, "global")
        got = np.einsum("wc,wc->w", space.evaluate_coords(found.coords), weights)
        np.testing.assert_allclose(got, found.cost, rtol=1e-9)  # the table's costs are the model's
        p = search_coords(space, weights, "projections").coords
        projections = np.einsum("wc,wc->w", space.evaluate_coords(p), weights)
        gaps.append(got / fine_grid_best(system, weights, model, points) - 1)
        vs_projections.append(got / projections - 1)
    gaps, vs_projections = np.concatenate(gaps), np.concatenate(vs_projections)
    assert gaps.size == 10 * n_systems
    print(f"{model} model, gap to fine grid: median {np.median(gaps):.4%}, p95 "
          f"{np.quantile(gaps, 0.95):.4%}, max {gaps.max():.4%}; "
          f"{np.mean(gaps > 0.005):.1%} of cases above 0.5%")
    assert np.all(vs_projections <= 1e-9)
    assert np.median(gaps) < 0  # usually better than the grid: refinement leaves the grid
    assert np.quantile(gaps, 0.95) <= 0.005
    assert gaps.max() <= 0.01


def test_recommendation_is_realizable_and_its_cost_is_the_rounded_designs():
    rec = recommend(Workload(point_reads=0.3, zero_reads=0.1, writes=0.6), PAPER)
    assert all(row.runs == round(row.runs) for row in rec.analysis.levels)
    T, C, X, K, Z = (rec.design.knobs[k] for k in "TCXKZ")
    w = workload_vector(Workload(point_reads=0.3, zero_reads=0.1, writes=0.6))
    assert rec.cost == pytest.approx(float(realizable_costs(PAPER, T, C, X, K, Z) @ w))
    best_alt = min(alt.cost for alt in rec.alternatives)
    assert rec.cost <= best_alt * (1 + 1e-12)
    assert [alt.family for alt in rec.alternatives] == list(FAMILIES)
    for alt in rec.alternatives:
        assert alt.relative_throughput == pytest.approx(rec.cost / alt.cost)


ORDINARY = [
    Workload(point_reads=r * 0.5, zero_reads=r * 0.5, writes=1 - r - v, range_reads=v)
    for r in (0.1, 0.3, 0.5, 0.7)
    for v in (0.0, 0.05, 0.2)
]


def test_ordinary_workloads_do_not_hit_a_search_bound():
    # recommend's default, at most 36 runs per level. Without it the optimum of write-heavy
    # mixes may sit at X = 5: Level 1 then holds as many one-buffer runs as it has buffers.
    batch_space = DesignSpace.build(PAPER, constraints=DEFAULT_CONSTRAINTS)
    for w in ORDINARY:
        rec = recommend(w, PAPER, space=batch_space)
        assert rec.bounds_hit == (), (w, rec.design)


def test_a_bound_hit_is_reported():
    # With only reads, more capping always helps: the optimum runs into C's search bound.
    rec = recommend(Workload(point_reads=1.0), PAPER)
    assert "C" in rec.bounds_hit
    assert rec.to_dict()["bounds_hit"] == list(rec.bounds_hit)


def test_recommend_many_matches_one_by_one_search_quality():
    space = DesignSpace.build(PAPER)
    batch = recommend_many(ORDINARY, PAPER, space=space)
    single = np.array([recommend(w, PAPER, space=space).cost for w in ORDINARY])
    assert len(batch) == len(ORDINARY)
    # FAST effort: within 5% of the thorough search, and never worse than any family's best.
    assert np.all(batch.cost <= single * 1.05)
    assert np.all(batch.cost <= batch.family_cost.min(axis=1) * (1 + 1e-12))


# The Figure 9-10 tests check the paper's own claims, so they search the paper's model (Eq 8-16);
# tests/test_finite_model.py covers the finite-N model's search.
def families(method: str, workloads, system=PAPER) -> list[str]:
    space = DesignSpace.build(system, "paper")
    return [recommend(w, system, method=method, space=space, model="paper").family
            for w in workloads]


def write_amps(method: str, workloads, system=PAPER) -> list[float]:
    space = DesignSpace.build(system, "paper")
    return [recommend(w, system, method=method, space=space, model="paper").analysis.write_amp
            for w in workloads]


READ_SHARES = [0.2, 0.4, 0.6, 0.8, 0.9, 0.99]


@pytest.mark.parametrize("read_kind", ["zero_reads", "point_reads"])
def test_figure_9ab_more_reads_move_from_lsm_bush_to_scll_to_lazy_leveling(read_kind):
    workloads = [Workload(**{read_kind: r, "writes": 1 - r}) for r in [0.05] + READ_SHARES]
    names = families("projections", workloads)
    assert names[0] == "LSM-bush"
    assert "SCLL" in names and "Lazy Leveling" in names
    assert names.index("SCLL") < len(names) - 1 - names[::-1].index("Lazy Leveling")
    # The global search agrees on the direction: write amplification rises with the reads.
    wa = write_amps("global", workloads)
    assert all(a <= b * (1 + 1e-9) for a, b in zip(wa, wa[1:], strict=False))
    # Disagreement with the paper, by design: with 100% reads our model keeps capping Level L
    # (C to its search bound) because Eq 15 charges nothing for a huge last level; the paper
    # stops at Lazy Leveling. Reads-only is outside the paper's plotted range (up to 99%).


def test_figure_9c_range_reads_end_at_leveling():
    shares = [0.0, 0.25, 0.5, 0.75, 1.0]
    workloads = [
        Workload(point_reads=0.2 * (1 - f), zero_reads=0.2 * (1 - f), range_reads=0.4 * f,
                 writes=0.6)
        for f in shares
    ]
    assert families("projections", workloads)[-1] == "Leveling"
    space = DesignSpace.build(PAPER, "paper")
    last = recommend(workloads[-1], PAPER, space=space, model="paper").design
    # Globally the answer is leveled everywhere (K = Z = 0, X = 1); its C is tuned freely, so it
    # is "capped" Leveling rather than Figure 8's C = T - 1 column.
    assert (last.K, last.Z, last.X) == (0.0, 0.0, 1.0)
    runs = [recommend(w, PAPER, space=space, model="paper").analysis.range_runs
            for w in workloads]
    assert runs[-1] == min(runs) and runs[0] == max(runs)


def test_figure_10a_more_data_moves_from_scll_towards_lsm_bush():
    sizes = [2**25, 2**31, 2**37, 2**40]
    w = Workload(point_reads=0.2, zero_reads=0.2, writes=0.6)
    names = [families("projections", [w], System(entries=n))[0] for n in sizes]
    assert names[0] in ("SCLL", "Lazy Leveling") and names[-1] in ("QLSM-bush", "LSM-bush")
    xs = [recommend(w, System(entries=n), model="paper", constraints=None).design.X
          for n in sizes]
    # X grows with the data from SCLL's 1 towards the LSM-bush's; near X = 3 Theta is flat in X
    # (the optimum at 2^40 has X 2.93 against 3.06 at 2^37), so the trend is what is checked.
    assert all(a <= b + 0.2 for a, b in zip(xs, xs[1:], strict=False)) and xs[-1] > xs[0] + 1


def test_figure_10b_no_memory_picks_leveling_more_memory_more_write_optimized():
    w = Workload(point_reads=0.2, zero_reads=0.2, writes=0.6)
    budgets = [0, 1, 2, 5, 10, 20]
    systems = [System(entries=2**31, bits_per_entry=m) for m in budgets]
    assert families("projections", [w], systems[0]) == ["Leveling"]
    zero = recommend(w, systems[0], model="paper").design
    assert (zero.K, zero.Z, zero.X) == (0.0, 0.0, 1.0)
    for method in ("projections", "global"):
        wa = [recommend(w, s, method=method, model="paper").analysis.write_amp for s in systems]
        assert all(a >= b for a, b in zip(wa, wa[1:], strict=False)), (method, wa)


def test_classify_names_figure_8_columns():
    assert classify(Design(10, 9, 1, 0, 0), PAPER) == "Leveling"
    assert classify(Design(10, 9, 1, 1, 1), PAPER) == "Tiering"
    assert classify(Design(10, 9, 1, 1, 0), PAPER) == "Lazy Leveling"
    assert classify(Design(10, 1, 1, 1, 0), PAPER) == "CLL"
    assert classify(Design(2, 1, 2, 1, 0), PAPER) == "QLSM-bush"
    assert classify(Design(2, 1, 3, 1, 0), PAPER) == "LSM-bush"
    assert classify(Design(10, 3, 1.5, 0.5, 0.2), PAPER) == "Wacky"
    assert classify(Design(10, math.log(PAPER.buffers, 10), 1, 1, 0), PAPER) == "SCLL"
    assert classify(Design(10, 9, 1, 0, 0, "uniform"), PAPER) == "Wacky"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(), "no operations"),
        (dict(writes=0.5), "sum to 1"),
    ],
)
def test_bad_workloads_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        recommend(Workload(**kwargs), PAPER)


def test_bad_method_and_tiny_data_are_refused():
    with pytest.raises(ValueError, match="method"):
        recommend(Workload(writes=1.0), PAPER, method="magic")
    with pytest.raises(ValueError, match="buffer_bytes"):
        System(entries=1000, buffer_bytes=8 * 2**20)
    with pytest.raises(ValueError, match="workloads"):
        recommend_many([], PAPER)


def test_family_theta_with_and_without_a_prebuilt_space_agree():
    space = DesignSpace.build(FAMILY_SYSTEM)
    a = family_theta(FAMILY_SYSTEM, FAMILY_WORKLOAD, space)
    b = family_theta(FAMILY_SYSTEM, FAMILY_WORKLOAD)
    for name in FAMILIES:
        assert a[name].shape == PROJECTION_T.shape
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12)
    with pytest.raises(ValueError, match="different system"):
        family_theta(System(entries=2**30), FAMILY_WORKLOAD, space)


def test_one_search_with_or_without_a_prebuilt_table():
    """There is one search: a call without a space uses the system's table (space_for), so it
    gives exactly what a call with a table built beforehand (the dashboard's) gives; and its
    refinement on the live model never loses to the table lookup alone."""
    rng = np.random.default_rng(11)
    systems = [s for s, _ in random_cases(seed=12, systems=2, per_system=1)]
    systems += [System(entries=1e9, memory_bits_per_entry=14.0)]
    for system in systems:
        space = DesignSpace.build(system, constraints=DEFAULT_CONSTRAINTS)  # recommend's default
        workloads = [Workload(*rng.dirichlet(np.full(4, 0.7)),
                              range_blocks=float(rng.choice([0, 1, 10]))) for _ in range(4)]
        table = recommend_many(workloads, system, space=space).cost
        for w, looked_up in zip(workloads, table, strict=True):
            alone, prebuilt = recommend(w, system), recommend(w, system, space=space)
            assert alone.design == prebuilt.design and alone.cost == prebuilt.cost
            assert alone.system == prebuilt.system
            assert alone.cost <= looked_up * (1 + 1e-12)


def test_refining_a_table_lookup_never_loses():
    space = DesignSpace.build(PAPER)
    plain = recommend_many(ORDINARY, PAPER, space=space)
    refined = recommend_many(ORDINARY, PAPER, space=space, refine=True)
    assert np.all(refined.cost <= plain.cost * (1 + 1e-12))
    # The table holds the projections, so a lookup never loses to a family's best either.
    assert np.all(plain.cost <= plain.family_cost.min(axis=1) * (1 + 1e-12))


@pytest.mark.parametrize("extra", [{}, {"rho": 0.5}, {"granularity": "file"},
                                   {"granularity": "level"}])
def test_recommend_many_takes_recommends_inputs_and_gives_its_answers(extra) -> None:
    """Issue 29: the batch takes skew, a cache, rho and the granularity, and each row is what
    recommend gives for that workload with the same table lookup (refine=False)."""
    from dataclasses import replace as _replace

    plain = Workload(point_reads=0.3, zero_reads=0.1, writes=0.6)
    skewed = _replace(plain, write_keys="zipf:0.9", read_keys="zipf:0.9", update_fraction=0.5)
    ranges = Workload(point_reads=0.1, zero_reads=0.1, writes=0.3, range_reads=0.5,
                      range_blocks=4.0)
    cases = [(System(entries=2**24), [plain, ranges] + ([] if extra else [skewed])),
             (System(entries=2**24, memory_bits_per_entry=12.0), [plain, ranges])]
    if not extra:
        cases.append((System(entries=2**24, cache_bytes=1 << 22), [plain, skewed]))
    for system, workloads in cases:
        batch = recommend_many(workloads, system, **extra)
        for i, w in enumerate(workloads):
            one = recommend(w, system, refine=False, **extra)
            assert batch.designs[i] == one.design and batch.compactions[i] == one.compaction
            assert batch.cost[i] == pytest.approx(one.cost, rel=1e-9)
            assert batch.models[i] == ("skew" if one.skew is not None else one.model)
