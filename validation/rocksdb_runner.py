"""Validation on RocksDB, an engine this project did not write (``validate --engine rocksdb``).

With ``stock`` the design runs as the options of ``wacky export --rocksdb`` under RocksDB's own
compaction, with one bits-per-key for every level: the models price that design, with uniform
filters. The phases follow the native engine's steady measurement
(:mod:`validation.window`), simplified where RocksDB hides the merge schedule:

1. **load**: the preload's N keys (the same keys as the native engine's), one buffer at a time;
2. **window**: N more fresh keys the same way. RocksDB's statistics give write amplification
   over the window alone: (flush + compaction bytes written) / user bytes written;
3. **reads**, after every flush and compaction has finished: zero-result reads, reads of
   the preload's (oldest) keys, reads of keys uniform over all present, and range reads. A read's
   I/O is its data-block cache misses: the block cache is small and reads do not fill it, and
   index and filter blocks stay in memory (``cache_index_and_filter_blocks=false``), as the
   model assumes.

Compaction keeps up with the writer: after each buffer the writer waits while RocksDB has a flush
or compaction running or pending. That wait is reported (``throttle_seconds``). The window is not
aligned with Level L's merges as the native engine's is, so its costs include whatever merges
fall into it (the model's amortized costs, full merges included, are the prediction).

Without ``stock`` the Wacky compaction driver (:mod:`validation.rocksdb_driver`) runs the design,
Monkey filters included, and the phases are the native engine's: the preload, a warm-up to a run
boundary of Level L and the window to the next one (``validation.window.whole_levels``), with
the reads above spread over the window at the native engine's rate. Flushes and merges are
synchronous, so the writer never outruns compaction (``throttle_seconds`` is 0). Besides
RocksDB's statistics the result carries ``tree_write_amp``, the entries the policy wrote per
insert, which leaves out the level-0 file of each flush that the driver merges at once.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

import rocksdb_bridge
from cost_models.limits import runs_limit
from cost_models.structure import structure
from validation import generators, window
from validation.engine_simulator import ReplaySession
from validation.results import Checks, Costs, LevelShape, ValidationResult, with_theta
from validation.rocksdb_driver import DriverCounts, WackyDriver
from validation.runner import (
    Progress,
    leveled_to_costs,
    predict_finite,
    predict_paper,
    predict_simulated,
    range_entries_for,
    steady_references,
)
from validation.scale import Scale
from validation.window import NoReads, ReadPacing
from wacky_model.rocksdb_model import leveled_costs, universal_costs_of
from wacky_model.rocksdb_options import driver_export, rocksdb_export
from wacky_model.types import Design, System, Workload

BLOCK_CACHE_BYTES = 1 << 20  # small: reads do not fill it, so each data block read is a miss
KEY_BYTES = 8
COMPACTION_TIMEOUT_S = 600.0
# Runs the driver keeps as level-0 files, all open at once (file descriptors).
DRIVER_MAX_RUNS = 900
LOAD_SHARE = 0.45  # of the progress bar, for the load (the window takes as much)


def _put(db, keys: np.ndarray, values: np.ndarray) -> float:
    """Insert one buffer, then wait while RocksDB flushes or compacts (so reads never overlap a
    compaction and the writer never outruns it); returns the seconds waited."""
    db.put_many(keys, values[: keys.size])
    return db.wait_for_background_work(COMPACTION_TIMEOUT_S) if db.busy() else 0.0


def _levels(db) -> tuple[LevelShape, ...]:
    """Sorted runs by level: each level-0 file is a run; every other non-empty level is one."""
    rows, number = [], 0
    for level in db.levels():
        if level["files"] == 0:
            continue
        number += 1
        runs = level["files"] if level["level"] == 0 else 1
        rows.append(LevelShape(level=number, runs=runs, entries=int(level["entries"])))
    return tuple(rows)


def disk_bytes_per_entry(db) -> float:
    """On-disk bytes per entry of the live files (RocksDB's format: internal keys, block
    trailers, index and filter): it turns RocksDB's byte counts into entries."""
    levels = db.levels()
    entries = sum(int(level["entries"]) for level in levels)
    return sum(int(level["bytes"]) for level in levels) / max(1, entries)


