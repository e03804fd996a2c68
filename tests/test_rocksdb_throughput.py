"""T7 (docs/MODEL.md "T7. The throughput objective on RocksDB"; wacky_model.rocksdb_throughput):
``recommend --target rocksdb --objective throughput``, the least T6 time among the stock
configurations that sustain (T2) the writes of their own throughput, checked against a brute
force over the priced grid, and where the CLI shows it (issue 34)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from wacky_model.devices import DeviceProfile, write_profile
from wacky_model.guardrails import DEFAULT_CONSTRAINTS, Constraints, WriteRate
from wacky_model.rocksdb_throughput import Timed, report, throughput_text, timed_of, timed_rows
from wacky_model.rocksdb_tuning import recommend_rocksdb, stock_grid
from wacky_model.stalls import mix_ops_per_second, mix_seconds, rocksdb_seconds, sustainable
from wacky_model.types import System, Workload

READS = {"rocksdb_ns_per_get": 4000.0, "rocksdb_ns_per_zero_get": 2000.0,
         "rocksdb_ns_per_seek": 8000.0, "rocksdb_ns_per_next": 200.0}
MACHINE = DeviceProfile("test-machine", 500.0, 500.0, 20_000.0, 50.0,
                        rocksdb_ns_per_put=1500.0, rocksdb_ns_per_compaction_byte=2.0,
                        rocksdb_ns_per_flush_byte=5.0, cores=2, **READS)
# Compaction five times slower: a write-heavy mix outruns most configurations' T2.
SLOW_MERGES = replace(MACHINE, name="slow-merges", rocksdb_ns_per_compaction_byte=10.0)
# So slow that no stock configuration keeps up with its own writes.
STALLED = replace(MACHINE, name="stalled", rocksdb_ns_per_compaction_byte=200.0)
SYSTEM = System(entries=200_000, entry_bytes=128, key_bytes=8, block_bytes=4096,
                buffer_bytes=256 << 10, bits_per_entry=10.0)
MIX = Workload(0.4, 0.2, 0.3, 0.1, range_blocks=0.25)
WRITE_HEAVY = Workload(0.3, 0.2, 0.5, 0.0)
READ_ONLY = Workload(0.5, 0.3, 0.0, 0.2, range_blocks=0.25)


def brute_force(workload: Workload, machine: DeviceProfile,
                constraints: Constraints = DEFAULT_CONSTRAINTS) -> list[tuple[object, Timed]]:
    """Every candidate of the stock grid the search prices (recommend_rocksdb's default
    guardrails), timed one by one by T6's per-kind seconds and T2: (its options, Timed)."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.rocksdb_tuning import stock_config

    out = []
    for at, grid in stock_grid(SYSTEM, constraints):
        for d, c, costs, row in zip(grid.designs, grid.compactions, grid.costs, grid.rows,
                                    strict=True):
            seconds = 1.0 / mix_ops_per_second(rocksdb_seconds(row, workload, at, machine),
                                               workload)
            rate = sustainable(costs.write_amp, at.entry_bytes, machine)
            out.append((stock_config(Configuration(d, c, Memory.of(at))),
                        Timed(seconds, rate, workload.writes)))
    return out


def pick_of(workload: Workload, machine: DeviceProfile, **kwargs) -> tuple[object, Timed]:
    rec = recommend_rocksdb(workload, SYSTEM, throughput_on=machine, **kwargs)
    return rec, timed_of(rec.best, workload, SYSTEM, machine)


def test_mix_seconds_is_t6_for_each_row() -> None:
    [(at, grid)] = stock_grid(SYSTEM, DEFAULT_CONSTRAINTS)
    rows = grid.rows[::40]
    got = mix_seconds(rows, MIX, at, MACHINE)
    want = [1 / mix_ops_per_second(rocksdb_seconds(r, MIX, at, MACHINE), MIX) for r in rows]
    assert got == pytest.approx(want, rel=1e-12)
    assert np.ptp(got) > 0  # the configurations differ in the blocks their reads miss


@pytest.mark.parametrize("workload, machine", [(MIX, MACHINE), (WRITE_HEAVY, MACHINE),
                                               (WRITE_HEAVY, SLOW_MERGES),
                                               (READ_ONLY, SLOW_MERGES)])
