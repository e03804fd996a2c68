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
  starts. A level of fewer than a_i buffers holds fewer runs: every flush is a run of at least
  one buffer and the level overflows at N_i (the bound a_i itself is not capped, as in the
  engine).
* **Preemptive merging.** A flush that would overflow Level i sweeps Level i into the merge at
  once, so it writes straight into the deepest level it reaches, flush by flush.
* **Filters as built.** Each run keeps the Bloom filter built for it when it was written, with a
  whole number of probes k = round(b ln 2) and m = ceil(n b) bits, so its FPR is
  (1 - e^(-k n / m))^k rather than e^(-b ln(2)^2).

Like the engine, it imports no project Python outside ``native_engine``: it carries its own copy
of the structure equations and filter allocations below.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

# ---- The structure equations and filter allocations, as the engine computes them --------------
# A scalar copy of native_engine/src/structure.h (Eq 8-10, 13 and App. C), which mirrors
# cost_models/structure.py and cost_models/filters.py; tests/test_simulator_structure.py checks
# this copy against cost_models on a grid of designs. a_i here is the engine's bound, Eq 13
# rounded and uncapped (cost_models' ``Structure.run_bound``); the runs a level can hold,
# max(1, floor(N_i/F)), follow from the policy (``_Level.would_overflow``), as in the engine.

TOLERANCE = 1e-9  # kRelTol in native_engine/src/level.cc: N_i / a_i and N_i up to rounding
LEVEL_CEIL_TOLERANCE = 1e-9  # kLevelCeilTolerance: an exact fit of L levels is not L + 1
X_ONE_TOLERANCE = 1e-12  # below this |X - 1| the Capped Lazy Leveling limits are used
LN2_SQ = math.log(2.0) ** 2


def _log(x: float) -> float:  # C's log: -inf at 0, NaN below
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _exp(x: float) -> float:  # C's exp: inf on overflow
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def exponent_sum(k: float, X: float) -> float:
    """(X^k - 1)/(X - 1), and k as X -> 1."""
    d = X - 1.0
    if abs(d) < X_ONE_TOLERANCE:
        return k
    try:
        return math.expm1(k * math.log1p(d)) / d
    except OverflowError:
        return math.inf


def num_levels(T: float, C: float, X: float, n_buffers: float) -> int:
    """Eq 10: the number of levels for N/F = ``n_buffers`` (1 when the logarithm is invalid)."""
    log_t = _log(n_buffers / (C + 1.0) * (T - 1.0) / T) / math.log(T)
    d = X - 1.0
    if abs(d) < X_ONE_TOLERANCE:
        real = 1.0 + log_t
    else:
        inner = d * log_t
        real = 1.0 + math.log1p(inner) / math.log1p(d) if inner > -1.0 else -math.inf
    if math.isnan(real) or math.isinf(real):
        return 1 << 20 if real > 0 else 1
    return max(1, int(math.ceil(real - LEVEL_CEIL_TOLERANCE * max(1.0, abs(real)))))


def round_runs(runs: float) -> float:
    """How the engine turns a real run bound into a whole number of runs: half up, at least 1."""
    return max(1.0, math.floor(runs + 0.5))


def level_at_depth(T: float, C: float, X: float, K: float, Z: float, depth: int,
                   integer_runs: bool = True) -> tuple[float, float, float]:
    """(r_i, N_i / N, a_i) of the level ``depth`` levels above Level L (Eq 8, 9, 13)."""
    if depth == 0:
        ratio, fraction, runs = C * T / (T - 1.0), C / (C + 1.0), C**Z
    else:
        log_t = math.log(T)
        try:
            log_r = X ** (depth - 1) * log_t
        except OverflowError:
            log_r = math.inf
        ratio = _exp(log_r)
        fraction = _exp(-exponent_sum(depth - 1.0, X) * log_t) * -math.expm1(-log_r) / (C + 1.0)
        runs = _exp(K * log_r) if log_r > 50 else _exp(K * math.log(math.expm1(log_r)))
    return ratio, fraction, round_runs(runs) if integer_runs else runs


