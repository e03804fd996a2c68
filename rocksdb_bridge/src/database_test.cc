// database_test.cc — the bridge's Database: the driver's calls against a real RocksDB.
#include "database.h"

#include <rocksdb/env.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "key_partitioner.h"
#include "read_only.h"
#include "testharness.h"
#include "trace.h"

namespace wacky_rocksdb {
namespace {

// An OPTIONS file `name` whose default column family adds `cf_options` to no compression.
std::string WriteOptionsFile(const wacky::test::TempDir& dir, const std::string& name,
                             const std::string& cf_options) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream out(path);
  out << "[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n"
      << "[DBOptions]\n  create_if_missing=true\n"
      << "[CFOptions \"default\"]\n  compression=kNoCompression\n" << cf_options
      << "[TableOptions/BlockBasedTable \"default\"]\n"
      << "  filter_policy=bloomfilter:10:false\n  format_version=5\n";
  return path;
}

// A minimal OPTIONS file; `driven` turns RocksDB's own compaction off.
std::string WriteOptions(const wacky::test::TempDir& dir, bool driven) {
  return WriteOptionsFile(dir, "OPTIONS",
                          std::string("  disable_auto_compactions=") +
                              (driven ? "true" : "false") + "\n" +
                              "  level0_file_num_compaction_trigger=1000\n"
                              "  level0_slowdown_writes_trigger=1000\n"
                              "  level0_stop_writes_trigger=1000\n");
}

void PutKeys(Database* db, uint64_t first, size_t n) {
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = first + 2 * i;
  std::vector<uint8_t> values(n * 16, 7);
  db->PutMany(keys.data(), n, values.data(), 16);
}

std::vector<std::string> Names(const Database& db) {
  std::vector<std::string> out;
  for (const auto& f : db.LiveFiles()) out.push_back(f.name);
  return out;
}

TEST(Database, DriverSetsEachFilesBits) {
  wacky::test::TempDir dir;
  Database db(dir.path() + "/db", WriteOptions(dir, true), 1 << 20, {}, true);
  db.SetNextFileBits(0.0);
  PutKeys(&db, 0, 10000);
  db.Flush();
  CHECK_EQ(db.FilterBytes(), uint64_t{0});  // no filter below half a bit per key
  db.SetNextFileBits(20.0);
  PutKeys(&db, 1, 10000);
  db.Flush();
  // About 20 bits per key for the second file (RocksDB rounds to its cache-line layout).
  CHECK_GE(db.FilterBytes(), uint64_t{10000 * 20 / 8 * 9 / 10});
  CHECK_LE(db.FilterBytes(), uint64_t{10000 * 20 / 8 * 12 / 10});
  CHECK_THROWS(db.SetNextFileBits(-1.0), std::invalid_argument, "finite and in [0, 10000]");
}

TEST(Database, CompactFilesMergesLevelZeroFiles) {
  wacky::test::TempDir dir;
  Database db(dir.path() + "/db", WriteOptions(dir, true), 1 << 20, {}, true);
  for (uint64_t i = 0; i < 3; ++i) {
    PutKeys(&db, 10000 * i, 1000);  // keys 2j + 10000 i: no two flushes share a key
    db.Flush();
  }
  const std::vector<std::string> inputs = Names(db);
  CHECK_EQ(inputs.size(), size_t{3});
  const CompactResult merged = db.CompactFiles(inputs, 0);
  CHECK_EQ(merged.outputs.size(), size_t{1});
  CHECK_EQ(merged.records, uint64_t{3000});
  const std::vector<FileInfo> files = db.LiveFiles();
  CHECK_EQ(files.size(), size_t{1});
  CHECK_EQ(files[0].name, merged.outputs[0]);
  CHECK_EQ(files[0].level, 0);
  CHECK_EQ(files[0].entries, uint64_t{3000});
  bool found[2];
  const uint64_t keys[2] = {2, 10002};  // from the first and the second flush
  db.GetMany(keys, 2, found);
  CHECK(found[0] && found[1]);
  CHECK_THROWS(db.CompactFiles({}, 0), std::invalid_argument, "at least one input");
  CHECK_THROWS(db.CompactFiles({"999999.sst"}, 0), std::runtime_error, "CompactFiles");
  // A key written in two runs: the merge keeps the newer one only.
  PutKeys(&db, 2, 1);
  db.Flush();
  CHECK_EQ(db.CompactFiles(Names(db), 0).records, uint64_t{3000});
}

TEST(Database, PartitionsCutEveryCompactionOutputAtTheirKeys) {
  wacky::test::TempDir dir;
  const std::string options = WriteOptionsFile(
      dir, "OPTIONS", "  level0_file_num_compaction_trigger=2\n  write_buffer_size=65536\n"
                      "  target_file_size_base=16384\n  max_bytes_for_level_base=131072\n");
  KeyPartitionerFactory cuts(4);
  Database db(dir.path() + "/db", options, 1 << 20, {}, false, false, /*partitions=*/4);
  std::vector<uint64_t> keys(20000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = (i + 1) * 0x9E3779B97F4A7C15ull;
  std::vector<uint8_t> values(keys.size() * 16, 7);
  db.PutMany(keys.data(), keys.size(), values.data(), 16);
  db.Flush();
  db.WaitForBackgroundWork(60.0);
  auto partition = [&](uint64_t k) {
    std::string enc(8, '\0');
    for (int i = 7; i >= 0; --i, k >>= 8) enc[i] = static_cast<char>(k & 0xff);
    return cuts.PartitionOf(enc);
  };
  size_t below = 0;
  for (const auto& f : db.LiveFiles()) {
    if (f.level == 0) continue;  // flushes are not partitioned (key_partitioner.h)
    ++below;
    CHECK_EQ(partition(f.smallest_key), partition(f.largest_key));
  }
  CHECK(below > 4);
}

TEST(Database, DriverCallsNeedADrivenDatabase) {
  wacky::test::TempDir dir;
  CHECK_THROWS(Database(dir.path() + "/a", WriteOptions(dir, false), 1 << 20, {}, true),
               std::invalid_argument, "disable_auto_compactions=true");
  Database db(dir.path() + "/b", WriteOptions(dir, false), 1 << 20);
  CHECK_THROWS(db.SetNextFileBits(5.0), std::logic_error, "opened for the driver");
  CHECK_THROWS(db.CompactFiles({"000001.sst"}, 0), std::logic_error, "opened for the driver");
}

TEST(Database, ReadsFillTheCacheOnlyWhenAskedAndCountPerLevel) {
  wacky::test::TempDir dir;
  for (const bool fill : {false, true}) {
    Database db(dir.path() + (fill ? "/fill" : "/nofill"), WriteOptions(dir, false), 1 << 20,
                {}, false, fill);
    PutKeys(&db, 0, 1000);
    db.Flush();  // one level-0 file (the trigger is 1000)
    bool found[1];
    const uint64_t key = 500;
    db.GetMany(&key, 1, found);
    db.GetMany(&key, 1, found);
    CHECK(found[0]);
    const std::vector<CacheCounts> counts = db.ReadCounts();
    CHECK_EQ(counts.size(), size_t{1});  // level 0 only
    CHECK_EQ(counts[0].misses, uint64_t{fill ? 1u : 2u});
    CHECK_EQ(counts[0].hits, uint64_t{fill ? 1u : 0u});
    const uint64_t start = 0;
    CHECK_EQ(db.ScanMany(&start, 1, 10), uint64_t{10});  // a scan counts, never fills
    CHECK_EQ(db.ReadCounts()[0].misses + db.ReadCounts()[0].hits,
             counts[0].misses + counts[0].hits + 1);
  }
}

TEST(Database, RunMixRunsEachOperationInOrderAndCountsItsBlocks) {
  wacky::test::TempDir dir;
  Database db(dir.path() + "/db", WriteOptions(dir, false), 1 << 20, {}, false, true);
  PutKeys(&db, 0, 1000);  // even keys 0..1998
  db.Flush();
  // A get of a flushed key, a put of a new key, a get that sees it, a get of an absent key, a
  // scan that crosses the new key, the same get again (its block now cached).
  const std::vector<uint8_t> kinds = {Database::kMixGet, Database::kMixPut, Database::kMixGet,
                                      Database::kMixGet, Database::kMixScan, Database::kMixGet};
  const std::vector<uint64_t> keys = {10, 11, 11, 13, 8, 10};
  const std::vector<uint8_t> value(16, 3);
  std::vector<int64_t> nanos(kinds.size());
  std::vector<uint32_t> blocks(kinds.size());
  std::vector<uint64_t> results(kinds.size());
  db.RunMix(kinds.data(), keys.data(), kinds.size(), value.data(), value.size(), 5,
            nanos.data(), blocks.data(), results.data());
  CHECK_EQ(results[0], uint64_t{1});
  CHECK_EQ(results[2], uint64_t{1});  // the put before it is seen
  CHECK_EQ(results[3], uint64_t{0});
  CHECK_EQ(results[4], uint64_t{5});  // 8, 10, 11, 12, 14
  CHECK_EQ(results[5], uint64_t{1});
  CHECK_GE(blocks[0], uint32_t{1});  // the first read of the file's data block
  CHECK_EQ(blocks[1], uint32_t{0});  // a put reads nothing
  CHECK_EQ(blocks[5], uint32_t{0});  // the block the first get cached
  for (const int64_t t : nanos) CHECK_GT(t, int64_t{0});
  const std::vector<uint8_t> bad = {Database::kMixGet, 7};
  CHECK_THROWS(db.RunMix(bad.data(), keys.data(), bad.size(), value.data(), value.size(), 5,
                         nanos.data(), blocks.data(), results.data()),
               std::invalid_argument, "operation 1 has kind 7");
  CHECK_EQ(results[0], uint64_t{1});  // nothing ran
}

// The files in `dir` whose names end in `suffix`, with their sizes on disk.
std::map<std::string, uint64_t> FilesIn(const std::string& dir, const std::string& suffix) {
  std::map<std::string, uint64_t> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out[name] = entry.file_size();
    }
  }
  return out;
}

