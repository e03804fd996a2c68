"""The engine simulator's copy of the structure equations against cost_models, and the rule that
the engines import no other project package.

``native_engine/simulator.py`` specifies the engine's merge policy, so it lives beside the engine
and, like the engine, carries its own copy of Eq 8-10 and 13, the run rounding and the filter
allocations of App. C (a scalar port of ``native_engine/src/structure.h``). These tests check that
copy against ``cost_models.structure`` and ``cost_models.filters`` over a grid of designs and data
sizes, and that nothing in ``native_engine`` imports cost_models, wacky_model, validation or any
other project package.
"""

from __future__ import annotations

import ast
import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cost_models import filters
from cost_models import structure as pystruct
from cost_models.finite import REL_TOL
from native_engine import simulator as sim

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-9

Ts = (2.0, 3.0, 4.5, 10.0, 20.0, 64.0)
Cs = (1.0, 1.5, 3.0, 9.0, 40.0)
Xs = (1.0, 1.0 + 1e-7, 1.5, 2.0, 3.0)
Ks = (0.0, 0.5, 1.0)
Zs = (0.0, 0.5, 1.0)
N_BUFFERS = (0.0, 0.5, 2.0, 7.0, 64.0, 1000.0, 65536.0, 1e6, 1e8)


def _grid() -> tuple[np.ndarray, ...]:
    rows = [d for d in itertools.product(Ts, Cs, Xs, Ks, Zs, N_BUFFERS) if d[1] <= d[0] - 1.0]
    return tuple(np.array(col, dtype=float) for col in zip(*rows, strict=True))


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=1e-300)


def test_constants_are_cost_models() -> None:
    assert sim.TOLERANCE == REL_TOL
    assert sim.LEVEL_CEIL_TOLERANCE == pystruct.LEVEL_CEIL_TOLERANCE
    assert sim.X_ONE_TOLERANCE == pystruct.X_ONE_TOLERANCE
    assert sim.LN2_SQ == pytest.approx(float(filters.LN2_SQ), rel=1e-15)


@pytest.mark.parametrize("integer_runs", [False, True])
def test_structure_copy_matches_cost_models_on_a_grid(integer_runs: bool) -> None:
    """L (Eq 10), r_i (Eq 8), N_i/N (Eq 9) and the run bound a_i (Eq 13, rounded half up when
    ``integer_runs``) agree up to rounding noise; and the runs cost_models counts in a level are
    what the policy lets a level of c_i = N_i/F buffers hold, min(a_i, max(1, floor(c_i))).

    The engine sets the bound a_i uncapped (``ApplyShape`` in native_engine/src/merge_policy.cc,
    and so does this copy): a run is full at N_i / a_i. Its capacity check then holds at most
    max(1, floor(c_i)) runs in the level (every run is at least one buffer and the level
    overflows at N_i; see the next test). cost_models keeps a_i as ``Structure.run_bound`` and
    counts the capped number as ``Structure.runs``."""
    T, C, X, K, Z, nbuf = _grid()
    ref = pystruct.structure(T, C, X, K, Z, nbuf, integer_runs=integer_runs)
    bounds = getattr(ref, "run_bound", ref.runs)
    mismatches, capped = [], 0
    for j in range(T.size):
        knobs = (T[j], C[j], X[j], K[j], Z[j])
        L = sim.num_levels(T[j], C[j], X[j], nbuf[j])
        if L != int(ref.L[j]):
            mismatches.append((knobs, nbuf[j], "L", L, int(ref.L[j])))
            continue
        for i in range(L):
            ratio, fraction, bound = sim.level_at_depth(*knobs, L - 1 - i, integer_runs)
            # The policy's cap on cost_models' own N_i (the two agree to rounding noise, which
            # can move a floor at an exact multiple of F).
            buffers = float(ref.fractions[j, i]) * nbuf[j]
            held = min(bound, max(1.0, math.floor(buffers * (1.0 + sim.TOLERANCE))))
            capped += held < bound
            got = {"ratio": ratio, "fraction": fraction, "run bound": bound, "runs": held}
            want = {"ratio": ref.ratios[j, i], "fraction": ref.fractions[j, i],
                    "run bound": bounds[j, i], "runs": ref.runs[j, i]}
            mismatches += [(knobs, nbuf[j], i + 1, name, got[name], float(want[name]))
                           for name in got if not _close(got[name], float(want[name]))]
    assert not mismatches, mismatches[:10]
    assert capped > 100  # the grid has levels smaller than their run bound


