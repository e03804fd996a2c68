// hotness.cc — see hotness.h.
#include "hotness.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hash.h"

namespace wacky {

namespace {
// The HotMap's own hash: independent of Hash64, so a key's HotMap false positives are not
// correlated with its run filters' (which hash Hash64(key)).
uint64_t HotHash(uint64_t key) { return Mix64(key ^ 0x6a09e667f3bcc909ULL); }
}  // namespace

HotMap::HotMap(int layers, uint64_t expected_keys) {
  if (layers < 1) throw std::invalid_argument("HotMap needs at least one layer; got " +
                                              std::to_string(layers));
  const uint64_t n = std::max<uint64_t>(1, expected_keys);
  layers_.resize(static_cast<size_t>(layers));
  for (Filter& f : layers_) f = Filter{BloomFilter(n, kBitsPerKey), n, 0};
}

void HotMap::Record(uint64_t key, uint64_t expected_keys) {
  const uint64_t h = HotHash(key);
  const int m = static_cast<int>(layers_.size());
  for (int d = 0; d < m; ++d) {
    Filter& f = Layer(d);
    if (f.bits.MayContainHash(h)) continue;
    f.bits.AddHash(h);
    ++f.insertions;
    break;
  }  // admitted by every layer: counted M times already, nothing to add
  Filter& top = Layer(0);
  if (top.insertions < top.capacity) return;
  // The top layer is full: its false-positive rate would climb. It is retired, cleared and
  // becomes the bottom layer (the paper's Fig. 5(b)), sized like the bottom one, or larger if
  // the data has grown (a full top layer means the working set did not fit).
  const uint64_t n = std::max<uint64_t>(Layer(m - 1).capacity, expected_keys);
  top = Filter{BloomFilter(n, kBitsPerKey), n, 0};
  top_ = (top_ + 1) % layers_.size();
  ++rotations_;
}

int HotMap::Count(uint64_t key) const {
  const uint64_t h = HotHash(key);
  const int m = static_cast<int>(layers_.size());
  int d = 0;
  while (d < m && Layer(d).bits.MayContainHash(h)) ++d;
  return d;
}

HotnessTracker::HotnessTracker(const Options& o, uint64_t expected_keys)
    : layers_(o.hotmap_layers), keep_exact_(o.hotness == kExactHotness || o.hotness_audit) {
  if (o.hotness == kHotMap) hotmap_ = std::make_unique<HotMap>(o.hotmap_layers, expected_keys);
}

void HotnessTracker::RecordFlush(const Buffer& buffer, uint64_t expected_keys) {
  // The buffer holds one entry per key, in slots 0..size-1: each key is recorded once.
  for (uint32_t slot = 0; slot < buffer.size(); ++slot) {
    const uint64_t k = buffer.key(slot);
    if (hotmap_) hotmap_->Record(k, expected_keys);
    if (keep_exact_) {
      uint32_t& c = exact_[k];
      if (c < UINT32_MAX) ++c;
    }
  }
}

int HotnessTracker::Count(uint64_t key) const {
  if (hotmap_) return hotmap_->Count(key);
  return ExactCount(key);
}

int HotnessTracker::ExactCount(uint64_t key) const {
  const auto it = exact_.find(key);
  if (it == exact_.end()) return 0;
  return static_cast<int>(std::min<uint32_t>(it->second, static_cast<uint32_t>(layers_)));
}

}  // namespace wacky
