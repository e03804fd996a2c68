"""RocksDB for :func:`validation.runner.validate` (``--engine rocksdb``; README, "RocksDB").

**Stock**: ``wacky export --rocksdb``'s options under RocksDB's compaction, one bits-per-key for
every level (uniform filters). Its merge schedule is hidden, so the window is N fresh keys and the
prediction the model's amortized cost; the writer waits while RocksDB compacts. **Driven**: the
Wacky compaction driver over the native engine's whole-level window, synchronous. **Skewed** (stock
only): the native engine's skewed writes over its skew window, priced by S2f or U5.

A read's I/O is its data-block cache misses (RocksDB's PerfContext), index and filter blocks in
memory as the model assumes; a read batch that overlapped a flush or compaction is redone.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

import rocksdb_bridge
from cost_models.limits import runs_limit
from cost_models.skew import SkewedWorkload
from cost_models.structure import structure
from cost_models.universal import CYCLE_CAP_LOADS
from native_engine.simulator import ReplaySession
from validation import generators, window
from validation.native import SkewSession, add_counts, check_skew_workload, hit_rates
from validation.predict import (
    peak_space_stock,
    predict_finite,
    predict_simulated,
    predict_skew,
    predict_stock,
    steady_references,
)
from validation.results import (
    Checks,
    Costs,
    EngineRun,
    LevelShape,
    disk_detail,
    peak_space_detail,
    window_detail,
    with_theta,
)
from validation.rocksdb_driver import WackyDriver
from validation.scale import Scale
from validation.window import Counters, PacedReads, ReadPacing
from wacky_model.rocksdb_model import leveled_policy, universal_rules
from wacky_model.rocksdb_options import driver_export, rocksdb_export
from wacky_model.skew import (
    leveled_skew_costs,
    needs_skew_model,
    skewed_workload,
    universal_cycle_start,
    universal_skew_costs,
)
from wacky_model.types import Compaction, Design, System, Workload

BLOCK_CACHE_BYTES = 1 << 20  # small: reads do not fill it, so each data block read is a miss
KEY_BYTES = 8
COMPACTION_TIMEOUT_S = 600.0
# Runs the driver keeps as level-0 files, all open at once (file descriptors).
DRIVER_MAX_RUNS = 900
LOAD_SHARE = 0.45  # of the progress bar, for the load (the window takes as much)
READ_KINDS = ("zero", "oldest", "uniform", "range")
SIDES = ("zero", "range")  # under skew: spread over the window as the uniform runs do
BATCH_TRIES = 5  # a read batch that overlapped a flush or compaction is redone so many times
T = TypeVar("T")


def _quiet(fraction: float, message: str) -> None: ...


def _put(db: Any, keys: np.ndarray, values: np.ndarray) -> float:
    """Insert ``keys``, then wait while RocksDB flushes or compacts; returns the seconds waited.
    A compaction pending but unscheduled (universal below its merge width) is waited for once,
    not again after writes that flushed nothing."""
    flushed = db.tickers()["rocksdb.flush.write.bytes"]
    db.put_many(keys, values[: keys.size])
    if not db.busy() or (db.tickers()["rocksdb.flush.write.bytes"] == flushed
                         and not db.int_property("rocksdb.mem-table-flush-pending")
                         and not _background(db)[0]):
        return 0.0
    return db.wait_for_background_work(COMPACTION_TIMEOUT_S)


def _levels(db: Any) -> tuple[LevelShape, ...]:
    """Sorted runs by level: each level-0 file is a run; every other non-empty level is one."""
    rows = [lv for lv in db.levels() if lv["files"]]
    return tuple(LevelShape(level=i + 1, runs=lv["files"] if lv["level"] == 0 else 1,
                            entries=int(lv["entries"])) for i, lv in enumerate(rows))


def disk_bytes_per_entry(db: Any) -> float:
    """On-disk bytes per entry of the live files: turns RocksDB's byte counts into entries."""
    levels = db.levels()
    entries = sum(int(level["entries"]) for level in levels)
    return sum(int(level["bytes"]) for level in levels) / max(1, entries)