uint64_t Sum(const std::map<std::string, uint64_t>& bytes) {
  uint64_t total = 0;
  for (const auto& [name, b] : bytes) total += b;
  return total;
}

// n random keys (fixed seed): every flush spans the key range, so the files of Level 0 overlap
// one another and Level 1.
void PutRandomKeys(Database* db, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = rng();
  std::vector<uint8_t> values(n * 32, 7);
  db->PutMany(keys.data(), n, values.data(), 32);
}

// Levels of 64 KiB (Level 0 counted as Level 1, as RocksDB's GetPathId does), then 64 KiB,
// 256 KiB, 1 MiB, ...: fixed level sizes, since RocksDB ignores dynamic ones with two paths.
constexpr uint64_t kLevelBase = 64 << 10;
const char* const kTwoPathLevels =
    "  level_compaction_dynamic_level_bytes=false\n  level0_file_num_compaction_trigger=2\n"
    "  write_buffer_size=32768\n  target_file_size_base=16384\n"
    "  max_bytes_for_level_base=65536\n  max_bytes_for_level_multiplier=4\n";

// Opens a database with db_paths {fast: fast_target, slow: 0}, loads it into Levels 0-3 and
// more, and checks that RocksDB put Levels < fast_levels on `fast` and the rest on `slow`, and
// that the bridge counted each directory's bytes exactly.
void CheckTwoPaths(uint64_t fast_target, int fast_levels) {
  wacky::test::TempDir dir;
  const std::string fast = dir.path() + "/fast", slow = dir.path() + "/slow";
  const std::string wal = dir.path() + "/wal", home = dir.path() + "/db";
  auto expected = [&](int level) { return level < fast_levels ? fast : slow; };
  Database db(home, WriteOptionsFile(dir, "OPTIONS", kTwoPathLevels), 1 << 20, {}, false, false,
              1, {{fast, fast_target}, {slow, 0}}, wal);
  PutRandomKeys(&db, 40000, 1);
  db.Flush();
  db.WaitForBackgroundWork(60.0);

  int deepest = 0;
  for (const auto& f : db.LiveFiles()) {
    deepest = std::max(deepest, f.level);
    // Flushes write to the first path; a file moves down a level only within its path.
    CHECK_EQ(f.db_path, f.level == 0 ? fast : expected(f.level));
  }
  CHECK_GE(deepest, 3);

  // Every compaction's outputs, by the path they were written to and their output level.
  const auto by_level = db.PathLevelBytesWritten();
  CHECK_EQ(by_level.size(), size_t{2});
  std::map<std::string, uint64_t> compacted;
  for (const auto& [path, levels] : by_level) {
    for (size_t level = 0; level < levels.size(); ++level) {
      if (levels[level] > 0) CHECK_EQ(path, expected(static_cast<int>(level)));
      compacted[path] += levels[level];
    }
  }
  if (fast_levels > 1) CHECK_GT(by_level.at(fast).at(1), uint64_t{0});
  CHECK_GT(compacted[slow], uint64_t{0});

  const auto written = db.PathBytesWritten();
  const auto read = db.PathBytesRead();
  const auto live = db.PathLiveBytes();
  CHECK_EQ(written.size(), size_t{2});
  // Flushes wrote to `fast` only: all of `slow`'s bytes are compaction outputs.
  CHECK_EQ(written.at(slow), compacted[slow]);
  CHECK_GT(written.at(fast), compacted[fast]);
  // RocksDB's own total of the bytes compactions wrote (its flush total also counts bytes that
  // are not in table files).
  const uint64_t compact_write = db.Tickers().at("rocksdb.compact.write.bytes");
  CHECK_EQ(compacted[fast] + compacted[slow], compact_write);
  for (const std::string& path : {fast, slow}) {
    // The directory listing agrees with RocksDB's live files, name by name.
    std::map<std::string, uint64_t> listed = FilesIn(path, ".sst"), reported;
    for (const auto& f : db.LiveFiles()) {
      if (f.db_path == path) reported[f.name] = f.bytes;
    }
    CHECK(listed == reported);
    CHECK_EQ(live.at(path), Sum(listed));
    // Each file written is live or was read once by the compaction that replaced it.
    CHECK_EQ(written.at(path), live.at(path) + read.at(path));
  }
  // Level 0's files overlap one another, so every compaction out of Level 0 reads them; Level
  // 1's only where it is on `slow` is that directory sure to be read (below Level 1, RocksDB
  // moves a file without reading it where nothing overlaps it in the next level).
  CHECK_GT(read.at(fast), uint64_t{0});
  if (fast_levels == 1) CHECK_GT(read.at(slow), uint64_t{0});
  CHECK(FilesIn(home, ".sst").empty());
  // The WAL (empty: the bridge's writes skip it) is in wal_dir and nowhere else.
  CHECK_EQ(FilesIn(wal, ".log").size(), size_t{1});
  for (const std::string& path : {home, fast, slow}) CHECK(FilesIn(path, ".log").empty());

  db.ResetPathBytes();
  for (const auto& [path, bytes] : db.PathBytesWritten()) CHECK_EQ(bytes, uint64_t{0});
  for (const auto& [path, bytes] : db.PathBytesRead()) CHECK_EQ(bytes, uint64_t{0});
  CHECK(db.PathLiveBytes() == live);  // live bytes are now, not counts
  PutRandomKeys(&db, 1000, 2);
  db.Flush();
  db.WaitForBackgroundWork(60.0);
  const auto after = db.PathBytesWritten();
  CHECK_GT(after.at(fast), uint64_t{0});
  CHECK_LT(after.at(fast), written.at(fast));
}

