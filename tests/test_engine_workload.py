"""The engine under a seeded workload, driven from Python (a trace replayed by
validation.replay): verified answers, per-phase and per-kind I/O, determinism, and reads aimed at
Level L (the model's worst case)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from native_engine import Engine
from validation.generators import load_trace, read_ops
from validation.replay import replay
from wacky_traces import OpKind, build_trace

KW = dict(
    T=4, C=3, X=1, K=0, Z=0, entry_bytes=32, block_bytes=256, buffer_bytes=4096, bits_per_entry=8
)
EB = KW["entry_bytes"]
RANGE_ENTRIES = 16
MIX = dict(
    n_load=20_000, n_ops=6_000, fractions=dict(get=0.4, zero=0.3, put=0.2, range=0.1), seed=42
)


def _trace(n_load: int, n_ops: int, fractions: dict, seed: int, sequential: bool = False):
    """A "load" phase of n_load unique keys, then a "mix" of n_ops operations."""
    if sequential:
        # Ascending inserts, spread evenly over the key space so that read_ops' ranges (sized
        # for uniformly spread keys) still hold about RANGE_ENTRIES entries.
        keys = np.arange(n_load, dtype=np.uint64) * np.uint64(2**64 // n_load)
        zeros = np.zeros(n_load, np.uint64)
        load = build_trace(
            [("load", np.full(n_load, OpKind.PUT, np.uint8), keys, zeros)],
            entry_bytes=EB,
            meta={},
        )
    else:
        load = load_trace(n_load, entry_bytes=EB, seed=seed)
    kinds, keys, args = read_ops(
        load.keys,
        n=n_ops,
        get_pool=load.keys,
        fractions=fractions,
        range_entries=RANGE_ENTRIES,
        seed=seed,
    )
    return build_trace(
        [("load", load.kinds, load.keys, load.args), ("mix", kinds, keys, args)],
        entry_bytes=EB,
        meta={},
    )


def _run(path, **spec):
    """Replay the phases one at a time; engine stats are kept after each phase."""
    trace = _trace(**spec)
    with Engine(path, **KW) as e:
        before = e.stats()
        load = replay(e, trace, phases=["load"])
        after_load = e.stats()
        mix = replay(e, trace, phases=["mix"])
        after_mix = e.stats()
        levels = e.levels()
    return dict(
        load=load, mix=mix, before=before, after_load=after_load, after_mix=after_mix,
        levels=levels,
    )


def _io(r) -> dict:
    """Per-kind counts and block I/O of a replay (no timings: those are not deterministic)."""
    return {
        ph: {k: (t.count, t.blocks_read, t.blocks_written) for k, t in kinds.items()}
        for ph, kinds in r.phases.items()
    }


@pytest.mark.parametrize("sequential", [False, True])
def test_workload_phases_and_answers(tmp_path, sequential) -> None:
    r = _run(tmp_path / "a", sequential=sequential, **MIX)
    load, mix = r["load"], r["mix"]
    assert load.ok and mix.ok
    assert load.get_misses == mix.get_misses == mix.zero_hits == mix.wrong_values == 0
    assert load.phases["load"]["put"].count == 20_000
    assert r["after_load"]["puts"] - r["before"]["puts"] == 20_000
    assert r["after_load"]["merge_total"]["blocks_written"] > 0
    ops = mix.phases["mix"]
    counts = {k: t.count for k, t in ops.items()}
    assert sum(counts.values()) == 6_000
    for name, frac in MIX["fractions"].items():
        assert counts[name] == pytest.approx(6_000 * frac, rel=0.1)
    # Reads of existing keys need a block (unless the key is still in the buffer, which holds
    # under 1% of the data here); zero-result reads mostly none.
    assert ops["get"].read_per_op >= 0.99
    assert ops["zero"].read_per_op < 0.5
    assert ops["get"].blocks_written == 0
    # Range reads touch at least one block in some run; returned about range_entries each.
    assert ops["range"].read_per_op >= 1.0
    assert ops["range"].entries_returned == pytest.approx(counts["range"] * RANGE_ENTRIES, rel=0.35)
    # Per-kind I/O adds up to the engine's counters over the phase.
    total_read = sum(t.blocks_read for t in ops.values())
    total_written = sum(t.blocks_written for t in ops.values())
    assert total_read == r["after_mix"]["total"]["blocks_read"] - r["after_load"]["total"][
        "blocks_read"
    ]
    assert total_written == r["after_mix"]["total"]["blocks_written"] - r["after_load"]["total"][
        "blocks_written"
    ]
    assert mix.seconds > 0 and load.seconds > 0
    stored = sum(lv["entries"] for lv in r["levels"]) + r["after_mix"]["buffer_size"]
    assert stored == 20_000 + counts["put"]  # every write was a new unique key


def test_workload_is_deterministic(tmp_path) -> None:
    a = _run(tmp_path / "a", **MIX)
    b = _run(tmp_path / "b", **MIX)
    assert _io(a["mix"]) == _io(b["mix"]) and _io(a["load"]) == _io(b["load"])
    assert a["after_mix"]["total"] == b["after_mix"]["total"]
    assert [[r["entries"] for r in lv["runs"]] for lv in a["levels"]] == [
        [r["entries"] for r in lv["runs"]] for lv in b["levels"]
    ]
    c = _run(tmp_path / "c", **{**MIX, "seed": 7})
    assert c["after_mix"]["total"] != a["after_mix"]["total"]


def test_level_L_reads_are_the_worst_case(tmp_path) -> None:
    """Reads aimed at Level L (Eq 15's worst case) pay one block plus the false positives of
    every run above Level L: compare with the sum of those runs' filter FPRs."""
    n_load, n_reads = 30_000, 4_000
    load = load_trace(n_load, entry_bytes=EB, seed=3)
    with Engine(tmp_path / "w", **KW) as e:
        assert replay(e, load).ok
        levels = e.levels()
        assert len(levels[-1]["runs"]) == 1  # Z = 0: one run at Level L
        level_L = load.keys[: levels[-1]["entries"]]  # Level L holds the oldest entries
        run_L = levels[-1]["runs"][0]
        assert level_L.min() >= run_L["min_key"] and level_L.max() <= run_L["max_key"]
        kinds, keys, args = read_ops(
            load.keys, n=n_reads, get_pool=level_L, fractions={"get": 1.0},
            range_entries=RANGE_ENTRIES, seed=3,
        )
        reads = replay(e, build_trace([("reads", kinds, keys, args)], entry_bytes=EB, meta={}))
    assert reads.ok
    upper = [r for lv in levels[:-1] for r in lv["runs"]]
    assert upper, "the load must leave runs above Level L"
    fps = [r["filter_fpr_given_fill"] * (r["max_key"] - r["min_key"] + 1) / 2**64 for r in upper]
    expect = 1.0 + sum(fps)
    sd = math.sqrt(sum(p * (1 - p) for p in fps) / n_reads) * 1.5  # 1.5: sampled keys repeat
    got = reads.phases["reads"]["get"].read_per_op
    assert abs(got - expect) <= 5 * sd + 1e-9, (got, expect, sd)
