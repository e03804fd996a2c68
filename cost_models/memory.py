"""Filter memory: exact per-level sum, X -> 1 closed form, three-largest-levels approximation,
hash tables for small levels (App. F) and fence pointers (App. G).
"""

from __future__ import annotations

import numpy as np

from cost_models.filters import LN2_SQ, bloom_bits_per_key
from cost_models.structure import ArrayLike, Structure


def exact_memory(s: Structure, fprs: np.ndarray) -> np.ndarray:
    """Exact bits per entry sum_i N_i ln(1/p_i)/ln(2)^2 / N over the levels (Eq 24, first line).
    Divided by N, the paper's normalization, so that it converges to the closed form as L grows."""
    bits = np.where(s.valid, s.fractions * bloom_bits_per_key(fprs), 0.0)
    return np.sum(bits, axis=-1)


def _check_closed_form_domain(p: np.ndarray, C: np.ndarray, Z: np.ndarray) -> None:
    upper = (C + 1.0) / C * np.power(C, Z)
    if np.any(~np.isfinite(p)) or np.any(p <= 0) or np.any(p >= upper):
        raise ValueError(f"sum_fpr must lie in (0, (C+1)/C * C^Z) = (0, {np.min(upper):.6g}) "
                         f"for the X -> 1 closed form; got {p}")


def _closed_form_log_factor(T: np.ndarray, C: np.ndarray, K: np.ndarray, Z: np.ndarray):
    """ln of (C+1) * C^(C(Z-1)/(C+1)) * (T-1)^((K-1)/(C+1)) * T^(T/((C+1)(T-1))) (errata 4)."""
    return (np.log(C + 1.0) + C * (Z - 1.0) / (C + 1.0) * np.log(C)
            + (K - 1.0) / (C + 1.0) * np.log(T - 1.0) + T / ((C + 1.0) * (T - 1.0)) * np.log(T))


def closed_form_memory_cll(T: ArrayLike, C: ArrayLike, K: ArrayLike, Z: ArrayLike,
                           p: ArrayLike) -> np.ndarray:
    """Eq 24 / Eq 6 corrected (errata 4): bits per entry for sum of FPRs p when X -> 1.

    M = ln( (C+1)/p * C^(C(Z-1)/(C+1)) * (T-1)^((K-1)/(C+1)) * T^(T/((C+1)(T-1))) ) / ln(2)^2.
    The series behind it run over infinitely many levels; see :func:`exact_memory` for finite L.
    """
    T, C, K, Z, p = (np.asarray(v, dtype=float) for v in (T, C, K, Z, p))
    _check_closed_form_domain(p, C, Z)
    return (_closed_form_log_factor(T, C, K, Z) - np.log(p)) / LN2_SQ


def closed_form_sum_fpr_cll(T: ArrayLike, C: ArrayLike, K: ArrayLike, Z: ArrayLike,
                            bits_per_entry: ArrayLike) -> np.ndarray:
    """Eq 25 corrected: the sum of FPRs p reached with M bits per entry when X -> 1. Raises
    ``ValueError`` when M is too small for every level to have a filter (p would leave the closed
    form's domain p < (C+1)/C * C^Z)."""
    T, C, K, Z, m = (np.asarray(v, dtype=float) for v in (T, C, K, Z, bits_per_entry))
    if np.any(~np.isfinite(m)) or np.any(m < 0):
        raise ValueError(f"bits_per_entry must be a finite number >= 0; got {bits_per_entry}")
    log_factor = _closed_form_log_factor(T, C, K, Z)
    p = np.exp(log_factor - m * LN2_SQ)
    upper = (C + 1.0) / C * np.power(C, Z)
    if np.any(p >= upper):
        minimum = (log_factor - np.log(upper)) / LN2_SQ
        raise ValueError(f"bits_per_entry={m} is too small for a filter at every level in the "
                         f"X -> 1 closed form; it needs more than {np.max(minimum):.6g} bits per "
                         "entry")
    return p


