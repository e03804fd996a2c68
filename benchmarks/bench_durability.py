"""What durability costs, and whether a busy Python thread stalls the engine.

1. Ingest of the same load trace with the write-ahead log on (wal=True, sync=False) against
   off (wal=False), in the same run: the ratio is the log's cost.
2. The GIL probe: the mean time of one get() alone, then while another Python thread spins,
   and the same for one put() with the log on (sync=False). The target is a slowdown under
   10x.

    .venv/bin/python benchmarks/bench_durability.py [--entries 1000000]
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from native_engine import Engine
from validation.generators import load_trace
from validation.replay import replay

DESIGN = dict(T=10, C=9, X=1, K=0, Z=0, entry_bytes=128, block_bytes=4096,
              buffer_bytes=8 << 20, bits_per_entry=10)


def ingest_seconds(directory: Path, trace, wal: bool) -> tuple[float, dict]:
    e = Engine(directory / f"wal-{wal}", **DESIGN, wal=wal)
    start = time.perf_counter()
    replay(e, trace)
    seconds = time.perf_counter() - start
    stats = e.stats()
    e.close()
    return seconds, stats


def get_micros(e: Engine, keys: np.ndarray) -> float:
    start = time.perf_counter()
    for k in keys:
        e.get(int(k))
    return (time.perf_counter() - start) / len(keys) * 1e6


def put_micros(e: Engine, keys: np.ndarray) -> float:
    value = bytes(120)
    start = time.perf_counter()
    for k in keys:
        e.put(int(k), value)
    return (time.perf_counter() - start) / len(keys) * 1e6


def beside_a_busy_thread(measure) -> tuple[float, float]:
    """``measure()`` alone, then while another Python thread spins."""
    alone = measure()
    stop = threading.Event()

    def spin() -> None:
        x = 0
        while not stop.is_set():
            x += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        busy = measure()
    finally:
        stop.set()
        t.join()
    return alone, busy


def report(what: str, alone: float, busy: float) -> None:
    ratio = busy / alone
    print(f"{what}: {alone:.1f} us alone, {busy:.1f} us beside a busy Python thread, "
          f"slowdown {ratio:.1f}x ({'meets' if ratio < 10 else 'misses'} the < 10x target)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=1_000_000)
    args = parser.parse_args()
    trace = load_trace(args.entries, entry_bytes=128, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        off, _ = ingest_seconds(Path(tmp), trace, wal=False)
        on, stats = ingest_seconds(Path(tmp), trace, wal=True)
        print(f"ingest of {args.entries:,} entries: wal off {off:.2f} s, wal on (sync=False) "
              f"{on:.2f} s, ratio {on / off:.2f}; log bytes {stats['wal_bytes_written']:,}")

        e = Engine(Path(tmp) / "probe", **DESIGN, wal=False)
        keys = trace.keys[:200_000]
        e.put_many(keys, np.zeros((keys.size, 120), np.uint8))
        e.flush()
        sample = keys[:: max(1, keys.size // 2000)]
        report("one get()", *beside_a_busy_thread(lambda: get_micros(e, sample)))
        e.close()

        e = Engine(Path(tmp) / "probe-put", **DESIGN, wal=True)
        fresh = np.arange(4000, dtype=np.uint64)
        report("one put() (wal=True, sync=False)",
               *beside_a_busy_thread(lambda: put_micros(e, fresh)))
        e.close()


if __name__ == "__main__":
    main()
