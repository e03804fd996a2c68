"""L2SM's HotMap against exact per-key counts on the native engine (issue 32): how often the
aggregated compaction's seed, chosen by the HotMap's hotness, is the one exact counts would
choose (the engine's ``hotness_audit``), and what the choice does to write amplification.

200,000 random keys of 128 B loaded into Leveling T = 10 with files of 32 KiB, a 128 KiB buffer
and L2SM's log (omega = 0.1, alpha = 0.5), then 400,000 updates drawn Zipf 0.99 over the keys
(hot keys scattered) or over their load order, newest first (``latest``).

    .venv/bin/python benchmarks/check_hotmap.py         # about a minute
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from native_engine import Engine  # noqa: E402

N, WRITES, VALUE_BYTES = 200_000, 400_000, 120


def run(writes: str, hotness: str, layers: int = 5) -> tuple[float, int, int]:
    """(write amplification of the updates, seeds audited, seeds agreeing)."""
    rng = np.random.default_rng(1)
    keys = np.unique(rng.integers(1, 2**62, int(N * 1.01), dtype=np.uint64))[:N]
    rng.shuffle(keys)
    audit = hotness == "hotmap"
    with tempfile.TemporaryDirectory() as tmp:
        e = Engine(tmp, T=10, C=9, X=1, K=0, Z=0, entry_bytes=128, block_bytes=4096,
                   buffer_bytes=128 << 10, bits_per_entry=5, granularity="file",
                   file_bytes=32 << 10, log_ratio=0.1, hotness=hotness, hotmap_layers=layers,
                   hotness_audit=audit)
        values = np.full((1024, VALUE_BYTES), 7, dtype=np.uint8)
        for i in range(0, N, 1024):
            e.put_many(keys[i:i + 1024], values[:keys[i:i + 1024].size])
        before = e.stats()["total"]["bytes_written"]
        p = 1.0 / np.arange(1, N + 1) ** 0.99
        ranks = np.searchsorted(np.cumsum(p / p.sum()), rng.random(WRITES))
        order = keys[rng.permutation(N)] if writes == "zipf" else keys[::-1]
        drawn = order[np.minimum(ranks, N - 1)]
        for i in range(0, WRITES, 1024):
            e.put_many(drawn[i:i + 1024], values[:drawn[i:i + 1024].size])
        s = e.stats()
        wa = (s["total"]["bytes_written"] - before) / (WRITES * 128)
        return wa, int(s["hotness_picks"]), int(s["hotness_picks_agree"])


def main() -> None:
    print("writes | hotness | write amplification | seeds the HotMap chose as exact counts do")
    for writes in ("zipf", "latest"):
        wa, _, _ = run(writes, "exact")
        print(f"{writes} | exact | {wa:.3f} | -")
        for layers in (3, 5, 8):
            wa, audited, agreed = run(writes, "hotmap", layers)
            print(f"{writes} | hotmap, {layers} layers | {wa:.3f} | {agreed:,} of {audited:,} "
                  f"({agreed / max(audited, 1):.1%})", flush=True)


if __name__ == "__main__":
    main()
