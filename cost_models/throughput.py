"""T1: the time of an insert on an engine that merges in the writer's thread (docs/MODEL.md, "T1.
Insert throughput"), from the I/O model's write amplification and two CPU costs a calibration
measures (``wacky calibrate``: wacky_model.devices.DeviceProfile).

An insert costs its put into the buffer, c_put, and then its share of every flush and merge: the
engine writes W entries per entry inserted (the write amplification, in entries), each at
c_merge, the CPU of reading it from its input runs, merging it and writing it out through the
page cache. With the writes absorbed by the page cache (as on this project's machines, and for
any working set the OS can buffer) the device does not wait the writer, so

    t_insert = c_put + W c_merge,        rate = 1 / t_insert.

What it leaves out: a device slower than the page cache can drain (then add W E / B_write per
insert), reads, and background compaction threads (RocksDB's), which issue 34 prices next."""

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