TEST(Database, DbPathsPutEachCompactionsOutputWhereRocksDBsRuleSays) {
  // GetPathId counts Level 0 as Level 1 (64 KiB), then 64 KiB, 256 KiB, ...: a first path of
  // 128 KiB holds Levels 0 and 1 and not Level 2, so Levels 2 and below go to the second (the
  // fallback); one of 64 KiB to 127 KiB holds Level 0 only.
  CheckTwoPaths(2 * kLevelBase, 2);
  CheckTwoPaths(2 * kLevelBase - 1, 1);
  CheckTwoPaths(kLevelBase, 1);
}

TEST(Database, WithoutDbPathsTheDatabasesDirectoryHoldsAndCountsEverything) {
  wacky::test::TempDir dir;
  const std::string home = dir.path() + "/db";
  Database db(home, WriteOptionsFile(dir, "OPTIONS", kTwoPathLevels), 1 << 20);
  PutRandomKeys(&db, 10000, 3);
  db.Flush();
  db.WaitForBackgroundWork(60.0);
  const auto written = db.PathBytesWritten();
  const auto read = db.PathBytesRead();
  const auto live = db.PathLiveBytes();
  CHECK_EQ(written.size(), size_t{1});
  CHECK_EQ(live.at(home), Sum(FilesIn(home, ".sst")));
  CHECK_EQ(written.at(home), live.at(home) + read.at(home));
  CHECK_GT(read.at(home), uint64_t{0});
  CHECK_EQ(FilesIn(home, ".log").size(), size_t{1});
  for (const auto& f : db.LiveFiles()) CHECK_EQ(f.db_path, home);
}

