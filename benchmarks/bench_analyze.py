"""Designs per second through one vectorized analyze call (issue: 10^5 designs well under 1 s).

Run: .venv/bin/python benchmarks/bench_analyze.py
The peer is a loop of single-design analyze() calls, timed in the same run.
"""

from __future__ import annotations

import time

import numpy as np

from cost_models.limits import physical
from wacky_model import Design, System, analyze, analyze_many

N_DESIGNS = 100_000
N_LOOP = 500


def main() -> None:
    rng = np.random.default_rng(0)
    system = System()  # the paper's 256 GB of 128-byte entries, 8 MB buffer, 5 bits/entry
    T = rng.uniform(2, 100, N_DESIGNS)
    C = rng.uniform(1, 100, N_DESIGNS)
    X = rng.uniform(1, 4, N_DESIGNS)
    K = rng.uniform(0, 1, N_DESIGNS)
    Z = rng.uniform(0, 1, N_DESIGNS)
    analyze_many(T[:100], C[:100], X[:100], K[:100], Z[:100], system)  # warm-up
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        analyze_many(T, C, X, K, Z, system)
        best = min(best, time.perf_counter() - start)
    # analyze() refuses trees that cannot exist (cost_models.limits); time the physical ones.
    ok = np.flatnonzero(physical(analyze_many(T, C, X, K, Z, system).structure, system.buffers,
                                 system.entries))[:N_LOOP]
    start = time.perf_counter()
    for i in ok:
        analyze(Design(T[i], C[i], X[i], K[i], Z[i]), system)
    loop = (time.perf_counter() - start) / len(ok)
    print(f"vectorized analyze: {N_DESIGNS} designs in {best * 1e3:.0f} ms "
          f"= {N_DESIGNS / best:,.0f} designs/s")
    print(f"one-by-one analyze: {1 / loop:,.0f} designs/s; vectorized is "
          f"{loop * N_DESIGNS / best:.0f}x faster")


if __name__ == "__main__":
    main()
