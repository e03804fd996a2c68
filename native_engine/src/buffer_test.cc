// buffer_test.cc — the write buffer against a std::map model.
#include "buffer.h"

#include <cstring>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

constexpr uint64_t kValueBytes = 16;

std::vector<uint8_t> ValueFor(uint64_t key, uint64_t salt) {
  std::vector<uint8_t> v(kValueBytes);
  const uint64_t a = key * 0x9e3779b97f4a7c15ULL + salt, b = ~a;
  std::memcpy(v.data(), &a, 8);
  std::memcpy(v.data() + 8, &b, 8);
  return v;
}

// Drains a source into (key, tombstone, value) triples.
struct Entry {
  uint64_t key;
  bool tombstone;
  std::vector<uint8_t> value;
};
std::vector<Entry> Drain(EntrySource* s) {
  std::vector<Entry> out;
  for (; s->Valid(); s->Next())
    out.push_back({s->key(), s->tombstone(),
                   std::vector<uint8_t>(s->value(), s->value() + kValueBytes)});
  return out;
}

TEST(Buffer, PutGetOverwriteDelete) {
  Buffer b(8, kValueBytes);
  CHECK_EQ(b.capacity(), 8u);
  std::vector<uint8_t> out(kValueBytes);
  CHECK(b.Get(1, out.data()) == Buffer::Lookup::kAbsent);
  b.Put(1, ValueFor(1, 0).data(), false);
  b.Put(2, ValueFor(2, 0).data(), false);
  CHECK(b.Get(1, out.data()) == Buffer::Lookup::kFound);
  CHECK(out == ValueFor(1, 0));
  b.Put(1, ValueFor(1, 7).data(), false);  // overwrite in place: size unchanged
  CHECK_EQ(b.size(), 2u);
  CHECK(b.Get(1, out.data()) == Buffer::Lookup::kFound);
  CHECK(out == ValueFor(1, 7));
  b.Put(2, nullptr, true);
  CHECK(b.Get(2, out.data()) == Buffer::Lookup::kDeleted);
  CHECK(b.Contains(2));
  CHECK_EQ(b.size(), 2u);
  b.Put(2, ValueFor(2, 3).data(), false);  // a put after a delete revives the key
  CHECK(b.Get(2, nullptr) == Buffer::Lookup::kFound);
}

TEST(Buffer, FullRefusesNewKeysButAcceptsOverwrites) {
  Buffer b(4, kValueBytes);
  for (uint64_t k = 0; k < 4; ++k) b.Put(k * 1000, ValueFor(k, 0).data(), false);
  CHECK(b.Full());
  CHECK_THROWS(b.Put(99, ValueFor(99, 0).data(), false), std::logic_error, "full buffer");
  b.Put(2000, ValueFor(2, 1).data(), true);  // existing key: allowed when full
  CHECK_EQ(b.size(), 4u);
  b.Clear();
  CHECK_EQ(b.size(), 0u);
  CHECK(!b.Full());
  CHECK(b.Get(0, nullptr) == Buffer::Lookup::kAbsent);
  b.Put(99, ValueFor(99, 0).data(), false);
  CHECK(b.Get(99, nullptr) == Buffer::Lookup::kFound);
}

TEST(Buffer, SortedSlotsAreOrderedAndRangeLimited) {
  Buffer b(16, kValueBytes);
  const std::vector<uint64_t> keys = {UINT64_MAX, 5, 0, 77, 6, 1ULL << 40};
  for (uint64_t k : keys) b.Put(k, ValueFor(k, 0).data(), false);
  std::vector<uint64_t> got;
  for (uint32_t s : b.SortedSlots()) got.push_back(b.key(s));
  CHECK(got == (std::vector<uint64_t>{0, 5, 6, 77, 1ULL << 40, UINT64_MAX}));
  got.clear();
  for (uint32_t s : b.SortedSlots(5, 77)) got.push_back(b.key(s));  // inclusive bounds
  CHECK(got == (std::vector<uint64_t>{5, 6, 77}));
  CHECK(b.SortedSlots(8, 76).empty());
  CHECK(b.SortedSlots(10, 9).empty());
}

// Random puts, overwrites and deletes; the buffer must agree with a map at every step,
// and both kinds of BufferSource must stream the map's contents in order.
TEST(Buffer, RandomOperationsMatchAModel) {
  std::mt19937_64 rng(12345);
  const uint64_t capacity = 500;
  Buffer b(capacity, kValueBytes);
  std::map<uint64_t, std::pair<bool, std::vector<uint8_t>>> model;  // key -> (tomb, value)
  std::vector<uint8_t> out(kValueBytes);
  for (int step = 0; step < 5000; ++step) {
    const uint64_t key = rng() % 800;  // collisions and overwrites are common
    if (b.Full() && !b.Contains(key)) {
      CHECK_EQ(model.size(), capacity);
      break;
    }
    if (rng() % 4 == 0) {
      b.Put(key, nullptr, true);
      model[key] = {true, std::vector<uint8_t>(kValueBytes, 0)};
    } else {
      const auto v = ValueFor(key, step);
      b.Put(key, v.data(), false);
      model[key] = {false, v};
    }
    const uint64_t probe = rng() % 800;
    const auto it = model.find(probe);
    const Buffer::Lookup r = b.Get(probe, out.data());
    if (it == model.end()) {
      CHECK(r == Buffer::Lookup::kAbsent);
    } else if (it->second.first) {
      CHECK(r == Buffer::Lookup::kDeleted);
    } else {
      CHECK(r == Buffer::Lookup::kFound);
      CHECK(out == it->second.second);
    }
  }
  CHECK_EQ(b.size(), model.size());

  BufferSource live(&b, b.SortedSlots());
  BufferSource copy(b, 100, 600, kValueBytes);
  const auto all = Drain(&live);
  CHECK_EQ(all.size(), model.size());
  size_t i = 0;
  for (const auto& [k, tv] : model) {
    CHECK_EQ(all[i].key, k);
    CHECK_EQ(all[i].tombstone, tv.first);
    CHECK(all[i].value == tv.second);
    ++i;
  }
  // The copying source is a snapshot: later writes do not show through it.
  b.Clear();
  b.Put(150, ValueFor(150, 99999).data(), false);
  const auto ranged = Drain(&copy);
  auto lo = model.lower_bound(100), hi = model.upper_bound(600);
  CHECK_EQ(ranged.size(), static_cast<size_t>(std::distance(lo, hi)));
  i = 0;
  for (auto it = lo; it != hi; ++it, ++i) {
    CHECK_EQ(ranged[i].key, it->first);
    CHECK(ranged[i].value == it->second.second);
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
