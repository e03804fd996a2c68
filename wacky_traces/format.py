"""Operation traces: the exact stream of operations a run sends to an engine.

This package is the trace type and its file formats, and the values a trace's PUTs write. The
random workload generators live in :mod:`validation.generators`, replay in
:mod:`validation.replay`, and the workload a trace implies in
:func:`wacky_model.trace_skew.workload_from_trace`.

A :class:`Trace` is three parallel arrays (kind, key, arg) split into named phases. Traces are
saved as a small binary format (optionally inside an lz4 frame), can be written by hand as plain
text, and can be replayed through ``native_engine.Engine`` with per-phase, per-kind I/O totals and
a check of every answer. The file formats and error messages are specified in docs/TRACES.md.

Every ``Trace`` is validated when it is constructed, so a trace that exists is well formed:
readers validate the whole file before returning and :func:`replay` never half-applies a bad
trace.
"""

from __future__ import annotations

import enum
import json
import os
import re
import secrets
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [  # what the package exports
    "KIND_NAMES",
    "LZ4_MAGIC",
    "MAGIC",
    "N_KINDS",
    "PUT_CHUNK",
    "SCAN_CHUNK",
    "U64_MAX",
    "OpKind",
    "Phase",
    "Trace",
    "TraceError",
    "build_trace",
    "left_out",
    "read_trace",
    "operations_mask",
    "trace_fractions",
    "value_for",
    "warmup_phase",
    "write_trace",
]

MAGIC = b"WACKYTR1"
LZ4_MAGIC = b"\x04\x22\x4d\x18"
FORMAT_VERSION = 1
RECORD_DTYPE = np.dtype([("kind", "u1"), ("key", "<u8"), ("arg", "<u8")])  # packed: 17 bytes
RECORD_BYTES = RECORD_DTYPE.itemsize
# A header longer than this is certainly a corrupt length field; the limit also keeps the raw
# payload's first 4 bytes from ever equalling the lz4 frame magic (0x184D2204 is ~407 MB).
MAX_HEADER_BYTES = 16 << 20
MIN_ENTRY_BYTES, MAX_ENTRY_BYTES = 9, 1 << 20  # the engine's accepted layout range
DEFAULT_TEXT_ENTRY_BYTES = 128
U64_MAX = 2**64 - 1
PUT_CHUNK = 65536  # records per put_many/get_many call: bounds the value buffer we build
SCAN_CHUNK = 65536  # range entries verified at once

assert RECORD_BYTES == 17


def _lz4() -> Any:
    """lz4.frame, imported on first use so that reading the types costs no codec."""
    import lz4.frame

    return lz4.frame


class OpKind(enum.IntEnum):
    """Record kinds. GET expects the key present, ZERO expects it absent (zero-result read)."""

    PUT = 0
    GET = 1
    ZERO = 2
    RANGE = 3
    DELETE = 4


KIND_NAMES = tuple(k.name.lower() for k in OpKind)  # index == kind value
N_KINDS = len(KIND_NAMES)
_VALID_KINDS = ", ".join(f"{k.value}={k.name.lower()}" for k in OpKind)


class TraceError(ValueError):
    """A malformed trace (file or arrays). ``record`` (0-based) or ``line`` (1-based text line)
    locate the offending item when there is one."""

    def __init__(self, message: str, *, record: int | None = None, line: int | None = None):
        super().__init__(message)
        self.record = record
        self.line = line


def _located(err: TraceError, where: str) -> TraceError:
    """The same error with the file name in front."""
    return TraceError(f"{where}: {err}", record=err.record, line=err.line)


@dataclass(frozen=True)
class Phase:
    """Records ``[start, stop)`` of a trace belong to phase ``name``."""

    name: str
    start: int
    stop: int


