"""File-granular (partial) merging of a leveled tree: RocksDB's leveled compaction and the native
engine's ``granularity='file'``. Derived in ``docs/MODEL.md`` ("Files and partial merges", P1-P5).

* P1 Overlap. An overflowing level sends one file down, merged with the files of the next level
  that overlap it, (r - 1)/2 of its entries for small files (r = S_{i+1} / S_i): moving Delta
  entries writes Delta (r + 1)/2, not Delta (r + 1) as a whole-level merge does.
* P2 Whole files. A drained level holds its target less half a file on average.
* P3 Level 0. k flushes gather as runs, then merge with all of the level below: k F + S_base
  entries written per k F inserted (RocksDB also merges once level 0 outgrows its base).
* P4 Targets. RocksDB's static or dynamic targets, or the Wacky engine's (Eq 9 capacities at
  n = S_L (C+1)/C, App. E's re-anchoring).
* P5 The window. The costs are those of the mean sizes' path from an empty tree through the
  preload and the window, a flush at a time: O(flushes x levels).

:func:`window_costs` walks one design's flushes in Python; :func:`window_costs_many` walks many
together with numpy, a row a design, bit for bit the same (the same operations in the same order).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from cost_models.log_merges import batched_levels, log_sizes
from cost_models.structure import LEVEL_CEIL_TOLERANCE, num_levels, structure

TARGET_RULES = ("static", "dynamic", "wacky")


@dataclass(frozen=True)
class LeveledFiles:
    """The compaction rules of a leveled tree whose levels are made of files. Sizes are in
    entries. ``base_entries`` and ``num_levels`` are RocksDB's ``max_bytes_for_level_base`` (in
    entries) and the levels below level 0 (``num_levels - 1``); the Wacky rule uses ``C``
    instead. ``flush_writes``: a flush is written as a level-0 file before it merges (RocksDB
    always; the native engine when ``level0_runs`` > 1)."""

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
    # L2SM's per-level log (cost_models.log_merges, L1): its share of the tree (0: none) and
    # the batch cap, the files below a batch at most per file of it.
    log_ratio: float = 0.0
    log_batch_cap: float = 10.0
    # OHDB's partitioned level 0 (P6): level 0 and Level 1 cut at this many equally spaced keys,
    # each partition merging into its own Level 1 files (1: none).
    l0_partitions: int = 1

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
        if (isinstance(self.l0_partitions, bool) or not isinstance(self.l0_partitions, int)
                or not 1 <= self.l0_partitions <= 1024):
            raise ValueError(f"l0_partitions must be a whole number in [1, 1024]; got "
                             f"{self.l0_partitions!r}")
        if not 0.0 <= self.log_ratio <= 1.0 or not self.log_batch_cap >= 1.0:
            raise ValueError(f"log_ratio must be in [0, 1] and log_batch_cap at least 1; got "
                             f"{self.log_ratio}, {self.log_batch_cap}")
        if self.log_ratio > 0.0 and self.targets != "wacky":
            raise ValueError("an L2SM log (log_ratio > 0) goes with the native engine's targets "
                             "('wacky')")


@dataclass(frozen=True)
class WindowCosts:
    """Costs of a window of inserts: write amplification in entries written per entry inserted,
    and the tree a read meets, averaged over the window's flushes."""

    write_amp: float
    level_write_amp: tuple[float, ...]  # per level below level 0 (index 0: Level 1)
    level_entries: tuple[float, ...]  # mean entries per level (index 0: Level 1)
    level_in_use: tuple[float, ...]  # share of the window each level held data
    level0_runs: float  # mean runs waiting in level 0
    # L2SM (L1a): the log files over a key at each level (empty without a log).
    log_coverage: tuple[float, ...] = ()
    # Merges into each level per flush (index 0: Level 1): a level-0 merge is one per
    # partition (P6), a drain one per file it moves.
    level_merges: tuple[float, ...] = ()
    # P7: the mean share of the key space inside a level's files (index 0: Level 1): a point
    # read whose key falls outside every file of a level probes none of its filters.
    level_coverage: tuple[float, ...] = ()
    # T5: the most entries on disk during the window, as an engine that deletes a merge's
    # inputs once its output is whole holds them: with one job per flush (the native engine:
    # every merge of a flush is installed at once) and with one merge at a time (RocksDB);
    # and the entries at the window's end.
    peak_job_entries: float = 0.0
    peak_merge_entries: float = 0.0
    end_entries: float = 0.0

    @property
    def nonempty_levels(self) -> float:
        """Mean levels below level 0 that hold data."""
        return float(sum(self.level_in_use))

    def peak_space(self, *, stock: bool) -> float:
        """T5 (docs/MODEL.md): the run files' peak during the window over those at its end,
        as stock RocksDB holds them (``stock``: each merge's inputs deleted once it is
        installed) or the native engine (a flush's merges installed together)."""
        peak = self.peak_merge_entries if stock else self.peak_job_entries
        return peak / self.end_entries


