"""Practical by default (issue 31): no level holds more runs than its capacity in buffers, in
every model, the search and ``analyze``; ``recommend`` caps every level at RocksDB's write stop
(36 runs) unless told otherwise, says what the cap costs, and its designs are ones the native
engine builds."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cost_models.limits import MAX_LEVELS, MAX_RUNS_PER_LEVEL
from cost_models.structure import structure
from wacky_cli.main import main as wacky_main
from wacky_model.analysis import analyze
from wacky_model.guardrails import DEFAULT_CONSTRAINTS, PRACTICAL_RUNS_PER_LEVEL, Constraints
from wacky_model.search import COST_ROW, realizable_costs, recommend
from wacky_model.types import Design, System, Workload

MIX = ["--point-reads", "0.2", "--zero-reads", "0.2", "--writes", "0.6"]
# The engine run the issue names: 500,000 entries at validation's layout (128 B, 1 MiB buffer).
ENGINE_ENTRIES = 500_000
ENGINE_SYSTEM = System(entries=ENGINE_ENTRIES, buffer_bytes=1 << 20)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """``wacky`` in this process (the tables stay cached between calls): (status, out, err)."""
    code = wacky_main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def random_workloads(n: int, seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        mix = rng.dirichlet(np.full(4, 0.7))
        if rng.random() < 0.6:  # most mixes have no range reads, as most key-value workloads
            mix[3] = 0.0
            mix /= mix.sum()
        mix = np.round(mix, 3)
        mix[2] = 1.0 - mix[0] - mix[1] - mix[3]
        args = ["--point-reads", f"{mix[0]:.3f}", "--zero-reads", f"{mix[1]:.3f}",
                "--writes", f"{mix[2]:.3f}", "--range-reads", f"{mix[3]:.3f}"]
        if mix[3] > 0:
            args += ["--range-blocks", f"{float(rng.choice([1, 4, 64])):g}"]
        out.append(args)
    return out


def held_at_most(levels: list[dict]) -> list[float]:
    """Per level of an analysis's JSON rows: the most runs it can hold, max(1, floor(c))."""
    return [max(1.0, math.floor(r["buffer_multiple"] * (1 + 1e-9))) for r in levels]


def assert_engine_builds(doc: dict, tmp_path) -> None:
    """The pick as the native engine builds it at 500,000 entries: the engine's own structure
    (native_engine/src/structure.h) within its limits at every size the tree passes through,
    the model's limits at that size, and the engine opened with the design's options."""
    from native_engine import Engine, _engine
    from validation.runner import cannot_build
    from wacky_model.types import Compaction

    d = doc["design"]
    knobs = (d["T"], d["C"], d["X"], d["K"], d["Z"])
    c = doc["compaction"]
    compaction = Compaction(c["granularity"], None, c["level1_runs"])
    assert cannot_build("native", False, compaction) is None
    # The engine re-anchors its shape on N (C+1)/C after each merge into Level L: check up to
    # twice the entries, past the most that estimate reaches.
    per_buffer = ENGINE_SYSTEM.buffer_entries
    for entries in np.geomspace(4 * per_buffer, 2 * ENGINE_ENTRIES, 8):
        shape = _engine.structure(*knobs, entries / per_buffer, True)
        assert shape["L"] <= MAX_LEVELS
        assert all(r <= MAX_RUNS_PER_LEVEL for r in shape["runs"]), (d, entries)
        assert all(math.isfinite(r) for r in shape["ratios"]), (d, entries)
        # What the engine's levels can hold there is what the model's capped structure says.
        s = structure(*knobs, entries / per_buffer, integer_runs=True)
        L = int(s.L)
        assert list(s.run_bound[:L]) == shape["runs"]
        assert np.all(s.runs[:L] <= np.maximum(1, np.floor(s.fractions[:L] * entries
                                                            / per_buffer * (1 + 1e-9))))
    extra = {} if c["granularity"] == "level" else {"granularity": "file"}
    engine = Engine(tmp_path / f"db-{len(list(tmp_path.iterdir()))}", T=d["T"], C=d["C"],
                    X=d["X"], K=d["K"], Z=d["Z"], entry_bytes=128, block_bytes=4096,
                    buffer_bytes=1 << 20, bits_per_entry=5.0, wal=False,
                    level1_runs=c["level1_runs"], **extra)
    try:
        engine.put(1, b"x" * 120)
        assert engine.get(1) == b"x" * 120
    finally:
        engine.close()


# ------------------------------------------------------------------- (a) the default answer


def test_default_recommendations_fit_their_levels_and_the_engine_builds_them(capsys, tmp_path):
    for args in random_workloads(20, seed=3101):
        code, out, err = cli(capsys, "recommend", *args, "--json")
        assert code == 0, (args, err)
        doc = json.loads(out)
        assert doc["constraints"]["max_runs_per_level"] == PRACTICAL_RUNS_PER_LEVEL
        if doc["granularity"] == "level":
            runs = [r["runs"] for r in doc["levels"]]
            assert all(a <= b for a, b in zip(runs, held_at_most(doc["levels"]), strict=True))
            assert max(runs) <= PRACTICAL_RUNS_PER_LEVEL, (args, runs)
            assert doc["warnings"] == []
        else:
            assert doc["compaction"]["level1_runs"] <= PRACTICAL_RUNS_PER_LEVEL
        if doc["without_cap"] is not None:
            free = doc["without_cap"]
            assert free["max_runs_per_level"] > PRACTICAL_RUNS_PER_LEVEL
            assert free["lift"] == "--max-runs-per-level none"
        assert_engine_builds(doc, tmp_path)


