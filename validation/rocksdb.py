"""RocksDB as an engine of :func:`validation.runner.validate` (``--engine rocksdb``).

**Stock** (``stock=True``): the design runs as the options of ``wacky export --rocksdb`` under
RocksDB's own compaction, one bits-per-key for every level, so the models price it with uniform
filters. The preload's N keys (the native engine's), then a fixed window of N fresh keys
(``validation.window.fixed``): RocksDB hides its merge schedule, so the window is not aligned
with Level L's merges and the prediction is the model's amortized cost (partial merges or the
universal rules, :func:`validation.predict.predict_stock`). Compaction keeps up with the
writer: after each buffer the writer waits while RocksDB flushes or compacts
(``throttle_seconds``). Write amplification is RocksDB's (flush + compaction bytes) over the
window, in entries through the files' on-disk bytes per entry.

**Driven** (``stock=False``): the Wacky compaction driver (:mod:`validation.rocksdb_driver`) runs
the design, Monkey filters included, over the native engine's whole-level window. Flushes and
merges are synchronous (``throttle_seconds`` is 0). ``tree_write_amp`` is the entries the policy
wrote per insert, which leaves out the level-0 file of each flush the driver merges at once.

Either way reads of each kind are spread over the window (zero-result, the preload's Level L
keys, keys uniform over all present, ranges), run only once compaction has caught up. A read's
I/O is its data-block cache misses: the block cache is small and reads do not fill it, and
index and filter blocks stay in memory (``cache_index_and_filter_blocks=false``), as the model
assumes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import rocksdb_bridge
from cost_models.limits import runs_limit
from cost_models.structure import structure
from validation import generators, window
from validation.engine_simulator import ReplaySession
from validation.predict import predict_finite, predict_simulated, predict_stock, steady_references
from validation.results import Checks, Costs, EngineRun, LevelShape, window_detail, with_theta
from validation.rocksdb_driver import DriverCounts, WackyDriver
from validation.scale import Scale
from validation.window import PacedReads
from wacky_model.rocksdb_options import driver_export, rocksdb_export
from wacky_model.types import Compaction, Design, System, Workload

BLOCK_CACHE_BYTES = 1 << 20  # small: reads do not fill it, so each data block read is a miss
KEY_BYTES = 8
COMPACTION_TIMEOUT_S = 600.0
# Runs the driver keeps as level-0 files, all open at once (file descriptors).
DRIVER_MAX_RUNS = 900
LOAD_SHARE = 0.45  # of the progress bar, for the load (the window takes as much)
READ_KINDS = ("zero", "oldest", "uniform", "range")


def _quiet(fraction: float, message: str) -> None: ...


def _put(db: Any, keys: np.ndarray, values: np.ndarray) -> float:
    """Insert one buffer, then wait while RocksDB flushes or compacts (so reads never overlap a
    compaction and the writer never outruns it); returns the seconds waited."""
    db.put_many(keys, values[: keys.size])
    return db.wait_for_background_work(COMPACTION_TIMEOUT_S) if db.busy() else 0.0


def _levels(db: Any) -> tuple[LevelShape, ...]:
    """Sorted runs by level: each level-0 file is a run; every other non-empty level is one."""
    rows = [lv for lv in db.levels() if lv["files"]]
    return tuple(LevelShape(level=i + 1, runs=lv["files"] if lv["level"] == 0 else 1,
                            entries=int(lv["entries"])) for i, lv in enumerate(rows))


def disk_bytes_per_entry(db: Any) -> float:
    """On-disk bytes per entry of the live files (RocksDB's format: internal keys, block
    trailers, index and filter): it turns RocksDB's byte counts into entries."""
    levels = db.levels()
    entries = sum(int(level["entries"]) for level in levels)
    return sum(int(level["bytes"]) for level in levels) / max(1, entries)


