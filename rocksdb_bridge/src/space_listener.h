// space_listener.h — the bytes of a RocksDB database's SST files, now and at their most.
//
// Contract: an EventListener (attach it before DB::Open) that adds a table file's size when
// RocksDB finishes writing it (OnTableFileCreated: a flush's or a compaction's output) and
// takes it away when RocksDB deletes it (OnTableFileDeleted). RocksDB deletes a compaction's
// inputs only after the compaction installed its outputs, so the peak holds a compaction's
// inputs and its finished outputs together: the transient space. An output is counted when it
// is finished, so the peak misses at most the one output file being written (for leveled
// compaction, a target-sized file; universal compaction writes each merge as one file, which
// is counted whole before its inputs go). Files that existed before the database opened are
// not counted (the bridge opens fresh databases). Peak() is the largest Current() since
// construction or ResetPeak(). Thread-safe: RocksDB calls it from its background threads.
#ifndef WACKY_ROCKSDB_BRIDGE_SPACE_LISTENER_H_
#define WACKY_ROCKSDB_BRIDGE_SPACE_LISTENER_H_

#include <rocksdb/listener.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace wacky_rocksdb {

class SpaceListener : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "WackySpaceListener"; }
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override;

  uint64_t Current() const;
  uint64_t Peak() const;
  void ResetPeak();

 private:
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> files_;  // live table files by path, with their bytes
  uint64_t current_ = 0;
  uint64_t peak_ = 0;
};

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_SPACE_LISTENER_H_