# -- record validation ---------------------------------------------------------------------------
def _first_record_error(kinds: np.ndarray, keys: np.ndarray, args: np.ndarray) -> TraceError | None:
    """The error for the lowest-indexed bad record, or None. Vectorized: each check finds its
    first offender and the earliest one wins, so the message always names the first bad record."""
    bad: list[tuple[int, str]] = []
    unknown = np.flatnonzero(kinds >= N_KINDS)
    if unknown.size:
        i = int(unknown[0])
        bad.append((i, f"unknown kind {int(kinds[i])} (valid kinds: {_VALID_KINDS})"))
    is_range = kinds == OpKind.RANGE
    inverted = np.flatnonzero(is_range & (args < keys))
    if inverted.size:
        i = int(inverted[0])
        bad.append((i, f"range upper bound {int(args[i])} < lower bound {int(keys[i])}"))
    # A stray arg is not harmful by itself, but in a fixed-width format it is the cheapest sign
    # that the bytes are misaligned or corrupt, so it is rejected rather than ignored.
    stray = np.flatnonzero(~is_range & (kinds < N_KINDS) & (args != 0))
    if stray.size:
        i = int(stray[0])
        bad.append((i, f"non-zero arg {int(args[i])} on a {KIND_NAMES[kinds[i]]} (must be 0)"))
    if not bad:
        return None
    i, what = min(bad)
    return TraceError(f"record {i}: {what}", record=i)


def _phase_error(phases: Sequence[Phase], n: int) -> str | None:
    if not phases:
        return None if n == 0 else f"no phases, but {n} records (phases must cover [0, {n}))"
    expect = 0
    seen: set[str] = set()
    for j, p in enumerate(phases):
        if not isinstance(p.name, str) or not p.name:
            return f"phase {j}: name must be a non-empty string, got {p.name!r}"
        if p.name in seen:
            return f"phase {j}: duplicate name {p.name!r}"
        seen.add(p.name)
        if p.start != expect:
            return (f"phase {j} ({p.name!r}) starts at record {p.start}, expected {expect} "
                    f"(phases must cover [0, {n}) contiguously, in order)")
        if not p.start <= p.stop <= n:
            return f"phase {j} ({p.name!r}) stop {p.stop} not in [{p.start}, {n}]"
        expect = p.stop
    if expect != n:
        return f"phases end at record {expect}, but there are {n} records"
    return None


