"""The native LSM engine (C++17 via pybind11): a real storage engine for checking the cost model.

``from native_engine import Engine`` — see ``native_engine/engine.py`` for the API and
``native_engine/src/*.h`` for the contracts of the C++ components. Test hooks (fault injection)
are in ``native_engine.testing``, not on ``Engine``.
"""

from native_engine._engine import __version__
from native_engine.engine import Engine

__all__ = ["Engine", "__version__"]
