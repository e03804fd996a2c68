"""Time on stock RocksDB (issue 34; docs/MODEL.md "T2" and "T3"): the sustainable write rate of
a configuration on a calibrated machine, whether a write rate stalls, and the constraint
``recommend --target rocksdb --write-rate`` applies (``wacky_model.guardrails.WriteRate``).

RocksDB runs flushes and compactions in background threads: the export's
``max_background_jobs`` 2 is one flush thread and one compaction thread. The writer never waits
for them until their backlog reaches level 0's slowdown trigger or the soft limit of pending
compaction bytes; from there RocksDB's write controller slows writes (T3). A client's reads pay
their own blocks (T6: a mix's throughput from one client thread)."""

from __future__ import annotations

from typing import Any

from cost_models.throughput import sustainable_rate
from cost_models.universal import RunsNow, TimedWindow, WriteController, timed_window
from wacky_model.devices import DeviceProfile
from wacky_model.rocksdb_model import universal_rules
from wacky_model.rocksdb_options import (
    DELAYED_WRITE_RATE,
    SOFT_PENDING_BYTES,
    slowdown_trigger,
    stop_trigger,
)
from wacky_model.types import System, Workload

COMPACTION_THREADS = 1  # the export's max_background_jobs 2: one flush, one compaction


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
    """The export's delayed_write_rate in inserts per second of ``entry_bytes`` each: RocksDB
    charges a put its key, its value and 3 bytes of the write batch (a tag, two lengths)."""
    return DELAYED_WRITE_RATE / (entry_bytes + 3)


def backlog_entries(config: Any, system: System,
                    soft_pending_bytes: float = SOFT_PENDING_BYTES) -> float:
    """T3's headroom: the inserts a stock configuration (``RocksDBConfig`` or
    ``UniversalConfig``) can take beyond what its compaction keeps up with before RocksDB slows
    writes. Universal compaction's sorted runs wait in level 0, so its headroom is level 0's
    files from the compaction trigger to the slowdown trigger. Leveled compaction's one thread
    runs the level of the highest score (level 0: files over the trigger; a level below: bytes
    over its target), so a backlog spreads: when level 0 reaches the slowdown trigger, at score
    s = slowdown / trigger, every level above the last holds s times its target. Unless RocksDB's
    pending-bytes estimate reaches ``soft_pending_bytes`` first: it counts a level's excess and
    the next level's bytes that excess overlaps, about 1 + T times it, so an insert still owed
    its merges counts 1 + T times its bytes at each level above the last it has yet to leave."""
    E = system.entry_bytes
    if hasattr(config, "trigger"):  # universal
        return (slowdown_trigger(config.trigger) - config.trigger) * config.buffer_bytes / E
    k, T = config.level0_trigger, config.multiplier
    level0 = (slowdown_trigger(k) - k) * config.buffer_bytes / E
    data = system.entries * E
    upper, target, above = 0.0, float(config.level_base_bytes), 0
    while upper + target < data:  # the levels above the last, from Level 1 down
        upper, target, above = upper + target, target * T, above + 1
    if config.dynamic:  # targets from the last level up: data / T, data / T^2, ...
        upper = data / (T - 1.0)
    spread = (slowdown_trigger(k) / k - 1.0) * upper / E
    # An insert the compaction owes counts in the estimate at each level it has yet to leave.
    pending = soft_pending_bytes / ((1.0 + T) * E * max(1, above))
    return level0 + min(spread, pending)


def controller(trigger: int, entry_bytes: float) -> WriteController:
    """The export's write controller for level 0's files (T3u): its stall triggers for
    compaction trigger ``trigger`` and its delayed rate in inserts of ``entry_bytes``."""
    return WriteController(slowdown_trigger(trigger), stop_trigger(trigger),
                           delayed_inserts(entry_bytes))


def universal_bursts(config: Any, system: System, machine: DeviceProfile, write_rate: float,
                     preload: float | None = None, window: float | None = None,
                     until_held: bool = False, start: RunsNow | None = None) -> TimedWindow:
    """T3u (docs/MODEL.md): universal compaction ``config`` (a ``UniversalConfig``) offered
    ``write_rate`` inserts a second on ``machine``, walked in time over ``window`` inserts after
    ``preload`` (default: the system's entries, then enough inserts for U2's next full merge,
    max_size_amplification_percent of them, the longest burst of the largest run's cycle);
    ``until_held``: only up to the first stall (``timed_window``); ``start``: the runs the
    window starts from (a running database's) instead of a load of ``preload``."""
    assert machine.rocksdb_ns_per_compaction_byte is not None
    rules = universal_rules(config.export(system))
    N = system.entries if preload is None else preload
    if window is None:
        window = (config.max_size_amplification_percent / 100.0) * N + rules.flush_entries
    return timed_window(rules, N, window, write_rate,
                        2.0 * system.entry_bytes * machine.rocksdb_ns_per_compaction_byte * 1e-9,
                        (machine.rocksdb_ns_per_put or 0.0) * 1e-9,
                        controller(config.trigger, system.entry_bytes), until_held, start)