def _dynamic_targets(S: list[float], T: float, base: float) -> list[float]:
    """RocksDB's ``level_compaction_dynamic_level_bytes``: the largest level fixes the others,
    each T times smaller, the base (highest level in use) kept within (base / T, base]; levels
    above it unused (target 0)."""
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
    ``lower``, a file of ``file`` entries at a time: each file with the (r - 1) S_i (1 - sqrt(1 -
    file / S_i)) entries below it (f (r - 1)/2 for small files), plus ``boundary_files`` files of
    the level below cut through at the range's ends."""
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
    S = _empty_sizes(policy)
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
    that starts empty (or, with ``settled``, starts at :func:`settled_sizes` for the preload);
    with an L2SM log, L1 on that walk (:mod:`cost_models.log_merges`)."""
    if policy.log_ratio > 0.0:
        return window_costs_many([policy], preload, window, settled)[0]
    return _walk(policy, preload, window, settled)


def _walk(policy: LeveledFiles, preload: float, window: float,
          settled: bool = False) -> WindowCosts:
    """:func:`window_costs`' walk (P1-P5) of one design."""
    _check_window(policy, preload, window)
    F, f, k = policy.flush_entries, policy.file_entries, policy.level0_runs
    S = settled_sizes(policy, preload) if settled else _empty_sizes(policy)
    flushes_before, flushes = _flush_counts(policy, 0.0 if settled else preload, window)
    level0 = 0
    written = [0.0] * len(S)
    merges = [0.0] * len(S)
    flush_written = 0.0
    sizes = [0.0] * len(S)
    in_use = [0.0] * len(S)
    cover = [1.0 if s > 0 else 0.0 for s in S]  # P7: a settled start spans the keys
    covered = [0.0] * len(S)
    level0_sum = 0.0
    peaks = [0.0, 0.0, 0.0]  # T5: one job per flush, one merge at a time; what is on disk
    for step in range(flushes):
        counting = step >= flushes_before
        level0 += 1
        if policy.flush_writes and counting:
            flush_written += F
        # T5: on disk (or in the flush being written) from here to the flush's last merge.
        peaks[2] = sum(S) + level0 * F
        job_start = flush_written + sum(written)
        # Targets move with the largest level, a flush at a time: taken once per flush.
        targets = _targets(S, policy)
        while len(targets) > len(S):  # Eq 10 asks for a level more: added on top
            for track in (S, written, merges, sizes, in_use, cover, covered):
                track.insert(0, 0.0)
        base = next((i for i, t in enumerate(targets) if t > 0), len(S) - 1)
        if level0 >= k or (policy.targets != "wacky"
                           and level0 * F > _level0_limit(policy, targets[base])):
            batch = level0 * F
            if counting:
                written[base] += batch + S[base]
                merges[base] += policy.l0_partitions
                peaks[1] = max(peaks[1], peaks[2] + batch + S[base])
            S[base] += batch
            cover[base] = 1.0  # P7: level 0's runs each span the keys
            level0 = 0
        _drain(S, targets, f, policy.boundary_files, written if counting else None,
               merges if counting else None, base, policy.l0_partitions, cover,
               peaks if counting else None)
        if counting:
            peaks[0] = max(peaks[0], peaks[2] - F + flush_written + sum(written) - job_start)
            for i, s in enumerate(S):
                sizes[i] += s
                in_use[i] += s > 0
                covered[i] += cover[i]
            level0_sum += level0
    return replace(_window_result(F, flushes - flushes_before, flush_written, written, sizes,
                                  in_use, level0_sum, merges, covered),
                   peak_job_entries=peaks[0], peak_merge_entries=peaks[1],
                   end_entries=sum(S) + level0 * F)


def partition_file(entries: float, file: float, partitions: int) -> float:
    """P6: the mean file of a level of ``entries`` cut into files of ``file`` entries within
    each of ``partitions`` equal key ranges: each range's last file holds what is left."""
    if partitions <= 1 or entries <= 0:
        return file
    share = entries / partitions
    return share / math.ceil(share / file - 1e-9)


def _drain(S: list[float], targets: list[float], f: float, boundary_files: float,
           written: list[float] | None, merges: list[float] | None = None, base: int = 0,
           partitions: int = 1, cover: list[float] | None = None,
           peaks: list[float] | None = None) -> None:
    """P2's drains of one tree, in place, the most overfull level first, whole files down until
    below its target; the entries written go to ``written`` and the files moved to ``merges``
    (when the window counts them), and each level's key coverage (P7) moves with its files
    into ``cover``; ``peaks[1]`` keeps the most on disk (``peaks[2]``) with one file's merge
    written (T5). The base level's files are cut at the partitions (P6)."""
    while True:
        over = [i for i in range(len(S) - 1) if S[i] > targets[i]]
        if not over:
            return
        i = max(over, key=lambda j: S[j] / targets[j])
        fi = partition_file(S[i], f, partitions) if i == base and partitions > 1 else f
        moved = S[i] - max(0.0, targets[i] - fi / 2.0)
        if written is not None:
            # The sizes that set the overlap are each level's mean over its batch (P1): the
            # upper one less half of what leaves, the lower one plus half of it.
            cost = _merge_cost(moved, S[i] - moved / 2, S[i + 1] + moved / 2, fi,
                               boundary_files)
            written[i + 1] += cost
            if peaks is not None:  # T5: one file's merge (a file and its overlap) at a time
                peaks[1] = max(peaks[1], peaks[2] + cost * min(fi, moved) / moved)
        if merges is not None:
            merges[i + 1] += moved / fi
        if cover is not None:
            _move_cover(cover, i, moved / S[i])
        S[i] -= moved
        S[i + 1] += moved


