"""``wacky dashboard`` (registered on the wacky CLI through the wacky.commands entry point)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the dashboard command to ``app``."""
