"""Helpers shared by the tests that need the RocksDB bridge."""

from __future__ import annotations

import os

import pytest

import rocksdb_bridge

# A validation small enough for a test: 60,000 entries, 1,024-entry buffers, 500 reads per kind.
SMALL = ["--entries", "60000", "--buffer-bytes", "131072", "--reads", "500"]


def bridge():
    """The native bridge; under CI=true a missing one fails, elsewhere it skips."""
    if not rocksdb_bridge.available():
        if os.environ.get("CI") == "true":
            pytest.fail("the RocksDB bridge is missing under CI=true: "
                        f"{rocksdb_bridge.INSTALL_HINT}")
        pytest.skip("the RocksDB bridge is not built (librocksdb-dev missing)")
    return rocksdb_bridge.load()
