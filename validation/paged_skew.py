"""The native engine's reads with paged metadata under Zipf-skewed keys (docs/MODEL.md "G1 under
skew"), measured: ``benchmarks/check_paged_skew.py`` and ``tests/test_engine_paged_skew.py``
compare them with the model."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from native_engine import Engine
from validation.generators import rank_sampler
from wacky_model.types import KeyDistribution

BLOCK = 1024


def measure(keys: int, reads: int, cache: int, dist: str | None, seed: int
            ) -> tuple[tuple[float, float, float], list]:
    """Blocks missed per read (filter, index, data) over ``reads`` reads after as many to warm
    the cache: existing keys drawn by ``dist`` (``zipf:0.99``, ``hotset:0.1:0.9``: ranks
    scattered over the keys), or zero-result keys (None); and ``levels()``."""
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
            sampler = None if dist is None else rank_sampler(KeyDistribution.parse(dist), keys)

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


def measure_rocksdb(design: Any, trigger: int, cache: int, dist: str | None, reads: int,
                    seed: int = 7) -> dict[str, float]:
    """Stock RocksDB's blocks missed per existing-key read by kind (filter, index, data;
    its block-cache tickers) through ``cache`` bytes with ``cache_index_and_filter_blocks``, as
    ``validation.paged.measure`` loads it (200,000 keys, 64 KiB files), the keys read
    by ``dist`` (as :func:`measure`; None: uniform), ``reads`` after as many."""
    import pathlib

    from validation.paged import BITS, BUFFER, ENTRIES, ENTRY_BYTES, FILE, KINDS, _misses, loaded
    from wacky_model.rocksdb_options import rocksdb_export
    from wacky_model.types import System

    system = System(entries=ENTRIES, buffer_bytes=BUFFER, entry_bytes=ENTRY_BYTES,
                    bits_per_entry=BITS, paged_metadata=True)
    exported = rocksdb_export(design, system, trigger, FILE, dynamic=False)
    rng = np.random.default_rng(seed)
    keys = rng.choice(2**40, ENTRIES, replace=False).astype(np.uint64) * 2 + 2
    hot = rng.permutation(keys)
    if dist is None:
        drawn = rng.choice(keys, 2 * reads)
    else:
        drawn = hot[rank_sampler(KeyDistribution.parse(dist), ENTRIES).draw(rng, 2 * reads)]
    with tempfile.TemporaryDirectory(prefix="wacky-paged-skew-") as tmp:
        db = loaded(pathlib.Path(tmp), exported, cache, keys)
        db.get_many(drawn[:reads])
        before = db.tickers()
        found = db.get_many(drawn[reads:])
        if int(found.sum()) != reads:
            raise RuntimeError(f"RocksDB found {int(found.sum())} of {reads} existing keys")
        out = _misses(before, db.tickers(), reads)
        del db
    return {k: out[k] for k in KINDS}