@pytest.mark.parametrize("knobs", [(2, 1, 2, 1, 0), (10, 1, 1, 1, 1), (3, 2, 1, 1, 1),
                                   (4, 3, 1.5, 0.5, 1), (64, 9, 1, 1, 0.5), (5, 4, 2, 1, 1)])
def test_policy_holds_at_most_the_level_capacity_in_runs(knobs) -> None:
    """After every flush, a level of c_i buffers holds at most max(1, floor(c_i)) runs and at
    most its bound a_i: the cap the policy enforces without capping a_i itself."""
    F = 4
    replay = sim.PolicyReplay.start(knobs, F, 2, 5.0, None, False)
    worst = 0.0
    for _ in range(3000):
        replay.flush()
        for lvl in replay.levels:
            assert len(lvl.runs) <= lvl.max_runs
            can_hold = max(1.0, math.floor(lvl.capacity / F * (1 + sim.TOLERANCE)))
            assert len(lvl.runs) <= can_hold, (len(lvl.runs), lvl.capacity / F, lvl.max_runs)
            worst = max(worst, len(lvl.runs) / can_hold)
    assert worst > 0.5  # the bound is approached, not vacuous


def _shapes():
    """(fractions, integer run bounds) of every 6th distinct layout of the grid's designs."""
    T, C, X, K, Z, nbuf = _grid()
    seen = set()
    for j in range(T.size):
        L = sim.num_levels(T[j], C[j], X[j], nbuf[j])
        shape = [sim.level_at_depth(T[j], C[j], X[j], K[j], Z[j], L - 1 - i) for i in range(L)]
        layout = (tuple(s[1] for s in shape), tuple(s[2] for s in shape))
        if layout not in seen and L <= 12:
            seen.add(layout)
            if len(seen) % 6 == 1:
                yield list(layout[0]), list(layout[1])


def test_filter_allocations_match_cost_models_on_the_grid() -> None:
    """The Lagrangian and uniform allocations (App. C) and the bits per key of an FPR, for a sum
    of FPRs inside the range cost_models accepts and for memory budgets, on every grid shape."""
    count = 0
    for n, a in _shapes():
        total = sum(a)
        for p in (1e-4, 0.05, 0.5, 0.99 * total, total):
            got = sim.lagrangian_fprs(n, a, sum_fpr=p)
            assert got == pytest.approx(list(filters.lagrangian_fprs_for_sum(n, a, p)), rel=1e-7)
            got = sim.uniform_fprs(a, sum_fpr=p)
            assert got == pytest.approx(list(filters.uniform_fprs_for_sum(a, p)), rel=1e-12)
        for m in (0.0, 0.5, 5.0, 10.0, 32.0):
            got = sim.lagrangian_fprs(n, a, bits_per_entry=m)
            want = filters.lagrangian_fprs_for_memory(n, a, m)
            assert got == pytest.approx(list(want), rel=1e-7)
            got = sim.uniform_fprs(a, bits_per_entry=m)
            assert got == pytest.approx(list(filters.uniform_fprs_for_memory(a, m)), rel=1e-12)
            for p in got:
                assert sim.bloom_bits_per_key(p) == pytest.approx(
                    float(filters.bloom_bits_per_key(p)), rel=1e-12, abs=1e-12)
        count += 1
    assert count > 250


def _project_packages() -> set[str]:
    return {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"native_engine", "tests"}


def test_native_engine_imports_no_other_project_package() -> None:
    """The engines import no project Python: every import in native_engine/*.py is the standard
    library, numpy, or native_engine itself."""
    forbidden = _project_packages()
    assert {"cost_models", "wacky_model", "validation", "wacky_cli", "dashboard"} <= forbidden
    found = []
    for path in sorted((ROOT / "native_engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found += [(path.name, name) for name in names if name.split(".")[0] in forbidden]
    assert not found, found


def test_importing_the_simulator_loads_no_other_project_package() -> None:
    packages = sorted(_project_packages())
    code = ("import sys, native_engine.simulator\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({packages!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", out
