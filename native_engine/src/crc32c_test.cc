// crc32c_test.cc — CRC-32C against published check values, and Extend/Mask identities.
#include "crc32c.h"

#include <cstring>
#include <string>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

uint32_t Of(const std::string& s) {
  return crc32c::Value(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(Crc32c, PublishedCheckValues) {
  CHECK_EQ(Of("123456789"), 0xE3069283u);  // the catalogue's check value
  CHECK_EQ(Of(""), 0u);
  // RFC 3720 (iSCSI) B.4: 32 bytes of zeros, and 32 bytes of 0xFF.
  CHECK_EQ(Of(std::string(32, '\0')), 0x8A9136AAu);
  CHECK_EQ(Of(std::string(32, '\xff')), 0x62A8AB43u);
}

TEST(Crc32c, ExtendEqualsTheWholeAtEverySplit) {
  std::string s;
  for (int i = 0; i < 100; ++i) s.push_back(static_cast<char>(i * 37 + 11));
  const uint32_t whole = Of(s);
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    CHECK_EQ(crc32c::Extend(crc32c::Value(p, cut), p + cut, s.size() - cut), whole);
  }
}

// The SSE4.2 path (when the CPU has it) and the table agree at every length and alignment.
TEST(Crc32c, HardwareAndTableAgree) {
  std::vector<uint8_t> buf(600);
  uint32_t x = 12345;
  for (auto& b : buf) {
    x = x * 1103515245u + 12345u;
    b = static_cast<uint8_t>(x >> 16);
  }
  CHECK_EQ(crc32c::ExtendPortable(0, reinterpret_cast<const uint8_t*>("123456789"), 9),
           0xE3069283u);
  for (size_t start = 0; start < 9; ++start)
    for (size_t n = 0; n + start <= buf.size(); n += 7)
      CHECK_EQ(crc32c::Extend(0x1234u, buf.data() + start, n),
               crc32c::ExtendPortable(0x1234u, buf.data() + start, n));
}

TEST(Crc32c, MaskRoundTripsAndDiffers) {
  for (uint32_t v : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu}) {
    CHECK_EQ(crc32c::Unmask(crc32c::Mask(v)), v);
    CHECK(crc32c::Mask(v) != v);
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
