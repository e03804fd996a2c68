"""What stock RocksDB's leveled compaction costs for an exported design: the OPTIONS of
``rocksdb_export`` read back into the partial-merge model (:mod:`cost_models.partial`).

It prices the options, not the design: write_buffer_size, level0_file_num_compaction_trigger,
max_bytes_for_level_base and its multiplier, level_compaction_dynamic_level_bytes,
target_file_size_base and num_levels. RocksDB counts bytes in its own format, so two layout
constants turn its sizes into entries (``docs/MODEL.md``, "Files and partial merges"):

* on disk, an entry takes its key and value, the 8-byte sequence number of RocksDB's internal
  key, about 3 bytes of length varints and about 1 byte of restart points, block trailer and
  index: ``DISK_OVERHEAD_BYTES``, plus its filter bits;
* in the memtable, a skiplist node and the arena's slack: ``MEMTABLE_OVERHEAD_BYTES``, measured
  once from RocksDB 7.8's flush events (6,314 entries of 128 bytes in a 1 MiB buffer).

What the model leaves out: RocksDB's trivial moves (the export turns them off for universal and
leveled merges rarely have no overlap), compactions that cut an output file early at the
grandparent overlap limit, subcompactions, write stalls (the validation waits for compaction
instead), and the exact order in which RocksDB scores levels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cost_models.finite import realized_fpr
from cost_models.paged import PAGED_WINDOW_FLUSHES, PagedLevel
from cost_models.partial import LeveledFiles, WindowCosts, window_costs
from cost_models.rocksdb_format import DISK_OVERHEAD_BYTES
from cost_models.universal import UNLIMITED, RunsNow, UniversalRules, universal_costs
from wacky_model.files import LeveledCosts, window_reads
from wacky_model.rocksdb_options import RocksDBExport

MEMTABLE_OVERHEAD_BYTES = 38.0


def disk_entry_bytes(entry_bytes: int, bits_per_key: float) -> float:
    return entry_bytes + DISK_OVERHEAD_BYTES + bits_per_key / 8.0


def leveled_policy(export: RocksDBExport) -> LeveledFiles:
    """The partial-merge rules an exported leveled design runs under."""
    if export.style != "level":
        raise ValueError(f"the partial-merge model prices leveled compaction; this export is "
                         f"{export.style}")
    additional = export.options_dict().get("max_bytes_for_level_multiplier_additional")
    if additional is not None:
        raise ValueError("the partial-merge model takes one multiplier for every level "
                         "(C = T - 1, X = 1)")
    system = export.system
    bits = export.bits_per_key
    disk = disk_entry_bytes(system.entry_bytes, bits)
    memtable = system.entry_bytes + MEMTABLE_OVERHEAD_BYTES
    return LeveledFiles(
        T=float(export.option("max_bytes_for_level_multiplier")),
        flush_entries=int(export.option("write_buffer_size")) / memtable,
        file_entries=int(export.option("target_file_size_base")) / disk,
        level0_runs=int(export.option("level0_file_num_compaction_trigger")),
        targets=("dynamic" if export.option("level_compaction_dynamic_level_bytes") == "true"
                 else "static"),
        base_entries=int(export.option("max_bytes_for_level_base")) / disk,
        num_levels=int(export.option("num_levels")) - 1,
        flush_writes=True,
    )


def universal_rules(export: RocksDBExport) -> UniversalRules:
    """The universal compaction rules an exported tiered design runs under."""
    if export.style != "universal":
        raise ValueError(f"the universal model prices universal compaction; this export is "
                         f"{export.style}")
    fields = dict(item.split("=", 1) for item in
                  export.option("compaction_options_universal").strip("{}").split(";"))
    if fields.get("stop_style", "kCompactionStopStyleTotalSize") != (
            "kCompactionStopStyleTotalSize"):
        raise ValueError("the universal model takes stop_style=kCompactionStopStyleTotalSize")
    memtable = export.system.entry_bytes + MEMTABLE_OVERHEAD_BYTES
    return UniversalRules(
        flush_entries=int(export.option("write_buffer_size")) / memtable,
        trigger=int(export.option("level0_file_num_compaction_trigger")),
        min_merge_width=int(fields.get("min_merge_width", 2)),
        max_merge_width=int(fields.get("max_merge_width", UNLIMITED)),
        size_ratio=float(fields.get("size_ratio", 1)),
        max_size_amplification_percent=float(fields.get("max_size_amplification_percent", 200)),
    )


def universal_costs_of(export: RocksDBExport, preload: float, window: float,
                       start: RunsNow | None = None) -> LeveledCosts:
    """The costs of ``window`` inserts after ``preload`` (or after the runs ``start``) under
    RocksDB's universal compaction (U1-U4), with one bits per key for every run."""
    u = universal_costs(universal_rules(export), preload, window, start=start)
    p = float(realized_fpr(export.bits_per_key))
    sizes = np.asarray(u.final_runs, dtype=float)
    share = sizes / max(1.0, sizes.sum())
    return LeveledCosts(
        write_amp=u.write_amp,
        zero_result_read=p * u.runs,
        point_read=1.0 + p * (u.runs - 1.0),
        # A present key pays the runs newer than its own (the final sizes weigh them).
        point_read_uniform=1.0 + p * float(np.sum(share * np.arange(sizes.size))),
        range_runs=u.runs,
        memory_bits_per_entry=export.bits_per_key,
        window=None,
    )


