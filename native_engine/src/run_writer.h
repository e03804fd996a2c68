// run_writer.h — builds one run file from entries given in ascending key order.
//
// Contract: Add() appends entries (strictly increasing keys) into whole blocks that
// are streamed to the file in large sequential writes (file_io.h); the I/O is
// counted in the IOCounter given at construction. Finish() writes the last partial
// block and the tombstone section, optionally syncs, and returns the Run; the caller
// then attaches a filter (Run::SetFilter) or key hashes (hash-table levels).
// Abandon() (or destroying an unfinished writer) deletes the partial file, so a
// failed merge leaves no trace but the I/O it already did. A writer that received
// no entries creates no file and Finish() returns nullptr. The bytes appended are counted in
// the layout's SpaceMeter as they are appended, and removed again if the file is abandoned.
#ifndef WACKY_NATIVE_ENGINE_RUN_WRITER_H_
#define WACKY_NATIVE_ENGINE_RUN_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "file_io.h"
#include "run.h"

namespace wacky {

class RunWriter {
 public:
  // retain: an abandoned file is renamed to *.obsolete instead of deleted (tests).
  // The checksum section (run.h) is counted in *checksum_counter, the rest in *counter.
  RunWriter(uint64_t id, std::string path, RunLayout layout, IOCounter* counter,
            IOCounter* checksum_counter, FaultInjector* faults, bool sync, bool retain);
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Keys must be strictly increasing; value is value_bytes bytes (null for zeros).
  void Add(uint64_t key, const uint8_t* value, bool tombstone);

  // Completes the file; returns nullptr if no entry was added. Key hashes (in entry
  // order) are moved to *key_hashes for the filter or hash index.
  RunPtr Finish(std::vector<uint64_t>* key_hashes);
  void Abandon();

 private:
  void FlushBlocks(bool final);
  void Added(uint64_t bytes);  // appended to the file: counted in layout_.space

  uint64_t id_;
  std::string path_;
  RunLayout layout_;
  IOCounter* counter_;
  IOCounter* checksum_counter_;
  FaultInjector* faults_;
  bool sync_;
  bool retain_;
  std::unique_ptr<BlockFile> file_;
  std::vector<uint8_t> out_;  // pending whole blocks plus the current partial block
  size_t in_block_ = 0;       // entries in the current partial block
  uint64_t entries_ = 0;
  uint64_t last_key_ = 0;
  std::vector<uint64_t> fences_;
  std::vector<uint64_t> tombstones_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> crcs_;  // masked CRC of every block written so far
  bool done_ = false;
  uint64_t added_ = 0;  // bytes appended, as layout_.space counted them
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_RUN_WRITER_H_
