// timed_mix.cc — see timed_mix.h.
#include "timed_mix.h"

#include <chrono>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.h"
#include "scan_iterator.h"

namespace wacky {

namespace {
uint64_t BlocksRead(const Engine& engine) {
  const IOStats s = engine.Stats();
  return s.point_read.blocks_read + s.range_read.blocks_read;
}
}  // namespace

void RunMix(Engine* engine, const uint8_t* kinds, const uint64_t* keys, size_t n,
            const uint8_t* value, uint64_t range_span, int64_t* nanos, uint32_t* blocks,
            uint64_t* results) {
  for (size_t i = 0; i < n; ++i) {
    if (kinds[i] > kMixScan) {
      throw std::invalid_argument("run_mix: operation " + std::to_string(i) + " has kind " +
                                  std::to_string(kinds[i]) +
                                  "; kinds are 0 (put), 1 (get), 2 (scan)");
    }
  }
  std::vector<uint8_t> got(engine->options().value_bytes());
  std::vector<uint64_t> scan_keys;
  std::vector<uint8_t> scan_values;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t before = BlocksRead(*engine);
    uint64_t result = 0;
    const auto start = std::chrono::steady_clock::now();
    switch (kinds[i]) {
      case kMixPut:
        engine->Put(keys[i], value);
        break;
      case kMixGet:
        result = engine->Get(keys[i], got.data()) ? 1 : 0;
        break;
      default: {
        const uint64_t hi = keys[i] > kMax - range_span ? kMax : keys[i] + range_span;
        std::unique_ptr<ScanIterator> it = engine->Scan(keys[i], hi);
        size_t batch;
        while ((batch = it->NextBatch(64, &scan_keys, &scan_values)) != 0) {
          result += batch;
          scan_keys.clear();
          scan_values.clear();
        }
      }
    }
    nanos[i] = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - start).count();
    blocks[i] = static_cast<uint32_t>(BlocksRead(*engine) - before);
    results[i] = result;
  }
}

}  // namespace wacky
