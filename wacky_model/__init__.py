"""The Wacky continuum as users see it: designs, systems, workloads, analysis and search."""

from wacky_model.analysis import Analysis, LevelRow, analyze, analyze_many, steady_costs_many
from wacky_model.presets import PRESET_NAMES, preset
from wacky_model.types import Design, System, Workload

__all__ = [
    "PRESET_NAMES",
    "Analysis",
    "Design",
    "LevelRow",
    "System",
    "Workload",
    "analyze",
    "analyze_many",
    "preset",
    "steady_costs_many",
]
