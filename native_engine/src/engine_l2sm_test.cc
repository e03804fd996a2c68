// engine_l2sm_test.cc — the engine with L2SM's per-level log (Options::log_ratio > 0,
// sst_log.h) against a std::map model: long random workloads with updates, deletes and scans
// while overlapping log files hold several versions of keys, both hotness sources, reopening,
// the options and their reopen rules, log_ratio = 0 doing exactly the I/O it always did,
// failed flushes and a crash in the middle of aggregated compactions, and a damaged log file
// under salvage.
#include "engine.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "directory_check.h"
#include "engine_test_util.h"
#include "env.h"
#include "manifest.h"
#include "run.h"
#include "scan_iterator.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::CheckNoTempFiles;
using test::CheckScan;
using test::InAChildThatDies;
using test::Model;
using test::Value;

// Tiny files (4 entries) and buffers (8 entries): logs fill within a few hundred writes.
Options L2sm(int hotness = kExactHotness) {
  Options o = test::SmallOptions(kFileGranularity, 96);
  o.log_ratio = 0.2;
  o.hotness = hotness;
  return o;
}

// Every key of [0, universe) by Get, everything by Scan, and 10 random ranges by Scan.
void CheckMatches(Engine* e, const Model& model, std::mt19937_64* rng, uint64_t universe) {
  test::CheckMatches(e, model, universe, 5);
  for (int r = 0; r < 10; ++r) {
    const uint64_t lo = (*rng)() % universe, hi = lo + (*rng)() % 200;
    CheckScan(e, model, lo, hi, 5);
  }
}

// The ids of every level's files and log files, and the level numbers: the tree's state.
std::vector<std::vector<uint64_t>> Shape(Engine* e) {
  std::vector<std::vector<uint64_t>> out;
  for (const auto& l : e->Levels()) {
    std::vector<uint64_t> ids = {static_cast<uint64_t>(l.level)};
    for (const auto& r : l.runs) ids.push_back(r.id);
    ids.push_back(UINT64_MAX);  // the log's files follow
    for (const auto& r : l.log) ids.push_back(r.id);
    out.push_back(ids);
  }
  return out;
}

// Levels 1..L-1 hold at most their capacity in their trees and their log capacity in their
// logs once a write returns; Level L and level 0 have no log; each tree is disjoint files in
// key order. Returns the number of overlapping pairs of log files seen.
size_t CheckShape(Engine* e) {
  const auto levels = e->Levels();
  size_t overlaps = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    const bool last = i + 1 == levels.size();
    if (l.level == 0 || last) CHECK(l.log.empty());
    if (l.level == 0) continue;
    uint64_t tree = 0, log = 0;
    for (size_t f = 0; f < l.runs.size(); ++f) {
      tree += l.runs[f].entries;
      if (f > 0) CHECK_LT(l.runs[f - 1].max_key, l.runs[f].min_key);
    }
    for (size_t f = 0; f < l.log.size(); ++f) {
      log += l.log[f].entries;
      for (size_t g = 0; g < f; ++g)
        overlaps += l.log[g].min_key <= l.log[f].max_key && l.log[f].min_key <= l.log[g].max_key;
    }
    if (!last) {
      CHECK(static_cast<double>(tree) <= l.capacity + 1e-9);
      CHECK(static_cast<double>(log) <= l.log_capacity + 1e-9);
    }
  }
  return overlaps;
}

TEST(L2sm, OptionsAreCheckedByName) {
  auto bad = [](auto edit, const std::string& what) {
    Options o = L2sm();
    edit(&o);
    CHECK_THROWS(o.Validate(), std::invalid_argument, what);
  };
  L2sm().Validate();
  bad([](Options* o) { o->log_ratio = 1.5; }, "log_ratio = 1.5 must be in [0, 1]");
  bad([](Options* o) { o->log_ratio = -0.1; }, "log_ratio = -0.1 must be in [0, 1]");
  bad([](Options* o) { o->log_alpha = 2; }, "log_alpha = 2 must be in [0, 1]");
  bad([](Options* o) { o->log_batch_cap = 0; }, "log_batch_cap = 0 must be a whole number in [1, 1000]");
  bad([](Options* o) { o->log_batch_cap = 1001; }, "log_batch_cap = 1001");
  bad([](Options* o) { o->hotmap_layers = 17; }, "hotmap_layers = 17 must be a whole number in [1, 16]");
  bad([](Options* o) { o->hotness = 2; }, "hotness must be 'exact' or 'hotmap'; got 2");
  bad([](Options* o) { o->granularity = kLevelGranularity; o->file_bytes = 0; },
      "log_ratio > 0 needs granularity='file'");
  bad([](Options* o) { o->hash_levels = 1; }, "cannot be combined with hash_levels > 0");
  bad([](Options* o) { o->hotness_audit = true; }, "hotness_audit applies only with hotness='hotmap'");
  bad([](Options* o) { o->log_ratio = 0; o->log_alpha = 0.7; },
      "log_alpha applies only with log_ratio > 0");
  bad([](Options* o) { o->log_ratio = 0; o->hotness = kHotMap; },
      "hotness applies only with log_ratio > 0 (L2SM's per-level log); got hotness = 'hotmap'");
  Options audited = L2sm(kHotMap);
  audited.hotness_audit = true;
  audited.Validate();
  // The table spells the options for the bindings.
  CHECK_EQ(FindOption("hotness")->Parse("hotmap"), 1.0);
  CHECK_THROWS(FindOption("hotness")->Parse("lru"), std::invalid_argument,
               "hotness must be 'exact' or 'hotmap'; got 'lru'");
  CHECK(FindOption("nope") == nullptr);
}

