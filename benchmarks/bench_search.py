"""Design-search speed: ms per workload for the global search, and workloads/s in batch mode.

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
    MemorySpace,
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


def main() -> None:
    rng = np.random.default_rng(1)
    system = System()
    workloads = [Workload(*rng.dirichlet(np.ones(4))) for _ in range(N_BATCH)]

    start = time.perf_counter()
    for w in workloads[:20]:
        slsqp_tuner(w, system)
    peer_ms = (time.perf_counter() - start) * 1e3 / 20
    for model in MODELS:
        start = time.perf_counter()
        space = DesignSpace.build(system, model)
        build_ms = (time.perf_counter() - start) * 1e3
        recommend(workloads[0], system, space=space, model=model)  # warm-up
        start = time.perf_counter()
        for w in workloads[:N_SINGLE]:
            recommend(w, system, space=space, model=model)
        warm_ms = (time.perf_counter() - start) * 1e3 / N_SINGLE

        start = time.perf_counter()
        for w in workloads[:10]:
            recommend(w, system, model=model)
        cold_ms = (time.perf_counter() - start) * 1e3 / 10

        start = time.perf_counter()
        batch = recommend_many(workloads, system, space=space, model=model)
        batch_s = time.perf_counter() - start
        start = time.perf_counter()
        recommend_many(workloads, system, model=model)
        batch_cold_s = time.perf_counter() - start
        assert len(batch) == N_BATCH

        # The floor: the whole table as one matrix-vector product and its argmin, per workload.
        start = time.perf_counter()
        for w in workloads[:N_SINGLE]:
            np.argmin(theta_of_rows(space.grid_costs, workload_vector(w)[None]))
        floor_ms = (time.perf_counter() - start) * 1e3 / N_SINGLE

        print(f"[{model} model] design space build (once per system): {build_ms:.1f} ms")
        print(f"[{model} model] floor (table x workload, argmin): {floor_ms:.3f} ms per "
              f"workload; the search takes {warm_ms / floor_ms:.0f}x the floor")
        print(f"[{model} model] global search, per workload (space reused): {warm_ms:.2f} ms")
        print(f"[{model} model] global search, per workload (space built each call): "
              f"{cold_ms:.2f} ms")
        print(f"[{model} model] recommend_many: {N_BATCH / batch_s:,.0f} workloads/s (space "
              f"reused), {N_BATCH / batch_cold_s:,.0f} workloads/s (space built in the call)")
        print(f"[{model} model] peer SLSQP tuner (T, memory, leveling vs tiering, paper model): "
              f"{peer_ms:.2f} ms per workload; global search is {peer_ms / warm_ms:.2f}x its "
              f"speed with the space reused")

    # The memory split (issue 14's targets: 1 ms per workload with the table reused, 10,000
    # workloads/s in batch, a new system under 50 ms).
    memory = System(memory_bits_per_entry=14.0)
    start = time.perf_counter()
    mspace = MemorySpace.build(memory)
    mbuild_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    for w in workloads[:20]:
        recommend(w, memory, space=mspace)
    mwarm_ms = (time.perf_counter() - start) * 1e3 / 20
    start = time.perf_counter()
    recommend_many(workloads[:500], memory, space=mspace)
    mbatch = 500 / (time.perf_counter() - start)
    print(f"[memory split, finite model] table build for a new system: {mbuild_ms:.0f} ms; "
          f"search per workload (table reused): {mwarm_ms:.1f} ms; recommend_many: "
          f"{mbatch:,.0f} workloads/s; the floor above is {mwarm_ms / floor_ms:.0f}x faster")


if __name__ == "__main__":
    main()
