// engine_test.cc — the whole engine in a temporary directory, against a std::map model:
// writes, reads, scans, merges, reopening, locking, recovery clean-up and write faults.
// This is also what the sanitizer build (make sanitize) runs the engine through.
#include "engine.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "directory_check.h"
#include "engine_limits.h"
#include "engine_test_util.h"
#include "env.h"
#include "manifest.h"
#include "recovery.h"
#include "run.h"
#include "scan_iterator.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::CheckGets;
using test::CheckNoTempFiles;
using test::CheckScan;
using test::InAChildThatDies;
using test::Load;
using test::Model;
using test::SmallOptions;
using test::Snapshot;
using test::Value;

// Every key of the model and 200 random ones by Get, everything by Scan, and 20 random
// ranges (some empty: lo > hi) by Scan.
void CheckMatches(Engine* e, const Model& model, std::mt19937_64* rng) {
  CheckGets(e, model);
  std::vector<uint8_t> out(e->options().value_bytes());
  for (int i = 0; i < 200; ++i) {
    const uint64_t k = (*rng)();
    CHECK_EQ(e->Get(k, out.data()), model.count(k) == 1);
  }
  CheckScan(e, model, 0, UINT64_MAX, 7);
  for (int r = 0; r < 20; ++r) {
    uint64_t lo = (*rng)() % 2000, hi = (*rng)() % 2000;
    CheckScan(e, model, lo, hi, 3);
  }
}

// Random puts, overwrites and deletes on several designs (leveling with filters,
// tiering without filters, a hash-table level, uniform filters), checked at the end
// and again after a reopen, which must rebuild the same tree.
TEST(Engine, RandomOperationsMatchAModelAcrossReopen) {
  std::vector<Options> designs(9, SmallOptions());
  // Files and level 0 (file_compaction.h): least overlap, round-robin with a trigger of 3, a
  // trigger under whole-level merges, and files in a hash-table level.
  designs[4].granularity = kFileGranularity;
  designs[4].file_bytes = 96;
  designs[5].granularity = kFileGranularity;
  designs[5].file_bytes = 192;
  designs[5].file_pick = kRoundRobin;
  designs[5].level1_runs = 3;
  designs[6].level1_runs = 3;
  designs[7].granularity = kFileGranularity;
  designs[7].hash_levels = 1;
  designs[1].K = 1;
  designs[1].Z = 1;
  designs[1].bits_per_entry = 0;
  designs[2].hash_levels = 1;
  designs[2].X = 1.5;
  designs[3].uniform_filters = true;
  designs[3].use_sum_fpr = true;
  designs[3].sum_fpr = 0.2;
  // L2SM's per-level log (sst_log.h) with the HotMap, flushes gathering in level 0.
  designs[8].granularity = kFileGranularity;
  designs[8].file_bytes = 192;
  designs[8].level1_runs = 2;
  designs[8].log_ratio = 0.3;
  designs[8].hotness = kHotMap;
  // Block caches of 1 to 7 blocks (block_cache.h): results must not change.
  for (size_t d = 0; d < designs.size(); d += 2) designs[d].cache_bytes = (d + 1) * 96;
  for (size_t d = 0; d < designs.size(); ++d) {
    const Options& o = designs[d];
    test::TempDir dir;
    std::mt19937_64 rng(d + 1);
    Model model;
    std::vector<LevelInfo> before;
    {
      Engine e(dir.path() + "/db", o);
      for (int step = 0; step < 4000; ++step) {
        uint64_t key = rng() % 1500;
        if (step % 997 == 0) key = step % 2 ? UINT64_MAX : 0;  // the extreme keys
        const uint64_t dice = rng() % 100;
        test::Step(&e, &model, key, step, dice, 60, 75);
      }
      CheckMatches(&e, model, &rng);
      const IOStats s = e.Stats();
      CHECK_GT(s.merges, 0u);
      CHECK_GT(e.Levels().size(), 1u);
      CHECK_EQ(test::Sum(s.cache_misses), s.point_read.blocks_read);
      e.Flush();
      CHECK_EQ(e.buffer_size(), 0u);
      before = e.Levels();
      e.Close();
      CHECK(e.closed());
      e.Close();  // idempotent
    }
    Engine e(dir.path() + "/db", o);
    CHECK_GT(e.Stats().recovery.blocks_read, 0u);
    CheckMatches(&e, model, &rng);
    const auto after = e.Levels();
    CHECK_EQ(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) {
      CHECK_EQ(after[i].runs.size(), before[i].runs.size());
      CHECK_EQ(after[i].hash_table, before[i].hash_table);
      CHECK_EQ(after[i].log.size(), before[i].log.size());
      for (size_t j = 0; j < after[i].log.size(); ++j)
        CHECK_EQ(after[i].log[j].id, before[i].log[j].id);  // the same files, the same order
      for (size_t j = 0; j < after[i].runs.size(); ++j) {
        CHECK_EQ(after[i].runs[j].id, before[i].runs[j].id);
        CHECK_EQ(after[i].runs[j].entries, before[i].runs[j].entries);
        CHECK_EQ(after[i].runs[j].hash_indexed, before[i].runs[j].hash_indexed);
        CHECK_EQ(after[i].runs[j].filter_bits_per_key, before[i].runs[j].filter_bits_per_key);
      }
    }
  }
}

