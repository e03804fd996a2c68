"""Shared test helpers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import settings
from trace_samples import make_small, make_trace

from wacky_traces import Trace

# Under CI the property tests draw the same examples every run, so that a landing is not decided
# by which random examples one run happened to try; locally they explore afresh each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def run_wacky(*args: str, timeout: float = 300,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the ``wacky`` command in a fresh interpreter, as a user would. Piped output is 120
    columns wide unless ``env`` sets COLUMNS (a COLUMNS of the caller's is not passed on)."""
    full = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | (env or {})
    return subprocess.run([sys.executable, "-m", "wacky_cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=full)


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