def test_no_candidate_that_sustains_its_own_writes_is_faster(workload, machine) -> None:
    rec, mine = pick_of(workload, machine)
    candidates = brute_force(workload, machine)
    assert any(t.meets for _, t in candidates)
    assert mine.meets  # T2 >= w x its own operations per second
    assert mine.sustainable >= workload.writes * mine.ops_per_second
    faster = [(c, t) for c, t in candidates if t.meets and t.seconds < mine.seconds * (1 - 1e-9)]
    assert faster == []
    # The pick is one of the grid's candidates, timed alike.
    assert any(c == rec.best.config and t.seconds == pytest.approx(mine.seconds, rel=1e-12)
               for c, t in candidates)


@pytest.mark.parametrize("workload, machine", [(MIX, MACHINE), (WRITE_HEAVY, SLOW_MERGES),
                                               (READ_ONLY, MACHINE)])
def test_the_pick_is_at_least_as_fast_as_the_io_pick_and_the_defaults(workload, machine) -> None:
    rec, _ = pick_of(workload, machine)
    io = recommend_rocksdb(workload, SYSTEM)
    t = report(rec, io.best, machine)
    mine = t["recommended"]["achieved_ops_per_second"]
    assert t["recommended"]["meets_own_write_rate"] and not t["limited_by_writes"]
    for other in (t["io_pick"], t["defaults"]):
        assert mine >= other["achieved_ops_per_second"] * (1 - 1e-12)
        if other["meets_own_write_rate"]:  # stall-free: its T6 rate is what it runs at
            assert mine >= other["ops_per_second"] * (1 - 1e-12)
    # The I/O pick, priced alike, is the same as timing it directly.
    assert t["io_pick"]["seconds_per_operation"] == pytest.approx(
        timed_of(io.best, workload, SYSTEM, machine).seconds, rel=1e-12)


def test_a_binding_write_constraint_moves_the_pick() -> None:
    candidates = brute_force(WRITE_HEAVY, SLOW_MERGES)
    fastest_config, fastest = min(candidates, key=lambda ct: ct[1].seconds)
    assert not fastest.meets  # T6's least time asks more writes than its compaction sustains
    rec, mine = pick_of(WRITE_HEAVY, SLOW_MERGES)
    assert rec.best.config != fastest_config and mine.meets
    assert mine.seconds > fastest.seconds
    # On the fast machine the same mix's writes bind no more tightly than the reads.
    free, _ = pick_of(WRITE_HEAVY, MACHINE)
    assert free.best.config != rec.best.config
    assert rec.objective == "throughput" and rec.to_dict()["objective"] == "throughput"
    assert all("operations/s" in line for line in rec.reasons)


def test_a_read_only_mix_picks_by_reads_alone() -> None:
    candidates = brute_force(READ_ONLY, MACHINE)
    fastest_config, fastest = min(candidates, key=lambda ct: ct[1].seconds)
    assert all(t.meets for _, t in candidates)  # no writes to sustain
    for machine in (MACHINE, SLOW_MERGES, STALLED):  # compaction's speed does not matter
        rec, mine = pick_of(READ_ONLY, machine)
        assert rec.best.config == fastest_config
        assert mine.seconds == pytest.approx(fastest.seconds, rel=1e-12)


def test_when_none_sustains_its_writes_the_pick_sustains_the_most() -> None:
    candidates = brute_force(WRITE_HEAVY, STALLED)
    assert not any(t.meets for _, t in candidates)
    rec, mine = pick_of(WRITE_HEAVY, STALLED)
    most = max(t.sustainable for _, t in candidates)
    assert mine.sustainable == pytest.approx(most, rel=1e-12)
    assert mine.achieved == pytest.approx(most / WRITE_HEAVY.writes, rel=1e-12)
    assert mine.achieved < mine.ops_per_second
    t = report(rec, recommend_rocksdb(WRITE_HEAVY, SYSTEM).best, STALLED)
    assert t["limited_by_writes"]
    assert "limited by writes" in throughput_text(t)