def checked_array(name: str, a: Any, dtype: type) -> np.ndarray:
    """A private read-only 1-D copy of ``a`` as ``dtype``; bad shapes and values raise."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array, got dtype {arr.dtype}")
    if arr.size and arr.dtype.kind == "i" and int(arr.min()) < 0:
        raise ValueError(f"{name} must be >= 0, got {int(arr.min())}")
    if dtype is np.uint8 and arr.size and int(arr.max()) > 255:
        i = int(np.argmax(arr > 255))
        raise TraceError(f"record {i}: unknown kind {int(arr[i])} (valid kinds: {_VALID_KINDS})",
                         record=i)
    # Private read-only copies: a validated trace must not change under our feet.
    out = np.array(arr, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


# -- the trace -----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Trace:
    """An operation stream: parallel ``kinds`` (uint8), ``keys`` and ``args`` (uint64) arrays,
    split into contiguous named ``phases``. ``entry_bytes`` is the engine layout the values were
    made for (values are ``entry_bytes - 8`` bytes of :func:`value_for`). ``meta`` is free
    JSON-able metadata that files round-trip. Construction validates everything (TraceError)."""

    kinds: np.ndarray
    keys: np.ndarray
    args: np.ndarray
    phases: tuple[Phase, ...]
    entry_bytes: int
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        kinds = checked_array("kinds", self.kinds, np.uint8)
        keys = checked_array("keys", self.keys, np.uint64)
        args = checked_array("args", self.args, np.uint64)
        if not len(kinds) == len(keys) == len(args):
            raise ValueError(f"kinds, keys and args must have the same length, got "
                             f"{len(kinds)}, {len(keys)}, {len(args)}")
        eb = self.entry_bytes
        if isinstance(eb, bool) or not isinstance(eb, (int, np.integer)):
            raise ValueError(f"entry_bytes must be an int, got {type(eb).__name__}")
        if not MIN_ENTRY_BYTES <= int(eb) <= MAX_ENTRY_BYTES:
            raise ValueError(f"entry_bytes = {eb} must be in [{MIN_ENTRY_BYTES}, "
                             f"{MAX_ENTRY_BYTES}]")
        phases = tuple(self.phases)
        if not all(isinstance(p, Phase) for p in phases):
            raise ValueError("phases must be a sequence of Phase")
        err = _phase_error(phases, len(kinds))
        if err:
            raise TraceError(err)
        rec_err = _first_record_error(kinds, keys, args)
        if rec_err:
            raise rec_err
        if not isinstance(self.meta, dict):
            raise ValueError(f"meta must be a dict, got {type(self.meta).__name__}")
        try:
            # A JSON round trip both checks that meta is saveable and detaches it from the caller.
            meta = json.loads(json.dumps(self.meta, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"meta must be JSON-serializable: {exc}") from None
        checked = {"kinds": kinds, "keys": keys, "args": args, "phases": phases,
                   "entry_bytes": int(eb), "meta": meta}
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.kinds)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return (self.phases == other.phases and self.entry_bytes == other.entry_bytes
                and self.meta == other.meta and np.array_equal(self.kinds, other.kinds)
                and np.array_equal(self.keys, other.keys) and np.array_equal(self.args, other.args))

    __hash__ = None  # type: ignore[assignment]  # holds arrays: equality only

    @property
    def value_bytes(self) -> int:
        return self.entry_bytes - 8

    def phase_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.phases)

    def _find_phase(self, name: str) -> Phase:
        for p in self.phases:
            if p.name == name:
                return p
        raise ValueError(f"phase {name!r} is not in the trace; its phases are {self.phase_names()}")

    def phase(self, name: str) -> Trace:
        """The records of phase ``name`` as a one-phase trace (same entry_bytes and meta)."""
        p = self._find_phase(name)
        s = slice(p.start, p.stop)
        return Trace(self.kinds[s], self.keys[s], self.args[s],
                     (Phase(name, 0, p.stop - p.start),), self.entry_bytes, self.meta)

    def counts(self) -> dict[str, int]:
        """Records per kind: ``{"put", "get", "zero", "range", "delete"}``."""
        c = np.bincount(self.kinds, minlength=N_KINDS)
        return {name: int(c[i]) for i, name in enumerate(KIND_NAMES)}


def build_trace(parts: Sequence[tuple[str, Any, Any, Any]], *, entry_bytes: int,
                meta: dict) -> Trace:
    """A trace with one phase per ``(name, kinds, keys, args)`` part, in order."""
    kinds, keys, args, phases = [], [], [], []
    for j, part in enumerate(parts):
        if not (isinstance(part, tuple) and len(part) == 4):
            raise ValueError(f"parts[{j}] must be a (name, kinds, keys, args) tuple")
        name = part[0]
        k = checked_array(f"parts[{j}].kinds", part[1], np.uint8)
        key = checked_array(f"parts[{j}].keys", part[2], np.uint64)
        a = checked_array(f"parts[{j}].args", part[3], np.uint64)
        if not len(k) == len(key) == len(a):
            raise ValueError(f"parts[{j}] ({name!r}): kinds, keys, args lengths differ")
        start = phases[-1].stop if phases else 0
        kinds.append(k)
        keys.append(key)
        args.append(a)
        phases.append(Phase(name, start, start + len(k)))
    return Trace(np.concatenate(kinds) if kinds else np.zeros(0, np.uint8),
                 np.concatenate(keys) if keys else np.zeros(0, np.uint64),
                 np.concatenate(args) if args else np.zeros(0, np.uint64),
                 tuple(phases), entry_bytes, meta)


# -- values --------------------------------------------------------------------------------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def value_for(keys: np.ndarray, value_bytes: int) -> np.ndarray:
    """The value a trace PUT writes for each key: (n, value_bytes) uint8.

    Word w (0-based) of the value of key k is splitmix64(k + (w + 1) * 0x9E3779B97F4A7C15)
    stored little-endian, truncated to value_bytes. Every byte depends on the whole key, so a
    value returned for the wrong key (or a torn value) is caught by comparison.
    """
    if isinstance(value_bytes, bool) or not isinstance(value_bytes, (int, np.integer)):
        raise ValueError(f"value_bytes must be an int, got {type(value_bytes).__name__}")
    if not 0 <= value_bytes <= MAX_ENTRY_BYTES:
        raise ValueError(f"value_bytes = {value_bytes} must be in [0, {MAX_ENTRY_BYTES}]")
    k = np.asarray(keys, dtype=np.uint64).reshape(-1)
    words = -(-int(value_bytes) // 8)
    steps = np.arange(1, words + 1, dtype=np.uint64) * _GOLDEN  # uint64 arrays wrap silently
    z = k[:, None] + steps[None, :]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z ^= z >> np.uint64(31)
    raw = z.astype("<u8", copy=False).view(np.uint8).reshape(len(k), words * 8)
    return np.ascontiguousarray(raw[:, :value_bytes])


# -- binary file format --------------------------------------------------------------------------
def _header(trace: Trace) -> bytes:
    head = {
        "version": FORMAT_VERSION,
        "records": len(trace),
        "entry_bytes": trace.entry_bytes,
        "phases": [{"name": p.name, "start": p.start, "stop": p.stop} for p in trace.phases],
        "meta": trace.meta,
    }
    return json.dumps(head, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _payload(trace: Trace) -> bytes:
    head = _header(trace)
    rec = np.empty(len(trace), dtype=RECORD_DTYPE)
    rec["kind"] = trace.kinds
    rec["key"] = trace.keys
    rec["arg"] = trace.args
    return struct.pack("<I", len(head)) + head + rec.tobytes()


def _text(trace: Trace) -> bytes:
    lines = ["# wacky trace (text): put KEY | get KEY | zero KEY | delete KEY | range LO HI",
             f"# entry_bytes={trace.entry_bytes}"]
    starts = {p.start: p.name for p in trace.phases}
    records = zip(trace.kinds.tolist(), trace.keys.tolist(), trace.args.tolist(), strict=True)
    for i, (k, key, a) in enumerate(records):
        if i in starts:
            lines.append(f"# phase {starts[i]}")
        lines.append(f"range {key} {a}" if k == OpKind.RANGE else f"{KIND_NAMES[k]} {key}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_trace(path: str | os.PathLike[str], trace: Trace, *, compress: bool = True,
                text: bool = False) -> int:
    """Save ``trace`` to ``path`` atomically (temp file in the same directory, then rename) and
    return the bytes written. Binary by default (an lz4 frame unless ``compress=False``);
    ``text=True`` writes the plain text format instead (phases and meta are not kept)."""
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace, got {type(trace).__name__}")
    if text:
        body = _text(trace)
        data = _lz4().compress(body, content_checksum=True) if compress else body
    else:
        payload = _payload(trace)
        body = _lz4().compress(payload, content_checksum=True) if compress else payload
        data = MAGIC + body
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    # Mode 0o666 less the umask, as for any other output file (mkstemp would give 0o600).
    tmp = os.path.join(directory, f".trace-{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return len(data)


def _int_field(head: dict, name: str, lo: int, hi: int) -> int:
    v = head.get(name)
    if isinstance(v, bool) or not isinstance(v, int):
        raise TraceError(f"header: {name!r} must be an integer, got {v!r}")
    if not lo <= v <= hi:
        raise TraceError(f"header: {name!r} = {v} must be in [{lo}, {hi}]")
    return v


def _parse_header(raw: bytes) -> tuple[int, int, tuple[Phase, ...], dict]:
    try:
        head = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceError(f"header: not valid UTF-8 JSON ({exc})") from None
    if not isinstance(head, dict):
        raise TraceError(f"header: must be a JSON object, got {type(head).__name__}")
    version = head.get("version")
    if version != FORMAT_VERSION:
        raise TraceError(f"header: unsupported version {version!r} (this reader knows 1)")
    n = _int_field(head, "records", 0, 2**62)
    entry_bytes = _int_field(head, "entry_bytes", MIN_ENTRY_BYTES, MAX_ENTRY_BYTES)
    raw_phases = head.get("phases")
    if not isinstance(raw_phases, list):
        raise TraceError(f"header: 'phases' must be a list, got {raw_phases!r}")
    phases = []
    for j, p in enumerate(raw_phases):
        ok = isinstance(p, dict) and isinstance(p.get("name"), str) and all(
            isinstance(p.get(f), int) and not isinstance(p.get(f), bool) for f in ("start", "stop"))
        if not ok:
            raise TraceError(f"header: phase {j} must be {{name: str, start: int, stop: int}}, "
                             f"got {p!r}")
        phases.append(Phase(p["name"], p["start"], p["stop"]))
    meta = head.get("meta", {})
    if not isinstance(meta, dict):
        raise TraceError(f"header: 'meta' must be an object, got {type(meta).__name__}")
    err = _phase_error(phases, n)
    if err:
        raise TraceError(f"header: {err}")
    return n, entry_bytes, tuple(phases), meta


def _parse_payload(payload: bytes | memoryview) -> Trace:
    """Parse an uncompressed payload (header length, header, records); offsets in messages are
    payload offsets."""
    payload = memoryview(payload)
    size = len(payload)
    if size < 4:
        raise TraceError(f"truncated in the header length ({size} of 4 bytes)")
    (hlen,) = struct.unpack_from("<I", payload, 0)
    if hlen > MAX_HEADER_BYTES:
        raise TraceError(f"header length {hlen} exceeds the limit {MAX_HEADER_BYTES} (corrupt?)")
    if size < 4 + hlen:
        raise TraceError(f"truncated in the header ({size - 4} of {hlen} header bytes)")
    n, entry_bytes, phases, meta = _parse_header(bytes(payload[4 : 4 + hlen]))
    body = payload[4 + hlen :]
    need = n * RECORD_BYTES
    if len(body) < need:
        first = len(body) // RECORD_BYTES
        part = len(body) % RECORD_BYTES
        what = f"partial ({part} of {RECORD_BYTES} bytes)" if part else "missing"
        raise TraceError(f"truncated: record {first} is {what}; the header says {n} records",
                         record=first)
    if len(body) > need:
        raise TraceError(f"trailing garbage: {len(body) - need} bytes after the last record "
                         f"(record {n - 1})" if n else
                         f"trailing garbage: {len(body)} bytes after the header", record=n)
    rec = np.frombuffer(body, dtype=RECORD_DTYPE, count=n)
    kinds, keys, args = rec["kind"], rec["key"], rec["arg"]
    # Check the records before building the Trace so errors carry the file's wording.
    err = _first_record_error(kinds, keys, args)
    if err:
        raise err
    return Trace(kinds, keys, args, phases, entry_bytes, meta)


def _decompress(data: bytes) -> tuple[bytes, bool]:
    """Decompress one lz4 frame; returns (output, complete). Corruption raises TraceError."""
    d = _lz4().LZ4FrameDecompressor()
    try:
        out = d.decompress(data)
    except RuntimeError as exc:
        raise TraceError(f"corrupt lz4 frame ({exc})") from None
    if d.eof and d.unused_data:
        raise TraceError(f"trailing garbage: {len(d.unused_data)} bytes after the lz4 frame")
    return out, bool(d.eof)


def _parse_binary(body: bytes) -> Trace:
    if body[:4] == LZ4_MAGIC:
        payload, complete = _decompress(body)
        if not complete:
            # Parse what did come out so the message can name the first missing record.
            try:
                _parse_payload(payload)
            except TraceError as exc:
                raise TraceError(f"lz4 frame is truncated; {exc}", record=exc.record) from None
            raise TraceError("lz4 frame is truncated (end mark or checksum missing)")
        return _parse_payload(payload)
    return _parse_payload(body)


_TEXT_OPS = {k.name.lower(): k for k in OpKind}  # put, get, zero, range, delete
_ENTRY_BYTES_RE = re.compile(r"#\s*entry_bytes\s*=\s*(\S+)\s*$")


def _parse_u64(tok: str, line: int, what: str) -> int:
    try:
        v = int(tok, 16) if tok[:2].lower() == "0x" else int(tok, 10)
    except ValueError:
        raise TraceError(f"line {line}: {what} {tok!r} is not a decimal or 0x-hex integer",
                         line=line) from None
    if not 0 <= v <= U64_MAX:
        raise TraceError(f"line {line}: {what} {tok} is not in [0, 2**64)", line=line)
    return v


def _parse_text(data: bytes) -> Trace:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"not a trace: no {MAGIC.decode()} magic, not lz4, and not UTF-8 "
                         "text") from None
    kinds: list[int] = []
    keys: list[int] = []
    args: list[int] = []
    live: set[int] = set()  # keys put and not since deleted: decides get -> GET or ZERO
    entry_bytes = DEFAULT_TEXT_ENTRY_BYTES
    for ln, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s:
            continue
        if s[0] == "#":
            m = _ENTRY_BYTES_RE.match(s)
            if m:
                if kinds:
                    raise TraceError(f"line {ln}: '# entry_bytes=' must come before the first "
                                     "operation", line=ln)
                v = m.group(1)
                if not v.isdigit() or not MIN_ENTRY_BYTES <= int(v) <= MAX_ENTRY_BYTES:
                    raise TraceError(f"line {ln}: entry_bytes {v!r} must be an integer in "
                                     f"[{MIN_ENTRY_BYTES}, {MAX_ENTRY_BYTES}]", line=ln)
                entry_bytes = int(v)
            continue
        tok = s.split("#", 1)[0].split()
        op = _TEXT_OPS.get(tok[0].lower())
        if op is None:
            raise TraceError(f"line {ln}: unknown operation {tok[0]!r} (valid: put, get, zero, "
                             "delete, range)", line=ln)
        want = 3 if op == OpKind.RANGE else 2
        if len(tok) != want:
            form = "range LO HI" if op == OpKind.RANGE else f"{tok[0].lower()} KEY"
            raise TraceError(f"line {ln}: expected '{form}', got {s!r}", line=ln)
        key = _parse_u64(tok[1], ln, "key" if want == 2 else "LO")
        arg = 0
        if op == OpKind.RANGE:
            arg = _parse_u64(tok[2], ln, "HI")
            if arg < key:
                raise TraceError(f"line {ln}: range HI {arg} < LO {key}", line=ln)
        elif op == OpKind.PUT:
            live.add(key)
        elif op == OpKind.DELETE:
            live.discard(key)
        elif op == OpKind.GET and key not in live:
            op = OpKind.ZERO
        kinds.append(op)
        keys.append(key)
        args.append(arg)
    return Trace(np.array(kinds, dtype=np.uint8), np.array(keys, dtype=np.uint64),
                 np.array(args, dtype=np.uint64), (Phase("trace", 0, len(kinds)),), entry_bytes,
                 {"format": "text"})


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Load a trace file: binary (lz4-compressed or raw) or plain text (optionally inside an lz4
    frame). The whole file is validated; any problem raises TraceError naming the file and the
    offending record (binary, 0-based) or line (text, 1-based)."""
    where = os.fspath(path)
    with open(where, "rb") as f:
        data = f.read()
    try:
        if not data:
            raise TraceError("empty file (not a trace)")
        if data[: len(MAGIC)] == MAGIC:
            return _parse_binary(data[len(MAGIC) :])
        if data and len(data) < len(MAGIC) and MAGIC.startswith(data):
            raise TraceError(f"truncated in the magic ({len(data)} of {len(MAGIC)} bytes)")
        if data[:7] == MAGIC[:7]:
            raise TraceError(f"bad magic {data[:8]!r}: unsupported trace format (this reader "
                             f"knows {MAGIC!r})")
        if data[:4] == LZ4_MAGIC:
            out, complete = _decompress(data)
            if not complete:
                raise TraceError("lz4 frame is truncated")
            if out[: len(MAGIC)] == MAGIC:
                # A whole binary trace compressed with the lz4 tool: accept it too.
                return _parse_binary(out[len(MAGIC) :])
            return _parse_text(out)
        return _parse_text(data)
    except TraceError as exc:
        raise _located(exc, where) from None


