// engine_tidal_test.cc — Tidal-tree's floating of hot files (Options::float_gamma > 0,
// floating.h): the read counts and their decay, Eq 1's trigger and Eq 4's destination on
// hand-built trees, Algorithm III.1 carried out by a flush (what is dropped, what is merged,
// what it reads and writes), Eq 5's stretch, the options and their reopen rules, random
// workloads with a hot set against a std::map model across reopens, floats under a skewed
// read load cutting the files a lookup checks, failed flushes that float, and a crash.
#include "engine.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
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
#include "file_compaction.h"
#include "floating.h"
#include "manifest.h"
#include "run_iterator.h"
#include "run_writer.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::InAChildThatDies;
using test::Model;
using test::Value;

// Tiny files (4 entries) and buffers (8 entries), floating on: many levels from few writes.
Options Tidal(double gamma = 1.0) {
  Options o = test::SmallOptions(kFileGranularity, 96);
  o.float_gamma = gamma;
  return o;
}

// ---- hand-built trees ----------------------------------------------------------------

// Entries of 16 bytes (8-byte values), 3 per block, files of up to 60 entries.
Options HandOptions() {
  Options o;
  o.entry_bytes = 16;
  o.block_bytes = 48;
  o.buffer_bytes = 96;
  o.granularity = kFileGranularity;
  o.file_bytes = 48 * 20;
  o.float_gamma = 1.0;
  o.Validate();
  return o;
}

// A run file holding the keys lo..hi, each value 8 bytes of `tag`.
RunPtr Tagged(const std::string& dir, uint64_t id, uint64_t lo, uint64_t hi, uint8_t tag) {
  IOCounter io, sums;
  RunWriter w(id, RunFileName(dir, id), RunLayout{16, 48}, &io, &sums, nullptr, false, false);
  const std::vector<uint8_t> value(8, tag);
  for (uint64_t k = lo; k <= hi; ++k) w.Add(k, value.data(), false);
  std::vector<uint64_t> hashes;
  return w.Finish(&hashes);
}

// Levels of the given capacities, FPR 1%.
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

// (key, tag) of every entry of `files`, in key order.
std::vector<std::pair<uint64_t, uint8_t>> Contents(const std::vector<RunPtr>& files) {
  std::vector<std::pair<uint64_t, uint8_t>> out;
  IOCounter io;
  for (const auto& f : files)
    for (RunIterator it(f, 0, 4, &io); it.Valid(); it.Next()) out.push_back({it.key(), it.value()[0]});
  return out;
}

// `reads` lookups and `writes` writes, with the given files checked `times` each.
void Heat(ReadHeat* heat, const std::map<uint64_t, uint64_t>& times, uint64_t reads,
          uint64_t writes) {
  for (const auto& [id, n] : times)
    for (uint64_t k = 0; k < n; ++k) heat->Checked(id);
  for (uint64_t k = 0; k < reads; ++k) heat->Looked();
  heat->Wrote(writes);
}

TEST(ReadHeat, CountsSharesDecayAndEta) {
  ReadHeat heat(4);
  CHECK_EQ(heat.eta(), 0.0);
  heat.Track({7, 8});
  for (int k = 0; k < 5; ++k) heat.Checked(7);
  heat.Checked(8);
  heat.Wrote(1);
  for (int k = 0; k < 3; ++k) heat.Looked();
  CHECK_EQ(heat.count(7), 5u);
  CHECK_EQ(heat.count(8), 1u);
  CHECK_EQ(heat.count(9), 0u);
  CHECK_EQ(heat.share(9), 0.0);
  CHECK_EQ(heat.eta(), 3.0);  // 3 reads over 1 write
  // A file tracked later is exposed to the lookups since: its share is over those alone.
  heat.Track({7, 8, 9});
  heat.Checked(9);
  heat.Looked();  // the 4th lookup: counts, exposures and tallies halve (counts round down)
  CHECK_EQ(heat.decays(), 1u);
  CHECK_EQ(heat.count(7), 2u);
  CHECK_EQ(heat.count(8), 0u);
  CHECK_EQ(heat.count(9), 0u);
  CHECK_EQ(heat.share(7), 2.0 / 2.0);  // an exposure of 4 lookups, halved
  CHECK_EQ(heat.eta(), 2.0);           // 2 reads over max(1, 0.5) writes
  heat.Checked(9);
  heat.Looked();
  // Tracked at read 3 (halved: 1.5), reads now 3: one check in an exposure of 1.5.
  CHECK(std::fabs(heat.share(9) - 1.0 / 1.5) < 1e-12);
  heat.Wrote(6);                       // 6.5 writes
  CHECK(std::fabs(heat.eta() - 3.0 / 6.5) < 1e-12);
  // A file that left the tree is forgotten; one checked before it was tracked starts then.
  heat.Track({9, 12});
  CHECK_EQ(heat.files(), 2u);
  CHECK_EQ(heat.count(7), 0u);
  heat.Checked(13);
  CHECK_EQ(heat.count(13), 1u);
  CHECK_EQ(heat.share(13), 1.0);  // exposure below 1 counts as 1
  CHECK_THROWS(ReadHeat(0), std::invalid_argument, "float_decay = 0");
}

