"""Guardrails: run-count and space-amplification constraints of the search, and the warnings
every output carries."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cost_models.costs import space_amplification
from cost_models.structure import structure
from wacky_model.analysis import analyze
from wacky_model.guardrails import PRACTICAL_RUNS_PER_LEVEL, Constraints
from wacky_model.search import DesignSpace, recommend, recommend_many
from wacky_model.types import Design, System, Workload

SYSTEM = System()
MIX = ["--point-reads", "0.2", "--zero-reads", "0.2", "--writes", "0.6"]


def test_space_amplification_limits() -> None:
    n = SYSTEM.buffers
    level = structure(10, 9, 1, 0, 0, n, integer_runs=True)
    assert float(space_amplification(level)) == pytest.approx(1 / 9, rel=1e-3)
    tier = structure(10, 9, 1, 1, 1, n, integer_runs=True)
    assert float(space_amplification(tier)) == pytest.approx(9 * (1 + 1 / 9) - 1, rel=1e-3)


@pytest.mark.parametrize("limits", [
    Constraints(max_runs_per_level=36),
    Constraints(max_runs_per_level=4, max_total_runs=12),
    Constraints(max_space_amp=0.5),
    Constraints(max_transient_space=1.5),
])
def test_constraints_hold_on_random_workloads(limits) -> None:
    rng = np.random.default_rng(8)
    workloads = [Workload(*(float(x) for x in rng.dirichlet(np.ones(4)))) for _ in range(12)]
    space = DesignSpace.build(SYSTEM, constraints=limits)
    free = DesignSpace.build(SYSTEM)
    for w in workloads:
        rec = recommend(w, SYSTEM, space=space, constraints=limits)
        runs = [row.runs for row in rec.analysis.levels]
        if limits.max_runs_per_level is not None:
            assert max(runs) <= limits.max_runs_per_level
        if limits.max_total_runs is not None:
            assert sum(runs) <= limits.max_total_runs
        if limits.max_space_amp is not None:
            assert rec.analysis.space_amp <= limits.max_space_amp * (1 + 1e-9)
        if limits.max_transient_space is not None:
            assert rec.transient_space <= limits.max_transient_space * (1 + 1e-9)
        # A constraint can only cost throughput: the free search, refined on the live model,
        # is never beaten by more than the table's own accuracy (tests/test_search.py).
        assert rec.cost >= recommend(w, SYSTEM, space=free, refine=True).cost * (1 - 0.005)
    batch = recommend_many(workloads, SYSTEM, space=space, constraints=limits)
    for d, c in zip(batch.designs, batch.compactions or [None] * len(batch.designs),
                    strict=True):
        if c is not None and c.granularity == "file":
            continue  # priced by its walk (the file grid keeps what the limits allow)
        s = structure(*d.knobs.values(), SYSTEM.buffers, integer_runs=True)
        assert bool(limits.allows(s, SYSTEM.entries, SYSTEM.buffer_entries))


def test_warnings_flag_designs_over_the_practical_limit(wacky) -> None:
    many = analyze(Design(100, 99, 1, 1, 0), SYSTEM)
    # Every tiered level above L with room for more than 36 one-buffer runs: Level 1 holds 3.2
    # buffers, so 3 runs (a run is at least one buffer), Level 2 its 99.
    assert [row.runs for row in many.levels] == pytest.approx([3, 99, 1])
    assert len(many.warnings) == 1 and "Level 2 holds 99 runs" in many.warnings[0]
    assert str(PRACTICAL_RUNS_PER_LEVEL) in many.warnings[0]
    assert analyze(Design(10, 9, 1, 0, 0), SYSTEM).warnings == ()
    out = wacky("analyze", "--T", "100", "--C", "99", "--K", "1", "--Z", "0", "--json")
    assert json.loads(out.stdout)["warnings"] == list(many.warnings)
    text = wacky("analyze", "--T", "100", "--C", "99", "--K", "1", "--Z", "0")
    assert "warning: Level 2 holds 99 runs" in text.stdout
    rec = wacky("recommend", *MIX, "--max-runs-per-level", "none", "--json")
    doc = json.loads(rec.stdout)
    assert all(r["runs"] <= PRACTICAL_RUNS_PER_LEVEL for r in doc["levels"]) == (
        doc["warnings"] == [])


def test_guardrails_are_the_default_cap_unless_lifted_and_bad_ones_are_refused(wacky) -> None:
    assert not Constraints().active
    with pytest.raises(ValueError, match="max_runs_per_level must be a whole number >= 1"):
        Constraints(max_runs_per_level=0)
    with pytest.raises(ValueError, match="max_space_amp must be a number > 0"):
        Constraints(max_space_amp=-1.0)
    with pytest.raises(ValueError, match="no design meets the constraints"):
        recommend(Workload(writes=1.0), SYSTEM, constraints=Constraints(max_total_runs=1))
    out = wacky("recommend", *MIX, "--max-total-runs", "1")
    assert out.returncode == 2
    assert ("no design meets the constraints (--max-runs-per-level 36, --max-total-runs 1)"
            in out.stderr)
    out = wacky("recommend", *MIX, "--max-runs-per-level", "none", "--max-total-runs", "1")
    assert out.returncode == 2
    assert "no design meets the constraints (--max-total-runs 1)" in out.stderr
    space = DesignSpace.build(SYSTEM)
    with pytest.raises(ValueError, match="other constraints"):
        recommend(Workload(writes=1.0), SYSTEM, space=space,
                  constraints=Constraints(max_runs_per_level=3))
