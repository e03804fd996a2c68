"""The trace type and its file formats (wacky_traces): construction, round trips, the
documented layout, and the errors a malformed file gets. No engine here: replaying traces is
tested in test_replay.py, the generators in test_generators.py."""

from __future__ import annotations

import os
import struct
import tempfile

import lz4.frame
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_samples import (
    EB,
    U64,
    D,
    G,
    Malformed,
    P,
    R,
    Z,
    bad_framing_files,
    bad_record_files,
    raw_bytes,
    truncated_files,
    truncated_lz4_files,
)

from wacky_traces import (
    LZ4_MAGIC,
    MAGIC,
    Phase,
    Trace,
    TraceError,
    build_trace,
    read_trace,
    trace_fractions,
    value_for,
    write_trace,
)


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
# Reading refuses the whole file, naming it (and the first bad record); test_replay.py checks the
# same files never reach an engine.
def check_rejected(cases: list[Malformed]) -> None:
    for path, match, record in cases:
        with pytest.raises(TraceError, match=match) as e:
            read_trace(path)
        assert str(path) in str(e.value)
        if record is not None:
            assert e.value.record == record


def test_truncations_name_the_first_missing_record(tmp_path, small) -> None:
    data, rec0 = raw_bytes(tmp_path, small)
    assert len(data) == rec0 + 17 * len(small)
    check_rejected(truncated_files(tmp_path, small))


def test_truncated_lz4_frame(tmp_path) -> None:
    _, cases = truncated_lz4_files(tmp_path)
    check_rejected(cases)
    data = (tmp_path / "c.wt").read_bytes()
    path = tmp_path / "half.wt"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceError, match=r"record \d+ is (missing|partial)"):
        read_trace(path)


def test_bad_records_are_named(tmp_path, small) -> None:
    check_rejected(bad_record_files(tmp_path, small))


def test_bad_framing(tmp_path, small) -> None:
    check_rejected(bad_framing_files(tmp_path, small))


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
    """``import wacky_traces`` loads NumPy only (no lz4, no model, engine or CLI); lz4 loads on
    the first compressed file, and lz4 files still round-trip."""
    import subprocess
    import sys

    path = tmp_path / "t.lz4"
    heavy = ("lz4", "wacky_model", "validation", "native_engine", "dash", "typer", "rich")
    code = (
        "import sys, numpy as np, wacky_traces as t\n"
        f"loaded = [m for m in {heavy!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        "tr = t.build_trace([('p', np.zeros(3, np.uint8), np.arange(3, dtype=np.uint64), "
        "np.zeros(3, np.uint64))], entry_bytes=32, meta={})\n"
        f"t.write_trace({str(path)!r}, tr)\n"
        f"assert t.read_trace({str(path)!r}) == tr and 'lz4' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert path.read_bytes()[len(MAGIC) :][:4] == LZ4_MAGIC


def test_trace_files_get_the_mode_of_other_outputs(tmp_path, trace) -> None:
    path, other = tmp_path / "run.lz4", tmp_path / "report.html"
    write_trace(path, trace)
    other.write_text("x")
    assert path.stat().st_mode & 0o777 == other.stat().st_mode & 0o777