def three_level_memory(s: Structure, fprs: np.ndarray) -> np.ndarray:
    """Eq 26: bits per entry of the largest three levels only, M_L + M_(L-1) + M_(L-2)."""
    level = np.arange(1, s.valid.shape[-1] + 1)
    top3 = s.valid & (level > (s.L[..., None] - 3))
    bits = np.where(top3, s.fractions * bloom_bits_per_key(fprs), 0.0)
    return np.sum(bits, axis=-1)


# App. F / Figure 11: a hash table slot holds a key signature and a 48-bit pointer, no slack.
POINTER_BITS = 48.0
LOAD_FACTOR = 1.0


def hash_signature_bits(level_fpr: ArrayLike) -> np.ndarray:
    """App. F: key-signature bits so one table probe has the level's FPR a_i*p_i:
    ceil(log2(1/x)). A level whose FPR is 1 or more needs no signature bits (any probe may be a
    false positive)."""
    x = np.asarray(level_fpr, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(x >= 1.0, 0.0, np.ceil(-np.log2(np.minimum(x, 1.0)) - 1e-12))


def hash_table_bits_per_entry(level_fpr: ArrayLike, pointer_bits: float = POINTER_BITS,
                              load_factor: float = LOAD_FACTOR) -> np.ndarray:
    """App. F / Figure 11: (signature + pointer) bits per entry, inflated by 1/load_factor. The
    defaults reproduce Figure 11 (48-bit pointers, no slack); a real table wants load_factor < 1
    for collision headroom."""
    if not (0.0 < load_factor <= 1.0):
        raise ValueError(f"load_factor must lie in (0, 1]; got {load_factor}")
    if not (pointer_bits >= 0):
        raise ValueError(f"pointer_bits must be >= 0; got {pointer_bits}")
    return (hash_signature_bits(level_fpr) + pointer_bits) / load_factor


def hash_table_levels(L: ArrayLike, hash_levels: ArrayLike) -> np.ndarray:
    """Mask of levels that use a hash table: the ``hash_levels`` smallest, never Level L. App.
    F's rule of thumb is Bloom filters for the largest three levels: hash_levels = L - 3."""
    L = np.asarray(L)
    h = np.minimum(np.asarray(hash_levels), L - 1)
    width = int(np.max(L)) if L.size else 1
    level = np.arange(1, width + 1)
    return level <= h[..., None]


def rule_of_thumb_hash_levels(L: ArrayLike) -> np.ndarray:
    """App. F: hash tables for Levels 1..L-3, Bloom filters for the largest three levels."""
    return np.maximum(0, np.asarray(L) - 3)


def fence_pointer_bits_per_entry(entries_per_block: ArrayLike, key_bytes: ArrayLike,
                                 pointer_bytes: ArrayLike = 8) -> np.ndarray:
    """App. G: one (key, pointer) pair per block, so (key + pointer) * 8 / B bits per entry."""
    return ((np.asarray(key_bytes) + np.asarray(pointer_bytes)) * 8.0
            / np.asarray(entries_per_block, dtype=float))


def split_memory(
    memory_bits_per_entry: ArrayLike, fence_bits_per_entry: ArrayLike, buffer_blocks: ArrayLike,
    block_bytes: ArrayLike, entries: ArrayLike,
) -> np.ndarray:
    """Filter bits per entry left by a total memory budget once the fence pointers and a buffer of
    ``buffer_blocks`` blocks are paid for (at least 0): M_filters = M - fences - 8 F_bytes / N."""
    buffer_bits = 8.0 * np.asarray(buffer_blocks, dtype=float) * np.asarray(block_bytes)
    left = (np.asarray(memory_bits_per_entry, dtype=float) - fence_bits_per_entry
            - buffer_bits / np.asarray(entries, dtype=float))
    return np.maximum(0.0, left)
