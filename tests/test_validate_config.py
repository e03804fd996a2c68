"""validate() opens a Configuration (issue 30): an engine that cannot build one says why in one
line naming the knob, and the configuration's design, compaction and filter memory are what
runs."""

from __future__ import annotations

import pytest

from validation.runner import cannot_build, validate
from validation.scale import Scale
from wacky_model.config import Configuration, Memory
from wacky_model.types import Compaction, Design

TINY = Scale(entries=20_000, buffer_bytes=1 << 14, reads=300, mix_ops=0)
LEVELING = Design(4.0, 3.0, 1.0, 0.0, 0.0)


@pytest.mark.parametrize(("engine", "stock", "compaction", "hash_levels", "knob"), [
    ("native", False, Compaction(style="universal"), 0, "style='universal'"),
    ("native", False, Compaction("file", sizing="dynamic", level_base_bytes=1 << 20), 0,
     "sizing='dynamic'"),
    ("rocksdb", True, Compaction(), 2, "hash_levels=2"),
    ("rocksdb", False, Compaction("file", level1_runs=4), 0, "level0_trigger"),
])
def test_an_engine_names_the_knob_it_cannot_build(engine: str, stock: bool,
                                                   compaction: Compaction, hash_levels: int,
                                                   knob: str) -> None:
    why = cannot_build(engine, stock, compaction, hash_levels)
    assert why is not None and knob in why and "\n" not in why
    config = Configuration(LEVELING, compaction, Memory(1 << 14, 5.0, hash_levels))
    with pytest.raises(ValueError, match=f"the {engine} engine cannot build this "
                                         f"configuration: .*{knob}"):
        validate(config, engine=engine, stock=stock, scale=TINY)


def test_what_each_engine_builds_is_not_refused() -> None:
    assert cannot_build("native", False, Compaction("file", level1_runs=4)) is None
    assert cannot_build("rocksdb", True, Compaction(style="universal")) is None
    assert cannot_build("rocksdb", True, Compaction("file", sizing="dynamic",
                                                    level_base_bytes=1 << 20)) is None


def test_a_configuration_runs_its_design_compaction_and_filter_memory() -> None:
    config = Configuration(LEVELING, Compaction("file", level1_runs=2), Memory(1 << 20, 7.0))
    got = validate(config, scale=TINY)
    assert got.design == LEVELING
    assert got.budget == {"bits_per_entry": 7.0}
    assert got.model == "partial"  # the file-granular window, not the whole-level one
    assert got.detail("compaction")["level1_runs"] == 2
    assert not got.checks.any