TEST(Engine, BatchesAndSnapshotScans) {
  test::TempDir dir;
  const Options o = SmallOptions();
  Engine e(dir.path() + "/db", o);
  const size_t vb = o.value_bytes();
  std::vector<uint64_t> keys;
  std::vector<uint8_t> values;
  for (uint64_t k = 0; k < 300; ++k) {
    keys.push_back(k * 3);
    const auto v = Value(o, k * 3, 0);
    values.insert(values.end(), v.begin(), v.end());
  }
  e.PutMany(keys.data(), values.data(), keys.size());
  keys.push_back(1);  // absent
  std::vector<uint8_t> got(keys.size() * vb, 0xff);
  std::unique_ptr<bool[]> found(new bool[keys.size()]);
  e.GetMany(keys.data(), keys.size(), got.data(), found.get());
  for (size_t i = 0; i + 1 < keys.size(); ++i) CHECK(found[i]);
  CHECK(!found[keys.size() - 1]);
  CHECK(std::memcmp(got.data(), values.data(), values.size()) == 0);
  for (size_t i = values.size(); i < got.size(); ++i) CHECK_EQ(got[i], 0);  // zeroed miss

  // A scan sees the engine as it was when it started, however much changes after.
  auto it = e.Scan(0, 899);
  std::vector<uint64_t> sk;
  std::vector<uint8_t> sv;
  CHECK_EQ(it->NextBatch(1, &sk, &sv), 1u);
  for (uint64_t k = 0; k < 900; ++k) e.Put(k, Value(o, k, 1).data());
  for (uint64_t k = 0; k < 900; k += 2) e.Delete(k);
  while (it->NextBatch(50, &sk, &sv) > 0) {}
  CHECK_EQ(sk.size(), 300u);
  for (size_t i = 0; i < sk.size(); ++i) {
    CHECK_EQ(sk[i], 3 * i);
    CHECK(std::memcmp(sv.data() + i * vb, values.data() + i * vb, vb) == 0);
  }
  auto open_scan = e.Scan(0, 10);
  e.Close();
  CHECK_THROWS(open_scan->NextBatch(1, &sk, &sv), EngineClosed, "closed");
  CHECK_THROWS(e.Put(1, values.data()), EngineClosed, "closed");
  CHECK_THROWS(e.Get(1, got.data()), EngineClosed, "closed");
  CHECK_THROWS(e.Scan(0, 1), EngineClosed, "closed");
  CHECK_THROWS(e.Flush(), EngineClosed, "closed");
  CHECK_THROWS(e.Levels(), EngineClosed, "closed");
}

TEST(Engine, DirectoryIsLockedAndDesignChecked) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  {
    Engine e(path, o);
    CHECK_THROWS(Engine(path, o), IOError, "in use by another open Engine");
  }
  Options other = o;
  other.T = 4;
  CHECK_THROWS(Engine(path, other), std::invalid_argument, "different design: T (stored 3");
  other = o;
  other.uniform_filters = true;
  CHECK_THROWS(Engine(path, other), std::invalid_argument, "filters (stored optimized");
  Engine again(path, o);  // a refused open left the lock free and the directory intact
  other = o;
  other.T = 1;
  CHECK_THROWS(Engine(dir.path() + "/bad", other), std::invalid_argument, "T = 1");
  CHECK(!FileExists(dir.path() + "/bad"));  // validated before touching the disk
}

