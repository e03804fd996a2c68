"""The file-granular skew model (docs/MODEL.md, S2f) against the native engine: the cases of
``wacky sweep skew-files`` (validation/cases.py), run through the one runner
(``validation.runner.validate``) at a chosen scale, printed as a table; and the model's speed.

Leveling with file-granular merges (T = 4 and 10, level-1 trigger 1 and 4) under Zipf 0.9,
Zipf 1.2 and a hot set (10% of the keys, 90% of the operations), half of the writes updates,
one existing-key read per write and an LRU cache of 15% of the loaded data; uniform keys
without updates as controls. The window is the runner's: the preload of N keys, a warm-up of
N/2 writes, then a window of N/2 writes with the reads between them, priced by
``wacky_model.skew.file_skew_costs`` at the window's middle. This script has no measuring loop
of its own: ``wacky sweep skew-files`` writes the same cases into docs/VALIDATION.md.

    .venv/bin/python benchmarks/check_skew_files.py            # 16 cases, ~2 minutes
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
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.cases import (  # noqa: E402
    SKEW_FILE_BUFFER,
    SKEW_FILE_CACHE_SHARE,
    SkewFileCase,
    skew_file_cases,
    skew_file_errors,
    skew_file_runs,
    skew_file_verdict,
)
from validation.results import ValidationResult  # noqa: E402
from validation.scale import Scale  # noqa: E402
from validation.sweep import run_cases  # noqa: E402
from wacky_model.skew import file_skew_trees, skew_key_map  # noqa: E402
from wacky_model.types import Compaction, Design, System  # noqa: E402

BITS_PER_ENTRY = 5.0
METRICS = ("write_amp", "hit_rate", "point_read")


def row(case: SkewFileCase, r: ValidationResult) -> dict:
    """One case's figures, model and engine, JSON-ready."""
    p, m = r.predicted, r.measured
    skew = r.detail("skew") or {}
    return {
        "case": {"T": case.T, "level1_runs": case.level1_runs, "dist": case.distribution,
                 "updates": case.updates},
        "entries": r.scale.entries, "cache_bytes": skew.get("cache_bytes"),
        "seconds": r.seconds, "writes": r.window_writes, "reads": skew.get("reads"),
        "write_amp": {"model": p.write_amp, "engine": m.write_amp},
        "hit_rate": {"model": p.cache_hit_rate, "engine": m.cache_hit_rate},
        "point_read": {"model": p.point_read_uniform, "engine": m.point_read_uniform},
        "zero_result_read": {"model": p.zero_result_read, "engine": m.zero_result_read},
        "hit_rate_per_level": {"model": list(p.cache_hit_rate_per_level or ()),
                               "engine": list(m.cache_hit_rate_per_level or ())},
        "level0_hit_rate": skew.get("level0_cache_hit_rate"),
        "verdict": skew_file_verdict(r),
    }


def print_table(pairs: list[tuple[SkewFileCase, ValidationResult]]) -> None:
    head = (f"{'T':>3} {'k':>2} {'keys':<15} {'u':>4} {'WA eng':>7} {'model':>7} {'err':>6}  "
            f"{'hit eng':>7} {'model':>6} {'diff':>6}  {'read eng':>8} {'model':>6} "
            f"{'err':>6}  ok")
    print(head)
    print("-" * len(head))
    for c, r in pairs:
        p, m, e, ok = r.predicted, r.measured, skew_file_errors(r), skew_file_verdict(r)
        flags = "".join("." if ok[k] else "x" for k in METRICS)
        print(f"{c.T:>3} {c.level1_runs:>2} {c.distribution:<15} {c.updates:4.2g} "
              f"{m.write_amp:7.2f} {p.write_amp:7.2f} {e['write_amp']:+6.1%}  "
              f"{m.cache_hit_rate:7.3f} {p.cache_hit_rate:6.3f} {e['hit_rate']:+6.3f}  "
              f"{m.point_read_uniform:8.3f} {p.point_read_uniform:6.3f} "
              f"{p.point_read_uniform / m.point_read_uniform - 1:+6.1%}  {flags}")
    skewed = [r for c, r in pairs if c.skewed]
    controls = [r for c, r in pairs if not c.skewed]
    for key in METRICS:
        print(f"{key}: target met in {sum(skew_file_verdict(r)[key] for r in skewed)} of "
              f"{len(skewed)} skewed cases ({sum(skew_file_verdict(r)[key] for r in controls)} "
              f"of {len(controls)} uniform controls)")


def time_model(entries: int) -> dict[str, float]:
    """ms per design, pricing a search-sized batch (T 2..16 x triggers 1..8 x file sizes)
    for one workload with a shared key map: S2f-S4 alone, and with the cache (S5-S7)."""
    system = System(entries=entries, entry_bytes=128, block_bytes=4096,
                    buffer_bytes=SKEW_FILE_BUFFER, bits_per_entry=BITS_PER_ENTRY,
                    cache_bytes=int(SKEW_FILE_CACHE_SHARE * entries * 128))
    workload = SkewFileCase(10, 1, "zipf:0.9").workload
    designs, compactions = [], []
    for T in range(2, 17):
        for k in (1, 2, 4, 8):
            for fb in (SKEW_FILE_BUFFER, 2 * SKEW_FILE_BUFFER):
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
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write the rows here")
    args = ap.parse_args(argv)
    cases = skew_file_cases()
    if args.quick:
        cases = [SkewFileCase(4, 1, "zipf:0.9"), SkewFileCase(10, 4, "hotset:0.1:0.9")]
    scale = Scale(entries=args.entries, buffer_bytes=SKEW_FILE_BUFFER, seed=args.seed)
    results = run_cases(skew_file_runs(scale, BITS_PER_ENTRY, cases), scale,
                        {"bits_per_entry": BITS_PER_ENTRY}, workers=args.workers)
    named = {c.name: c for c in cases}
    pairs = [(named[r.name], r.result) for r in results]
    print(f"N = {args.entries:,}, 128 B entries, 4096 B blocks, {SKEW_FILE_BUFFER >> 10} KiB "
          f"buffer, {BITS_PER_ENTRY:g} bits/entry, cache {SKEW_FILE_CACHE_SHARE:.0%} of the data, "
          "u = share of writes that update, 1 read/write")
    print_table(pairs)
    speed = time_model(args.entries)
    print(f"model speed over {speed['designs']} designs: "
          f"{speed['ms_per_design_no_cache']:.2f} ms/design without the cache, "
          f"{speed['ms_per_design_with_cache']:.2f} ms/design with it")
    if args.json:
        args.json.write_text(json.dumps(
            {"rows": [row(c, r) for c, r in pairs], "speed": speed}, indent=1,
            default=lambda x: None if isinstance(x, float) and math.isnan(x) else x))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
