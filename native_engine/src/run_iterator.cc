// run_iterator.cc — see run_iterator.h.
#include "run_iterator.h"

#include <algorithm>

#include "block.h"

namespace wacky {

RunIterator::RunIterator(RunPtr run, uint64_t lo, size_t prefetch_blocks, IOCounter* counter)
    : run_(std::move(run)), prefetch_(std::max<size_t>(1, prefetch_blocks)), counter_(counter) {
  if (run_->entries() == 0 || lo > run_->max_key()) return;
  const uint64_t b = lo <= run_->min_key() ? 0 : run_->BlockFor(lo);
  LoadBlock(b);
  idx_ = LowerBoundInBlock(buf_.data() + (block_ - buf_first_) * run_->layout().block_bytes,
                           in_block_, run_->layout().entry_bytes, lo);
  valid_ = true;
  Settle();
}

void RunIterator::LoadBlock(uint64_t b) {
  const uint64_t bb = run_->layout().block_bytes;
  if (b < buf_first_ || b >= buf_first_ + buf_blocks_) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(prefetch_, run_->data_blocks() - b));
    buf_.resize(n * bb);
    run_->ReadBlocks(b, n, buf_.data(), counter_);
    buf_first_ = b;
    buf_blocks_ = n;
  }
  block_ = b;
  in_block_ = run_->EntriesInBlock(b);
  idx_ = 0;
}

void RunIterator::Settle() {
  while (idx_ >= in_block_) {
    if (block_ + 1 >= run_->data_blocks()) {
      valid_ = false;
      return;
    }
    LoadBlock(block_ + 1);
  }
  const uint64_t bb = run_->layout().block_bytes;
  cur_ = buf_.data() + (block_ - buf_first_) * bb + idx_ * run_->layout().entry_bytes;
  key_ = DecodeKey(cur_);
}

void RunIterator::Next() {
  ++idx_;
  Settle();
}

bool RunIterator::tombstone() const {
  if (run_->tombstone_count() == 0) return false;
  return run_->IsTombstone(key_);
}

}  // namespace wacky
