"""Model evaluations per second: the finite-N model against the paper's, in the same run.

Run: .venv/bin/python benchmarks/bench_model.py
Both evaluate the same 10^4 random designs in one vectorized call (issue 13: "analyze of 10^4
designs at 10^15 entries stays well under a second"), at N = 2^31 and at N = 10^15; the finite
model's time at the two sizes shows its cost per design does not grow with N/F.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from wacky_model import System, analyze_many, steady_costs_many

N_DESIGNS = 10_000


def best_of(fn: Callable[[], object], repeats: int = 5) -> float:
    fn()  # warm-up
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    knobs = (rng.uniform(2, 12, N_DESIGNS), rng.uniform(1, 10, N_DESIGNS),
             rng.uniform(1, 2, N_DESIGNS), rng.uniform(0, 1, N_DESIGNS),
             rng.uniform(0, 1, N_DESIGNS))
    for entries in (2.0**31, 1e15):
        system = replace(System(), entries=entries)
        paper = best_of(lambda s=system: analyze_many(*knobs, s, realizable=True))
        finite = best_of(lambda s=system: steady_costs_many(*knobs, s))
        print(f"N = {entries:.3g} (N/F = {system.buffers:.3g}), {N_DESIGNS:,} designs: "
              f"finite model {finite * 1e3:.0f} ms = {N_DESIGNS / finite:,.0f} designs/s; "
              f"paper model {paper * 1e3:.0f} ms = {N_DESIGNS / paper:,.0f} designs/s; "
              f"finite / paper time {finite / paper:.1f}x")


if __name__ == "__main__":
    main()
