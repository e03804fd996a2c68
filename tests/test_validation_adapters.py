"""The engine adapters of validation (validation.adapters): one table, one refusal line that
names the knob, one Counters type, and the engine simulator as an engine of validate."""

from __future__ import annotations

import pytest

from validation.adapters import ADAPTERS, Counters, adapter_for
from validation.runner import validate
from validation.scale import Scale
from wacky_model.types import Compaction, Design


def test_every_engine_is_an_adapter_of_the_table() -> None:
    assert set(ADAPTERS) == {"native", "rocksdb", "rocksdb-stock", "simulator"}
    assert adapter_for("rocksdb", stock=True) is ADAPTERS["rocksdb-stock"]
    with pytest.raises(ValueError, match="stock applies to the rocksdb engine only"):
        adapter_for("native", stock=True)
    with pytest.raises(ValueError, match="engine must be one of"):
        adapter_for("leveldb")


@pytest.mark.parametrize(("name", "compaction", "hash_levels", "knob"), [
    ("native", Compaction(style="universal"), 0, "style="),
    ("rocksdb", Compaction("file"), 0, "level0_trigger"),
    ("rocksdb-stock", Compaction(), 2, "hash_levels=2"),
    ("simulator", Compaction("file"), 0, "granularity="),
])
def test_a_refusal_is_one_line_naming_the_knob(name: str, compaction: Compaction,
                                               hash_levels: int, knob: str) -> None:
    why = ADAPTERS[name].refuses(compaction, hash_levels)
    assert why is not None and "\n" not in why and knob in why
    assert ADAPTERS[name].refuses(Compaction()) is None


def test_counters_subtract_level_by_level() -> None:
    begin = Counters("blocks", 10, 4, (3, 3), cache_hits=(1,))
    end = Counters("blocks", 25, 6, (5, 9, 5), cache_hits=(4, 2), stall_seconds=1.5)
    d = end - begin
    assert (d.unit, d.written, d.flushed, d.merged_per_level) == ("blocks", 15, 2, (2, 6, 5))
    assert d.cache_hits == (3, 2) and d.stall_seconds == 1.5


def test_the_simulator_validates_a_whole_level_window() -> None:
    r = validate(Design(4, 3, 1, 0, 0), scale=Scale.small(), engine="simulator")
    assert r.engine == "simulator" and r.window_writes and r.measured.write_amp > 0
    assert r.detail("window_complete") and not r.checks.any
    assert abs(r.relative_error.write_amp) < 0.5
