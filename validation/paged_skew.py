"""The native engine's reads with paged metadata under Zipf-skewed keys (docs/MODEL.md "G1 under
skew"), measured: ``benchmarks/check_paged_skew.py`` and ``tests/test_engine_paged_skew.py``
compare them with the model."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from native_engine import Engine
from validation.generators import rank_sampler
from wacky_model.types import KeyDistribution

BLOCK = 1024


def measure(keys: int, reads: int, cache: int, theta: float | None, seed: int
            ) -> tuple[tuple[float, float, float], list]:
    """Blocks missed per read (filter, index, data) over ``reads`` reads after as many to warm
    the cache: existing keys by Zipf ``theta``, or zero-result keys (None); and ``levels()``."""
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as d:
        with Engine(Path(d) / "db", T=4, entry_bytes=64, block_bytes=BLOCK,
                    buffer_bytes=64 << 10, granularity="file", file_bytes=16 << 10,
                    filters="uniform", bits_per_entry=10, wal=False, paged_metadata=True,
                    cache_bytes=cache) as e:
            loaded = rng.permutation(keys).astype(np.uint64) * 2
            e.put_many(loaded, np.zeros((keys, 56), np.uint8))
            e.flush()
            hot = rng.permutation(loaded)  # rank r reads key hot[r]: scattered over the keys
            sampler = None if theta is None else rank_sampler(
                KeyDistribution("zipf", theta=theta), keys)

            def batch() -> np.ndarray:
                if sampler is None:
                    return (rng.integers(0, keys, reads) * 2 + 1).astype(np.uint64)
                return hot[sampler.draw(rng, reads)]

            e.get_many(batch())  # warm-up
            s0 = e.stats()
            e.get_many(batch())
            s = e.stats()
            got = ((s["filter_misses"] - s0["filter_misses"]) / reads,
                   (s["index_misses"] - s0["index_misses"]) / reads,
                   (s["point_read"]["blocks_read"] - s0["point_read"]["blocks_read"]) / reads)
            return got, e.levels()
