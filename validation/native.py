"""The native engine as a :class:`validation.window.Session`, and the reads paced over its
window: uniform keys (fresh inserts one buffer at a time, replayed as traces so a validation can
save them) or skewed keys and a block cache (updates and inserts in chunks of an eighth of a
buffer, existing-key reads drawn from the workload's distribution).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import wacky_traces as tr
from cost_models.skew import SkewedWorkload
from validation import generators
from validation.replay import replay
from validation.window import TOLERANCE, ReadPacing

READ_KINDS = ("zero", "level_L_reads", "uniform_reads", "range")
Part = tuple[str, np.ndarray, np.ndarray, np.ndarray]


def level_L_state(engine: Any) -> tuple[int, bool, float]:
    """Level L's non-empty runs, whether its active run is full (the engine's rule,
    ``Level::ActiveFull``), and a_L."""
    level = engine.levels()[-1]
    runs = [r["entries"] for r in level["runs"] if r["entries"] > 0]
    threshold = level["capacity"] / level["max_runs"] * (1.0 - TOLERANCE)
    return len(runs), not runs or runs[-1] >= threshold, float(level["max_runs"])


def _ops(kind: tr.OpKind, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.full(keys.size, int(kind), np.uint8), keys, np.zeros(keys.size, np.uint64)


@dataclass
class NativeSession:
    """The engine, which holds ``loaded``; a step is one buffer of ``fresh`` keys, replayed
    as a trace (``parts``, for a saved trace) with every answer checked (``checks``: misses,
    zero-result hits, wrong values)."""

    engine: Any
    fresh: np.ndarray
    entry_bytes: int
    used: int = 0  # fresh keys inserted so far
    tag: str = "warm"  # the steps' phase names in the trace: "warm", then "win"
    parts: list[Part] = field(default_factory=list)
    checks: list[int] = field(default_factory=lambda: [0, 0, 0])

    def __post_init__(self) -> None:
        self.F = int(self.engine.buffer_entries)
        # Fill the buffer exactly, so every later step's first put triggers a flush.
        partial = int(self.engine.stats()["buffer_size"])
        if partial:
            self.run([("fill", *_ops(tr.OpKind.PUT, self.fresh[: self.F - partial]))])
            self.used = self.F - partial

    def run(self, parts: list[Part]) -> dict:
        out = replay(self.engine, tr.build_trace(parts, entry_bytes=self.entry_bytes, meta={}))
        for i, n in enumerate((out.get_misses, out.zero_hits, out.wrong_values)):
            self.checks[i] += n
        self.parts.extend(parts)
        return out.phases

    def can_step(self) -> bool:
        return self.used + self.F <= self.fresh.size

    def step(self) -> tuple[int, int]:
        """One buffer of fresh keys: its first put flushes and merges the previous buffer."""
        before = self.engine.stats()["major_compactions"]
        u, tag = self.used, f"{self.tag}{self.used}"
        phases = self.run([(f"{tag}-first", *_ops(tr.OpKind.PUT, self.fresh[u : u + 1])),
                           (f"{tag}-rest", *_ops(tr.OpKind.PUT, self.fresh[u + 1 : u + self.F]))])
        self.used += self.F
        if phases[f"{tag}-rest"]["put"].blocks_written:
            raise RuntimeError("a flush happened inside a buffer; the window would be misaligned")
        return self.F, self.engine.stats()["major_compactions"] - before

    def level_L(self) -> tuple[int, bool, float]:
        return level_L_state(self.engine)

    def cycle_hint(self) -> float:
        levels = self.engine.levels()
        return levels[-2]["capacity"] if len(levels) > 1 else self.F

    def counters(self) -> dict:
        return self.engine.stats()

    def idle(self) -> None:
        pass  # flushes and merges run inside the put that triggers them


@dataclass
class UniformReads:
    """Reads of each kind (zero-result, a key of the preload's Level L, a key uniform over all
    present, a short range), ``batch`` of each at a time (paced by
    :class:`validation.window.PacedReads`)."""

    session: NativeSession
    loaded: np.ndarray
    level_L_keys: np.ndarray
    reads: int
    range_entries: int
    seed: int
    rng: np.random.Generator
    totals: dict[str, list[int]] = field(default_factory=dict)  # kind -> [count, read, probed]
    last_used: int = -1  # the writes at the last batch, and how many batches came at that count
    repeat: int = 0

    def __post_init__(self) -> None:
        pool = max(self.reads, 1)  # read operations drawn once and cycled through
        taken = np.concatenate([self.loaded, self.session.fresh])
        self.zero = generators.read_ops(taken, n=pool, get_pool=self.loaded,
                                        fractions={"zero": 1.0},
                                        range_entries=self.range_entries, seed=self.seed + 1)
        self.range = generators.read_ops(self.loaded, n=pool, get_pool=self.loaded,
                                         fractions={"range": 1.0},
                                         range_entries=self.range_entries, seed=self.seed + 2)
        self.pool, self.at = pool, 0

    def reset(self) -> None:
        """The window (re)starts: its steps are "win" phases, its reads counted afresh."""
        self.session.tag = "win"
        self.totals = {k: [0, 0, 0] for k in READ_KINDS}

    def batch(self, k: int) -> None:
        if k <= 0:
            return
        s, n = self.session, self.loaded.size
        take = (self.at + np.arange(k)) % self.pool
        self.at += k
        # Existing keys, uniform over every entry present: the preload, then the fresh inserts.
        pick = self.rng.integers(0, n + s.used, k)
        present = np.where(pick < n, self.loaded[np.minimum(pick, n - 1)],
                           s.fresh[np.maximum(pick - n, 0)])
        (zk, zkeys, _), (rk, rkeys, rargs) = self.zero, self.range
        # Phases are named by the writes so far; a second batch between the same writes (the
        # pacing can owe more than one) gets a suffix, so the saved trace's names stay unique.
        self.repeat = self.repeat + 1 if s.used == self.last_used else 0
        self.last_used = s.used
        at = f"{s.used}" + (f".{self.repeat}" if self.repeat else "")
        parts = [(f"zero{at}", zk[take], zkeys[take], np.zeros(k, np.uint64)),
                 (f"levelL{at}", *_ops(tr.OpKind.GET, self.rng.choice(self.level_L_keys, k))),
                 (f"uniform{at}", *_ops(tr.OpKind.GET, present)),
                 (f"range{at}", rk[take], rkeys[take], rargs[take])]
        phases = s.run(parts)
        for kind, (name, *_rest) in zip(READ_KINDS, parts, strict=True):
            for t in phases[name].values():
                acc = self.totals[kind]
                acc[0] += t.count
                acc[1] += t.blocks_read
                acc[2] += t.runs_probed

    def per_read(self, kind: str, what: int) -> float:
        """Blocks read (``what`` 0) or runs probed (1) per read of ``kind``."""
        count, *totals = self.totals[kind]
        if count == 0:
            raise RuntimeError(f"the window ran no {kind} operations")
        return totals[what] / count


@dataclass
class SkewSession:
    """The engine under a skewed workload: a step is a chunk of writes (:meth:`draw`), a share
    ``update_fraction`` of them updates of a loaded key drawn from the write distribution (ranks
    map to keys through a seeded shuffle), the rest fresh inserts. ``history`` is every write's
    key, in order, for ``latest`` reads (:meth:`read_keys`). ``engine`` None: another engine
    puts what :meth:`draw` gives (stock RocksDB, ``validation.rocksdb``), with buffers of
    ``F`` entries."""

    engine: Any
    loaded: np.ndarray
    workload: SkewedWorkload
    rng: np.random.Generator
    total: int  # writes the session can make at most
    F: int = 0  # the buffer's entries (0: the engine's)

    def __post_init__(self) -> None:
        w, n = self.workload, self.loaded.size
        F = self.F = self.F or int(self.engine.buffer_entries)
        self.chunk = max(1, F // 8)
        self.vb = 0 if self.engine is None else int(self.engine.value_bytes)
        self.write_rank_keys = self.rng.permutation(self.loaded)
        self.read_rank_keys = (self.write_rank_keys if w.correlated
                               else self.rng.permutation(self.loaded))
        self.writes_by = generators.rank_sampler(w.write_dist, n)
        self.reads_by = generators.rank_sampler(w.read_dist, n)
        inserts = int((1.0 - w.update_fraction) * self.total * 1.1) + F
        self.fresh = generators.fresh_keys(self.rng, inserts, np.sort(self.loaded))
        self.history = np.empty(n + self.total, dtype=np.uint64)
        self.history[:n] = self.loaded
        self.written, self.used_fresh = n, 0

    def can_step(self) -> bool:
        return True  # runs out of fresh keys with an error, not a short window

    def step(self) -> tuple[int, int]:
        before = self.engine.stats()["major_compactions"]
        keys = self.draw()
        self.engine.put_many(keys, tr.value_for(keys, self.vb))
        return keys.size, self.engine.stats()["major_compactions"] - before

    def draw(self) -> np.ndarray:
        """The next chunk's keys, in ``history``."""
        k, rng = self.chunk, self.rng
        is_update = rng.random(k) < self.workload.update_fraction
        keys = np.empty(k, dtype=np.uint64)
        nu = int(is_update.sum())
        keys[is_update] = self.write_rank_keys[self.writes_by.draw(rng, nu)]
        if self.used_fresh + k - nu > self.fresh.size:
            raise RuntimeError("the window ran out of fresh keys")
        keys[~is_update] = self.fresh[self.used_fresh : self.used_fresh + k - nu]
        self.used_fresh += k - nu
        self.history[self.written : self.written + k] = keys
        self.written += k
        return keys

    def read_keys(self, k: int) -> np.ndarray:
        """``k`` existing keys from the read distribution (``latest``: the key of the r-th most
        recent write)."""
        ranks = self.reads_by.draw(self.rng, k)
        if self.workload.read_dist.kind == "latest":
            return self.history[self.written - 1 - np.minimum(ranks, self.written - 1)]
        return self.read_rank_keys[ranks]

    def level_L(self) -> tuple[int, bool, float]:
        return level_L_state(self.engine)

    def cycle_hint(self) -> float:
        return self.F

    def counters(self) -> dict:
        return self.engine.stats()

    def idle(self) -> None:
        pass


