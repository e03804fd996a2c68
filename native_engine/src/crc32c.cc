// crc32c.cc — see crc32c.h.
#include "crc32c.h"

#include <array>
#include <cstring>

namespace wacky {
namespace crc32c {

namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reflected Castagnoli polynomial

std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}

uint32_t ExtendTable(uint32_t crc, const uint8_t* p, size_t n) {
  static const std::array<uint32_t, 256> table = MakeTable();
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) uint32_t ExtendHardware(uint32_t crc, const uint8_t* p,
                                                          size_t n) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // unaligned-safe
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

bool HasHardware() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#else
uint32_t ExtendHardware(uint32_t crc, const uint8_t* p, size_t n) {
  return ExtendTable(crc, p, n);
}
bool HasHardware() { return false; }
#endif

}  // namespace

uint32_t Extend(uint32_t crc, const uint8_t* data, size_t n) {
  const uint32_t c = ~crc;
  return ~(HasHardware() ? ExtendHardware(c, data, n) : ExtendTable(c, data, n));
}

uint32_t ExtendPortable(uint32_t crc, const uint8_t* data, size_t n) {
  return ~ExtendTable(~crc, data, n);
}

}  // namespace crc32c
}  // namespace wacky
