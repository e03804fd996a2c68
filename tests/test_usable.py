"""Output a user can read as it comes (issue 31): ``wacky replay`` prints a summary (the design,
operations and I/O by kind, totals, one line on the answers) and the per-phase table only with
--verbose; ``recommend --trace`` shows the workload and the system it derived, takes the
trace's scale unless a flag says otherwise, and leaves the load and the warm-up out of the mix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wacky_model.trace_skew import system_from_trace, workload_from_trace
from wacky_traces import OpKind, build_trace, left_out, operations_mask, write_trace

EB = 32  # entry bytes: 24-byte values
DESIGN = {"T": 4.0, "C": 3.0, "X": 1.0, "K": 1.0, "Z": 1.0}  # tiering
SCALE = {"entries": 3000, "entry_bytes": EB, "block_bytes": 256, "buffer_bytes": 1024}
META = {"design": DESIGN, "filters": "optimized", "scale": SCALE,
        "budget": {"bits_per_entry": 7.0}, "phase": "steady"}


def _part(name: str, kind: OpKind, keys, args=None):
    keys = np.asarray(keys, np.uint64)
    args = np.zeros(keys.size, np.uint64) if args is None else np.asarray(args, np.uint64)
    return (name, np.full(keys.size, int(kind), np.uint8), keys, args)


def _validation_like(meta: dict | None = META):
    """Phases named as a validation names them: the load, a fill and warm-up inserts, then
    measured window inserts and reads (get, zero, range) in many small phases."""
    rng = np.random.default_rng(31)
    keys = rng.choice(np.arange(1, 1 << 40, 7919, dtype=np.uint64), 4200, replace=False)
    load, fresh = keys[:3000], keys[3000:]
    parts = [_part("load", OpKind.PUT, load), _part("fill", OpKind.PUT, fresh[:32]),
             _part("warm32-first", OpKind.PUT, fresh[32:33]),
             _part("warm32-rest", OpKind.PUT, fresh[33:800])]
    used = 800
    for step in range(4):
        at = used + 100 * step
        parts += [_part(f"win{at}-first", OpKind.PUT, fresh[at : at + 1]),
                  _part(f"win{at}-rest", OpKind.PUT, fresh[at + 1 : at + 100]),
                  _part(f"zero{at}", OpKind.ZERO, keys[-1] + 1 + np.arange(50, dtype=np.uint64)),
                  _part(f"uniform{at}", OpKind.GET, rng.choice(load, 100)),
                  _part(f"range{at}", OpKind.RANGE, load[:25], load[:25] + 5000)]
    return build_trace(parts, entry_bytes=EB, meta=meta or {})


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("usable") / "run.lz4"
    write_trace(path, _validation_like())
    return path


# -- the load and the warm-up ---------------------------------------------------------------------
def test_the_load_and_the_warm_up_are_left_out_of_the_workload():
    t = _validation_like()
    assert left_out(t) == {"load": 3000, "warm_up": 800}
    mask = operations_mask(t)
    assert int(mask.sum()) == len(t) - 3800
    # 400 window inserts against 200 zero-result, 400 existing-key and 100 range reads.
    w = workload_from_trace(t, 8)
    assert w.writes == pytest.approx(400 / 1100)
    assert w.point_reads == pytest.approx(400 / 1100)
    assert w.zero_reads == pytest.approx(200 / 1100)
    # A trace that is all load is the workload itself (nothing would be left).
    only = build_trace([_part("load", OpKind.PUT, [1, 2, 3])], entry_bytes=EB, meta={})
    assert left_out(only) == {"load": 0, "warm_up": 0} and operations_mask(only).all()


def test_system_from_trace_reads_the_header_and_the_metadata():
    t = _validation_like()
    assert system_from_trace(t) == {"entry_bytes": EB, "entries": 3000, "block_bytes": 256,
                                    "buffer_bytes": 1024, "bits_per_entry": 7.0}
    # No scale: the entries are the distinct keys of the load; junk metadata is ignored.
    bare = _validation_like({"scale": {"entries": "many", "buffer_bytes": -1},
                             "budget": {"sum_fpr": 0.5}})
    assert system_from_trace(bare) == {"entry_bytes": EB, "entries": 3000, "sum_fpr": 0.5}
    no_load = build_trace([_part("ops", OpKind.PUT, [1, 2])], entry_bytes=64, meta={})
    assert system_from_trace(no_load) == {"entry_bytes": 64}


# -- replay --------------------------------------------------------------------------------------
def test_replay_prints_a_summary_and_the_phases_only_when_verbose(trace_file, wacky):
    out = wacky("replay", str(trace_file))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "design: Tiering (T=4, C=3, X=1, K=1, Z=1), optimized filters of 7 bits/entry" in text
    assert "32 B entries, 256 B blocks, buffer 1,024 B" in text
    assert "4,900 operations in 24 phases" in text
    rows = [line.split("│")[1:3] for line in text.splitlines() if line.startswith("│")]
    assert [(part.strip(), kind.strip()) for part, kind in rows] == [
        ("load", "put"), ("warm-up", "put"), ("measured", "put"), ("measured", "get"),
        ("measured", "zero"), ("measured", "range"), ("total", "all")]
    assert "every answer was correct: 400 reads of existing keys, 200 zero-result reads and " \
           "100 range reads" in text
    assert "win800-rest" not in text and "warm32-first" not in text
    assert "(the 24 phases one by one: --verbose)" in text
    assert len(text.splitlines()) < 30

    verbose = wacky("replay", str(trace_file), "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    assert "win800-rest" in verbose.stdout and "warm32-first" in verbose.stdout
    assert "every answer was correct" in verbose.stdout


def test_replay_json_keeps_its_keys_and_adds_the_summary(trace_file, wacky):
    out = wacky("replay", str(trace_file), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {"phases", "get_misses", "zero_hits", "wrong_values", "records", "seconds", "ok",
            "design"} <= set(doc)
    assert doc["ok"] is True and doc["records"] == 4900 and len(doc["phases"]) == 24
    s = doc["summary"]
    assert list(s["parts"]) == ["load", "warm_up", "measured"]
    assert s["parts"]["load"]["put"]["count"] == 3000
    assert s["parts"]["warm_up"]["put"]["count"] == 800
    assert {k: t["count"] for k, t in s["parts"]["measured"].items()} == {
        "put": 400, "get": 400, "zero": 200, "range": 100}
    assert s["total"]["count"] == 4900
    assert s["total"]["blocks_written"] == sum(
        t["blocks_written"] for kinds in doc["phases"].values() for t in kinds.values())
    assert doc["engine"]["design_from_trace"] is True
    assert doc["engine"]["buffer_bytes"] == 1024


def test_replay_says_how_many_answers_were_wrong(tmp_path, wacky):
    path = tmp_path / "bad.lz4"
    write_trace(path, build_trace([_part("load", OpKind.PUT, [1, 2]),
                                   _part("reads", OpKind.GET, [1, 3])], entry_bytes=EB, meta={}))
    out = wacky("replay", str(path))
    assert out.returncode == 1
    assert "wrong answers: 1 reads of existing keys found nothing, 0 reads of absent keys " \
           "found a value, 0 values were wrong" in out.stdout
    assert "(the trace names none: the default)" in out.stdout


# -- recommend --trace ---------------------------------------------------------------------------
def test_recommend_trace_shows_the_workload_and_the_system_it_derived(trace_file, wacky):
    out = wacky("recommend", "--trace", str(trace_file))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert (f"trace {trace_file}: 4,900 records; the workload is its 1,100 measured "
            "operations, leaving out the load (3,000 records) and the warm-up (800 inserts "
            "before the measured window)") in " ".join(text.split())
    assert "workload: --point-reads 0.3636 --zero-reads 0.1818 --writes 0.3636 " \
           "--range-reads 0.09091 --range-blocks" in text
    assert "from the trace: --entry-bytes 32, --entries 3,000, --block-bytes 256, " \
           "--buffer-bytes 1,024, --bits-per-entry 7" in " ".join(text.split())
    assert "system: 3,000 entries of 32 B (keys 8 B), 256 B blocks, buffer 1,024 B, " \
           "filters 7 bits/entry" in text

    doc = json.loads(wacky("recommend", "--trace", str(trace_file), "--json").stdout)
    t = doc["trace"]
    assert t["left_out"] == {"load": 3000, "warm_up": 800} and t["operations"] == 1100
    assert t["workload"]["writes"] == pytest.approx(400 / 1100)
    assert t["system"]["entries"] == 3000 and t["system"]["buffer_bytes"] == 1024
    assert t["system"]["entry_bytes"] == EB and t["system"]["bits_per_entry"] == 7.0
    assert t["from_trace"] == {"entry_bytes": EB, "entries": 3000, "block_bytes": 256,
                               "buffer_bytes": 1024, "bits_per_entry": 7.0}
    assert t["from_flags"] == [] and t["overridden"] == {}
    assert "design" in doc and "cost" in doc  # the recommendation's keys are all still there


def test_recommend_trace_flags_given_win_over_the_trace(trace_file, wacky):
    out = wacky("recommend", "--trace", str(trace_file), "--entries", "1e6", "--sum-fpr", "0.5",
                "--json")
    assert out.returncode == 0, out.stderr
    t = json.loads(out.stdout)["trace"]
    assert t["system"]["entries"] == 1e6 and t["system"]["sum_fpr"] == 0.5
    assert t["system"]["bits_per_entry"] is None and t["system"]["buffer_bytes"] == 1024
    assert t["from_flags"] == ["--entries", "--sum-fpr"]
    assert t["overridden"] == {"entries": 3000, "bits_per_entry": 7.0}
    text = wacky("recommend", "--trace", str(trace_file), "--entries", "1e6").stdout
    assert "your flags win over the trace's --entries 3,000" in " ".join(text.split())
    assert "system: 1,000,000 entries of 32 B" in text


def test_recommend_trace_names_the_trace_when_its_system_is_refused(tmp_path, wacky):
    path = tmp_path / "tiny.lz4"
    write_trace(path, build_trace([_part("load", OpKind.PUT, [1, 2, 3]),
                                   _part("ops", OpKind.GET, [1, 2])], entry_bytes=EB, meta={}))
    out = wacky("recommend", "--trace", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--buffer-bytes" in out.stderr and f"from the trace {path}: --entry-bytes 32, " \
        "--entries 3" in out.stderr


def test_validation_errors_above_25_percent_are_explained_in_words():
    """The window's start (the model told Level L's runs at it is close), the simulator's end
    tree, and a small measured figure each get their sentence; the CLI's JSON carries them."""
    from dataclasses import replace

    from validation.explain import large_error_notes
    from validation.runner import validate
    from validation.scale import Scale
    from wacky_model.types import Design

    r = validate(Design(4.0, 3.0, 1.0, 1.0, 1.0), scale=Scale(entries=20_000,
                 buffer_bytes=1 << 14, reads=300, mix_ops=0))
    m = r.measured.zero_result_read + 0.2
    measured = replace(r.measured, zero_result_read=m, range_runs=6.0)
    r = replace(r, measured=measured,
                predicted=replace(r.predicted, zero_result_read=3 * m, range_runs=6.0),
                paper=replace(r.paper, zero_result_read=m, range_runs=6.0),
                simulated=replace(r.simulated, zero_result_read=m, range_runs=2.0),
                conditioned=replace(r.predicted, zero_result_read=1.05 * m),
                engine_detail={**r.engine_detail, "level_L_runs_at_start": 2})
    notes = {n.split(":")[0]: n for n in large_error_notes(r)}
    assert "+200%" in notes["zero-result read (I/O)"]
    assert "Level L held 2 runs when the window began" in notes["zero-result read (I/O)"]
    assert "+5%" in notes["zero-result read (I/O)"]
    assert "the tree the engine ended with" in notes["range read (runs)"]
    assert "window began" not in notes["range read (runs)"]  # the model is not off there


