"""How many ratios the skew search's seed grid needs (wacky_model.skew_search.GRID_T).

Runs recommend on random skewed workloads and systems with the module's grid and with the seven
ratios it had before (2, 3, 4, 6, 8, 10, 16), and prints the designs each priced and the worst
and mean Θ difference. Usage: ``.venv/bin/python benchmarks/check_skew_grid.py [SEED ...]``.
"""

from __future__ import annotations

import sys

import numpy as np

import wacky_model.skew_search as skew_search
from wacky_model.search import recommend
from wacky_model.types import System, Workload

BEFORE = (2.0, 3.0, 4.0, 6.0, 8.0, 10.0, 16.0)
DISTS = ("zipf:0.9", "zipf:1.2", "hotset:0.1:0.9", "zipf:0.6")


def cases(seed: int, count: int = 24) -> list[tuple[Workload, System]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        m = rng.dirichlet(np.ones(3))
        dist = DISTS[i % len(DISTS)]
        out.append((Workload(point_reads=float(m[0]), zero_reads=float(m[1]),
                             writes=float(m[2]), write_keys=dist, read_keys=dist,
                             update_fraction=float(rng.choice([0.2, 0.5, 0.9]))),
                    System(entries=float(2 ** rng.integers(24, 32)),
                           cache_bytes=int(2 ** rng.integers(20, 31)))))
    return out


def main(seeds: list[int]) -> None:
    count = {"designs": 0}
    staged = skew_search.skew_tree

    def counting(*args, **kwargs):
        count["designs"] += 1
        return staged(*args, **kwargs)

    skew_search.skew_tree = counting
    now = skew_search.GRID_T
    for seed in seeds:
        work = cases(seed)
        result = {}
        for name, grid in (("before", BEFORE), ("now", now)):
            skew_search.GRID_T, count["designs"] = grid, 0
            theta = np.array([recommend(w, s, granularity="level").cost for w, s in work])
            result[name] = (theta, count["designs"])
        (a, na), (b, nb) = result["before"], result["now"]
        print(f"seed {seed}: {len(work)} cases; designs priced {na} -> {nb} "
              f"({na / nb:.1f}x fewer); Θ now vs before: worst {np.max(b / a - 1):+.3%}, "
              f"mean {np.mean(b / a - 1):+.4%}")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [5, 11])
