// engine_limits.h — the largest trees the engine builds.
//
// Contract: a design whose structure needs more than kMaxRunsPerLevel runs in a level,
// more than kMaxLevels levels, or a size ratio that overflows a double, is refused with
// DesignLimit (a std::invalid_argument, ValueError in Python) naming the knob and the
// limit. The model keeps the same constants (cost_models/limits.py); a test checks that
// the two copies agree.
//   Whether a design is physical depends on the data size (cost_models/limits.py), so
// the engine checks when the data grows: at the merge into Level L that would need the
// unphysical shape (merge_policy.h ApplyShape). Refusing such designs at open would
// refuse the LSM-bush family (T = 2, X = 2, K = 1 is fine until 2^33 buffers). The
// refused flush leaves the tree and the buffer as they were: reads go on, close() keeps
// the buffer in the write-ahead log, and reopening replays it without flushing.
// (The file is not called limits.h: the engine's source directory is on the include
// path, where that name would shadow the C library's <limits.h>.)
#ifndef WACKY_NATIVE_ENGINE_ENGINE_LIMITS_H_
#define WACKY_NATIVE_ENGINE_ENGINE_LIMITS_H_

#include <cstdint>
#include <stdexcept>

namespace wacky {

class DesignLimit : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

constexpr uint64_t kMaxRunsPerLevel = 1000000;
constexpr int kMaxLevels = 64;

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENGINE_LIMITS_H_
