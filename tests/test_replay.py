"""Replaying traces through the engine (validation.replay): per-phase, per-kind I/O totals, the
check of every answer, and that a bad trace never reaches the engine. The trace formats are
tested in test_trace_format.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from trace_samples import (
    EB,
    G,
    Malformed,
    R,
    Z,
    bad_framing_files,
    bad_record_files,
    truncated_files,
    truncated_lz4_files,
)

from native_engine import Engine
from validation.replay import replay
from wacky_traces import Phase, Trace, TraceError, read_trace, value_for, write_trace

SMALL = dict(T=4, C=3, entry_bytes=EB, block_bytes=256, buffer_bytes=1024, bits_per_entry=8)


def new_engine(path) -> Engine:
    return Engine(path, **SMALL)


@pytest.fixture
def engine(tmp_path):
    e = new_engine(tmp_path / "db")
    yield e
    e.close()


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


# -- a bad trace applies nothing ----------------------------------------------------------------
def check_rejected(
    path: Path, engine: Engine, trace: Trace, match: str, record: int | None = None
) -> None:
    """read + replay raises naming the file (and record); the engine saw nothing."""
    before = engine.stats()
    with pytest.raises(TraceError, match=match) as e:
        replay(engine, read_trace(path))
    assert str(path) in str(e.value)
    if record is not None:
        assert e.value.record == record
    untouched(engine, before, trace.keys)


MALFORMED: dict[str, Callable[[Path, Trace], list[Malformed]]] = {
    "truncated": truncated_files,
    "bad-records": bad_record_files,
    "bad-framing": bad_framing_files,
}


@pytest.mark.parametrize("kind", [*MALFORMED, "truncated-lz4"])
def test_malformed_files_never_reach_the_engine(tmp_path, engine, small, kind) -> None:
    if kind == "truncated-lz4":
        source, cases = truncated_lz4_files(tmp_path)  # its own, larger trace
    else:
        source, cases = small, MALFORMED[kind](tmp_path, small)
    assert cases
    for path, match, record in cases:
        check_rejected(path, engine, source, match, record)


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


def test_batch_size_does_not_change_results(tmp_path, trace, monkeypatch) -> None:
    with new_engine(tmp_path / "a") as e:
        whole = replay(e, trace)
    # Tiny chunks: PUT/GET runs split across many calls and value windows.
    monkeypatch.setattr("validation.replay.PUT_CHUNK", 7)
    with new_engine(tmp_path / "b") as e:
        chunked = replay(e, trace)
    assert chunked.ok and io_table(chunked) == io_table(whole)
