// hotness.h — how often keys are updated, for L2SM's choice of files (sst_log.h).
//
// Contract (l2sm paper III.C; only with Options::log_ratio > 0):
//   * A HotnessTracker records, at every flush the engine commits, each key of the buffer
//     once: several writes to a key within one buffer count once. (The paper updates its
//     HotMap when L0 is compacted into L1; a flush is that point here.) Count(key) is then
//     the number of recorded flushes that held the key, capped at M = Options::hotmap_layers.
//       - hotness 'exact': an in-memory map key -> count; Count is exact (up to M).
//       - hotness 'hotmap': the paper's HotMap, M layered Bloom filters (HotMap below);
//         Count may be too high (false positives) and forgets old updates as layers rotate.
//       - hotness_audit (with 'hotmap'): the exact map is kept beside it, and ExactCount()
//         answers from it, so the picks the HotMap leads to can be checked.
//   * KeyHotness(c) = sum_{j=1}^{c} 2^j = 2^(c+1) - 2, the weight of a key counted c times
//     (c <= M): a file's hotness is the sum over its keys, computed as the file is written
//     (file_compaction.h), so it costs no I/O.
//   * Memory: the exact map takes a few tens of bytes per distinct key recorded; the HotMap
//     M x 10 bits per expected key (the engine's n_est, at least one buffer).
//   * In memory only: a reopen starts from zero counts, and recovered files have hotness 0,
//     as the paper's HotMap is lost on restart too. Hotness only steers which file a
//     compaction picks; it never changes what a read returns.
#ifndef WACKY_NATIVE_ENGINE_HOTNESS_H_
#define WACKY_NATIVE_ENGINE_HOTNESS_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "bloom_filter.h"
#include "buffer.h"
#include "options.h"

namespace wacky {

// The paper's HotMap (Fig. 4, and Fig. 5(b)'s rotation): `layers` Bloom filters at 10 bits
// per key, the top one first. Record(key) sets the key in the first layer, from the top, that
// does not already admit it; Count(key) is the number of consecutive layers, from the top,
// that admit it. When the top layer has taken as many insertions as the unique keys it was
// sized for, it is cleared and rotated to the bottom (the second layer becomes the top), sized
// like the bottom layer, or for `expected_keys` unique keys if the data has grown beyond that.
class HotMap {
 public:
  static constexpr double kBitsPerKey = 10.0;

  // Every layer sized for max(1, expected_keys) unique keys. layers >= 1.
  HotMap(int layers, uint64_t expected_keys);

  void Record(uint64_t key, uint64_t expected_keys);
  int Count(uint64_t key) const;
  uint64_t rotations() const { return rotations_; }
  // The unique keys the layer at depth d (0 = top) is sized for, and has taken.
  uint64_t capacity(int d) const { return Layer(d).capacity; }
  uint64_t insertions(int d) const { return Layer(d).insertions; }

 private:
  struct Filter {
    BloomFilter bits;
    uint64_t capacity = 0;
    uint64_t insertions = 0;
  };
  const Filter& Layer(int d) const { return layers_[(top_ + static_cast<size_t>(d)) % layers_.size()]; }
  Filter& Layer(int d) { return layers_[(top_ + static_cast<size_t>(d)) % layers_.size()]; }

  std::vector<Filter> layers_;  // a ring: layers_[top_] is the top layer
  size_t top_ = 0;
  uint64_t rotations_ = 0;
};

class HotnessTracker {
 public:
  // For options.hotness, hotmap_layers and hotness_audit; `expected_keys` sizes the HotMap.
  HotnessTracker(const Options& options, uint64_t expected_keys);

  // Records every key of `buffer` once (a committed flush). expected_keys: the unique keys
  // the data is expected to hold now (the engine's n_est, at least one buffer).
  void RecordFlush(const Buffer& buffer, uint64_t expected_keys);
  // Flushes recorded that held `key`, capped at layers().
  int Count(uint64_t key) const;
  // The same from exact counts; requires keeps_exact().
  int ExactCount(uint64_t key) const;
  bool keeps_exact() const { return keep_exact_; }
  bool audited() const { return hotmap_ != nullptr && keep_exact_; }
  int layers() const { return layers_; }

 private:
  const int layers_;
  const bool keep_exact_;
  std::unique_ptr<HotMap> hotmap_;               // hotness 'hotmap'
  std::unordered_map<uint64_t, uint32_t> exact_;  // hotness 'exact', or audited
};

// sum_{j=1}^{count} 2^j: the weight of a key counted `count` times.
inline double KeyHotness(int count) {
  return count <= 0 ? 0.0 : static_cast<double>((uint64_t{2} << count) - 2);
}

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_HOTNESS_H_
