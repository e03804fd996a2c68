"""The finite-N model (cost_models.finite): its sums against sympy and brute force, its cost per
design against N/F, and its predictions against the engine simulator's steady window on designs
drawn from a seed the model was never developed on."""

from __future__ import annotations

import gc
import math
import sys

import numpy as np
import pytest
import sympy as sp

from cost_models import symbolic as sym
from cost_models.finite import (
    finite_cost_rows,
    finite_costs,
    level_L_cycle,
    runs_over_fill,
    writes_per_fill,
)
from validation.predict import steady_window
from wacky_model.search import DesignSpace, recommend, workload_vector
from wacky_model.types import Design, System, Workload

HELD_OUT_SEED = 99  # the model was developed on seed 7's designs; never tuned on these


def random_designs(seed: int, n: int) -> list[Design]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        T = float(np.round(rng.uniform(2, 12), 2))
        C = float(np.round(rng.uniform(1, 10), 2))
        X = float(np.round(rng.choice([1.0, rng.uniform(1, 2.5)]), 2))
        K, Z = (float(np.round(v, 2)) for v in rng.uniform(0, 1, size=2))
        out.append(Design(T, C, X, K, Z))
    return out


# ------------------------------------------------------------------------- the closed forms


def test_fill_sums_are_the_numpy_forms_and_the_brute_force_sums() -> None:
    forms = sym.fill_sums()
    runs = sp.lambdify((sym.q_, sym.f_, sym.e_), forms.runs_sum)
    writes = sp.lambdify((sym.q_, sym.f_, sym.e_), forms.writes_sum)
    for q in range(1, 9):
        for m in range(0, 40):
            f, e = divmod(m, q)
            brute_runs = sum(math.ceil(k / q) for k in range(m + 1))
            # Batch by batch: a batch joins the active run (rewriting it) or starts the next one.
            held, brute_writes = 0, 0
            for _ in range(m):
                held = held + 1 if 0 < held < q else 1
                brute_writes += held
            assert runs(q, f, e) == brute_runs
            assert writes(q, f, e) == brute_writes
            assert runs_over_fill(np.float64(m), np.float64(q)) == pytest.approx(
                brute_runs / (m + 1), rel=1e-12)
            assert writes_per_fill(np.float64(m), np.float64(q)) == brute_writes


def test_leveling_and_tiering_limits_of_a_fill() -> None:
    m = sp.Symbol("m", integer=True, positive=True)
    assert sp.simplify(sym.leveling_writes_per_insert() - m / 2) == 0
    ms = np.arange(1.0, 50.0)
    np.testing.assert_allclose(writes_per_fill(ms, ms) / (ms + 1), ms / 2)  # one run: m/2
    # Tiering (q = 1): every batch is written once as its own run.
    np.testing.assert_allclose(writes_per_fill(ms, np.ones_like(ms)), ms)
    np.testing.assert_allclose(runs_over_fill(ms, np.ones_like(ms)), ms / 2)


def test_level_L_cycle_is_its_geometric_sums() -> None:
    forms = sym.level_L_sums()
    run_writes = sp.lambdify((sym.beta, sym.q_), forms.run_writes)
    starts = sp.lambdify((sym.beta, sym.q_, sym.a_L), forms.run_starts.args[-1][0])
    need = sp.lambdify((sym.beta, sym.a_L), sym.level_L_run_batches())
    rng = np.random.default_rng(1)
    for beta, a in zip(rng.uniform(0.01, 1.5, 40), rng.integers(2, 12, 40), strict=True):
        q, growth, build, full, _ = level_L_cycle(np.float64(beta), np.float64(a))
        assert q == max(1, math.ceil(need(beta, a) - 1e-9))
        # The same cycle step by step, in units of Level L's size after a full merge.
        size, written = 1.0, 0.0
        for _run in range(int(a) - 1):
            active = 0.0
            for _batch in range(int(q)):
                batch = beta * size
                active += batch
                size += batch
                written += active
        batch = beta * size
        full_write = size + batch
        size += batch
        assert growth == pytest.approx(size, rel=1e-12)
        assert build == pytest.approx(written / (size - 1.0), rel=1e-10)
        assert full == pytest.approx(full_write / (size - 1.0), rel=1e-12)
        per_run = run_writes(beta, q)
        assert build * (growth - 1.0) == pytest.approx(per_run * starts(beta, q, a), rel=1e-10)
    # a_L = 1: every major merge rewrites Level L; (1 + beta) / beta writes per insert.
    beta = np.array([0.05, 0.1, 0.5])
    q, growth, build, full, runs = level_L_cycle(beta, np.ones(3))
    assert sp.simplify(sym.level_L_sums().full_per_insert_leveled - (1 + sym.beta) / sym.beta) == 0
    np.testing.assert_allclose(full, (1 + beta) / beta)
    np.testing.assert_allclose(build, 0.0)
    np.testing.assert_allclose(runs, 1.0)


