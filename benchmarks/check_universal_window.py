"""A universal RocksDB's write amplification over windows of inserts, against U1-U4 walked three
ways (docs/MODEL.md "A window's write amplification, in time and from the runs there are"): at
once from an empty tree loaded with as many entries, at once from the runs the database holds
when the window starts (``validation.stalls.runs_now``), and in time at the window's rate from
those runs (T3u's walk, ``TimedWindow.write_amp``), with this machine's calibration. The
configuration and load are ``wacky sweep stalls``' (universal, trigger 4: 400,000 inserts of
108 B at full speed); the windows are offered at --rate inserts a second.

    .venv/bin/python benchmarks/check_universal_window.py      # about three minutes
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation import stalls as S  # noqa: E402
from wacky_model.stalls import universal_bursts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=20_000.0)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--label", default="universal, trigger 4", choices=sorted(S.configs()))
    args = ap.parse_args()
    config = S.configs()[args.label]
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        cal = S.calibrate(Path(tmp))
        machine = S._machine(cal)
        db = S._open(Path(tmp), "db", S._options(config, S.ENTRIES))
        rng = np.random.default_rng(7)
        values = np.zeros((S.BATCH, S.VALUE_BYTES), dtype=np.uint8)
        S._put_paced(db, rng.integers(1, 2**63, S.ENTRIES, dtype=np.uint64), values,
                     float("inf"))
        db.wait_for_background_work(600.0)
        present = S.ENTRIES
        print(f"{args.label}: c_byte {cal.ns_per_compaction_byte:.2f} ns, windows of "
              f"{S.WINDOW:,} at {args.rate:,.0f}/s")
        print("window  runs at its start (entries, newest first)            RocksDB  "
              "empty-at-once  runs-at-once  runs-in-time")
        for i in range(args.windows):
            start = S.runs_now(db)
            empty = S._predicted_write_amp(config, present, S.WINDOW)
            at_once = S._predicted_write_amp(config, present, S.WINDOW, start)
            system = config.system(S._system(present + S.WINDOW / 2))
            timed = universal_bursts(config, system, machine, args.rate, present, S.WINDOW,
                                     start=start).write_amp
            before = S._counters(db)
            S._put_paced(db, rng.integers(1, 2**63, S.WINDOW, dtype=np.uint64), values,
                         args.rate)
            db.wait_for_background_work(600.0)
            d = S._delta(before, S._counters(db))
            measured = (d["cw"] + d["fw"]) / (S.WINDOW * S.ENTRY_BYTES)
            runs = ", ".join(f"{r:,.0f}" for r in start.runs)
            print(f"{i + 1:>6}  {runs:<52} {measured:>7.2f}  {empty:>13.2f}  {at_once:>12.2f}  "
                  f"{timed:>12.2f}")
            present += S.WINDOW
        del db


if __name__ == "__main__":
    main()
