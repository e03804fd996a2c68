"""``wacky calibrate``: measure this machine's storage with direct I/O, and the native engine's
CPU, into a :class:`wacky_model.devices.DeviceProfile` (issue 34).

Storage, in one scratch file under the directory given (deleted after):
* sequential write: the file written in chunks of 1 MiB through ``O_DIRECT``, then fsync'd;
* sequential read: the same file read back in chunks of 1 MiB through ``O_DIRECT``;
* random reads: blocks at random aligned offsets, one at a time (queue depth 1), through
  ``O_DIRECT``, for the time given: IOPS and mean latency.
Direct I/O bypasses the page cache, as the papers measure; a file system in memory (tmpfs, which
takes O_DIRECT on recent kernels) or one without direct I/O is refused, naming the directory.
fio is not used: the project does not install it.

CPU (the native engine, from its own stats, on tmpfs when there is one so the device hardly
counts): the process's CPU time per put into a buffer filled and flushed once before (nothing
flushes while it is timed), the least of six; then a load into a file-granular tree, whose CPU
less those puts' is spread over the entries its flushes and merges wrote (the median of five);
then zero-result lookups with every block cached, whose CPU time per filter probe is the
lookups' CPU over the runs each one's filters are asked (one per level holding data).
"""

from __future__ import annotations

import mmap
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wacky_model.devices import DeviceProfile

CHUNK = 1 << 20
MIN_BYTES = 4 * CHUNK
ENGINE_ENTRIES = 200_000
METHOD = "O_DIRECT from Python"


def _buffer(n: int) -> mmap.mmap:
    """n bytes aligned to a page (O_DIRECT needs aligned memory), random so nothing compresses."""
    buf = mmap.mmap(-1, n)
    buf.write(secrets.token_bytes(n))
    return buf


MEMORY_FILESYSTEMS = ("tmpfs", "ramfs")


def filesystem(directory: Path) -> str:
    """The type of the file system holding ``directory`` (the longest mount point over it in
    /proc/self/mounts; "" where there is none)."""
    target, found, kind = str(directory.resolve()), -1, ""
    try:
        lines = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > found:
            found, kind = len(point), parts[2]
    return kind


def _open_direct(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags | os.O_DIRECT, 0o600)
    except OSError as e:
        raise ValueError(f"{path.parent} does not take direct I/O (O_DIRECT: {e.strerror}); "
                         "give --dir a directory on a disk, not tmpfs") from None


