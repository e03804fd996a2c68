"""Operation costs in I/O (Eq 14-16)."""

from __future__ import annotations

import numpy as np

from cost_models.filters import sum_fpr
from cost_models.structure import ArrayLike, Structure


def write_amplification(s: Structure) -> np.ndarray:
    """Eq 14 without the 1/B: C/a_L + sum_{i<L} (r_i - 1)/(a_i + 1), with preemptive merging. a_i
    here is the merge rule's bound (``Structure.run_bound``, Eq 13): how often an entry is
    rewritten depends on when a run counts as full (N_i / a_i), not on how many runs the level
    can hold. A level of fewer buffers than a_i puts every batch in a run of its own (written
    once, about (r_i - 1)/(a_i + 1) ~ 1), whereas the held count (``runs``, capped) would price
    r_i - 1 batches merged into a few runs that never receive them."""
    smaller = s.valid & ~s.largest
    with np.errstate(invalid="ignore"):
        per_level = np.where(smaller, (s.ratios - 1.0) / (s.run_bound + 1.0), 0.0)
    return s.C / s.at_largest(s.run_bound) + np.sum(per_level, axis=-1)


def write_cost(s: Structure, entries_per_block: ArrayLike) -> np.ndarray:
    """Eq 14: W = WA / B, amortized I/O per application write (B entries per write I/O)."""
    return write_amplification(s) / np.asarray(entries_per_block, dtype=float)


def zero_result_read_cost(s: Structure, fprs: np.ndarray) -> np.ndarray:
    """Eq 15: R_zero = p = sum_i a_i p_i."""
    return sum_fpr(s.runs, fprs)


def point_read_cost(s: Structure, fprs: np.ndarray) -> np.ndarray:
    """Eq 15 (errata 6): R = 1 + p - p_L (a_L + 1)/2 for an entry at Level L. On average (a_L -
    1)/2 runs of Level L are probed before the run that holds the entry."""
    p = sum_fpr(s.runs, fprs)
    return 1.0 + p - s.at_largest(fprs) * (s.at_largest(s.runs) + 1.0) / 2.0


def point_read_uniform_cost(s: Structure, fprs: np.ndarray) -> np.ndarray:
    """Expected I/O of a read for an existing entry drawn uniformly from all N entries. The
    expected-case companion of Eq 15: an entry at Level i is found after the false positives of
    every run at Levels 1..i-1, sum_{h<i} a_h p_h, and on average (a_i - 1)/2 runs of its own
    level, each costing p_i; Level i holds the share N_i / N of the entries."""
    level_fpr = np.where(s.valid, s.runs * fprs, 0.0)
    before = np.cumsum(level_fpr, axis=-1) - level_fpr
    own = np.where(s.valid, fprs * (s.runs - 1.0) / 2.0, 0.0)
    share = np.where(s.valid, s.fractions, 0.0)
    return 1.0 + np.sum(share * (before + own), axis=-1) / np.sum(share, axis=-1)


def range_runs(s: Structure) -> np.ndarray:
    """Section 5: a range read probes every run, V = sum_i a_i."""
    return np.sum(s.runs, axis=-1)


def range_spread(s: Structure) -> np.ndarray:
    """sum_i N_i/N: the share of the data the levels hold, over which a long range spreads."""
    return np.sum(np.where(s.valid, s.fractions, 0.0), axis=-1)


def space_amplification(s: Structure) -> np.ndarray:
    """Worst-case space amplification: stored entries over live ones when every entry outside
    Level L's oldest run updates an entry in it. That run holds N_L / a_L, so
    (sum_i N_i - N_L / a_L) / (N_L / a_L): 1/C for leveling (C = T - 1 gives 1/(T-1)), about
    a_L (1 + 1/C) - 1 for a tiered Level L (Dostoevsky's O(1/T) and O(T))."""
    n_L = s.at_largest(s.fractions)
    oldest = n_L / s.at_largest(np.maximum(s.runs, 1.0))
    total = np.sum(np.where(s.valid, s.fractions, 0.0), axis=-1)
    return (total - oldest) / oldest


def filter_probes(s: Structure, hash_mask: np.ndarray) -> np.ndarray:
    """In-memory probes of a zero-result point read (App. F): one Bloom filter per run, or one
    hash table for a level that has one. Existing-key reads are charged the same count, an
    upper bound, since they stop at the run that holds the key."""
    return np.sum(np.where(s.valid, np.where(hash_mask, 1.0, s.runs), 0.0), axis=-1)


def range_cost(runs: ArrayLike, spread: ArrayLike, range_blocks: ArrayLike) -> np.ndarray:
    """Range read I/O for a result that fills ``range_blocks`` blocks (Section 5). One I/O per
    run to reach the range's start, plus the result's blocks, spread over the levels in
    proportion to their data. ``range_blocks = 0`` is the paper's short range (one block per
    run), V = sum_i a_i. Every range cost in the project, predicted or not, is this function."""
    return np.asarray(runs, dtype=float) + np.asarray(range_blocks, dtype=float) * spread


def range_cost_blocks(s: Structure, range_blocks: ArrayLike) -> np.ndarray:
    """:func:`range_cost` of a structure."""
    return range_cost(range_runs(s), range_spread(s), range_blocks)
