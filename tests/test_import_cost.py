"""Importing the library stays light (issue 29): ``import wacky_model`` loads neither
``scipy.optimize`` nor ``scipy.stats`` (about 0.3 s of start-up, paid by ``wacky --help``), and none
of the packages built on it: the CLI, the dashboard, the engine or validation.

Each check imports in a fresh interpreter and reads its ``sys.modules``, since this process has
long since imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy.optimize", "scipy.stats")
SURFACES = ("wacky_cli", "dashboard", "native_engine", "validation")


def loaded_by(statement: str) -> list[str]:
    """Every module in ``sys.modules`` after ``statement`` runs in a fresh interpreter."""
    child = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def within(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_import_wacky_model_loads_no_heavy_scipy_and_no_surface():
    modules = loaded_by("import wacky_model")
    assert "wacky_model" in modules
    assert not within(modules, HEAVY), "import wacky_model loads scipy.optimize or scipy.stats"
    assert not within(modules, SURFACES), (
        f"import wacky_model loads {within(modules, SURFACES)}: the library must not need its "
        "CLI, dashboard, engine or validation")


@pytest.mark.parametrize("statement", ["import wacky_cli.main",
                                       "from wacky_model.search import recommend"])
def test_start_up_path_loads_no_heavy_scipy(statement: str):
    # `wacky --help` and a plain `wacky recommend` import these; scipy.optimize is imported in
    # the functions that need it (the skew model's cache, trace fitting).
    assert not within(loaded_by(statement), HEAVY)


def imports_of(package_dirs: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at any depth of its code (a function-level
    import counts: it is a dependency all the same)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    files = {".".join(f.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): f
             for d in package_dirs for f in (root / d).rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            edges[module] |= {n for n in names if n in files and n != module}
    return edges


def test_no_import_cycles_between_the_projects_modules():
    """Issue 29: the cycles that glued silos (runner <-> skew_runner, analysis <->
    skew_search) are gone, and none comes back: arrows point one way."""
    edges = imports_of(("cost_models", "wacky_model", "validation", "dashboard", "wacky_cli",
                        "wacky_traces"))
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for nxt in sorted(edges[module]):
            assert state.get(nxt) != 1, " -> ".join([*path, module, nxt])
            if nxt not in state:
                visit(nxt, [*path, module])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [])
