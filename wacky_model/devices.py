"""A device and CPU profile: what one machine's storage and the native engine's CPU do, in plain
units (issue 34). ``wacky calibrate`` measures one (validation/calibrate.py); a profile can also
be written by hand for another machine (an NVMe, a cloud volume) as a JSON file with the same
fields, and :func:`read_profile` reads it back, naming the file and the field it refuses.

The time model (throughput, stalls) and per-level devices price I/O with it; the I/O counts stay
the cost model's."""

from __future__ import annotations

import json
import math
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

# What a profile's numbers mean, for messages and the JSON file's readers.
UNITS = {
    "seq_write_mb_s": "sequential write bandwidth, MB/s (10^6 bytes), direct I/O",
    "seq_read_mb_s": "sequential read bandwidth, MB/s, direct I/O",
    "rand_read_iops": "random block reads per second at queue depth 1, direct I/O",
    "rand_read_latency_us": "mean random block-read latency, microseconds",
    "block_bytes": "the block size of the random reads, bytes",
    "cpu_ns_per_put": "the native engine's CPU per put into its buffer, ns",
    "cpu_ns_per_entry_merged": "the native engine's CPU per entry a flush or merge writes, ns",
    "cpu_ns_per_probe": "the native engine's CPU per filter probe of a lookup, ns",
    "rocksdb_ns_per_put": "RocksDB's writer thread CPU per put (no WAL), ns",
    "rocksdb_ns_per_compaction_byte": "RocksDB's compaction time per byte read or written, ns",
    "rocksdb_ns_per_flush_byte": "RocksDB's flush time per byte written, ns",
    "cores": "the machine's cores (RocksDB's threads and the writer share them)",
    "rocksdb_ns_per_get": "RocksDB's time per get of a present key, its blocks cached, ns",
    "rocksdb_ns_per_zero_get": "RocksDB's time per get of an absent key, its blocks cached, ns",
    "rocksdb_ns_per_seek": "RocksDB's time per range read's iterator and seek, cached, ns",
    "rocksdb_ns_per_next": "RocksDB's time per entry a range read steps over, cached, ns",
}
# The figures a profile may lack (not measured): the CPU's, and RocksDB's without the bridge.
OPTIONAL = ("cpu_ns_per_put", "cpu_ns_per_entry_merged", "cpu_ns_per_probe",
            "rocksdb_ns_per_put", "rocksdb_ns_per_compaction_byte", "rocksdb_ns_per_flush_byte",
            "cores", "rocksdb_ns_per_get", "rocksdb_ns_per_zero_get", "rocksdb_ns_per_seek",
            "rocksdb_ns_per_next")