// log_ratio, log_alpha and log_batch_cap are part of the design: the MANIFEST records them and
// reopening with other values is refused by name. The hotness source is memory only.
TEST(L2sm, ReopenKeepsTheDesignAndTakesAnyHotness) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = L2sm();
  { Engine e(path, o); }
  CHECK(ReadWholeFile(ManifestFileName(path)).rfind("wacky-manifest 6\n", 0) == 0);
  Options other = o;
  other.log_ratio = 0.3;
  CHECK_THROWS(Engine(path, other), std::invalid_argument, "log_ratio (stored 0.2, requested 0.3)");
  other = o;
  other.log_alpha = 0.25;
  CHECK_THROWS(Engine(path, other), std::invalid_argument, "log_alpha (stored 0.5, requested 0.25)");
  other = o;
  other.log_batch_cap = 3;
  CHECK_THROWS(Engine(path, other), std::invalid_argument, "log_batch_cap (stored 10, requested 3)");
  other = o;
  other.hotness = kHotMap;
  other.hotmap_layers = 3;
  other.hotness_audit = true;
  { Engine e(path, other); }
  // A directory made without logs keeps its version-5 MANIFEST and cannot gain them.
  const std::string plain = dir.path() + "/plain";
  Options none = o;
  none.log_ratio = 0;
  { Engine e(plain, none); }
  CHECK(ReadWholeFile(ManifestFileName(plain)).rfind("wacky-manifest 5\n", 0) == 0);
  CHECK_THROWS(Engine(plain, o), std::invalid_argument, "log_ratio (stored 0, requested 0.2)");
}

// Long random workloads (skewed updates, deletes, gets, scans) with small files, so logs fill,
// overlap and hold several versions of keys: every answer matches the model, the levels stay
// within their capacities, and a reopen recovers the same logs in the same order.
TEST(L2sm, RandomWorkloadsMatchAModelAcrossReopen) {
  struct Case {
    int hotness;
    bool audit;
    int level1_runs;
    double alpha;
    int cap;
    int pick;
  };
  const std::vector<Case> cases = {{kExactHotness, false, 1, 0.5, 10, kLeastOverlap},
                                   {kHotMap, false, 2, 0.8, 2, kRoundRobin},
                                   {kHotMap, true, 1, 0.2, 1, kLeastOverlap}};
  for (size_t c = 0; c < cases.size(); ++c) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    Options o = L2sm(cases[c].hotness);
    o.hotness_audit = cases[c].audit;
    o.level1_runs = cases[c].level1_runs;
    o.log_alpha = cases[c].alpha;
    o.log_batch_cap = cases[c].cap;
    o.file_pick = cases[c].pick;
    o.hotmap_layers = 4;
    const uint64_t universe = 800;
    std::mt19937_64 rng(c + 5);
    Model model;
    size_t overlaps = 0;
    std::vector<std::vector<uint64_t>> before;
    {
      Engine e(path, o);
      for (int step = 0; step < 3000; ++step) {
        // Half the writes go to 40 hot keys, spread over the key space.
        const uint64_t key = rng() % 2 ? (rng() % 40) * 19 : rng() % universe;
        const uint64_t dice = rng() % 100;
        test::Step(&e, &model, key, step, dice, 65, 80);
        if (step % 50 == 0) overlaps += CheckShape(&e);
        if (step % 1000 == 999) CheckMatches(&e, model, &rng, universe);
      }
      const IOStats s = e.Stats();
      CHECK_GT(s.pseudo_compactions, 0u);
      CHECK_GT(s.aggregated_compactions, 0u);
      CHECK_GE(s.log_files_merged, s.aggregated_compactions);
      CHECK_GE(s.merges, s.aggregated_compactions);
      CHECK_EQ(s.hotness_picks > 0, cases[c].audit);
      CHECK(s.hotness_picks_agree <= s.hotness_picks);
      CHECK_EQ(s.log_entries.size(), e.Levels().size() - (o.level1_runs > 1 ? 1 : 0));
      CHECK_GT(overlaps, 0u);  // log files overlapped while the answers were checked
      const VerifyReport v = e.Verify();
      uint64_t files = 0;
      for (const auto& l : e.Levels()) files += l.runs.size() + l.log.size();
      CHECK_EQ(v.runs, files);
      e.Flush();
      before = Shape(&e);
    }
    CHECK(CheckDirectory(path).ok());
    Engine e(path, o);
    CHECK(Shape(&e) == before);
    CheckMatches(&e, model, &rng, universe);
  }
}

