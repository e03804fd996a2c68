// hash_index_test.cc — every indexed key is found at its (run, block); false matches
// stay near the rate the signature width promises.
#include "hash_index.h"

#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "hash.h"
#include "testharness.h"

namespace wacky {
namespace {

using Candidates = std::vector<std::pair<uint32_t, uint32_t>>;

std::vector<uint64_t> HashesOf(const std::vector<uint64_t>& keys) {
  std::vector<uint64_t> h;
  for (uint64_t k : keys) h.push_back(Hash64(k));
  return h;
}

TEST(HashIndex, SignatureBitsFollowTheFalseMatchTarget) {
  CHECK_EQ(HashIndex::SignatureBits(0.0), 32);
  CHECK_EQ(HashIndex::SignatureBits(-1.0), 32);
  CHECK_EQ(HashIndex::SignatureBits(std::nan("")), 32);
  CHECK_EQ(HashIndex::SignatureBits(100.0), 1);  // never below one bit
  CHECK_EQ(HashIndex::SignatureBits(1e-30), 32);  // never above 32
  int prev = 1;
  for (double fp = 1.0; fp > 1e-9; fp /= 3) {
    const int bits = HashIndex::SignatureBits(fp);
    CHECK_GE(bits, prev);  // smaller targets never get fewer bits
    // ~2.5 slots probed per miss, each matching with probability 2^-bits.
    CHECK_LE(2.5 * std::ldexp(1.0, -bits), fp * (1 + 1e-12));
    if (bits > 1 && bits < 32) CHECK_GT(2.5 * std::ldexp(1.0, -(bits - 1)), fp);  // minimal
    prev = bits;
  }
}

TEST(HashIndex, EmptyIndexFindsNothing) {
  const HashIndex idx({}, 4, 8);
  Candidates c;
  for (uint64_t k = 0; k < 100; ++k) idx.Lookup(Hash64(k), &c);
  CHECK(c.empty());
}

TEST(HashIndex, IndexedKeysAreFoundAtTheirBlock) {
  const uint64_t B = 5;  // entries per block
  std::mt19937_64 rng(1);
  std::vector<std::vector<uint64_t>> runs(3);
  std::set<uint64_t> used;
  for (auto& r : runs)
    for (int i = 0; i < 2000; ++i) {
      uint64_t k;
      do k = rng(); while (!used.insert(k).second);
      r.push_back(k);
    }
  std::vector<std::vector<uint64_t>> hashes;
  for (const auto& r : runs) hashes.push_back(HashesOf(r));
  // Run positions need not be contiguous: the level may interleave filtered runs.
  const std::vector<HashIndex::Source> sources = {
      {0, &hashes[0]}, {2, &hashes[1]}, {5, &hashes[2]}};
  const HashIndex idx(sources, B, 32);
  CHECK_EQ(idx.sig_bits(), 32);
  for (size_t s = 0; s < sources.size(); ++s) {
    for (size_t i = 0; i < runs[s].size(); ++i) {
      Candidates c;
      idx.Lookup(Hash64(runs[s][i]), &c);
      const std::pair<uint32_t, uint32_t> want{sources[s].run, static_cast<uint32_t>(i / B)};
      bool found = false;
      for (const auto& x : c) found = found || x == want;
      CHECK(found);
    }
  }
}

// With s signature bits an absent key matches each occupied slot it probes with
// probability 2^-s. At this load (20000 keys in 65536 slots, 0.31) a miss probes about
// 0.54 occupied slots (Knuth), so the rate must be near 0.54 2^-s: inside
// [0.3, 2.5] 2^-s, the upper end being the load-1/2 bound SignatureBits() assumes.
TEST(HashIndex, FalseMatchRateFollowsSignatureBits) {
  std::mt19937_64 rng(99);
  std::vector<uint64_t> keys(20000);
  for (auto& k : keys) k = rng() | 1;  // indexed keys are odd
  const auto hashes = HashesOf(keys);
  for (int bits : {4, 6, 8}) {
    const HashIndex idx({{0, &hashes}}, 32, bits);
    size_t false_matches = 0;
    const int probes = 200000;
    for (int i = 0; i < probes; ++i) {
      Candidates c;
      idx.Lookup(Hash64(rng() & ~1ULL), &c);  // absent: even
      false_matches += c.size();
    }
    const double rate = static_cast<double>(false_matches) / probes;
    const double p = std::ldexp(1.0, -bits);
    CHECK_LE(rate, 2.5 * p);
    CHECK_GE(rate, 0.3 * p);
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