@dataclass
class StockSession:
    """Stock RocksDB as a :class:`validation.window.Session`: a step is a buffer of ``keys``
    (the last may be short), compaction RocksDB's own; ``throttle`` is the writer's waits."""

    db: object
    keys: np.ndarray
    values: np.ndarray
    F: int
    inserted: int = 0
    throttle: float = 0.0

    def can_step(self) -> bool:
        return self.inserted < self.keys.size

    def step(self) -> tuple[int, int]:
        chunk = self.keys[self.inserted : self.inserted + self.F]
        self.throttle += _put(self.db, chunk, self.values)
        self.inserted += chunk.size
        return chunk.size, 0  # RocksDB's merge schedule is hidden: a fixed window

    def level_L(self) -> tuple[int, bool, float]:
        raise NotImplementedError("a stock window is fixed: no boundary of Level L")

    def cycle_hint(self) -> float:
        return self.F

    def counters(self) -> dict:
        return self.db.tickers()

    def idle(self) -> None:
        self.db.flush()
        self.throttle += self.db.wait_for_background_work(COMPACTION_TIMEOUT_S)


@dataclass
class DrivenSession(ReplaySession):
    """The Wacky compaction driver as a session: each step writes a buffer of ``stream`` and
    carries out the flush and merges the policy plans (synchronous: nothing runs between)."""

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

    def counters(self) -> tuple[dict, DriverCounts]:
        return self.driver.db.tickers(), replace(self.driver.counts)


@dataclass(frozen=True)
class StockWindow:
    """What a stock run measured over its window."""

    write_amp: float  # entries written per entry inserted (RocksDB's bytes / disk_bytes_per_entry)
    write_amp_bytes: float  # RocksDB's statistics: (flush + compaction bytes) / user bytes
    bytes_per_entry: float
    levels: tuple[LevelShape, ...]
    present: np.ndarray
    reads: dict[str, tuple[float, int]]  # kind -> (I/O per read, wrong answers)
    memory_bits_per_entry: float
    throttle: float


def _run(db, keys: np.ndarray, window_keys: np.ndarray, absent: np.ndarray, value_bytes: int,
         F: int, n_reads: int, range_entries: int, rng: np.random.Generator,
         report) -> StockWindow:
    """Load, then a fixed window of ``window_keys`` with ``n_reads`` reads of each kind spread
    over it (a batch after a buffer, once compaction has caught up), on an open database."""
    report(0.0, "loading")
    values = np.zeros((F, value_bytes), dtype=np.uint8)
    throttle = sum(_put(db, keys[i : i + F], values) for i in range(0, keys.size, F))
    throttle += db.wait_for_background_work(COMPACTION_TIMEOUT_S)
    report(LOAD_SHARE, "steady-state window")
    session = StockSession(db, window_keys, values, F)
    reads = RocksReads(_ReadMeter(db, absent, keys, max(1, range_entries), rng), n_reads, F,
                       lambda: np.concatenate([keys, window_keys[: session.inserted]]))
    # Reads count data-block misses only, so RocksDB's own tickers for writes are unaffected.
    run = window.measure(session, window.fixed(window_keys.size, settle_reads=False), reads)
    delta = {k: run.end[k] - run.begin[k] for k in run.end}
    per_entry = disk_bytes_per_entry(db)
    written = delta["rocksdb.flush.write.bytes"] + delta["rocksdb.compact.write.bytes"]
    present = np.concatenate([keys, window_keys])
    return StockWindow(
        write_amp=written / per_entry / max(1, window_keys.size),
        write_amp_bytes=_window_write_amp(run.begin, run.end), bytes_per_entry=per_entry,
        levels=_levels(db), present=present, reads=reads.meter.result(),
        memory_bits_per_entry=8.0 * db.filter_bytes() / present.size,
        throttle=throttle + session.throttle)


