"""``wacky dashboard`` (registered on the wacky CLI through the wacky.commands entry point)."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the dashboard command to ``app``."""

    @app.command("dashboard")
    def dashboard_command(
        port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1.")] = 8050,
    ) -> None:
        """Serve the interactive tuner on http://127.0.0.1:PORT (local only)."""
        # Imported here so other commands do not pay for loading Dash.
        from dashboard.app import check_port, serve

        check_port(port)
        print(f"wacky dashboard on http://127.0.0.1:{port}/ (Ctrl+C to stop)")
        serve(port)