def test_validate_json_carries_the_notes(wacky):
    done = wacky("validate", "--preset", "tiering", "--T", "4", "--entries", "20000",
                 "--buffer-bytes", "16384", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert isinstance(doc["notes"], list) and all(isinstance(n, str) for n in doc["notes"])


def test_a_memory_budget_with_a_trace_is_checked_at_the_traces_scale(trace_file, wacky):
    """--memory-bytes becomes bits per entry with the trace's 3,000 entries, not the default
    2^31 (where 200 kB would be far too little), and the search splits it: the trace's buffer
    is not taken over a total memory budget."""
    mix = ["--point-reads", "0.3", "--zero-reads", "0.2", "--writes", "0.5"]
    out = wacky("recommend", "--trace", str(trace_file), "--memory-bytes", "20000", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["trace"]["system"]["entries"] == 3000
    assert doc["memory_bits_per_entry_total"] == pytest.approx(8 * 20000 / 3000, rel=1e-6)
    # Too little for this trace: the error gives the range at the trace's scale.
    small = wacky("recommend", "--trace", str(trace_file), "--memory-bytes", "100")
    assert small.returncode == 2 and "--memory-bytes must be more than" in small.stderr
    assert "268,435,456,000,000" not in small.stderr  # the default 2^31 entries' bound
    # Without a trace, a small N with a memory budget needs no --buffer-bytes either.
    plain = wacky("recommend", "--entries", "50000", "--memory-bytes", "1000000", *mix)
    assert plain.returncode == 0, plain.stderr
