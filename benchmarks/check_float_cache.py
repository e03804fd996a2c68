"""What floating (Tidal-tree, F1-F5) does to a block cache: data blocks read per existing-key
lookup on the native engine with and without floating, under a data block cache of each size
given (filters and indexes pinned), Zipf 0.99 reads at R:W 9:1 (validation/tidal.py's workload
at a smaller load). Floated files are rewritten sooner, so their blocks leave the cache sooner
(S6), which the model does not price: the one table refuses floating with a cache
(wacky_model/compat.py), and this measures how much the omission would cost.

    .venv/bin/python benchmarks/check_float_cache.py            # about 2 minutes
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.tidal import measure  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache-mib", type=float, nargs="+", default=[4.0, 16.0])
    ap.add_argument("--entries", type=int, default=50_000)
    ap.add_argument("--operations", type=int, default=30_000)
    a = ap.parse_args()
    print(f"{'cache (MiB)':>11} {'blocks/lookup, off':>19} {'on':>8} {'change':>8} "
          f"{'files checked, off':>19} {'on':>6} {'floats':>7}")
    for mib in a.cache_mib:
        runs = [measure("zipf:0.99", 9, gamma, entries=a.entries, operations=a.operations,
                        warmup=a.operations, cache_bytes=int(mib * 2**20))
                for gamma in (0.0, 1.0)]
        off, on = runs
        print(f"{mib:11g} {off.read_blocks:19.4f} {on.read_blocks:8.4f} "
              f"{on.read_blocks / off.read_blocks - 1:+8.2%} {off.probes:19.3f} "
              f"{on.probes:6.3f} {on.floats:7d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