TEST(Plan, Eq4PricesTheMoveAndEq5StretchesTheLevels) {
  Options o = HandOptions();
  // f = 60 from Level 3 (index 2): c_1 = 1, c_2 = 1.
  const std::vector<size_t> c = {1, 1, 0};
  CHECK_EQ(FloatGain(o, 60, 2, 1, c), 3.0 * 60 - 1 - 1 - 1);
  CHECK_EQ(FloatGain(o, 60, 2, 0, c), 3.0 * 60 * 2 - 2 - 1 - 1);
  o.float_alpha = 20;
  o.float_probe_cost = 0.5;
  CHECK_EQ(FloatGain(o, 60, 2, 0, c), 0.5 * 60 * 2 - 2 - 20 - 1);
  // Eq 5: eta (7 - i) delta files, 7 - i clamped at 0; nothing without delta.
  o = HandOptions();
  CHECK_EQ(StretchEntries(o, 1, 4.0), 0.0);
  o.float_stretch = 0.5;
  CHECK_EQ(StretchEntries(o, 1, 4.0), 4.0 * 6 * 0.5 * 60);
  CHECK_EQ(StretchEntries(o, 6, 2.0), 2.0 * 1 * 0.5 * 60);
  CHECK_EQ(StretchEntries(o, 7, 2.0), 0.0);
  CHECK_EQ(StretchEntries(o, 9, 2.0), 0.0);
}

// Eq 1 against the nearest level above that overlaps the file, and Eq 4's destination.
TEST(Plan, Eq1ComparesWithTheNearestLevelAboveThatOverlaps) {
  test::TempDir dir;
  const std::string d = dir.path();
  const Options o = HandOptions();
  Version v = Levels({1e9, 1e9, 1e9});
  const RunPtr a = Tagged(d, 1, 0, 9, 1), b = Tagged(d, 2, 0, 4, 2), b2 = Tagged(d, 3, 20, 29, 2),
               cfile = Tagged(d, 4, 0, 14, 3);
  v.levels[0].runs = {a};
  v.levels[1].runs = {b, b2};
  v.levels[2].runs = {cfile};
  ReadHeat heat(1 << 30);
  Heat(&heat, {{1, 100}, {2, 50}, {4, 60}}, 100, 100);  // eta = 1
  std::vector<FloatPlan> plans = PlanFloats(o, v.levels, heat);
  // C (60 >= 50 x 1/1) floats, to Level 1 (T_d 356 there, 177 to Level 2); B (50 < 100) not.
  CHECK_EQ(plans.size(), 1u);
  CHECK_EQ(plans[0].from, 2u);
  CHECK_EQ(plans[0].file, 0u);
  CHECK_EQ(plans[0].to, 0u);
  CHECK_EQ(plans[0].count, 60u);
  CHECK_EQ(plans[0].gain, 356.0);
  // Eta scales the bar: at eta = 0.5 (writes twice the reads) C needs 100.
  ReadHeat writes(1 << 30);
  Heat(&writes, {{1, 100}, {2, 50}, {4, 60}}, 100, 200);
  CHECK(PlanFloats(o, v.levels, writes).empty());
  // A high write cost keeps C where it is; so does gamma 0 (no floating at all).
  Options costly = o;
  costly.float_alpha = 500;
  CHECK(PlanFloats(costly, v.levels, heat).empty());
  Options off = o;
  off.float_gamma = 0;
  CHECK(PlanFloats(off, v.levels, heat).empty());
  // An empty Level 2 is skipped: Level 1's 100 sets the bar, which C misses at gamma 1 and
  // makes at gamma 0.5.
  v.levels[1].runs.clear();
  CHECK(PlanFloats(o, v.levels, heat).empty());
  Options half = o;
  half.float_gamma = 0.5;
  plans = PlanFloats(half, v.levels, heat);
  CHECK_EQ(plans.size(), 1u);
  CHECK_EQ(plans[0].to, 0u);
  // Every level above empty: no candidate, however hot.
  v.levels[0].runs.clear();
  CHECK(PlanFloats(half, v.levels, heat).empty());
  // Hottest first; a file never read is never a candidate, and neither is one that no level
  // above overlaps (its lookups check it first); a level above holding only other keys is
  // skipped for the next one up.
  v = Levels({1e9, 1e9, 1e9});
  v.levels[0].runs = {Tagged(d, 10, 0, 59, 1)};
  v.levels[1].runs = {Tagged(d, 5, 0, 4, 2), Tagged(d, 6, 20, 29, 2)};
  v.levels[2].runs = {Tagged(d, 7, 0, 14, 3), Tagged(d, 8, 30, 40, 3), Tagged(d, 9, 50, 60, 3),
                      Tagged(d, 11, 70, 80, 3)};
  ReadHeat two(1 << 30);
  Heat(&two, {{10, 10}, {6, 20}, {7, 40}, {8, 90}, {11, 200}}, 10, 10);
  plans = PlanFloats(o, v.levels, two);
  CHECK_EQ(plans.size(), 3u);  // 8 (against Level 1: no file of Level 2 overlaps it), 7, 6
  CHECK_EQ(plans[0].count, 90u);
  CHECK_EQ(plans[0].id, 8u);
  CHECK_EQ(plans[0].share, 9.0);
  CHECK_EQ(plans[1].id, 7u);
  CHECK_EQ(plans[2].id, 6u);
  CHECK_EQ(plans[2].from, 1u);
  // File 8 at gamma 10: Level 1's share of 1 sets its bar at 10, which it misses; were Level 2
  // its reference (smax 2), the bar would be 20.
  Options ten = o;
  ten.float_gamma = 10;
  CHECK(PlanFloats(ten, v.levels, two).empty());
  ten.float_gamma = 9;
  CHECK_EQ(PlanFloats(ten, v.levels, two).size(), 1u);
}