def rocksdb_counters(db: Any, **more: Any) -> Counters:
    """RocksDB's statistics as :class:`validation.window.Counters` (bytes; no split by level).
    With db_paths, the bytes of table files written and read by compactions in each path, in
    device order (the database's own directory "db" first, then "device1", ...: _database's
    names, which sort so)."""
    t = db.tickers()
    flushed = t["rocksdb.flush.write.bytes"]
    written, read = db.path_bytes_written(), db.path_bytes_read()
    # Compactions' bytes by output level (the listener's, summed over the paths), Level 1 first;
    # an intra-level-0 compaction's output (index 0) is left out.
    by_level = [list(v) for v in db.path_level_bytes_written().values()]
    if by_level and "merged_per_level" not in more:
        width = max(map(len, by_level))
        more = {**more, "merged_per_level": tuple(
            sum(v[i] for v in by_level if i < len(v)) for i in range(1, width))}
    if len(written) > 1:
        more = {**more, "device_written": tuple(written[k] for k in sorted(written)),
                "device_read": tuple(read.get(k, 0) for k in sorted(written))}
    return Counters("bytes", flushed + t["rocksdb.compact.write.bytes"], flushed,
                    user_written=t["rocksdb.bytes.written"], **more)


def _bytes_write_amp(delta: Counters) -> float:
    """(Flush + compaction bytes written) / user bytes written, over a window."""
    return delta.written / max(1, delta.user_written)


@dataclass
class StockSession:
    """A step puts ``draw()``'s keys; ``throttle`` is the writer's waits. With ``full_merges``
    (universal) a step ending with one run after a compaction merged into Level L, and ``cycle``
    (the model's, in writes) paces the reads."""

    db: Any
    draw: Callable[[], np.ndarray]
    values: np.ndarray
    inserted: int = 0  # writes so far
    throttle: float = 0.0
    full_merges: bool = False
    cycle: float = 0.0
    merged: int = 0  # compaction bytes written when the last full merge was seen

    def can_step(self) -> bool:
        return True  # a fixed window: its length stops it

    def step(self) -> tuple[int, int]:
        keys = self.draw()
        self.throttle += _put(self.db, keys, self.values)
        self.inserted += keys.size
        if not self.full_merges:
            return keys.size, 0
        # One run left by a compaction since the last step that saw one: a compaction that
        # finished late (a loaded machine) still counts, a step later at the most.
        merged = self.db.tickers()["rocksdb.compact.write.bytes"]
        full = merged > self.merged and self.level_L()[0] == 1
        if full:
            self.merged = merged
        return keys.size, int(full)

    def level_L(self) -> tuple[int, bool, float]:
        if not self.full_merges:
            raise NotImplementedError("a leveled stock window is fixed: no boundary of Level L")
        runs = int(sum(row.runs for row in _levels(self.db)))
        return runs, runs == 1, 1.0

    def cycle_hint(self) -> float:
        return self.cycle or self.values.shape[0]

    def counters(self) -> Counters:
        return rocksdb_counters(self.db, stall_seconds=self.throttle,
                                disk_bytes=self.db.disk_bytes(),
                                peak_disk_bytes=self.db.peak_disk_bytes())

    def idle(self) -> None:
        self.db.flush()
        self.throttle += self.db.wait_for_background_work(COMPACTION_TIMEOUT_S)

    def start_window(self) -> None:
        self.db.reset_peak_disk()


@dataclass
class DrivenSession(ReplaySession):
    """A step writes a buffer of ``stream`` and the driver's flush and merges (synchronous)."""

    driver: WackyDriver | None = None
    stream: np.ndarray | None = None
    values: np.ndarray | None = None
    pos: int = 0

    def buffer(self) -> bool:
        F = self.driver.buffer_entries
        if self.pos + F > self.stream.size:
            raise RuntimeError("the driven run ran out of fresh keys")
        step = self.driver.insert_buffer(self.stream[self.pos : self.pos + F], self.values)
        self.pos += F
        return step.major

    def counters(self) -> Counters:
        c = self.driver.counts
        return rocksdb_counters(self.driver.db, inserted=c.inserted,
                                policy_written=c.merged + c.kept_flushes)


