// level_iterator_test.cc — a level of files read as one sorted run, and the file lookup.
#include "level_iterator.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "run_writer.h"
#include "testharness.h"

namespace wacky {
namespace {

const RunLayout kLayout{16, 48};  // 3 entries per block

// A run file holding `keys` (ascending); keys in `tombs` are tombstones.
RunPtr MakeRun(const std::string& dir, uint64_t id, const std::vector<uint64_t>& keys,
               const std::vector<uint64_t>& tombs = {}) {
  IOCounter io, sums;
  RunWriter w(id, RunFileName(dir, id), kLayout, &io, &sums, nullptr, false, false);
  for (uint64_t k : keys) {
    const uint8_t v[8] = {static_cast<uint8_t>(k), 0, 0, 0, 0, 0, 0, 0};
    bool tomb = false;
    for (uint64_t t : tombs) tomb = tomb || t == k;
    w.Add(k, v, tomb);
  }
  std::vector<uint64_t> hashes;
  return w.Finish(&hashes);
}

std::vector<uint64_t> Keys(std::vector<RunPtr> files, uint64_t lo, IOCounter* io) {
  std::vector<uint64_t> out;
  for (LevelIterator it(std::move(files), lo, 1, io); it.Valid(); it.Next())
    out.push_back(it.key());
  return out;
}

TEST(LevelIterator, ConcatenatesFilesFromTheStartKey) {
  test::TempDir dir;
  std::vector<RunPtr> files = {MakeRun(dir.path(), 1, {0, 2, 4}),
                               MakeRun(dir.path(), 2, {10, 11, 12, 13, 14, 15, 16}),
                               MakeRun(dir.path(), 3, {30, UINT64_MAX})};
  IOCounter io;
  CHECK(Keys(files, 0, &io) ==
        (std::vector<uint64_t>{0, 2, 4, 10, 11, 12, 13, 14, 15, 16, 30, UINT64_MAX}));
  CHECK_EQ(io.blocks_read, 1u + 3u + 1u);  // every block once
  CHECK(Keys(files, 3, &io) == (std::vector<uint64_t>{4, 10, 11, 12, 13, 14, 15, 16, 30,
                                                      UINT64_MAX}));
  CHECK(Keys(files, 5, &io) ==
        (std::vector<uint64_t>{10, 11, 12, 13, 14, 15, 16, 30, UINT64_MAX}));
  CHECK(Keys(files, 14, &io) == (std::vector<uint64_t>{14, 15, 16, 30, UINT64_MAX}));
  CHECK(Keys(files, 17, &io) == (std::vector<uint64_t>{30, UINT64_MAX}));
  CHECK(Keys(files, UINT64_MAX, &io) == (std::vector<uint64_t>{UINT64_MAX}));
  CHECK(Keys({}, 0, &io).empty());
  CHECK(Keys({files[0]}, 5, &io).empty());
}

TEST(LevelIterator, OpensAFileOnlyWhenTheScanReachesIt) {
  test::TempDir dir;
  std::vector<RunPtr> files = {MakeRun(dir.path(), 1, {1, 2}), MakeRun(dir.path(), 2, {5, 6}),
                               MakeRun(dir.path(), 3, {8, 9})};
  IOCounter io;
  LevelIterator it(files, 2, 1, &io);
  CHECK_EQ(io.blocks_read, 1u);  // the first file's block only
  CHECK_EQ(it.key(), 2u);
  it.Next();
  CHECK_EQ(io.blocks_read, 2u);
  CHECK_EQ(it.key(), 5u);
  CHECK_EQ(*it.value(), 5);
}

TEST(LevelIterator, TombstonesPassThrough) {
  test::TempDir dir;
  std::vector<RunPtr> files = {MakeRun(dir.path(), 1, {1, 2}, {2}),
                               MakeRun(dir.path(), 2, {5, 6}, {5})};
  IOCounter io;
  std::vector<std::pair<uint64_t, bool>> got;
  for (LevelIterator it(files, 0, 4, &io); it.Valid(); it.Next())
    got.emplace_back(it.key(), it.tombstone());
  CHECK(got == (std::vector<std::pair<uint64_t, bool>>{{1, false}, {2, true}, {5, true},
                                                       {6, false}}));
}

TEST(LevelIterator, FileForFindsTheOneFileCoveringAKey) {
  test::TempDir dir;
  std::vector<RunPtr> files = {MakeRun(dir.path(), 1, {3, 4}), MakeRun(dir.path(), 2, {7, 9}),
                               MakeRun(dir.path(), 3, {20, UINT64_MAX})};
  CHECK_EQ(FileFor(files, 0), 3u);  // below every file
  CHECK_EQ(FileFor(files, 3), 0u);
  CHECK_EQ(FileFor(files, 4), 0u);
  CHECK_EQ(FileFor(files, 5), 3u);  // in a gap
  CHECK_EQ(FileFor(files, 7), 1u);
  CHECK_EQ(FileFor(files, 8), 1u);  // inside the range, absent from the file
  CHECK_EQ(FileFor(files, 9), 1u);
  CHECK_EQ(FileFor(files, 19), 3u);
  CHECK_EQ(FileFor(files, 20), 2u);
  CHECK_EQ(FileFor(files, UINT64_MAX), 2u);
  CHECK_EQ(FileFor({}, 5), 0u);
  CHECK_EQ(FileFor({files[0]}, 10), 1u);  // above the last file
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
