"""File-granular (partial) merging of a leveled tree: RocksDB's leveled compaction and the native
engine's ``granularity='file'``. Derived in ``docs/MODEL.md`` ("Files and partial merges", P1-P5).

* P1 Overlap. A level that overflows sends one file down, merged with the files of the next level
  that overlap it. The file picked (round-robin, or least overlap) lies where the level is
  densest; the level below holds, in its key range, (r - 1)/2 of the file's entries on average
  (small files), for r = S_{i+1} / S_i the ratio of the two levels' sizes. So moving Delta
  entries down writes Delta (r + 1)/2 entries, not Delta (r + 1) as a whole-level merge does. A
  file that is a large share of its level spans more than its share of the keys (P1 in
  docs/MODEL.md gives the general form).
* P2 Whole files. A level is cut back below its target a file at a time, so after its drain it
  holds its target less half a file on average.
* P3 Level 0. With a trigger of k runs, k flushes gather as separate runs and then merge together
  with all of the level below (a flush spans the key space, so every file overlaps it): that
  merge writes k F + S_base entries per k F inserted. RocksDB also merges level 0 when its
  bytes outgrow ``max_bytes_for_level_base``, whatever the trigger.
* P4 Targets. RocksDB's static targets (base, base T, base T^2, ...), its dynamic ones (from the
  largest level up, the base level's target kept in (base / T, base]), or the Wacky engine's
  (Eq 9 capacities at n = S_L (C+1)/C, App. E's re-anchoring).
* P5 The window. Sizes move with the data, and the last level grows through a window that
  doubles the data, so the costs are those of the size path from an empty tree through the
  preload and the window, one flush at a time: an expectation over the mean sizes (no keys, no
  files), O(flushes x levels).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from cost_models.structure import num_levels, structure

TARGET_RULES = ("static", "dynamic", "wacky")


@dataclass(frozen=True)
class LeveledFiles:
    """The compaction rules of a leveled tree whose levels are made of files.

    Sizes are in entries. ``base_entries`` and ``num_levels`` are RocksDB's
    ``max_bytes_for_level_base`` (in entries) and the levels below level 0 (``num_levels - 1``);
    the Wacky rule uses ``C`` instead. ``flush_writes``: a flush is written as a level-0 file
    before it merges (RocksDB always; the native engine when ``level0_runs`` > 1).
    """

    T: float
    flush_entries: float
    file_entries: float
    level0_runs: int = 1
    targets: str = "dynamic"
    base_entries: float = 0.0
    num_levels: int = 6
    C: float | None = None
    flush_writes: bool = True
    # Files of the next level a merge rewrites beyond its overlap (P1's boundary term): 1 when
    # output files are cut at a fixed size wherever a merge starts (the native engine), 0 when
    # they are cut at the next level's boundaries and inputs expand to whole files (RocksDB).
    boundary_files: float = 0.0

    def __post_init__(self) -> None:
        if self.targets not in TARGET_RULES:
            raise ValueError(f"targets must be one of {', '.join(TARGET_RULES)}; got "
                             f"{self.targets!r}")
        if not self.T > 1:
            raise ValueError(f"T must be above 1; got {self.T}")
        if not self.flush_entries >= 1 or not self.file_entries >= 1:
            raise ValueError("flush_entries and file_entries must be at least 1 entry; got "
                             f"{self.flush_entries}, {self.file_entries}")
        if not 1 <= self.level0_runs <= 1000:
            raise ValueError(f"level0_runs must be in [1, 1000]; got {self.level0_runs}")
        if self.targets != "wacky" and not (self.base_entries > 0 and self.num_levels >= 1):
            raise ValueError("RocksDB's targets need base_entries > 0 and num_levels >= 1")


@dataclass(frozen=True)
class WindowCosts:
    """Costs of a window of inserts: write amplification in entries written per entry inserted,
    and the tree a read meets, averaged over the window's flushes."""

    write_amp: float
    level_write_amp: tuple[float, ...]  # per level below level 0 (index 0: Level 1)
    level_entries: tuple[float, ...]  # mean entries per level (index 0: Level 1)
    level_in_use: tuple[float, ...]  # share of the window each level held data
    level0_runs: float  # mean runs waiting in level 0

    @property
    def nonempty_levels(self) -> float:
        """Mean levels below level 0 that hold data."""
        return float(sum(self.level_in_use))


