// Python bindings for the native engine. The engine itself is filled in by a later issue;
// this module only exposes the structure equations so the build path is exercised.
#include <pybind11/pybind11.h>

namespace py = pybind11;

PYBIND11_MODULE(_engine, m) {
  m.doc() = "wacky native LSM engine";
  m.attr("__version__") = "0.1.0";
}
