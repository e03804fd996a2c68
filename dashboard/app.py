"""``create_app``: the Dash app with its own recommendation cache and validation worker."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from dash import Dash, no_update

from dashboard import callbacks, layout
from dashboard.jobs import Runner, ValidationJobs, run_on_engine
from wacky_model.search import space_for

HOST = "127.0.0.1"  # local only: the dashboard has no authentication
DEFAULT_PORT = 8050
RECOMMENDATION_CACHE_SIZE = 64


def make_services(runner: Runner = run_on_engine) -> callbacks.Services:
    """What the callbacks need, with their own caches and validation worker (one per app). The
    design spaces are the library's (one table per system), so the page, the API and the CLI
    give the same answer."""
    plain = callbacks.Services(space_for=space_for, jobs=ValidationJobs(runner))
    # Under skewed keys a recommendation (or a stock RocksDB report) takes seconds: editing a
    # manual design's knobs, or coming back to a workload, should not repeat it.
    kept = lru_cache(maxsize=RECOMMENDATION_CACHE_SIZE)
    return replace(plain, recommend_for=kept(plain.recommend),
                   rocksdb_report_for=kept(plain.rocksdb_report))


def create_app(*, runner: Runner = run_on_engine) -> Dash:
    """A new app with its own caches and worker thread; ``runner`` runs one validation (tests
    pass a fake)."""
    app = Dash(__name__, title="wacky dashboard")
    services = make_services(runner)
    page = layout.build_layout()
    # The default views go out with the page, so the first paint has content; the views
    # callback then runs only on edits (or a URL that sets the controls).
    first = callbacks.update_views(*callbacks.default_controls(), services)
    layout.fill(page, {(cid, prop): first[key] for key, cid, prop in callbacks.VIEW_OUTPUTS
                       if first[key] is not no_update})
    app.layout = page
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
