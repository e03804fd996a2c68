"""Where RocksDB puts a level's files when it has several data directories (``db_paths``: a
directory and a target size each, the "devices" a design places its levels on), and the
``db_paths`` that put a design's first k levels on a fast device and the rest on a slow one.

The rule is RocksDB 7.8.3's, read in its source at tag v7.8.3 (the release of Debian's
librocksdb-dev, which the bridge links): ``LevelCompactionBuilder::GetPathId`` in
``db/compaction/compaction_picker_level.cc``, which gives the path of a leveled compaction's
output level:

* It walks the levels from Level 0 with a level size that starts at ``max_bytes_for_level_base``
  (Level 0 is estimated as Level 1's size) and, as room, the first path's target. A level whose
  size fits the room left (size <= room) is on that path: if it is the level asked for, that is
  the answer; otherwise its size is taken off the room and the walk goes to the next level, whose
  size is the one before times ``max_bytes_for_level_multiplier`` times
  ``max_bytes_for_level_multiplier_additional[cur_level]`` (an int vector, 1 past its end),
  truncated to a whole number — from Level 1 on only, so Levels 0 and 1 are both the base. A
  level that does not fit moves the walk to the next path, with that path's whole target as the
  room, and the same level is tried there. The last path is the fallback: its target is never
  looked at.
* Targets are only this arithmetic: RocksDB never compares them with the bytes in a directory.
* A flush always writes to path 0 (``FlushJob`` makes its file with path id 0), whatever the rule
  says for Level 0; the rule's Level 0 is that of an intra-Level-0 compaction's output.
* A file changes level without being rewritten (a trivial move) only when it is already on the
  output level's path (``Compaction::IsTrivialMove``), so a live file at Level L >= 1 is on
  ``path_of_level(L)``.
* With two or more paths RocksDB turns ``level_compaction_dynamic_level_bytes`` off
  (``SanitizeOptions`` in ``db/column_family.cc``); the bridge refuses that combination
  (rocksdb_bridge/src/database.h), so the level sizes here are the static ones the walk uses.

Universal compaction places files by another rule (by the sizes of the runs it writes), not
modelled here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# RocksDB's target for the database's own directory when db_paths is empty (SanitizeOptions):
# what a last path, the fallback, is given here, since RocksDB never reads it.
UNBOUNDED = 2**64 - 1


def _check_sizes(base_bytes: int, multiplier: float, additional: Sequence[int]) -> None:
    if isinstance(base_bytes, bool) or not isinstance(base_bytes, int) or base_bytes < 1:
        raise ValueError(f"base_bytes (max_bytes_for_level_base) must be a whole number of "
                         f"bytes above 0; got {base_bytes!r}")
    if (isinstance(multiplier, bool) or not isinstance(multiplier, (int, float))
            or not math.isfinite(multiplier) or multiplier <= 0):
        raise ValueError(f"multiplier (max_bytes_for_level_multiplier) must be a number above "
                         f"0; got {multiplier!r}")
    # RocksDB holds the additional multipliers as ints and parses "1.5" in an OPTIONS file as 1.
    if any(isinstance(a, bool) or not isinstance(a, int) or a < 1 for a in additional):
        raise ValueError(f"additional (max_bytes_for_level_multiplier_additional) must be whole "
                         f"numbers of at least 1, as RocksDB holds them; got {list(additional)!r}")


def _next_size(size: int, level: int, multiplier: float, additional: Sequence[int]) -> int:
    """The size after ``level``'s in the walk: RocksDB's static_cast<uint64_t>(size *
    multiplier * MaxBytesMultiplerAdditional(level)), in doubles as there."""
    extra = additional[level] if level < len(additional) else 1
    return int(float(size) * float(multiplier) * float(extra))


def level_sizes(levels: int, base_bytes: int, multiplier: float,
                additional: Sequence[int] = ()) -> list[int]:
    """The sizes GetPathId's walk gives Levels 0..levels-1: the base for Levels 0 and 1, then
    each the one above times the multiplier (and ``additional``), truncated as RocksDB does."""
    _check_sizes(base_bytes, multiplier, additional)
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 0:
        raise ValueError(f"levels must be a whole number of at least 0; got {levels!r}")
    sizes: list[int] = []
    size = base_bytes
    for level in range(levels):
        sizes.append(size)
        if level > 0:
            size = _next_size(size, level, multiplier, additional)
    return sizes


def path_of_level(level: int, target_sizes: Sequence[int], base_bytes: int, multiplier: float,
                  *, additional: Sequence[int] = ()) -> int:
    """The index in ``db_paths`` (``target_sizes``: their target sizes, in order) where RocksDB
    7.8.3's leveled compaction writes an output at ``level``, given the column family's
    ``max_bytes_for_level_base`` (``base_bytes``), ``max_bytes_for_level_multiplier`` and
    ``max_bytes_for_level_multiplier_additional`` (``additional``). Flushes are not placed by
    it: they always write to path 0."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"level must be a whole number of at least 0; got {level!r}")
    if not target_sizes:
        raise ValueError("target_sizes must name at least one path (db_paths)")
    if any(isinstance(t, bool) or not isinstance(t, int) or t < 0 for t in target_sizes):
        raise ValueError(f"target_sizes must be whole numbers of bytes, at least 0; got "
                         f"{list(target_sizes)!r}")
    _check_sizes(base_bytes, multiplier, additional)
    path, room, size, cur = 0, target_sizes[0], base_bytes, 0
    while path < len(target_sizes) - 1:
        if size <= room:
            if cur == level:
                return path
            room -= size
            if cur > 0:  # Level 0 is estimated as Level 1: the walk grows from Level 1 on
                size = _next_size(size, cur, multiplier, additional)
            cur += 1
            continue
        path += 1
        room = target_sizes[path]
    return path


def paths_for_levels(fast_levels: int, base_bytes: int, multiplier: float, fast_dir: str,
                     slow_dir: str, *, additional: Sequence[int] = ()) -> list[tuple[str, int]]:
    """The ``db_paths`` ([(directory, target bytes)], the bridge's argument) under which RocksDB
    7.8.3's leveled compaction writes Levels 0..fast_levels-1 (and every flush) to ``fast_dir``
    and the levels below to ``slow_dir``: the fast path's target is the sum of those levels'
    sizes in GetPathId's walk (Level 0 counted as the base), so they fill it exactly and the
    next level does not fit. The slow path is the fallback (target :data:`UNBOUNDED`). With
    ``fast_levels`` = 0 everything, flushes too, goes to ``slow_dir``, its only path."""
    if isinstance(fast_levels, bool) or not isinstance(fast_levels, int) or fast_levels < 0:
        raise ValueError(f"fast_levels must be a whole number of at least 0; got "
                         f"{fast_levels!r}")
    for name, d in (("fast_dir", fast_dir), ("slow_dir", slow_dir)):
        if not isinstance(d, str) or not d:
            raise ValueError(f"{name} must be a non-empty path; got {d!r}")
    if fast_dir == slow_dir:
        raise ValueError(f"fast_dir and slow_dir must differ; both are {fast_dir!r}")
    *sizes, next_size = level_sizes(fast_levels + 1, base_bytes, multiplier, additional)
    if not sizes:
        return [(slow_dir, UNBOUNDED)]
    if next_size == 0:  # a multiplier far below 1: the next level would fit in no room at all
        raise ValueError(f"Level {fast_levels}'s size rounds to 0 bytes (multiplier "
                         f"{multiplier!r}), so no target keeps it off fast_dir")
    return [(fast_dir, sum(sizes)), (slow_dir, UNBOUNDED)]
