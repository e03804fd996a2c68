"""Native engine speed, measured side by side in one run (issue 4).

Prints:
1. the disk's sequential write bandwidth (large writes + fsync, measured here);
2. end-to-end ingest of N entries (default 2M, 128-byte entries: 8-byte key + 120-byte value)
   into the engine (Leveling: T=10, C=9, K=Z=0) and into RocksDB via rocksdict (if installed:
   ``pip install -e ".[bench]"``), same buffer size, no WAL, no compression, compactions
   included (RocksDB: until no compaction is pending or running). The entries are one load
   trace (``validation.generators.load_trace``: unique uniform random keys, values from
   ``value_for``); the engine gets it the way every workload reaches it, through
   ``validation.replay.replay`` (put_many batches of up to 65,536, every answer checked),
   and RocksDB gets the same keys and values in WriteBatches of 10,000;
3. the engine's merge throughput (bytes written by flushes and merges per second of merge
   time) as a ratio of the disk bandwidth.

Durability is matched: RocksDB syncs every SST it writes, so the engine runs with sync=True
(fdatasync of every run file and manifest). ``--no-sync`` adds a page-cache-only engine run.

Usage: python benchmarks/bench_engine.py [--entries N] [--buffer-mb MB] [--dir DIR] [--no-sync]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

from native_engine import Engine
from validation.generators import load_trace
from validation.replay import replay
from wacky_traces import Trace, value_for

ENTRY = 128
VALUE = ENTRY - 8
BATCH = 10_000  # RocksDB WriteBatch size


def disk_bandwidth(directory: str, mib: int = 1024) -> float:
    """MB/s of sequential 4 MiB writes followed by fsync."""
    path = os.path.join(directory, "bandwidth.bin")
    chunk = os.urandom(4 << 20)
    t0 = time.perf_counter()
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    try:
        for _ in range(mib // 4):
            os.write(fd, chunk)
        os.fsync(fd)
    finally:
        os.close(fd)
    dt = time.perf_counter() - t0
    os.unlink(path)
    return mib * (1 << 20) / dt / 1e6


def bench_engine(directory: str, trace: Trace, buffer_bytes: int, sync: bool) -> dict:
    path = os.path.join(directory, f"engine-{'sync' if sync else 'nosync'}")
    t0 = time.perf_counter()
    e = Engine(
        path,
        T=10,
        C=9,
        X=1,
        K=0,
        Z=0,
        entry_bytes=ENTRY,
        block_bytes=4096,
        buffer_bytes=buffer_bytes,
        bits_per_entry=10,
        sync=sync,
    )
    result = replay(e, trace)
    e.flush()
    elapsed = time.perf_counter() - t0
    if not result.ok:
        raise RuntimeError(f"engine returned wrong answers: {result.to_dict()}")
    s = e.stats()
    levels = [(lv["level"], len(lv["runs"]), lv["entries"]) for lv in e.levels()]
    e.close()
    written = s["flush"]["bytes_written"] + s["merge_total"]["bytes_written"]
    shutil.rmtree(path)
    return dict(
        seconds=elapsed,
        merge_seconds=s["merge_seconds"],
        bytes_written=written,
        write_amp=written / (len(trace) * ENTRY),
        levels=levels,
    )


def bench_rocksdb(directory: str, keys, values, buffer_bytes: int) -> dict | None:
    try:
        import rocksdict
    except ImportError:
        return None
    path = os.path.join(directory, "rocksdb")
    opts = rocksdict.Options(raw_mode=True)
    opts.create_if_missing(True)
    opts.set_write_buffer_size(buffer_bytes)
    opts.set_compression_type(rocksdict.DBCompressionType.none())
    opts.set_max_bytes_for_level_base(10 * buffer_bytes)
    opts.set_max_bytes_for_level_multiplier(10.0)
    opts.set_level_compaction_dynamic_level_bytes(False)
    opts.set_target_file_size_base(buffer_bytes)
    table = rocksdict.BlockBasedOptions()
    table.set_block_size(4096)
    table.set_bloom_filter(10, False)
    opts.set_block_based_table_factory(table)
    wopts = rocksdict.WriteOptions()
    wopts.disable_wal = True
    t0 = time.perf_counter()
    db = rocksdict.Rdict(path, options=opts)
    db.set_write_options(wopts)
    kb = keys.astype(">u8").tobytes()  # big-endian: byte order = numeric order
    vb = values.tobytes()
    build = 0.0
    for i in range(0, keys.size, BATCH):
        b0 = time.perf_counter()
        wb = rocksdict.WriteBatch(raw_mode=True)
        for j in range(i, min(i + BATCH, keys.size)):
            wb.put(kb[8 * j : 8 * j + 8], vb[VALUE * j : VALUE * (j + 1)])
        build += time.perf_counter() - b0
        db.write(wb)
    db.flush(True)
    while (db.property_int_value("rocksdb.compaction-pending") or 0) or (
        db.property_int_value("rocksdb.num-running-compactions") or 0
    ):
        time.sleep(0.01)
    elapsed = time.perf_counter() - t0
    written = db.property_int_value("rocksdb.total-sst-files-size") or 0
    db.close()
    shutil.rmtree(path)
    return dict(seconds=elapsed, live_sst_bytes=written, python_batch_seconds=build)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--entries", type=int, default=2_000_000)
    ap.add_argument("--buffer-mb", type=float, default=8.0)
    ap.add_argument("--dir", default=None, help="scratch directory (default: a temp dir)")
    ap.add_argument("--no-sync", action="store_true", help="also run the engine without fsync")
    args = ap.parse_args(argv)
    buffer_bytes = int(args.buffer_mb * (1 << 20))
    scratch = tempfile.mkdtemp(prefix="wacky-bench-", dir=args.dir)
    try:
        print(
            f"scratch dir: {scratch}  entries: {args.entries:,}  entry: {ENTRY} B  "
            f"buffer: {args.buffer_mb:g} MiB"
        )
        bw = disk_bandwidth(scratch)
        print(f"disk sequential write bandwidth (4 MiB writes + fsync): {bw:8.1f} MB/s")
        trace = load_trace(args.entries, entry_bytes=ENTRY, seed=1)
        eng = bench_engine(scratch, trace, buffer_bytes, sync=True)
        print(
            f"engine ingest (sync):   {eng['seconds']:7.2f} s   write-amp {eng['write_amp']:.2f}"
            f"   levels (level, runs, entries) {eng['levels']}"
        )
        bw_after = disk_bandwidth(scratch)
        print(f"disk bandwidth re-measured after the engine run: {bw_after:8.1f} MB/s")
        bw = (bw + bw_after) / 2
        mbps = eng["bytes_written"] / eng["merge_seconds"] / 1e6
        print(
            f"engine merge throughput: {mbps:8.1f} MB/s "
            f"({eng['bytes_written'] / 1e6:.0f} MB in {eng['merge_seconds']:.2f} s of merges)"
        )
        print(f"  ratio to mean disk bandwidth {bw:.1f} MB/s: {mbps / bw:.2f}  (target >= 0.5)")
        if args.no_sync:
            ns = bench_engine(scratch, trace, buffer_bytes, sync=False)
            nmb = ns["bytes_written"] / ns["merge_seconds"] / 1e6
            print(
                f"engine ingest (no sync): {ns['seconds']:7.2f} s   merge throughput "
                f"{nmb:.1f} MB/s (page cache; ratio {nmb / bw:.2f})"
            )
        rk = bench_rocksdb(scratch, trace.keys, value_for(trace.keys, VALUE), buffer_bytes)
        if rk is None:
            print("rocksdict is not installed: pip install -e '.[bench]' for the RocksDB figure")
        else:
            print(
                f"rocksdb ingest:         {rk['seconds']:7.2f} s   (of which "
                f"{rk['python_batch_seconds']:.2f} s building WriteBatches in Python)"
            )
            print(
                f"  engine / rocksdb time ratio: {eng['seconds'] / rk['seconds']:.2f}  "
                f"(target <= 1.0)"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
