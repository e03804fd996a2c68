"""The engine simulator: an executable specification of the engine's merge policy.

It replays the policy stated in App. E and Section 5 (the rules documented in
``native_engine/src/merge_policy.h``) on entry counts alone, flush by flush, and reports the tree
that N unique inserts grow and its per-operation costs. It takes N/F steps per design, so the
design search cannot use it.

**It is not a model and not evidence of accuracy.** It uses the same planner, tolerances and
shape rule as the engine, so its agreement with the engine (exact, by tests/test_validation.py)
shows that the engine does what its specification says. Whether the paper's closed forms
(cost_models) predict the engine is a separate question, answered by ``predicted`` vs
``measured`` in a validation.

What it accounts for, which the closed forms leave out:

* **Partially full levels at a finite N.** Capacities are set top-down from Level L (App. E)
  and only change when a merge reaches Level L; in between, Levels 1..L-1 hold whatever the
  flushes since then left there, often far fewer than a_i runs or N_i entries.
* **The flush write.** Every entry is written once when the buffer is flushed; Eq 14 counts only
  merge rewrites.
* **Rounding of run counts.** a_i is a whole number; a run fills to N_i / a_i before the next
  starts.
* **Preemptive merging.** A flush that would overflow Level i sweeps Level i into the merge at
  once, so it writes straight into the deepest level it reaches, flush by flush.
* **Filters as built.** Each run keeps the Bloom filter built for it when it was written, with a
  whole number of probes k = round(b ln 2) and m = ceil(n b) bits, so its FPR is
  (1 - e^(-k n / m))^k rather than e^(-b ln(2)^2).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cost_models import filters
from cost_models.structure import num_levels, shape_at_depth
from validation import window
from validation.window import TOLERANCE


@dataclass(frozen=True)
class GrownLevel:
    """One level of a grown tree: its shape and the runs it holds, oldest first."""

    capacity: float  # N_i for the current estimate of N
    max_runs: float  # integer a_i
    fpr: float  # the FPR the allocation assigns to a new run here
    run_entries: tuple[int, ...]
    run_bits_per_key: tuple[float, ...]

    @property
    def entries(self) -> int:
        return sum(self.run_entries)


@dataclass(frozen=True)
class GrownTree:
    """The tree after inserting ``inserted`` unique entries into an empty engine."""

    levels: tuple[GrownLevel, ...]  # Level 1 first
    inserted: int
    buffered: int  # entries still in the write buffer (never flushed)
    blocks_written: int  # by flushes and merges
    flushes: int
    n_est: float  # the engine's N estimate: N_L (C + 1) / C at the last merge into Level L
    entries_per_block: int

    @property
    def stored(self) -> int:
        return sum(lvl.entries for lvl in self.levels)


@dataclass
class _Level:
    capacity: float = 0.0
    max_runs: float = 1.0
    fpr: float = 1.0
    runs: list[int] | None = None
    bits: list[float] | None = None
    tags: list[object] | None = None  # who holds each run (the RocksDB driver's run ids)

    def __post_init__(self) -> None:
        self.runs = [] if self.runs is None else self.runs
        self.bits = [] if self.bits is None else self.bits
        self.tags = [] if self.tags is None else self.tags

    def take_all(self, consumed: list[object]) -> int:
        """Empties the level into a merge; returns its entries, adds its runs' tags."""
        entries = sum(self.runs)
        consumed.extend(reversed(self.tags))
        self.runs.clear()
        self.bits.clear()
        self.tags.clear()
        return entries

    def active_full(self) -> bool:
        if not self.runs:
            return True
        return self.runs[-1] >= self.capacity / self.max_runs * (1.0 - TOLERANCE)

    def would_overflow(self, incoming: int) -> bool:
        if sum(self.runs) + incoming > self.capacity * (1.0 + TOLERANCE):
            return True
        return self.active_full() and len(self.runs) >= self.max_runs


