"""File-granular merges against whole-level merges on the native engine: the same load, time and
bytes written, with the partial-merge model's prediction beside the measurement.

Run: .venv/bin/python benchmarks/bench_granularity.py [--entries 1000000]

Each design (Leveling at T = 4 and 10) loads the same keys twice into a fresh engine, once with
``granularity="level"`` (the paper's policy) and once with ``granularity="file"`` (files of one
buffer, least-overlap picking), in the same run, so times compare as ratios on a noisy machine.
Bytes written are the engine's own counters (flushes and merges, no write-ahead log).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from native_engine import Engine
from wacky_model.files import native_file_costs
from wacky_model.types import Compaction, Design, System


def load(path: Path, design: Design, granularity: str, keys: np.ndarray, buffer_bytes: int,
         level1_runs: int) -> tuple[float, int]:
    """(seconds, bytes written) of loading ``keys`` one batch at a time."""
    kwargs = {"file_bytes": buffer_bytes} if granularity == "file" else {}
    engine = Engine(path, **design.knobs, buffer_bytes=buffer_bytes, bits_per_entry=5.0,
                    wal=False, granularity=granularity, level1_runs=level1_runs, **kwargs)
    values = np.zeros((keys.size, 120), dtype=np.uint8)
    start = time.perf_counter()
    for i in range(0, keys.size, 65_536):
        engine.put_many(keys[i : i + 65_536], values[i : i + 65_536])
    engine.flush()
    seconds = time.perf_counter() - start
    written = int(engine.stats()["total"]["bytes_written"])
    engine.close()
    return seconds, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--buffer-bytes", type=int, default=1 << 20)
    parser.add_argument("--level1-runs", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 2**63, args.entries, dtype=np.uint64)
    user = args.entries * 128
    print(f"{args.entries:,} inserts of 128 B, {args.buffer_bytes:,} B buffer, 5 bits per entry, "
          f"level-1 trigger {args.level1_runs}; write amplification = bytes written / "
          f"{user:,} B inserted")
    for T in (4.0, 10.0):
        design = Design(T, T - 1, 1, 0, 0)
        row = {}
        for granularity in ("level", "file"):
            with tempfile.TemporaryDirectory(prefix="wacky-bench-") as tmp:
                row[granularity] = load(Path(tmp) / "db", design, granularity, keys,
                                        args.buffer_bytes, args.level1_runs)
        system = System(entries=args.entries, buffer_bytes=args.buffer_bytes, bits_per_entry=5.0)
        model = native_file_costs(design, system,
                                  Compaction("file", args.buffer_bytes, args.level1_runs),
                                  0.0, float(args.entries))
        (ls, lw), (fs, fw) = row["level"], row["file"]
        print(f"Leveling T={T:g}: whole levels {ls:.2f} s, {lw / user:.2f} written per byte; "
              f"files {fs:.2f} s ({fs / ls:.2f}x), {fw / user:.2f} written per byte "
              f"({fw / lw:.2f}x; the partial-merge model predicts {model.write_amp:.2f} for the "
              "load from empty)")


if __name__ == "__main__":
    main()
