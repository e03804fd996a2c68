"""cost_models.tidal (docs/MODEL.md F1-F5): the floating model's invariants. Its accuracy
against the engine is `wacky sweep tidal`'s (docs/VALIDATION.md)."""

from __future__ import annotations

import pytest

from cost_models.partial import LeveledFiles, window_costs
from cost_models.tidal import (
    Floating,
    FloatTree,
    checks_by_level,
    float_costs,
    float_tree,
    placement_bound,
)
from wacky_model.types import KeyDistribution

ZIPF = KeyDistribution.parse("zipf:0.99")
UNIFORM = KeyDistribution.parse("uniform")


@pytest.fixture(scope="module")
def tree() -> FloatTree:
    policy = LeveledFiles(T=10, C=9, flush_entries=64, file_entries=16, targets="wacky",
                          flush_writes=False, boundary_files=1.0)
    return float_tree(window_costs(policy, 20_000, 2_000, settled=True), policy)


def test_checks_grow_with_depth(tree: FloatTree) -> None:
    chk = checks_by_level(tree)
    assert chk[0] == 1.0
    assert all(b > a for a, b in zip(chk, chk[1:], strict=False))


def test_without_floating_nothing_moves(tree: FloatTree) -> None:
    c = float_costs(tree, None, ZIPF, 20_000, 9.0, 30)
    assert c.probes_on == pytest.approx(c.probes_off, rel=1e-12)
    assert c.floats_per_flush == 0 and c.extra_writes == 0


def test_floating_under_zipf_saves_checks_and_costs_writes(tree: FloatTree) -> None:
    c = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 60)
    assert c.probes_on < c.probes_off
    assert 0 < c.float_writes < c.extra_writes
    assert c.floats_per_flush <= 1.0 + 1e-9  # per_flush 1


def test_the_floor_is_below_what_floating_reaches(tree: FloatTree) -> None:
    floor = placement_bound(tree, ZIPF, 20_000)
    for per_flush in (1, 8):
        c = float_costs(tree, Floating(gamma=1.0, per_flush=per_flush), ZIPF, 20_000, 9.0, 60)
        assert 1.0 <= floor < c.probes_on
    # Uniform reads: placing keys buys (almost) nothing.
    assert placement_bound(tree, UNIFORM, 20_000) == pytest.approx(
        float_costs(tree, None, UNIFORM, 20_000, 9.0, 1).probes_off, rel=0.01)


def test_a_high_gamma_floats_nothing(tree: FloatTree) -> None:
    c = float_costs(tree, Floating(gamma=1e6), ZIPF, 20_000, 9.0, 30)
    assert c.floats_per_flush == 0
    assert c.probes_on == pytest.approx(c.probes_off)


def test_skew_pays_more_than_uniform(tree: FloatTree) -> None:
    skewed = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 60)
    flat = float_costs(tree, Floating(gamma=1.0), UNIFORM, 20_000, 9.0, 60)
    assert skewed.probe_change < flat.probe_change


def test_a_loads_writes_hold_floating_back(tree: FloatTree) -> None:
    fresh = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 40)
    loaded = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 40,
                         writes_before=200_000)
    assert loaded.floats_per_flush < fresh.floats_per_flush


@pytest.mark.parametrize("kwargs, name", [
    ({"gamma": 0.0}, "gamma"), ({"gamma": 1.0, "per_flush": 0}, "per_flush"),
    ({"gamma": 1.0, "probe_cost": 0.0}, "probe_cost")])
def test_bad_options_are_named(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Floating(**kwargs)


def test_bad_windows_are_named(tree: FloatTree) -> None:
    with pytest.raises(ValueError, match="reads_per_insert"):
        float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 0.0, 10)
    with pytest.raises(ValueError, match="flushes"):
        float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 0)
    with pytest.raises(ValueError, match="one value per level"):
        FloatTree((10.0, 100.0), (0.5,), (1.0, 1.0), 4.0, 2.0)
