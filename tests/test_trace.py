"""Traces: the file formats (wacky_traces), their error reporting and replay (validation.replay).
The generators that make the traces are tested in test_generators.py."""

from __future__ import annotations

import json
import os
import struct
import tempfile

import lz4.frame
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_engine import Engine
from validation.generators import load_trace, read_ops
from validation.replay import replay
from wacky_traces import (
    LZ4_MAGIC,
    MAGIC,
    OpKind,
    Phase,
    Trace,
    TraceError,
    build_trace,
    read_trace,
    trace_fractions,
    value_for,
    write_trace,
)

EB = 32  # entry_bytes of the test engines: 24-byte values
SMALL = dict(T=4, C=3, entry_bytes=EB, block_bytes=256, buffer_bytes=1024, bits_per_entry=8)
P, G, Z, R, D = (int(k) for k in OpKind)
U64 = 2**64 - 1


def new_engine(path) -> Engine:
    return Engine(path, **SMALL)


@pytest.fixture
def engine(tmp_path):
    e = new_engine(tmp_path / "db")
    yield e
    e.close()


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


@pytest.fixture(scope="module")
def trace() -> Trace:
    return make_trace()


def io_table(result) -> dict:
    """The deterministic part of a replay result (everything but seconds)."""
    return {
        (ph, kind): (t.count, t.blocks_read, t.blocks_written, t.runs_probed, t.entries_returned)
        for ph, kinds in result.phases.items()
        for kind, t in kinds.items()
    }


def untouched(engine: Engine, before: dict, keys: np.ndarray) -> None:
    assert engine.stats()["total"] == before["total"]
    assert engine.stats()["puts"] == before["puts"] == 0
    _, found = engine.get_many(keys)
    assert not found.any()


# -- values -----------------------------------------------------------------------------------
def test_value_for_is_deterministic_and_key_specific() -> None:
    keys = np.array([0, 1, 2, U64, 12345], dtype=np.uint64)
    v = value_for(keys, 20)
    assert v.shape == (5, 20) and v.dtype == np.uint8 and v.flags.c_contiguous
    assert np.array_equal(v, value_for(keys.copy(), 20))
    assert len({bytes(row) for row in v}) == 5
    assert np.array_equal(value_for(keys, 8), v[:, :8])  # a prefix of longer values

    # Pin the documented formula: word w = splitmix64(key + (w + 1) * golden), little-endian.
    def splitmix(x: int) -> int:
        m = 2**64 - 1
        x &= m
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
        return x ^ (x >> 31)

    key = 12345
    want = b"".join(
        splitmix(key + (w + 1) * 0x9E3779B97F4A7C15).to_bytes(8, "little") for w in range(3)
    )[:20]
    assert bytes(v[4]) == want
    with pytest.raises(ValueError, match="value_bytes"):
        value_for(keys, -1)


# -- the Trace object ----------------------------------------------------------------------------
def test_trace_construction_validates() -> None:
    k = np.array([P, G, R], np.uint8)
    keys = np.array([1, 1, 5], np.uint64)
    args = np.array([0, 0, 9], np.uint64)
    t = Trace(k, keys, args, (Phase("a", 0, 1), Phase("b", 1, 3)), EB, {"x": 1})
    assert len(t) == 3 and t.counts()["range"] == 1
    assert not t.keys.flags.writeable
    keys[0] = 99  # the trace holds its own copy
    assert t.keys[0] == 1
    assert t.phase("b") == Trace(
        k[1:], np.array([1, 5], np.uint64), args[1:], (Phase("b", 0, 2),), EB, {"x": 1}
    )
    with pytest.raises(ValueError, match="phase 'c' is not in the trace"):
        t.phase("c")
    with pytest.raises(TraceError, match="record 2: range upper bound 4 < lower bound 5") as e:
        Trace(
            k,
            np.array([1, 1, 5], np.uint64),
            np.array([0, 0, 4], np.uint64),
            (Phase("a", 0, 3),),
            EB,
        )
    assert e.value.record == 2
    with pytest.raises(TraceError, match="record 1: unknown kind 7"):
        Trace(np.array([P, 7, 9], np.uint8), keys, np.zeros(3, np.uint64), (Phase("a", 0, 3),), EB)
    with pytest.raises(TraceError, match="record 0: non-zero arg 3 on a put"):
        Trace(k, keys, np.array([3, 0, 9], np.uint64), (Phase("a", 0, 3),), EB)
    with pytest.raises(TraceError, match="phases end at record 2"):
        Trace(k, keys, args, (Phase("a", 0, 2),), EB)
    with pytest.raises(TraceError, match="starts at record 2, expected 1"):
        Trace(k, keys, args, (Phase("a", 0, 1), Phase("b", 2, 3)), EB)
    with pytest.raises(TraceError, match="duplicate name"):
        Trace(k, keys, args, (Phase("a", 0, 1), Phase("a", 1, 3)), EB)
    with pytest.raises(ValueError, match=r"entry_bytes = 8 must be in \[9, "):
        Trace(k, keys, args, (Phase("a", 0, 3),), 8)
    with pytest.raises(ValueError, match="same length"):
        Trace(k, keys[:2], args, (Phase("a", 0, 3),), EB)
    with pytest.raises(ValueError, match="JSON"):
        Trace(k, keys, args, (Phase("a", 0, 3),), EB, {"x": object()})
    with pytest.raises(ValueError, match="keys must be >= 0"):
        Trace(k, np.array([-1, 1, 5]), args, (Phase("a", 0, 3),), EB)


