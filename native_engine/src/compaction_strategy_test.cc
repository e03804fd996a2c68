// compaction_strategy_test.cc — the strategy each granularity gets, the refusal of an unknown
// one, and the flush jobs each strategy hands out.
#include "compaction_strategy.h"

#include <stdexcept>
#include <vector>

#include "compaction.h"
#include "file_compaction.h"
#include "merge_policy.h"
#include "testharness.h"

namespace wacky {
namespace {

TEST(CompactionStrategy, LevelGranularityMergesWholeLevels) {
  Options o;
  o.granularity = kLevelGranularity;
  const auto s = CompactionStrategy::For(o);
  CHECK(s != nullptr);
  CHECK_EQ(std::string(s->name()), std::string("level"));
  CHECK(!s->levels_are_files());
}

TEST(CompactionStrategy, FileGranularityMergesFiles) {
  Options o;
  o.granularity = kFileGranularity;
  const auto s = CompactionStrategy::For(o);
  CHECK(s != nullptr);
  CHECK_EQ(std::string(s->name()), std::string("file"));
  CHECK(s->levels_are_files());
}

TEST(CompactionStrategy, UnknownGranularityIsRefused) {
  for (int g : {2, -1, 99}) {
    Options o;
    o.granularity = g;
    CHECK_THROWS(CompactionStrategy::For(o), std::invalid_argument,
                 "no compaction strategy for granularity " + std::to_string(g) +
                     ": expected 0 ('level'");
  }
}

// Which job a flush gets: under whole-level merges a flush that stages in level 0 is the
// file-compaction staging case, every other one a Compaction; under files, always files.
TEST(CompactionStrategy, NewFlushPicksTheJob) {
  Options o;
  Version v;
  ApplyShape(o, 0.0, &v.levels);
  const Buffer buffer(16, o.value_bytes());
  const auto level = CompactionStrategy::For(o);
  {
    const auto job = level->NewFlush(o, v, buffer, false, nullptr, nullptr);
    CHECK(dynamic_cast<Compaction*>(job.get()) != nullptr);
  }
  o.level1_runs = 3;  // level 0 is empty: this flush stages
  {
    const auto job = level->NewFlush(o, v, buffer, false, nullptr, nullptr);
    CHECK(dynamic_cast<FileCompaction*>(job.get()) != nullptr);
  }
  o.level1_runs = 1;
  o.granularity = kFileGranularity;
  const auto files = CompactionStrategy::For(o);
  {
    const auto job = files->NewFlush(o, v, buffer, false, nullptr, nullptr);
    CHECK(dynamic_cast<FileCompaction*>(job.get()) != nullptr);
  }
}

// Two flushes with level1_runs = 2 through the interface: the first stages a run in level 0,
// the second merges it and the buffer into Level 1; nothing is visible before Install().
TEST(CompactionStrategy, JobsWriteAndInstallThroughTheInterface) {
  test::TempDir dir;
  Options o;
  o.level1_runs = 2;
  const auto s = CompactionStrategy::For(o);
  Version current;
  ApplyShape(o, 0.0, &current.levels);
  IOStats stats;
  FaultInjector faults;
  Buffer buffer(16, o.value_bytes());
  std::vector<uint8_t> value(o.value_bytes(), 7);
  for (uint64_t k = 0; k < 10; ++k) buffer.Put(k, value.data(), false);
  {
    const auto job = s->NewFlush(o, current, buffer, false, nullptr, nullptr);
    job->Write(dir.path(), &faults, &stats);
    CHECK(current.level0.empty());
    CHECK_EQ(job->next().level0.size(), 1u);
    job->Install(&current, &stats);
  }
  CHECK_EQ(current.level0.size(), 1u);
  CHECK(current.levels[0].runs.empty());
  CHECK_EQ(stats.flushes, 1u);
  buffer.Clear();
  for (uint64_t k = 5; k < 15; ++k) buffer.Put(k, value.data(), k % 2 == 0);
  {
    const auto job = s->NewFlush(o, current, buffer, false, nullptr, nullptr);
    job->Write(dir.path(), &faults, &stats);
    job->Install(&current, &stats);
  }
  CHECK(current.level0.empty());
  CHECK_EQ(current.levels.back().runs.size(), 1u);
  CHECK_EQ(stats.merges, 1u);
  // Keys 0..14, of which 6, 8, ..., 14 were deleted (dropped: the output is all of Level L).
  CHECK_EQ(current.levels.back().runs[0]->entries(), 10u);
  CHECK_EQ(current.levels.back().runs[0]->tombstone_count(), 0u);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
