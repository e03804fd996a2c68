"""The finite-N model: steady-state costs of the App. E merge policy at a given N.

Eq 8-16 price a tree whose levels are exactly full. The engine's tree at a finite N is not: App. E
re-anchors the capacities of Levels 1..L-1 on Level L after every merge into Level L (a *major
merge*), and in between those levels fill like the digits of a counter. This module prices that
process as an expectation over the fill cycle, with no replay of flushes. Every step is derived
in ``docs/MODEL.md`` (sections M1-M7 below refer to it).

* M1 The major cycle: after a major merge at size S, Levels 1..L-1 are empty with capacities
  N_i = f_i S (C+1)/C. Level i accepts m_i = min(floor(N_i / b_i), a_i q_i) batches of b_i
  (q_i = ceil(N_i / (a_i b_i)) a run; b_1 = F), then the next arrival sweeps it down:
  b_{i+1} = (m_i + 1) b_i.
* M2 Level i rewrites its active run on every batch: W_i = b_i (f q(q+1)/2 + e(e+1)/2) a fill,
  W_i / b_{i+1} writes per insert.
* M3 Level L: with beta = b_L / S a run takes q_L = ceil(-ln(1 - 1/a_L) / ln(1+beta)) batches;
  after a_L - 1 runs the next batch merges all of Level L (a *full merge*): geometric sums.
* M4 Level i holds sum_k ceil(k/q_i) / (m_i + 1) runs on average.
* M5 Reads: the false positives of the runs a read passes, filters as built.
* M6 The phase: costs averaged over window starts S = N (1+beta)^u, u in [0, 2), triangular.
* M7 Level L's runs at a window's start (a_L > 1): uniform in 1..a_L - 1 unless given.

The cost per design is O(points x L), independent of N/F.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cost_models.devices import LevelLedger
from cost_models.evaluate import allocate_fprs, hash_mask_of
from cost_models.filters import bloom_bits_per_key
from cost_models.memory import hash_table_bits_per_entry
from cost_models.objective import cost_row
from cost_models.structure import ArrayLike, num_levels, structure

# The engine's tolerance on N_i / a_i and N_i (merge_policy.cc), so that a level that holds
# exactly its capacity is full, not one batch short.
REL_TOL = 1e-9
# Quadrature points over the window's phase (M6): midpoints of [0, 2) in u.
PHASE_POINTS = 3


@dataclass(frozen=True)
class FiniteCosts:
    """Steady-state costs per operation; every field has the designs' broadcast shape."""

    write_amp: np.ndarray  # blocks written per block inserted, full merges amortized
    full_merge_write_amp: np.ndarray  # the part of write_amp due to full merges of Level L
    zero_result_read: np.ndarray
    point_read: np.ndarray  # an entry in Level L's oldest run (the worst case)
    point_read_uniform: np.ndarray  # an entry drawn uniformly from all entries
    range_runs: np.ndarray  # runs a range read probes
    filter_probes: np.ndarray  # filters and hash tables a zero-result read probes
    memory_bits_per_entry: np.ndarray  # Bloom filter and hash table bits per stored entry
    levels: np.ndarray  # L at N
    level_runs: np.ndarray  # mean runs per level over the first cycle after N (level axis last)
    level_entries: np.ndarray  # mean entries per level over that cycle
    # D1's ledger (cost_models.devices.LevelLedger), Level 1 first, averaged over the phase like
    # the totals, which each sums to: writes, zero-result, worst-case and uniform existing-key
    # reads, and range runs per level.
    level_writes: np.ndarray | None = None
    level_zero_result: np.ndarray | None = None
    level_point_read: np.ndarray | None = None
    level_point_read_uniform: np.ndarray | None = None
    level_range_runs: np.ndarray | None = None
    level_mean_entries: np.ndarray | None = None

    def level_ledger(self) -> LevelLedger:
        """D1's per-level ledger of one design (level 0, empty with whole levels, first)."""
        def lv(a: np.ndarray | None) -> np.ndarray:
            assert a is not None, "finite_costs fills every per-level field"
            return np.concatenate([[0.0], np.asarray(a, dtype=float).reshape(-1)])

        return LevelLedger(writes=lv(self.level_writes), zero_result=lv(self.level_zero_result),
                           point_read=lv(self.level_point_read),
                           point_read_uniform=lv(self.level_point_read_uniform),
                           range_runs=lv(self.level_range_runs),
                           entries=lv(self.level_mean_entries))

    @property
    def window_write_amp(self) -> np.ndarray:
        """Write amplification of a window in which Level L builds runs but has no full merge
        (the steady window of ``wacky validate`` when a_L > 1)."""
        return self.write_amp - self.full_merge_write_amp