// Algorithm III.1 carried out by a flush: the candidate leaves Level 3, its keys that Level 2
// holds are dropped, the rest merges with Level 1's overlapping file (whose versions win), and
// the float reads each of those files once and writes the merged output, all under
// `floating`.
TEST(Float, DropsShadowedKeysAndMergesIntoTheDestination) {
  test::TempDir dir;
  const std::string d = dir.path();
  const Options o = HandOptions();
  Version v = Levels({1e9, 1e9, 1e9});
  v.levels[0].runs = {Tagged(d, 1, 0, 9, 1)};
  v.levels[1].runs = {Tagged(d, 2, 0, 4, 2), Tagged(d, 3, 20, 29, 2)};
  v.levels[2].runs = {Tagged(d, 4, 0, 14, 3), Tagged(d, 5, 40, 49, 3)};
  ReadHeat heat(1 << 30);
  Heat(&heat, {{1, 100}, {2, 50}, {4, 60}}, 100, 100);
  Buffer buffer(o.buffer_entries(), o.value_bytes());
  buffer.Put(100, std::vector<uint8_t>(8, 9).data(), false);  // lands apart in Level 1
  IOStats stats;
  FaultInjector faults;
  FileCompaction job(o, v, buffer, false, nullptr, &heat);
  job.Write(d, &faults, &stats);
  const Version& next = job.next();
  // Level 1: keys 0..9 of Level 1 (tag 1), 10..14 floated (tag 3), then the flush's key.
  std::vector<std::pair<uint64_t, uint8_t>> want;
  for (uint64_t k = 0; k <= 9; ++k) want.push_back({k, 1});
  for (uint64_t k = 10; k <= 14; ++k) want.push_back({k, 3});
  want.push_back({100, 9});
  CHECK(Contents(next.levels[0].runs) == want);
  CHECK_EQ(next.levels[1].runs.size(), 2u);  // the level passed is left as it was
  CHECK_EQ(next.levels[1].runs[0]->id(), 2u);
  CHECK_EQ(next.levels[2].runs.size(), 1u);  // the candidate left Level 3
  CHECK_EQ(next.levels[2].runs[0]->id(), 5u);
  // Reads: the candidate (15 entries, 5 blocks), Level 2's file 2 (2 blocks), Level 1's
  // file 1 (4 blocks); writes: the 15 merged entries (5 blocks). Nothing is a merge.
  CHECK_EQ(stats.floating.blocks_read, 11u);
  CHECK_EQ(stats.floating.blocks_written, 5u);
  CHECK_EQ(stats.MergeTotal().blocks_read + stats.MergeTotal().blocks_written, 0u);
  CHECK_EQ(stats.flush.blocks_written, 1u);
  job.Install(&v, &stats);
  CHECK_EQ(stats.floats, 1u);
  CHECK_EQ(stats.floated_entries, 5u);
  CHECK_EQ(stats.float_dropped_entries, 10u);
  CHECK_EQ(stats.merges, 0u);
  CHECK_EQ(stats.flushes, 1u);
}