def _read_kinds(db, n: int, absent: np.ndarray, oldest: np.ndarray, present: np.ndarray,
                range_entries: int, rng: np.random.Generator) -> dict[str, tuple[float, int]]:
    """``n`` reads of each kind: {kind: (I/O per read, wrong answers)}. A read's I/O is its
    data-block cache misses; a wrong answer is an absent key found or a present one missed."""
    def measured(run) -> tuple[float, int]:
        misses = db.tickers()["rocksdb.block.cache.data.miss"]
        wrong = int(run())
        return (db.tickers()["rocksdb.block.cache.data.miss"] - misses) / n, wrong

    return {
        "zero": measured(lambda: db.get_many(rng.choice(absent, n)).sum()),
        "oldest": measured(lambda: (~db.get_many(rng.choice(oldest, n))).sum()),
        "uniform": measured(lambda: (~db.get_many(rng.choice(present, n))).sum()),
        "range": measured(lambda: _scan(db, rng.choice(present, n), range_entries)),
    }


def _scan(db, starts: np.ndarray, range_entries: int) -> int:
    """Range reads from ``starts``; a scan has no wrong answer to count here: 0."""
    db.scan_many(starts, max(1, range_entries))
    return 0


def _window_write_amp(before: dict, after: dict) -> float:
    """RocksDB's write amplification between two ticker snapshots: (flush + compaction bytes
    written) / user bytes written."""
    delta = {k: after[k] - before[k] for k in after}
    return ((delta["rocksdb.flush.write.bytes"] + delta["rocksdb.compact.write.bytes"])
            / max(1, delta["rocksdb.bytes.written"]))


@dataclass(frozen=True)
class DrivenWindow:
    """The whole-level window of a driven run (:mod:`validation.window`)."""

    write_amp: float  # RocksDB's statistics: (flush + compaction bytes) / user bytes
    tree_write_amp: float  # entries the design's policy wrote per insert (driver counts)
    writes: int
    major_compactions: int
    full_merges_skipped: int
    level_L_runs_at_start: int
    complete: bool
    levels: tuple[LevelShape, ...]
    present: np.ndarray
    reads: dict[str, tuple[float, int]]  # kind -> (I/O per read, wrong answers)


@dataclass
class _ReadMeter:
    """Reads of each kind: counts, data-block misses, and the wrong answers (an existing key
    not found, an absent one found)."""

    db: object
    absent: np.ndarray
    level_L_keys: np.ndarray
    range_entries: int
    rng: np.random.Generator
    totals: dict[str, list[int]] = field(default_factory=dict)

    def reset(self) -> None:
        self.totals = {kind: [0, 0, 0] for kind in ("zero", "oldest", "uniform", "range")}

    def batch(self, k: int, present: np.ndarray) -> None:
        for kind, (io, wrong) in _read_kinds(self.db, k, self.absent, self.level_L_keys,
                                             present, self.range_entries, self.rng).items():
            acc = self.totals[kind]
            acc[0] += k
            acc[1] += io * k
            acc[2] += wrong

    def result(self) -> dict[str, tuple[float, int]]:
        return {kind: (t[1] / max(1, t[0]), int(t[2])) for kind, t in self.totals.items()}


@dataclass
class RocksReads(NoReads):
    """The meter's reads paced over a window (:class:`validation.window.ReadPacing`):
    ``n_reads`` of each kind over about one cycle, of the keys ``present()`` holds."""

    meter: _ReadMeter
    n_reads: int
    F: int
    present: Callable[[], np.ndarray]
    pacing: ReadPacing = field(default_factory=ReadPacing)

    def start(self, cycle: float) -> None:
        self.pacing.restart()
        self.pacing.per_step = self.n_reads * self.F / max(cycle, self.F)
        self.meter.reset()

    def after(self, ending: bool) -> None:
        due = self.pacing.due(ending)
        if due:
            self.meter.batch(due, self.present())


