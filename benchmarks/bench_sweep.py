"""Wall time of the smoke case set with 1 and with 2 local Dask workers, and their ratio (issue
30's target: at least 1.6x on 2 cores). Each is the command a user runs, ``wacky sweep smoke
--workers N --fresh``, in a fresh process (start-up, imports and the cluster's start included,
and every process warms its own caches), the median of ``--repeats`` runs, alternating. The
machines are shared and noisy: the load average is printed beside the times, and nothing is
asserted.

    .venv/bin/python benchmarks/bench_sweep.py [--workers N] [--repeats R]   (about 2 minutes)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.6  # the speed-up of 2 workers over 1, on 2 cores


def wacky() -> list[str]:
    script = Path(sys.executable).with_name("wacky")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wacky_cli"]


def wall_seconds(workers: int, tmp: Path) -> float:
    command = [*wacky(), "sweep", "smoke", "--workers", str(workers), "--fresh",
               "--cache-dir", str(tmp / "cache"), "--out", str(tmp / "VALIDATION.md")]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="the parallel run's size")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each, alternating")
    args = parser.parse_args()
    print(f"wacky sweep smoke, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} before")
    times: dict[int, list[float]] = {1: [], args.workers: []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            for n in times:
                times[n].append(wall_seconds(n, Path(tmp)))
    one, many = (statistics.median(times[n]) for n in times)
    print(f"1 worker: {one:.1f} s; {args.workers} workers: {many:.1f} s (medians of "
          f"{args.repeats}: {times})")
    ratio = one / many
    print(f"ratio: {ratio:.2f}x; target >= {TARGET:g}x with 2 workers on 2 cores: "
          f"{'meets' if ratio >= TARGET else 'misses'} (load average {os.getloadavg()[0]:.1f} "
          "after)")


if __name__ == "__main__":
    main()