// A float into a level with no overlapping file writes the candidate's unshadowed keys alone;
// a float of a file wholly shadowed writes nothing new, and the destination's files are
// rewritten as they were (the paper's step 6 with nothing to add).
TEST(Float, IntoAGapAndOfAShadowedFile) {
  test::TempDir dir;
  const std::string d = dir.path();
  const Options o = HandOptions();
  {
    Version v = Levels({1e9, 1e9, 1e9});
    v.levels[0].runs = {Tagged(d, 1, 50, 59, 1)};
    v.levels[1].runs = {Tagged(d, 2, 0, 5, 2)};
    v.levels[2].runs = {Tagged(d, 3, 0, 29, 3)};
    ReadHeat heat(1 << 30);
    Heat(&heat, {{1, 10}, {2, 10}, {3, 40}}, 10, 10);
    Buffer buffer(o.buffer_entries(), o.value_bytes());
    buffer.Put(100, std::vector<uint8_t>(8, 9).data(), false);
    IOStats stats;
    FaultInjector faults;
    FileCompaction job(o, v, buffer, false, nullptr, &heat);
    job.Write(d, &faults, &stats);
    // To Level 1 (T_d = 3 x 40 x 2 - 1 - 0 - 1 = 238, against 117 to Level 2), where no file
    // overlaps it: keys 6..29 arrive as a file of their own, between the flush's and file 1.
    CHECK(job.next().levels[2].runs.empty());
    std::vector<std::pair<uint64_t, uint8_t>> want;
    for (uint64_t k = 6; k <= 29; ++k) want.push_back({k, 3});
    for (uint64_t k = 50; k <= 59; ++k) want.push_back({k, 1});
    want.push_back({100, 9});
    CHECK(Contents(job.next().levels[0].runs) == want);
    CHECK_EQ(stats.floating.blocks_read, 10u + 2u);  // the candidate, Level 2's file
    CHECK_EQ(stats.floating.blocks_written, 8u);
    job.Install(&v, &stats);
    CHECK_EQ(stats.floated_entries, 24u);
    CHECK_EQ(stats.float_dropped_entries, 6u);
  }
  {
    Version v = Levels({1e9, 1e9, 1e9});
    v.next_run_id = 2000;  // past the first tree's outputs, in the same directory
    v.levels[0].runs = {Tagged(d, 11, 0, 9, 1)};
    v.levels[1].runs = {Tagged(d, 12, 0, 9, 2)};
    v.levels[2].runs = {Tagged(d, 13, 0, 9, 3)};
    ReadHeat heat(1 << 30);
    Heat(&heat, {{11, 10}, {12, 10}, {13, 40}}, 10, 10);
    Buffer buffer(o.buffer_entries(), o.value_bytes());
    buffer.Put(100, std::vector<uint8_t>(8, 9).data(), false);
    IOStats stats;
    FaultInjector faults;
    FileCompaction job(o, v, buffer, false, nullptr, &heat);
    job.Write(d, &faults, &stats);
    CHECK(job.next().levels[2].runs.empty());
    std::vector<std::pair<uint64_t, uint8_t>> want;
    for (uint64_t k = 0; k <= 9; ++k) want.push_back({k, 1});
    want.push_back({100, 9});
    CHECK(Contents(job.next().levels[0].runs) == want);
    job.Install(&v, &stats);
    CHECK_EQ(stats.floated_entries, 0u);
    CHECK_EQ(stats.float_dropped_entries, 10u);
  }
}

// ---- options -------------------------------------------------------------------------