def test_phase_density_is_the_triangle() -> None:
    density = sym.phase_density()
    assert sp.integrate(density, (sym.u_, 0, 2)) == 1
    for u in (0.25, 0.5, 1.0, 1.5, 1.9):
        assert float(density.subs(sym.u_, u)) == pytest.approx(1 - abs(u - 1))


# ----------------------------------------------------------------------- cost per design


def _python_calls(fn) -> int:
    """Python and C calls of ``fn()`` after a first, uncounted call (a first call's one-off
    work), with the garbage collector off: a collection runs the gc callbacks other tests in
    the worker registered (Dask's), a few calls more or fewer by timing."""
    fn()
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(tracer)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if enabled:
            gc.enable()
    return count


@pytest.mark.parametrize("designs", [10, 10_000])
def test_cost_per_design_is_flat_in_entries_per_buffer(designs) -> None:
    """The work is a fixed number of vectorized steps per level: the calls made do not depend
    on the number of designs, and grow with L (log N/F), not with N/F."""
    rng = np.random.default_rng(3)
    knobs = (rng.uniform(2, 12, designs), rng.uniform(1, 10, designs), rng.uniform(1, 2, designs),
             rng.uniform(0, 1, designs), rng.uniform(0, 1, designs))

    def run(entries: float):
        return lambda: finite_costs(*knobs, entries=entries, buffer_entries=1024,
                                    bits_per_entry=5.0)

    small, huge = _python_calls(run(1024 * 1e3)), _python_calls(run(1e15))
    print(f"{designs} designs: {small} calls at N/F = 1e3, {huge} at N/F ~ 1e12")
    assert huge <= 3 * small  # N/F grew 10^9 times
    if designs == 10_000:
        assert _python_calls(run(1e15)) == huge
        m = run(1e15)()
        assert np.isfinite(m.write_amp).all() and (m.write_amp > 1).all()


def test_call_count_does_not_depend_on_the_number_of_designs() -> None:
    def run(n: int):
        ones = np.ones(n)
        return lambda: finite_costs(4 * ones, 3 * ones, ones, 0.5 * ones, 0.5 * ones,
                                    entries=1e15, buffer_entries=1024, bits_per_entry=5.0)

    assert _python_calls(run(10)) == _python_calls(run(10_000))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="bits_per_entry or sum_fpr"):
        finite_costs(4, 3, 1, 1, 1, entries=1e6, buffer_entries=100)
    with pytest.raises(ValueError, match="points"):
        finite_costs(4, 3, 1, 1, 1, entries=1e6, buffer_entries=100, bits_per_entry=5.0,
                     points=0)


# --------------------------------------------------------- predictions on held-out designs

SCALES = {"N/F = 256": 2048, "N/F = 2048": 256, "N/F = 16384": 32}  # F for N = 2^19


@pytest.mark.parametrize("label", list(SCALES))
def test_window_write_amp_predicts_the_engine_simulator_on_held_out_designs(label) -> None:
    """The steady window the engine measures, replayed by its specification, against the
    model's window write amplification, on random designs from a seed never used in
    development. Targets (issue 13): median error <= 10%, worst <= 25%."""
    N, F = 1 << 19, SCALES[label]
    errors = []
    for d in random_designs(HELD_OUT_SEED, 16):
        w = steady_window(*d.knobs.values(), entries=N, buffer_entries=F, entries_per_block=32,
                          bits_per_entry=5.0)
        if not w.complete:  # the window hit its cap: a partial cycle, not a steady window
            continue
        m = finite_costs(*d.knobs.values(), entries=N, buffer_entries=F, bits_per_entry=5.0)
        errors.append(float(m.window_write_amp) / w.write_amp - 1.0)
    errors = np.abs(errors)
    print(f"{label}: {errors.size} complete windows, median {np.median(errors):.1%}, "
          f"worst {errors.max():.1%}")
    assert errors.size >= 12
    assert np.median(errors) <= 0.10
    assert errors.max() <= 0.25


# ------------------------------------------------------------------------------ the search


