"""P7 on stock RocksDB: the share of the keys each level's files span, against RocksDB's filter
probes per level (docs/MODEL.md, "P7. Reads").

A zero-result read costs a level a data block only when its key falls inside one of the level's
files and the filter lets it through, so the false positives per read at Level i over the
filter's rate estimate the share of the keys Level i spans. The rate is taken from the last
level (which spans every key by the window: the model puts it within 1% of all of them).
Each row runs ``wacky validate --engine rocksdb --stock`` at 200,000 entries of 128 B, a 256 KiB
buffer, 5 filter bits per entry and 10,000 reads of each kind, and prints per level: RocksDB's
estimate, the walk's coverage (P7), and the old rule (the share of the window the level held
data), then the zero-result read I/O all three predict with p = ``realized_fpr``.

    .venv/bin/python benchmarks/check_level_coverage.py            # about 1 minute
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cost_models.finite import realized_fpr  # noqa: E402
from validation.runner import validate  # noqa: E402
from validation.scale import Scale  # noqa: E402
from wacky_model.rocksdb_model import leveled_costs  # noqa: E402
from wacky_model.rocksdb_options import rocksdb_export  # noqa: E402
from wacky_model.types import Compaction, Design  # noqa: E402

SCALE = Scale(entries=200_000, buffer_bytes=1 << 18, reads=10_000)
BITS = 5.0
CASES = ((4, 1), (4, 4), (10, 1), (10, 4))


def _fmt(xs: list[float]) -> str:
    return " ".join(f"{x:.2f}" for x in xs)


def main() -> None:
    system = SCALE.system(BITS, None)
    p = float(realized_fpr(BITS))
    print(f"filter rate p = {p:.4f} ({BITS:g} bits per entry)")
    print("| T | trigger | RocksDB: probes / last level's, Levels 1.. | model coverage (P7) | "
          "share in use (old) | zero-result I/O: RocksDB | P7 | old |")
    print("|---|---|---|---|---|---|---|---|")
    for T, trigger in CASES:
        design = Design(T, T - 1, 1, 0, 0)
        r = validate(design, scale=SCALE, engine="rocksdb", stock=True,
                     compaction=Compaction(level1_runs=trigger))
        probes = list(r.detail("zero_result_per_level"))
        upper = [x for x in probes[1:] if x > 0]  # RocksDB's levels in use, Level 1 on
        measured = [x / upper[-1] for x in upper]
        w = leveled_costs(rocksdb_export(design, system, trigger), SCALE.entries,
                          SCALE.entries).window
        levels = [i for i, e in enumerate(w.level_entries) if e > 0]
        cover = [w.level_coverage[i] for i in levels]
        in_use = [w.level_in_use[i] for i in levels]
        old = p * (w.level0_runs + sum(in_use))
        print(f"| {T} | {trigger} | {_fmt(measured)} (sum {sum(measured):.2f}) | {_fmt(cover)} "
              f"(sum {sum(cover):.2f}) | {_fmt(in_use)} | {r.measured.zero_result_read:.3f} | "
              f"{r.predicted.zero_result_read:.3f} | {old:.3f} |")


if __name__ == "__main__":
    main()