TEST(Tidal, OptionsAreCheckedByName) {
  auto bad = [](auto edit, const std::string& what) {
    Options o = Tidal();
    edit(&o);
    CHECK_THROWS(o.Validate(), std::invalid_argument, what);
  };
  Tidal().Validate();
  bad([](Options* o) { o->float_gamma = -1; }, "float_gamma = -1 must be in [0, 1000000]");
  bad([](Options* o) { o->float_gamma = NAN; }, "float_gamma = nan must be in");
  bad([](Options* o) { o->float_alpha = 0; }, "float_alpha = 0 must be in [0.001, 1000]");
  bad([](Options* o) { o->float_probe_cost = 2000; },
      "float_probe_cost = 2000 must be in [0.001, 1000]");
  bad([](Options* o) { o->float_stretch = -0.5; }, "float_stretch = -0.5 must be in [0, 1000]");
  bad([](Options* o) { o->float_decay = 0; },
      "float_decay = 0 must be a whole number in [1, 4294967296]");
  bad([](Options* o) { o->float_per_flush = 0; },
      "float_per_flush = 0 must be a whole number in [1, 1000]");
  // Nothing of the feature may be set while it is off.
  for (const char* name : {"float_alpha", "float_probe_cost", "float_stretch", "float_decay",
                           "float_per_flush"}) {
    Options o = Tidal(0);
    FindOption(name)->set(&o, 2);
    CHECK_THROWS(o.Validate(), std::invalid_argument,
                 std::string(name) + " applies only with float_gamma > 0 (Tidal-tree's "
                 "floating of hot files); got " + name + " = 2 with float_gamma = 0");
  }
  // Where it cannot work, refused with the reason.
  bad([](Options* o) { o->granularity = kLevelGranularity; o->file_bytes = 0; },
      "float_gamma > 0 needs granularity='file'");
  bad([](Options* o) { o->log_ratio = 0.2; },
      "float_gamma > 0 cannot be combined with log_ratio > 0");
  bad([](Options* o) { o->compaction_buffer = true; },
      "float_gamma > 0 cannot be combined with compaction_buffer");
  bad([](Options* o) { o->l0_partitions = 4; },
      "float_gamma > 0 cannot be combined with l0_partitions > 1");
  // The rest of the file-granular designs take it.
  Options o = Tidal();
  o.level1_runs = 3;
  o.hash_levels = 1;
  o.file_pick = kRoundRobin;
  o.Validate();
  // Which rows are the design.
  for (const char* name : {"float_gamma", "float_alpha", "float_probe_cost", "float_stretch"})
    CHECK(FindOption(name)->stored);
  for (const char* name : {"float_decay", "float_per_flush"}) CHECK(!FindOption(name)->stored);
}

// gamma, alpha, the probe cost and delta are the design: the MANIFEST records them and a reopen
// with another value is refused by name. The decay and the pace are memory only.
TEST(Tidal, ReopenKeepsTheDesignAndTakesAnyPace) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = Tidal(0.5);
  o.float_alpha = 4;
  o.float_stretch = 0.25;
  {
    Engine e(path, o);
    test::Load(&e, nullptr, 0, 100, 1);
  }
  const std::string text = ReadWholeFile(ManifestFileName(path));
  CHECK(text.rfind("wacky-manifest 6\n", 0) == 0);
  CHECK(text.find("float_gamma 0.5\n") != std::string::npos);
  CHECK(text.find("float_decay") == std::string::npos);
  CHECK_EQ(Manifest::Decode(text, "MANIFEST").options.float_stretch, 0.25);
  auto refused = [&](auto edit, const std::string& what) {
    Options other = o;
    edit(&other);
    CHECK_THROWS(Engine(path, other), std::invalid_argument, what);
  };
  refused([](Options* x) { x->float_gamma = 1; }, "float_gamma (stored 0.5, requested 1)");
  refused([](Options* x) { x->float_alpha = 1; }, "float_alpha (stored 4, requested 1)");
  refused([](Options* x) { x->float_probe_cost = 1; },
          "float_probe_cost (stored 3, requested 1)");
  refused([](Options* x) { x->float_stretch = 0; }, "float_stretch (stored 0.25, requested 0)");
  Options pace = o;
  pace.float_decay = 7;
  pace.float_per_flush = 5;
  {
    Engine e(path, pace);
    CHECK_EQ(e.options().float_decay, 7u);
    std::vector<uint8_t> out(o.value_bytes());
    for (uint64_t k = 0; k < 100; ++k) CHECK(e.Get(k, out.data()));
  }
  // A directory made without floating keeps its version-5 MANIFEST and cannot gain it.
  const std::string plain = dir.path() + "/plain";
  { Engine e(plain, Tidal(0)); }
  CHECK(ReadWholeFile(ManifestFileName(plain)).rfind("wacky-manifest 5\n", 0) == 0);
  CHECK_THROWS(Engine(plain, Tidal()), std::invalid_argument,
               "float_gamma (stored 0, requested 1)");
}

