"""D1 under skew measured (docs/MODEL.md "D1 under skew"): the native engine on two devices
(``level_dirs``) under skewed reads and updates with a block cache, against the skew model's
per-level ledger summed by the placement. Run as a module for the figures::

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

# A small scale (seconds): Leveling T = 10 over 131,072 entries of 64 B, Levels 1-2 on the
# engine's own device and Level 3 on another, a cache of 6% of the data.
DESIGN = Design(10, 9, 1, 0, 0)
PLACED = (0, 0, 0, 1)
N, ENTRY, BLOCK, BUFFER, CACHE = 1 << 17, 64, 4096, 64 << 10, 512 << 10
CHUNK = 256  # updates, then as many gets, per round
WINDOW = 4 * N  # updates run after the load; the measured part is whole cycles of Level L


@dataclass(frozen=True)
class DeviceFigures:
    """Per device (the engine's own first): blocks read per existing-key read and bytes
    written per byte inserted, predicted by D1's ledger and measured by the device counters."""

    keys: str
    model_reads: tuple[float, ...]
    reads: tuple[float, ...]
    model_written: tuple[float, ...]
    written: tuple[float, ...]
    full_merges: int  # full merges into Level L the measured window spans


def workload(keys: str) -> Workload:
    """Half existing-key reads, half updates, both drawn from ``keys`` (the same keys hot)."""
    return Workload(point_reads=0.5, writes=0.5, read_keys=keys, write_keys=keys,
                    update_fraction=1.0)


def predicted(keys: str) -> tuple[np.ndarray, np.ndarray]:
    """D1's per-device blocks read per existing-key read and bytes written per byte inserted:
    the skew model's ledger (S1-S7) summed by the placement."""
    s = System(entries=N, entry_bytes=ENTRY, block_bytes=BLOCK, buffer_bytes=BUFFER,
               bits_per_entry=5.0, cache_bytes=CACHE, devices=(Device("own"), Device("other")))
    p = price(Configuration(DESIGN, Compaction(level_devices=PLACED)), workload(keys), s)
    assert p.ledger is not None
    where = devices_of_levels(PLACED, len(p.ledger.writes))
    return (np.bincount(where, weights=p.ledger.point_read, minlength=2),
            np.bincount(where, weights=p.ledger.writes, minlength=2))


def measured(keys: str, workdir: Path, seed: int = 7) -> tuple[np.ndarray, np.ndarray, int]:
    """The engine's per-device blocks read per get and bytes written per byte inserted, over
    whole cycles of Level L (from the first full merge into it after a quarter of the window
    to the last): a load of N keys in random order, then rounds of CHUNK updates and CHUNK
    gets drawn from ``keys`` through one popularity-rank-to-key map, independent of the load's
    order. Gets are counted apart from the puts, whose merges read their inputs on the same
    devices."""
    rng = np.random.default_rng(seed)
    dirs = ["" if d == 0 else str(workdir / f"device{d}") for d in PLACED]
    value = np.zeros((CHUNK, ENTRY - 8), np.uint8)
    d = DESIGN
    with Engine(workdir / "db", T=d.T, C=d.C, X=d.X, K=d.K, Z=d.Z, entry_bytes=ENTRY,
                block_bytes=BLOCK, buffer_bytes=BUFFER, bits_per_entry=5.0, cache_bytes=CACHE,
                wal=False, level_dirs=dirs) as e:
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

        rows = []
        for _ in range(WINDOW // CHUNK):
            _, w0, _ = counters()
            e.put_many(by_rank[ranks.draw(rng, CHUNK)], value)
            r1, w1, majors = counters()
            e.get_many(by_rank[ranks.draw(rng, CHUNK)])
            r2, _, _ = counters()
            rows.append((r2 - r1, w1 - w0, majors))
    majors_at = [m for _, _, m in rows]
    ends = [i + 1 for i in range(len(rows) // 4, len(rows)) if majors_at[i] > majors_at[i - 1]]
    if len(ends) < 2:
        raise ValueError(f"the window holds {len(ends)} full merges into Level L; need 2")
    chosen = rows[ends[0]:ends[-1]]
    ops = CHUNK * len(chosen)
    return (sum(r for r, _, _ in chosen) / BLOCK / ops,
            sum(w for _, w, _ in chosen) / (ops * ENTRY), len(ends) - 1)


def compare(keys: str, workdir: Path | None = None) -> DeviceFigures:
    """Predicted and measured per device under ``keys``."""
    model_reads, model_written = predicted(keys)
    with tempfile.TemporaryDirectory() as tmp:
        reads, written, merges = measured(keys, workdir or Path(tmp))
    return DeviceFigures(keys, tuple(map(float, model_reads)), tuple(map(float, reads)),
                         tuple(map(float, model_written)), tuple(map(float, written)), merges)


def main() -> None:
    for keys in ("zipf:0.99", "uniform"):
        f = compare(keys)
        print(f"{keys}: blocks read per get, own / other device: model "
              f"{f.model_reads[0]:.3f} / {f.model_reads[1]:.3f}, engine {f.reads[0]:.3f} / "
              f"{f.reads[1]:.3f}; bytes written per byte inserted: model "
              f"{f.model_written[0]:.2f} / {f.model_written[1]:.2f}, engine "
              f"{f.written[0]:.2f} / {f.written[1]:.2f} ({f.full_merges} full merges into L)")


if __name__ == "__main__":
    main()
