"""The file-granular skew model (docs/MODEL.md, S2f) against the native engine.

For a handful of leveled designs with file-granular merges (T = 4 and 10, level-0 trigger 1 and
4) under Zipf 0.9, Zipf 1.2 and a hot set (10% of the keys, 90% of the operations), half of the
writes updates, one existing-key read per write and an LRU cache of CACHE_SHARE of the loaded
data, the engine runs: the preload of N keys, a warm-up of N/2 writes (reads between them, not
counted), then a window of N/2 writes with the reads between them (the engine compacts inside
a put, so no read is counted while a compaction runs). It measures write amplification
(blocks written by flushes and merges x entries per block / writes), the I/O of an existing-key
read (cache hits cost none) and the cache's hit rate (overall and per level), and prints them
next to ``wacky_model.skew.file_skew_costs`` at the window's middle (``history_writes``).

    .venv/bin/python benchmarks/check_skew_files.py            # 16 cases, ~3 minutes
    .venv/bin/python benchmarks/check_skew_files.py --quick    # 2 cases
    .venv/bin/python benchmarks/check_skew_files.py --entries 100000 --json out.json

Targets (what the whole-level skew model meets on the engine): write amplification within 15%,
overall hit rate within 0.05 absolute, existing-key read I/O within 15% or 0.02 absolute.
It also times the model per design, with and without the cache, over a search-sized batch.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import wacky_traces as tr  # noqa: E402
from validation import generators  # noqa: E402
from validation.replay import replay  # noqa: E402
from wacky_model.skew import (  # noqa: E402
    file_skew_costs,
    file_skew_trees,
    skew_key_map,
    skewed_workload,
)
from wacky_model.types import (  # noqa: E402
    Compaction,
    Design,
    KeyDistribution,
    System,
    Workload,
)

ENTRY_BYTES = 128
BLOCK_BYTES = 4096
BUFFER_BYTES = 64 << 10  # 512 entries a flush
BITS_PER_ENTRY = 5.0
CACHE_SHARE = 0.15  # the cache holds this share of the loaded data
UPDATES = 0.5
WARMUP_LOADS = 0.5
WINDOW_LOADS = 0.5
TARGET_WA = 0.15
TARGET_HIT = 0.05
TARGET_READ_REL, TARGET_READ_ABS = 0.15, 0.02

DISTS = {
    "uniform": KeyDistribution(),
    "zipf:0.9": KeyDistribution("zipf", 0.9),
    "zipf:1.2": KeyDistribution("zipf", 1.2),
    "hotset:0.1:0.9": KeyDistribution("hotset", 0.0, 0.1, 0.9),
}


@dataclass(frozen=True)
class Case:
    T: int
    level1_runs: int
    dist: str
    updates: float = UPDATES

    @property
    def design(self) -> Design:
        return Design(T=self.T, C=self.T - 1, X=1, K=0, Z=0)

    @property
    def compaction(self) -> Compaction:
        return Compaction(granularity="file", level1_runs=self.level1_runs)

    def workload(self) -> Workload:
        d = DISTS[self.dist]
        return Workload(point_reads=0.5, writes=0.5, write_keys=d, read_keys=d,
                        update_fraction=self.updates)


@dataclass
class Measured:
    writes: int = 0
    reads: int = 0
    blocks_written: int = 0
    read_blocks: int = 0
    hits: list[int] | None = None
    misses: list[int] | None = None
    not_found: int = 0
    seconds: float = 0.0

    @property
    def hit_rate(self) -> float:
        h, m = sum(self.hits or []), sum(self.misses or [])
        return h / (h + m) if h + m else 0.0


def _system(entries: int, cache_bytes: int) -> System:
    return System(entries=entries, entry_bytes=ENTRY_BYTES, block_bytes=BLOCK_BYTES,
                  buffer_bytes=BUFFER_BYTES, bits_per_entry=BITS_PER_ENTRY,
                  cache_bytes=cache_bytes)


def _counts(stats: dict, key: str) -> np.ndarray:
    return np.array(stats[key], dtype=np.int64)


def _minus(after: np.ndarray, before: np.ndarray) -> np.ndarray:
    out = after.copy()
    out[: before.size] -= before
    return out


def run_engine(case: Case, entries: int, cache_bytes: int, seed: int, workdir: str | None
               ) -> Measured:
    """The preload, the warm-up and the window on the native engine (see the module doc)."""
    from native_engine import Engine

    start = time.perf_counter()
    w = skewed_workload(case.workload())
    out = Measured()
    with tempfile.TemporaryDirectory(prefix="wacky-skew-files-", dir=workdir) as tmp:
        engine = Engine(Path(tmp) / "db", **case.design.knobs, filters="optimized",
                        entry_bytes=ENTRY_BYTES, block_bytes=BLOCK_BYTES,
                        buffer_bytes=BUFFER_BYTES, wal=False, cache_bytes=cache_bytes,
                        bits_per_entry=BITS_PER_ENTRY, granularity="file",
                        level1_runs=case.level1_runs, file_pick="least_overlap")
        try:
            load = generators.load_trace(entries, entry_bytes=ENTRY_BYTES, seed=seed)
            replay(engine, load)
            loaded = load.keys
            n = loaded.size
            F = int(engine.buffer_entries)
            vb = int(engine.value_bytes)
            chunk = max(1, F // 8)
            warmup, window = int(WARMUP_LOADS * n), int(WINDOW_LOADS * n)
            rng = np.random.default_rng([seed, 0x46494C45])  # stream tag: "FILE"
            rank_keys = rng.permutation(loaded)  # correlated: the same ranks for both
            writes_by = generators.rank_sampler(w.write_dist, n)
            reads_by = generators.rank_sampler(w.read_dist, n)
            fresh = generators.fresh_keys(rng, int((1 - w.update_fraction) * (warmup + window)
                                                   * 1.2) + 2 * F, np.sort(loaded))
            used = 0

            def write(k: int) -> None:
                nonlocal used
                upd = rng.random(k) < w.update_fraction
                keys = np.empty(k, dtype=np.uint64)
                keys[upd] = rank_keys[writes_by.draw(rng, int(upd.sum()))]
                ni = int((~upd).sum())
                keys[~upd] = fresh[used: used + ni]
                used += ni
                engine.put_many(keys, tr.value_for(keys, vb))

            def read(k: int) -> int:
                keys = rank_keys[reads_by.draw(rng, k)]
                _, found = engine.get_many(keys)
                return int((~found).sum())

            owed = 0.0
            for phase, length in (("warmup", warmup), ("window", window)):
                if phase == "window":
                    s0 = engine.stats()
                done = 0
                while done < length:
                    owed += w.reads_per_write * chunk
                    due = int(owed)
                    owed -= due
                    if due:
                        if phase == "window":
                            before = engine.stats()
                        missing = read(due)
                        if phase == "window":
                            after = engine.stats()
                            out.reads += due
                            out.not_found += missing
                            out.read_blocks += (after["point_read"]["blocks_read"]
                                                - before["point_read"]["blocks_read"])
                            hits = _minus(_counts(after, "cache_hits_per_level"),
                                          _counts(before, "cache_hits_per_level"))
                            misses = _minus(_counts(after, "cache_misses_per_level"),
                                            _counts(before, "cache_misses_per_level"))
                            out.hits = _add(out.hits, hits)
                            out.misses = _add(out.misses, misses)
                    write(chunk)
                    done += chunk
                if phase == "window":
                    s1 = engine.stats()
                    out.writes = done
            out.blocks_written = int(
                s1["flush"]["blocks_written"] + s1["merge_total"]["blocks_written"]
                - s0["flush"]["blocks_written"] - s0["merge_total"]["blocks_written"])
        finally:
            engine.close()
    out.seconds = time.perf_counter() - start
    return out


def _add(acc: list[int] | None, d: np.ndarray) -> list[int]:
    acc = list(acc or [])
    acc += [0] * (d.size - len(acc))
    for i, x in enumerate(d):
        acc[i] += int(x)
    return acc


def compare(case: Case, entries: int, seed: int, workdir: str | None) -> dict:
    """One case: the engine's window and the model at its middle."""
    cache_bytes = int(CACHE_SHARE * entries * ENTRY_BYTES)
    system = _system(entries, cache_bytes)
    m = run_engine(case, entries, cache_bytes, seed, workdir)
    history = WARMUP_LOADS * entries + m.writes / 2.0
    model = file_skew_costs(case.design, system, case.compaction, case.workload(),
                            history_writes=history)
    B = system.entries_per_block
    wa = m.blocks_written * B / m.writes
    read = m.read_blocks / m.reads
    # The engine's per-level counters start at level 0; the model's at level 0 only when the
    # trigger stages runs there.
    hits, misses = m.hits or [], m.misses or []
    per_level = [h / (h + x) if h + x else float("nan") for h, x in zip(hits, misses,
                                                                          strict=True)]
    if case.level1_runs == 1:
        per_level = per_level[1:]
    return {
        "case": asdict(case), "entries": entries, "cache_bytes": cache_bytes,
        "engine_seconds": m.seconds, "writes": m.writes, "reads": m.reads,
        "not_found": m.not_found,
        "write_amp": {"model": model.write_amp, "engine": wa},
        "hit_rate": {"model": model.cache_hit_rate, "engine": m.hit_rate},
        "point_read": {"model": model.point_read, "engine": read},
        "hit_rate_per_level": {"model": list(model.cache_hit_rate_per_level),
                               "engine": per_level},
        "model_level_write_amp": list(model.level_write_amp),
        "model_read_level_share": list(model.read_level_share),
    }


