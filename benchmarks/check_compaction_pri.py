"""Stock RocksDB's ``compaction_pri`` under skewed writes, measured (issue 32: should
``--target rocksdb`` choose it from the write skew?).

The same leveled export (T = 10, files of 64 KiB, level-0 trigger 4, 5 filter bits per entry,
200,000 entries of 128 B, a 256 KiB buffer) run by the one stock runner
(``validation.rocksdb.run_stock``, the window of ``wacky validate --engine rocksdb --stock``) with
only ``compaction_pri`` changed, under ``latest`` and Zipf 0.99 writes (half updates) and uniform
updates. Prints each one's write amplification and its change against RocksDB's default,
kMinOverlappingRatio. The partial-merge model prices kMinOverlappingRatio and kRoundRobin alike
(P1: both sweep) and kOldestLargestSeqFirst not at all.

The two "one file" rows set ``max_compaction_bytes`` to one file (the export's is RocksDB's
default, 25 files), which stops RocksDB from widening a compaction's inputs: kRoundRobin's
expansion to consecutive files (``SetupOtherFilesWithRoundRobinExpansion``) and the expansion of
the start level's inputs within the output files' range that every priority does. They show
where kRoundRobin's gain comes from: with one file each, the two picks differ by about 1%.

    .venv/bin/python benchmarks/check_compaction_pri.py            # about 3 minutes
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.rocksdb import run_stock  # noqa: E402
from validation.scale import Scale  # noqa: E402
from wacky_model.rocksdb_options import rocksdb_export  # noqa: E402
from wacky_model.skew import skewed_workload  # noqa: E402
from wacky_model.types import Design, Workload  # noqa: E402

DEFAULT = "kMinOverlappingRatio"
PRIORITIES = (DEFAULT, "kRoundRobin", "kOldestLargestSeqFirst", DEFAULT + " (one file)",
              "kRoundRobin (one file)")
FILE_BYTES = 64 << 10
WRITES = ("latest", "zipf:0.99", "uniform")


ONE_FILE = " (one file)"


class WithPriority:
    """An export whose OPTIONS file names another ``compaction_pri`` and, for a name ending in
    ONE_FILE, a ``max_compaction_bytes`` of one file."""

    def __init__(self, export: Any, priority: str, file_bytes: int) -> None:
        self._export, self._priority, self._file_bytes = export, priority, file_bytes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._export, name)

    def options_file(self) -> str:
        text = self._export.options_file()
        one_file = self._priority.endswith(ONE_FILE)
        subs = [(f"compaction_pri={DEFAULT}",
                 f"compaction_pri={self._priority.removesuffix(ONE_FILE)}")]
        if one_file:
            subs.append((f"max_compaction_bytes={25 * self._file_bytes}",
                         f"max_compaction_bytes={self._file_bytes}"))
        for old, new in subs:
            if old not in text:
                raise RuntimeError(f"the export does not set {old}")
            text = text.replace(old, new)
        return text


def main() -> None:
    scale = Scale(entries=200_000, buffer_bytes=256 << 10, reads=2_000)
    export = rocksdb_export(Design(T=10, C=9, X=1, K=0, Z=0), scale.system(5.0, None),
                            level0_trigger=4, file_bytes=FILE_BYTES)
    print("writes | compaction_pri | write amplification | change against the default")
    for writes in WRITES:
        workload = Workload(point_reads=0.5, writes=0.5, write_keys=writes, read_keys="uniform",
                            correlated=False, update_fraction=1.0 if writes == "uniform" else 0.5)
        base = None
        for priority in PRIORITIES:
            with tempfile.TemporaryDirectory() as tmp:
                run = run_stock(WithPriority(export, priority, FILE_BYTES), scale, 1,
                                skew=skewed_workload(workload), workdir=tmp)
            wa = run.costs.write_amp
            base = wa if base is None else base
            print(f"{writes} | {priority} | {wa:.3f} | {wa / base - 1:+.1%}", flush=True)


if __name__ == "__main__":
    main()