TEST(Database, CompactFilesCountsWhatItReadsAndWhere) {
  wacky::test::TempDir dir;
  const std::string home = dir.path() + "/db";
  Database db(home, WriteOptions(dir, true), 1 << 20, {}, true);
  for (uint64_t i = 0; i < 3; ++i) {
    PutKeys(&db, 10000 * i, 1000);
    db.Flush();
  }
  uint64_t inputs = 0;
  for (const auto& f : db.LiveFiles()) inputs += f.bytes;
  const CompactResult merged = db.CompactFiles(Names(db), 1);
  const auto read = db.PathBytesRead();
  const auto written = db.PathBytesWritten();
  CHECK_EQ(read.at(home), inputs);
  CHECK(db.PathLevelBytesWritten().at(home) == (std::vector<uint64_t>{0, merged.bytes}));
  CHECK_EQ(written.at(home), inputs + merged.bytes);
}

TEST(Database, DbPathsAreCheckedBeforeOpening) {
  wacky::test::TempDir dir;
  const std::string fixed = WriteOptionsFile(dir, "OPTIONS", kTwoPathLevels);
  const std::string a = dir.path() + "/a", b = dir.path() + "/b";
  auto open = [&](const std::vector<std::pair<std::string, uint64_t>>& paths,
                  const std::string& options) {
    Database db(dir.path() + "/db", options, 1 << 20, {}, false, false, 1, paths);
  };
  CHECK_THROWS(open({{"", 1 << 20}, {b, 0}}, fixed), std::invalid_argument,
               "db_paths[0]: the path is empty");
  CHECK_THROWS(open({{a, 1 << 20}, {"", 0}}, fixed), std::invalid_argument,
               "db_paths[1]: the path is empty");
  CHECK_THROWS(open({{a, 0}, {b, 0}}, fixed), std::invalid_argument,
               "db_paths[0] (" + a + "): a target size of 0 bytes");
  CHECK_THROWS(open({{a, 1 << 20}, {a, 0}}, fixed), std::invalid_argument, "given twice");
  CHECK_THROWS(open({{a, 1}, {b, 1}, {a + "c", 1}, {a + "d", 1}, {a + "e", 1}}, fixed),
               std::invalid_argument, "db_paths: RocksDB takes at most 4 paths");
  const std::string dynamic = WriteOptionsFile(dir, "OPTIONS-dynamic",
                                               "  level_compaction_dynamic_level_bytes=true\n");
  CHECK_THROWS(open({{a, 1 << 20}, {b, 0}}, dynamic), std::invalid_argument,
               "level_compaction_dynamic_level_bytes");
  open({{a, 1 << 20}}, dynamic);  // one path: RocksDB keeps dynamic level sizes
  open({{a, 1 << 20}, {b, 0}}, fixed);  // a zero target on the last path is the fallback's
}

