"""Latest writes (docs/MODEL.md, S1l) against the native engine: updates of recently inserted
keys, YCSB's ``latest`` (the key of the r-th most recent insert, r Zipf(0.99) over the keys
inserted so far, the load's order counting as insertion order), run through the one runner
(``validation.runner.validate``, the path ``wacky validate --write-dist latest`` takes) and
printed as a table.

Leveling with file-granular merges (T = 4 and 10, level-1 trigger 1, files of one 64 KiB
buffer: 3 levels at 200,000 keys for T = 10, 4 for T = 4), half and nine tenths of the writes
updates, reads ``latest`` (YCSB-D) or Zipf 0.99 correlated with the writes (the r-th most
recently inserted key), one existing-key read per write and an LRU cache of 15% of the loaded
data. The window is the runner's: the preload of N keys, a warm-up of N/2 writes, then a window
of N/2 writes, priced by ``wacky_model.skew.file_skew_costs`` at the window's middle. Two
references per case: the same model with the writes taken as a static Zipf over the keys
(what S1 gives without S1l: the error S1l removes), and the engine under static Zipf 0.99
writes on the same design (S2f's own error there, which S1l inherits).

    .venv/bin/python benchmarks/check_latest_writes.py             # 8 cases + 2 controls
    .venv/bin/python benchmarks/check_latest_writes.py --quick     # T = 10, u = 0.5 and 0.9
    .venv/bin/python benchmarks/check_latest_writes.py --entries 100000 --json out.json

Target (the skew model's on the engine): write amplification within 15%.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.cases import (  # noqa: E402
    SKEW_FILE_BUFFER,
    SKEW_FILE_CACHE_SHARE,
    skew_file_cache,
)
from validation.results import ValidationResult  # noqa: E402
from validation.scale import Scale  # noqa: E402
from validation.sweep import SweepCase, run_cases  # noqa: E402
from wacky_model.skew import file_skew_costs  # noqa: E402
from wacky_model.types import Compaction, Design, System, Workload  # noqa: E402

BITS_PER_ENTRY = 5.0
TARGET_WA = 0.15


@dataclass(frozen=True)
class LatestCase:
    T: int
    updates: float
    reads: str  # the read distribution ("latest", or "zipf:0.99" correlated with the writes)
    writes: str = "latest"

    @property
    def name(self) -> str:
        return f"T={self.T}, writes {self.writes}, u={self.updates:g}, reads {self.reads}"

    @property
    def workload(self) -> Workload:
        return Workload(0.5, 0.0, 0.5, write_keys=self.writes, read_keys=self.reads,
                        update_fraction=self.updates)

    @property
    def design(self) -> Design:
        return Design(self.T, self.T - 1, 1, 0, 0)


COMPACTION = Compaction("file", None, 1)


def cases(quick: bool) -> list[LatestCase]:
    if quick:
        return [LatestCase(10, u, "latest") for u in (0.5, 0.9)]
    out = [LatestCase(T, u, reads) for T in (10, 4) for u in (0.5, 0.9)
           for reads in ("latest", "zipf:0.99")]
    # Controls: static Zipf 0.99 writes on the same designs, S2f's own error there.
    return out + [LatestCase(T, 0.5, "zipf:0.99", writes="zipf:0.99") for T in (10, 4)]


def runs(scale: Scale, which: list[LatestCase]) -> list[SweepCase]:
    return [SweepCase(c.name, "latest-writes", c.design, {
        "workload": c.workload, "scale": scale, "bits_per_entry": BITS_PER_ENTRY,
        "cache_bytes": skew_file_cache(scale), "compaction": COMPACTION}) for c in which]


def static_zipf_write_amp(case: LatestCase, r: ValidationResult) -> float:
    """The model with the latest writes priced as a static Zipf over the keys (S1, not S1l),
    at the window's middle as the runner prices it."""
    s = r.scale
    system = System(entries=s.entries, entry_bytes=s.entry_bytes, block_bytes=s.block_bytes,
                    buffer_bytes=s.buffer_bytes, bits_per_entry=BITS_PER_ENTRY,
                    cache_bytes=skew_file_cache(s))
    theta = case.workload.write_keys.theta
    static = Workload(0.5, 0.0, 0.5, write_keys=f"zipf:{theta:g}", read_keys=case.reads,
                      update_fraction=case.updates)
    history = s.entries // 2 + (r.window_writes or 0) / 2.0
    return file_skew_costs(case.design, system, COMPACTION, static,
                           history_writes=history).write_amp


