"""The native engine's CPU per entry its flushes and merges write, by design: does c_merge (T1,
docs/MODEL.md) grow with a merge's fan-in? Tiering at T = 2, 4 and 8 merges 2 to 8 runs at a
time; Leveling at T = 3 and 8 merges two. Each design loads --preload entries, then --entries
more, on tmpfs, and prints the CPU of the second load less the calibrated c_put, per entry
written and per entry read or written; the figures are the medians of --rounds rounds.

    .venv/bin/python benchmarks/check_merge_cpu.py      # about a minute
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from native_engine import Engine  # noqa: E402
from validation.calibrate import load, measure_cpu  # noqa: E402

DESIGNS = (("Tiering T=2", dict(T=2, C=1, X=1, K=1, Z=1)),
           ("Tiering T=4", dict(T=4, C=3, X=1, K=1, Z=1)),
           ("Tiering T=8", dict(T=8, C=7, X=1, K=1, Z=1)),
           ("Leveling T=3", dict(T=3, C=2, X=1, K=0, Z=0)),
           ("Leveling T=8", dict(T=8, C=7, X=1, K=0, Z=0)))


def one(knobs: dict, keys: np.ndarray, preload: int, put_ns: float) -> tuple[float, float, float]:
    """(write amplification, ns per entry written, ns per entry read or written)."""
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        e = Engine(Path(tmp) / "db", entry_bytes=128, block_bytes=4096, buffer_bytes=256 << 10,
                   wal=False, bits_per_entry=5, **knobs)
        load(e, keys[:preload])
        s0 = e.stats()
        cpu = load(e, keys[preload:])[1]
        s1 = e.stats()
        e.close()

    def moved(key: str) -> float:
        return (s1["merge_total"][key] - s0["merge_total"][key]) / 128

    n = keys.size - preload
    written = moved("bytes_written") + (s1["flush"]["bytes_written"]
                                        - s0["flush"]["bytes_written"]) / 128
    merged_ns = cpu / n * 1e9 - put_ns
    return written / n, merged_ns / (written / n), merged_ns / ((written + moved("bytes_read")) / n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preload", type=int, default=200_000)
    ap.add_argument("--entries", type=int, default=400_000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    keys = np.random.default_rng(7).integers(1, 2**63, a.preload + a.entries, dtype=np.uint64)
    put_ns = measure_cpu()["cpu_ns_per_put"]
    print(f"c_put {put_ns:.0f} ns (validation.calibrate.measure_cpu)")
    print(f"{'design':<14} {'WA':>6} {'ns/entry written':>17} {'ns/entry read or written':>25}")
    for name, knobs in DESIGNS:
        runs = [one(knobs, keys, a.preload, put_ns) for _ in range(a.rounds)]
        wa, per_w, per_rw = (statistics.median(r[i] for r in runs) for i in range(3))
        print(f"{name:<14} {wa:6.2f} {per_w:17.0f} {per_rw:25.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
