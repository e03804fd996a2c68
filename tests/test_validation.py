"""Validation: the models against the engine, the validate/replay CLI and the sweep."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from cost_models import costs, filters
from cost_models.structure import structure
from native_engine.simulator import grow, grown_costs, realized_bloom_fpr
from validation import families as sweep
from validation.predict import predict_paper
from validation.results import Checks, relative_error
from validation.runner import Scale, validate
from validation.sweep import run_cases
from wacky_model.analysis import analyze
from wacky_model.types import Design, Workload

TINY = Scale(entries=30_000, buffer_bytes=16 << 10, reads=3_000, mix_ops=1_000)

DESIGNS = {
    "leveling": Design(10, 9, 1, 0, 0),
    "tiering": Design(4, 3, 1, 1, 1),
    "lazy-leveling": Design(3, 2, 1, 1, 0),
    "qlsm-bush": Design(2, 1, 2, 1, 0),
    "continuum": Design(5, 2.5, 1.5, 0.5, 0.5),
    "bush-X3": Design(2, 1, 3, 0.5, 1),
    "plain-tiering": Design(4, 3, 1, 1, 1, filters="uniform"),
}


@pytest.fixture(scope="module")
def results():
    return {name: validate(d, scale=TINY, workload=Workload(0.3, 0.2, 0.4, 0.1), phase="load")
            for name, d in DESIGNS.items()}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_engine_follows_its_simulator_exactly(results, name) -> None:
    """The engine simulator is the merge policy's executable specification: every level's runs
    and entries, the blocks written and the filter memory equal the engine's, not approximately
    but exactly. This checks the engine against its specification, not any model's accuracy."""
    r = results[name]
    assert r.checks == Checks(get_misses=0, zero_hits=0, wrong_values=0) and not r.checks.any
    assert r.simulated_relative_error.levels_match
    assert [(x.runs, x.entries) for x in r.simulated.levels] == [
        (x.runs, x.entries) for x in r.measured.levels]
    assert r.simulated.write_amp == pytest.approx(r.measured.write_amp, rel=1e-12)
    assert r.simulated.memory_bits_per_entry == pytest.approx(
        r.measured.memory_bits_per_entry, rel=1e-9)
    assert len(r.measured.levels) >= 3  # the tiny buffer gives a real multi-level tree


@pytest.mark.parametrize("name", list(DESIGNS))
def test_read_costs_match_within_sampling_error(results, name) -> None:
    """Measured reads are sample means: the simulator's expectations must lie within 4.5 standard
    errors (a false positive costs one I/O: a Bernoulli count per probed run)."""
    r = results[name]
    n = TINY.reads
    for metric in ("zero_result_read", "point_read", "point_read_uniform"):
        expected = r.simulated.metric(metric)
        extra = expected - (0.0 if metric == "zero_result_read" else 1.0)
        sigma = math.sqrt(max(extra, 1e-4) / n)
        assert abs(r.measured.metric(metric) - expected) <= 4.5 * sigma + 0.02, metric
    assert r.measured.range_runs == pytest.approx(r.simulated.range_runs, rel=0.02)


def test_paper_model_errors_are_reported_honestly(results) -> None:
    r = results["lazy-leveling"]
    d = r.to_dict()
    assert set(d) >= {"predicted", "paper", "simulated", "measured", "relative_error",
                      "paper_relative_error", "simulated_relative_error"}
    assert "refined" not in d  # the simulator is reported as what it is
    keys = {"write_amp", "zero_result_read", "point_read", "point_read_uniform", "range_runs",
            "memory_bits_per_entry", "theta"}
    for part in ("predicted", "paper", "measured", "relative_error", "paper_relative_error"):
        assert keys <= set(d[part])
    for part in ("predicted", "measured"):
        assert d[part]["levels"] and {"level", "runs", "entries"} <= set(d[part]["levels"][0])
    err = d["relative_error"]["write_amp"]
    assert err == pytest.approx((d["predicted"]["write_amp"] - d["measured"]["write_amp"])
                                / d["measured"]["write_amp"])
    assert d["measured"]["theta"] > 0 and d["predicted"]["theta"] > 0
    json.dumps(d)


THETA_WORKLOADS = [
    Workload(0.3, 0.2, 0.4, 0.1),  # short range reads (range_blocks = 0)
    Workload(0.2, 0.2, 0.5, 0.1, range_blocks=16),  # long range reads
    Workload(0.0, 0.0, 1.0, 0.0),
    Workload(0.1, 0.1, 0.1, 0.7, range_blocks=3.5),
]


