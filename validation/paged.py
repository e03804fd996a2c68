"""Paged filters and indexes (G1, docs/MODEL.md; issue 33) on stock RocksDB: with
``cache_index_and_filter_blocks=true`` every file's filter and index blocks share the LRU block
cache with the data blocks, so a read's I/O is the misses it meets. Each case loads N keys,
lets compaction finish, then reads with the cache filled by the reads: zero-result keys, then
(after a fresh warm-up) existing keys drawn uniformly. I/O per read is the block-cache misses of
filter, index and data blocks (RocksDB's tickers), each a read from disk; the model's is G1 on
the settled tree of the partial-merge model (``wacky_model.rocksdb_model.paged_levels``)."""

from __future__ import annotations

import pathlib
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cost_models.paged import ROCKSDB_CACHE_ENTRY_BYTES, paged_reads
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table
from wacky_model.types import Design, System

ENTRIES = 200_000
ENTRY_BYTES = 128
BUFFER = 128 << 10
FILE = 64 << 10
BITS = 10.0
CACHES = (64 << 10, 256 << 10, 1 << 20, 4 << 20)
DESIGNS = (("Leveling T=10, trigger 4", Design(10, 9, 1, 0, 0), 4),
           ("Leveling T=4, trigger 1", Design(4, 3, 1, 0, 0), 1))
WARMUP = 20_000
READS = 20_000
TARGET = 0.25  # I/O per read within 25% of the model


@dataclass(frozen=True)
class PagedRun:
    cache_bytes: int
    measured: dict[str, float]  # I/O per read: zero-result and existing-key, and by kind
    predicted: dict[str, float]
    pinned: float  # zero-result I/O per read with metadata pinned in memory (the model's)


KINDS = ("filter", "index", "data")


def _misses(before: dict[str, int], after: dict[str, int], reads: int) -> dict[str, float]:
    return {k: (after[f"rocksdb.block.cache.{k}.miss"] - before[f"rocksdb.block.cache.{k}.miss"])
            / reads for k in KINDS}


def loaded(root: pathlib.Path, exported, cache_bytes: int, keys: np.ndarray):
    """Stock RocksDB in ``root`` with the ``exported`` options and a block cache of
    ``cache_bytes`` that reads fill, loaded with ``keys`` (zero values) and flushed, its
    compactions done: the tree that G1 and G1 under skew are checked on."""
    import rocksdb_bridge

    options = root / "OPTIONS"
    options.write_text(exported.options_file())
    db = rocksdb_bridge.load().Database(str(root / "db"), str(options), cache_bytes,
                                        fill_cache=True)
    values = np.zeros((4096, ENTRY_BYTES - 8), dtype=np.uint8)
    for i in range(0, keys.size, values.shape[0]):
        db.put_many(keys[i:i + values.shape[0]], values[:len(keys[i:i + values.shape[0]])])
    db.flush()
    db.wait_for_background_work(120.0)
    return db


