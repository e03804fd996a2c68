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
none does, the one whose writes allow the most, T2 / w (then below r for every candidate).

Under skewed keys, updates or a block cache the rows are the skew stage's (S2f, S3-S7, S7r
through the cache), which costs milliseconds a configuration: as the I/O objective does
(``wacky_model.granularity.file_pick``), the grid is ranked on its cheap rows (zero-result reads
through the cache, ``granularity.cached_rows``), the best :data:`TIME_REPRICE` (and
``UNIVERSAL_REPRICE`` universal configurations) are priced by the same skew stage
(``granularity.SkewStage``), then as many more by :func:`calibrated_times` (the cache speeds
every read, so the cheap rows underrate the writes each configuration's throughput asks), and
the fastest descend over their knob neighbors (``granularity.descend``), each step priced
alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cost_models.objective import theta_shared
from wacky_model.config import weights_of
from wacky_model.devices import DeviceProfile
from wacky_model.files import LeveledCosts
from wacky_model.granularity import (
    UNIVERSAL_REPRICE,
    FileGrid,
    FilePick,
    Neighbors,
    SkewStage,
    cached_rows,
    descend,
    shortlist,
)
from wacky_model.stalls import mix_seconds, sustainable
from wacky_model.types import System, Workload

# T2's figures, then T6's: what a profile needs for the objective.
NEEDED = ("rocksdb_ns_per_put", "rocksdb_ns_per_compaction_byte", "rocksdb_ns_per_flush_byte",
          "rocksdb_ns_per_get", "rocksdb_ns_per_zero_get", "rocksdb_ns_per_seek",
          "rocksdb_ns_per_next")
# Stock leveled configurations T7 prices with the skew stage by each of its two orders: the best
# this many by its rank on the cheap rows (beside UNIVERSAL_REPRICE universal ones and the
# uniform rows' pick), then as many more by calibrated_times. A few more than the I/O
# objective's FILE_REPRICE (12): T7 weighs the writes' I/O not at all, so the reads, which the
# cache and the skew reorder most, set its order alone. On 24 random cached and skewed
# workloads (benchmarks/check_t7_shortlist.py --sizes 8,16,24 5 11) the pick is the whole
# grid's best priced by the skew stage in 24 of 24 with 8, 16 or 24; 16 keeps a margin over
# the 8 that sufficed there for 2% more time.
TIME_REPRICE = 16
# The descents after the shortlists start from the fastest this many leveled configurations
# priced (and the fastest universal one): from the fastest alone they stopped short of the
# whole grid's best where two knobs had to change together, in 2 of the same 24 (by 1.0% at
# most; 4.5% with a shortlist of 8).
LEVELED_STARTS = 3


@dataclass(frozen=True)
class Reprice:
    """How T7 prices with the skew stage (module doc): the best ``leveled`` leveled
    configurations by the cheap rows (None: every configuration of the grid, the brute force),
    with ``calibrated`` as many more by :func:`calibrated_times`, then the descents from the
    fastest ``starts`` leveled configurations priced and the fastest universal one."""

    leveled: int | None = TIME_REPRICE
    calibrated: bool = True
    starts: int = LEVELED_STARTS


# Every configuration of the grid priced with the skew stage: what the shortlist is checked
# against (tests/test_rocksdb_throughput.py, benchmarks/check_t7_shortlist.py).
EVERY = Reprice(None)


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


def check_inputs(rho: float | None) -> None:
    """What T7 does not price, as the one table refuses it: the robust objective (its worst mix
    changes the write share the constraint is taken at)."""
    from wacky_model.compat import check

    check({"time_objective"} | ({"robust"} if rho is not None else set()))


def faster(a: Timed, b: Timed) -> bool:
    """Whether ``a`` ranks before ``b`` (:attr:`Timed.rank`) by more than float noise: the
    step of the descent, and of the shortlist's pick (ties go to the earlier)."""
    ra, rb = a.rank, b.rank
    if ra[0] != rb[0]:
        return ra[0] < rb[0]
    if abs(ra[1] - rb[1]) > 1e-9 * abs(rb[1]):
        return ra[1] < rb[1]
    return ra[2] < rb[2] * (1.0 - 1e-9)


def timed_rows(rows: Any, write_amps: Sequence[float], workload: Workload, system: System,
               machine: DeviceProfile) -> list[Timed]:
    """:class:`Timed` of each configuration given by its cost row (``rows``, one per row) and
    write amplification, on ``system`` (the configurations' memory split)."""
    needs(machine)
    seconds = mix_seconds(rows, workload, system, machine)
    return [Timed(float(s), sustainable(float(a), system.entry_bytes, machine), workload.writes)
            for s, a in zip(np.atleast_1d(seconds), write_amps, strict=True)]


def timed_costs(costs: LeveledCosts, workload: Workload, split: System,
                machine: DeviceProfile) -> Timed:
    """:class:`Timed` of one configuration's costs (skewed ones where the skew stage priced
    them: its row through the cache for T6, its write amplification for T2) at its memory
    ``split``."""
    row = costs.row(split.entries_per_block)
    return timed_rows(row[None], [costs.write_amp], workload, split, machine)[0]


def timed_of(priced: Any, workload: Workload, system: System, machine: DeviceProfile) -> Timed:
    """:class:`Timed` of one priced stock configuration (a ``StockPriced``: its config and
    costs), at its own memory, as the search prices the grid's: priced by its costs, so the
    pick, the I/O objective's pick and RocksDB's defaults, which the tuner holds with the skew
    stage's costs where it is in play, are timed alike."""
    return timed_costs(priced.costs, workload, priced.config.system(system), machine)


def cheap_times(grids: list[tuple[System, FileGrid]], workload: Workload,
                machine: DeviceProfile) -> dict[tuple[int, int], Timed]:
    """:class:`Timed` of every configuration of ``grids`` (keyed (grid, index), in grid
    order) on the rows T7 ranks by before the skew stage: the grid's own, or where the skew
    stage is in play its rows with zero-result reads through the cache (``cached_rows``, the
    I/O objective's order) at the uniform write amplification."""
    from wacky_model.skew import needs_skew_model

    skewed = needs_skew_model(workload, grids[0][0])  # the splits differ in memory only
    return {(g, j): t for g, (split, grid) in enumerate(grids)
            for j, t in enumerate(timed_rows(cached_rows(grid, split) if skewed else grid.rows,
                                             [c.write_amp for c in grid.costs], workload, split,
                                             machine))}


def time_shortlist(grids: list[tuple[System, FileGrid]], workload: Workload,
                   machine: DeviceProfile, leveled: int | None = TIME_REPRICE
                   ) -> list[tuple[int, int]]:
    """The configurations (grid, index) T7 prices first with the skew stage, best cheap rank
    first: the best ``leveled`` leveled and ``UNIVERSAL_REPRICE`` universal ones by
    :func:`cheap_times`, and the pick on the uniform rows (what T7 picks ignoring the skew
    stage, which the pick's report sets beside it); ``leveled=None``: every one."""
    cheap = cheap_times(grids, workload, machine)
    order = sorted((t.rank, g, j) for (g, j), t in cheap.items())
    if leveled is None:
        return [(g, j) for _, g, j in order]
    chosen = {(g, j) for _, g, j in shortlist(order, grids, leveled, UNIVERSAL_REPRICE)}
    chosen.add(_uniform_pick(grids, workload, machine))
    return sorted(chosen, key=lambda gj: (cheap[gj].rank, gj))


def _uniform_pick(grids: list[tuple[System, FileGrid]], workload: Workload,
                  machine: DeviceProfile) -> tuple[int, int]:
    """T7's pick on the grids' own rows (uniform keys, no cache): the least rank, ties to the
    earlier grid and configuration."""
    _, g, j = min((t.rank, g, j) for g, (split, grid) in enumerate(grids)
                  for j, t in enumerate(timed_rows(grid.rows, [c.write_amp for c in grid.costs],
                                                   workload, split, machine)))
    return g, j


def time_pick(grids: list[tuple[System, FileGrid]], workload: Workload, machine: DeviceProfile,
              rho: float | None = None, neighbors: Neighbors | None = None, keys: Any = None,
              reprice: Reprice = Reprice()) -> FilePick:
    """T7's pick over the stock search's grids (each a memory split and its ``FileGrid``,
    priced): the least :class:`Timed` rank (module doc), ties to the earlier. Its ``theta`` is
    its Θ (Eq 16), the I/O the report prints beside the defaults'. Under skewed keys, updates
    or a cache, the shortlists of ``reprice`` priced by the skew stage, then descents over
    ``neighbors`` (``rocksdb_tuning.stock_neighbors``, ``all_leveled``); ``keys``: the
    workload's key map, when the caller has it."""
    from wacky_model.skew import needs_skew_model

    check_inputs(rho)
    needs(machine)
    if needs_skew_model(workload, grids[0][0]):
        return _time_pick_skewed(grids, workload, machine, neighbors, keys, reprice)
    g, j = _uniform_pick(grids, workload, machine)
    split, grid = grids[g]
    theta = float(theta_shared(grid.rows[j:j + 1], weights_of(workload, split))[0, 0])
    return FilePick(split, grid.designs[j], grid.compactions[j], grid.costs[j], theta)


def _time_pick_skewed(grids: list[tuple[System, FileGrid]], workload: Workload,
                      machine: DeviceProfile, neighbors: Neighbors | None, keys: Any,
                      reprice: Reprice) -> FilePick:
    """:func:`time_pick` with the skew stage: the shortlist priced as the I/O objective prices
    its own (``SkewStage``, leveled trees built as one batch per grid), then a second one by
    :func:`calibrated_times`, then the descents; the fastest they reach."""
    from wacky_model.families import name_of
    from wacky_model.skew import analysis_of, skew_key_map
    from wacky_model.skew_search import SkewChoice

    stage = SkewStage(tuple(grids), workload,
                      skew_key_map(grids[0][0], workload) if keys is None else keys)
    cheap = cheap_times(grids, workload, machine)
    trees: dict[tuple[int, int], Any] = {}
    done: dict[tuple[int, int], tuple[Timed, LeveledCosts, Any, Any]] = {}

    def priced(g: int, j: int, tree: Any) -> tuple[Timed, LeveledCosts, Any, Any]:
        if (g, j) not in done:  # the descent meets the shortlist's again
            costs, k, tree = stage.costs(g, j, tree)
            done[(g, j)] = (timed_costs(costs, workload, grids[g][0], machine), costs, k, tree)
        return done[(g, j)]

    def prefetch(pairs: list[tuple[int, int]]) -> None:
        """The leveled trees of ``pairs`` not built yet, as one batch per grid (U5 walks a
        universal tree flush by flush: built one by one when priced)."""
        for g in sorted({g for g, _ in pairs}):
            walked = [j for gg, j in pairs if gg == g and (g, j) not in trees
                      and not _universal(grids, g, j)]
            trees.update(zip(((g, j) for j in walked), stage.trees(g, walked), strict=True))

    def price_all(pairs: list[tuple[int, int]]) -> None:
        prefetch(pairs)
        for g, j in pairs:
            priced(g, j, trees.get((g, j)))

    price_all(time_shortlist(grids, workload, machine, reprice.leveled))
    if reprice.calibrated and reprice.leveled is not None:
        estimate = calibrated_times(grids, workload, machine, cheap,
                                    {gj: (t, c.write_amp) for gj, (t, c, _, _) in done.items()})
        order = sorted((t.rank, g, j) for (g, j), t in estimate.items() if (g, j) not in done)
        # Leveled ones only: the first shortlist priced universal compaction's best, and U5
        # walks each of its trees flush by flush.
        price_all([(g, j) for _, g, j in shortlist(order, grids, reprice.leveled, 0)])
    # The descents' starts (ties to the cheaper rank). A descent from a universal pick reaches
    # leveled compaction only at its best by the cheap rows, which the skew stage can rank far
    # down; one from a leveled pick moves one knob at a time, where two can need to change
    # together.
    ranked = sorted(done, key=lambda gj: (done[gj][0].rank, cheap[gj].rank, gj))
    firsts = ([gj for gj in ranked if not _universal(grids, *gj)][:reprice.starts]
              + [gj for gj in ranked if _universal(grids, *gj)][:1])
    ends = [(done[gj][0], done[gj][1], done[gj][2], *gj, done[gj][3]) for gj in firsts]
    if neighbors is not None:
        plain = {gj: t.rank for gj, t in cheap.items()}
        ends = [descend(e, neighbors, plain, trees, priced, faster, prefetch) for e in ends]
    best = ends[0]
    for e in ends[1:]:
        if faster(e[0], best[0]):
            best = e
    _, costs, k, g, j, _ = best
    split, grid = grids[g]
    design = grid.designs[j]
    u_g, u_j = _uniform_pick(grids, workload, machine)  # one of the shortlist, so priced
    u_split, u_grid = grids[u_g]
    choice = SkewChoice(design, name_of(design, split), _theta(costs, workload, split),
                        analysis_of(k), u_grid.designs[u_j],
                        _theta(done[(u_g, u_j)][1], workload, u_split), len(done))
    return FilePick(split, design, grid.compactions[j], costs, choice.theta, choice)


def calibrated_times(grids: list[tuple[System, FileGrid]], workload: Workload,
                     machine: DeviceProfile, cheap: dict[tuple[int, int], Timed],
                     priced: dict[tuple[int, int], tuple[Timed, float]]
                     ) -> dict[tuple[int, int], Timed]:
    """:class:`Timed` of every configuration estimated from the cheap rows and what the skew
    stage did to those it priced (``priced``: (grid, index) -> its skewed Timed and write
    amplification): each compaction style's median ratio of the reads' block time (skewed to
    cheap) and of write amplification (skewed to uniform) applied to the cheap ones. The skew
    stage's cache hits lower every configuration's reads alike, so the rate each asks of its
    writes rises alike: the cheap rows, blind to it, rank first configurations that then miss
    their own rate, and this order finds those that keep it."""
    cpu = {g: float(mix_seconds(np.zeros((1, grid.rows.shape[1])), workload, split,
                                machine)[0]) for g, (split, grid) in enumerate(grids)}
    ratios: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for (g, j), (t, wa) in priced.items():
        c = cheap[(g, j)]
        io = c.seconds - cpu[g]
        ratios[_universal(grids, g, j)].append(
            ((t.seconds - cpu[g]) / io if io > 0 else 1.0,
             wa / grids[g][1].costs[j].write_amp))
    mid = {u: tuple(np.median(np.array(r), axis=0)) if r else None for u, r in ratios.items()}
    out = {}
    for (g, j), c in cheap.items():
        read, write = mid[_universal(grids, g, j)] or mid[False] or mid[True] or (1.0, 1.0)
        split, grid = grids[g]
        out[(g, j)] = Timed(cpu[g] + read * (c.seconds - cpu[g]),
                            sustainable(write * grid.costs[j].write_amp, split.entry_bytes,
                                        machine), workload.writes)
    return out


def _universal(grids: list[tuple[System, FileGrid]], g: int, j: int) -> bool:
    return grids[g][1].compactions[j].style == "universal"


def _theta(costs: LeveledCosts, workload: Workload, split: System) -> float:
    """Θ (Eq 16) of one configuration's costs at its memory ``split``."""
    row = costs.row(split.entries_per_block)
    return float(theta_shared(row[None], weights_of(workload, split))[0, 0])


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