def test_trace_fractions_on_known_counts() -> None:
    mix_kinds = np.array([P, P, G, G, G, Z, R, R, D, D], np.uint8)
    mix_keys = np.array([1, 2, 1, 2, 1, 50, 0, 5, 1, 2], np.uint64)
    mix_args = np.array([0, 0, 0, 0, 0, 0, 9, 24, 0, 0], np.uint64)
    t = build_trace(
        [
            ("load", np.zeros(5, np.uint8), np.arange(5, dtype=np.uint64), np.zeros(5, np.uint64)),
            ("mix", mix_kinds, mix_keys, mix_args),
        ],
        entry_bytes=EB,
        meta={},
    )
    f = trace_fractions(t)
    assert f == {
        "point_reads": 0.3,
        "zero_reads": 0.1,
        "writes": 0.4,
        "range_reads": 0.2,
        "range_span": 15.0,
        "operations": 10,
    }
    assert trace_fractions(t, "mix") == f
    assert trace_fractions(t, "load") == {
        "point_reads": 0.0,
        "zero_reads": 0.0,
        "writes": 1.0,
        "range_reads": 0.0,
        "range_span": 0.0,
        "operations": 5,
    }
    assert trace_fractions(t.phase("load"))["writes"] == 1.0  # only a load: use it
    full = Trace(
        np.array([R], np.uint8),
        np.array([0], np.uint64),
        np.array([U64], np.uint64),
        (Phase("x", 0, 1),),
        EB,
    )
    assert trace_fractions(full)["range_span"] == 2.0**64  # no wrap-around
    empty = build_trace(
        [("load", *(np.zeros(0, np.uint8),) * 3), ("mix", *(np.zeros(0),) * 3)],
        entry_bytes=EB,
        meta={},
    )
    with pytest.raises(TraceError, match="no operations"):
        trace_fractions(empty, "mix")
    with pytest.raises(ValueError, match="'nope' is not in the trace"):
        trace_fractions(t, "nope")


# -- files: round trips --------------------------------------------------------------------------
def test_round_trip_compressed_and_raw(tmp_path, trace) -> None:
    for compress in (True, False):
        path = tmp_path / f"t{compress}.wt"
        n = write_trace(path, trace, compress=compress)
        data = path.read_bytes()
        assert n == len(data)
        assert data[:8] == MAGIC
        assert (data[8:12] == LZ4_MAGIC) == compress
        back = read_trace(path)
        assert back == trace
        assert back.meta == {"design": {"T": 4}, "seed": 7}
    assert os.path.getsize(tmp_path / "tTrue.wt") < os.path.getsize(tmp_path / "tFalse.wt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tFalse.wt", "tTrue.wt"]  # no temps


def test_binary_layout_matches_the_documented_example(tmp_path) -> None:
    t = Trace(
        np.array([P, R], np.uint8),
        np.array([5, 0x10], np.uint64),
        np.array([0, 0x20], np.uint64),
        (Phase("mix", 0, 2),),
        24,
        {"seed": 1},
    )
    write_trace(tmp_path / "ex.wt", t, compress=False)
    head = (
        b'{"version":1,"records":2,"entry_bytes":24,'
        b'"phases":[{"name":"mix","start":0,"stop":2}],"meta":{"seed":1}}'
    )
    want = (
        MAGIC
        + struct.pack("<I", len(head))
        + head
        + bytes([0])
        + (5).to_bytes(8, "little")
        + bytes(8)
        + bytes([3])
        + (0x10).to_bytes(8, "little")
        + (0x20).to_bytes(8, "little")
    )
    assert (tmp_path / "ex.wt").read_bytes() == want
    # The compressed form is the same payload inside one lz4 frame.
    write_trace(tmp_path / "ex.lz", t)
    data = (tmp_path / "ex.lz").read_bytes()
    assert data[:8] == MAGIC and lz4.frame.decompress(data[8:]) == want[8:]


