"""A brute-force stand-in for stock RocksDB's universal compaction under skew and a block cache,
for tests of U5r (docs/MODEL.md): real keys in sorted runs, a memtable that flushes every F
writes (overwrites included) into a run of its distinct keys, U1-U4's pick on the runs' entries
(cost_models.universal._pick), blocks of B consecutive entries of a run, an LRU of blocks that
keeps a merged run's blocks until they age out (S6g), and Bloom filters that pass a key absent
from a run for a fixed share of (key, run) pairs."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from cost_models.universal import UniversalRules, _pick
from tests.lru import touch


@dataclass
class Run:
    positions: np.ndarray  # its keys' places in the key order, sorted
    start: int  # the writes it holds, [start, end)
    end: int
    ident: int


@dataclass
class Measured:
    reads: int = 0
    requests: int = 0  # blocks the reads asked the cache for (the keys' and false positives')
    misses: int = 0
    by_level: dict[int, list[int]] = field(default_factory=dict)  # rank -> [requests, misses]

    @property
    def io(self) -> float:
        return self.misses / self.reads

    @property
    def hit_rate(self) -> float:
        return 1.0 - self.misses / self.requests


def _passes(key: int, run: int, fpr: float) -> bool:
    """A filter's answer for an absent key: fixed for the pair, true for a share fpr of pairs."""
    h = (key * 0x9E3779B97F4A7C15 + run * 0xC2B2AE3D27D4EB4F) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 31
    h = (h * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 29
    return (h & 0xFFFFFF) / float(1 << 24) < fpr


def simulate(rules: UniversalRules, *, entries: int, theta: float, reads_per_write: float,
             entries_per_block: int, cache_blocks: int, fpr: float = 0.0, seed: int = 0,
             warm: int | None = None) -> Measured:
    """Load ``entries`` keys (random order), then Zipf(theta) updates of them (every write an
    update) with as many correlated Zipf reads per write, measured over one cycle of the
    largest run: from the first full merge at least ``warm`` writes (half a load) after the
    load to the next, as U5's cycle window counts."""
    rng = np.random.default_rng(seed)
    n, F, B = entries, int(round(rules.flush_entries)), entries_per_block
    place = rng.random(n)
    rank_to_key = rng.permutation(n)
    cdf = np.cumsum(np.arange(1, n + 1, dtype=float) ** -theta)
    cdf /= cdf[-1]
    last = np.zeros(n, dtype=np.int64)
    runs: list[Run] = []  # newest first
    lru: OrderedDict = OrderedDict()
    out = Measured()
    state = {"t": 0, "mem_start": 0, "ident": 0, "full": [], "counting": False}

    def flush(mem: list[int]) -> None:
        keys = np.unique(np.array(mem))
        state["ident"] += 1
        runs.insert(0, Run(np.sort(place[keys]), state["mem_start"], state["t"],
                           state["ident"]))
        state["mem_start"] = state["t"]
        while len(runs) >= max(rules.trigger, 2):
            stretch = _pick([float(r.positions.size) for r in runs], rules)
            if stretch is None:
                break
            a, b = stretch
            parts = runs[a:b]
            state["ident"] += 1
            merged = np.unique(np.concatenate([r.positions for r in parts]))
            if b - a == len(runs):
                state["full"].append(state["t"])
            runs[a:b] = [Run(merged, parts[-1].start, parts[0].end, state["ident"])]

    def ask(run: Run, position: float, rank: int) -> None:
        block = (run.ident, min(int(np.searchsorted(run.positions, position)),
                                run.positions.size - 1) // B)
        hit = touch(lru, block, cache_blocks)
        if state["counting"]:
            out.requests += 1
            out.misses += not hit
            row = out.by_level.setdefault(rank, [0, 0])
            row[0] += 1
            row[1] += not hit

    def read(keys: np.ndarray) -> None:
        starts = np.array([r.start for r in runs])
        for key in keys.tolist():
            written = last[key]
            if written >= state["mem_start"]:
                continue  # the memtable has it
            i = int(np.searchsorted(-starts, -written, side="left"))
            for j in range(i):  # newer runs whose filters pass the key
                if fpr > 0 and _passes(key, runs[j].ident, fpr):
                    ask(runs[j], place[key], len(runs) - 1 - j)
            ask(runs[i], place[key], len(runs) - 1 - i)

    mem: list[int] = []

    def write(key: int) -> None:  # RocksDB's memtable: flushed after F writes
        nonlocal mem
        last[key] = state["t"]
        state["t"] += 1
        mem.append(key)
        if len(mem) >= F:
            flush(mem)
            mem = []

    for key in rng.permutation(n).tolist():
        write(key)
    loaded, owed, chunk = state["t"], 0.0, 32
    warm = n // 2 if warm is None else warm
    while True:
        full = [t for t in state["full"] if t >= loaded + warm]
        if len(full) >= 2:
            break
        state["counting"] = len(full) == 1
        for key in rank_to_key[np.searchsorted(cdf, rng.random(chunk))].tolist():
            write(key)
        owed += reads_per_write * chunk
        m = int(owed)
        owed -= m
        read(rank_to_key[np.searchsorted(cdf, rng.random(m))])
        out.reads += m if state["counting"] else 0
    return out
