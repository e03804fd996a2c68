// engine_devices_test.cc — devices (devices.h): levels placed in their directories, the
// per-device byte counts adding up to the bytes the run files carried, the MANIFEST's record
// of where each run is, reopening, and what an open does with the files in a device
// directory that the MANIFEST does not list.
#include "devices.h"

#include <sys/stat.h>

#include <random>
#include <string>
#include <vector>

#include "engine.h"
#include "engine_test_util.h"
#include "env.h"
#include "manifest.h"
#include "recovery.h"
#include "run.h"
#include "testharness.h"

namespace wacky {
namespace {

std::string DirOf(const std::string& file) { return file.substr(0, file.rfind('/')); }

std::vector<uint64_t> RunIdsIn(const std::string& dir) {
  std::vector<uint64_t> ids;
  uint64_t id = 0;
  for (const auto& name : ListDir(dir))
    if (ParseRunFileName(name, &id)) ids.push_back(id);
  return ids;
}

TEST(Devices, MapsLevelsToDirectories) {
  const Devices none("/h", {});
  CHECK_EQ(none.size(), 1u);
  CHECK_EQ(none.ForLevel(0), 0u);
  CHECK_EQ(none.ForLevel(7), 0u);
  // Level 0 and Level 1 at home, Level 2 on /a, Level 3 and below on /b; "/h/" is home.
  const Devices d("/h", {"", "/h/", "/a", "/b/"});
  CHECK_EQ(d.size(), 3u);
  CHECK_EQ(d.dir(1), std::string("/a"));
  CHECK_EQ(d.dir(2), std::string("/b"));
  CHECK_EQ(d.ForLevel(0), 0u);
  CHECK_EQ(d.ForLevel(1), 0u);
  CHECK_EQ(d.ForLevel(2), 1u);
  CHECK_EQ(d.ForLevel(3), 2u);
  CHECK_EQ(d.ForLevel(9), 2u);
  CHECK_EQ(d.Of("/b/run-00000001.sst"), 2u);
  CHECK_EQ(d.Of("/h/run-00000001.sst"), 0u);
  CHECK_EQ(d.Of("/elsewhere/run-00000001.sst"), 0u);
}

TEST(Devices, OptionsRefuseRelativePathsAndWhitespace) {
  Options o = test::SmallOptions();
  for (const std::string bad : {"relative/dir", "/with space", "/tab\there"}) {
    o.level_dirs = {"", bad};
    CHECK_THROWS(o.Validate(), std::invalid_argument, "level_dirs[1]");
  }
  o.level_dirs.assign(65, "");
  CHECK_THROWS(o.Validate(), std::invalid_argument, "at most 64");
}

// Each kind of tree; a test places its levels (level_dirs) itself.
std::vector<Options> Kinds() {
  std::vector<Options> out;
  Options whole = test::SmallOptions();
  Options staged = test::SmallOptions();
  staged.level1_runs = 3;
  Options tiered = test::SmallOptions();
  tiered.K = 1;
  tiered.Z = 1;
  Options files = test::SmallOptions(kFileGranularity, 96);
  Options staged_files = test::SmallOptions(kFileGranularity, 96);
  staged_files.level1_runs = 2;
  Options logged = test::SmallOptions(kFileGranularity, 96);
  logged.log_ratio = 0.2;
  Options buffered = test::SmallOptions(kFileGranularity, 96);
  buffered.compaction_buffer = true;
  return {whole, staged, tiered, files, staged_files, logged, buffered};
}

TEST(EngineDevices, RandomWorkloadsAcrossReopensLoseNothingAndCountEveryByte) {
  int kind = 0;
  test::TempDir tmp;
  for (const Options& o : Kinds()) {
    const std::string slow = tmp.path() + "/slow" + std::to_string(kind);
    Options opt = o;
    opt.level_dirs = {"", "", slow};
    const std::string db = tmp.path() + "/db" + std::to_string(kind);
    test::Model model;
    std::mt19937_64 rng(11 + kind++);
    for (int round = 0; round < 3; ++round) {
      Engine e(db, opt);
      test::CheckGets(&e, model);  // reopened: every run found on its device
      for (int i = 0; i < 700; ++i)
        test::Step(&e, &model, rng() % 500, round * 1000 + i, rng() % 100, 80, 95);
      test::CheckMatches(&e, model, 520, 7);
      const IOStats s = e.Stats();
      CHECK(s.devices != nullptr);
      CHECK_EQ(s.devices->size(), 2u);
      // The devices carried every byte the purposes count, and nothing else.
      const IOCounter total = s.Total();
      CHECK_EQ(s.devices->io(0)->bytes_written() + s.devices->io(1)->bytes_written(),
               total.bytes_written);
      CHECK_EQ(s.devices->io(0)->bytes_read() + s.devices->io(1)->bytes_read(),
               total.bytes_read);
      CHECK(s.devices->io(1)->bytes_written() > 0);  // the deep levels were written there
      // Exactly the merges into Level 2 and below (flushes land in level 0 or Level 1, home).
      uint64_t deep = 0;
      for (size_t i = 1; i < s.merge.size(); ++i) deep += s.merge[i].bytes_written;
      CHECK_EQ(s.devices->io(1)->bytes_written(), deep);
      // Every live run file is where the engine says, and the device directory holds only
      // live run files (merged-away ones are deleted there like at home).
      std::vector<uint64_t> live_on_slow;
      for (const auto& l : e.Levels()) {
        std::vector<RunInfo> runs = l.runs;
        runs.insert(runs.end(), l.log.begin(), l.log.end());  // L2SM's log files
        for (const auto& r : runs) {
          CHECK(FileExists(r.file));
          if (DirOf(r.file) == slow) live_on_slow.push_back(r.id);
        }
      }
      std::vector<uint64_t> on_slow = RunIdsIn(slow);
      std::sort(on_slow.begin(), on_slow.end());
      std::sort(live_on_slow.begin(), live_on_slow.end());
      if (!o.compaction_buffer) CHECK(on_slow == live_on_slow);  // buffered copies: also there
      for (uint64_t id : live_on_slow) CHECK(!FileExists(RunFileName(db, id)));
    }
  }
}

TEST(EngineDevices, NewRunsLandOnTheirLevelsDevice) {
  test::TempDir tmp;
  const std::string db = tmp.path() + "/db", a = tmp.path() + "/a", b = tmp.path() + "/b";
  Options o = test::SmallOptions(kFileGranularity, 96);
  o.level_dirs = {"", a, b};  // Level 1 on a, Level 2 and below on b
  Engine e(db, o);
  test::Load(&e, nullptr, 0, 40, 1);  // a few flushes: Level 1 only
  for (const auto& l : e.Levels())
    for (const auto& r : l.runs) CHECK_EQ(DirOf(r.file), a);
  test::Load(&e, nullptr, 0, 3000, 2, 3);
  // Whatever was renumbered since, each level's files were written on a or b, never home.
  for (const auto& l : e.Levels())
    for (const auto& r : l.runs) CHECK(DirOf(r.file) == a || DirOf(r.file) == b);
  CHECK(RunIdsIn(db).empty());
  CHECK(!RunIdsIn(b).empty());
  const IOStats s = e.Stats();
  CHECK_EQ(s.devices->io(0)->bytes_written(), 0u);
}

TEST(EngineDevices, ReopeningNeedsTheSamePlacement) {
  test::TempDir tmp;
  const std::string db = tmp.path() + "/db", slow = tmp.path() + "/slow";
  Options o = test::SmallOptions();
  o.level_dirs = {"", slow};
  test::Model model;
  {
    Engine e(db, o);
    test::Load(&e, &model, 0, 200, 1);
  }
  Options other = o;
  other.level_dirs = {"", tmp.path() + "/elsewhere"};
  CHECK_THROWS(Engine(db, other), std::invalid_argument, "level_dirs (stored");
  Options none = o;
  none.level_dirs.clear();
  CHECK_THROWS(Engine(db, none), std::invalid_argument, "level_dirs (stored");
  Engine e(db, o);
  test::CheckGets(&e, model);
}

TEST(EngineDevices, TwoEnginesCannotShareADeviceDirectory) {
  test::TempDir tmp;
  const std::string slow = tmp.path() + "/slow";
  Options o = test::SmallOptions();
  o.level_dirs = {"", slow};
  Engine e(tmp.path() + "/one", o);
  CHECK_THROWS(Engine(tmp.path() + "/two", o), IOError, "device directory");
}

TEST(EngineDevices, ANewTreeRefusesADeviceDirectoryHoldingRunFiles) {
  test::TempDir tmp;
  const std::string slow = tmp.path() + "/slow";
  Options o = test::SmallOptions();
  o.level_dirs = {"", slow};
  {
    Engine e(tmp.path() + "/one", o);
    test::Load(&e, nullptr, 0, 300, 1);
  }
  CHECK(!RunIdsIn(slow).empty());
  CHECK_THROWS(Engine(tmp.path() + "/two", o), std::invalid_argument, "already holds run files");
  CHECK(!FileExists(tmp.path() + "/two/MANIFEST"));
}

TEST(EngineDevices, UnlistedFilesOnADeviceGoToItsLostDirectory) {
  test::TempDir tmp;
  const std::string db = tmp.path() + "/db", slow = tmp.path() + "/slow";
  Options o = test::SmallOptions();
  o.level_dirs = {"", slow};
  test::Model model;
  uint64_t stray = 0;
  {
    Engine e(db, o);
    test::Load(&e, &model, 0, 300, 1);
    const auto on_slow = RunIdsIn(slow);
    CHECK(!on_slow.empty());
    // A copy of a live run under an id the MANIFEST never gave out: not listed on the device,
    // and not provably obsolete, so it may not be deleted.
    stray = 900000;
    const std::string from = RunFileName(slow, on_slow[0]);
    std::vector<uint8_t> bytes(FileBytes(from));
    {
      FILE* f = fopen(from.c_str(), "rb");
      CHECK(fread(bytes.data(), 1, bytes.size(), f) == bytes.size());
      fclose(f);
      FILE* g = fopen(RunFileName(slow, stray).c_str(), "wb");
      CHECK(fwrite(bytes.data(), 1, bytes.size(), g) == bytes.size());
      fclose(g);
    }
  }
  Engine e(db, o);
  test::CheckGets(&e, model);
  CHECK(!FileExists(RunFileName(slow, stray)));
  CHECK(FileExists(slow + "/lost/" + RunFileName("", stray).substr(1)));
  CHECK_EQ(e.Stats().files_moved_to_lost, 1u);
}

TEST(EngineDevices, ACrashLeavesNoOrphanOnADevice) {
  // A child writes and dies without closing: its merged-away and half-written files on the
  // device are deleted with proof on the next open, and every acknowledged write is there.
  test::TempDir tmp;
  const std::string db = tmp.path() + "/db", slow = tmp.path() + "/slow";
  Options o = test::SmallOptions(kFileGranularity, 96);
  o.level_dirs = {"", "", slow};
  test::InAChildThatDies([&] {
    Engine e(db, o);
    test::Load(&e, nullptr, 0, 2000, 1, 3);
  });
  Engine e(db, o);
  test::Model model;
  for (uint64_t k = 0; k < 2000; k += 3) model[k] = test::Value(o, k, 1);
  test::CheckGets(&e, model);
  std::vector<uint64_t> live;
  for (const auto& l : e.Levels())
    for (const auto& r : l.runs)
      if (DirOf(r.file) == slow) live.push_back(r.id);
  std::vector<uint64_t> there = RunIdsIn(slow);
  std::sort(live.begin(), live.end());
  std::sort(there.begin(), there.end());
  CHECK(live == there);
  CHECK(!FileExists(slow + "/lost"));
}

TEST(ManifestDevices, RecordsThePlacementAndRefusesABadOne) {
  Manifest m;
  m.options = test::SmallOptions();
  m.options.level_dirs = {"", "/x/slow"};
  m.db_id = 5;
  m.levels.resize(2);
  m.levels[1].push_back(RunRecord{12, 8, 0, 10.0, false, 1, 9});
  m.obsolete = {11};
  m.placed = {{11, 1}, {12, 1}};
  const std::string text = m.Encode();
  const Manifest back = Manifest::Decode(text, "/h/MANIFEST");
  CHECK(back.options.level_dirs == m.options.level_dirs);
  CHECK(back.placed == m.placed);
  CHECK_EQ(RunFilePath(back, "/h", 12), RunFileName("/x/slow", 12));
  CHECK_EQ(RunFilePath(back, "/h", 13), RunFileName("/h", 13));
  // A device index beyond the list is refused, checksum notwithstanding.
  Manifest bad = m;
  bad.placed = {{12, 2}};
  CHECK_THROWS(Manifest::Decode(bad.Encode(), "/h/MANIFEST"), Corruption, "bad placed run");
  Manifest none = m;
  none.options.level_dirs.clear();
  CHECK_THROWS(none.Encode(), std::logic_error, "level_dirs");
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
