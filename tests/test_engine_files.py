"""The engine with runs made of files and a level-1 trigger (native_engine/src/file_compaction.h):
random operations agree with a dict for both granularities and both file picks, with deletes,
scans and reopens; the files keep their invariants; bad options are refused by name; and the
partial-merge model (cost_models/partial.py) predicts the engine's write amplification."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from engine_ops import OPS, apply_ops
from hypothesis import HealthCheck, given, settings

from native_engine import Engine
from wacky_model.files import native_file_costs
from wacky_model.types import Compaction, Design, System

LAYOUT = dict(entry_bytes=16, block_bytes=48, buffer_bytes=96)  # 6-entry buffer, 3 per block
VARIANTS = [
    dict(granularity="file", file_bytes=48),
    dict(granularity="file", file_bytes=96, file_pick="round_robin", level1_runs=3),
    dict(granularity="level", level1_runs=3),
    dict(granularity="file", file_bytes=144, hash_levels=1),
]
DESIGNS = [dict(T=2, C=1, X=1, K=0, Z=0), dict(T=3, C=2, X=1, K=0, Z=0),
           dict(T=3, C=1, X=2, K=0, Z=0, bits_per_entry=2)]
def _check(e: Engine, model: dict[int, bytes], file_entries: int | None) -> None:
    assert list(e.scan(0, 2**64 - 1)) == sorted(model.items())
    for k in list(range(62)) + [2**63, 2**64 - 1]:
        assert e.get(k) == model.get(k)
    for lv in e.levels():
        if lv["level"] == 0:
            assert len(lv["runs"]) < lv["max_runs"]  # at rest, level 0 holds at most N - 1
        elif file_entries is not None:
            runs = lv["runs"]
            assert lv["files"]
            assert all(r["entries"] <= file_entries for r in runs)
            assert all(a["max_key"] < b["min_key"] for a, b in zip(runs, runs[1:], strict=False))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(f"{k}{v[k]}" for k in v))
@pytest.mark.parametrize("design", DESIGNS, ids=["T2", "T3", "X2"])
def test_files_agree_with_a_dict(design, variant) -> None:
    @settings(max_examples=25, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(ops=OPS)
    def run(ops) -> None:
        kw = {**design, **LAYOUT, **variant}
        vb = kw["entry_bytes"] - 8
        per_file = (None if kw["granularity"] == "level" else
                    kw["file_bytes"] // kw["block_bytes"] * (kw["block_bytes"] // 16))
        with tempfile.TemporaryDirectory() as d:
            e = Engine(d + "/db", **kw)
            model: dict[int, bytes] = {}
            try:
                e = apply_ops(e, ops, model, vb, lambda: Engine(d + "/db", **kw))
                _check(e, model, per_file)
                e.close()
                e = Engine.open(d + "/db")  # the MANIFEST records the compaction options
                _check(e, model, per_file)
            finally:
                e.close()

    run()


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(granularity="files"), ValueError, "granularity must be 'level' or 'file'"),
    (dict(granularity=1), ValueError, "granularity must be 'level' or 'file'"),
    (dict(file_pick="newest"), ValueError, "file_pick must be 'least_overlap' or 'round_robin'"),
    (dict(level1_runs=0), ValueError, r"level1_runs = 0 must be in \[1, 1000\]"),
    (dict(level1_runs=1.5), TypeError, "level1_runs must be an int"),
    (dict(granularity="file", file_bytes=100), ValueError,
     r"file_bytes must be in \[block_bytes, T x buffer_bytes\] = \[4096, 83886080\]"),
    (dict(granularity="file", file_bytes=10**9), ValueError, "one block to Level 1's capacity"),
    (dict(granularity="file", K=1), ValueError, "granularity='file' needs one run per level"),
    (dict(granularity="file", Z=1), ValueError, "needs one run per level"),
])
def test_bad_compaction_options_are_named(tmp_path, kwargs, error, message) -> None:
    base = dict(T=10, C=9, K=0, Z=0)
    with pytest.raises(error, match=message):
        Engine(tmp_path / "db", **(base | kwargs))
    assert not (tmp_path / "db").exists() or not any((tmp_path / "db").iterdir())


def test_a_reopen_with_other_compaction_options_is_refused(tmp_path) -> None:
    kw = dict(T=3, C=2, K=0, Z=0, **LAYOUT, granularity="file", file_bytes=96, level1_runs=2)
    Engine(tmp_path / "db", **kw).close()
    for change, message in ((dict(granularity="level", file_bytes=None),
                             "granularity \\(stored file"),
                            (dict(file_bytes=48), "file_bytes"),
                            (dict(level1_runs=3), "level1_runs"),
                            (dict(file_pick="round_robin"), "file_pick")):
        with pytest.raises(ValueError, match=message):
            Engine(tmp_path / "db", **(kw | change))
    Engine(tmp_path / "db", **kw).close()  # the stored options still open it


@pytest.mark.parametrize("T, level1_runs", [(4, 1), (4, 4), (10, 1)])
def test_the_partial_model_predicts_the_engine(tmp_path, T, level1_runs) -> None:
    """cost_models.partial against the engine at a small scale: the entries a load of N keys
    writes, per key (the default-scale table is in docs/VALIDATION.md)."""
    n, buffer = 200_000, 1 << 15
    e = Engine(tmp_path / "db", T=T, C=T - 1, K=0, Z=0, buffer_bytes=buffer, bits_per_entry=5,
               wal=False, granularity="file", level1_runs=level1_runs)
    keys = np.random.default_rng(3).permutation(np.arange(n, dtype=np.uint64) * 7919)
    e.put_many(keys, np.zeros((n, 120), dtype=np.uint8))
    written = e.stats()["total"]["blocks_written"] * e.entries_per_block
    e.close()
    system = System(entries=n, buffer_bytes=buffer, bits_per_entry=5.0)
    design = Design(T, T - 1, 1, 0, 0)
    model = native_file_costs(design, system, Compaction("file", None, level1_runs), 0.0, n)
    # The engine's count includes the buffer still unflushed at the end (none: n is whole
    # buffers here) and every partial block; the model counts entries.
    assert model.write_amp == pytest.approx(written / n, rel=0.15)
