// merging_iterator_test.cc — k-way merge order and newest-wins, against a model.
#include "merging_iterator.h"

#include <map>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

// A sorted in-memory source; the one-byte value records which source supplied it.
class VectorSource : public EntrySource {
 public:
  VectorSource(std::vector<std::pair<uint64_t, bool>> entries, uint8_t tag)
      : entries_(std::move(entries)), tag_(tag) {}
  bool Valid() const override { return pos_ < entries_.size(); }
  uint64_t key() const override { return entries_[pos_].first; }
  const uint8_t* value() const override { return &tag_; }
  bool tombstone() const override { return entries_[pos_].second; }
  void Next() override { ++pos_; }

 private:
  std::vector<std::pair<uint64_t, bool>> entries_;
  size_t pos_ = 0;
  uint8_t tag_;
};

struct Out {
  uint64_t key;
  uint8_t source;
  bool tombstone;
};

std::vector<Out> Merge(const std::vector<std::vector<std::pair<uint64_t, bool>>>& inputs) {
  std::vector<std::unique_ptr<EntrySource>> sources;
  for (size_t i = 0; i < inputs.size(); ++i)
    sources.push_back(std::make_unique<VectorSource>(inputs[i], static_cast<uint8_t>(i)));
  std::vector<Out> out;
  for (MergingIterator it(std::move(sources)); it.Valid(); it.Next())
    out.push_back({it.key(), *it.value(), it.tombstone()});
  return out;
}

TEST(MergingIterator, NoSourcesOrOnlyEmptySources) {
  CHECK(Merge({}).empty());
  CHECK(Merge({{}, {}, {}}).empty());
}

TEST(MergingIterator, NewestSourceWinsAndTombstonesPassThrough) {
  // Source 0 is the newest.
  const auto out = Merge({
      {{2, true}, {5, false}},
      {{1, false}, {2, false}, {5, false}, {9, false}},
      {{0, false}, {2, false}, {9, true}, {UINT64_MAX, false}},
  });
  const std::vector<uint64_t> keys = {0, 1, 2, 5, 9, UINT64_MAX};
  const std::vector<uint8_t> from = {2, 1, 0, 0, 1, 2};
  const std::vector<bool> tomb = {false, false, true, false, false, false};
  CHECK_EQ(out.size(), keys.size());
  for (size_t i = 0; i < out.size(); ++i) {
    CHECK_EQ(out[i].key, keys[i]);
    CHECK_EQ(out[i].source, from[i]);
    CHECK_EQ(out[i].tombstone, tomb[i]);
  }
}

TEST(MergingIterator, RandomSourcesMatchAModel) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    const size_t k = 1 + rng() % 12;
    std::vector<std::vector<std::pair<uint64_t, bool>>> inputs(k);
    std::map<uint64_t, std::pair<uint8_t, bool>> expect;  // key -> (newest source, tomb)
    for (size_t i = 0; i < k; ++i) {
      std::set<uint64_t> keys;
      const size_t n = rng() % 300;
      // A small key space makes the same key appear in several sources.
      for (size_t j = 0; j < n; ++j) keys.insert(rng() % 1000);
      for (uint64_t key : keys) {
        const bool tomb = rng() % 5 == 0;
        inputs[i].push_back({key, tomb});
        expect.emplace(key, std::make_pair(static_cast<uint8_t>(i), tomb));  // first = newest
      }
    }
    const auto out = Merge(inputs);
    CHECK_EQ(out.size(), expect.size());
    size_t pos = 0;
    for (const auto& [key, st] : expect) {
      CHECK_EQ(out[pos].key, key);
      CHECK_EQ(out[pos].source, st.first);
      CHECK_EQ(out[pos].tombstone, st.second);
      ++pos;
    }
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
