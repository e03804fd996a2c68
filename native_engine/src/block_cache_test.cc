// block_cache_test.cc — the LRU block cache on its own: order, eviction, EraseRun, and the
// capacities that disable it. (Its use by the engine is checked in engine_test.cc.)
#include "block_cache.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

constexpr uint64_t kBlock = 16;

// A block whose bytes all equal `fill`.
std::vector<uint8_t> Block(uint8_t fill) { return std::vector<uint8_t>(kBlock, fill); }

bool Holds(BlockCache* c, uint64_t run, uint64_t block, uint8_t fill) {
  const uint8_t* p = c->Lookup(run, block);
  return p != nullptr && std::memcmp(p, Block(fill).data(), kBlock) == 0;
}

TEST(BlockCache, HitsReturnTheInsertedBytes) {
  BlockCache c(4 * kBlock, kBlock);
  CHECK(c.enabled());
  CHECK_EQ(c.capacity_blocks(), 4u);
  CHECK(c.Lookup(1, 0) == nullptr);
  c.Insert(1, 0, Block(10).data());
  c.Insert(1, 1, Block(11).data());
  c.Insert(2, 0, Block(20).data());
  CHECK_EQ(c.size(), 3u);
  CHECK(Holds(&c, 1, 0, 10));
  CHECK(Holds(&c, 1, 1, 11));
  CHECK(Holds(&c, 2, 0, 20));
  CHECK(c.Lookup(2, 1) == nullptr);
  CHECK(c.Lookup(3, 0) == nullptr);
  // Inserting a cached block again replaces its bytes without growing the cache.
  c.Insert(1, 1, Block(12).data());
  CHECK_EQ(c.size(), 3u);
  CHECK(Holds(&c, 1, 1, 12));
}

TEST(BlockCache, EvictsTheLeastRecentlyUsed) {
  BlockCache c(3 * kBlock, kBlock);
  c.Insert(7, 0, Block(0).data());
  c.Insert(7, 1, Block(1).data());
  c.Insert(7, 2, Block(2).data());
  // A hit makes block 0 the most recently used: block 1 is now the oldest.
  CHECK(c.Lookup(7, 0) != nullptr);
  c.Insert(7, 3, Block(3).data());
  CHECK_EQ(c.size(), 3u);
  CHECK(c.Lookup(7, 1) == nullptr);
  CHECK(Holds(&c, 7, 0, 0));
  CHECK(Holds(&c, 7, 2, 2));
  CHECK(Holds(&c, 7, 3, 3));
  // Order now (most recent first): 3, 2, 0. Re-inserting 0 refreshes it; 2 goes next.
  c.Insert(7, 0, Block(0).data());
  c.Insert(8, 0, Block(80).data());
  CHECK(c.Lookup(7, 2) == nullptr);
  c.Insert(8, 1, Block(81).data());
  CHECK(c.Lookup(7, 3) == nullptr);
  CHECK_EQ(c.size(), 3u);
  CHECK(Holds(&c, 7, 0, 0));
  CHECK(Holds(&c, 8, 0, 80));
  CHECK(Holds(&c, 8, 1, 81));
}

TEST(BlockCache, CapacityIsInWholeBlocks) {
  BlockCache c(2 * kBlock + kBlock - 1, kBlock);  // floor: two blocks
  CHECK_EQ(c.capacity_blocks(), 2u);
  for (uint64_t b = 0; b < 10; ++b) c.Insert(1, b, Block(static_cast<uint8_t>(b)).data());
  CHECK_EQ(c.size(), 2u);
  CHECK(Holds(&c, 1, 8, 8));
  CHECK(Holds(&c, 1, 9, 9));
  CHECK_THROWS(BlockCache(100, 0), std::invalid_argument, "block_bytes");
}

TEST(BlockCache, EraseRunDropsOnlyThatRun) {
  BlockCache c(100 * kBlock, kBlock);
  for (uint64_t run = 1; run <= 3; ++run)
    for (uint64_t b = 0; b < 5; ++b) c.Insert(run, b * 3, Block(static_cast<uint8_t>(run)).data());
  c.Insert(0, UINT64_MAX, Block(99).data());  // neighbours in the index on either side
  c.Insert(4, 0, Block(4).data());
  CHECK_EQ(c.size(), 17u);
  CHECK_EQ(c.EraseRun(2), 5u);
  CHECK_EQ(c.size(), 12u);
  for (uint64_t b = 0; b < 5; ++b) {
    CHECK(c.Lookup(2, b * 3) == nullptr);
    CHECK(Holds(&c, 1, b * 3, 1));
    CHECK(Holds(&c, 3, b * 3, 3));
  }
  CHECK(Holds(&c, 0, UINT64_MAX, 99));
  CHECK(Holds(&c, 4, 0, 4));
  CHECK_EQ(c.EraseRun(2), 0u);  // nothing left of it
  CHECK_EQ(c.EraseRun(42), 0u);
  // The LRU list stays consistent: fill to capacity and beyond after the erase.
  for (uint64_t b = 0; b < 200; ++b) c.Insert(5, b, Block(5).data());
  CHECK_EQ(c.size(), 100u);
  CHECK(c.Lookup(1, 0) == nullptr);  // evicted by the flood
  CHECK(Holds(&c, 5, 199, 5));
  c.Clear();
  CHECK_EQ(c.size(), 0u);
  CHECK(c.Lookup(5, 199) == nullptr);
}

