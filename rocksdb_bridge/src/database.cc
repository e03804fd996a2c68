#include "database.h"

#include "driver_filter_policy.h"
#include "key_partitioner.h"
#include "keys.h"
#include "level_filter_policy.h"
#include "path_listener.h"
#include "space_listener.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/trace_reader_writer.h>
#include <rocksdb/utilities/options_util.h>
#include <rocksdb/version.h>

#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

namespace wacky_rocksdb {
namespace {

void Check(const rocksdb::Status& s, const std::string& what) {
  if (!s.ok()) throw std::runtime_error("RocksDB " + what + ": " + s.ToString());
}

void LoadOptions(const std::string& options_file, rocksdb::DBOptions* db_options,
                 rocksdb::ColumnFamilyOptions* cf_options) {
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.input_strings_escaped = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  Check(rocksdb::LoadOptionsFromFile(config, options_file, db_options, &families),
        "could not load the OPTIONS file " + options_file);
  for (const auto& family : families) {
    if (family.name == rocksdb::kDefaultColumnFamilyName) {
      *cf_options = family.options;
      return;
    }
  }
  throw std::runtime_error("the OPTIONS file " + options_file +
                           " has no [CFOptions \"default\"] section");
}

// Starts counting the calling thread's block cache lookups per level (AddReadCounts).
void StartCounting() {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->EnablePerLevelPerfContext();
  rocksdb::get_perf_context()->Reset();
}

std::string Relative(const std::string& name) {
  const size_t slash = name.find_last_of('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// Throws std::invalid_argument unless `db_paths` is a list RocksDB places files by as asked.
void CheckDbPaths(const std::vector<std::pair<std::string, uint64_t>>& db_paths) {
  if (db_paths.size() > 4) {
    throw std::invalid_argument("db_paths: RocksDB takes at most 4 paths; got " +
                                std::to_string(db_paths.size()));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < db_paths.size(); ++i) {
    const auto& [dir, target] = db_paths[i];
    const std::string which = "db_paths[" + std::to_string(i) + "]";
    if (dir.empty()) throw std::invalid_argument(which + ": the path is empty");
    if (!seen.insert(dir).second) {
      throw std::invalid_argument(which + ": the path " + dir + " is given twice");
    }
    // A zero target takes no level: RocksDB would skip the path but still flush to it if first.
    if (target == 0 && i + 1 < db_paths.size()) {
      throw std::invalid_argument(which + " (" + dir + "): a target size of 0 bytes; only the "
                                  "last path (the fallback) may have one");
    }
  }
}

}  // namespace

Database::Database(const std::string& path, const std::string& options_file,
                   size_t block_cache_bytes, const std::vector<double>& filter_bits_per_level,
                   bool driven, bool fill_cache, int partitions,
                   const std::vector<std::pair<std::string, uint64_t>>& db_paths,
                   const std::string& wal_dir, bool wal)
    : fill_cache_(fill_cache), wal_(wal) {
  CheckDbPaths(db_paths);
  rocksdb::DBOptions db_options;
  rocksdb::ColumnFamilyOptions cf_options;
  LoadOptions(options_file, &db_options, &cf_options);
  if (driven && !cf_options.disable_auto_compactions) {
    throw std::invalid_argument("the compaction driver needs disable_auto_compactions=true in "
                                "the OPTIONS file " + options_file);
  }
  // RocksDB's SanitizeOptions turns dynamic level sizes off with two or more paths, which would
  // size the levels otherwise than the OPTIONS file says: refuse rather than measure that.
  if (db_paths.size() > 1 && cf_options.compaction_style == rocksdb::kCompactionStyleLevel &&
      cf_options.level_compaction_dynamic_level_bytes) {
    throw std::invalid_argument(
        "db_paths: RocksDB ignores level_compaction_dynamic_level_bytes=true with more than one "
        "path; write the OPTIONS file " + options_file + " with it false");
  }
  db_options.create_if_missing = true;
  for (const auto& [dir, target] : db_paths) db_options.db_paths.emplace_back(dir, target);
  if (!wal_dir.empty()) db_options.wal_dir = wal_dir;
  for (const auto& entry : db_options.db_paths) table_dirs_.push_back(entry.path);
  if (table_dirs_.empty()) table_dirs_.push_back(path);  // RocksDB's default: the database's
  space_ = std::make_shared<SpaceListener>();
  db_options.listeners.push_back(space_);
  paths_ = std::make_shared<PathListener>(table_dirs_);
  db_options.listeners.push_back(paths_);
  statistics_ = rocksdb::CreateDBStatistics();
  db_options.statistics = statistics_;
  // The table options come from the file; only the block cache is ours (its size is a
  // measurement setting, not a design knob).
  auto* table = cf_options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr) {
    throw std::runtime_error("the OPTIONS file must use the block-based table format");
  }
  table->block_cache = rocksdb::NewLRUCache(block_cache_bytes, /*num_shard_bits=*/0,
                                            /*strict_capacity_limit=*/false,
                                            /*high_pri_pool_ratio=*/0.0);
  table->no_block_cache = false;
  table->prepopulate_block_cache =
      rocksdb::BlockBasedTableOptions::PrepopulateBlockCache::kDisable;
  if (driven && !filter_bits_per_level.empty()) {
    throw std::invalid_argument("a driven database sets its filters file by file: give no "
                                "filter bits per level");
  }
  if (!filter_bits_per_level.empty()) {
    table->filter_policy = std::make_shared<LevelFilterPolicy>(filter_bits_per_level);
  }
  if (driven) {
    driver_filter_ = std::make_shared<DriverFilterPolicy>(10.0);
    table->filter_policy = driver_filter_;
  }
  if (partitions != 1) {
    if (cf_options.sst_partitioner_factory)
      throw std::invalid_argument("the OPTIONS file sets its own sst_partitioner_factory: give "
                                  "no partitions");
    cf_options.sst_partitioner_factory = std::make_shared<KeyPartitionerFactory>(partitions);
  }
  rocksdb::Options options(db_options, cf_options);
  rocksdb::DB* raw = nullptr;
  Check(rocksdb::DB::Open(options, path, &raw), "could not open " + path);
  db_.reset(raw);
}

Database::~Database() {
  if (db_ && tracing_) db_->EndTrace().PermitUncheckedError();
  if (db_) {
    rocksdb::CancelAllBackgroundWork(db_.get(), /*wait=*/true);
    db_->Close().PermitUncheckedError();
  }
}

void Database::PutMany(const uint64_t* keys, size_t n, const uint8_t* values,
                       size_t value_bytes) {
  rocksdb::WriteOptions write;
  write.disableWAL = !wal_;
  for (size_t i = 0; i < n; ++i) {
    rocksdb::Slice value(reinterpret_cast<const char*>(values + i * value_bytes), value_bytes);
    Check(db_->Put(write, EncodeKey(keys[i]), value), "put");
  }
}

void Database::GetMany(const uint64_t* keys, size_t n, bool* found) const {
  rocksdb::ReadOptions read;
  read.fill_cache = fill_cache_;
  std::string value;
  StartCounting();
  for (size_t i = 0; i < n; ++i) {
    rocksdb::Status s = db_->Get(read, EncodeKey(keys[i]), &value);
    if (!s.ok() && !s.IsNotFound()) Check(s, "get");
    found[i] = s.ok();
  }
  AddReadCounts();
}

uint64_t Database::ScanMany(const uint64_t* starts, size_t n, size_t length) const {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  uint64_t total = 0;
  StartCounting();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  for (size_t i = 0; i < n; ++i) {
    size_t got = 0;
    for (it->Seek(EncodeKey(starts[i])); it->Valid() && got < length; it->Next()) ++got;
    Check(it->status(), "scan");
    total += got;
  }
  AddReadCounts();
  return total;
}

void Database::RunMix(const uint8_t* kinds, const uint64_t* keys, size_t n,
                      const uint8_t* value_bytes_ptr, size_t value_bytes, size_t range_length,
                      int64_t* nanos, uint32_t* blocks, uint64_t* results) {
  for (size_t i = 0; i < n; ++i) {  // before any operation runs: nothing half done
    if (kinds[i] > kMixScan) {
      throw std::invalid_argument("run_mix: operation " + std::to_string(i) + " has kind " +
                                  std::to_string(kinds[i]) + "; kinds are 0 (put), 1 (get), "
                                  "2 (scan)");
    }
  }
  rocksdb::WriteOptions write;
  write.disableWAL = !wal_;
  rocksdb::ReadOptions get;
  get.fill_cache = fill_cache_;
  rocksdb::ReadOptions scan;
  scan.fill_cache = false;
  const rocksdb::Slice value(reinterpret_cast<const char*>(value_bytes_ptr), value_bytes);
  std::string got;
  StartCounting();
  rocksdb::PerfContext* perf = rocksdb::get_perf_context();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t read_before = perf->block_read_count;
    const auto start = std::chrono::steady_clock::now();
    uint64_t result = 0;
    switch (kinds[i]) {
      case kMixPut:
        Check(db_->Put(write, EncodeKey(keys[i]), value), "put");
        break;
      case kMixGet: {
        rocksdb::Status s = db_->Get(get, EncodeKey(keys[i]), &got);
        if (!s.ok() && !s.IsNotFound()) Check(s, "get");
        result = s.ok() ? 1 : 0;
        break;
      }
      default: {
        std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(scan));
        for (it->Seek(EncodeKey(keys[i])); it->Valid() && result < range_length; it->Next()) {
          ++result;
        }
        Check(it->status(), "scan");
      }
    }
    nanos[i] = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - start).count();
    blocks[i] = static_cast<uint32_t>(perf->block_read_count - read_before);
    results[i] = result;
  }
  AddReadCounts();
}

