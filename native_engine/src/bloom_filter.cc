// bloom_filter.cc — see bloom_filter.h.
#include "bloom_filter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "crc32c.h"
#include "hash.h"
#include "structure.h"

namespace wacky {

namespace {
inline uint64_t SecondHash(uint64_t h) { return Mix64((h << 32) | (h >> 32)) | 1; }
}  // namespace

BloomFilter::BloomFilter(uint64_t num_keys, double bits_per_key) {
  if (!(bits_per_key > 0.0)) return;
  num_bits_ = std::max<uint64_t>(
      64, static_cast<uint64_t>(std::ceil(static_cast<double>(num_keys) * bits_per_key)));
  probes_ = structure::BloomProbes(bits_per_key);
  words_.assign((num_bits_ + 63) / 64, 0);
}

void BloomFilter::AddHash(uint64_t h) {
  const uint64_t h2 = SecondHash(h);
  for (int j = 0; j < probes_; ++j) {
    const uint64_t bit = FastRange64(h, num_bits_);
    words_[bit >> 6] |= 1ULL << (bit & 63);
    h += h2;
  }
}

bool BloomFilter::MayContainHash(uint64_t h) const {
  if (num_bits_ == 0) return true;
  if (released_)
    throw std::logic_error("BloomFilter: the bit array was released (paged metadata): probe "
                           "the filter block's bytes instead");
  const uint64_t h2 = SecondHash(h);
  for (int j = 0; j < probes_; ++j) {
    const uint64_t bit = FastRange64(h, num_bits_);
    if ((words_[bit >> 6] & (1ULL << (bit & 63))) == 0) return false;
    h += h2;
  }
  return true;
}

bool BloomFilter::MayContainHashIn(const uint8_t* words, uint64_t num_bits, int probes,
                                   uint64_t h) {
  if (num_bits == 0) return true;
  const uint64_t h2 = SecondHash(h);
  for (int j = 0; j < probes; ++j) {
    const uint64_t bit = FastRange64(h, num_bits);
    if (((words[bit >> 3] >> (bit & 7)) & 1) == 0) return false;  // little-endian words
    h += h2;
  }
  return true;
}

void BloomFilter::EncodeTo(uint8_t* out) const {
  for (size_t w = 0; w < words_.size(); ++w)
    for (int k = 0; k < 8; ++k) out[w * 8 + k] = static_cast<uint8_t>(words_[w] >> (8 * k));
}

void BloomFilter::Release() {
  if (released_) return;
  released_bits_set_ = BitsSet();
  released_crc_ = Checksum();
  released_ = true;
  std::vector<uint64_t>().swap(words_);
}

double BloomFilter::TheoreticalFpr(uint64_t n) const {
  if (num_bits_ == 0) return 1.0;
  const double k = probes_;
  return std::pow(-std::expm1(-k * static_cast<double>(n) / static_cast<double>(num_bits_)), k);
}

uint64_t BloomFilter::BitsSet() const {
  if (released_) return released_bits_set_;
  uint64_t n = 0;
  for (uint64_t w : words_) n += static_cast<uint64_t>(__builtin_popcountll(w));
  return n;
}

double BloomFilter::FprGivenFill() const {
  if (num_bits_ == 0) return 1.0;
  return std::pow(static_cast<double>(BitsSet()) / static_cast<double>(num_bits_), probes_);
}

uint32_t BloomFilter::Checksum() const {
  if (released_) return released_crc_;
  return crc32c::Value(reinterpret_cast<const uint8_t*>(words_.data()), words_.size() * 8);
}

bool BloomFilter::TEST_ClearASetBit() {
  for (uint64_t& w : words_) {
    if (w != 0) {
      w &= w - 1;  // clears the lowest set bit
      return true;
    }
  }
  return false;
}

}  // namespace wacky
