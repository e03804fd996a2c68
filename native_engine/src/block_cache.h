// block_cache.h — an LRU cache of data blocks, keyed by (run id, block index).
//
// Contract:
//   * BlockCache(capacity_bytes, block_bytes) holds at most
//     floor(capacity_bytes / block_bytes) blocks, each a copy of block_bytes bytes, so a hit
//     needs no I/O. A capacity of less than one block (0 included) disables the cache:
//     every Lookup misses and Insert stores nothing.
//   * Lookup(run, block) returns the cached bytes and makes the block the most recently
//     used, or nullptr. The pointer stays valid until the next Insert, EraseRun or Clear.
//   * Insert(run, block, bytes) copies block_bytes bytes in as the most recently used block
//     (replacing the bytes if it is cached already), evicting least recently used blocks to
//     stay within capacity.
//   * EraseRun(run) drops every cached block of that run and returns how many it dropped,
//     in O(k log n) for k such blocks of n cached (an ordered index by (run, block) beside
//     the LRU list): the engine calls it when a run leaves the tree, so that a block of a
//     deleted run is never served (run ids are never reused for a run that was installed).
//   * CachedBlocks(run) is how many blocks of that run are cached now: a counter per run,
//     raised by Insert, lowered by an eviction or EraseRun, in O(1) (a hash map beside the
//     index), so that LSbM's trim (compaction_buffer.h) can read a file's cached share.
//   * Run ids and block indexes are opaque here: checking a block's checksum is the
//     caller's job before Insert (a cached block is never read from disk again).
//   * Not thread safe: the engine calls it under its own mutex.
// Like LevelDB's and RocksDB's block caches, but sized in whole blocks (blocks are of one
// size in an engine) and holding data blocks only (filters and fences live in memory).
#ifndef WACKY_NATIVE_ENGINE_BLOCK_CACHE_H_
#define WACKY_NATIVE_ENGINE_BLOCK_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

namespace wacky {

class BlockCache {
 public:
  // Throws std::invalid_argument if block_bytes is 0.
  BlockCache(uint64_t capacity_bytes, uint64_t block_bytes);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  const uint8_t* Lookup(uint64_t run, uint64_t block);
  void Insert(uint64_t run, uint64_t block, const uint8_t* bytes);
  uint64_t EraseRun(uint64_t run);
  void Clear();

  bool enabled() const { return capacity_blocks_ > 0; }
  uint64_t capacity_blocks() const { return capacity_blocks_; }
  uint64_t block_bytes() const { return block_bytes_; }
  uint64_t size() const { return index_.size(); }  // blocks cached now
  uint64_t CachedBlocks(uint64_t run) const;  // blocks of `run` cached now

 private:
  using Key = std::pair<uint64_t, uint64_t>;  // (run, block)
  struct Entry {
    Key key;
    std::unique_ptr<uint8_t[]> bytes;
  };
  using List = std::list<Entry>;  // most recently used first

  const uint64_t block_bytes_;
  const uint64_t capacity_blocks_;
  List lru_;
  std::map<Key, List::iterator> index_;
  std::unordered_map<uint64_t, uint64_t> per_run_;  // run -> blocks cached (none: absent)
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_BLOCK_CACHE_H_
