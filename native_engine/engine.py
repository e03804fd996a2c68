"""Python face of the native LSM engine (``native_engine._engine``, C++17).

``Engine`` validates arguments (bad input raises ``ValueError``, or :class:`InvalidArgument` for
a wrong type, which is both a ``TypeError`` and a ``ValueError``, with a message naming the
argument), converts batches to NumPy arrays and turns range reads into a lazy generator. All
storage work happens in C++; see ``native_engine/src/engine.h`` for the contract.
``verify_directory`` and ``clean_lost`` check and tidy a closed directory.
"""

from __future__ import annotations

import errno
import glob
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from native_engine import _engine

_U64_MAX = 2**64 - 1
_I64_MAX = 2**63 - 1
_SCAN_BATCH = 1024
# wal_recovery as the engine takes it (the numbering of the binding's wal_recovery argument).
WAL_RECOVERY_MODES = {"tolerate_corrupted_tail_records": 0, "absolute_consistency": 1,
                      "point_in_time": 2}
FILE_PICKS = ("least_overlap", "round_robin")
HOTNESS_SOURCES = ("exact", "hotmap")


class InvalidArgument(TypeError, ValueError):
    """An argument of the wrong type. It is a ``TypeError`` (what it is) and a ``ValueError``
    (what every other refusal of bad input is), as NumPy's ``AxisError`` is both a
    ``ValueError`` and an ``IndexError``, so code catching either sees it."""


def _is_int(value: Any) -> bool:
    # bool is an int subclass, but True is no key or size
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_key(name: str, key: Any) -> int:
    if not _is_int(key):
        raise InvalidArgument(f"{name} must be an int in [0, 2**64), got {type(key).__name__}")
    key = int(key)
    if not 0 <= key <= _U64_MAX:
        raise ValueError(f"{name} must be in [0, 2**64), got {key}")
    return key


