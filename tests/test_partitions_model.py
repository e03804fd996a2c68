"""OHDB's partitioned level 0 in the partial-merge model (docs/MODEL.md P6) and against the
native engine (issue 33)."""

from __future__ import annotations

import math

import pytest

from cost_models.partial import LeveledFiles, partition_file, window_costs, window_costs_many
from wacky_model.types import Compaction


def _policy(P: int, k: int = 1) -> LeveledFiles:
    return LeveledFiles(T=10.0, C=9.0, flush_entries=1024.0, file_entries=256.0, level0_runs=k,
                        targets="wacky", flush_writes=k > 1, boundary_files=1.0,
                        l0_partitions=P)


def test_partition_files_end_at_the_partition_edges() -> None:
    assert partition_file(10_000.0, 256.0, 1) == 256.0
    assert partition_file(1_000.0, 256.0, 10) == 100.0  # less than a file per partition
    assert partition_file(10_000.0, 256.0, 10) == pytest.approx(1000 / 4)  # ceil(1000/256) = 4
    assert partition_file(2_560.0, 256.0, 10) == pytest.approx(256.0)  # a whole file each
    assert partition_file(0.0, 256.0, 10) == 256.0


@pytest.mark.parametrize("k", [1, 4])
def test_partitions_write_the_same_bytes_and_merge_level_1_p_times(k) -> None:
    one, ten = (window_costs(_policy(P, k), 200_000, 200_000) for P in (1, 10))
    assert ten.level_merges[0] == pytest.approx(10 * one.level_merges[0])
    assert one.level_merges[0] == pytest.approx(1 / k, rel=0.01)
    # the same bytes into Level 1; a little more into Level 2 (smaller files drain)
    assert ten.level_write_amp[0] == pytest.approx(one.level_write_amp[0], rel=0.02)
    assert ten.write_amp == pytest.approx(one.write_amp, rel=0.02)
    assert ten.level_merges[1] >= one.level_merges[1]


def test_the_batch_walk_leaves_partitions_to_the_scalar_walk() -> None:
    policies = [_policy(1), _policy(10), _policy(1, 4)]
    assert window_costs_many(policies, 200_000, 100_000) == [
        window_costs(p, 200_000, 100_000) for p in policies]


def test_bad_partitions_are_refused() -> None:
    with pytest.raises(ValueError, match=r"l0_partitions must be a whole number in \[1, 1024\]"):
        _policy(0)
    from wacky_model.types import Compaction

    with pytest.raises(ValueError, match="l0_partitions > 1 .* needs granularity='file'"):
        Compaction(l0_partitions=4)
    with pytest.raises(ValueError, match=r"l0_partitions must be a whole number"):
        Compaction("file", l0_partitions=2.5)  # type: ignore[arg-type]


def test_the_engine_bears_out_the_model_on_bytes_and_merges(tmp_path) -> None:
    """The case set's P = 10, trigger 1 run: bytes per level within 15% of P6, merges into
    Level 1 about P per flush, and the same bytes as P = 1 within 5%."""
    from validation.partitions import DESIGN, OhdbCase, ohdb_scale
    from validation.runner import validate
    from validation.scale import Scale

    runs = {}
    for P in (1, 10):
        runs[P] = validate(DESIGN, scale=ohdb_scale(Scale()), bits_per_entry=5,
                           compaction=OhdbCase(P, 1).compaction, workdir=tmp_path)
    lv = runs[10].detail("per_level")
    for m, p in zip(lv["write_amp"], lv["model_write_amp"], strict=True):
        assert m == pytest.approx(p, rel=0.15)
    assert lv["merges_per_flush"][0] == pytest.approx(10, rel=0.1)
    assert runs[1].detail("per_level")["merges_per_flush"][0] == pytest.approx(1, rel=0.05)
    assert math.isclose(runs[10].measured.write_amp, runs[1].measured.write_amp, rel_tol=0.05)


def test_stock_rocksdb_takes_partitions_through_the_bridge(tmp_path) -> None:
    """The export grades partitions approximate (compaction outputs cut, flushes and the
    level-0 trigger not), refuses them for universal compaction, and a stock run through the
    one runner opens RocksDB with the bridge's partitioner (rocksdb_bridge/src/
    key_partitioner.h; database_test.cc checks the files it cuts)."""
    from rocksdb_helpers import bridge

    from validation.runner import validate
    from validation.scale import Scale
    from wacky_model.rocksdb_options import rocksdb_export
    from wacky_model.types import Design, System

    e = rocksdb_export(Design(10, 9, 1, 0, 0), System(), level0_trigger=4, l0_partitions=10)
    assert e.partitions == 10 and e.grade == "approximate"
    assert any(g.knob == "l0_partitions" and "sst_partitioner_factory" in g.note
               for g in e.grades)
    assert "sst_partitioner_factory=" not in e.options_file()  # said in a comment, not set
    with pytest.raises(ValueError, match="partitioned level 0 .* with RocksDB's universal "
                       "compaction .* is not supported"):
        rocksdb_export(Design(4, 3, 1, 1, 1), System(), l0_partitions=10)
    bridge()
    scale = Scale(entries=20_000, buffer_bytes=32 << 10, reads=500)
    runs = [validate(Design(10, 9, 1, 0, 0), engine="rocksdb", stock=True, scale=scale,
                     compaction=Compaction("file", 8 << 10, 4, l0_partitions=p),
                     workdir=tmp_path) for p in (1, 10)]
    assert runs[1].detail("rocksdb_grade") == "approximate"
    assert runs[1].predicted.write_amp == runs[0].predicted.write_amp  # P6: the same bytes
    assert runs[1].measured.write_amp == pytest.approx(runs[0].measured.write_amp, rel=0.1)
    assert runs[1].checks == runs[0].checks
