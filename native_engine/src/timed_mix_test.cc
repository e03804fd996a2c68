// timed_mix_test.cc — RunMix against a model of the keys, and its refusal of unknown kinds.
#include "timed_mix.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine.h"
#include "engine_test_util.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::Model;

TEST(TimedMix, EachOperationRunsInOrderAndAnswersAsTheEngineDoes) {
  test::TempDir dir;
  Options o = test::SmallOptions();
  o.wal = false;
  Engine e(dir.path() + "/db", o);
  Model model;
  test::Load(&e, &model, 0, 200, 1, 2);  // even keys 0..198: many flushes and merges
  // A get of a loaded key, a put of a new one, a get that sees it, a get of an absent key, a
  // scan over [10, 15] (10, 11, 12, 14), and a put that overwrites.
  const std::vector<uint8_t> kinds = {kMixGet, kMixPut, kMixGet, kMixGet, kMixScan, kMixPut};
  const std::vector<uint64_t> keys = {10, 11, 11, 13, 10, 10};
  const std::vector<uint8_t> value = test::Value(o, 11, 9);
  std::vector<int64_t> nanos(kinds.size());
  std::vector<uint32_t> blocks(kinds.size());
  std::vector<uint64_t> results(kinds.size());
  RunMix(&e, kinds.data(), keys.data(), kinds.size(), value.data(), 5, nanos.data(),
         blocks.data(), results.data());
  CHECK_EQ(results[0], uint64_t{1});
  CHECK_EQ(results[2], uint64_t{1});
  CHECK_EQ(results[3], uint64_t{0});
  CHECK_EQ(results[4], uint64_t{4});
  CHECK_GE(blocks[0], uint32_t{1});  // no cache: a flushed key's get reads its block
  CHECK_EQ(blocks[1], uint32_t{0});
  for (const int64_t t : nanos) CHECK_GT(t, int64_t{0});
  std::vector<uint8_t> got(o.value_bytes());
  CHECK(e.Get(10, got.data()));
  CHECK(got == value);  // the last put landed
  const std::vector<uint8_t> bad = {kMixPut, 3};
  const std::vector<uint64_t> fresh = {500, 501};
  CHECK_THROWS(RunMix(&e, bad.data(), fresh.data(), 2, value.data(), 5, nanos.data(),
                      blocks.data(), results.data()),
               std::invalid_argument, "operation 1 has kind 3");
  CHECK(!e.Get(500, got.data()));  // nothing ran
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
