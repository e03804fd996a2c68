"""Tidal-tree's floating of hot files (docs/MODEL.md "F1. Floating"): where the read keys sit
when hot files float up, the files a lookup checks, and what the floats write.

The tree is the partial-merge model's (cost_models.partial, P1-P7) for file-granular leveling:
Level l holds n_l entries in files of E entries, covers a share cov_l of the key space (P7), and
passes B entries (a flush) down per flush in steady state, so a file stays at Level l for about
n_l / B flushes. Read keys are scattered over the key space (their popularity order is a random
permutation of the keys) and are not rewritten: without floating a key of any rank sits at
Level l with probability n_l / N.

F1 (the files a lookup checks). A lookup of a key at Level l checks one file of each level
above whose files span it, and the file holding it: chk(l) = 1 + sum_{k<l} cov_k.

F2 (a file's share, Eq 1's f as a frequency). A file of Level i spans cov_i E / n_i of the key
space, so lookups passing through take that share of the lookups that reach Level i, and the
file adds the read share of the hot keys it holds: s_i(r) = cov_i (E / n_i) reach_i + p_r.

F3 (the chain). A hot key's level is a Markov chain, one step per flush (floating.h plans the
floats before the flush's merge, then the flush drains): at Level i >= 2 its file is a
candidate when s_i(r) >= smax_{i-1} gamma / eta (Eq 1, the level above as reference), smax_l
being the pass-through share plus the expected largest hot-key share at Level l; a candidate
floats when fewer than per_flush candidates with larger shares compete (Poisson in their
expected number), to the j that maximizes Eq 4 with the count f = s D (D the decay window);
then the flush's drain sends a file of Level l down with probability min(1, B / n_l). The
smax_l and the competition depend on where every key is: a mean-field fixed point.

F4 (the writes). A float writes the candidate and the c_j files of Level j it merges with, and
its entries later go down again through Levels j+1..i, each costing that level's write
amplification per entry passing (P1's per-level ledger): E (1 + c_j) + E sum_{l=j+1}^{i} w_l
entries per float.

F5 (the bound). However floats are chosen, a level of n_l entries in files of E entries holds
at most n_l / E hot keys (one per file: hot keys are scattered, so no file holds two), so the
fewest checks any floating can reach puts the hottest keys in Level 1's files, the next in
Level 2's, and so on: :func:`placement_bound`.

Assumptions the paper leaves open, named: the reference level is the one above (the engine takes
the nearest level above with an overlapping file; at coverages above 0.5 that is the level
above); candidates compete by share rather than by decayed count; files without a hot key
compete by their pass-through share and, when they float, are priced but not credited (the
checks they save for the lookups passing through, by leaving a gap in Level i's coverage, are
left out); Eq 5's stretch is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cost_models.partial import LeveledFiles, WindowCosts
from cost_models.skew import KeyDist, RankBins, key_probabilities, rank_bins


@dataclass(frozen=True)
class FloatTree:
    """The tree floating acts on, from the partial-merge model (index 0: Level 1)."""

    level_entries: tuple[float, ...]  # n_l
    coverage: tuple[float, ...]  # cov_l (P7)
    level_write_amp: tuple[float, ...]  # w_l: entries written into Level l per entry passing
    flush_entries: float  # B
    file_entries: float  # E

    def __post_init__(self) -> None:
        n = len(self.level_entries)
        if n < 1 or len(self.coverage) != n or len(self.level_write_amp) != n:
            raise ValueError("level_entries, coverage and level_write_amp need one value per "
                             f"level; got {n}, {len(self.coverage)}, {len(self.level_write_amp)}")
        if not self.flush_entries >= 1 or not self.file_entries >= 1:
            raise ValueError("flush_entries and file_entries must be at least 1; got "
                             f"{self.flush_entries}, {self.file_entries}")
        if min(self.level_entries) <= 0:
            raise ValueError(f"every level must hold entries; got {self.level_entries}")


@dataclass(frozen=True)
class Floating:
    """The engine's floating options (native_engine/src/options.h, float_*)."""

    gamma: float
    alpha: float = 1.0
    probe_cost: float = 3.0
    per_flush: int = 1
    decay: float = 10_000.0

    def __post_init__(self) -> None:
        if not self.gamma > 0:
            raise ValueError(f"gamma must be above 0; got {self.gamma}")
        if not self.alpha >= 0 or not self.probe_cost > 0:
            raise ValueError(f"alpha must be >= 0 and probe_cost > 0; got {self.alpha}, "
                             f"{self.probe_cost}")
        if not self.per_flush >= 1 or not self.decay >= 1:
            raise ValueError(f"per_flush and decay must be at least 1; got {self.per_flush}, "
                             f"{self.decay}")


