"""OHDB's partitioned level 0 as a knob of the search (issue 33; docs/MODEL.md P6): every native
file-granular pick is priced with and without partitions through the one pipeline, the report
says why they were or were not taken, and the search takes them only for a gain above
PARTITION_GAIN."""

from __future__ import annotations

from dataclasses import replace

import pytest

from wacky_model import granularity
from wacky_model.config import Configuration, Memory
from wacky_model.pricing import price
from wacky_model.search import recommend
from wacky_model.types import KeyDistribution, System, Workload

SYSTEM = System(entries=2e6, entry_bytes=128, buffer_bytes=1 << 20, bits_per_entry=6.0)
MIX = Workload(point_reads=0.3, zero_reads=0.2, writes=0.4, range_reads=0.1)
WORKLOADS = {
    "uniform": MIX,
    "writes": replace(MIX, point_reads=0.05, zero_reads=0.05, writes=0.85, range_reads=0.05),
    "zipf reads": replace(MIX, read_keys=KeyDistribution("zipf", 0.9)),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_partitions_are_priced_on_the_pick_and_declined_with_the_reason(name: str) -> None:
    w = WORKLOADS[name]
    rec = recommend(w, SYSTEM, granularity="file")
    report = rec.granularity["file"]["partitions"]
    assert report is not None and not report["chosen"]
    assert rec.compaction.l0_partitions == 1
    # The report's figures are the one pipeline's, for the pick with ten partitions.
    c = replace(rec.compaction, l0_partitions=granularity.PARTITIONS_TRIED)
    on = price(Configuration(rec.design, c, Memory.of(rec.system)), w, SYSTEM)
    assert report["theta_with"] == pytest.approx(on.theta, rel=1e-9)
    assert report["write_amp_with"] == pytest.approx(on.write_amp, rel=1e-9)
    # P6: ten partitions merge into Level 1 ten times as often, each a tenth as large...
    assert report["level1_merges_with"] == pytest.approx(
        granularity.PARTITIONS_TRIED * report["level1_merges_without"], rel=0.05)
    # ...and write about the same bytes, so Θ changes by less than the gain needed.
    assert abs(report["theta_with"] / report["theta_without"] - 1) < granularity.PARTITION_GAIN
    assert "without OHDB's partitioned level 0" in rec.granularity["reason"]


def test_the_search_takes_partitions_where_the_model_says_they_pay(monkeypatch) -> None:
    """With no gain required, the search partitions the pick exactly where the pipeline prices
    the partitioned configuration lower, and its Θ is then that configuration's."""
    seen = {"taken": 0, "declined": 0}
    monkeypatch.setattr(granularity, "PARTITION_GAIN", 0.0)
    for w in WORKLOADS.values():
        rec = recommend(w, SYSTEM, granularity="file")
        report = rec.granularity["file"]["partitions"]
        pays = report["theta_with"] < report["theta_without"]
        assert report["chosen"] == pays
        assert rec.compaction.l0_partitions == (granularity.PARTITIONS_TRIED if pays else 1)
        if pays:
            again = price(Configuration(rec.design, rec.compaction, Memory.of(rec.system)), w,
                          SYSTEM)
            assert rec.cost == pytest.approx(again.theta, rel=1e-9)
            assert "with OHDB's partitioned level 0" in rec.granularity["reason"]
        seen["taken" if pays else "declined"] += 1
    assert seen["taken"] >= 1  # the zipf mix: a few tenths of a percent lower


def test_no_partitions_report_on_stock_rocksdb() -> None:
    """RocksDB neither cuts flushes nor triggers per partition (the export grades the
    partitioner approximate): its picks carry no report."""
    rec = recommend(MIX, SYSTEM, target="rocksdb")
    assert (rec.granularity.get("file") or {}).get("partitions") is None
    assert rec.compaction.l0_partitions == 1


def test_no_partitions_report_where_the_one_table_refuses_them() -> None:
    """A floating pick: the one table refuses floating with partitions, so the report is None
    rather than an error (the compaction itself would refuse the pair)."""
    from wacky_model.granularity import FLOAT_OPTIONS, partitions_report
    from wacky_model.types import Compaction, Design

    c = Compaction("file", SYSTEM.buffer_bytes, 2, floating=FLOAT_OPTIONS)
    w = WORKLOADS["zipf reads"]
    config = Configuration(Design(10, 9, 1, 0, 0), c, Memory.of(SYSTEM))
    costs = price(replace(config, compaction=replace(c, floating=None)), MIX, SYSTEM).detail
    assert partitions_report(config, SYSTEM, w, costs, 1.0, None) is None
