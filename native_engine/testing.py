"""Test hooks into the native engine, kept out of the public ``Engine`` API.

They drive ``Engine::TEST_*`` methods in C++ (bound in ``native_engine._engine.testing``) and
exist so tests can provoke failures the engine must survive, such as a full disk.
"""

from __future__ import annotations

from native_engine import _engine
from native_engine.engine import Engine

__all__ = ["damage_filter", "fail_log_sync", "inject_write_failure"]


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


def _engine_of(engine: Engine) -> _engine._Engine:
    if not isinstance(engine, Engine):
        raise TypeError(f"engine must be a native_engine.Engine, got {type(engine).__name__}")
    return engine._e


def fail_log_sync(engine: Engine, fail: bool) -> None:
    """While ``fail`` is true, every fdatasync of the engine's write-ahead log fails (EIO), as
    a failing disk would; the engine must then make writes durable by flushing instead."""
    _engine.testing.fail_log_sync(_engine_of(engine), bool(fail))


def damage_filter(engine: Engine) -> bool:
    """Damage the in-memory filter of the newest run that has one (filters are not stored on
    disk, so memory is the only place they can be damaged). False if no run has a filter."""
    return bool(_engine.testing.damage_filter(_engine_of(engine)))
