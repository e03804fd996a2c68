"""Plotly figure builders, shared by the CLI, the dashboard and the notebooks.

One package, one module per subject; import builders from their module:
``frontiers`` (Pareto frontiers), ``design`` (structure drawings, Theta vs T),
``paper`` (the paper's analysis figures), ``validation`` (predicted vs measured).
"""

from wacky_model.figures.frontiers import frontier_html, memory_frontier, range_frontier

__all__ = ["frontier_html", "memory_frontier", "range_frontier"]