def _move_cover(cover: list[float], i: int, share: float) -> None:
    """P7: files holding ``share`` of Level i's entries go down. They span that share of the
    keys Level i covers; Level i+1 gains the part of it its own files did not span (taken
    as independent of where they lie), and Level i keeps the rest."""
    gone = cover[i] * share
    cover[i + 1] = cover[i + 1] + gone * (1.0 - cover[i + 1])
    cover[i] = cover[i] * (1.0 - share)


def _check_window(policy: LeveledFiles, preload: float, window: float) -> None:
    if not preload >= 0 or not window >= policy.flush_entries:
        raise ValueError(f"window must hold at least one flush ({policy.flush_entries:g} "
                         f"entries) and preload must be >= 0; got {window}, {preload}")


def _empty_sizes(policy: LeveledFiles) -> list[float]:
    return [0.0] * (policy.num_levels if policy.targets != "wacky" else 1)


def _flush_counts(policy: LeveledFiles, preload: float, window: float) -> tuple[int, int]:
    """Flushes before the window, and in all."""
    F = policy.flush_entries
    flushes_before = int(round(preload / F))
    return flushes_before, flushes_before + max(1, int(round(window / F)))


def _window_result(F: float, counted: int, flush_written: float, written: list[float],
                   sizes: list[float], in_use: list[float], level0_sum: float,
                   merges: list[float], covered: list[float]) -> WindowCosts:
    """The window's totals turned into costs per entry inserted and means per flush."""
    inserted = counted * F
    return WindowCosts(
        write_amp=(flush_written + sum(written)) / inserted,
        level_write_amp=tuple(w / inserted for w in written),
        level_entries=tuple(s / counted for s in sizes),
        level_in_use=tuple(u / counted for u in in_use),
        level0_runs=level0_sum / counted,
        level_merges=tuple(m / counted for m in merges),
        level_coverage=tuple(c / counted for c in covered),
    )


# The batch walk (window_costs_many). Each design is a row; its levels sit in the last columns
# of the level arrays (right-aligned), so every design's last level is column -1 and a level
# added on top (Eq 10 asks for one more) is a column of zeros turning into a level, as the
# scalar walk's insert at 0 is. Columns left of a design's levels hold nothing and target 0, so
# they are never over a target and never the base. Every float is made by the scalar walk's
# operations in its order (numpy's +, -, *, /, sqrt, min and max round as Python's do), so the
# two agree bit for bit.
_STATIC, _DYNAMIC, _WACKY = 0, 1, 2
_RULE_CODES = {"static": _STATIC, "dynamic": _DYNAMIC, "wacky": _WACKY}
_LEVEL_FIELDS = ("S", "targets", "written", "merges", "sizes", "in_use", "fractions", "cover",
                 "covered")


@dataclass(frozen=True)
class _Rules:
    """The policies' rules as columns, one row per policy."""

    rule: np.ndarray  # _STATIC, _DYNAMIC or _WACKY
    T: np.ndarray
    C: np.ndarray  # the wacky rule's C (T - 1 when unset; 1 for the others)
    F: np.ndarray
    f: np.ndarray
    k: np.ndarray
    base: np.ndarray
    boundary: np.ndarray
    flush_writes: np.ndarray
    levels: np.ndarray  # num_levels (static and dynamic; 1 for wacky)
    # T ** j for j = 0, 1, ... (left-aligned), by Python's pow as the scalar targets take it:
    # numpy's may round differently.
    powers: np.ndarray
    # The static rule's targets (right-aligned; for the other rules none but the last level's).
    static_targets: np.ndarray

    @staticmethod
    def of(policies: list[LeveledFiles]) -> _Rules:
        depth = max((p.num_levels for p in policies if p.targets != "wacky"), default=1)
        powers = np.ones((len(policies), depth))
        static = np.zeros((len(policies), depth))
        static[:, -1] = math.inf
        for b, p in enumerate(policies):
            if p.targets != "wacky":
                powers[b, :p.num_levels] = [float(p.T ** j) for j in range(p.num_levels)]
            if p.targets == "static":
                static[b, depth - p.num_levels:] = _static_targets(p.num_levels, p.T,
                                                                   p.base_entries)

        def column(values: list, dtype: type = float) -> np.ndarray:
            return np.array(values, dtype=dtype)

        return _Rules(
            rule=column([_RULE_CODES[p.targets] for p in policies], np.int64),
            T=column([p.T for p in policies]),
            C=column([(p.C if p.C is not None else p.T - 1) if p.targets == "wacky" else 1.0
                      for p in policies]),
            F=column([p.flush_entries for p in policies]),
            f=column([p.file_entries for p in policies]),
            k=column([p.level0_runs for p in policies], np.int64),
            base=column([p.base_entries for p in policies]),
            boundary=column([p.boundary_files for p in policies]),
            flush_writes=column([p.flush_writes for p in policies], bool),
            levels=column([p.num_levels if p.targets != "wacky" else 1 for p in policies],
                          np.int64),
            powers=powers,
            static_targets=static,
        )