def lagrangian_fprs(n: list[float], a: list[float], bits_per_entry: float | None = None,
                    sum_fpr: float | None = None) -> list[float]:
    """App. C with caps: p_i = min(1, mu n_i / a_i), mu set by a target sum of a_i p_i or a
    budget of bits per entry; levels with n_i = 0 get 1 (no filter)."""
    out = [1.0] * len(n)
    order = sorted((i for i in range(len(n)) if n[i] > 0), key=lambda i: a[i] / n[i])
    if sum_fpr is not None:
        if not sum_fpr > 0.0:
            raise ValueError("sum_fpr must be > 0")
        if sum_fpr >= sum(a):
            return out
        capped_a, free_n, mu = 0.0, sum(n[i] for i in order), 0.0
        for k in range(len(order) + 1):  # the first k levels (smallest a_i / n_i) capped
            if free_n <= 0:
                break
            mu = (sum_fpr - capped_a) / free_n
            if k == len(order) or mu <= a[order[k]] / n[order[k]]:
                break
            capped_a += a[order[k]]
            free_n -= n[order[k]]
    else:
        if not (bits_per_entry is not None and math.isfinite(bits_per_entry)
                and bits_per_entry >= 0.0):
            raise ValueError("bits_per_entry must be a finite number >= 0")
        if bits_per_entry == 0.0 or not order:
            return out
        budget = bits_per_entry * LN2_SQ * sum(n)
        sum_n = sum(n[i] for i in order)
        sum_nlogb = sum(n[i] * math.log(a[i] / n[i]) for i in order)
        log_mu = 0.0
        for i in order:
            log_mu = (sum_nlogb - budget) / sum_n
            log_b = math.log(a[i] / n[i])
            if log_mu <= log_b:
                break
            sum_n -= n[i]  # Level i caps at p = 1 in this segment: drop it
            sum_nlogb -= n[i] * log_b
            if sum_n <= 0:
                return out
        mu = math.exp(log_mu)
    for i in order:
        out[i] = min(1.0, mu * n[i] / a[i])
    return out


def uniform_fprs(a: list[float], bits_per_entry: float | None = None,
                 sum_fpr: float | None = None) -> list[float]:
    """One FPR for every run (industry systems): sum a_i p_i = ``sum_fpr`` (at most 1 each), or
    e^(-M ln(2)^2) for M = ``bits_per_entry``."""
    if sum_fpr is not None:
        if not (sum_fpr > 0.0 and math.isfinite(sum_fpr)):
            raise ValueError("sum_fpr must be a finite number > 0")
        eps = min(1.0, sum_fpr / sum(v for v in a if v > 0))
    else:
        if not (bits_per_entry is not None and math.isfinite(bits_per_entry)
                and bits_per_entry >= 0.0):
            raise ValueError("bits_per_entry must be a finite number >= 0")
        eps = math.exp(-bits_per_entry * LN2_SQ)
    return [eps if v > 0 else 1.0 for v in a]


def bloom_bits_per_key(fpr: float) -> float:
    """ln(1/p)/ln(2)^2 bits per key for FPR p; 0 (no filter) at p >= 1."""
    return 0.0 if fpr >= 1.0 else math.log(1.0 / fpr) / LN2_SQ


# ---- The merge policy -------------------------------------------------------------------------


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
    """Set L, capacities, integer a_i and FPRs top-down from ``n_est`` (App. E; ApplyShape and
    AllocateFprs in ``native_engine/src/merge_policy.cc``)."""
    T, C, X, K, Z = knobs
    L_new = num_levels(T, C, X, n_est / buffer_entries)
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
    shapes = [level_at_depth(T, C, X, K, Z, L - 1 - i) for i in range(L)]
    for lvl, (_, fraction, runs) in zip(levels, shapes, strict=True):
        lvl.capacity = fraction * n_est
        lvl.max_runs = runs
    # Filters are allocated over the runs a level can hold: a_i capped at its capacity in
    # buffers (Level::held_runs).
    runs = [min(lvl.max_runs, max(1.0, math.floor(lvl.capacity / buffer_entries
                                                  * (1.0 + TOLERANCE))))
            if lvl.capacity > 0 else lvl.max_runs for lvl in levels]
    if uniform:
        fprs = uniform_fprs(runs, **budget)
    else:
        # Level sizes in any common scale: the capacities, or the fractions of an empty tree.
        sizes = [max(lvl.capacity, 0.0) for lvl in levels]
        fprs = lagrangian_fprs(sizes if any(s > 0 for s in sizes) else [s[1] for s in shapes],
                               runs, **budget)
    for lvl, p in zip(levels, fprs, strict=True):
        lvl.fpr = p


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
    """The policy's state while it replays flushes: :func:`grow`,
    ``validation.predict.steady_window`` and the RocksDB compaction driver
    (``validation.rocksdb_driver``)."""

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
        target.bits[-1] = bloom_bits_per_key(target.fpr)
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

    def start_window(self) -> None:
        pass  # the simulator meters no disk


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