// ---- the engine ----------------------------------------------------------------------

// Levels 1..L-1 hold at most their capacity plus their Eq 5 stretch (at the flush's eta,
// which the reads since may have moved: `slack` of it is allowed), and each is disjoint
// files in key order.
void CheckShape(Engine* e, double slack_eta = 0.0) {
  const auto levels = e->Levels();
  const Options& o = e->options();
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    if (l.level == 0) continue;
    uint64_t entries = 0;
    for (size_t f = 0; f < l.runs.size(); ++f) {
      entries += l.runs[f].entries;
      if (f > 0) CHECK_LT(l.runs[f - 1].max_key, l.runs[f].min_key);
    }
    if (i + 1 < levels.size())
      CHECK(static_cast<double>(entries) <=
            l.capacity + StretchEntries(o, static_cast<size_t>(l.level), slack_eta) + 1e-9);
  }
}

// A key of the hot set (40 keys spread over the key space) with probability 9/10, else any.
uint64_t SkewedKey(std::mt19937_64* rng, uint64_t universe) {
  if ((*rng)() % 10 < 9) return ((*rng)() % 40) * (universe / 40);
  return (*rng)() % universe;
}

// Puts keys [0, universe) in a random order (recording them in *model when given), so that
// every level's files cover the whole key space (a sequential load leaves each key range in
// one level only: nothing to float past, nothing to drop).
void LoadShuffled(Engine* e, Model* model, uint64_t universe, std::mt19937_64* rng) {
  std::vector<uint64_t> keys(universe);
  for (uint64_t k = 0; k < universe; ++k) keys[k] = k;
  std::shuffle(keys.begin(), keys.end(), *rng);
  for (uint64_t k : keys) {
    const auto v = Value(e->options(), k, 1);
    e->Put(k, v.data());
    if (model != nullptr) (*model)[k] = v;
  }
}

// Long random workloads (reads skewed to a hot set, updates, deletes) with floats: every
// answer matches the model, after each phase every key and a full scan, and after reopening.
TEST(Tidal, RandomWorkloadsMatchAModelAcrossReopen) {
  struct Case {
    double gamma;
    uint64_t decay;
    int per_flush;
    int level1_runs;
    double stretch;
    int pick;
    int hash_levels;
  };
  const std::vector<Case> cases = {{1.0, 10000, 1, 1, 0.0, kLeastOverlap, 0},
                                   {0.5, 300, 3, 2, 0.0, kRoundRobin, 1},
                                   {2.0, 1000, 2, 1, 0.05, kLeastOverlap, 0}};
  for (size_t c = 0; c < cases.size(); ++c) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    Options o = Tidal(cases[c].gamma);
    o.float_decay = cases[c].decay;
    o.float_per_flush = cases[c].per_flush;
    o.level1_runs = cases[c].level1_runs;
    o.float_stretch = cases[c].stretch;
    o.file_pick = cases[c].pick;
    o.hash_levels = cases[c].hash_levels;
    const uint64_t universe = 800;
    std::mt19937_64 rng(c + 11);
    Model model;
    uint64_t floats = 0;
    for (int round = 0; round < 3; ++round) {
      Engine e(path, o);
      if (round == 0) LoadShuffled(&e, &model, universe, &rng);
      for (int step = 0; step < 3000; ++step) {
        const uint64_t dice = rng() % 100;
        // Reads go to the hot set; writes anywhere, so the hot keys' old versions stay deep.
        const uint64_t key = dice < 25 ? rng() % universe : SkewedKey(&rng, universe);
        test::Step(&e, &model, key, round * 10000 + step, dice, 20, 25);
        if (step % 500 == 0) CheckShape(&e, e.Stats().float_eta * 1.5 + 10);
      }
      test::CheckMatches(&e, model, universe, 7);
      const IOStats s = e.Stats();
      floats += s.floats;
      CHECK_GE(s.floating.blocks_read, s.floats);
      CHECK_EQ(s.Total().blocks_written,
               s.flush.blocks_written + s.MergeTotal().blocks_written +
                   s.floating.blocks_written);
    }
    CHECK(CheckDirectory(path).ok());
    Engine e(path, o);
    test::CheckMatches(&e, model, universe, 7);
    CHECK_GT(floats, 0u);
  }
}

