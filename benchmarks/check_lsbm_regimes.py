"""LSbM's compaction buffer in the paper's regime, on the native engine directly (issue 32).

`wacky sweep lsbm` runs the buffer in the project's window: a preloaded tree, then uniform
updates. There the buffer does not pay (docs/VALIDATION.md, "LSbM"): keys not updated since
the preload have no buffered copy, so every tree block of the hot range is still needed after
a merge rewrites it. The paper's experiment (Section VI-B) is a different regime: the database
is built by the test itself ("all writes are uniformly distributed on a data set with 20GB
unique data"), so every key reaches its level through a merge the buffer keeps, with a hot range
of 15% of the keys (3 GB of 20 GB), a cache twice the range (6 GB) and reads outpacing writes.

This script runs that regime at a small scale: 200,000 keys of 128 B written once each in a
random order into an empty tree (T = 10, files of one 64 KiB buffer, round-robin picking, the
paper's drain in key order), with one existing-key read per write, 98% of them to the keys
written so far in a contiguous 15% of the key space, and an LRU cache twice the range's bytes.
It prints the hit rate in slices of 512 writes over the second half of the load (mean, median,
5th percentile, lowest, and the drop: median less lowest) without the buffer and with it at
several trim thresholds and filter bits, and the buffer's bytes against the tree's.

    .venv/bin/python benchmarks/check_lsbm_regimes.py        # about 10 seconds
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from native_engine import Engine  # noqa: E402

N, ENTRY, BLOCK, FILE = 200_000, 128, 4096, 64 << 10
HOT, HOT_SHARE, CACHE_RANGES, READS_PER_WRITE, CHUNK = 0.15, 0.98, 2.0, 1.0, 512
# (filter bits per entry, buffer trim threshold or None for no buffer)
CASES = ((5, None), (5, 0.8), (10, None), (10, 0.8), (10, 0.5), (10, 0.2))


def run(bits: float, trim: float | None, seed: int = 1) -> dict[str, float]:
    buffer = {} if trim is None else {"compaction_buffer": True, "buffer_trim": trim}
    with tempfile.TemporaryDirectory() as tmp:
        e = Engine(Path(tmp) / "db", T=10, C=9, X=1, K=0, Z=0, entry_bytes=ENTRY,
                   block_bytes=BLOCK, buffer_bytes=FILE, bits_per_entry=bits,
                   granularity="file", file_bytes=FILE, file_pick="round_robin", wal=False,
                   cache_bytes=int(CACHE_RANGES * HOT * N * ENTRY), **buffer)
        rng = np.random.default_rng(seed)
        keys = np.unique(rng.integers(1, 2**62, int(N * 1.01), dtype=np.uint64))[:N]
        ordered = np.sort(keys)
        lo, hi = ordered[N // 2], ordered[N // 2 + int(HOT * N)]
        keys = rng.permutation(keys)
        values = np.full((CHUNK, ENTRY - 8), 7, dtype=np.uint8)
        hot_written: list[np.ndarray] = []
        rates, last = [], (0, 0)
        for i in range(0, N, CHUNK):
            w = keys[i:i + CHUNK]
            e.put_many(w, values[: w.size])
            hot_written.append(w[(w >= lo) & (w < hi)])
            hot = np.concatenate(hot_written)
            n = int(READS_PER_WRITE * w.size)
            if hot.size == 0:
                continue
            reads = np.where(rng.random(n) < HOT_SHARE, hot[rng.integers(0, hot.size, n)],
                             keys[rng.integers(0, i + w.size, n)])
            _, found = e.get_many(reads)
            if not found.all():
                raise AssertionError("a written key was not found")
            st = e.stats()
            h, m = st["cache_hits"] - last[0], st["cache_misses"] - last[1]
            last = (st["cache_hits"], st["cache_misses"])
            rates.append(h / max(h + m, 1))
        st = e.stats()
        tree = sum(level["entries"] for level in e.levels()) * ENTRY
        e.close()
    r = np.array(rates[len(rates) // 2:])
    return {"mean": r.mean(), "median": float(np.median(r)), "p5": float(np.percentile(r, 5)),
            "lowest": r.min(), "drop": float(np.median(r) - r.min()),
            "space": st["buffer_bytes"] / tree, "trimmed": st["buffer_trimmed"]}


def main() -> None:
    print("bits | buffer (trim) | mean | median | p5 | lowest | drop | buffer space | trimmed")
    for bits, trim in CASES:
        r = run(bits, trim)
        label = "none" if trim is None else f"trim {trim:g}"
        print(f"{bits} | {label} | {r['mean']:.3f} | {r['median']:.3f} | {r['p5']:.3f} | "
              f"{r['lowest']:.3f} | {r['drop']:.3f} | {r['space']:+.1%} | {r['trimmed']}",
              flush=True)


if __name__ == "__main__":
    main()
