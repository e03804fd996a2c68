"""``create_app``: the Dash app with its own recommendation cache and validation worker."""

from __future__ import annotations

from functools import lru_cache

from dash import Dash, no_update

from dashboard import callbacks, layout
from dashboard.jobs import Runner, ValidationJobs, run_on_engine
from wacky_model.guardrails import Constraints
from wacky_model.rocksdb_tuning import RocksDBRecommendation, recommend_rocksdb
from wacky_model.search import DesignSpace, Recommendation, recommend
from wacky_model.search import space_for as search_space_for
from wacky_model.types import System, Workload

HOST = "127.0.0.1"  # local only: the dashboard has no authentication
DEFAULT_PORT = 8050
RECOMMENDATION_CACHE_SIZE = 64


def make_services(runner: Runner = run_on_engine) -> callbacks.Services:
    """What the callbacks need, with their own caches and validation worker (one per app)."""

    # The library's one table per system (built once, then a lookup): the page searches what
    # the API and the CLI search, so all three give the same answer.
    def space_for(system: System, constraints: Constraints | None = None) -> DesignSpace:
        return search_space_for(system, constraints=constraints)

    # Under skewed keys a recommendation takes seconds: editing a manual design's knobs, or
    # coming back to a workload, should not repeat it.
    @lru_cache(maxsize=RECOMMENDATION_CACHE_SIZE)
    def recommend_for(workload: Workload, system: System, rho: float | None,
                      constraints: Constraints | None,
                      pins: callbacks.SearchPins = callbacks.SEARCHED) -> Recommendation:
        return recommend(workload, system, space=space_for(system, constraints), rho=rho,
                         constraints=constraints, **pins.arguments())

    # What --target rocksdb prints beside its pick (RocksDB's defaults, the gain), kept too.
    @lru_cache(maxsize=RECOMMENDATION_CACHE_SIZE)
    def rocksdb_report_for(workload: Workload, system: System, rho: float | None,
                           constraints: Constraints | None,
                           level0_trigger: int | None) -> RocksDBRecommendation:
        return recommend_rocksdb(workload, system, constraints, rho, level0_trigger)

    return callbacks.Services(space_for=space_for, jobs=ValidationJobs(runner),
                              recommend_for=recommend_for,
                              rocksdb_report_for=rocksdb_report_for)


def create_app(*, runner: Runner = run_on_engine) -> Dash:
    """A new app: its own cache of design spaces (keyed by System) and its own worker thread.

    ``runner`` runs one validation; tests pass a fake to avoid building on the engine.
    """
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
