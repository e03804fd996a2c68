// engine_paged_test.cc — paged filters and indexes (Options::paged_metadata; run.h's metadata
// tail, block_cache.h's metadata entries): what a probe costs with a cache too small for the
// metadata and with one that holds it, that the answers are those of pinned mode, that the
// tail survives reopen (in either mode), a crash and damage, and the refused combinations.
#include <sys/stat.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.h"
#include "engine_test_util.h"
#include "run.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::CheckMatches;
using test::InAChildThatDies;
using test::Load;
using test::Model;
using test::Sum;
using test::TempDir;
using test::Value;

// The small design, one FPR for every level (so every run has a filter block), no log.
Options Paged(uint64_t cache_bytes, int granularity = kLevelGranularity) {
  Options o = test::SmallOptions(granularity);
  o.uniform_filters = true;
  o.wal = false;
  o.paged_metadata = true;
  o.cache_bytes = cache_bytes;
  return o;
}

std::vector<std::string> RunFiles(Engine* e) {
  std::vector<std::string> files;
  for (const LevelInfo& l : e->Levels())
    for (const RunInfo& r : l.runs) files.push_back(r.file);
  return files;
}

// Keys 0, 2, 4, ... are loaded: odd keys inside the range are zero-result lookups.
constexpr uint64_t kKeys = 200;

// Loads the even keys below 2 kKeys, then overwrites every fourth one, so that runs of
// several levels cover each key; the model follows.
void LoadOverlapping(Engine* e, Model* model) {
  Load(e, model, 0, 2 * kKeys, 0, 2);
  Load(e, model, 0, 2 * kKeys, 1, 4);
  e->Flush();
}

// No cache: every run whose range covers the key costs a filter block read, and each probe
// the filter passes an index block read, then the data block (none of it is cached).
TEST(EnginePaged, WithoutRoomEveryProbeReadsItsFilterAndIndexBlocks) {
  TempDir dir;
  Engine e(dir.path() + "/db", Paged(0));
  LoadOverlapping(&e, nullptr);
  std::vector<uint8_t> out(e.options().value_bytes());
  const IOStats s0 = e.Stats();
  for (uint64_t k = 1; k < 2 * kKeys; k += 2) CHECK(!e.Get(k, out.data()));
  const IOStats s1 = e.Stats();
  const uint64_t probes = s1.get_files_checked - s0.get_files_checked;
  const uint64_t filter_reads = Sum(s1.filter_misses) - Sum(s0.filter_misses);
  const uint64_t index_reads = Sum(s1.index_misses) - Sum(s0.index_misses);
  const uint64_t data_reads = s1.point_read.blocks_read - s0.point_read.blocks_read;
  printf("  %llu zero-result gets: %llu probes, %llu filter reads, %llu index reads, %llu data "
         "reads\n", static_cast<unsigned long long>(kKeys),
         static_cast<unsigned long long>(probes), static_cast<unsigned long long>(filter_reads),
         static_cast<unsigned long long>(index_reads),
         static_cast<unsigned long long>(data_reads));
  CHECK_GT(probes, kKeys);  // more than one run covers most keys
  CHECK_EQ(filter_reads, probes);
  CHECK_EQ(index_reads, data_reads);  // the false positives: index then data block
  CHECK_LT(index_reads, probes / 2);  // 10 bits per entry: about 1% pass
  CHECK_EQ(Sum(s1.filter_hits) + Sum(s1.index_hits), 0u);
  CHECK_GE(s1.filter_read.blocks_read - s0.filter_read.blocks_read, filter_reads);
  CHECK_GE(s1.index_read.blocks_read - s0.index_read.blocks_read, index_reads);
  // The data-block counters stay data blocks only, and the purposes still add up.
  CHECK_EQ(Sum(s1.cache_misses), s1.point_read.blocks_read);
  IOCounter parts = s1.MergeTotal();
  for (const IOCounter* c : {&s1.flush, &s1.point_read, &s1.range_read, &s1.recovery,
                             &s1.floating, &s1.filter_read, &s1.index_read})
    parts.Add(*c);
  CHECK_EQ(parts.blocks_read, s1.Total().blocks_read);
  CHECK_EQ(parts.bytes_read, s1.Total().bytes_read);
  CHECK_GT(s1.paged_meta_written.blocks_written, 0u);  // every run got its tail
  CHECK_EQ(s1.pinned_meta_bytes, 0u);
  // An existing key costs the same per run probed, plus its own index and data block.
  CHECK(e.Get(2 * 17, out.data()));
  CHECK(out == Value(e.options(), 2 * 17, 0));
}

