// merging_iterator.h — k-way merge of sorted sources with newest-wins semantics.
//
// Contract: sources are given newest first. The iterator yields each distinct key
// once, in increasing order, taking the entry of the newest source that holds it
// (tombstones included: the caller decides whether to keep or drop them); older
// versions are skipped. A binary heap over (key, source rank) costs O(log k) per
// entry and allocates nothing per entry.
#ifndef WACKY_NATIVE_ENGINE_MERGING_ITERATOR_H_
#define WACKY_NATIVE_ENGINE_MERGING_ITERATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "entry_source.h"

namespace wacky {

class MergingIterator {
 public:
  explicit MergingIterator(std::vector<std::unique_ptr<EntrySource>> sources);

  bool Valid() const { return !heap_.empty(); }
  uint64_t key() const { return heap_[0].key; }
  const uint8_t* value() const { return sources_[heap_[0].rank]->value(); }
  bool tombstone() const { return sources_[heap_[0].rank]->tombstone(); }
  void Next();

 private:
  struct Item {
    uint64_t key;
    uint32_t rank;
    bool operator<(const Item& o) const { return key < o.key || (key == o.key && rank < o.rank); }
  };
  void SiftDown(size_t i);
  void Push(Item it);
  void PopTop();

  std::vector<std::unique_ptr<EntrySource>> sources_;
  std::vector<Item> heap_;  // min-heap by (key, rank)
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_MERGING_ITERATOR_H_