// A directory with no MANIFEST and no log that holds anything else is another program's:
// refused, naming it and what it holds, with nothing written. An empty existing directory
// is opened as a new one, and an engine's own leftovers (lost/) do not count as foreign.
TEST(Engine, AForeignNonEmptyDirectoryIsRefusedUntouched) {
  test::TempDir dir;
  const std::string path = dir.path() + "/x";
  MakeDirs(path);
  for (const char* name : {"a.txt", "b.csv", "notes"}) std::ofstream(path + "/" + name) << "mine";
  CHECK_THROWS(Engine(path, SmallOptions()), std::invalid_argument,
               "holds 3 files that are not this engine's (a.txt, b.csv, notes)");
  CHECK_THROWS(Engine(path, SmallOptions()), std::invalid_argument, "'" + path + "'");
  CHECK_EQ(ListDir(path).size(), size_t{3});  // no MANIFEST, no log
  CHECK_EQ(ForeignEntries(path).size(), size_t{3});

  const std::string empty = dir.path() + "/empty";
  MakeDirs(empty);
  { Engine e(empty, SmallOptions()); }
  CHECK(FileExists(ManifestFileName(empty)));
  CHECK(ForeignEntries(empty).empty());
  MakeDirs(empty + "/lost");
  CHECK(ForeignEntries(empty).empty());
  std::ofstream(empty + "/run-00000007.sst.obsolete") << "x";
  std::ofstream(empty + "/README") << "x";
  CHECK(ForeignEntries(empty) == std::vector<std::string>{"README"});
  { Engine e(empty, SmallOptions()); }  // an engine directory with a stray file still opens
}

TEST(Engine, RecoveryRemovesOrphansAndRejectsDamagedRuns) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = SmallOptions();
  {
    Engine e(path, o);
    Load(&e, nullptr, 0, 100, 0);
  }
  // A run file no MANIFEST lists and no record proves obsolete: moved to lost/, not
  // deleted. Other names are not ours.
  const std::string orphan = RunFileName(path, 99999999);
  const std::vector<std::string> foreign = {path + "/run-1.sst", path + "/notes.txt",
                                            path + "/run-00000001.sst.obsolete"};
  std::ofstream(orphan) << "partial";
  for (const auto& f : foreign) std::ofstream(f) << "keep me";
  std::string live;
  {
    Engine e(path, o);
    CHECK(!FileExists(orphan));
    CHECK(FileExists(path + "/lost/run-99999999.sst"));
    for (const auto& f : foreign) CHECK(FileExists(f));
    live = RunFileName(path, e.Levels().back().runs.at(0).id);
  }
  // A live run that lost its tail (a torn copy, a bad disk) is refused, not half-read.
  struct stat st;
  CHECK_EQ(::stat(live.c_str(), &st), 0);
  CHECK_EQ(::truncate(live.c_str(), st.st_size - o.block_bytes), 0);
  CHECK_THROWS(Engine(path, o), IOError, "does not match the manifest");
  CHECK_EQ(::unlink(live.c_str()), 0);
  CHECK_THROWS(Engine(path, o), Corruption, "that the MANIFEST lists is missing");
}

std::vector<std::string> Logs(const std::string& dir) {
  std::vector<std::string> out;
  uint64_t n = 0;
  for (const auto& name : ListDir(dir))
    if (ParseLogFileName(name, &n)) out.push_back(name);
  return out;
}

// Writes acknowledged but never flushed are in the log: a process that dies without
// close() loses none of them. Without the log they are lost, as documented.
TEST(Engine, LoggedWritesSurviveAProcessThatDiesWithoutClose) {
  for (bool wal : {true, false}) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    Options o = SmallOptions();
    o.wal = wal;
    Model model;
    for (uint64_t k = 0; k < 43; ++k) model[k * 5] = Value(o, k * 5, 2);  // 43 % 8 != 0
    for (uint64_t k = 0; k < 43; k += 7) model.erase(k * 5);
    InAChildThatDies([&] {
      Engine& e = *new Engine(path, o);  // never closed
      for (uint64_t k = 0; k < 43; ++k) e.Put(k * 5, Value(o, k * 5, 2).data());
      for (uint64_t k = 0; k < 43; k += 7) e.Delete(k * 5);
      if (e.buffer_size() == 0) throw std::logic_error("nothing left unflushed");
    });
    CHECK_EQ(Logs(path).size(), wal ? 1u : 0u);
    Engine e(path, o);
    std::mt19937_64 rng(3);
    if (wal) {
      CheckMatches(&e, model, &rng);
      CHECK_EQ(Logs(path).size(), 1u);  // replayed, flushed, and a new log started
    } else {
      std::vector<uint8_t> out(o.value_bytes());
      size_t differ = 0;  // the writes that were still in the buffer are gone
      for (uint64_t k = 0; k < 43; ++k) differ += e.Get(k * 5, out.data()) != (model.count(k * 5) == 1);
      CHECK(differ > 0);
    }
  }
}

