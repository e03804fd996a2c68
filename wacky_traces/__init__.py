"""Operation traces: the trace type, its file formats (binary, lz4, text) and the values its
PUTs write. Reading the types loads NumPy only; lz4 loads on the first compressed file.
The formats and error messages are specified in docs/TRACES.md."""

from wacky_traces.format import *  # noqa: F403  (the names are listed once, in format.__all__)
from wacky_traces.format import __all__ as __all__
