"""D1 under skew measured (docs/MODEL.md "D1 under skew"): the native engine on two devices
(``level_dirs``) under skewed reads and updates with a block cache, against the skew model's
per-level ledger summed by the placement, for whole levels (S1-S7) and for levels of files
(S2f). Run as a module for the figures::

    .venv/bin/python -m validation.skew_devices
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cost_models.devices import devices_of_levels
from native_engine import Engine
from validation.generators import fresh_keys, rank_sampler
from wacky_model.config import Configuration
from wacky_model.devices import Device
from wacky_model.pricing import price
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload

# A small scale (seconds): 131,072 entries of 64 B, a cache of 6% of the data.
N, ENTRY, BLOCK, BUFFER, CACHE = 1 << 17, 64, 4096, 64 << 10, 512 << 10
CHUNK = 256  # updates, then as many gets, per round
WINDOW = 4 * N  # updates run after the load


@dataclass(frozen=True)
class Case:
    """A design, its compaction and its placement (``level_devices``, level 0 first)."""

    name: str
    design: Design
    compaction: Compaction

    @property
    def placed(self) -> tuple[int, ...]:
        return self.compaction.level_devices


# Leveling T = 10, whole levels: Levels 1-2 on the engine's own device, Level 3 on another;
# measured over whole cycles of Level L (from its first full merge after a quarter of the
# window to its last).
WHOLE = Case("whole levels, T 10", Design(10, 9, 1, 0, 0),
             Compaction(level_devices=(0, 0, 0, 1)))
# Leveling T = 4 with files of 16 KiB (4 blocks) and a level-0 trigger of 2: level 0 to
# Level 2 on the own device, Level 3 and below on another. Files drain a file at a time, so
# there is no cycle to span: measured over the last three quarters of the window.
FILES = Case("files, T 4", Design(4, 3, 1, 0, 0),
             Compaction("file", 16 << 10, 2, level_devices=(0, 0, 0, 1)))
CASES = (WHOLE, FILES)


@dataclass(frozen=True)
class DeviceFigures:
    """Per device (the engine's own first): blocks read per existing-key read and bytes
    written per byte inserted, predicted by D1's ledger and measured by the device counters."""

    keys: str
    case: str
    model_reads: tuple[float, ...]
    reads: tuple[float, ...]
    model_written: tuple[float, ...]
    written: tuple[float, ...]
    full_merges: int  # full merges into Level L the measured window spans (whole levels)
    # Bytes written per byte inserted by level (level 0 first): the model's ledger, and the
    # engine's flushes then its merges into Levels 1, 2, ... (level 0's staged runs are the
    # flushes with a level-0 trigger above 1; with whole levels a flush is Level 1's).
    model_level_written: tuple[float, ...] = ()
    level_written: tuple[float, ...] = ()


def workload(keys: str) -> Workload:
    """Half existing-key reads, half updates, both drawn from ``keys`` (the same keys hot)."""
    return Workload(point_reads=0.5, writes=0.5, read_keys=keys, write_keys=keys,
                    update_fraction=1.0)


def predicted(keys: str, case: Case = WHOLE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """D1's per-device blocks read per existing-key read and bytes written per byte inserted:
    the skew model's ledger (S1-S7, or S2f for files) summed by the placement; and the
    ledger's writes by level."""
    s = System(entries=N, entry_bytes=ENTRY, block_bytes=BLOCK, buffer_bytes=BUFFER,
               bits_per_entry=5.0, cache_bytes=CACHE, devices=(Device("own"), Device("other")))
    p = price(Configuration(case.design, case.compaction), workload(keys), s)
    assert p.ledger is not None
    where = devices_of_levels(case.placed, len(p.ledger.writes))
    return (np.bincount(where, weights=p.ledger.point_read, minlength=2),
            np.bincount(where, weights=p.ledger.writes, minlength=2), p.ledger.writes)


def measured(keys: str, workdir: Path, case: Case = WHOLE, seed: int = 7
             ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """The engine's per-device blocks read per get and bytes written per byte inserted: a
    load of N keys in random order, then rounds of CHUNK updates and CHUNK gets drawn from
    ``keys`` through one popularity-rank-to-key map, independent of the load's order; whole
    levels over whole cycles of Level L (from the first full merge into it after a quarter of
    the window to the last), files over the last three quarters of the window. Gets are
    counted apart from the puts, whose merges read their inputs on the same devices."""
    rng = np.random.default_rng(seed)
    dirs = ["" if d == 0 else str(workdir / f"device{d}") for d in case.placed]
    value = np.zeros((CHUNK, ENTRY - 8), np.uint8)
    d, c = case.design, case.compaction
    files = ({} if c.granularity == "level" else
             dict(granularity="file", file_bytes=c.file_bytes, level1_runs=c.level1_runs))
    with Engine(workdir / "db", T=d.T, C=d.C, X=d.X, K=d.K, Z=d.Z, entry_bytes=ENTRY,
                block_bytes=BLOCK, buffer_bytes=BUFFER, bits_per_entry=5.0, cache_bytes=CACHE,
                wal=False, level_dirs=dirs, **files) as e:
        loaded = fresh_keys(rng, N, np.zeros(0, dtype=np.uint64))
        for i in range(0, N, 8192):
            batch = loaded[i:i + 8192]
            e.put_many(batch, np.zeros((len(batch), ENTRY - 8), np.uint8))
        by_rank = loaded[rng.permutation(N)]
        ranks = rank_sampler(KeyDistribution.parse(keys), N)

        def counters() -> tuple[np.ndarray, np.ndarray, int]:
            st = e.stats()
            return (np.array([x["bytes_read"] for x in st["devices"]], dtype=float),
                    np.array([x["bytes_written"] for x in st["devices"]], dtype=float),
                    int(st["major_compactions"]))

        def by_level() -> np.ndarray:
            st = e.stats()
            return np.array([st["flush"]["bytes_written"]]
                            + [m["bytes_written"] for m in st["merge"]], dtype=float)

        rows, levels = [], []
        for _ in range(WINDOW // CHUNK):
            _, w0, _ = counters()
            e.put_many(by_rank[ranks.draw(rng, CHUNK)], value)
            r1, w1, majors = counters()
            e.get_many(by_rank[ranks.draw(rng, CHUNK)])
            r2, _, _ = counters()
            rows.append((r2 - r1, w1 - w0, majors))
            levels.append(by_level())
    if c.granularity == "level":
        majors_at = [m for _, _, m in rows]
        ends = [i + 1 for i in range(len(rows) // 4, len(rows))
                if majors_at[i] > majors_at[i - 1]]
        if len(ends) < 2:
            raise ValueError(f"the window holds {len(ends)} full merges into Level L; need 2")
        first, last, merges = ends[0], ends[-1], len(ends) - 1
    else:
        first, last, merges = len(rows) // 4, len(rows), 0
    chosen = rows[first:last]
    ops = CHUNK * len(chosen)
    # The per-level counters are read after each round's gets (which write nothing).
    start = levels[first - 1]
    end = levels[last - 1]
    size = max(len(start), len(end))
    grown = np.pad(end, (0, size - len(end))) - np.pad(start, (0, size - len(start)))
    return (sum(r for r, _, _ in chosen) / BLOCK / ops,
            sum(w for _, w, _ in chosen) / (ops * ENTRY), merges, grown / (ops * ENTRY))


def compare(keys: str, workdir: Path | None = None, case: Case = WHOLE) -> DeviceFigures:
    """Predicted and measured per device under ``keys``."""
    model_reads, model_written, model_levels = predicted(keys, case)
    with tempfile.TemporaryDirectory() as tmp:
        reads, written, merges, levels = measured(keys, workdir or Path(tmp), case)
    return DeviceFigures(keys, case.name, tuple(map(float, model_reads)),
                         tuple(map(float, reads)), tuple(map(float, model_written)),
                         tuple(map(float, written)), merges,
                         tuple(map(float, model_levels)), tuple(map(float, levels)))


def uniform_writes(u: float, case: Case = FILES, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """The control for S2f's writes by level: the same design under uniform writes of which
    the share ``u`` update a key already loaded or inserted (drawn uniformly) and the rest
    insert new keys; with u = 0 S2f is the partial-merge model's walk (P1-P5). The engine loads
    N keys, then takes 2N writes (N with inserts only, which would otherwise open a level),
    measured over the second half; the model prices the tree at the middle of that half. Bytes
    written per byte written by level (level 0 first): model, engine."""
    writes = 2 * N if u > 0.0 else N
    s = System(entries=int(N + 0.75 * (1.0 - u) * writes), entry_bytes=ENTRY, block_bytes=BLOCK,
               buffer_bytes=BUFFER, bits_per_entry=5.0, cache_bytes=CACHE,
               devices=(Device("own"), Device("other")))
    p = price(Configuration(case.design, case.compaction),
              Workload(point_reads=0.5, writes=0.5, update_fraction=u), s)
    assert p.ledger is not None
    rng = np.random.default_rng(seed)
    d, c = case.design, case.compaction
    value = np.zeros((CHUNK, ENTRY - 8), np.uint8)
    with tempfile.TemporaryDirectory() as tmp, Engine(
            Path(tmp) / "db", T=d.T, C=d.C, X=d.X, K=d.K, Z=d.Z, entry_bytes=ENTRY,
            block_bytes=BLOCK, buffer_bytes=BUFFER, bits_per_entry=5.0, cache_bytes=CACHE,
            wal=False, granularity="file", file_bytes=c.file_bytes,
            level1_runs=c.level1_runs) as e:
        keys = fresh_keys(rng, N + writes, np.zeros(0, dtype=np.uint64))
        e.put_many(keys[:N], np.zeros((N, ENTRY - 8), np.uint8))
        present = N

        def by_level() -> np.ndarray:
            st = e.stats()
            return np.array([st["flush"]["bytes_written"]]
                            + [m["bytes_written"] for m in st["merge"]], dtype=float)

        start = np.zeros(1)
        for done in range(0, writes, CHUNK):
            if done == writes // 2:
                start = by_level()
            update = rng.random(CHUNK) < u
            batch = np.empty(CHUNK, dtype=np.uint64)
            batch[update] = keys[rng.integers(0, present, int(update.sum()))]
            fresh = CHUNK - int(update.sum())
            batch[~update] = keys[present:present + fresh]
            present += fresh
            e.put_many(batch, value)
        end = by_level()
    grown = end - np.pad(start, (0, len(end) - len(start)))
    return p.ledger.writes, grown / (writes // 2 * ENTRY)


def main() -> None:
    for case in CASES:
        for keys in ("zipf:0.99", "uniform"):
            f = compare(keys, case=case)
            merges = f" ({f.full_merges} full merges into L)" if f.full_merges else ""
            print(f"{case.name}, {keys}: blocks read per get, own / other device: model "
                  f"{f.model_reads[0]:.3f} / {f.model_reads[1]:.3f}, engine {f.reads[0]:.3f} / "
                  f"{f.reads[1]:.3f}; bytes written per byte inserted: model "
                  f"{f.model_written[0]:.2f} / {f.model_written[1]:.2f}, engine "
                  f"{f.written[0]:.2f} / {f.written[1]:.2f}{merges}")
            if case.compaction.granularity == "file":
                print("  bytes written per byte inserted by level (0, 1, ...): model "
                      + " ".join(f"{x:.2f}" for x in f.model_level_written) + ", engine "
                      + " ".join(f"{x:.2f}" for x in f.level_written))
    for u in (0.0, 0.5, 0.9, 1.0):
        model, engine = uniform_writes(u)
        print(f"{FILES.name}, uniform writes, {u:.0%} of them updates: bytes written per byte "
              "written by level (0, 1, ...): model " + " ".join(f"{x:.2f}" for x in model)
              + ", engine " + " ".join(f"{x:.2f}" for x in engine))


if __name__ == "__main__":
    main()
