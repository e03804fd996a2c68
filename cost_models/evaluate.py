"""One vectorized pass from knobs to every cost: structure, filters, memory, I/O costs.

This is the hot path of the design search, so it takes plain numbers and arrays (no user types).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cost_models import costs, filters, memory, objective
from cost_models.structure import ArrayLike, Structure, structure


@dataclass(frozen=True)
class Evaluation:
    """Costs of a broadcast array of designs; per-level arrays have the level axis last."""

    structure: Structure
    fprs: np.ndarray  # p_i per run at each level
    hash_mask: np.ndarray  # levels served by a hash table (App. F)
    bloom_bits: np.ndarray  # filter bits per key at each level
    hash_bits: np.ndarray  # hash-table bits per entry at each level (0 where unused)
    write_amp: np.ndarray
    write_cost: np.ndarray
    point_read: np.ndarray
    point_read_uniform: np.ndarray  # expected case: an entry drawn uniformly
    zero_result_read: np.ndarray
    range_runs: np.ndarray
    filter_probes: np.ndarray  # filters and hash tables a zero-result read probes
    memory_bits_per_entry: np.ndarray  # Bloom filters + hash tables, per stored entry
    fence_bits_per_entry: np.ndarray

    @property
    def sum_fpr(self) -> np.ndarray:
        return self.zero_result_read

    def range_cost(self, range_blocks: ArrayLike) -> np.ndarray:
        return costs.range_cost_blocks(self.structure, range_blocks)

    @property
    def row(self) -> np.ndarray:
        """The cost row (:data:`cost_models.objective.COST_ROW`): Theta = row @ weights."""
        return objective.cost_row(
            point_read=self.point_read, zero_result_read=self.zero_result_read,
            write_cost=self.write_cost, range_runs=self.range_runs,
            range_spread=costs.range_spread(self.structure),
            point_read_uniform=self.point_read_uniform, filter_probes=self.filter_probes)


def bloom_fprs(
    runs: np.ndarray, level_entries: np.ndarray, bits_per_entry, sum_fpr, uniform: bool
) -> np.ndarray:
    """Bloom filters' FPR per run from M (``bits_per_entry``) or else from p (``sum_fpr``):
    Lagrangian-optimal over ``level_entries`` (App. C) or uniform."""
    if uniform:
        if bits_per_entry is not None:
            return filters.uniform_fprs_for_memory(runs, bits_per_entry)
        return filters.uniform_fprs_for_sum(runs, sum_fpr)
    if bits_per_entry is not None:
        return filters.lagrangian_fprs_for_memory(level_entries, runs, bits_per_entry)
    return filters.lagrangian_fprs_for_sum(level_entries, runs, sum_fpr)


def hash_mask_of(s: Structure, hash_levels: ArrayLike) -> np.ndarray:
    """Levels served by a hash table: the ``hash_levels`` smallest, never Level L (App. F)."""
    mask = memory.hash_table_levels(s.L, hash_levels)[..., : s.valid.shape[-1]] & s.valid
    return np.broadcast_to(mask, s.valid.shape)


def _hash_tables(s: Structure, fprs: np.ndarray, hash_levels: ArrayLike, pointer_bits: float,
                 load_factor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, signature bits, table bits per entry) of the hash levels, each table keeping the
    level's false-positive rate a_i p_i under ``fprs``."""
    mask = hash_mask_of(s, hash_levels)
    signature = memory.hash_signature_bits(np.where(mask, s.runs * fprs, 1.0))
    bits = np.where(mask, memory.hash_table_bits_per_entry(np.exp2(-signature), pointer_bits,
                                                           load_factor), 0.0)
    return mask, signature, bits


