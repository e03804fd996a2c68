// run_iterator.h — sequential reader of one run, from a start key to the end.
//
// Contract: yields the run's entries with key >= lo in order, reading the data
// blocks front to back with pread. `prefetch_blocks` blocks are fetched per read:
// merges use large reads (sequential streaming), scans use 1 (so a short range costs
// one I/O per run, as the cost model assumes). Blocks are counted in *counter as they
// are read. Holding the RunPtr keeps the file readable even after the run is
// obsoleted by a merge.
#ifndef WACKY_NATIVE_ENGINE_RUN_ITERATOR_H_
#define WACKY_NATIVE_ENGINE_RUN_ITERATOR_H_

#include <cstdint>
#include <vector>

#include "entry_source.h"
#include "io_stats.h"
#include "run.h"

namespace wacky {

class RunIterator : public EntrySource {
 public:
  RunIterator(RunPtr run, uint64_t lo, size_t prefetch_blocks, IOCounter* counter);

  bool Valid() const override { return valid_; }
  uint64_t key() const override { return key_; }
  const uint8_t* value() const override { return cur_ + 8; }
  bool tombstone() const override;
  void Next() override;

 private:
  void LoadBlock(uint64_t b);
  void Settle();

  RunPtr run_;
  size_t prefetch_;
  IOCounter* counter_;
  std::vector<uint8_t> buf_;
  uint64_t buf_first_ = 0;  // first block held in buf_
  size_t buf_blocks_ = 0;
  uint64_t block_ = 0;  // current block
  size_t idx_ = 0;      // entry index within block
  size_t in_block_ = 0;
  const uint8_t* cur_ = nullptr;
  uint64_t key_ = 0;
  bool valid_ = false;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_RUN_ITERATOR_H_
