"""Design-search speed: ms per workload with the table reused, workloads/s in batch, and a one-off
call on a new system (issue 14's targets: 1 ms, 10,000/s and 50 ms, memory split included).

Run: .venv/bin/python benchmarks/bench_search.py
The peer, timed in the same run, is a tuner in the style the issue cites: scipy's SLSQP over T and
the filter memory, for Leveling and for Tiering, keeping the better (continuous T, Monkey filters).
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
from scipy.optimize import minimize

from cost_models.costs import theta_of_rows
from wacky_model.search import (
    MODELS,
    DesignSpace,
    recommend,
    recommend_many,
    workload_vector,
)
from wacky_model.types import System, Workload

N_SINGLE = 100
N_BATCH = 2000


def slsqp_tuner(workload: Workload, system: System) -> float:
    """SLSQP over (T, bits/entry of filters) with the rest of memory as buffer, per policy."""
    weights = workload_vector(workload)
    total_bits = system.bits_per_entry * system.entries + system.buffer_bytes * 8
    best = np.inf
    for K, Z in ((0.0, 0.0), (1.0, 1.0)):

        def theta(v: np.ndarray, K: float = K, Z: float = Z) -> float:
            T, m = float(v[0]), float(v[1])
            buffer_bytes = max((total_bits - m * system.entries) / 8, system.block_bytes)
            s = replace(system, bits_per_entry=m, buffer_bytes=int(buffer_bytes))
            from wacky_model.search import realizable_costs

            return float(realizable_costs(s, T, T - 1, 1.0, K, Z, model="paper") @ weights)

        res = minimize(theta, x0=[10.0, system.bits_per_entry * 0.9], method="SLSQP",
                       bounds=[(2.0, 100.0), (0.0, system.bits_per_entry)])
        best = min(best, res.fun)
    return best


def timed(fn, repeat: int) -> float:
    """Mean milliseconds per call of ``fn`` over ``repeat`` calls (after one warm-up call)."""
    fn()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) * 1e3 / repeat


def main() -> None:
    rng = np.random.default_rng(1)
    workloads = [Workload(*rng.dirichlet(np.ones(4))) for _ in range(N_BATCH)]
    fixed = System()
    cases = [(f"{model} model", fixed, model) for model in MODELS]
    cases.append(("memory split, finite model", System(memory_bits_per_entry=14.0), "finite"))
    # With a probe cost every design is priced at each number of hash levels (App. F).
    cases.append(("memory split + probe cost 1e-3 (hash tables), finite model",
                  System(memory_bits_per_entry=14.0, probe_cost=1e-3), "finite"))

    start = time.perf_counter()
    for w in workloads[:20]:
        slsqp_tuner(w, fixed)
    peer_ms = (time.perf_counter() - start) * 1e3 / 20
    print(f"peer SLSQP tuner (T, memory, leveling vs tiering, paper model): {peer_ms:.2f} ms "
          "per workload")

    for label, system, model in cases:
        bench_case(label, system, model, workloads, peer_ms)


def bench_case(label: str, system: System, model: str, workloads: list[Workload],
               peer_ms: float) -> None:
    start = time.perf_counter()
    space = DesignSpace.build(system, model)
    build_ms = (time.perf_counter() - start) * 1e3
    it = iter(workloads * 2)
    warm_ms = timed(lambda: recommend(next(it), system, space=space, model=model), N_SINGLE)
    it = iter(workloads * 2)
    analysis_ms = timed(
        lambda: recommend(next(it), system, space=space, model=model).analysis, N_SINGLE)
    it = iter(workloads * 2)
    cold_ms = timed(lambda: recommend(next(it), system, model=model), 20)
    start = time.perf_counter()
    batch = recommend_many(workloads, system, space=space, model=model)
    batch_s = time.perf_counter() - start
    assert len(batch) == N_BATCH
    # The floor: the table as one matrix-vector product and its argmin, per workload.
    it = iter(workloads * 2)
    floor_ms = timed(lambda: np.argmin(theta_of_rows(
        space.costs, workload_vector(next(it), system.write_cost_ratio,
                                      system.probe_cost)[None])), N_SINGLE)

    print(f"[{label}] table for a new system: {build_ms:.0f} ms ({space.costs.shape[0]} "
          f"candidates)")
    print(f"[{label}] search per workload, table reused: {warm_ms:.3f} ms "
          f"({warm_ms / floor_ms:.1f}x the floor of {floor_ms:.3f} ms: the table x workload "
          f"and its argmin); with the per-level analysis of the result: {analysis_ms:.2f} ms")
    print(f"[{label}] recommend_many: {N_BATCH / batch_s:,.0f} workloads/s (table reused)")
    print(f"[{label}] one-off call on a new system (lean search, no table): {cold_ms:.1f} ms")
    print(f"[{label}] peer SLSQP is {peer_ms / warm_ms:.1f}x slower than a table lookup")

if __name__ == "__main__":
    main()
