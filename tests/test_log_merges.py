"""L1, L2SM's log on the partial-merge walk (cost_models/log_merges.py, docs/MODEL.md L1): the
batch's closed forms against sympy and against random intervals, the walk at log ratio 0 bit
for bit the walk without a log, the sizes' fixed point, and the search choosing the log where
the model says it pays and not elsewhere."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from cost_models.log_merges import batch, batched_write_amp, log_sizes
from cost_models.partial import LeveledFiles, capacities, window_costs, window_costs_many
from wacky_model.search import recommend
from wacky_model.types import System, Workload


def _policy(T: float = 10.0, omega: float = 0.0) -> LeveledFiles:
    return LeveledFiles(T=T, C=T - 1, flush_entries=1024, file_entries=256, level0_runs=1,
                        targets="wacky", flush_writes=False, boundary_files=1.0,
                        log_ratio=omega)


def test_the_batch_closed_forms_follow_from_the_poisson_run() -> None:
    c, x, w = sp.symbols("c x w", positive=True)
    p = 1 - sp.exp(-c)
    # L1b: a run goes on to each side with probability p: 1 + 2 p / (1 - p) files.
    assert sp.simplify(1 + 2 * p / (1 - p) - (2 * sp.exp(c) - 1)) == 0
    # The mean gap under a width (starts of rate c per width, w = 1): g.
    gap = sp.integrate(x * c * sp.exp(-c * x), (x, 0, 1)) / sp.integrate(c * sp.exp(-c * x),
                                                                            (x, 0, 1))
    g = 1 / c - sp.exp(-c) / (1 - sp.exp(-c))
    for value in (0.05, 0.5, 1.0, 3.0):
        assert float(gap.subs(c, value)) == pytest.approx(float(g.subs(c, value)), rel=1e-12)
        k, g_num = batch(value)
        assert k == pytest.approx(2 * math.exp(value) - 1, rel=1e-12)
        assert g_num == pytest.approx(float(g.subs(c, value)), rel=1e-9)
    assert batch(0.0) == (1.0, 0.0)
    assert batch(1e-9)[1] == pytest.approx(0.5, abs=1e-6)  # g -> 1/2 as c -> 0
    del w


def test_the_batch_against_random_intervals() -> None:
    """Starts uniform on a long line, one width each: the cluster a random file belongs to
    holds k files and spans 1 + (k - 1) g widths, as L1b says (within sampling error)."""
    rng = np.random.default_rng(7)
    for coverage in (0.3, 0.6, 1.0):
        n = 200_000
        starts = np.sort(rng.uniform(0.0, n / coverage, n))
        breaks = np.flatnonzero(np.diff(starts) > 1.0) + 1  # a gap wider than a width
        sizes = np.diff(np.concatenate(([0], breaks, [n])))
        firsts = np.concatenate(([0], breaks))
        spans = starts[firsts + sizes - 1] - starts[firsts] + 1.0
        # A random file's cluster: clusters weighed by their files.
        k_seen = float(np.sum(sizes * sizes) / n)
        span_seen = float(np.sum(sizes * spans) / n)
        k, g = batch(coverage)
        assert k_seen == pytest.approx(k, rel=0.03)
        assert span_seen == pytest.approx(1.0 + (k - 1.0) * g, rel=0.03)


def test_a_log_ratio_of_zero_is_the_walk_without_a_log() -> None:
    p = _policy()
    plain = window_costs(p, 200_000, 100_000, settled=True)
    assert replace(p, log_ratio=0.0) == p and plain.log_coverage == ()
    assert window_costs_many([p, _policy(omega=0.1)], 200_000, 100_000, settled=True)[0] == plain


def test_the_log_batches_merges_and_takes_its_entries_from_level_l() -> None:
    p, logged = _policy(), _policy(omega=0.1)
    plain = window_costs(p, 200_000, 100_000, settled=True)
    with_log = window_costs(logged, 200_000, 100_000, settled=True)
    assert with_log == window_costs_many([logged], 200_000, 100_000, settled=True)[0]
    assert with_log.write_amp < plain.write_amp
    assert all(c > 0 for c in with_log.log_coverage[-2:-1]) and with_log.log_coverage[-1] == 0
    tree, lam = log_sizes(lambda n: capacities(p, n), 0.1, 250_000)
    assert tree + lam.sum() == pytest.approx(250_000, rel=1e-9)
    assert lam.sum() == pytest.approx(0.1 * sum(capacities(p, tree)), rel=1e-6)
    assert lam[-1] == 0.0
    # The cap: a file already past it goes down alone.
    assert batched_write_amp(20.0, 0.5, 1.0, 10.0) == 20.0
    assert batched_write_amp(6.0, 0.5, 1.0, 10.0) < 6.0
    assert batched_write_amp(6.0, 0.0, 1.0, 10.0) == pytest.approx(6.0)


@pytest.mark.parametrize("workload, takes", [
    (Workload(point_reads=0.1, writes=0.9), True),
    (Workload(point_reads=0.0, zero_reads=1.0, writes=0.0), False),
])
def test_recommend_takes_the_log_where_it_pays(workload, takes) -> None:
    """Writes: the log's batched merges pay for its extra probes, and recommend says what it
    buys. No writes: it buys nothing and costs probes, so it stays off."""
    r = recommend(workload, System(entries=2**24), granularity="file")
    assert (r.compaction.log is not None) is takes
    log = r.to_dict()["granularity_choice"]["file"]["log"]
    assert log["chosen"] is takes
    assert (log["theta_with"] < log["theta_without"]) is takes
    words = r.to_dict()["granularity_choice"]["reason"]
    assert ("with L2SM's log" if takes else "without L2SM's log") in words
    if takes:
        assert log["write_amp_with"] < log["write_amp_without"]


def test_under_skew_the_log_is_priced_by_s2f_and_reported() -> None:
    """Skewed updates with a cache go through the skew stage (S2f's ledger takes L1's walk):
    the log is still chosen for writes, and what it buys is priced on the same stage."""
    w = Workload(point_reads=0.2, writes=0.8, write_keys="zipf:0.9", read_keys="zipf:0.9",
                 update_fraction=0.5)
    r = recommend(w, System(entries=2**24, cache_bytes=1 << 24), granularity="file")
    log = r.to_dict()["granularity_choice"]["file"]["log"]
    assert r.model == "files" and r.compaction.log is not None and log["chosen"]
    assert log["write_amp_with"] < log["write_amp_without"]
    assert log["theta_with"] == pytest.approx(r.cost)


def test_the_log_is_refused_beside_hash_levels_everywhere() -> None:
    """The native engine refuses the log with hash levels (a level's hash table indexes its tree
    files only): the one table says so, the search leaves the log out, the adapter refuses."""
    from validation.runner import cannot_build
    from wacky_model.compat import refusals
    from wacky_model.granularity import file_grid
    from wacky_model.types import Compaction, Log

    [row] = refusals({"l2sm_log", "hash_levels"})
    assert row.physical and "hash table" in row.reason
    hashed = System(entries=2**24, hash_levels=2)
    assert all(c.log is None for c in file_grid(hashed).compactions)
    assert any(c.log is not None for c in file_grid(System(entries=2**24)).compactions)
    r = recommend(Workload(point_reads=0.1, writes=0.9), hashed, granularity="file")
    assert r.compaction.log is None
    why = cannot_build("native", False, Compaction("file", log=Log(0.1)), 2)
    assert why is not None and "hash table" in why
    assert cannot_build("native", False, Compaction("file", log=Log(0.1)), 0) is None
