// bindings_testing.h — the pybind11 submodule native_engine._engine.testing.
//
// Contract: BindTesting(m) adds to `m` one function per Engine::TEST_* hook, taking
// the engine (the _Engine object) as its first argument, and log_capacities (structure.h
// LogCapacities), which tests compare with the Python model's copy. They exist for tests
// (native_engine/testing.py wraps them) and are kept out of the public Engine class.
#ifndef WACKY_NATIVE_ENGINE_BINDINGS_TESTING_H_
#define WACKY_NATIVE_ENGINE_BINDINGS_TESTING_H_

#include <pybind11/pybind11.h>

namespace wacky {

void BindTesting(pybind11::module_ m);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_BINDINGS_TESTING_H_
