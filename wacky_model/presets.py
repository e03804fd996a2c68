"""Named designs: every column of Figure 8, plus the uniform-FPR baselines used in industry."""

from __future__ import annotations

import math

from wacky_model.types import Design, System

PRESET_NAMES = (
    "leveling",
    "tiering",
    "lazy-leveling",
    "cll",
    "scll",
    "qlsm-bush",
    "plain-leveling",
    "plain-tiering",
)

# Default base ratios: RocksDB's 10 for the classic designs; the paper's evaluation settings
# for SCLL (T = 30) and QLSM-bush (T = 2, C = 1).
DEFAULT_T = {"scll": 30.0, "qlsm-bush": 2.0}


def scll_capping_ratio(T: float, system: System) -> float:
    """SCLL's C = L, approximated by log_T(N/F) to break the circularity (Section 3, note 3)."""
    return max(1.0, math.log(system.buffers) / math.log(T))


def preset(
    name: str, T: float | None = None, system: System | None = None, C: float | None = None
) -> Design:
    """The Figure 8 column ``name`` at base ratio ``T`` (``C`` only for cll and qlsm-bush)."""
    if name not in PRESET_NAMES:
        raise ValueError(f"preset must be one of {', '.join(PRESET_NAMES)}; got {name!r}")
    T = float(DEFAULT_T.get(name, 10.0) if T is None else T)
    if T < 2 or not math.isfinite(T):
        raise ValueError(f"T must be >= 2; got {T:g}")
    if C is not None and name not in ("cll", "qlsm-bush"):
        raise ValueError(f"C is fixed by the {name} preset; only cll and qlsm-bush take C")
    filters = "uniform" if name.startswith("plain") else "optimized"
    if name in ("leveling", "plain-leveling"):
        return Design(T, T - 1, 1.0, 0.0, 0.0, filters)
    if name in ("tiering", "plain-tiering"):
        return Design(T, T - 1, 1.0, 1.0, 1.0, filters)
    if name == "lazy-leveling":
        return Design(T, T - 1, 1.0, 1.0, 0.0)
    if name == "cll":
        return Design(T, 1.0 if C is None else C, 1.0, 1.0, 0.0)
    if name == "scll":
        if system is None:
            raise ValueError("the scll preset needs the system: its C is log_T(N/F)")
        return Design(T, scll_capping_ratio(T, system), 1.0, 1.0, 0.0)
    return Design(T, 1.0 if C is None else C, 2.0, 1.0, 0.0)  # qlsm-bush