def _level_counts(T: np.ndarray, C: np.ndarray, n_buffers: np.ndarray) -> np.ndarray:
    """:func:`num_levels` at X = 1 (Eq 3), the same operations in the same order without the X !=
    1 branch it computes and drops (it runs once a flush)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        real = 1.0 + np.log(n_buffers / (C + 1.0) * (T - 1.0) / T) / np.log(T)
        ceiled = np.ceil(real - LEVEL_CEIL_TOLERANCE * np.maximum(1.0, np.abs(real)))
    return np.minimum(np.where(ceiled > 1.0, ceiled, 1.0), 1e9).astype(np.int64)


def _wacky_counts(T: np.ndarray, C: np.ndarray, F: np.ndarray, n_est: np.ndarray) -> np.ndarray:
    """:func:`_wacky_targets_at`'s L: Eq 10 at ``n_est`` entries, 1 for an empty tree."""
    return np.where(n_est > 0, _level_counts(T, C, n_est / F), 1)


def _upper_shares(T: float, C: float, L: int, n_est: float) -> tuple[float, ...]:
    """Eq 9's shares of the upper levels, as :func:`_wacky_targets_at` takes them."""
    return _fractions(T, C, L)[:-1] if n_est > 0 else ()


def _dynamic_targets_many(S: np.ndarray, levels: np.ndarray, T: np.ndarray, base: np.ndarray,
                          powers: np.ndarray) -> np.ndarray:
    """:func:`_dynamic_targets` of each row (right-aligned, ``levels`` levels each)."""
    rows, width = S.shape
    r = np.arange(rows)
    top = width - levels  # each row's first level's column
    depth = powers.shape[1]
    largest = S.max(axis=1)
    level = (S > 0).argmax(axis=1) - top  # the first level holding data
    size = largest / powers[r, np.clip(levels - 1 - level, 0, depth - 1)]
    floor = base / T
    low = size <= floor
    size = np.where(low, floor, size)
    # Up a level while the base would be over max_bytes_for_level_base: at most levels - 1 times.
    climb = ~low & (level > 0) & (size > base)
    while climb.any():
        level = level - climb
        size = np.where(climb, size / T, size)
        climb &= (level > 0) & (size > base)
    size = np.where(low, size, np.minimum(size, base))
    j = np.arange(width) - (top + level)[:, None]
    scaled = size[:, None] * powers[r[:, None], np.clip(j, 0, depth - 1)]
    targets = np.where(j >= 0, np.maximum(scaled, base[:, None]), 0.0)
    targets[largest <= 0] = 0.0
    targets[:, -1] = math.inf
    return targets


def _settled_many(rules: _Rules, entries: list[float]) -> list[list[float]]:
    """:func:`settled_sizes` of each row, bit for bit: the fixed-point iterations of all the
    rows at once, each row stopping where its own would."""
    n = rules.T.size
    N = np.array([float(e) for e in entries])
    tolerance = np.array([1e-9 * e for e in entries])  # Python's product, as the scalar's
    wacky = np.flatnonzero(rules.rule == _WACKY)
    levels = rules.levels.copy()
    L = _wacky_counts(rules.T[wacky], rules.C[wacky], rules.F[wacky], N[wacky])
    levels[wacky] = L
    width = int(levels.max())
    # Static and wacky targets do not move with the sizes (the wacky ones are those of N).
    fixed = np.zeros((n, width))
    fixed[:, width - rules.static_targets.shape[1]:] = rules.static_targets
    for j, b in enumerate(wacky):
        shares = _upper_shares(float(rules.T[b]), float(rules.C[b]), int(L[j]), float(N[b]))
        fixed[b, width - len(shares) - 1: width - 1] = np.asarray(shares) * N[b]
    S = np.zeros((n, width))
    S[:, -1] = N
    half = rules.f / 2.0
    going = np.arange(n)
    for _ in range(64):
        targets = fixed[going]
        dynamic = rules.rule[going] == _DYNAMIC
        if dynamic.any():
            d = going[dynamic]
            targets[dynamic] = _dynamic_targets_many(S[d], levels[d], rules.T[d], rules.base[d],
                                                     rules.powers[d])
        new = np.empty((going.size, width))
        rest = N[going]
        for i in range(width - 1):
            new[:, i] = np.minimum(rest, np.maximum(0.0, targets[:, i] - half[going]))
            rest = rest - new[:, i]
        new[:, -1] = rest
        close = (np.abs(new - S[going]) <= tolerance[going][:, None]).all(axis=1)
        S[going[~close]] = new[~close]
        going = going[~close]
        if going.size == 0:
            break
    return [S[b, width - levels[b]:].tolist() for b in range(n)]