@dataclass(frozen=True)
class FloatCosts:
    """Per existing-key lookup and per insert (entries), with and without floating."""

    probes_off: float  # files checked per lookup without floating (F1)
    probes_on: float  # with floating (F1 over F3's levels, averaged over the window)
    floats_per_flush: float
    float_writes: float  # entries the floats write, per insert
    extra_writes: float  # entries written per insert in all: the floats and the way back down
    read_share_by_level: tuple[float, ...]  # where lookups find their key, with floating

    @property
    def probe_change(self) -> float:
        return self.probes_on / self.probes_off - 1.0


def float_tree(window: WindowCosts, policy: LeveledFiles) -> FloatTree:
    """The tree of a partial-merge window (P1-P7) for F1-F4."""
    return FloatTree(window.level_entries, window.level_coverage, window.level_write_amp,
                     policy.flush_entries, policy.file_entries)


def checks_by_level(tree: FloatTree) -> np.ndarray:
    """F1: files checked by a lookup of a key at each level."""
    cov = np.asarray(tree.coverage, dtype=float)
    return 1.0 + np.concatenate([[0.0], np.cumsum(cov)[:-1]])


def _population(dist: KeyDist, keys: int, growth: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Per-key read probability and key count of rank bins: skew.rank_bins, or with ``growth``
    > 1 coarser bins (one per rank up to 16, then growing by that factor) for F3's chain."""
    if growth <= 1.0:
        bins = rank_bins(keys)
    else:
        edges = [0]
        x = 1.0
        while edges[-1] < keys:
            x = max(x * growth, edges[-1] + 1.0) if edges[-1] >= 16 else edges[-1] + 1.0
            edges.append(min(keys, int(x)))
        e = np.array(edges, dtype=np.int64)
        bins = RankBins(e[:-1], e[1:])
    return key_probabilities(dist, bins, keys), bins.count


def placement_bound(tree: FloatTree, dist: KeyDist, keys: int) -> float:
    """F5: the fewest files checked per lookup any floating can reach, the levels keeping
    their sizes: Level l's n_l / E files each hold one of the hottest keys not placed above,
    the rest as without floating."""
    p, count = _population(dist, keys)
    n = np.asarray(tree.level_entries, dtype=float)
    chk = checks_by_level(tree)
    slots = n / tree.file_entries
    # The placed keys, hottest first, fill the slots level by level; the others are spread
    # over what the levels' entries leave.
    order_mass = p * count
    cum_keys = np.concatenate([[0.0], np.cumsum(count)])
    placed = 0.0
    cost = 0.0
    left_mass = 1.0
    for level in range(len(n)):
        take_lo, take_hi = placed, placed + slots[level]
        share = np.clip(np.minimum(cum_keys[1:], take_hi) - np.maximum(cum_keys[:-1], take_lo),
                        0.0, None) / count
        mass = float((order_mass * share).sum())
        cost += mass * chk[level]
        left_mass -= mass
        placed = take_hi
    rest = n - slots  # entries left to the unplaced keys, which keep the levels' proportions
    cost += left_mass * float((rest / rest.sum()) @ chk)
    return cost


def _destinations(tree: FloatTree, opts: Floating, counts: np.ndarray) -> np.ndarray:
    """Eq 4 for files of Level index i checked ``counts[b, i]`` times: the level index j < i (0
    is Level 1) of the largest T_d(j) = probe_cost f (i - j) - sum_{l=j}^{i-1} c_l - alpha c_j
    - 1 if it is above 0, else -1; of equal T_d the larger j (the shorter move)."""
    n = np.asarray(tree.level_entries, dtype=float)
    cov = np.asarray(tree.coverage, dtype=float)
    out = np.full(counts.shape, -1, dtype=int)
    for i in range(1, len(n)):
        span_i = cov[i] * tree.file_entries / n[i]
        # files of Level l over the span: the starts inside it, plus one across its left end
        c = span_i * n / tree.file_entries + cov
        j = np.arange(i)
        fixed = np.array([c[k:i].sum() for k in j]) + opts.alpha * c[:i] + 1.0
        td = opts.probe_cost * counts[:, i, None] * (i - j)[None, :] - fixed[None, :]
        best = i - 1 - np.argmax(td[:, ::-1], axis=1)  # ties: the larger j
        out[:, i] = np.where(td.max(axis=1) > 0.0, best, -1)
    return out


def window_flushes(inserts: float, tree: FloatTree) -> int:
    """The flushes of a window of ``inserts``."""
    return max(1, int(round(inserts / tree.flush_entries)))


def float_costs(tree: FloatTree, opts: Floating | None, dist: KeyDist, keys: int,
                reads_per_insert: float, flushes: int, writes_before: float = 0.0,
                warmup: int = 0, existing_share: float = 1.0) -> FloatCosts:
    """F1-F4 over a window of ``flushes`` flushes after a load of ``keys`` read keys (which
    start where the load left them, n_l / N at Level l, with no read counted yet): the files
    checked per lookup of keys drawn from ``dist`` (scattered), averaged over the window, and
    the floats' writes, at ``reads_per_insert``. Eq 1's eta is the engine's: reads over writes
    since counting began, both halved every ``opts.decay`` lookups, the ``writes_before`` the
    window (a load's) included: a load's writes hold eta down until lookups decay them.
    The first ``warmup`` flushes run but are not counted. ``existing_share``: the lookups of
    existing keys among all (the others, zero-result lookups, pass every level's files and
    count towards eta). ``opts`` None: no floating."""
    if not reads_per_insert > 0:
        raise ValueError(f"reads_per_insert must be above 0; got {reads_per_insert}")
    if keys < 1 or flushes < 1:
        raise ValueError(f"keys and flushes must be at least 1; got {keys}, {flushes}")
    if not 0.0 < existing_share <= 1.0:
        raise ValueError(f"existing_share must be in (0, 1]; got {existing_share}")
    p, count = _population(dist, keys, growth=1.15)
    n = np.asarray(tree.level_entries, dtype=float)
    cov = np.asarray(tree.coverage, dtype=float)
    w = np.asarray(tree.level_write_amp, dtype=float)
    L = len(n)
    E, B = tree.file_entries, tree.flush_entries
    chk = checks_by_level(tree)
    base = n / n.sum()
    reach = np.cumsum(base[::-1])[::-1]  # lookups reaching Level l (found there or below)
    s_pass = cov * (E / n) * (existing_share * reach + (1.0 - existing_share))
    drain = np.minimum(1.0, B / n)
    drain[-1] = 0.0
    share = s_pass[None, :] + existing_share * p[:, None]  # F2, (bins, L)
    mass = p * count
    pi = np.tile(base, (len(p), 1))
    seen = np.zeros(L)
    floats = written = returned = 0.0
    ages = _Ages(tree, opts, reads_per_insert) if opts else None
    # F4 per float from Level i to j: its own writes, and its entries' way back down.
    own = np.array([[_float_writes(tree, i, j) if j < i else 0.0 for j in range(L)]
                    for i in range(L)])
    back = np.array([[E * float(w[j + 1:i + 1].sum()) if j < i else 0.0 for j in range(L)]
                     for i in range(L)])
    rows = np.arange(len(p))
    for t in range(1, warmup + flushes + 1):
        counting = t > warmup
        if counting:
            seen += (mass[:, None] * pi).sum(axis=0)
        if opts is not None and ages is not None:
            go, dest, passers, pass_dest = _floats(opts, ages, t, pi, count, existing_share * p,
                                                   share, s_pass,
                                                   n / E, ages.eta(t, reads_per_insert,
                                                                   writes_before))
            moved_keys = pi * go  # (bins, L): the share of each bin's keys floated from i
            if counting:
                per = moved_keys * count[:, None]
                for i in range(1, L):
                    j = dest[:, i]
                    ok = j >= 0
                    floats += float(per[ok, i].sum())
                    written += float((per[ok, i] * own[i, j[ok]]).sum())
                    returned += float((per[ok, i] * back[i, j[ok]]).sum())
                    if pass_dest[i] >= 0 and passers[i] > 0:
                        floats += float(passers[i])
                        written += float(passers[i] * own[i, pass_dest[i]])
                        returned += float(passers[i] * back[i, pass_dest[i]])
            pi = pi - moved_keys
            for i in range(1, L):
                j = dest[:, i]
                ok = j >= 0
                np.add.at(pi, (rows[ok], j[ok]), moved_keys[ok, i])
        pi = _drained(pi, drain)
    where = seen / flushes
    off = _sinking(base, drain, flushes, warmup)
    inserts = flushes * B
    return FloatCosts(
        probes_off=float(off @ chk), probes_on=float(where @ chk),
        floats_per_flush=floats / flushes, float_writes=written / inserts,
        extra_writes=(written + returned) / inserts,
        read_share_by_level=tuple(float(x) for x in where))


def _sinking(base: np.ndarray, drain: np.ndarray, flushes: int, warmup: int) -> np.ndarray:
    """Where a read key is, averaged over the window, without floating."""
    pi, seen = base.copy(), np.zeros_like(base)
    for t in range(warmup + flushes):
        if t >= warmup:
            seen += pi
        pi = _drained(pi, drain)
    return seen / flushes


def _drained(pi: np.ndarray, drain: np.ndarray) -> np.ndarray:
    """A flush's drain: from Level l (the last axis) a share drain_l of its keys goes down."""
    out = pi * drain
    kept = pi - out
    kept[..., 1:] += out[..., :-1]
    return kept


class _Ages:
    """F3's read counts. A file of Level l is rewritten by a merge from above with chance
    rho_l = min(1, w_l B / n_l) per flush (Level l takes w_l B entries per flush into n_l),
    so at a planning its age a (flushes, at least 1: files are planned on a flush after the
    one that wrote them) is geometric, and no older than the window. Its exposure is the
    lookups since, decayed (halved every D lookups: e = D / ln 2 (1 - 2^(-a R / D)), R the
    lookups per flush), and its count is Poisson with mean share x exposure."""

    def __init__(self, tree: FloatTree, opts: Floating, eta: float) -> None:
        n = np.asarray(tree.level_entries, dtype=float)
        w = np.asarray(tree.level_write_amp, dtype=float)
        self.rho = np.minimum(1.0, np.maximum(w * tree.flush_entries / n, 1e-6))
        self.R = eta * tree.flush_entries
        self.D = opts.decay
        self.tree = tree

    def eta(self, t: int, ratio: float, writes_before: float) -> float:
        """Eq 1's eta at flush t: decayed reads over decayed writes (floating.h's ReadHeat)."""
        x = t * self.R
        reads = self.D / np.log(2.0) * (1.0 - 2.0 ** (-x / self.D))
        writes = writes_before * 2.0 ** (-x / self.D) + reads / ratio
        return reads / max(1.0, writes)

    def table(self, level: int, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(chance, exposure) of each age at flush t of the window."""
        rho = self.rho[level]
        top = int(min(t, max(1.0, np.ceil(np.log(1e-4) / np.log1p(-rho)) if rho < 1 else 1)))
        a = np.arange(1, top + 1, dtype=float)
        chance = rho * (1.0 - rho) ** (a - 1.0)
        chance[-1] += (1.0 - rho) ** top if rho < 1 else 0.0
        exposure = self.D / np.log(2.0) * (1.0 - 2.0 ** (-a * self.R / self.D))
        return chance, exposure


def _candidacy(chance: np.ndarray, exposure: np.ndarray, shares: np.ndarray,
               threshold: float) -> np.ndarray:
    """P(count >= 1 and count / exposure >= threshold) for files of these true shares."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    need = np.maximum(1.0, np.ceil(threshold * exposure - 1e-9))  # (ages,)
    sf = poisson.sf(need[None, :] - 1.0, shares[:, None] * exposure[None, :])
    return sf @ chance


def _noisy_max(chance: np.ndarray, exposure: np.ndarray, s: float, files: float) -> float:
    """E[max] of ``files`` estimated shares count / exposure of files of true share s."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    if files < 1.0 or s <= 0.0:
        return 0.0
    top = s + 12.0 * np.sqrt(s / exposure.min()) + 12.0 / exposure.min()
    x = np.linspace(0.0, top, 801)
    cdf = poisson.cdf(np.floor(x[:, None] * exposure[None, :] + 1e-9),
                      s * exposure[None, :]) @ chance
    return float(np.trapezoid(1.0 - np.clip(cdf, 0.0, 1.0) ** files, x))


def _floats(opts: Floating, ages: _Ages, t: int, pi: np.ndarray, count: np.ndarray,
            p: np.ndarray, share: np.ndarray, s_pass: np.ndarray, files: np.ndarray,
            eta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """F3 at flush t: each bin's chance of floating from each level and where to (a level
    index, -1: nowhere), and the expected floats of files holding no hot key per level and
    where to."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    L = pi.shape[1]
    tables = [ages.table(level, t) for level in range(L)]
    mean_exposure = np.array([float(c @ e) for c, e in tables])
    hot_here = (pi * count[:, None]).sum(axis=0)
    empty = np.maximum(0.0, files - hot_here)
    # smax_l: the largest estimated share of Level l's files: the noisy pass-through ones',
    # or the hottest key's (hottest bin first: a bin's key is the largest when none hotter is).
    held = 1.0 - (1.0 - pi) ** count[:, None]
    none_before = np.vstack([np.ones((1, L)), np.cumprod(1.0 - held, axis=0)[:-1]])
    hot_max = s_pass + (none_before * held * p[:, None]).sum(axis=0)
    smax = np.array([max(hot_max[k], _noisy_max(*tables[k], s_pass[k], empty[k]))
                     for k in range(L)])
    threshold = np.concatenate([[np.inf], smax[:-1] * opts.gamma / eta])
    cand = np.zeros_like(share)
    pass_cand = np.zeros(L)
    for k in range(1, L):
        both = _candidacy(*tables[k], np.append(share[:, k], s_pass[k]), threshold[k])
        cand[:, k], pass_cand[k] = both[:-1], both[-1]
    # Hottest first by count (share x exposure); a bin is served when fewer than per_flush
    # candidates with larger counts compete (their number Poisson in its mean).
    counts = share * mean_exposure[None, :]
    pass_counts = s_pass * mean_exposure
    expected = pi * count[:, None] * cand
    pass_expected = empty * pass_cand
    keys_ = np.concatenate([counts.ravel(), pass_counts])
    weights = np.concatenate([expected.ravel(), pass_expected])
    order = np.argsort(-keys_, kind="stable")
    ahead = np.empty_like(keys_)
    ahead[order] = np.concatenate([[0.0], np.cumsum(weights[order])[:-1]])
    served = poisson.cdf(opts.per_flush - 1, ahead)
    dest = _destinations(ages.tree, opts, counts)
    pass_dest = _destinations(ages.tree, opts, pass_counts[None, :])[0]
    go = np.where(dest >= 0, cand * served[:-L].reshape(share.shape), 0.0)
    passers = np.array([pass_expected[k] * _group_served(opts.per_flush, ahead[-L + k],
                                                         pass_expected[k]) for k in range(L)])
    # Each group's chance treats the ones ahead as Poisson; the floats of a flush are at most
    # per_flush in all: scale to E[min(N, per_flush)], N Poisson in all the candidates.
    raw = float((pi * count[:, None] * go).sum() + passers.sum())
    total = float(weights.sum())
    cap = float(sum(poisson.sf(k, total) for k in range(opts.per_flush)))
    if raw > cap > 0.0:
        go, passers = go * (cap / raw), passers * (cap / raw)
    return go, dest, passers, pass_dest


def _group_served(per_flush: int, ahead: float, size: float) -> float:
    """The mean chance that a member of a group of ``size`` equal candidates, behind ``ahead``
    others, is served by ``per_flush`` floats (members in random order)."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    if size <= 0:
        return 0.0
    grid = np.linspace(0.0, size, 9)
    return float(np.mean(poisson.cdf(per_flush - 1, ahead + grid)))


def _float_writes(tree: FloatTree, i: int, j: int) -> float:
    """F4's first term: the candidate and Level j's overlapping files, rewritten."""
    n = np.asarray(tree.level_entries, dtype=float)
    cov = np.asarray(tree.coverage, dtype=float)
    span_i = cov[i] * tree.file_entries / n[i]
    c_j = span_i * n[j] / tree.file_entries + cov[j]
    return tree.file_entries * (1.0 + c_j)
