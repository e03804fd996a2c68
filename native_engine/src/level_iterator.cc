// level_iterator.cc — see level_iterator.h.
#include "level_iterator.h"

#include <algorithm>
#include <utility>

namespace wacky {

LevelIterator::LevelIterator(std::vector<RunPtr> files, uint64_t lo, size_t prefetch_blocks,
                             IOCounter* counter)
    : files_(std::move(files)), prefetch_(prefetch_blocks), counter_(counter) {
  // Files wholly below lo are never opened (no I/O), as a RunIterator skips blocks.
  while (next_ < files_.size() && files_[next_]->max_key() < lo) ++next_;
  Open(lo);
}

void LevelIterator::Open(uint64_t lo) {
  current_ = nullptr;
  while (next_ < files_.size()) {
    it_ = std::make_unique<RunIterator>(files_[next_++], lo, prefetch_, counter_);
    if (it_->Valid()) {
      current_ = it_.get();
      return;
    }
  }
  it_.reset();
}

void LevelIterator::Next() {
  current_->Next();
  if (!current_->Valid()) Open(0);
}

size_t FileFor(const std::vector<RunPtr>& files, uint64_t key) {
  // The last file starting at or below key is the only one that can cover it.
  auto it = std::upper_bound(files.begin(), files.end(), key,
                             [](uint64_t k, const RunPtr& f) { return k < f->min_key(); });
  if (it == files.begin()) return files.size();
  --it;
  return key <= (*it)->max_key() ? static_cast<size_t>(it - files.begin()) : files.size();
}

}  // namespace wacky