@dataclass(frozen=True)
class _Rows:
    """The designs still walking, a row each, and the walk's state: changed in place a flush at a
    time; rows leave (:meth:`take`) and columns come on the left (:meth:`widen`) by copy."""

    ids: np.ndarray  # position in the caller's list
    rules: _Rules
    flushes_before: np.ndarray
    flushes: np.ndarray
    levels: np.ndarray  # levels the design holds (len(S) in the scalar walk)
    S: np.ndarray
    # The targets of the sizes at the start of the flush. They move only with the sizes, so
    # they are recomputed only for the rows whose sizes moved (``dirty``), and a row whose sizes
    # did not move and whose level 0 does not merge has no level over its target.
    targets: np.ndarray
    dirty: np.ndarray
    fractions: np.ndarray  # Eq 9's shares of a wacky row's upper levels for fraction_levels
    fraction_levels: np.ndarray  # the L ``fractions`` are for (0: none yet)
    written: np.ndarray  # entries written per level (only while counting)
    merges: np.ndarray  # merges into each level (only while counting)
    sizes: np.ndarray
    in_use: np.ndarray
    cover: np.ndarray  # P7: each level's share of the keys inside its files
    covered: np.ndarray  # its sum over the window's flushes
    level0: np.ndarray
    flush_written: np.ndarray
    level0_sum: np.ndarray
    peak_job: np.ndarray  # T5 (see the scalar walk)
    peak_merge: np.ndarray

    def take(self, keep: np.ndarray) -> _Rows:
        return _Rows(**{x.name: getattr(self, x.name)[keep] for x in fields(self)
                        if x.name != "rules"},
                     rules=_Rules(**{x.name: getattr(self.rules, x.name)[keep]
                                     for x in fields(self.rules)}))

    def widen(self, width: int) -> _Rows:
        extra = width - self.S.shape[1]
        if extra <= 0:
            return self
        return replace(self, **{name: np.pad(getattr(self, name), ((0, 0), (extra, 0)))
                                for name in _LEVEL_FIELDS})


def _start_rows(rules: _Rules, starts: list[list[float]], counts: list[tuple[int, int]]) -> _Rows:
    n = len(starts)
    width = max(len(S) for S in starts)
    S = np.zeros((n, width))
    for b, S0 in enumerate(starts):
        S[b, width - len(S0):] = S0
    targets = np.zeros((n, width))  # the static rows' for good; the others' taken at flush 1
    targets[:, width - rules.static_targets.shape[1]:] = rules.static_targets
    return _Rows(
        ids=np.arange(n),
        rules=rules,
        flushes_before=np.array([b for b, _ in counts], dtype=np.int64),
        flushes=np.array([t for _, t in counts], dtype=np.int64),
        levels=np.array([len(S0) for S0 in starts], dtype=np.int64),
        S=S,
        targets=targets,
        dirty=np.ones(n, dtype=bool),
        fractions=np.zeros((n, width)),
        fraction_levels=np.zeros(n, dtype=np.int64),
        written=np.zeros((n, width)),
        merges=np.zeros((n, width)),
        sizes=np.zeros((n, width)),
        in_use=np.zeros((n, width)),
        cover=np.where(S > 0, 1.0, 0.0),
        covered=np.zeros((n, width)),
        level0=np.zeros(n, dtype=np.int64),
        flush_written=np.zeros(n),
        level0_sum=np.zeros(n),
        peak_job=np.zeros(n),
        peak_merge=np.zeros(n),
    )


def _wacky_targets_many(rows: _Rows, w: np.ndarray) -> tuple[_Rows, np.ndarray]:
    """:func:`_wacky_targets` of the wacky rows ``w``: Eq 10's L at n = S_L (C+1)/C, levels added
    on top where it grew, Eq 9's shares refreshed where L changed (in Python, per change).
    Returns the rows and those whose L fell below the levels they hold, left to the scalar walk
    (which then reads its targets against the wrong levels)."""
    rules = rows.rules
    T, C = rules.T[w], rules.C[w]
    n_est = rows.S[w, -1] * (C + 1) / C
    L = _wacky_counts(T, C, rules.F[w], n_est)
    odd = np.zeros(rows.ids.size, dtype=bool)
    odd[w] = L < rows.levels[w]
    rows = rows.widen(int(L.max()))
    width = rows.S.shape[1]
    for j in np.flatnonzero((L != rows.fraction_levels[w]) & ~odd[w]):
        b, levels = w[j], int(L[j])
        rows.fractions[b] = 0.0
        rows.fractions[b, width - levels: width - 1] = _upper_shares(
            float(T[j]), float(C[j]), levels, float(n_est[j]))
        rows.fraction_levels[b] = levels
    rows.levels[w] = np.maximum(rows.levels[w], L)
    targets = rows.fractions[w] * n_est[:, None]
    targets[:, -1] = math.inf
    rows.targets[w] = targets
    return rows, odd