def _dynamic_targets(S: list[float], T: float, base: float) -> list[float]:
    """RocksDB's ``level_compaction_dynamic_level_bytes``: the largest level fixes the others,
    each T times smaller, and the highest level in use (the base, where level 0 merges) has its
    target kept within (base / T, base]; levels above it are unused (target 0)."""
    n = len(S)
    largest = max(S)
    targets = [0.0] * n
    if largest <= 0:
        targets[-1] = math.inf
        return targets
    first = next(i for i, s in enumerate(S) if s > 0)
    size = largest / T ** (n - 1 - first)
    level = first
    if size <= base / T:
        size = base / T
    else:
        while level > 0 and size > base:
            level -= 1
            size /= T
        size = min(size, base)
    for i in range(level, n):
        targets[i] = max(size * T ** (i - level), base)
    targets[-1] = math.inf
    return targets


def _static_targets(n: int, T: float, base: float) -> list[float]:
    return [base * T**i for i in range(n - 1)] + [math.inf]


def _wacky_targets(S: list[float], policy: LeveledFiles) -> list[float]:
    """Eq 9 capacities at n = S_L (C+1)/C for as many levels as Eq 10 asks (App. E)."""
    C = policy.C if policy.C is not None else policy.T - 1
    return _wacky_targets_at(S[-1] * (C + 1) / C, policy)


def _wacky_targets_at(n_est: float, policy: LeveledFiles) -> list[float]:
    C = policy.C if policy.C is not None else policy.T - 1
    L = max(1, int(num_levels(policy.T, C, 1.0, n_est / policy.flush_entries))) if n_est > 0 else 1
    return [f * n_est for f in _fractions(policy.T, C, L)[:-1]] + [math.inf]


@functools.lru_cache(maxsize=4096)
def _fractions(T: float, C: float, L: int) -> tuple[float, ...]:
    """Eq 9's shares N_i / N of an L-level tree: they depend on T, C and L only."""
    # The N/F in the middle of Eq 10's range for L levels (X = 1).
    n_buffers = float(T) ** (L - 1.5) * (C + 1) * T / (T - 1)
    s = structure(T, C, 1.0, 0.0, 0.0, n_buffers)
    if int(s.L) != L:
        raise ArithmeticError(f"no N/F gives {L} levels at T={T}, C={C}")
    return tuple(float(f) for f in np.asarray(s.fractions, dtype=float)[:L])


def capacities(policy: LeveledFiles, entries: float) -> list[float]:
    """The native engine's level capacities (Eq 9, App. E) in a tree of ``entries``, Level L's
    included: what its filter allocation weighs the levels by."""
    C = policy.C if policy.C is not None else policy.T - 1
    upper = _wacky_targets_at(float(entries), policy)[:-1]
    return upper + [float(entries) * C / (C + 1)]


def _targets(S: list[float], policy: LeveledFiles) -> list[float]:
    if policy.targets == "dynamic":
        return _dynamic_targets(S, policy.T, policy.base_entries)
    if policy.targets == "static":
        return _static_targets(len(S), policy.T, policy.base_entries)
    return _wacky_targets(S, policy)


def _level0_limit(policy: LeveledFiles, base_target: float) -> float:
    """RocksDB also merges level 0 once it outgrows max_bytes_for_level_base (and, with dynamic
    targets, the base level's target over T), whatever the trigger (P3)."""
    limit = policy.base_entries
    if policy.targets == "dynamic" and math.isfinite(base_target):
        limit = max(limit, base_target / policy.T)
    return limit


def _merge_cost(moved: float, upper: float, lower: float, file: float,
                boundary_files: float = 0.0) -> float:
    """P1: entries written when ``moved`` entries leave a level of ``upper`` entries for one of
    ``lower``, a file of ``file`` entries at a time: each file with the entries below it, those
    of (r - 1) S_i (1 - sqrt(1 - file / S_i)) of the key space, which is f (r - 1)/2 for small
    files and the whole level below but its newest push for a file as large as the level;
    plus ``boundary_files`` files of the level below cut through at the range's ends."""
    if lower <= 0 or upper <= 0:
        return moved
    r = lower / upper
    share = min(1.0, file / upper)
    overlap = max(0.0, (r - 1.0) * upper * (1.0 - math.sqrt(1.0 - share)))
    overlap = min(lower, overlap + boundary_files * min(file, lower))
    return moved * (1.0 + overlap / min(file, upper))


