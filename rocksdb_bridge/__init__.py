"""The RocksDB bridge: a database opened from an OPTIONS file, with RocksDB's own statistics.

The native module (``rocksdb_bridge._rocksdb``) links Debian's ``librocksdb-dev`` and is built by
``pip install`` only where that package is installed. Everything else in the project works
without it; :func:`load` raises :class:`RocksDBUnavailable`, saying how to install it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

INSTALL_HINT = ("install Debian's librocksdb-dev (apt-get install librocksdb-dev) and reinstall "
                "the project (make install), which then builds the RocksDB bridge")


class RocksDBUnavailable(RuntimeError):
    """The RocksDB bridge was not built, because librocksdb-dev was missing at install time."""


def load() -> ModuleType:
    """The native module, or :class:`RocksDBUnavailable` with the way to install it."""
    try:
        return importlib.import_module("rocksdb_bridge._rocksdb")
    except ImportError as e:
        raise RocksDBUnavailable(f"the RocksDB bridge is not available ({e}): {INSTALL_HINT}") \
            from e


def available() -> bool:
    try:
        load()
    except RocksDBUnavailable:
        return False
    return True


def version() -> str:
    """The RocksDB version the bridge was built against."""
    return str(load().version())