def verdict(row: dict) -> dict[str, bool]:
    wa, hit, rd = row["write_amp"], row["hit_rate"], row["point_read"]
    wa_err = abs(wa["model"] / wa["engine"] - 1.0)
    rd_abs = abs(rd["model"] - rd["engine"])
    return {"write_amp": wa_err <= TARGET_WA,
            "hit_rate": abs(hit["model"] - hit["engine"]) <= TARGET_HIT,
            "point_read": rd_abs <= TARGET_READ_ABS
            or rd_abs <= TARGET_READ_REL * rd["engine"]}


def print_table(rows: list[dict]) -> None:
    head = (f"{'T':>3} {'k':>2} {'keys':<15} {'u':>4} {'WA eng':>7} {'model':>7} {'err':>6}  "
            f"{'hit eng':>7} {'model':>6} {'diff':>6}  {'read eng':>8} {'model':>6} "
            f"{'err':>6}  ok")
    print(head)
    print("-" * len(head))
    for r in rows:
        c, wa, hit, rd = r["case"], r["write_amp"], r["hit_rate"], r["point_read"]
        ok = verdict(r)
        flags = "".join("." if ok[k] else "x" for k in ("write_amp", "hit_rate", "point_read"))
        print(f"{c['T']:>3} {c['level1_runs']:>2} {c['dist']:<15} {c['updates']:4.2g} "
              f"{wa['engine']:7.2f} "
              f"{wa['model']:7.2f} {wa['model'] / wa['engine'] - 1:+6.1%}  "
              f"{hit['engine']:7.3f} {hit['model']:6.3f} {hit['model'] - hit['engine']:+6.3f}  "
              f"{rd['engine']:8.3f} {rd['model']:6.3f} {rd['model'] / rd['engine'] - 1:+6.1%}  "
              f"{flags}")
    skewed = [r for r in rows if r["case"]["dist"] != "uniform"]
    for key in ("write_amp", "hit_rate", "point_read"):
        met = sum(verdict(r)[key] for r in skewed)
        print(f"{key}: target met in {met} of {len(skewed)} skewed cases "
              f"({sum(verdict(r)[key] for r in rows) - met} of {len(rows) - len(skewed)} "
              f"uniform controls)")


