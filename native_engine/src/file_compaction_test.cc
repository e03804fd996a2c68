// file_compaction_test.cc — the file pickers of file-granular merges.
// (The merges themselves are checked through the engine in engine_test.cc.)
#include "file_compaction.h"

#include <string>
#include <vector>

#include "run_writer.h"
#include "testharness.h"

namespace wacky {
namespace {

// A run file holding the keys [lo, lo + n).
RunPtr MakeRun(const std::string& dir, uint64_t id, uint64_t lo, uint64_t n) {
  IOCounter io, sums;
  RunWriter w(id, RunFileName(dir, id), RunLayout{16, 48}, &io, &sums, nullptr, false, false);
  for (uint64_t k = lo; k < lo + n; ++k) w.Add(k, nullptr, false);
  std::vector<uint64_t> hashes;
  return w.Finish(&hashes);
}

Options Pick(int pick) {
  Options o;
  o.granularity = kFileGranularity;
  o.file_pick = pick;
  return o;
}

TEST(PickFile, LeastOverlapTakesTheSmallestRatio) {
  test::TempDir dir;
  const std::string d = dir.path();
  Level level, below;
  level.runs = {MakeRun(d, 1, 0, 10), MakeRun(d, 2, 20, 10), MakeRun(d, 3, 40, 10)};
  // Overlaps: 15 entries under the first file, 4 under the second, 5 under the third.
  below.runs = {MakeRun(d, 4, 0, 15), MakeRun(d, 5, 25, 4), MakeRun(d, 6, 45, 5)};
  CHECK_EQ(PickFile(Pick(kLeastOverlap), level, below), 1u);
  // Ratios, not counts: a file of 40 entries over 8 (0.2) beats one of 10 over 4 (0.4).
  level.runs[2] = MakeRun(d, 7, 40, 40);
  below.runs[2] = MakeRun(d, 8, 45, 8);
  CHECK_EQ(PickFile(Pick(kLeastOverlap), level, below), 2u);
  // A tie goes to the smallest key; no overlap at all is ratio 0.
  below.runs = {MakeRun(d, 9, 100, 5)};
  CHECK_EQ(PickFile(Pick(kLeastOverlap), level, below), 0u);
  below.runs = {MakeRun(d, 10, 0, 3)};
  CHECK_EQ(PickFile(Pick(kLeastOverlap), level, below), 1u);
}

TEST(PickFile, RoundRobinAdvancesAndWraps) {
  test::TempDir dir;
  const std::string d = dir.path();
  const Options o = Pick(kRoundRobin);
  Level level, below;
  level.runs = {MakeRun(d, 1, 0, 10), MakeRun(d, 2, 20, 10), MakeRun(d, 3, 40, 10)};
  below.runs = {MakeRun(d, 4, 20, 10)};  // ignored by round-robin
  std::vector<size_t> picks;
  for (int i = 0; i < 5; ++i) {
    const size_t p = PickFile(o, level, below);
    picks.push_back(p);
    level.pick_after = level.runs[p]->max_key();
  }
  // The first pick is the first file, even though its smallest key is 0.
  CHECK(picks == (std::vector<size_t>{0, 1, 2, 0, 1}));
  // The picked file leaves the level and the files after it shift down: the pointer (a key,
  // not an index) still resumes after it.
  level.pick_after = level.runs[0]->max_key();
  level.runs.erase(level.runs.begin());
  CHECK_EQ(PickFile(o, level, below), 0u);
  CHECK_EQ(level.runs[0]->min_key(), 20u);
  // New files between the pointer and the next file are next.
  level.pick_after = 29;
  level.runs.insert(level.runs.begin() + 1, MakeRun(d, 5, 30, 5));
  CHECK_EQ(PickFile(o, level, below), 1u);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
