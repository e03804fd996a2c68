// block.cc — see block.h.
#include "block.h"

namespace wacky {

size_t LowerBoundInBlock(const uint8_t* block, size_t count, size_t entry_bytes, uint64_t lo) {
  size_t a = 0, b = count;
  while (a < b) {
    const size_t m = (a + b) / 2;
    if (DecodeKey(block + m * entry_bytes) < lo)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

int FindInBlock(const uint8_t* block, size_t count, size_t entry_bytes, uint64_t key) {
  const size_t i = LowerBoundInBlock(block, count, entry_bytes, key);
  if (i < count && DecodeKey(block + i * entry_bytes) == key) return static_cast<int>(i);
  return -1;
}

}  // namespace wacky
