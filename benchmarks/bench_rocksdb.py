"""Stock RocksDB against the model and against the native engine, in the same run.

Run: .venv/bin/python benchmarks/bench_rocksdb.py [--entries 2000000]

1. The timing: one steady validation of Leveling (T = 10) on the native engine, on stock
   RocksDB with the exported options and on RocksDB run by the Wacky compaction driver, at the
   same scale; prints the wall times and their ratios to the native engine's.
2. Stock fidelity: for Leveling at T = 4, 6 and 10 (level-0 trigger 1 and 4) and for the tiered
   families under universal compaction, the model's error against stock RocksDB on write
   amplification and read I/O (``wacky validate --engine rocksdb --stock`` for each).

``wacky validate --sweep --engine rocksdb`` runs the same stock cases and the driver on every
family, and writes them into docs/VALIDATION.md.

Needs the RocksDB bridge (librocksdb-dev at install time).
"""

from __future__ import annotations

import argparse
import time

from validation.rocksdb_runner import validate_rocksdb
from validation.runner import validate
from validation.scale import Scale
from wacky_model.types import Design

FAMILIES = [
    *((f"Leveling T={T}, level-0 trigger {k}", Design(T, T - 1, 1, 0, 0), k)
      for T in (4, 6, 10) for k in (1, 4)),
    ("Tiering T=4 (universal)", Design(4, 3, 1, 1, 1), 1),
    ("Lazy Leveling T=4 (universal)", Design(4, 3, 1, 1, 0), 1),
]
METRICS = ("write_amp", "zero_result_read", "point_read", "point_read_uniform")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2_000_000)
    parser.add_argument("--buffer-bytes", type=int, default=1 << 20)
    args = parser.parse_args()
    scale = Scale(entries=args.entries, buffer_bytes=args.buffer_bytes, reads=5_000)
    print(f"{scale.entries:,} entries of {scale.entry_bytes} B, {scale.buffer_bytes:,} B buffer, "
          "5 bits per entry")

    leveling = Design(10, 9, 1, 0, 0)
    start = time.perf_counter()
    validate(leveling, scale=scale)
    native_s = time.perf_counter() - start
    start = time.perf_counter()
    rocks = validate_rocksdb(leveling, scale=scale)
    rocks_s = time.perf_counter() - start
    start = time.perf_counter()
    validate_rocksdb(leveling, scale=scale, stock=False)
    driver_s = time.perf_counter() - start
    print(f"Leveling T=10, steady validation: native engine {native_s:.1f} s; stock RocksDB "
          f"{rocks.engine_version} {rocks_s:.1f} s ({rocks_s / native_s:.2f}x; the writer waited "
          f"{rocks.throttle_seconds:.1f} s for RocksDB's compactions to keep up); RocksDB with "
          f"the driver {driver_s:.1f} s ({driver_s / native_s:.2f}x)")

    print("\nModel (finite-N) against stock RocksDB: predicted, measured, error")
    for name, design, trigger in FAMILIES:
        r = rocks if (design, trigger) == (leveling, 1) else validate_rocksdb(
            design, scale=scale, level0_trigger=trigger)
        err = r.relative_error.to_dict()
        cells = [f"{m} {getattr(r.predicted, m):.3f} / {getattr(r.measured, m):.3f} "
                 f"({err[m]:+.0%})" for m in METRICS]
        print(f"  {name} [{r.rocksdb_grade}]: " + "; ".join(cells)
              + f"; throttle {r.throttle_seconds:.1f} s")


if __name__ == "__main__":
    main()