# ------------------------------------------------------------------- (b) the structure's cap


def test_a_level_holds_no_more_runs_than_buffers_in_analyze_and_the_search():
    # Tiering T=100 on the paper's system: Eq 13 asks for 99 runs in a Level 1 of 3.24 buffers.
    design = Design(100, 99, 1, 1, 0)
    system = System()
    s = structure(*design.knobs.values(), system.buffers, integer_runs=True)
    assert list(s.run_bound[:3]) == [99, 99, 1]
    assert list(s.runs[:3]) == [3, 99, 1]
    for realizable in (False, True):
        a = analyze(design, system, realizable=realizable)
        assert [row.runs for row in a.levels] == pytest.approx([3, 99, 1])
        assert a.levels[0].buffer_multiple == pytest.approx(3.244, rel=1e-3)
        # The paper model's reads probe the runs held: a range read probes 3 + 99 + 1 runs.
        assert a.range_runs == pytest.approx(103)
    # The search prices the same capped structure (its cost rows and its guardrails).
    row = realizable_costs(system, *design.knobs.values(), model="paper")
    assert row[COST_ROW.index("range_runs")] == pytest.approx(103)
    assert bool(Constraints(max_runs_per_level=99).allows(s))
    # The finite model's runs too: never more than a level's buffers.
    finite = analyze(design, system).finite
    assert finite is not None
    # And the unconstrained search never picks a level with more runs than its buffers.
    for w in (Workload(writes=1.0), Workload(point_reads=0.2, zero_reads=0.2, writes=0.6)):
        rec = recommend(w, system, constraints=None, granularity="level")
        rows = rec.analysis.levels
        assert all(r.runs <= max(1, math.floor(r.buffer_multiple * (1 + 1e-9))) for r in rows)


# ---------------------------------------------------------------- (c) lifting the cap, its cost


def test_the_default_cap_binds_says_what_it_costs_and_none_lifts_it(capsys):
    code, out, _ = cli(capsys, "recommend", *MIX)
    assert code == 0
    line = next(x for x in out.replace("\n", " ").split("keys:")[:1])
    assert "without the cap (--max-runs-per-level none):" in line
    assert "lower" in line and "runs in Level" in line
    code, out, _ = cli(capsys, "recommend", *MIX, "--json")
    capped = json.loads(out)
    free_said = capped["without_cap"]
    assert free_said is not None and free_said["cap"] == PRACTICAL_RUNS_PER_LEVEL
    code, out, _ = cli(capsys, "recommend", *MIX, "--max-runs-per-level", "none", "--json")
    free = json.loads(out)
    assert free["constraints"]["max_runs_per_level"] is None and free["without_cap"] is None
    # What the capped output said the uncapped pick is, is what the lifted search picks.
    assert free["design"] == pytest.approx(free_said["design"])
    assert free["cost"] == pytest.approx(free_said["cost"])
    assert 1 - free["cost"] / capped["cost"] == pytest.approx(free_said["theta_lower"])
    assert max(r["runs"] for r in free["levels"]) == free_said["max_runs_per_level"]
    assert free["warnings"]  # above 36 runs: flagged, naming the flag
    assert all("--max-runs-per-level" in w for w in free["warnings"])
    code, out, _ = cli(capsys, "recommend", *MIX, "--max-runs-per-level", "none")
    assert code == 0 and "without the cap" not in out
    # A read-heavy workload's pick is within the cap anyway: no line, no JSON entry.
    read_heavy = ["--point-reads", "0.5", "--zero-reads", "0.45", "--writes", "0.05"]
    code, out, _ = cli(capsys, "recommend", *read_heavy)
    assert code == 0 and "without the cap" not in out
    code, out, _ = cli(capsys, "recommend", *read_heavy, "--json")
    assert json.loads(out)["without_cap"] is None


def test_the_python_default_is_the_cap_and_none_lifts_it():
    w, system = Workload(point_reads=0.2, zero_reads=0.2, writes=0.6), System()
    rec = recommend(w, system)
    assert rec.constraints == DEFAULT_CONSTRAINTS
    assert rec.max_runs_per_level[0] <= PRACTICAL_RUNS_PER_LEVEL
    for lifted in (None, Constraints()):
        free = recommend(w, system, constraints=lifted)
        assert free.constraints is None and free.without_cap is None
    assert rec.without_cap is not None
    assert rec.without_cap["cost"] == pytest.approx(recommend(w, system, constraints=None).cost)


# -------------------------------------------------------------------------- (d) bad values


@pytest.mark.parametrize("value", ["0", "-3", "2.5", "abc", "nonee", "1e400"])
def test_bad_values_of_the_cap_exit_2_naming_the_flag(capsys, value):
    code, _, err = cli(capsys, "recommend", *MIX, "--max-runs-per-level", value)
    assert code == 2, err
    assert "--max-runs-per-level" in err
