"""L2SM's per-level log priced on the partial-merge walk (docs/MODEL.md, "L1. L2SM's log").

A level over its capacity moves the files it would send down into its log without I/O; a log
over its capacity merges a batch of overlapping log files into the next level at once. The log's
files enter as the tree's sweep leaves them (P1: f entries over a width f / (2 E_i)) and leave in
an order set by their weights, not their place, so their positions along the keys are taken as
independent (a Poisson process of file starts). Then:

* L1a Coverage. Level i's log holds Lambda_i / f files of width f / (2 E_i): c_i = Lambda_i /
  (2 E_i) files over a key on average.
* L1b The batch. A batch is a file and every log file overlapping it, transitively: a run of
  starts each within a width of the last. To either side the run goes on with probability
  p = 1 - e^{-c}, so a batch holds k = 1 + 2 p / (1 - p) = 2 e^c - 1 files, and each file past
  the first adds its start's gap, g w with g = 1/c - e^{-c} / (1 - e^{-c}) (the mean of a gap
  under w), to the batch's width.
* L1c The merge. P1's file meets o f entries below (o = W - 1 - b, W the walk's write
  amplification into the next level, b its boundary files); a batch of k files over a width
  (1 + (k - 1) g) w meets o f (1 + (k - 1) g) and is cut at its two ends once:
  W' = 1 + (o (1 + (k - 1) g) + b) / k. When one file already meets more than the batch cap
  allows (o + b > cap), a batch is that file alone (the cap admits the first file always).
* L1d Sizes. The logs are sized by the paper's inverse-proportional rule on the level
  capacities (:func:`cost_models.structure.log_capacities`); what they hold is not in Level L,
  so the tree is walked at its entries less the logs'.

At log ratio 0 none of this applies: the walk is P1-P5's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from cost_models.structure import log_capacities

FIXED_POINT_STEPS = 16


def log_sizes(capacity_of: Callable[[float], list[float]], omega: float,
              entries: float) -> tuple[float, np.ndarray]:
    """L1d: (the tree's entries, each level's log capacity Lambda_i, Level 1 first, Level L's
    0) in a store of ``entries``, where ``capacity_of(n)`` gives the level capacities of a tree
    holding n: the fixed point of n = entries - sum Lambda(n). The rule makes the logs' total
    omega times the capacities' (whatever lambda), so the fixed point needs no lambda; it is
    solved once, at the end."""
    # The capacities are proportional to n while the level count holds, so each step solves
    # n = entries - omega a n at that count's a = sum N(n) / n; a new count takes a new step.
    tree = float(entries)
    for _ in range(FIXED_POINT_STEPS):
        caps = capacity_of(tree)
        share = (float(sum(caps)) / tree if len(caps) > 1 and sum(caps[:-1]) > 0 and tree > 0
                 else 0.0)
        new = float(entries) / (1.0 + float(omega) * share)
        done = abs(new - tree) <= 1e-12 * max(1.0, float(entries))
        tree = new
        if done:
            break
    return tree, log_capacities(capacity_of(tree), omega)


def batch(c: float) -> tuple[float, float]:
    """L1b: the files k of a batch and the share g of a file's width each file past the first
    adds to it, at coverage ``c`` log files over a key."""
    if c <= 0.0:
        return 1.0, 0.0
    e = math.exp(-c)
    g = 1.0 / c - e / -math.expm1(-c) if c > 1e-6 else 0.5 - c / 12.0
    return 2.0 / e - 1.0, g


def batched_write_amp(W: float, c: float, boundary_files: float, cap: float) -> float:
    """L1c: write amplification into the level below a log of coverage ``c``, from the walk's
    ``W`` for single files."""
    o = max(0.0, W - 1.0 - boundary_files)
    if o + boundary_files > cap:
        return W
    k, g = batch(c)
    return 1.0 + (o * (1.0 + (k - 1.0) * g) + boundary_files) / k


def coverages(level_entries: Sequence[float], lam: Sequence[float],
              in_use: Sequence[float] | None = None) -> np.ndarray:
    """L1a: c_i = Lambda_i / (2 E_i) at each level of a walk holding ``level_entries`` (0 where
    a level holds nothing or has no log); ``lam`` is right-aligned with the levels (Level L
    last). ``in_use``: the share of the walk each level held data; E_i is then its mean while
    it did (a level added during the walk is as dense as its files, not as its mean)."""
    E = np.asarray(level_entries, dtype=float)
    if in_use is not None:
        E = E / np.maximum(np.asarray(in_use, dtype=float), 1e-300)
    lam = np.asarray(lam, dtype=float)
    aligned = np.zeros(E.size)
    n = min(E.size, lam.size)
    aligned[E.size - n:] = lam[lam.size - n:]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(E > 0.0, aligned / (2.0 * np.maximum(E, 1e-300)), 0.0)


def batched_levels(level_entries: Sequence[float], level_in_use: Sequence[float],
                   level_write_amp: Sequence[float], lam: Sequence[float],
                   boundary_files: float, cap: float) -> tuple[list[float], np.ndarray]:
    """L1c on a walk's levels: each level's merges into the next batched by its log. Returns
    the write amplification into each level and each level's coverage."""
    c = coverages(level_entries, lam, level_in_use)
    W = [float(x) for x in level_write_amp]
    used = np.flatnonzero(np.asarray(level_entries) > 0.0)
    for above, below in zip(used[:-1], used[1:], strict=True):
        W[below] = batched_write_amp(W[below], float(c[above]), boundary_files, cap)
    return W, c
