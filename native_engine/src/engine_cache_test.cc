// engine_cache_test.cc — the engine's block cache (options.cache_bytes): hits cost no block
// read and are counted at their level, merges invalidate the blocks of the runs they delete,
// scans and Verify neither use nor fill it, and it is not part of the design.
// (The cache on its own is tested in block_cache_test.cc.)
#include <cstring>
#include <string>
#include <vector>

#include "engine.h"
#include "engine_test_util.h"
#include "scan_iterator.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::Load;
using test::Sum;
using test::Value;

// The small design without a log, with a block cache of 1 MiB.
Options Small() {
  Options o = test::SmallOptions();
  o.wal = false;
  o.cache_bytes = 1 << 20;
  return o;
}

uint64_t At(const std::vector<uint64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

// The one run of the tree: (its id, the index of its level in the cache counters).
std::pair<uint64_t, size_t> OnlyRun(Engine* e) {
  std::pair<uint64_t, size_t> found{0, 0};
  int runs = 0;
  for (const LevelInfo& l : e->Levels())
    for (const RunInfo& r : l.runs) {
      found = {r.id, static_cast<size_t>(l.level)};
      ++runs;
    }
  CHECK_EQ(runs, 1);
  return found;
}

bool RunExists(Engine* e, uint64_t id) {
  for (const LevelInfo& l : e->Levels())
    for (const RunInfo& r : l.runs)
      if (r.id == id) return true;
  return false;
}

// Gets `key`, checks its value, and returns the stats after the get.
IOStats GetAndCheck(Engine* e, uint64_t key, uint64_t salt) {
  std::vector<uint8_t> out(e->options().value_bytes());
  CHECK(e->Get(key, out.data()));
  CHECK(out == Value(e->options(), key, salt));
  return e->Stats();
}

// A second get of a key reads no block and counts a hit at the level of its run; a merge
// that rewrites that run drops its cached blocks, so the next get reads the new run.
void CheckHitThenInvalidation(const Options& o) {
  test::TempDir dir;
  Engine e(dir.path() + "/db", o);
  Load(&e, nullptr, 0, 8, 0);
  e.Flush();
  const auto [run, level] = OnlyRun(&e);
  const IOStats s0 = e.Stats();
  CHECK_EQ(s0.cache_blocks, 0u);

  const IOStats s1 = GetAndCheck(&e, 3, 0);  // block 0 (keys 0..3): a miss, one block read
  CHECK_EQ(s1.point_read.blocks_read, s0.point_read.blocks_read + 1);
  CHECK_EQ(At(s1.cache_misses, level), At(s0.cache_misses, level) + 1);
  CHECK_EQ(Sum(s1.cache_hits), 0u);
  CHECK_EQ(s1.cache_blocks, 1u);

  const IOStats s2 = GetAndCheck(&e, 3, 0);  // the same block again: a hit, no read
  CHECK_EQ(s2.point_read.blocks_read, s1.point_read.blocks_read);
  CHECK_EQ(At(s2.cache_hits, level), 1u);
  CHECK_EQ(Sum(s2.cache_hits), 1u);
  CHECK_EQ(Sum(s2.cache_misses), Sum(s1.cache_misses));

  const IOStats s3 = GetAndCheck(&e, 1, 0);  // another key of block 0: a hit
  CHECK_EQ(s3.point_read.blocks_read, s1.point_read.blocks_read);
  CHECK_EQ(At(s3.cache_hits, level), 2u);
  const IOStats s4 = GetAndCheck(&e, 6, 0);  // block 1: a miss
  CHECK_EQ(s4.point_read.blocks_read, s3.point_read.blocks_read + 1);
  CHECK_EQ(s4.cache_blocks, 2u);
  CHECK_EQ(Sum(s4.cache_misses), s4.point_read.blocks_read);

  // New values for the same keys: the flush merges them with the run, which is deleted.
  Load(&e, nullptr, 0, 8, 1);
  e.Flush();
  CHECK(!RunExists(&e, run));
  const IOStats s5 = e.Stats();
  CHECK_EQ(s5.cache_invalidated_blocks, 2u);
  CHECK_EQ(s5.cache_blocks, 0u);
  const IOStats s6 = GetAndCheck(&e, 3, 1);  // the new run's block: a miss and a read
  CHECK_EQ(s6.point_read.blocks_read, s5.point_read.blocks_read + 1);
  CHECK_EQ(Sum(s6.cache_misses), Sum(s5.cache_misses) + 1);
  CHECK_EQ(Sum(s6.cache_hits), Sum(s5.cache_hits));
  const IOStats s7 = GetAndCheck(&e, 3, 1);
  CHECK_EQ(s7.point_read.blocks_read, s6.point_read.blocks_read);
  CHECK_EQ(Sum(s7.cache_hits), Sum(s6.cache_hits) + 1);
}

TEST(EngineCache, SecondGetIsAHitAndAMergeInvalidates) {
  CheckHitThenInvalidation(Small());
  Options files = Small();
  files.granularity = kFileGranularity;
  CheckHitThenInvalidation(files);
}

TEST(EngineCache, Level0RunsCountAtIndexZeroAndTheirMergeInvalidates) {
  Options o = Small();
  o.level1_runs = 3;
  test::TempDir dir;
  Engine e(dir.path() + "/db", o);
  Load(&e, nullptr, 0, 8, 0);
  e.Flush();
  const auto [run, level] = OnlyRun(&e);
  CHECK_EQ(level, 0u);  // staged in level 0
  GetAndCheck(&e, 5, 0);
  const IOStats s = GetAndCheck(&e, 5, 0);
  CHECK_EQ(At(s.cache_misses, 0), 1u);
  CHECK_EQ(At(s.cache_hits, 0), 1u);
  CHECK_EQ(s.point_read.blocks_read, 1u);
  CHECK_GE(s.cache_hits.size(), e.Levels().size());  // sized to the levels (level 0 first)
  // Two more flushes: the third merges level 0 into Level 1, deleting the staged runs.
  for (uint64_t round = 1; round <= 2; ++round) {
    Load(&e, nullptr, 100 * round, 100 * round + 8, 0);
    e.Flush();
  }
  CHECK(!RunExists(&e, run));
  const IOStats after = e.Stats();
  CHECK_EQ(after.cache_invalidated_blocks, 1u);
  CHECK_EQ(after.cache_blocks, 0u);
  const IOStats again = GetAndCheck(&e, 5, 0);
  CHECK_EQ(again.point_read.blocks_read, after.point_read.blocks_read + 1);
  CHECK_EQ(Sum(again.cache_misses), Sum(after.cache_misses) + 1);
  CHECK_EQ(At(again.cache_misses, 0), 1u);  // no longer in level 0
}

TEST(EngineCache, ScansVerifyAndMergesDoNotFillTheCache) {
  const Options o = Small();
  test::TempDir dir;
  Engine e(dir.path() + "/db", o);
  for (uint64_t k = 0; k < 200; ++k) e.Put(k * 5 % 211, Value(o, k * 5 % 211, 0).data());
  e.Flush();
  auto it = e.Scan(0, UINT64_MAX);
  std::vector<uint64_t> keys;
  std::vector<uint8_t> values;
  while (it->NextBatch(64, &keys, &values) > 0) {}
  CHECK_EQ(keys.size(), 200u);
  e.Verify();
  const IOStats s = e.Stats();
  CHECK_GT(s.range_read.blocks_read, 0u);
  CHECK_EQ(s.cache_blocks, 0u);
  CHECK_EQ(Sum(s.cache_hits) + Sum(s.cache_misses), 0u);
}

TEST(EngineCache, SmallCacheKeepsResultsAndCountsEveryBlockOnce) {
  for (uint64_t blocks : {0u, 1u, 3u, 1000u}) {
    for (int hash_levels : {0, 1}) {
      Options o = Small();
      o.cache_bytes = blocks * o.block_bytes + (blocks ? o.block_bytes / 2 : 0);
      o.hash_levels = hash_levels;
      test::TempDir dir;
      Engine e(dir.path() + "/db", o);
      std::vector<uint64_t> salt(300, 0);
      std::vector<uint8_t> out(o.value_bytes());
      uint64_t x = 12345;
      for (int step = 0; step < 3000; ++step) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t k = (x >> 33) % 300;
        if (step % 3 == 0) {
          salt[k] = static_cast<uint64_t>(step) + 1;
          e.Put(k, Value(o, k, salt[k]).data());
        } else {
          CHECK(e.Get(k, out.data()) == (salt[k] != 0));
          if (salt[k] != 0) CHECK(out == Value(o, k, salt[k]));
        }
      }
      const IOStats s = e.Stats();
      CHECK_EQ(Sum(s.cache_misses), s.point_read.blocks_read);  // with the cache off too
      CHECK_LE(s.cache_blocks, blocks);
      if (blocks == 0) CHECK_EQ(Sum(s.cache_hits), 0u);
      if (blocks >= 3) CHECK_GT(Sum(s.cache_hits), 0u);
      if (blocks == 1000) CHECK_GT(s.cache_invalidated_blocks, 0u);
    }
  }
}

TEST(EngineCache, CacheBytesIsNotPartOfTheDesign) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = Small();
  {
    Engine e(path, o);
    Load(&e, nullptr, 0, 20, 0);
  }
  o.cache_bytes = 0;
  {
    Engine e(path, o);  // another cache size reopens the same directory
    GetAndCheck(&e, 7, 0);
    CHECK_EQ(e.Stats().cache_blocks, 0u);
  }
  o.cache_bytes = UINT64_MAX;  // larger than any data: everything read stays cached
  Engine e(path, o);
  GetAndCheck(&e, 7, 0);
  const IOStats s = GetAndCheck(&e, 7, 0);
  CHECK_EQ(Sum(s.cache_hits), 1u);
  e.Close();
  CHECK_EQ(e.Stats().cache_blocks, 0u);  // Close() empties the cache
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
