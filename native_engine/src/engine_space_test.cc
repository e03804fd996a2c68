// engine_space_test.cc — the disk meter (space_meter.h): its arithmetic, its agreement with
// the run files actually on disk through random workloads of every strategy and side run,
// across reopens and a failed merge, and the peak of a merge: its inputs and its output.
#include "space_meter.h"

#include <sys/stat.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine.h"
#include "engine_test_util.h"
#include "env.h"
#include "recovery.h"
#include "testharness.h"

namespace wacky {
namespace {

// The bytes of the run files in `dir` (not lost/, the log or the MANIFEST).
uint64_t RunBytesOnDisk(const std::string& dir) {
  uint64_t sum = 0, id = 0;
  for (const auto& name : ListDir(dir)) {
    if (!ParseRunFileName(name, &id)) continue;
    struct stat st;
    CHECK(::stat((dir + "/" + name).c_str(), &st) == 0);
    sum += static_cast<uint64_t>(st.st_size);
  }
  return sum;
}

uint64_t Current(const Engine& e) { return e.Stats().space->current(); }
uint64_t Peak(const Engine& e) { return e.Stats().space->peak(); }

TEST(SpaceMeter, CountsAndKeepsTheMost) {
  SpaceMeter m;
  m.Add(100);
  m.Add(50);
  m.Sub(120);
  CHECK_EQ(m.current(), 30u);
  CHECK_EQ(m.peak(), 150u);
  m.ResetPeak();
  CHECK_EQ(m.peak(), 30u);
  m.Add(10);
  CHECK_EQ(m.peak(), 40u);
  m.Sub(1000);  // more than counted (a bookkeeping bug) stops at 0, never wraps
  CHECK_EQ(m.current(), 0u);
}

// Options of each kind of tree the engine builds, small enough for many merges.
std::vector<Options> Kinds() {
  std::vector<Options> out;
  Options whole = test::SmallOptions();
  out.push_back(whole);
  Options tiered = test::SmallOptions();
  tiered.K = 1;
  tiered.Z = 1;
  out.push_back(tiered);
  Options staged = test::SmallOptions();
  staged.level1_runs = 3;
  out.push_back(staged);
  Options files = test::SmallOptions(kFileGranularity, 96);
  out.push_back(files);
  Options buffered = test::SmallOptions(kFileGranularity, 96);
  buffered.compaction_buffer = true;
  out.push_back(buffered);
  Options logged = test::SmallOptions(kFileGranularity, 96);
  logged.log_ratio = 0.2;
  out.push_back(logged);
  Options partitioned = test::SmallOptions(kFileGranularity, 96);
  partitioned.l0_partitions = 3;
  partitioned.level1_runs = 2;
  out.push_back(partitioned);
  return out;
}

TEST(EngineSpace, TheMeterIsTheRunFilesOnDiskThroughWorkloadsAndReopens) {
  int kind = 0;
  for (const Options& o : Kinds()) {
    test::TempDir tmp;
    const std::string db = tmp.path() + "/db";
    test::Model model;
    std::mt19937_64 rng(7 + kind++);
    for (int round = 0; round < 3; ++round) {
      Engine e(db, o);
      CHECK_EQ(Current(e), RunBytesOnDisk(db));  // reopened: every listed run counted
      uint64_t most = Current(e);
      for (int i = 0; i < 600; ++i) {
        test::Step(&e, &model, rng() % 400, round * 1000 + i, rng() % 100, 80, 95);
        const uint64_t now = RunBytesOnDisk(db);
        CHECK_EQ(Current(e), now);
        most = std::max(most, now);
      }
      CHECK(Peak(e) >= most);  // the peak also saw what merges held while they ran
      test::CheckGets(&e, model);
    }
  }
}

TEST(EngineSpace, AFailedMergeTakesItsPartialOutputBackOut) {
  for (const Options& o : Kinds()) {
    test::TempDir tmp;
    const std::string db = tmp.path() + "/db";
    Engine e(db, o);
    test::Model model;
    test::Load(&e, &model, 0, 300, 1);
    int failed = 0;
    for (int64_t budget = 0; budget < 4000; budget += 97) {
      e.TEST_InjectWriteFailure(budget);
      try {
        test::Load(&e, &model, 1000, 1100, static_cast<uint64_t>(budget));
      } catch (const IOError&) {
        ++failed;
      }
      e.TEST_InjectWriteFailure(-1);
      CHECK_EQ(Current(e), RunBytesOnDisk(db));
      if (failed > 0) break;
    }
    CHECK(failed > 0);
  }
}

TEST(EngineSpace, AWholeLevelMergePeaksAtItsInputsAndItsOutput) {
  // Leveling: every flush merges the buffer with Level 1's run (and, when Level 1 is full, the
  // levels below it) into one new run, and the inputs go only once the output is complete.
  test::TempDir tmp;
  const std::string db = tmp.path() + "/db";
  Options o = test::SmallOptions();
  Engine e(db, o);
  test::Load(&e, nullptr, 0, 500, 1, 3);
  for (int i = 0; i < 20; ++i) {
    const uint64_t before = Current(e);
    std::vector<uint64_t> ids_before;
    for (const auto& l : e.Levels())
      for (const auto& r : l.runs) ids_before.push_back(r.id);
    e.ResetPeakSpace();
    test::Load(&e, nullptr, 2000 + 8 * i, 2008 + 8 * i, 2);  // one buffer: one flush
    uint64_t written = 0;
    for (const auto& l : e.Levels())
      for (const auto& r : l.runs)
        if (std::find(ids_before.begin(), ids_before.end(), r.id) == ids_before.end())
          written += r.file_bytes;
    CHECK(written > 0);
    CHECK_EQ(Peak(e), before + written);
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