// Holds every thread of the default Env's LOW pool (where RocksDB compacts) for kHoldMs, so a
// compaction RocksDB schedules meanwhile waits in the queue, as when the OS is slow to run it.
constexpr int kHoldMs = 500;

void Hold(void* /*arg*/) { std::this_thread::sleep_for(std::chrono::milliseconds(kHoldMs)); }

void HoldCompactionThreads() {
  rocksdb::Env* env = rocksdb::Env::Default();
  for (int i = 0; i < env->GetBackgroundThreads(rocksdb::Env::Priority::LOW); ++i) {
    env->Schedule(&Hold, nullptr, rocksdb::Env::Priority::LOW);
  }
}

unsigned int QueuedJobs() {
  rocksdb::Env* env = rocksdb::Env::Default();
  return env->GetThreadPoolQueueLen(rocksdb::Env::Priority::LOW) +
         env->GetThreadPoolQueueLen(rocksdb::Env::Priority::HIGH);
}

void CheckNothingRunsOrWaits(const Database& db) {
  CHECK_EQ(db.IntProperty("rocksdb.num-running-compactions"), uint64_t{0});
  CHECK_EQ(db.IntProperty("rocksdb.num-running-flushes"), uint64_t{0});
  CHECK_EQ(db.IntProperty("rocksdb.num-immutable-mem-table"), uint64_t{0});
  CHECK_EQ(QueuedJobs(), 0u);
}