def burst_free_rate(config: Any, system: System, machine: DeviceProfile, preload: float,
                    window: float, upper: float, tolerance: float = 0.01,
                    start: RunsNow | None = None) -> float:
    """T3u's sustainable rate of universal compaction ``config``: the largest rate up to
    ``upper`` (T2's, say) at which its walk in time over ``window`` inserts after ``preload``
    never holds the writer, by bisection to ``tolerance`` of the rate. A writer at T2's average
    rate can still stall while a full merge holds the compaction thread; below this one it
    does not."""
    if not upper > 0 or not 0 < tolerance < 1:
        raise ValueError(f"upper must be > 0 and tolerance in (0, 1); got {upper}, {tolerance}")

    def calm(rate: float) -> bool:
        return universal_bursts(config, system, machine, rate, preload, window,
                                until_held=True, start=start).first_stall is None

    if calm(upper):
        return upper
    lo, hi = 0.0, upper
    while hi - lo > tolerance * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if calm(mid) else (lo, mid)
    return lo


def stall_report(write_amp: float, config: Any, system: System, machine: DeviceProfile,
                 write_rate: float | None) -> dict[str, Any]:
    """T2's rate of ``config`` (stock RocksDB) at write amplification ``write_amp``, and at
    ``write_rate`` (if given) whether writes stall, after how long, and the share of the time
    stalled from then on: T3 for leveled compaction; T3u for universal compaction, whose full
    merges hold the one compaction thread while level 0 fills, so it can stall below T2."""
    from cost_models.throughput import stall_share

    entry_bytes = system.entry_bytes
    rate = sustainable(write_amp, entry_bytes, machine)
    out: dict[str, Any] = {"sustainable_rate": rate, "profile": machine.name,
                           "universal": hasattr(config, "trigger")}
    if write_rate is not None and hasattr(config, "trigger"):  # universal: T3u
        timed = universal_bursts(config, system, machine, write_rate)
        held = timed.first_stall is not None
        out.update(write_rate=write_rate, stalls=held, stall_share=timed.share,
                   seconds_to_slowdown=timed.first_stall, bursts=held and write_rate <= rate)
    elif write_rate is not None:
        headroom = backlog_entries(config, system)
        share = stall_share(write_rate, rate, machine.rocksdb_ns_per_put or 0.0, 1e15,
                            headroom, delayed_inserts(entry_bytes))
        out.update(write_rate=write_rate, stalls=write_rate > rate, stall_share=share,
                   seconds_to_slowdown=None if write_rate <= rate else
                   headroom / (write_rate - rate))
    return out


def mix_report(row: Any, workload: Workload, system: System,
               machine: DeviceProfile) -> dict[str, Any]:
    """T6 for one stock configuration of cost row ``row``: the operations per second of one
    client thread running ``workload``'s mix, and each kind's latency in microseconds."""
    seconds = rocksdb_seconds(row, workload, system, machine)
    return {"ops_per_second": mix_ops_per_second(seconds, workload),
            "latency_us": {k: v * 1e6 for k, v in seconds.items()}}


def stock_time(rec: Any, system: System, machine: DeviceProfile,
               write_rate: float | None) -> dict[str, Any]:
    """T2 and T3 for a stock RocksDB recommendation's pick and RocksDB's defaults
    (``rec``: a ``RocksDBRecommendation``), as ``recommend --target rocksdb --profile`` reports
    them and the dashboard's card shows them; with the profile's read figures, T6's throughput
    of the recommendation's workload too (:func:`mix_report`)."""

    def one(p: Any) -> dict[str, Any]:
        own = p.config.system(system)
        out = stall_report(p.costs.write_amp, p.config, own, machine, write_rate)
        if machine.has_rocksdb_reads:
            out["mix"] = mix_report(p.costs.row(own.block_bytes / own.entry_bytes),
                                    rec.workload, own, machine)
        return out

    return {"recommended": one(rec.best), "defaults": one(rec.default)}