def _run_driven(driver: WackyDriver, keys: np.ndarray, fresh: np.ndarray, absent: np.ndarray,
                value_bytes: int, n_reads: int, range_entries: int, rng: np.random.Generator,
                report) -> DrivenWindow:
    """Preload, then the whole-level window (:func:`validation.window.whole_levels`, which
    ``engine_simulator.steady_window`` replays) with reads spread over it."""
    db, F, n = driver.db, driver.buffer_entries, int(keys.size)
    session = DrivenSession(driver.replay, lambda: session.buffer(), driver=driver,
                            stream=np.concatenate([keys, fresh]),
                            values=np.zeros((F, value_bytes), dtype=np.uint8))
    preload = (n - 1) // F  # the preload's last buffer flushes in the warm-up
    for i in range(preload):
        session.buffer()
        report(LOAD_SHARE * (i + 1) / max(1, preload), "loading")
    meter = _ReadMeter(db, absent, keys[: int(sum(driver.replay.levels[-1].runs))],
                       max(1, range_entries), rng)
    report(LOAD_SHARE, "steady-state window")
    reads = RocksReads(meter, n_reads, F, lambda: session.stream[: session.pos])
    run = window.measure(session, window.whole_levels(n, F), reads)
    (before, counted), (after, counts) = run.begin, run.end
    driver.check()
    levels = tuple(
        LevelShape(level=i + 1, runs=len(level.runs), entries=float(sum(level.runs)),
                   max_runs=int(level.max_runs))
        for i, level in enumerate(driver.replay.levels))
    tree = DriverCounts(*(getattr(counts, f) - getattr(counted, f)
                          for f in ("inserted", "flushed", "merged", "kept_flushes",
                                    "major_merges")))
    return DrivenWindow(
        write_amp=_window_write_amp(before, after), tree_write_amp=tree.tree_write_amp,
        writes=run.writes, major_compactions=run.major_compactions,
        full_merges_skipped=run.full_merges_skipped,
        level_L_runs_at_start=run.level_L_runs_at_start, complete=run.complete, levels=levels,
        present=session.stream[: session.pos], reads=meter.result())


def _check_driveable(design: Design, system: System) -> None:
    """The driver keeps every run open as a level-0 file: refuse trees with too many runs, at
    the largest size a window reaches (three times the preload)."""
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


def _validate_driven(design: Design, system: System, scale: Scale, workload: Workload | None,
                     range_entries: int, native, report, workdir) -> dict:
    _check_driveable(design, system)
    B = system.entries_per_block
    load = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes, seed=scale.seed)
    keys = load.keys
    F = system.buffer_entries
    cap = window.whole_levels(scale.entries, F).cap
    rng = np.random.default_rng([scale.seed, 0x44524956])  # stream tag: "DRIV"
    fresh = generators.fresh_keys(rng, 2 * cap + 2 * F + scale.reads, np.sort(keys))
    absent, fresh = fresh[: scale.reads], fresh[scale.reads :]
    exported = driver_export(design, system)
    with tempfile.TemporaryDirectory(prefix="wacky-rocksdb-", dir=workdir) as tmp:
        options = Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        db = native.Database(str(Path(tmp) / "db"), str(options), BLOCK_CACHE_BYTES,
                             driven=True)
        try:
            driver = WackyDriver(db, design, system)
            run = _run_driven(driver, keys, fresh, absent, scale.entry_bytes - KEY_BYTES,
                                 scale.reads, range_entries, rng, report)
            memory = 8.0 * db.filter_bytes() / run.present.size
        finally:
            del db
    reads = run.reads
    measured = with_theta(Costs(
        write_amp=run.write_amp,
        zero_result_read=reads["zero"][0],
        point_read=reads["oldest"][0],
        point_read_uniform=reads["uniform"][0],
        range_runs=float(sum(row.runs for row in run.levels)),
        range_io=reads["range"][0],
        memory_bits_per_entry=memory,
        levels=run.levels,
    ), workload, B)
    # The simulator flushes a buffer once one more entry arrives; the driver flushed every
    # buffer it wrote, as the simulator does with one entry more.
    simulated, conditioned = steady_references(
        design, system, workload, range_entries, int(run.present.size) + 1,
        run.levels[-1].max_runs, run.level_L_runs_at_start)
    return dict(
        design=design, measured=measured, simulated=simulated, conditioned=conditioned,
        predicted=predict_finite(design, system, workload, range_entries, steady_window=True),
        paper=predict_paper(design, system, workload), reads=reads, grade=exported.grade,
        window_writes=run.writes, major_compactions=run.major_compactions,
        window_complete=run.complete, full_merges_skipped=run.full_merges_skipped,
        level_L_runs_at_start=run.level_L_runs_at_start, throttle=0.0,
        tree_write_amp=run.tree_write_amp)


