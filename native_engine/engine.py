"""Python face of the native LSM engine (``native_engine._engine``, C++17).

``Engine`` validates arguments (bad input raises ``TypeError``/``ValueError`` with a message
naming the argument), converts batches to NumPy arrays and turns range reads into a lazy
generator. All storage work happens in C++; see ``native_engine/src/engine.h`` for the contract.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from native_engine import _engine

_U64_MAX = 2**64 - 1
_SCAN_BATCH = 1024


def _check_key(name: str, key: Any) -> int:
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        raise TypeError(f"{name} must be an int in [0, 2**64), got {type(key).__name__}")
    key = int(key)
    if not 0 <= key <= _U64_MAX:
        raise ValueError(f"{name} must be in [0, 2**64), got {key}")
    return key


def _check_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    return float(value)


def _check_int(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name} = {value} must be in [{lo}, {hi}]")
    return value


def _check_cache_bytes(cache_bytes: Any) -> int:
    if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, (int, np.integer)):
        raise TypeError(f"cache_bytes must be an int, got {type(cache_bytes).__name__}")
    cache_bytes = int(cache_bytes)
    if not 0 <= cache_bytes <= _U64_MAX:
        raise ValueError(f"cache_bytes must be >= 0 (0 disables the block cache) and < 2**64; "
                         f"got {cache_bytes}")
    return cache_bytes


def _check_file_bytes(file_bytes: Any, block_bytes: int, most: int) -> int:
    """file_bytes as the engine takes it: 0 for the default (the buffer's size)."""
    if file_bytes is None:
        return 0
    if isinstance(file_bytes, bool) or not isinstance(file_bytes, (int, np.integer)):
        raise TypeError(f"file_bytes must be an int, got {type(file_bytes).__name__}")
    if not block_bytes <= int(file_bytes) <= most:
        raise ValueError(f"file_bytes must be in [block_bytes, T x buffer_bytes] = "
                         f"[{block_bytes}, {most}] (one block to Level 1's capacity); got "
                         f"{int(file_bytes)}")
    return int(file_bytes)


class Engine:
    """A Wacky LSM engine storing runs as files under ``path``.

    Keys are unsigned 64-bit ints; values are exactly ``entry_bytes - 8`` bytes. Give the filter
    memory either as ``bits_per_entry`` (default 10) or as the sum of FPRs ``sum_fpr``.
    ``filters`` chooses how that memory is spread over the levels: ``"optimized"`` (default) is
    the Lagrangian optimum of App. C (``cost_models.filters.lagrangian_fprs_for_*``);
    ``"uniform"`` gives every run of every level the same FPR, as RocksDB/LevelDB do
    (``cost_models.filters.uniform_fprs_for_*``): e^(-bits_per_entry ln(2)^2), or
    min(1, sum_fpr / total runs).
    ``wal`` (default on) logs every write before the call returns, so acknowledged writes
    survive a crash of the process; with ``sync`` they also survive a power loss (the log, run
    files, manifest and directory are fdatasynced). Without ``wal``, writes since the last
    flush are lost if the process dies. ``retain_obsolete_runs`` renames merged-away run files
    to ``*.obsolete`` instead of deleting them (for I/O accounting tests).
    ``granularity="file"`` (leveled designs) keeps each level as files of ``file_bytes`` (default
    the buffer's size) and merges one file at a time into the next level (``file_pick``:
    ``"least_overlap"`` or ``"round_robin"``); ``level1_runs`` > 1 lets that many flushes gather
    as runs in level 0 before they merge into Level 1 together (RocksDB's level-0 trigger).
    See ``native_engine/src/file_compaction.h``.
    ``cache_bytes`` (default 0 = off) sizes an LRU cache of data blocks for point reads: it holds
    ``cache_bytes // block_bytes`` blocks (any size is allowed; one larger than the data caches
    every block read). ``get``/``get_many`` look each block up there first; a hit reads nothing
    from disk and is not counted in ``point_read``. Scans, flushes, merges, recovery and
    ``verify`` neither use nor fill it, and a flush or merge that deletes a run drops its cached
    blocks. It is memory only, not part of the design: the MANIFEST does not record it and a
    reopen may give any value. See ``stats()`` for its counters.
    Reopening a directory requires the same design and layout parameters and ``filters`` mode.
    A block that fails its checksum raises :class:`CorruptionError` (an ``OSError``) naming the
    file and block; no value is ever returned from it.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        T: float = 10,
        C: float = 9,
        X: float = 1,
        K: float = 0,
        Z: float = 0,
        entry_bytes: int = 128,
        block_bytes: int = 4096,
        buffer_bytes: int = 8 << 20,
        bits_per_entry: float | None = None,
        sum_fpr: float | None = None,
        filters: str = "optimized",
        hash_levels: int = 0,
        sync: bool = False,
        wal: bool = True,
        retain_obsolete_runs: bool = False,
        granularity: str = "level",
        file_bytes: int | None = None,
        level1_runs: int = 1,
        file_pick: str = "least_overlap",
        cache_bytes: int = 0,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        if "\0" in os.fsdecode(path):
            raise ValueError("path must not contain a NUL byte")
        design = {k: _check_number(k, v) for k, v in dict(T=T, C=C, X=X, K=K, Z=Z).items()}
        _engine.validate_design(**design)
        entry_bytes = _check_int("entry_bytes", entry_bytes, 9, 1 << 20)
        block_bytes = _check_int("block_bytes", block_bytes, 1, 64 << 20)
        buffer_bytes = _check_int("buffer_bytes", buffer_bytes, 1, 1 << 36)
        hash_levels = _check_int("hash_levels", hash_levels, 0, 64)
        if bits_per_entry is not None and sum_fpr is not None:
            raise ValueError("give either bits_per_entry or sum_fpr, not both")
        if not isinstance(filters, str) or filters not in ("optimized", "uniform"):
            raise ValueError(f"filters must be 'optimized' or 'uniform', got {filters!r}")
        if not isinstance(granularity, str) or granularity not in ("level", "file"):
            raise ValueError(f"granularity must be 'level' or 'file'; got {granularity!r}")
        if not isinstance(file_pick, str) or file_pick not in ("least_overlap", "round_robin"):
            raise ValueError(f"file_pick must be 'least_overlap' or 'round_robin'; got "
                             f"{file_pick!r}")
        level1_runs = _check_int("level1_runs", level1_runs, 1, 1000)
        file_bytes = _check_file_bytes(file_bytes, block_bytes, int(design["T"] * buffer_bytes))
        cache_bytes = _check_cache_bytes(cache_bytes)
        use_sum = sum_fpr is not None
        bits = 10.0 if bits_per_entry is None else _check_number("bits_per_entry", bits_per_entry)
        p = _check_number("sum_fpr", sum_fpr) if use_sum else 0.0
        self._e = _engine._Engine(
            os.fspath(path),
            design["T"],
            design["C"],
            design["X"],
            design["K"],
            design["Z"],
            entry_bytes,
            block_bytes,
            buffer_bytes,
            use_sum,
            bits,
            p,
            filters == "uniform",
            hash_levels,
            bool(sync),
            bool(wal),
            bool(retain_obsolete_runs),
            1 if granularity == "file" else 0,
            file_bytes,
            1 if file_pick == "round_robin" else 0,
            level1_runs,
            cache_bytes,
        )
        self.path = os.fspath(path)
        self.value_bytes = int(self._e.value_bytes)
        self.entries_per_block = int(self._e.entries_per_block)
        self.buffer_entries = int(self._e.buffer_entries)

    @classmethod
    def open(cls, path: str | os.PathLike[str], **kwargs: Any) -> Engine:
        """Open an existing directory with the design and layout its MANIFEST records (the
        MANIFEST's checksum is verified first). ``kwargs`` may set ``sync``, ``wal`` and
        ``cache_bytes``."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        if "\0" in os.fsdecode(path):
            raise ValueError("path must not contain a NUL byte")
        unknown = set(kwargs) - {"sync", "wal", "cache_bytes"}
        if unknown:
            raise ValueError(f"Engine.open takes only sync, wal and cache_bytes; got "
                             f"{sorted(unknown)}")
        if not os.path.exists(os.path.join(path, "MANIFEST")):
            raise ValueError(
                f"{os.fspath(path)!r} has no MANIFEST: not an engine directory, or one whose "
                "MANIFEST was lost (nothing was opened or changed)"
            )
        return cls(path, **_engine.stored_options(os.fspath(path)), **kwargs)

    # -- single operations -------------------------------------------------------------
    def _value(self, value: Any) -> bytes | bytearray | memoryview:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise TypeError(f"value must be bytes-like, got {type(value).__name__}")
        if len(memoryview(value).cast("B")) != self.value_bytes:
            raise ValueError(
                f"value must be exactly {self.value_bytes} bytes, got {memoryview(value).nbytes}"
            )
        return value

    def put(self, key: int, value: bytes) -> None:
        """Insert or overwrite ``key``."""
        self._e.put(_check_key("key", key), self._value(value))

    def delete(self, key: int) -> None:
        """Delete ``key`` (writes a tombstone)."""
        self._e.delete(_check_key("key", key))

    def get(self, key: int) -> bytes | None:
        """The value of ``key``, or None if it is absent."""
        return self._e.get(_check_key("key", key))

    def scan(self, lo: int, hi: int) -> Iterator[tuple[int, bytes]]:
        """Yield ``(key, value)`` for lo <= key <= hi in key order (a snapshot at call time)."""
        it = self._e.scan(_check_key("lo", lo), _check_key("hi", hi))

        def gen() -> Iterator[tuple[int, bytes]]:
            while True:
                batch = it.next_batch(_SCAN_BATCH)
                if not batch:
                    return
                yield from batch

        return gen()

    # -- batches -----------------------------------------------------------------------
    def put_many(self, keys: Any, values: Any) -> None:
        """Insert a batch: ``keys`` uint64 array (n,), ``values`` uint8 array (n, value_bytes)
        or a bytes-like of n * value_bytes bytes. Runs without the GIL."""
        k = np.ascontiguousarray(self._keys_array(keys))
        if isinstance(values, (bytes, bytearray, memoryview)):
            v = np.frombuffer(values, dtype=np.uint8)
        else:
            v = np.asarray(values)
            if v.dtype != np.uint8:
                raise TypeError(f"values must be a uint8 array, got dtype {v.dtype}")
        self._e.put_many(k, np.ascontiguousarray(v))

    def get_many(self, keys: Any) -> tuple[np.ndarray, np.ndarray]:
        """Look up a batch: returns ``(values, found)`` with values (n, value_bytes) uint8
        (zeros where absent) and found (n,) bool. Runs without the GIL."""
        return self._e.get_many(np.ascontiguousarray(self._keys_array(keys)))

    @staticmethod
    def _keys_array(keys: Any) -> np.ndarray:
        k = np.asarray(keys)
        if k.ndim != 1:
            raise ValueError(f"keys must be a 1-D array, got shape {k.shape}")
        if k.size == 0:
            return k.astype(np.uint64)
        if k.dtype == np.uint64:
            return k
        if not np.issubdtype(k.dtype, np.integer):
            raise TypeError(f"keys must be unsigned 64-bit integers, got dtype {k.dtype}")
        if k.min() < 0:
            raise ValueError("keys must be >= 0")
        return k.astype(np.uint64)

    # -- lifecycle and introspection --------------------------------------------------
    def flush(self) -> None:
        """Write the buffer out now (normally done when it is full)."""
        self._e.flush()

    def verify(self) -> dict[str, int]:
        """Read every block of every run and check it against its checksum, and check every
        run's in-memory filter against its checksum and its keys. Returns ``{"runs": ...,
        "blocks": ..., "entries": ...}`` (what was checked); raises :class:`CorruptionError`
        naming the file and block (or filter) at the first damage. Runs without the GIL."""
        return {k: int(v) for k, v in self._e.verify().items()}

    def close(self) -> None:
        """Flush the buffer, persist the manifest and release the directory. Idempotent."""
        self._e.close()

    @property
    def closed(self) -> bool:
        return bool(self._e.closed)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stats(self) -> dict[str, Any]:
        """All counters: per purpose (flush, merge[i] for Level i+1, merge_total, point_read,
        range_read, recovery, total) a dict of blocks/bytes read/written; plus merge_seconds,
        operation and merge counts, n_est and buffer_size. Metadata is counted apart from
        ``total``: manifest_bytes_written, wal_bytes_written and wal_syncs (the write-ahead log),
        and checksums (the checksum section of each run file).

        The block cache (``cache_bytes``; point reads only): ``cache_hits`` and ``cache_misses``
        (totals) and ``cache_hits_per_level``/``cache_misses_per_level`` (lists: index 0 is
        level 0, index i is Level i; at least one entry per current level) count the blocks
        ``get``/``get_many`` found cached or read from disk. Misses are counted with the cache
        off too, so ``cache_misses == point_read["blocks_read"]`` always and the hit rate
        ``cache_hits / (cache_hits + cache_misses)`` is 0 without a cache.
        ``cache_invalidated_blocks`` counts cached blocks dropped because a flush or merge
        deleted their run; ``cache_blocks`` is the number of blocks cached now."""
        s = self._e.stats()
        s["n_est"] = float(self._e.n_est)
        s["buffer_size"] = int(self._e.buffer_size)
        return s

    def levels(self) -> list[dict[str, Any]]:
        """Per level: level (its number), ratio, capacity (entries), max_runs (integer a_i), fpr,
        hash_table, files, entries and runs (oldest first; the last is the active run), each
        with id, entries, tombstones, blocks, file_bytes, min_key, max_key, filter_bits_per_key,
        filter_probes, filter_fpr and hash_indexed.

        With ``level1_runs`` >= 2 the list starts with level 0 (``level`` 0: the flushes waiting
        to merge, ``max_runs`` = ``level1_runs``; not part of the shape), then Level 1..L. With
        ``files`` true (``granularity="file"``) a level is ONE sorted run whose ``runs`` are its
        files in key order: count it as one run, not ``len(runs)``."""
        return self._e.levels()
