"""The throughput objective on stock RocksDB (issue 34; docs/MODEL.md "T7. The throughput
objective on RocksDB"): ``recommend --target rocksdb --objective throughput``.

One client thread issues one operation at a time. On stock RocksDB a put costs the client only
its CPU; flushes and compactions run in background threads (T2). So a configuration's time per
operation is T6's mix time, which depends on the configuration only through the blocks each
read kind misses, and the writes' background cost enters as a constraint, not a weight: at
T6's r operations a second the client inserts w r a second (w the writes' share), which the
configuration must sustain, T2 >= w r, else its writes stall (T3) and r is not the rate it
runs at. The constraint is each configuration's own, so it is checked candidate by candidate
over the stock search's priced grid (``wacky_model.rocksdb_tuning.stock_grid``): T6 is linear in
a candidate's cost row (:func:`wacky_model.stalls.mix_seconds`), T2 a function of its write
amplification. The pick is the least T6 time among the candidates meeting their own rate; when
none does, the one whose writes allow the most, T2 / w (then below r for every candidate)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cost_models.objective import theta_shared
from wacky_model.config import weights_of
from wacky_model.devices import DeviceProfile
from wacky_model.granularity import FilePick
from wacky_model.stalls import mix_seconds, sustainable
from wacky_model.types import System, Workload

# T2's figures, then T6's: what a profile needs for the objective.
NEEDED = ("rocksdb_ns_per_put", "rocksdb_ns_per_compaction_byte", "rocksdb_ns_per_flush_byte",
          "rocksdb_ns_per_get", "rocksdb_ns_per_zero_get", "rocksdb_ns_per_seek",
          "rocksdb_ns_per_next")


@dataclass(frozen=True)
class Timed:
    """T7 of one stock configuration: T6's ``seconds`` per operation of the mix (one client
    thread), T2's ``sustainable`` inserts per second, and the mix's share of ``writes``."""

    seconds: float
    sustainable: float
    writes: float

    @property
    def ops_per_second(self) -> float:
        return 1.0 / self.seconds

    @property
    def implied_rate(self) -> float:
        """The inserts per second its own throughput asks of the background threads."""
        return self.writes * self.ops_per_second

    @property
    def meets(self) -> bool:
        """Whether T2 keeps up with :attr:`implied_rate`, so that its writes do not stall."""
        return self.sustainable >= self.implied_rate

    @property
    def achieved(self) -> float:
        """Operations per second: T6's when it meets its own rate; otherwise the writes cap
        it, min(r, T2 / w) = T2 / w (a write controller admitting exactly T2)."""
        return self.ops_per_second if self.meets else self.sustainable / self.writes

    @property
    def rank(self) -> tuple[int, float, float]:
        """The order of the objective, least first: those meeting their own rate by T6's time,
        then the others by what their writes allow (ties, as at the writer's own bound, by
        T6's time)."""
        return (0, self.seconds, 0.0) if self.meets else (1, -self.achieved, self.seconds)

    def to_dict(self) -> dict[str, Any]:
        return {"ops_per_second": self.ops_per_second, "seconds_per_operation": self.seconds,
                "sustainable_rate": self.sustainable, "implied_write_rate": self.implied_rate,
                "meets_own_write_rate": self.meets, "achieved_ops_per_second": self.achieved}


def needs(machine: DeviceProfile) -> None:
    """Refuse a profile without T2's and T6's RocksDB figures, naming those it lacks."""
    if not isinstance(machine, DeviceProfile):
        raise ValueError(f"machine must be a DeviceProfile; got {machine!r}")
    missing = [f for f in NEEDED if getattr(machine, f) is None]
    if missing:
        raise ValueError(f"the throughput objective on RocksDB (T7) needs the machine "
                         f"profile's {', '.join(missing)}: run wacky calibrate with the RocksDB "
                         "bridge built")


def check_inputs(workload: Workload, system: System, rho: float | None) -> None:
    """What T7 does not price: the robust objective (its worst mix changes the write share the
    constraint is taken at), and skewed keys, updates or a cache (the constraint is checked on
    every candidate's cost row, and the skew stage prices only a shortlist's)."""
    from wacky_model.skew import needs_skew_model

    if rho is not None:
        raise ValueError("the throughput objective on RocksDB (T7) tunes for the workload as "
                         "given: leave out rho (--robust)")
    if needs_skew_model(workload, system):
        raise ValueError("the throughput objective on RocksDB (T7) prices uniform keys with no "
                         "block cache (its write constraint is checked on every candidate's "
                         "cost row, which the skew stage prices for a shortlist only): leave "
                         "out write_keys, read_keys, update_fraction and cache_bytes, or tune "
                         "for I/O")


def timed_rows(rows: Any, write_amps: Sequence[float], workload: Workload, system: System,
               machine: DeviceProfile) -> list[Timed]:
    """:class:`Timed` of each configuration given by its cost row (``rows``, one per row) and
    write amplification, on ``system`` (the configurations' memory split)."""
    needs(machine)
    seconds = mix_seconds(rows, workload, system, machine)
    return [Timed(float(s), sustainable(float(a), system.entry_bytes, machine), workload.writes)
            for s, a in zip(np.atleast_1d(seconds), write_amps, strict=True)]


def timed_of(priced: Any, workload: Workload, system: System, machine: DeviceProfile) -> Timed:
    """:class:`Timed` of one priced stock configuration (a ``StockPriced``: its config and
    costs), at its own memory, as the search prices the grid's."""
    own = priced.config.system(system)
    row = priced.costs.row(own.entries_per_block)
    return timed_rows(row[None], [priced.costs.write_amp], workload, own, machine)[0]


def time_pick(grids: list[tuple[System, Any]], workload: Workload, machine: DeviceProfile,
              rho: float | None = None) -> FilePick:
    """T7's pick over the stock search's grids (each a memory split and its ``FileGrid``,
    priced): the least :class:`Timed` rank (module doc), ties to the earlier. Its ``theta`` is
    its Θ (Eq 16), the I/O the report prints beside the defaults'."""
    check_inputs(workload, grids[0][0], rho)
    best: tuple[tuple[int, float, float], int, int] | None = None
    for g, (split, grid) in enumerate(grids):
        times = timed_rows(grid.rows, [c.write_amp for c in grid.costs], workload, split,
                           machine)
        j = min(range(len(times)), key=lambda i: times[i].rank)
        if best is None or times[j].rank < best[0]:
            best = (times[j].rank, g, j)
    assert best is not None
    _, g, j = best
    split, grid = grids[g]
    theta = float(theta_shared(grid.rows[j:j + 1], weights_of(workload, split))[0, 0])
    return FilePick(split, grid.designs[j], grid.compactions[j], grid.costs[j], theta)


def report(rec: Any, io_best: Any, machine: DeviceProfile) -> dict[str, Any]:
    """T7 for a stock recommendation's pick (``rec``: a ``RocksDBRecommendation`` searched for
    throughput), the I/O objective's pick (``io_best``: its ``StockPriced``) and RocksDB's
    defaults, each priced alike (:func:`timed_of`): what ``recommend --target rocksdb
    --objective throughput`` reports and the dashboard shows."""
    def one(p: Any) -> dict[str, Any]:
        return timed_of(p, rec.workload, rec.system, machine).to_dict()

    pick = one(rec.best)
    return {"objective": "throughput", "profile": machine.name,
            "writes": rec.workload.writes, "recommended": pick, "io_pick": one(io_best),
            "defaults": one(rec.default), "limited_by_writes": not pick["meets_own_write_rate"]}


def throughput_text(t: dict[str, Any]) -> str:
    """:func:`report`'s dict in one line: the pick's operations per second, whether its writes
    limit it, beside the I/O objective's pick and RocksDB's defaults."""
    r = t["recommended"]
    text = f"Throughput (T7, one client thread, on {t['profile']}): "
    if t["limited_by_writes"]:
        text += (f"{r['achieved_ops_per_second']:,.0f} operations/s, limited by writes: no "
                 "stock configuration sustains the writes its own throughput asks, this one "
                 f"sustains the most, {r['sustainable_rate']:,.0f} inserts/s (T2) against "
                 f"{r['implied_write_rate']:,.0f}/s at T6's {r['ops_per_second']:,.0f} "
                 "operations/s")
    elif t["writes"] > 0:
        text += (f"{r['ops_per_second']:,.0f} operations/s (T6), its "
                 f"{r['implied_write_rate']:,.0f} inserts/s within the "
                 f"{r['sustainable_rate']:,.0f}/s it sustains (T2)")
    else:  # no writes: nothing for the background threads to keep up with
        text += f"{r['ops_per_second']:,.0f} operations/s (T6), reads alone"
    for key, label in (("io_pick", "the I/O objective's pick"), ("defaults", "RocksDB's defaults")):
        o = t[key]
        text += (f"; {label} {o['achieved_ops_per_second']:,.0f}/s "
                 f"({r['achieved_ops_per_second'] / o['achieved_ops_per_second'] - 1:+.1%} for "
                 "this pick)")
        if not o["meets_own_write_rate"]:
            text += f", its writes capped by T2 (T6 alone: {o['ops_per_second']:,.0f}/s)"
    return text


def reason_line(what: str, best: Timed, runner: Timed) -> str:
    """One line of the report's reasons under T7: the pick against a runner-up in time."""
    def side(t: Timed) -> str:
        return "" if t.meets else " (its writes stall)"

    return (f"{what}: {best.achieved:,.0f}{side(best)} vs {runner.achieved:,.0f}{side(runner)} "
            f"operations/s ({best.achieved / runner.achieved - 1:+.1%}); sustains "
            f"{best.sustainable:,.0f} vs {runner.sustainable:,.0f} inserts/s for writes at "
            f"{best.implied_rate:,.0f} vs {runner.implied_rate:,.0f}/s")