// A failed fdatasync of the log: the write call flushes the buffer into a run instead
// and starts a new log, so it still returns only once the write is durable.
TEST(Engine, AFailedLogSyncIsCoveredByAFlush) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  o.sync = true;
  Model model;
  InAChildThatDies([&] {
    Engine& e = *new Engine(path, o);  // never closed
    Load(&e, nullptr, 0, 3, 0);
    const auto before = Logs(path);
    if (e.Stats().flushes != 0) throw std::logic_error("flushed too early");
    e.TEST_FailLogSync(true);
    e.Put(3, Value(o, 3, 0).data());  // returns: the flush made it durable
    if (e.Stats().flushes != 1 || e.buffer_size() != 0 || Logs(path) == before)
      throw std::logic_error("the failed log was not replaced by a flush");
    e.TEST_FailLogSync(false);
    e.Put(4, Value(o, 4, 0).data());  // into the new log
    if (e.Stats().flushes != 1) throw std::logic_error("the new log does not work");
  });
  for (uint64_t k = 0; k <= 4; ++k) model[k] = Value(o, k, 0);
  Engine e(path, o);
  std::mt19937_64 rng(4);
  CheckMatches(&e, model, &rng);
}

// A damaged block is reported naming the file and block, never returned as a value;
// blocks around it still answer.
TEST(Engine, ADamagedBlockIsAnErrorNeverAValue) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = SmallOptions();
  Engine e(path, o);
  Load(&e, nullptr, 0, 200, 0);
  e.Flush();
  CHECK_EQ(e.Verify().blocks, [&] {
    uint64_t n = 0;
    for (const auto& l : e.Levels())
      for (const auto& r : l.runs) n += r.blocks + (r.tombstones + 11) / 12;
    return n;
  }());
  const RunInfo largest = e.Levels().back().runs.at(0);
  const std::string file = RunFileName(path, largest.id);
  const uint64_t key = largest.min_key;  // in block 0
  test::FlipByte(file, 20, 0x04);  // inside entry 0's value
  std::vector<uint8_t> out(o.value_bytes());
  CHECK_THROWS(e.Get(key, out.data()), Corruption, "block 0 fails its checksum");
  CHECK_THROWS(e.Verify(), Corruption, file);
  CHECK(e.Get(largest.max_key, out.data()));  // the last block is sound
  CHECK(out == Value(o, largest.max_key, 0));
  e.Close();
  CHECK_THROWS(Engine(path, o), Corruption, "block 0 fails its checksum");
}

// Filters live only in memory; Verify() checks each against its checksum and its keys.
TEST(Engine, VerifyFindsADamagedFilter) {
  for (int hash_levels : {0, 1}) {
    test::TempDir dir;
    Options o = SmallOptions();
    o.hash_levels = hash_levels;
    Engine e(dir.path() + "/db", o);
    for (uint64_t k = 0; k < 300; ++k) e.Put(k * 3, Value(o, k, 0).data());
    e.Flush();
    const VerifyReport sound = e.Verify();
    CHECK(sound.runs > 1);
    CHECK_EQ(sound.entries, [&] {
      uint64_t n = 0;
      for (const auto& l : e.Levels())
        for (const auto& r : l.runs) n += r.entries;
      return n;
    }());
    CHECK(e.TEST_DamageFilter());
    CHECK_THROWS(e.Verify(), Corruption, "fail their checksum (damaged in memory)");
  }
}

