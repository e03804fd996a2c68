// buffer.h — the in-memory write buffer (F blocks' worth of entries).
//
// Contract: holds at most capacity() distinct keys; a write to a key already present
// overwrites it in place (the last write wins), so a flushed buffer holds one entry
// per key. Lookups are O(1) (open addressing on the key). SortedSlots() returns the
// slots in key order for flushing and scanning. Memory is taken as the buffer fills, not
// at construction (a 64 GiB buffer costs nothing until it holds data): the arrays and
// the hash table grow geometrically, so there is no allocation per entry, and Clear()
// keeps them for the next fill.
#ifndef WACKY_NATIVE_ENGINE_BUFFER_H_
#define WACKY_NATIVE_ENGINE_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "entry_source.h"

namespace wacky {

class Buffer {
 public:
  enum class Lookup { kAbsent, kFound, kDeleted };

  Buffer(uint64_t capacity, uint64_t value_bytes);

  uint64_t size() const { return size_; }
  uint64_t capacity() const { return capacity_; }
  bool Full() const { return size_ >= capacity_; }
  bool Contains(uint64_t key) const { return Find(key) >= 0; }

  // Requires !Full() || Contains(key). value may be null for a tombstone.
  void Put(uint64_t key, const uint8_t* value, bool tombstone);
  Lookup Get(uint64_t key, uint8_t* value_out) const;
  void Clear();

  // Slot indexes ordered by key, restricted to [lo, hi]. The slots in use are 0..size()-1.
  std::vector<uint32_t> SortedSlots(uint64_t lo = 0, uint64_t hi = UINT64_MAX) const;
  uint64_t key(uint32_t slot) const { return keys_[slot]; }
  const uint8_t* value(uint32_t slot) const { return values_.data() + slot * value_bytes_; }
  bool tombstone(uint32_t slot) const { return tomb_[slot] != 0; }

 private:
  int64_t Find(uint64_t key) const;
  void Grow();

  uint64_t capacity_;
  uint64_t value_bytes_;
  uint64_t size_ = 0;
  std::vector<uint64_t> keys_;
  std::vector<uint8_t> tomb_;
  std::vector<uint8_t> values_;
  std::vector<uint32_t> table_;  // slot + 1, 0 = empty
  uint64_t mask_;
};

// A sorted stream over a copy of (part of) the buffer: scans keep it stable while the
// engine keeps changing; merges read the live buffer (no copy) through it.
class BufferSource : public EntrySource {
 public:
  // Iterates `slots` of `buffer` (already sorted); buffer must outlive the source.
  BufferSource(const Buffer* buffer, std::vector<uint32_t> slots);
  // Owns a private copy of the entries of `buffer` in [lo, hi].
  BufferSource(const Buffer& buffer, uint64_t lo, uint64_t hi, uint64_t value_bytes);

  bool Valid() const override { return pos_ < n_; }
  uint64_t key() const override;
  const uint8_t* value() const override;
  bool tombstone() const override;
  void Next() override { ++pos_; }

 private:
  const Buffer* buffer_ = nullptr;
  std::vector<uint32_t> slots_;
  // Private copy (scans).
  std::vector<uint64_t> keys_;
  std::vector<uint8_t> tomb_;
  std::vector<uint8_t> values_;
  uint64_t value_bytes_ = 0;
  size_t pos_ = 0;
  size_t n_ = 0;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_BUFFER_H_