def _update_targets(rows: _Rows) -> tuple[_Rows, np.ndarray]:
    """The targets (:func:`_targets`) of the rows whose sizes moved; the rows (perhaps widened)
    and those the batch leaves to the scalar walk (see :func:`_wacky_targets_many`)."""
    odd = np.zeros(rows.ids.size, dtype=bool)
    dirty = np.flatnonzero(rows.dirty)
    rule = rows.rules.rule[dirty]
    w = dirty[rule == _WACKY]
    if w.size:
        rows, odd = _wacky_targets_many(rows, w)
    d = dirty[rule == _DYNAMIC]
    if d.size:
        rules = rows.rules
        rows.targets[d] = _dynamic_targets_many(rows.S[d], rows.levels[d], rules.T[d],
                                                rules.base[d], rules.powers[d])
    return rows, odd


def _merge_level0(rows: _Rows, counting: np.ndarray, total: np.ndarray) -> np.ndarray:
    """P3: level 0 merges into the base level at its trigger, or (RocksDB) once it outgrows
    :func:`_level0_limit`. Returns the rows that merged."""
    rules, targets = rows.rules, rows.targets
    base = (targets > 0).argmax(axis=1)
    base_target = targets[np.arange(rows.ids.size), base]
    batch = rows.level0 * rules.F
    with np.errstate(invalid="ignore"):
        limit = np.where((rules.rule == _DYNAMIC) & np.isfinite(base_target),
                         np.maximum(rules.base, base_target / rules.T), rules.base)
    merging = (rows.level0 >= rules.k) | ((rules.rule != _WACKY) & (batch > limit))
    go = np.flatnonzero(merging)
    if go.size:
        col, add, old = base[go], batch[go], rows.S[go, base[go]]
        c = counting[go]
        rows.written[go[c], col[c]] += add[c] + old[c]
        rows.merges[go[c], col[c]] += 1.0  # P = 1: the batch walk leaves P > 1 to the scalar
        g = go[c]
        rows.peak_merge[g] = np.maximum(rows.peak_merge[g], total[g] + add[c] + old[c])
        rows.S[go, col] = old + add
        rows.cover[go, col] = 1.0
        rows.level0[go] = 0
    return merging


def _merge_cost_many(moved: np.ndarray, upper: np.ndarray, lower: np.ndarray, file: np.ndarray,
                     boundary: np.ndarray) -> np.ndarray:
    """:func:`_merge_cost` elementwise, the same operations in the same order."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = lower / upper
        share = np.minimum(1.0, file / upper)
        overlap = np.maximum(0.0, (r - 1.0) * upper * (1.0 - np.sqrt(1.0 - share)))
        overlap = np.minimum(lower, overlap + boundary * np.minimum(file, lower))
        cost = moved * (1.0 + overlap / np.minimum(file, upper))
    return np.where((lower <= 0) | (upper <= 0), moved, cost)


@dataclass(frozen=True)
class _Draining:
    """The rows being drained this flush (rows ``at`` of the walk): their sizes (changed in
    place), targets, what a drained level keeps (P2; the last level never drains), file sizes,
    and where their writes go."""

    S: np.ndarray
    targets: np.ndarray
    keep: np.ndarray
    f: np.ndarray
    boundary: np.ndarray
    counting: np.ndarray
    at: np.ndarray
    written: np.ndarray  # the walk's, all rows
    merges: np.ndarray  # the walk's, all rows
    cover: np.ndarray  # P7, changed in place as S is
    total: np.ndarray | None = None  # T5: on disk during the flush, per row drained
    peak: np.ndarray | None = None  # T5: the walk's peak_merge, all rows

    @staticmethod
    def of(rows: _Rows, at: np.ndarray, counting: np.ndarray, total: np.ndarray) -> _Draining:
        everyone = at.size == rows.ids.size  # no copies: the walk's own arrays
        d = _Draining.make(rows.S if everyone else rows.S[at],
                           rows.targets if everyone else rows.targets[at], rows.rules.f[at],
                           rows.rules.boundary[at], counting[at], at, rows.written,
                           rows.merges, rows.cover if everyone else rows.cover[at])
        return replace(d, total=total[at], peak=rows.peak_merge)

    @staticmethod
    def make(S: np.ndarray, targets: np.ndarray, f: np.ndarray, boundary: np.ndarray,
             counting: np.ndarray, at: np.ndarray, written: np.ndarray,
             merges: np.ndarray, cover: np.ndarray) -> _Draining:
        keep = np.maximum(0.0, targets - (f / 2.0)[:, None])
        keep[:, -1] = 0.0
        return _Draining(S, targets, keep, f, boundary, counting, at, written, merges, cover)

    def move_cover(self, r: np.ndarray, i: np.ndarray, share: np.ndarray) -> None:
        """:func:`_move_cover` of rows ``r`` from their levels ``i``, the same operations."""
        c = self.cover
        gone = c[r, i] * share
        c[r, i + 1] = c[r, i + 1] + gone * (1.0 - c[r, i + 1])
        c[r, i] = c[r, i] * (1.0 - share)

    def write(self, r: np.ndarray, level: np.ndarray, moved: np.ndarray, upper: np.ndarray,
              lower: np.ndarray) -> None:
        """P1's cost of drains of rows ``r`` (of these) into ``level``, when counting."""
        if not self.counting.all():
            c = self.counting[r]
            r, level, moved, upper, lower = r[c], level[c], moved[c], upper[c], lower[c]
        cost = _merge_cost_many(moved, upper, lower, self.f[r], self.boundary[r])
        self.written[self.at[r], level] += cost
        self.merges[self.at[r], level] += moved / self.f[r]
        if self.peak is not None and self.total is not None and r.size:
            # T5: one file's merge at a time (a row may drain several levels in one call).
            np.maximum.at(self.peak, self.at[r],
                          self.total[r] + cost * np.minimum(self.f[r], moved) / moved)


