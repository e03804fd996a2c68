"""G1, paged filters and indexes (docs/MODEL.md; issue 33): Che's approximation of the LRU cache
over filter, index and data blocks, RocksDB 7.8's filter size, the export and the bridge with
cache_index_and_filter_blocks=true, G1 against RocksDB at a small scale, the search under paged
metadata and the refusals. `wacky sweep paged` is the full comparison (docs/VALIDATION.md)."""

from __future__ import annotations

import pathlib
import tempfile

import numpy as np
import pytest

from cost_models.paged import (
    ROCKSDB_CACHE_ENTRY_BYTES,
    PagedLevel,
    paged_reads,
    rocksdb_filter_bytes,
)
from tests.rocksdb_helpers import bridge
from validation.paged import measure
from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.rocksdb_tuning import recommend_rocksdb
from wacky_model.search import recommend
from wacky_model.types import Design, System, Workload

LEVELS = [PagedLevel(files=1, data_blocks=4, coverage=1.0, fpr=0.01, share=0.01,
                     filter_bytes=600, index_bytes=300),
          PagedLevel(files=10, data_blocks=400, coverage=1.0, fpr=0.01, share=0.09,
                     filter_bytes=600, index_bytes=300),
          PagedLevel(files=100, data_blocks=4000, coverage=1.0, fpr=0.01, share=0.9,
                     filter_bytes=600, index_bytes=300)]


def test_no_cache_misses_every_block_and_a_large_one_none() -> None:
    none = paged_reads(LEVELS, 0, 4096, 1.0)
    assert none.zero_result_read == pytest.approx(3 * (1 + 2 * 0.01))
    assert none.point_read_deepest == pytest.approx(2 * (1 + 2 * 0.01) + 3)
    everything = paged_reads(LEVELS, 1e12, 4096, 0.5)
    assert everything.zero_result_read == 0.0 and everything.point_read_uniform == 0.0


def test_more_cache_never_costs_more() -> None:
    costs = [paged_reads(LEVELS, c, 4096, 0.5) for c in np.geomspace(1e3, 3e7, 25)]
    for a, b in zip(costs, costs[1:], strict=False):
        assert b.zero_result_read <= a.zero_result_read + 1e-12
        assert b.point_read_uniform <= a.point_read_uniform + 1e-12


def test_equal_blocks_hit_in_proportion_to_the_cache() -> None:
    # One level of n equal filters, nothing else read (no false positive): an LRU cache of k of
    # them hits k / n of the probes, under Che's approximation as exactly.
    level = [PagedLevel(files=100, data_blocks=1, coverage=1.0, fpr=0.0, share=0.0,
                        filter_bytes=1000, index_bytes=10)]
    r = paged_reads(level, 25_000, 4096, 1.0)
    assert r.filter_hit[0] == pytest.approx(0.25, rel=1e-6)
    assert r.zero_result_read == pytest.approx(0.75, rel=1e-6)


def test_rocksdbs_filter_size_is_its_full_filters() -> None:
    native = bridge()
    system = System(entries=50_000, buffer_bytes=64 << 10, bits_per_entry=10)
    exported = rocksdb_export(Design(10, 9, 1, 0, 0), system, 4, 32 << 10, dynamic=False)
    rng = np.random.default_rng(3)
    keys = rng.choice(2**40, 50_000, replace=False).astype(np.uint64)
    with tempfile.TemporaryDirectory() as tmp:
        options = pathlib.Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        db = native.Database(str(pathlib.Path(tmp) / "db"), str(options), 1 << 20)
        db.put_many(keys, np.zeros((keys.size, 120), dtype=np.uint8))
        db.flush()
        db.wait_for_background_work(60.0)
        files = db.live_files()
        assert db.filter_bytes() == sum(rocksdb_filter_bytes(f["entries"], 10) for f in files)
        del db


def test_the_export_pages_the_metadata() -> None:
    paged = System(entries=1e6, paged_metadata=True)
    e = rocksdb_export(Design(10, 9, 1, 0, 0), paged, 4)
    assert e.option("cache_index_and_filter_blocks") == "true"
    assert e.option("pin_l0_filter_and_index_blocks_in_cache") == "false"
    pinned = rocksdb_export(Design(10, 9, 1, 0, 0), System(entries=1e6), 4)
    assert pinned.option("cache_index_and_filter_blocks") == "false"


def test_g1_predicts_rocksdbs_reads_through_a_small_cache() -> None:
    bridge()
    run = measure("T=10", Design(10, 9, 1, 0, 0), 4, 256 << 10)
    # Paging costs: a zero-result read pays filter misses far above the pinned false positives.
    assert run.measured["zero_result"] > 5 * run.pinned
    assert run.predicted["zero_result"] == pytest.approx(run.measured["zero_result"], rel=0.5)
    assert run.predicted["existing"] == pytest.approx(run.measured["existing"], rel=0.25)


def test_a_small_cache_with_paged_metadata_picks_fewer_levels() -> None:
    mix = Workload(point_reads=0.3, zero_reads=0.5, writes=0.2)
    small = dict(entries=2**22, cache_bytes=1 << 20, bits_per_entry=10)
    pinned = recommend_rocksdb(mix, System(**small)).best
    paged = recommend_rocksdb(mix, System(**small, paged_metadata=True)).best
    assert paged.config.multiplier > pinned.config.multiplier
    assert paged.costs.zero_result_read > pinned.costs.zero_result_read
    # Through a large cache the metadata stays cached: paging costs almost nothing.
    large = dict(entries=2**22, cache_bytes=1 << 30, bits_per_entry=10)
    big = recommend_rocksdb(mix, System(**large, paged_metadata=True)).best
    assert big.costs.zero_result_read < 0.05
    assert ROCKSDB_CACHE_ENTRY_BYTES > 0


def test_paged_metadata_is_refused_where_it_is_not_priced() -> None:
    paged = System(entries=1e6, paged_metadata=True)
    mix = Workload(point_reads=0.5, writes=0.5)
    with pytest.raises(ValueError, match="needs granularity='file'"):
        recommend(mix, paged)
    with pytest.raises(ValueError, match="independent of how often it is read"):
        recommend_rocksdb(Workload(point_reads=0.5, writes=0.5, write_keys="zipf:0.9"), paged)
    with pytest.raises(ValueError, match="paged_metadata must be True or False"):
        System(entries=1e6, paged_metadata=1)  # type: ignore[arg-type]


def test_the_native_file_search_prices_paged_metadata_as_price_does() -> None:
    """recommend --granularity file --paged-metadata: G1 with the native engine's blocks
    (wacky_model.files.native_paged_costs) prices the grid, and the pick's Θ is price()'s."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price

    mix = Workload(point_reads=0.2, zero_reads=0.5, writes=0.3)
    small = dict(entries=1e6, entry_bytes=256, buffer_bytes=1 << 20, bits_per_entry=10,
                 cache_bytes=64 << 10)
    paged = System(**small, paged_metadata=True)
    pick = recommend(mix, paged, granularity="file")
    again = price(Configuration(pick.design, pick.compaction, Memory.of(pick.system)), mix,
                  paged)
    assert again.theta == pytest.approx(pick.cost, rel=1e-9)
    pinned = recommend(mix, System(**small), granularity="file")
    # Through a 64 KiB cache most probes miss their filter block: paging costs I/O.
    assert pick.cost > 2 * pinned.cost
    assert pick.compaction.log is None  # G1 does not price a log's files (the one table)
