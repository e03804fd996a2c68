"""Robust tuning's inner maximization (cost_models.robust) against a numerical optimizer."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from cost_models.robust import worst_case_cost, worst_case_workload


def _kl(x: np.ndarray, w: np.ndarray) -> float:
    support = w > 0
    x = np.clip(x, 1e-300, None)
    return float(np.sum(np.where(support, x * np.log(x / np.where(support, w, 1.0)), 0.0)))


def _slsqp_worst(c: np.ndarray, w: np.ndarray, rho: float, rng) -> float:
    # Only the workload's support can carry weight (KL is infinite elsewhere): optimize over it
    # alone, since fixed variables (bounds (0, 0)) make SLSQP fail in recent SciPy releases.
    support = w > 0
    cs, ws = c[support], w[support]
    constraints = [{"type": "eq", "fun": lambda x: x.sum() - 1.0},
                   {"type": "ineq", "fun": lambda x: rho - _kl(x, ws)}]
    bounds = [(0.0, 1.0)] * ws.size
    best = -np.inf
    starts = [ws, *rng.dirichlet(np.ones(ws.size), size=7)]  # SLSQP sometimes fails from one
    for x0 in starts:
        r = minimize(lambda x: -cs @ x, x0 / x0.sum(), method="SLSQP", bounds=bounds,
                     constraints=constraints, options={"ftol": 1e-12, "maxiter": 500})
        if r.success and _kl(r.x, ws) <= rho + 1e-7 and abs(r.x.sum() - 1) < 1e-7:
            best = max(best, -r.fun)
    return best


def test_inner_maximization_matches_a_numerical_optimizer() -> None:
    rng = np.random.default_rng(0)
    checked = 0
    for trial in range(120):
        w = rng.dirichlet(np.full(4, 0.7))
        if trial % 5 == 0:  # an operation the workload never runs stays at 0
            w[rng.integers(4)] = 0.0
            w = w / w.sum()
        c = rng.uniform(0, 5, 4)
        rho = float(rng.choice([0.01, 0.1, 0.5, 1.0, 3.0]))
        ours = float(worst_case_cost(c[None], w, rho)[0])
        theirs = _slsqp_worst(c, w, rho, rng)
        assert np.isfinite(theirs)
        # Ours is the exact maximizer: never below the optimizer's, and equal to it closely.
        assert ours >= theirs - 1e-6 * max(1.0, theirs)
        assert ours == pytest.approx(theirs, rel=1e-5, abs=1e-7)
        w_star = worst_case_workload(c[None], w, rho)[0]
        assert _kl(w_star, w) <= rho * (1 + 1e-9) + 1e-12
        assert w_star.sum() == pytest.approx(1.0) and np.all(w_star[w == 0] == 0)
        checked += 1
    assert checked == 120


def test_rho_zero_is_the_nominal_cost_and_large_rho_the_costliest_operation() -> None:
    rng = np.random.default_rng(1)
    c = rng.uniform(0, 3, (50, 4))
    w = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(worst_case_cost(c, w, 0.0), c @ w)
    np.testing.assert_allclose(worst_case_cost(c, w, 50.0), c.max(axis=1))
    # Monotone in rho.
    prev = c @ w
    for rho in (0.05, 0.2, 1.0, 2.0):
        now = worst_case_cost(c, w, rho)
        assert np.all(now >= prev - 1e-12)
        prev = now


def test_bad_rho_and_weights_are_refused() -> None:
    c = np.ones((1, 4))
    with pytest.raises(ValueError, match="rho must be a finite number >= 0"):
        worst_case_cost(c, np.full(4, 0.25), -0.1)
    with pytest.raises(ValueError, match="sum to 1"):
        worst_case_cost(c, np.full(4, 0.3), 0.1)


# ------------------------------------------------------------------------ robust tuning


@pytest.fixture(scope="module")
def space():
    from wacky_model.search import DesignSpace
    from wacky_model.types import System

    return DesignSpace.build(System())


def _random_workloads(n: int, seed: int = 4):
    from wacky_model.types import Workload

    rng = np.random.default_rng(seed)
    return [Workload(*(float(x) for x in rng.dirichlet(np.ones(4)))) for _ in range(n)]


def test_rho_zero_is_the_nominal_recommendation(space) -> None:
    from wacky_model.search import recommend
    from wacky_model.types import System

    for w in _random_workloads(4):
        nominal = recommend(w, System(), space=space)
        robust = recommend(w, System(), space=space, rho=0.0)
        assert robust.design == nominal.design
        assert robust.cost == pytest.approx(nominal.cost, rel=1e-9)
        assert robust.robust["robust_design"]["worst_case_cost"] == pytest.approx(
            robust.robust["nominal_design"]["worst_case_cost"], rel=1e-9)


@pytest.mark.parametrize("rho", [0.1, 0.5, 2.0])
def test_robust_worst_case_never_above_the_nominal_designs(space, rho) -> None:
    from wacky_model.search import recommend
    from wacky_model.types import System

    for w in _random_workloads(6, seed=int(rho * 10)):
        rec = recommend(w, System(), space=space, rho=rho)
        mine, theirs = rec.robust["robust_design"], rec.robust["nominal_design"]
        assert rec.cost == pytest.approx(mine["worst_case_cost"])
        assert mine["worst_case_cost"] <= theirs["worst_case_cost"] * (1 + 1e-9)
        # ... and it pays for it at the expected workload, if anywhere (up to the search's own
        # tolerance: the two searches are separate pattern searches).
        assert mine["nominal_cost"] >= theirs["nominal_cost"] * (1 - 1e-4)
        assert rec.to_dict()["robust"]["rho"] == rho


def test_cli_robust(wacky) -> None:
    import json

    mix = ["--point-reads", "0.25", "--zero-reads", "0.25", "--writes", "0.45",
           "--range-reads", "0.05"]
    out = wacky("recommend", *mix, "--robust", "0.5", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["robust"]["robust_design"]["worst_case_cost"] <= (
        doc["robust"]["nominal_design"]["worst_case_cost"])
    bad = wacky("recommend", *mix, "--robust", "-0.1")
    assert bad.returncode == 2 and "--robust must be a number >= 0" in bad.stderr