def _drain_chains(d: _Draining, single: np.ndarray, over: np.ndarray) -> np.ndarray:
    """The drains of the ``single`` rows (one level over its target): that level drains into the
    next, which drains in turn if that put it over, and so on down, in one pass. A drained level
    keeps ``keep``, so what reaches and leaves each level are running sums, which cumsum adds one
    at a time, as the scalar walk does. Returns the rows left undone (a drained level stayed over
    by rounding), for the scalar walk's order."""
    S, t = d.S, d.targets
    width = S.shape[1]
    cols = np.arange(width)
    start = np.where(single, over.argmax(axis=1), width)[:, None]  # past the end: no cascade
    before = cols < start
    steps = np.empty((S.shape[0], 2 * width))
    steps[:, 0::2] = np.where(before, 0.0, S)
    steps[:, 1::2] = np.where(before, 0.0, -d.keep)
    sums = steps.cumsum(axis=1)
    arrived, moved = sums[:, 0::2], sums[:, 1::2]  # what each level holds, what leaves it
    # The cascade stops at the first level below the start that it leaves within its target
    # (the last level, of target inf, at the latest).
    below = cols > start
    end = (below & (arrived <= t)).argmax(axis=1)[:, None]
    drained = ~before & (cols < end)
    left = arrived - moved
    undone = ((left > t) & drained).any(axis=1)
    if undone.any():
        drained &= ~undone[:, None]
        below &= ~undone[:, None]
    r, i = np.nonzero(drained)
    m = moved[r, i]
    d.write(r, i + 1, m, arrived[r, i] - m / 2, S[r, i + 1] + m / 2)
    # P7 down the cascade, a level at a time: what a level passes on depends on what it got.
    for col in np.unique(i):
        at = i == col
        d.move_cover(r[at], i[at], m[at] / arrived[r[at], col])
    S[...] = np.where(drained, left, np.where(below & (cols == end), arrived, S))
    return undone


def _drain_once(d: _Draining, g: np.ndarray, over: np.ndarray) -> None:
    """One drain of each row ``g``: its most overfull level, the first of equals, as max()
    takes it in the scalar walk."""
    S = d.S
    ratio = np.divide(S[g], d.targets[g], where=over[g],
                      out=np.full((g.size, S.shape[1]), -math.inf))
    i = ratio.argmax(axis=1)
    size, below = S[g, i], S[g, i + 1]
    moved = size - d.keep[g, i]
    d.write(g, i + 1, moved, size - moved / 2, below + moved / 2)
    d.move_cover(g, i, moved / size)
    S[g, i] = size - moved
    S[g, i + 1] = below + moved


def _drain_many(d: _Draining) -> None:
    """P2's drains, each row in the scalar walk's order: a row with one level over drains its
    cascade at once, a row with more drains one level per pass; until no row has any."""
    while True:
        over = d.S > d.targets  # never the last level: its target is inf
        count = over.sum(axis=1)
        if not count.any():
            return
        undone = _drain_chains(d, count == 1, over)
        many = np.flatnonzero((count > 1) | undone)
        if many.size:
            _drain_once(d, many, over)


def _flush(rows: _Rows, counting: np.ndarray) -> None:
    """One flush of every row (targets already taken): level 0's merge, the drains, and the
    window's sums."""
    rows.level0[:] += 1
    np.add(rows.flush_written, rows.rules.F, out=rows.flush_written,
           where=rows.rules.flush_writes & counting)
    total = rows.S.sum(axis=1) + rows.level0 * rows.rules.F  # T5: on disk during the flush
    job_start = rows.flush_written + rows.written.sum(axis=1)
    rows.dirty[:] = _merge_level0(rows, counting, total)
    busy = np.flatnonzero((rows.S > rows.targets).any(axis=1))
    if busy.size:
        d = _Draining.of(rows, busy, counting, total)
        _drain_many(d)
        if d.S is not rows.S:
            rows.S[busy] = d.S
            rows.cover[busy] = d.cover
        rows.dirty[busy] = True
    job = total - rows.rules.F + rows.flush_written + rows.written.sum(axis=1) - job_start
    np.maximum(rows.peak_job, job, out=rows.peak_job, where=counting)
    if counting.all():  # the window's flushes, the common case: no masks
        rows.sizes[...] += rows.S
        rows.in_use[...] += rows.S > 0
        rows.covered[...] += rows.cover
        rows.level0_sum[...] += rows.level0
        return
    kept = counting[:, None]
    np.add(rows.sizes, rows.S, out=rows.sizes, where=kept)
    np.add(rows.in_use, rows.S > 0, out=rows.in_use, where=kept)
    np.add(rows.covered, rows.cover, out=rows.covered, where=kept)
    np.add(rows.level0_sum, rows.level0, out=rows.level0_sum, where=counting)