def time_model(entries: int) -> dict[str, float]:
    """ms per design, pricing a search-sized batch (T 2..16 x triggers 1..8 x file sizes)
    for one workload with a shared key map: S2f-S4 alone, and with the cache (S5-S7)."""
    system = _system(entries, int(CACHE_SHARE * entries * ENTRY_BYTES))
    workload = Case(10, 1, "zipf:0.9").workload()
    designs, compactions = [], []
    for T in range(2, 17):
        for k in (1, 2, 4, 8):
            for fb in (BUFFER_BYTES, 2 * BUFFER_BYTES):
                designs.append(Design(T=T, C=T - 1, X=1, K=0, Z=0))
                compactions.append(Compaction(granularity="file", level1_runs=k,
                                              file_bytes=fb))
    keys = skew_key_map(system, workload)
    file_skew_trees(designs[:4], system, compactions[:4], workload, keys=keys)  # warm caches
    t = time.perf_counter()
    trees = file_skew_trees(designs, system, compactions, workload, keys=keys)
    tree_s = time.perf_counter() - t
    t = time.perf_counter()
    for tree in trees:
        tree.costs(system.cache_bytes // system.block_bytes)
    cache_s = time.perf_counter() - t
    n = len(designs)
    return {"designs": n, "ms_per_design_no_cache": 1e3 * tree_s / n,
            "ms_per_design_with_cache": 1e3 * (tree_s + cache_s) / n}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="two cases only")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args(argv)
    # Uniform keys without updates (with the cache) first: the control, what the partial
    # model and S5-S7 give before any skew.
    cases = [Case(T, k, "uniform", 0.0) for T in (4, 10) for k in (1, 4)]
    cases += [Case(T, k, d) for T in (4, 10) for k in (1, 4) for d in DISTS if d != "uniform"]
    if args.quick:
        cases = [Case(4, 1, "zipf:0.9"), Case(10, 4, "hotset:0.1:0.9")]
    rows = []
    for c in cases:
        row = compare(c, args.entries, args.seed, args.workdir)
        rows.append(row)
        print(f"# T={c.T} k={c.level1_runs} {c.dist}: engine {row['engine_seconds']:.1f} s; "
              f"hit per level engine "
              f"{[round(x, 3) for x in row['hit_rate_per_level']['engine']]} model "
              f"{[round(x, 3) for x in row['hit_rate_per_level']['model']]}", flush=True)
    print()
    print(f"N = {args.entries:,}, {ENTRY_BYTES} B entries, {BLOCK_BYTES} B blocks, "
          f"{BUFFER_BYTES >> 10} KiB buffer, {BITS_PER_ENTRY:g} bits/entry, cache "
          f"{CACHE_SHARE:.0%} of the data, u = share of writes that update, 1 read/write")
    print_table(rows)
    speed = time_model(args.entries)
    print(f"model speed over {speed['designs']} designs: "
          f"{speed['ms_per_design_no_cache']:.2f} ms/design without the cache, "
          f"{speed['ms_per_design_with_cache']:.2f} ms/design with it")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "speed": speed}, indent=1,
                                        default=lambda x: None if isinstance(x, float)
                                        and math.isnan(x) else x))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
