"""The crash-and-corrupt harness of issue 36 ("No silent loss"), the one copy shared by
tests/test_engine_durability.py, tests/test_no_silent_loss.py and benchmarks/stress_crash.py.

A child process writes a fixed, seeded sequence of operations (puts, deletes and put_many
batches) with ``wal=True, sync=True`` and prints the index of every operation the engine
acknowledged; the parent kills it with SIGKILL at a random moment. Each kill is then used twice:

* copies of the killed directory each get one corruption (a flipped, truncated, swapped or
  deleted file); each copy must either refuse to open with an ``OSError`` having changed no
  file, or open with exactly the acknowledged contents (a flip no checksum covers is harmless).
  ``verify_directory`` runs on the copy first and must change nothing either;
* the real directory is reopened and must hold exactly a prefix of the operations that
  includes every acknowledged one; the next child carries on from there.

A log truncation looks exactly like a write torn by a crash, so it may lose acknowledged writes
without an error: those cases are counted apart and are not failures.

File layouts targeted (native_engine/src/wal.h, run.h): a log record is a 16-byte header (masked
CRC of header bytes 4..16, 4-byte little-endian payload length, type byte, 3 zero bytes, masked
CRC of the payload) and its payload, the first record being a header record (type 5); a run file
is data and tombstone blocks, then a checksum section that starts with a 72-byte footer and
holds a 4-byte CRC per block, zero padded to whole blocks. When a file does not parse so, the
corruption falls back to a random offset (and says so).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import native_engine
from native_engine import Engine

SMALL = dict(T=4, C=3, entry_bytes=32, block_bytes=256, buffer_bytes=1024, bits_per_entry=8)
VB = SMALL["entry_bytes"] - 8
KEYS = 400
# Both granularities, each giving run files of equal size for the swap: level 0's flushes
# (level1_runs) under whole-level merges, and file_bytes-sized files under file merges.
LAYOUTS: dict[str, dict[str, Any]] = {
    "level": dict(SMALL, level1_runs=3),
    "file": dict(SMALL, granularity="file", file_bytes=512, level1_runs=2),
}
FOOTER_BYTES = 72
LOG_HEADER_BYTES = 16
LOG_HEADER_TYPE = 5


# -- the operation sequence and its model ----------------------------------------------------

class Op(NamedTuple):
    kind: str  # "put", "delete" or "put_many"
    keys: tuple[int, ...]
    values: tuple[bytes, ...]  # empty for a delete


def value(i: int, j: int = 0) -> bytes:
    """The value of entry j of operation i: unique, so a stale or foreign value is told apart."""
    return struct.pack("<IHH", i, j, 0xA5A5) * (VB // 8)


def op(seed: int, i: int, batches: bool = False) -> Op:
    """Operation i of the sequence: puts and deletes over KEYS keys and, with ``batches``, a
    put_many of 2..47 distinct keys one time in ten (up to 1.5 buffers: flushes happen inside)."""
    rng = random.Random(seed * 1_000_003 + i)
    if batches and rng.random() < 0.1:
        keys = tuple(rng.sample(range(KEYS), rng.randrange(2, 48)))
        return Op("put_many", keys, tuple(value(i, j) for j in range(len(keys))))
    key = rng.randrange(KEYS)
    if rng.random() < 0.2:
        return Op("delete", (key,), ())
    return Op("put", (key,), (value(i),))


def apply_op(state: dict[int, bytes], o: Op) -> None:
    if o.kind == "delete":
        state.pop(o.keys[0], None)
    else:
        state.update(zip(o.keys, o.values, strict=True))


def state_after(seed: int, n: int, batches: bool = False) -> dict[int, bytes]:
    """The contents after the first n operations."""
    state: dict[int, bytes] = {}
    for i in range(n):
        apply_op(state, op(seed, i, batches))
    return state


class Model:
    """state_after, kept incrementally, and every value each key was ever given (so a value on
    read is either stale, i.e. a newer acknowledged write is missing, or was never written)."""

    def __init__(self, seed: int, batches: bool) -> None:
        self.seed, self.batches = seed, batches
        self.n = 0
        self.state: dict[int, bytes] = {}
        self.written: dict[int, set[bytes]] = defaultdict(set)

    def op(self, i: int) -> Op:
        return op(self.seed, i, self.batches)

    def advance(self, n: int) -> None:
        while self.n < n:
            o = self.op(self.n)
            apply_op(self.state, o)
            for k, v in zip(o.keys, o.values, strict=False):
                self.written[k].add(v)
            self.n += 1

    def with_next(self) -> dict[int, bytes]:
        """The state had the operation in flight also landed."""
        o = self.op(self.n)
        for k, v in zip(o.keys, o.values, strict=False):
            self.written[k].add(v)
        state = dict(self.state)
        apply_op(state, o)
        return state


def contents(e: Engine) -> dict[int, bytes]:
    keys = np.arange(KEYS, dtype=np.uint64)
    values, found = e.get_many(keys)
    return {int(k): bytes(v) for k, v, f in zip(keys, values, found, strict=True) if f}


# -- the writing child -----------------------------------------------------------------------

CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from crash_harness import write_forever
write_forever(*sys.argv[2:])
"""