def _finished(rows: _Rows, b: int) -> WindowCosts:
    """Row ``b``'s walk, summed."""
    first = rows.S.shape[1] - int(rows.levels[b])
    F = float(rows.rules.F[b])
    out = _window_result(F, int(rows.flushes[b] - rows.flushes_before[b]),
                         float(rows.flush_written[b]), rows.written[b, first:].tolist(),
                         rows.sizes[b, first:].tolist(), rows.in_use[b, first:].tolist(),
                         float(rows.level0_sum[b]), rows.merges[b, first:].tolist(),
                         rows.covered[b, first:].tolist())
    return replace(out, peak_job_entries=float(rows.peak_job[b]),
                   peak_merge_entries=float(rows.peak_merge[b]),
                   end_entries=float(rows.S[b].sum()) + float(rows.level0[b]) * F)


def per_policy(value: object, n: int, name: str, unit: str = "policy") -> list:
    """A scalar for every policy (or design: ``unit``), or one value per policy."""
    if np.ndim(value) == 0:
        return [value] * n
    values = list(value)  # type: ignore[call-overload]
    if len(values) != n:
        raise ValueError(f"{name} needs one value per {unit} ({n}); got {len(values)}")
    return values


def window_costs_many(policies: Sequence[LeveledFiles], preload: float | Sequence[float],
                      window: float | Sequence[float],
                      settled: bool | Sequence[bool] = False) -> list[WindowCosts]:
    """:func:`window_costs` of each policy (``preload``, ``window`` and ``settled`` shared or one
    per policy), bit for bit: the designs' flushes walked together."""
    policies = list(policies)
    n = len(policies)
    preloads = per_policy(preload, n, "preload")
    windows = per_policy(window, n, "window")
    settleds = [bool(s) for s in per_policy(settled, n, "settled")]
    for p, a, w in zip(policies, preloads, windows, strict=True):
        _check_window(p, a, w)
    logs: dict[int, np.ndarray] = {}
    for b, p in enumerate(policies):
        if p.log_ratio > 0.0:  # L1d: Level L holds what the logs do not
            tree, logs[b] = log_sizes(functools.partial(capacities, p), p.log_ratio,
                                      preloads[b] + windows[b] / 2.0)
            preloads[b] = max(0.0, preloads[b] - (preloads[b] + windows[b] / 2.0 - tree))
    out = _walk_many(policies, preloads, windows, settleds)
    for b, lam in logs.items():
        W, c = batched_levels(out[b].level_entries, out[b].level_in_use,
                              out[b].level_write_amp, lam,
                              policies[b].boundary_files, policies[b].log_batch_cap)
        out[b] = replace(out[b], write_amp=out[b].write_amp - sum(out[b].level_write_amp)
                         + sum(W), level_write_amp=tuple(W),
                         log_coverage=tuple(float(x) for x in c))
    return out


def _walk_many(policies: list[LeveledFiles], preloads: list[float], windows: list[float],
               settleds: list[bool]) -> list[WindowCosts]:
    """:func:`window_costs_many`'s walk (P1-P5): the designs' flushes together."""
    n = len(policies)
    if n == 0:
        return []
    partitioned = [b for b, p in enumerate(policies) if p.l0_partitions > 1]
    if partitioned:  # P6 cuts the base level's files: the scalar walk's
        out_p = {b: _walk(policies[b], preloads[b], windows[b], settleds[b]) for b in partitioned}
        rest = [b for b in range(n) if b not in out_p]
        walked = iter(_walk_many([policies[b] for b in rest], [preloads[b] for b in rest],
                                 [windows[b] for b in rest], [settleds[b] for b in rest]))
        return [out_p[b] if b in out_p else next(walked) for b in range(n)]
    rules = _Rules.of(policies)
    ready = [b for b in range(n) if settleds[b]]
    starts = [_empty_sizes(p) for p in policies]
    if ready:
        kept = [policies[b] for b in ready]
        for b, S in zip(ready, _settled_many(_Rules.of(kept), [preloads[b] for b in ready]),
                        strict=True):
            starts[b] = S
    counts = [_flush_counts(p, 0.0 if s else a, w)
              for p, a, w, s in zip(policies, preloads, windows, settleds, strict=True)]
    rows = _start_rows(rules, starts, counts)
    out: list[WindowCosts | None] = [None] * n
    step = 0
    while rows.ids.size:
        done = rows.flushes <= step
        if done.any():
            for b in np.flatnonzero(done):
                out[rows.ids[b]] = _finished(rows, b)
            rows = rows.take(~done)
            continue
        rows, odd = _update_targets(rows)
        if odd.any():
            for b in np.flatnonzero(odd):
                i = int(rows.ids[b])
                out[i] = _walk(policies[i], preloads[i], windows[i], settleds[i])
            rows = rows.take(~odd)
        _flush(rows, step >= rows.flushes_before)
        step += 1
    return out  # type: ignore[return-value]