def leveled_costs(export: RocksDBExport, preload: float, window: float) -> LeveledCosts:
    """The costs of ``window`` inserts of new keys after a preload of ``preload``, on RocksDB
    with the exported options, averaged over the window's flushes: one bits per key for every
    filter (``cost_models.finite.realized_fpr``)."""
    w = window_costs(leveled_policy(export), preload, window)
    p = float(realized_fpr(export.bits_per_key))
    return window_reads(w, np.full(len(w.level_entries), p), p, export.bits_per_key)


def paged_levels(export: RocksDBExport, entries: float,
                 window: WindowCosts | None = None) -> list[PagedLevel]:
    """G1's view of the settled tree of ``entries`` under the exported leveled options (or of
    ``window``, a walk of them already taken): level 0's runs (each probed by every read) and
    Levels 1.. as P7 spans them, with RocksDB 7.8's filter, index and data blocks as its cache
    charges them (cost_models.paged)."""
    from cost_models.paged import (
        ROCKSDB_CACHE_ENTRY_BYTES,
        ROCKSDB_INDEX_BYTES_PER_BLOCK,
        rocksdb_filter_bytes,
    )

    policy = leveled_policy(export)
    # The tree a read phase meets: settled at ``entries``, its sizes and spans averaged over a
    # few level-0 merges (a single flush would leave P7's spans at their settled start, 1).
    w = window if window is not None else window_costs(
        policy, entries, PAGED_WINDOW_FLUSHES * policy.flush_entries, settled=True)
    system = export.system
    bits = export.bits_per_key
    p = float(realized_fpr(bits))
    # Data blocks hold the entries with RocksDB's per-entry overhead (not the filter's bits).
    per_block = system.block_bytes / (system.entry_bytes + DISK_OVERHEAD_BYTES)
    sizes = [w.level0_runs * policy.flush_entries, *w.level_entries]
    files = [w.level0_runs, *(s / policy.file_entries for s in w.level_entries)]
    spans = [w.level0_runs, *(w.level_coverage or w.level_in_use)]
    total = max(1.0, sum(sizes))
    out = []
    for level, (s, f, c) in enumerate(zip(sizes, files, spans, strict=True)):
        if s <= 0 or f <= 0:
            continue
        f = max(1.0, f)
        blocks = s / per_block
        out.append(PagedLevel(
            files=f, data_blocks=blocks, coverage=float(c), fpr=p, share=s / total,
            filter_bytes=rocksdb_filter_bytes(s / f, bits) + ROCKSDB_CACHE_ENTRY_BYTES,
            index_bytes=blocks / f * ROCKSDB_INDEX_BYTES_PER_BLOCK + ROCKSDB_CACHE_ENTRY_BYTES,
            level=level))
    return out


def paged_costs(costs: LeveledCosts, export: RocksDBExport,
                read_keys: Any = None) -> LeveledCosts:
    """``costs`` (a leveled window of the exported options) with G1's reads under paged
    metadata (``System.paged_metadata``): each kind of point read priced with the cache filled
    by that kind alone (what ``wacky sweep paged`` measures), through the system's block cache.
    The window's merges do not invalidate cached blocks in G1 (a settled tree). ``read_keys``:
    a skewed distribution of the existing keys read (G1 under skew; None or uniform: G1's)."""
    from cost_models.paged import ROCKSDB_CACHE_ENTRY_BYTES, paged_reads_of, with_paged_reads

    system = export.system
    levels = paged_levels(export, system.entries, costs.window)
    block = system.block_bytes + ROCKSDB_CACHE_ENTRY_BYTES
    zero, present, skewed = paged_reads_of(levels, system.cache_bytes, block, read_keys,
                                           int(system.entries))
    return with_paged_reads(costs, levels, zero, present, skewed)
