"""The C++ workload driver: deterministic, verified reads, per-phase and per-operation I/O."""

from __future__ import annotations

import pytest

from native_engine import Engine

KW = dict(
    T=4, C=3, X=1, K=0, Z=0, entry_bytes=32, block_bytes=256, buffer_bytes=4096, bits_per_entry=8
)


def _run(path, **spec):
    with Engine(path, **KW) as e:
        return e.run_workload(**spec), e.stats(), e.levels()


MIX = dict(n_load=20_000, n_ops=6_000, get=0.4, zero=0.3, put=0.2, range=0.1, seed=42)


@pytest.mark.parametrize("sequential", [False, True])
def test_workload_phases_and_answers(tmp_path, sequential) -> None:
    r, stats, levels = _run(tmp_path / "a", sequential=sequential, **MIX)
    assert r["get_misses"] == 0 and r["zero_hits"] == 0 and r["wrong_values"] == 0
    load, mix = r["load"], r["mix"]
    assert load["ops"]["put"]["count"] == 20_000
    assert load["stats"]["puts"] == 20_000
    assert load["stats"]["merge_total"]["blocks_written"] > 0
    counts = {k: v["count"] for k, v in mix["ops"].items()}
    assert sum(counts.values()) == 6_000
    for name, frac in (("get", 0.4), ("zero", 0.3), ("put", 0.2), ("range", 0.1)):
        assert counts[name] == pytest.approx(6_000 * frac, rel=0.1)
    ops = mix["ops"]
    # Reads of existing keys need a block (unless the key is still in the buffer, which holds
    # under 1% of the data here); zero-result reads mostly none.
    assert ops["get"]["blocks_read_per_op"] >= 0.99
    assert ops["zero"]["blocks_read_per_op"] < 0.5
    assert ops["get"]["io"]["blocks_written"] == 0
    # Range reads touch at least one block in some run; returned about range_entries each.
    assert ops["range"]["blocks_read_per_op"] >= 1.0
    assert r["range_entries_returned"] == pytest.approx(counts["range"] * 16, rel=0.35)
    # Per-op I/O adds up to the phase's counters.
    total_read = sum(v["io"]["blocks_read"] for v in ops.values())
    assert total_read == mix["stats"]["total"]["blocks_read"]
    assert mix["seconds"] > 0 and load["seconds"] > 0
    stored = sum(lv["entries"] for lv in levels) + stats["buffer_size"]
    assert stored == 20_000 + counts["put"]  # every write was a new unique key


def test_workload_is_deterministic(tmp_path) -> None:
    a, _, la = _run(tmp_path / "a", **MIX)
    b, _, lb = _run(tmp_path / "b", **MIX)
    assert a["mix"]["stats"]["total"] == b["mix"]["stats"]["total"]
    assert {k: v["count"] for k, v in a["mix"]["ops"].items()} == {
        k: v["count"] for k, v in b["mix"]["ops"].items()
    }
    assert [[r["entries"] for r in lv["runs"]] for lv in la] == [
        [r["entries"] for r in lv["runs"]] for lv in lb
    ]
    c, _, _ = _run(tmp_path / "c", **{**MIX, "seed": 7})
    assert c["mix"]["stats"]["total"] != a["mix"]["stats"]["total"]


def test_level_L_reads_are_the_worst_case(tmp_path) -> None:
    """Reads aimed at Level L (Eq 15's worst case) pay one block plus the false positives of
    every run above Level L: compare with the sum of those runs' filter FPRs."""
    import math

    spec = dict(n_load=30_000, n_ops=4_000, get=1.0, seed=3)
    worst, stats, levels = _run(tmp_path / "w", **spec, target_level_L=True)
    assert worst["level_L_sample"] > 0 and worst["get_misses"] == 0
    upper = [r for lv in levels[:-1] for r in lv["runs"]]
    assert len(levels[-1]["runs"]) == 1  # Z = 0: one run at Level L
    fps = [r["filter_fpr_given_fill"] * (r["max_key"] - r["min_key"] + 1) / 2**64 for r in upper]
    expect = 1.0 + sum(fps)
    sd = math.sqrt(sum(p * (1 - p) for p in fps) / 4_000) * 1.5  # 1.5: sampled keys repeat
    got = worst["mix"]["ops"]["get"]["blocks_read_per_op"]
    assert abs(got - expect) <= 5 * sd + 1e-9, (got, expect, sd)


def test_workload_bad_input(tmp_path) -> None:
    with Engine(tmp_path / "db", **KW) as e:
        with pytest.raises(ValueError, match="fractions"):
            e.run_workload(n_load=10, n_ops=10)
        with pytest.raises(ValueError, match="fractions"):
            e.run_workload(n_load=10, n_ops=10, get=-1, put=2)
        with pytest.raises(ValueError, match="n_load"):
            e.run_workload(n_load=-5)
        with pytest.raises(TypeError, match="get"):
            e.run_workload(n_load=5, n_ops=5, get="all")
        with pytest.raises(RuntimeError, match="Level L holds no entries"):
            e.run_workload(n_load=0, n_ops=5, get=1.0, target_level_L=True)