def realized_bloom_fpr(entries: float, bits_per_key: float) -> float:
    """FPR of a Bloom filter as built: m = max(64, ceil(n b)) bits, k = max(1, round(b ln 2))."""
    if bits_per_key <= 0.0 or entries <= 0:
        return 1.0
    m = max(64.0, math.ceil(entries * bits_per_key))
    k = max(1, int(math.floor(bits_per_key * math.log(2.0) + 0.5)))
    return (-math.expm1(-k * entries / m)) ** k


def _apply_shape(
    knobs: tuple[float, float, float, float, float],
    n_est: float,
    buffer_entries: int,
    levels: list[_Level],
    budget: dict[str, float],
    uniform: bool,
) -> None:
    """Set L, capacities, integer a_i and FPRs top-down from ``n_est`` (App. E)."""
    T, C, X, K, Z = knobs
    L_new = int(num_levels(T, C, X, n_est / buffer_entries))
    if not levels:
        levels.append(_Level())
    if L_new > len(levels):
        levels[:0] = [_Level() for _ in range(L_new - len(levels))]
    elif L_new < len(levels):
        removable = 0
        while removable + 1 < len(levels) and not levels[removable].runs:
            removable += 1
        del levels[: min(removable, len(levels) - L_new)]
    L = len(levels)
    depth = np.arange(L - 1, -1, -1, dtype=float)
    _, fractions, runs = shape_at_depth(T, C, X, K, Z, depth, integer_runs=True)
    if uniform:
        fprs = (
            filters.uniform_fprs_for_memory(runs, budget["bits_per_entry"])
            if "bits_per_entry" in budget
            else filters.uniform_fprs_for_sum(runs, budget["sum_fpr"])
        )
    elif "bits_per_entry" in budget:
        fprs = filters.lagrangian_fprs_for_memory(fractions, runs, budget["bits_per_entry"])
    else:
        fprs = filters.lagrangian_fprs_for_sum(fractions, runs, budget["sum_fpr"])
    for lvl, frac, a, p in zip(levels, fractions, runs, fprs, strict=True):
        lvl.capacity = float(frac * n_est)
        lvl.max_runs = float(a)
        lvl.fpr = float(p)


@dataclass(frozen=True)
class MergeStep:
    """What one flush did: the runs merged with the buffer (their tags, newest first), the new
    run's entries and filter, and whether it reached Level L."""

    consumed: tuple[object, ...]
    entries: int
    bits_per_key: float
    major: bool