def write_forever(path: str, options: str, seed: str, start: str, batches: str) -> None:
    """The child: applies operations start, start + 1, ... printing each index once the engine
    has acknowledged it, until it is killed."""
    e = Engine(path, **json.loads(options), wal=True, sync=True)
    i = int(start)
    while True:
        o = op(int(seed), i, batches == "1")
        if o.kind == "put":
            e.put(o.keys[0], o.values[0])
        elif o.kind == "delete":
            e.delete(o.keys[0])
        else:
            e.put_many(np.array(o.keys, dtype=np.uint64), b"".join(o.values))
        print(i, flush=True)
        i += 1


# A preloaded library that SIGKILLs its process at the n-th deletion of a run file (n from
# WACKY_KILL_AT_RUN_UNLINK): a crash at an exact point that a timed kill rarely hits, such as
# after a merge's MANIFEST is durable and before its inputs are deleted.
CRASH_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void crash_point(const char *path) {
  static long left = -1;
  if (left < 0) {
    const char *n = getenv("WACKY_KILL_AT_RUN_UNLINK");
    left = n ? atol(n) : 0;
  }
  const char *base = strrchr(path, '/');
  if (left > 0 && strncmp(base ? base + 1 : path, "run-", 4) == 0 && --left == 0)
    kill(getpid(), SIGKILL);
}

#define WRAP(ret, name, params, args, path)                   \
  ret name params {                                            \
    static ret(*real) params;                                  \
    if (!real) real = (ret(*) params)dlsym(RTLD_NEXT, #name);  \
    crash_point(path);                                         \
    return real args;                                          \
  }

WRAP(int, unlink, (const char *p), (p), p)
WRAP(int, unlinkat, (int d, const char *p, int f), (d, p, f), p)
WRAP(int, remove, (const char *p), (p), p)
"""


def build_crash_shim(directory: Path) -> Path | None:
    """Compile CRASH_SHIM into ``directory``; None if there is no C compiler (or no Linux)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not sys.platform.startswith("linux"):
        return None
    source, lib = directory / "crash_shim.c", directory / "crash_shim.so"
    source.write_text(CRASH_SHIM)
    done = subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(source), "-ldl"],
                          capture_output=True, text=True)
    return lib if done.returncode == 0 else None