def test_a_write_rate_applies_beside_the_own_rate() -> None:
    rec, mine = pick_of(MIX, MACHINE)
    rate = mine.sustainable * 1.2  # above what the free pick sustains
    constraints = replace(DEFAULT_CONSTRAINTS, write_rate=WriteRate(rate, MACHINE))
    held, held_t = pick_of(MIX, MACHINE, constraints=constraints)
    assert held.best.config != rec.best.config
    assert held_t.sustainable >= rate and held_t.meets
    faster = [c for c, t in brute_force(MIX, MACHINE, constraints)
              if t.meets and t.seconds < held_t.seconds * (1 - 1e-9)]
    assert faster == []


@pytest.mark.parametrize("workload, system", [(WRITE_HEAVY, SYSTEM),
                                              (replace(WRITE_HEAVY, read_keys="zipf:0.9"),
                                               replace(SYSTEM, cache_bytes=4 << 20))])
def test_the_search_and_the_report_pick_alike(workload, system) -> None:
    from wacky_model.search import recommend

    rec = recommend_rocksdb(workload, system, throughput_on=SLOW_MERGES)
    found = recommend(workload, system, target="rocksdb", throughput_on=SLOW_MERGES)
    assert found.configuration.compaction == rec.best.config.configuration.compaction
    assert found.cost == pytest.approx(rec.best.theta, rel=1e-12)  # its Θ, in I/O
    with pytest.raises(ValueError, match="throughput_on applies to target='rocksdb'"):
        recommend(MIX, SYSTEM, throughput_on=MACHINE)


@pytest.mark.parametrize("kwargs, says", [
    ({"rho": 0.5}, r"with robust tuning \(rho\) is not supported"),
    ({"machine": replace(MACHINE, rocksdb_ns_per_seek=None)}, "rocksdb_ns_per_seek"),
    ({"machine": replace(MACHINE, rocksdb_ns_per_compaction_byte=None)},
     "rocksdb_ns_per_compaction_byte"),
])
def test_what_t7_does_not_price_is_refused_by_name(kwargs, says) -> None:
    workload = kwargs.pop("workload", MIX)
    machine = kwargs.pop("machine", MACHINE)
    with pytest.raises(ValueError, match=says):
        recommend_rocksdb(workload, SYSTEM, throughput_on=machine, **kwargs)


# T7 under a block cache and skewed keys (the skew stage, S2f and S3-S7r): a cache of a sixth
# of the data's 25.6 MB, and mixes whose picks the cheap rows alone rank far down
# (benchmarks/check_t7_shortlist.py finds such cases on random workloads).
CACHED = replace(SYSTEM, cache_bytes=4 << 20)
ZIPF_MIX = replace(MIX, read_keys="zipf:0.9")
ZIPF_UPDATES = replace(WRITE_HEAVY, read_keys="zipf:1.2", write_keys="zipf:1.2",
                       update_fraction=0.5)
ZIPF_WRITES = Workload(0.2, 0.1, 0.6, 0.1, range_blocks=0.25, read_keys="zipf:1.2",
                       write_keys="zipf:1.2")