// When the data outgrows the design (2^64 - 1 runs in Level 1), the flush is refused by
// name; every acknowledged write stays readable, close() keeps the buffer in the log and
// reopening replays it without the refused flush. Without a log, close() must refuse.
TEST(Engine, DataThatOutgrowsTheDesignStaysReadableAcrossReopen) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  o.T = 2;
  o.C = 1;
  o.X = 64;
  o.K = 1;
  o.Z = 1;
  Model model;
  std::mt19937_64 rng(8);
  uint64_t k = 0;
  {
    Engine e(path, o);
    try {
      for (; k < 100000; ++k) {
        e.Put(k, Value(o, k, 0).data());
        model[k] = Value(o, k, 0);
      }
      test::Fail(__FILE__, __LINE__, "the design was never refused");
    } catch (const DesignLimit& err) {
      CHECK(std::string(err.what()).find("more than the limit of 1000000") != std::string::npos);
    }
    const uint64_t buffered = k - 1;  // acknowledged, still in the buffer
    e.Put(buffered, Value(o, buffered, 1).data());  // an overwrite needs no flush
    model[buffered] = Value(o, buffered, 1);
    CheckMatches(&e, model, &rng);
    e.Close();
  }
  for (int round = 0; round < 2; ++round) {
    Engine e(path, o);
    CheckMatches(&e, model, &rng);
    CHECK_THROWS(e.Put(k + 1000, Value(o, k, 0).data()), DesignLimit, "runs in Level 1");
    e.Put(k - 2, Value(o, k - 2, 2 + round).data());
    model[k - 2] = Value(o, k - 2, 2 + round);
  }
  Options no_log = o;
  no_log.wal = false;
  Engine e(path, no_log);  // replays the logs; they stay live, since no flush covers them
  CheckMatches(&e, model, &rng);
  CHECK_THROWS(e.Close(), DesignLimit, "runs in Level 1");
  CHECK_EQ(Logs(path).size(), 3u);  // one per open with a log, all still live
}

// Under file granularity, after every write call: Levels 1..L-1 hold at most their capacity,
// each level's files are disjoint, in key order and at most file_entries() long, and level 0
// holds at most level1_runs - 1 runs. Deletes later shrink Level L, and with it n_est and
// every capacity: the levels above must still fit. Both pickers, triggers of 1, 2 and 3.
TEST(Engine, FileGranularityKeepsLevelsWithinCapacity) {
  for (int variant = 0; variant < 4; ++variant) {
    test::TempDir dir;
    Options o = SmallOptions();
    o.granularity = kFileGranularity;
    o.file_bytes = 192;
    o.file_pick = variant % 2 ? kRoundRobin : kLeastOverlap;
    o.level1_runs = 1 + variant % 3;
    Engine e(dir.path() + "/db", o);
    std::mt19937_64 rng(variant + 11);
    uint64_t files_seen = 0;
    for (int step = 0; step < 3000; ++step) {
      const uint64_t key = rng() % (step < 1800 ? 3000 : 400);
      if (step >= 1800 && rng() % 10 < 7) {
        e.Delete(rng() % 3000);
      } else {
        e.Put(key, Value(o, key, step).data());
      }
      const auto levels = e.Levels();
      size_t first = 0;
      if (o.level1_runs > 1) {
        CHECK_EQ(levels.front().level, 0);
        CHECK(!levels.front().files);
        CHECK(levels.front().runs.size() + 1 <= static_cast<size_t>(o.level1_runs));
        first = 1;
      }
      for (size_t i = first; i < levels.size(); ++i) {
        const auto& l = levels[i];
        CHECK_EQ(l.level, static_cast<int>(i - first + 1));
        CHECK(l.files);
        uint64_t entries = 0;
        for (size_t f = 0; f < l.runs.size(); ++f) {
          entries += l.runs[f].entries;
          CHECK(l.runs[f].entries <= o.file_entries());
          CHECK(l.runs[f].blocks * o.block_bytes <= o.file_bytes);  // data blocks
          CHECK(l.runs[f].min_key <= l.runs[f].max_key);
          if (f > 0) CHECK(l.runs[f - 1].max_key < l.runs[f].min_key);
        }
        if (i + 1 < levels.size()) CHECK(static_cast<double>(entries) <= l.capacity + 1e-9);
        files_seen += l.runs.size();
      }
    }
    CHECK_GT(e.Stats().merges, 0u);
    CHECK_GT(files_seen, 0u);
  }
}