# -- fractions -----------------------------------------------------------------------------------
def warmup_phase(name: str) -> str | None:
    """What a phase named ``name`` is, when it is not the workload: "load" (the phase named
    ``load``: the data the operations find) or "warm_up" (``fill`` and names starting with
    ``warm``: the inserts a validation makes before its measured window); None otherwise."""
    if name == "load":
        return "load"
    if name == "fill" or name.startswith("warm"):
        return "warm_up"
    return None


def left_out(trace: Trace) -> dict[str, int]:
    """The records :func:`operations_mask` leaves out of the workload: ``{"load": n,
    "warm_up": n}`` (both 0 when that would leave nothing, and every record is used)."""
    out = {"load": 0, "warm_up": 0}
    for p in trace.phases:
        what = warmup_phase(p.name)
        if what is not None:
            out[what] += p.stop - p.start
    if sum(out.values()) == len(trace):
        return {"load": 0, "warm_up": 0}
    return out


def operations_mask(trace: Trace) -> np.ndarray:
    """The records that are the workload: every record outside the load and the warm-up
    (phases named ``load``, ``fill`` or ``warm...``, :func:`warmup_phase`) if there are any,
    else all records."""
    mask = np.ones(len(trace), dtype=bool)
    for p in trace.phases:
        if warmup_phase(p.name) is not None:
            mask[p.start : p.stop] = False
    if not mask.any():
        mask[:] = True
    return mask


