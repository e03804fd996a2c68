"""Validation on RocksDB, an engine this project did not write (``validate --engine rocksdb``).

With ``stock`` the design runs as the options of ``wacky export --rocksdb`` under RocksDB's own
compaction, with one bits-per-key for every level: the models price that design, with uniform
filters. The phases follow the native engine's steady measurement
(:mod:`validation.steady`), simplified where RocksDB hides the merge schedule:

1. **load**: the preload's N keys (the same keys as the native engine's), one buffer at a time;
2. **window**: N more fresh keys the same way. RocksDB's statistics give write amplification
   over the window alone: (flush + compaction bytes written) / user bytes written;
3. **reads**, after every flush and compaction has finished: zero-result reads, reads of
   the preload's (oldest) keys, reads of keys uniform over all present, and range reads. A read's
   I/O is its data-block cache misses: the block cache is small and reads do not fill it, and
   index and filter blocks stay in memory (``cache_index_and_filter_blocks=false``), as the
   model assumes.

Compaction keeps up with the writer: after each buffer the writer waits while RocksDB has a flush
or compaction running or pending. That wait is reported (``throttle_seconds``). The window is not
aligned with Level L's merges as the native engine's is, so its costs include whatever merges
fall into it (the model's amortized costs, full merges included, are the prediction).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import rocksdb_bridge
from validation import generators
from validation.results import Checks, Costs, LevelShape, ValidationResult, with_theta
from validation.runner import (
    Progress,
    predict_finite,
    predict_paper,
    predict_simulated,
    range_entries_for,
)
from validation.scale import Scale
from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.types import Design, Workload

BLOCK_CACHE_BYTES = 1 << 20  # small: reads do not fill it, so each data block read is a miss
KEY_BYTES = 8
COMPACTION_TIMEOUT_S = 600.0
LOAD_SHARE = 0.45  # of the progress bar, for the load (the window takes as much)


def _write_all(db, keys: np.ndarray, value_bytes: int, per_batch: int,
               report, start: float, share: float) -> float:
    """Insert ``keys`` one buffer at a time, waiting for compaction to keep up after each;
    returns the seconds the writer waited."""
    values = np.zeros((per_batch, value_bytes), dtype=np.uint8)
    waited = 0.0
    for i in range(0, keys.size, per_batch):
        chunk = keys[i : i + per_batch]
        db.put_many(chunk, values[: chunk.size])
        if db.busy():
            waited += db.wait_for_background_work(COMPACTION_TIMEOUT_S)
        report(start + share * min(1.0, (i + per_batch) / keys.size), "writing")
    return waited


def _levels(db) -> tuple[LevelShape, ...]:
    """Sorted runs by level: each level-0 file is a run; every other non-empty level is one."""
    rows, number = [], 0
    for level in db.levels():
        if level["files"] == 0:
            continue
        number += 1
        runs = level["files"] if level["level"] == 0 else 1
        rows.append(LevelShape(level=number, runs=runs, entries=int(level["entries"])))
    return tuple(rows)


def _run(db, keys: np.ndarray, window_keys: np.ndarray, absent: np.ndarray, value_bytes: int,
         F: int, n_reads: int, range_entries: int, rng: np.random.Generator, report):
    """Load, window and reads on an open database: (write amplification of the window, levels,
    the keys present, {read kind: (I/O per read, found)}, memory bits per entry, throttle s)."""
    report(0.0, "loading")
    throttle = _write_all(db, keys, value_bytes, F, report, 0.0, LOAD_SHARE)
    throttle += db.wait_for_background_work(COMPACTION_TIMEOUT_S)
    before = db.tickers()
    report(LOAD_SHARE, "steady-state window")
    throttle += _write_all(db, window_keys, value_bytes, F, report, LOAD_SHARE, LOAD_SHARE)
    db.flush()
    throttle += db.wait_for_background_work(COMPACTION_TIMEOUT_S)
    after = db.tickers()
    delta = {k: after[k] - before[k] for k in after}
    write_amp = ((delta["rocksdb.flush.write.bytes"] + delta["rocksdb.compact.write.bytes"])
                 / delta["rocksdb.bytes.written"])
    present = np.concatenate([keys, window_keys])

    def io_per_read(run) -> tuple[float, object]:
        misses = db.tickers()["rocksdb.block.cache.data.miss"]
        out = run()
        return (db.tickers()["rocksdb.block.cache.data.miss"] - misses) / n_reads, out

    report(2 * LOAD_SHARE, "reading")
    reads = {
        "zero": io_per_read(lambda: db.get_many(absent[:n_reads])),
        "oldest": io_per_read(lambda: db.get_many(rng.choice(keys, n_reads))),
        "uniform": io_per_read(lambda: db.get_many(rng.choice(present, n_reads))),
        "range": io_per_read(lambda: db.scan_many(rng.choice(present, n_reads),
                                                  max(1, range_entries))),
    }
    # The filters of every live table (their table properties), per entry.
    memory = 8.0 * db.filter_bytes() / present.size
    return write_amp, _levels(db), present, reads, memory, throttle


def validate_rocksdb(
    design: Design,
    *,
    workload: Workload | None = None,
    scale: Scale | None = None,
    bits_per_entry: float | None = None,
    sum_fpr: float | None = None,
    stock: bool = True,
    progress: Progress | None = None,
    workdir: str | Path | None = None,
) -> ValidationResult:
    """Predict, run on RocksDB, measure and compare ``design`` at ``scale``."""
    if not stock:
        raise ValueError("the Wacky compaction driver for RocksDB is not built yet: run the "
                         "design with --stock (RocksDB's own compaction, the exported options)")
    native = rocksdb_bridge.load()
    scale = scale or Scale()
    if bits_per_entry is None and sum_fpr is None:
        bits_per_entry = 5.0
    system = scale.system(bits_per_entry, sum_fpr)
    if scale.entry_bytes <= KEY_BYTES:
        raise ValueError(f"scale entry_bytes must exceed the {KEY_BYTES}-byte key on RocksDB")
    report = progress or (lambda fraction, message: None)
    start = time.perf_counter()
    B = system.entries_per_block
    range_entries = range_entries_for(scale, workload, B)
    exported = rocksdb_export(design, system)
    # Stock RocksDB gives every level the same bits per key (the export's filter_policy), so
    # the models price the design RocksDB runs: uniform filters.
    ran = replace(design, filters="uniform")
    paper = predict_paper(ran, system, workload)
    predicted = predict_finite(ran, system, workload, range_entries)
    value_bytes = scale.entry_bytes - KEY_BYTES
    F = system.buffer_entries

    load = generators.load_trace(scale.entries, entry_bytes=scale.entry_bytes, seed=scale.seed)
    keys = load.keys
    rng = np.random.default_rng([scale.seed, 0x524F434B])  # stream tag: "ROCK"
    fresh = generators.fresh_keys(rng, scale.entries + scale.reads, np.sort(keys))
    window_keys, absent = fresh[: scale.entries], fresh[scale.entries :]

    with tempfile.TemporaryDirectory(prefix="wacky-rocksdb-", dir=workdir) as tmp:
        options = Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        db = native.Database(str(Path(tmp) / "db"), str(options), BLOCK_CACHE_BYTES)
        try:
            run = _run(db, keys, window_keys, absent, value_bytes, F, scale.reads,
                       range_entries, rng, report)
        finally:
            del db  # closes the database before its directory goes
    write_amp, levels, present, reads, memory, throttle = run
    zero, oldest, uniform, ranged = (reads[k][0] for k in ("zero", "oldest", "uniform", "range"))
    version = native.version()
    measured = with_theta(Costs(
        write_amp=write_amp,
        zero_result_read=zero,
        point_read=oldest,
        point_read_uniform=uniform,
        range_runs=float(sum(row.runs for row in levels)),
        range_io=ranged,
        memory_bits_per_entry=memory,
        levels=levels,
    ), workload, B)
    final = replace(system, entries=float(present.size))
    simulated = predict_simulated(ran, final, workload, range_entries)
    report(1.0, "done")
    return ValidationResult(
        design=ran,
        scale=scale,
        budget=dict(system.budget),
        workload=workload,
        predicted=predicted,
        paper=paper,
        simulated=simulated,
        measured=measured,
        checks=Checks(get_misses=int((~reads["oldest"][1]).sum() + (~reads["uniform"][1]).sum()),
                      zero_hits=int(reads["zero"][1].sum()), wrong_values=0),
        seconds=time.perf_counter() - start,
        wal=False,
        phase="steady",
        window_writes=int(window_keys.size),
        engine="rocksdb",
        engine_version=version,
        throttle_seconds=throttle,
        rocksdb_grade=exported.grade,
    )