void Database::AddReadCounts() const {
  rocksdb::PerfContext* perf = rocksdb::get_perf_context();
  std::lock_guard<std::mutex> lock(counts_mutex_);
  if (perf->level_to_perf_context != nullptr) {
    for (const auto& [level, counts] : *perf->level_to_perf_context) {
      if (read_counts_.size() <= level) read_counts_.resize(level + 1);
      read_counts_[level].hits += counts.block_cache_hit_count;
      read_counts_[level].misses += counts.block_cache_miss_count;
    }
  }
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
}

std::vector<CacheCounts> Database::ReadCounts() const {
  std::lock_guard<std::mutex> lock(counts_mutex_);
  return read_counts_;
}

void Database::Flush() {
  rocksdb::FlushOptions options;
  options.wait = true;
  Check(db_->Flush(options), "flush");
}

void Database::StartTrace(const std::string& trace_path) {
  if (tracing_) throw std::logic_error("StartTrace: a trace is already being recorded");
  std::unique_ptr<rocksdb::TraceWriter> writer;
  Check(rocksdb::NewFileTraceWriter(db_->GetEnv(), rocksdb::EnvOptions(), trace_path, &writer),
        "could not create the trace file " + trace_path);
  Check(db_->StartTrace(rocksdb::TraceOptions(), std::move(writer)), "StartTrace");
  tracing_ = true;
}

