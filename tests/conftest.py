"""Shared test helpers."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run_wacky(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the ``wacky`` command in a fresh interpreter, as a user would."""
    return subprocess.run([sys.executable, "-m", "wacky_cli", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def wacky():
    return run_wacky
