// block_cache.h — an LRU cache of a run's blocks, keyed by (run id, block index), charged in
// bytes.
//
// Contract:
//   * BlockCache(capacity_bytes, block_bytes) holds entries whose charges sum to at most
//     capacity_bytes. A data block is charged block_bytes, so with data blocks alone it holds
//     floor(capacity_bytes / block_bytes) of them. A capacity of less than one block (0
//     included) disables the cache: every Lookup misses and Insert stores nothing.
//   * Lookup(run, block) returns the cached bytes and makes the entry the most recently
//     used, or nullptr. The pointer stays valid until the next Insert, EraseRun or Clear.
//   * Insert(run, block, bytes) copies block_bytes bytes in as the most recently used block
//     (replacing the bytes if it is cached already), evicting least recently used entries
//     to stay within capacity.
//   * [paged metadata] A run's filter block and index block (run.h, Options::paged_metadata)
//     are entries of the same LRU under the reserved block indexes kFilterBlock and
//     kIndexBlock, charged their own size in bytes (InsertMeta), like RocksDB's
//     cache_index_and_filter_blocks: they compete with the data blocks for the same bytes.
//     An entry larger than the whole capacity is not stored (nothing is evicted for it), as
//     RocksDB's LRU cache does not keep an unpinned entry over its capacity.
//   * EraseRun(run) drops every cached entry of that run and returns how many data blocks it
//     dropped (its metadata entries in *meta_dropped), in O(k log n) for k such entries of n
//     cached (an ordered index by (run, block) beside the LRU list): the engine calls it when
//     a run leaves the tree, so that a block of a deleted run is never served (run ids are
//     never reused for a run that was installed).
//   * CachedBlocks(run) is how many data blocks of that run are cached now: a counter per
//     run, raised by Insert, lowered by an eviction or EraseRun, in O(1) (a hash map beside
//     the index), so that LSbM's trim (compaction_buffer.h) can read a file's cached share.
//     Metadata entries are not data blocks: neither CachedBlocks nor data_blocks() count them.
//   * Run ids and block indexes are opaque here: checking a block's checksum is the
//     caller's job before Insert (a cached block is never read from disk again).
//   * Not thread safe: the engine calls it under its own mutex.
// Like LevelDB's and RocksDB's block caches; a cached entry is charged its contents only
// (RocksDB adds its handle's bytes: cost_models/paged.py ROCKSDB_CACHE_ENTRY_BYTES).
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
  // The reserved block indexes of a run's filter and index blocks (no run has that many
  // data blocks: a file of 2^64 - 2 blocks cannot exist).
  static constexpr uint64_t kIndexBlock = ~uint64_t{0} - 1;
  static constexpr uint64_t kFilterBlock = ~uint64_t{0};

  // Throws std::invalid_argument if block_bytes is 0.
  BlockCache(uint64_t capacity_bytes, uint64_t block_bytes);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  const uint8_t* Lookup(uint64_t run, uint64_t block);
  void Insert(uint64_t run, uint64_t block, const uint8_t* bytes);
  // [paged metadata] Inserts `len` bytes as the entry (run, block) (kFilterBlock or
  // kIndexBlock), charged len bytes; not stored if len exceeds the capacity.
  void InsertMeta(uint64_t run, uint64_t block, const uint8_t* bytes, size_t len);
  uint64_t EraseRun(uint64_t run, uint64_t* meta_dropped = nullptr);
  void Clear();

  bool enabled() const { return capacity_bytes_ > 0; }
  uint64_t capacity_bytes() const { return capacity_bytes_; }
  uint64_t capacity_blocks() const { return capacity_bytes_ / block_bytes_; }
  uint64_t block_bytes() const { return block_bytes_; }
  uint64_t size() const { return index_.size(); }  // entries cached now, metadata included
  uint64_t data_blocks() const { return index_.size() - meta_entries_; }
  uint64_t meta_entries() const { return meta_entries_; }
  uint64_t meta_bytes() const { return meta_bytes_; }  // charged by metadata entries now
  uint64_t used_bytes() const { return used_bytes_; }
  uint64_t CachedBlocks(uint64_t run) const;  // data blocks of `run` cached now

  static bool IsMeta(uint64_t block) { return block >= kIndexBlock; }

 private:
  using Key = std::pair<uint64_t, uint64_t>;  // (run, block)
  struct Entry {
    Key key;
    std::unique_ptr<uint8_t[]> bytes;
    size_t charge;
  };
  using List = std::list<Entry>;  // most recently used first

  void Put(const Key& key, const uint8_t* bytes, size_t len);
  void Drop(List::iterator it);  // unindexes and uncounts it (the caller erases or reuses it)
  void Count(List::iterator it);  // indexes and counts it

  const uint64_t block_bytes_;
  const uint64_t capacity_bytes_;  // 0 when less than a block was given
  uint64_t used_bytes_ = 0;
  uint64_t meta_entries_ = 0, meta_bytes_ = 0;
  List lru_;
  std::map<Key, List::iterator> index_;
  std::unordered_map<uint64_t, uint64_t> per_run_;  // run -> data blocks cached (none: absent)
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_BLOCK_CACHE_H_
