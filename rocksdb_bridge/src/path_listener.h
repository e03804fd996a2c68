// path_listener.h — the bytes of table files RocksDB writes and reads in each of its data
// directories (DBOptions::db_paths: the "devices" a design places its levels on).
//
// Contract: an EventListener (attach it before DB::Open) constructed with the directories
// RocksDB writes table files to (db_paths' paths as given, or the database's path when db_paths
// is empty). It counts, exactly, per directory:
//  * written: the size of every table file RocksDB finishes (OnTableFileCreated: a flush's, a
//    compaction's or recovery's output), in the directory it was created in;
//  * read: the sizes of the input files of every compaction that succeeded
//    (OnCompactionCompleted), in the directories they were in: RocksDB's own measure of what a
//    compaction reads (CompactionJobStats::total_input_bytes), as it reads every data block of
//    its inputs. A trivial move (a file in both the inputs and the outputs: it changes level,
//    never directory) and a FIFO deletion read nothing;
//  * written by level: the bytes of each successful compaction's outputs, at its output level.
//    Flushes are not in it: they always write to the first directory, so a directory's flush
//    bytes are its written bytes less these.
// RocksDB 7.8's CompactFiles notifies no listener: AddCompaction counts what it returns. A file is
// read and placed at most once (a second report of a compaction counts nothing), and its size is
// the one OnTableFileCreated gave: files from before the database opened are not counted (the
// bridge opens fresh databases). A file RocksDB writes outside the given directories is counted
// under its own directory. Without failures or files from before, every file is either live or
// was read once, so written = live + read in each directory. Reset() zeroes the counts (a file
// read before it is not read again). Thread-safe: RocksDB calls it from its background threads.
#ifndef WACKY_ROCKSDB_BRIDGE_PATH_LISTENER_H_
#define WACKY_ROCKSDB_BRIDGE_PATH_LISTENER_H_

#include <rocksdb/listener.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace wacky_rocksdb {

class PathListener : public rocksdb::EventListener {
 public:
  // `dirs`: the directories table files go to, in db_paths' order (the keys of the counts).
  explicit PathListener(std::vector<std::string> dirs);

  const char* Name() const override { return "WackyPathListener"; }
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  // A compaction RocksDB did not report to its listeners (CompactFiles): counted as
  // OnCompactionCompleted counts one.
  void AddCompaction(const rocksdb::CompactionJobInfo& info);

  // Bytes by directory; every directory given at construction has an entry.
  std::map<std::string, uint64_t> Written() const;
  std::map<std::string, uint64_t> Read() const;
  // Bytes compactions wrote, by directory and output level (index = level).
  std::map<std::string, std::vector<uint64_t>> WrittenByLevel() const;
  void Reset();

  // The directory of a table file's path (everything before its last '/'): RocksDB names a
  // file db_paths[i].path + "/" + its number, so this is db_paths[i].path exactly.
  static std::string DirOf(const std::string& file_path);

 private:
  struct File {
    std::string dir;
    uint64_t bytes;
    bool read = false;    // counted as a compaction's input
    bool placed = false;  // counted as a compaction's output at its level
  };
  std::map<std::string, uint64_t> ZeroPerDir() const;

  const std::vector<std::string> dirs_;
  mutable std::mutex mutex_;
  std::map<std::string, File> files_;  // every table file created, by path (never erased)
  std::map<std::string, uint64_t> written_;
  std::map<std::string, uint64_t> read_;
  std::map<std::string, std::vector<uint64_t>> written_by_level_;
};

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_PATH_LISTENER_H_