def stall_text(label: str, t: dict[str, Any]) -> str:
    """One line of T2 and T3 (:func:`stall_report`'s dict), for the CLI and the dashboard."""
    text = (f"{label}: sustains {t['sustainable_rate']:,.0f} inserts/s on {t['profile']} "
            "(T2: one compaction thread)")
    if t.get("universal") and "write_rate" not in t:
        # T3u's burst-free rate takes a dozen walks of a whole cycle, 10-18 s at 2^31 entries
        # and an 8 MiB buffer: a write rate asks for one walk, at that rate.
        text += (" on average; a full merge may stall writes below it (T3u: give a write rate "
                 "to check one)")
    if "mix" in t:
        text += (f"; the workload's mix: {t['mix']['ops_per_second']:,.0f} operations/s from "
                 "one client thread (T6)")
    if "write_rate" not in t:
        return text
    if not t["stalls"]:
        return text + f"; at {t['write_rate']:,.0f}/s no stall predicted"
    if "bursts" in t:  # universal: T3u over the largest run's cycle
        why = (" while a full merge holds the compaction thread (its level 0 fills)"
               if t["bursts"] else "")
        return (text + f"; at {t['write_rate']:,.0f}/s writes stall{why}, first after "
                f"{t['seconds_to_slowdown']:.2g} s, {t['stall_share']:.0%} of the time over "
                "the cycle to the next full merge (T3u)")
    return (text + f"; at {t['write_rate']:,.0f}/s writes stall after "
            f"{t['seconds_to_slowdown']:.2g} s, then {t['stall_share']:.0%} of the time (T3)")


# T6 (docs/MODEL.md): one client thread on stock RocksDB. The operation kinds in Workload's
# order, the reads' I/O from the cost row, their CPU from the profile.
KINDS = ("point_read", "zero_read", "write", "range_read")


def rocksdb_io(row: Any, workload: Workload) -> dict[str, float]:
    """Blocks read from storage by one operation of each kind (:data:`KINDS`): Θ (Eq 16, its
    weights as every Θ here takes them) of the workload that runs only that kind, on the cost
    row ``row`` (:data:`cost_models.objective.COST_ROW`). A write reads none in the client:
    RocksDB's flushes and compactions run in background threads (T2, T3)."""
    import numpy as np

    from wacky_model.types import kind_weights

    costs = kind_weights(workload) @ np.asarray(row, dtype=float)
    return {kind: 0.0 if kind == "write" else float(c)
            for kind, c in zip(KINDS, costs, strict=True)}


def rocksdb_seconds(row: Any, workload: Workload, system: System,
                    machine: DeviceProfile) -> dict[str, float]:
    """T6: the seconds one operation of each kind takes on stock RocksDB, one client thread:
    the CPU of that kind with its blocks cached (the profile's, a get, an absent key's get, a
    range's seek and each entry it steps over) plus its blocks read (:func:`rocksdb_io`) at the
    profile's random block read, t_r."""
    cpu = _cpu_seconds(workload, system, machine)
    io = rocksdb_io(row, workload)
    t_r = machine.block_read_seconds()
    return {k: cpu[k] + io[k] * t_r for k in KINDS}


def _cpu_seconds(workload: Workload, system: System, machine: DeviceProfile) -> dict[str, float]:
    """T6: each kind's CPU on stock RocksDB with its blocks cached, in seconds (the profile's)."""
    if not machine.has_rocksdb_reads:
        raise ValueError("the machine profile lacks RocksDB's read figures (rocksdb_ns_per_get, "
                         "rocksdb_ns_per_zero_get, rocksdb_ns_per_seek, rocksdb_ns_per_next): "
                         "run wacky calibrate with the RocksDB bridge built")
    range_entries = (workload.range_blocks or 0.0) * system.block_bytes / system.entry_bytes
    cpu = {"point_read": machine.rocksdb_ns_per_get, "zero_read": machine.rocksdb_ns_per_zero_get,
           "write": machine.rocksdb_ns_per_put,
           "range_read": (machine.rocksdb_ns_per_seek or 0.0)
           + range_entries * (machine.rocksdb_ns_per_next or 0.0)}
    return {k: (cpu[k] or 0.0) * 1e-9 for k in KINDS}


def mix_seconds(rows: Any, workload: Workload, system: System,
                machine: DeviceProfile) -> Any:
    """T6 over many configurations at once: the seconds per operation of ``workload``'s mix
    from one client thread (1 / :func:`mix_ops_per_second` of :func:`rocksdb_seconds`), for
    each cost row of ``rows`` (n, len(COST_ROW)). The mix is linear in the row: each kind's
    CPU, a constant, plus the blocks its reads miss (a write's none) at t_r."""
    import numpy as np

    from wacky_model.types import kind_weights

    cpu = _cpu_seconds(workload, system, machine)
    shares = dict(zip(KINDS, workload.fractions, strict=True))
    reads = np.array([0.0 if k == "write" else shares[k] for k in KINDS])
    weights = reads @ kind_weights(workload)  # the blocks the client reads per operation
    return (sum(shares[k] * cpu[k] for k in KINDS)
            + np.asarray(rows, dtype=float) @ weights * machine.block_read_seconds())


def mix_ops_per_second(seconds: dict[str, float], workload: Workload) -> float:
    """Operations per second of one client thread running ``workload``'s mix, each kind taking
    ``seconds[kind]`` (:func:`rocksdb_seconds`)."""
    total = sum(f * seconds[k] for f, k in zip(workload.fractions, KINDS, strict=True))
    return 1.0 / total