def kill_a_writer(path: str, options: dict[str, Any], seed: int, start: int, batches: bool,
                  rng: random.Random, ops: tuple[int, int] = (20, 200),
                  env: dict[str, str] | None = None) -> tuple[int, bool]:
    """Run a child from operation ``start`` and SIGKILL it after ``ops`` (a range)
    acknowledged operations plus a random pause, so the kill lands anywhere in a write; with
    ``env`` setting a crash point of CRASH_SHIM, the child may kill itself first.
    Returns the last acknowledged index (start - 1 if none) and whether the child killed
    itself."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(Path(__file__).parent), path, json.dumps(options),
         str(seed), str(start), "1" if batches else "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=None if env is None else {**os.environ, **env})
    assert child.stdout is not None and child.stderr is not None
    target = start + rng.randrange(*ops)
    acked = start - 1
    while acked < target:
        line = child.stdout.readline()
        if not line:
            break  # it died: by its crash point, or of an error (checked below)
        acked = int(line)
    else:
        time.sleep(rng.random() * 0.01)
        child.send_signal(signal.SIGKILL)
    by_itself = acked < target  # the loop ended early: it died unbidden
    child.wait()
    error = child.stderr.read()
    if child.returncode != -signal.SIGKILL:
        raise AssertionError(f"the child died before it was killed ({child.returncode}): {error}")
    acked = max([acked, *(int(x) for x in child.stdout.read().split())])
    child.stdout.close()
    child.stderr.close()
    return acked, by_itself


def crash_rounds(path: str, seed: int, rounds: int, rng: random.Random,
                 options: dict[str, Any] | None = None, batches: bool = False) -> tuple[int, int]:
    """Kill a writing child ``rounds`` times; after each kill, assert that the reopened engine
    holds exactly a prefix of the operations that includes every acknowledged write. Returns
    (operations applied, kills that landed mid-write)."""
    options = SMALL if options is None else options
    model = Model(seed, batches)
    landed = 0
    for _ in range(rounds):
        acked, _ = kill_a_writer(path, options, seed, model.n, batches, rng)
        model.advance(acked + 1)
        with Engine(path, **options) as e:
            got = contents(e)
        # The write in flight may or may not have landed; nothing acknowledged may be missing.
        if got != model.state:
            assert got == model.with_next(), f"not a prefix after op {acked}"
            model.advance(acked + 2)
            landed += 1
    return model.n, landed


# -- files of an engine directory ------------------------------------------------------------

def snapshot(path: Path) -> dict[str, str]:
    """Every file under ``path`` (lost/ included) and a hash of its bytes; lock files are the
    process's, not data, so they are left out."""
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file() and not p.name.startswith("LOCK")}


def run_files(path: Path) -> list[Path]:
    return sorted(path.glob("run-*.sst"))


def live_log(path: Path) -> Path | None:
    """The newest log: the one acknowledged writes go to."""
    logs = sorted(path.glob("wal-*.log"))
    return logs[-1] if logs else None


def manifest_runs(path: Path) -> set[int] | None:
    """The run ids the MANIFEST lists ("run <id> ..." lines), or None if it cannot be read."""
    try:
        text = (path / "MANIFEST").read_text()
    except (OSError, UnicodeDecodeError):
        return None
    return {int(m) for m in re.findall(r"^run (\d+) ", text, re.M)}


def manifest_logs(path: Path) -> set[int]:
    """The live log numbers the MANIFEST lists (a "logs <count> <number>..." line), if any."""
    try:
        text = (path / "MANIFEST").read_text()
    except (OSError, UnicodeDecodeError):
        return set()
    line = re.search(r"^logs \d+((?: \d+)*)$", text, re.M)
    return {int(n) for n in line.group(1).split()} if line else set()


def listed_files_missing(path: Path) -> list[str]:
    """Run files and logs the MANIFEST lists that are not in the directory (after a crash, any
    such file was deleted while still needed)."""
    listed = [f"run-{i:08d}.sst" for i in manifest_runs(path) or set()]
    listed += [f"wal-{n:08d}.log" for n in manifest_logs(path)]
    return sorted(name for name in listed if not (path / name).exists())


