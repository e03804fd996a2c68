// level_iterator.h — sequential reader of one sorted run made of files (kFileGranularity).
//
// Contract: `files` are disjoint and in key order (a partitioned level, or a slice of one).
// The iterator yields their entries with key >= lo in order, as one RunIterator over the
// first file whose largest key is >= lo and then over each later file from its start. A
// file is opened (its first block read) only when the one before it is exhausted, so a
// short scan reads one block per level, as from a level that is one file, and a merge
// holds one prefetch buffer per level instead of one per file. Blocks are counted in
// *counter as they are read.
#ifndef WACKY_NATIVE_ENGINE_LEVEL_ITERATOR_H_
#define WACKY_NATIVE_ENGINE_LEVEL_ITERATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "entry_source.h"
#include "io_stats.h"
#include "run.h"
#include "run_iterator.h"

namespace wacky {

class LevelIterator : public EntrySource {
 public:
  LevelIterator(std::vector<RunPtr> files, uint64_t lo, size_t prefetch_blocks,
                IOCounter* counter);

  bool Valid() const override { return current_ != nullptr; }
  uint64_t key() const override { return current_->key(); }
  const uint8_t* value() const override { return current_->value(); }
  bool tombstone() const override { return current_->tombstone(); }
  void Next() override;

 private:
  // Opens files from next_ on until one yields an entry >= lo (or none is left).
  void Open(uint64_t lo);

  std::vector<RunPtr> files_;
  size_t prefetch_;
  IOCounter* counter_;
  size_t next_ = 0;  // the file to open after the current one
  std::unique_ptr<RunIterator> it_;
  RunIterator* current_ = nullptr;  // it_ while it is valid, else null
};

// Index of the file of `files` (disjoint, in key order) whose [min_key, max_key] covers
// key, or files.size() if none does. O(log n).
size_t FileFor(const std::vector<RunPtr>& files, uint64_t key);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_LEVEL_ITERATOR_H_
