"""Real RocksDB databases of known workloads (tests/test_advise.py, ``wacky sweep advise``), built
through the bridge.

Each database is loaded with ``entries`` keys (uniform, random order), closed, and reopened
(as a running database is after a restart: its statistics and compaction stats start again) with
statistics on, writes through the WAL, a trace recorded (``start_trace``) and
``stats_dump_period_sec=1``; it then runs ``operations`` operations of the given mix in rounds
of ``ROUND`` (each round a shuffled batch per kind), with point reads, updates and range starts
drawn Zipf(theta) over the loaded keys (rank order a random permutation) and zero-result reads
of keys never written (odd keys: loaded keys are even). After the operations it waits for
RocksDB's compactions and for a stats dump that follows them, and closes the database.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from validation.generators import rank_sampler
from wacky_model.rocksdb_tuning import RocksDBConfig
from wacky_model.types import KeyDistribution, System

ROUND = 200
VALUE_BYTES = 100
BUFFER_BYTES = 256 << 10
BLOCK_CACHE_BYTES = 8 << 20


@dataclass(frozen=True)
class Built:
    path: Path
    trace: Path
    entries: int  # distinct keys at the end
    mix: dict[str, float]  # the fractions the operations were drawn with
    theta: float
    range_entries: int
    tickers: dict[str, int]  # the bridge's statistics at the end, before closing
    levels: list[dict]


def options_text(multiplier: float = 10.0, trigger: int = 4) -> str:
    """A leveled configuration's OPTIONS file (the export), with a stats dump every second."""
    system = System(entries=100_000, entry_bytes=8 + VALUE_BYTES, key_bytes=8,
                    block_bytes=4096, buffer_bytes=BUFFER_BYTES, bits_per_entry=10)
    config = RocksDBConfig(multiplier, trigger, False, BUFFER_BYTES, BUFFER_BYTES, 10.0,
                           4 * BUFFER_BYTES)
    text = config.export(system).options_file()
    return text.replace("[DBOptions]", "[DBOptions]\n  stats_dump_period_sec=1", 1)


def run_round(db, rng: np.random.Generator, kinds: Sequence[str], p: np.ndarray,
              ranked: np.ndarray, sampler, values: np.ndarray, entries: int,
              range_entries: int) -> None:
    """One round of ROUND operations on ``db`` (a bridge Database), drawn from the mix ``p``
    over ``kinds`` in random order: existing keys (even, rank r's ``ranked[r]``) by ``sampler``,
    absent keys (odd) uniformly, ranges of ``range_entries``."""
    counts = rng.multinomial(ROUND, p)
    for kind in rng.permutation(len(kinds)):
        c = int(counts[kind])
        if c == 0:
            continue
        if kinds[kind] == "zero_reads":
            db.get_many(rng.integers(0, entries, c).astype(np.uint64) * np.uint64(2)
                        + np.uint64(1))
            continue
        drawn = ranked[sampler.draw(rng, c)]
        if kinds[kind] == "point_reads":
            db.get_many(drawn)
        elif kinds[kind] == "writes":
            db.put_many(drawn, values[:c])
        else:
            db.scan_many(drawn, range_entries)


def build(bridge, root: Path, name: str, *, entries: int, operations: int,
          mix: dict[str, float], theta: float, range_entries: int = 8, seed: int = 1,
          multiplier: float = 10.0, options_file: str | None = None) -> Built:
    """The database ``name`` under ``root`` (module doc); ``options_file``: an OPTIONS file's
    text instead of :func:`options_text` of ``multiplier`` (validation/advisor_compare.py's
    databases that stall)."""
    path = root / name
    options = root / f"{name}.options"
    options.write_text(options_text(multiplier) if options_file is None else options_file)
    rng = np.random.default_rng(seed)
    keys = (rng.permutation(entries).astype(np.uint64) * np.uint64(2))  # even keys
    values = np.zeros((ROUND * 4, VALUE_BYTES), dtype=np.uint8)
    db = bridge.Database(str(path), str(options), BLOCK_CACHE_BYTES, wal=True)
    for start in range(0, entries, 10_000):
        chunk = keys[start:start + 10_000]
        db.put_many(chunk, np.zeros((chunk.size, VALUE_BYTES), dtype=np.uint8))
    db.wait_for_background_work(120.0)
    del db
    db = bridge.Database(str(path), str(options), BLOCK_CACHE_BYTES, wal=True)
    trace = root / f"{name}.trace"
    db.start_trace(str(trace))
    ranked = rng.permutation(keys)  # rank r's key
    sampler = rank_sampler(KeyDistribution("zipf", theta=theta) if theta > 0
                           else KeyDistribution(), entries)
    kinds = ("point_reads", "zero_reads", "writes", "range_reads")
    p = np.array([mix.get(k, 0.0) for k in kinds])
    for _ in range(operations // ROUND):
        run_round(db, rng, kinds, p, ranked, sampler, values, entries, range_entries)
    db.end_trace()
    db.wait_for_background_work(120.0)
    # A stats dump after the last compaction: RocksDB writes one every second.
    time.sleep(2.2)
    tickers = db.tickers()
    levels = db.levels()
    del db
    return Built(path, trace, entries, mix, theta, range_entries, tickers, levels)
