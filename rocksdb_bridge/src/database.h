// A RocksDB database opened from an OPTIONS file, for validation runs.
//
// Contract: the constructor opens (creating) the database at `path` with the column-family
// options of the given OPTIONS file, RocksDB statistics enabled and a plain LRU block cache of
// `block_cache_bytes` (one shard, no high-priority pool: one LRU list, as the models price it);
// the destructor closes it. The OPTIONS file decides where index and filter blocks live: with
// cache_index_and_filter_blocks=false they stay in memory with each table and the cache holds
// data blocks only; with true (paged metadata, docs/MODEL.md G1) they share the cache, and the
// statistics' block-cache filter and index tickers count their hits and misses (ReadCounts
// stays data blocks only). Flushes and compactions never insert their output
// (prepopulate_block_cache=kDisable), and reads insert what they read only with `fill_cache`. Keys are unsigned 64-bit integers stored as 8
// big-endian bytes, so RocksDB's bytewise order is numeric order. Writes skip the WAL (the
// measurements are of the tree, not of logging) unless the database is opened with `wal`, as a
// database an application runs would be (wacky advise's tests build such databases). The
// OPTIONS file's DBOptions reach RocksDB as written: stats_dump_period_sec there makes RocksDB
// write its compaction statistics and a STATISTICS dump to the info LOG. StartTrace records
// the queries (DB::StartTrace) to a trace file, read back by trace.h's ReadTrace. Table files go to the directories of
// `db_paths` when it is given (RocksDB's placement of levels on devices), and each directory's
// bytes written, read and live are counted (path_listener.h). Every failed RocksDB call throws
// std::runtime_error with RocksDB's status message.
#ifndef WACKY_ROCKSDB_BRIDGE_DATABASE_H_
#define WACKY_ROCKSDB_BRIDGE_DATABASE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace rocksdb {
class DB;
class Statistics;
}  // namespace rocksdb

namespace wacky_rocksdb {

class DriverFilterPolicy;
class PathListener;
class SpaceListener;

// One SST file as RocksDB reports it (name relative to the database directory).
struct FileInfo {
  std::string name;
  int level;
  uint64_t entries;
  uint64_t bytes;
  uint64_t smallest_seqno;
  uint64_t largest_seqno;
  uint64_t smallest_key = 0;  // the bridge's keys, decoded
  uint64_t largest_key = 0;
  std::string db_path;  // the directory it is in (a db_paths entry, or the database's path)
};

// What one CompactFiles call wrote.
struct CompactResult {
  std::vector<std::string> outputs;  // relative names
  uint64_t records;
  uint64_t bytes;
};

// One level of the LSM-tree as RocksDB reports it.
struct LevelInfo {
  int level;
  int files;
  uint64_t bytes;
  uint64_t entries;
};

// The levels of `db`'s default column family, level 0 first (Database and ReadOnlyDatabase).
std::vector<LevelInfo> LevelsOf(rocksdb::DB& db);

// Data-block cache lookups at one level.
struct CacheCounts {
  uint64_t hits = 0;
  uint64_t misses = 0;
};

class Database {
 public:
  // A non-empty filter_bits_per_level replaces the file's filter policy by a
  // LevelFilterPolicy (each level its own bits per key). `driven` opens it for the Wacky
  // compaction driver: the OPTIONS file must disable automatic compactions, and the filter
  // policy becomes a DriverFilterPolicy (SetNextFileBits). `fill_cache`: GetMany inserts the
  // data blocks it reads into the cache (a cache sized for the workload); otherwise reads only
  // look blocks up, so with an empty cache every data block read is a miss.
  // `partitions` > 1 sets the column family's sst_partitioner_factory to a
  // KeyPartitionerFactory (key_partitioner.h): output files never span one of its cuts.
  //
  // `db_paths` is RocksDB's DBOptions::db_paths, {directory, target bytes} each: table files go
  // to those directories instead of `path` (which keeps the MANIFEST, the info log and, unless
  // `wal_dir` says otherwise, the WAL). Flushes write to the first. Leveled compaction fills
  // the directories in order with the levels' target sizes, Level 0 (counted as
  // max_bytes_for_level_base) first: a level's files go to the current directory while the
  // level's target fits in what the levels before it left of that directory's target, else to
  // the next; the last takes the rest (LevelCompactionBuilder::GetPathId, mirrored by
  // wacky_model/rocksdb_paths.py). Targets are not limits: RocksDB never looks at a
  // directory's actual bytes. RocksDB 7.8's OPTIONS file cannot carry db_paths (nor cf_paths),
  // so they come from here only; empty is RocksDB's default, `path` alone. Throws
  // std::invalid_argument naming db_paths for an empty or repeated directory, a target of 0 on
  // any but the last, more than four (RocksDB's limit), or two or more with leveled compaction
  // and level_compaction_dynamic_level_bytes=true in the OPTIONS file: RocksDB would turn that
  // off with a warning in its log, sizing the levels from Level 1 down instead of as the file
  // asks, so the bridge refuses and the OPTIONS file must say false.
  // `wal_dir`, non-empty, replaces the OPTIONS file's wal_dir (which can carry it; RocksDB's
  // default is `path`). The bridge's writes skip the WAL, so it holds the one empty log RocksDB
  // opens.
  Database(const std::string& path, const std::string& options_file, size_t block_cache_bytes,
           const std::vector<double>& filter_bits_per_level = {}, bool driven = false,
           bool fill_cache = false, int partitions = 1,
           const std::vector<std::pair<std::string, uint64_t>>& db_paths = {},
           const std::string& wal_dir = "", bool wal = false);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // n keys and n values of value_bytes bytes each (values laid out back to back).
  void PutMany(const uint64_t* keys, size_t n, const uint8_t* values, size_t value_bytes);
  // found[i] = whether keys[i] is present; fills the block cache only with `fill_cache`.
  void GetMany(const uint64_t* keys, size_t n, bool* found) const;
  // For each start key, reads up to `length` entries in key order from it; returns the
  // entries read. Scans never fill the block cache.
  uint64_t ScanMany(const uint64_t* starts, size_t n, size_t length) const;
  void Flush();
  // The operations of a timed mix (RunMix).
  enum MixOp : uint8_t { kMixPut = 0, kMixGet = 1, kMixScan = 2 };
  // Runs n operations in order, one at a time, as one client thread issues them: kinds[i] (a
  // MixOp) says which, keys[i] is its key (a scan's start); a put writes `value` (value_bytes
  // bytes), a scan reads up to range_length entries through an iterator of its own (so it sees
  // the writes before it, as a client's range query does). Per operation it fills nanos[i],
  // the wall time on the steady clock; blocks[i], the blocks it read from the table files
  // (PerfContext block_read_count: its cache misses, data, filter and index alike); and
  // results[i], 1 if a get found its key and a scan's entries read. Gets fill the cache as
  // GetMany does, scans as ScanMany does (never); both add to ReadCounts. Throws
  // std::invalid_argument naming the operation for a kind that is not a MixOp.
  void RunMix(const uint8_t* kinds, const uint64_t* keys, size_t n, const uint8_t* value,
              size_t value_bytes, size_t range_length, int64_t* nanos, uint32_t* blocks,
              uint64_t* results);
  // Starts recording every query (writes, gets, iterator seeks) to a new trace file at
  // `trace_path` (RocksDB's NewFileTraceWriter); EndTrace stops and closes it (as does the
  // destructor). Throws std::logic_error for a second StartTrace or an EndTrace without one.
  void StartTrace(const std::string& trace_path);
  void EndTrace();
  // True while a flush or compaction is running or pending.
  bool Busy() const;
  // Waits until no flush or compaction runs, is queued in the Env's thread pools (shared with
  // any other database on that Env) or is pending, so the writer never outruns compaction
  // however late the OS starts a scheduled job. A compaction left pending with nothing queued
  // or running for 20 ms is one RocksDB's picker declined (universal compaction below
  // min_merge_width) and counts as none. Returns the seconds waited; throws after
  // timeout_seconds.
  double WaitForBackgroundWork(double timeout_seconds) const;
  std::map<std::string, uint64_t> Tickers() const;
  // Each statistics histogram by RocksDB's name: {count, sum} (e.g. rocksdb.compaction.times
  // .micros: compactions run and their wall microseconds, the time model's calibration).
  std::map<std::string, std::pair<uint64_t, uint64_t>> Histograms() const;
  // The data-block cache hits and misses of GetMany and ScanMany since the database opened, per
  // level (index = RocksDB's level, that of a file when its table reader opened): RocksDB's
  // per-level PerfContext of the reading thread, so a flush's or compaction's reads never
  // count.
  std::vector<CacheCounts> ReadCounts() const;
  std::vector<LevelInfo> Levels() const;
  uint64_t IntProperty(const std::string& name) const;
  // Bytes of Bloom filter in every live SST file (their table properties).
  uint64_t FilterBytes() const;
  std::vector<FileInfo> LiveFiles() const;
  // The bytes of the SST files RocksDB wrote and has not deleted, now and at their most since
  // the database opened or ResetPeakDisk() (space_listener.h: a compaction's inputs and its
  // finished outputs together).
  uint64_t DiskBytes() const;
  uint64_t PeakDiskBytes() const;
  void ResetPeakDisk();