// With log_ratio = 0 the engine is the one it was before logs existed: a fixed workload does
// exactly the I/O (and MANIFEST bytes) the engine did then (the numbers below were counted by
// the engine of commit 937ff0c, before L2SM, running this very workload).
TEST(L2sm, LogRatioZeroDoesTheSameIO) {
  struct Want {
    uint64_t flush_written, merge_read, merge_written, point, range, merges, flushes, majors,
        created, manifest;
    std::vector<std::pair<uint64_t, uint64_t>> per_level;
  };
  const std::vector<Want> wants = {
      {16, 4365, 7057, 169, 909, 1847, 6, 416, 4795, 2972202,
       {{732, 2047}, {1180, 1886}, {1126, 1671}, {902, 1098}, {425, 355}}},
      {404, 4545, 6172, 178, 994, 934, 142, 210, 2543, 1543965,
       {{635, 1282}, {1183, 1672}, {1253, 1656}, {1013, 1178}, {461, 384}}}};
  test::TempDir dir;
  for (int variant = 0; variant < 2; ++variant) {
    Options o = L2sm();
    o.log_ratio = 0;
    o.file_bytes = 96 * (1 + variant);
    o.level1_runs = 1 + variant;
    o.wal = false;
    Engine e(dir.path() + "/db" + std::to_string(variant), o);
    std::mt19937_64 rng(77);
    std::vector<uint8_t> v(o.value_bytes()), out(o.value_bytes());
    for (int step = 0; step < 3000; ++step) {
      const uint64_t key = rng() % 2500;
      const uint64_t dice = rng() % 100;
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(key + step + i);
      if (dice < 60) {
        e.Put(key, v.data());
      } else if (dice < 75) {
        e.Delete(key);
      } else if (dice < 95) {
        e.Get(key, out.data());
      } else {
        auto it = e.Scan(key, key + 50);
        std::vector<uint64_t> ks;
        std::vector<uint8_t> vs;
        while (it->NextBatch(16, &ks, &vs) > 0) {}
      }
    }
    const IOStats s = e.Stats();
    const Want& w = wants[static_cast<size_t>(variant)];
    CHECK_EQ(s.flush.blocks_read, 0u);
    CHECK_EQ(s.flush.blocks_written, w.flush_written);
    CHECK_EQ(s.MergeTotal().blocks_read, w.merge_read);
    CHECK_EQ(s.MergeTotal().blocks_written, w.merge_written);
    CHECK_EQ(s.point_read.blocks_read, w.point);
    CHECK_EQ(s.range_read.blocks_read, w.range);
    CHECK_EQ(s.merges, w.merges);
    CHECK_EQ(s.flushes, w.flushes);
    CHECK_EQ(s.major_compactions, w.majors);
    CHECK_EQ(s.runs_created, w.created);
    CHECK_EQ(s.manifest_bytes_written, w.manifest);
    CHECK_EQ(s.merge.size(), w.per_level.size());
    for (size_t i = 0; i < s.merge.size(); ++i) {
      CHECK_EQ(s.merge[i].blocks_read, w.per_level[i].first);
      CHECK_EQ(s.merge[i].blocks_written, w.per_level[i].second);
    }
    CHECK_EQ(s.pseudo_compactions + s.aggregated_compactions, 0u);
  }
}