def _background(db: Any) -> tuple[int, int]:
    """(flushes and compactions running, bytes flushes and compactions have written)."""
    t = db.tickers()
    return (db.int_property("rocksdb.num-running-compactions")
            + db.int_property("rocksdb.num-running-flushes"),
            t["rocksdb.flush.write.bytes"] + t["rocksdb.compact.write.bytes"])


def counted(db: Any, batch: Callable[[], T]) -> tuple[T, int]:
    """``batch()`` run while no flush or compaction ran (their reads and blocks would count), and
    the tries discarded because one did, up to ``BATCH_TRIES``."""
    for discarded in range(BATCH_TRIES):
        running, written = _background(db)
        while running:
            db.wait_for_background_work(COMPACTION_TIMEOUT_S)
            running, written = _background(db)
        out = batch()
        if _background(db) == (0, written):
            return out, discarded
    raise RuntimeError(f"a RocksDB flush or compaction ran during each of {BATCH_TRIES} tries "
                       "of a read batch, so its reads were never counted")


def _counts(db: Any) -> np.ndarray:
    """The data-block cache (hits, misses) of the reads so far, a row per level."""
    return np.array(db.read_counts(), dtype=np.int64).reshape(-1, 2)


@dataclass
class ReadMeter:
    """Reads of each kind (``draws``: kind -> k -> k keys or range starts) by :func:`counted`
    batch: reads, cache hits and misses per level (level 0 first), wrong answers (every try's).
    ``during(db)``: a test's hook, run inside every try."""

    db: Any
    draws: dict[str, Callable[[int], np.ndarray]]
    range_entries: int
    during: Callable[[Any], None] | None = None
    totals: dict[str, list[Any]] = field(init=False)  # kind -> [reads, hits, misses]
    wrong: dict[str, int] = field(default_factory=lambda: dict.fromkeys(READ_KINDS, 0))
    discarded: int = 0

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.totals = {kind: [0, np.zeros(0, np.int64), np.zeros(0, np.int64)]
                       for kind in self.draws}

    def batch(self, k: int, kinds: tuple[str, ...] | None = None) -> None:
        def run() -> list[tuple[str, np.ndarray, np.ndarray]]:
            out = []
            for kind in kinds or self.draws:
                keys, before = self.draws[kind](k), _counts(self.db)
                if kind == "range":
                    self.db.scan_many(keys, self.range_entries)
                else:
                    found = self.db.get_many(keys)
                    self.wrong[kind] += int(found.sum() if kind == "zero" else (~found).sum())
                out.append((kind, before, _counts(self.db)))
                if self.during is not None and len(out) == 1:
                    self.during(self.db)
            return out

        got, discarded = counted(self.db, run)
        self.discarded += discarded
        for kind, before, after in got:
            t = self.totals[kind]
            t[0] += k
            t[1] = add_counts(t[1], after[:, 0], before[:, 0])
            t[2] = add_counts(t[2], after[:, 1], before[:, 1])

    def per_read(self, kind: str) -> float:
        """Data blocks read (cache misses) per read of ``kind``."""
        count, _, misses = self.totals[kind]
        return int(misses.sum()) / max(1, count)

    def per_level(self, kind: str) -> tuple[float, ...]:
        """Data blocks read per read of ``kind`` at each level, level 0 first."""
        count, _, misses = self.totals[kind]
        return tuple(int(m) / max(1, count) for m in misses)

    def hit_rates(self, kind: str) -> tuple[float, tuple[float | None, ...]]:
        """The hit rate of ``kind``'s reads overall and per level (None: no read reached it)."""
        return hit_rates(*self.totals[kind][1:])

    def costs(self, write_amp: float, levels: tuple[LevelShape, ...], memory: float,
              skewed: bool = False) -> Costs:
        hit, per_level = self.hit_rates("uniform")
        return Costs(write_amp=write_amp, zero_result_read=self.per_read("zero"),
                     # Under skew, updates move keys out of Level L: its worst case is not read.
                     point_read=None if skewed else self.per_read("oldest"),  # type: ignore
                     point_read_uniform=self.per_read("uniform"),
                     range_runs=float(sum(row.runs for row in levels)),
                     range_io=self.per_read("range"), memory_bits_per_entry=memory,
                     levels=levels, cache_hit_rate=hit if skewed else None,
                     # Levels 1 on that existing-key reads reached (level 0 is apart).
                     cache_hit_rate_per_level=tuple(r for r in per_level[1:] if r is not None)
                     if skewed else None)

    def checks(self) -> Checks:
        return Checks(get_misses=self.wrong["oldest"] + self.wrong["uniform"],
                      zero_hits=self.wrong["zero"])