def test_round_trip_text(tmp_path, trace) -> None:
    for compress in (False, True):
        path = tmp_path / f"t{compress}.txt"
        write_trace(path, trace, text=True, compress=compress)
        assert (path.read_bytes()[:4] == LZ4_MAGIC) == compress
        back = read_trace(path)
        assert np.array_equal(back.kinds, trace.kinds)  # every GET here follows its PUT
        assert np.array_equal(back.keys, trace.keys)
        assert np.array_equal(back.args, trace.args)
        assert back.phases == (Phase("trace", 0, len(trace)),)
        assert back.entry_bytes == EB


def test_text_format_and_get_classification(tmp_path) -> None:
    text = """# my trace
# entry_bytes=40

put 5
get 5          # present -> GET
get 6
GET 0x5
delete 5
get 5
zero 5
put 0x10
get 16
range 3 0x20
range 7 7
"""
    path = tmp_path / "ops.txt"
    path.write_text(text)
    t = read_trace(path)
    assert t.entry_bytes == 40 and t.phases == (Phase("trace", 0, 11),)
    assert t.kinds.tolist() == [P, G, Z, G, D, Z, Z, P, G, R, R]
    assert t.keys.tolist() == [5, 5, 6, 5, 5, 5, 5, 16, 16, 3, 7]
    assert t.args.tolist() == [0] * 9 + [32, 7]
    assert read_trace(path).entry_bytes == 40
    (tmp_path / "plain.txt").write_text("put 1\nget 1\n")
    assert read_trace(tmp_path / "plain.txt").entry_bytes == 128  # the default
    (tmp_path / "ops.txt.lz4").write_bytes(lz4.frame.compress(text.encode()))
    assert read_trace(tmp_path / "ops.txt.lz4") == t


@pytest.mark.parametrize(
    "body, line, match",
    [
        ("put 1\nget 1\nscan 1 2\n", 3, "unknown operation 'scan'"),
        ("put 1\n\n# c\nrange 9 3\n", 4, "range HI 3 < LO 9"),
        ("put 12x\n", 1, "key '12x' is not a decimal or 0x-hex integer"),
        (
            "put 1\nget 18446744073709551616\n",
            2,
            r"key 18446744073709551616 is not in \[0, 2\*\*64\)",
        ),
        ("put -1\n", 1, r"key -1 is not in \[0, 2\*\*64\)"),
        ("put 1 2\n", 1, "expected 'put KEY'"),
        ("range 1\n", 1, "expected 'range LO HI'"),
        ("put 1\n# entry_bytes=64\n", 2, "'# entry_bytes=' must come before the first operation"),
        ("# entry_bytes=4\n", 1, "entry_bytes '4' must be an integer in"),
    ],
)
def test_text_errors_name_the_line(tmp_path, body, line, match) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(body)
    with pytest.raises(TraceError, match=f"bad.txt: line {line}: {match}") as e:
        read_trace(path)
    assert e.value.line == line


# -- files: malformed ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small() -> Trace:
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


def raw_bytes(tmp_path, t: Trace) -> tuple[bytes, int]:
    """The uncompressed file and the file offset of record 0."""
    write_trace(tmp_path / "raw.wt", t, compress=False)
    data = (tmp_path / "raw.wt").read_bytes()
    (hlen,) = struct.unpack_from("<I", data, 8)
    return data, 12 + hlen


def check_rejected(path, engine, trace, match, record=None) -> None:
    """read + replay raises naming the file (and record); the engine saw nothing."""
    before = engine.stats()
    with pytest.raises(TraceError, match=match) as e:
        replay(engine, read_trace(path))
    assert str(path) in str(e.value)
    if record is not None:
        assert e.value.record == record
    untouched(engine, before, trace.keys)


def test_truncations_name_the_first_missing_record(tmp_path, engine, small) -> None:
    data, rec0 = raw_bytes(tmp_path, small)
    n = len(small)
    assert len(data) == rec0 + 17 * n
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
    for cut, match, record in cases:
        path = tmp_path / f"cut{cut}.wt"
        path.write_bytes(data[:cut])
        check_rejected(path, engine, small, match, record)
        # The same payload, cut the same way, inside a complete lz4 frame.
        if cut > 8:
            path.write_bytes(MAGIC + lz4.frame.compress(data[8:cut]))
            check_rejected(path, engine, small, match, record)


