"""The throughput of a mix on stock RocksDB, and each kind's latency (issue 34; docs/MODEL.md
"T6"): ``wacky sweep mix``.

Each case calibrates this machine first, as ``wacky calibrate`` does (:func:`profile`): the
random block read of the disk the database is on (direct I/O), and RocksDB's CPU per put, per
get, per absent key's get, per range's seek and per entry it steps over, with every block
cached (:func:`calibrate_reads`, on one leveled tree at RocksDB's defaults scaled down, not the
case's). Then it loads its own configuration with ``ENTRIES`` keys on that disk, with direct
reads and direct flush and compaction I/O (so a block the cache misses costs a device read, as
on a server whose data outgrows its memory), and runs the mix from one client thread, one
operation at a time (the bridge's ``run_mix``: RocksDB's own calls timed on the steady clock,
and each one's blocks read from PerfContext): a warm-up of ``WARMUP`` operations, then a window
of ``WINDOW``. Throughput is the window's operations over its wall time. T6 prices each kind's
time from the profile and the I/O model's blocks per operation (the pipeline's cost row for the
configuration and its block cache), and the mix's operations per second from them."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from validation.scale import Scale
from validation.stalls import ENTRY_BYTES, MIX, VALUE_BYTES, draw, keys_of, load_all, masks
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table

KEY_BYTES = 8
BUFFER = 256 << 10
BITS = 10.0
ENTRIES = 200_000
CACHE = 2 << 20  # the block cache: about a tenth of the data
RANGE_ENTRIES = 8
WARMUP = 30_000
WINDOW = 90_000
TARGET = 0.25  # the issue's: throughput within 25%


def workload() -> Any:
    """The mix as the model takes it: every write an update of a loaded key, keys uniform."""
    from wacky_model.types import KeyDistribution, Workload

    B = 4096 // ENTRY_BYTES
    return Workload(MIX["point_read"], MIX["zero_read"], MIX["write"], MIX["range_read"],
                    RANGE_ENTRIES / B, write_keys=KeyDistribution(), read_keys=KeyDistribution(),
                    update_fraction=1.0)


def _system(entries: float, cache_bytes: int = 0) -> Any:
    from wacky_model.types import System

    return System(entries=entries, entry_bytes=ENTRY_BYTES, key_bytes=KEY_BYTES,
                  block_bytes=4096, buffer_bytes=BUFFER, bits_per_entry=BITS,
                  cache_bytes=cache_bytes)


def disk_directory() -> Path:
    """A directory on a disk that takes direct I/O, for the measured databases: the system's
    temporary directory, or the project's build directory when that one is in memory."""
    from validation.calibrate import filesystem

    for d in (Path(tempfile.gettempdir()), Path.cwd() / "build"):
        if d.is_dir() and filesystem(d) not in ("tmpfs", "ramfs"):
            return d
    raise ValueError(f"no directory on a disk for direct I/O: {tempfile.gettempdir()} is in "
                     "memory and there is no build directory here; set TMPDIR to one on a disk")


def profile(disk: Path, random_seconds: float = 1.0) -> Any:
    """This machine's profile as T6 takes it: the random block read under ``disk`` (a 64 MiB
    file, direct I/O) and RocksDB's CPU (validation.calibrate.rocksdb_figures)."""
    from validation.calibrate import CHUNK, measure_storage, rocksdb_figures
    from wacky_model.devices import DeviceProfile

    storage = measure_storage(disk, 64 * CHUNK, 4096, random_seconds)
    return DeviceProfile(name=str(disk), method="O_DIRECT from Python", **storage,
                         **rocksdb_figures())


@dataclass(frozen=True)
class Kind:
    count: int
    mean_us: float
    p50_us: float
    p99_us: float
    blocks: float  # measured blocks read per operation
    model_blocks: float
    predicted_us: float


@dataclass(frozen=True)
class Measured:
    label: str
    ops_per_second: float
    predicted: float  # T6
    kinds: dict[str, Kind]
    catch_up: float  # seconds compaction ran on after the window
    t_read_us: float  # the profile's random block read
    machine: dict[str, Any]


def _options(config: Any, entries: int) -> str:
    """The export's OPTIONS file, with direct reads and direct flush and compaction I/O."""
    text = config.export(_system(entries)).options_file()
    return text.replace("[DBOptions]\n", "[DBOptions]\n  use_direct_reads=true\n"
                        "  use_direct_io_for_flush_and_compaction=true\n", 1)


