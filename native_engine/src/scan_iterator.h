// scan_iterator.h — a range read over a snapshot of the engine.
//
// Contract: created by Engine::Scan(lo, hi), it yields the live (non-deleted) entries
// with lo <= key <= hi in increasing key order. It sees the buffer as it was at
// creation (copied) and the runs that existed then (kept alive by shared pointers
// even if a later merge obsoletes them), so concurrent writes never disturb it. Every
// run overlapping [lo, hi] costs at least one block read, counted as range_read.
// NextBatch() takes the engine lock and throws EngineClosed once the engine closed.
#ifndef WACKY_NATIVE_ENGINE_SCAN_ITERATOR_H_
#define WACKY_NATIVE_ENGINE_SCAN_ITERATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "merging_iterator.h"

namespace wacky {

class Engine;

class ScanIterator {
 public:
  ScanIterator(Engine* engine, std::unique_ptr<MergingIterator> it, uint64_t hi,
               uint64_t value_bytes);

  // Appends up to max_entries keys and values; returns the number appended (0 = done).
  size_t NextBatch(size_t max_entries, std::vector<uint64_t>* keys, std::vector<uint8_t>* values);

 private:
  Engine* engine_;
  std::unique_ptr<MergingIterator> it_;
  uint64_t hi_;
  uint64_t value_bytes_;
  bool done_ = false;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_SCAN_ITERATOR_H_
