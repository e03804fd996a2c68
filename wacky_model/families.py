"""The Figure 8 families in one table: presets, search, figures and the sweep all read it.

A family is a line through the continuum: its knobs (T, C, X, K, Z) follow the base ratio T.
Each row of :data:`TABLE` says how, and where the family shows up:

* ``preset`` -- its name for :func:`wacky_model.presets.preset` (the CLI and dashboard buttons);
* ``projection`` -- one of the search's projections (Section 5), stepped along T;
* ``figure8`` -- the heading of its column in Figure 8 (complexity checks, validation sweep);
* ``on_map`` -- a name :func:`classify` gives designs, coloured on the design maps.

Adding a family is adding a row here. The table's order is the projections' order, which the
search's tie-breaking depends on (at T = 2 Tiering and Lazy Leveling are the same design), and
the order every derived list keeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wacky_model.types import Design, FilterPolicy, System

Knobs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# (T, N/F, C, X) -> (T, C, X, K, Z). C and X are the row's own values (or the caller's, where
# the row leaves them free); rules that fix them ignore them.
Rule = Callable[..., tuple]

WACKY = "Wacky"  # what classify calls a design no family holds
WACKY_COLOR = "#7f7f7f"
# Knobs closer than this (relative, or absolute below 1) to a family's count as the family's.
MATCH_TOLERANCE = 1e-6


def scll_capping_ratio(T, n_buffers):
    """SCLL's C = L, approximated by log_T(N/F) to break the circularity (Section 3, note 3)."""
    return np.maximum(1.0, np.log(n_buffers) / np.log(T))


def _classic(K: float, Z: float) -> Rule:
    """C = T - 1 and X = 1 make every level T times the previous one: Leveling to Tiering."""
    return lambda T, n, C, X: (T, T - 1.0, 1.0, K, Z)


def _capped(T, n, C, X):
    """Lazy Levels 1..L-1, a leveled Level L, and the row's C and X (CLL, LSM-bush)."""
    return (T, C, X, 1.0, 0.0)


def _scll(T, n, C, X):
    return (T, scll_capping_ratio(T, n), 1.0, 1.0, 0.0)


@dataclass(frozen=True)
class Family:
    """One family of designs: how its knobs follow T, and where it is used."""

    name: str  # display name, e.g. "CLL (C=2)"; what classify returns for on_map rows
    rule: Rule
    color: str
    C: float = 1.0  # the C and X handed to the rule; the defaults where they are free
    X: float = 1.0
    free: frozenset[str] = frozenset()  # knobs a preset may set and classify leaves open
    preset: str | None = None
    default_T: float = 10.0  # the preset's T when none is given
    filters: FilterPolicy = "optimized"
    projection: bool = False
    figure8: str | None = None
    on_map: bool = False
    # How far C may stray from the rule's and still classify as this family: SCLL's C = L is
    # only approximated by log_T(N/F), so designs with C = L count too.
    c_slack: float = 0.0
    # Why the knobs depend on the data size N/F (the preset then needs the system).
    size_note: str | None = None
    sweep_T: tuple[float, ...] = (3.0, 6.0, 10.0)  # base ratios the validation sweep runs

    def knobs(self, T, n_buffers, *, C=None, X=None) -> Knobs:
        """Knob arrays broadcast over T and N/F (and C, X where this family leaves them free)."""
        for knob, value in (("C", C), ("X", X)):
            if value is not None and knob not in self.free:
                raise ValueError(f"{knob} is fixed in the {self.name} family")
        c = self.C if C is None else C
        x = self.X if X is None else X
        arrays = (np.asarray(v, dtype=float) for v in (T, n_buffers, c, x))
        T, n, c, x = np.broadcast_arrays(*arrays)
        out = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in self.rule(T, n, c, x)))
        return tuple(np.array(v) for v in out)  # writable copies, not broadcast views

    def holds(self, design: Design, system: System) -> bool:
        """Whether ``design`` is one of this family's (its free knobs may take any value)."""
        if design.filters != self.filters:
            return False
        c = design.C if "C" in self.free else self.C
        x = design.X if "X" in self.free else self.X
        want = self.rule(design.T, system.buffers, c, x)
        for i, (got, ref) in enumerate(zip(design.knobs.values(), want, strict=True)):
            off = abs(got - float(ref))
            if off > MATCH_TOLERANCE * max(1.0, abs(float(ref))) and not (
                i == 1 and off <= self.c_slack
            ):
                return False
        return True