def lost_usage(path: Path) -> tuple[int, int]:
    """(files, bytes) in lost/."""
    files = [p for p in (path / "lost").rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def log_records(data: bytes) -> list[tuple[int, int]]:
    """(offset, payload length) of each whole record, walking the headers; [] if the log does
    not start with a header record (not this layout, or damaged)."""
    records: list[tuple[int, int]] = []
    r = 0
    while r + LOG_HEADER_BYTES <= len(data):
        n = int.from_bytes(data[r + 4:r + 8], "little")
        if not 1 <= data[r + 8] <= LOG_HEADER_TYPE or data[r + 9:r + 12] != b"\0\0\0":
            break
        if r + LOG_HEADER_BYTES + n > len(data):
            break  # a torn last record
        records.append((r, n))
        r += LOG_HEADER_BYTES + n
    if not records or data[8] != LOG_HEADER_TYPE:
        return []
    return records


def checksum_section(size: int, block_bytes: int) -> tuple[int, int] | None:
    """(offset of the checksum section, blocks it covers) of a run file of ``size`` bytes: the
    b with b + ceil((72 + 4b) / block_bytes) blocks in all; None if no b fits (a truncated
    file, or another layout)."""
    if size % block_bytes:
        return None
    total = size // block_bytes
    for b in range(total):
        if b + -(-(FOOTER_BYTES + 4 * b) // block_bytes) == total:
            return b * block_bytes, b
    return None


# -- corruptions -----------------------------------------------------------------------------

def flip(file: Path, offset: int, rng: random.Random) -> None:
    data = bytearray(file.read_bytes())
    data[offset] ^= rng.randrange(1, 256)
    file.write_bytes(bytes(data))


def truncate(file: Path, rng: random.Random) -> int:
    size = rng.randrange(file.stat().st_size)
    with open(file, "r+b") as f:
        f.truncate(size)
    return size


def _log_flip(field_of: Any) -> Any:
    """A corruption flipping one byte of a chosen log record, chosen by ``field_of(r, n, rng)``
    (offset r, payload length n); a random byte when the log does not parse."""
    def corrupt(path: Path, rng: random.Random) -> str | None:
        log = live_log(path)
        if log is None or log.stat().st_size == 0:
            return None
        records = [(r, n) for r, n in log_records(log.read_bytes())
                   if field_of(r, n, rng) is not None]
        if records:
            r, n = rng.choice(records)
            offset, how = field_of(r, n, rng), f"record at {r}"
        else:
            offset, how = rng.randrange(log.stat().st_size), "random offset: log did not parse"
        flip(log, offset, rng)
        return f"{log.name} byte {offset} ({how})"
    return corrupt


def _crc_byte(r: int, n: int, rng: random.Random) -> int:
    return r + rng.choice([0, 12]) + rng.randrange(4)


def _payload_byte(r: int, n: int, rng: random.Random) -> int | None:
    return r + LOG_HEADER_BYTES + rng.randrange(n) if n else None


def _listed_runs(path: Path) -> list[Path]:
    """The run files the MANIFEST lists (damage elsewhere proves little), else all of them."""
    listed = manifest_runs(path)
    runs = [p for p in run_files(path) if listed is None or int(p.name[4:12]) in listed]
    return runs or run_files(path)


def _run_flip(region: str) -> Any:
    """A corruption flipping one byte of a listed run file in ``region``: "data" (data and
    tombstone blocks), "footer" or "checksums" (the CRCs after the footer)."""
    def corrupt(path: Path, rng: random.Random) -> str | None:
        runs = _listed_runs(path)
        if not runs:
            return None
        run = rng.choice(runs)
        size = run.stat().st_size
        section = checksum_section(size, SMALL["block_bytes"])
        if section is None:
            offset, how = rng.randrange(size), "random offset: no checksum section found"
        else:
            start, blocks = section
            lo, hi = {"data": (0, start), "footer": (start, start + FOOTER_BYTES),
                      "checksums": (start + FOOTER_BYTES,
                                    start + FOOTER_BYTES + 4 * blocks)}[region]
            offset, how = rng.randrange(lo, hi), region
        flip(run, offset, rng)
        return f"{run.name} byte {offset} ({how})"
    return corrupt


def _manifest_flip(path: Path, rng: random.Random) -> str | None:
    m = path / "MANIFEST"
    offset = rng.randrange(m.stat().st_size)
    flip(m, offset, rng)
    return f"MANIFEST byte {offset}"


def _manifest_truncate(path: Path, rng: random.Random) -> str | None:
    return f"MANIFEST cut to {truncate(path / 'MANIFEST', rng)} bytes"


def _run_truncate(path: Path, rng: random.Random) -> str | None:
    runs = _listed_runs(path)
    if not runs:
        return None
    run = rng.choice(runs)
    return f"{run.name} cut to {truncate(run, rng)} bytes"


def _run_swap(path: Path, rng: random.Random) -> str | None:
    by_size: dict[int, list[Path]] = defaultdict(list)
    for run in _listed_runs(path):
        by_size[run.stat().st_size].append(run)
    pairs = [rng.sample(same, 2) for same in by_size.values() if len(same) >= 2]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    data_a, data_b = a.read_bytes(), b.read_bytes()
    a.write_bytes(data_b)
    b.write_bytes(data_a)
    return f"{a.name} <-> {b.name}"


def _run_delete(path: Path, rng: random.Random) -> str | None:
    runs = _listed_runs(path)
    if not runs:
        return None
    run = rng.choice(runs)
    run.unlink()
    return f"{run.name} deleted"


def _log_delete(path: Path, rng: random.Random) -> str | None:
    log = live_log(path)
    if log is None:
        return None
    log.unlink()
    return f"{log.name} deleted"


def _log_truncate(path: Path, rng: random.Random) -> str | None:
    log = live_log(path)
    if log is None or log.stat().st_size == 0:
        return None
    return f"{log.name} cut to {truncate(log, rng)} bytes"


CORRUPTIONS: dict[str, Any] = {
    "log length flip": _log_flip(lambda r, n, rng: r + 4 + rng.randrange(4)),
    "log type flip": _log_flip(lambda r, n, rng: r + 8),
    "log crc flip": _log_flip(_crc_byte),
    "log payload flip": _log_flip(_payload_byte),
    "MANIFEST flip": _manifest_flip,
    "MANIFEST truncation": _manifest_truncate,
    "run data flip": _run_flip("data"),
    "run checksum flip": _run_flip("checksums"),
    "run footer flip": _run_flip("footer"),
    "run truncation": _run_truncate,
    "run swap": _run_swap,
    "run deleted": _run_delete,
    "live log deleted": _log_delete,
    "log truncation": _log_truncate,
}
# Looks exactly like a write torn by a crash: it may lose acknowledged writes without an error.
UNDETECTABLE = frozenset({"log truncation"})


# -- counting --------------------------------------------------------------------------------

@dataclass
class Tally:
    """What happened to the copies given one kind of corruption."""
    cases: int = 0
    detected_open: int = 0   # open raised an OSError and changed no file
    detected_verify: int = 0  # verify_directory flagged it (not ok, or lost writes)
    harmless: int = 0        # opened with exactly the acknowledged contents
    silent: int = 0          # opened with other contents
    lost_keys: int = 0       # keys whose acknowledged state was missing (stale or absent)
    wrong_values: int = 0    # keys holding a value never written to them
    torn_batches: int = 0    # contents matched key by key but only part of a batch landed
    other_errors: int = 0    # refused with an exception that is not an OSError
    failed_open_deleted: int = 0  # files a failed open deleted
    failed_open_changed: int = 0  # files a failed open changed or added
    verify_changed: int = 0  # files verify_directory deleted, changed or added
    verify_missed: int = 0   # the open refused, but verify_directory found nothing

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Report:
    kills: int = 0
    operations: int = 0
    in_flight_landed: int = 0     # kills after which the write in flight had landed
    crash_point_kills: int = 0    # children killed by CRASH_SHIM at a run file's deletion
    listed_missing: int = 0       # run files the MANIFEST listed, missing after a kill
    real_not_prefix: int = 0      # reopened real directory not a prefix with every ack
    real_lost_keys: int = 0
    real_errors: int = 0          # the real directory failed to reopen after a plain kill
    lost_files_max: int = 0       # the most files lost/ of the real directory held
    lost_bytes_max: int = 0
    verify_available: bool = True
    kinds: dict[str, Tally] = field(default_factory=lambda: {k: Tally() for k in CORRUPTIONS})
    examples: list[str] = field(default_factory=list)

    @property
    def corruptions(self) -> int:
        return sum(t.cases for t in self.kinds.values())

    def total(self, include_undetectable: bool = True) -> Tally:
        out = Tally()
        for kind, t in self.kinds.items():
            if include_undetectable or kind not in UNDETECTABLE:
                out.add(t)
        return out

    @property
    def needed_files_deleted(self) -> int:
        """Files a failed open deleted, and listed run files missing after a kill."""
        return self.total().failed_open_deleted + self.listed_missing

    def failures(self) -> dict[str, int]:
        """Every figure that must be 0 (log truncations' lost writes are not among them)."""
        must = self.total(include_undetectable=False)
        every = self.total()
        return {
            "silent losses (opened with wrong contents)": must.silent,
            "acknowledged keys lost without an error": must.lost_keys,
            "wrong values": every.wrong_values,
            "torn batches": every.torn_batches,
            "refusals that are not OSError": every.other_errors,
            "files deleted that were needed": self.needed_files_deleted,
            "files changed by a failed open": every.failed_open_changed,
            "files verify_directory changed": every.verify_changed,
            "real directory not a prefix with every ack": self.real_not_prefix,
            "real directory failed to reopen": self.real_errors,
        }

    def merge(self, other: Report) -> None:
        for name in ("kills", "operations", "in_flight_landed", "crash_point_kills",
                     "listed_missing",
                     "real_not_prefix", "real_lost_keys", "real_errors"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.lost_files_max = max(self.lost_files_max, other.lost_files_max)
        self.lost_bytes_max = max(self.lost_bytes_max, other.lost_bytes_max)
        self.verify_available &= other.verify_available
        for kind, t in other.kinds.items():
            self.kinds[kind].add(t)
        self.examples += other.examples


def compare(got: dict[int, bytes], acked: dict[int, bytes], landed: dict[int, bytes],
            written: dict[int, set[bytes]], tally: Tally) -> bool:
    """Count how ``got`` differs from both allowed states (the acknowledged prefix, and it
    plus the operation in flight); True if it equals one of them."""
    if got in (acked, landed):
        return True
    bad = [k for k in range(KEYS) if got.get(k) not in (acked.get(k), landed.get(k))]
    wrong = [k for k in bad if got.get(k) is not None and got[k] not in written[k]]
    tally.wrong_values += len(wrong)
    tally.lost_keys += len(bad) - len(wrong)
    if not bad:
        tally.torn_batches += 1  # every key is right for one state, but not all for the same
    return False


# -- one corrupted copy ----------------------------------------------------------------------

def _verify_copy(copy: Path, tally: Tally) -> bool | None:
    """verify_directory on the copy: whether it flagged damage (None when it does not exist);
    counts files it changed."""
    verify = getattr(native_engine, "verify_directory", None)
    if verify is None:
        return None
    before = snapshot(copy)
    try:
        report = verify(str(copy))
        flagged = not report["ok"] or bool(report["lost_writes"])
    except OSError:
        flagged = True
    tally.verify_changed += sum(_changes(before, snapshot(copy)))
    return flagged


def _changes(before: dict[str, str], after: dict[str, str]) -> tuple[int, int]:
    """(files deleted, files changed or added) between two snapshots."""
    deleted = sum(1 for name in before if name not in after)
    changed = sum(1 for name, h in after.items() if before.get(name) != h)
    return deleted, changed


def _open_copy(copy: Path, options: dict[str, Any], tally: Tally,
               note: Any) -> dict[int, bytes] | None:
    """Open the copy: its contents, or None if it refused (counted)."""
    before = snapshot(copy)
    try:
        with Engine(copy, **options) as e:
            return contents(e)
    except OSError as err:
        deleted, changed = _changes(before, snapshot(copy))
        tally.failed_open_deleted += deleted
        tally.failed_open_changed += changed
        if deleted or changed:
            note(f"a failed open deleted {deleted} and changed {changed} files ({err})")
        else:
            tally.detected_open += 1
    except Exception as err:  # any other refusal is counted (and shown), not raised
        tally.other_errors += 1
        note(f"refused with {type(err).__name__}: {err}")
    return None


def corrupt_one(src: Path, work: Path, options: dict[str, Any], kind: str, rng: random.Random,
                model: Model, tally: Tally, examples: list[str]) -> bool:
    """Copy ``src`` to ``work``, corrupt it with ``kind`` and judge what verify_directory and
    an open make of it. False if ``kind`` does not apply to this directory."""
    shutil.copytree(src, work)
    try:
        what = CORRUPTIONS[kind](work, rng)
        if what is None:
            return False
        tally.cases += 1

        def note(message: str) -> None:
            if len(examples) < 20:
                examples.append(f"{kind}: {what}: {message}")

        flagged = _verify_copy(work, tally)
        tally.detected_verify += bool(flagged)
        refused = tally.detected_open
        got = _open_copy(work, options, tally, note)
        if tally.detected_open > refused and flagged is False:
            tally.verify_missed += 1
            note("the open refused it but verify_directory called the directory sound")
        if got is not None:
            if compare(got, model.state, model.with_next(), model.written, tally):
                tally.harmless += 1
            else:
                tally.silent += 1
                note("opened with wrong contents")
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the loop --------------------------------------------------------------------------------

def _reopen_real(path: Path, options: dict[str, Any], model: Model, acked: int,
                 report: Report) -> None:
    """Reopen the uncorrupted directory: it must hold a prefix with every acknowledged write.
    The model moves to that prefix; a directory that is not one is counted and rewritten to
    the acknowledged state, so the next rounds still test something."""
    model.advance(acked + 1)
    landed = model.with_next()
    with Engine(path, **options) as e:
        got = contents(e)
        files, size = lost_usage(path)
        report.lost_files_max = max(report.lost_files_max, files)
        report.lost_bytes_max = max(report.lost_bytes_max, size)
        if got == landed and got != model.state:
            model.advance(acked + 2)
            report.in_flight_landed += 1
        elif got != model.state:
            report.real_not_prefix += 1
            tally = Tally()
            compare(got, model.state, landed, model.written, tally)
            report.real_lost_keys += tally.lost_keys + tally.wrong_values
            report.examples.append(f"real directory after op {acked}: {tally.lost_keys} keys "
                                   f"lost, {tally.wrong_values} wrong, {tally.torn_batches} "
                                   "torn batch (rewritten to the acknowledged state)")
            for k in range(KEYS):
                if k in model.state:
                    e.put(k, model.state[k])
                elif k in got:
                    e.delete(k)


def _kill(real: Path, options: dict[str, Any], model: Model, rng: random.Random,
          ops: tuple[int, int], shim: Path | None) -> tuple[int, bool]:
    """One kill: timed, or (half the time when ``shim`` is given) at a crash point, the n-th
    deletion of a run file, with a timed kill long after as the fallback."""
    if shim is None or rng.random() < 0.5:
        return kill_a_writer(str(real), options, model.seed, model.n, True, rng, ops)
    env = {"LD_PRELOAD": str(shim), "WACKY_KILL_AT_RUN_UNLINK": str(rng.randrange(1, 7))}
    return kill_a_writer(str(real), options, model.seed, model.n, True, rng,
                         (10 * ops[1], 10 * ops[1] + 1), env)


def _corrupt_copies(real: Path, work: Path, options: dict[str, Any], count: int,
                    rng: random.Random, model: Model, report: Report) -> None:
    for _ in range(count):
        kinds = list(CORRUPTIONS)
        rng.shuffle(kinds)  # the first kind that applies to this directory
        for kind in kinds:
            if corrupt_one(real, work, options, kind, rng, model, report.kinds[kind],
                           report.examples):
                break


def crash_and_corrupt(workdir: str | Path, granularity: str, rounds: int,
                      corruptions_per_round: int, seed: int,
                      ops: tuple[int, int] = (20, 200), shim: Path | None = None) -> Report:
    """``rounds`` kills of a child writing in ``granularity`` ("level" or "file") layout, each
    followed by ``corruptions_per_round`` corrupted copies (kinds drawn at random among those
    that apply) and a reopen of the real directory. With ``shim`` (build_crash_shim), half the
    kills are at crash points. Returns the counters."""
    options = LAYOUTS[granularity]
    rng = random.Random(seed)
    real, work = Path(workdir) / f"{granularity}-db", Path(workdir) / f"{granularity}-copy"
    model = Model(seed, batches=True)
    report = Report(verify_available=hasattr(native_engine, "verify_directory"))
    for _ in range(rounds):
        start = model.n
        acked, by_itself = _kill(real, options, model, rng, ops, shim)
        report.kills += 1
        report.crash_point_kills += by_itself
        report.listed_missing += len(listed_files_missing(real))
        model.advance(acked + 1)
        _corrupt_copies(real, work, options, corruptions_per_round, rng, model, report)
        try:
            _reopen_real(real, options, model, acked, report)
        except OSError as err:
            # A kill must never leave a directory that cannot open: count it and start a
            # fresh directory, so the remaining rounds still run.
            report.real_errors += 1
            report.examples.append(f"real directory after kill {report.kills}: {err}")
            shutil.rmtree(real)
            report.operations += acked + 1 - start
            model = Model(seed + report.kills, batches=True)
            continue
        report.operations += model.n - start
    return report