def test_truncated_lz4_frame(tmp_path, engine) -> None:
    big = load_trace(20000, entry_bytes=EB, seed=2)  # several lz4 blocks
    write_trace(tmp_path / "c.wt", big)
    data = (tmp_path / "c.wt").read_bytes()
    for cut in (14, len(data) // 2, len(data) - 2):
        path = tmp_path / f"c{cut}.wt"
        path.write_bytes(data[:cut])
        check_rejected(path, engine, big, "lz4 frame is truncated")
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceError, match=r"record \d+ is (missing|partial)"):
        read_trace(path)


def patched(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new) :]


def test_bad_records_are_named(tmp_path, engine, small) -> None:
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
    for j, (bad, match, record) in enumerate(cases):
        for compress in (False, True):
            path = tmp_path / f"bad{j}{compress}.wt"
            path.write_bytes(MAGIC + lz4.frame.compress(bad[8:]) if compress else bad)
            check_rejected(path, engine, small, match, record)


def test_bad_framing(tmp_path, engine, small) -> None:
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
    for name, (bad, match) in cases.items():
        path = tmp_path / f"{name}.wt"
        path.write_bytes(bad)
        check_rejected(path, engine, small, match)


def test_wrong_entry_bytes_applies_nothing(tmp_path, small) -> None:
    with Engine(tmp_path / "db", **{**SMALL, "entry_bytes": 40}) as e:
        before = e.stats()
        with pytest.raises(TraceError, match="entry_bytes=32 .* engine stores values of 32"):
            replay(e, small)
        untouched(e, before, small.keys)


# -- replay --------------------------------------------------------------------------------------
def test_replay_generated_trace(tmp_path, trace) -> None:
    calls: list[tuple[int, int]] = []
    with new_engine(tmp_path / "db") as e:
        r = replay(e, trace, progress=lambda d, t: calls.append((d, t)))
        stats = e.stats()
    assert r.ok and r.get_misses == r.zero_hits == r.wrong_values == 0
    assert r.records == len(trace)
    for p in trace.phases:
        want = {k: c for k, c in trace.phase(p.name).counts().items() if c}
        assert {k: t.count for k, t in r.phases[p.name].items()} == want
    assert (
        sum(t.blocks_written for kinds in r.phases.values() for t in kinds.values())
        == stats["total"]["blocks_written"]
    )
    assert (
        sum(t.blocks_read for kinds in r.phases.values() for t in kinds.values())
        == stats["total"]["blocks_read"]
    )
    load_put = r.phases["load"]["put"]
    assert load_put.blocks_written > 0 and load_put.write_per_op > 0
    rng = r.phases["reads"]["range"]
    assert rng.entries_returned > rng.count and rng.runs_probed >= rng.count
    assert r.phases["reads"]["get"].read_per_op > 0
    assert r.phases["reads"]["get"].io_per_op == pytest.approx(
        r.phases["reads"]["get"].read_per_op + r.phases["reads"]["get"].write_per_op
    )
    d = r.to_dict()
    assert d["ok"] is True and d["phases"]["drop"]["delete"]["count"] == 40
    json.dumps(d)
    # progress: increasing, about every 1%, ending at (total, total)
    done = [c[0] for c in calls]
    assert done == sorted(set(done)) and calls[-1] == (len(trace), len(trace))
    assert 10 <= len(calls) <= 102


def test_replay_from_file_is_deterministic(tmp_path, trace) -> None:
    with new_engine(tmp_path / "a") as e:
        first = replay(e, trace)
    write_trace(tmp_path / "t.wt", trace)
    with new_engine(tmp_path / "b") as e:
        second = replay(e, read_trace(tmp_path / "t.wt"))
    assert io_table(first) == io_table(second)
    assert second.ok


def test_replay_selected_phases(tmp_path, trace) -> None:
    with new_engine(tmp_path / "db") as e:
        r = replay(e, trace, phases=["load"])
        assert list(r.phases) == ["load"] and e.stats()["puts"] == 400
        r2 = replay(e, trace, phases=["reads"])
        assert list(r2.phases) == ["reads"] and r2.ok
        with pytest.raises(ValueError, match="'mixx' is not in the trace"):
            replay(e, trace, phases=["mixx"])