def _check_number(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise InvalidArgument(f"{name} must be a number, got {type(value).__name__}")
    return float(value)


def _check_int(name: str, value: Any, lo: int, hi: int) -> int:
    if not _is_int(value):
        raise InvalidArgument(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name} = {value} must be in [{lo}, {hi}]")
    return value


def _check_bool(name: str, value: Any) -> bool:
    """Only a real boolean: truthiness would turn wal=None off and wal='false' on."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgument(f"{name} must be True or False, got {value!r} "
                              f"({type(value).__name__})")
    return bool(value)


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in choices:
        return value
    named = [repr(c) for c in choices]
    allowed = " or ".join(named) if len(named) == 2 else (
        f"one of {', '.join(named[:-1])} or {named[-1]}")
    error = ValueError if isinstance(value, str) else InvalidArgument
    raise error(f"{name} must be {allowed}; got {value!r}")


def _check_path(path: Any) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgument(f"path must be a str or os.PathLike, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):  # a PathLike may give bytes
        raise InvalidArgument(f"path must give a str, got {type(text).__name__}")
    if "\0" in text:
        raise ValueError("path must not contain a NUL byte")
    return text


def _holds_engine_files(path: str) -> bool:
    """Whether ``path`` holds run files or logs: data an engine wrote, whatever else is lost."""
    pattern = glob.escape(path)
    return bool(glob.glob(os.path.join(pattern, "run-*.sst"))
                or glob.glob(os.path.join(pattern, "wal-*.log")))


def _check_has_manifest(path: str) -> None:
    """Refuse before the engine sees ``path`` when it has no MANIFEST: ValueError when it is no
    engine directory at all, FileNotFoundError when it holds an engine's data without one."""
    if os.path.exists(os.path.join(path, "MANIFEST")):
        return
    if _holds_engine_files(path):
        raise FileNotFoundError(
            errno.ENOENT,
            "holds run files or logs but no MANIFEST, so nothing proves which data is live; "
            "nothing was opened or changed. Restore the MANIFEST, or move the files away",
            path)
    raise ValueError(f"{path!r} has no MANIFEST and no run files or logs: not an engine "
                     "directory (nothing was opened or changed)")


def _check_cache_bytes(cache_bytes: Any) -> int:
    if not _is_int(cache_bytes):
        raise InvalidArgument(f"cache_bytes must be an int, got {type(cache_bytes).__name__}")
    cache_bytes = int(cache_bytes)
    if not 0 <= cache_bytes <= _U64_MAX:
        raise ValueError(f"cache_bytes must be >= 0 (0 disables the block cache) and < 2**64; "
                         f"got {cache_bytes}")
    return cache_bytes


def _check_file_bytes(file_bytes: Any, block_bytes: int, most: int) -> int:
    """file_bytes as the engine takes it: 0 for the default (the buffer's size)."""
    if file_bytes is None:
        return 0
    if not _is_int(file_bytes):
        raise InvalidArgument(f"file_bytes must be an int, got {type(file_bytes).__name__}")
    if not block_bytes <= int(file_bytes) <= most:
        raise ValueError(f"file_bytes must be in [block_bytes, T x buffer_bytes] = "
                         f"[{block_bytes}, {most}] (one block to Level 1's capacity); got "
                         f"{int(file_bytes)}")
    return int(file_bytes)


def _refuse_file_only(granularity: str, **given: Any) -> None:
    """Options that would do nothing are refused, so no one believes they took effect."""
    if granularity == "file":
        return
    for name, value in given.items():
        if value is not None:
            raise ValueError(f"{name} applies only to granularity='file' (files merged one at a "
                             f"time); with granularity={granularity!r} leave it out (got "
                             f"{name}={value!r})")


def _check_buffer_knobs(compaction_buffer: bool, granularity: str, buffer_trim: Any,
                        buffer_trim_interval: Any) -> tuple[float, int]:
    """The compaction buffer's trim knobs as the engine takes them (``None``: the defaults);
    refused where the buffer is off, and the buffer where merges are not cut into files."""
    trim = 0.8 if buffer_trim is None else _check_number("buffer_trim", buffer_trim)
    if not 0.0 <= trim <= 1.0:  # NaN fails too
        raise ValueError(f"buffer_trim = {trim} must be in [0, 1] (the share of a buffered "
                         "file's blocks that must be cached for the trim to keep it)")
    interval = 8 if buffer_trim_interval is None else _check_int(
        "buffer_trim_interval", buffer_trim_interval, 1, 2**32)
    if compaction_buffer and granularity != "file":
        raise ValueError("compaction_buffer applies only to granularity='file' (it buffers the "
                         f"files merged one at a time); got granularity={granularity!r}")
    if not compaction_buffer:
        for name, value in (("buffer_trim", buffer_trim),
                            ("buffer_trim_interval", buffer_trim_interval)):
            if value is not None:
                raise ValueError(f"{name} applies only with compaction_buffer=True; leave it out "
                                 f"(got {name}={value!r})")
    return trim, interval


def _check_max_lost_bytes(max_lost_bytes: Any) -> int:
    if not _is_int(max_lost_bytes):
        raise InvalidArgument(f"max_lost_bytes must be an int, got "
                              f"{type(max_lost_bytes).__name__}")
    if not 0 <= int(max_lost_bytes) <= _I64_MAX:
        raise ValueError(f"max_lost_bytes must be >= 0 (the cap on lost/) and < 2**63; got "
                         f"{int(max_lost_bytes)}")
    return int(max_lost_bytes)


def _keys_array(keys: Any) -> np.ndarray:
    """``keys`` as a 1-D uint64 array holding exactly the given keys, or a refusal naming
    ``keys`` (and the element's index where one is to blame)."""
    if isinstance(keys, (list, tuple, range)):
        # np.asarray would turn [1, 2**64 - 1] into float64 and round the keys
        return _keys_from_sequence(keys)
    k = np.asarray(keys)
    if k.ndim != 1:
        raise ValueError(f"keys must be a 1-D array, got shape {k.shape}")
    if k.dtype == np.uint64:
        return k
    if k.size == 0:
        return k.astype(np.uint64)
    if not np.issubdtype(k.dtype, np.integer):
        raise InvalidArgument(f"keys must be unsigned 64-bit integers, got dtype {k.dtype}")
    if np.issubdtype(k.dtype, np.signedinteger) and k.min() < 0:
        i = int(np.argmax(k < 0))
        raise ValueError(f"keys must be >= 0: keys[{i}] = {int(k[i])}")
    return k.astype(np.uint64)


def _keys_from_sequence(keys: list[Any] | tuple[Any, ...] | range) -> np.ndarray:
    for i, key in enumerate(keys):
        if not _is_int(key):
            raise InvalidArgument(f"keys[{i}] must be an int in [0, 2**64), got "
                                  f"{type(key).__name__}")
        if not 0 <= int(key) <= _U64_MAX:
            raise ValueError(f"keys[{i}] = {int(key)} is out of range: keys must be in "
                             "[0, 2**64)")
    return np.array([int(key) for key in keys], dtype=np.uint64)


_OPEN_KWARGS = frozenset({"sync", "wal", "cache_bytes", "wal_recovery", "max_lost_bytes",
                          "salvage", "buffer_trim", "buffer_trim_interval", "float_decay",
                          "float_per_flush", "paged_metadata", "direct_reads"})


class _Stored:
    """The default of a design option: the MANIFEST's value when the directory has one, else
    the documented default (``_NEW_DEFAULTS``). A sentinel rather than None, so that an
    explicit ``granularity=None`` is still refused as the wrong type."""

    def __repr__(self) -> str:
        return "<stored in the MANIFEST, or the default>"


_STORED: Any = _Stored()
# What a new directory gets for a design option left out (bits_per_entry: when sum_fpr is out
# too; file_bytes and file_pick: None, the engine's defaults).
_NEW_DEFAULTS: dict[str, Any] = dict(
    T=10, C=9, X=1, K=0, Z=0, entry_bytes=128, block_bytes=4096, buffer_bytes=8 << 20,
    filters="optimized", hash_levels=0, granularity="level", level1_runs=1, bits_per_entry=10.0,
    log_ratio=0.0, log_alpha=0.5, log_batch_cap=10, compaction_buffer=False, l0_partitions=1,
    level_dirs=(), float_gamma=0.0, float_alpha=1.0, float_probe_cost=3.0, float_stretch=0.0)
# L2SM's per-level log: the design options (the MANIFEST lists them only when log_ratio > 0),
# and every L2SM option's default, as the engine takes it (options.h OptionTable).
_L2SM_DESIGN = ("log_ratio", "log_alpha", "log_batch_cap")
_L2SM_DEFAULTS: dict[str, Any] = dict(log_ratio=0.0, log_alpha=0.5, log_batch_cap=10,
                                      hotness="exact", hotmap_layers=5, hotness_audit=False)
# Tidal-tree's floating: the design options (the MANIFEST lists them whenever it lists any
# option line), and every floating option's default, as the engine takes it (options.h).
_FLOAT_DESIGN = ("float_gamma", "float_alpha", "float_probe_cost", "float_stretch")
_FLOAT_DEFAULTS: dict[str, Any] = dict(float_gamma=0.0, float_alpha=1.0, float_probe_cost=3.0,
                                       float_stretch=0.0, float_decay=10000, float_per_flush=1)
# Options whose None already meant "left out" before the MANIFEST could supply them.
_NONE_IS_LEFT_OUT = frozenset({"bits_per_entry", "sum_fpr", "file_bytes", "file_pick"})
_FILE_ONLY = ("file_bytes", "file_pick")


def _design_options(path: str, given: dict[str, Any]) -> dict[str, Any]:
    """The design options to open ``path`` with: those ``given``, and for each left out the
    value its MANIFEST records, or for a new directory the default. Values given are passed on
    as they are, so the engine refuses one that contradicts the MANIFEST, naming the option,
    the stored value and the given one. The MANIFEST (checksum verified) is read only when an
    option is left out; it records every design option, so nothing else needs repeating."""
    left_out = {name for name, value in given.items()
                if value is _STORED or (value is None and name in _NONE_IS_LEFT_OUT)}
    options = {name: value for name, value in given.items() if name not in left_out}
    if not left_out:
        return options
    stored: dict[str, Any] = {}
    if os.path.isfile(os.path.join(path, "MANIFEST")):
        stored = dict(_engine.stored_options(path))
    source = stored if stored else _NEW_DEFAULTS
    for name in ("T", "C", "X", "K", "Z", "entry_bytes", "block_bytes", "buffer_bytes",
                 "filters", "hash_levels", "granularity", "level1_runs"):
        if name in left_out:
            options[name] = source[name]
    if {"bits_per_entry", "sum_fpr"} <= left_out:  # one given decides the budget's kind
        budget = "sum_fpr" if "sum_fpr" in source else "bits_per_entry"
        options[budget] = source[budget]
    # The file-only options come from the MANIFEST only for the granularity it records:
    # given granularity='level' on a 'file' directory, the engine names the granularity.
    if options["granularity"] == "file" and stored.get("granularity") == "file":
        for name in _FILE_ONLY:
            if name in left_out and name in stored:
                options[name] = stored[name]
    # The design options of the engine's option table (options.h OptionTable): the MANIFEST
    # reports each only when it applies (L2SM's with logs on, compaction_buffer when on), so
    # one it does not report has its default.
    for name in (*_L2SM_DESIGN, "compaction_buffer", "l0_partitions", "level_dirs",
                 *_FLOAT_DESIGN):
        if name in left_out:
            options[name] = stored.get(name, _NEW_DEFAULTS[name])
    return options


def _check_level_dirs(level_dirs: Any) -> list[str]:
    """``level_dirs`` as the engine takes it: a list of "" (the engine's own directory) or
    absolute paths without whitespace, at most 64 (devices.h). A relative path is made absolute
    here, so the MANIFEST records where the files are whatever the working directory."""
    if isinstance(level_dirs, (str, bytes, os.PathLike)) or not isinstance(
            level_dirs, (list, tuple)):
        raise InvalidArgument(f"level_dirs must be a list of directories (one per level, the last "
                              f"one for every level below); got {level_dirs!r}")
    if len(level_dirs) > 64:
        raise ValueError(f"level_dirs has {len(level_dirs)} entries; at most 64")
    out = []
    for i, d in enumerate(level_dirs):
        if not isinstance(d, (str, os.PathLike)):
            raise InvalidArgument(f"level_dirs[{i}] must be a path or ''; got {d!r}")
        d = os.fspath(d)
        if d == "":
            out.append("")
            continue
        d = os.path.abspath(d)
        if any(c.isspace() for c in d) or "\0" in d:
            raise ValueError(f"level_dirs[{i}] = {d!r} must not contain whitespace (the MANIFEST "
                             f"records it as one word)")
        out.append(d)
    return out


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
    flush are lost if the process dies. ``sync``, ``wal`` and ``retain_obsolete_runs`` must be
    booleans (``wal=None`` or ``wal="false"`` is refused, not read as off or on).
    ``retain_obsolete_runs`` renames merged-away run files to ``*.obsolete`` instead of deleting
    them (for I/O accounting tests).
    ``level_dirs`` places levels on devices (native_engine/src/devices.h, RocksDB's
    ``db_paths`` by level): level i (0 = level 0) keeps its new run files in
    ``level_dirs[min(i, len - 1)]``, ``""`` meaning ``path`` itself, which always holds the log,
    the MANIFEST and ``lost/``. Part of the design: the MANIFEST records it, and a reopen must
    give the same list or leave it out. ``stats()["devices"]`` counts the bytes read and written
    on each device's run files.
    ``wal_recovery`` says what opening accepts from a damaged live log:
    ``"tolerate_corrupted_tail_records"`` (default) drops only what a crash tears, an incomplete
    last record or a damaged region followed only by zeros, and refuses any other damage with
    :class:`CorruptionError` naming the log and offset; ``"absolute_consistency"`` refuses any
    damage or incomplete record (RocksDB's kAbsoluteConsistency); ``"point_in_time"`` replays
    up to the first damage or missing live log and accepts losing the rest (RocksDB's
    kPointInTimeRecovery): the one way to accept a loss explicitly.
    Opening moves run files and logs it cannot prove obsolete to ``lost/`` in the directory,
    never deleting them; ``max_lost_bytes`` (default 256 MiB, >= 0) caps that folder, and the
    oldest files there are deleted first when it is over the cap (see :func:`clean_lost`).
    ``put_many`` is atomic: one log record, so after a crash either the whole batch or none of
    it is there. A write call that raises may or may not have been applied.
    ``granularity="file"`` (leveled designs) keeps each level as files of ``file_bytes`` (default
    the buffer's size) and merges one file at a time into the next level (``file_pick``:
    ``"least_overlap"``, the default, or ``"round_robin"``); ``file_bytes`` and ``file_pick``
    are refused with ``granularity="level"``, where they would do nothing. ``level1_runs`` > 1
    (either granularity) lets that many flushes gather as runs in level 0 before they merge
    into Level 1 together (RocksDB's level-0 trigger). ``l0_partitions`` P > 1 (default 1,
    at most 1024; ``granularity="file"`` only) is OHDB's partitioned level 0: each flush is cut
    at P - 1 equally spaced keys, each partition gathers its own ``level1_runs`` pieces and
    merges them into the Level 1 files of its key range on its own, and Level 1's files end at
    the same keys. It is part of the design (stored in the MANIFEST).
    See ``native_engine/src/file_compaction.h``.
    ``cache_bytes`` (default 0 = off) sizes an LRU cache of data blocks for point reads: it holds
    ``cache_bytes // block_bytes`` blocks (any size is allowed; one larger than the data caches
    every block read). ``get``/``get_many`` look each block up there first; a hit reads nothing
    from disk and is not counted in ``point_read``. Scans, flushes, merges, recovery and
    ``verify`` neither use nor fill it, and a flush or merge that deletes a run drops its cached
    blocks. It is memory only, not part of the design: the MANIFEST does not record it and a
    reopen may give any value. See ``stats()`` for its counters.
    ``paged_metadata=True`` (default False) pages the filters and fence pointers as RocksDB's
    ``cache_index_and_filter_blocks=true`` does: each run file carries one filter block (the
    run's Bloom filter, 8 * ceil(bits / 64) bytes) and one index block (8 bytes per data block)
    after its checksum section, and a ``get`` that reaches a run looks its filter block up in
    the block cache (the same LRU and byte capacity as the data blocks) and, if the filter
    passes the key, its index block, reading each from the file on a miss and caching it.
    Scans read each overlapping file's index block (without caching it); flushes and merges
    do not cache their outputs' blocks. Answers are those of pinned mode. Not with
    ``hash_levels`` > 0, ``compaction_buffer`` or ``salvage``. Memory only, like
    ``cache_bytes``: a directory reopens in either mode (a paged open writes the blocks of the
    runs that lack them). See ``stats()`` for its counters and
    ``native_engine/src/run.h`` for the file layout.
    ``direct_reads=True`` (default False) reads run files around the operating system's page
    cache (O_DIRECT), so that a block the block cache misses costs a read of the device, as it
    does once the data outgrows memory (the time model's measurements, issue 34). It needs
    ``block_bytes`` a multiple of 4096 and a file system that takes O_DIRECT (where one
    refuses it, writing or opening a run raises ``OSError`` saying so; tmpfs takes it on
    Linux 6.6 and later but is memory all the same). Memory only, like ``cache_bytes``.
    ``compaction_buffer=True`` (``granularity="file"`` only, not with ``log_ratio`` > 0; default
    False) adds LSbM-tree's compaction buffer (``native_engine/src/compaction_buffer.h``): a
    file merged down out of a level is not deleted but kept, with no I/O, as a buffered copy
    beside the level it went into, and point reads of its keys go to it first, so its blocks
    cached before the merge keep serving after it (the merge rewrote the tree's files, whose
    cached blocks are dropped).
    Answers never change: a buffered copy answers only when nothing newer can exist, and scans
    read the tree. It is part of the design (stored in the MANIFEST). Every
    ``buffer_trim_interval`` merges (int >= 1, default 8) a trim deletes each buffered file,
    outside the newest table of its level, with less than ``buffer_trim`` (in [0, 1], default
    0.8) of its blocks in the block cache, so the buffer keeps what is read (with
    ``cache_bytes=0`` it keeps only the newest tables). The two trim knobs are memory only,
    like ``cache_bytes``, and are refused without the buffer. ``stats()`` counts its reads,
    files and bytes; ``levels()`` lists each level's ``buffer``.
    A new directory (or an existing empty one) gets the design, layout, filter and compaction
    options given, and the defaults above for those left out. Reopening takes every option
    left out from the directory's MANIFEST, which records all of them (``T``, ``C``, ``X``,
    ``K``, ``Z``, ``entry_bytes``, ``block_bytes``, ``buffer_bytes``, ``bits_per_entry`` or
    ``sum_fpr``, ``filters``, ``hash_levels``, ``granularity``, ``file_bytes``, ``file_pick``,
    ``level1_runs``, ``compaction_buffer``, ``l0_partitions``, ``float_gamma``, ``float_alpha``,
    ``float_probe_cost``, ``float_stretch``): ``Engine(path)`` reopens it as it was built. An
    option given must match the stored value, else ``ValueError`` names the option, the stored
    value and the given one. ``sync``, ``wal``, ``retain_obsolete_runs``, ``cache_bytes``,
    ``wal_recovery``, ``max_lost_bytes``, ``buffer_trim``, ``buffer_trim_interval``,
    ``float_decay``, ``float_per_flush``, ``paged_metadata`` and ``direct_reads`` are not
    stored: each open takes
    them as given (or their defaults).
    An existing directory with no MANIFEST and no log that holds anything else is another
    program's: ``ValueError`` names it and what it holds, and nothing is written into it.
    A block that fails its checksum raises :class:`CorruptionError` (an ``OSError``) naming the
    file and block; no value is ever returned from it. Every refusal is a ``ValueError``
    (:class:`InvalidArgument` for a wrong type) or an ``OSError`` naming what it refuses.

    ``salvage=True`` (default False) opens an existing directory read-only even when some run
    files cannot be read (``native_engine/src/engine.h``): instead of raising
    :class:`CorruptionError`, the open sets each such run aside, leaving its file in place,
    and serves the others; :meth:`set_aside` names them (file, level, key range, entries).
    Nothing in the directory changes, not even at ``close()``; ``put``, ``delete``,
    ``put_many`` and ``flush`` raise ``OSError`` (``errno.EROFS``). Reads never return a wrong
    value: a set-aside run may hold the newest version or the deletion of any key in its
    ``[min_key, max_key]``, so ``get``/``get_many`` of such a key raise
    :class:`CorruptionError` naming the run (unless the logs or a newer run answer it), and
    ``scan`` raises when its range overlaps one; every other key is answered as usual.
    ``wacky verify DIR`` lists the same runs before opening.

    ``log_ratio`` > 0 (default 0 = off; ``granularity="file"`` only, not with ``hash_levels``
    or ``compaction_buffer``) adds L2SM's per-level log (``native_engine/src/sst_log.h``):
    Levels 1..L-1 each keep a log of files moved out of their tree without I/O (the files
    ``file_pick`` would send down, as the authors' code does), all logs together holding
    ``log_ratio`` times the tree's entries, and merge its coldest, densest files into the next
    level in
    batches whose files below are at most ``log_batch_cap`` (default 10, in [1, 1000]) per log
    file. ``log_alpha`` (default 0.5, in [0, 1]) weighs hotness against sparseness. These three
    are part of the design (stored in the MANIFEST). How hotness is counted is not:
    ``hotness="exact"`` (default) keeps each key's update count in memory, ``"hotmap"`` the
    paper's HotMap of ``hotmap_layers`` Bloom filters (default 5, in [1, 16]);
    ``hotness_audit=True`` (hotmap only) also keeps exact counts and counts in ``stats()`` how
    often the HotMap's picks of the files merged out of a log agree with them. They are refused
    while ``log_ratio`` is 0.

    ``float_gamma`` > 0 (default 0 = off; ``granularity="file"`` only, not with ``log_ratio`` > 0,
    ``compaction_buffer`` or ``l0_partitions`` > 1) adds Tidal-tree's floating of hot files
    (``native_engine/src/floating.h``). The engine counts, in memory, the lookups that check
    each file (halving every count each ``float_decay`` lookups, int >= 1, default 10000) and
    the ratio eta of reads to writes. At each flush, a file of a Level i >= 2 read at least
    ``float_gamma / eta`` times as often as the hottest file of the nearest non-empty level
    above (Eq 1) moves up to the level j where ``float_probe_cost * f * (i - j)`` (the page
    reads it saves; default 3, in [0.001, 1000]) minus its cost (one read of each overlapping
    file of Levels j..i-1, and ``float_alpha``, default 1 in [0.001, 1000], per overlapping
    file of Level j rewritten) is largest and positive (Eq 4); its keys that those levels hold
    are dropped (they are older), the rest merges into Level j. At most ``float_per_flush``
    (default 1, in [1, 1000]) floats per flush, hottest first. ``float_stretch`` delta > 0
    (default 0, in [0, 1000]) lets each Level i hold eta (7 - i) delta files beyond its
    capacity before the drain sends a file down (Eq 5). ``float_gamma``, ``float_alpha``,
    ``float_probe_cost`` and ``float_stretch`` are part of the design (stored in the MANIFEST);
    ``float_decay`` and ``float_per_flush`` are memory only. All but ``float_gamma`` are
    refused while it is 0. ``stats()`` counts the floats and their I/O.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        T: float = _STORED,
        C: float = _STORED,
        X: float = _STORED,
        K: float = _STORED,
        Z: float = _STORED,
        entry_bytes: int = _STORED,
        block_bytes: int = _STORED,
        buffer_bytes: int = _STORED,
        bits_per_entry: float | None = None,
        sum_fpr: float | None = None,
        filters: str = _STORED,
        hash_levels: int = _STORED,
        sync: bool = False,
        wal: bool = True,
        retain_obsolete_runs: bool = False,
        granularity: str = _STORED,
        file_bytes: int | None = None,
        level1_runs: int = _STORED,
        file_pick: str | None = None,
        cache_bytes: int = 0,
        wal_recovery: str = "tolerate_corrupted_tail_records",
        max_lost_bytes: int = 256 << 20,
        salvage: bool = False,
        log_ratio: float = _STORED,
        log_alpha: float = _STORED,
        log_batch_cap: int = _STORED,
        hotness: str = "exact",
        hotmap_layers: int = 5,
        hotness_audit: bool = False,
        compaction_buffer: bool = _STORED,
        buffer_trim: float | None = None,
        buffer_trim_interval: int | None = None,
        l0_partitions: int = _STORED,
        level_dirs: Sequence[str | os.PathLike[str]] = _STORED,
        float_gamma: float = _STORED,
        float_alpha: float = _STORED,
        float_probe_cost: float = _STORED,
        float_stretch: float = _STORED,
        float_decay: int = 10000,
        float_per_flush: int = 1,
        paged_metadata: bool = False,
        direct_reads: bool = False,
    ) -> None:
        path = _check_path(path)
        o = _design_options(path, dict(
            T=T, C=C, X=X, K=K, Z=Z, entry_bytes=entry_bytes, block_bytes=block_bytes,
            buffer_bytes=buffer_bytes, bits_per_entry=bits_per_entry, sum_fpr=sum_fpr,
            filters=filters, hash_levels=hash_levels, granularity=granularity,
            file_bytes=file_bytes, level1_runs=level1_runs, file_pick=file_pick,
            log_ratio=log_ratio, log_alpha=log_alpha, log_batch_cap=log_batch_cap,
            compaction_buffer=compaction_buffer, l0_partitions=l0_partitions,
            level_dirs=level_dirs, float_gamma=float_gamma, float_alpha=float_alpha,
            float_probe_cost=float_probe_cost, float_stretch=float_stretch))
        entry_bytes, block_bytes, buffer_bytes = (o["entry_bytes"], o["block_bytes"],
                                                  o["buffer_bytes"])
        bits_per_entry, sum_fpr, filters = (o.get("bits_per_entry"), o.get("sum_fpr"),
                                            o["filters"])
        hash_levels, granularity, level1_runs = (o["hash_levels"], o["granularity"],
                                                 o["level1_runs"])
        file_bytes, file_pick = o.get("file_bytes"), o.get("file_pick")
        design = {k: _check_number(k, o[k]) for k in ("T", "C", "X", "K", "Z")}
        _engine.validate_design(**design)
        entry_bytes = _check_int("entry_bytes", entry_bytes, 9, 1 << 20)
        block_bytes = _check_int("block_bytes", block_bytes, 1, 64 << 20)
        buffer_bytes = _check_int("buffer_bytes", buffer_bytes, 1, 1 << 36)
        hash_levels = _check_int("hash_levels", hash_levels, 0, 64)
        if bits_per_entry is not None and sum_fpr is not None:
            raise ValueError("give either bits_per_entry or sum_fpr, not both")
        if not isinstance(filters, str) or filters not in ("optimized", "uniform"):
            error = ValueError if isinstance(filters, str) else InvalidArgument
            raise error(f"filters must be 'optimized' or 'uniform', got {filters!r}")
        granularity = _check_choice("granularity", granularity, ("level", "file"))
        if file_pick is not None:
            file_pick = _check_choice("file_pick", file_pick, FILE_PICKS)
        level1_runs = _check_int("level1_runs", level1_runs, 1, 1000)
        partitions = _check_int("l0_partitions", o["l0_partitions"], 1, 1024)
        if partitions > 1 and granularity != "file":
            raise ValueError(f"l0_partitions > 1 needs granularity='file' (a partition merges "
                             f"into the Level 1 files of its key range); got l0_partitions="
                             f"{partitions} with granularity={granularity!r}")
        placement = _check_level_dirs(o["level_dirs"])
        file_size = _check_file_bytes(file_bytes, block_bytes, int(design["T"] * buffer_bytes))
        # after the values, so a bad value is named as such whatever the granularity
        _refuse_file_only(granularity, file_bytes=file_bytes, file_pick=file_pick)
        cache_bytes = _check_cache_bytes(cache_bytes)
        buffered = _check_bool("compaction_buffer", o["compaction_buffer"])
        trim, trim_interval = _check_buffer_knobs(buffered, granularity, buffer_trim,
                                                  buffer_trim_interval)
        flags = {name: _check_bool(name, value) for name, value in
                 dict(sync=sync, wal=wal, retain_obsolete_runs=retain_obsolete_runs,
                      salvage=salvage, paged_metadata=paged_metadata,
                      direct_reads=direct_reads).items()}
        if flags["salvage"]:
            _check_has_manifest(path)  # salvage reads an existing directory, creating nothing
        recovery = WAL_RECOVERY_MODES[_check_choice("wal_recovery", wal_recovery,
                                                    tuple(WAL_RECOVERY_MODES))]
        max_lost_bytes = _check_max_lost_bytes(max_lost_bytes)
        # Ranges, and what needs a log, are checked by the engine (options.h OptionTable).
        l2sm = dict(log_ratio=_check_number("log_ratio", o["log_ratio"]),
                    log_alpha=_check_number("log_alpha", o["log_alpha"]),
                    log_batch_cap=_check_int("log_batch_cap", o["log_batch_cap"], 1, 1000),
                    hotness=_check_choice("hotness", hotness, HOTNESS_SOURCES),
                    hotmap_layers=_check_int("hotmap_layers", hotmap_layers, 1, 16),
                    hotness_audit=_check_bool("hotness_audit", hotness_audit))
        # Tidal-tree's floating: types here; ranges, what needs float_gamma > 0 and the designs
        # it cannot join are checked by the engine (options.h OptionTable, Options::Validate).
        floating = {name: _check_number(name, o[name]) for name in _FLOAT_DESIGN}
        floating["float_decay"] = _check_int("float_decay", float_decay, 1, 2**32)
        floating["float_per_flush"] = _check_int("float_per_flush", float_per_flush, 1, 1000)
        use_sum = sum_fpr is not None
        bits = 10.0 if bits_per_entry is None else _check_number("bits_per_entry", bits_per_entry)
        p = _check_number("sum_fpr", sum_fpr) if use_sum else 0.0
        self._e = _engine._Engine(
            path,
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
            flags["sync"],
            flags["wal"],
            flags["retain_obsolete_runs"],
            1 if granularity == "file" else 0,
            file_size,
            1 if file_pick == "round_robin" else 0,
            level1_runs,
            cache_bytes,
            recovery,
            max_lost_bytes,
            # by name and only when set: an extension built before salvage existed still
            # opens every other directory
            **({"salvage": True} if flags["salvage"] else {}),
            # likewise L2SM's options that differ from their defaults (options.h OptionTable)
            **{k: v for k, v in l2sm.items() if v != _L2SM_DEFAULTS[k]},
            # and the compaction buffer's (native_engine/src/compaction_buffer.h)
            **({"compaction_buffer": True, "buffer_trim": trim,
                "buffer_trim_interval": trim_interval} if buffered else {}),
            # and OHDB's partitions of level 0 (native_engine/src/file_compaction.h)
            **({"l0_partitions": partitions} if partitions > 1 else {}),
            # and the devices (native_engine/src/devices.h)
            **({"level_dirs": placement} if placement else {}),
            # and Tidal-tree's floating (native_engine/src/floating.h)
            **{k: v for k, v in floating.items() if v != _FLOAT_DEFAULTS[k]},
            # and paged filters and indexes (native_engine/src/run.h)
            **({"paged_metadata": True} if flags["paged_metadata"] else {}),
            # and direct reads (native_engine/src/file_io.h)
            **({"direct_reads": True} if flags["direct_reads"] else {}),
        )
        self.path = path
        self.value_bytes = int(self._e.value_bytes)
        self.entries_per_block = int(self._e.entries_per_block)
        self.buffer_entries = int(self._e.buffer_entries)

    @classmethod
    def open(cls, path: str | os.PathLike[str], **kwargs: Any) -> Engine:
        """Open an existing directory with the design and layout its MANIFEST records (the
        MANIFEST's checksum is verified first), as ``Engine(path)`` does, but never create one.
        ``kwargs`` may set ``sync``, ``wal``, ``cache_bytes``, ``wal_recovery``,
        ``max_lost_bytes``, ``salvage`` (read-only, serving the runs that can be read),
        ``buffer_trim`` and ``buffer_trim_interval`` (directories with a compaction buffer),
        ``float_decay`` and ``float_per_flush`` (directories that float hot files),
        ``paged_metadata`` and ``direct_reads``.

        Raises ``ValueError`` when ``path`` is no engine directory (no MANIFEST, run files or
        logs) and ``FileNotFoundError`` when it holds run files or logs but no MANIFEST."""
        path = _check_path(path)
        unknown = set(kwargs) - _OPEN_KWARGS
        if unknown:
            raise ValueError(f"Engine.open takes only {', '.join(sorted(_OPEN_KWARGS))}; got "
                             f"{sorted(unknown)}")
        _check_has_manifest(path)
        return cls(path, **kwargs)

    # -- single operations -------------------------------------------------------------
    def _value(self, value: Any) -> bytes | bytearray | memoryview:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise InvalidArgument(f"value must be bytes-like, got {type(value).__name__}")
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
        """Insert a batch: ``keys`` uint64 array (n,) (or a list of ints in [0, 2**64)),
        ``values`` uint8 array (n, value_bytes) or a bytes-like of n * value_bytes bytes. Runs
        without the GIL. Atomic: the batch is one log record, so after a crash either all of
        it or none of it is there."""
        k = np.ascontiguousarray(_keys_array(keys))
        if isinstance(values, (bytes, bytearray, memoryview)):
            v = np.frombuffer(values, dtype=np.uint8)
        else:
            v = np.asarray(values)
            if v.dtype != np.uint8:
                raise InvalidArgument(f"values must be a uint8 array, got dtype {v.dtype}")
        self._e.put_many(k, np.ascontiguousarray(v))

    def get_many(self, keys: Any) -> tuple[np.ndarray, np.ndarray]:
        """Look up a batch: returns ``(values, found)`` with values (n, value_bytes) uint8
        (zeros where absent) and found (n,) bool. Runs without the GIL."""
        return self._e.get_many(np.ascontiguousarray(_keys_array(keys)))

    def run_mix(self, kinds: Any, keys: Any, value: Any,
                range_span: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One client's operations in order, each timed (``native_engine/src/timed_mix.h``):
        ``kinds`` uint8 (n,), 0 a put of ``value`` (value_bytes uint8), 1 a get, 2 a scan of
        ``[key, key + range_span]``; ``keys`` (n,). Returns ``(nanos, blocks, results)``: each
        call's wall nanoseconds, the run-file blocks a read read, and 1 for a get that found
        its key or a scan's entries. A kind outside 0-2 raises ``ValueError`` naming it before
        anything runs. Runs without the GIL."""
        v = np.asarray(value)
        if v.dtype != np.uint8:
            raise InvalidArgument(f"value must be a uint8 array, got dtype {v.dtype}")
        span = _check_int("range_span", range_span, 0, _U64_MAX)
        return self._e.run_mix(np.ascontiguousarray(kinds, dtype=np.uint8),
                               np.ascontiguousarray(_keys_array(keys)),
                               np.ascontiguousarray(v), span)

    # -- lifecycle and introspection --------------------------------------------------
    def flush(self) -> None:
        """Write the buffer out now (normally done when it is full)."""
        self._e.flush()

    def verify(self) -> dict[str, int]:
        """Read every block of every run and check it against its checksum, and check every
        run's in-memory filter against its checksum and its keys. Returns ``{"runs": ...,
        "blocks": ..., "entries": ..., "set_aside": ...}`` (what was checked, and with
        ``salvage`` the runs set aside at open, which are not); raises
        :class:`CorruptionError` naming the file and block (or filter) at the first damage.
        Runs without the GIL."""
        return {k: int(v) for k, v in self._e.verify().items()}

    def set_aside(self) -> list[dict[str, Any]]:
        """The runs a ``salvage`` open set aside because their files cannot be read (empty
        otherwise), as the MANIFEST lists them: each with ``file`` (path), ``id``, ``level``
        (0 = level 0, i = Level i), ``min_key``, ``max_key``, ``entries``, ``tombstones``,
        ``log`` (a file of the level's L2SM log) and ``why`` (the damage found). Reads of keys
        in ``[min_key, max_key]`` that no newer data answers raise :class:`CorruptionError`."""
        return [_plain_damaged_run(r) for r in self._e.set_aside()]

    @property
    def read_only(self) -> bool:
        """True when opened with ``salvage``: writes and flushes raise ``OSError`` (EROFS)."""
        return bool(self._e.read_only)

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
        deleted their run; ``cache_blocks`` is the number of data blocks cached now.
        Paged filters and indexes (``paged_metadata``; zeros pinned): ``filter`` and ``index``
        (dicts like ``point_read``, in ``total``) are the filter and index blocks read from disk;
        ``filter_misses``/``filter_hits`` count the filter blocks a ``get`` read or found
        cached (one per run probed that has a filter) and ``index_misses``/``index_hits`` the
        index blocks (one per probe the filter passes, and per file a scan opens), each also
        ``*_per_level`` (lists indexed like the cache's); ``point_read`` and the cache's data
        counters stay data blocks only. ``paged_meta_written`` (apart from ``total``, like
        ``checksums``) counts the blocks written to give runs their filter and index blocks;
        ``meta_cache_bytes`` is what the cached filter and index blocks take of
        ``cache_bytes`` now, and ``pinned_meta_bytes`` the bytes of filters and fences that
        lookups read from memory (0 when paged).
        The compaction buffer (``compaction_buffer``; zeros without it), not to be confused with
        the write buffer (the option ``buffer_bytes``, the stat ``buffer_size``): ``buffer_reads``
        (point reads answered by a buffered file), ``buffer_trimmed`` and ``buffer_drained``
        (buffered files dropped by the trim, and otherwise: when the level's own file covering
        them moved down, or with Level 1's buffer), ``buffer_files`` and ``buffer_bytes``
        (buffered files now and their bytes on disk: the space the compaction buffer takes) and
        ``buffer_entries_per_level`` (index i is Level i); ``buffer_unreadable`` counts buffered
        files the last open could not read (copies: nothing was lost, each became a marker).
        L2SM's per-level log (``log_ratio`` > 0; 0 otherwise): ``pseudo_compactions`` (files
        moved into a level's log, no I/O), ``aggregated_compactions`` (merges of log files into
        the next level; also counted in ``merges``), ``log_files_merged`` (the log files they
        took: per compaction ``log_files_merged / aggregated_compactions``),
        ``log_entries_per_level`` (a list, Level 1 first) and, with ``hotness_audit``,
        ``hotness_picks`` and ``hotness_picks_agree``.
        Point lookups: ``get_files_checked`` (files whose key range admitted the key, each then
        checked through its filter: level 0's runs, a level's file covering the key, its L2SM
        log files covering it), ``gets_found`` (lookups that found their key, the write buffer's
        answers included) and ``found_get_files_checked`` (the files those checked);
        ``probes_per_found_get`` is their ratio, the files checked per lookup of an existing key
        (0 before any).
        Tidal-tree's floating (``float_gamma`` > 0; 0 otherwise): ``floats``, ``float`` (a dict
        like ``flush``: the blocks a float reads, the file floated and the overlapping files of
        the levels it passes, and writes into its destination level; not in ``merge``),
        ``floated_entries`` (entries written into the destination levels) and
        ``float_dropped_entries`` (entries of floated files dropped because a newer level held
        their key), and ``float_eta``, the read/write ratio the floats use now.
        What the last open did: ``wal_replayed_entries`` (log entries replayed),
        ``wal_dropped_bytes`` (a torn log tail dropped, or with ``wal_recovery="point_in_time"``
        the loss accepted) and ``files_moved_to_lost`` (unlisted files it could not prove
        obsolete).
        Space: ``run_file_bytes``, the bytes of the run files on disk now (a merge's unfinished
        output included; not the log, the MANIFEST or ``lost/``), and ``peak_run_file_bytes``,
        the most they reached since the engine opened or :meth:`reset_peak_space`: a merge's
        inputs and output together, the transient space."""
        s = self._e.stats()
        found = int(s.get("gets_found", 0))
        s["probes_per_found_get"] = (int(s["found_get_files_checked"]) / found) if found else 0.0
        s["n_est"] = float(self._e.n_est)
        s["buffer_size"] = int(self._e.buffer_size)
        return s

    def reset_peak_space(self) -> None:
        """Start ``stats()["peak_run_file_bytes"]`` again from the run files' bytes now (a
        measurement window's start)."""
        self._e.reset_peak_space()

    def levels(self) -> list[dict[str, Any]]:
        """Per level: level (its number), ratio, capacity (entries), max_runs (integer a_i), fpr,
        hash_table, files, entries and runs (oldest first; the last is the active run), each
        with id, entries, tombstones, blocks, file_bytes, min_key, max_key, filter_bits_per_key,
        filter_probes, filter_fpr and hash_indexed.

        With ``level1_runs`` >= 2 the list starts with level 0 (``level`` 0: the flushes waiting
        to merge, ``max_runs`` = ``level1_runs``; not part of the shape), then Level 1..L. With
        ``files`` true (``granularity="file"``) a level is ONE sorted run whose ``runs`` are its
        files in key order: count it as one run, not ``len(runs)``. ``log`` lists the level's
        L2SM log files (oldest first; they may overlap), with ``log_entries`` and
        ``log_capacity``; empty and 0 without ``log_ratio``. With ``compaction_buffer`` each
        level also has ``buffer``: its tables, newest first, each a list of entries in key
        order, each with ``removed``, ``min_key`` and ``max_key`` and, for a live buffered file,
        ``id``, ``entries``, ``blocks``, ``file_bytes`` and ``cached_blocks``."""
        return self._e.levels()


# -- a closed directory ----------------------------------------------------------------
_REPORT_COUNTS = ("runs", "blocks", "entries", "logs", "log_records", "log_entries",
                  "log_tail_dropped_bytes", "lost_files", "lost_bytes")


def verify_directory(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Check a closed engine directory without changing it: open nothing for writing, replay
    the live logs in memory only, read and check every block of every listed run.

    Returns ``ok`` (no problem found), ``lost_writes`` (some acknowledged write cannot be
    recovered), ``problems`` and ``warnings`` (lists of messages, each naming its file; a
    warning is e.g. a torn log tail a crash left, or an unlisted file that opening would move
    to ``lost/``) and the counts ``runs``, ``blocks``, ``entries``, ``logs``, ``log_records``,
    ``log_entries``, ``log_tail_dropped_bytes``, ``lost_files`` and ``lost_bytes`` (what
    ``lost/`` holds), and ``damaged_runs``: each listed run that cannot be read, with ``file``,
    ``id``, ``level``, ``min_key``, ``max_key``, ``entries``, ``tombstones`` and ``why`` (the
    keys whose newest version may be lost; ``Engine.open(path, salvage=True)`` serves the
    rest, read-only). Raises ``ValueError`` when ``path`` is no engine directory (no MANIFEST,
    run files or logs) and ``OSError`` when an open Engine holds it."""
    path = _check_path(path)
    if not os.path.exists(os.path.join(path, "MANIFEST")) and not _holds_engine_files(path):
        raise ValueError(f"{path!r} has no MANIFEST and no run files or logs: not an engine "
                         "directory (nothing was read or changed)")
    return _plain_report(_engine.verify_directory(path))


def _plain_report(raw: dict[str, Any]) -> dict[str, Any]:
    """The binding's report as plain Python values (JSON-ready), keys it adds kept as given."""
    report = dict(raw)
    report["ok"] = bool(raw["ok"])
    report["lost_writes"] = bool(raw["lost_writes"])
    report["problems"] = [str(m) for m in raw["problems"]]
    report["warnings"] = [str(m) for m in raw["warnings"]]
    for key in _REPORT_COUNTS:
        report[key] = int(raw[key])
    report["damaged_runs"] = [_plain_damaged_run(r) for r in raw.get("damaged_runs", [])]
    return report


def _plain_damaged_run(raw: dict[str, Any]) -> dict[str, Any]:
    """A damaged run (``set_aside`` and ``damaged_runs``) as plain Python values."""
    run = {key: int(raw[key]) for key in ("id", "level", "min_key", "max_key", "entries",
                                          "tombstones")}
    # "log": a file of the level's L2SM log (False from an engine built before logs)
    return {"file": str(raw["file"]), **run, "log": bool(raw.get("log", False)),
            "why": str(raw["why"])}


def clean_lost(path: str | os.PathLike[str]) -> dict[str, int]:
    """Empty ``path/lost/``, where opening moves files it cannot prove obsolete. Returns what
    was removed: ``{"files": ..., "bytes": ...}``. Nothing else in ``path`` is touched."""
    removed = _engine.clean_lost(_check_path(path))
    return {"files": int(removed["files"]), "bytes": int(removed["bytes"])}
