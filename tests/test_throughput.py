"""T1 (docs/MODEL.md): insert throughput from write amplification and two calibrated CPU costs,
and against the native engine (issue 34)."""

from __future__ import annotations

import pytest

from cost_models.throughput import insert_rate, insert_seconds
from wacky_model.types import Design


def test_t1_is_the_put_plus_the_entries_merged() -> None:
    assert insert_seconds(10.0, 100.0, 50.0) == pytest.approx(600e-9)
    assert insert_rate(0.0, 100.0, 50.0) == pytest.approx(1e7)
    assert insert_rate(20.0, 100.0, 50.0) < insert_rate(10.0, 100.0, 50.0)
    with pytest.raises(ValueError, match="write_amp must be a finite number >= 0"):
        insert_seconds(-1.0, 100.0, 50.0)


def test_t1_predicts_another_designs_throughput_from_its_write_amplification() -> None:
    """Calibrated on Leveling T=10 with files, T1 at the engine's write amplification predicts
    Tiering's inserts per CPU second within 25% (the sweep reports wall-clock rates within 10%;
    CPU time keeps the test steady on a busy machine)."""
    from validation.throughput import measure

    m = measure(Design(4, 3, 1, 1, 1), "level", entries=200_000)
    assert m.predicted(m.write_amp) == pytest.approx(m.cpu_rate, rel=0.25)
    assert m.write_amp < 6 and m.model_write_amp > 1


def test_analyze_prints_t1_with_a_profile_and_names_a_bad_one(wacky, tmp_path) -> None:
    """``analyze --profile`` adds T1's inserts per second from the profile's CPU costs and the
    design's write amplification (the finite model's, or the file walk's)."""
    import json

    from cost_models.throughput import insert_rate
    from wacky_model.analysis import analyze
    from wacky_model.types import Design, System

    doc = {"name": "by-hand", "seq_write_mb_s": 2000, "seq_read_mb_s": 3000,
           "rand_read_iops": 1e5, "rand_read_latency_us": 80, "cpu_ns_per_put": 600,
           "cpu_ns_per_entry_merged": 150}
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(doc))
    knobs = ["--T", "10", "--C", "9", "--X", "1", "--K", "0", "--Z", "0"]
    r = wacky("analyze", *knobs, "--profile", str(path), "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    wa = analyze(Design(10, 9, 1, 0, 0), System()).finite.write_amp
    assert got["insert_rate"] == pytest.approx(insert_rate(wa, 600, 150))
    assert got["profile"] == "by-hand"
    r = wacky("analyze", *knobs, "--granularity", "file", "--profile", str(path))
    assert r.returncode == 0 and "inserts/s on the native engine" in r.stdout
    del doc["cpu_ns_per_put"]
    path.write_text(json.dumps(doc))
    for bad in (str(path), str(tmp_path / "missing.json")):
        r = wacky("analyze", *knobs, "--profile", bad)
        assert r.returncode == 2 and "--profile" in r.stderr