// A cache that holds every filter and index block: after one pass, no metadata read again.
TEST(EnginePaged, WithRoomWarmLookupsReadNoMetadata) {
  TempDir dir;
  Engine e(dir.path() + "/db", Paged(1 << 20));
  LoadOverlapping(&e, nullptr);
  std::vector<uint8_t> out(e.options().value_bytes());
  for (uint64_t k = 0; k < 2 * kKeys; ++k) e.Get(k, out.data());  // warm-up
  const IOStats s0 = e.Stats();
  CHECK_GT(s0.meta_cache_bytes, 0u);
  CHECK_GT(Sum(s0.filter_misses), 0u);
  for (uint64_t k = 0; k < 2 * kKeys; ++k) CHECK_EQ(e.Get(k, out.data()), k % 2 == 0);
  const IOStats s1 = e.Stats();
  CHECK_EQ(Sum(s1.filter_misses), Sum(s0.filter_misses));
  CHECK_EQ(Sum(s1.index_misses), Sum(s0.index_misses));
  CHECK_EQ(s1.filter_read.blocks_read, s0.filter_read.blocks_read);
  CHECK_EQ(s1.index_read.blocks_read, s0.index_read.blocks_read);
  CHECK_EQ(Sum(s1.filter_hits) - Sum(s0.filter_hits),
           s1.get_files_checked - s0.get_files_checked);
  // The metadata is charged its bytes: the filter and index blocks of the live runs.
  uint64_t meta = 0;
  for (const LevelInfo& l : e.Levels())
    for (const RunInfo& r : l.runs)
      meta += 8 * ((static_cast<uint64_t>(r.filter_bits_per_key * r.entries + 0.5) + 63) / 64) +
              8 * r.blocks;
  CHECK_EQ(s1.meta_cache_bytes, meta);
  // Scans need each file's index: all cached now, so none is read.
  const uint64_t before = s1.index_read.blocks_read;
  auto it = e.Scan(0, 2 * kKeys);
  CHECK_EQ(e.Stats().index_read.blocks_read, before);
}

// Pinned and paged engines given the same random workload (puts, deletes, gets checked
// against a model at every step) answer alike, and their trees and writes of data are the
// same; only the paged one counts metadata.
// `tweak` adds design options to both (level 0's runs, L2SM's log, floating).
void SameAsPinned(int granularity, uint64_t cache_bytes, uint64_t seed,
                  void (*tweak)(Options*) = nullptr) {
  TempDir dir;
  Options paged_o = Paged(cache_bytes, granularity);
  if (tweak != nullptr) tweak(&paged_o);
  Options pinned_o = paged_o;
  pinned_o.paged_metadata = false;
  Engine pinned(dir.path() + "/pinned", pinned_o);
  Engine paged(dir.path() + "/paged", paged_o);
  Model a, b;
  std::mt19937_64 rng(seed);
  constexpr uint64_t kUniverse = 400;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t key = rng() % kUniverse, dice = rng() % 100;
    test::Step(&pinned, &a, key, static_cast<uint64_t>(i), dice, 45, 55);
    test::Step(&paged, &b, key, static_cast<uint64_t>(i), dice, 45, 55);
  }
  CHECK(a == b);
  CheckMatches(&pinned, a, kUniverse);
  CheckMatches(&paged, b, kUniverse);
  const IOStats sp = pinned.Stats(), sg = paged.Stats();
  CHECK_EQ(sp.flush.blocks_written, sg.flush.blocks_written);
  CHECK_EQ(sp.MergeTotal().blocks_written, sg.MergeTotal().blocks_written);
  CHECK_EQ(sp.get_files_checked, sg.get_files_checked);
  CHECK_EQ(Sum(sp.filter_misses) + Sum(sp.index_misses) + sp.filter_read.blocks_read, 0u);
  CHECK_EQ(sp.paged_meta_written.blocks_written, 0u);
  CHECK_GT(sp.pinned_meta_bytes, 0u);
  CHECK_GT(Sum(sg.filter_misses), 0u);
  const auto la = pinned.Levels(), lb = paged.Levels();
  CHECK_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size() && i < lb.size(); ++i) {
    CHECK_EQ(la[i].runs.size(), lb[i].runs.size());
    for (size_t j = 0; j < la[i].runs.size() && j < lb[i].runs.size(); ++j) {
      CHECK_EQ(la[i].runs[j].entries, lb[i].runs[j].entries);
      CHECK_EQ(la[i].runs[j].filter_probes, lb[i].runs[j].filter_probes);
      CHECK_EQ(la[i].runs[j].fpr_given_fill, lb[i].runs[j].fpr_given_fill);
    }
  }
  CHECK(pinned.Verify().runs == paged.Verify().runs);
}

TEST(EnginePaged, AnswersAsPinnedOnRandomWorkloads) {
  // No cache, one smaller than a filter and an index of a run, and a large one; whole levels
  // and levels of files.
  SameAsPinned(kLevelGranularity, 0, 1);
  SameAsPinned(kLevelGranularity, 200, 2);
  SameAsPinned(kLevelGranularity, 1 << 20, 3);
  SameAsPinned(kFileGranularity, 200, 4);
  SameAsPinned(kFileGranularity, 1 << 20, 5);
  // Level 0's runs, L2SM's log files and Tidal-tree's floated files are probed like the rest.
  SameAsPinned(kFileGranularity, 200, 6, [](Options* o) { o->level1_runs = 3; });
  SameAsPinned(kFileGranularity, 200, 7, [](Options* o) { o->log_ratio = 0.3; });
  SameAsPinned(kFileGranularity, 200, 8, [](Options* o) { o->float_gamma = 0.5; });
}

