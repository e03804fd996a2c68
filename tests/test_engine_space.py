"""The engine's disk meter through the Python API: ``stats()["run_file_bytes"]`` is the run
files on disk, ``peak_run_file_bytes`` the most they reached (a merge's inputs and output
together), and ``reset_peak_space`` starts a window (native_engine/src/space_meter.h; the C++
tests in engine_space_test.cc walk every strategy and a failed merge)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from native_engine import Engine

DESIGN = dict(T=4, C=3, X=1, K=0, Z=0, entry_bytes=128, block_bytes=4096, buffer_bytes=1 << 15)


def _run_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.glob("run-*.sst"))


def test_the_meter_is_the_run_files_and_the_peak_holds_a_merges_output(tmp_path) -> None:
    path = tmp_path / "db"
    rng = np.random.default_rng(1)
    keys = rng.choice(1 << 40, 40_000, replace=False).astype(np.uint64)
    values = np.zeros((keys.size, 120), np.uint8)
    with Engine(str(path), **DESIGN) as e:
        e.put_many(keys[:20_000], values[:20_000])
        s = e.stats()
        assert s["run_file_bytes"] == _run_bytes(path) > 0
        e.reset_peak_space()
        assert e.stats()["peak_run_file_bytes"] == s["run_file_bytes"]
        e.put_many(keys[20_000:], values[20_000:])
        s = e.stats()
        assert s["run_file_bytes"] == _run_bytes(path)
        # Leveling rewrites Level L whole while its old run is still on disk: the window's
        # peak is well above what the tree holds after it.
        assert s["peak_run_file_bytes"] > 1.3 * s["run_file_bytes"]
    with Engine(str(path), **DESIGN) as e:  # reopened: every listed run counted again
        assert e.stats()["run_file_bytes"] == _run_bytes(path)