@dataclass(kw_only=True)
class SkewPaced(PacedReads):
    """:class:`PacedReads` of the zero-result and range reads, and before every step (warm-up
    too: they warm the cache) the existing-key reads owed: ``existing(k)``."""

    existing: Callable[[int], None]
    owed: ReadPacing = field(default_factory=ReadPacing)

    def warming(self) -> None:
        if k := self.owed.due():
            self.existing(k)

    before = warming


@contextmanager
def _database(exported: Any, workdir: str | Path | None, cache_bytes: int = 0,
              **how: Any) -> Iterator[Any]:
    """A fresh database with ``exported``'s options; with ``cache_bytes``, a block cache that
    reads fill (else a small one they do not)."""
    native = rocksdb_bridge.load()
    with tempfile.TemporaryDirectory(prefix="wacky-rocksdb-", dir=workdir) as tmp:
        options = Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        if exported.partitions > 1:  # the bridge sets the partitioner (RocksDBExport)
            how = {**how, "partitions": exported.partitions}
        if exported.db_paths:  # D1: the own device is the database's directory
            how = {**how, "db_paths": [(str(Path(tmp) / ("db" if d == 0 else f"device{d}")), t)
                                       for d, t in exported.db_paths]}
        yield native.Database(str(Path(tmp) / "db"), str(options),
                              cache_bytes or BLOCK_CACHE_BYTES, fill_cache=cache_bytes > 0, **how)


@dataclass(frozen=True)
class StockRun:
    """What a stock run measured over its window (no Θ)."""

    costs: Costs
    checks: Checks
    present: int  # keys in the database at the end
    detail: dict[str, Any]  # throttle_seconds, write_amp_bytes, bytes_per_entry, ...
    window: window.WindowRun
    reads: int = 0  # under skew: the existing-key reads counted
    level0_hit_rate: float | None = None  # under skew: their hit rate at level 0


def _draws(rng: np.random.Generator, absent: np.ndarray, oldest: np.ndarray,
           present: Callable[[], np.ndarray]) -> dict[str, Callable[[int], np.ndarray]]:
    """The uniform reads: zero-result, the preload's Level L, uniform over all present, ranges."""
    return {"zero": lambda k: rng.choice(absent, k), "oldest": lambda k: rng.choice(oldest, k),
            "uniform": lambda k: rng.choice(present(), k),
            "range": lambda k: rng.choice(present(), k)}


