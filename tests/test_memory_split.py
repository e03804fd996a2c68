"""A total memory budget: the search splits it between the write buffer and the filters, and beats
Endure's tuner (Huynh et al., VLDB 2022) on Endure's own design space, under our cost model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wacky_model.analysis import analyze
from wacky_model.search import DesignSpace, buffer_limits, recommend, recommend_many
from wacky_model.types import Design, System, Workload

N = 1e9
MEMORY = 10.0  # bits per entry for buffer + filters, Endure's budget
ENDURE_SYSTEM = System(entries=N, entry_bytes=128)
OURS = System(entries=N, entry_bytes=128,
              memory_bits_per_entry=MEMORY + ENDURE_SYSTEM.fence_bits_per_entry)


def test_memory_budget_is_checked_and_split_exactly() -> None:
    with pytest.raises(ValueError, match="memory_bits_per_entry must exceed the fence pointers"):
        System(memory_bits_per_entry=3.0)  # fences alone take 4 bits per entry
    with pytest.raises(ValueError, match="not both"):
        System(memory_bits_per_entry=10.0, bits_per_entry=5.0)
    with pytest.raises(ValueError, match="choose a split first"):
        _ = OURS.budget
    for buffer in (4096, 3 << 20, 1e9):
        split = OURS.with_buffer(buffer)
        assert split.buffer_bytes % split.block_bytes == 0
        assert split.memory_bits_per_entry_total == pytest.approx(OURS.memory_bits_per_entry)
        assert split.bits_per_entry >= 0
    low, high = buffer_limits(OURS)
    assert low == 0.0 and 2**high * OURS.block_bytes == pytest.approx(OURS.max_buffer_bytes)


@pytest.fixture(scope="module")
def space() -> DesignSpace:
    return DesignSpace.build(OURS)


def test_recommendation_reports_its_split(space) -> None:
    rec = recommend(Workload(0.2, 0.2, 0.6, 0.0), OURS, space=space)
    doc = rec.to_dict()
    assert doc["memory_bits_per_entry_total"] == pytest.approx(OURS.memory_bits_per_entry)
    assert doc["buffer_bytes"] == rec.analysis.system.buffer_bytes
    assert doc["filter_bits_per_entry"] == pytest.approx(rec.analysis.system.bits_per_entry)
    assert doc["fence_bits_per_entry"] == pytest.approx(4.0)
    # The batch (a table lookup) finds the lookup's split; the refinement is at least as cheap.
    batch = recommend_many([Workload(0.2, 0.2, 0.6, 0.0)], OURS, space=space)
    looked_up = recommend(Workload(0.2, 0.2, 0.6, 0.0), OURS, space=space, refine=False)
    assert batch.cost[0] == pytest.approx(looked_up.cost)
    assert batch.buffer_bytes[0] == looked_up.system.buffer_bytes
    assert rec.cost <= looked_up.cost * (1 + 1e-12)


# ----------------------------------------------------------------- Endure's classic model


def endure_cost(T: np.ndarray, filter_bits: np.ndarray, tiered: bool, w: Workload,
                system: System) -> np.ndarray:
    """Endure's cost of Leveling or Tiering with ratio T and the rest of the memory as buffer
    (our own transcription of its Section 3 model; writes counted as in ours, without phi)."""
    buffer_bytes = (MEMORY - filter_bits) * system.entries / 8
    levels = np.ceil(np.log(system.entries * system.entry_bytes / buffer_bytes * (T - 1) / T
                            + 1) / np.log(T))
    i = np.arange(1, 40)[None, :]
    present = i <= levels[:, None]
    # Monkey's per-level FPRs for filter_bits per entry, capped at 1.
    f = np.minimum(1.0, T[:, None] ** (T[:, None] / (T[:, None] - 1))
                   / T[:, None] ** (levels[:, None] + 1 - i)
                   * np.exp(-filter_bits[:, None] * math.log(2) ** 2))
    f = np.where(present, f, 0.0)
    last = np.take_along_axis(f, (levels.astype(int) - 1)[:, None], 1)[:, 0]
    runs = (T - 1) if tiered else np.ones_like(T)
    zero = runs * f.sum(axis=1)
    existing = 1 + zero - runs * last + (runs - 1) / 2 * last
    ranges = levels * runs
    B = system.entries_per_block
    writes = levels * (T - 1) / (T * B) if tiered else levels * (T - 1) / (2 * B)
    return (w.zero_reads * zero + w.point_reads * existing + w.range_reads * ranges
            + w.writes * writes)


def endure_optimum(w: Workload, system: System) -> tuple[Design, float]:
    """Brute force over T in [2, 100] and the filter share of the memory."""
    T, bits = (g.ravel() for g in np.meshgrid(np.arange(2.0, 101.0),
                                              np.linspace(0.0, MEMORY * 0.999, 200)))
    best = (None, np.inf, 0.0)
    for tiered in (False, True):
        cost = endure_cost(T, bits, tiered, w, system)
        j = int(np.argmin(cost))
        if cost[j] < best[1]:
            K = Z = 1.0 if tiered else 0.0
            best = (Design(T[j], T[j] - 1, 1.0, K, Z), float(cost[j]),
                    (MEMORY - bits[j]) * system.entries / 8)
    design, _, buffer_bytes = best
    return design, buffer_bytes


def simplex_workloads(n: int, seed: int = 5) -> list[Workload]:
    rng = np.random.default_rng(seed)
    return [Workload(*(float(x) for x in rng.dirichlet(np.ones(4)))) for _ in range(n)]


def test_our_recommendation_costs_no_more_than_endures_optimum(space) -> None:
    """15 workloads spread over the simplex, the same buffer + filter memory: Endure's best
    design and split, priced by our (finite-N) model, never beats our recommendation."""
    gains = []
    for w in simplex_workloads(15):
        design, buffer_bytes = endure_optimum(w, ENDURE_SYSTEM)
        theirs = analyze(design, OURS.with_buffer(buffer_bytes), w, realizable=True).finite.theta
        ours = recommend(w, OURS, space=space)
        assert ours.cost <= theirs * (1 + 1e-9), (w, design, buffer_bytes, ours.design)
        gains.append(1 - ours.cost / theirs)
    print(f"our cost below Endure's design (our model): median {np.median(gains):.1%}, "
          f"min {min(gains):.1%}, max {max(gains):.1%}")


MIX = ["--point-reads", "0.2", "--zero-reads", "0.2", "--writes", "0.6"]


def test_cli_memory_flags(wacky) -> None:
    import json

    out = wacky("recommend", "--entries", "1e8", "--memory-bytes", "2e8", *MIX, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["memory_bits_per_entry_total"] == pytest.approx(16.0)
    assert doc["buffer_bytes"] > 0 and doc["filter_bits_per_entry"] >= 0
    text = wacky("recommend", "--entries", "1e8", "--memory-bits-per-entry", "16", *MIX)
    assert text.returncode == 0 and "memory: 16 bits per entry = buffer" in text.stdout


@pytest.mark.parametrize("args, message", [
    (["--memory-bits-per-entry", "3"], "--memory-bits-per-entry must exceed the fence pointers"),
    (["--memory-bits-per-entry", "8", "--bits-per-entry", "3"], "not both"),
    (["--memory-bytes", "1e9", "--memory-bits-per-entry", "8"],
     "give --memory-bits-per-entry or --memory-bytes, not both"),
    (["--memory-bytes", "-5"], "--memory-bytes must be > 0"),
])
def test_cli_memory_errors_name_the_flag(wacky, args, message) -> None:
    out = wacky("recommend", *args, *MIX)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_a_split_keeps_the_rest_of_the_system():
    """with_buffer changes the buffer and the filters only: the cache, the probe cost and the
    write cost ratio stay (a split once dropped the cache)."""
    system = System(memory_bits_per_entry=12, cache_bytes=1 << 30, probe_cost=0.01,
                    write_cost_ratio=2.0, hash_levels=1)
    split = system.with_buffer(4 << 20)
    assert (split.cache_bytes, split.probe_cost, split.write_cost_ratio, split.hash_levels) == (
        1 << 30, 0.01, 2.0, 1)
    assert split.buffer_bytes == 4 << 20 and split.memory_bits_per_entry is None
