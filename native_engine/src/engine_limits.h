// engine_limits.h — the largest trees the engine builds.
//
// Contract: a design whose structure needs more than kMaxRunsPerLevel runs in a level,
// or more than kMaxLevels levels, is refused with std::invalid_argument naming the knob
// and the limit. The model keeps the same constants (cost_models/limits.py); a test
// checks that the two copies agree.
#ifndef WACKY_NATIVE_ENGINE_ENGINE_LIMITS_H_
#define WACKY_NATIVE_ENGINE_ENGINE_LIMITS_H_

#include <cstdint>

namespace wacky {

constexpr uint64_t kMaxRunsPerLevel = 1000000;
constexpr int kMaxLevels = 64;

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENGINE_LIMITS_H_
