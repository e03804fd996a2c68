"""U5r (docs/MODEL.md): stock RocksDB's universal compaction under skewed keys and a block cache.
Its runs by rank (the oldest always the last level), S3 at the runs' own spans, S5-S7f per run
class, RocksDB's memtable flushing every F writes, and S7r's range reads through the cache;
checked by hand, against a brute-force replay of the same rules (tests/universal_sim.py) and
against the bridge on a tiny database."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import cost_models.skew as cs
from cost_models.finite import realized_fpr
from cost_models.skew import cached_range_of, key_map, universal_ledger, universal_tree
from cost_models.universal import UniversalOptions, UniversalRules
from tests.universal_sim import simulate
from wacky_model.config import Configuration, Memory
from wacky_model.pricing import price, reads_through_cache
from wacky_model.skew import _priced_workload, universal_skew_costs
from wacky_model.types import Compaction, Design, System, Workload

N = 20_000
RULES = UniversalRules(flush_entries=100, trigger=8)
B = 29  # RocksDB's data block holds 29 entries of 128 B (cost_models.rocksdb_format)


def _system(cache_blocks: int, bits: float = 30.0) -> System:
    return System(entries=N, entry_bytes=128, block_bytes=4096, buffer_bytes=100 * 166,
                  bits_per_entry=bits, cache_bytes=cache_blocks * 4096)


def _updates(keys: str, reads_per_write: float = 2.0) -> Workload:
    return Workload(reads_per_write / (reads_per_write + 1), 0.0, 1 / (reads_per_write + 1),
                    write_keys=keys, read_keys=keys, update_fraction=1.0)


def _tree(workload: Workload, rules: UniversalRules = RULES) -> cs.SkewedTree:
    w = _priced_workload(workload, math.inf)
    return universal_tree(rules, 30.0, entries=N, entries_per_block=B, workload=w,
                          preload=N, window=N // 2, cycle=True)


def test_a_memtable_flushes_every_f_writes_holding_its_distinct_keys() -> None:
    # RocksDB's memtable keeps every write it takes (a key's overwrite is a new entry), so it
    # fills after F writes and its flush holds D(F) keys. With no merge (trigger above the
    # flushes) write amplification is the flushes' D(F) / F, by hand from S1.
    rules = UniversalRules(flush_entries=100, trigger=10_000)
    w = _priced_workload(_updates("zipf:1.2"), math.inf)
    keys = key_map(N, w, tabulate=False)
    led = universal_ledger(rules, N, 5_000, keys)
    d = float(keys.unique_one(100.0))
    assert d < 90.0  # hot keys written again within a flush: well below F
    assert led.flush_writes == 100.0
    assert led.write_amp == pytest.approx(d / 100.0, rel=1e-12)
    assert led.window_writes == pytest.approx(5_000.0)


def test_the_oldest_run_is_always_the_last_level() -> None:
    # Levels are ranks (the runs older than a run), newest first: the last level is the oldest
    # run at every flush, present throughout and holding every key after the load.
    w = _priced_workload(_updates("zipf:0.9"), math.inf)
    led = universal_ledger(RULES, N, N // 2, key_map(N, w, tabulate=False), cycle=True)
    last = led.levels[-1]
    assert last.runs == pytest.approx(1.0)
    assert last.entries >= N
    presence = [lev.runs for lev in led.levels]
    assert presence == sorted(presence)  # a newer rank is there only when the older ones are


def test_s3_places_keys_at_the_runs_own_spans() -> None:
    # The keys' newest writes, replayed: at counted flush k the model's own runs (the ledger's
    # stays) hold stretches [lo, hi) of the writes, and a read midway to the next flush finds
    # its key in the buffer (written since the flush) or in the run whose stretch holds its
    # last write. The shares of reads by level over the cycle are S3's (tree.share).
    workload = _updates("zipf:0.9")
    w = _priced_workload(workload, math.inf)
    led = universal_ledger(RULES, N, N // 2, key_map(N, w, tabulate=False), cycle=True)
    st = led.stays
    assert st is not None
    rng = np.random.default_rng(7)
    rank_to_key = rng.permutation(N)
    cdf = np.cumsum(np.arange(1, N + 1, dtype=float) ** -0.9)
    cdf /= cdf[-1]
    last = np.empty(N)
    last[rng.permutation(N)] = np.arange(N) - N  # the load's inserts come before the writes
    s1 = led.flush_writes
    counted = int(round(led.window_writes / s1))
    end = int(led.first_writes + counted * s1)
    written = rank_to_key[np.searchsorted(cdf, rng.random(end))]
    landed = np.zeros(len(led.levels) + 1)
    done = 0  # the writes replayed so far
    for k in range(counted):
        flushed = led.first_writes + k * s1  # counted flush k's writes end here
        for t in range(done, int(flushed + s1 / 2)):
            last[written[t]] = t
        done = max(done, int(flushed + s1 / 2))
        at = last[rank_to_key[np.searchsorted(cdf, rng.random(100))]]
        landed[0] += np.sum(at >= flushed)
        for j in np.flatnonzero((st.start <= k) & (k < st.stop)):
            landed[st.level[j] + 1] += np.sum((at >= st.lo[j]) & (at < st.hi[j]))
    assert landed.sum() == 100 * counted  # the buffer and the runs hold every write
    np.testing.assert_allclose(landed / landed.sum(), _tree(workload).share, atol=0.01)


@pytest.mark.parametrize(("trigger", "theta", "reads", "cache", "bits"), [
    (16, 0.6, 1.0, 400, 30.0), (16, 0.6, 1.0, 400, 5.0), (16, 0.0, 1.0, 400, 30.0),
    (8, 0.9, 2.0, 150, 5.0)])
def test_the_cache_matches_a_replay_of_the_same_rules(trigger: int, theta: float, reads: float,
                                                      cache: int, bits: float) -> None:
    # A brute-force replay (real keys and runs, an LRU that keeps merged runs' blocks, filters
    # with a fixed answer per key and run) over one cycle of the largest run: the model within
    # 0.015 of its hit rate and 3% of its block reads per read, under Zipf and uniform updates,
    # with and without false positives (5 bits a key). Before U5r (runs by position, S3 at the
    # positions' mean entries, a run's blocks one population) the four priced 0.445, 0.545,
    # 0.577 and 0.511 I/O at hit rates 0.548, 0.621, 0.422, 0.501 (the replay: 0.528, 0.581,
    # 0.622, 0.523 at 0.465, 0.639, 0.376, 0.521).
    rules = UniversalRules(flush_entries=100, trigger=trigger)
    keys = f"zipf:{theta}" if theta else "uniform"
    model = universal_skew_costs(rules, bits, _system(cache, bits), _updates(keys, reads),
                                 preload=N, window=N // 2, cycle=True)
    fpr = float(realized_fpr(bits)) if bits < 20 else 0.0
    sim = simulate(rules, entries=N, theta=theta, reads_per_write=reads, entries_per_block=B,
                   cache_blocks=cache, fpr=fpr, seed=0)
    assert model.cache_hit_rate == pytest.approx(sim.hit_rate, abs=0.015)
    assert model.point_read == pytest.approx(sim.io, rel=0.03)


def test_phases_of_a_run_s_life_converge() -> None:
    # S5 per phase of a run's life: the oldest run's keys move to newer runs as they are
    # written again, so its blocks cool over its life. RUN_PHASES is within 1% of 16 phases.
    workload = _updates("zipf:0.9")
    system = _system(150)
    by = {}
    for k in (1, cs.RUN_PHASES, 16):
        w = _priced_workload(workload, math.inf)
        keys = key_map(N, w, tabulate=False)
        led = universal_ledger(RULES, N, N // 2, keys, cycle=True)
        placement, classes = cs.universal_placement(led, keys, replace(
            w, history_writes=led.writes_before + led.window_writes / 2), phases=k)
        tree = replace(_tree(workload), classes=classes, dead_blocks_cached=True)
        by[k] = tree.costs(system.cache_bytes // 4096).point_read
    assert by[cs.RUN_PHASES] == pytest.approx(by[16], rel=0.01)
    assert abs(by[1] - by[16]) > abs(by[cs.RUN_PHASES] - by[16])


def test_universal_ranges_are_priced_through_the_cache() -> None:
    # S7r on universal runs: a range seeks every run there, its block cached with the run's
    # cached share, Σ presence (1 - c); below the uncached run count, above what any cache of
    # that size can do (range_bound).
    system = System(entries=60_000, entry_bytes=108, key_bytes=8, block_bytes=4096,
                    buffer_bytes=262144, bits_per_entry=10.0, cache_bytes=8 << 20)
    config = Configuration(Design(4, 3, 1, 1, 1), Compaction(
        style="universal", universal=UniversalOptions(trigger=16)),
        Memory(buffer_bytes=65536, filter_bits_per_entry=10.0))
    assert reads_through_cache(config)
    workload = Workload(0.3, 0.1, 0.4, 0.2, 0.25, write_keys="zipf:0.9", read_keys="zipf:0.9",
                        update_fraction=1.0)
    cached = price(config, workload, system)
    bare = price(config, workload, replace(system, cache_bytes=0))
    assert cached.range_runs < bare.range_runs
    from wacky_model.pricing import file_skew_trees

    tree = file_skew_trees([config], config.system(system), workload)[0]
    k = tree.costs(system.cache_bytes // system.block_bytes)
    runs, spread = cached_range_of(k)
    assert cached.range_runs == pytest.approx(runs)
    assert runs == pytest.approx(sum(p * (1 - c) for p, c in zip(
        k.level_runs, k.cached_share_per_level, strict=True)))
    assert runs >= tree.range_bound(system.cache_bytes // system.block_bytes)[0] - 1e-12
    assert 0 < spread < 1


def test_rocksdb_flushes_a_memtable_of_f_writes_into_their_distinct_keys(tmp_path) -> None:
    # The bridge on a tiny database: universal compaction that merges nothing (trigger above
    # the flushes), 2,000 keys loaded, then Zipf 1.2 updates of them. Each memtable takes F
    # writes (the export's write_buffer_size over an entry and its memtable overhead) and its
    # file holds their distinct keys, D(F) (S1), not F: the flush U5r prices.
    from tests.rocksdb_helpers import bridge
    from validation.rocksdb import _database
    from wacky_model.rocksdb_model import universal_rules
    from wacky_model.rocksdb_options import rocksdb_export

    bridge()
    n = 2_000
    system = System(entries=10 * n, entry_bytes=128, block_bytes=4096, buffer_bytes=65536,
                    bits_per_entry=10.0)  # the options' system; the database holds n keys
    export = rocksdb_export(Design(4, 3, 1, 1, 1), system,
                            universal=UniversalOptions(trigger=64))
    F = universal_rules(export).flush_entries
    keys = key_map(n, _priced_workload(_updates("zipf:1.2"), math.inf), tabulate=False)
    d = float(keys.unique_one(F))
    assert d < 0.75 * F
    rng = np.random.default_rng(3)
    loaded = (rng.permutation(n).astype(np.uint64) + 1) * np.uint64(7919)  # spread out
    cdf = np.cumsum(np.arange(1, n + 1, dtype=float) ** -1.2)
    cdf /= cdf[-1]
    values = np.zeros((n, 120), dtype=np.uint8)
    with _database(export, tmp_path) as db:
        db.put_many(loaded, values)
        db.flush()
        before = {f["name"] for f in db.live_files()}
        for _ in range(12):
            chunk = loaded[np.searchsorted(cdf, rng.random(n // 2))]
            # A flush takes every immutable memtable waiting at its start, so a flush thread
            # behind the writer (a busy machine) would write two memtables' keys into one file:
            # the writer waits for it every 100 writes, as U5r's flushes keep up.
            for i in range(0, chunk.size, 100):
                db.put_many(chunk[i:i + 100], values[: chunk[i:i + 100].size])
                db.wait_for_background_work(60.0)
        after = sorted((f for f in db.live_files() if f["name"] not in before),
                       key=lambda f: f["smallest_seqno"])
    assert all(f["level"] == 0 for f in after) and len(after) >= 8
    sizes = np.array([f["entries"] for f in after])
    assert np.median(sizes) == pytest.approx(d, rel=0.08)
