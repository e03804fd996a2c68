"""The families case set (``wacky sweep families``), the head of docs/VALIDATION.md: every Figure
8 family at several T, the uniform-filter baselines and random designs at three buffer sizes (the
buffer, an eighth and a 64th of it); then, per workload, the five-knob search's recommendation
measured against each family at its best T: it must be the best or within 5% of it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from cost_models.limits import physical
from cost_models.structure import structure
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table
from wacky_model.families import TABLE
from wacky_model.presets import preset
from wacky_model.search import DesignSpace, recommend
from wacky_model.types import Design, System, Workload

# Every Figure 8 column that has a preset, at the base ratios its row of the family table gives.
FAMILY_T = {f.preset: f.sweep_T for f in TABLE if f.figure8 and f.preset}
FAMILY_PRESETS = tuple(FAMILY_T)
# The industry baselines: the family table's presets with uniform filters, at T = 10.
UNIFORM_PRESETS = tuple(f.preset for f in TABLE if f.preset and f.filters == "uniform")
SUMMARY_METRICS = ("write_amp", "point_read", "point_read_uniform", "zero_result_read",
                   "range_runs", "memory_bits_per_entry")
TARGETS = {"write_amp": 0.10, "point_read": 0.05, "zero_result_read": 0.15}
ZERO_READ_FLOOR = 0.01  # I/O: the zero-result target is 15% or this, whichever is larger
RANKING_SLACK = 0.05
MODELS = ("finite", "paper", "simulator")
BUFFER_DIVISORS = (1, 8, 64)  # the three entries-per-buffer ratios of the accuracy sweep
SEARCH = "search"  # the candidate name of the five-knob recommendation in the ranking
# The random designs' seed. The finite model was developed against seed 7's designs (and the
# Figure 8 families); this seed's designs were never looked at before the sweep that reports them.
HELD_OUT_SEED = 20261124


def _key(design: Design) -> tuple:
    return (*(round(v, 9) for v in design.knobs.values()), design.filters)


def _physical(design: Design, system: System) -> bool:
    s = structure(*design.knobs.values(), system.buffers, integer_runs=True)
    return bool(physical(s, system.buffers, system.entries))


def sweep_cases(system: System, *, n_random: int = 20,
                seed: int = HELD_OUT_SEED) -> list[SweepCase]:
    """Families at several T, uniform baselines, random designs; those whose tree cannot exist
    at this size (cost_models.limits) are left out, random ones redrawn."""
    cases = [SweepCase(f"{name} T={T:g}", "family", preset(name, T, system))
             for name in FAMILY_PRESETS for T in FAMILY_T[name]]
    cases += [SweepCase(f"{name} T=10", "uniform filters", preset(name, 10.0, system))
              for name in UNIFORM_PRESETS]
    cases = [c for c in cases if _physical(c.design, system)]
    rng = np.random.default_rng(seed)
    drawn = 0
    while drawn < n_random:
        T = float(np.round(rng.uniform(2, 12), 2))
        C = float(np.round(rng.uniform(1, 10), 2))
        X = float(np.round(rng.choice([1.0, rng.uniform(1, 2.5)]), 2))
        K, Z = (float(np.round(v, 2)) for v in rng.uniform(0, 1, size=2))
        design = Design(T, C, X, K, Z)
        if _physical(design, system):
            drawn += 1
            cases.append(SweepCase(f"random {drawn}", "random", design))
    return cases


def ranking_workloads(n_random: int = 12, seed: int = 11) -> list[tuple[str, Workload]]:
    """The 12 workloads of Figure 9 (A, B, C), then ``n_random`` seeded mixes (a flat Dirichlet;
    ranges of 0, 1 or 10 blocks)."""
    out = [(f"9A zero-result reads {1 - w:.0%}", Workload(0, 1 - w, w, 0))
           for w in (0.9, 0.7, 0.5, 0.3, 0.1)]
    out += [(f"9B existing reads {1 - w:.0%}", Workload(1 - w, 0, w, 0))
            for w in (0.7, 0.5, 0.3, 0.1)]
    out += [(f"9C range reads {v:.1%}", Workload(0.5 - v / 2, 0.0, 0.5 - v / 2, v))
            for v in (0.001, 0.01, 0.1)]
    rng = np.random.default_rng(seed)
    for i in range(n_random):
        mix = np.round(rng.dirichlet(np.ones(4)), 3)
        mix[2] += 1.0 - mix.sum()  # exact sum; writes absorb the rounding
        blocks = float(rng.choice([0.0, 1.0, 10.0]))
        out.append((f"random {i + 1} ({', '.join(f'{x:.2f}' for x in mix)}; {blocks:g} blocks)",
                    Workload(*(float(x) for x in mix), range_blocks=blocks)))
    return out


def ranking_candidates(system: System, workloads: Sequence[tuple[str, Workload]]
                       ) -> tuple[list[SweepCase], dict[str, list[tuple[str, Design]]]]:
    """Per workload: the five-knob search's recommendation (finite-N model, whole levels), then
    each family at its own best T by the same model."""
    space = DesignSpace.build(system)
    cases: dict[tuple, SweepCase] = {}
    per_workload: dict[str, list[tuple[str, Design]]] = {}
    for wname, workload in workloads:
        rec = recommend(workload, system, space=space, granularity="level")
        per_workload[wname] = options = [(SEARCH, rec.design)] + [
            (alt.family, alt.design) for alt in rec.alternatives]
        for family, design in options:
            label = rec.family if family == SEARCH else family
            cases.setdefault(_key(design), SweepCase(f"{label} T={design.T:.3g}", "ranking",
                                                     design))
    return list(cases.values()), per_workload


def summarize(results: Sequence[SweepResult]) -> list[dict[str, Any]]:
    """Per metric and model: median and worst |relative error|, and the worst design."""
    rows = []
    for metric in SUMMARY_METRICS:
        row: dict[str, Any] = {"metric": metric}
        for model in MODELS:
            errs = [(abs(e), r.name) for r in results
                    if (e := r.errors(model).metric(metric)) is not None]
            if not errs:
                continue
            worst = max(errs)
            row[model] = {"median": statistics.median(e for e, _ in errs), "worst": worst[0],
                          "worst_design": worst[1]}
        rows.append(row)
    return rows


def _zero_read_gap(r: SweepResult, model: str) -> float:
    return abs(r.source(model).zero_result_read - r.result.measured.zero_result_read)


def _zero_read_within(results: Sequence[SweepResult], model: str) -> float:
    """Share of designs whose zero-result error is within max(15%, 0.01 I/O)."""
    ok = sum(_zero_read_gap(r, model)
             <= max(ZERO_READ_FLOOR, 0.15 * r.result.measured.zero_result_read) for r in results)
    return ok / len(results) if results else 0.0


def rank(workloads: Sequence[tuple[str, Workload]],
         per_workload: dict[str, list[tuple[str, Design]]],
         by_key: dict[tuple, SweepResult]) -> list[dict[str, Any]]:
    """Per workload: the search's recommendation ("search") and each model's pick (the
    candidate it predicts cheapest), each against the measured best of the candidates."""
    rows = []
    for wname, workload in workloads:
        # A candidate the engine could not build at this scale is not in by_key.
        options = [(fam, by_key[_key(d)]) for fam, d in per_workload[wname]
                   if _key(d) in by_key]
        best_fam, best = min(options, key=lambda o: o[1].theta("measured", workload))
        best_cost = best.theta("measured", workload)
        row: dict[str, Any] = {"workload": wname, "measured_best": f"{_label(best_fam, best)}",
                               "best_cost": best_cost}
        row[SEARCH] = (_scored(*options[0], workload, best_cost) if options[0][0] == SEARCH
                       else {"pick": "search: refused at this scale", "cost": math.inf,
                             "gap": math.inf, "ok": False})
        for model in MODELS:
            pick = min(options, key=lambda o, m=model: o[1].theta(m, workload))
            row[model] = _scored(*pick, workload, best_cost)
        rows.append(row)
    return rows


def _scored(family: str, pick: SweepResult, workload: Workload,
            best_cost: float) -> dict[str, Any]:
    cost = pick.theta("measured", workload)
    return {"pick": _label(family, pick), "cost": cost, "gap": cost / best_cost - 1.0,
            "ok": cost <= (1.0 + RANKING_SLACK) * best_cost}


def _label(family: str, r: SweepResult) -> str:
    d = r.case.design
    return (f"search: T={d.T:.3g} C={d.C:.3g} X={d.X:.3g} K={d.K:.2g} Z={d.Z:.2g}"
            if family == SEARCH else f"{family} (T={d.T:.3g})")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _met(ok: bool) -> str:
    return "met" if ok else "missed"


MODEL_LABELS = {"finite": "finite model", "paper": "paper model", "simulator": "engine simulator"}


def _accuracy_lines(results: Sequence[SweepResult]) -> list[str]:
    """The accuracy-per-metric and fidelity-target tables."""
    summary = summarize(results)
    accuracy = []
    for row in summary:
        cells = [row["metric"]]
        for m in MODELS:
            x = row.get(m)
            cells += [_pct(x["median"]), _pct(x["worst"]), x["worst_design"]] if x else ["-"] * 3
        accuracy.append(cells)
    med = {row["metric"]: row for row in summary}
    targets = []
    for metric, limit in TARGETS.items():
        meds = {m: med[metric][m]["median"] for m in MODELS}
        if metric != "zero_result_read":
            targets.append([f"median {metric} error <= {_pct(limit)}",
                            *(f"{_pct(meds[m])} ({_met(meds[m] <= limit)})" for m in MODELS)])
            continue
        gaps = {m: statistics.median(_zero_read_gap(x, m) for x in results) for m in MODELS}
        targets += [
            [f"median zero-result error <= 15% or <= {ZERO_READ_FLOOR} I/O", *(
                f"{_pct(meds[m])}, {gaps[m]:.3g} I/O "
                f"({_met(meds[m] <= 0.15 or gaps[m] <= ZERO_READ_FLOOR)})" for m in MODELS)],
            ["zero-result reads within max(15%, 0.01 I/O), share of designs",
             *(_pct(_zero_read_within(results, m)) for m in MODELS)]]
    targets += [["worst write_amp error <= 25%", *(
                    f"{_pct(w)} ({_met(w <= 0.25)})"
                    for w in (med["write_amp"][m]["worst"] for m in MODELS))],
                ["runs per level match exactly (designs)",
                 *(f"{sum(r.errors(m).levels_match for r in results)}/{len(results)}"
                   for m in MODELS)]]
    return [*table(["metric", *(label for m in MODELS for label in (
                        f"{MODEL_LABELS[m]} median", "worst", "worst design"))], accuracy),
            "", *table(["target", *(MODEL_LABELS[m] for m in MODELS)], targets)]


def _ranking_lines(ranking: Sequence[dict[str, Any]]) -> list[str]:
    passed = {m: sum(r[m]["ok"] for r in ranking) for m in (SEARCH, *MODELS)}
    n = len(ranking)
    picks = (SEARCH, "paper", "simulator")
    rows = [[r["workload"], r["measured_best"], *(
        cell for m in picks for cell in (r[m]["pick"], _pct(r[m]["gap"]),
                                         "yes" if r[m]["ok"] else "**no**"))] for r in ranking]
    failures = [r for r in ranking if not r[SEARCH]["ok"]]
    return [
        f"For each workload, the design the five-knob search recommends (finite-N model) and "
        f"each family at its own best T (same model) were measured at steady state. The "
        f"recommendation must be the best of them by measured cost (Θ from measured I/O per "
        f"operation), or within {_pct(RANKING_SLACK)} of it. **The search's recommendation: "
        f"{passed[SEARCH]}/{n} workloads pass ({_pct(passed[SEARCH] / n)}; target 90%).** "
        f"Each model's own pick among the same candidates: " + ", ".join(
            f"{MODEL_LABELS[m]} {passed[m]}/{n}" for m in MODELS) + ".",
        "",
        *table(["workload", "measured best", "search's recommendation", "gap", "ok",
                "paper model's pick", "gap", "ok", "simulator's pick", "gap", "ok"], rows),
        "",
        f"Failures of the search's recommendation: {len(failures)}.",
        *(f"- {r['workload']}: recommended {r[SEARCH]['pick']} measured "
          f"{_pct(r[SEARCH]['gap'])} above {r['measured_best']}." for r in failures),
    ]


def _design_lines(results: Sequence[SweepResult]) -> list[str]:
    rows = []
    for r in results:
        d, f, p, s, m = (r.case.design, r.result.predicted, r.result.paper, r.result.simulated,
                         r.result.measured)
        rows.append([
            r.name, r.case.group, *(f"{v:.4g}" for v in (d.T, d.C, d.X, d.K, d.Z)), d.filters,
            r.result.window_writes or "-",
            r.result.detail("level_L_runs_at_start") if r.result.window_writes else "-",
            f"{f.write_amp:.3g} / {p.write_amp:.3g} / {s.write_amp:.3g} / {m.write_amp:.3g}",
            f"{f.point_read:.4g} / {m.point_read:.4g}",
            f"{f.zero_result_read:.3g} / {p.zero_result_read:.3g} / {m.zero_result_read:.3g}"])
    return table(["design", "group", "T", "C", "X", "K", "Z", "filters", "window inserts",
                  "Level-L runs at start", "write amp (finite / paper / simulator / measured)",
                  "Level-L read (finite / measured)",
                  "zero-result read (finite / paper / measured)"], rows)


def _scale_text(scale: Scale) -> str:
    F = scale.buffer_bytes // scale.entry_bytes
    return f"{scale.buffer_bytes:,} B buffer, N/F = {scale.entries / F:,.0f}"


def render(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float], command: str,
           refused: Refused) -> str:
    """The document's head: the steady phase at each scale, the ranking, the load phase and the
    designs left out."""
    steady = [r for r in results if r.case.group != "ranking"
              and r.case.options.get("phase") != "load"]
    by_scale = [(sc, rs) for sc in sweep_scales(scale)
                if (rs := [r for r in steady if r.case.options["scale"] == sc])]
    workloads = ranking_workloads()
    _, per_workload = ranking_candidates(
        scale.system(budget.get("bits_per_entry"), budget.get("sum_fpr")), workloads)
    (scale, first), everything = by_scale[0], [r for _, rs in by_scale for r in rs]
    ranking = rank(workloads, per_workload, {_key(r.case.design): r for r in [
        *first, *(r for r in results if r.case.group == "ranking")]})
    windows = [r.result.window_writes for r in everything if r.result.window_writes]
    majors = [r.result.detail("major_compactions") for r in everything
              if r.result.detail("major_compactions") is not None]
    incomplete = sum(not r.result.detail("window_complete") for r in everything
                     if r.result.window_writes)
    about = (f"{len(first)} designs, each preloaded with {scale.entries:,} entries of "
             f"{scale.entry_bytes} B (blocks of {scale.block_bytes} B, filter budget {budget}) at "
             + "; ".join(_scale_text(sc) for sc, _ in by_scale)
             + ", then measured at steady state: a window of inserts between two run boundaries "
             f"of the largest level, with {scale.reads:,} reads of each kind spread over it "
             f"(README, 'Checking the model on the engine').")
    if windows:  # a line of its own
        about += (f"\nWindows held {min(windows):,} to {max(windows):,} inserts (median "
                  f"{int(statistics.median(windows)):,}) and {min(majors)} to {max(majors)} "
                  f"merges into the largest level; {incomplete} of {len(windows)} windows "
                  f"reached their cap before a run boundary.")
    lines = [
        "Errors are |model - measured| / measured. The **finite** model "
        "(`cost_models/finite.py`, docs/MODEL.md) is the model the design search optimizes by "
        "default: a closed-form expectation over the fill cycle at this N, derived on paper; its "
        "errors are the evidence of accuracy. Its random designs come from a seed never used "
        "while it was derived; the Figure 8 families (and seed 7's designs) were compared with "
        "the engine simulator during its derivation, and nothing was fitted. The **paper** "
        "model is Eq 8-16 with whole run counts, asked at N. The **engine "
        "simulator** (`native_engine/simulator.py`) replays the engine's own merge policy "
        "(same planner, tolerances and shape rule) on entry counts, growing the tree the engine "
        "ended with, and replays the same steady window for its write amplification; its "
        "agreement checks that the engine does what its specification says and is **not** "
        "evidence that any model is accurate.",
    ]
    for sc, rs in by_scale:
        lines += ["", f"## Accuracy per metric (steady state, {_scale_text(sc)})", "",
                  *_accuracy_lines(rs)]
    if len(by_scale) > 1:
        lines += ["", "## Accuracy per metric (steady state, all three scales together)", "",
                  *_accuracy_lines(everything)]
    lines += ["", f"## Ranking (steady state, {_scale_text(scale)})", "",
              *_ranking_lines(ranking)]
    for sc, rs in by_scale:
        lines += ["", f"## Every design (steady state, {_scale_text(sc)})", "",
                  *_design_lines(rs)]
    lines += [
        "",
        f"## Load phase: averages over the load into an empty tree ({_scale_text(scale)})",
        "",
        "The same designs measured the old way (`wacky validate --phase load`): costs "
        "averaged over loading N entries into an empty tree, and reads after the load.",
        "",
        *_accuracy_lines([r for r in results if r.case.options.get("phase") == "load"]),
    ]
    if refused:
        lines += ["", "## Designs left out", "",
                  "Refused by the model's physical limits (cost_models.limits) at a scale, or "
                  "failed, so neither measured nor counted above:", ""]
        lines += [f"- {name}: {message}" for name, message in refused]
    return section("families", "Validation: the models against the engine", command, about,
                   lines)


def sweep_scales(scale: Scale) -> list[Scale]:
    """``scale`` with its buffer divided by 1, 8 and 64, while it holds a block."""
    return [replace(scale, buffer_bytes=scale.buffer_bytes // k)
            for k in BUFFER_DIVISORS if scale.buffer_bytes // k >= scale.block_bytes]


def _refuse(message: str) -> None:
    raise ValueError(message)


def cases(scale: Scale, budget: dict[str, float], *, n_random: int = 20) -> list[SweepCase]:
    """The steady phase at each of :func:`sweep_scales` (refused where not physical), the
    ranking's other candidates, and the load phase."""
    system = scale.system(budget.get("bits_per_entry"), budget.get("sum_fpr"))
    designs = sweep_cases(system, n_random=n_random)
    out = []
    for sc in sweep_scales(scale):
        sc_system = sc.system(budget.get("bits_per_entry"), budget.get("sum_fpr"))
        for c in designs:
            if _physical(c.design, sc_system):
                out.append(replace(c, options={"scale": sc}))
            else:  # listed with the refused ones
                out.append(SweepCase(f"{c.name} ({_scale_text(sc)})", "refused", c.design,
                                     {"message": "not physical at this scale"}, _refuse))
    extra, _ = ranking_candidates(system, ranking_workloads())
    seen = {_key(c.design) for c in designs}
    out += [c for c in extra if _key(c.design) not in seen]
    return out + [replace(c, options={"phase": "load"}) for c in designs]


SETS = {"families": SetCode(cases, render)}