@pytest.mark.parametrize("workload", THETA_WORKLOADS)
@pytest.mark.parametrize("name", list(DESIGNS) + ["lazy-leveling T=6"])
def test_paper_theta_is_what_analyze_reports(name, workload) -> None:
    """One Eq 16: validation's paper-model Theta and range cost are analyze's, to 1e-12."""
    design = DESIGNS.get(name) or Design(6, 5, 1, 1, 0)
    for scale in (TINY, Scale()):
        system = scale.system(5.0, None)
        a = analyze(design, system, workload, realizable=True)
        p = predict_paper(design, system, workload)
        assert p.theta == pytest.approx(a.theta, rel=1e-12, abs=0)
        assert p.range_io == pytest.approx(a.range_cost, rel=1e-12, abs=0)


def test_validated_theta_is_eq16_of_each_source(results) -> None:
    r = results["lazy-leveling"]
    system = TINY.system(5.0, None)
    a = analyze(DESIGNS["lazy-leveling"], system, r.workload, realizable=True)
    assert r.paper.theta == pytest.approx(a.theta, rel=1e-12)
    B = system.entries_per_block
    for c in (r.predicted, r.paper, r.simulated, r.measured):
        by_hand = (0.3 * c.point_read + 0.2 * c.zero_result_read + 0.4 * c.write_amp / B
                   + 0.1 * c.range_io)
        assert c.theta == pytest.approx(by_hand, rel=1e-12)


def test_relative_error_edge_cases() -> None:
    assert relative_error(1.0, 0.0) is None
    assert relative_error(0.0, 0.0) == 0.0
    assert relative_error(None, 1.0) is None
    assert relative_error(1.1, 1.0) == pytest.approx(0.1)


def test_uniform_read_formula_by_hand() -> None:
    """Leveling (one run per level): a key at Level i pays the FPRs of Levels 1..i-1."""
    s = structure(10, 9, 1, 0, 0, 1000.0, integer_runs=True)
    p = filters.lagrangian_fprs_for_memory(s.fractions, s.runs, 5.0)
    L = int(s.L)
    frac = s.fractions[:L] / s.fractions[:L].sum()
    by_hand = 1.0 + sum(frac[i] * p[:i].sum() for i in range(L))
    assert costs.point_read_uniform_cost(s, p) == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize("knobs", [(4, 3, 1, 1, 1), (3, 2, 1, 1, 0), (2, 1, 2, 1, 0.5)])
def test_uniform_read_is_at_most_the_worst_case(knobs) -> None:
    s = structure(*knobs, 5000.0, integer_runs=True)
    p = filters.lagrangian_fprs_for_memory(s.fractions, s.runs, 4.0)
    uniform = costs.point_read_uniform_cost(s, p)
    assert 1.0 <= uniform <= costs.point_read_cost(s, p) + 1e-12


def test_realized_bloom_fpr() -> None:
    assert realized_bloom_fpr(1000, 0.0) == 1.0
    # k = round(10 ln 2) = 7 probes, m = 10 n bits: the textbook (1 - e^(-k/10))^k.
    assert realized_bloom_fpr(1000, 10.0) == pytest.approx((1 - math.exp(-0.7)) ** 7)
    # A small run still gets 64 bits, so its filter is better than b bits per key.
    assert realized_bloom_fpr(10, 1.0) < realized_bloom_fpr(10_000, 1.0)


def test_grow_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        grow(10, 9, 1, 0, 0, entries=10, buffer_entries=4, entries_per_block=2)
    with pytest.raises(ValueError, match="entries"):
        grow(10, 9, 1, 0, 0, entries=-1, buffer_entries=4, entries_per_block=2,
             bits_per_entry=5)


def test_simulator_tends_to_the_paper_when_levels_are_full() -> None:
    """Right after a major compaction into a full tree the two models nearly agree on reads."""
    tree = grow(2, 1, 1, 1, 1, entries=64 * 1024 + 1, buffer_entries=64, entries_per_block=8,
                bits_per_entry=6)
    c = grown_costs(tree)
    assert tree.buffered == 1
    assert c.point_read_uniform <= c.point_read
    assert c.zero_result_read > 0


def test_scale_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="buffer_bytes"):
        Scale(entries=5_000, buffer_bytes=1 << 20)
    with pytest.raises(ValueError, match="entries"):
        Scale(entries=10)
    with pytest.raises(ValueError, match="reads"):
        Scale(reads=True)


