"""How often T7's shortlist keeps the pick under skew or a cache (docs/MODEL.md "T7").

``recommend --target rocksdb --objective throughput`` prices with the skew stage only part of
the stock grid (``wacky_model.rocksdb_throughput.time_pick``): the best ``TIME_REPRICE``
leveled configurations (and ``UNIVERSAL_REPRICE`` universal ones) by T7's rank on the cheap
rows, the best ``TIME_REPRICE`` more by the calibrated estimate, then descents from the
fastest three over every leveled configuration one knob away. This prices every configuration
of the grid with the same skew stage instead (``EVERY``, the brute force) on random cached and
skewed workloads and systems, and prints for each shortlist size how often the two picks are
the same configuration, the worst and mean shortfall of the shortlist's pick in operations per
second (T7's ``achieved``), and its time against the brute force's, each run with the skew
stage's caches emptied. ``one start`` descends from the fastest leveled configuration only;
``plain`` is the I/O objective's scheme: no calibrated round, one descent, each knob's best
neighbor only. The machines are the tests' hand-built profile
(tests/test_rocksdb_throughput.py) and the same with compaction five times slower, so that the
write constraint binds in some cases. Usage:
``.venv/bin/python benchmarks/check_t7_shortlist.py [--sizes N,N,...] [SEED ...]``
(default: the shipped ``TIME_REPRICE`` on seed 5).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from wacky_model.devices import DeviceProfile
from wacky_model.guardrails import DEFAULT_CONSTRAINTS
from wacky_model.rocksdb_throughput import EVERY, TIME_REPRICE, Reprice, time_pick, timed_costs
from wacky_model.rocksdb_tuning import stock_grid, stock_neighbors
from wacky_model.types import System, Workload

READS = {"rocksdb_ns_per_get": 4000.0, "rocksdb_ns_per_zero_get": 2000.0,
         "rocksdb_ns_per_seek": 8000.0, "rocksdb_ns_per_next": 200.0}
MACHINE = DeviceProfile("test-machine", 500.0, 500.0, 20_000.0, 50.0,
                        rocksdb_ns_per_put=1500.0, rocksdb_ns_per_compaction_byte=2.0,
                        rocksdb_ns_per_flush_byte=5.0, cores=2, **READS)
MACHINES = (MACHINE, replace(MACHINE, name="slow-merges", rocksdb_ns_per_compaction_byte=10.0))
DISTS = ("zipf:0.9", "zipf:1.2", "hotset:0.1:0.9", "zipf:0.6", "uniform")


def cases(seed: int, count: int = 12) -> list[tuple[Workload, System, DeviceProfile]]:
    """Random mixes of the four kinds with skewed keys (one in five uniform, priced by the skew
    stage for its cache alone) and updates, on 2^20 to 2^25 entries (the brute force prices
    each of the grid's ~500 configurations) with a cache of 1/32 to 4 times the data."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        m = rng.dirichlet(np.ones(4))
        dist = DISTS[i % len(DISTS)]
        workload = Workload(point_reads=float(m[0]), zero_reads=float(m[1]),
                            writes=float(m[2]), range_reads=float(m[3]),
                            range_blocks=float(rng.choice([0.25, 1.0, 4.0])), write_keys=dist,
                            read_keys=dist,
                            update_fraction=float(rng.choice([0.0, 0.2, 0.5, 0.9])))
        entries = 2 ** int(rng.integers(20, 26))
        system = System(entries=float(entries), bits_per_entry=10.0,
                        buffer_bytes=2 ** int(rng.integers(20, 24)),
                        cache_bytes=int(entries * 128 * 2 ** rng.uniform(-5, 2)))
        out.append((workload, system, MACHINES[i % len(MACHINES)]))
    return out


def cold() -> None:
    """Empty the caches the skew stage keeps between calls (universal trees, block rates), so
    that neither run is timed on the other's work."""
    import cost_models.skew
    import wacky_model.skew

    wacky_model.skew.universal_cycle_tree.cache_clear()
    cost_models.skew._drawn_rates.cache_clear()


def timed_run(pick: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``pick(*args, **kwargs)`` from cold caches, and its seconds."""
    cold()
    start = time.perf_counter()
    out = pick(*args, **kwargs)
    return out, time.perf_counter() - start


def schemes(size: int) -> dict[str, tuple[Reprice, bool]]:
    """The shortlists compared, with a shortlist of ``size``: (how T7 re-prices, whether the
    descent tries every leveled neighbor)."""
    return {"shipped": (Reprice(size), True), "one start": (Reprice(size, starts=1), True),
            "plain": (Reprice(size, False, 1), False)}


def main(seeds: list[int], sizes: list[int]) -> None:
    for seed in seeds:
        work = cases(seed)
        grids_of = [list(stock_grid(s, DEFAULT_CONSTRAINTS)) for _, s, _ in work]
        time_pick(grids_of[0], *work[0][::2], reprice=Reprice(4))  # the model's constants
        every = [timed_run(time_pick, g, w, m, reprice=EVERY)
                 for (w, _, m), g in zip(work, grids_of, strict=True)]
        every_s = sum(t for _, t in every)
        large = [s.cache_bytes >= s.entries * s.entry_bytes for _, s, _ in work]
        print(f"seed {seed}: {len(work)} cases ({sum(large)} with a cache holding all the "
              f"data); the brute force {every_s:.1f} s")
        for size in sizes:
            for scheme, (how, every_leveled) in schemes(size).items():
                same, gaps, few_s = [], [], 0.0
                for (w, _, m), grids, (best, _) in zip(work, grids_of, every, strict=True):
                    few, s = timed_run(time_pick, grids, w, m,
                                       neighbors=stock_neighbors(grids, every_leveled),
                                       reprice=how)
                    few_s += s
                    same.append((few.design, few.compaction, few.system)
                                == (best.design, best.compaction, best.system))
                    a, b = (timed_costs(p.costs, w, p.system, m) for p in (few, best))
                    # At least 0 but for ties within float noise (the brute force prices all).
                    gaps.append(max(0.0, 1.0 - a.achieved / b.achieved))
                small = [x for x, big in zip(same, large, strict=True) if not big]
                print(f"  {scheme}, shortlist {size}: the brute force's pick in {sum(same)}/"
                      f"{len(same)} ({sum(small)}/{len(small)} with a smaller cache); "
                      f"shortfall in operations/s worst {max(gaps):.2%}, mean "
                      f"{np.mean(gaps):.2%}; {few_s:.1f} s, {every_s / few_s:.0f}x faster")


if __name__ == "__main__":
    args = sys.argv[1:]
    sizes = [TIME_REPRICE]
    if "--sizes" in args:
        at = args.index("--sizes")
        sizes = [int(x) for x in args[at + 1].split(",")]
        args = args[:at] + args[at + 2:]
    main([int(x) for x in args] or [5], sizes)