// With whole-level merges, flushes gather in level 0 too: at most level1_runs - 1 at rest,
// then all of them and the buffer merge into the tree at once.
TEST(Engine, Level0HoldsAtMostTheTriggerLessOne) {
  test::TempDir dir;
  Options o = SmallOptions();
  o.level1_runs = 3;
  Engine e(dir.path() + "/db", o);
  std::vector<size_t> sizes;
  for (uint64_t k = 0; k < 8 * 12; ++k) {  // 12 buffers
    e.Put(k * 7919 % 1000, Value(o, k, 0).data());
    const auto levels = e.Levels();
    CHECK_EQ(levels.front().level, 0);
    CHECK_EQ(levels.front().max_runs, 3.0);
    CHECK_EQ(levels.front().capacity, 3.0 * 8);
    CHECK_EQ(levels[1].level, 1);
    CHECK(levels.front().runs.size() <= 2u);
    if (sizes.empty() || sizes.back() != levels.front().runs.size())
      sizes.push_back(levels.front().runs.size());
  }
  CHECK(sizes == (std::vector<size_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
  CHECK_EQ(e.Stats().flushes, 8u);  // the runs staged; the third flush of each batch merges
}

TEST(Engine, CompactionOptionsAreChecked) {
  auto bad = [](auto edit, const char* what) {
    Options o = SmallOptions();
    edit(&o);
    CHECK_THROWS(o.Validate(), std::invalid_argument, what);
  };
  bad([](Options* o) { o->granularity = 2; }, "granularity must be 'level' or 'file'");
  bad([](Options* o) { o->file_pick = 7; }, "file_pick must be");
  bad([](Options* o) { o->level1_runs = 0; }, "level1_runs = 0 must be in [1, 1000]");
  bad([](Options* o) { o->file_bytes = 10; }, "file_bytes must be in [block_bytes");
  bad([](Options* o) { o->file_bytes = 1 << 20; }, "file_bytes must be in [block_bytes");
  bad([](Options* o) {
        o->granularity = kFileGranularity;
        o->K = 1;
      },
      "granularity='file' needs one run per level");
  test::TempDir dir;
  Options o = SmallOptions();
  o.granularity = kFileGranularity;
  Engine(dir.path() + "/db", o).Close();
  Options other = o;
  other.granularity = kLevelGranularity;
  CHECK_THROWS(Engine(dir.path() + "/db", other), std::invalid_argument,
               "granularity (stored file, requested level)");
  other = o;
  other.level1_runs = 4;
  CHECK_THROWS(Engine(dir.path() + "/db", other), std::invalid_argument, "level1_runs");
}

// Writes 60 keys, closes, then writes 5 more that live only in the log (the child dies).
Model Unflushed(const std::string& path, const Options& o) {
  Model model;
  {
    Engine e(path, o);
    Load(&e, &model, 0, 60, 1);
  }
  InAChildThatDies([&] {
    auto* e = new Engine(path, o);  // leaked: no close, no flush
    Load(e, nullptr, 1000, 1005, 2);
  });
  for (uint64_t k = 1000; k < 1005; ++k) model[k] = Value(o, k, 2);
  return model;
}

TEST(Engine, AMissingLiveLogIsAnErrorUnlessTheLossIsAccepted) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  Model model = Unflushed(path, o);
  const auto logs = Logs(path);
  CHECK_EQ(logs.size(), 1u);
  CHECK_EQ(::unlink((path + "/" + logs[0]).c_str()), 0);
  const auto before = Snapshot(path);
  CHECK_THROWS(Engine(path, o), Corruption, "lists as live is missing");
  CHECK(Snapshot(path) == before);
  const DirectoryReport r = CheckDirectory(path);
  CHECK(!r.ok());
  CHECK(r.lost_writes);
  CHECK(Snapshot(path) == before);
  o.wal_recovery = static_cast<int>(WalRecovery::kPointInTimeRecovery);
  Engine e(path, o);
  std::vector<uint8_t> out(o.value_bytes());
  CHECK(e.Get(59, out.data()));
  CHECK(!e.Get(1000, out.data()));  // the accepted loss
}

TEST(Engine, ADamagedLogIsRefusedAndCheckingChangesNothing) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = SmallOptions();
  Model model = Unflushed(path, o);
  const std::string log = path + "/" + Logs(path).at(0);
  {
    DirectoryReport r = CheckDirectory(path);
    CHECK(r.ok());
    CHECK_EQ(r.log_entries, 5u);
  }
  std::string bytes = ReadWholeFile(log);
  bytes[kLogHeaderRecordBytes + 6] ^= 0x01;  // the length of the first batch
  { std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes; }
  const auto before = Snapshot(path);
  CHECK_THROWS(Engine(path, o), Corruption, "record header that fails its checksum");
  const DirectoryReport r = CheckDirectory(path);
  CHECK(r.lost_writes);
  CHECK(Snapshot(path) == before);
}