def run_stock(exported: Any, scale: Scale, range_entries: int, *,
              skew: SkewedWorkload | None = None, cache_bytes: int = 0,
              workdir: str | Path | None = None, report: Callable = _quiet,
              cycle: tuple[float, int] | None = None,
              rule: window.WindowRule | None = None) -> StockRun:
    """The preload's N keys, then a window of N fresh keys with the reads spread over it. With
    ``skew`` (and a cache of ``cache_bytes``): the workload's writes over ``half_loads`` (or
    ``rule``, a fixed window of the caller's), or with ``cycle`` (universal: the model's cycle
    writes, and full merges before it) one cycle of the largest run (``full_merge_cycle``), as
    U5 prices it."""
    keys = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes,
                                 seed=scale.seed).keys
    rng = np.random.default_rng([scale.seed, 0x524F434B])  # stream tag: "ROCK"
    fresh = generators.fresh_keys(rng, scale.entries + scale.reads, np.sort(keys))
    F = exported.system.buffer_entries
    values = np.zeros((F, scale.entry_bytes - KEY_BYTES), dtype=np.uint8)
    with _database(exported, workdir, cache_bytes) as db:
        report(0.0, "loading")
        throttle = sum(_put(db, keys[i : i + F], values) for i in range(0, keys.size, F))
        throttle += db.wait_for_background_work(COMPACTION_TIMEOUT_S)
        report(LOAD_SHARE, "steady-state window")
        out = _stock_window(db, keys, fresh, values, scale, max(1, range_entries), rng, skew,
                            cycle, rule)
        del db  # closes the database before its directory goes
    return replace(out, detail={**out.detail,
                                "throttle_seconds": throttle + out.detail["throttle_seconds"]})


def _stock_window(db: Any, keys: np.ndarray, fresh: np.ndarray, values: np.ndarray,
                  scale: Scale, range_entries: int, rng: np.random.Generator,
                  skew: SkewedWorkload | None, cycle: tuple[float, int] | None = None,
                  skew_rule: window.WindowRule | None = None) -> StockRun:
    F, n = values.shape[0], keys.size
    window_keys, absent = fresh[:n], fresh[n:]
    if skew is None:
        stream = np.concatenate([keys, window_keys])
        session = StockSession(db, lambda: window_keys[session.inserted : session.inserted + F],
                               values)
        meter = ReadMeter(db, _draws(rng, absent, keys, lambda: stream[: n + session.inserted]),
                          range_entries)
        rule, reads = (window.fixed(n, settle_reads=False),
                       PacedReads(meter.batch, meter.reset, scale.reads, F))
    else:
        rule = (window.full_merge_cycle(cycle[1], CYCLE_CAP_LOADS * n) if cycle is not None
                else skew_rule or window.half_loads(n))
        writes = SkewSession(None, keys, skew, rng, (rule.warmup_cap or 0) + rule.cap + 2 * F,
                             F=F)
        session = StockSession(db, writes.draw, values, full_merges=cycle is not None,
                               cycle=cycle[0] if cycle else 0.0,
                               merged=db.tickers()["rocksdb.compact.write.bytes"])
        meter = ReadMeter(db, {"zero": lambda k: rng.choice(absent, k),
                               "uniform": writes.read_keys,
                               "range": lambda k: rng.choice(keys, k)}, range_entries)
        reads = SkewPaced(lambda k: meter.batch(k, SIDES), meter.reset, scale.reads,
                          writes.chunk, existing=lambda k: meter.batch(k, ("uniform",)),
                          owed=ReadPacing(skew.reads_per_write * writes.chunk, batch=0))
    # Reads are counted from RocksDB's per-level PerfContext of this thread, so its tickers
    # for writes are unaffected.
    run = window.measure(session, rule, reads)
    per_entry = disk_bytes_per_entry(db)
    written = run.delta.written
    present = n + (session.inserted if skew is None else writes.used_fresh)
    return StockRun(
        meter.costs(written / per_entry / max(1, run.writes), _levels(db),
                    8.0 * db.filter_bytes() / present, skewed=skew is not None),
        meter.checks(), present,
        dict(throttle_seconds=session.throttle, read_batches_discarded=meter.discarded,
             write_amp_bytes=_bytes_write_amp(run.delta), bytes_per_entry=per_entry,
             zero_result_per_level=meter.per_level("zero")),
        run, meter.totals["uniform"][0], (meter.hit_rates("uniform")[1] or (None,))[0])


