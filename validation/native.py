"""The native engine for :func:`validation.runner.validate` (:func:`run_native`): the load, then
the window with reads paced over it, or (``phase="load"``) the load and a read phase. Uniform keys:
fresh inserts a buffer at a time, replayed as traces (a validation can save them). Skewed keys and
a cache: writes in chunks of an eighth of a buffer with existing-key reads from the workload's
distribution; no worst-case read (updates move keys out of Level L; ``point_read`` None).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import wacky_traces as tr
from cost_models.skew import SkewedCosts, SkewedWorkload
from native_engine import Engine
from validation import generators, predict, window
from validation.replay import replay
from validation.results import (
    Checks,
    Costs,
    EngineRun,
    measured_levels,
    peak_space_detail,
    window_detail,
    with_theta,
)
from validation.scale import ENGINE_WAL, Scale
from validation.window import TOLERANCE, Counters, PacedReads, ReadPacing
from wacky_model.files import native_file_costs
from wacky_model.skew import file_skew_costs, needs_skew_model, skew_costs, skewed_workload
from wacky_model.types import Compaction, Design, System, Workload

Progress = Callable[[float, str], None]

READ_KINDS = ("zero", "level_L_reads", "uniform_reads", "range")
Part = tuple[str, np.ndarray, np.ndarray, np.ndarray]
LOAD_SHARE = 0.75  # of the progress bar: the load dominates the run time
# Skewed whole levels: half a load of warm-up, then at least half a load and 1.2 predicted cycles
# of Level L (at most 8 loads), each phase stopping after CAP_FACTOR windows without a full merge.
WARMUP_LOADS, WINDOW_LOADS, WINDOW_CYCLES, WINDOW_MAX_LOADS, CAP_FACTOR = 0.5, 0.5, 1.2, 8.0, 3


def _ops(kind: tr.OpKind, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.full(keys.size, int(kind), np.uint8), keys, np.zeros(keys.size, np.uint64)


class _EngineSteps:
    """The native sessions' Level L and counters; nothing to wait for (flushes and merges run
    inside the put that triggers them)."""

    engine: Any
    timed: list[float]  # wall and CPU seconds inside the engine's puts so far

    def engine_seconds(self) -> tuple[float, float]:
        """The window's clock (validation.window.measure): the engine's own time in its puts,
        with the flushes and merges they run, not the harness's drawing and checking of keys
        and values (about 4% of a whole-level step's CPU in one window of Tiering T=4: 1,439
        ns per insert around the step, 1,384 inside the engine's puts)."""
        return self.timed[0], self.timed[1]

    def level_L(self) -> tuple[int, bool, float]:
        """Level L's non-empty runs, whether its active run is full (the engine's rule,
        ``Level::ActiveFull``), and a_L."""
        level = self.engine.levels()[-1]
        runs = [r["entries"] for r in level["runs"] if r["entries"] > 0]
        threshold = level["capacity"] / level["max_runs"] * (1.0 - TOLERANCE)
        return len(runs), not runs or runs[-1] >= threshold, float(level["max_runs"])

    def counters(self) -> Counters:
        stats = self.engine.stats()
        return Counters("blocks", int(stats["total"]["blocks_written"]),
                        int(stats["flush"]["blocks_written"]),
                        tuple(int(m["blocks_written"]) for m in stats["merge"]),
                        major_merges=int(stats["major_compactions"]),
                        cache_hits=tuple(map(int, stats["cache_hits_per_level"])),
                        cache_misses=tuple(map(int, stats["cache_misses_per_level"])),
                        cache_invalidated=int(stats["cache_invalidated_blocks"]),
                        merges=int(stats["merges"]),
                        merges_per_level=tuple(map(int, stats["merges_per_level"][1:])),
                        disk_bytes=int(stats["run_file_bytes"]),
                        peak_disk_bytes=int(stats["peak_run_file_bytes"]),
                        device_written=tuple(int(d["bytes_written"]) for d in stats["devices"]),
                        device_read=tuple(int(d["bytes_read"]) for d in stats["devices"]))

    def idle(self) -> None:
        pass

    def start_window(self) -> None:
        self.engine.reset_peak_space()


@dataclass
class NativeSession(_EngineSteps):
    """A step is a buffer of ``fresh`` keys, replayed as a trace (``parts``, for a saved trace)
    with every answer checked (``checks``: misses, zero-result hits, wrong values)."""

    engine: Any
    fresh: np.ndarray
    entry_bytes: int
    used: int = 0  # fresh keys inserted so far
    tag: str = "warm"  # the steps' phase names in the trace: "warm", then "win"
    parts: list[Part] = field(default_factory=list)
    checks: list[int] = field(default_factory=lambda: [0, 0, 0])
    timed: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def __post_init__(self) -> None:
        self.F = int(self.engine.buffer_entries)
        # Fill the buffer exactly, so every later step's first put triggers a flush.
        partial = int(self.engine.stats()["buffer_size"])
        if partial:
            self.run([("fill", *_ops(tr.OpKind.PUT, self.fresh[: self.F - partial]))])
            self.used = self.F - partial

    def run(self, parts: list[Part]) -> dict:
        out = replay(self.engine, tr.build_trace(parts, entry_bytes=self.entry_bytes, meta={}))
        for i, n in enumerate((out.get_misses, out.zero_hits, out.wrong_values)):
            self.checks[i] += n
        for kinds in out.phases.values():
            if "put" in kinds:
                self.timed[0] += kinds["put"].seconds
                self.timed[1] += kinds["put"].cpu_seconds
        self.parts.extend(parts)
        return out.phases

    def can_step(self) -> bool:
        return self.used + self.F <= self.fresh.size

    def step(self) -> tuple[int, int]:
        """One buffer of fresh keys: its first put flushes and merges the previous buffer."""
        before = self.engine.stats()["major_compactions"]
        u, tag = self.used, f"{self.tag}{self.used}"
        phases = self.run([(f"{tag}-first", *_ops(tr.OpKind.PUT, self.fresh[u : u + 1])),
                           (f"{tag}-rest", *_ops(tr.OpKind.PUT, self.fresh[u + 1 : u + self.F]))])
        self.used += self.F
        if phases[f"{tag}-rest"]["put"].blocks_written:
            raise RuntimeError("a flush happened inside a buffer; the window would be misaligned")
        return self.F, self.engine.stats()["major_compactions"] - before

    def cycle_hint(self) -> float:
        levels = self.engine.levels()
        return levels[-2]["capacity"] if len(levels) > 1 else self.F


@dataclass
class UniformReads:
    """Reads of each kind (zero-result, a key of the preload's Level L, a key uniform over all
    present, a short range), ``batch`` of each at a time."""

    session: NativeSession
    loaded: np.ndarray
    level_L_keys: np.ndarray
    reads: int
    range_entries: int
    seed: int
    rng: np.random.Generator
    totals: dict[str, list[int]] = field(default_factory=dict)  # kind -> [count, read, probed]
    last_used: int = -1  # the writes at the last batch, and how many batches came at that count
    repeat: int = 0

    def __post_init__(self) -> None:
        pool = max(self.reads, 1)  # read operations drawn once and cycled through
        taken = np.concatenate([self.loaded, self.session.fresh])
        self.zero, self.range = (generators.read_ops(
            keys, n=pool, get_pool=self.loaded, fractions={kind: 1.0},
            range_entries=self.range_entries, seed=self.seed + i)
            for i, (kind, keys) in enumerate((("zero", taken), ("range", self.loaded)), 1))
        self.pool, self.at = pool, 0

    def reset(self) -> None:
        """The window (re)starts: its steps are "win" phases, its reads counted afresh."""
        self.session.tag = "win"
        self.totals = {k: [0, 0, 0] for k in READ_KINDS}

    def batch(self, k: int) -> None:
        if k <= 0:
            return
        s, n = self.session, self.loaded.size
        take = (self.at + np.arange(k)) % self.pool
        self.at += k
        # Existing keys, uniform over every entry present: the preload, then the fresh inserts.
        pick = self.rng.integers(0, n + s.used, k)
        present = np.where(pick < n, self.loaded[np.minimum(pick, n - 1)],
                           s.fresh[np.maximum(pick - n, 0)])
        (zk, zkeys, _), (rk, rkeys, rargs) = self.zero, self.range
        # Phases are named by the writes so far; a second batch between the same writes (the
        # pacing can owe more than one) gets a suffix, so the saved trace's names stay unique.
        self.repeat = self.repeat + 1 if s.used == self.last_used else 0
        self.last_used = s.used
        at = f"{s.used}" + (f".{self.repeat}" if self.repeat else "")
        parts = [(f"zero{at}", zk[take], zkeys[take], np.zeros(k, np.uint64)),
                 (f"levelL{at}", *_ops(tr.OpKind.GET, self.rng.choice(self.level_L_keys, k))),
                 (f"uniform{at}", *_ops(tr.OpKind.GET, present)),
                 (f"range{at}", rk[take], rkeys[take], rargs[take])]
        phases = s.run(parts)
        for kind, (name, *_rest) in zip(READ_KINDS, parts, strict=True):
            for t in phases[name].values():
                self.totals[kind] = [a + b for a, b in zip(
                    self.totals[kind], (t.count, t.blocks_read, t.runs_probed), strict=True)]

    def per_read(self, kind: str, what: int) -> float:
        """Blocks read (``what`` 0) or runs probed (1) per read of ``kind``."""
        count, *totals = self.totals[kind]
        if count == 0:
            raise RuntimeError(f"the window ran no {kind} operations")
        return totals[what] / count


@dataclass
class SkewSession(_EngineSteps):
    """A step is a chunk of writes (:meth:`draw`): ``update_fraction`` of them updates of a loaded
    key from the write distribution (ranks map to keys by a seeded shuffle; under ``latest`` the
    r-th most recent insert, the load's order counting), the rest fresh inserts. ``engine`` None:
    another engine (stock RocksDB, buffers of ``F`` entries) puts what :meth:`draw` gives."""

    engine: Any
    loaded: np.ndarray
    workload: SkewedWorkload
    rng: np.random.Generator
    total: int  # writes the session can make at most
    F: int = 0  # the buffer's entries (0: the engine's)
    timed: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def __post_init__(self) -> None:
        w, n = self.workload, self.loaded.size
        F = self.F = self.F or int(self.engine.buffer_entries)
        self.chunk = max(1, F // 8)
        self.vb = 0 if self.engine is None else int(self.engine.value_bytes)
        self.write_rank_keys = self.rng.permutation(self.loaded)
        if w.read_dist.clustered:
            # A hot key range (S5r): the hot ranks are consecutive loaded keys in key order,
            # whatever the writes favour (hotrange reads are uncorrelated with skewed writes).
            self.read_rank_keys = generators.hot_range_keys(
                self.loaded, w.read_dist.hot_count(n), self.rng)
        else:
            self.read_rank_keys = (self.write_rank_keys if w.correlated
                                   else self.rng.permutation(self.loaded))
        self.writes_by = generators.rank_sampler(w.write_dist, n)
        self.reads_by = generators.rank_sampler(w.read_dist, n)
        inserts = int((1.0 - w.update_fraction) * self.total * 1.1) + F
        self.fresh = generators.fresh_keys(self.rng, inserts, np.sort(self.loaded))
        self.history = np.empty(n + self.total, dtype=np.uint64)
        self.history[:n] = self.loaded
        self.written, self.used_fresh = n, 0
        self.recency = None
        if w.write_dist.kind == "latest":
            self.by_insertion = np.concatenate([self.loaded, self.fresh])
            self.recency = generators.recency_sampler(w.write_dist, self.by_insertion.size)

    def can_step(self) -> bool:
        return True  # runs out of fresh keys with an error, not a short window

    def step(self) -> tuple[int, int]:
        before = self.engine.stats()["major_compactions"]
        keys = self.draw()
        values = tr.value_for(keys, self.vb)
        start, cpu = time.perf_counter(), time.process_time()
        self.engine.put_many(keys, values)
        self.timed[0] += time.perf_counter() - start
        self.timed[1] += time.process_time() - cpu
        return keys.size, self.engine.stats()["major_compactions"] - before

    def draw(self) -> np.ndarray:
        """The next chunk's keys, in ``history``."""
        k, rng = self.chunk, self.rng
        is_update = rng.random(k) < self.workload.update_fraction
        keys = np.empty(k, dtype=np.uint64)
        nu = int(is_update.sum())
        if self.used_fresh + k - nu > self.fresh.size:
            raise RuntimeError("the window ran out of fresh keys")
        if self.recency is not None:
            # Each update is drawn over the keys inserted before it, the chunk's own included.
            keys = self.by_insertion[generators.latest_write_keys(
                rng, self.recency, is_update, self.loaded.size + self.used_fresh)]
        else:
            keys[is_update] = self.write_rank_keys[self.writes_by.draw(rng, nu)]
            keys[~is_update] = self.fresh[self.used_fresh : self.used_fresh + k - nu]
        self.used_fresh += k - nu
        self.history[self.written : self.written + k] = keys
        self.written += k
        return keys

    def read_keys(self, k: int) -> np.ndarray:
        """``k`` existing keys from the read distribution (``latest``: the r-th most recent write).
        Under ``latest`` writes, correlated reads take the r-th most recent insert (S1l)."""
        w = self.workload
        ranks = self.reads_by.draw(self.rng, k)
        if w.read_dist.kind == "latest":
            return self.history[self.written - 1 - np.minimum(ranks, self.written - 1)]
        if self.recency is not None and w.correlated and not w.read_dist.is_uniform:
            inserted = self.loaded.size + self.used_fresh
            return self.by_insertion[inserted - 1 - np.minimum(ranks, inserted - 1)]
        return self.read_rank_keys[ranks]

    def cycle_hint(self) -> float:
        return self.F


def _cache_counts(stats: dict) -> tuple[np.ndarray, np.ndarray]:
    return (np.array(stats["cache_hits_per_level"], dtype=np.int64),
            np.array(stats["cache_misses_per_level"], dtype=np.int64))


def add_counts(acc: np.ndarray, after: np.ndarray, before: np.ndarray) -> np.ndarray:
    """``acc`` + ``after`` - ``before``, per level (a level one lacks counts 0)."""
    d = after.copy()
    d[: before.size] -= before
    if acc.size < d.size:
        acc = np.concatenate([acc, np.zeros(d.size - acc.size, np.int64)])
    acc[: d.size] += d
    return acc


def hit_rates(hits: np.ndarray, misses: np.ndarray) -> tuple[float, tuple[float | None, ...]]:
    """The hit rate overall (0 without reads) and per level, level 0 first (None: no read
    reached it)."""
    n = max(hits.size, misses.size)
    h, m = np.pad(hits, (0, n - hits.size)), np.pad(misses, (0, n - misses.size))
    return (int(h.sum()) / max(1, int(h.sum() + m.sum())),
            tuple(int(a) / int(a + b) if a + b else None for a, b in zip(h, m, strict=True)))


@dataclass
class _Slices:
    """A timeline of the hit rate: one point per ``writes`` writes, appended to ``line``."""

    writes: int
    line: list[tuple[int, float]]
    start: tuple[int, int] = (0, 0)  # the cache's hits and misses when the slice began

    def close(self, at: int, chunk: int, hits: int, misses: int) -> None:
        if at % self.writes < chunk:
            dh, dm = hits - self.start[0], misses - self.start[1]
            self.line.append((at, dh / (dh + dm) if dh + dm else 0.0))
            self.start = (hits, misses)


@dataclass
class SkewReads:
    """Existing-key reads at ``reads_per_write`` through the warm-up and, measured, the window
    (blocks, cache hits and misses per level, the hit rate in ``timeline_points`` slices, and in
    ``fine_points`` slices, fine enough to show the drop a merge through hot blocks makes before
    the reads warm them again); the zero-result and range reads spread over the window and
    counted apart."""

    session: SkewSession
    window_writes: int
    zero_keys: np.ndarray
    ranges: np.ndarray
    timeline_points: int = 20
    fine_points: int = 200
    reads: int = 0
    not_found: int = 0  # existing-key reads that found nothing (must be 0)
    wrong_values: int = 0
    zero_hits: int = 0  # zero-result reads that found a value (must be 0)
    blocks: int = 0
    hits: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    misses: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    side: dict[str, list[int]] = field(default_factory=lambda: {"zero": [0, 0, 0],
                                                                 "range": [0, 0, 0]})
    timeline: list[tuple[int, float]] = field(default_factory=list)  # (writes, hit rate)
    fine_timeline: list[tuple[int, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        s = self.session
        chunk = s.chunk
        self.pacing = ReadPacing(s.workload.reads_per_write * chunk, batch=0)
        sides = min(self.zero_keys.size, len(self.ranges))
        self.side_pacing = ReadPacing(sides / max(self.window_writes, 1) * chunk, batch=0)
        self.side_at, self.writes = 0, 0
        self.slices = [_Slices(max(chunk, self.window_writes // max(1, points)), line)
                       for points, line in ((self.timeline_points, self.timeline),
                                            (self.fine_points, self.fine_timeline))]

    def start(self, cycle: float) -> None:
        self.reads = 0  # the checks (not_found, wrong_values) keep the warm-up's reads

    def warming(self) -> None:
        self.read(self.pacing.due())

    def before(self) -> None:
        due = self.pacing.due()
        self.sides(self.side_pacing.due())
        if due > 0:
            before = self.session.engine.stats()
            self.read(due)
            after = self.session.engine.stats()
            self.blocks += after["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
            (h0, m0), (h1, m1) = _cache_counts(before), _cache_counts(after)
            self.hits, self.misses = add_counts(self.hits, h1, h0), add_counts(self.misses, m1, m0)

    def after(self, ending: bool) -> None:
        self.writes += self.session.chunk
        for s in self.slices:
            s.close(self.writes, self.session.chunk, int(self.hits.sum()), int(self.misses.sum()))

    def settle(self) -> None: ...

    def read(self, k: int) -> None:
        if k <= 0:
            return
        s = self.session
        keys = s.read_keys(k)
        values, found = s.engine.get_many(keys)
        self.not_found += int((~found).sum())
        self.wrong_values += int(np.any(values[found] != tr.value_for(keys[found], s.vb), axis=1)
                                 .sum())
        self.reads += k

    def sides(self, k: int) -> None:
        engine = self.session.engine
        for _ in range(k):
            if self.side_at >= min(self.zero_keys.size, len(self.ranges)):
                return
            at = self.side_at
            before = engine.stats()
            _, found = engine.get_many(self.zero_keys[at : at + 1])
            mid = engine.stats()
            for _entry in engine.scan(int(self.ranges[at, 0]), int(self.ranges[at, 1])):
                pass
            after = engine.stats()
            self.zero_hits += int(found.sum())
            z, r = self.side["zero"], self.side["range"]
            z[0] += 1
            z[1] += mid["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
            r[0] += 1
            r[1] += after["range_read"]["blocks_read"] - mid["range_read"]["blocks_read"]
            r[2] += after["range_runs_probed"] - mid["range_runs_probed"]
            self.side_at += 1


def _per_op(totals: dict[str, Any], kind: str, attr: str) -> float:
    t = totals.get(kind)
    if t is None or t.count == 0:
        raise RuntimeError(f"the {kind} phase ran no operations")
    return getattr(t, attr) / t.count


def check_skew_workload(workload: Workload | None) -> Workload:
    if workload is None or workload.writes <= 0 or workload.point_reads <= 0:
        raise ValueError("validating skew or a cache needs a workload with writes > 0 and "
                         "point_reads > 0: the window runs writes with existing-key reads "
                         "between them")
    return workload


@contextmanager
def open_engine(design: Design, workdir: str | Path | None, **options: Any) -> Iterator[Any]:
    """A fresh native engine for ``design`` in a temporary directory, closed after use.
    ``level_devices`` (D1) become directories beside the engine's, one per device."""
    with tempfile.TemporaryDirectory(prefix="wacky-validate-", dir=workdir) as tmp:
        if devices := options.pop("level_devices", ()):
            options["level_dirs"] = [str(Path(tmp) / f"device{d}") if d else "" for d in devices]
        engine = Engine(Path(tmp) / "db", **design.knobs, filters=design.filters, wal=ENGINE_WAL,
                        **options)
        try:
            yield engine
        finally:
            engine.close()


def _engine_compaction(compaction: Compaction) -> dict[str, Any]:
    out: dict[str, Any] = dict(granularity=compaction.granularity,
                               level1_runs=compaction.level1_runs)
    # Engine refuses file_pick and file_bytes with whole-level merges (they would do nothing):
    # pass them when files are merged or when chosen, so a chosen one is refused, not ignored
    if compaction.granularity == "file" or compaction.file_pick != Compaction().file_pick:
        out["file_pick"] = compaction.file_pick
    if compaction.file_bytes is not None:
        out["file_bytes"] = compaction.file_bytes
    if compaction.l0_partitions > 1:  # OHDB
        out["l0_partitions"] = compaction.l0_partitions
    if compaction.level_devices:  # D1: open_engine makes their directories
        out["level_devices"] = compaction.level_devices
    if compaction.log is not None:  # L2SM
        log = compaction.log
        out.update(log_ratio=log.ratio, log_alpha=log.alpha, log_batch_cap=int(log.batch_cap),
                   hotness=log.hotness)
    if compaction.floating is not None:  # Tidal-tree
        f = compaction.floating
        out.update(float_gamma=f.gamma, float_alpha=f.alpha, float_probe_cost=f.probe_cost,
                   float_per_flush=int(f.per_flush), float_decay=int(f.decay))
    if compaction.buffer is not None:  # LSbM
        out.update(compaction_buffer=True, buffer_trim=compaction.buffer.trim,
                   buffer_trim_interval=compaction.buffer.interval)
    return out


def run_native(design: Design, system: System, scale: Scale, workload: Workload | None,
            range_entries: int, *, phase: str, compaction: Compaction,
            save_trace: str | Path | None, report: Progress,
            workdir: str | Path | None) -> EngineRun:
    """The native engine: the load, then the window of uniform or skewed keys."""
    if not compaction.is_default and phase != "steady":
        raise ValueError("granularity, file_bytes and level1_runs are validated in the steady "
                         "phase only")
    skew = needs_skew_model(workload, system)
    files = compaction.granularity == "file"
    if skew and ((not compaction.is_default and not files) or phase != "steady"):
        raise ValueError("skewed keys, updates and a cache are validated in the steady phase, "
                         "with whole-level merges or --granularity file (the skew model prices "
                         "a level-1 trigger with files only): leave out --phase load, or give "
                         "--level1-runs with --granularity file")
    if skew:
        check_skew_workload(workload)
        if save_trace is not None:
            raise ValueError("save_trace is not written under skewed keys or a cache yet: the "
                             "skewed window drives the engine directly")
    with open_engine(design, workdir, entry_bytes=scale.entry_bytes,
                     block_bytes=scale.block_bytes, buffer_bytes=scale.buffer_bytes,
                     cache_bytes=system.cache_bytes, **system.budget,
                     **_engine_compaction(compaction)) as engine:
        load = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes,
                                     seed=scale.seed)
        report(0.0, "loading")
        loaded = replay(engine, load, progress=lambda done, total: report(
            LOAD_SHARE * done / total, "loading"))
        report(LOAD_SHARE, "steady-state window" if phase == "steady" else "reading")
        measure = _skewed if skew else _uniform
        return measure(engine, design, system, scale, workload, range_entries, load, loaded,
                       phase=phase, compaction=compaction, save_trace=save_trace,
                       report=report)


def _uniform(engine: Any, design: Design, system: System, scale: Scale,
             workload: Workload | None, range_entries: int, load: tr.Trace, loaded: Any, *,
             phase: str, compaction: Compaction, save_trace: str | Path | None,
             report: Progress) -> dict[str, Any]:
    """Uniform keys: the whole-level window (or N inserts with ``compaction``) or the load, then
    the read phase (and the mix) replayed from one trace."""
    B = system.entries_per_block
    files = compaction.granularity == "file"
    # The partial model of the window (P1-P7), kept whole for the per-level figures below.
    partial = (native_file_costs(design, system, compaction, system.entries,
                                 float(scale.entries)) if files else None)
    predicted = (predict.leveled_to_costs(partial, workload, range_entries, B)
                 if partial is not None
                 else predict.predict_finite(design, system, workload, range_entries,
                                             steady_window=phase == "steady"))
    levels, memory = measured_levels(engine)
    keys = load.keys
    level_L_keys = keys[: int(levels[-1].entries)]  # Level L holds the oldest entries
    run = session = reads = None
    if phase == "steady":
        F = int(engine.buffer_entries)
        rule = (window.whole_levels(scale.entries, F) if compaction.is_default
                else window.fixed(max(F, -(-scale.entries // F) * F), settle_reads=True))
        seed = scale.seed * 1_000_003 + 17
        rng = np.random.default_rng([seed, 0x5354454144])  # stream tag: "STEAD"
        session = NativeSession(engine, generators.fresh_keys(rng, 2 * rule.cap + F,
                                                              np.sort(keys)), scale.entry_bytes)
        reads = UniformReads(session, keys, level_L_keys, scale.reads, range_entries, seed, rng)
        run = window.measure(session, rule,
                             PacedReads(reads.batch, reads.reset, scale.reads, session.F))
        levels, memory = measured_levels(engine)
        keys = np.concatenate([keys, session.fresh[: session.used]])
    parts = _read_parts(keys, level_L_keys, scale, workload, range_entries,
                        mix_only=phase == "steady")
    full = tr.build_trace(
        [("load", load.kinds, load.keys, load.args), *(session.parts if session else []), *parts],
        entry_bytes=scale.entry_bytes, meta={"design": design.knobs, "filters": design.filters,
                                             "scale": asdict(scale), "budget": system.budget,
                                             "phase": phase})
    read_phases = [p[0] for p in parts]
    later = replay(engine, full, phases=read_phases, progress=lambda done, total: report(
        LOAD_SHARE + (1 - LOAD_SHARE) * done / total, "reading")) if read_phases else None
    if save_trace is not None:
        tr.write_trace(save_trace, full)

    phases = {**loaded.phases, **(later.phases if later else {})}
    conditioned = None
    if run is None:  # the load, then a read phase of each kind
        def per_read(kind: str, what: int) -> float:
            op = kind if kind in ("zero", "range") else "get"
            return _per_op(phases[kind], op, ("blocks_read", "runs_probed")[what])

        write_amp = phases["load"]["put"].blocks_written * B / scale.entries
    else:
        per_read, write_amp = reads.per_read, run.delta.written * B / run.writes
    measured = Costs(write_amp=write_amp, zero_result_read=per_read("zero", 0),
                     point_read=per_read("level_L_reads", 0),
                     point_read_uniform=per_read("uniform_reads", 0),
                     range_runs=per_read("range", 1), range_io=per_read("range", 0),
                     memory_bits_per_entry=memory, levels=levels)
    if run is None:
        simulated = predict.predict_simulated(design, system, workload, range_entries)
    else:
        simulated, conditioned = predict.steady_references(
            design, system, workload, range_entries, scale.entries + session.used,
            levels[-1].max_runs, run.level_L_runs_at_start)
    counts = [a + b + c for a, b, c in zip(
        (loaded.get_misses, loaded.zero_hits, loaded.wrong_values),
        [0, 0, 0] if later is None else (later.get_misses, later.zero_hits, later.wrong_values),
        [0, 0, 0] if session is None else session.checks, strict=True)]
    detail = window_detail(run)
    if run is not None:
        detail.update(peak_space_detail(run, predict.peak_space_native(
            design, compaction, None if partial is None else partial.window,
            scale.entries + session.used, float(engine.buffer_entries))))
    if ops := sum(t.count for t in phases.get("mix", {}).values()):
        detail["mix_io_per_op"] = sum(t.blocks_read + t.blocks_written
                                      for t in phases["mix"].values()) / ops
    if not compaction.is_default:
        detail["compaction"] = asdict(compaction)
    if partial is not None and run is not None:
        detail["merges"] = run.delta.merges
        detail["per_level"] = _per_level(partial.window, system, run.delta, run.writes)
        if compaction.level_devices:
            detail["devices"] = _per_device(partial.ledger, compaction, system, run.delta,
                                            run.writes)
    if compaction.buffer is not None or compaction.log is not None:
        detail["side_runs"] = _side_runs(engine)
    return EngineRun(
        measured=with_theta(measured, workload, B), checks=Checks(*counts), predicted=predicted,
        simulated=simulated, model="partial" if files else "finite", phase=phase,
        window_writes=None if run is None else run.writes, conditioned=conditioned,
        detail=detail)


def _per_level(w: Any, system: System, delta: Counters, writes: int) -> dict[str, Any]:
    """Per level (Level 1 first, with the flushes), measured and predicted by the partial
    model's window ``w`` (P1-P7): entries written per entry inserted, and merges per flush."""
    B, F = system.entries_per_block, system.buffer_entries
    written = [b + (delta.flushed if i == 0 else 0) for i, b in enumerate(delta.merged_per_level)]
    model_w = list(w.level_write_amp)
    model_w[0] += w.write_amp - sum(w.level_write_amp)  # level 0's writes, with Level 1
    flushes = writes / F
    return {"write_amp": [x * B / writes for x in written],
            "model_write_amp": model_w,
            "merges_per_flush": [m / flushes for m in delta.merges_per_level],
            "model_merges_per_flush": list(w.level_merges)}


def _per_device(ledger: Any, compaction: Compaction, system: System, delta: Counters,
                writes: int) -> dict[str, Any]:
    """D1 over the window, per device (the engine's own first): bytes written per byte inserted,
    measured by the engine's device counters and predicted from the partial model's ledger;
    and the measured per-level bytes summed by the placement, which the device counts must
    equal when no level was renumbered across devices in the window."""
    from cost_models.devices import devices_of_levels

    B, E = system.entries_per_block, system.entry_bytes
    inserted = writes * E
    n = max(len(delta.device_written), 1 + max(compaction.level_devices))
    where = devices_of_levels(compaction.level_devices, len(ledger.writes))
    model = np.bincount(where, weights=ledger.writes, minlength=n)
    # Blocks by level, level 0 first: a flush stays in level 0 under a trigger above 1, else
    # it lands in Level 1.
    staged = compaction.level1_runs > 1
    per_level = [delta.flushed if staged else 0, *delta.merged_per_level]
    if not staged and len(per_level) > 1:
        per_level[1] += delta.flushed
    on = devices_of_levels(compaction.level_devices, len(per_level))
    by_levels = np.bincount(on, weights=np.asarray(per_level, dtype=float) * B * E, minlength=n)
    return {"level_devices": list(compaction.level_devices),
            "write_amp": [b / inserted for b in delta.device_written],
            "read_bytes_per_insert": [b / inserted for b in delta.device_read],
            "model_write_amp": list(map(float, model)),
            "write_amp_by_levels": list(map(float, by_levels / inserted))}


def _side_runs(engine: Engine) -> dict[str, Any]:
    """What the side runs (LSbM's buffer, L2SM's log) did over the run, and their space."""
    stats = engine.stats()
    return {k: stats.get(k) for k in ("buffer_files", "buffer_bytes", "buffer_reads",
                                      "buffer_trimmed", "buffer_drained", "pseudo_compactions",
                                      "aggregated_compactions", "log_files_merged")}


def _skew_rule(design: Design, system: System, compaction: Compaction, workload: Workload,
               n: int) -> window.WindowRule:
    """Whole levels: full-merge boundaries around at least 1.2 predicted cycles of Level L.
    Files: :func:`validation.window.half_loads`."""
    if compaction.granularity == "file":
        return window.half_loads(n)
    window_writes = int(min(WINDOW_MAX_LOADS * n, max(
        WINDOW_LOADS * n, WINDOW_CYCLES * skew_costs(design, system, workload).cycle_writes)))
    return window.full_merges(int(WARMUP_LOADS * n), window_writes, CAP_FACTOR)


def _skew_model(design: Design, system: System, compaction: Compaction, workload: Workload,
                history: float) -> SkewedCosts:
    """The skew model (S2 whole levels, S2f files) ``history`` writes after the load."""
    if compaction.granularity == "file":
        return file_skew_costs(design, system, compaction, workload, history_writes=history)
    return skew_costs(design, system, workload, history_writes=history)


def _skewed(engine: Any, design: Design, system: System, scale: Scale, workload: Workload,
            range_entries: int, load: tr.Trace, loaded: Any, *, compaction: Compaction,
            **_: Any) -> EngineRun:
    """Skewed keys, updates, a cache: the workload's writes with existing-key reads between them,
    zero-result and range reads spread over the window, priced by S2 or S2f. The zero-result and
    range reads are the finite model's with whole levels; with files the partial model's ranges
    and S2f's zero-result reads. No simulator: it replays uniform inserts only."""
    B, n = system.entries_per_block, scale.entries
    files = compaction.granularity == "file"
    rule = _skew_rule(design, system, compaction, workload, n)
    warmup_cap = rule.cap if rule.warmup_cap is None else rule.warmup_cap
    (_, zero_keys, _), (_, range_lo, range_hi) = (generators.read_ops(
        load.keys, n=scale.reads, get_pool=load.keys, fractions={kind: 1.0},
        range_entries=range_entries, seed=scale.seed * 1_000_003 + tag)
        for kind, tag in (("zero", 31), ("range", 37)))
    chunk = max(1, int(engine.buffer_entries) // 8)
    session = SkewSession(engine, load.keys, skewed_workload(workload),
                          np.random.default_rng([scale.seed * 1_000_003 + 29, 0x534B4557]),
                          warmup_cap + rule.cap + 2 * chunk)  # stream tag: "SKEW"
    window_writes = rule.min_writes or rule.cap
    reads = SkewReads(session, window_writes, zero_keys, np.stack([range_lo, range_hi], axis=1))
    run = window.measure(session, rule, reads)
    levels, memory = measured_levels(engine)
    delta = run.delta
    # Blocks written by merges into each level over the window, Level 1 with the flushes.
    per_level = [b + (delta.flushed if i == 0 else 0)
                 for i, b in enumerate(delta.merged_per_level)]
    model = _skew_model(design, system, compaction, workload,
                        run.warmup_writes + run.writes / 2.0)  # writes since the load
    if files:
        # At least a flush: with u = 1 nothing is inserted, and the reads price the load's tree.
        inserts = max(float(system.buffer_entries),
                      (1.0 - workload.update_fraction) * (run.warmup_writes + run.writes))
        base = replace(predict.predict_files(design, system, compaction, workload, range_entries,
                                             round(inserts)),
                       zero_result_read=model.zero_result_read)
    else:
        base = predict.predict_finite(design, system, workload, range_entries, steady_window=False)
    zero, ranged = reads.side["zero"], reads.side["range"]
    # Per level, level 0 first (staging runs under a level-1 trigger above 1; None: no read).
    hit_rate, per_level_hits = hit_rates(reads.hits, reads.misses)
    measured, predicted, detail = predict.predict_skew(model, base, Costs(
        write_amp=delta.written * B / run.writes, zero_result_read=zero[1] / max(zero[0], 1),
        # The worst case needs keys known to sit at Level L, which updates move: not measured.
        point_read=None,  # type: ignore[arg-type]
        point_read_uniform=reads.blocks / reads.reads, range_runs=ranged[2] / max(ranged[0], 1),
        range_io=ranged[1] / max(ranged[0], 1), memory_bits_per_entry=memory, levels=levels,
        cache_hit_rate=hit_rate,
        cache_hit_rate_per_level=tuple(r or 0.0 for r in per_level_hits[1:]),
    ), workload, system, run, reads.reads, level0_staged=files and compaction.level1_runs > 1,
        level0_measured=(per_level_hits or (None,))[0])
    detail.update(
        invalidated_blocks=delta.cache_invalidated,
        timeline=[{"writes": w, "hit_rate": h} for w, h in reads.timeline],
        fine_timeline=[{"writes": w, "hit_rate": h} for w, h in reads.fine_timeline],
        measured_level_write_amp=[b * B / run.writes for b in per_level])
    if files:
        shape = engine.levels()
        detail.update(merges=delta.merges, file_widths=_file_widths(shape),
                      tree_bytes=sum(level["entries"] for level in shape) * scale.entry_bytes)
    if compaction.buffer is not None or compaction.log is not None:
        detail.update(side_runs=_side_runs(engine),
                      model_buffer_space=getattr(model, "buffer_space", None))
    facts = window_detail(run, "window_complete")
    if files:
        facts["compaction"] = asdict(compaction)
    return EngineRun(
        measured=measured, predicted=predicted, simulated=None,
        checks=Checks(get_misses=loaded.get_misses + reads.not_found,
                      zero_hits=loaded.zero_hits + reads.zero_hits,
                      wrong_values=loaded.wrong_values + reads.wrong_values),
        model="skew", window_writes=run.writes,
        detail={**facts, "major_compactions": delta.major_merges, "skew": detail})


def _file_widths(shape: list[dict[str, Any]]) -> list[dict[str, float | None]]:
    """Per level, the median key range of its files and its log's, as a share of the last
    level's: how sparse each is (L2SM moves sparse files to its log)."""
    last = shape[-1]["runs"] if shape else []
    span = (max(f["max_key"] for f in last) - min(f["min_key"] for f in last)) if last else 0
    span = max(float(span), 1.0)

    def median(files: list[dict[str, Any]]) -> float | None:
        return (float(np.median([(f["max_key"] - f["min_key"]) / span for f in files]))
                if files else None)

    return [{"level": level["level"], "files": median(level["runs"]),
             "log": median(level.get("log") or [])} for level in shape]


def _read_parts(keys: np.ndarray, level_L_keys: np.ndarray, scale: Scale,
                workload: Workload | None, range_entries: int, *,
                mix_only: bool = False) -> list[Part]:
    """The read phase, a sub-phase per kind measured alone, then the mix (``mix_only``: just
    that; the steady window measured the reads)."""
    specs = [] if mix_only else [
        ("zero", {"zero": 1.0}, keys), ("level_L_reads", {"get": 1.0}, level_L_keys),
        ("uniform_reads", {"get": 1.0}, keys), ("range", {"range": 1.0}, keys)]
    if workload is not None and scale.mix_ops > 0:
        specs.append(("mix", {"get": workload.point_reads, "zero": workload.zero_reads,
                              "put": workload.writes, "range": workload.range_reads}, keys))
    parts = []
    for k, (name, fractions, pool) in enumerate(specs):
        n = scale.mix_ops if name == "mix" else scale.reads
        parts.append((name, *generators.read_ops(
            keys, n=n, get_pool=pool, fractions=fractions, range_entries=range_entries,
            seed=scale.seed * 1_000_003 + k + 1)))
    return parts
