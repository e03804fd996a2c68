"""Test hooks into the native engine, kept out of the public ``Engine`` API.

They drive ``Engine::TEST_*`` methods in C++ (bound in ``native_engine._engine.testing``) and
exist so tests can provoke failures the engine must survive, such as a full disk.
"""

from __future__ import annotations

from native_engine import _engine
from native_engine.engine import Engine

__all__ = ["inject_write_failure"]


def inject_write_failure(engine: Engine, after_bytes: int) -> None:
    """Let ``after_bytes`` more bytes be written, then fail every write with ENOSPC (raised as
    OSError) until called again with -1, which disarms."""
    if not isinstance(engine, Engine):
        raise TypeError(f"engine must be a native_engine.Engine, got {type(engine).__name__}")
    if isinstance(after_bytes, bool) or not isinstance(after_bytes, int):
        raise TypeError(f"after_bytes must be an int, got {type(after_bytes).__name__}")
    if not -1 <= after_bytes < 2**63:
        raise ValueError(f"after_bytes must be -1 or in [0, 2**63), got {after_bytes}")
    _engine.testing.inject_write_failure(engine._e, after_bytes)
