// block_cache.cc — see block_cache.h.
#include "block_cache.h"

#include <cstring>
#include <iterator>
#include <stdexcept>

namespace wacky {

namespace {
// One block of `run` left the cache: its counter goes down, and away at zero.
void Uncount(std::unordered_map<uint64_t, uint64_t>* per_run, uint64_t run) {
  const auto it = per_run->find(run);
  if (it != per_run->end() && --it->second == 0) per_run->erase(it);
}

uint64_t CheckedBlockBytes(uint64_t block_bytes) {
  if (block_bytes == 0) throw std::invalid_argument("BlockCache: block_bytes must be > 0");
  return block_bytes;
}
}  // namespace

BlockCache::BlockCache(uint64_t capacity_bytes, uint64_t block_bytes)
    : block_bytes_(CheckedBlockBytes(block_bytes)),
      capacity_blocks_(capacity_bytes / block_bytes_) {}

const uint8_t* BlockCache::Lookup(uint64_t run, uint64_t block) {
  if (index_.empty()) return nullptr;
  const auto it = index_.find(Key{run, block});
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);  // iterators stay valid
  return it->second->bytes.get();
}

void BlockCache::Insert(uint64_t run, uint64_t block, const uint8_t* bytes) {
  if (capacity_blocks_ == 0) return;
  const Key key{run, block};
  const auto found = index_.find(key);
  if (found != index_.end()) {
    lru_.splice(lru_.begin(), lru_, found->second);
    std::memmove(found->second->bytes.get(), bytes, block_bytes_);  // bytes may be its own
    return;
  }
  if (index_.size() >= capacity_blocks_) {
    // Full: the least recently used entry becomes the new one, reusing its buffer.
    const auto victim = std::prev(lru_.end());
    index_.erase(victim->key);
    Uncount(&per_run_, victim->key.first);
    victim->key = key;
    lru_.splice(lru_.begin(), lru_, victim);
  } else {
    lru_.push_front(Entry{key, std::make_unique<uint8_t[]>(block_bytes_)});
  }
  std::memmove(lru_.front().bytes.get(), bytes, block_bytes_);  // bytes may be the victim's
  index_.emplace(key, lru_.begin());
  ++per_run_[run];
}

uint64_t BlockCache::EraseRun(uint64_t run) {
  uint64_t erased = 0;
  auto it = index_.lower_bound(Key{run, 0});
  while (it != index_.end() && it->first.first == run) {
    lru_.erase(it->second);
    it = index_.erase(it);
    ++erased;
  }
  if (erased > 0) per_run_.erase(run);
  return erased;
}

uint64_t BlockCache::CachedBlocks(uint64_t run) const {
  const auto it = per_run_.find(run);
  return it == per_run_.end() ? 0 : it->second;
}

void BlockCache::Clear() {
  index_.clear();
  lru_.clear();
  per_run_.clear();
}

}  // namespace wacky
