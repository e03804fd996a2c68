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

from dataclasses import dataclass


@dataclass(frozen=True)
class UniversalRules:
    """RocksDB's ``compaction_options_universal`` and trigger, with the flush size in entries."""

    flush_entries: float
    trigger: int
    min_merge_width: int = 2
    max_merge_width: int = 1 << 30
    size_ratio: float = 1.0
    max_size_amplification_percent: float = 200.0

    def __post_init__(self) -> None:
        if not self.flush_entries >= 1:
            raise ValueError(f"flush_entries must be at least 1; got {self.flush_entries}")
        if not 1 <= self.trigger <= 1 << 30:
            raise ValueError(f"trigger must be at least 1; got {self.trigger}")
        if not 2 <= self.min_merge_width <= self.max_merge_width:
            raise ValueError("min_merge_width must be at least 2 and at most max_merge_width; "
                             f"got {self.min_merge_width}, {self.max_merge_width}")
        if not self.size_ratio >= 0 or not self.max_size_amplification_percent > 0:
            raise ValueError("size_ratio must be >= 0 and max_size_amplification_percent > 0")


@dataclass(frozen=True)
class UniversalCosts:
    write_amp: float  # entries written per entry inserted, flushes included
    runs: float  # mean sorted runs a read meets, over the window
    full_merges: int  # U2's merges of everything, over the window
    final_runs: tuple[float, ...]  # run sizes at the end, newest first


def _pick(runs: list[float], r: UniversalRules) -> tuple[int, int] | None:
    """The stretch [start, end) of ``runs`` (newest first) that merges next, or None."""
    n = len(runs)
    if n < r.trigger or n < 2:
        return None
    newer = sum(runs[:-1])
    if newer * 100.0 >= r.max_size_amplification_percent * runs[-1]:  # U2
        return 0, n
    grow = (100.0 + r.size_ratio) / 100.0
    for start in range(n):  # U3
        total, count = runs[start], 1
        for nxt in runs[start + 1:]:
            if count >= r.max_merge_width or total * grow < nxt:
                break
            total += nxt
            count += 1
        if count >= r.min_merge_width:
            return start, start + count
    if n > r.trigger:  # U4
        count = min(n - r.trigger + 1, r.max_merge_width)
        if count >= r.min_merge_width:
            return 0, count
    return None


def universal_costs(rules: UniversalRules, preload: float, window: float) -> UniversalCosts:
    """U1-U4 from an empty tree: ``window`` inserts of new keys after ``preload``."""
    if not preload >= 0 or not window >= rules.flush_entries:
        raise ValueError(f"window must hold at least one flush ({rules.flush_entries:g} "
                         f"entries) and preload must be >= 0; got {window}, {preload}")
    F = rules.flush_entries
    before = int(round(preload / F))
    total = before + max(1, int(round(window / F)))
    runs: list[float] = []
    written = runs_sum = 0.0
    full = 0
    for step in range(total):
        counting = step >= before
        runs.insert(0, F)
        if counting:
            written += F
        while (stretch := _pick(runs, rules)) is not None:
            start, end = stretch
            merged = sum(runs[start:end])
            if counting:
                written += merged
                full += end - start == len(runs)
            runs[start:end] = [merged]
        if counting:
            runs_sum += len(runs)
    counted = total - before
    return UniversalCosts(written / (counted * F), runs_sum / counted, full, tuple(runs))
