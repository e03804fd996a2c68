"""Sample traces and malformed trace files shared by test_trace_format.py and test_replay.py.

Not a test module: it builds the inputs, the tests decide what must happen to them.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import lz4.frame
import numpy as np

from validation.generators import load_trace, read_ops
from wacky_traces import MAGIC, OpKind, Trace, build_trace, write_trace

EB = 32  # entry_bytes of the sample traces (and of the test engines): 24-byte values
P, G, Z, R, D = (int(k) for k in OpKind)
U64 = 2**64 - 1

# (file, the message its rejection must match, the record it must name or None)
Malformed = tuple[Path, str, int | None]


def make_trace(n_load: int = 400, seed: int = 7) -> Trace:
    """load, then reads, then a mix with puts, then deletes followed by zero-reads of them."""
    load = load_trace(n_load, entry_bytes=EB, seed=seed)
    pool = load.keys[: n_load * 3 // 4]
    reads = read_ops(
        load.keys,
        n=300,
        get_pool=pool,
        fractions={"get": 0.5, "zero": 0.3, "range": 0.2},
        range_entries=6,
        seed=seed + 1,
    )
    mix = read_ops(
        load.keys,
        n=300,
        get_pool=pool,
        fractions={"get": 0.3, "zero": 0.2, "range": 0.1, "put": 0.4},
        range_entries=6,
        seed=seed + 2,
    )
    gone = load.keys[n_load * 3 // 4 :][:40]  # not in the get pool, so later GETs stay valid
    drop = (
        np.r_[np.full(len(gone), D), np.full(len(gone), Z)].astype(np.uint8),
        np.r_[gone, gone],
        np.zeros(2 * len(gone), np.uint64),
    )
    return build_trace(
        [
            ("load", load.kinds, load.keys, load.args),
            ("reads", *reads),
            ("mix", *mix),
            ("drop", *drop),
        ],
        entry_bytes=EB,
        meta={"design": {"T": 4}, "seed": seed},
    )


def make_small() -> Trace:
    """50 records: a load of 30 keys, then 20 reads (gets, zero-result reads, ranges)."""
    load = load_trace(30, entry_bytes=EB, seed=11)
    reads = read_ops(
        load.keys,
        n=20,
        get_pool=load.keys,
        fractions={"get": 0.5, "zero": 0.25, "range": 0.25},
        range_entries=3,
        seed=1,
    )
    return build_trace(
        [("load", load.kinds, load.keys, load.args), ("reads", *reads)],
        entry_bytes=EB,
        meta={"k": "v"},
    )


def raw_bytes(tmp_path: Path, t: Trace) -> tuple[bytes, int]:
    """The uncompressed file and the file offset of record 0."""
    write_trace(tmp_path / "raw.wt", t, compress=False)
    data = (tmp_path / "raw.wt").read_bytes()
    (hlen,) = struct.unpack_from("<I", data, 8)
    return data, 12 + hlen


def patched(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new) :]


def truncated_files(tmp_path: Path, small: Trace) -> list[Malformed]:
    """``small`` cut short at every interesting place, raw and inside a complete lz4 frame."""
    data, rec0 = raw_bytes(tmp_path, small)
    cases = [
        (3, "truncated in the magic", None),
        (10, "truncated in the header length", None),
        (rec0 - 5, "truncated in the header", None),
        (rec0, "record 0 is missing; the header says 50 records", 0),
        (rec0 + 17 * 7, "record 7 is missing", 7),
        (rec0 + 17 * 7 + 1, r"record 7 is partial \(1 of 17 bytes\)", 7),
        (rec0 + 17 * 31 + 9, r"record 31 is partial \(9 of 17 bytes\)", 31),
        (len(data) - 1, r"record 49 is partial \(16 of 17 bytes\)", 49),
    ]
    out: list[Malformed] = []
    for cut, match, record in cases:
        path = tmp_path / f"cut{cut}.wt"
        path.write_bytes(data[:cut])
        out.append((path, match, record))
        # The same payload, cut the same way, inside a complete lz4 frame.
        if cut > 8:
            path = tmp_path / f"cut{cut}.lz.wt"
            path.write_bytes(MAGIC + lz4.frame.compress(data[8:cut]))
            out.append((path, match, record))
    return out


def truncated_lz4_files(tmp_path: Path) -> tuple[Trace, list[Malformed]]:
    """A trace spanning several lz4 blocks, and its compressed file cut inside the frame."""
    big = load_trace(20000, entry_bytes=EB, seed=2)
    write_trace(tmp_path / "c.wt", big)
    data = (tmp_path / "c.wt").read_bytes()
    out: list[Malformed] = []
    for cut in (14, len(data) // 2, len(data) - 2):
        path = tmp_path / f"c{cut}.wt"
        path.write_bytes(data[:cut])
        out.append((path, "lz4 frame is truncated", None))
    return big, out


def bad_record_files(tmp_path: Path, small: Trace) -> list[Malformed]:
    """``small`` with bad records patched in, raw and compressed."""
    data, rec0 = raw_bytes(tmp_path, small)
    ranges = np.flatnonzero(small.kinds == R)
    rk = int(ranges[1])
    nonrange = int(np.flatnonzero(small.kinds == G)[2])
    cases = [
        (patched(data, rec0 + 17 * 12, b"\x09"), "record 12: unknown kind 9", 12),
        (
            patched(data, rec0 + 17 * rk + 9, int(small.keys[rk] - 1).to_bytes(8, "little")),
            f"record {rk}: range upper bound {int(small.keys[rk]) - 1} < lower bound",
            rk,
        ),
        (
            patched(data, rec0 + 17 * nonrange + 9, (3).to_bytes(8, "little")),
            f"record {nonrange}: non-zero arg 3 on a get",
            nonrange,
        ),
        # Two faults: the first record is the one named.
        (
            patched(patched(data, rec0 + 17 * 40, b"\x05"), rec0 + 17 * 3, b"\x06"),
            "record 3: unknown kind 6",
            3,
        ),
    ]
    out: list[Malformed] = []
    for j, (bad, match, record) in enumerate(cases):
        for compress in (False, True):
            path = tmp_path / f"bad{j}{compress}.wt"
            path.write_bytes(MAGIC + lz4.frame.compress(bad[8:]) if compress else bad)
            out.append((path, match, record))
    return out


def bad_framing_files(tmp_path: Path, small: Trace) -> list[Malformed]:
    """``small`` with a bad magic, header, frame or tail."""
    data, rec0 = raw_bytes(tmp_path, small)
    write_trace(tmp_path / "c.wt", small)
    comp = (tmp_path / "c.wt").read_bytes()
    corrupt = bytearray(comp)
    corrupt[len(comp) // 2] ^= 0x5A

    def with_header(head: dict | bytes) -> bytes:
        raw = head if isinstance(head, bytes) else json.dumps(head).encode()
        return MAGIC + struct.pack("<I", len(raw)) + raw + data[rec0:]

    good_head = json.loads(data[12:rec0])
    cases = {
        "trailing": (data + b"xyz", "trailing garbage: 3 bytes after the last record"),
        "lztrail": (comp + b"xyz", "trailing garbage: 3 bytes after the lz4 frame"),
        "magic": (b"WACKYTR2" + data[8:], "bad magic"),
        "binary": (b"\xff\xfe\x00" + data, "not a trace"),
        "lz4": (bytes(corrupt), "corrupt lz4 frame"),
        "json": (with_header(b"{not json"), "header: not valid UTF-8 JSON"),
        "version": (with_header({**good_head, "version": 2}), "unsupported version 2"),
        "hlen": (MAGIC + struct.pack("<I", 1 << 30) + data[12:], "header length"),
        "phases": (
            with_header({**good_head, "phases": [{"name": "a", "start": 0, "stop": 10}]}),
            "phases end at record 10, but there are 50 records",
        ),
        "gap": (
            with_header(
                {
                    **good_head,
                    "phases": [
                        {"name": "a", "start": 0, "stop": 10},
                        {"name": "b", "start": 11, "stop": 50},
                    ],
                }
            ),
            "starts at record 11, expected 10",
        ),
        "eb": (with_header({**good_head, "entry_bytes": 3}), r"'entry_bytes' = 3 must be in"),
        "empty": (b"", "empty file"),
    }
    out: list[Malformed] = []
    for name, (bad, match) in cases.items():
        path = tmp_path / f"{name}.wt"
        path.write_bytes(bad)
        out.append((path, match, None))
    return out