def test_search_optimizes_the_finite_model_by_default() -> None:
    system = System(entries=2**31)
    w = Workload(point_reads=0.2, zero_reads=0.2, writes=0.6)
    rec = recommend(w, system)
    assert rec.model == "finite" and rec.to_dict()["model"] == "finite"
    d = rec.design
    rows = finite_cost_rows(d.T, d.C, d.X, d.K, d.Z, entries=system.entries,
                            buffer_entries=system.buffer_entries,
                            entries_per_block=system.entries_per_block, bits_per_entry=5.0)
    assert rec.cost == pytest.approx(float(rows @ workload_vector(w)), rel=1e-9)
    assert rec.cost == pytest.approx(rec.analysis.finite.theta, rel=1e-9)
    paper = recommend(w, system, model="paper")
    assert paper.model == "paper" and paper.cost == pytest.approx(paper.analysis.theta)
    # Each model's optimum is at least as good as the other's design under that model.
    assert rec.cost <= recommend_cost(paper.design, system, w) * (1 + 1e-9)


def recommend_cost(design: Design, system: System, workload: Workload) -> float:
    from wacky_model.analysis import analyze

    return analyze(design, system, workload, realizable=True).finite.theta


def test_model_is_checked() -> None:
    with pytest.raises(ValueError, match="model must be one of finite, paper"):
        recommend(Workload(writes=1.0), System(), model="exact")
    space = DesignSpace.build(System(), "paper")
    with pytest.raises(ValueError, match="built for model 'paper'"):
        recommend(Workload(writes=1.0), System(), space=space)


@pytest.mark.parametrize("read_kind", ["zero_reads", "point_reads"])
def test_figure_9_direction_holds_under_the_finite_model(read_kind) -> None:
    """More reads buy more write amplification (the paper's Figure 9 direction), and the family
    the projections pick moves from LSM-bush towards the leveled end (docs/MODEL.md lists where
    the finite model's stops differ from the paper's)."""
    system = System(entries=2**31, buffer_bytes=8 << 20, bits_per_entry=5.0)
    space = DesignSpace.build(system)
    shares = [0.05, 0.2, 0.4, 0.6, 0.8, 0.9, 0.99]
    workloads = [Workload(**{read_kind: r, "writes": 1 - r}) for r in shares]
    wa = [recommend(w, system, space=space).analysis.finite.write_amp for w in workloads]
    assert all(a <= b * (1 + 1e-9) for a, b in zip(wa, wa[1:], strict=False)), wa
    names = [recommend(w, system, space=space, method="projections").family for w in workloads]
    assert names[0] == "LSM-bush" and names[-1] in ("Lazy Leveling", "Leveling")


# ------------------------------------------------------------------------------ the engine

ENGINE_DESIGNS = [random_designs(HELD_OUT_SEED, 16)[i] for i in (0, 3, 9)]  # a_L = 3, 4, 1


@pytest.fixture(scope="module")
def engine_runs():
    """The three held-out designs built in the engine at each scale, at steady state."""
    from validation import sweep  # the driver: SweepCase, run_cases
    from validation.scale import Scale

    out = {}
    for label, F in SCALES.items():
        scale = Scale(entries=1 << 19, buffer_bytes=F * 128, reads=4000)
        todo = [sweep.SweepCase(f"{label} #{i}", "held-out", d)
                for i, d in enumerate(ENGINE_DESIGNS)]
        for c, r in zip(todo, sweep.run_cases(todo, scale, {"bits_per_entry": 5.0}, workers=2),
                        strict=True):
            out[c.name] = r.result
    return out


def test_the_model_predicts_the_engine_at_three_scales(engine_runs) -> None:
    """Issue 13's targets on held-out designs. Write amplification: median <= 10%, worst <=
    25%. Reads: a design with a_L > 1 holds between 1 and a_L - 1 runs at Level L when the window
    starts, a count set by the tree's whole history, not by N (docs/MODEL.md M7); the model
    averages over it, so its read figures are checked given the observed count (the
    ``conditioned`` prediction), and the unconditioned errors are printed."""
    wa = []
    for name, r in engine_runs.items():
        c = r.conditioned or r.predicted
        e = r.relative_error
        given = c.zero_result_read / r.measured.zero_result_read - 1
        print(f"{name} {r.design.knobs}: window {r.window_writes}, Level-L runs "
              f"{r.detail('level_L_runs_at_start')}; write amp {e.write_amp:+.1%}; zero-result "
              f"{e.zero_result_read:+.1%} ({given:+.1%} given the runs); worst-case read "
              f"{e.point_read:+.1%}; uniform read {e.point_read_uniform:+.1%}")
        assert r.detail("window_complete") and not r.checks.any
        wa.append(abs(e.write_amp))
        m = r.measured
        assert abs(c.zero_result_read - m.zero_result_read) <= max(
            0.15 * m.zero_result_read, 0.01), name
        assert c.point_read == pytest.approx(m.point_read, rel=0.05), name
        assert c.point_read_uniform == pytest.approx(m.point_read_uniform, rel=0.05), name
    assert np.median(wa) <= 0.10 and max(wa) <= 0.25, wa