// The mode is a read-path choice: a directory reopens in either mode with the same contents.
// Tails found sound are kept (nothing written); a pinned directory's runs get theirs at a
// paged open; a damaged or cut tail is rewritten, never used.
TEST(EnginePaged, ReopensInEitherModeAndRebuildsBadTails) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  Options pinned_o = Paged(0);
  pinned_o.paged_metadata = false;
  Model model;
  {
    Engine e(path, pinned_o);
    LoadOverlapping(&e, &model);
  }
  {  // a pinned directory opened paged: every run gets its tail at open
    Engine e(path, Paged(0));
    CHECK_GT(e.Stats().paged_meta_written.blocks_written, 0u);
    CheckMatches(&e, model, 2 * kKeys + 10);
  }
  std::vector<std::string> files;
  {  // sound tails are kept
    Engine e(path, Paged(0));
    CHECK_EQ(e.Stats().paged_meta_written.blocks_written, 0u);
    CheckMatches(&e, model, 2 * kKeys + 10);
    files = RunFiles(&e);
  }
  {  // pinned ignores the tails
    Engine e(path, pinned_o);
    CheckMatches(&e, model, 2 * kKeys + 10);
    CHECK_EQ(e.Stats().paged_meta_written.blocks_written, 0u);
  }
  // Damage the last byte of one run's tail (its index block) and cut another's by one block.
  CHECK_GE(files.size(), 2u);
  struct stat st;
  CHECK_EQ(::stat(files[0].c_str(), &st), 0);
  test::FlipByte(files[0], st.st_size - 1, 0x40);
  CHECK_EQ(::stat(files[1].c_str(), &st), 0);
  CHECK_EQ(::truncate(files[1].c_str(), st.st_size - static_cast<off_t>(pinned_o.block_bytes)),
           0);
  {
    Engine e(path, Paged(0));
    CHECK_GT(e.Stats().paged_meta_written.blocks_written, 0u);  // the two rewritten
    CheckMatches(&e, model, 2 * kKeys + 10);
    e.Verify();
  }
  {
    Engine e(path, Paged(0));
    CHECK_EQ(e.Stats().paged_meta_written.blocks_written, 0u);
  }
}

// A crash (no Close, the log replayed at reopen) loses nothing in paged mode.
TEST(EnginePaged, SurvivesACrash) {
  TempDir dir;
  const std::string path = dir.path() + "/db";
  Options o = Paged(300);
  o.wal = true;
  Model model;
  for (uint64_t k = 0; k < 150; ++k) model[k * 3] = Value(o, k * 3, 4);
  InAChildThatDies([&] {
    Engine& e = *new Engine(path, o);  // never closed
    for (uint64_t k = 0; k < 150; ++k) e.Put(k * 3, Value(o, k * 3, 4).data());
  });
  Engine e(path, o);
  CheckMatches(&e, model, 460);
  e.Verify();
}

// A filter block damaged on disk while the engine runs is caught by its checksum when read:
// the lookup throws, it never answers from damaged bits.
TEST(EnginePaged, DamagedFilterBlockOnDiskThrows) {
  TempDir dir;
  Engine e(dir.path() + "/db", Paged(0));
  Load(&e, nullptr, 0, 2 * kKeys, 0, 2);
  e.Flush();
  // The run's tail starts after its checksum section; its filter after the header block.
  const RunInfo r = e.Levels().back().runs.back();  // a copy: Levels() is a temporary
  const uint64_t bb = e.options().block_bytes;
  const uint64_t blocks = r.blocks + (r.tombstones + bb / 8 - 1) / (bb / 8);
  const uint64_t filter_at = (blocks + ChecksumBlocks(blocks, bb) + 1) * bb;
  test::FlipByte(r.file, static_cast<off_t>(filter_at), 0x01);
  std::vector<uint8_t> out(e.options().value_bytes());
  CHECK_THROWS(e.Get(r.min_key, out.data()), Corruption, "filter block fails its checksum");
  CHECK_THROWS(e.Verify(), Corruption, "filter block fails its checksum");
}

TEST(EnginePaged, RefusesWhatItCannotPage) {
  Options o = Paged(0);
  o.Validate();
  o.hash_levels = 1;
  CHECK_THROWS(o.Validate(), std::invalid_argument, "hash_levels");
  o = Paged(0, kFileGranularity);
  o.compaction_buffer = true;
  CHECK_THROWS(o.Validate(), std::invalid_argument, "compaction_buffer");
  o = Paged(0);
  o.salvage = true;
  CHECK_THROWS(o.Validate(), std::invalid_argument, "salvage");
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
