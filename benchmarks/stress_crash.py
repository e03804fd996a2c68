"""The crash test of tests/test_engine_durability.py, run long: a child writes with wal=True,
sync=True and is killed with SIGKILL at random moments; after every kill the reopened engine
must hold exactly a prefix of the operations, including every acknowledged write.

    .venv/bin/python benchmarks/stress_crash.py [--rounds 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_engine_durability import crash_rounds  # noqa: E402  (the one copy of the harness)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        done, landed = crash_rounds(str(Path(tmp) / "db"), args.seed, args.rounds,
                                    random.Random(args.seed))
    print(f"{args.rounds} SIGKILLs, {done:,} operations, {landed} kills caught a write in "
          f"flight that had reached the log; every acknowledged write survived "
          f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
