"""The time model (docs/MODEL.md T1-T3): T1, the time of an insert on an engine that merges in the
writer's thread; T2, the write rate background compaction threads sustain (RocksDB's); T3, the
share of time writes stall above it. Each from the I/O model's write amplification and the costs
a calibration measures (``wacky calibrate``: wacky_model.devices.DeviceProfile).

T1 (docs/MODEL.md, "T1. Insert throughput").

An insert costs its put into the buffer, c_put, and then its share of every flush and merge: the
engine writes W entries per entry inserted (the write amplification, in entries), each at
c_merge, the CPU of reading it from its input runs, merging it and writing it out through the
page cache. With the writes absorbed by the page cache (as on this project's machines, and for
any working set the OS can buffer) the device does not wait the writer, so

    t_insert = c_put + W c_merge,        rate = 1 / t_insert.

What it leaves out: a device slower than the page cache can drain (then add W E / B_write per
insert), reads, and background compaction threads (RocksDB's), which T2 and T3 price."""

from __future__ import annotations

import math


def insert_seconds(write_amp: float, ns_per_put: float, ns_per_entry_merged: float) -> float:
    """T1: seconds per insert at write amplification ``write_amp`` (entries written per entry
    inserted, flushes included)."""
    for name, v in (("write_amp", write_amp), ("ns_per_put", ns_per_put),
                    ("ns_per_entry_merged", ns_per_entry_merged)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
    return (ns_per_put + write_amp * ns_per_entry_merged) * 1e-9


def insert_rate(write_amp: float, ns_per_put: float, ns_per_entry_merged: float) -> float:
    """T1: inserts per second."""
    return 1.0 / insert_seconds(write_amp, ns_per_put, ns_per_entry_merged)


def sustainable_rate(write_amp: float, entry_bytes: float, ns_per_compaction_byte: float,
                     ns_per_flush_byte: float = 0.0, ns_per_put: float = 0.0,
                     compaction_threads: int = 1, cores: float = math.inf) -> float:
    """T2 (docs/MODEL.md "T2. Sustainable write rate"): the inserts per second that RocksDB's
    background threads keep up with. Each insert leaves (W - 1) E bytes for compactions to write
    (W the write amplification, flushes' 1 excluded) and as many to read (an insert-only
    workload drops nothing), at ``ns_per_compaction_byte`` of CPU per byte read or written,
    shared by ``compaction_threads``; E bytes for the flush thread at ``ns_per_flush_byte``; and
    the writer's own ``ns_per_put``. Each thread runs on at most one core, and all of them on
    ``cores``: the tightest bound sets the rate."""
    for name, v in (("write_amp", write_amp), ("entry_bytes", entry_bytes),
                    ("ns_per_compaction_byte", ns_per_compaction_byte),
                    ("ns_per_flush_byte", ns_per_flush_byte), ("ns_per_put", ns_per_put)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
    if isinstance(compaction_threads, bool) or not isinstance(compaction_threads, int) \
            or compaction_threads < 1:
        raise ValueError(f"compaction_threads must be a whole number >= 1; got "
                         f"{compaction_threads!r}")
    if not (isinstance(cores, (int, float)) and cores > 0):
        raise ValueError(f"cores must be a number > 0; got {cores!r}")
    compaction = 2.0 * max(0.0, write_amp - 1.0) * entry_bytes * ns_per_compaction_byte
    flush = entry_bytes * ns_per_flush_byte
    busiest = max(compaction / compaction_threads, flush, ns_per_put,
                  (compaction + flush + ns_per_put) / cores) * 1e-9
    return math.inf if busiest == 0 else 1.0 / busiest


def stall_share(offered: float, sustainable: float, ns_per_put: float, writes: float,
                headroom_entries: float, delayed_rate: float = math.inf) -> float:
    """T3 (docs/MODEL.md "T3. Write stalls"): the share of a window's time the writer is stalled
    when it offers ``offered`` inserts per second, ``writes`` of them, to a tree that sustains
    ``sustainable`` per second and starts caught up.

    Below the sustainable rate nothing stalls. Above it the backlog grows at (offered -
    sustainable) per second until it fills ``headroom_entries`` (what the tree takes before
    RocksDB slows writes: wacky_model.stalls.backlog_entries). From then on the writer is behind
    its schedule and puts back to back, and RocksDB's write controller holds it to its delayed
    rate ``delayed_rate`` (``delayed_write_rate``, in inserts per second), or to the sustainable
    rate if that is lower (it stops writes and lowers the delayed rate while the backlog still
    grows): each insert takes 1 / min(delayed, sustainable), of which ns_per_put is the put's
    own; the rest is stall. A writer held below the sustainable rate drains the backlog only at
    their difference, so over a window it stays held."""
    for name, v in (("offered", offered), ("sustainable", sustainable),
                    ("ns_per_put", ns_per_put), ("writes", writes),
                    ("headroom_entries", headroom_entries), ("delayed_rate", delayed_rate)):
        if not (isinstance(v, (int, float)) and v >= 0 and not math.isnan(v)):
            raise ValueError(f"{name} must be a number >= 0; got {v!r}")
    if offered <= sustainable or writes == 0:
        return 0.0
    put = ns_per_put * 1e-9
    per_held = 1.0 / min(sustainable, delayed_rate)
    if per_held <= put:  # the writer alone is slower than compaction: nothing to hold
        return 0.0
    before = min(writes, offered * headroom_entries / (offered - sustainable))  # unstalled
    held = writes - before
    return held * (per_held - put) / (before / offered + held * per_held)