TEST(Database, WaitForBackgroundWorkOutlastsAQueuedCompaction) {
  wacky::test::TempDir dir;
  Database db(dir.path() + "/db",
              WriteOptionsFile(dir, "OPTIONS-leveled", "  level0_file_num_compaction_trigger=2\n"),
              1 << 20);
  HoldCompactionThreads();
  for (uint64_t i = 0; i < 4; ++i) {
    PutKeys(&db, i, 1000);  // overlapping key ranges: a real merge, not a move
    db.Flush();
  }
  CHECK_EQ(db.IntProperty("rocksdb.num-running-compactions"), uint64_t{0});
  CHECK_GT(QueuedJobs(), 0u);  // the compaction is scheduled, not started
  const double waited = db.WaitForBackgroundWork(60.0);
  CheckNothingRunsOrWaits(db);
  CHECK_EQ(db.IntProperty("rocksdb.compaction-pending"), uint64_t{0});
  const uint64_t written = db.Tickers().at("rocksdb.compact.write.bytes");
  CHECK_GT(written, uint64_t{0});
  CHECK_GT(waited, 0.0);
}

TEST(Database, WaitForBackgroundWorkEndsWhenUniversalCompactionDeclines) {
  wacky::test::TempDir dir;
  // Three sorted runs reach the trigger (2) but not the merge width (8), and size
  // amplification never triggers: RocksDB reports a compaction pending that never runs.
  Database db(dir.path() + "/db",
              WriteOptionsFile(dir, "OPTIONS-universal",
                               "  compaction_style=kCompactionStyleUniversal\n"
                               "  level0_file_num_compaction_trigger=2\n"
                               "  compaction_options_universal={min_merge_width=8;"
                               "max_size_amplification_percent=1000000}\n"),
              1 << 20);
  HoldCompactionThreads();  // the picker runs only once the hold ends
  for (uint64_t i = 0; i < 3; ++i) {
    PutKeys(&db, i, 1000);
    db.Flush();
  }
  CHECK_GT(QueuedJobs(), 0u);
  const auto start = std::chrono::steady_clock::now();
  const double waited = db.WaitForBackgroundWork(30.0);  // throws if it waits that long
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CheckNothingRunsOrWaits(db);
  CHECK_EQ(db.IntProperty("rocksdb.compaction-pending"), uint64_t{1});  // and stays so
  const std::vector<LevelInfo> levels = db.Levels();
  CHECK_EQ(levels[0].files, 3);  // nothing merged
  const uint64_t written = db.Tickers().at("rocksdb.compact.write.bytes");
  CHECK_EQ(written, uint64_t{0});
  CHECK_LE(waited, took);
  CHECK_LT(took, kHoldMs / 1000.0 + 2.0);
  // Already idle: returns within a few polls.
  CHECK_LT(db.WaitForBackgroundWork(30.0), 1.0);
}