def measure(label: str, design: Design, trigger: int, cache_bytes: int) -> PagedRun:
    """One case on stock RocksDB through the bridge (module doc)."""
    from wacky_model.rocksdb_model import leveled_costs, paged_levels
    from wacky_model.rocksdb_options import rocksdb_export

    system = System(entries=ENTRIES, buffer_bytes=BUFFER, entry_bytes=ENTRY_BYTES,
                    bits_per_entry=BITS, paged_metadata=True)
    exported = rocksdb_export(design, system, trigger, FILE, dynamic=False)
    rng = np.random.default_rng(7)
    keys = rng.choice(2**40, ENTRIES, replace=False).astype(np.uint64) * 2 + 2  # even keys
    measured: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="wacky-paged-") as tmp:
        db = loaded(pathlib.Path(tmp), exported, cache_bytes, keys)
        absent = rng.choice(2**40, WARMUP + READS).astype(np.uint64) * 2 + 1  # odd keys
        present = rng.choice(keys, WARMUP + READS)
        for name, draw in (("zero_result", absent), ("existing", present)):
            db.get_many(draw[:WARMUP])  # the cache settles under this kind of read
            before = db.tickers()
            found = db.get_many(draw[WARMUP:])
            if int(found.sum()) != (READS if name == "existing" else 0):
                raise RuntimeError(f"RocksDB answered {int(found.sum())} of {READS} {name} reads "
                                   "wrongly")
            by_kind = _misses(before, db.tickers(), READS)
            measured[name] = sum(by_kind.values())
            for k, v in by_kind.items():
                measured[f"{name}_{k}"] = v
        del db
    levels = paged_levels(exported, ENTRIES)
    block = system.block_bytes + ROCKSDB_CACHE_ENTRY_BYTES
    z = paged_reads(levels, cache_bytes, block, 1.0)
    e = paged_reads(levels, cache_bytes, block, 0.0)
    predicted = {"zero_result": z.zero_result_read, "existing": e.point_read_uniform,
                 **{f"zero_result_{k}": v for k, v in zip(KINDS, z.zero_result_by_kind,
                                                          strict=True)}}
    pinned = float(leveled_costs(exported, ENTRIES, ENTRIES).zero_result_read)
    return PagedRun(cache_bytes, measured, predicted, pinned)


def _runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [SweepCase(f"{label}, cache {cache >> 10} KiB", "paged", None,
                      {"label": label, "design": d, "trigger": k, "cache_bytes": cache},
                      measure=measure)
            for label, d, k in DESIGNS for cache in CACHES]


def _section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    rows, errors = [], []
    for r in results:
        m: PagedRun = r.result
        cells = [r.name]
        for kind in ("zero_result", "existing"):
            got, want = m.measured[kind], m.predicted[kind]
            errors.append(want / got - 1.0 if got > 0 else 0.0)
            cells += [f"{got:.4f}", f"{want:.4f}", f"{want / got - 1:+.1%}" if got > 0 else "-"]
        cells.append(" / ".join(f"{m.measured[f'zero_result_{k}']:.3f}" for k in KINDS))
        cells.append(" / ".join(f"{m.predicted[f'zero_result_{k}']:.3f}" for k in KINDS))
        cells.append(f"{m.pinned:.4f}")
        rows.append(cells)
    met = sum(abs(e) <= TARGET for e in errors)
    body = [*table(["case", "zero-result I/O", "G1", "error", "existing-key I/O", "G1",
                    "error", "zero-result misses: filter / index / data", "G1",
                    "pinned (P7)"], rows), "",
            f"I/O per read within {TARGET:.0%} of G1 in {met} of {len(errors)} cells"
            + (f" (median {100 * float(np.median(np.abs(errors))):.1f}%, worst "
               f"{100 * max(np.abs(errors)):.1f}%)." if errors else "."),
            "The last column is the same zero-result read with the metadata pinned in memory "
            "(P7's false positives, no cache): what paging costs at each cache size."]
    return section(
        "paged", "Paged filters and indexes: G1 against stock RocksDB", command,
        f"{ENTRIES:,} keys of {ENTRY_BYTES} B loaded into stock RocksDB 7.8.3 (a {BUFFER:,} B "
        f"buffer, files of {FILE:,} B, {BITS:g} bits per key, static level sizes), compaction "
        "let finish, then with `cache_index_and_filter_blocks=true` and a block cache of the "
        f"size given, filled by the reads: {WARMUP:,} reads to settle it, then {READS:,} "
        "zero-result reads, and the same for existing keys drawn uniformly. I/O per read is "
        "the filter, index and data blocks the cache missed (RocksDB's block-cache tickers); "
        "G1 (docs/MODEL.md) prices the partial-merge model's settled tree through Che's "
        "approximation of the LRU cache.", body)


SETS = {"paged": SetCode(_runs, _section)}
