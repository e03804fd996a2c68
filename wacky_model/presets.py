"""Named designs: every column of Figure 8, plus the uniform-FPR baselines used in industry.

The names, default base ratios and knobs come from :data:`wacky_model.families.TABLE`.
"""

from __future__ import annotations

import math

from wacky_model.families import PRESETS
from wacky_model.types import Design, System, check_types

PRESET_NAMES = tuple(PRESETS)

# Default base ratios: RocksDB's 10 for the classic designs; the paper's evaluation settings
# for SCLL (T = 30) and QLSM-bush (T = 2, C = 1).
DEFAULT_T = {name: family.default_T for name, family in PRESETS.items()}

_TAKES_C = tuple(name for name, family in PRESETS.items() if "C" in family.free)


def preset(
    name: str, T: float | None = None, system: System | None = None, C: float | None = None
) -> Design:
    """The Figure 8 column ``name`` at base ratio ``T`` (``C`` only for cll and qlsm-bush)."""
    check_types(system=system, optional=("system",))
    if name not in PRESET_NAMES:
        raise ValueError(f"preset must be one of {', '.join(PRESET_NAMES)}; got {name!r}")
    family = PRESETS[name]
    T = float(family.default_T if T is None else T)
    if T < 2 or not math.isfinite(T):
        raise ValueError(f"T must be >= 2; got {T:g}")
    if C is not None and name not in _TAKES_C:
        raise ValueError(
            f"C is fixed by the {name} preset; only {' and '.join(_TAKES_C)} take C"
        )
    if family.size_note is not None and system is None:
        raise ValueError(f"the {name} preset needs the system: {family.size_note}")
    # Families that do not depend on the data size never read N/F.
    n_buffers = system.buffers if system is not None else math.nan
    knobs = (float(v) for v in family.knobs(T, n_buffers, C=C))
    return Design(*knobs, filters=family.filters)
