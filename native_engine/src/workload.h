// workload.h — a seeded, deterministic workload driver running inside C++.
//
// Contract: RunWorkload(engine, spec) runs two phases on `engine` and measures them.
//   load: spec.n_load unique keys, uniformly random (key_i = Mix64(i ^ seed_mix), a
//         bijection, so keys never repeat) or sequential (key_i = 2 i, so odd keys in
//         range are guaranteed absent), inserted with PutMany in batches;
//   mix:  spec.n_ops operations drawn with probabilities proportional to the fractions:
//         existing-key reads (uniform over keys present, or — target_level_L — over a
//         sample of keys stored at Level L, the model's worst case, Eq 15), zero-result
//         reads (keys from an index range never inserted), writes (new unique keys)
//         and range reads covering about range_entries entries.
// Values are derived from the key, so every read is verified; misses on existing keys
// and hits on absent keys are reported (they must be 0). Per phase it reports the
// counter deltas, wall time, and per operation type the count, blocks/bytes read and
// written during those operations, and their time.
#ifndef WACKY_NATIVE_ENGINE_WORKLOAD_H_
#define WACKY_NATIVE_ENGINE_WORKLOAD_H_

#include <cstdint>
#include <map>
#include <string>

#include "engine.h"
#include "io_stats.h"

namespace wacky {

struct WorkloadSpec {
  uint64_t n_load = 0;
  bool sequential = false;
  uint64_t n_ops = 0;
  double frac_get = 0, frac_zero = 0, frac_put = 0, frac_range = 0;
  bool target_level_L = false;
  uint64_t range_entries = 16;
  uint64_t seed = 0;
};

struct OpTotals {
  uint64_t count = 0;
  IOCounter io;
  double seconds = 0.0;
};

struct PhaseResult {
  IOStats stats;
  double seconds = 0.0;
  std::map<std::string, OpTotals> ops;
};

struct WorkloadResult {
  PhaseResult load;
  PhaseResult mix;
  uint64_t get_misses = 0;     // existing-key reads that found nothing (must be 0)
  uint64_t zero_hits = 0;      // zero-result reads that found something (must be 0)
  uint64_t wrong_values = 0;   // reads that returned a value not written (must be 0)
  uint64_t range_entries_returned = 0;
  uint64_t level_L_sample = 0; // keys sampled at Level L (target_level_L)
};

WorkloadResult RunWorkload(Engine* engine, const WorkloadSpec& spec);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_WORKLOAD_H_
