// crc32c.h — CRC-32C (Castagnoli), the checksum of WAL records, run blocks and the MANIFEST.
//
// Contract: Value(data, n) is the standard CRC-32C of n bytes (init and final XOR
// 0xFFFFFFFF; Value("123456789") == 0xE3069283). Extend(crc, data, n) continues a
// checksum so that Extend(Value(a), b) == Value(a + b). On x86-64 CPUs with SSE4.2 the
// crc32 instruction is used (about 20x faster than the table); elsewhere a byte table.
// Mask/Unmask follow LevelDB: a CRC stored inside data that is itself checksummed is
// masked, so a CRC of a string containing a CRC does not degenerate.
#ifndef WACKY_NATIVE_ENGINE_CRC32C_H_
#define WACKY_NATIVE_ENGINE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace wacky {
namespace crc32c {

uint32_t Extend(uint32_t crc, const uint8_t* data, size_t n);
// The byte-table implementation, whatever the CPU (tests compare it with Extend).
uint32_t ExtendPortable(uint32_t crc, const uint8_t* data, size_t n);
inline uint32_t Value(const uint8_t* data, size_t n) { return Extend(0, data, n); }

constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_CRC32C_H_
