// merging_iterator.cc — see merging_iterator.h.
#include "merging_iterator.h"

#include <utility>

namespace wacky {

MergingIterator::MergingIterator(std::vector<std::unique_ptr<EntrySource>> sources)
    : sources_(std::move(sources)) {
  heap_.reserve(sources_.size());
  for (uint32_t r = 0; r < sources_.size(); ++r)
    if (sources_[r]->Valid()) Push(Item{sources_[r]->key(), r});
}

void MergingIterator::Push(Item it) {
  heap_.push_back(it);
  size_t i = heap_.size() - 1;
  while (i > 0) {
    const size_t p = (i - 1) / 2;
    if (!(heap_[i] < heap_[p])) break;
    std::swap(heap_[i], heap_[p]);
    i = p;
  }
}

void MergingIterator::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    const size_t l = 2 * i + 1;
    if (l >= n) return;
    size_t m = l;
    if (l + 1 < n && heap_[l + 1] < heap_[l]) m = l + 1;
    if (!(heap_[m] < heap_[i])) return;
    std::swap(heap_[i], heap_[m]);
    i = m;
  }
}

// Advances the top source and restores the heap.
void MergingIterator::PopTop() {
  EntrySource* s = sources_[heap_[0].rank].get();
  s->Next();
  if (s->Valid()) {
    heap_[0].key = s->key();
  } else {
    heap_[0] = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
  }
  SiftDown(0);
}

void MergingIterator::Next() {
  const uint64_t k = heap_[0].key;
  PopTop();
  // Skip older versions of the same key.
  while (!heap_.empty() && heap_[0].key == k) PopTop();
}

}  // namespace wacky
