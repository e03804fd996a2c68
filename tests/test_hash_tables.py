"""Hash tables for the small levels (App. F) inside the memory budget, chosen by the search
where a probe cost makes them pay off."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cost_models.evaluate import evaluate
from cost_models.finite import finite_costs
from wacky_model.analysis import analyze
from wacky_model.search import realizable_costs, recommend, recommend_many
from wacky_model.types import Design, System, Workload

BUSH = (4.0, 64.0, 2.0, 1.0, 0.0)  # many runs in the small levels: 255, 15, 3, 1
WRITE_HEAVY = Workload(point_reads=0.2, zero_reads=0.2, writes=0.6)


def test_hash_tables_come_out_of_the_filter_budget() -> None:
    budget = 10.0
    runs = probes = zero = None
    for h in range(4):
        e = evaluate(*BUSH, n_buffers=2**15, entries_per_block=32, bits_per_entry=budget,
                     hash_levels=h, integer_runs=True)
        assert float(e.memory_bits_per_entry) == pytest.approx(budget, rel=1e-9)
        assert e.hash_mask.tolist()[:h] == [True] * h and not e.hash_mask[h:].any()
        if h == 0:
            runs = e.structure.runs
            assert float(e.filter_probes) == pytest.approx(float(np.sum(runs)))
        else:
            # One probe per hashed level instead of one per run, for the filters' memory.
            expected = h + float(np.sum(runs[h:]))
            assert float(e.filter_probes) == pytest.approx(expected)
            assert float(e.filter_probes) < probes
            assert float(e.zero_result_read) >= zero * (1 - 1e-12)
        probes, zero = float(e.filter_probes), float(e.zero_result_read)


def test_finite_model_counts_probes_and_table_memory() -> None:
    kw = dict(entries=2**27, buffer_entries=2**12, bits_per_entry=10.0)
    plain = finite_costs(*BUSH, **kw)
    hashed = finite_costs(*BUSH, **kw, hash_levels=2)
    runs = plain.level_runs
    assert float(plain.filter_probes) == pytest.approx(float(np.sum(runs)))
    assert float(hashed.filter_probes) == pytest.approx(2.0 + float(np.sum(runs[2:])))
    assert float(plain.range_runs) == pytest.approx(float(hashed.range_runs))
    assert float(hashed.zero_result_read) > float(plain.zero_result_read)
    # The tables' memory is inside the budget (the finite model averages over the fill).
    assert float(hashed.memory_bits_per_entry) < 10.0 * 1.1


def test_search_chooses_hash_tables_only_where_a_probe_costs_something() -> None:
    for model in ("finite", "paper"):
        free = System(bits_per_entry=10.0)
        _, h = realizable_costs(free, *BUSH, model=model, with_hash_levels=True)
        assert int(h) == 0
        priced = System(bits_per_entry=10.0, probe_cost=1e-3)
        rows, h = realizable_costs(priced, *BUSH, model=model, with_hash_levels=True)
        assert int(h) >= 1
        # Leveled upper levels hold one run each: a table never saves a probe there.
        _, h = realizable_costs(priced, 10.0, 9.0, 1.0, 0.0, 0.0, model=model,
                                with_hash_levels=True)
        assert int(h) == 0


@pytest.mark.parametrize("system", [
    System(bits_per_entry=10.0, probe_cost=1e-3),
    System(memory_bits_per_entry=14.0, probe_cost=1e-3),
])
def test_recommendation_with_probe_cost_reports_and_prices_its_hash_levels(system) -> None:
    rec = recommend(WRITE_HEAVY, system)
    h = rec.system.hash_levels
    assert h >= 1
    assert rec.to_dict()["hash_levels"] == h
    assert [row.structure for row in rec.analysis.levels[:h]] == ["hash"] * h
    # Its Theta is the analysis' (probes included) ...
    assert rec.cost == pytest.approx(rec.analysis.finite.theta, rel=1e-6)
    # ... and lower than the same design's without the tables.
    import dataclasses
    plain = analyze(rec.design, dataclasses.replace(rec.system, hash_levels=0), WRITE_HEAVY,
                    realizable=True)
    assert rec.cost < plain.finite.theta
    # The search without a probe cost gives the same Theta it gave before hash tables existed:
    # probes weigh nothing.
    batch = recommend_many([WRITE_HEAVY], system)
    d = batch.designs[0]
    _, best = realizable_costs(system, *d.knobs.values(), with_hash_levels=True,
                               buffer_blocks=batch.buffer_bytes[0] / system.block_bytes)
    assert int(batch.hash_levels[0]) == int(best) >= 1
    free = recommend(WRITE_HEAVY, dataclasses.replace(system, probe_cost=0.0))
    assert free.system.hash_levels == 0
    assert free.cost == pytest.approx(free.analysis.finite.theta, rel=1e-6)


def test_probe_cost_is_checked() -> None:
    with pytest.raises(ValueError, match=r"probe_cost must be in \[0, 1\]"):
        System(probe_cost=-1e-3)
    with pytest.raises(ValueError, match="probe_cost"):
        System(probe_cost=float("nan"))
    a = analyze(Design(T=4, C=64, X=2, K=1, Z=0), System(hash_levels=2, probe_cost=1e-3),
                WRITE_HEAVY)
    assert a.filter_probes < 30 and a.to_dict()["hash_levels"] == 2


def test_cli_probe_cost(wacky) -> None:
    args = ["recommend", "--point-reads", "0.2", "--zero-reads", "0.2", "--writes", "0.6",
            "--range-reads", "0"]
    out = wacky(*args, "--probe-cost", "0.001", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hash_levels"] >= 1
    text = wacky(*args, "--probe-cost", "0.001")
    assert "hash tables (probe cost 0.001 block reads)" in text.stdout
    for extra, message in ((["--probe-cost", "2"], "--probe-cost must be in [0, 1]"),
                           (["--probe-cost", "0.1", "--hash-levels", "2"],
                            "leave out --hash-levels")):
        bad = wacky(*args, *extra)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr
