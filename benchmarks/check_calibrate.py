"""``wacky calibrate``'s sequential write bandwidth against ``dd oflag=direct`` in the same run
(issue 34: within 15%), on the directory given (default: the repository's build/).

Each of the two writes a file of --size-mib MiB in 1 MiB blocks with direct I/O and syncs it;
they take turns, three times each, and the medians are compared.

    .venv/bin/python benchmarks/check_calibrate.py --size-mib 512     # about a minute
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.calibrate import measure_storage  # noqa: E402

TARGET = 0.15


def dd_write_mb_s(directory: Path, size_mib: int) -> float:
    """dd's own figure: bytes over the seconds it reports."""
    out = directory / "dd.scratch"
    try:
        run = subprocess.run(["dd", "if=/dev/zero", f"of={out}", "bs=1M", f"count={size_mib}",
                              "oflag=direct", "conv=fsync"], capture_output=True, text=True,
                             check=True)
    finally:
        out.unlink(missing_ok=True)
    found = re.search(r"(\d+) bytes .* copied, ([\d.]+) s", run.stderr)
    if found is None:
        raise RuntimeError(f"dd said: {run.stderr.strip()}")
    return int(found.group(1)) / float(found.group(2)) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent / "build")
    ap.add_argument("--size-mib", type=int, default=512)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        d = Path(tmp)
        dd, ours = [], []
        for _ in range(3):
            dd.append(dd_write_mb_s(d, args.size_mib))
            ours.append(measure_storage(d, args.size_mib << 20, random_seconds=0.1)
                        ["seq_write_mb_s"])
    a, b = statistics.median(ours), statistics.median(dd)
    print(f"sequential write, {args.size_mib} MiB with direct I/O under {args.dir}: "
          f"calibrate {a:,.0f} MB/s (runs {', '.join(f'{x:,.0f}' for x in ours)}), "
          f"dd oflag=direct {b:,.0f} MB/s (runs {', '.join(f'{x:,.0f}' for x in dd)}); "
          f"calibrate/dd = {a / b:.3f} (target within {TARGET:.0%}: "
          f"{'met' if abs(a / b - 1) <= TARGET else 'missed'})")


if __name__ == "__main__":
    main()
