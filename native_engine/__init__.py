"""The native LSM engine (C++17 via pybind11): a real storage engine for checking the cost model.

``from native_engine import Engine`` (and ``verify_directory``, ``clean_lost``) — see
``native_engine/engine.py`` for the API and ``native_engine/src/*.h`` for the contracts of the
C++ components. Test hooks (fault injection) are in ``native_engine.testing``, not on
``Engine``; the merge policy's executable specification (pure Python) is
``native_engine.simulator``.
"""

from native_engine._engine import MAX_LEVELS, MAX_RUNS_PER_LEVEL, CorruptionError, __version__
from native_engine.engine import Engine, InvalidArgument, clean_lost, verify_directory

__all__ = ["MAX_LEVELS", "MAX_RUNS_PER_LEVEL", "CorruptionError", "Engine", "InvalidArgument",
           "__version__", "clean_lost", "verify_directory"]
