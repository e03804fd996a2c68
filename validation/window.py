"""The one measurement window, for every engine: after the preload, a warm-up, then a window of
writes with reads paced over it, since Eq 14-16 are amortized costs in a tree already holding N.

:func:`measure` steps an engine :class:`Session` under the :class:`WindowRule` of the model that
predicts the window (a rule function per model below). Every step's first write carries the
previous buffer's flush and merges, so a window's I/O is whole flush cycles; reads run between
steps (:class:`ReadPacing`), once the engine is idle, never overlapping a compaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Protocol

from cost_models.finite import REL_TOL

TOLERANCE = REL_TOL  # kRelTol in native_engine/src/level.cc: N_i / a_i and N_i up to rounding
WINDOW_CAP_LOADS = 2.0  # whole levels: the warm-up and the window each stop after 2 N writes
READ_BATCH = 16  # reads of each kind run together once this many are due


@dataclass(frozen=True)
class WindowRule:
    """Where the warm-up and the window end. ``cap``: the window's writes at most (the warm-up's
    too, unless ``warmup_cap``); ``settle_reads``: a fixed window's owed reads run after its last
    step (native) rather than with it (stock RocksDB)."""

    warmup: Literal["none", "run_boundary", "full_merge", "fixed"]
    end: Literal["run_boundary", "full_merge", "fixed"]
    cap: int
    warmup_cap: int | None = None  # "fixed": the warm-up's writes
    warmup_min: int = 0  # full_merge: the warm-up's writes at least
    warmup_merges: int = 0  # full_merge: if > 0, the warm-up ends at this full merge instead
    min_writes: int = 0  # the window's writes at least
    skip_full_merges: bool = False
    settle_reads: bool = False


def whole_levels(entries: int, step: int) -> WindowRule:
    """Run boundary to run boundary, skipping full merges, each phase capped at 2 N writes."""
    return WindowRule("run_boundary", "run_boundary", max(int(WINDOW_CAP_LOADS * entries),
                                                          4 * step), skip_full_merges=True)


def full_merges(warmup: int, window: int, cap_factor: int) -> WindowRule:
    """Full-merge boundaries after ``warmup`` writes, a window of at least ``window`` writes;
    each phase stops after ``cap_factor`` times ``window`` more."""
    return WindowRule("full_merge", "full_merge", cap_factor * window,
                      warmup_cap=warmup + cap_factor * window, warmup_min=warmup,
                      min_writes=window)


def fixed(writes: int, *, settle_reads: bool, warmup: int = 0) -> WindowRule:
    """``writes`` after a warm-up of ``warmup`` writes (none by default)."""
    return WindowRule("fixed" if warmup > 0 else "none", "fixed", writes,
                      warmup_cap=warmup if warmup > 0 else None, settle_reads=settle_reads)


def full_merge_cycle(merges: int, cap: int) -> WindowRule:
    """Universal compaction (cost_models.universal.StepWindow): from the ``merges``-th full merge
    after the load (where its model's cycle starts) to the next; each phase stops after ``cap``
    writes without one. Counting merges, not writes, keeps the engine on the model's cycle when
    a full merge falls near the warm-up's end."""
    return WindowRule("full_merge", "full_merge", cap, warmup_cap=cap, warmup_merges=merges,
                      min_writes=1)


def half_loads(entries: int) -> WindowRule:
    """No cycle of Level L to align with (files, stock RocksDB): half a load of warm-up, then half
    a load, which the skew models price at its middle."""
    return fixed(entries // 2, settle_reads=True, warmup=entries // 2)


@dataclass(frozen=True)
class Counters:
    """What an engine did so far, in ``unit`` ("blocks", or RocksDB's "bytes"); ``end - begin``
    is a window's (a level ``begin`` lacks counts 0)."""

    unit: str
    written: int = 0  # by flushes and merges
    flushed: int = 0
    merged_per_level: tuple[int, ...] = ()  # Level 1 first; empty where the engine only totals
    user_written: int = 0  # the bytes the writer put
    inserted: int = 0  # the entries inserted and those the design's policy wrote (the
    policy_written: int = 0  # compaction driver's own counts)
    major_merges: int = 0  # merges into Level L
    cache_hits: tuple[int, ...] = ()  # point reads', per level, level 0 first
    cache_misses: tuple[int, ...] = ()
    cache_invalidated: int = 0  # cached blocks dropped by compaction
    stall_seconds: float = 0.0  # the writer waited while compaction caught up
    merges: int = 0  # merge operations (0 where the engine does not count them)
    merges_per_level: tuple[int, ...] = ()  # into Level 1 first; empty where not counted
    # Gauges, not counts (a difference keeps the end's): the bytes of the run files on disk,
    # and the most they reached since the window started (Session.start_window), a merge's
    # inputs and output together. 0 where the engine does not meter its files.
    disk_bytes: int = 0
    peak_disk_bytes: int = 0
    # D1: bytes written and read on each device's run files, the engine's own first (empty
    # where the engine does not place levels on devices).
    device_written: tuple[int, ...] = ()
    device_read: tuple[int, ...] = ()

    def __sub__(self, begin: Counters) -> Counters:
        def minus(name: str, a: Any, b: Any) -> Any:
            if isinstance(a, tuple):
                return tuple(x - (b[i] if i < len(b) else 0) for i, x in enumerate(a))
            return a if isinstance(a, str) or name in GAUGES else a - b

        return Counters(*(minus(f.name, getattr(self, f.name), getattr(begin, f.name))
                          for f in fields(self)))


GAUGES = ("disk_bytes", "peak_disk_bytes")


class Session(Protocol):
    """An engine holding the preload, written one step at a time."""

    def can_step(self) -> bool: ...  # False once its fresh keys run out (the window stops)
    def step(self) -> tuple[int, int]: ...  # write one step: (writes, merges into Level L)
    def level_L(self) -> tuple[int, bool, float]: ...  # runs, active run full, a_L
    def cycle_hint(self) -> float: ...  # Level L-1's capacity (else a buffer): a cycle's writes
    def counters(self) -> Counters: ...  # at the window's start and end
    def idle(self) -> None: ...  # wait until no flush or compaction runs
    def start_window(self) -> None: ...  # the peak disk use counts from here (else a no-op)


class Reads(Protocol):
    """Reads paced over the warm-up and the window (hooks of :func:`measure`)."""

    def start(self, cycle: float) -> None: ...  # the window (re)starts: forget what it read
    def warming(self) -> None: ...  # after a warm-up step
    def before(self) -> None: ...  # before a window step
    def after(self, ending: bool) -> None: ...  # after a window step
    def settle(self) -> None: ...  # after a fixed window's last step


class NoReads(Reads):  # the protocol's hooks, each doing nothing
    pass


@dataclass
class ReadPacing:
    """The reads owed, ``per_step`` more a step. ``batch`` > 0: they run once ``batch`` are due,
    at a window's end and on its first step (a small buffer pays no read phase per buffer);
    ``batch`` 0: every whole read owed runs at once (skew's small chunks)."""

    per_step: float = 0.0
    batch: int = READ_BATCH
    owed: float = 0.0
    ran: bool = False

    def restart(self) -> None:
        self.owed, self.ran = 0.0, False

    def due(self, ending: bool = False) -> int:
        self.owed += self.per_step
        if not self.batch:
            n = int(self.owed)
        elif self.owed >= self.batch or (ending and self.owed > 0) or not self.ran:
            n = max(1, round(self.owed))
        else:
            return 0
        self.owed -= n
        self.ran = True
        return n

    def rest(self) -> int:
        """The reads still owed, at least one if any are."""
        if self.owed <= 0:
            return 0
        n = max(1, round(self.owed))
        self.owed -= n
        return n


@dataclass
class PacedReads(NoReads):
    """``reads`` of each kind over about one cycle, between steps of ``step`` writes: ``run(k)``
    reads k of each kind, ``reset()`` forgets the window's reads (it restarts)."""

    run: Callable[[int], None]
    reset: Callable[[], None]
    reads: int
    step: int
    pacing: ReadPacing = field(default_factory=ReadPacing)

    def start(self, cycle: float) -> None:
        self.reset()
        self.pacing.restart()
        self.pacing.per_step = self.reads * self.step / max(cycle, self.step)

    def after(self, ending: bool) -> None:
        if k := self.pacing.due(ending):
            self.run(k)

    def settle(self) -> None:
        if k := self.pacing.rest():
            self.run(k)


@dataclass(frozen=True)
class WindowRun:
    """How a window went; ``begin`` and ``end``: the counters at its (last) start and end."""

    writes: int
    warmup_writes: int
    major_compactions: int
    full_merges_skipped: int
    level_L_runs_at_start: int
    complete: bool  # ended at its boundary (or its fixed length), not at the cap
    begin: Counters = field(repr=False)
    end: Counters = field(repr=False)
    # The wall-clock and process CPU seconds the window's write steps took (the engine's puts,
    # with the flushes and merges they run), the reads between them left out: T1's insert time.
    write_seconds: float = 0.0
    write_cpu_seconds: float = 0.0

    @property
    def delta(self) -> Counters:
        return self.end - self.begin


def _timed_step(session: Session) -> tuple[int, int, float, float]:
    """One step, with the wall and CPU seconds it took: the engine's own where the session
    keeps them (``engine_seconds()``, cumulative: the native sessions), else the step's."""
    clock = getattr(session, "engine_seconds", None)
    if clock is not None:
        wall, cpu = clock()
        written, majors = session.step()
        wall_after, cpu_after = clock()
        return written, majors, wall_after - wall, cpu_after - cpu
    start, start_cpu = time.perf_counter(), time.process_time()
    written, majors = session.step()
    return written, majors, time.perf_counter() - start, time.process_time() - start_cpu


def measure(session: Session, rule: WindowRule, reads: Reads | None = None) -> WindowRun:
    """Warm up, then measure one window of ``session`` under ``rule``."""
    reads = reads or NoReads()
    warm, runs_at_start, cycle, last_major, merges = 0, 0, 0, None, 0
    warmup_cap = rule.cap if rule.warmup_cap is None else rule.warmup_cap
    while rule.warmup != "none" and warm < warmup_cap and session.can_step():
        written, majors = session.step()
        warm += written
        if majors:
            cycle = 0 if last_major is None else warm - last_major
            last_major = warm
            if rule.warmup != "fixed":  # a fixed warm-up ends at its length, not a boundary
                runs, full, _ = session.level_L()
                merges += runs == 1
                if (full if rule.warmup == "run_boundary"
                        else merges == rule.warmup_merges if rule.warmup_merges
                        else runs == 1 and warm >= rule.warmup_min):
                    runs_at_start = runs
                    break
        reads.warming()
    # Reads spread over about one cycle: the window itself when fixed, else the warm-up's last
    # cycle, else Level L-1's capacity.
    pace = rule.cap if rule.end == "fixed" else cycle or session.cycle_hint()
    reads.start(pace)
    session.start_window()
    begin = session.counters()
    writes, majors_total, skipped, complete, seconds, cpu = 0, 0, 0, False, 0.0, 0.0
    while writes < rule.cap and session.can_step():
        reads.before()
        written, majors, step_seconds, step_cpu = _timed_step(session)
        seconds += step_seconds
        cpu += step_cpu
        writes += written
        majors_total += majors
        ending = False
        if rule.end == "fixed":
            ending = writes >= rule.cap and not rule.settle_reads
        elif majors:
            runs, full, max_runs = session.level_L()
            if rule.skip_full_merges and runs == 1 and max_runs > 1:
                # A full merge of Level L recurs only every a_L run fills: not a typical window.
                skipped += 1
                writes, majors_total, runs_at_start, seconds, cpu = 0, 0, runs, 0.0, 0.0
                reads.start(pace)
                session.start_window()
                begin = session.counters()
                continue
            boundary = full if rule.end == "run_boundary" else runs == 1
            ending = boundary and writes >= rule.min_writes
        reads.after(ending)
        if ending:
            complete = True
            break
        if rule.end == "fixed" and writes >= rule.cap:
            reads.settle()
            complete = True
            break
    session.idle()
    return WindowRun(writes, warm, majors_total, skipped, runs_at_start, complete, begin,
                     session.counters(), seconds, cpu)
