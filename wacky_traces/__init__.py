"""Operation traces: the trace type, its file formats (binary, lz4, text) and the values its
PUTs write. Reading the types loads NumPy only; lz4 loads on the first compressed file.
The formats and error messages are specified in docs/TRACES.md."""

from wacky_traces.format import (
    KIND_NAMES,
    LZ4_MAGIC,
    MAGIC,
    N_KINDS,
    PUT_CHUNK,
    SCAN_CHUNK,
    U64_MAX,
    OpKind,
    Phase,
    Trace,
    TraceError,
    build_trace,
    read_trace,
    trace_fractions,
    value_for,
    write_trace,
)

__all__ = [
    "KIND_NAMES",
    "LZ4_MAGIC",
    "MAGIC",
    "N_KINDS",
    "PUT_CHUNK",
    "SCAN_CHUNK",
    "U64_MAX",
    "OpKind",
    "Phase",
    "Trace",
    "TraceError",
    "build_trace",
    "read_trace",
    "trace_fractions",
    "value_for",
    "write_trace",
]