// The files a lookup of an existing key checks, with floating and without, under a read load
// skewed to a hot set that lies deep in the tree: floats happen, and the hot keys are then
// found in fewer files.
struct Probes {
  uint64_t floats = 0;
  double per_found = 0.0;  // files checked per lookup that found its key
};

Probes MeasureProbes(double gamma, bool skewed) {
  test::TempDir dir;
  Options o = Tidal(gamma);
  o.wal = false;
  Engine e(dir.path() + "/db", o);
  const uint64_t universe = 2000;
  std::mt19937_64 rng(5);
  LoadShuffled(&e, nullptr, universe, &rng);
  std::vector<uint8_t> out(o.value_bytes());
  const IOStats before = e.Stats();
  for (int step = 0; step < 20000; ++step) {
    if (step % 10 == 0) {  // a write now and then, far from the hot keys: flushes happen
      const uint64_t k = universe + rng() % universe;
      e.Put(k, Value(o, k, step).data());
      continue;
    }
    const uint64_t k = skewed ? SkewedKey(&rng, universe) : rng() % universe;
    CHECK(e.Get(k, out.data()));
  }
  const IOStats s = e.Stats();
  Probes p;
  p.floats = s.floats;
  p.per_found = static_cast<double>(s.found_get_files_checked - before.found_get_files_checked) /
                static_cast<double>(s.gets_found - before.gets_found);
  CHECK_EQ(s.gets_found - before.gets_found, 18000u);
  return p;
}

TEST(Tidal, FloatsUnderASkewedReadLoadCutTheFilesChecked) {
  const Probes off = MeasureProbes(0.0, true), on = MeasureProbes(1.0, true);
  // At eta = 9 (nine lookups a write), gamma = 1 puts Eq 1's bar at a ninth of the hottest
  // file above, which uniform reads clear too; gamma = 4 at four ninths, which only the
  // files holding hot keys clear.
  const Probes picky = MeasureProbes(4.0, true), picky_uniform = MeasureProbes(4.0, false);
  fprintf(stderr, "  files checked per found lookup, skewed reads: %.3f without floating, "
          "%.3f at gamma 1 (%llu floats), %.3f at gamma 4 (%llu floats); uniform reads at "
          "gamma 4: %.3f (%llu floats)\n", off.per_found, on.per_found,
          static_cast<unsigned long long>(on.floats), picky.per_found,
          static_cast<unsigned long long>(picky.floats), picky_uniform.per_found,
          static_cast<unsigned long long>(picky_uniform.floats));
  CHECK_EQ(off.floats, 0u);
  CHECK_GT(on.floats, 0u);
  CHECK(on.per_found < off.per_found * 0.9);
  CHECK_GT(picky.floats, 0u);
  CHECK(picky.per_found < off.per_found);
  CHECK_EQ(picky_uniform.floats, 0u);
}