  // Per directory of table files (db_paths' directories as given, or `path`; each has an entry),
  // since the database opened or ResetPathBytes() (path_listener.h): the bytes of the table
  // files flushes and compactions wrote there, and the bytes of the input files compactions read
  // there (a trivial move reads nothing).
  std::map<std::string, uint64_t> PathBytesWritten() const;
  std::map<std::string, uint64_t> PathBytesRead() const;
  // The bytes compactions wrote per directory and output level (index = level); flushes, all in
  // the first directory, are not in it.
  std::map<std::string, std::vector<uint64_t>> PathLevelBytesWritten() const;
  void ResetPathBytes();
  // The bytes of the live table files per directory, now (RocksDB's LiveFileMetaData).
  std::map<std::string, uint64_t> PathLiveBytes() const;

  // The driver's calls; each throws std::logic_error unless the database was opened driven.
  // Bits per key of the next files built (by a flush or a merge).
  void SetNextFileBits(double bits_per_key);
  // Merges the input files (relative names) into one uncompressed file at output_level, in this
  // thread (RocksDB's CompactFiles).
  CompactResult CompactFiles(const std::vector<std::string>& inputs, int output_level);

 private:
  void RequireDriven(const char* what) const;
  // Adds the calling thread's per-level PerfContext (reset by StartCounting) to read_counts_.
  void AddReadCounts() const;

  std::unique_ptr<rocksdb::DB> db_;
  bool fill_cache_;
  bool wal_ = false;
  bool tracing_ = false;
  mutable std::mutex counts_mutex_;
  mutable std::vector<CacheCounts> read_counts_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  std::shared_ptr<DriverFilterPolicy> driver_filter_;
  std::shared_ptr<SpaceListener> space_;
  std::vector<std::string> table_dirs_;  // where table files go, db_paths' order
  std::shared_ptr<PathListener> paths_;
};

// "major.minor.patch" of the RocksDB this module was built against.
std::string RocksDBVersion();

// Checks that an OPTIONS file parses; throws with RocksDB's message when it does not.
void CheckOptionsFile(const std::string& options_file);

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_DATABASE_H_
