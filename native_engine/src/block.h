// block.h — layout of a run's data blocks.
//
// Contract: a data block is block_bytes long and holds B = block_bytes / entry_bytes
// fixed-size entries, packed from offset 0 in ascending key order; an entry is the
// 8-byte little-endian key followed by the value. Only the last block of a run may
// hold fewer than B entries; unused bytes are zero. The entry count of every block
// follows from the run's total entry count, so blocks carry no header, and B matches
// the paper's block size (4096 / 128 = 32 entries). Tombstones occupy an entry slot
// (zero value); which keys are tombstones is recorded in the run's tombstone section
// (see run.h), not in the block.
#ifndef WACKY_NATIVE_ENGINE_BLOCK_H_
#define WACKY_NATIVE_ENGINE_BLOCK_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace wacky {

inline uint64_t DecodeKey(const uint8_t* p) {
  uint64_t k;
  std::memcpy(&k, p, 8);  // the engine targets little-endian hosts (x86-64, aarch64)
  return k;
}

inline void EncodeKey(uint8_t* p, uint64_t key) { std::memcpy(p, &key, 8); }

// Index of key among the first `count` entries of a block, or -1.
int FindInBlock(const uint8_t* block, size_t count, size_t entry_bytes, uint64_t key);

// Index of the first entry with key >= lo among `count` entries (count if none).
size_t LowerBoundInBlock(const uint8_t* block, size_t count, size_t entry_bytes, uint64_t lo);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_BLOCK_H_
