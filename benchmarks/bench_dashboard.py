"""What one dashboard edit sends, and how long it takes (issue 18: about 180 KB per edit).

Run: .venv/bin/python benchmarks/bench_dashboard.py
Prints the bytes of each view the views callback returns for the page's default controls, as
Dash serializes them, with the figures as built and as ``dashboard.payload.lighten`` sends them,
then the time of one edit (a manual design's knob, and a skewed workload, first and repeated).
"""

from __future__ import annotations

import time

from plotly.io.json import to_json_plotly

from dashboard import callbacks as cb
from dashboard.app import make_services


def _size(value) -> int:
    return len(to_json_plotly(value))


def main() -> None:
    services = make_services()
    workload, system, mode, knobs, filters = cb.default_controls()
    out = cb.update_views(workload, system, mode, knobs, filters, services)
    heavy = _unlightened(workload, system, mode, knobs, filters, services)
    print(f"{'view':<18}{'bytes sent':>12}{'unlightened':>13}")
    for key, _, _ in cb.VIEW_OUTPUTS:
        print(f"{key:<18}{_size(out[key]):>12,}{_size(heavy[key]):>13,}")
    total = sum(_size(out[key]) for key, _, _ in cb.VIEW_OUTPUTS)
    total_heavy = sum(_size(heavy[key]) for key, _, _ in cb.VIEW_OUTPUTS)
    print(f"{'total':<18}{total:>12,}{total_heavy:>13,}  ({1 - total / total_heavy:.0%} less)")

    manual = {**knobs, "T": 12.0}
    start = time.perf_counter()
    cb.update_views(workload, system, "manual", manual, filters, services)
    print(f"one edit of a manual design's T: {1e3 * (time.perf_counter() - start):.0f} ms")
    skewed = {**workload, "write-keys": "zipf:0.9", "read-keys": "zipf:0.9",
              "update-fraction": 50.0}
    for label in ("first", "repeated"):
        start = time.perf_counter()
        cb.update_views(skewed, system, mode, knobs, filters, services)
        print(f"a skewed workload ({label}): {time.perf_counter() - start:.2f} s")


def _unlightened(*controls) -> dict:
    """The views as update_views built them before ``lighten`` trimmed the figures."""
    original = cb.lighten
    cb.lighten = lambda fig: fig
    try:
        return cb.update_views(*controls)
    finally:
        cb.lighten = original


if __name__ == "__main__":
    main()