def test_cli_validate_json_and_replay(tmp_path, wacky) -> None:
    trace_file = tmp_path / "run.lz4"
    html = tmp_path / "report.html"
    args = ["validate", "--preset", "tiering", "--T", "4", "--entries", "20000", "--phase", "load",
            "--buffer-bytes", "16384", "--reads", "1000", "--writes", "0.5",
            "--zero-reads", "0.5", "--json", "--save-trace", str(trace_file),
            "--html", str(html)]
    out = wacky(*args)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["design"]["Z"] == 1.0 and doc["measured"]["theta"] is not None
    assert "plotly" in html.read_text()
    out = wacky("replay", str(trace_file), "--json")
    assert out.returncode == 0, out.stderr
    replayed = json.loads(out.stdout)
    load = replayed["phases"]["load"]["put"]
    assert load["blocks_written"] * 32 / 20000 == pytest.approx(doc["measured"]["write_amp"])
    zero = replayed["phases"]["zero"]["zero"]
    assert zero["blocks_read"] / zero["count"] == pytest.approx(
        doc["measured"]["zero_result_read"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["validate", "--T", "1", "--C", "2", "--K", "0", "--Z", "0"], "--T must be"),
        (["validate", "--preset", "leveling", "--entries", "5000"], "--buffer-bytes"),
        (["validate", "--recommend"], "--recommend needs a workload"),
        (["validate", "--preset", "leveling", "--writes", "0.5"], "sum"),
        (["replay", "/nonexistent/trace.lz4"], "trace"),
    ],
)
def test_cli_validate_bad_input(args, message, wacky) -> None:
    out = wacky(*args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_sweep_on_a_tiny_scale(tmp_path, monkeypatch) -> None:
    system = TINY.system(5.0, None)
    cases = sweep.sweep_cases(system, n_random=2)
    assert {c.group for c in cases} == {"family", "uniform filters", "random"}
    assert sum(c.group == "random" for c in cases) == 2
    picked = [replace(c, options={"scale": TINY}) for c in (cases[0], cases[-1], cases[-3])]
    workloads = sweep.ranking_workloads()[:2]
    extra, per_workload = sweep.ranking_candidates(system, workloads)
    results = run_cases(picked + extra[:0], TINY, {"bits_per_entry": 5.0}, workers=2)
    assert [r.name for r in results] == [c.name for c in picked]
    rows = sweep.summarize(results)
    assert {r["metric"] for r in rows} >= {"write_amp", "point_read", "zero_result_read"}
    for row in rows:
        assert row["simulator"]["median"] <= row["simulator"]["worst"]
    # Ranking on the designs each workload would compare (measured here on the tiny scale).
    needed = {sweep._key(d): d for opts in per_workload.values() for _, d in opts}
    measured = run_cases(
        [sweep.SweepCase(f"c{i}", "ranking", d) for i, d in enumerate(needed.values())],
        TINY, {"bits_per_entry": 5.0}, workers=2)
    by_key = {sweep._key(d): r for d, r in zip(needed.values(), measured, strict=True)}
    ranking = sweep.rank(workloads, per_workload, by_key)
    assert len(ranking) == 2
    assert all(r[m]["gap"] >= 0 for r in ranking for m in ("search", *sweep.MODELS))
    # The search's recommendation is the first candidate of every workload.
    assert all(opts[0][0] == sweep.SEARCH for opts in per_workload.values())
    load = run_cases([replace(c, options={"phase": "load"}) for c in picked], TINY,
                     {"bits_per_entry": 5.0}, workers=2)
    monkeypatch.setattr(sweep, "ranking_workloads", lambda: workloads)  # the two measured
    text = sweep.render([*results, *measured, *load], TINY, {"bits_per_entry": 5.0}, "test", [])
    assert "| write_amp |" in text and "## Ranking" in text
    assert "The search's recommendation" in text and "finite model" in text
    assert np.isfinite([r["best_cost"] for r in ranking]).all()


STEADY_DESIGNS = {k: DESIGNS[k] for k in ("leveling", "tiering", "lazy-leveling", "bush-X3")}


@pytest.fixture(scope="module")
def steady():
    return {name: validate(d, scale=TINY, workload=Workload(0.3, 0.2, 0.4, 0.1))
            for name, d in STEADY_DESIGNS.items()}


@pytest.mark.parametrize("name", list(STEADY_DESIGNS))
def test_steady_window_spans_a_major_compaction_in_whole_buffers(steady, name) -> None:
    r = steady[name]
    # One major compaction when Level L holds one run; with a_L > 1 the window is the q_L
    # major compactions that fill one of its runs.
    assert r.phase == "steady" and r.detail("window_complete")
    assert r.detail("major_compactions") >= 1
    if name == "leveling":
        assert r.detail("major_compactions") == 1
    buffer_entries = TINY.system(5.0, None).buffer_entries
    assert r.window_writes > 0 and r.window_writes % buffer_entries == 0
    assert not r.checks.any
    doc = r.to_dict()
    assert doc["phase"] == "steady" and doc["window_writes"] == r.window_writes
    # The simulator grows the tree the engine ended with: the shapes agree exactly. It replays
    # the same window, so the engine's window write amplification is its specification's.
    assert r.simulated_relative_error.levels_match
    assert r.simulated.write_amp == pytest.approx(r.measured.write_amp, rel=1e-12)


def test_steady_write_amp_counts_whole_cycles_of_the_window(steady) -> None:
    """For leveling, a window from one merge into Level L to the next rewrites Level L once:
    the window's write amplification sits between the load average and the paper's bound."""
    load = validate(STEADY_DESIGNS["leveling"], scale=TINY, phase="load")
    r = steady["leveling"]
    assert load.measured.write_amp < r.measured.write_amp
    assert r.measured.write_amp <= r.predicted.write_amp * 1.25


def test_phase_is_checked() -> None:
    with pytest.raises(ValueError, match="phase must be one of steady, load"):
        validate(DESIGNS["leveling"], scale=TINY, phase="warm")


def test_ranking_workloads_are_the_figure_9_twelve_and_twelve_random() -> None:
    workloads = sweep.ranking_workloads()
    assert len(workloads) == 24 and len({name for name, _ in workloads}) == 24
    assert sum(name.startswith("9") for name, _ in workloads) == 12
    for _, w in workloads:
        assert sum(w.fractions) == pytest.approx(1.0, abs=1e-12)
    assert sweep.ranking_workloads() == workloads  # a fixed seed


def test_sweep_scales_shrink_the_buffer_not_the_data() -> None:
    scales = sweep.sweep_scales(Scale())
    assert [s.entries for s in scales] == [Scale().entries] * 3
    ratios = [s.entries * s.entry_bytes / s.buffer_bytes for s in scales]
    assert ratios[1] == pytest.approx(8 * ratios[0]) and ratios[2] == pytest.approx(64 * ratios[0])


def test_every_sweep_keeps_the_sections_it_does_not_write(tmp_path) -> None:
    """The families sweep rewrites the head and keeps every marked section (the skew section
    was once dropped); a marked sweep replaces its own section only."""
    from validation.sweep import MARKERS, existing_section, write_section

    doc = tmp_path / "VALIDATION.md"
    olds = {n: f"{b}\nold {n}\n{e}\n" for n, (b, e) in MARKERS.items()}
    doc.write_text("# Validation\n\nold head\n\n" + "\n".join(olds.values()))
    write_section(doc, "families", "# Validation\n\nnew head\n")
    text = doc.read_text()
    assert "new head" in text and "old head" not in text
    assert all(existing_section(doc, n) == old for n, old in olds.items())
    b, e = MARKERS["skew"]
    write_section(doc, "skew", f"{b}\nnew skew\n{e}\n")
    # "old skew\n": the skew-files section's "old skew-files" stays, as it should.
    assert "new skew" in doc.read_text() and "old skew\n" not in doc.read_text()
    assert "old skew-files" in doc.read_text()
    assert "new head" in doc.read_text() and "old files" in doc.read_text()


def test_the_ranking_validates_the_whole_level_search_pick_as_it_was_priced() -> None:
    """The ranking's candidates are whole-level designs of one model, validated as whole-level
    designs: the search's pick must be one (the default recommend may pick file-granular
    merges, which a whole-level validation would misreport; 9A picked one at this scale)."""
    from validation.scale import Scale
    from wacky_model.search import recommend

    system = Scale().system(5.0, None)
    workload = dict(sweep.ranking_workloads())["9A zero-result reads 90%"]
    assert recommend(workload, system).model == "files"  # what made the case
    _, per_workload = sweep.ranking_candidates(system, [("9A", workload)])
    (family, design), *_ = per_workload["9A"]
    picked = recommend(workload, system, granularity="level")
    assert family == sweep.SEARCH and design == picked.design and picked.model == "finite"