def predict_stock(exported, workload: Workload | None, preload: int, window: int,
                  range_entries: int) -> Costs | None:
    """The model of RocksDB's own compaction for the exported options
    (:mod:`wacky_model.rocksdb_model`): partial merges for leveled compaction with one
    multiplier, the universal rules for universal compaction; None otherwise."""
    try:
        m = (universal_costs_of if exported.style == "universal" else leveled_costs)(
            exported, preload, window)
    except ValueError:
        return None
    return leveled_to_costs(m, workload, range_entries, exported.system.entries_per_block)


def run_stock(exported, scale: Scale, range_entries: int, native, report,
              workdir) -> StockWindow:
    """The stock protocol on a fresh database with ``exported``'s options: the preload's N keys
    (the native engine's), then a window of N fresh keys with the reads spread over it."""
    load = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes, seed=scale.seed)
    keys = load.keys
    rng = np.random.default_rng([scale.seed, 0x524F434B])  # stream tag: "ROCK"
    fresh = generators.fresh_keys(rng, scale.entries + scale.reads, np.sort(keys))
    window_keys, absent = fresh[: scale.entries], fresh[scale.entries :]
    with tempfile.TemporaryDirectory(prefix="wacky-rocksdb-", dir=workdir) as tmp:
        options = Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        db = native.Database(str(Path(tmp) / "db"), str(options), BLOCK_CACHE_BYTES)
        try:
            return _run(db, keys, window_keys, absent, scale.entry_bytes - KEY_BYTES,
                        exported.system.buffer_entries, scale.reads, range_entries, rng,
                        report)
        finally:
            del db  # closes the database before its directory goes


def stock_costs(run: StockWindow, workload: Workload | None, entries_per_block: int) -> Costs:
    """What a stock run measured, as :class:`Costs` (Θ for ``workload`` when given)."""
    reads = run.reads
    return with_theta(Costs(
        write_amp=run.write_amp,
        zero_result_read=reads["zero"][0],
        point_read=reads["oldest"][0],
        point_read_uniform=reads["uniform"][0],
        range_runs=float(sum(row.runs for row in run.levels)),
        range_io=reads["range"][0],
        memory_bits_per_entry=run.memory_bits_per_entry,
        levels=run.levels,
    ), workload, entries_per_block)


def _validate_stock(design: Design, system: System, scale: Scale, workload: Workload | None,
                    range_entries: int, native, report, workdir, level0_trigger: int,
                    file_bytes: int | None, file_pick: str) -> dict:
    B = system.entries_per_block
    exported = rocksdb_export(design, system, level0_trigger, file_bytes, file_pick)
    if exported.grade == "needs-driver":
        knobs = "; ".join(f"{g.knob}: {g.note}" for g in exported.grades
                          if g.grade == "needs-driver")
        raise ValueError(f"stock RocksDB cannot express this design ({knobs}): validate it "
                         "with the compaction driver (leave out --stock)")
    # Stock RocksDB gives every level the same bits per key (the export's filter_policy), so
    # the models price the design RocksDB runs: uniform filters.
    ran = replace(design, filters="uniform")
    run = run_stock(exported, scale, range_entries, native, report, workdir)
    reads = run.reads
    measured = stock_costs(run, workload, B)
    final = replace(system, entries=float(run.present.size))
    finite = predict_finite(ran, system, workload, range_entries)
    partial = predict_stock(exported, workload, scale.entries, scale.entries, range_entries)
    return dict(
        design=ran, measured=measured, conditioned=None,
        simulated=predict_simulated(ran, final, workload, range_entries),
        predicted=partial if partial is not None else finite,
        paper=predict_paper(ran, system, workload), reads=reads, grade=exported.grade,
        window_writes=scale.entries, major_compactions=None, window_complete=None,
        full_merges_skipped=None, level_L_runs_at_start=None, throttle=run.throttle,
        tree_write_amp=None, write_amp_bytes=run.write_amp_bytes,
        bytes_per_entry=run.bytes_per_entry,
        model=("finite" if partial is None else
               "universal" if exported.style == "universal" else "partial"))