// Writes fail at every point of flushes that carry aggregated compactions, a step at a time
// through their run files and their MANIFEST: each failed flush leaves the tree (files, logs
// and their order) as it was and loses no acknowledged write; the same flush then succeeds.
TEST(L2sm, AFailedFlushLeavesTreeAndLogsAsTheyWere) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = L2sm();
  o.log_ratio = 0.3;
  Model model;
  std::mt19937_64 rng(21);
  const uint64_t universe = 600;
  Engine e(path, o);
  for (int i = 0; i < 400; ++i) {
    const uint64_t k = rng() % universe;
    e.Put(k, Value(o, k, i).data());
    model[k] = Value(o, k, i);
  }
  int with_ac = 0, manifest_failures = 0, run_failures = 0;
  for (int round = 0; round < 60 && with_ac < 3; ++round) {
    e.Flush();
    for (int i = 0; i < 8; ++i) {  // one buffer's worth: no flush until asked
      const uint64_t k = rng() % universe;
      e.Put(k, Value(o, k, 1000 + round).data());
      model[k] = Value(o, k, 1000 + round);
    }
    const auto shape = Shape(&e);
    const uint64_t buffered = e.buffer_size();
    const IOStats before = e.Stats();
    int failed = 0;
    for (int64_t budget = 0;; budget += 61) {
      e.TEST_InjectWriteFailure(budget);
      try {
        e.Flush();
      } catch (const IOError& err) {
        e.TEST_InjectWriteFailure(-1);
        ++failed;
        const std::string what = err.what();
        manifest_failures += what.find("MANIFEST") != std::string::npos;
        run_failures += what.find("/run-") != std::string::npos;
        CHECK(Shape(&e) == shape);
        CHECK_EQ(e.buffer_size(), buffered);
        continue;
      }
      e.TEST_InjectWriteFailure(-1);
      break;
    }
    if (e.Stats().aggregated_compactions > before.aggregated_compactions && failed > 0) ++with_ac;
    CHECK_EQ(e.buffer_size(), 0u);
    CheckShape(&e);
  }
  CHECK_EQ(with_ac, 3);
  CHECK_GT(manifest_failures, 0);
  CHECK_GT(run_failures, 0);
  CheckMatches(&e, model, &rng, universe);
  e.Close();
  CheckNoTempFiles(path);
  CHECK(CheckDirectory(path).ok());
  Engine again(path, o);
  CheckMatches(&again, model, &rng, universe);
}

// A process that dies in the middle of an aggregated compaction (its writes fail, then it
// exits without closing) loses no acknowledged write: the log replays what the MANIFEST does
// not hold, and the files the dead flush wrote are recognised as its uncommitted outputs.
TEST(L2sm, ACrashMidCompactionLosesNothing) {
  for (int64_t budget : {150, 700, 2000, 5000}) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    const std::string mark = dir.path() + "/acknowledged";
    Options o = L2sm(kHotMap);
    const uint64_t universe = 500;
    auto key_of = [](int i) { return static_cast<uint64_t>(i) * 7919 % 500; };
    InAChildThatDies([&] {
      Engine& e = *new Engine(path, o);  // never closed
      int i = 0;
      for (; i < 600; ++i) e.Put(key_of(i), Value(o, key_of(i), i).data());
      uint64_t ac = e.Stats().aggregated_compactions;
      if (ac == 0) throw std::logic_error("no aggregated compaction yet");
      e.TEST_InjectWriteFailure(budget);
      try {
        for (;; ++i) e.Put(key_of(i), Value(o, key_of(i), i).data());
      } catch (const IOError&) {
      }
      std::ofstream(mark) << i;  // puts 0..i-1 were acknowledged; put i raised
      ::_exit(0);
    });
    test::CheckAcknowledgedSurvive(path, mark, o, key_of, 600, universe, 5);
  }
}

// A damaged log file under salvage: keys of its range are answered only from data newer than
// it, or refused; never from the older levels below it.
TEST(L2sm, SalvageSetsADamagedLogFileAside) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = L2sm();
  Model model;
  {
    Engine e(path, o);
    for (int round = 0; round < 4; ++round) test::Load(&e, &model, 0, 300, round);
  }
  RunInfo victim{};
  int victim_level = 0;
  {
    Engine e(path, o);
    for (const auto& l : e.Levels())
      if (!l.log.empty() && victim_level == 0) {
        victim = l.log.front();
        victim_level = l.level;
      }
  }
  CHECK_GT(victim_level, 0);
  const std::string file = RunFileName(path, victim.id);
  test::FlipByte(file, 20, 0x10);
  CHECK_THROWS(Engine(path, o), Corruption, file);
  const DirectoryReport report = CheckDirectory(path);
  CHECK_EQ(report.damaged_runs.size(), 1u);
  CHECK(report.damaged_runs[0].in_log);
  CHECK(report.problems[0].find("'s log") != std::string::npos);
  Options so = o;
  so.salvage = true;
  Engine e(path, so);
  CHECK_EQ(e.SetAside().size(), 1u);
  CHECK(e.SetAside()[0].in_log);
  CHECK_EQ(e.SetAside()[0].level, victim_level);
  std::vector<uint8_t> out(o.value_bytes());
  size_t refused = 0;
  for (const auto& [k, v] : model) {
    try {
      CHECK(e.Get(k, out.data()));
      CHECK(out == v);  // every answer is the newest version
    } catch (const Corruption& err) {
      CHECK(std::string(err.what()).find(file) != std::string::npos);
      CHECK(k >= victim.min_key && k <= victim.max_key);
      ++refused;
    }
  }
  CHECK_GT(refused, 0u);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
