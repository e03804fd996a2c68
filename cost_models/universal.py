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
# times the load's flushes without a full merge: U2 fires once the newer runs reach
# max_size_amplification_percent of the oldest, a few loads at the most.
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


def universal_costs(rules: UniversalRules, preload: float, window: float, *,
                    cycle: bool = False) -> UniversalCosts:
    """U1-U4 from an empty tree: ``window`` inserts of new keys after ``preload``. With
    ``cycle``, ``window`` is the least warm-up after the load instead, and the count is the
    next whole cycle of the largest run (:class:`StepWindow`)."""
    if not preload >= 0 or not window >= rules.flush_entries:
        raise ValueError(f"window must hold at least one flush ({rules.flush_entries:g} "
                         f"entries) and preload must be >= 0; got {window}, {preload}")
    F = rules.flush_entries
    before = int(round(preload / F))
    steps = max(1, int(round(window / F)))
    w = StepWindow.cycle(before, steps) if cycle else StepWindow(before, before + steps)
    runs: list[float] = []
    written = runs_sum = peak = 0.0
    full = 0
    step = 0
    for step in range(w.total):
        counting = w.counting(step)
        runs.insert(0, F)
        if counting:
            written += F
        full_now = False
        while (stretch := _pick(runs, rules)) is not None:
            start, end = stretch
            merged = sum(runs[start:end])
            full_now |= end - start == len(runs)
            if counting:
                written += merged
                full += end - start == len(runs)
                peak = max(peak, sum(runs) + merged)
            runs[start:end] = [merged]
        if counting:
            runs_sum += len(runs)
            peak = max(peak, sum(runs))
        if w.stop_after(step, full_now):
            break
    counted = w.counted(step)
    return UniversalCosts(written / (counted * F), runs_sum / counted, full, tuple(runs),
                          counted, w.complete, w.merges_before, peak, sum(runs))