TEST(Engine, SwappedRunFilesAreRefused) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  o.granularity = kFileGranularity;
  o.file_bytes = 96;
  {
    Engine e(path, o);
    Load(&e, nullptr, 0, 300, 0);
  }
  // Two run files of the same size: swapped, every size check still passes.
  std::map<uint64_t, std::vector<std::string>> by_size;
  uint64_t id = 0;
  for (const auto& name : ListDir(path))
    if (ParseRunFileName(name, &id)) by_size[FileBytes(path + "/" + name)].push_back(name);
  std::vector<std::string> pair;
  for (const auto& [size, names] : by_size)
    if (names.size() >= 2) pair = {names[0], names[1]};
  CHECK_EQ(pair.size(), 2u);
  const std::string a = path + "/" + pair[0], b = path + "/" + pair[1];
  CHECK_EQ(::rename(a.c_str(), (a + ".x").c_str()), 0);
  CHECK_EQ(::rename(b.c_str(), a.c_str()), 0);
  CHECK_EQ(::rename((a + ".x").c_str(), b.c_str()), 0);
  const auto before = Snapshot(path);
  CHECK_THROWS(Engine(path, o), Corruption, "its footer says it is run");
  CHECK(CheckDirectory(path).lost_writes);
  CHECK(Snapshot(path) == before);
}

// An older MANIFEST restored over a newer one: the runs it does not list are kept in
// lost/, not deleted, whatever their ids; with a log, the log it names is gone and the
// open is refused, deleting nothing.
TEST(Engine, ARestoredOlderManifestDeletesNoRun) {
  for (const bool wal : {false, true}) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    Options o = SmallOptions();
    o.K = o.Z = 1;  // tiering: the older runs stay while newer ones arrive beside them
    o.wal = wal;
    std::string old_manifest;
    {
      Engine e(path, o);
      Load(&e, nullptr, 0, 8, 0);
      e.Flush();
      old_manifest = ReadWholeFile(ManifestFileName(path));
      Load(&e, nullptr, 8, 16, 0);
    }
    std::map<std::string, std::string> runs_before;
    uint64_t id = 0;
    for (const auto& [name, bytes] : Snapshot(path))
      if (ParseRunFileName(name, &id)) runs_before[name] = bytes;
    CHECK_EQ(runs_before.size(), 2u);
    { std::ofstream(ManifestFileName(path), std::ios::trunc) << old_manifest; }
    if (wal) {
      const auto before = Snapshot(path);
      CHECK_THROWS(Engine(path, o), Corruption, "lists as live is missing");
      CHECK(Snapshot(path) == before);
      continue;
    }
    {
      Engine e(path, o);
      std::vector<uint8_t> out(o.value_bytes());
      CHECK(e.Get(7, out.data()));  // what the restored MANIFEST describes
    }
    const auto after = Snapshot(path);
    size_t in_lost = 0;
    for (const auto& [name, bytes] : runs_before) {
      const bool kept = after.count(name) != 0 && after.at(name) == bytes;
      const bool lost = after.count("lost/" + name) != 0 && after.at("lost/" + name) == bytes;
      CHECK(kept || lost);
      in_lost += lost ? 1 : 0;
    }
    CHECK_EQ(in_lost, 1u);
  }
}

// A batch bigger than the buffer is logged whole before it is applied; a flush in the
// middle keeps its log live, so a crash after that flush replays all of it.
TEST(Engine, ABatchIsAllOrNothingAcrossACrashInsideIt) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = SmallOptions();
  const uint64_t n = 100;  // 12 buffers' worth
  std::vector<uint64_t> keys(n);
  std::vector<uint8_t> values(n * o.value_bytes());
  for (uint64_t i = 0; i < n; ++i) {
    keys[i] = 5000 + i;
    const auto v = Value(o, keys[i], 9);
    std::copy(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(i * v.size()));
  }
  int whole = 0;
  for (int64_t budget : {2000, 4000, 6000, 9000, 15000}) {
    // Past about 2.6 kB the batch is logged and one of the flushes inside it fails.
    const std::string db = path + std::to_string(budget);
    { Engine e(db, o); }
    InAChildThatDies([&] {
      auto* e = new Engine(db, o);
      e->TEST_InjectWriteFailure(budget);
      try {
        e->PutMany(keys.data(), values.data(), n);
      } catch (const IOError&) {
      }
    });
    Engine e(db, o);
    std::vector<uint8_t> out(o.value_bytes());
    size_t present = 0;
    for (uint64_t k : keys) present += e.Get(k, out.data()) ? 1 : 0;
    CHECK(present == 0 || present == n);
    whole += present == n ? 1 : 0;
  }
  CHECK(whole >= 3);  // the cases where the batch was logged before a flush failed
}

