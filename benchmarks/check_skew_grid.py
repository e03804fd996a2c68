"""How few candidates the skew stage can re-price and keep the search's picks.

Whole levels: runs recommend on random skewed workloads and systems with the seed grid of
wacky_model.skew_search.GRID_T and with the seven ratios it had before (2, 3, 4, 6, 8, 10, 16),
and prints the designs each priced and the worst and mean Θ difference. ``--files``: the file
side (native and stock RocksDB, universal compaction included) re-pricing the best
FILE_REPRICE designs and UNIVERSAL_REPRICE universal configurations by the uniform Θ against
re-pricing every design of the grid. Usage:
``.venv/bin/python benchmarks/check_skew_grid.py [--files] [SEED ...]``.
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


def files(seeds: list[int]) -> None:
    import wacky_model.granularity as granularity
    from wacky_model.search import _file_grids

    now = granularity.FILE_REPRICE, granularity.UNIVERSAL_REPRICE
    for seed in seeds:
        for target in ("native", "rocksdb"):
            gaps, styles = [], []
            for w, s in cases(seed, 12):
                grids = _file_grids(s, None, target, universal=target == "rocksdb")
                granularity.FILE_REPRICE, granularity.UNIVERSAL_REPRICE = now
                few = granularity.file_pick(grids, w, None)
                granularity.FILE_REPRICE = granularity.UNIVERSAL_REPRICE = 10**6
                every = granularity.file_pick(grids, w, None)
                gaps.append(few.theta / every.theta - 1)
                styles.append(every.compaction.style == "universal")
            granularity.FILE_REPRICE, granularity.UNIVERSAL_REPRICE = now
            print(f"seed {seed}, {target}: the best {now[0]} (universal {now[1]}) re-priced "
                  f"against every design of the grid, 12 cases ({sum(styles)} picked universal "
                  f"compaction): worst {max(gaps):+.3%}, mean {np.mean(gaps):+.4%}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--files" in args:
        files([int(x) for x in args if x != "--files"] or [5, 11])
    else:
        main([int(x) for x in args] or [5, 11])
