// bindings_testing.cc — see bindings_testing.h.
#include "bindings_testing.h"

#include <pybind11/stl.h>

#include "engine.h"
#include "structure.h"

namespace wacky {

void BindTesting(pybind11::module_ m) {
  m.def("inject_write_failure", &Engine::TEST_InjectWriteFailure, pybind11::arg("engine"),
        pybind11::arg("after_bytes"),
        "Let `after_bytes` more bytes be written, then fail every write with ENOSPC "
        "(OSError); -1 disarms.");
  m.def("fail_log_sync", &Engine::TEST_FailLogSync, pybind11::arg("engine"), pybind11::arg("fail"),
        "While `fail` is set, every fdatasync of the write-ahead log fails with EIO.");
  m.def("damage_filter", &Engine::TEST_DamageFilter, pybind11::arg("engine"),
        "Clear a set bit of the newest run's in-memory filter (or change a key hash); "
        "False if no run has one.");
  m.def("log_capacities", &structure::LogCapacities, pybind11::arg("capacities"),
        pybind11::arg("omega"),
        "L2SM's log capacities (structure.h LogCapacities): lambda^i N_i for Levels 1..L-1 "
        "and 0 for Level L, with sum = omega * sum(capacities).");
}

}  // namespace wacky