def test_replay_counts_wrong_answers(tmp_path) -> None:
    keys = np.array([10, 20, 30], np.uint64)
    with new_engine(tmp_path / "db") as e:
        e.put_many(keys, value_for(keys, 24))
        e.put(20, b"x" * 24)  # a value the trace would not have written
        t = Trace(
            np.array([G, G, G, Z, Z, R], np.uint8),
            np.array([10, 20, 99, 30, 98, 0], np.uint64),
            np.array([0, 0, 0, 0, 0, 100], np.uint64),
            (Phase("check", 0, 6),),
            EB,
        )
        r = replay(e, t)
    assert (r.get_misses, r.zero_hits, r.wrong_values) == (1, 1, 2)  # 20 read twice
    assert not r.ok and r.phases["check"]["range"].entries_returned == 3


# -- property ------------------------------------------------------------------------------------
op = st.one_of(
    st.tuples(st.sampled_from([P, G, Z, D]), st.integers(0, U64), st.just(0)),
    st.integers(0, U64).flatmap(
        lambda lo: st.tuples(st.just(R), st.just(lo), st.integers(lo, U64))
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(op, max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=3),
    entry_bytes=st.integers(9, 4096),
    meta=st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
    compress=st.booleans(),
)
def test_round_trip_property(ops, cuts, entry_bytes, meta, compress) -> None:
    n = len(ops)
    bounds = sorted({min(c, n) for c in cuts} | {0, n})
    phases = tuple(
        Phase(f"p{i}", a, b) for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))
    )
    if n == 0:
        phases = (Phase("p0", 0, 0),)
    t = Trace(
        np.array([o[0] for o in ops], np.uint8),
        np.array([o[1] for o in ops], np.uint64),
        np.array([o[2] for o in ops], np.uint64),
        phases,
        entry_bytes,
        meta,
    )
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.wt")
        size = write_trace(path, t, compress=compress)
        assert size == os.path.getsize(path)
        assert read_trace(path) == t
        write_trace(path, t, text=True, compress=compress)
        back = read_trace(path)
    assert np.array_equal(back.keys, t.keys) and np.array_equal(back.args, t.args)
    # Text cannot say "GET": a get is GET exactly when the key is live at that point.
    live: set[int] = set()
    for (k, key, _), got in zip(ops, back.kinds.tolist(), strict=True):
        if k == G:  # written as "get"; "zero" stays ZERO
            assert got == (G if key in live else Z)
        else:
            assert got == k
        if k == P:
            live.add(key)
        elif k == D:
            live.discard(key)


def test_batch_size_does_not_change_results(tmp_path, trace, monkeypatch) -> None:
    with new_engine(tmp_path / "a") as e:
        whole = replay(e, trace)
    # Tiny chunks: PUT/GET runs split across many calls and value windows.
    monkeypatch.setattr("validation.replay.PUT_CHUNK", 7)
    with new_engine(tmp_path / "b") as e:
        chunked = replay(e, trace)
    assert chunked.ok and io_table(chunked) == io_table(whole)


def test_lz4_wrapped_binary_and_documented_value(tmp_path, small) -> None:
    write_trace(tmp_path / "raw.wt", small, compress=False)
    wrapped = lz4.frame.compress((tmp_path / "raw.wt").read_bytes())
    (tmp_path / "w.wt.lz4").write_bytes(wrapped)
    assert read_trace(tmp_path / "w.wt.lz4") == small
    # docs/TRACES.md quotes these bytes.
    assert bytes(value_for(np.array([5], np.uint64), 16)).hex(" ") == (
        "5a c3 89 a3 0c 3b 03 63 f8 36 97 93 4d 31 97 c0"
    )


def test_reading_trace_types_loads_no_codec(tmp_path) -> None:
    """lz4 loads on the first compressed file, not with the package; files still round-trip."""
    import subprocess
    import sys

    path = tmp_path / "t.lz4"
    code = (
        "import sys, numpy as np, wacky_traces as t\n"
        "assert 'lz4' not in sys.modules\n"
        "tr = t.build_trace([('p', np.zeros(3, np.uint8), np.arange(3, dtype=np.uint64), "
        "np.zeros(3, np.uint64))], entry_bytes=32, meta={})\n"
        f"t.write_trace({str(path)!r}, tr)\n"
        f"assert t.read_trace({str(path)!r}) == tr and 'lz4' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert path.read_bytes()[len(MAGIC):][:4] == LZ4_MAGIC


def test_trace_files_get_the_mode_of_other_outputs(tmp_path, trace) -> None:
    path, other = tmp_path / "run.lz4", tmp_path / "report.html"
    write_trace(path, trace)
    other.write_text("x")
    assert path.stat().st_mode & 0o777 == other.stat().st_mode & 0o777
