"""recommend(target="rocksdb") under ``latest`` keys against the same call under Zipf keys, in
the same run: 50,000 keys of 108 bytes, a 64 KiB memtable, a 2 MiB cache (tests/
test_skew_crashes.py's SMALL), the mix 0.2/0.1/0.6/0.1. Each call runs in a fresh interpreter
after its imports, so neither the stock grid's cache nor a key map's carries over between
cases; the ratio latest/zipf is the figure to watch (the machine's speed cancels).

    .venv/bin/python benchmarks/bench_latest.py            # every case, once each
    .venv/bin/python benchmarks/bench_latest.py --repeat 3 # the best of three per case
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# name: (write keys, read keys, update share); "zipf" is the peer the others are divided by.
CASES = {
    "zipf": ("zipf:1.2", "zipf:1.2", 0.5),
    "latest writes": ("latest:1.2", "zipf:1.2", 0.5),
    "latest writes+reads": ("latest:1.2", "latest:1.2", 0.5),
    "latest inserts": ("latest:1.2", "zipf:1.2", 0.0),
    "latest inserts, latest reads": ("latest:1.2", "latest:1.2", 0.0),
    "latest:0.6 writes": ("latest:0.6", "zipf:1.2", 0.5),
}


def _one(name: str) -> float:
    """Seconds of one recommend call (imports done before the clock starts)."""
    import wacky_model.rocksdb_model  # noqa: F401  (its scipy import is not the search's time)
    from wacky_model.search import recommend
    from wacky_model.types import System, Workload

    system = System(entries=50_000, entry_bytes=108, key_bytes=8, buffer_bytes=65_536,
                    bits_per_entry=10, cache_bytes=2 * 2**20)
    writes, reads, update = CASES[name]
    workload = Workload(0.2, 0.1, 0.6, 0.1, write_keys=writes, read_keys=reads,
                        update_fraction=update)
    start = time.perf_counter()
    recommend(workload, system, target="rocksdb")
    return time.perf_counter() - start


def _timed(name: str, repeat: int) -> float:
    """The best of ``repeat`` fresh interpreters' times for case ``name``."""
    out = []
    for _ in range(repeat):
        run = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True,
                             text=True, check=True, cwd=ROOT)
        out.append(float(run.stdout.split()[-1]))
    return min(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--one", choices=sorted(CASES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(f"{_one(args.one):.3f}")
        return
    times = {name: _timed(name, args.repeat) for name in CASES}
    print("| keys (writes, reads, update share) | seconds | latest/zipf |")
    print("|---|---:|---:|")
    for name, (writes, reads, update) in CASES.items():
        print(f"| {name} ({writes}, {reads}, {update:g}) | {times[name]:.2f} | "
              f"{times[name] / times['zipf']:.2f} |")


if __name__ == "__main__":
    main()