def measure(label: str, entries: int = ENTRIES, warmup: int = WARMUP, window: int = WINDOW,
            seed: int = 11) -> Measured:
    """Calibrate, load ``label``'s configuration (validation.stalls.configs) on a disk, run the
    mix, and price it with T6 (module doc)."""
    import rocksdb_bridge
    from validation.stalls import configs
    from wacky_model.pricing import price
    from wacky_model.stalls import mix_ops_per_second, rocksdb_io, rocksdb_seconds

    config = configs()[label]
    disk = disk_directory()
    machine = profile(disk)
    w = workload()
    system = config.system(_system(entries, CACHE))
    priced = price(config.configuration, w, system)
    seconds = rocksdb_seconds(priced.row, w, system, machine)
    io = rocksdb_io(priced.row, w)
    with tempfile.TemporaryDirectory(dir=disk, prefix="wacky-mix-") as tmp:
        root = Path(tmp)
        (root / "db.options").write_text(_options(config, entries))
        db = rocksdb_bridge.load().Database(str(root / "db"), str(root / "db.options"), CACHE,
                                            fill_cache=True)
        keys = keys_of(entries, seed)
        load_all(db, keys)
        rng = np.random.default_rng(seed + 1)
        value = np.zeros(VALUE_BYTES, dtype=np.uint8)
        kinds, picked, _ = draw(keys, warmup, rng)
        db.run_mix(kinds, picked, value, RANGE_ENTRIES)
        kinds, picked, zero = draw(keys, window, rng)
        start = time.perf_counter()
        ns, blocks, results = db.run_mix(kinds, picked, value, RANGE_ENTRIES)
        wall = time.perf_counter() - start
        catch_up = db.wait_for_background_work(600.0)
        del db
    kind_masks = masks(kinds, zero)
    if not results[kind_masks["point_read"]].all() or results[kind_masks["zero_read"]].any():
        raise RuntimeError(f"{label}: RocksDB answered a get wrongly")
    out = {}
    for k, m in kind_masks.items():
        t = ns[m] / 1e3
        out[k] = Kind(int(m.sum()), float(t.mean()), float(np.percentile(t, 50)),
                      float(np.percentile(t, 99)), float(blocks[m].mean()), io[k],
                      seconds[k] * 1e6)
    return Measured(label, window / wall, mix_ops_per_second(seconds, w), out, catch_up,
                    machine.block_read_seconds() * 1e6,
                    {k: v for k, v in machine.to_dict().items() if k.startswith("rocksdb_")})


def _runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    from validation.stalls import configs

    return [SweepCase(label, "mix", None, {"label": label}, measure=measure)
            for label in configs()]


def _section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    names = {"point_read": "existing-key get", "zero_read": "zero-result get",
             "write": "put", "range_read": f"range of {RANGE_ENTRIES}"}
    rows, kind_rows, errors = [], [], []
    for r in results:
        m: Measured = r.result
        errors.append(m.predicted / m.ops_per_second - 1.0)
        rows.append([m.label, f"{m.ops_per_second:,.0f}", f"{m.predicted:,.0f}",
                     f"{errors[-1]:+.1%}", f"{m.t_read_us:.1f}", f"{m.catch_up:.2f}"])
        for k, name in names.items():
            x = m.kinds[k]
            kind_rows.append([m.label, name, f"{x.count:,}", f"{x.mean_us:.1f}",
                              f"{x.predicted_us:.1f}", f"{x.predicted_us / x.mean_us - 1:+.0%}",
                              f"{x.p50_us:.1f}", f"{x.p99_us:.1f}",
                              f"{x.blocks:.3f} / {x.model_blocks:.3f}"])
    met = sum(abs(e) <= TARGET for e in errors)
    cpu = [r.result.machine for r in results]
    body = [*table(["configuration", "ops/s (RocksDB)", "T6", "error", "t_r (µs, this run)",
                    "compaction after the window (s)"], rows), "",
            f"T6 within {TARGET:.0%} of the measured throughput: {met} of {len(errors)}"
            + (f" (median {100 * float(np.median(np.abs(errors))):.1f}%, worst "
               f"{100 * max(np.abs(errors)):.1f}%)." if errors else "."), "",
            "Each kind: its latency (mean, median and 99th percentile, µs, RocksDB's call timed "
            "alone) against T6's mean, and its blocks read from the disk per operation, "
            "measured (PerfContext) / the I/O model's:", "",
            *table(["configuration", "operation", "count", "mean", "T6", "error", "p50", "p99",
                    "blocks read / model"], kind_rows), "",
            "CPU with every block cached, calibrated in each case (get / absent get / seek / "
            "next / put, ns): " + "; ".join(
                f"{c['rocksdb_ns_per_get']:.0f} / {c['rocksdb_ns_per_zero_get']:.0f} / "
                f"{c['rocksdb_ns_per_seek']:.0f} / {c['rocksdb_ns_per_next']:.0f} / "
                f"{c['rocksdb_ns_per_put']:.0f}" for c in cpu) + "."]
    mix = ", ".join(f"{v:.0%} {names[k]}s" for k, v in MIX.items())
    return section(
        "mix", "Throughput of a mix on RocksDB: T6", command,
        f"Each configuration (those of the stalls section) is loaded with {ENTRIES:,} keys of "
        f"{ENTRY_BYTES} B (a {BUFFER:,} B buffer, {BITS:g} filter bits per key, a "
        f"{CACHE >> 20} MiB block cache) on a disk with direct reads and direct flush and "
        f"compaction I/O, then runs {mix} (updates of loaded keys, keys uniform) from one "
        f"client thread: {WARMUP:,} operations to warm the cache, then a window of "
        f"{WINDOW:,}, each RocksDB call timed on the steady clock by the bridge (`run_mix`). "
        "T6 (docs/MODEL.md) prices each kind's time from a profile measured in the same case "
        "(the disk's random block read with direct I/O; RocksDB's CPU per kind with its blocks "
        "cached, on another tree) and the I/O model's blocks per operation for the "
        "configuration and its cache (validation/mix.py).", body)


SETS = {"mix": SetCode(_runs, _section)}
