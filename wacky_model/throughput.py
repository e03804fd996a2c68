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
from typing import Any

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


def _theta_at(design: Any, compaction: Any, priced_on: System, seconds: System,
              workload: Workload) -> float:
    """Θ on ``seconds`` (:func:`in_seconds`'s system) of a design a search priced on
    ``priced_on``: its buffer and filter memory kept (a memory split's), the costs in time."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price

    at = replace(seconds, buffer_bytes=priced_on.buffer_bytes,
                 bits_per_entry=priced_on.bits_per_entry, sum_fpr=None,
                 memory_bits_per_entry=None)
    return price(Configuration(design, compaction, Memory.of(at)), workload, at).theta


def native_time(rec: Any, workload: Workload, io_system: System, system: System,
                machine: DeviceProfile, constraints: Any = None,
                level0_trigger: int | None = None) -> dict[str, Any]:
    """T4 for the throughput objective's pick ``rec`` (searched on ``system``, which is
    :func:`in_seconds` of ``io_system``) and for the I/O objective's pick on ``io_system``,
    priced alike: what ``recommend --objective throughput`` reports and the dashboard shows."""
    from wacky_model.search import recommend

    io = recommend(workload, io_system, constraints=constraints, level0_trigger=level0_trigger)
    io_theta = _theta_at(io.design, io.compaction, io.system, system, workload)
    return {"profile": machine.name, "ops_per_second": ops_per_second(rec.cost, workload, machine),
            "io_pick": {"design": io.design.to_dict() if hasattr(io.design, "to_dict")
                        else str(io.design), "granularity": io.compaction.granularity,
                        "ops_per_second": ops_per_second(io_theta, workload, machine),
                        "theta": io.cost}}


def throughput_text(t: dict[str, Any]) -> str:
    """:func:`native_time`'s dict in one line: the pick's ops/s beside the I/O pick's."""
    io = t["io_pick"]
    return (f"Throughput (T4, one thread, on {t['profile']}): {t['ops_per_second']:,.0f} "
            f"operations/s; the I/O objective's pick ({io['granularity']} merges, Θ "
            f"{io['theta']:.4g}) does {io['ops_per_second']:,.0f}/s "
            f"({t['ops_per_second'] / io['ops_per_second'] - 1:+.1%} for this pick)")


# The write shares the dashboard's throughput plot prices (0 to 1 in tenths).
WRITE_SHARES = tuple(i / 10 for i in range(11))


def at_write_share(workload: Workload, share: float) -> Workload:
    """``workload`` with writes at ``share`` of the operations and the reads keeping their
    proportions among themselves (all point reads when it has none)."""
    reads = (workload.point_reads, workload.zero_reads, workload.range_reads)
    total = sum(reads)
    point, zero, ranges = ((r / total for r in reads) if total > 0 else (1.0, 0.0, 0.0))
    rest = 1.0 - share
    return replace(workload, point_reads=rest * point, zero_reads=rest * zero,
                   writes=share, range_reads=rest * ranges)


def ops_by_write_share(designs: dict[str, tuple[Any, Any, System]], workload: Workload,
                       io_system: System, machine: DeviceProfile,
                       shares: tuple[float, ...] = WRITE_SHARES) -> dict[str, list[float]]:
    """Operations per second of each design (name -> (design, compaction, the system it was
    priced on)) as the write share goes over ``shares``, the other operations in
    ``workload``'s proportions: Θ on :func:`in_seconds` of ``io_system``, through
    :func:`ops_per_second`. The designs stay as they are: it shows how each fares as the mix
    moves away from the one it was picked for."""
    seconds = in_seconds(io_system, machine)
    mixes = [at_write_share(workload, s) for s in shares]
    out: dict[str, list[float]] = {}
    for name, (design, compaction, priced_on) in designs.items():
        out[name] = [ops_per_second(_theta_at(design, compaction, priced_on, seconds, w), w,
                                    machine) for w in mixes]
    return out



def kind_seconds(row: Any, workload: Workload, seconds: System,
                 machine: DeviceProfile) -> dict[str, float]:
    """T4 per operation kind (``point_read``, ``zero_read``, ``write``, ``range_read``): Θ of
    the workload that runs only that kind, on the cost row ``row`` with the weights of
    ``seconds`` (:func:`in_seconds`'s system: φ and the probe cost in block reads), times t_r;
    a write adds its put. Their mix, weighted by ``workload``'s fractions, is
    :func:`ops_per_second`'s time: Θ is linear in the fractions."""
    import numpy as np

    from wacky_model.types import kind_weights

    _needs(machine)
    assert machine.cpu_ns_per_put is not None
    t_r = machine.block_read_seconds()
    costs = kind_weights(workload, seconds.write_cost_ratio, seconds.probe_cost) \
        @ np.asarray(row, dtype=float)
    return {kind: float(c) * t_r + (machine.cpu_ns_per_put * 1e-9 if kind == "write" else 0.0)
            for kind, c in zip(("point_read", "zero_read", "write", "range_read"), costs,
                               strict=True)}
