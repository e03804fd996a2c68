// hotness_test.cc — update counts for L2SM: exact counts, the HotMap against them, its
// rotation, and the audit that keeps both.
#include "hotness.h"

#include <map>
#include <random>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

Options L2sm(int hotness, int layers, bool audit = false) {
  Options o;
  o.granularity = kFileGranularity;
  o.log_ratio = 0.1;
  o.hotness = hotness;
  o.hotmap_layers = layers;
  o.hotness_audit = audit;
  o.Validate();
  return o;
}

// A buffer holding `keys` (each written three times: one flush still counts it once).
Buffer Flushed(const std::vector<uint64_t>& keys) {
  Buffer b(keys.size() + 1, 8);
  for (int pass = 0; pass < 3; ++pass)
    for (uint64_t k : keys) b.Put(k, nullptr, false);
  return b;
}

TEST(KeyHotness, IsTheSumOfPowersOfTwo) {
  CHECK_EQ(KeyHotness(0), 0.0);
  CHECK_EQ(KeyHotness(1), 2.0);
  CHECK_EQ(KeyHotness(2), 6.0);
  CHECK_EQ(KeyHotness(5), 62.0);
  CHECK_EQ(KeyHotness(16), 131070.0);
}

TEST(Hotness, ExactCountsOncePerFlushUpToM) {
  HotnessTracker t(L2sm(kExactHotness, 3), 100);
  CHECK(t.keeps_exact());
  CHECK(!t.audited());
  for (int flush = 0; flush < 5; ++flush) {
    std::vector<uint64_t> keys = {1, 2};
    if (flush < 2) keys.push_back(3);
    t.RecordFlush(Flushed(keys), 100);
  }
  CHECK_EQ(t.Count(1), 3);  // 5 flushes, capped at M = 3
  CHECK_EQ(t.Count(3), 2);
  CHECK_EQ(t.Count(4), 0);
  CHECK_EQ(t.layers(), 3);
}

// With layers large enough never to rotate, the HotMap never counts a key below its exact
// count (a Bloom filter has no false negatives), and at 10 bits per key it agrees with the
// exact counts for almost every key.
TEST(Hotness, HotMapAgreesWithExactCountsOnASmallWorkload) {
  const int M = 5;
  HotnessTracker hot(L2sm(kHotMap, M, /*audit=*/true), 50000);
  CHECK(hot.audited());
  std::mt19937_64 rng(7);
  std::map<uint64_t, int> exact;
  for (int flush = 0; flush < 60; ++flush) {
    std::vector<uint64_t> keys;
    std::map<uint64_t, bool> seen;
    for (int i = 0; i < 200; ++i) {
      // Skewed: key k with probability about 1/k, so counts range from 1 to well past M.
      const uint64_t k = 1 + static_cast<uint64_t>(2000.0 / (1.0 + static_cast<double>(rng() % 2000)));
      if (!seen[k]) keys.push_back(k);
      seen[k] = true;
    }
    for (uint64_t k : keys) ++exact[k];
    hot.RecordFlush(Flushed(keys), 50000);
  }
  size_t agree = 0, hotter = 0;
  for (const auto& [k, c] : exact) {
    const int want = std::min(c, M);
    CHECK_EQ(hot.ExactCount(k), want);
    CHECK(hot.Count(k) >= want);
    agree += hot.Count(k) == want ? 1 : 0;
    hotter += want == M ? 1 : 0;
  }
  CHECK_GT(hotter, 5u);  // the workload reaches the cap
  CHECK(agree * 100 >= exact.size() * 97);
  for (uint64_t k = 1000000; k < 1001000; ++k) CHECK(hot.Count(k) <= 1);  // never written
}

// The paper's rotation (Fig. 5(b)): a full top layer is cleared and becomes the bottom one,
// so keys updated once are forgotten and the hot ones keep a count.
TEST(Hotness, AFullTopLayerRotatesToTheBottom) {
  HotMap map(3, 100);
  CHECK_EQ(map.capacity(0), 100u);
  for (int r = 0; r < 3; ++r) map.Record(7, 100);  // key 7: three updates, one per layer
  CHECK_EQ(map.Count(7), 3);
  CHECK_EQ(map.insertions(0), 1u);
  uint64_t k = 1000;
  while (map.rotations() == 0) {
    CHECK_LT(map.insertions(0), 100u);
    map.Record(k++, 400);  // the data has grown to 400 unique keys
  }
  CHECK_GE(k - 1000, 99u);  // the top layer took 100 insertions (a false positive goes below)
  CHECK_EQ(map.Count(7), 2);  // the layers below moved up
  size_t forgotten = 0;
  for (uint64_t j = 1000; j < k; ++j) forgotten += map.Count(j) == 0 ? 1 : 0;
  CHECK_GT(forgotten * 10, (k - 1000) * 9);  // updated once: forgotten
  CHECK_EQ(map.capacity(2), 400u);  // the new bottom, sized for the data that outgrew it
  CHECK_EQ(map.insertions(2), 0u);
  CHECK_EQ(map.capacity(0), 100u);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