def realized_fpr(bits_per_key: ArrayLike) -> np.ndarray:
    """FPR of a large Bloom filter as the engine builds it: k = max(1, round(b ln 2)) probes."""
    b = np.asarray(bits_per_key, dtype=float)
    k = np.maximum(1.0, np.floor(b * np.log(2.0) + 0.5))
    with np.errstate(divide="ignore", invalid="ignore"):
        fpr = (-np.expm1(-k / b)) ** k
    return np.where(b > 0, fpr, 1.0)


def runs_over_fill(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """M4: sum_{k=0}^{m} ceil(k/q) / (m+1), the mean run count of a level over its fill."""
    f = np.floor(m / q)
    e = m - f * q
    return (q * f * (f + 1.0) / 2.0 + e * (f + 1.0)) / (m + 1.0)


def writes_per_fill(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """M2: W_i / b_i = f q(q+1)/2 + e(e+1)/2, the batches a level's runs rewrite in one fill."""
    f = np.floor(m / q)
    e = m - f * q
    return f * q * (q + 1.0) / 2.0 + e * (e + 1.0) / 2.0


def level_L_cycle(beta: np.ndarray, a: np.ndarray, runs_at_start: np.ndarray | None = None
                  ) -> tuple[np.ndarray, ...]:
    """M3: Level L over the cycle of full merges, in units of the size S0 after one. Returns
    (q_L, growth G over the cycle, run-building writes per insert, full-merge writes per insert,
    mean runs at Level L). With a_L = 1 every major merge is a full merge."""
    ln1b = np.log1p(beta)
    many = a > 1.0
    safe_a = np.where(many, a, 2.0)
    need = -np.log1p(-(1.0 - REL_TOL) / safe_a) / ln1b
    q = np.where(many, np.maximum(1.0, np.ceil(need - 1e-9)), 1.0)
    batches = (a - 1.0) * q + 1.0
    growth = np.exp(batches * ln1b)
    g_q = np.expm1(q * ln1b)  # (1+beta)^q - 1
    per_run = (1.0 + beta) * g_q / beta - q  # run writes / content when the run starts
    run_starts = np.where(
        many, np.expm1((a - 1.0) * q * ln1b) / np.where(many, g_q, 1.0), 0.0
    )  # sum_{r<a-1} (1+beta)^{rq}
    inserted = growth - 1.0
    build = per_run * run_starts / inserted
    full = growth / inserted
    # A window (one run fill) starts with r full runs, r uniform in 1..a_L-1 unless known, and
    # holds r + 1 runs after its first major merge.
    r = (a / 2.0) if runs_at_start is None else np.minimum(runs_at_start, a)
    runs = np.where(many, r + (q - 1.0) / q, 1.0)
    return q, growth, build, full, runs


@dataclass(frozen=True)
class FillLayout:
    """M1 at total size S: the structure, each level's capacity and runs, and the batch b_i that
    reaches it, the batches q_i per run and m_i per fill (0 at Level L and padding)."""

    s: Any
    caps: np.ndarray
    runs: np.ndarray  # a_i of the merge rule (Eq 13 uncapped), at least 1
    batch: np.ndarray
    q: np.ndarray
    m: np.ndarray
    upper: np.ndarray  # Levels 1..L-1
    last_batch: np.ndarray  # b_L, the batch that reaches Level L


def fill_layout(
    T: np.ndarray, C: np.ndarray, X: np.ndarray, K: np.ndarray, Z: np.ndarray,
    S: np.ndarray, F: np.ndarray,
) -> FillLayout:
    """M1: the batches of the major cycle that starts at total size S (level axis last)."""
    n_est = S * (C + 1.0) / C
    s = structure(T, C, X, K, Z, n_est / F, integer_runs=True)
    caps = s.fractions * n_est[..., None]
    upper = s.valid & ~s.largest
    # The merge rule's bound (Eq 13 uncapped, as the engine's Level::max_runs): the level's
    # capacity, not a_i, stops a level of fewer buffers than a_i at floor(N_i / b_i) batches.
    a = np.maximum(s.run_bound, 1.0)
    run_cap = caps / a * (1.0 - REL_TOL)
    cap_hi = np.where(upper, caps * (1.0 + REL_TOL), 0.0)
    batch = np.empty(s.runs.shape)  # b_i, the batch that reaches Level i
    q = np.empty(s.runs.shape)
    b = np.broadcast_to(F, S.shape).astype(float)
    for i in range(s.runs.shape[-1]):
        batch[..., i] = b
        q[..., i] = np.maximum(1.0, np.ceil(run_cap[..., i] / b))
        # M1: padding and Level L have cap_hi 0, so m = 0 and b carries through unchanged.
        m = np.minimum(np.floor(cap_hi[..., i] / b), a[..., i] * q[..., i])
        b = b * (m + 1.0)
    m = np.where(upper, np.minimum(np.floor(cap_hi / batch), a * q), 0.0)
    return FillLayout(s, caps, a, batch, q, m, upper, b)


def peak_space(T: ArrayLike, C: ArrayLike, X: ArrayLike, K: ArrayLike, Z: ArrayLike, *,
               entries: ArrayLike, buffer_entries: ArrayLike) -> np.ndarray:
    """M8 (T5 for whole levels): the most bytes the run files hold during a cycle that ends at a
    merge into Level L, over those then, the tree holding ``entries`` (broadcast over designs).
    The engine deletes a merge's inputs once its one output run is whole, and the last merge
    into Level L is the cycle's largest (the tree only grew). When Level L is one run (a_L = 1)
    that merge rewrites all of it with the levels above, everything but the buffer already on
    disk: (2 S - F) / S. With a_L > 1 it rewrites Level L's active run with the arriving batch
    b_L (M1) as the run fills: a run just under its capacity N_L / a_L takes the batch, so the
    output is N_L / a_L + b_L / 2 on average: (S - F + N_L / a_L + b_L / 2) / S."""
    knobs = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                  for v in (T, C, X, K, Z, entries, buffer_entries)))
    S, F = knobs[5], knobs[6]
    lay = fill_layout(*knobs[:5], S, F)
    L = np.argmax(lay.s.largest, axis=-1)[..., None]
    a_L = np.take_along_axis(lay.runs, L, axis=-1)[..., 0]
    run = np.take_along_axis(lay.caps, L, axis=-1)[..., 0] / np.maximum(a_L, 1.0)
    tiered = (S - F + run + lay.last_batch / 2.0) / S
    return np.where(a_L <= 1.0, (2.0 * S - F) / S, tiered)


