"""Universal (tiered) compaction as RocksDB runs it, priced on run sizes. Derived in
``docs/MODEL.md`` ("Universal compaction", U1-U4).

Universal compaction merges whole sorted runs, so a merge writes exactly the sizes of its inputs
(new keys: nothing is dropped) and its choices depend on the run sizes alone. The model is that
rule applied to the sizes, newest run first, after every flush:

* U1 Nothing happens below ``trigger`` runs.
* U2 Size amplification: when the runs newer than the oldest hold at least
  ``max_size_amplification_percent`` of it, all runs merge into one.
* U3 Size ratio: from the newest run, the first stretch of runs in which each next run is at most
  (1 + size_ratio/100) times the total picked so far, at least ``min_merge_width`` and at most
  ``max_merge_width`` runs long, merges.
* U4 Run count: otherwise, with more than ``trigger`` runs, the newest
  (runs - trigger + 1) merge whatever their sizes, if that is at least ``min_merge_width``.

It repeats until no rule applies (the validation waits for compaction after every buffer).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

# RocksDB's max_merge_width default (UINT_MAX): no limit on the runs one merge takes.
UNLIMITED = 2**32 - 1
# T5: U2 (which every cycle of the largest run ends with) merges every run into one while they
# are all still on disk: the data twice over, whatever the options (the walk's peak_entries
# over a cycle, which wacky sweep space checks on RocksDB).
FULL_MERGE_PEAK_SPACE = 2.0


@dataclass(frozen=True)
class UniversalOptions:
    """RocksDB's ``compaction_options_universal`` and ``level0_file_num_compaction_trigger``, at
    RocksDB's defaults (``max_merge_width`` UINT_MAX: no limit)."""

    trigger: int = 4
    min_merge_width: int = 2
    max_merge_width: int = UNLIMITED
    size_ratio: float = 1.0
    max_size_amplification_percent: float = 200.0

    def __post_init__(self) -> None:
        for name, value in (("trigger", self.trigger), ("min_merge_width", self.min_merge_width),
                            ("max_merge_width", self.max_merge_width)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= UNLIMITED:
                raise ValueError(f"{name} must be a whole number in [1, {UNLIMITED}]; got "
                                 f"{value!r}")
        if not 2 <= self.min_merge_width <= self.max_merge_width:
            raise ValueError("min_merge_width must be at least 2 and at most max_merge_width; "
                             f"got {self.min_merge_width}, {self.max_merge_width}")
        if not self.size_ratio >= 0 or not self.max_size_amplification_percent > 0:
            raise ValueError("size_ratio must be >= 0 and max_size_amplification_percent > 0; "
                             f"got {self.size_ratio}, {self.max_size_amplification_percent}")

    def rules(self, flush_entries: float) -> UniversalRules:
        """These options with flushes of ``flush_entries`` entries."""
        return UniversalRules(**{f.name: getattr(self, f.name) for f in fields(UniversalOptions)},
                              flush_entries=flush_entries)


@dataclass(frozen=True, kw_only=True)
class UniversalRules(UniversalOptions):
    """The options with the flush size in entries: what U1-U4 run on."""

    flush_entries: float

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.flush_entries >= 1:
            raise ValueError(f"flush_entries must be at least 1; got {self.flush_entries}")


@dataclass(frozen=True)
class UniversalCosts:
    write_amp: float  # entries written per entry inserted, flushes included
    runs: float  # mean sorted runs a read meets, over the window
    full_merges: int  # U2's merges of everything, over the window
    final_runs: tuple[float, ...]  # run sizes at the end, newest first
    window_flushes: int = 0  # the flushes counted
    complete: bool = True  # a cycle window: it ended at a full merge, not at its cap
    merges_before: int = 0  # a cycle window: the full merges after the load up to its start
    # T5: the most entries on disk during the counted steps (a merge's inputs stay until its
    # output is whole: the runs then, plus what the merge writes), and those at the end.
    peak_entries: float = 0.0
    end_entries: float = 0.0


# A cycle window's phases (the warm-up after its minimum, and the cycle) stop after this many
# times the load's flushes without a full merge: under inserts of new keys U2 fires once the
# newer runs reach max_size_amplification_percent of the oldest, a few loads at the most; under
# skewed updates the newer runs grow only by their distinct keys, and the next full merge may
# lie beyond any cap (StepWindow.steady counts the window after it).
CYCLE_CAP_LOADS = 12


@dataclass
class StepWindow:
    """Which flushes of a replay count. Fixed: ``before`` steps of load, then the rest up to
    ``total``. A cycle (``warm`` >= 0): after the load and at least ``warm`` more steps, from
    the step after a full merge (every run merged into one) to the step of the next full
    merge, inclusive, so the count holds one whole cycle of the largest run, as a validation
    window that runs from one full merge to the next does (``total`` caps the steps)."""

    before: int
    total: int
    warm: int = -1
    start: int | None = None
    complete: bool = True
    merges_before: int = 0  # full merges after the load, the one the cycle starts at included

    @classmethod
    def cycle(cls, before: int, warm: int) -> StepWindow:
        cap = CYCLE_CAP_LOADS * max(before, warm, 1)
        return cls(before, before + warm + 2 * cap, warm, complete=False)

    @classmethod
    def steady(cls, before: int, warm: int, merges_before: int = 0) -> StepWindow:
        """The count of a replay whose :meth:`cycle` found no full merge after its warm-up
        within its cap (U5, docs/MODEL.md U5r): U2 compares entries, and under skewed updates
        the newer runs gain entries only as distinct keys, so the next full merge may be
        further off than any cap (Zipf 1.2, every write an update, 200,000 keys, F = 100,
        trigger 24, 400%: 25 loads after the load) or never come. The tree has then run a
        first phase of the cap's steps without one, and the second phase is counted as a
        fixed window (``complete`` False: it ends at its cap), the steps the cycle would have
        replayed anyway. ``merges_before``: the full merges after the load, all before it."""
        cap = CYCLE_CAP_LOADS * max(before, warm, 1)
        return cls(before + warm + cap, before + warm + 2 * cap, complete=False,
                   merges_before=merges_before)

    def counting(self, step: int) -> bool:
        if self.warm < 0:
            return step >= self.before
        return self.start is not None and step >= self.start

    def stop_after(self, step: int, full: bool) -> bool:
        """Whether the replay ends with ``step`` (``full``: a full merge happened in it)."""
        if self.warm < 0 or not full:
            return False
        if self.start is None:
            self.merges_before += step >= self.before
            if step >= self.before + self.warm:
                self.start = step + 1
            return False
        self.complete = True
        return True

    def counted(self, last: int) -> int:
        """The steps counted when ``last`` was the last step replayed."""
        first = self.before if self.warm < 0 else self.start
        if first is None or last < first:
            raise ValueError("the universal replay reached no full merge after its warm-up "
                             f"within {self.total} flushes")
        return last - first + 1


def _pick(runs: list[float], r: UniversalRules) -> tuple[int, int] | None:
    """The stretch [start, end) of ``runs`` (newest first) that merges next, or None."""
    n = len(runs)
    if n < r.trigger or n < 2:
        return None
    if (sum(runs) - runs[-1]) * 100.0 >= r.max_size_amplification_percent * runs[-1]:  # U2
        return 0, n
    grow = (100.0 + r.size_ratio) / 100.0
    widest, least = r.max_merge_width, r.min_merge_width
    for start in range(n - least + 1):  # U3 (a later start cannot gather min_merge_width)
        total, end, stop = runs[start], start + 1, min(n, start + widest)
        while end < stop and runs[end] <= total * grow:
            total += runs[end]
            end += 1
        if end - start >= least:
            return start, end
    if n > r.trigger:  # U4
        count = min(n - r.trigger + 1, widest)
        if count >= least:
            return 0, count
    return None


@dataclass(frozen=True)
class RunsNow:
    """A tree's sorted runs as they are, newest first, in entries (a running database's, say),
    and whether the oldest sits in the last level: where :func:`universal_costs` and
    :func:`timed_window` start instead of a load into an empty tree (:func:`runs_after`).
    Which merges fall inside a window depends on where in the largest run's cycle it starts,
    and a load the model did not walk (a writer that outran compaction) leaves other runs."""

    runs: tuple[float, ...]
    bottom: bool = False

    def __post_init__(self) -> None:
        if not all(r > 0 for r in self.runs):
            raise ValueError(f"runs must be sizes > 0, newest first; got {self.runs}")


def universal_costs(rules: UniversalRules, preload: float, window: float, *,
                    cycle: bool = False, start: RunsNow | None = None) -> UniversalCosts:
    """U1-U4 from an empty tree: ``window`` inserts of new keys after ``preload``. With
    ``cycle``, ``window`` is the least warm-up after the load instead, and the count is the
    next whole cycle of the largest run (:class:`StepWindow`), or, where no full merge comes
    after the warm-up within the cap, the steady window after it (:meth:`StepWindow.steady`).
    With ``start``, the window follows those runs instead of a load (``preload`` unused)."""
    if not preload >= 0 or not window >= rules.flush_entries:
        raise ValueError(f"window must hold at least one flush ({rules.flush_entries:g} "
                         f"entries) and preload must be >= 0; got {window}, {preload}")
    if start is not None and cycle:
        raise ValueError("start and cycle cannot be combined: a cycle window counts from a "
                         "full merge after a load")
    F = rules.flush_entries
    before = 0 if start is not None else int(round(preload / F))
    steps = max(1, int(round(window / F)))
    w = StepWindow.cycle(before, steps) if cycle else StepWindow(before, before + steps)
    while True:
        runs: list[float] = [] if start is None else list(start.runs)
        written = runs_sum = peak = 0.0
        full = 0
        step = 0
        for step in range(w.total):
            counting = w.counting(step)
            merged, fulls, _, in_tree = _flush(runs, rules)
            if counting:
                written += F + merged
                full += fulls
                peak = max(peak, in_tree)
                runs_sum += len(runs)
                peak = max(peak, sum(runs))
            if w.stop_after(step, fulls > 0):
                break
        if w.warm < 0 or w.start is not None:
            break
        # No full merge after the warm-up within the cap: replayed again, counting the steady
        # window (StepWindow.steady) that the same replay reaches.
        w = StepWindow.steady(before, steps, w.merges_before)
    counted = w.counted(step)
    return UniversalCosts(written / (counted * F), runs_sum / counted, full, tuple(runs),
                          counted, w.complete, w.merges_before, peak, sum(runs))


def runs_after(rules: UniversalRules, entries: float) -> tuple[list[float], bool]:
    """U1-U4 after ``entries`` inserts into an empty tree, every flush's merges done before the
    next flush (a load that waits for compaction, as validation's loads do): the run sizes,
    newest first, and whether the oldest run sits in the last level (a merge took it: RocksDB
    writes a merge that includes the oldest run to the last level, the others to level 0)."""
    runs: list[float] = []
    bottom = False
    for _ in range(int(round(entries / rules.flush_entries))):
        bottom |= _flush(runs, rules)[2]
    return runs, bottom


def _flush(runs: list[float], rules: UniversalRules) -> tuple[float, int, bool, float]:
    """A flush of F entries into ``runs`` (newest first, changed in place), then the merges
    U1-U4 pick, each done before the next is picked (a compaction that keeps up): the entries
    they wrote, how many took every run, whether one took the oldest run (its output goes to
    the last level), and the most entries on disk while one ran (its inputs beside its output,
    and the rest)."""
    runs.insert(0, rules.flush_entries)
    written = peak = 0.0
    full, oldest = 0, False
    while (stretch := _pick(runs, rules)) is not None:
        start, end = stretch
        merged = sum(runs[start:end])
        written += merged
        full += end - start == len(runs)
        oldest |= end == len(runs)
        peak = max(peak, sum(runs) + merged)
        runs[start:end] = [merged]
    return written, full, oldest, peak


@dataclass(frozen=True)
class WriteController:
    """RocksDB's write controller as T3u needs it (docs/MODEL.md "T3u"): writes slow to
    ``delayed_rate`` inserts a second from ``slowdown`` files in level 0, and stop at ``stop``.
    From ``stop - near_stop`` files RocksDB penalizes the delayed rate by ``near_stop_ratio`` at
    each new version (kNearStopSlowdownRatio 0.6, from stop - 2 files). Universal compaction
    has no estimate of pending compaction bytes (RocksDB computes it for leveled trees only),
    so level 0's files are its only signal."""

    slowdown: int
    stop: int
    delayed_rate: float
    near_stop: int = 2
    near_stop_ratio: float = 0.6

    def __post_init__(self) -> None:
        if not 1 <= self.slowdown <= self.stop:
            raise ValueError(f"slowdown must be in [1, stop]; got {self.slowdown}, {self.stop}")
        if not self.delayed_rate > 0 or not 0 < self.near_stop_ratio <= 1:
            raise ValueError("delayed_rate must be > 0 and near_stop_ratio in (0, 1]; got "
                             f"{self.delayed_rate}, {self.near_stop_ratio}")


@dataclass(frozen=True)
class TimedWindow:
    """T3u over a window: the writer's wall seconds, the seconds RocksDB held it (delayed or
    stopped), the most files level 0 held, the merges that ended, and when the writer was
    first held (None: never)."""

    seconds: float
    stall_seconds: float
    max_level0: int
    merges: int
    first_stall: float | None = None
    # entries written by the window's flushes and by the merges until compaction has caught
    # up after it (the merges a window sets off, as a window measured to its catch-up counts)
    written: float = 0.0
    inserted: float = 0.0  # entries flushed

    @property
    def write_amp(self) -> float:
        """Entries written per entry inserted: the window's, at the rate it was offered (merges
        pick among the runs present when the thread is free, so a faster writer's merges take
        more runs each, and fewer merges write fewer entries)."""
        return self.written / self.inserted if self.inserted > 0 else 0.0

    @property
    def share(self) -> float:
        return self.stall_seconds / self.seconds if self.seconds > 0 else 0.0


def timed_window(rules: UniversalRules, preload: float, window: float, rate: float,
                 merge_seconds_per_entry: float, put_seconds: float,
                 controller: WriteController, until_held: bool = False,
                 start: RunsNow | None = None) -> TimedWindow:
    """T3u (docs/MODEL.md): U1-U4 in time. After ``preload`` inserts (compaction caught up:
    :func:`runs_after`), or from the runs ``start`` (``preload`` unused), a writer offers
    ``window`` inserts at ``rate`` a second (back to back,
    at ``put_seconds`` each, when behind its schedule). Flushes add a run every F inserts. One
    compaction thread runs one merge at a time, picked by U2-U4 on the runs present when it
    starts, lasting ``merge_seconds_per_entry`` times the entries it merges (T2's 2 E c_byte:
    it reads and writes each); runs flushed meanwhile wait in level 0. RocksDB holds the writer
    by level 0's files (:class:`WriteController`): delayed rate from the slowdown trigger,
    lowered by the near-stop ratio at each flush from stop - 2, stopped at stop until a merge
    ends. The state changes at flushes and merge ends; the writer's rate is set at each flush
    by level 0's files then (the delay's finer steps are left out). With ``until_held`` the walk
    ends at the first flush that held the writer (whether it ever is, at a fraction of the
    cost)."""
    for name, v in (("rate", rate), ("merge_seconds_per_entry", merge_seconds_per_entry),
                    ("put_seconds", put_seconds), ("preload", preload)):
        if not (isinstance(v, (int, float)) and v >= 0 and v < float("inf")):
            raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
    if not rate > 0:
        raise ValueError(f"rate must be > 0; got {rate!r}")
    F = rules.flush_entries
    runs, bottom = runs_after(rules, preload) if start is None else \
        (list(start.runs), start.bottom)
    merge: tuple[float, int, int] | None = None  # (end time, runs after it, runs it takes)
    t = stall = written = inserted = 0.0
    merges = most = penalties = 0
    first: float | None = None

    def begin(at: float) -> tuple[float, int, int] | None:
        stretch = _pick(runs, rules)
        if stretch is None:
            return None
        s, e = stretch  # kept by its place from the oldest run: new flushes go in front
        return at + sum(runs[s:e]) * merge_seconds_per_entry, len(runs) - e, e - s

    def settle(until: float) -> None:
        nonlocal merge, bottom, merges, written
        while merge is not None and merge[0] <= until:
            end, after, width = merge
            n = len(runs)
            bottom |= after == 0
            merged = sum(runs[n - after - width:n - after])
            runs[n - after - width:n - after] = [merged]
            written += merged
            merges += 1
            merge = begin(end)

    merge = begin(0.0)
    for step in range(max(1, int(round(window / F)))):
        settle(t)
        level0 = len(runs) - bottom
        most = max(most, level0)
        while level0 >= controller.stop and merge is not None:  # stopped until a merge ends
            first = t if first is None else first
            stall += merge[0] - t
            t = merge[0]
            settle(t)
            level0 = len(runs) - bottom
        most = max(most, level0)
        penalties = penalties + 1 if level0 >= controller.stop - controller.near_stop else 0
        fastest = t + F * put_seconds
        held = fastest
        if level0 >= controller.slowdown:
            held = max(fastest, t + F / (controller.delayed_rate
                                         * controller.near_stop_ratio ** penalties))
        own = max(fastest, (step + 1) * F / rate)  # the schedule, or back to back when behind
        end = max(own, held)
        if held > own:
            first = t if first is None else first
            stall += held - own
        settle(end)
        t = end
        if until_held and first is not None:
            break
        runs.insert(0, F)
        written += F
        inserted += F
        if merge is None:
            merge = begin(t)
    ended = merges
    if not until_held:
        settle(float("inf"))  # the catch-up: the merges the window's runs set off
    return TimedWindow(t, stall, most, ended, first, written, inserted)
