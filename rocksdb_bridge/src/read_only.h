// A look at an existing RocksDB database that never writes to it.
//
// Contract: DatabaseInUse(path) says whether another DB::Open holds the database's LOCK file,
// in this process or another: "" when it is free (or there is no LOCK file: no database), else
// RocksDB's message. It takes the lock with RocksDB's own Env::LockFile, as DB::Open does, and
// releases it at once; the LOCK file exists already, so nothing is written. ReadOnlyDatabase
// opens the database with DB::OpenForReadOnly (no flush, no compaction, no new file; the WAL is
// replayed into memory only) with the options of its latest OPTIONS file, or RocksDB's defaults
// when that file cannot be loaded (an OPTIONS file from a newer RocksDB, say): reading needs
// only the bytewise comparator. Every failed RocksDB call throws std::runtime_error with
// RocksDB's status message and the path.
#ifndef WACKY_ROCKSDB_BRIDGE_READ_ONLY_H_
#define WACKY_ROCKSDB_BRIDGE_READ_ONLY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "database.h"

namespace rocksdb {
class DB;
}  // namespace rocksdb

namespace wacky_rocksdb {

std::string DatabaseInUse(const std::string& path);

class ReadOnlyDatabase {
 public:
  explicit ReadOnlyDatabase(const std::string& path);
  ~ReadOnlyDatabase();
  ReadOnlyDatabase(const ReadOnlyDatabase&) = delete;
  ReadOnlyDatabase& operator=(const ReadOnlyDatabase&) = delete;

  // found[i] = whether keys[i] (a bridge u64 key) is present; never fills the block cache.
  void GetMany(const uint64_t* keys, size_t n, bool* found) const;
  // The keys the database holds (an iterator over it: each live key once, deleted and
  // overwritten versions not), counting up to `limit`; returns limit + 1 when there are more.
  uint64_t CountKeys(uint64_t limit) const;
  // Files, bytes and entries per level (LiveFileMetaData): the entries count every version a
  // table file holds.
  std::vector<LevelInfo> Levels() const;
  // Whether the options came from the database's OPTIONS file ("" if so, else why not).
  const std::string& OptionsProblem() const { return options_problem_; }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::string options_problem_;
};

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_READ_ONLY_H_
