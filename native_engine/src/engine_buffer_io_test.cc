// engine_buffer_io_test.cc — what the compaction buffer (Options::compaction_buffer,
// compaction_buffer.h) does to the engine's I/O: nothing at all when it is off (the counts of
// the engine before it, byte for byte), no flush or merge I/O when it is on, and, its point,
// fewer block-cache misses for a hot range read through merges that rewrite its files.
// (Its correctness, crashes and options are checked in engine_buffer_test.cc.)
#include "engine.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::Value;

// A fixed workload: puts, deletes and gets (most on keys 0..99) over 2000 keys.
IOStats FixedWorkload(const Options& o, const std::string& path) {
  std::mt19937_64 rng(42);
  Engine e(path, o);
  std::vector<uint8_t> v(o.value_bytes()), out(o.value_bytes());
  for (int step = 0; step < 6000; ++step) {
    const uint64_t r = rng();
    const uint64_t key = (r >> 8) % 2000;
    const uint64_t dice = r % 100;
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(key + step + i);
    if (dice < 50)
      e.Put(key, v.data());
    else if (dice < 60)
      e.Delete(key);
    else
      e.Get(dice < 90 ? key % 100 : key, out.data());
  }
  e.Close();
  return e.Stats();
}

// With the buffer off, the engine is the engine it was before the buffer existed: these are
// the counts the code before it gave on this workload (flush and merge blocks, point reads,
// cache hits and invalidations, MANIFEST bytes, runs, merges, checksum blocks, blocks read by
// the reopen, major compactions). A later change that means to alter what the engine does
// without the buffer (a new MANIFEST line, another merge order) updates them from the
// "variant ..., count ..." lines this test prints when they differ.
TEST(EngineBuffer, OffIsByteIdenticalToTheEngineBeforeIt) {
  const std::vector<std::vector<uint64_t>> want = {
      {27, 8497, 11737, 530, 588, 257, 3399773, 4660, 4368, 1822, 4660, 861, 327},
      {14, 8777, 12078, 532, 596, 257, 3064375, 4767, 4513, 1827, 4767, 798, 331},
      {618, 7866, 10348, 528, 583, 239, 3303069, 4319, 4039, 1601, 4319, 840, 321},
  };
  for (int variant = 0; variant < 3; ++variant) {
    Options o = test::SmallOptions(kFileGranularity, 192);
    o.cache_bytes = 20 * 96;
    o.wal = false;
    o.file_pick = variant == 1 ? kRoundRobin : kLeastOverlap;
    if (variant == 2) {
      o.hash_levels = 1;
      o.level1_runs = 2;
    }
    test::TempDir dir;
    const IOStats s = FixedWorkload(o, dir.path() + "/db");
    const IOStats reopened = Engine(dir.path() + "/db", o).Stats();
    const IOCounter m = s.MergeTotal();
    const std::vector<uint64_t> got = {
        s.flush.blocks_written, m.blocks_read,     m.blocks_written,
        s.point_read.blocks_read, s.CacheHits(),   s.cache_invalidated_blocks,
        s.manifest_bytes_written, s.runs_created,  s.runs_deleted,
        s.merges,                 s.checksums.blocks_written,
        reopened.recovery.blocks_read, s.major_compactions};
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[variant][i])
        fprintf(stderr, "variant %d, count %zu: %llu, before the buffer %llu\n", variant, i,
                static_cast<unsigned long long>(got[i]),
                static_cast<unsigned long long>(want[variant][i]));
      CHECK_EQ(got[i], want[variant][i]);
    }
    CHECK_EQ(s.buffer_reads + s.buffer_trimmed + s.buffer_drained + s.buffer_files, 0u);
  }
}

// Buffering keeps files that exist anyway: the flushes and merges read and write exactly
// what they do without it, and the tree is the same run for run.
TEST(EngineBuffer, BufferingMovesNoBytes) {
  for (int pick : {kLeastOverlap, kRoundRobin}) {
    Options off = test::SmallOptions(kFileGranularity, 192);
    off.cache_bytes = 20 * 96;
    off.wal = false;
    off.file_pick = pick;
    Options on = off;
    on.compaction_buffer = true;
    on.buffer_trim_interval = 3;
    test::TempDir a, b;
    const IOStats s0 = FixedWorkload(off, a.path() + "/db");
    const IOStats s1 = FixedWorkload(on, b.path() + "/db");
    CHECK_EQ(s1.flush.blocks_written, s0.flush.blocks_written);
    CHECK_EQ(s1.MergeTotal().blocks_read, s0.MergeTotal().blocks_read);
    CHECK_EQ(s1.MergeTotal().blocks_written, s0.MergeTotal().blocks_written);
    CHECK_EQ(s1.MergeTotal().bytes_written, s0.MergeTotal().bytes_written);
    CHECK_EQ(s1.checksums.blocks_written, s0.checksums.blocks_written);
    CHECK_EQ(s1.runs_created, s0.runs_created);
    CHECK_EQ(s1.merges, s0.merges);
    CHECK_EQ(s1.major_compactions, s0.major_compactions);
    CHECK_GT(s1.buffer_drained + s1.buffer_trimmed, 0u);
    CHECK_GT(s1.buffer_reads, 0u);
    Engine ea(a.path() + "/db", off), eb(b.path() + "/db", on);
    const auto la = ea.Levels(), lb = eb.Levels();
    CHECK_EQ(la.size(), lb.size());
    for (size_t i = 0; i < la.size(); ++i) {
      CHECK_EQ(la[i].runs.size(), lb[i].runs.size());
      for (size_t j = 0; j < la[i].runs.size(); ++j) CHECK_EQ(la[i].runs[j].id, lb[i].runs[j].id);
    }
    CHECK_GT(eb.Stats().buffer_files, 0u);
    for (const LevelInfo& l : ea.Levels()) CHECK(l.buffer.empty());
  }
}

