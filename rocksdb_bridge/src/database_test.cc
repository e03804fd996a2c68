// database_test.cc — the bridge's Database: the driver's calls against a real RocksDB.
#include "database.h"

#include <rocksdb/env.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "key_partitioner.h"
#include "testharness.h"

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

}  // namespace
}  // namespace wacky_rocksdb

int main() { return wacky::test::RunAllTests(); }
