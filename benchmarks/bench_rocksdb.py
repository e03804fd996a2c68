"""A steady validation timed on the native engine, stock RocksDB and the Wacky compaction driver.

Run: .venv/bin/python benchmarks/bench_rocksdb.py [--entries 2000000]

The same design (Leveling, T = 10) and scale on each engine, in the same run, so the times
compare as ratios on a noisy machine. How far the models are from RocksDB, per family, is
``wacky validate --sweep --engine rocksdb`` (the RocksDB section of docs/VALIDATION.md).

Needs the RocksDB bridge (librocksdb-dev at install time).
"""

from __future__ import annotations

import argparse
import time

from validation.runner import validate
from validation.scale import Scale
from wacky_model.types import Design


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2_000_000)
    parser.add_argument("--buffer-bytes", type=int, default=1 << 20)
    args = parser.parse_args()
    scale = Scale(entries=args.entries, buffer_bytes=args.buffer_bytes, reads=5_000)
    print(f"{scale.entries:,} entries of {scale.entry_bytes} B, {scale.buffer_bytes:,} B buffer, "
          "5 bits per entry; Leveling T=10, steady validation")
    leveling = Design(10, 9, 1, 0, 0)
    start = time.perf_counter()
    validate(leveling, scale=scale)
    native_s = time.perf_counter() - start
    start = time.perf_counter()
    stock = validate(leveling, scale=scale, engine="rocksdb", stock=True)
    stock_s = time.perf_counter() - start
    start = time.perf_counter()
    driven = validate(leveling, scale=scale, engine="rocksdb")
    driver_s = time.perf_counter() - start
    print(f"native engine: {native_s:.1f} s")
    d = stock.detail
    print(f"stock RocksDB {d('rocksdb_version')}: {stock_s:.1f} s ({stock_s / native_s:.2f}x "
          f"the native engine; the writer waited {d('throttle_seconds'):.1f} s for RocksDB's "
          "compactions to keep up)")
    print(f"RocksDB with the compaction driver: {driver_s:.1f} s ({driver_s / native_s:.2f}x the "
          f"native engine; a window of {driven.window_writes:,} inserts against stock's "
          f"{stock.window_writes:,})")


if __name__ == "__main__":
    main()
