"""Replay a :class:`~wacky_traces.Trace` through ``native_engine.Engine``.

Records run in exact order, with consecutive records of one kind batched into one engine call;
per phase and per kind it totals the I/O (``engine.stats()`` deltas around each batch) and checks
every answer against :func:`~wacky_traces.value_for`. A ``Trace`` is validated when it is
built, so a replay never half-applies a malformed trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from itertools import islice
from typing import Any

import numpy as np

import wacky_traces as tr
from wacky_traces import PUT_CHUNK


# -- replay --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpTotals:
    """What one kind of operation cost in one phase of a replay."""

    count: int = 0
    blocks_read: int = 0
    blocks_written: int = 0
    seconds: float = 0.0
    runs_probed: int = 0  # RANGE only: sorted runs the scans looked at
    entries_returned: int = 0  # RANGE only
    cpu_seconds: float = 0.0  # the process's CPU time inside the engine's PUT and DELETE calls

    @property
    def io_per_op(self) -> float:
        return (self.blocks_read + self.blocks_written) / self.count if self.count else 0.0

    @property
    def read_per_op(self) -> float:
        return self.blocks_read / self.count if self.count else 0.0

    @property
    def write_per_op(self) -> float:
        return self.blocks_written / self.count if self.count else 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {**asdict(self), "io_per_op": self.io_per_op, "read_per_op": self.read_per_op,
                "write_per_op": self.write_per_op}


@dataclass(frozen=True)
class ReplayResult:
    """Per phase, per kind name (put/get/zero/range/delete; kinds that did not occur are left
    out) the totals, plus the answer checks: GETs not found (``get_misses``), ZEROs found
    (``zero_hits``) and values that differ from :func:`value_for` (``wrong_values``)."""

    phases: dict[str, dict[str, OpTotals]]
    get_misses: int
    zero_hits: int
    wrong_values: int
    records: int
    seconds: float

    @property
    def ok(self) -> bool:
        return self.get_misses == 0 and self.zero_hits == 0 and self.wrong_values == 0

    def to_dict(self) -> dict[str, Any]:
        return {"phases": {ph: {kind: t.to_dict() for kind, t in kinds.items()}
                           for ph, kinds in self.phases.items()},
                **{k: getattr(self, k) for k in ("get_misses", "zero_hits", "wrong_values",
                                                 "records", "seconds", "ok")}}


def _batches(kinds: np.ndarray, window: int) -> list[tuple[int, int]]:
    """[start, stop) of each maximal run of equal kinds, also cut at every multiple of
    ``window`` so a batch never straddles two windows of precomputed values."""
    n = int(kinds.size)
    if n == 0:
        return []
    cuts = np.union1d(np.flatnonzero(kinds[1:] != kinds[:-1]) + 1, np.arange(window, n, window))
    bounds = [0, *cuts.tolist(), n]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def _scan_checked(engine: Any, lo: int, hi: int, vb: int) -> tuple[int, int, float]:
    """Run one range read to the end: (entries, wrong values, seconds inside the engine)."""
    entries = wrong = 0
    seconds = 0.0
    t0 = time.perf_counter()
    it = engine.scan(lo, hi)
    while True:
        got = list(islice(it, tr.SCAN_CHUNK))
        seconds += time.perf_counter() - t0
        if not got:
            return entries, wrong, seconds
        entries += len(got)
        rk = np.fromiter((k for k, _ in got), dtype=np.uint64, count=len(got))
        rv = np.frombuffer(b"".join(v for _, v in got), dtype=np.uint8).reshape(len(got), vb)
        wrong += int(np.count_nonzero((rv != tr.value_for(rk, vb)).any(axis=1)))
        t0 = time.perf_counter()


def replay(engine: Any, trace: tr.Trace, *, phases: Sequence[str] | None = None,
           progress: Callable[[int, int], None] | None = None) -> ReplayResult:
    """Execute ``trace`` (or its named ``phases``, in trace order) against ``engine``, batching
    consecutive records of one kind, and check every answer. Checked first: the engine's value
    size is ``entry_bytes - 8`` and the phases exist (TraceError / ValueError). I/O is the delta
    of ``engine.stats()["total"]`` around each batch (merges a put triggers are put I/O).
    ``progress(done, total)`` is called about every 1% of the records and at the end."""
    if not isinstance(trace, tr.Trace):
        raise ValueError(f"trace must be a Trace, got {type(trace).__name__}")
    vb = trace.value_bytes
    engine_vb = getattr(engine, "value_bytes", None)
    if engine_vb != vb:
        raise tr.TraceError(
            f"trace was made for entry_bytes={trace.entry_bytes} (values of {vb} bytes) but the "
            f"engine stores values of {engine_vb} bytes; nothing was replayed")
    if isinstance(phases, str):
        raise ValueError("phases must be a sequence of phase names, not a string")
    wanted = None if phases is None else set(phases)
    for name in wanted or ():
        trace._find_phase(name)  # raises naming the valid phases
    chosen = [p for p in trace.phases if wanted is None or p.name in wanted]

    total = sum(p.stop - p.start for p in chosen)
    next_report = step = max(1, total // 100)
    reported, done, get_misses, zero_hits, wrong_values = -1, 0, 0, 0, 0
    out: dict[str, dict[str, OpTotals]] = {}
    perf, cpu = time.perf_counter, time.process_time
    t_start = perf()

    stats = engine.stats()
    for ph in chosen:
        # Accumulators per kind: count, read, written, seconds, runs_probed, entries_returned,
        # CPU seconds.
        acc = [[0, 0, 0, 0.0, 0, 0, 0.0] for _ in range(tr.N_KINDS)]
        kinds, keys, args = (a[ph.start : ph.stop] for a in (trace.kinds, trace.keys, trace.args))
        # Values for PUT/GET are made a window at a time: one value_for call per 64K records
        # instead of one per (often single-record) batch of an interleaved mix.
        win_start, win_vals = -1, np.zeros((0, vb), np.uint8)
        for a, b in _batches(kinds, PUT_CHUNK):
            kind = int(kinds[a])
            batch = keys[a:b]
            if kind == tr.OpKind.PUT or kind == tr.OpKind.GET:
                w0 = a - a % PUT_CHUNK
                if w0 != win_start:
                    win_start, win_vals = w0, tr.value_for(keys[w0 : w0 + PUT_CHUNK], vb)
                expected = win_vals[a - w0 : b - w0]
            entries, dc = 0, 0.0
            if kind == tr.OpKind.PUT:
                t0, c0 = perf(), cpu()
                engine.put_many(batch, expected)
                dt, dc = perf() - t0, cpu() - c0
            elif kind == tr.OpKind.GET:
                t0 = perf()
                got, found = engine.get_many(batch)
                dt = perf() - t0
                found = np.asarray(found, dtype=bool)
                get_misses += (b - a) - int(np.count_nonzero(found))
                diff = (np.asarray(got) != expected).any(axis=1)
                wrong_values += int(np.count_nonzero(found & diff))
            elif kind == tr.OpKind.ZERO:
                t0 = perf()
                _, found = engine.get_many(batch)
                dt = perf() - t0
                zero_hits += int(np.count_nonzero(found))
            elif kind == tr.OpKind.RANGE:
                dt = 0.0
                for lo, hi in zip(batch.tolist(), args[a:b].tolist(), strict=True):
                    e, w, sec = _scan_checked(engine, lo, hi, vb)
                    entries += e
                    wrong_values += w
                    dt += sec
            else:  # DELETE
                t0, c0 = perf(), cpu()
                for key in batch.tolist():
                    engine.delete(key)
                dt, dc = perf() - t0, cpu() - c0
            after = engine.stats()
            t = acc[kind]
            t[0] += b - a
            t[1] += after["total"]["blocks_read"] - stats["total"]["blocks_read"]
            t[2] += after["total"]["blocks_written"] - stats["total"]["blocks_written"]
            t[3] += dt
            t[6] += dc
            if kind == tr.OpKind.RANGE:
                t[4] += after.get("range_runs_probed", 0) - stats.get("range_runs_probed", 0)
                t[5] += entries
            stats = after
            done += b - a
            if progress is not None and done >= next_report:
                progress(done, total)
                reported = done
                next_report = (done // step + 1) * step
        out[ph.name] = {tr.KIND_NAMES[k]: OpTotals(*map(int, (c, r, w)), float(s), int(rp),
                                                   int(en), float(cs))
                        for k, (c, r, w, s, rp, en, cs) in enumerate(acc) if c}
    if progress is not None and reported != done:
        progress(done, total)
    return ReplayResult(out, get_misses, zero_hits, wrong_values, done, perf() - t_start)


# -- summary -------------------------------------------------------------------------------------
PARTS = ("load", "warm_up", "measured")  # the parts of a trace a summary totals apart


def replay_summary(phases: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Totals of a replay's per-phase tables (``ReplayResult.to_dict()["phases"]``) per part
    (``load``, ``warm_up``: :func:`wacky_traces.warmup_phase`'s; ``measured``: the rest) and kind,
    and overall (``total``), with ``read_per_op`` and ``write_per_op``; empty ones left out."""
    fields = ("count", "blocks_read", "blocks_written", "seconds")
    parts: dict[str, dict[str, dict[str, float]]] = {}
    total = dict.fromkeys(fields, 0)
    for name, kinds in phases.items():
        part = parts.setdefault(tr.warmup_phase(name) or "measured", {})
        for kind, t in kinds.items():
            acc = part.setdefault(kind, dict.fromkeys(fields, 0))
            for f in fields:
                acc[f] += t[f]
                total[f] += t[f]

    def per_op(t: dict[str, float]) -> dict[str, float]:
        n = t["count"]
        return {**t, "read_per_op": t["blocks_read"] / n if n else 0.0,
                "write_per_op": t["blocks_written"] / n if n else 0.0}

    return {"parts": {p: {k: per_op(parts[p][k]) for k in tr.KIND_NAMES if k in parts[p]}
                      for p in PARTS if p in parts}, "total": per_op(total)}
