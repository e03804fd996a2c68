"""Shared test helpers."""

from __future__ import annotations

import subprocess
import sys

import pytest
from trace_samples import make_small, make_trace

from wacky_traces import Trace


def run_wacky(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the ``wacky`` command in a fresh interpreter, as a user would."""
    return subprocess.run([sys.executable, "-m", "wacky_cli", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def wacky():
    return run_wacky


@pytest.fixture(scope="module")
def trace() -> Trace:
    """The sample trace of tests/trace_samples.py: load, reads, a mix, deletes."""
    return make_trace()


@pytest.fixture(scope="module")
def small() -> Trace:
    return make_small()