@dataclass(frozen=True)
class DeviceProfile:
    """One device and the engine's CPU on its machine. ``name`` says which (a path or a label);
    ``method`` how it was obtained ("O_DIRECT from Python", or "by hand"). The CPU figures may be
    None (not measured)."""

    name: str
    seq_write_mb_s: float
    seq_read_mb_s: float
    rand_read_iops: float
    rand_read_latency_us: float
    block_bytes: int = 4096
    cpu_ns_per_put: float | None = None
    cpu_ns_per_entry_merged: float | None = None
    cpu_ns_per_probe: float | None = None
    method: str = "by hand"
    rocksdb_ns_per_put: float | None = None
    rocksdb_ns_per_compaction_byte: float | None = None
    rocksdb_ns_per_flush_byte: float | None = None
    cores: int | None = None
    rocksdb_ns_per_get: float | None = None
    rocksdb_ns_per_zero_get: float | None = None
    rocksdb_ns_per_seek: float | None = None
    rocksdb_ns_per_next: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string; got {self.name!r}")
        for f in ("seq_write_mb_s", "seq_read_mb_s", "rand_read_iops", "rand_read_latency_us",
                  *OPTIONAL):
            v = getattr(self, f)
            if v is None and f in OPTIONAL:
                continue
            if f == "cores" and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"cores ({UNITS[f]}) must be a whole number >= 1; got {v!r}")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    math.isfinite(v) and v > 0):
                raise ValueError(f"{f} ({UNITS[f]}) must be a number above 0; got {v!r}")
        b = self.block_bytes
        if isinstance(b, bool) or not isinstance(b, int) or b < 512 or b & (b - 1):
            raise ValueError(f"block_bytes must be a power of two of at least 512; got {b!r}")

    @property
    def has_rocksdb(self) -> bool:
        """Whether it holds RocksDB's figures, which T2 and T3 need."""
        return None not in (self.rocksdb_ns_per_put, self.rocksdb_ns_per_compaction_byte,
                            self.rocksdb_ns_per_flush_byte)

    @property
    def has_rocksdb_reads(self) -> bool:
        """Whether it holds RocksDB's CPU per read of each kind, which T6 (a mix's throughput
        on RocksDB) needs beside the put's."""
        return None not in (self.rocksdb_ns_per_put, self.rocksdb_ns_per_get,
                            self.rocksdb_ns_per_zero_get, self.rocksdb_ns_per_seek,
                            self.rocksdb_ns_per_next)

    def block_read_seconds(self) -> float:
        """The time of one random block read (1 / IOPS at queue depth 1)."""
        return 1.0 / self.rand_read_iops

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "units": UNITS}

    @staticmethod
    def from_dict(doc: dict[str, Any], where: str = "the profile") -> DeviceProfile:
        if not isinstance(doc, dict):
            raise ValueError(f"{where} must be a JSON object; got {type(doc).__name__}")
        known = {f.name for f in fields(DeviceProfile)}
        unknown = sorted(set(doc) - known - {"units"})
        if unknown:
            raise ValueError(f"{where} has unknown fields: {', '.join(unknown)} (known: "
                             f"{', '.join(sorted(known))})")
        missing = [f.name for f in fields(DeviceProfile)
                   if f.default is MISSING and f.name not in doc]
        if missing:
            raise ValueError(f"{where} lacks {', '.join(missing)}")
        try:
            return DeviceProfile(**{k: v for k, v in doc.items() if k in known})
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None


def read_profile(path: str | Path) -> DeviceProfile:
    """A profile from its JSON file; ValueError naming the file for anything wrong."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"no profile at {p}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{p} is not a JSON profile: {e}") from None
    return DeviceProfile.from_dict(doc, str(p))


def write_profile(profile: DeviceProfile, path: str | Path) -> None:
    Path(path).write_text(json.dumps(profile.to_dict(), indent=2) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Device:
    """One storage device a tree's levels may sit on (docs/MODEL.md "D1. Devices"): what a block
    read and a block written cost there, in the unit of Θ (one block read on the system's own
    device), and the bytes it may hold (``math.inf``: no limit). ``System.devices`` lists them,
    the system's own device (the log, the MANIFEST and the levels not placed elsewhere) first."""

    name: str
    read_cost: float = 1.0
    write_cost: float = 1.0
    capacity_bytes: float = math.inf

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"a device's name must be a non-empty word; got {self.name!r}")
        for f in ("read_cost", "write_cost"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    math.isfinite(v) and 0 < v <= 1e6):
                raise ValueError(f"device {self.name}: {f} must be in (0, 1e6] (block reads of "
                                 f"the system's own device); got {v!r}")
        c = self.capacity_bytes
        if isinstance(c, bool) or not isinstance(c, (int, float)) or math.isnan(c) or c <= 0:
            raise ValueError(f"device {self.name}: capacity_bytes must be above 0 (inf: no "
                             f"limit); got {c!r}")

    @staticmethod
    def parse(spec: str) -> Device:
        """``NAME:READ_COST:WRITE_COST[:CAPACITY_BYTES]``, as the CLI's ``--device`` takes it
        (the capacity may end in K, M, G or T, powers of 1024)."""
        parts = spec.split(":")
        if not 3 <= len(parts) <= 4:
            raise ValueError(f"a device is NAME:READ_COST:WRITE_COST[:CAPACITY]; got {spec!r}")
        try:
            read, write = float(parts[1]), float(parts[2])
        except ValueError:
            raise ValueError(f"a device's costs must be numbers; got {spec!r}") from None
        capacity = math.inf if len(parts) == 3 else _bytes(parts[3], spec)
        return Device(parts[0], read, write, capacity)


def _bytes(text: str, spec: str) -> float:
    scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    try:
        return float(t[:-1]) * scale[t[-1]] if t and t[-1] in scale else float(t)
    except ValueError:
        raise ValueError(f"a device's capacity must be a number of bytes (may end in K, M, G or "
                         f"T); got {text!r} in {spec!r}") from None