def _check_driveable(design: Design, system: System) -> None:
    """Every run is an open level-0 file: refuse trees with too many runs at up to three times
    the preload."""
    for entries in (system.entries, 3 * system.entries):
        s = structure(design.T, design.C, design.X, design.K, design.Z,
                      entries / system.buffer_entries, integer_runs=True)
        # A run holds at least one buffer, so Level i holds at most N_i / F runs.
        held = np.minimum(s.runs, runs_limit(s, entries / system.buffer_entries))
        runs = int(np.sum(held[: int(s.L)]))
        if runs > DRIVER_MAX_RUNS:
            raise ValueError(
                f"the compaction driver refuses this design: at {entries:,.0f} entries its tree "
                f"can hold {runs:,} runs, each a level-0 file RocksDB keeps open; at most "
                f"{DRIVER_MAX_RUNS:,}")


def _driven(design: Design, system: System, scale: Scale, workload: Workload | None,
            range_entries: int, report: Callable, workdir: str | Path | None) -> EngineRun:
    """Preload, then the whole-level window (as ``steady_window`` replays it) with reads."""
    _check_driveable(design, system)
    keys = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes,
                                 seed=scale.seed).keys
    F, n = system.buffer_entries, scale.entries
    rule = window.whole_levels(n, F)
    rng = np.random.default_rng([scale.seed, 0x44524956])  # stream tag: "DRIV"
    fresh = generators.fresh_keys(rng, 2 * rule.cap + 2 * F + scale.reads, np.sort(keys))
    absent, fresh = fresh[: scale.reads], fresh[scale.reads :]
    exported = driver_export(design, system)
    with _database(exported, workdir, driven=True) as db:
        driver = WackyDriver(db, design, system)
        session = DrivenSession(driver.replay, lambda: session.buffer(), driver=driver,
                                stream=np.concatenate([keys, fresh]),
                                values=np.zeros((F, scale.entry_bytes - KEY_BYTES), np.uint8))
        preload = (n - 1) // F  # the preload's last buffer flushes in the warm-up
        for i in range(preload):
            session.buffer()
            report(LOAD_SHARE * (i + 1) / max(1, preload), "loading")
        meter = ReadMeter(db, _draws(rng, absent, keys[: int(sum(driver.replay.levels[-1].runs))],
                                     lambda: session.stream[: session.pos]), max(1, range_entries))
        report(LOAD_SHARE, "steady-state window")
        reads = PacedReads(meter.batch, meter.reset, scale.reads, F)
        run = window.measure(session, rule, reads)
        delta = run.delta
        driver.check()
        levels = tuple(LevelShape(level=i + 1, runs=len(level.runs),
                                  entries=float(sum(level.runs)), max_runs=int(level.max_runs))
                       for i, level in enumerate(driver.replay.levels))
        measured = meter.costs(_bytes_write_amp(delta), levels,
                               8.0 * db.filter_bytes() / session.pos)
        checks, present = meter.checks(), session.pos
        del db  # closes the database before its directory goes
    # The driver flushed every buffer it wrote, as the simulator does with one entry more.
    simulated, conditioned = steady_references(
        design, system, workload, range_entries, present + 1, measured.levels[-1].max_runs,
        run.level_L_runs_at_start)
    return EngineRun(
        measured=with_theta(measured, workload, system.entries_per_block), checks=checks,
        predicted=predict_finite(design, system, workload, range_entries, steady_window=True),
        simulated=simulated, conditioned=conditioned, window_writes=run.writes,
        detail=dict(window_detail(run), stock=False, throttle_seconds=0.0,
                    rocksdb_grade=exported.grade,
                    # Entries the design's policy wrote per insert (DriverCounts.tree_write_amp's).
                    tree_write_amp=delta.policy_written / delta.inserted if delta.inserted
                    else 0.0))


