"""Floating on devices measured (docs/MODEL.md "Floating on devices"): the native engine with
Tidal-tree's floating on two devices (``level_dirs``: level 0 and Level 1 on its own device
and the rest on another, or Level 3 alone on the other), against the same engine without
floating, same workload and seed (validation.tidal's: a load of 1 KiB entries, then rounds
of Zipf 0.99 existing-key reads and uniform inserts at R:W 9:1). Per device: the blocks
floating adds to the writes per insert (F4, by the level each is written into) and the block
reads per existing-key lookup it moves between devices (F3, the read keys' levels with and
without floating). Run as a module for the figures::

    .venv/bin/python -m validation.float_devices
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cost_models.devices import devices_of_levels
from validation.tidal import BLOCK, ENTRY_BYTES, measure, predict

# Where the floats write (Level 1) apart from where their keys return (Levels 2..), and the
# deepest level apart from the rest (where F3 moves the reads from).
PLACEMENTS = ((0, 0, 1), (0, 0, 0, 1))
READS, RATIO, GAMMA = "zipf:0.99", 9, 1.0
SCALE = {"entries": 50_000, "operations": 50_000, "warmup": 25_000}


@dataclass(frozen=True)
class FloatDeviceFigures:
    """Per device (the engine's own first), floating's change: blocks written per insert and
    block reads per existing-key lookup, the model's (F3, F4 by level, summed by the
    placement) and the engine's (with floating less without)."""

    placed: tuple[int, ...]
    model_written: tuple[float, ...]
    written: tuple[float, ...]
    model_reads: tuple[float, ...]
    reads: tuple[float, ...]
    floats: int


def predicted(placed: tuple[int, ...], scale: dict[str, int] = SCALE
              ) -> tuple[np.ndarray, np.ndarray]:
    """F4's extra blocks written per insert and F3's moved block reads per lookup, by device:
    Level k (index k - 1) on the device of engine level k."""
    model = predict(READS, RATIO, GAMMA, **scale)
    assert model is not None
    levels = len(model.extra_writes_by_level)
    where = devices_of_levels(placed, levels + 1)[1:]
    per_block = BLOCK // ENTRY_BYTES
    moved = np.asarray(model.read_share_by_level) - np.asarray(model.read_share_off)
    return (np.bincount(where, weights=np.asarray(model.extra_writes_by_level) / per_block,
                        minlength=2),
            np.bincount(where, weights=moved, minlength=2))


def compare(placed: tuple[int, ...], scale: dict[str, int] = SCALE,
            workdir: Path | None = None) -> FloatDeviceFigures:
    """The model's and the engine's per-device changes with levels on ``placed``."""
    model_written, model_reads = predicted(placed, scale)
    with tempfile.TemporaryDirectory() as tmp:
        base = workdir or Path(tmp)
        runs = []
        for gamma in (0.0, GAMMA):
            dirs = ["" if d == 0 else str(base / f"g{gamma:g}-device{d}") for d in placed]
            runs.append(measure(READS, RATIO, gamma, level_dirs=dirs, **scale))
    off, on = runs
    written = np.subtract(on.device_written, off.device_written)
    reads = np.subtract(on.device_read, off.device_read)
    return FloatDeviceFigures(placed, tuple(map(float, model_written)),
                              tuple(map(float, written)),
                              tuple(map(float, model_reads)), tuple(map(float, reads)),
                              on.floats)


def main() -> None:
    for placed in PLACEMENTS:
        _print(compare(placed))


def _print(f: FloatDeviceFigures) -> None:
    print(f"level_devices {f.placed}: floating (gamma {GAMMA:g}, {READS} reads at R:W "
          f"{RATIO}:1, {f.floats} floats), "
          f"own / other device: blocks written per insert added: model "
          f"{f.model_written[0]:+.3f} / {f.model_written[1]:+.3f}, engine "
          f"{f.written[0]:+.3f} / {f.written[1]:+.3f}; block reads per lookup moved: model "
          f"{f.model_reads[0]:+.3f} / {f.model_reads[1]:+.3f}, engine {f.reads[0]:+.3f} / "
          f"{f.reads[1]:+.3f}")


if __name__ == "__main__":
    main()
