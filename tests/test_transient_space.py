"""T5, transient space (docs/MODEL.md): the peak disk use of merges over the data, from each cycle
model, against the engines' meters at a small scale, and as a guardrail of the search. The
sweep's figures are in docs/VALIDATION.md ("Transient space", wacky sweep space)."""

from __future__ import annotations

import numpy as np
import pytest
from rocksdb_helpers import bridge

from cost_models.finite import peak_space
from cost_models.partial import LeveledFiles, window_costs
from cost_models.universal import FULL_MERGE_PEAK_SPACE, UniversalOptions, universal_costs
from validation.runner import validate
from validation.scale import Scale
from wacky_model.guardrails import Constraints
from wacky_model.search import recommend
from wacky_model.types import Compaction, Design, System, Workload

SCALE = Scale(entries=60_000, buffer_bytes=1 << 16, reads=200)


def test_m8_one_run_at_level_l_doubles_the_data_and_more_runs_need_less() -> None:
    S, F = 1e6, 1e3
    one = peak_space([10, 4, 6], [9, 3, 5], 1, [0, 1, 1], [0, 0, 0], entries=S, buffer_entries=F)
    assert one == pytest.approx((2 * S - F) / S)  # Level L one run: everything rewritten
    tiered = peak_space([4, 6, 10], [3, 5, 9], 1, 1, 1, entries=S, buffer_entries=F)
    assert np.all((tiered > 1.0) & (tiered < 1.6))
    assert tiered[2] < tiered[1] < tiered[0]  # a_L = T - 1 runs: each a smaller share


def test_the_partial_walk_holds_one_merge_or_one_flushs_merges_above_the_data() -> None:
    w = window_costs(LeveledFiles(T=10.0, flush_entries=1_000.0, file_entries=1_000.0,
                                  targets="dynamic", base_entries=4_000.0, num_levels=4),
                     1e6, 1e6)
    one, job = w.peak_merge_entries / w.end_entries, w.peak_job_entries / w.end_entries
    assert 1.0 < one <= job < 1.2  # a few files over the data, never less than one merge
    # Files as large as the level: a drain moves a whole level, as whole-level merges do.
    big = window_costs(LeveledFiles(T=10.0, flush_entries=1_000.0, file_entries=1e9,
                                    targets="dynamic", base_entries=4_000.0, num_levels=4),
                       1e6, 1e6)
    assert big.peak_job_entries / big.end_entries > 1.5


def test_universal_cycles_end_with_a_full_merge_of_twice_the_data() -> None:
    u = universal_costs(UniversalOptions(trigger=4).rules(1_000.0), 1e5, 5e4, cycle=True)
    assert u.complete and u.peak_entries / u.end_entries == pytest.approx(FULL_MERGE_PEAK_SPACE)


@pytest.mark.parametrize("design, options", [
    (Design(4, 3, 1, 0, 0), {}),  # whole levels, one run at Level L
    (Design(4, 3, 1, 1, 1), {}),  # whole levels, tiered Level L
    (Design(10, 9, 1, 0, 0), {"compaction": Compaction(granularity="file", level1_runs=4)}),
    (Design(4, 3, 1, 0, 0), {"engine": "rocksdb", "stock": True}),
], ids=["leveling", "tiering", "files", "rocksdb"])
def test_the_engines_meters_are_predicted_within_ten_percent(design, options) -> None:
    if options.get("engine") == "rocksdb":
        bridge()
    r = validate(design, scale=SCALE, **options)
    got = r.detail("peak_space")
    assert got["measured"] >= 1.0 and r.detail("peak_disk_bytes") >= r.detail("disk_bytes")
    assert got["predicted"] == pytest.approx(got["measured"], rel=0.10)


def test_the_guardrail_keeps_designs_within_the_peak_and_refuses_bad_limits(wacky) -> None:
    system = System()
    w = Workload(0.3, 0.2, 0.5, 0.0)
    free = recommend(w, system)
    capped = recommend(w, system, constraints=Constraints(max_transient_space=1.3))
    assert capped.transient_space <= 1.3 < free.transient_space
    assert capped.cost >= free.cost
    for bad in (1.0, 0.5, float("nan"), True):
        with pytest.raises(ValueError, match="max_transient_space must be a number > 1"):
            Constraints(max_transient_space=bad)
    r = wacky("recommend", "--point-reads", "0.3", "--zero-reads", "0.2", "--writes", "0.5",
              "--range-reads", "0", "--max-transient-space", "1")
    assert r.returncode == 2 and "--max-transient-space" in r.stderr + r.stdout


def test_on_rocksdb_the_cap_trades_universal_for_leveled_compaction() -> None:
    """A write-heavy workload picks universal compaction on RocksDB; its full merges need twice
    the data, so a cap of 1.5 picks leveled compaction, whose merges need a few files more."""
    w = Workload(0.05, 0.05, 0.9, 0.0)
    free = recommend(w, System(), target="rocksdb")
    capped = recommend(w, System(), target="rocksdb",
                       constraints=Constraints(max_transient_space=1.5))
    assert free.model == "universal" and free.transient_space == 2.0
    assert capped.model == "rocksdb" and capped.transient_space <= 1.5
    assert capped.cost > free.cost


def test_the_stock_report_shows_the_peak_the_search_and_the_cap_use(wacky) -> None:
    """recommend --target rocksdb prints T5 beside Θ, for the pick and RocksDB's defaults, and
    it is the figure the search holds under --max-transient-space."""
    import json

    from wacky_model.rocksdb_tuning import recommend_rocksdb

    w = Workload(0.05, 0.05, 0.9, 0.0)
    rec = recommend_rocksdb(w, System())
    assert rec.best.transient_space == recommend(w, System(), target="rocksdb").transient_space
    assert 1.0 < rec.default.transient_space < 1.5  # leveled: the data and one merge
    capped = recommend_rocksdb(w, System(), Constraints(max_transient_space=1.5))
    assert capped.best.transient_space <= 1.5 < rec.best.transient_space
    flags = ["--point-reads", "0.05", "--zero-reads", "0.05", "--writes", "0.9",
             "--range-reads", "0", "--target", "rocksdb"]
    doc = json.loads(wacky("recommend", *flags, "--json").stdout)
    assert doc["best"]["transient_space"] == pytest.approx(rec.best.transient_space)
    text = wacky("recommend", *flags)
    assert text.returncode == 0 and "peak disk: during compactions" in text.stdout
    row = next(line for line in text.stdout.splitlines() if "recommended" in line)
    assert f"{rec.best.transient_space:.2f}" in row
