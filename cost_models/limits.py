"""The limits of a physical tree: designs outside them have no meaning, so they are refused.

Eq 8-13 accept any T >= 2, C >= 1, X >= 1, but a tree of N/F buffers of data cannot have
* a ratio between levels larger than the data itself: T and C are at most max(2, N/F) and
  max(1, N/F) (beyond it Eq 14 prices merges that can never happen, e.g. a write
  amplification of 10^12 for N/F = 32768);
* more runs in a level than entries the level holds (a_i <= N_i; X = 64 with T = 2 asks for
  1.8e19 runs in Level 1). ``structure()`` already caps a_i at the level's capacity in buffers
  (a run is at least one buffer, :func:`cost_models.structure.runs_capacity`), so this only
  refuses what that cap cannot make sense of (NaN and overflowing run counts);
* more than :data:`MAX_RUNS_PER_LEVEL` runs in a level or :data:`MAX_LEVELS` levels, which the
  engine cannot track.

The engine keeps its own copy of the two constants (``native_engine/src/engine_limits.h``);
``tests/test_limits.py`` checks that the copies agree.
"""

from __future__ import annotations

import numpy as np

from cost_models.structure import ArrayLike, Structure

MAX_RUNS_PER_LEVEL = 1_000_000
MAX_LEVELS = 64


def max_ratio(n_buffers: ArrayLike, lowest: float) -> np.ndarray:
    """The largest T (``lowest`` = 2) or C (``lowest`` = 1) a tree of N/F buffers can have."""
    return np.maximum(lowest, np.asarray(n_buffers, dtype=float))


def runs_limit(s: Structure, entries: ArrayLike) -> np.ndarray:
    """Per level: the most runs it can physically hold, min(N_i, MAX_RUNS_PER_LEVEL)."""
    held = s.fractions * np.asarray(entries, dtype=float)[..., None]
    return np.minimum(np.maximum(held, 1.0), MAX_RUNS_PER_LEVEL)


def physical(s: Structure, n_buffers: ArrayLike, entries: ArrayLike) -> np.ndarray:
    """Boolean mask over the designs of ``s``: True where a tree of N = ``entries`` in N/F =
    ``n_buffers`` buffers is physical."""
    n = np.asarray(n_buffers, dtype=float)
    # The engine tracks its merge rule's bound (Eq 13 uncapped), so that is what its limit bounds.
    runs_ok = np.all(~s.valid | ((s.runs <= runs_limit(s, entries))
                                 & (s.run_bound <= MAX_RUNS_PER_LEVEL)), axis=-1)
    return (runs_ok & (s.L <= MAX_LEVELS) & (s.T <= max_ratio(n, 2.0))
            & (s.C <= max_ratio(n, 1.0)))


def check_physical(s: Structure, n_buffers: float, entries: float) -> None:
    """Raise a ``ValueError`` naming the knob and the limit if the one design of ``s`` is not
    physical (see :func:`physical`)."""
    T, C = float(s.T), float(s.C)
    for name, value, lowest in (("T", T, 2.0), ("C", C, 1.0)):
        top = float(max_ratio(n_buffers, lowest))
        if value > top:
            raise ValueError(f"{name} must be at most the data size in buffers, N/F = {top:.6g}, "
                             f"for this system; got {value:.6g}")
    if int(s.L) > MAX_LEVELS:
        raise ValueError(f"the design has {int(s.L)} levels; at most {MAX_LEVELS} are allowed")
    limit = runs_limit(s, entries)
    asked = np.where(s.run_bound > MAX_RUNS_PER_LEVEL, s.run_bound, s.runs)
    over = np.flatnonzero(s.valid & ~(asked <= np.where(s.run_bound > MAX_RUNS_PER_LEVEL,
                                                        MAX_RUNS_PER_LEVEL, limit)))
    if over.size:
        i = int(over[0])
        largest = i == int(s.L) - 1
        knobs = "C and Z" if largest else "T, X and K"
        engine = not s.run_bound[i] <= MAX_RUNS_PER_LEVEL
        why = ("the limit of runs per level" if engine or limit[i] >= MAX_RUNS_PER_LEVEL
               else "the entries the level holds")
        bound = float(MAX_RUNS_PER_LEVEL if engine else limit[i])
        raise ValueError(f"Level {i + 1} would hold {float(asked[i]):.3g} runs, more than {why} "
                         f"({bound:.6g}); lower {knobs}")