def _bytes_write_amp(before: dict, after: dict) -> float:
    """RocksDB's write amplification between two ticker snapshots: (flush + compaction bytes
    written) / user bytes written."""
    delta = {k: after[k] - before[k] for k in after}
    return ((delta["rocksdb.flush.write.bytes"] + delta["rocksdb.compact.write.bytes"])
            / max(1, delta["rocksdb.bytes.written"]))


@dataclass
class StockSession:
    """Stock RocksDB as a :class:`validation.window.Session`: a step is a buffer of ``keys``
    (the last may be short), compaction RocksDB's own; ``throttle`` is the writer's waits."""

    db: Any
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


def _scan(db: Any, starts: np.ndarray, range_entries: int) -> int:
    """Range reads from ``starts``; a scan has no wrong answer to count here: 0."""
    db.scan_many(starts, range_entries)
    return 0


@dataclass
class ReadMeter:
    """Reads of each kind: counts, data-block misses and wrong answers (an existing key not
    found, an absent one found). ``present()``: the keys the database holds now."""

    db: Any
    absent: np.ndarray
    level_L_keys: np.ndarray
    range_entries: int
    rng: np.random.Generator
    present: Callable[[], np.ndarray]
    totals: dict[str, list[float]] = field(default_factory=dict)

    def reset(self) -> None:
        self.totals = {kind: [0, 0, 0] for kind in READ_KINDS}

    def batch(self, k: int) -> None:
        db, rng, present = self.db, self.rng, self.present()
        runs = {
            "zero": lambda: db.get_many(rng.choice(self.absent, k)).sum(),
            "oldest": lambda: (~db.get_many(rng.choice(self.level_L_keys, k))).sum(),
            "uniform": lambda: (~db.get_many(rng.choice(present, k))).sum(),
            "range": lambda: _scan(db, rng.choice(present, k), self.range_entries),
        }
        for kind, run in runs.items():
            misses = db.tickers()["rocksdb.block.cache.data.miss"]
            wrong = int(run())
            io = (db.tickers()["rocksdb.block.cache.data.miss"] - misses) / k
            acc = self.totals[kind]
            acc[0] += k
            acc[1] += io * k
            acc[2] += wrong

    def per_read(self, kind: str) -> float:
        count, io, _ = self.totals[kind]
        return io / max(1, count)

    def costs(self, write_amp: float, levels: tuple[LevelShape, ...], memory: float) -> Costs:
        return Costs(write_amp=write_amp, zero_result_read=self.per_read("zero"),
                     point_read=self.per_read("oldest"),
                     point_read_uniform=self.per_read("uniform"),
                     range_runs=float(sum(row.runs for row in levels)),
                     range_io=self.per_read("range"), memory_bits_per_entry=memory,
                     levels=levels)

    def checks(self) -> Checks:
        wrong = {kind: int(t[2]) for kind, t in self.totals.items()}
        return Checks(get_misses=wrong["oldest"] + wrong["uniform"], zero_hits=wrong["zero"])


@contextmanager
def _database(exported: Any, workdir: str | Path | None, **how: Any) -> Iterator[Any]:
    """A fresh database with ``exported``'s options in a temporary directory."""
    native = rocksdb_bridge.load()
    with tempfile.TemporaryDirectory(prefix="wacky-rocksdb-", dir=workdir) as tmp:
        options = Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        yield native.Database(str(Path(tmp) / "db"), str(options), BLOCK_CACHE_BYTES, **how)


@dataclass(frozen=True)
class StockRun:
    """What a stock run measured over its window (no Θ)."""

    costs: Costs
    checks: Checks
    present: int  # keys in the database at the end
    detail: dict[str, Any]  # throttle_seconds, write_amp_bytes, bytes_per_entry


