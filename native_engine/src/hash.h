// hash.h — the engine's 64-bit key hash.
//
// Contract: Hash64(key) is a fixed, well-mixed (MurmurHash3 fmix64 finalizer over a
// seeded key) function of the key alone, stable across runs and platforms, so
// filters and hash indexes can be rebuilt from stored keys after a reopen.
#ifndef WACKY_NATIVE_ENGINE_HASH_H_
#define WACKY_NATIVE_ENGINE_HASH_H_

#include <cstdint>

namespace wacky {

inline uint64_t Mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

inline uint64_t Hash64(uint64_t key) { return Mix64(key + 0x9e3779b97f4a7c15ULL); }

// Maps a 64-bit hash uniformly onto [0, n) (Lemire's multiply-shift reduction).
inline uint64_t FastRange64(uint64_t h, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(h) * n) >> 64);
}

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_HASH_H_
