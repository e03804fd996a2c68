"""What the tuner charges: the write cost ratio phi."""

from __future__ import annotations

import pytest

from wacky_model.analysis import analyze
from wacky_model.search import recommend
from wacky_model.types import Design, System, Workload

W = Workload(point_reads=0.3, zero_reads=0.2, writes=0.5)


def test_phi_charges_writes_in_theta() -> None:
    d = Design(6, 5, 1, 1, 0)
    one = analyze(d, System(), W, realizable=True)
    three = analyze(d, System(write_cost_ratio=3.0), W, realizable=True)
    assert three.theta - one.theta == pytest.approx(2 * 0.5 * one.write_cost, rel=1e-12)
    assert three.finite.theta - one.finite.theta == pytest.approx(
        2 * 0.5 * one.finite.write_cost, rel=1e-12)
    # Costlier writes buy a design that writes less.
    cheap, dear = recommend(W, System()), recommend(W, System(write_cost_ratio=8.0))
    assert dear.analysis.finite.write_amp < cheap.analysis.finite.write_amp
    assert dear.cost == pytest.approx(dear.analysis.finite.theta, rel=1e-9)


@pytest.mark.parametrize("phi", [0.0, -1.0, float("nan")])
def test_phi_must_be_positive(phi) -> None:
    with pytest.raises(ValueError, match="write_cost_ratio"):
        System(write_cost_ratio=phi)


def test_cli_phi_error_names_the_flag(wacky) -> None:
    out = wacky("recommend", "--write-cost-ratio", "0", "--writes", "1")
    assert out.returncode == 2 and "--write-cost-ratio must be in (0, 1e6]" in out.stderr


def test_existing_reads_can_be_priced_at_their_expected_cost() -> None:
    d = Design(6, 5, 1, 1, 1)  # tiered: the worst case is well above the expected case
    worst = analyze(d, System(), W, realizable=True)
    half = analyze(d, System(), Workload(0.3, 0.2, 0.5, expected_point_reads=0.5),
                   realizable=True)
    assert worst.point_read_uniform < worst.point_read
    assert half.theta - worst.theta == pytest.approx(
        0.3 * 0.5 * (worst.point_read_uniform - worst.point_read), rel=1e-12)
    assert half.finite.theta - worst.finite.theta == pytest.approx(
        0.3 * 0.5 * (worst.finite.point_read_uniform - worst.finite.point_read), rel=1e-12)
    expected = Workload(0.6, 0.0, 0.4, expected_point_reads=1.0)
    rec = recommend(expected, System())
    assert rec.cost == pytest.approx(rec.analysis.finite.theta, rel=1e-9)
    with pytest.raises(ValueError, match="expected_point_reads"):
        Workload(0.5, 0.0, 0.5, expected_point_reads=1.5)
