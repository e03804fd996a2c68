// file_compaction_test.cc — the file pickers of file-granular merges, and L2SM's pseudo and
// aggregated compactions carried out on hand-built trees (sst_log.h plans them).
// (The merges themselves are checked through the engine in engine_test.cc and
// engine_l2sm_test.cc.)
#include "file_compaction.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "run_iterator.h"
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

// ---- L2SM ----------------------------------------------------------------------------

// Entries of 16 bytes (8-byte values), 3 per block; files of `file_blocks` blocks.
Options LogOptions(uint64_t file_blocks) {
  Options o;
  o.entry_bytes = 16;
  o.block_bytes = 48;
  o.buffer_bytes = 96;
  o.granularity = kFileGranularity;
  o.file_bytes = 48 * file_blocks;
  o.log_ratio = 0.5;
  o.log_alpha = 1.0;  // hotness alone picks: the tests set it
  o.log_batch_cap = 2;
  o.Validate();
  return o;
}

// A run file holding the keys lo..hi, each value 8 bytes of `tag`, with the given hotness.
RunPtr Tagged(const std::string& dir, uint64_t id, uint64_t lo, uint64_t hi, uint8_t tag,
              double hotness = 0.0) {
  IOCounter io, sums;
  RunWriter w(id, RunFileName(dir, id), RunLayout{16, 48}, &io, &sums, nullptr, false, false);
  const std::vector<uint8_t> value(8, tag);
  for (uint64_t k = lo; k <= hi; ++k) w.Add(k, value.data(), false);
  std::vector<uint64_t> hashes;
  RunPtr r = w.Finish(&hashes);
  r->SetHotness(hotness, hotness);
  return r;
}

// `n` levels with the given tree capacities (log capacities are set by the tests), FPR 1%.
Version Levels(const std::vector<double>& capacities) {
  Version v;
  v.next_run_id = 1000;
  for (double c : capacities) {
    Level l;
    l.capacity = c;
    l.fpr = 0.01;
    v.levels.push_back(l);
  }
  return v;
}

std::vector<uint64_t> Ids(const std::vector<RunPtr>& runs) {
  std::vector<uint64_t> ids;
  for (const auto& r : runs) ids.push_back(r->id());
  return ids;
}

// The value tag of each key of `files`, in key order.
std::vector<std::pair<uint64_t, uint8_t>> Contents(const std::vector<RunPtr>& files) {
  std::vector<std::pair<uint64_t, uint8_t>> out;
  IOCounter io;
  for (const auto& f : files)
    for (RunIterator it(f, 0, 4, &io); it.Valid(); it.Next()) out.push_back({it.key(), it.value()[0]});
  return out;
}

// A buffer holding `keys` (no values) flushed into `v` by a FileCompaction, its files
// written under `dir`; Install() is left to the test.
struct Flushed {
  static Buffer Holding(const Options& o, const std::vector<uint64_t>& keys) {
    Buffer b(o.buffer_entries(), o.value_bytes());
    for (uint64_t k : keys) b.Put(k, nullptr, false);
    return b;
  }
  Flushed(const Options& o, const Version& v, const std::vector<uint64_t>& keys,
          const std::string& dir)
      : buffer(Holding(o, keys)), job(o, v, buffer, false) {
    job.Write(dir, &faults, &stats);
  }
  Buffer buffer;
  IOStats stats;
  FaultInjector faults;
  FileCompaction job;
};

// A pseudo compaction moves the files the tree's picker chooses (least overlap: files 2 and
// 3 have nothing below them, file 1 and the flush's files as much as themselves, and a tie
// goes to the smaller key) into the log, with no I/O:
// the flush writes its own file and reads and merges nothing. Hotness plays no part.
TEST(PseudoCompaction, MovesFilesWithoutIO) {
  test::TempDir dir;
  const std::string d = dir.path();
  const Options o = LogOptions(1);  // 3 entries per file
  Version v = Levels({6, 1e9});
  v.levels[0].log_capacity = 1000;
  v.levels[0].runs = {Tagged(d, 1, 0, 2, 1, 5), Tagged(d, 2, 10, 12, 1, 9),
                      Tagged(d, 3, 20, 22, 1, 7)};
  v.levels[1].runs = {Tagged(d, 50, 0, 2, 0xee), Tagged(d, 51, 100, 105, 0xee)};
  Flushed flushed(o, v, {100, 101, 102, 103, 104, 105}, d);  // overlaps no file
  const Level& l1 = flushed.job.next().levels[0];
  CHECK(Ids(l1.log) == (std::vector<uint64_t>{2, 3, 1}));
  CHECK_EQ(l1.entries(), 6u);                                // the flush's two files stay
  CHECK_EQ(flushed.stats.flush.blocks_written, 2u);
  CHECK_EQ(flushed.stats.flush.blocks_read, 0u);
  CHECK_EQ(flushed.stats.MergeTotal().blocks_read + flushed.stats.MergeTotal().blocks_written, 0u);
  flushed.job.Install(&v, &flushed.stats);
  CHECK_EQ(flushed.stats.pseudo_compactions, 3u);
  CHECK_EQ(flushed.stats.aggregated_compactions, 0u);
  CHECK_EQ(flushed.stats.merges, 0u);
  CHECK_EQ(v.levels[0].log.size(), 3u);
}