def settled_sizes(policy: LeveledFiles, entries: float) -> list[float]:
    """The sizes a tree of ``entries`` settles at (P2, P4): every level but the last at its
    target less half a file, the last holding the rest."""
    S = [0.0] * (policy.num_levels if policy.targets != "wacky" else 1)
    S[-1] = float(entries)
    for _ in range(64):
        # The engine's capacities are those of n = S_L (C+1)/C, which is N once settled.
        targets = (_wacky_targets_at(float(entries), policy) if policy.targets == "wacky"
                   else _targets(S, policy))
        while len(targets) > len(S):
            S.insert(0, 0.0)
        del S[: len(S) - len(targets)]  # fewer levels at this size: the top ones go
        new = [0.0] * len(S)
        rest = float(entries)
        for i in range(len(S) - 1):
            new[i] = min(rest, max(0.0, targets[i] - policy.file_entries / 2.0))
            rest -= new[i]
        new[-1] = rest
        if all(abs(a - b) <= 1e-9 * entries for a, b in zip(new, S, strict=True)):
            break
        S = new
    return S


def window_costs(policy: LeveledFiles, preload: float, window: float,
                 settled: bool = False) -> WindowCosts:
    """P1-P5: the costs of ``window`` inserts of new keys after ``preload`` of them, into a tree
    that starts empty (or, with ``settled``, starts at :func:`settled_sizes` for the preload)."""
    if not preload >= 0 or not window >= policy.flush_entries:
        raise ValueError(f"window must hold at least one flush ({policy.flush_entries:g} "
                         f"entries) and preload must be >= 0; got {window}, {preload}")
    F, f, k = policy.flush_entries, policy.file_entries, policy.level0_runs
    if settled:
        S = settled_sizes(policy, preload)
        preload = 0.0
    else:
        S = [0.0] * (policy.num_levels if policy.targets != "wacky" else 1)
    level0 = 0
    flushes_before = int(round(preload / F))
    flushes = flushes_before + max(1, int(round(window / F)))
    written = [0.0] * len(S)
    flush_written = 0.0
    sizes = [0.0] * len(S)
    in_use = [0.0] * len(S)
    level0_sum = 0.0
    for step in range(flushes):
        counting = step >= flushes_before
        level0 += 1
        if policy.flush_writes and counting:
            flush_written += F
        # Targets move with the largest level, a flush at a time: taken once per flush.
        targets = _targets(S, policy)
        while len(targets) > len(S):  # Eq 10 asks for a level more: added on top
            for track in (S, written, sizes, in_use):
                track.insert(0, 0.0)
        base = next((i for i, t in enumerate(targets) if t > 0), len(S) - 1)
        if level0 >= k or (policy.targets != "wacky"
                           and level0 * F > _level0_limit(policy, targets[base])):
            batch = level0 * F
            if counting:
                written[base] += batch + S[base]
            S[base] += batch
            level0 = 0
        # Drains, the most overfull level first (P2): a level over its target sends whole
        # files down until it is below it, half a file below on average.
        while True:
            over = [i for i in range(len(S) - 1) if S[i] > targets[i]]
            if not over:
                break
            i = max(over, key=lambda j: S[j] / targets[j])
            moved = S[i] - max(0.0, targets[i] - f / 2.0)
            if counting:
                # The sizes that set the overlap are each level's mean over its batch (P1):
                # the upper one less half of what leaves, the lower one plus half of it.
                written[i + 1] += _merge_cost(moved, S[i] - moved / 2, S[i + 1] + moved / 2, f,
                                              policy.boundary_files)
            S[i] -= moved
            S[i + 1] += moved
        if counting:
            for i, s in enumerate(S):
                sizes[i] += s
                in_use[i] += s > 0
            level0_sum += level0
    counted = flushes - flushes_before
    inserted = counted * F
    level_wa = tuple(w / inserted for w in written)
    return WindowCosts(
        write_amp=(flush_written + sum(written)) / inserted,
        level_write_amp=level_wa,
        level_entries=tuple(s / counted for s in sizes),
        level_in_use=tuple(u / counted for u in in_use),
        level0_runs=level0_sum / counted,
    )
