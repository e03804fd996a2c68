"""Wall time of the smoke case set (``wacky sweep smoke``) with 1 worker and with 2 local Dask
workers, and their ratio (issue 30's target: at least 1.6x on 2 cores). One worker runs the
cases in this process, one after another; two are a LocalCluster, whose start is part of the
time, as it is for the command. No cache: every case runs. The machines are shared and noisy:
the load average is printed beside the times, and nothing is asserted.

    .venv/bin/python benchmarks/bench_sweep.py [--workers N]   (about a minute on 2 cores)
"""

from __future__ import annotations

import argparse
import os
import time

from validation.cases import cases
from validation.scale import Scale
from validation.sweep import run_cases

TARGET = 1.6  # the speed-up of 2 workers over 1, on 2 cores
BUDGET = {"bits_per_entry": 5.0}


def wall_seconds(workers: int) -> float:
    smoke = cases("smoke", Scale(), BUDGET)
    start = time.perf_counter()
    refused: list[tuple[str, str]] = []
    run_cases(smoke, Scale(), BUDGET, workers=workers, refused=refused)
    if refused:
        print(f"  refused: {refused}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="the parallel run's size")
    n = parser.parse_args().workers
    print(f"smoke set: {len(cases('smoke', Scale(), BUDGET))} cases, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} before")
    one = wall_seconds(1)
    print(f"1 worker (in this process): {one:.1f} s")
    many = wall_seconds(n)
    print(f"{n} workers (a LocalCluster, its start included): {many:.1f} s")
    ratio = one / many
    print(f"ratio: {ratio:.2f}x; target >= {TARGET:g}x with 2 workers on 2 cores: "
          f"{'meets' if ratio >= TARGET else 'misses'} (load average {os.getloadavg()[0]:.1f} "
          "after)")


if __name__ == "__main__":  # the cluster's worker processes import this file again
    main()
