"""The steady-state window under skewed keys and a block cache.

After the preload (N distinct keys, not counted), writes run at the workload's mix: a share
``update_fraction`` updates a loaded key drawn from the write distribution, the rest insert a
fresh key. Existing-key reads run between writes at ``reads_per_write``, drawn from the read
distribution over the loaded keys (``latest``: the key of the r-th most recent write). Ranks map
to keys through a seeded shuffle of the loaded keys; the read and write shuffles are the same
when the workload is correlated.

1. Warm-up of ``warmup_writes``, then on to the next *full-merge boundary*: a merge into Level L
   that leaves it one run (every major compaction when a_L = 1), so the window holds whole cycles
   of Level L, the period of the policy's write cost.
2. The window: at least ``window_writes`` writes, ending at the next full-merge boundary (or at
   the cap, three times that, and then ``complete`` is False).

It reports write amplification (entries written per write), block reads per read, the cache's
hits and misses per level, and the hit rate in ``timeline_points`` slices of the window.
Operations run in chunks of an eighth of a buffer, so boundaries are found within one chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import wacky_traces as tr
from cost_models.skew import SkewedWorkload
from validation import generators

CAP_FACTOR = 3  # the window stops after this many times window_writes without a boundary


@dataclass
class SkewWindow:
    writes: int = 0
    warmup_writes: int = 0
    blocks_written: int = 0
    level_blocks_written: list[int] = field(default_factory=list)  # Level 1 (with flushes) on
    reads: int = 0
    read_blocks: int = 0
    hits: list[int] = field(default_factory=list)  # per level, index 0 = level 0
    misses: list[int] = field(default_factory=list)
    invalidated: int = 0
    major_compactions: int = 0
    complete: bool = False
    not_found: int = 0  # existing-key reads that found nothing (must be 0)
    wrong_values: int = 0
    timeline: list[tuple[int, float]] = field(default_factory=list)  # (writes so far, hit rate)
    # Zero-result and range reads spread over the window as in the uniform validation:
    # [count, blocks read, runs probed] per kind; measured apart from the skewed reads.
    side: dict[str, list[int]] = field(default_factory=lambda: {"zero": [0, 0, 0],
                                                                 "range": [0, 0, 0]})
    zero_hits: int = 0  # zero-result reads that found a value (must be 0)
    history_writes: float = 0.0  # writes since the load, at the window's middle

    @property
    def hit_rate(self) -> float:
        total = sum(self.hits) + sum(self.misses)
        return sum(self.hits) / total if total else 0.0

    @property
    def hit_rate_per_level(self) -> tuple[float, ...]:
        """Levels 1..L (level 0's staging runs are not part of whole-level designs)."""
        return tuple(h / (h + m) if h + m else 0.0
                     for h, m in zip(self.hits[1:], self.misses[1:], strict=True))


def _full_boundary(engine: Any) -> bool:
    runs = [r for r in engine.levels()[-1]["runs"] if r["entries"] > 0]
    return len(runs) == 1


def _cache_counts(stats: dict) -> tuple[np.ndarray, np.ndarray]:
    return (np.array(stats["cache_hits_per_level"], dtype=np.int64),
            np.array(stats["cache_misses_per_level"], dtype=np.int64))


def _diff(after: np.ndarray, before: np.ndarray) -> np.ndarray:
    out = after.copy()
    out[: before.size] -= before
    return out


def measure_skew_window(
    engine: Any,
    loaded: np.ndarray,
    *,
    workload: SkewedWorkload,
    warmup_writes: int,
    window_writes: int,
    seed: int,
    timeline_points: int = 20,
    zero_keys: np.ndarray | None = None,
    ranges: np.ndarray | None = None,
) -> SkewWindow:
    """Run the warm-up and the window on ``engine``, which holds the keys ``loaded`` (in the
    order they were written). ``zero_keys`` (keys never written) and ``ranges`` ((n, 2) bounds)
    are spread over the window, each cycled through once at most; their blocks are counted
    apart from the skewed reads' (which alone make the hit rates)."""
    w = workload
    n = int(loaded.size)
    F = int(engine.buffer_entries)
    vb = int(engine.value_bytes)
    chunk = max(1, F // 8)
    cap = warmup_writes + CAP_FACTOR * window_writes  # the warm-up's own cap
    total = cap + CAP_FACTOR * window_writes + 2 * chunk
    rng = np.random.default_rng([seed, 0x534B4557])  # stream tag: "SKEW"
    write_rank_keys = rng.permutation(loaded)
    read_rank_keys = write_rank_keys if w.correlated else rng.permutation(loaded)
    writes_by = generators.rank_sampler(w.write_dist, n)
    reads_by = generators.rank_sampler(w.read_dist, n)
    inserts_needed = int((1.0 - w.update_fraction) * total * 1.1) + F
    fresh = generators.fresh_keys(rng, inserts_needed, np.sort(loaded))
    history = np.empty(n + total, dtype=np.uint64)  # every write's key, in order
    history[:n] = loaded
    written = n
    used_fresh = 0
    out = SkewWindow()
    owed = 0.0

    def write_chunk(k: int) -> None:
        nonlocal written, used_fresh
        is_update = rng.random(k) < w.update_fraction
        keys = np.empty(k, dtype=np.uint64)
        nu = int(is_update.sum())
        keys[is_update] = write_rank_keys[writes_by.draw(rng, nu)]
        ni = k - nu
        if used_fresh + ni > fresh.size:
            raise RuntimeError("the window ran out of fresh keys")
        keys[~is_update] = fresh[used_fresh : used_fresh + ni]
        used_fresh += ni
        engine.put_many(keys, tr.value_for(keys, vb))
        history[written : written + k] = keys
        written += k

    def read_chunk(k: int) -> None:
        if k <= 0:
            return
        ranks = reads_by.draw(rng, k)
        if w.read_dist.kind == "latest":
            keys = history[written - 1 - np.minimum(ranks, written - 1)]
        else:
            keys = read_rank_keys[ranks]
        values, found = engine.get_many(keys)
        out.not_found += int((~found).sum())
        out.wrong_values += int(np.any(values[found] != tr.value_for(keys[found], vb), axis=1)
                                .sum())
        out.reads += k

    zero_keys = np.zeros(0, np.uint64) if zero_keys is None else zero_keys
    ranges = np.zeros((0, 2), np.uint64) if ranges is None else ranges
    side_owed = 0.0
    side_at = 0

    def side_reads(k: int) -> None:
        nonlocal side_at
        for _ in range(k):
            if side_at >= min(zero_keys.size, len(ranges)):
                return
            before = engine.stats()
            _, found = engine.get_many(zero_keys[side_at : side_at + 1])
            mid = engine.stats()
            for _entry in engine.scan(int(ranges[side_at, 0]), int(ranges[side_at, 1])):
                pass
            after = engine.stats()
            out.zero_hits += int(found.sum())
            z, r = out.side["zero"], out.side["range"]
            z[0] += 1
            z[1] += mid["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
            r[0] += 1
            r[1] += after["range_read"]["blocks_read"] - mid["range_read"]["blocks_read"]
            r[2] += after["range_runs_probed"] - mid["range_runs_probed"]
            side_at += 1

    skewed = {"blocks": 0, "hits": np.zeros(0, np.int64), "misses": np.zeros(0, np.int64)}

    def read_chunk_measured(k: int) -> None:
        if k <= 0:
            return
        before = engine.stats()
        read_chunk(k)
        after = engine.stats()
        skewed["blocks"] += after["point_read"]["blocks_read"] - before["point_read"]["blocks_read"]
        h0, m0 = _cache_counts(before)
        h1, m1 = _cache_counts(after)
        dh, dm = _diff(h1, h0), _diff(m1, m0)
        for key, d in (("hits", dh), ("misses", dm)):
            acc = skewed[key]
            if acc.size < d.size:
                acc = np.concatenate([acc, np.zeros(d.size - acc.size, np.int64)])
            acc[: d.size] += d
            skewed[key] = acc

    # 1. Warm-up, then on to a full-merge boundary.
    done = 0
    while done < cap:
        majors = engine.stats()["major_compactions"]
        write_chunk(chunk)
        done += chunk
        if done >= warmup_writes and engine.stats()["major_compactions"] > majors \
                and _full_boundary(engine):
            break
        owed += w.reads_per_write * chunk
        read_chunk(int(owed))
        owed -= int(owed)
    out.warmup_writes = done
    out.reads = 0  # the checks (not_found, wrong_values) keep the warm-up's reads
    start = engine.stats()
    slice_writes = max(chunk, window_writes // max(1, timeline_points))
    slice_from = (0, 0)  # the skewed reads' hits and misses when the slice began
    # 2. The window.
    side_rate = min(zero_keys.size, len(ranges)) / max(window_writes, 1)
    while out.writes < CAP_FACTOR * window_writes:
        before = engine.stats()["major_compactions"]
        owed += w.reads_per_write * chunk
        side_owed += side_rate * chunk
        if side_owed >= 1:
            side_reads(int(side_owed))
            side_owed -= int(side_owed)
        read_chunk_measured(int(owed))
        owed -= int(owed)
        write_chunk(chunk)
        out.writes += chunk
        now = engine.stats()
        if out.writes % slice_writes < chunk:
            h, m = int(skewed["hits"].sum()), int(skewed["misses"].sum())
            dh, dm = h - slice_from[0], m - slice_from[1]
            out.timeline.append((out.writes, dh / (dh + dm) if dh + dm else 0.0))
            slice_from = (h, m)
        if out.writes >= window_writes and now["major_compactions"] > before \
                and _full_boundary(engine):
            out.complete = True
            break
    end = engine.stats()

    def total_written(s: dict) -> int:
        return int(s["flush"]["blocks_written"] + s["merge_total"]["blocks_written"])

    out.blocks_written = total_written(end) - total_written(start)
    merges = [int(m["blocks_written"]) for m in end["merge"]]
    for i, m in enumerate(start["merge"]):
        merges[i] -= int(m["blocks_written"])
    if merges:
        merges[0] += int(end["flush"]["blocks_written"] - start["flush"]["blocks_written"])
    out.level_blocks_written = merges
    out.read_blocks = int(skewed["blocks"])
    out.hits = [int(x) for x in skewed["hits"]]
    out.misses = [int(x) for x in skewed["misses"]]
    out.misses += [0] * (len(out.hits) - len(out.misses))
    out.hits += [0] * (len(out.misses) - len(out.hits))
    out.invalidated = int(end["cache_invalidated_blocks"] - start["cache_invalidated_blocks"])
    out.major_compactions = int(end["major_compactions"] - start["major_compactions"])
    out.history_writes = out.warmup_writes + out.writes / 2.0
    return out