// A log broken by a failed fdatasync whose flush failed too (a full disk) is retired by the
// next batch before that batch is logged, so the batch is never taken for written.
TEST(Engine, ABatchAfterABrokenLogIsLoggedInANewOne) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  o.sync = true;
  std::vector<uint64_t> keys = {7001, 7002, 7003};
  std::vector<uint8_t> values(keys.size() * o.value_bytes(), 0x5a);
  InAChildThatDies([&] {
    auto* e = new Engine(path, o);
    e->Put(1, Value(o, 1, 0).data());
    e->TEST_FailLogSync(true);
    e->TEST_InjectWriteFailure(0);
    try {
      e->Put(2, Value(o, 2, 0).data());  // the sync fails, then the flush covering it
    } catch (const IOError&) {
    }
    e->TEST_FailLogSync(false);
    try {
      e->PutMany(keys.data(), values.data(), keys.size());  // the disk is still full
      ::_exit(4);
    } catch (const IOError&) {
    }
    std::vector<uint8_t> out(o.value_bytes());
    if (e->Get(7001, out.data())) ::_exit(5);  // refused: none of the batch applied
    e->TEST_InjectWriteFailure(-1);
    e->PutMany(keys.data(), values.data(), keys.size());
  });
  Engine e(path, o);
  std::vector<uint8_t> out(o.value_bytes());
  CHECK(e.Get(1, out.data()));
  for (uint64_t k : keys) CHECK(e.Get(k, out.data()));
}

TEST(Engine, AHugeBlockCostsMemoryByTheDataNotByTheChunk) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o;
  o.entry_bytes = 128;
  o.block_bytes = 16u << 20;
  o.buffer_bytes = 16u << 20;
  {
    Engine e(path, o);
    const auto v = Value(o, 1, 1);
    e.Put(1, v.data());
  }
  Engine e(path, o);
  std::vector<uint8_t> out(o.value_bytes());
  CHECK(e.Get(1, out.data()));
  CHECK_EQ(e.Verify().runs, 1u);
}

// Writes fail part-way through flushes and merges; every acknowledged write survives,
// in the running engine and after a reopen, and no temporary file is left behind.
TEST(Engine, InjectedWriteFailuresLoseNothing) {
  for (int variant = 0; variant < 3; ++variant) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = SmallOptions();
  if (variant == 1) {  // many files written per flush, and level 0
    o.granularity = kFileGranularity;
    o.file_bytes = 96;
    o.level1_runs = 2;
  }
  if (variant == 2) {  // and L2SM's logs: failures in the middle of aggregated compactions
    o.granularity = kFileGranularity;
    o.file_bytes = 96;
    o.log_ratio = 0.25;
  }
  Model model;
  std::mt19937_64 rng(5);
  uint64_t k = 40;
  int failures = 0;
  {
    Engine e(path, o);
    Load(&e, &model, 0, k, 0);
    for (int64_t budget : {0, 50, 200, 1000, 3000}) {
      e.TEST_InjectWriteFailure(budget);
      try {
        for (int i = 0; i < 10000; ++i, ++k) {
          const auto v = Value(o, k, 0);
          e.Put(k, v.data());
          model[k] = v;  // acknowledged
        }
      } catch (const IOError& err) {
        CHECK_EQ(err.code(), ENOSPC);
        ++failures;
        // A call that raises may have been applied (engine.h): when the flush succeeded and
        // the log's write failed, the write is in the buffer. Nothing else may appear.
        std::vector<uint8_t> out(o.value_bytes());
        e.TEST_InjectWriteFailure(-1);
        if (e.Get(k, out.data())) model[k] = Value(o, k, 0);
      }
      e.TEST_InjectWriteFailure(-1);
      CheckMatches(&e, model, &rng);
    }
    e.TEST_InjectWriteFailure(0);
    CHECK_THROWS(e.Close(), IOError, "injected fault");  // Close() must flush: that fails too
    CHECK(!e.closed());
    e.TEST_InjectWriteFailure(-1);
    e.Close();
  }
  CHECK_EQ(failures, 5);
  CheckNoTempFiles(path);
  Engine e(path, o);
  CheckMatches(&e, model, &rng);
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
