"""``create_app``: the Dash app with its own design-space cache and validation worker."""

from __future__ import annotations

from functools import lru_cache

from dash import Dash

from dashboard import callbacks, layout
from dashboard.jobs import Runner, ValidationJobs, run_on_engine
from wacky_model.search import DesignSpace
from wacky_model.types import System

HOST = "127.0.0.1"  # local only: the dashboard has no authentication
DEFAULT_PORT = 8050
SPACE_CACHE_SIZE = 8  # systems whose cost tables are kept (about 2 MB each)


def create_app(*, runner: Runner = run_on_engine) -> Dash:
    """A new app: its own cache of design spaces (keyed by System) and its own worker thread.

    ``runner`` runs one validation; tests pass a fake to avoid building on the engine.
    """

    # A DesignSpace's table takes about a second to build and well under a millisecond to
    # search: build it once per system.
    @lru_cache(maxsize=SPACE_CACHE_SIZE)
    def space_for(system: System) -> DesignSpace:
        return DesignSpace.build(system)

    app = Dash(__name__, title="wacky dashboard")
    app.layout = layout.build_layout()
    services = callbacks.Services(space_for=space_for, jobs=ValidationJobs(runner))
    callbacks.register(app, services)
    return app


def check_port(port: int) -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"port must be a whole number in [1, 65535]; got {port!r}")
    return port


def serve(port: int = DEFAULT_PORT, *, debug: bool = False) -> None:
    """Serve the dashboard on 127.0.0.1:``port`` until interrupted."""
    check_port(port)
    create_app().run(host=HOST, port=port, debug=debug)