_PLOTLY = ("#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3", "#FF6692",
           "#B6E880", "#FF97FF", "#FECB52")  # fmt: skip

TABLE: tuple[Family, ...] = (
    Family("Leveling", _classic(0.0, 0.0), _PLOTLY[0], preset="leveling", projection=True,
           figure8="Leveling/Monkey", on_map=True),
    Family("Tiering", _classic(1.0, 1.0), _PLOTLY[1], preset="tiering", projection=True,
           figure8="Tiering/Monkey", on_map=True),
    Family("Lazy Leveling", _classic(1.0, 0.0), _PLOTLY[2], preset="lazy-leveling",
           projection=True, figure8="Lazy Leveling", on_map=True),
    Family("CLL", _capped, _PLOTLY[3], free=frozenset({"C"}), preset="cll", figure8="CLL",
           on_map=True),
    Family("CLL (C=1)", _capped, _PLOTLY[3], C=1.0, projection=True),
    Family("CLL (C=2)", _capped, _PLOTLY[4], C=2.0, projection=True),
    Family("CLL (C=4)", _capped, _PLOTLY[5], C=4.0, projection=True),
    # The paper evaluates SCLL at T = 30 and QLSM-bush at T = 2, C = 1 (Section 6).
    Family("SCLL", _scll, _PLOTLY[6], preset="scll", default_T=30.0, projection=True,
           figure8="SCLL", on_map=True, c_slack=0.5, size_note="its C is log_T(N/F)",
           sweep_T=(4.0, 8.0, 16.0)),
    Family("QLSM-bush", _capped, _PLOTLY[7], X=2.0, free=frozenset({"C"}), preset="qlsm-bush",
           default_T=2.0, projection=True, figure8="QLSM-bush", on_map=True,
           sweep_T=(2.0, 3.0, 4.0)),
    Family("LSM-bush", _capped, _PLOTLY[9], X=1.5, free=frozenset({"C", "X"}), on_map=True),
    Family("LSM-bush (X=1.5)", _capped, _PLOTLY[8], X=1.5, projection=True),
    Family("LSM-bush (X=3)", _capped, _PLOTLY[9], X=3.0, projection=True),
    # The uniform-FPR baselines used in industry.
    Family("Leveling, uniform filters", _classic(0.0, 0.0), "#1f77b4", preset="plain-leveling",
           filters="uniform"),
    Family("Tiering, uniform filters", _classic(1.0, 1.0), "#d62728", preset="plain-tiering",
           filters="uniform"),
)

PROJECTIONS: tuple[Family, ...] = tuple(f for f in TABLE if f.projection)
PRESETS: dict[str, Family] = {f.preset: f for f in TABLE if f.preset is not None}
FIGURE8: dict[str, Family] = {f.figure8: f for f in TABLE if f.figure8 is not None}
MAP_FAMILIES: tuple[str, ...] = tuple(f.name for f in TABLE if f.on_map) + (WACKY,)
MAP_COLORS: tuple[str, ...] = tuple(f.color for f in TABLE if f.on_map) + (WACKY_COLOR,)


def classify(design: Design, system: System) -> str:
    """The most specific on-map family holding ``design`` (fewest free knobs, then the
    table's order), or "Wacky" when none does."""
    holders = [f for f in TABLE if f.on_map and f.holds(design, system)]
    return min(holders, key=lambda f: len(f.free)).name if holders else WACKY


def name_of(design: Design, system: System) -> str:
    """:func:`classify`, but a design no map family holds is named by any family that holds it
    (the uniform-filter baselines: stock RocksDB's leveled picks are "Leveling, uniform
    filters", not "Wacky"). For what a recommendation is called, not for the maps' colours."""
    name = classify(design, system)
    if name != WACKY:
        return name
    return next((f.name for f in TABLE if not f.on_map and f.holds(design, system)), WACKY)
