"""The crash-and-corrupt loop of tests/crash_harness.py, run long (issue 36, "No silent loss").

A child writes puts, deletes and put_many batches with wal=True, sync=True and is killed with
SIGKILL, at random moments or (when a C compiler can build the crash-point shim) half the time
at the deletion of a run file. After each kill, copies of the directory each get one corruption
of the log, the MANIFEST or a run file; each copy must refuse to open with an OSError having
changed no file, or open with exactly the acknowledged contents. The real directory must then
reopen as a prefix of the operations holding every acknowledged one. Log truncations look
exactly like a torn write, so the writes they lose are reported apart and are not failures.

    .venv/bin/python benchmarks/stress_crash.py [--rounds 200] [--seed 1] \\
        [--corruptions-per-kill 2]

Exits 1 if any failure figure is not 0.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
# the one copy of the harness
from crash_harness import (  # noqa: E402
    UNDETECTABLE,
    Report,
    build_crash_shim,
    crash_and_corrupt,
)

GRANULARITIES = ("level", "file")


def run(rounds: int, corruptions: int, seed: int) -> Report:
    """``rounds`` kills split over both granularities."""
    total = Report()
    with tempfile.TemporaryDirectory() as tmp:
        shim = build_crash_shim(Path(tmp))
        if shim is None:
            print("no C compiler: every kill is a timed SIGKILL (no crash points)")
        for i, granularity in enumerate(GRANULARITIES):
            share = rounds // len(GRANULARITIES) + (i < rounds % len(GRANULARITIES))
            total.merge(crash_and_corrupt(tmp, granularity, share, corruptions, seed + i,
                                          shim=shim))
    return total


def print_kinds(report: Report) -> None:
    header = ("corruption", "cases", "refused", "verify saw", "harmless", "silent",
              "keys lost", "wrong values", "not OSError", "open deleted")
    print(f"{header[0]:<22}" + "".join(f"{h:>13}" for h in header[1:]))
    for kind, t in report.kinds.items():
        note = "  (like a torn write: not counted)" if kind in UNDETECTABLE else ""
        cells = (t.cases, t.detected_open, t.detected_verify, t.harmless, t.silent,
                 t.lost_keys, t.wrong_values, t.other_errors, t.failed_open_deleted)
        print(f"{kind:<22}" + "".join(f"{c:>13,}" for c in cells) + note)


def print_figures(report: Report) -> None:
    counted = report.total(include_undetectable=False)
    every = report.total()
    truncations = every.cases - counted.cases
    print()
    print(f"kills                                      {report.kills:>8,}"
          f"  ({report.crash_point_kills:,} at a crash point)")
    print(f"operations                                 {report.operations:>8,}")
    print(f"corruptions                                {report.corruptions:>8,}")
    print(f"acknowledged keys lost without an error    {counted.lost_keys:>8,}")
    print(f"wrong values                               {every.wrong_values:>8,}")
    print(f"files deleted that were needed             {report.needed_files_deleted:>8,}")
    print(f"files verify_directory changed             {every.verify_changed:>8,}")
    lost_in_truncations = every.lost_keys - counted.lost_keys
    cases = every.silent - counted.silent
    print(f"log truncations (not counted)              {truncations:>8,}  ({cases:,} lost "
          f"{lost_in_truncations:,} acknowledged keys, as a torn write would)")
    print(f"verify_directory available                 {report.verify_available!s:>8}"
          f"  (it missed {every.verify_missed:,} damages the open refused)")
    print(f"lost/ at most                              {report.lost_files_max:>8,} files, "
          f"{report.lost_bytes_max:,} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200,
                        help="kills in all, split over both granularities (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corruptions-per-kill", type=int, default=2,
                        help="corrupted copies checked after each kill (default 2)")
    args = parser.parse_args()
    start = time.perf_counter()
    report = run(args.rounds, args.corruptions_per_kill, args.seed)
    print_kinds(report)
    print_figures(report)
    failures = {k: v for k, v in report.failures().items() if v}
    print(f"\n{time.perf_counter() - start:.1f} s")
    if failures:
        print("FAILED: " + "; ".join(f"{k}: {v:,}" for k, v in failures.items()))
        for example in report.examples[:10]:
            print(f"  {example}")
        sys.exit(1)
    print("no acknowledged write was lost without an error")


if __name__ == "__main__":
    main()