// The paper's Fig. 6 carried out: CS = {6, 8, 14} merges into Level 2's tree, the newest
// version of each key winning; 2, 21 and 29 stay in the log in their order; I/O is merge[2].
TEST(AggregatedCompaction, MergesTheBatchDownNewestFirst) {
  test::TempDir dir;
  const std::string d = dir.path();
  const Options o = LogOptions(20);  // 60 entries per file
  Version v = Levels({1e9, 1e9, 1e9});
  Level& l1 = v.levels[0];
  l1.log = {Tagged(d, 2, 100, 150, 2, 50), Tagged(d, 6, 5, 12, 6, 40), Tagged(d, 8, 10, 20, 8, 1),
            Tagged(d, 14, 15, 30, 14, 30), Tagged(d, 21, 200, 300, 21, 20),
            Tagged(d, 29, 18, 60, 29, 10)};
  l1.log_capacity = 200;  // 230 entries: one compaction of 35 brings it to 195
  v.levels[1].runs = {Tagged(d, 100, 0, 9, 0xee),  Tagged(d, 101, 11, 14, 0xee),
                      Tagged(d, 102, 16, 25, 0xee), Tagged(d, 103, 26, 29, 0xee),
                      Tagged(d, 104, 31, 35, 0xee), Tagged(d, 105, 36, 40, 0xee),
                      Tagged(d, 106, 41, 45, 0xee), Tagged(d, 107, 46, 50, 0xee),
                      Tagged(d, 108, 51, 55, 0xee), Tagged(d, 109, 56, 60, 0xee)};
  Flushed flushed(o, v, {5000}, d);
  const Version& next = flushed.job.next();
  CHECK(Ids(next.levels[0].log) == (std::vector<uint64_t>{2, 21, 29}));
  const auto& tree = next.levels[1].runs;
  for (size_t f = 1; f < tree.size(); ++f) CHECK_LT(tree[f - 1]->max_key(), tree[f]->min_key());
  std::map<uint64_t, uint8_t> got;
  for (const auto& [k, tag] : Contents(tree)) got[k] = tag;
  CHECK_EQ(got.size(), 61u);  // keys 0..60, each once
  for (uint64_t k = 0; k <= 60; ++k) {
    uint8_t want = 0xee;                // the tree's own version
    if (k >= 5 && k <= 12) want = 6;    // older than 8 and 14
    if (k >= 10 && k <= 20) want = 8;
    if (k >= 15 && k <= 30) want = 14;  // the newest of the batch
    CHECK_EQ(static_cast<int>(got[k]), static_cast<int>(want));
  }
  // Read: 6, 8, 14 (1 block each of 3-entry blocks: 3 + 4 + 6) and IS (4 + 2 + 4 + 2).
  CHECK_EQ(flushed.stats.merge.size(), 2u);
  CHECK_EQ(flushed.stats.merge[1].blocks_read, 3u + 4u + 6u + 4u + 2u + 4u + 2u);
  CHECK_GT(flushed.stats.merge[1].blocks_written, 0u);
  flushed.job.Install(&v, &flushed.stats);
  CHECK_EQ(flushed.stats.aggregated_compactions, 1u);
  CHECK_EQ(flushed.stats.log_files_merged, 3u);
  CHECK_EQ(flushed.stats.merges, 1u);
}

// A batch whose involved files are not contiguous: the outputs are cut so that none spans
// the tree files between them, which stay as they are.
TEST(AggregatedCompaction, OutputsDoNotSpanUntouchedFiles) {
  test::TempDir dir;
  const std::string d = dir.path();
  Options o = LogOptions(20);
  o.log_batch_cap = 1;
  Version v = Levels({1e9, 1e9, 1e9});
  Level& l1 = v.levels[0];
  // Log order A (oldest, coldest: the seed), C, B; B links them and would involve too many.
  l1.log = {Tagged(d, 1, 0, 5, 1, 0), Tagged(d, 2, 50, 55, 2, 10), Tagged(d, 3, 3, 52, 3, 20)};
  l1.log_capacity = 60;  // 62 entries: one compaction
  v.levels[1].runs = {Tagged(d, 10, 0, 5, 0xee), Tagged(d, 11, 20, 25, 0xee),
                      Tagged(d, 12, 30, 35, 0xee), Tagged(d, 13, 40, 45, 0xee),
                      Tagged(d, 14, 50, 55, 0xee)};
  Flushed flushed(o, v, {5000}, d);
  CHECK(Ids(flushed.job.next().levels[0].log) == (std::vector<uint64_t>{3}));
  const auto& tree = flushed.job.next().levels[1].runs;
  CHECK_EQ(tree.size(), 5u);
  for (size_t f = 1; f < tree.size(); ++f) CHECK_LT(tree[f - 1]->max_key(), tree[f]->min_key());
  CHECK_EQ(tree[1]->id(), 11u);  // untouched, between the two outputs
  CHECK_EQ(tree[2]->id(), 12u);
  CHECK_EQ(tree[3]->id(), 13u);
  CHECK_EQ(tree[0]->max_key(), 5u);
  CHECK_EQ(tree[4]->min_key(), 50u);
  CHECK_EQ(static_cast<int>(Contents({tree[4]})[0].second), 2);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
