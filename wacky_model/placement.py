"""Which levels go on which device (docs/MODEL.md "D1. Devices"), chosen like RocksDB's
``db_paths``: the upper levels on the system's own device (the faster one, which also holds the
log), every level from some level ℓ down on another device, the deepest level that fits the
own device's capacity deciding ℓ. :func:`place` prices every such placement of a configuration
with the one pricing function and keeps the cheapest that fits; :func:`place_recommendation`
does it for a recommendation's pick and its families' best designs, and says why.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from wacky_model.config import Configuration
from wacky_model.types import System, Workload


@dataclass(frozen=True)
class Placed:
    """One placement of a configuration: Θ with its I/O at the devices' costs (D1), the mean
    bytes each device holds and writes per insert, and whether every device can hold its
    levels."""

    level_devices: tuple[int, ...]
    theta: float
    bytes_held: tuple[float, ...]
    bytes_written_per_insert: tuple[float, ...]
    fits: bool

    @property
    def first_moved_level(self) -> int:
        """ℓ: the first level not on the own device (the levels below it are all on one)."""
        return next((i for i, d in enumerate(self.level_devices) if d != 0),
                    len(self.level_devices))


def candidates(levels: int, devices: int) -> list[tuple[int, ...]]:
    """Levels 0..ℓ-1 on the own device and the rest on device d, for ℓ = 0..levels (ℓ =
    ``levels``: all on the own device, written ``()``) and each other device d."""
    out: list[tuple[int, ...]] = [()]
    for d in range(1, devices):
        out += [(0,) * ell + (d,) for ell in range(levels)]
    return out


def place(config: Configuration, workload: Workload, system: System) -> tuple[Placed, list[Placed]]:
    """The cheapest placement of ``config`` that fits ``system``'s devices, and every one
    priced. ValueError when none fits (the data outgrows the devices together)."""
    from wacky_model.pricing import price

    base = price(dataclasses.replace(config, compaction=dataclasses.replace(
        config.compaction, level_devices=())), workload, system)
    # Level 0 and Levels 1..L; with one device (no D1) the one placement is ().
    levels = 0 if base.ledger is None else len(base.ledger.writes)
    capacity = [d.capacity_bytes for d in system.devices] or [float("inf")]
    priced = []
    for level_devices in candidates(levels, max(1, len(system.devices))):
        p = price(dataclasses.replace(config, compaction=dataclasses.replace(
            config.compaction, level_devices=level_devices)), workload, system)
        assert p.devices is not None
        fits = all(h <= c for h, c in zip(p.devices.bytes_held, capacity, strict=True))
        priced.append(Placed(level_devices, p.theta, p.devices.bytes_held,
                             p.devices.bytes_written_per_insert, fits))
    fitting = [p for p in priced if p.fits]
    if not fitting:
        need = sum(priced[0].bytes_held)
        raise ValueError(f"no placement of the levels fits the devices: the data needs about "
                         f"{need:,.0f} bytes and the devices hold "
                         f"{sum(capacity):,.0f} together (System.devices' capacity_bytes)")
    return min(fitting, key=lambda p: p.theta), priced


def explain(best: Placed, priced: list[Placed], system: System) -> dict[str, Any]:
    """Why ``best``: its levels per device, and what the nearest alternatives cost."""
    names = [d.name for d in system.devices]
    ell = best.first_moved_level
    moved_to = names[best.level_devices[-1]] if best.level_devices else names[0]
    if not best.level_devices:
        words = f"every level on {names[0]}"
    else:
        words = (f"levels 0-{ell - 1} on {names[0]}, level {ell} and below on {moved_to}"
                 if ell > 0 else f"every level on {moved_to} (the log stays on {names[0]})")
    others = sorted((p for p in priced if p is not best), key=lambda p: p.theta)
    refused = [p for p in others if not p.fits]
    cheaper_refused = [p for p in refused if p.theta < best.theta]
    return {
        "level_devices": list(best.level_devices), "in_words": words, "theta": best.theta,
        "bytes_held": dict(zip(names, best.bytes_held, strict=True)),
        "bytes_written_per_insert": dict(zip(names, best.bytes_written_per_insert,
                                             strict=True)),
        "capacity_bytes": {d.name: d.capacity_bytes for d in system.devices},
        "next_best": None if not [p for p in others if p.fits] else {
            "level_devices": list(next(p for p in others if p.fits).level_devices),
            "theta": next(p for p in others if p.fits).theta},
        # A cheaper placement that does not fit: what the own device's capacity costs.
        "capacity_costs": None if not cheaper_refused else {
            "level_devices": list(cheaper_refused[0].level_devices),
            "theta": cheaper_refused[0].theta},
    }


def describe(placement: dict[str, Any]) -> str:
    """A recommendation's placement (:func:`explain`'s, with ``design_changed``) in words: its
    levels per device, what each device holds, Θ at the devices' costs and why; what ``wacky
    recommend`` prints after "placement: " and the dashboard shows."""
    held = ", ".join(f"{name} {b:,.0f} B" for name, b in placement["bytes_held"].items())
    why = (f"{placement['in_words']} (holds {held}; Θ {placement['theta']:.4g} at the devices' "
           "costs")
    if placement["capacity_costs"] is not None:
        why += (f"; a placement that does not fit the capacities would cost "
                f"{placement['capacity_costs']['theta']:.4g}")
    if placement["design_changed"]:
        why += "; this family's design places better than the one-device pick"
    return why + ")"


def place_recommendation(rec: Any, workload: Workload, system: System) -> Any:
    """``rec`` with its levels placed: the pick and each family's best design (the
    alternatives) placed at their cheapest fitting placement, the cheapest of them chosen. The
    design search itself prices I/O on one device; D1 re-ranks its candidates."""
    from wacky_model.types import Compaction

    picks: list[tuple[Any, Configuration]] = [(None, rec.configuration)]
    memory = rec.configuration.memory
    # The families' best whole-level designs at the pick's memory (the same split).
    for a in rec.alternatives:
        if rec.file_costs is None and rec.skew is None and a.buffer_bytes in (
                0, rec.system.buffer_bytes):
            picks.append((a, Configuration(a.design, Compaction(), memory)))
    best = None
    for alt, config in picks:
        try:
            placed, priced = place(config, workload, system)
        except ValueError:
            continue
        if best is None or placed.theta < best[1].theta:
            best = (alt, placed, priced, config)
    if best is None:
        place(rec.configuration, workload, system)  # raises the reason
    assert best is not None
    alt, placed, priced, config = best
    why = explain(placed, priced, system)
    why["design_changed"] = alt is not None
    compaction = dataclasses.replace(config.compaction, level_devices=placed.level_devices)
    if alt is None:
        return dataclasses.replace(rec, compaction=compaction, cost=placed.theta, placement=why)
    return dataclasses.replace(rec, design=alt.design, family=alt.family, compaction=compaction,
                               cost=placed.theta, placement=why)