def run_stock(exported: Any, scale: Scale, range_entries: int, *,
              workdir: str | Path | None = None, report: Callable = _quiet) -> StockRun:
    """The stock protocol on a fresh database with ``exported``'s options: the preload's N keys
    (the native engine's), then a window of N fresh keys with the reads spread over it."""
    keys = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes,
                                 seed=scale.seed).keys
    rng = np.random.default_rng([scale.seed, 0x524F434B])  # stream tag: "ROCK"
    fresh = generators.fresh_keys(rng, scale.entries + scale.reads, np.sort(keys))
    window_keys, absent = fresh[: scale.entries], fresh[scale.entries :]
    with _database(exported, workdir) as db:
        out = _stock_window(db, keys, window_keys, absent, exported.system.buffer_entries,
                            scale, range_entries, rng, report)
        del db  # closes the database before its directory goes
    return out


def _stock_window(db: Any, keys: np.ndarray, window_keys: np.ndarray, absent: np.ndarray,
                  F: int, scale: Scale, range_entries: int, rng: np.random.Generator,
                  report: Callable) -> StockRun:
    values = np.zeros((F, scale.entry_bytes - KEY_BYTES), dtype=np.uint8)
    report(0.0, "loading")
    throttle = sum(_put(db, keys[i : i + F], values) for i in range(0, keys.size, F))
    throttle += db.wait_for_background_work(COMPACTION_TIMEOUT_S)
    report(LOAD_SHARE, "steady-state window")
    session = StockSession(db, window_keys, values, F)
    meter = ReadMeter(db, absent, keys, max(1, range_entries), rng,
                      lambda: np.concatenate([keys, window_keys[: session.inserted]]))
    # Reads count data-block misses only, so RocksDB's own tickers for writes are unaffected.
    run = window.measure(session, window.fixed(window_keys.size, settle_reads=False),
                         PacedReads(meter.batch, meter.reset, scale.reads, F))
    delta = {k: run.end[k] - run.begin[k] for k in run.end}
    per_entry = disk_bytes_per_entry(db)
    written = delta["rocksdb.flush.write.bytes"] + delta["rocksdb.compact.write.bytes"]
    present = keys.size + window_keys.size
    return StockRun(
        meter.costs(written / per_entry / max(1, window_keys.size), _levels(db),
                    8.0 * db.filter_bytes() / present),
        meter.checks(), present,
        dict(throttle_seconds=throttle + session.throttle,
             write_amp_bytes=_bytes_write_amp(run.begin, run.end), bytes_per_entry=per_entry))


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


def _driven(design: Design, system: System, scale: Scale, workload: Workload | None,
            range_entries: int, report: Callable, workdir: str | Path | None) -> EngineRun:
    """Preload, then the whole-level window (:func:`validation.window.whole_levels`, which
    ``engine_simulator.steady_window`` replays) with reads spread over it."""
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
        measured, checks, run, tree_write_amp, present = _driven_window(
            db, design, system, scale, rule, keys, fresh, absent, range_entries, rng, report)
        del db  # closes the database before its directory goes
    # The simulator flushes a buffer once one more entry arrives; the driver flushed every
    # buffer it wrote, as the simulator does with one entry more.
    simulated, conditioned = steady_references(
        design, system, workload, range_entries, present + 1, measured.levels[-1].max_runs,
        run.level_L_runs_at_start)
    return EngineRun(
        measured=with_theta(measured, workload, system.entries_per_block), checks=checks,
        predicted=predict_finite(design, system, workload, range_entries, steady_window=True),
        simulated=simulated, conditioned=conditioned, window_writes=run.writes,
        detail=dict(window_detail(run), stock=False, throttle_seconds=0.0,
                    rocksdb_grade=exported.grade, tree_write_amp=tree_write_amp))


