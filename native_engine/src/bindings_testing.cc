// bindings_testing.cc — see bindings_testing.h.
#include "bindings_testing.h"

#include "engine.h"

namespace wacky {

void BindTesting(pybind11::module_ m) {
  m.def("inject_write_failure", &Engine::TEST_InjectWriteFailure, pybind11::arg("engine"),
        pybind11::arg("after_bytes"),
        "Let `after_bytes` more bytes be written, then fail every write with ENOSPC "
        "(OSError); -1 disarms.");
}

}  // namespace wacky
