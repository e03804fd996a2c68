// bloom_filter.h — a standard Bloom filter over 64-bit key hashes.
//
// Contract: a filter built for n keys with b bits per key has m = max(64, ceil(n b))
// bits and k = max(1, round(b ln 2)) probes; probe j sets bit FastRange(h1 + j h2, m)
// (double hashing, h1 = Hash64(key), h2 an independent odd remix of it). It never
// returns a false negative; its false-positive rate is (1 - e^(-k n/m))^k up to the
// small correlation of double hashing (tests/test_engine_bloom.py measures it). An
// empty (default) filter has no bits and answers "maybe" for every key. Pinned (the default),
// a filter lives in memory only and is rebuilt at open from the checksummed keys of its run.
// [paged metadata] With Options::paged_metadata the run file also carries the bit array, as
// ceil(m / 64) little-endian 64-bit words (run.h, the metadata tail), and lookups probe those
// bytes as read through the block cache (MayContainHashIn), the same probes; the in-memory
// copy is then Release()d, keeping only its shape and counts.
#ifndef WACKY_NATIVE_ENGINE_BLOOM_FILTER_H_
#define WACKY_NATIVE_ENGINE_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

namespace wacky {

class BloomFilter {
 public:
  BloomFilter() = default;
  BloomFilter(uint64_t num_keys, double bits_per_key);

  void AddHash(uint64_t h);
  bool MayContainHash(uint64_t h) const;

  bool empty() const { return num_bits_ == 0; }
  // [paged metadata] The bit array's bytes as stored: ceil(m / 64) little-endian words
  // (released or not).
  uint64_t byte_size() const { return (num_bits_ + 63) / 64 * 8; }
  void EncodeTo(uint8_t* out) const;  // byte_size() bytes
  // The answer MayContainHash gives, from the stored bytes of a filter of num_bits bits
  // and `probes` probes (num_bits 0: "maybe").
  static bool MayContainHashIn(const uint8_t* words, uint64_t num_bits, int probes, uint64_t h);
  // Frees the bit array, keeping num_bits, num_probes, BitsSet and Checksum as they were;
  // afterwards MayContainHash throws std::logic_error (the run probes its stored bytes).
  void Release();
  bool released() const { return released_; }
  uint64_t num_bits() const { return num_bits_; }
  int num_probes() const { return probes_; }
  // Theoretical false-positive rate for `n` inserted keys.
  double TheoreticalFpr(uint64_t n) const;
  // Bits currently set, and the FPR implied by this filter's actual fill: (set/m)^k.
  uint64_t BitsSet() const;
  double FprGivenFill() const;
  // CRC-32C of the bit array (Run keeps it to detect damage to the filter in memory).
  uint32_t Checksum() const;
  // Test hook: clears the first set bit (so some added key is no longer admitted);
  // false if no bit is set.
  bool TEST_ClearASetBit();

 private:
  std::vector<uint64_t> words_;
  uint64_t num_bits_ = 0;
  int probes_ = 0;
  bool released_ = false;  // [paged metadata] words_ freed; the counts below kept
  uint64_t released_bits_set_ = 0;
  uint32_t released_crc_ = 0;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_BLOOM_FILTER_H_
