// hash_index.cc — see hash_index.h.
#include "hash_index.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wacky {

int HashIndex::SignatureBits(double fp_per_probe) {
  // An unsuccessful linear-probing search at load 1/2 inspects about 2.5 slots.
  if (!(fp_per_probe > 0.0)) return 32;
  const double bits = std::ceil(std::log2(2.5 / fp_per_probe));
  return static_cast<int>(std::min(32.0, std::max(1.0, bits)));
}

uint32_t HashIndex::Signature(uint64_t h) const {
  const uint64_t mask = sig_bits_ >= 32 ? 0xffffffffULL : ((1ULL << sig_bits_) - 1);
  return static_cast<uint32_t>(h & mask);  // low bits; the bucket uses the high bits
}

HashIndex::HashIndex(const std::vector<Source>& sources, uint64_t entries_per_block,
                     int sig_bits)
    : sig_bits_(sig_bits) {
  uint64_t entries = 0;
  for (const auto& s : sources) entries += s.hashes->size();
  log2_slots_ = 4;
  while ((1ULL << log2_slots_) < 2 * entries) ++log2_slots_;
  if (log2_slots_ > 40) throw std::length_error("hash index too large");
  slots_.assign(1ULL << log2_slots_, Slot{0, 0, 0});
  const uint64_t mask = (1ULL << log2_slots_) - 1;
  for (const auto& s : sources) {
    const auto& hs = *s.hashes;
    for (size_t i = 0; i < hs.size(); ++i) {
      uint64_t pos = hs[i] >> (64 - log2_slots_);
      while (slots_[pos].run != 0) pos = (pos + 1) & mask;
      slots_[pos] = Slot{Signature(hs[i]), s.run + 1, static_cast<uint32_t>(i / entries_per_block)};
    }
  }
}

void HashIndex::Lookup(uint64_t h, std::vector<std::pair<uint32_t, uint32_t>>* out) const {
  const uint64_t mask = (1ULL << log2_slots_) - 1;
  const uint32_t sig = Signature(h);
  uint64_t pos = h >> (64 - log2_slots_);
  while (slots_[pos].run != 0) {
    if (slots_[pos].sig == sig) out->emplace_back(slots_[pos].run - 1, slots_[pos].block);
    pos = (pos + 1) & mask;
  }
}

}  // namespace wacky