def _stock(design: Design, system: System, scale: Scale, workload: Workload | None,
           range_entries: int, compaction: Compaction, report: Callable,
           workdir: str | Path | None) -> EngineRun:
    sizing = {} if compaction.sizing == "wacky" else dict(
        dynamic=compaction.sizing == "dynamic", level_base_bytes=compaction.level_base_bytes)
    exported = rocksdb_export(design, system, compaction.level1_runs, compaction.file_bytes,
                              compaction.file_pick, **sizing, universal=compaction.universal,
                              side_runs=compaction.side_runs,
                              l0_partitions=compaction.l0_partitions,
                              level_devices=compaction.level_devices)
    if exported.grade == "needs-driver":
        knobs = "; ".join(f"{g.knob}: {g.note}" for g in exported.grades
                          if g.grade == "needs-driver")
        raise ValueError(f"stock RocksDB cannot express this design ({knobs}): validate it "
                         "with the compaction driver (leave out --stock)")
    # Stock RocksDB gives every level the same bits per key (the export's filter_policy), so
    # the models price the design RocksDB runs: uniform filters.
    ran = replace(design, filters="uniform")
    facts = dict(stock=True, rocksdb_grade=exported.grade, level0_trigger=compaction.level1_runs)
    if needs_skew_model(workload, system):
        return _stock_skewed(exported, ran, system, scale, workload, range_entries, facts,
                             report, workdir)
    run = run_stock(exported, scale, range_entries, workdir=workdir, report=report)
    partial = predict_stock(exported, workload, scale.entries, scale.entries, range_entries)
    if exported.db_paths:
        facts["devices"] = _stock_devices(exported, compaction, run.window, scale)
    if exported.style == "level" and run.window.delta.merged_per_level:
        facts["per_level"] = _stock_per_level(exported, run.window, scale)
    return EngineRun(
        measured=with_theta(run.costs, workload, system.entries_per_block), checks=run.checks,
        predicted=(partial if partial is not None
                   else predict_finite(ran, system, workload, range_entries)),
        simulated=predict_simulated(ran, replace(system, entries=float(run.present)), workload,
                                    range_entries),
        model=("finite" if partial is None else
               "universal" if exported.style == "universal" else "partial"),
        window_writes=scale.entries, design=ran,
        detail=dict(window_detail(None), **disk_detail(run.window), **facts, **run.detail,
                    **peak_space_detail(run.window, peak_space_stock(
                        exported, scale.entries, scale.entries))))


def _stock_per_level(exported: Any, run: window.WindowRun, scale: Scale) -> dict[str, Any]:
    """Bytes written into each level per user byte over the window, Level 1 (with the flushes)
    first: the bridge's listener, and the stock partial model's ledger."""
    from wacky_model.rocksdb_model import leveled_costs

    ledger = leveled_costs(exported, scale.entries, scale.entries).ledger
    d = run.delta
    measured = [b + (d.flushed if i == 0 else 0) for i, b in enumerate(d.merged_per_level)]
    model = list(map(float, ledger.writes[1:]))
    if model:
        model[0] += float(ledger.writes[0])  # level 0's flushes, with Level 1
    inserted = max(1, d.user_written)
    return {"write_amp": [b / inserted for b in measured], "model_write_amp": model}


def _stock_devices(exported: Any, compaction: Compaction, run: window.WindowRun,
                   scale: Scale) -> dict[str, Any]:
    """D1 on RocksDB over the window: bytes written per byte inserted in each db_path (the
    bridge's listener: every table file RocksDB finished there), and D1's prediction from the
    stock partial model's ledger."""
    from cost_models.devices import devices_of_levels
    from wacky_model.rocksdb_model import leveled_costs

    ledger = leveled_costs(exported, scale.entries, scale.entries).ledger
    n = len(run.delta.device_written)
    where = devices_of_levels(compaction.level_devices, len(ledger.writes))
    model = np.bincount(where, weights=ledger.writes, minlength=n)
    inserted = max(1, run.delta.user_written)
    return {"level_devices": list(compaction.level_devices),
            "write_amp": [b / inserted for b in run.delta.device_written],
            "read_bytes_per_insert": [b / inserted for b in run.delta.device_read],
            "model_write_amp": list(map(float, model)),
            "db_paths": [list(p) for p in exported.db_paths]}