def row(case: LatestCase, r: ValidationResult) -> dict:
    p, m = r.predicted, r.measured
    static = static_zipf_write_amp(case, r) if case.writes == "latest" else None
    return {
        "case": {"T": case.T, "writes": case.writes, "updates": case.updates,
                 "reads": case.reads},
        "entries": r.scale.entries, "levels": len(m.levels), "seconds": r.seconds,
        "window_writes": r.window_writes,
        "write_amp": {"model": p.write_amp, "engine": m.write_amp,
                      "static_zipf_model": static},
        "hit_rate": {"model": p.cache_hit_rate, "engine": m.cache_hit_rate},
        "point_read": {"model": p.point_read_uniform, "engine": m.point_read_uniform},
    }


def print_table(rows: list[dict]) -> None:
    head = (f"{'T':>3} {'writes':<10} {'u':>4} {'reads':<10} {'L':>2} {'WA eng':>7} "
            f"{'model':>7} {'err':>7}  {'static':>7} {'err':>7}  {'hit eng':>7} {'model':>6}  "
            f"{'read eng':>8} {'model':>6}")
    print(head)
    print("-" * len(head))
    for x in rows:
        c, wa = x["case"], x["write_amp"]
        err = wa["model"] / wa["engine"] - 1.0
        serr = (wa["static_zipf_model"] or math.nan) / wa["engine"] - 1.0
        static = ("      -        -" if wa["static_zipf_model"] is None
                  else f"{wa['static_zipf_model']:7.2f} {serr:+7.1%}")
        print(f"{c['T']:>3} {c['writes']:<10} {c['updates']:4.2g} {c['reads']:<10} "
              f"{x['levels']:>2} {wa['engine']:7.2f} {wa['model']:7.2f} {err:+7.1%}  "
              f"{static}  {x['hit_rate']['engine']:7.3f} {x['hit_rate']['model']:6.3f}  "
              f"{x['point_read']['engine']:8.3f} {x['point_read']['model']:6.3f}")
    latest = [x for x in rows if x["case"]["writes"] == "latest"]
    errs = [abs(x["write_amp"]["model"] / x["write_amp"]["engine"] - 1.0) for x in latest]
    if errs:
        print(f"latest writes: write amplification within {max(errs):.1%} "
              f"(target {TARGET_WA:.0%}) in {len(errs)} cases")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="T = 10, latest reads, two cases")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write the rows here")
    args = ap.parse_args(argv)
    which = cases(args.quick)
    scale = Scale(entries=args.entries, buffer_bytes=SKEW_FILE_BUFFER, seed=args.seed)
    results = run_cases(runs(scale, which), scale, {"bits_per_entry": BITS_PER_ENTRY},
                        workers=args.workers)
    named = {c.name: c for c in which}
    rows = [row(named[r.name], r.result) for r in results]
    print(f"N = {args.entries:,}, 128 B entries, 4096 B blocks, {SKEW_FILE_BUFFER >> 10} KiB "
          f"buffer and files, {BITS_PER_ENTRY:g} bits/entry, cache {SKEW_FILE_CACHE_SHARE:.0%} "
          "of the data, leveling with file-granular merges (trigger 1), u = share of writes "
          "that update, 1 read/write; L = levels; static = the model with the writes taken as "
          "a static Zipf (S1 without S1l)")
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
