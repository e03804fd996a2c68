// buffer.cc — see buffer.h.
#include "buffer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "hash.h"

namespace wacky {

Buffer::Buffer(uint64_t capacity, uint64_t value_bytes)
    : capacity_(capacity), value_bytes_(value_bytes) {
  table_.assign(16, 0);
  mask_ = 15;
}

void Buffer::Grow() {
  // Keep the table at most half full; arrays grow geometrically (std::vector).
  const uint64_t want = size_ + 1;
  if (keys_.size() < want) {
    const uint64_t n = std::min<uint64_t>(capacity_, std::max<uint64_t>(want, 2 * keys_.size()));
    keys_.resize(n);
    tomb_.resize(n);
    values_.resize(n * value_bytes_);
  }
  if (2 * want <= table_.size()) return;
  std::vector<uint32_t> table(table_.size() * 2, 0);
  const uint64_t mask = table.size() - 1;
  for (uint32_t slot = 0; slot < size_; ++slot) {
    uint64_t pos = Hash64(keys_[slot]) & mask;
    while (table[pos] != 0) pos = (pos + 1) & mask;
    table[pos] = slot + 1;
  }
  table_.swap(table);
  mask_ = mask;
}

int64_t Buffer::Find(uint64_t key) const {
  uint64_t pos = Hash64(key) & mask_;
  while (true) {
    const uint32_t s = table_[pos];
    if (s == 0) return -1;
    if (keys_[s - 1] == key) return static_cast<int64_t>(s - 1);
    pos = (pos + 1) & mask_;
  }
}

void Buffer::Put(uint64_t key, const uint8_t* value, bool tombstone) {
  uint64_t pos = Hash64(key) & mask_;
  uint32_t slot;
  while (true) {
    const uint32_t s = table_[pos];
    if (s == 0) {
      if (size_ >= capacity_) throw std::logic_error("Buffer::Put on a full buffer");
      if (2 * (size_ + 1) > table_.size() || keys_.size() <= size_) {
        Grow();
        return Put(key, value, tombstone);  // positions moved with the table
      }
      slot = static_cast<uint32_t>(size_++);
      table_[pos] = slot + 1;
      keys_[slot] = key;
      break;
    }
    if (keys_[s - 1] == key) {
      slot = s - 1;
      break;
    }
    pos = (pos + 1) & mask_;
  }
  tomb_[slot] = tombstone ? 1 : 0;
  uint8_t* dst = values_.data() + slot * value_bytes_;
  if (tombstone || value == nullptr)
    std::memset(dst, 0, value_bytes_);
  else
    std::memcpy(dst, value, value_bytes_);
}

Buffer::Lookup Buffer::Get(uint64_t key, uint8_t* value_out) const {
  const int64_t s = Find(key);
  if (s < 0) return Lookup::kAbsent;
  if (tomb_[s]) return Lookup::kDeleted;
  if (value_out != nullptr) std::memcpy(value_out, value(static_cast<uint32_t>(s)), value_bytes_);
  return Lookup::kFound;
}

void Buffer::Clear() {
  std::fill(table_.begin(), table_.end(), 0);
  size_ = 0;
}

std::vector<uint32_t> Buffer::SortedSlots(uint64_t lo, uint64_t hi) const {
  std::vector<uint32_t> slots;
  slots.reserve(size_);
  for (uint32_t s = 0; s < size_; ++s)
    if (keys_[s] >= lo && keys_[s] <= hi) slots.push_back(s);
  std::sort(slots.begin(), slots.end(), [this](uint32_t a, uint32_t b) { return keys_[a] < keys_[b]; });
  return slots;
}

BufferSource::BufferSource(const Buffer* buffer, std::vector<uint32_t> slots)
    : buffer_(buffer), slots_(std::move(slots)) {
  n_ = slots_.size();
}

BufferSource::BufferSource(const Buffer& buffer, uint64_t lo, uint64_t hi, uint64_t value_bytes)
    : value_bytes_(value_bytes) {
  const auto slots = buffer.SortedSlots(lo, hi);
  n_ = slots.size();
  keys_.reserve(n_);
  tomb_.reserve(n_);
  values_.resize(n_ * value_bytes);
  for (size_t i = 0; i < n_; ++i) {
    keys_.push_back(buffer.key(slots[i]));
    tomb_.push_back(buffer.tombstone(slots[i]) ? 1 : 0);
    std::memcpy(values_.data() + i * value_bytes, buffer.value(slots[i]), value_bytes);
  }
}

uint64_t BufferSource::key() const {
  return buffer_ ? buffer_->key(slots_[pos_]) : keys_[pos_];
}

const uint8_t* BufferSource::value() const {
  return buffer_ ? buffer_->value(slots_[pos_]) : values_.data() + pos_ * value_bytes_;
}

bool BufferSource::tombstone() const {
  return buffer_ ? buffer_->tombstone(slots_[pos_]) : tomb_[pos_] != 0;
}

}  // namespace wacky
