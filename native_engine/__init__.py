"""The native LSM engine (C++17 via pybind11)."""

from native_engine._engine import __version__

__all__ = ["__version__"]