def measure_storage(directory: str | Path, size_bytes: int, block_bytes: int = 4096,
                    random_seconds: float = 1.0) -> dict[str, float]:
    """Sequential write and read bandwidth (MB/s) of a file of ``size_bytes`` under
    ``directory``, and random block reads of ``block_bytes`` for ``random_seconds``."""
    d = Path(directory)
    if not d.is_dir():
        raise ValueError(f"--dir {d} is not a directory")
    if filesystem(d) in MEMORY_FILESYSTEMS:
        raise ValueError(f"--dir {d} is on {filesystem(d)}, a file system in memory: direct "
                         "I/O there measures memory, not a device; give a directory on a disk")
    if size_bytes < MIN_BYTES:
        raise ValueError(f"--size-mib must be at least {MIN_BYTES >> 20}; got "
                         f"{size_bytes / CHUNK:g}")
    if shutil.disk_usage(d).free < 2 * size_bytes:
        raise ValueError(f"{d} has less than twice --size-mib free")
    size = size_bytes // CHUNK * CHUNK
    buf = _buffer(CHUNK)
    path = d / f".wacky-calibrate-{secrets.token_hex(4)}"
    try:
        fd = _open_direct(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            start = time.perf_counter()
            for _ in range(size // CHUNK):
                os.write(fd, buf)
            os.fsync(fd)
            write_s = time.perf_counter() - start
        finally:
            os.close(fd)
        fd = _open_direct(path, os.O_RDONLY)
        try:
            start = time.perf_counter()
            while os.readv(fd, [buf]) > 0:
                pass
            read_s = time.perf_counter() - start
            block = mmap.mmap(-1, block_bytes)
            rng = np.random.default_rng()
            offsets = rng.integers(0, size // block_bytes, 1 << 20) * block_bytes
            n, start = 0, time.perf_counter()
            deadline = start + random_seconds
            while True:
                os.preadv(fd, [block], int(offsets[n % offsets.size]))
                n += 1
                if n % 64 == 0 and time.perf_counter() >= deadline:
                    break
            rand_s = time.perf_counter() - start
        finally:
            os.close(fd)
    finally:
        path.unlink(missing_ok=True)
    return {"seq_write_mb_s": size / write_s / 1e6, "seq_read_mb_s": size / read_s / 1e6,
            "rand_read_iops": n / rand_s, "rand_read_latency_us": rand_s / n * 1e6}


def load(engine: Any, keys: np.ndarray, flush: bool = False) -> tuple[float, float]:
    """Puts ``keys`` into ``engine`` in batches of 4096 (as validation does), then with
    ``flush`` flushes; returns the wall-clock and CPU seconds it took."""
    values = np.zeros((4096, engine.value_bytes), dtype=np.uint8)
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(0, keys.size, 4096):
        part = keys[i:i + 4096]
        engine.put_many(part, values[: part.size])
    if flush:
        engine.flush()
    return time.perf_counter() - start, time.process_time() - cpu


CPU_ROUNDS = 5  # measure_cpu's rounds of a load and lookups
PUT_LOADS = 6  # and its loads into a buffer that holds every key, one after another


def measure_cpu(entries: int = ENGINE_ENTRIES, rounds: int = CPU_ROUNDS) -> dict[str, float]:
    """The native engine's CPU per put, per entry written by flushes and merges (the load's CPU
    less that of the same puts into a buffer that holds them all, over the entries flushes and
    merges wrote), and per filter probe of a zero-result lookup with every block cached, over
    ``rounds`` rounds (:func:`_cpu_figures`)."""
    if not (isinstance(rounds, int) and rounds >= 1):
        raise ValueError(f"rounds must be an integer >= 1; got {rounds!r}")
    keys = np.random.default_rng(7).integers(1, 2**63, entries, dtype=np.uint64)
    puts = _put_seconds(keys)
    return _cpu_figures(puts, [_cpu_round(entries, i) for i in range(rounds)])


def _put_seconds(keys: np.ndarray) -> list[float]:
    """The CPU seconds per put of :data:`PUT_LOADS` loads into a buffer that has held as many
    keys before: a buffer of half the keys is filled once and flushed (not timed), then filled
    again (timed; nothing flushes). A fresh buffer pays the kernel's first touch of its pages
    (377 and 350 ns per put in a process's first two, then 132-141), which a running engine's
    buffer, reused flush after flush, does not; and how many fresh buffers a process pays for
    depends on its history (the least of six loads into fresh buffers, one after another, was
    301 ns in one process and 107-148 in four others)."""
    from native_engine import Engine

    shm = Path("/dev/shm")
    half = keys.size // 2
    out = []
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        for i in range(PUT_LOADS):
            held = Engine(Path(tmp) / f"held{i}", T=10, C=9, X=1, K=0, Z=0, entry_bytes=128,
                          block_bytes=4096, buffer_bytes=half * 128, wal=False)
            F = int(held.buffer_entries)
            if keys.size < 2 * F:
                raise ValueError(f"the put calibration needs at least {2 * F} keys")
            load(held, keys[: F + 1])  # the first fill, and the put that flushes it
            out.append(load(held, keys[F + 1 : 2 * F])[1] / (F - 1))
            if held.stats()["flush"]["bytes_written"] != F * 128:
                raise RuntimeError("the timed puts flushed; the put calibration is misaligned")
            held.close()
    return out


def _cpu_figures(puts: list[float], rounds: list[dict[str, float]]) -> dict[str, float]:
    """The CPU figures from :func:`_put_seconds` and rounds of :func:`_cpu_round`. The put is the
    least of its loads: a busy neighbour only adds. The merge and the
    probe are each their rounds' median: one round's moved by 2.7x on a shared machine."""
    put = min(puts)  # per put
    merged = [max(r["load_seconds"] - put * r["entries"], 1e-9) / r["written"] for r in rounds]
    return {"cpu_ns_per_put": put * 1e9,
            "cpu_ns_per_entry_merged": float(np.median(merged)) * 1e9,
            "cpu_ns_per_probe": float(np.median([r["probe_seconds"] / r["probes"]
                                                 for r in rounds])) * 1e9}


def _cpu_round(entries: int, seed: int) -> dict[str, float]:
    """One round of :func:`measure_cpu`: the CPU seconds of a load of ``entries`` keys into a
    file-granular tree and of zero-result lookups with every block cached, with the entries
    the load's flushes and merges wrote and the filter probes the lookups made (one per level
    holding data)."""
    from native_engine import Engine

    shm = Path("/dev/shm")
    rng = np.random.default_rng(7 + seed)
    keys = rng.integers(1, 2**63, entries, dtype=np.uint64)
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        e = Engine(Path(tmp) / "db", T=10, C=9, X=1, K=0, Z=0, entry_bytes=128,
                   block_bytes=4096, buffer_bytes=256 << 10, granularity="file", wal=False,
                   bits_per_entry=10, cache_bytes=entries * 128 * 2)
        load_cpu = load(e, keys, flush=True)[1]
        stats = e.stats()
        written = (stats["merge_total"]["bytes_written"] + stats["flush"]["bytes_written"]) / 128
        levels = sum(1 for level in e.levels() if level["level"] >= 1 and level["entries"])
        absent = rng.integers(2**63, 2**64 - 1, 50_000, dtype=np.uint64)
        e.get_many(absent)  # warm the cache with the false positives' blocks
        start = time.process_time()
        for _ in range(4):
            e.get_many(absent)
        probe_cpu = time.process_time() - start
        e.close()
    return {"entries": entries, "load_seconds": load_cpu, "written": written,
            "probe_seconds": probe_cpu, "probes": 4 * absent.size * max(levels, 1)}


def rocksdb_figures() -> dict[str, Any]:
    """RocksDB's writer, compaction and flush costs on this machine, and its CPU per read of
    each kind with the blocks cached, on tmpfs where there is one (validation.stalls.calibrate
    and calibrate_reads), as DeviceProfile names them."""
    from validation.stalls import calibrate as calibrate_rocksdb
    from validation.stalls import calibrate_reads

    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        return {**calibrate_rocksdb(Path(tmp)).profile_fields(), **calibrate_reads(Path(tmp))}


def calibrate(directory: str | Path, size_mib: float = 256, block_bytes: int = 4096,
              random_seconds: float = 2.0, cpu: bool = True,
              report: Callable[[str], None] = lambda _: None,
              rocksdb: bool | None = None) -> DeviceProfile:
    """This machine's profile: storage under ``directory`` (a file of ``size_mib`` MiB), and
    with ``cpu`` the native engine's CPU and, with ``rocksdb`` (None: when the bridge is built),
    RocksDB's (``validation.stalls.calibrate``: the time model T2-T3's)."""
    if not isinstance(size_mib, (int, float)) or isinstance(size_mib, bool) or size_mib <= 0:
        raise ValueError(f"--size-mib must be a number above 0; got {size_mib!r}")
    if not isinstance(random_seconds, (int, float)) or not 0 < random_seconds <= 600:
        raise ValueError(f"--random-seconds must be in (0, 600]; got {random_seconds!r}")
    report(f"storage: {size_mib:g} MiB under {directory}")
    storage = measure_storage(directory, int(size_mib * CHUNK), block_bytes, random_seconds)
    cpu_figures: dict[str, float] = {}
    if cpu:
        report("CPU: the native engine")
        cpu_figures = measure_cpu()
        import rocksdb_bridge

        if rocksdb or (rocksdb is None and rocksdb_bridge.available()):
            report("CPU: RocksDB through the bridge")
            cpu_figures.update(rocksdb_figures())
    return DeviceProfile(name=str(Path(directory).resolve()), block_bytes=block_bytes,
                         method=METHOD, **storage, **cpu_figures)