def _cache_counts(stats: dict) -> tuple[np.ndarray, np.ndarray]:
    return (np.array(stats["cache_hits_per_level"], dtype=np.int64),
            np.array(stats["cache_misses_per_level"], dtype=np.int64))


def add_counts(acc: np.ndarray, after: np.ndarray, before: np.ndarray) -> np.ndarray:
    """``acc`` plus ``after`` - ``before`` (per level; a level ``before`` lacks counts 0)."""
    d = after.copy()
    d[: before.size] -= before
    if acc.size < d.size:
        acc = np.concatenate([acc, np.zeros(d.size - acc.size, np.int64)])
    acc[: d.size] += d
    return acc


def hit_rates(hits: np.ndarray, misses: np.ndarray) -> tuple[float, tuple[float | None, ...]]:
    """The hit rate overall (0 without reads) and per level, level 0 first (None: no read
    reached it), from per-level hits and misses (a level one lacks counts 0)."""
    n = max(hits.size, misses.size)
    h, m = np.pad(hits, (0, n - hits.size)), np.pad(misses, (0, n - misses.size))
    return (int(h.sum()) / max(1, int(h.sum() + m.sum())),
            tuple(int(a) / int(a + b) if a + b else None for a, b in zip(h, m, strict=True)))


@dataclass
class SkewReads:
    """Existing-key reads at ``reads_per_write`` from the read distribution (``latest``: the key
    of the r-th most recent write), through the warm-up and, measured, the window (blocks read,
    cache hits and misses per level, and the hit rate in ``timeline_points`` slices); and
    zero-result and range reads spread over the window, each of ``zero_keys`` and ``ranges``
    once at most, counted apart (they do not make the hit rates)."""

    session: SkewSession
    window_writes: int
    zero_keys: np.ndarray
    ranges: np.ndarray
    timeline_points: int = 20
    reads: int = 0
    not_found: int = 0  # existing-key reads that found nothing (must be 0)
    wrong_values: int = 0
    zero_hits: int = 0  # zero-result reads that found a value (must be 0)
    blocks: int = 0
    hits: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    misses: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    side: dict[str, list[int]] = field(default_factory=lambda: {"zero": [0, 0, 0],
                                                                 "range": [0, 0, 0]})
    timeline: list[tuple[int, float]] = field(default_factory=list)  # (writes, hit rate)

    def __post_init__(self) -> None:
        s = self.session
        chunk = s.chunk
        self.pacing = ReadPacing(s.workload.reads_per_write * chunk, batch=0)
        sides = min(self.zero_keys.size, len(self.ranges))
        self.side_pacing = ReadPacing(sides / max(self.window_writes, 1) * chunk, batch=0)
        self.side_at, self.writes, self.slice_from = 0, 0, (0, 0)
        self.slice_writes = max(chunk, self.window_writes // max(1, self.timeline_points))

    def start(self, cycle: float) -> None:
        self.reads = 0  # the checks (not_found, wrong_values) keep the warm-up's reads

    def warming(self) -> None:
        self.read(self.pacing.due())

    def before(self) -> None:
        due = self.pacing.due()
        self.sides(self.side_pacing.due())
        if due > 0:
            engine = self.session.engine
            before = engine.stats()
            self.read(due)
            after = engine.stats()
            self.blocks += after["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
            (h0, m0), (h1, m1) = _cache_counts(before), _cache_counts(after)
            self.hits, self.misses = add_counts(self.hits, h1, h0), add_counts(self.misses, m1, m0)

    def after(self, ending: bool) -> None:
        self.writes += self.session.chunk
        if self.writes % self.slice_writes < self.session.chunk:
            h, m = int(self.hits.sum()), int(self.misses.sum())
            dh, dm = h - self.slice_from[0], m - self.slice_from[1]
            self.timeline.append((self.writes, dh / (dh + dm) if dh + dm else 0.0))
            self.slice_from = (h, m)

    def settle(self) -> None: ...

    def read(self, k: int) -> None:
        if k <= 0:
            return
        s = self.session
        keys = s.read_keys(k)
        values, found = s.engine.get_many(keys)
        self.not_found += int((~found).sum())
        self.wrong_values += int(np.any(values[found] != tr.value_for(keys[found], s.vb), axis=1)
                                 .sum())
        self.reads += k

    def sides(self, k: int) -> None:
        engine = self.session.engine
        for _ in range(k):
            if self.side_at >= min(self.zero_keys.size, len(self.ranges)):
                return
            at = self.side_at
            before = engine.stats()
            _, found = engine.get_many(self.zero_keys[at : at + 1])
            mid = engine.stats()
            for _entry in engine.scan(int(self.ranges[at, 0]), int(self.ranges[at, 1])):
                pass
            after = engine.stats()
            self.zero_hits += int(found.sum())
            z, r = self.side["zero"], self.side["range"]
            z[0] += 1
            z[1] += mid["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
            r[0] += 1
            r[1] += after["range_read"]["blocks_read"] - mid["range_read"]["blocks_read"]
            r[2] += after["range_runs_probed"] - mid["range_runs_probed"]
            self.side_at += 1

    @property
    def hit_rate(self) -> float:
        return hit_rates(self.hits, self.misses)[0]

    @property
    def hit_rate_per_level(self) -> tuple[float, ...]:
        """Levels 1..L (level 0's staging runs are not part of whole-level designs); 0 where
        no read reached."""
        return tuple(r or 0.0 for r in hit_rates(self.hits, self.misses)[1][1:])

    @property
    def level0_hit_rate(self) -> float | None:
        """Level 0's, where a level-1 trigger above 1 stages flushes (None: no read reached
        it)."""
        return (hit_rates(self.hits, self.misses)[1] or (None,))[0]