@dataclass
class PolicyReplay:
    """The policy's state while it replays flushes: :func:`grow`, :func:`steady_window`, and the
    RocksDB compaction driver (``validation.rocksdb_driver``)."""

    knobs: tuple[float, float, float, float, float]
    buffer_entries: int
    entries_per_block: int
    budget: dict[str, float]
    uniform: bool
    levels: list[_Level]
    n_est: float = 0.0
    blocks_written: int = 0
    flushes: int = 0

    @classmethod
    def start(cls, knobs, buffer_entries: int, entries_per_block: int,
              bits_per_entry: float | None, sum_fpr: float | None, uniform: bool) -> PolicyReplay:
        if (bits_per_entry is None) == (sum_fpr is None):
            raise ValueError("give exactly one of bits_per_entry or sum_fpr")
        if buffer_entries < 1 or entries_per_block < 1:
            raise ValueError("buffer_entries and entries_per_block must be >= 1")
        budget = {"bits_per_entry": bits_per_entry} if bits_per_entry is not None else {
            "sum_fpr": sum_fpr
        }
        replay = cls(tuple(float(v) for v in knobs), buffer_entries, entries_per_block, budget,
                     uniform, [])
        _apply_shape(replay.knobs, 0.0, buffer_entries, replay.levels, budget, uniform)
        return replay

    def flush(self) -> bool:
        """One flush of a full buffer and the merges it causes; True if it reached Level L."""
        return self.plan_flush().major

    def plan_flush(self, tag: object = None) -> MergeStep:
        """:meth:`flush`, saying which runs it merged: the new run carries ``tag``."""
        levels = self.levels
        size = self.buffer_entries
        consumed: list[object] = []
        L = len(levels)
        j = 0
        while j + 1 < L and levels[j].would_overflow(size):
            size += levels[j].take_all(consumed)
            j += 1
        target = levels[j]
        major = j + 1 == L
        if not target.active_full():
            size += target.runs.pop()
            target.bits.pop()
            consumed.append(target.tags.pop())
        elif major and len(target.runs) >= target.max_runs:
            size += target.take_all(consumed)
        self.blocks_written += -(-size // self.entries_per_block)
        self.flushes += 1
        target.runs.append(size)
        target.bits.append(0.0)  # set below, once the shape the run lands in is known
        target.tags.append(tag)
        if major:
            C = self.knobs[1]
            self.n_est = sum(target.runs) * (C + 1.0) / C
            _apply_shape(self.knobs, self.n_est, self.buffer_entries, levels, self.budget,
                         self.uniform)
        target.bits[-1] = float(filters.bloom_bits_per_key(target.fpr))
        return MergeStep(consumed=tuple(consumed), entries=size, bits_per_key=target.bits[-1],
                         major=major)

    def level_L_state(self) -> tuple[int, bool]:
        """Level L's runs and whether its active run is full (a run boundary after a major
        merge)."""
        last = self.levels[-1]
        return len(last.runs), last.active_full()


def grow(
    T: float,
    C: float,
    X: float,
    K: float,
    Z: float,
    *,
    entries: int,
    buffer_entries: int,
    entries_per_block: int,
    bits_per_entry: float | None = None,
    sum_fpr: float | None = None,
    uniform: bool = False,
) -> GrownTree:
    """Replay the merge policy for ``entries`` unique inserts into an empty tree.

    The buffer flushes when it is full and one more entry arrives, so ``entries - 1`` // F
    flushes happen and the rest stays buffered.
    """
    if entries < 0:
        raise ValueError(f"entries must be >= 0; got {entries}")
    replay = PolicyReplay.start((T, C, X, K, Z), buffer_entries, entries_per_block,
                                bits_per_entry, sum_fpr, uniform)
    flushes = (entries - 1) // buffer_entries if entries > 0 else 0
    for _ in range(flushes):
        replay.flush()
    grown = tuple(
        GrownLevel(lvl.capacity, lvl.max_runs, lvl.fpr, tuple(lvl.runs), tuple(lvl.bits))
        for lvl in replay.levels
    )
    return GrownTree(
        levels=grown,
        inserted=int(entries),
        buffered=int(entries - flushes * buffer_entries),
        blocks_written=int(replay.blocks_written),
        flushes=int(flushes),
        n_est=replay.n_est,
        entries_per_block=int(entries_per_block),
    )


@dataclass(frozen=True)
class SimulatedWindow:
    """The steady window of :mod:`validation.window`, replayed on entry counts."""

    write_amp: float  # blocks written per block inserted over the window
    writes: int  # inserts in the window
    major_compactions: int
    full_merges_skipped: int
    level_L_runs_at_start: int
    complete: bool  # ended at a run boundary, not at the cap


@dataclass
class ReplaySession:
    """:class:`PolicyReplay` as a :class:`validation.window.Session`: a step is one buffer's
    flush; ``flush`` does it (the RocksDB driver's carries it out on RocksDB too)."""

    replay: PolicyReplay
    flush: Callable[[], bool]

    def can_step(self) -> bool:
        return True

    def step(self) -> tuple[int, int]:
        return self.replay.buffer_entries, int(self.flush())

    def level_L(self) -> tuple[int, bool, float]:
        return (*self.replay.level_L_state(), self.replay.levels[-1].max_runs)

    def cycle_hint(self) -> float:
        levels = self.replay.levels
        return levels[-2].capacity if len(levels) > 1 else self.replay.buffer_entries

    def counters(self) -> int:
        return self.replay.blocks_written

    def idle(self) -> None:
        pass


def steady_window(
    T: float,
    C: float,
    X: float,
    K: float,
    Z: float,
    *,
    entries: int,
    buffer_entries: int,
    entries_per_block: int,
    bits_per_entry: float | None = None,
    sum_fpr: float | None = None,
    uniform: bool = False,
) -> SimulatedWindow:
    """Preload ``entries``, then the whole-level window (:func:`validation.window.measure`)."""
    replay = PolicyReplay.start((T, C, X, K, Z), buffer_entries, entries_per_block,
                                bits_per_entry, sum_fpr, uniform)
    for _ in range((entries - 1) // buffer_entries):  # its last buffer flushes in the warm-up
        replay.flush()
    run = window.measure(ReplaySession(replay, replay.flush),
                         window.whole_levels(entries, buffer_entries))
    return SimulatedWindow(
        write_amp=(run.end - run.begin) * entries_per_block / run.writes if run.writes
        else math.nan,
        writes=run.writes,
        major_compactions=run.major_compactions,
        full_merges_skipped=run.full_merges_skipped,
        level_L_runs_at_start=run.level_L_runs_at_start,
        complete=run.complete,
    )


@dataclass(frozen=True)
class GrownCosts:
    """Expected I/O of each operation on a simulated tree (the counterparts of Eq 14-15)."""

    write_amp: float  # blocks written by flushes and merges, per block of inserted data
    zero_result_read: float
    point_read: float  # an entry of Level L (the worst case, as Eq 15)
    point_read_uniform: float  # an entry drawn uniformly from all inserted entries
    range_runs: float  # runs a range read probes (those whose key range it overlaps)
    memory_bits_per_entry: float  # filter bits per entry stored in runs


def _run_fprs(tree: GrownTree) -> list[list[float]]:
    return [
        [realized_bloom_fpr(n, b) for n, b in zip(lvl.run_entries, lvl.run_bits_per_key,
                                                    strict=True)]
        for lvl in tree.levels
    ]


def range_overlap_probability(run_entries: int, range_share: float) -> float:
    """Chance that a range covering ``range_share`` of a uniform key space overlaps a run.

    A run of n uniform keys spans [min, max]; a range [lo, lo + w] misses it when it ends before
    min, with chance E[max(0, min - w)] = (1 - w)^(n+1) / (n+1), or starts after max, with chance
    E[1 - max] = 1/(n+1). Small runs are skipped noticeably often; large ones almost never.
    """
    n = run_entries
    w = min(max(range_share, 0.0), 1.0)
    if n <= 0:
        return 0.0
    return max(0.0, 1.0 - (1.0 - w) ** (n + 1) / (n + 1) - 1.0 / (n + 1))


def grown_costs(tree: GrownTree, range_entries: float = 1.0) -> GrownCosts:
    """Probe costs run by run, newest first, as a point read walks the tree.

    ``range_entries`` is how many entries a range read covers, for the chance that it overlaps
    each run's key range (runs it misses are not probed).
    """
    fprs = _run_fprs(tree)
    # Newest run first: Level 1's last run ... Level L's first run.
    order = [(i, j) for i in range(len(tree.levels)) for j in
             range(len(tree.levels[i].run_entries) - 1, -1, -1)]
    false_positives_before = 0.0
    uniform_total = 0.0
    worst_total = 0.0
    last = len(tree.levels) - 1
    for i, j in order:
        n = tree.levels[i].run_entries[j]
        cost_here = 1.0 + false_positives_before
        uniform_total += n * cost_here
        if i == last:
            worst_total += n * cost_here
        false_positives_before += fprs[i][j]
    stored = tree.stored
    level_L = tree.levels[last].entries
    filter_bits = sum(
        max(64.0, math.ceil(n * b)) if b > 0 and n > 0 else 0.0
        for lvl in tree.levels
        for n, b in zip(lvl.run_entries, lvl.run_bits_per_key, strict=True)
    )
    B = tree.entries_per_block
    return GrownCosts(
        write_amp=tree.blocks_written * B / tree.inserted if tree.inserted else 0.0,
        zero_result_read=false_positives_before,
        point_read=worst_total / level_L if level_L else 0.0,
        # Buffered entries are answered from memory, at no I/O.
        point_read_uniform=uniform_total / tree.inserted if tree.inserted else 0.0,
        range_runs=sum(
            range_overlap_probability(n, range_entries / tree.inserted if tree.inserted else 1.0)
            for lvl in tree.levels for n in lvl.run_entries
        ),
        memory_bits_per_entry=filter_bits / stored if stored else 0.0,
    )