def _driven_window(db: Any, design: Design, system: System, scale: Scale,
                   rule: window.WindowRule, keys: np.ndarray, fresh: np.ndarray,
                   absent: np.ndarray, range_entries: int, rng: np.random.Generator,
                   report: Callable) -> tuple[Costs, Checks, window.WindowRun, float, int]:
    F, n = system.buffer_entries, scale.entries
    driver = WackyDriver(db, design, system)
    session = DrivenSession(driver.replay, lambda: session.buffer(), driver=driver,
                            stream=np.concatenate([keys, fresh]),
                            values=np.zeros((F, scale.entry_bytes - KEY_BYTES), np.uint8))
    preload = (n - 1) // F  # the preload's last buffer flushes in the warm-up
    for i in range(preload):
        session.buffer()
        report(LOAD_SHARE * (i + 1) / max(1, preload), "loading")
    meter = ReadMeter(db, absent, keys[: int(sum(driver.replay.levels[-1].runs))],
                      max(1, range_entries), rng, lambda: session.stream[: session.pos])
    report(LOAD_SHARE, "steady-state window")
    run = window.measure(session, rule, PacedReads(meter.batch, meter.reset, scale.reads, F))
    (before, counted), (after, counts) = run.begin, run.end
    driver.check()
    levels = tuple(LevelShape(level=i + 1, runs=len(level.runs), entries=float(sum(level.runs)),
                              max_runs=int(level.max_runs))
                   for i, level in enumerate(driver.replay.levels))
    tree = DriverCounts(*(getattr(counts, f) - getattr(counted, f)
                          for f in ("inserted", "flushed", "merged", "kept_flushes",
                                    "major_merges")))
    measured = meter.costs(_bytes_write_amp(before, after), levels,
                           8.0 * db.filter_bytes() / session.pos)
    return measured, meter.checks(), run, tree.tree_write_amp, session.pos


def _stock(design: Design, system: System, scale: Scale, workload: Workload | None,
           range_entries: int, compaction: Compaction, report: Callable,
           workdir: str | Path | None) -> EngineRun:
    exported = rocksdb_export(design, system, compaction.level1_runs, compaction.file_bytes,
                              compaction.file_pick)
    if exported.grade == "needs-driver":
        knobs = "; ".join(f"{g.knob}: {g.note}" for g in exported.grades
                          if g.grade == "needs-driver")
        raise ValueError(f"stock RocksDB cannot express this design ({knobs}): validate it "
                         "with the compaction driver (leave out --stock)")
    # Stock RocksDB gives every level the same bits per key (the export's filter_policy), so
    # the models price the design RocksDB runs: uniform filters.
    ran = replace(design, filters="uniform")
    run = run_stock(exported, scale, range_entries, workdir=workdir, report=report)
    partial = predict_stock(exported, workload, scale.entries, scale.entries, range_entries)
    return EngineRun(
        measured=with_theta(run.costs, workload, system.entries_per_block), checks=run.checks,
        predicted=(partial if partial is not None
                   else predict_finite(ran, system, workload, range_entries)),
        simulated=predict_simulated(ran, replace(system, entries=float(run.present)), workload,
                                    range_entries),
        model=("finite" if partial is None else
               "universal" if exported.style == "universal" else "partial"),
        window_writes=scale.entries, design=ran,
        detail=dict(window_detail(None), stock=True, rocksdb_grade=exported.grade,
                    level0_trigger=compaction.level1_runs, **run.detail))


def run_rocksdb(design: Design, system: System, scale: Scale, workload: Workload | None,
                range_entries: int, *, stock: bool, compaction: Compaction, report: Callable,
                workdir: str | Path | None) -> EngineRun:
    """One validation run on RocksDB, stock or driven."""
    if scale.entry_bytes <= KEY_BYTES:
        raise ValueError(f"scale entry_bytes must exceed the {KEY_BYTES}-byte key on RocksDB")
    version = rocksdb_bridge.load().version()  # says how to install it before anything runs
    if stock:
        run = _stock(design, system, scale, workload, range_entries, compaction, report, workdir)
    elif not compaction.is_default:
        raise ValueError("level0_trigger, file_bytes and file_pick apply to stock RocksDB "
                         "(--stock) only")
    else:
        run = _driven(design, system, scale, workload, range_entries, report, workdir)
    return replace(run, detail={"rocksdb_version": version, **run.detail})
