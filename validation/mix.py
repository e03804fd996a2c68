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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from validation.scale import Scale
from validation.stalls import ENTRY_BYTES, VALUE_BYTES
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table
from validation.timed_mix import MIX, draw, keys_of, load_all, masks

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


def native_workload() -> Any:
    """The same mix on the native engine's entries (128 B: 32 a block)."""
    return replace(workload(), range_blocks=RANGE_ENTRIES / (4096 // NATIVE_ENTRY_BYTES))


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
    engine: str = "RocksDB"


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
        load_all(db, keys, VALUE_BYTES)
        value = np.zeros(VALUE_BYTES, dtype=np.uint8)
        kinds, zero, ns, blocks, results, wall = _timed(db, keys, value, RANGE_ENTRIES, warmup,
                                                        window, seed)
        catch_up = db.wait_for_background_work(600.0)
        del db
    return _measured(label, kinds, zero, ns, blocks, results, wall, window,
                     mix_ops_per_second(seconds, w), seconds, io, catch_up, machine, "RocksDB")


def _timed(engine: Any, keys: np.ndarray, value: np.ndarray, ranges: int, warmup: int,
           window: int, seed: int) -> tuple[np.ndarray, ...]:
    """``warmup`` operations of MIX on ``engine`` (either engine's ``run_mix``; ``ranges``: its
    range argument), then a window of ``window`` timed by the wall clock: the window's kinds,
    which are zero-result reads, each call's nanoseconds, blocks read and result, and the
    window's wall seconds."""
    rng = np.random.default_rng(seed + 1)
    kinds, picked, _ = draw(keys, warmup, rng)
    engine.run_mix(kinds, picked, value, ranges)
    kinds, picked, zero = draw(keys, window, rng)
    start = time.perf_counter()
    ns, blocks, results = engine.run_mix(kinds, picked, value, ranges)
    return kinds, zero, ns, blocks, results, np.float64(time.perf_counter() - start)


def _measured(label: str, kinds: np.ndarray, zero: np.ndarray, ns: np.ndarray,
              blocks: np.ndarray, results: np.ndarray, wall: float, window: int,
              predicted: float, seconds: dict[str, float], io: dict[str, float],
              catch_up: float, machine: Any, engine: str) -> Measured:
    kind_masks = masks(kinds, zero)
    if not results[kind_masks["point_read"]].all() or results[kind_masks["zero_read"]].any():
        raise RuntimeError(f"{label}: {engine} answered a get wrongly")
    out = {}
    for k, m in kind_masks.items():
        t = ns[m] / 1e3
        out[k] = Kind(int(m.sum()), float(t.mean()), float(np.percentile(t, 50)),
                      float(np.percentile(t, 99)), float(blocks[m].mean()), io[k],
                      seconds[k] * 1e6)
    prefix = "rocksdb_" if engine == "RocksDB" else "cpu_"
    return Measured(label, window / wall, predicted, out, catch_up,
                    machine.block_read_seconds() * 1e6,
                    {k: v for k, v in machine.to_dict().items() if k.startswith(prefix)}, engine)


# The native engine's designs (those of the insert throughput section: validation/throughput.py)
# and its entries: 128 B, so that a block holds 32.
NATIVE_ENTRY_BYTES = 128


def native_designs() -> dict[str, tuple[Any, str]]:
    from validation.throughput import CASES

    return {label: (design, granularity) for label, design, granularity in CASES}


def native_profile(disk: Path, random_seconds: float = 1.0) -> Any:
    """The profile T4 takes: the random block read and the sequential write under ``disk``
    (a 64 MiB file, direct I/O) and the native engine's CPU (validation.calibrate.measure_cpu)."""
    from validation.calibrate import CHUNK, measure_cpu, measure_storage
    from wacky_model.devices import DeviceProfile

    storage = measure_storage(disk, 64 * CHUNK, 4096, random_seconds)
    return DeviceProfile(name=str(disk), method="O_DIRECT from Python", **storage,
                         **measure_cpu())


def measure_native(label: str, entries: int = ENTRIES, warmup: int = WARMUP,
                   window: int = WINDOW, seed: int = 11) -> Measured:
    """Calibrate, load ``label``'s design (:func:`native_designs`) into the native engine on a
    disk with direct reads, run the mix from one client (the engine's ``run_mix``), and price
    it with T4 as ``recommend --objective throughput`` does (docs/MODEL.md "T4")."""
    from native_engine import Engine
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price
    from wacky_model.stalls import rocksdb_io
    from wacky_model.throughput import in_seconds, kind_seconds, ops_per_second
    from wacky_model.types import Compaction

    design, granularity = native_designs()[label]
    disk = disk_directory()
    machine = native_profile(disk)
    w = native_workload()
    io_system = replace(_system(entries, CACHE), entry_bytes=NATIVE_ENTRY_BYTES)
    seconds_system = in_seconds(io_system, machine)
    priced = price(Configuration(design, Compaction(granularity), Memory.of(seconds_system)), w,
                   seconds_system)
    per_kind = kind_seconds(priced.row, w, seconds_system, machine)
    blocks_model = rocksdb_io(priced.row, w)  # the blocks each kind reads, as for RocksDB
    gap = 2**62 // entries  # keys are uniform over [0, 2^62): a range of RANGE_ENTRIES spans
    with tempfile.TemporaryDirectory(dir=disk, prefix="wacky-mix-") as tmp:
        e = Engine(Path(tmp) / "db", **design.knobs, entry_bytes=NATIVE_ENTRY_BYTES,
                   block_bytes=4096, buffer_bytes=BUFFER, bits_per_entry=BITS, wal=False,
                   granularity=granularity, cache_bytes=CACHE, direct_reads=True)
        keys = keys_of(entries, seed)
        values = np.zeros((4096, NATIVE_ENTRY_BYTES - 8), dtype=np.uint8)
        for i in range(0, keys.size, 4096):
            e.put_many(keys[i:i + 4096], values[:keys[i:i + 4096].size])
        value = np.zeros(NATIVE_ENTRY_BYTES - 8, dtype=np.uint8)
        kinds, zero, ns, blocks, results, wall = _timed(e, keys, value, RANGE_ENTRIES * gap,
                                                        warmup, window, seed)
        e.close()
    return _measured(label, kinds, zero, ns, blocks, results, wall, window,
                     ops_per_second(priced.theta, w, machine), per_kind, blocks_model, 0.0,
                     machine, "native")


def _runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    from validation.stalls import configs

    return [*(SweepCase(label, "mix", None, {"label": label}, measure=measure)
              for label in configs()),
            *(SweepCase(label, "mix", None, {"label": label}, measure=measure_native)
              for label in native_designs())]


def _model(m: Measured) -> str:
    return "T6" if m.engine == "RocksDB" else "T4"


def _summary(engine: str, errors: list[float]) -> str:
    met = sum(abs(e) <= TARGET for e in errors)
    model = "T6" if engine == "RocksDB" else "T4"
    return (f"{model} within {TARGET:.0%} of the measured throughput on {engine}: {met} of "
            f"{len(errors)}" + (f" (median {100 * float(np.median(np.abs(errors))):.1f}%, worst "
                                f"{100 * max(np.abs(errors)):.1f}%)." if errors else "."))


def _section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    names = {"point_read": "existing-key get", "zero_read": "zero-result get",
             "write": "put", "range_read": f"range of {RANGE_ENTRIES}"}
    rows, kind_rows = [], []
    errors: dict[str, list[float]] = {"RocksDB": [], "native": []}
    for r in results:
        m: Measured = r.result
        err = m.predicted / m.ops_per_second - 1.0
        errors[m.engine].append(err)
        rows.append([m.label, m.engine, f"{m.ops_per_second:,.0f}",
                     f"{m.predicted:,.0f} ({_model(m)})", f"{err:+.1%}", f"{m.t_read_us:.1f}",
                     f"{m.catch_up:.2f}" if m.engine == "RocksDB" else "–"])
        for k, name in names.items():
            x = m.kinds[k]
            kind_rows.append([m.label, name, f"{x.count:,}", f"{x.mean_us:.1f}",
                              f"{x.predicted_us:.1f}", f"{x.predicted_us / x.mean_us - 1:+.0%}",
                              f"{x.p50_us:.1f}", f"{x.p99_us:.1f}",
                              f"{x.blocks:.3f} / {x.model_blocks:.3f}"])
    rocksdb = [r.result.machine for r in results if r.result.engine == "RocksDB"]
    native = [r.result.machine for r in results if r.result.engine == "native"]
    body = [*table(["configuration", "engine", "ops/s measured", "predicted", "error",
                    "t_r (µs, this run)", "compaction after the window (s)"], rows), "",
            *(f"- {_summary(e, errs)}" for e, errs in errors.items() if errs), "",
            "Each kind: its latency (mean, median and 99th percentile, µs, the engine's call "
            "timed alone) against the model's mean, and its blocks read from the disk per "
            "operation, measured (RocksDB's PerfContext, the native engine's counters) / the I/O "
            "model's (the pipeline's cost row through the cache):", "",
            *table(["configuration", "operation", "count", "mean", "model", "error", "p50",
                    "p99", "blocks read / model"], kind_rows), ""]
    if rocksdb:
        body.append("RocksDB's CPU with every block cached, calibrated in each case (get / "
                    "absent get / seek / next / put, ns): " + "; ".join(
                        f"{c['rocksdb_ns_per_get']:.0f} / {c['rocksdb_ns_per_zero_get']:.0f} / "
                        f"{c['rocksdb_ns_per_seek']:.0f} / {c['rocksdb_ns_per_next']:.0f} / "
                        f"{c['rocksdb_ns_per_put']:.0f}" for c in rocksdb) + ".")
    if native:
        body.append("The native engine's CPU, calibrated in each case (put / entry merged / "
                    "probe, ns): " + "; ".join(
                        f"{c['cpu_ns_per_put']:.0f} / {c['cpu_ns_per_entry_merged']:.0f} / "
                        f"{c['cpu_ns_per_probe']:.1f}" for c in native) + ".")
    mix = ", ".join(f"{v:.0%} {names[k]}s" for k, v in MIX.items())
    return section(
        "mix", "Throughput of a mix: T6 on RocksDB, T4 on the native engine", command,
        f"Each configuration is loaded with {ENTRIES:,} keys (RocksDB: those of the stalls "
        f"section, entries of {ENTRY_BYTES} B; the native engine: the designs of the insert "
        f"throughput section, entries of {NATIVE_ENTRY_BYTES} B; a {BUFFER:,} B buffer, "
        f"{BITS:g} filter bits per key, a {CACHE >> 20} MiB block cache) on a disk with "
        f"direct reads (RocksDB: direct flush and compaction I/O too), then runs {mix} "
        "(updates of loaded keys, keys uniform) from one client thread: "
        f"{WARMUP:,} operations to warm the cache, then a window of {WINDOW:,}, each call "
        "timed on the steady clock by the engine (`run_mix`: the bridge's, the native "
        "engine's). T6 (docs/MODEL.md) prices each kind's time on RocksDB from a profile "
        "measured in the same case (the disk's random block read with direct I/O; RocksDB's "
        "CPU per kind with its blocks cached, on another tree) and the I/O model's blocks per "
        "operation for the configuration and its cache; T4 is what `recommend --objective "
        "throughput` prices for the native engine (Θ in seconds: blocks read at t_r, blocks "
        "written at the calibrated merge CPU and the disk's write bandwidth, probes at their "
        "CPU, plus each put's), with a profile measured in the same case "
        "(validation/mix.py).", body)


SETS = {"mix": SetCode(_runs, _section)}
