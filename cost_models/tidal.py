"""Tidal-tree's floating of hot files (docs/MODEL.md "F1-F5"): where the read keys sit
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
floats before the flush's merge, then the flush drains). At Level i >= 2 its file is a
candidate when its estimated share (count over exposure, both since the file was written) is
>= smax_k gamma / eta (Eq 1), k the reference level: the nearest level above with a file over
the candidate's span, each with its chance from the coverages; with none, no candidate. smax_k
is the largest estimated share of Level k's files: the noisy pass-through ones' or the
largest hot key's. Lookups may come in batches apart from the inserts (a share ``idle`` of the
flushes then follows no lookup): at such a flush the files the last flush wrote have exposure
0 and share 0, all of Level 1's among them, so against Level 1 the bar is 0 whatever gamma.
Candidates are served largest count first, per_flush a flush (their number ahead Poisson in
its mean; the files with no hot key of a level led by its oldest), to the j that maximizes
Eq 4. The float's merge output is cut through the floated run; the drain sends the file
holding the larger part of it down first (from Level 1 both), so a quarter of what reaches
each level stays there and the rest returns to Level i in the same flush (:func:`landing`);
then a file of Level l goes down with probability min(1, B / n_l) a flush. smax and the
competition depend on where every key is: a mean field.

F4 (the writes). A float writes the candidate and the c_j files of Level j it merges with,
E (1 + c_j); the merge into Level j it meets next rewrites the floated entries (Level 1: the
flush's, E); and, every level being full, the E entries Level j gained send one file more down
from each of Levels j..i-1 in the same flush: the file carrying the floated run, E entries and
the files of the level below over its span (:func:`writes_per_float`).

F5 (the bound). However floats are chosen, a level of n_l entries in files of E entries holds
at most n_l / E hot keys (one per file: hot keys are scattered, so no file holds two), so the
fewest checks any floating can reach puts the hottest keys in Level 1's files, the next in
Level 2's, and so on: :func:`placement_bound`.

Assumptions the paper leaves open, named: candidates compete by expected count (share times
the level's mean exposure), not by their decayed count draw; files without a hot key compete
by their pass-through share and, when they float, are priced but not credited (the checks they
save for the lookups passing through, by leaving a gap in Level i's coverage, are left out);
Eq 5's stretch is not modelled; F4 leaves out what the floated run's return does to the
level's later merges (measured: about -10 entries a float at the level below the source).
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
    floats_from: tuple[float, ...] = ()  # floats per flush from each level (index 0: Level 1)
    # F4's extra_writes by the level they are written into (index 0: Level 1), for D1.
    extra_writes_by_level: tuple[float, ...] = ()
    read_share_off: tuple[float, ...] = ()  # where lookups find their key without floating

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


def _overlaps(tree: FloatTree) -> np.ndarray:
    """c[i, k]: the files of Level index k over the span of a file of Level index i,
    cov_i E / n_i: the starts inside the span plus the one across its left end (F3, F4). For a
    short span it is also the chance that some file of Level k overlaps it (capped at 1): the
    span meets a second file only by crossing a gap and a whole file."""
    n = np.asarray(tree.level_entries, dtype=float)
    cov = np.asarray(tree.coverage, dtype=float)
    span = cov * tree.file_entries / n
    return span[:, None] * n[None, :] / tree.file_entries + cov[None, :]


def _references(tree: FloatTree) -> np.ndarray:
    """ref[i, k]: the chance that Level index k is Eq 1's reference level of a file of Level i,
    the nearest level above holding a file that overlaps it (floating.h), k < i; the row's
    rest, 1 - sum_k ref[i, k], is the chance that none does: then the file is no candidate."""
    o = np.minimum(1.0, _overlaps(tree))
    L = o.shape[0]
    ref = np.zeros((L, L))
    for i in range(1, L):
        none_nearer = 1.0
        for k in range(i - 1, -1, -1):
            ref[i, k] = none_nearer * o[i, k]
            none_nearer *= 1.0 - o[i, k]
    return ref


def idle_share(inserts_per_batch: float, flush_entries: float) -> float:
    """F3: the share of flushes that follow no lookup when lookups and inserts come in batches
    (a batch of lookups, then one of ``inserts_per_batch`` inserts): a batch of inserts holds
    I / B flushes on average and only its first follows lookups, so the others, a share
    max(0, 1 - B / I) of all, see no lookup since the flush before. 0 when every flush is
    preceded by lookups (I <= B, or lookups and inserts interleaved)."""
    if not inserts_per_batch > 0 or not flush_entries > 0:
        raise ValueError("inserts_per_batch and flush_entries must be above 0; got "
                         f"{inserts_per_batch}, {flush_entries}")
    return max(0.0, 1.0 - flush_entries / inserts_per_batch)


def _destinations(tree: FloatTree, opts: Floating, counts: np.ndarray) -> np.ndarray:
    """Eq 4 for files of Level index i checked ``counts[b, i]`` times: the level index j < i (0
    is Level 1) of the largest T_d(j) = probe_cost f (i - j) - sum_{l=j}^{i-1} c_l - alpha c_j
    - 1 if it is above 0, else -1; of equal T_d the larger j (the shorter move)."""
    c_all = _overlaps(tree)
    out = np.full(counts.shape, -1, dtype=int)
    for i in range(1, len(tree.level_entries)):
        c = c_all[i]
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
                warmup: int = 0, existing_share: float = 1.0, idle: float = 0.0) -> FloatCosts:
    """F1-F4 over a window of ``flushes`` flushes after a load of ``keys`` read keys (which
    start where the load left them, n_l / N at Level l, with no read counted yet): the files
    checked per lookup of keys drawn from ``dist`` (scattered), averaged over the window, and
    the floats' writes, at ``reads_per_insert``. Eq 1's eta is the engine's: reads over writes
    since counting began, both halved every ``opts.decay`` lookups, the ``writes_before`` the
    window (a load's) included: a load's writes hold eta down until lookups decay them.
    The first ``warmup`` flushes run but are not counted. ``existing_share``: the lookups of
    existing keys among all (the others, zero-result lookups, pass every level's files and
    count towards eta). ``idle``: the share of flushes that follow no lookup (:func:`idle_share`;
    0 when lookups and inserts interleave). ``opts`` None: no floating."""
    if not reads_per_insert > 0:
        raise ValueError(f"reads_per_insert must be above 0; got {reads_per_insert}")
    if keys < 1 or flushes < 1:
        raise ValueError(f"keys and flushes must be at least 1; got {keys}, {flushes}")
    if not 0.0 < existing_share <= 1.0:
        raise ValueError(f"existing_share must be in (0, 1]; got {existing_share}")
    if not 0.0 <= idle < 1.0:
        raise ValueError(f"idle must be in [0, 1); got {idle}")
    p, count = _population(dist, keys, growth=1.15)
    n = np.asarray(tree.level_entries, dtype=float)
    cov = np.asarray(tree.coverage, dtype=float)
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
    from_level = np.zeros(L)
    ages = _Ages(tree, opts, reads_per_insert, idle) if opts else None
    # F4 per float from Level i to j: its own writes, and its run's way back down.
    per_float = [[writes_per_float(tree, i, j) if j < i else (0.0, 0.0) for j in range(L)]
                 for i in range(L)]
    own = np.array([[w[0] for w in row] for row in per_float])
    back = np.array([[w[1] for w in row] for row in per_float])
    # The same by the level each is written into (D1 places them): ``placed[i, j]``.
    placed = np.zeros((L, L, L))
    for i in range(L):
        for j in range(i):
            placed[i, j] = _return_writes(tree, i, j)
            placed[i, j, j] += own[i, j]
    by_level = np.zeros(L)
    lands = np.array([[landing(L, i, j) for j in range(L)] for i in range(L)])
    for t in range(1, warmup + flushes + 1):
        counting = t > warmup
        if counting:
            seen += (mass[:, None] * pi).sum(axis=0)
        if opts is not None and ages is not None:
            eta = ages.eta(t, reads_per_insert, writes_before)
            # F3: a flush after lookups (share 1 - idle) and one after none (share idle),
            # mixed in expectation (mean field).
            kinds = [(1.0 - idle, ages.last_read)] + ([(idle, 0.0)] if idle > 0 else [])
            moved_keys = np.zeros_like(pi)
            for weight, last in kinds:
                go, dest, passers, pass_dest = _floats(
                    opts, ages, t, last, pi, count, existing_share * p, share, s_pass,
                    n / E, eta)
                moved = weight * pi * go  # (bins, L): the share of each bin's keys floated
                passers = weight * passers
                if counting:
                    per = moved * count[:, None]
                    for i in range(1, L):
                        j = dest[:, i]
                        ok = j >= 0
                        here = float(per[ok, i].sum())
                        floats += here
                        from_level[i] += here
                        written += float((per[ok, i] * own[i, j[ok]]).sum())
                        returned += float((per[ok, i] * back[i, j[ok]]).sum())
                        by_level += per[ok, i] @ placed[i, j[ok]]
                        if pass_dest[i] >= 0 and passers[i] > 0:
                            floats += float(passers[i])
                            from_level[i] += float(passers[i])
                            written += float(passers[i] * own[i, pass_dest[i]])
                            returned += float(passers[i] * back[i, pass_dest[i]])
                            by_level += passers[i] * placed[i, pass_dest[i]]
                for i in range(1, L):
                    moved_keys[:, i] -= moved[:, i]
                    for j in range(i):
                        at = dest[:, i] == j
                        if at.any():
                            moved_keys[at] += moved[at, i, None] * lands[i, j][None, :]
            pi = pi + moved_keys
        pi = _drained(pi, drain)
    where = seen / flushes
    off = _sinking(base, drain, flushes, warmup)
    inserts = flushes * B
    return FloatCosts(
        probes_off=float(off @ chk), probes_on=float(where @ chk),
        floats_per_flush=floats / flushes, float_writes=written / inserts,
        extra_writes=(written + returned) / inserts,
        read_share_by_level=tuple(float(x) for x in where),
        floats_from=tuple(float(x) / flushes for x in from_level),
        extra_writes_by_level=tuple(float(x) / inserts for x in by_level),
        read_share_off=tuple(float(x) for x in off))


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
    one that wrote them) is geometric, and no older than the window. Its exposure x is the
    lookups since: R a flush on average (R = eta B), of which ``last`` since the flush before
    this one (R / (1 - idle) after a batch of lookups, 0 at an idle flush), so
    x = (a - 1) R + last; decayed (halved every D lookups) it is e = D / ln 2 (1 - 2^(-x / D)),
    and the count is Poisson with mean share x e. A file of exposure 0 has share 0
    (floating.h: count / max(1, exposure)): at an idle flush Level 1, all of whose files the
    last flush rewrote, has a largest share of 0."""

    def __init__(self, tree: FloatTree, opts: Floating, eta: float, idle: float = 0.0) -> None:
        n = np.asarray(tree.level_entries, dtype=float)
        w = np.asarray(tree.level_write_amp, dtype=float)
        self.rho = np.minimum(1.0, np.maximum(w * tree.flush_entries / n, 1e-6))
        self.R = eta * tree.flush_entries
        self.last_read = self.R / (1.0 - idle)
        self.D = opts.decay
        self.tree = tree

    def eta(self, t: int, ratio: float, writes_before: float) -> float:
        """Eq 1's eta at flush t: decayed reads over decayed writes (floating.h's ReadHeat)."""
        x = t * self.R
        reads = self.D / np.log(2.0) * (1.0 - 2.0 ** (-x / self.D))
        writes = writes_before * 2.0 ** (-x / self.D) + reads / ratio
        return reads / max(1.0, writes)

    def oldest(self, level: int, t: int, last: float, files: float) -> float:
        """The exposure of the oldest of ``files`` files of the level: the age a* that one
        in ``files`` reaches, (1 - rho)^(a* - 1) = 1 / files, no older than the window."""
        rho = self.rho[level]
        age = 1.0 if rho >= 1.0 or files <= 1.0 else 1.0 + np.log(files) / -np.log1p(-rho)
        looked = (min(age, float(t)) - 1.0) * self.R + last
        return float(self.D / np.log(2.0) * (1.0 - 2.0 ** (-looked / self.D)))

    def table(self, level: int, t: int, last: float) -> tuple[np.ndarray, np.ndarray]:
        """(chance, exposure) of each age at flush t of the window, ``last`` lookups since the
        flush before."""
        rho = self.rho[level]
        top = int(min(t, max(1.0, np.ceil(np.log(1e-4) / np.log1p(-rho)) if rho < 1 else 1)))
        a = np.arange(1, top + 1, dtype=float)
        chance = rho * (1.0 - rho) ** (a - 1.0)
        chance[-1] += (1.0 - rho) ** top if rho < 1 else 0.0
        looked = (a - 1.0) * self.R + last
        exposure = self.D / np.log(2.0) * (1.0 - 2.0 ** (-looked / self.D))
        return chance, exposure


def _candidacy(chance: np.ndarray, exposure: np.ndarray, shares: np.ndarray,
               threshold: float) -> np.ndarray:
    """P(count >= 1 and count / exposure >= threshold) for files of these true shares."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    need = np.maximum(1.0, np.ceil(threshold * exposure - 1e-9))  # (ages,)
    sf = poisson.sf(need[None, :] - 1.0, shares[:, None] * exposure[None, :])
    return sf @ chance


def _noisy_max(chance: np.ndarray, exposure: np.ndarray, s: float, files: float) -> float:
    """E[max] of ``files`` estimated shares count / exposure of files of true share s (a file
    of exposure 0 estimates 0)."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    seen = exposure > 0.0
    if files < 1.0 or s <= 0.0 or not seen.any():
        return 0.0
    low = exposure[seen].min()
    top = s + 12.0 * np.sqrt(s / low) + 12.0 / low
    x = np.linspace(0.0, top, 801)
    cdf = poisson.cdf(np.floor(x[:, None] * exposure[None, :] + 1e-9),
                      s * exposure[None, :]) @ chance
    return float(np.trapezoid(1.0 - np.clip(cdf, 0.0, 1.0) ** files, x))


def _floats(opts: Floating, ages: _Ages, t: int, last: float, pi: np.ndarray,
            count: np.ndarray, p: np.ndarray, share: np.ndarray, s_pass: np.ndarray,
            files: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray]:
    """F3 at flush t, ``last`` lookups since the flush before: each bin's chance of floating
    from each level and where to (a level index, -1: nowhere), and the expected floats of
    files holding no hot key per level and where to."""
    from scipy.stats import poisson  # lazily: importing the types must stay light

    L = pi.shape[1]
    tables = [ages.table(level, t, last) for level in range(L)]
    mean_exposure = np.array([float(c @ e) for c, e in tables])
    seen = np.array([float(c @ (e > 0.0)) for c, e in tables])  # files read since written
    hot_here = (pi * count[:, None]).sum(axis=0)
    empty = np.maximum(0.0, files - hot_here)
    # smax_l, Eq 1's bar: the largest estimated share of Level l's files: the noisy
    # pass-through ones', or the hottest key's (hottest bin first: a bin's key is the largest
    # when none hotter is), if its file was read since it was written.
    held = 1.0 - (1.0 - pi) ** count[:, None]
    none_before = np.vstack([np.ones((1, L)), np.cumprod(1.0 - held, axis=0)[:-1]])
    hot_max = seen * (s_pass + (none_before * held * p[:, None]).sum(axis=0))
    smax = np.array([max(hot_max[k], _noisy_max(*tables[k], s_pass[k], empty[k]))
                     for k in range(L)])
    # Eq 1 against the reference level, the nearest above with a file over the candidate's
    # span (floating.h): each possible one with its chance; none, no candidate.
    ref = _references(ages.tree)
    threshold = smax * opts.gamma / eta
    cand = np.zeros_like(share)
    pass_cand = np.zeros(L)
    for i in range(1, L):
        shares_i = np.append(share[:, i], s_pass[i])
        for k in range(i):
            if ref[i, k] > 0.0:
                both = _candidacy(*tables[i], shares_i, threshold[k])
                cand[:, i] += ref[i, k] * both[:-1]
                pass_cand[i] += ref[i, k] * both[-1]
    # Hottest first by count (share x exposure); a bin is served when fewer than per_flush
    # candidates with larger counts compete (their number Poisson in its mean). The files with
    # no hot key of a level all have its pass-through share, so their counts differ by age
    # alone: the group's oldest candidate leads it, at the count of the age that one in m
    # candidates reaches (m the group's expected candidates), the others follow at the mean.
    counts = share * mean_exposure[None, :]
    pass_counts = s_pass * mean_exposure
    expected = pi * count[:, None] * cand
    pass_expected = empty * pass_cand
    lead = np.minimum(1.0, pass_expected)
    lead_counts = s_pass * np.array([ages.oldest(k, t, last, m)
                                     for k, m in enumerate(pass_expected)])
    keys_ = np.concatenate([counts.ravel(), lead_counts, pass_counts])
    weights = np.concatenate([expected.ravel(), lead, pass_expected - lead])
    order = np.argsort(-keys_, kind="stable")
    ahead = np.empty_like(keys_)
    ahead[order] = np.concatenate([[0.0], np.cumsum(weights[order])[:-1]])
    served = poisson.cdf(opts.per_flush - 1, ahead)
    dest = _destinations(ages.tree, opts, counts)
    pass_dest = _destinations(ages.tree, opts, lead_counts[None, :])[0]
    go = np.where(dest >= 0, cand * served[:-2 * L].reshape(share.shape), 0.0)
    passers = np.array([lead[k] * served[-2 * L + k]
                        + (pass_expected[k] - lead[k])
                        * _group_served(opts.per_flush, ahead[-L + k],
                                        pass_expected[k] - lead[k]) for k in range(L)])
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


def writes_per_float(tree: FloatTree, i: int, j: int) -> tuple[float, float]:
    """F4 for one float from Level index i to j < i (0 is Level 1), in entries: what the
    float writes itself, and what its run's way back to Level i writes in the same flush."""
    if not 0 <= j < i < len(tree.level_entries):
        raise ValueError(f"a float goes from a level index i to j < i of the tree's "
                         f"{len(tree.level_entries)}; got i={i}, j={j}")
    return _float_writes(tree, i, j), float(_return_writes(tree, i, j).sum())


def _float_writes(tree: FloatTree, i: int, j: int) -> float:
    """F4's first term: the candidate and Level j's overlapping files, rewritten. A candidate
    whose reference level is j overlaps at least one file there (F3), so its c_j is the mean
    given one, c_j / P(one); otherwise the mean over the span, c_j."""
    c = _overlaps(tree)[i, j]
    ref = _references(tree)[i]
    given = ref[j] / ref.sum() if ref.sum() > 0 else 0.0
    c_j = given * c / min(1.0, c) + (1.0 - given) * c
    return tree.file_entries * (1.0 + c_j)


CUT_SHARE = 0.25  # E[min(U, 1 - U)], U uniform: the narrower side of a cut through a run


def landing(levels: int, i: int, j: int) -> np.ndarray:
    """Where a float from Level index i to j leaves its keys once its flush has drained (F3,
    F4): the merge output that holds the floated run is cut at a uniform place in it, and the
    narrower file, the one with the larger part of the run (1 - CUT_SHARE of it on average),
    goes down first; from Level 1, which sends about half its files down a flush, both go. So
    a share CUT_SHARE of what reaches a level stays there, the rest goes on, down to Level i,
    where the float's gap is."""
    out = np.zeros(levels)
    if j >= i:
        return out
    arriving = 1.0
    for level in range(1 if j == 0 else j, i):
        out[level] = arriving * CUT_SHARE
        arriving -= out[level]
    out[i] += arriving
    return out


def _return_writes(tree: FloatTree, i: int, j: int) -> np.ndarray:
    """F4's second term: the floated entries' way back to Level i, in the flush that floats
    them (docs/MODEL.md F4). Every level being full, the E entries Level j gained send one
    file more down from each of Levels j..i-1. The merge into Level j that the floated
    entries meet first rewrites them (Level 1: the flush's own merge, over all its files).
    From Level 1, which sends about half its files down a flush, both files the cut leaves
    the floated run in go: together they are the Level 1 file they fell into (whose push the
    drain makes anyway) plus E entries, and they share the Level 2 file at the cut (cov_2),
    none when Level 2 is the source (the cut lies in the candidate's empty slot). From a
    deeper level l - 1 the narrower of the two goes first: the floated keys and the cut's
    ordinary keys, a quarter of a file span of Level l - 1 on average (CUT_SHARE), over
    (sigma_i + s_{l-1} / 4) n_l / E + cov_l files of Level l, sigma_i = cov_i E / n_i the
    candidate's span; at Level i its own slot is empty: half of it lies under the carrier on
    average, so the carrier meets s_{i-1} / 4 n_i / E + cov_i / 2 files. Per level index:
    each push's writes are the level it goes into."""
    n = np.asarray(tree.level_entries, dtype=float)
    cov = np.asarray(tree.coverage, dtype=float)
    E = tree.file_entries
    span = cov * E / n
    out = np.zeros(len(n))
    out[0] = E if j == 0 else 0.0
    for level in range(j + 1, i + 1):
        if level == 1 and j == 0:
            x = 0.0 if i == 1 else cov[1]
        elif level < i:
            x = (span[i] + CUT_SHARE * span[level - 1]) * n[level] / E + cov[level]
        else:
            x = CUT_SHARE * span[level - 1] * n[level] / E + cov[level] / 2.0
        out[level] += E * (1.0 + x)
    return out
