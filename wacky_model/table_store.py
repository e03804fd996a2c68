"""Search tables kept on disk between processes.

A system's table (:class:`wacky_model.search.DesignSpace`) takes about half a second to build
and a short-lived process, the CLI, builds it on every call: two with the default runs cap,
since ``Recommendation.without_cap`` searches again without it. A table is a pure function of
its system, model and constraints and of the code that prices it, so it is kept in a file
named by a hash of all four and read back instead of rebuilt. A file that cannot be read
(torn, from other classes) is rebuilt and replaced; one that cannot be written only costs the
time it would have saved.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from collections.abc import Callable, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import TypeVar

import numpy as np

T = TypeVar("T")

# The code a table depends on: the models that price it and the search that builds it.
PACKAGES = ("cost_models", "wacky_model")


def default_dir() -> Path:
    """Where the CLI keeps its tables: $XDG_CACHE_HOME/wacky/tables (~/.cache by default)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wacky" / "tables"


def source_version(packages: Sequence[str], suffixes: Sequence[str] = (".py",)) -> str:
    """A hash of the files with ``suffixes`` of ``packages``, wherever they are installed."""
    digest = hashlib.sha256()
    for package in packages:
        spec = find_spec(package)
        for root in sorted(spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(root).rglob("*")):
                if path.suffix in suffixes and "__pycache__" not in path.parts:
                    digest.update(f"{package}/{path.relative_to(root)}".encode())
                    digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def _code_version() -> str:
    # numpy's version too: its float results are part of what a table holds.
    return f"{source_version(PACKAGES)}-{np.__version__}"


def kept(key: tuple, build: Callable[[], T], directory: Path) -> T:
    """``build()``'s value for ``key`` (a tuple with a deterministic repr), read from
    ``directory`` if a process with the same code stored it there, else built and stored."""
    name = hashlib.sha256(repr((key, _code_version())).encode()).hexdigest()
    path = Path(directory) / f"{name}.pkl"
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # none yet, or unreadable: build it again
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.name}.{os.getpid()}.part")
        part.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(part, path)  # atomic: a reader sees the old file or the whole new one
    except OSError:
        pass
    return value
