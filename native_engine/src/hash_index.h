// hash_index.h — one hash table of key signatures per small level (App. F).
//
// Contract: built over the hash-indexed runs of one level, it maps each entry's key
// signature to (run, block). A slot holds a sig_bits-bit signature taken from the
// key's 64-bit hash, the run's position in the level and the block number (12 bytes,
// 96 bits per entry). Lookup(h) returns every (run, block) whose slot matches the
// signature along the probe sequence: the true location if the key is indexed, plus
// false matches at a rate of about (slots probed) * 2^-sig_bits. The table uses
// linear probing at a load factor of at most 1/2 and is immutable once built; the
// level rebuilds it whenever its set of runs changes.
#ifndef WACKY_NATIVE_ENGINE_HASH_INDEX_H_
#define WACKY_NATIVE_ENGINE_HASH_INDEX_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace wacky {

class HashIndex {
 public:
  struct Source {
    uint32_t run;                        // position of the run in its level
    const std::vector<uint64_t>* hashes;  // key hashes in entry order
  };
  // Signature bits giving about `fp_per_probe` expected false matches per lookup.
  static int SignatureBits(double fp_per_probe);

  HashIndex(const std::vector<Source>& sources, uint64_t entries_per_block, int sig_bits);

  // Appends (run, block) candidates for hash h.
  void Lookup(uint64_t h, std::vector<std::pair<uint32_t, uint32_t>>* out) const;

  int sig_bits() const { return sig_bits_; }

 private:
  struct Slot {
    uint32_t sig;
    uint32_t run;  // run position + 1; 0 = empty
    uint32_t block;
  };
  uint32_t Signature(uint64_t h) const;

  std::vector<Slot> slots_;
  int log2_slots_ = 0;
  int sig_bits_;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_HASH_INDEX_H_