def validate_rocksdb(
    design: Design,
    *,
    workload: Workload | None = None,
    scale: Scale | None = None,
    bits_per_entry: float | None = None,
    sum_fpr: float | None = None,
    stock: bool = True,
    progress: Progress | None = None,
    workdir: str | Path | None = None,
    level0_trigger: int = 1,
    file_bytes: int | None = None,
    file_pick: str = "least_overlap",
) -> ValidationResult:
    """Predict, run on RocksDB, measure and compare ``design`` at ``scale``: with ``stock``,
    the exported options under RocksDB's own compaction; without, the Wacky compaction driver
    (:mod:`validation.rocksdb_driver`) and the native engine's steady window. ``level0_trigger``
    and ``file_bytes`` (stock, leveled designs): flushes level 0 gathers before merging into
    Level 1, and RocksDB's target file size (``rocksdb_export``)."""
    native = rocksdb_bridge.load()
    scale = scale or Scale()
    if bits_per_entry is None and sum_fpr is None:
        bits_per_entry = 5.0
    system = scale.system(bits_per_entry, sum_fpr)
    if scale.entry_bytes <= KEY_BYTES:
        raise ValueError(f"scale entry_bytes must exceed the {KEY_BYTES}-byte key on RocksDB")
    report = progress or (lambda fraction, message: None)
    start = time.perf_counter()
    range_entries = range_entries_for(scale, workload, system.entries_per_block)
    if stock:
        run = _validate_stock(design, system, scale, workload, range_entries, native, report,
                              workdir, level0_trigger, file_bytes, file_pick)
    else:
        if level0_trigger != 1 or file_bytes is not None or file_pick != "least_overlap":
            raise ValueError("level0_trigger, file_bytes and file_pick apply to stock RocksDB "
                             "(--stock) only")
        run = _validate_driven(design, system, scale, workload, range_entries, native, report,
                               workdir)
    reads = run["reads"]
    report(1.0, "done")
    return ValidationResult(
        design=run["design"],
        scale=scale,
        budget=dict(system.budget),
        workload=workload,
        predicted=run["predicted"],
        paper=run["paper"],
        simulated=run["simulated"],
        measured=run["measured"],
        checks=Checks(get_misses=reads["oldest"][1] + reads["uniform"][1],
                      zero_hits=reads["zero"][1], wrong_values=0),
        seconds=time.perf_counter() - start,
        wal=False,
        phase="steady",
        window_writes=run["window_writes"],
        major_compactions=run["major_compactions"],
        window_complete=run["window_complete"],
        full_merges_skipped=run["full_merges_skipped"],
        level_L_runs_at_start=run["level_L_runs_at_start"],
        conditioned=run["conditioned"],
        engine="rocksdb",
        engine_version=native.version(),
        throttle_seconds=run["throttle"],
        rocksdb_grade=run["grade"],
        stock=stock,
        tree_write_amp=run["tree_write_amp"],
        level0_trigger=level0_trigger if stock else None,
        write_amp_bytes=run.get("write_amp_bytes"),
        bytes_per_entry=run.get("bytes_per_entry"),
        model=run.get("model", "finite"),
    )