TEST(BlockCache, ZeroCapacityStoresNothing) {
  BlockCache c(0, kBlock);
  CHECK(!c.enabled());
  CHECK_EQ(c.capacity_blocks(), 0u);
  c.Insert(1, 0, Block(1).data());
  CHECK_EQ(c.size(), 0u);
  CHECK(c.Lookup(1, 0) == nullptr);
  CHECK_EQ(c.EraseRun(1), 0u);
}

TEST(BlockCache, CapacitySmallerThanABlockStoresNothing) {
  BlockCache c(kBlock - 1, kBlock);
  CHECK(!c.enabled());
  c.Insert(1, 0, Block(1).data());
  CHECK_EQ(c.size(), 0u);
  CHECK(c.Lookup(1, 0) == nullptr);
}

TEST(BlockCache, OneBlockCapacityKeepsTheLatest) {
  BlockCache c(kBlock, kBlock);
  c.Insert(1, 0, Block(1).data());
  CHECK(Holds(&c, 1, 0, 1));
  // Inserting from the cached bytes of the block being evicted (they alias) is safe.
  const uint8_t* p = c.Lookup(1, 0);
  c.Insert(2, 0, p);
  CHECK_EQ(c.size(), 1u);
  CHECK(c.Lookup(1, 0) == nullptr);
  CHECK(Holds(&c, 2, 0, 1));
}

// [compaction buffer] The per-run counters the trim reads follow inserts, re-inserts,
// evictions, EraseRun and Clear, and always sum to size().
TEST(BlockCache, CachedBlocksCountsEachRunsBlocks) {
  BlockCache c(3 * kBlock, kBlock);
  CHECK_EQ(c.CachedBlocks(1), 0u);
  c.Insert(1, 0, Block(1).data());
  c.Insert(1, 1, Block(2).data());
  c.Insert(1, 1, Block(3).data());  // the same block again: still two
  c.Insert(2, 0, Block(4).data());
  CHECK_EQ(c.CachedBlocks(1), 2u);
  CHECK_EQ(c.CachedBlocks(2), 1u);
  c.Insert(3, 0, Block(5).data());  // evicts run 1's block 0, the least recently used
  CHECK_EQ(c.CachedBlocks(1), 1u);
  CHECK_EQ(c.CachedBlocks(3), 1u);
  CHECK_EQ(c.CachedBlocks(1) + c.CachedBlocks(2) + c.CachedBlocks(3), c.size());
  CHECK_EQ(c.EraseRun(1), 1u);
  CHECK_EQ(c.CachedBlocks(1), 0u);
  CHECK_EQ(c.EraseRun(1), 0u);
  c.Clear();
  CHECK_EQ(c.CachedBlocks(2) + c.CachedBlocks(3), 0u);
  BlockCache off(0, kBlock);  // disabled: nothing is ever counted
  off.Insert(1, 0, Block(1).data());
  CHECK_EQ(off.CachedBlocks(1), 0u);
}


// [paged metadata] Filter and index entries share the LRU and its byte capacity with the data
// blocks, charged their own size, and are not data blocks in the counts.
TEST(BlockCache, MetadataIsChargedInBytes) {
  BlockCache c(4 * kBlock, kBlock);  // 64 bytes
  const std::vector<uint8_t> filter(40, 7), index(8, 9);
  c.Insert(1, 0, Block(10).data());
  c.InsertMeta(1, BlockCache::kFilterBlock, filter.data(), filter.size());
  CHECK_EQ(c.used_bytes(), kBlock + 40);
  CHECK_EQ(c.data_blocks(), 1u);
  CHECK_EQ(c.meta_entries(), 1u);
  CHECK_EQ(c.meta_bytes(), 40u);
  CHECK_EQ(c.CachedBlocks(1), 1u);
  const uint8_t* f = c.Lookup(1, BlockCache::kFilterBlock);
  CHECK(f != nullptr && std::memcmp(f, filter.data(), 40) == 0);
  // 56 + 16 > 64: the least recently used entry (the data block) goes.
  c.Insert(2, 0, Block(20).data());
  CHECK(c.Lookup(1, 0) == nullptr);
  CHECK_EQ(c.used_bytes(), 56u);
  c.InsertMeta(2, BlockCache::kIndexBlock, index.data(), index.size());  // 64: fits exactly
  CHECK_EQ(c.used_bytes(), 64u);
  CHECK(c.Lookup(1, BlockCache::kFilterBlock) != nullptr);
  // Larger than the whole cache: not stored, nothing evicted.
  const std::vector<uint8_t> huge(65, 1);
  c.InsertMeta(3, BlockCache::kFilterBlock, huge.data(), huge.size());
  CHECK(c.Lookup(3, BlockCache::kFilterBlock) == nullptr);
  CHECK_EQ(c.size(), 3u);
  uint64_t meta = 0;
  CHECK_EQ(c.EraseRun(2, &meta), 1u);  // one data block, and its index entry
  CHECK_EQ(meta, 1u);
  CHECK_EQ(c.used_bytes(), 40u);
  CHECK_EQ(c.EraseRun(1, &meta), 0u);
  CHECK_EQ(meta, 1u);
  CHECK_EQ(c.used_bytes(), 0u);
  CHECK_EQ(c.meta_bytes(), 0u);
  BlockCache off(kBlock - 1, kBlock);  // disabled for metadata too
  off.InsertMeta(1, BlockCache::kIndexBlock, index.data(), index.size());
  CHECK(off.Lookup(1, BlockCache::kIndexBlock) == nullptr);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