def allocate_fprs(
    s: Structure, *, bits_per_entry: ArrayLike | None = None, sum_fpr: ArrayLike | None = None,
    uniform: bool = False, hash_levels: ArrayLike = 0, pointer_bits: float = memory.POINTER_BITS,
    load_factor: float = memory.LOAD_FACTOR,
) -> np.ndarray:
    """FPR per run at each level: Lagrangian-optimal (App. C) or uniform, from M or from p. With
    ``hash_levels`` the smallest levels get a hash table (App. F) whose key signatures keep the
    false-positive rate a_i p_i the filters would have given that level (at most, since the
    signature's bits are whole), so a hashed level keeps its p_i here and every cost sums a_i p_i
    unchanged. With a memory budget M the tables' bits come out of it, and the Bloom filters of
    the other levels are optimized again for what is left (none at all when the tables take it
    all)."""
    if (bits_per_entry is None) == (sum_fpr is None):
        raise ValueError("give exactly one of bits_per_entry or sum_fpr")
    plain = bloom_fprs(s.runs, s.fractions, bits_per_entry, sum_fpr, uniform)
    if not np.any(hash_levels) or bits_per_entry is None:
        return plain
    mask, _, table_bits = _hash_tables(s, plain, hash_levels, pointer_bits, load_factor)
    stored = np.where(s.valid, s.fractions, 0.0)
    left = (np.asarray(bits_per_entry, dtype=float) * np.sum(stored, axis=-1)
            - np.sum(stored * table_bits, axis=-1))
    rest = np.sum(np.where(mask, 0.0, stored), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_entry = np.where(rest > 0, np.maximum(left, 0.0) / rest, 0.0)
    others = bloom_fprs(s.runs, np.where(mask, 0.0, s.fractions), per_entry, None, uniform)
    return np.where(mask, plain, others)


def hash_overspend(
    s: Structure, plain_fprs: np.ndarray, bits_per_entry: ArrayLike, hash_levels: ArrayLike,
    pointer_bits: float = memory.POINTER_BITS, load_factor: float = memory.LOAD_FACTOR,
) -> np.ndarray:
    """True where the hash tables alone need more than ``bits_per_entry`` (the memory budget).
    ``plain_fprs``: :func:`allocate_fprs` of the budget without hash tables."""
    _, _, table_bits = _hash_tables(s, plain_fprs, hash_levels, pointer_bits, load_factor)
    stored = np.where(s.valid, s.fractions, 0.0)
    return (np.sum(stored * table_bits, axis=-1)
            > np.asarray(bits_per_entry, dtype=float) * np.sum(stored, axis=-1) * (1 + 1e-12))


def evaluate(
    T: ArrayLike, C: ArrayLike, X: ArrayLike, K: ArrayLike, Z: ArrayLike, *,
    n_buffers: ArrayLike, entries_per_block: ArrayLike, bits_per_entry: ArrayLike | None = None,
    sum_fpr: ArrayLike | None = None, uniform: bool = False, integer_runs: bool = False,
    hash_levels: ArrayLike = 0, key_bytes: ArrayLike = 8,
    pointer_bits: float = memory.POINTER_BITS, load_factor: float = memory.LOAD_FACTOR,
) -> Evaluation:
    """Evaluate every cost of the designs (T, C, X, K, Z) for N/F = ``n_buffers``."""
    s = structure(T, C, X, K, Z, n_buffers, integer_runs=integer_runs)
    fprs = allocate_fprs(s, bits_per_entry=bits_per_entry, sum_fpr=sum_fpr, uniform=uniform,
                         hash_levels=hash_levels, pointer_bits=pointer_bits,
                         load_factor=load_factor)
    hash_mask = hash_mask_of(s, hash_levels)
    bloom_bits = np.where(s.valid & ~hash_mask, filters.bloom_bits_per_key(fprs), 0.0)
    level_fpr = s.runs * fprs
    hash_bits = np.where(hash_mask, memory.hash_table_bits_per_entry(level_fpr, pointer_bits,
                                                                     load_factor), 0.0)
    stored = np.sum(s.fractions, axis=-1)
    mem = np.sum(s.fractions * (bloom_bits + hash_bits), axis=-1) / stored
    return Evaluation(
        structure=s, fprs=fprs, hash_mask=hash_mask, bloom_bits=bloom_bits, hash_bits=hash_bits,
        write_amp=costs.write_amplification(s),
        write_cost=costs.write_cost(s, entries_per_block),
        point_read=costs.point_read_cost(s, fprs),
        point_read_uniform=costs.point_read_uniform_cost(s, fprs),
        zero_result_read=costs.zero_result_read_cost(s, fprs),
        range_runs=costs.range_runs(s),
        filter_probes=costs.filter_probes(s, hash_mask),
        memory_bits_per_entry=mem,
        fence_bits_per_entry=np.broadcast_to(
            memory.fence_pointer_bits_per_entry(entries_per_block, key_bytes), mem.shape))


def cost_rows(s: Structure, fprs: np.ndarray, entries_per_block: ArrayLike,
              hash_levels: ArrayLike = 0) -> np.ndarray:
    """Just the costs Theta needs, stacked on a last axis in the order of ``objective.COST_ROW``.
    Theta (Eq 16) is ``objective.theta_of_rows(rows, objective.theta_weights(...))``; the search
    calls this many times, so it skips memory accounting. ``fprs`` comes from
    :func:`allocate_fprs` with the same ``hash_levels``."""
    return objective.cost_row(
        point_read=costs.point_read_cost(s, fprs),
        zero_result_read=costs.zero_result_read_cost(s, fprs),
        write_cost=costs.write_cost(s, entries_per_block), range_runs=costs.range_runs(s),
        range_spread=costs.range_spread(s),
        point_read_uniform=costs.point_read_uniform_cost(s, fprs),
        filter_probes=costs.filter_probes(s, hash_mask_of(s, hash_levels)))