TEST(Database, ATraceReadsBackEveryQueryInOrder) {
  wacky::test::TempDir dir;
  const std::string home = dir.path() + "/db", trace = dir.path() + "/trace";
  {
    Database db(home, WriteOptions(dir, false), 1 << 20, {}, false, false, 1, {}, "",
                /*wal=*/true);
    PutKeys(&db, 100, 3);  // before the trace: not in it
    db.StartTrace(trace);
    CHECK_THROWS(db.StartTrace(trace), std::logic_error, "already being recorded");
    PutKeys(&db, 1, 2);  // keys 1, 3
    const uint64_t gets[] = {3, 4};
    bool found[2];
    db.GetMany(gets, 2, found);
    CHECK(found[0] && !found[1]);
    const uint64_t starts[] = {100};
    CHECK_EQ(db.ScanMany(starts, 1, 2), uint64_t{2});
    db.EndTrace();
    CHECK_THROWS(db.EndTrace(), std::logic_error, "no trace");
  }
  const DecodedTrace t = ReadTrace(trace);
  const std::vector<uint8_t> ops = {kTracePut, kTracePut, kTraceGet, kTraceGet, kTraceSeek};
  const std::vector<uint64_t> keys = {1, 3, 3, 4, 100};
  CHECK(t.ops == ops);
  CHECK(t.keys == keys);
  CHECK_EQ(t.value_bytes[0], uint32_t{16});
  CHECK(t.complete);
  CHECK_EQ(t.other_keys, uint64_t{0});
  // Not a trace, and a trace cut inside a record.
  {
    std::ofstream junk(dir.path() + "/junk");
    junk << "this is not a trace file, whatever its length may be\n";
  }
  CHECK_THROWS(ReadTrace(dir.path() + "/junk"), std::invalid_argument,
               "is not a RocksDB trace file");
  CHECK_THROWS(ReadTrace(dir.path() + "/none"), std::invalid_argument, "does not exist");
  std::filesystem::resize_file(trace, std::filesystem::file_size(trace) - 3);
  CHECK(!ReadTrace(trace).complete);
}

TEST(Database, ReadOnlyOpeningCountsKeysAndSeesTheLock) {
  wacky::test::TempDir dir;
  const std::string home = dir.path() + "/db";
  {
    Database db(home, WriteOptions(dir, false), 1 << 20);
    PutKeys(&db, 0, 1000);
    PutKeys(&db, 0, 500);  // overwrites: still 1,000 keys
    db.Flush();
    CHECK(!DatabaseInUse(home).empty());  // held by this process
  }
  CHECK(DatabaseInUse(home).empty());
  CHECK(DatabaseInUse(dir.path() + "/nowhere").empty());
  ReadOnlyDatabase ro(home);
  CHECK_EQ(ro.CountKeys(10000), uint64_t{1000});
  CHECK_EQ(ro.CountKeys(10), uint64_t{11});
  const uint64_t keys[] = {0, 1, 1998};
  bool found[3];
  ro.GetMany(keys, 3, found);
  CHECK(found[0] && !found[1] && found[2]);
  CHECK(ro.OptionsProblem().empty());
}

}  // namespace
}  // namespace wacky_rocksdb

int main() { return wacky::test::RunAllTests(); }
