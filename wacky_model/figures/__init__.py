"""Plotly figures of the model, shared by the CLI, the dashboard and the notebooks.

One module per subject: ``frontiers`` (Pareto frontiers), ``design`` (structure drawings, Theta
vs T), ``paper`` (the paper's analysis figures, for notebooks). Predicted-vs-measured figures
live in ``validation.figures``.
"""

from wacky_model.figures.frontiers import frontier_html, memory_frontier, range_frontier

__all__ = ["frontier_html", "memory_frontier", "range_frontier"]