def skew_timed(workload: Workload, system: System, machine: DeviceProfile,
               keep: set[tuple[int, int]] | None = None) -> list[tuple[object, Timed]]:
    """The stock grid's candidates (those ``keep`` names by (grid, index), or all) priced with
    the skew stage by the tuner's own re-pricing of its references (``_under_skew``, one batch
    per memory, not the search's shortlist), timed by T6 and T2: (its options, Timed)."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.rocksdb_tuning import StockPriced, _under_skew, stock_config

    items = [StockPriced(stock_config(Configuration(d, c, Memory.of(at))), costs, 0.0)
             for g, (at, grid) in enumerate(stock_grid(system, DEFAULT_CONSTRAINTS))
             for j, (d, c, costs) in enumerate(zip(grid.designs, grid.compactions, grid.costs,
                                                   strict=True))
             if keep is None or (g, j) in keep]
    return [(p.config, timed_of(p, workload, system, machine))
            for p in _under_skew(items, workload, system, None)]


def at_least_as_fast(mine: Timed, other: Timed, rel: float = 1e-9) -> bool:
    """Whether ``mine`` ranks no worse than ``other`` (Timed.rank: those meeting their own
    write rate by T6's time, then by what their writes allow), within ``rel``."""
    if mine.meets != other.meets:
        return mine.meets
    if mine.meets:
        return mine.seconds <= other.seconds * (1 + rel)
    return mine.achieved >= other.achieved * (1 - rel)


@pytest.mark.parametrize("workload, machine", [(ZIPF_MIX, MACHINE), (ZIPF_UPDATES, MACHINE),
                                               (ZIPF_WRITES, SLOW_MERGES)])
def test_under_a_cache_the_pick_is_the_fastest_of_what_was_priced(workload, machine) -> None:
    from wacky_model.rocksdb_throughput import time_shortlist

    rec = recommend_rocksdb(workload, CACHED, throughput_on=machine)
    mine = timed_of(rec.best, workload, CACHED, machine)
    grids = list(stock_grid(CACHED, DEFAULT_CONSTRAINTS))
    [(at, grid)] = grids
    j = next(j for j, (d, c) in enumerate(zip(grid.designs, grid.compactions, strict=True))
             if (d, c) == (rec.best.config.design, rec.best.config.configuration.compaction))
    # Priced by the skew stage: under the cache its reads miss fewer blocks than its grid row.
    assert rec.best.costs.point_read < grid.costs[j].point_read
    assert mine.seconds < timed_rows(grid.rows[j:j + 1], [grid.costs[j].write_amp], workload,
                                     at, machine)[0].seconds
    shortlisted = skew_timed(workload, CACHED, machine,
                             set(time_shortlist(grids, workload, machine)))
    assert len(shortlisted) > 16
    assert all(at_least_as_fast(mine, t) for _, t in shortlisted)
    # The pick is one of them or beats them all, priced alike by either route.
    same = [t for c, t in shortlisted if c == rec.best.config]
    assert all(t.seconds == pytest.approx(mine.seconds, rel=1e-9) for t in same)
    io = recommend_rocksdb(workload, CACHED)
    t = report(rec, io.best, machine)
    for key, other in (("io_pick", io.best), ("defaults", rec.default)):
        theirs = timed_of(other, workload, CACHED, machine)
        assert other.costs.point_read < price_uniform(other).point_read  # skewed, as the pick
        assert t[key]["achieved_ops_per_second"] == pytest.approx(theirs.achieved, rel=1e-12)
        assert at_least_as_fast(mine, theirs)
    assert t["recommended"]["seconds_per_operation"] == pytest.approx(mine.seconds, rel=1e-12)
    assert rec.reasons and all(f"{mine.achieved:,.0f}" in line for line in rec.reasons)


def price_uniform(p: object) -> object:
    """A StockPriced's configuration priced without the skew stage (uniform keys, no cache)."""
    from wacky_model.rocksdb_tuning import _windows

    return _windows([p.config], replace(CACHED, cache_bytes=0))[0]


@pytest.mark.parametrize("workload, machine", [(ZIPF_UPDATES, MACHINE),
                                               (ZIPF_WRITES, SLOW_MERGES)])
def test_under_a_cache_the_pick_is_within_a_percent_of_the_whole_grid(workload, machine) -> None:
    everything = skew_timed(workload, CACHED, machine)
    assert len(everything) > 400
    best_config, best = min(everything, key=lambda ct: ct[1].rank)
    rec = recommend_rocksdb(workload, CACHED, throughput_on=machine)
    mine = timed_of(rec.best, workload, CACHED, machine)
    assert rec.best.config == best_config or at_least_as_fast(mine, best, rel=0.01)
    # Without the skew stage T7 would pick slower: its pick on the grid's own rows (uniform
    # keys, no cache), priced with the skew stage as the grid was.
    plain = replace(workload, read_keys="uniform", write_keys="uniform", update_fraction=0.0)
    uniform = recommend_rocksdb(plain, SYSTEM, throughput_on=machine).best.config
    [uniform_t] = [t for c, t in everything if c == uniform]
    assert not at_least_as_fast(uniform_t, best, rel=0.01)


FLAGS = ["--entries", "200000", "--entry-bytes", "128", "--buffer-bytes", "262144",
         "--bits-per-entry", "10", "--writes", "0.3", "--point-reads", "0.4", "--zero-reads",
         "0.2", "--range-reads", "0.1", "--range-blocks", "0.25", "--target", "rocksdb",
         "--objective", "throughput"]


def test_the_cli_prints_the_throughput_line_and_writes_the_options(wacky, tmp_path) -> None:
    profile = tmp_path / "machine.json"
    write_profile(MACHINE, profile)
    out = tmp_path / "pick.options"
    run = wacky("recommend", *FLAGS, "--profile", str(profile), "--out", str(out))
    assert run.returncode == 0, run.stderr
    rec = recommend_rocksdb(MIX, SYSTEM, throughput_on=MACHINE)
    t = report(rec, recommend_rocksdb(MIX, SYSTEM).best, MACHINE)
    assert throughput_text(t) in " ".join(run.stdout.split())
    assert out.read_text() == rec.export.options_file() + "\n"
    doc = json.loads(wacky("recommend", *FLAGS, "--profile", str(profile), "--json").stdout)
    assert doc["objective"] == "throughput"
    assert doc["best"]["options"] == rec.best.config.to_dict()
    assert doc["time"]["throughput"]["recommended"]["ops_per_second"] == pytest.approx(
        t["recommended"]["ops_per_second"], rel=1e-9)
    assert "recommended" in doc["time"] and "defaults" in doc["time"]  # T2's lines as before


def test_the_cli_refuses_a_profile_without_rocksdbs_read_figures(wacky, tmp_path) -> None:
    profile = tmp_path / "writes-only.json"
    write_profile(replace(MACHINE, rocksdb_ns_per_get=None), profile)
    run = wacky("recommend", *FLAGS, "--profile", str(profile))
    assert run.returncode == 2
    said = " ".join(run.stderr.replace("│", " ").split())
    assert "'--profile'" in said and "rocksdb_ns_per_get" in said
    assert "wacky calibrate with the RocksDB bridge built" in said


def test_the_cli_prices_throughput_under_a_cache_and_skewed_reads(wacky, tmp_path) -> None:
    profile = tmp_path / "machine.json"
    write_profile(MACHINE, profile)
    cached = [*FLAGS, "--cache-bytes", str(4 << 20), "--read-dist", "zipf:0.9"]
    run = wacky("recommend", *cached, "--profile", str(profile))
    assert run.returncode == 0, run.stderr
    rec = recommend_rocksdb(ZIPF_MIX, CACHED, throughput_on=MACHINE)
    t = report(rec, recommend_rocksdb(ZIPF_MIX, CACHED).best, MACHINE)
    said = " ".join(run.stdout.split())
    assert "Throughput (T7" in said and throughput_text(t) in said


def test_the_cli_still_refuses_the_robust_objective_by_name(wacky, tmp_path) -> None:
    profile = tmp_path / "machine.json"
    write_profile(MACHINE, profile)
    run = wacky("recommend", *FLAGS, "--cache-bytes", str(4 << 20), "--robust", "0.5",
                "--profile", str(profile))
    assert run.returncode == 2
    said = " ".join(run.stderr.replace("│", " ").split())
    assert "--objective throughput with --robust is not supported" in said
    assert "T7 tunes for the workload as given" in said


def test_the_one_table_refuses_the_time_objective_with_robust_tuning() -> None:
    """The refusal lives in the one compatibility table, with its reason, and the dashboard
    names the page's fields for it."""
    from dashboard.callbacks import search_words
    from wacky_model.compat import FEATURES, refusals
    from wacky_model.rocksdb_throughput import check_inputs

    [r] = refusals({"time_objective", "robust"})
    assert "write share" in r.reason
    assert refusals({"time_objective", "cache", "skew", "rocksdb"}) == []
    with pytest.raises(ValueError, match="robust tuning"):
        check_inputs(0.5)
    check_inputs(None)
    words = search_words(f"{FEATURES['time_objective']} with x is not supported: a reason")
    assert "“Objective: Time per operation”" in words
