"""A mix of operations for the bridge's ``run_mix`` (issue 34): the kinds, the keys and the
masks that RocksDB's read calibration (validation/stalls.py ``calibrate_reads``) and the mix
sweep (validation/mix.py) share. A leaf module, so that the calibration does not import the
sweep."""

from __future__ import annotations

from typing import Any

import numpy as np

PUT, GET, SCAN = 0, 1, 2  # the bridge's run_mix kinds
# The mix RocksDB's reads are calibrated in (calibrate_reads) and validation/mix.py measures.
MIX = {"point_read": 0.4, "zero_read": 0.2, "write": 0.3, "range_read": 0.1}


def load_all(db: Any, keys: np.ndarray, value_bytes: int) -> None:
    """Put ``keys`` with values of ``value_bytes`` as fast as RocksDB takes them, then wait for
    its compactions."""
    values = np.zeros((1000, value_bytes), dtype=np.uint8)
    for i in range(0, keys.size, 1000):
        batch = keys[i:i + 1000]
        db.put_many(batch, values[:batch.size])
    db.wait_for_background_work(600.0)


def keys_of(entries: int, seed: int) -> np.ndarray:
    """Odd keys: an even key is never present (a zero-result read's)."""
    rng = np.random.default_rng(seed)
    return np.unique(rng.integers(1, 2**62, entries, dtype=np.uint64) | np.uint64(1))


def draw(keys: np.ndarray, n: int, rng: np.random.Generator,
         mix: dict[str, float] = MIX) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` operations of ``mix`` in a random order over the loaded ``keys``: the bridge's kinds,
    their keys, and which are zero-result reads (a loaded key with its lowest bit cleared)."""
    names = list(mix)
    which = rng.choice(len(names), n, p=[mix[k] for k in names])
    kind_of = {"point_read": GET, "zero_read": GET, "write": PUT, "range_read": SCAN}
    kinds = np.array([kind_of[k] for k in names], dtype=np.uint8)[which]
    picked = keys[rng.integers(0, keys.size, n)]
    zero = which == names.index("zero_read")
    return kinds, np.where(zero, picked ^ np.uint64(1), picked), zero


def masks(kinds: np.ndarray, zero: np.ndarray) -> dict[str, np.ndarray]:
    return {"point_read": (kinds == GET) & ~zero, "zero_read": zero, "write": kinds == PUT,
            "range_read": kinds == SCAN}