def trace_fractions(trace: Trace, phase: str | None = None) -> dict[str, float | int]:
    """The workload mix of one phase (default: every record outside the load and the warm-up,
    :func:`operations_mask`): fractions ``point_reads`` (GET), ``zero_reads`` (ZERO),
    ``writes`` (PUT + DELETE), ``range_reads`` (RANGE) summing to 1; ``range_span``, the mean
    number of keys each range covers (HI - LO + 1; 0.0 without ranges); ``operations``."""
    if phase is not None:
        p = trace._find_phase(phase)
        rows, label = slice(p.start, p.stop), f"phase {phase!r}"
    else:
        rows, label = operations_mask(trace), "trace"
    kinds, keys, args = trace.kinds[rows], trace.keys[rows], trace.args[rows]
    n = len(kinds)
    if n == 0:
        raise TraceError(f"{label} has no operations; fractions are undefined")
    c = np.bincount(kinds, minlength=N_KINDS)
    ranges = kinds == OpKind.RANGE
    # HI - LO is exact in uint64; the +1 goes in float so a full-key-space range cannot wrap.
    spans = (args[ranges] - keys[ranges]).astype(np.float64) + 1.0
    return {
        "point_reads": float(c[OpKind.GET] / n),
        "zero_reads": float(c[OpKind.ZERO] / n),
        "writes": float((c[OpKind.PUT] + c[OpKind.DELETE]) / n),
        "range_reads": float(c[OpKind.RANGE] / n),
        "range_span": float(spans.mean()) if spans.size else 0.0,
        "operations": int(n),
    }
