"""T1 (docs/MODEL.md): insert throughput from write amplification and two calibrated CPU costs,
and against the native engine (issue 34)."""

from __future__ import annotations

import pytest

from cost_models.throughput import insert_rate, insert_seconds
from wacky_model.types import Design


def test_t1_is_the_put_plus_the_entries_merged() -> None:
    assert insert_seconds(10.0, 100.0, 50.0) == pytest.approx(600e-9)
    assert insert_rate(0.0, 100.0, 50.0) == pytest.approx(1e7)
    assert insert_rate(20.0, 100.0, 50.0) < insert_rate(10.0, 100.0, 50.0)
    with pytest.raises(ValueError, match="write_amp must be a finite number >= 0"):
        insert_seconds(-1.0, 100.0, 50.0)


def test_t1_predicts_another_designs_throughput_from_its_write_amplification() -> None:
    """Calibrated on Leveling T=10 with files, T1 at the engine's write amplification predicts
    Tiering's inserts per CPU second within 25% (the sweep reports wall-clock rates within 10%;
    CPU time keeps the test steady on a busy machine)."""
    from validation.throughput import measure

    m = measure(Design(4, 3, 1, 1, 1), "level", entries=200_000)
    assert m.predicted(m.write_amp) == pytest.approx(m.cpu_rate, rel=0.25)
    assert m.write_amp < 6 and m.model_write_amp > 1