// Writes fail at every point of flushes that float, a step at a time through their run files
// and their MANIFEST: each failed flush leaves the tree as it was and loses no acknowledged
// write; the same flush then succeeds.
TEST(Tidal, AFailedFlushLeavesTheTreeAsItWas) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = Tidal();
  Model model;
  std::mt19937_64 rng(21);
  const uint64_t universe = 600;
  Engine e(path, o);
  LoadShuffled(&e, &model, universe, &rng);
  auto shape = [&]() {
    std::vector<std::vector<uint64_t>> ids;
    for (const auto& l : e.Levels()) {
      ids.push_back({static_cast<uint64_t>(l.level)});
      for (const auto& r : l.runs) ids.back().push_back(r.id);
    }
    return ids;
  };
  std::vector<uint8_t> out(o.value_bytes());
  int with_float = 0, manifest_failures = 0, run_failures = 0;
  for (int round = 0; round < 200 && with_float < 3; ++round) {
    e.Flush();
    for (int i = 0; i < 300; ++i) {  // heat the hot set
      const uint64_t k = SkewedKey(&rng, universe);
      CHECK_EQ(e.Get(k, out.data()), model.count(k) == 1);
    }
    for (int i = 0; i < 8; ++i) {  // one buffer's worth: no flush until asked
      const uint64_t k = universe + rng() % universe;
      e.Put(k, Value(o, k, round).data());
      model[k] = Value(o, k, round);
    }
    const auto before_shape = shape();
    const uint64_t buffered = e.buffer_size();
    const IOStats before = e.Stats();
    int failed = 0;
    for (int64_t budget = 0;; budget += 97) {
      e.TEST_InjectWriteFailure(budget);
      try {
        e.Flush();
      } catch (const IOError& err) {
        e.TEST_InjectWriteFailure(-1);
        ++failed;
        const std::string what = err.what();
        manifest_failures += what.find("MANIFEST") != std::string::npos;
        run_failures += what.find("/run-") != std::string::npos;
        CHECK(shape() == before_shape);
        CHECK_EQ(e.buffer_size(), buffered);
        CHECK_EQ(e.Stats().floats, before.floats);
        continue;
      }
      e.TEST_InjectWriteFailure(-1);
      break;
    }
    if (e.Stats().floats > before.floats && failed > 0) ++with_float;
    CHECK_EQ(e.buffer_size(), 0u);
  }
  CHECK_EQ(with_float, 3);
  CHECK_GT(manifest_failures, 0);
  CHECK_GT(run_failures, 0);
  test::CheckMatches(&e, model, 2 * universe, 9);
  e.Close();
  test::CheckNoTempFiles(path);
  CHECK(CheckDirectory(path).ok());
  Engine again(path, o);
  test::CheckMatches(&again, model, 2 * universe, 9);
}

// A process that dies while floating (its writes fail mid-flush, then it exits without
// closing) loses no acknowledged write: the log replays what the MANIFEST does not hold.
TEST(Tidal, ACrashWhileFloatingLosesNoAcknowledgedWrite) {
  for (int64_t budget : {150, 900, 3000}) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    const std::string mark = dir.path() + "/acknowledged";
    const Options o = Tidal();
    const uint64_t universe = 500;
    auto key_of = [](int i) { return static_cast<uint64_t>(i) * 7919 % 500; };
    InAChildThatDies([&] {
      Engine& e = *new Engine(path, o);  // never closed
      std::mt19937_64 rng(budget);
      std::vector<uint8_t> out(o.value_bytes());
      int i = 0;
      for (; i < 500; ++i) e.Put(key_of(i), Value(o, key_of(i), i).data());
      auto step = [&]() {
        for (int r = 0; r < 20; ++r) e.Get(SkewedKey(&rng, universe), out.data());
        e.Put(key_of(i), Value(o, key_of(i), i).data());
        ++i;
      };
      while (e.Stats().floats == 0 && i < 20000) step();
      if (e.Stats().floats == 0) throw std::logic_error("no float yet");
      e.TEST_InjectWriteFailure(budget);
      try {
        for (;;) step();
      } catch (const IOError&) {
      }
      std::ofstream(mark) << i;  // puts 0..i-1 were acknowledged; put i raised
      ::_exit(0);
    });
    test::CheckAcknowledgedSurvive(path, mark, o, key_of, 500, universe, 11);
  }
}

// Eq 5: with a stretch, a read-heavy workload lets the levels above the last hold more than
// their capacity (and never more than capacity plus stretch once a flush returns).
TEST(Tidal, TheStretchLetsLevelsHoldMore) {
  test::TempDir dir;
  Options o = Tidal();
  o.float_stretch = 0.2;
  o.wal = false;
  Engine e(dir.path() + "/db", o);
  const uint64_t universe = 1500;
  std::mt19937_64 rng(3);
  LoadShuffled(&e, nullptr, universe, &rng);
  std::vector<uint8_t> out(o.value_bytes());
  bool over = false;
  for (int step = 0; step < 20000; ++step) {
    if (step % 8 == 0) {
      const uint64_t k = rng() % universe;
      e.Put(k, Value(o, k, step).data());
    } else {
      e.Get(SkewedKey(&rng, universe), out.data());
    }
    if (step % 8 == 0) {  // eta moves slowly: the last flush's is close to today's
      CheckShape(&e, e.Stats().float_eta * 1.2 + 1);
      const auto levels = e.Levels();
      for (size_t i = 0; i + 1 < levels.size(); ++i) {
        uint64_t n = 0;
        for (const auto& r : levels[i].runs) n += r.entries;
        over = over || static_cast<double>(n) > levels[i].capacity;
      }
    }
  }
  CHECK(over);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
