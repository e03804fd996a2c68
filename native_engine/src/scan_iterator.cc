// scan_iterator.cc — see scan_iterator.h.
#include "scan_iterator.h"

#include <mutex>

#include "engine.h"

namespace wacky {

ScanIterator::ScanIterator(Engine* engine, std::unique_ptr<MergingIterator> it, uint64_t hi,
                           uint64_t value_bytes)
    : engine_(engine), it_(std::move(it)), hi_(hi), value_bytes_(value_bytes) {}

size_t ScanIterator::NextBatch(size_t max_entries, std::vector<uint64_t>* keys,
                               std::vector<uint8_t>* values) {
  std::lock_guard<std::mutex> lock(engine_->mu_);
  engine_->CheckOpen();
  size_t n = 0;
  while (!done_ && n < max_entries) {
    if (!it_->Valid() || it_->key() > hi_) {
      done_ = true;
      it_.reset();  // releases the runs and their files
      break;
    }
    if (!it_->tombstone()) {
      keys->push_back(it_->key());
      const uint8_t* v = it_->value();
      values->insert(values->end(), v, v + value_bytes_);
      ++n;
    }
    it_->Next();
  }
  return n;
}

}  // namespace wacky