void Database::EndTrace() {
  if (!tracing_) throw std::logic_error("EndTrace: no trace is being recorded");
  tracing_ = false;
  Check(db_->EndTrace(), "EndTrace");
}

uint64_t Database::IntProperty(const std::string& name) const {
  uint64_t value = 0;
  if (!db_->GetIntProperty(name, &value)) {
    throw std::runtime_error("RocksDB has no integer property " + name);
  }
  return value;
}

bool Database::Busy() const {
  return IntProperty("rocksdb.num-running-compactions") > 0 ||
         IntProperty("rocksdb.num-running-flushes") > 0 ||
         IntProperty("rocksdb.compaction-pending") > 0 ||
         IntProperty("rocksdb.mem-table-flush-pending") > 0;
}

double Database::WaitForBackgroundWork(double timeout_seconds) const {
  // A flush or compaction RocksDB schedules waits in its Env's thread pool queue until a
  // worker takes it, and counts as running once that worker holds the DB mutex; only the step
  // between shows in neither. A flush in that step leaves its memtable pending and a
  // compaction its compaction, so with a compaction pending the quiet must last kIdleGrace
  // (the OS may preempt the worker there); after that the picker declined it (universal
  // compaction below min_merge_width, say) and it never runs. Otherwise quiet on two polls in
  // a row is enough.
  constexpr double kIdleGrace = 0.02;
  rocksdb::Env* const env = db_->GetEnv();
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double quiet_since = -1.0;
  while (true) {
    const bool pending = IntProperty("rocksdb.compaction-pending") > 0;
    const bool quiet = IntProperty("rocksdb.num-running-compactions") == 0 &&
                       IntProperty("rocksdb.num-running-flushes") == 0 &&
                       IntProperty("rocksdb.mem-table-flush-pending") == 0 &&
                       IntProperty("rocksdb.num-immutable-mem-table") == 0 &&
                       env->GetThreadPoolQueueLen(rocksdb::Env::Priority::HIGH) == 0 &&
                       env->GetThreadPoolQueueLen(rocksdb::Env::Priority::LOW) == 0 &&
                       env->GetThreadPoolQueueLen(rocksdb::Env::Priority::BOTTOM) == 0;
    if (!quiet) {
      quiet_since = -1.0;
    } else if (quiet_since < 0.0) {
      quiet_since = elapsed();
    } else if (!pending || elapsed() - quiet_since >= kIdleGrace) {
      break;
    }
    if (elapsed() > timeout_seconds) {
      throw std::runtime_error("RocksDB's compactions did not finish within " +
                               std::to_string(timeout_seconds) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return elapsed();
}

std::map<std::string, uint64_t> Database::Tickers() const {
  std::map<std::string, uint64_t> out;
  for (const auto& [ticker, name] : rocksdb::TickersNameMap) {
    out[name] = statistics_->getTickerCount(ticker);
  }
  return out;
}

std::map<std::string, std::pair<uint64_t, uint64_t>> Database::Histograms() const {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (const auto& [histogram, name] : rocksdb::HistogramsNameMap) {
    rocksdb::HistogramData data;
    statistics_->histogramData(histogram, &data);
    out[name] = {data.count, data.sum};
  }
  return out;
}

std::vector<LevelInfo> Database::Levels() const { return LevelsOf(*db_); }

std::vector<LevelInfo> LevelsOf(rocksdb::DB& db) {
  rocksdb::ColumnFamilyMetaData meta;
  db.GetColumnFamilyMetaData(&meta);
  std::vector<LevelInfo> out;
  for (const auto& level : meta.levels) {
    LevelInfo info{level.level, static_cast<int>(level.files.size()), level.size, 0};
    for (const auto& file : level.files) info.entries += file.num_entries;
    out.push_back(info);
  }
  return out;
}

uint64_t Database::FilterBytes() const {
  rocksdb::TablePropertiesCollection tables;
  Check(db_->GetPropertiesOfAllTables(&tables), "table properties");
  uint64_t total = 0;
  for (const auto& [file, properties] : tables) total += properties->filter_size;
  return total;
}

std::vector<FileInfo> Database::LiveFiles() const {
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  std::vector<FileInfo> out;
  for (const auto& f : files) {
    out.push_back({Relative(f.relative_filename), f.level, f.num_entries, f.size,
                   f.smallest_seqno, f.largest_seqno, DecodeKey(f.smallestkey),
                   DecodeKey(f.largestkey), f.db_path});
  }
  return out;
}

std::map<std::string, uint64_t> Database::PathLiveBytes() const {
  std::map<std::string, uint64_t> out;
  for (const auto& dir : table_dirs_) out[dir] = 0;
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  for (const auto& f : files) out[f.db_path] += f.size;
  return out;
}

void Database::RequireDriven(const char* what) const {
  if (!driver_filter_) {
    throw std::logic_error(std::string(what) + " needs a database opened for the driver");
  }
}

void Database::SetNextFileBits(double bits_per_key) {
  RequireDriven("SetNextFileBits");
  driver_filter_->SetNextFileBits(bits_per_key);
}

CompactResult Database::CompactFiles(const std::vector<std::string>& inputs,
                                     int output_level) {
  RequireDriven("CompactFiles");
  if (inputs.empty()) throw std::invalid_argument("CompactFiles needs at least one input file");
  rocksdb::CompactionOptions options;
  options.compression = rocksdb::kNoCompression;  // the model counts uncompressed blocks
  std::vector<std::string> names;
  rocksdb::CompactionJobInfo info;
  Check(db_->CompactFiles(options, inputs, output_level, -1, &names, &info), "CompactFiles");
  paths_->AddCompaction(info);  // RocksDB 7.8's CompactFiles tells no listener
  CompactResult out{{}, info.stats.num_output_records, info.stats.total_output_bytes};
  for (const auto& name : names) out.outputs.push_back(Relative(name));
  return out;
}

std::string RocksDBVersion() {
  return std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
         std::to_string(ROCKSDB_PATCH);
}

void CheckOptionsFile(const std::string& options_file) {
  rocksdb::DBOptions db_options;
  rocksdb::ColumnFamilyOptions cf_options;
  LoadOptions(options_file, &db_options, &cf_options);
}

uint64_t Database::DiskBytes() const { return space_->Current(); }

uint64_t Database::PeakDiskBytes() const { return space_->Peak(); }

void Database::ResetPeakDisk() { space_->ResetPeak(); }

std::map<std::string, uint64_t> Database::PathBytesWritten() const { return paths_->Written(); }

std::map<std::string, uint64_t> Database::PathBytesRead() const { return paths_->Read(); }

std::map<std::string, std::vector<uint64_t>> Database::PathLevelBytesWritten() const {
  return paths_->WrittenByLevel();
}

void Database::ResetPathBytes() { paths_->Reset(); }

}  // namespace wacky_rocksdb
