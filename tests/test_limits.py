"""Designs whose tree cannot exist are refused by analyze and never picked by the search."""

from __future__ import annotations

import numpy as np
import pytest

from cost_models.limits import MAX_RUNS_PER_LEVEL, physical
from cost_models.structure import structure
from wacky_model.analysis import analyze
from wacky_model.families import TABLE
from wacky_model.presets import preset
from wacky_model.search import recommend
from wacky_model.types import Design, System, Workload

PAPER = System()


@pytest.mark.parametrize(
    "design, message",
    [
        (Design(2, 1, 64, 1, 1), "Level 1 would hold 1.84e+19 runs, more than the limit of runs"),
        (Design(1e12, 1e12, 1, 0, 0), "T must be at most the data size in buffers, N/F = 32768"),
        (Design(4, 1e6, 1, 0, 1), "C must be at most the data size in buffers"),
    ],
)
def test_trees_that_cannot_exist_are_refused_naming_the_knob(design, message):
    with pytest.raises(ValueError, match="lower|at most") as err:
        analyze(design, PAPER)
    assert message in str(err.value)


TINY = System(entries=30_000, buffer_bytes=16 << 10)  # 128 entries per buffer


def test_a_level_cannot_hold_more_runs_than_buffers():
    """QLSM-bush at T=4 on 30,000 entries asks for 255 runs (Eq 13) in a Level 1 of 233 entries,
    1.8 buffers: a run is at least one buffer, so the level holds one run, as in the engine."""
    design = preset("qlsm-bush", 4, TINY)
    s = structure(*design.knobs.values(), TINY.buffers, integer_runs=True)
    held = s.fractions * TINY.entries
    assert np.any(s.valid & (s.run_bound > held)) and not np.any(s.runs > MAX_RUNS_PER_LEVEL)
    assert np.all(~s.valid | (s.runs <= np.maximum(1, np.floor(s.fractions * TINY.buffers))))
    assert s.run_bound[0] == 255 and s.runs[0] == 1
    assert analyze(design, TINY, realizable=True).levels[0].runs == 1


def test_every_family_preset_is_physical_at_the_papers_size():
    for family in TABLE:
        if family.preset is not None:
            for T in family.sweep_T:
                analyze(preset(family.preset, T, PAPER), PAPER)  # raises if not physical


def test_the_sweep_leaves_out_what_cannot_exist_at_its_size():
    from validation.families import sweep_cases

    cases = sweep_cases(TINY, n_random=5)
    # QLSM-bush at T=4 exists at this size (its Level 1 holds one run, see above); nothing in
    # the sweep asks the engine for more than its limit of runs per level.
    assert "qlsm-bush T=4" in {c.name for c in cases}
    assert sum(c.group == "random" for c in cases) == 5
    for case in cases:
        analyze(case.design, TINY, realizable=True)


@pytest.mark.parametrize("writes", [1.0, 0.999, 0.5])
def test_the_search_only_returns_physical_designs(writes):
    """Write-only workloads pull towards huge ratios and run counts; the limits stop them."""
    for system in (PAPER, System(entries=5_000, buffer_bytes=16 << 10)):
        rec = recommend(Workload(zero_reads=1 - writes, writes=writes), system)
        d = rec.design
        s = structure(d.T, d.C, d.X, d.K, d.Z, system.buffers, integer_runs=True)
        assert physical(s, system.buffers, system.entries)
        assert rec.cost < 1e6
