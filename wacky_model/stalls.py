"""Time on stock RocksDB (issue 34; docs/MODEL.md "T2" and "T3"): the sustainable write rate of
a configuration on a calibrated machine, whether a write rate stalls, and the constraint
``recommend --target rocksdb --write-rate`` applies (``wacky_model.guardrails.WriteRate``).

RocksDB runs flushes and compactions in background threads: the export's
``max_background_jobs`` 2 is one flush thread and one compaction thread. The writer never waits
for them until level 0 reaches its slowdown trigger; from there RocksDB slows writes to its
``delayed_write_rate`` and stops them at the stop trigger (T3)."""

from __future__ import annotations

from typing import Any

from cost_models.throughput import sustainable_rate
from wacky_model.devices import DeviceProfile
from wacky_model.rocksdb_options import DELAYED_WRITE_RATE, slowdown_trigger

COMPACTION_THREADS = 1  # the export's max_background_jobs 2: one flush, one compaction
# A put's bytes in RocksDB's write batch, over its key and value: a tag and two length varints.
PUT_OVERHEAD_BYTES = 3


def sustainable(write_amp: float, entry_bytes: float, machine: DeviceProfile) -> float:
    """T2: the inserts per second RocksDB's background threads keep up with, for a
    configuration of write amplification ``write_amp`` (the I/O model's) on ``machine``."""
    if not machine.has_rocksdb:
        raise ValueError("the machine profile has no RocksDB figures (wacky calibrate with the "
                         "RocksDB bridge built)")
    assert machine.rocksdb_ns_per_compaction_byte is not None
    return sustainable_rate(write_amp, entry_bytes, machine.rocksdb_ns_per_compaction_byte,
                            machine.rocksdb_ns_per_flush_byte or 0.0,
                            machine.rocksdb_ns_per_put or 0.0, COMPACTION_THREADS,
                            machine.cores or 1)


def delayed_inserts(entry_bytes: float) -> float:
    """RocksDB's default delayed_write_rate in inserts per second of ``entry_bytes`` each."""
    return DELAYED_WRITE_RATE / (entry_bytes + PUT_OVERHEAD_BYTES)


def stall_report(write_amp: float, entry_bytes: float, buffer_bytes: float,
                 level0_trigger: int, machine: DeviceProfile,
                 write_rate: float | None) -> dict[str, Any]:
    """T2's rate, and at ``write_rate`` (if given) whether writes stall and T3's share of the
    time stalled once level 0 fills to its slowdown trigger (in steady overload)."""
    from cost_models.throughput import stall_share

    rate = sustainable(write_amp, entry_bytes, machine)
    out: dict[str, Any] = {"sustainable_rate": rate, "profile": machine.name}
    if write_rate is not None:
        headroom = (slowdown_trigger(level0_trigger) - level0_trigger) * buffer_bytes \
            / entry_bytes
        share = stall_share(write_rate, rate, machine.rocksdb_ns_per_put or 0.0, 1e12,
                            headroom, delayed_inserts(entry_bytes))
        out.update(write_rate=write_rate, stalls=write_rate > rate, stall_share=share,
                   seconds_to_slowdown=None if write_rate <= rate else
                   headroom / (write_rate - rate))
    return out