// The headline (LSbM, Section VI): point reads of a hot range that the cache holds, read all
// along, while bursts of writes to the rest of the key space merge files down the tree, and
// round-robin picking (LevelDB's, as in the paper's prototype) sweeps every level through the
// hot range. Without the buffer every merge that rewrites a file of the hot range drops its
// cached blocks, and the reads after it miss; with it, the reads go to the buffered copies of
// the files that brought the hot keys down, whose blocks stay cached.
TEST(EngineBuffer, HotKeysKeepHittingTheCacheAfterMerges) {
  double ratio[2] = {0, 0};
  uint64_t misses[2] = {0, 0}, invalidated[2] = {0, 0}, buffer_reads = 0, buffered_bytes = 0;
  std::string rounds[2];
  for (int buffered = 0; buffered < 2; ++buffered) {
    Options o = test::SmallOptions(kFileGranularity, 192);
    o.wal = false;
    o.T = 4;
    o.buffer_bytes = 960;       // 40 entries
    o.file_bytes = 192;         // 8 entries, 2 blocks
    o.cache_bytes = 400 * 96;   // 400 blocks: the hot range is 250
    o.file_pick = kRoundRobin;
    o.compaction_buffer = buffered == 1;
    test::TempDir dir;
    Engine e(dir.path() + "/db", o);
    constexpr uint64_t kKeys = 4000, kHotLo = 1000, kHot = 1000;
    std::vector<uint8_t> out(o.value_bytes());
    auto read_hot = [&] {
      for (uint64_t k = kHotLo; k < kHotLo + kHot; ++k) e.Get(k, out.data());
    };
    // The load, read all along, as in the paper's workloads.
    for (uint64_t k = 0; k < kKeys; ++k) {
      const uint64_t key = (k * 2654435761u) % kKeys;  // every key once, scattered
      e.Put(key, Value(o, key, 0).data());
      if (k % 200 == 199) read_hot();
    }
    read_hot();
    const IOStats before = e.Stats();
    std::mt19937_64 rng(11);
    for (int round = 0; round < 6; ++round) {
      const IOStats r0 = e.Stats();
      for (int w = 0; w < 2000;) {  // about 50 flushes and 250 merges
        const uint64_t key = rng() % kKeys;
        if (key >= kHotLo && key < kHotLo + kHot) continue;  // the hot keys are only read
        e.Put(key, Value(o, key, 1).data());
        ++w;
      }
      read_hot();
      const IOStats r1 = e.Stats();
      char buf[16];
      snprintf(buf, sizeof(buf), " %.3f",
               static_cast<double>(r1.CacheHits() - r0.CacheHits()) /
                   static_cast<double>(r1.CacheHits() + r1.CacheMisses() - r0.CacheHits() -
                                       r0.CacheMisses()));
      rounds[buffered] += buf;
    }
    const IOStats after = e.Stats();
    const double hits = static_cast<double>(after.CacheHits() - before.CacheHits());
    misses[buffered] = after.CacheMisses() - before.CacheMisses();
    ratio[buffered] = hits / (hits + static_cast<double>(misses[buffered]));
    invalidated[buffered] = after.cache_invalidated_blocks - before.cache_invalidated_blocks;
    if (buffered) {
      buffer_reads = after.buffer_reads - before.buffer_reads;
      buffered_bytes = after.buffer_bytes;
    }
    CHECK_GT(after.merges - before.merges, 1000u);
    for (uint64_t k = kHotLo; k < kHotLo + kHot; ++k) {
      CHECK(e.Get(k, out.data()));
      CHECK(out == Value(o, k, 0));
    }
  }
  fprintf(stderr,
          "hot range read after each burst of merges: cache hit ratio %.3f without the buffer "
          "(%llu misses; per burst:%s), %.3f with it (%llu misses; per burst:%s); cached blocks "
          "invalidated %llu vs %llu; %llu reads answered by buffered files, %llu buffered bytes "
          "at the end\n",
          ratio[0], static_cast<unsigned long long>(misses[0]), rounds[0].c_str(), ratio[1],
          static_cast<unsigned long long>(misses[1]), rounds[1].c_str(),
          static_cast<unsigned long long>(invalidated[0]),
          static_cast<unsigned long long>(invalidated[1]),
          static_cast<unsigned long long>(buffer_reads),
          static_cast<unsigned long long>(buffered_bytes));
  CHECK_GT(ratio[1], 0.95);
  CHECK_GT(ratio[1], ratio[0] + 0.03);
  CHECK_LT(2 * misses[1], misses[0]);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
