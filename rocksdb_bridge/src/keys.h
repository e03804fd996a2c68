// The bridge's keys: unsigned 64-bit integers stored as 8 big-endian bytes, so RocksDB's
// bytewise order is numeric order (database.h, read_only.h).
#ifndef WACKY_ROCKSDB_BRIDGE_KEYS_H_
#define WACKY_ROCKSDB_BRIDGE_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace wacky_rocksdb {

inline std::string EncodeKey(uint64_t key) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(key & 0xff);
    key >>= 8;
  }
  return out;
}

// The first 8 bytes of `key`, big-endian (a shorter key as its bytes' value).
inline uint64_t DecodeKey(const std::string& key) {
  uint64_t v = 0;
  for (size_t i = 0; i < key.size() && i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(key[i]);
  return v;
}

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_KEYS_H_
