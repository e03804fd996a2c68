"""The throughput objective (issue 34; docs/MODEL.md "T4. Throughput of a mix"):
``recommend --objective throughput`` on the native engine.

Θ (Eq 16) is linear in a design's cost row: reads in blocks read, writes in blocks written
weighted by φ, probes by the probe cost. Priced in seconds instead of blocks, the time of an
operation on a calibrated machine is the same linear form with other weights: a block read takes
t_r (the profile's random read at queue depth 1), a block written t_w (the engine's CPU to merge
a block's entries, c_merge B/E, plus the block at the device's sequential write bandwidth), a
filter probe c_probe; and each insert adds its put, c_put, whatever the design. So

    seconds per operation = t_r Θ(φ = t_w / t_r, probe cost = c_probe / t_r) + w c_put,

and the one search, run on the system with those φ and probe cost, minimizes time: the
throughput objective is a change of units, not a second search. Reads' CPU besides their probes
(a lookup's own work in memory) is left out, as a constant per read."""

from __future__ import annotations

from dataclasses import replace

from wacky_model.devices import DeviceProfile
from wacky_model.types import System, Workload

OBJECTIVES = ("io", "throughput")


def _needs(machine: DeviceProfile) -> None:
    missing = [f for f in ("cpu_ns_per_put", "cpu_ns_per_entry_merged", "cpu_ns_per_probe")
               if getattr(machine, f) is None]
    if missing:
        raise ValueError(f"the throughput objective needs the profile's {', '.join(missing)} "
                         "(wacky calibrate without --no-cpu)")


def in_seconds(system: System, machine: DeviceProfile) -> System:
    """``system`` with φ and the probe cost of ``machine`` (module doc), in block reads."""
    _needs(machine)
    if system.write_cost_ratio != 1.0 or system.probe_cost != 0.0:
        raise ValueError("the throughput objective takes the write cost ratio and the probe "
                         "cost from the machine profile: leave out write_cost_ratio "
                         "(--write-cost-ratio) and probe_cost (--probe-cost)")
    t_read = machine.block_read_seconds()
    assert machine.cpu_ns_per_entry_merged is not None and machine.cpu_ns_per_probe is not None
    t_write = (machine.cpu_ns_per_entry_merged * 1e-9 * system.block_bytes / system.entry_bytes
               + system.block_bytes / (machine.seq_write_mb_s * 1e6))
    return replace(system, write_cost_ratio=t_write / t_read,
                   probe_cost=machine.cpu_ns_per_probe * 1e-9 / t_read)


def ops_per_second(theta_in_seconds: float, workload: Workload, machine: DeviceProfile) -> float:
    """Operations per second of a design whose Θ on :func:`in_seconds`'s system is
    ``theta_in_seconds`` (module doc): one thread, one operation at a time."""
    _needs(machine)
    assert machine.cpu_ns_per_put is not None
    seconds = theta_in_seconds * machine.block_read_seconds() \
        + workload.writes * machine.cpu_ns_per_put * 1e-9
    return 1.0 / seconds