def _at_size(
    T: np.ndarray, C: np.ndarray, X: np.ndarray, K: np.ndarray, Z: np.ndarray,
    S: np.ndarray, F: np.ndarray, budget: dict, uniform: bool,
    level_L_runs: np.ndarray | None = None, hash_levels: np.ndarray | float = 0,
) -> dict[str, np.ndarray]:
    """Every per-insert and per-read cost of the major cycle that starts at total size S."""
    lay = fill_layout(T, C, X, K, Z, S, F)
    s, batch, q, m, upper, b = lay.s, lay.batch, lay.q, lay.m, lay.upper, lay.last_batch
    fprs = allocate_fprs(s, uniform=uniform, hash_levels=hash_levels, **budget)
    hashed = hash_mask_of(s, hash_levels)
    bits = np.where(s.valid, bloom_bits_per_key(fprs), 0.0)
    fpr_built = np.where(s.valid, realized_fpr(bits), 0.0)
    # A hash level's key signatures give its level the rate a_i p_i, however full it is.
    bits = np.where(hashed, hash_table_bits_per_entry(s.runs * fprs), bits)
    fpr_built = np.where(hashed, fprs, fpr_built)
    w_up = np.sum(writes_per_fill(m, q) / (m + 1.0), axis=-1)  # M2: W_i / b_{i+1}
    runs_mean = np.where(upper, runs_over_fill(m, q), 0.0)
    entries_mean = batch * m / 2.0
    beta = b / S
    a_L = s.at_largest(s.runs)
    q_L, growth, build, full, runs_L = level_L_cycle(beta, a_L, level_L_runs)
    last = s.largest
    runs_mean = np.where(last, runs_L[..., None], runs_mean)
    entries_mean = np.where(last, S[..., None], entries_mean)
    fp_level = runs_mean * fpr_built
    fp_upper = np.sum(np.where(last, 0.0, fp_level), axis=-1)
    fp_L = s.at_largest(fpr_built)
    zero = fp_upper + runs_L * fp_L
    # M5: a uniform key lives at Level i with chance E[entries_i] / total; above it are the runs
    # of the smaller levels and, on average, half of its own level's other runs.
    before = np.cumsum(fp_level, axis=-1) - fp_level
    own_upper = fpr_built * np.maximum(runs_mean - 1.0, 0.0) / 2.0
    # Level L: the run merged at the last full merge holds most keys and sits below every newer
    # run; the newer runs are each about beta q of it.
    r = runs_L
    small = np.expm1(q_L * np.log1p(beta))
    newer_L = ((r - 1.0) + small * (r - 1.0) * np.maximum(r - 2.0, 0.0) / 2.0) / (
        1.0 + small * (r - 1.0))
    own = np.where(last, (fp_L * newer_L)[..., None], own_upper)
    total = np.sum(entries_mean, axis=-1)
    uniform_read = 1.0 + np.sum(entries_mean * (before + own), axis=-1) / total
    memory = np.sum(entries_mean * bits, axis=-1) / total
    # D1's ledger: the same sums, term by term. A uniform key below Level j pays Level j's false
    # positives (the entries of the levels after j), and its own level's and block there.
    after = total[..., None] - np.cumsum(entries_mean, axis=-1)
    level_writes = writes_per_fill(m, q) / (m + 1.0) + np.where(last, (build + full)[..., None],
                                                                0.0)
    level_zero = np.where(last, (runs_L * fp_L)[..., None], fp_level)
    level_point = np.where(last, (1.0 + (r - 1.0) * fp_L)[..., None], fp_level)
    level_uniform = (fp_level * after + entries_mean * (own + 1.0)) / total[..., None]
    return {
        "write_amp": w_up + build + full,
        "full_merge": np.where(a_L > 1.0, full, 0.0),
        "zero_result_read": zero,
        "point_read": 1.0 + fp_upper + (r - 1.0) * fp_L,
        "point_read_uniform": uniform_read,
        "range_runs": np.sum(runs_mean, axis=-1),
        "filter_probes": np.sum(np.where(hashed, np.minimum(runs_mean, 1.0), runs_mean), axis=-1),
        "memory_bits_per_entry": memory,
        "beta": beta,
        "q_L": q_L,
        "level_runs": runs_mean,
        "level_entries": entries_mean,
        "level_writes": level_writes,
        "level_zero": level_zero,
        "level_point": level_point,
        "level_uniform": level_uniform,
    }