def _stock_skewed(exported: Any, ran: Design, system: System, scale: Scale,
                  workload: Workload, range_entries: int, facts: dict[str, Any],
                  report: Callable, workdir: str | Path | None) -> EngineRun:
    """Skewed keys, updates, a block cache on stock RocksDB, predicted by the skew model of its
    compaction: S2f at the window's middle for leveled compaction, U5 over its cycle of the
    largest run (which the engine's window matches) for universal; zero-result reads the skew
    model's, range reads the uniform model's (:func:`validation.predict.predict_stock`)."""
    universal = exported.style == "universal"
    if universal:  # the cycle of the largest run after half a load, the model's own
        rules, half = universal_rules(exported), scale.entries // 2
        model = universal_skew_costs(rules, exported.bits_per_key, system, workload,
                                     preload=scale.entries, window=half, cycle=True)
        merges = universal_cycle_start(rules, system, workload, preload=scale.entries,
                                       window=half)
    run = run_stock(exported, scale, range_entries, skew=skewed_workload(workload),
                    cache_bytes=system.cache_bytes, workdir=workdir, report=report,
                    cycle=(model.cycle_writes, merges) if universal else None)
    w = run.window
    history, after_load = w.warmup_writes + w.writes / 2.0, w.warmup_writes + w.writes
    if not universal:
        model = leveled_skew_costs(leveled_policy(exported), exported.bits_per_key, system,
                                   workload, history_writes=history)
    inserts = max(1, round((1.0 - workload.update_fraction) * after_load))
    base = (predict_stock(exported, workload, scale.entries, inserts, range_entries)
            or predict_finite(ran, system, workload, range_entries))
    measured, predicted, detail = predict_skew(
        model, replace(base, zero_result_read=model.zero_result_read), run.costs, workload,
        system, w, run.reads, level0_measured=run.level0_hit_rate,
        level0_staged=exported.style == "level" and facts["level0_trigger"] > 1)
    return EngineRun(measured=measured, checks=run.checks, predicted=predicted, simulated=None,
                     model="skew", window_writes=w.writes, design=ran,
                     detail=dict(window_detail(w, "window_complete"), **facts, **run.detail,
                                 **peak_space_detail(w, peak_space_stock(
                                     exported, scale.entries, half, cycle=True)
                                     if universal else None),
                                 skew=detail, model_cycle_writes=model.cycle_writes
                                 if universal else None))


def run_rocksdb(design: Design, system: System, scale: Scale, workload: Workload | None,
                range_entries: int, *, stock: bool, compaction: Compaction, report: Callable,
                workdir: str | Path | None, phase: str = "steady",
                save_trace: str | Path | None = None) -> EngineRun:
    """One validation run on RocksDB, stock or driven."""
    if save_trace is not None or phase != "steady":
        raise ValueError("RocksDB is validated in the steady phase and saves no trace")
    if needs_skew_model(workload, system):
        if not stock:
            raise ValueError("skewed keys, updates and a cache are validated on stock "
                             "RocksDB only (stock=True): the compaction driver runs "
                             "uniform inserts")
        check_skew_workload(workload)
    if scale.entry_bytes <= KEY_BYTES:
        raise ValueError(f"scale entry_bytes must exceed the {KEY_BYTES}-byte key on RocksDB")
    version = rocksdb_bridge.load().version()  # says how to install it before anything runs
    if stock:
        run = _stock(design, system, scale, workload, range_entries, compaction, report, workdir)
    else:  # the driver's adapter refused a compaction the driver does not run
        run = _driven(design, system, scale, workload, range_entries, report, workdir)
    return replace(run, detail={"rocksdb_version": version, **run.detail})
