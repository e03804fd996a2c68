// block_cache.cc — see block_cache.h.
#include "block_cache.h"

#include <cstring>
#include <iterator>
#include <stdexcept>

namespace wacky {

namespace {
uint64_t CheckedBlockBytes(uint64_t block_bytes) {
  if (block_bytes == 0) throw std::invalid_argument("BlockCache: block_bytes must be > 0");
  return block_bytes;
}
}  // namespace

BlockCache::BlockCache(uint64_t capacity_bytes, uint64_t block_bytes)
    : block_bytes_(CheckedBlockBytes(block_bytes)),
      capacity_bytes_(capacity_bytes >= block_bytes ? capacity_bytes : 0) {}

const uint8_t* BlockCache::Lookup(uint64_t run, uint64_t block) {
  if (index_.empty()) return nullptr;
  const auto it = index_.find(Key{run, block});
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);  // iterators stay valid
  return it->second->bytes.get();
}

void BlockCache::Insert(uint64_t run, uint64_t block, const uint8_t* bytes) {
  Put(Key{run, block}, bytes, block_bytes_);
}

void BlockCache::InsertMeta(uint64_t run, uint64_t block, const uint8_t* bytes, size_t len) {
  if (!IsMeta(block)) throw std::invalid_argument("BlockCache::InsertMeta: not a metadata key");
  Put(Key{run, block}, bytes, len);
}

void BlockCache::Drop(List::iterator it) {
  index_.erase(it->key);
  used_bytes_ -= it->charge;
  if (IsMeta(it->key.second)) {
    --meta_entries_;
    meta_bytes_ -= it->charge;
  } else {
    const auto c = per_run_.find(it->key.first);
    if (c != per_run_.end() && --c->second == 0) per_run_.erase(c);
  }
}

void BlockCache::Put(const Key& key, const uint8_t* bytes, size_t len) {
  if (capacity_bytes_ == 0 || len > capacity_bytes_) return;
  const auto found = index_.find(key);
  if (found != index_.end() && found->second->charge == len) {
    lru_.splice(lru_.begin(), lru_, found->second);
    std::memmove(found->second->bytes.get(), bytes, len);  // bytes may be its own
    return;
  }
  if (found == index_.end() && used_bytes_ + len > capacity_bytes_ &&
      std::prev(lru_.end())->charge == len) {
    // Full, and the least recently used entry is of this size (data blocks, always): it
    // becomes the new one, reusing its buffer, as the data-block-only cache always did.
    const auto victim = std::prev(lru_.end());
    Drop(victim);
    victim->key = key;
    lru_.splice(lru_.begin(), lru_, victim);
    std::memmove(victim->bytes.get(), bytes, len);  // bytes may be the victim's
    Count(victim);
    return;
  }
  // `bytes` may point into an entry about to be evicted: copied first.
  std::unique_ptr<uint8_t[]> copy = std::make_unique<uint8_t[]>(len);
  std::memcpy(copy.get(), bytes, len);
  if (found != index_.end()) {  // same key, another size: replaced
    const auto it = found->second;
    Drop(it);
    lru_.erase(it);
  }
  while (used_bytes_ + len > capacity_bytes_) {
    const auto victim = std::prev(lru_.end());
    Drop(victim);
    lru_.erase(victim);
  }
  lru_.push_front(Entry{key, std::move(copy), len});
  Count(lru_.begin());
}

void BlockCache::Count(List::iterator it) {
  index_.emplace(it->key, it);
  used_bytes_ += it->charge;
  if (IsMeta(it->key.second)) {
    ++meta_entries_;
    meta_bytes_ += it->charge;
  } else {
    ++per_run_[it->key.first];
  }
}

uint64_t BlockCache::EraseRun(uint64_t run, uint64_t* meta_dropped) {
  uint64_t erased = 0, meta = 0;
  auto it = index_.lower_bound(Key{run, 0});
  while (it != index_.end() && it->first.first == run) {
    const auto entry = it->second;
    ++it;
    (IsMeta(entry->key.second) ? meta : erased) += 1;
    Drop(entry);
    lru_.erase(entry);
  }
  if (meta_dropped != nullptr) *meta_dropped = meta;
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
  used_bytes_ = meta_entries_ = meta_bytes_ = 0;
}

}  // namespace wacky
