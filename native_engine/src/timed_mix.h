// timed_mix.h — one client's mix of operations on an Engine, each timed (issue 34's
// throughput measurements).
//
// Contract: RunMix runs n operations in order, one at a time, on the calling thread, as one
// client issues them: kinds[i] (a MixOp) says which, keys[i] is its key (a scan's low end); a
// put writes `value` (options().value_bytes() bytes), a scan reads the keys in
// [keys[i], keys[i] + range_span] (saturating). Per operation it fills nanos[i], the wall
// time of the engine's call on the steady clock (a put includes the flush and merges it
// triggers: the engine runs them in the writer's thread); blocks[i], the run-file blocks the
// call read for reads (IOStats point_read and range_read; a put's merges are not counted
// here); results[i], 1 if a get found its key, a scan's entries. The counters are read
// outside the timed call. Every kind is checked before any operation runs: one that is not a
// MixOp throws std::invalid_argument naming its index, and nothing has run. The engine's own
// errors propagate as they do from Put, Get and Scan.
#ifndef WACKY_NATIVE_ENGINE_TIMED_MIX_H_
#define WACKY_NATIVE_ENGINE_TIMED_MIX_H_

#include <cstddef>
#include <cstdint>

namespace wacky {

class Engine;

enum MixOp : uint8_t { kMixPut = 0, kMixGet = 1, kMixScan = 2 };

void RunMix(Engine* engine, const uint8_t* kinds, const uint64_t* keys, size_t n,
            const uint8_t* value, uint64_t range_span, int64_t* nanos, uint32_t* blocks,
            uint64_t* results);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_TIMED_MIX_H_