def finite_costs(
    T: ArrayLike, C: ArrayLike, X: ArrayLike, K: ArrayLike, Z: ArrayLike, *,
    entries: ArrayLike, buffer_entries: ArrayLike, bits_per_entry: ArrayLike | None = None,
    sum_fpr: ArrayLike | None = None, uniform: bool = False, points: int = PHASE_POINTS,
    level_L_runs: ArrayLike | None = None, hash_levels: ArrayLike = 0,
) -> FiniteCosts:
    """Steady-state costs of the designs at N = ``entries`` with F = ``buffer_entries`` (M1-M6).
    The window a cost averages over starts at the first major merge after N, at a phase the model
    does not know; it is averaged over (M6). With a_L > 1, how many runs Level L holds when the
    window starts depends on the whole history since its last full merge (M7); ``level_L_runs``
    gives that count when it is known (for example, observed), else it is averaged too.
    ``hash_levels``: the smallest levels served by a hash table (App. F), as in
    :func:`cost_models.evaluate.allocate_fprs`."""
    if (bits_per_entry is None) == (sum_fpr is None):
        raise ValueError("give exactly one of bits_per_entry or sum_fpr")
    if points < 1:
        raise ValueError(f"points must be >= 1; got {points}")
    name, value = ("bits_per_entry", bits_per_entry) if bits_per_entry is not None else (
        "sum_fpr", sum_fpr)
    knobs = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                  for v in (T, C, X, K, Z, entries, buffer_entries, value,
                                            hash_levels)))
    T, C, X, K, Z, N, F, per_design, h = (v[..., None] for v in knobs)
    budget = {name: per_design}
    given = None if level_L_runs is None else np.asarray(level_L_runs, dtype=float)[..., None]
    # The span of the phase (M6) is one window's growth, (1+beta)^q_L, with beta ~ 1/C (Levels
    # 1..L-1 hold 1/C of Level L when they spill into it); it only sets the averaging range.
    a_L = np.maximum(1.0, np.floor(np.power(C, Z) + 0.5))
    q_L, *_ = level_L_cycle(1.0 / C, a_L)
    span = np.log1p(1.0 / C) * q_L
    u = (np.arange(points) + 0.5) / points * 2.0
    S = N * np.exp(span * u)
    at = _at_size(T, C, X, K, Z, S, F, budget, uniform, given, h)
    # The window start is uniform in log S over one window, and the window covers the next one:
    # a triangular density in u over [0, 2), with each cycle weighted by its inserts (~ S).
    weight = (1.0 - np.abs(u - 1.0)) * S
    weight = weight / np.sum(weight, axis=-1, keepdims=True)

    def mean(name: str) -> np.ndarray:
        return np.sum(at[name] * weight, axis=-1)

    def level_mean(name: str) -> np.ndarray:  # the phase axis is next to the level axis
        return np.sum(at[name] * weight[..., None], axis=-2)

    return FiniteCosts(
        write_amp=mean("write_amp"),
        full_merge_write_amp=mean("full_merge"),
        zero_result_read=mean("zero_result_read"),
        point_read=mean("point_read"),
        point_read_uniform=mean("point_read_uniform"),
        range_runs=mean("range_runs"),
        filter_probes=mean("filter_probes"),
        memory_bits_per_entry=mean("memory_bits_per_entry"),
        levels=num_levels(knobs[0], knobs[1], knobs[2],
                          knobs[5] * (knobs[1] + 1.0) / knobs[1] / knobs[6]),
        level_runs=at["level_runs"][..., 0, :],
        level_entries=at["level_entries"][..., 0, :],
        level_writes=level_mean("level_writes"),
        level_zero_result=level_mean("level_zero"),
        level_point_read=level_mean("level_point"),
        level_point_read_uniform=level_mean("level_uniform"),
        level_range_runs=level_mean("level_runs"),
        level_mean_entries=level_mean("level_entries"),
    )


def finite_cost_rows(
    T: ArrayLike, C: ArrayLike, X: ArrayLike, K: ArrayLike, Z: ArrayLike, *,
    entries: float, buffer_entries: ArrayLike, entries_per_block: float,
    bits_per_entry: ArrayLike | None = None, sum_fpr: ArrayLike | None = None,
    uniform: bool = False, hash_levels: ArrayLike = 0,
) -> np.ndarray:
    """The finite model's cost rows (``objective.COST_ROW``), for Theta = row @ weights. Write
    amplification is the amortized one (full merges included); every entry is in a run, so a long
    range spreads over all of the data (spread 1)."""
    m = finite_costs(T, C, X, K, Z, entries=entries, buffer_entries=buffer_entries,
                     bits_per_entry=bits_per_entry, sum_fpr=sum_fpr, uniform=uniform,
                     hash_levels=hash_levels)
    return cost_row(point_read=m.point_read, zero_result_read=m.zero_result_read,
                    write_cost=m.write_amp / float(entries_per_block), range_runs=m.range_runs,
                    point_read_uniform=m.point_read_uniform, filter_probes=m.filter_probes)
