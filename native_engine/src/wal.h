// wal.h — the write-ahead log: every acknowledged write, in order, until a flush covers it.
//
// Contract:
//   * A log file (dir/wal-NNNNNNNN.log) is a sequence of records. A record is a 4-byte
//     masked CRC-32C (crc32c.h) of the next 4 + n bytes, a 4-byte little-endian length n,
//     and n bytes of entries; an entry is a tag byte (1 put, 0 delete), the 8-byte key
//     and, for a put, value_bytes bytes. A record holds at most kMaxRecordBytes.
//   * LogWriter::Add buffers entries (writing each full record out as it is sealed, so a
//     big batch does not pile up in memory); Commit() writes every buffered record with
//     write() before returning (so the writes survive a crash of the process) and, with
//     sync, fdatasyncs (so they survive power loss). The engine commits at the end of
//     every write call, so an acknowledged write is in the log.
//   * A failed write() leaves the log a clean prefix of its records: the bytes that
//     did reach the file are dropped from the pending buffer, so a later Commit()
//     appends the rest exactly once (a crash before that leaves a torn tail, which
//     ReadLog drops). A failed fdatasync is final: the kernel may already have
//     discarded the unwritten pages, so retrying could report success for data that is
//     gone (PostgreSQL's "fsyncgate"). failed() turns true and every later Commit()
//     throws; the engine then flushes the buffer into a run, which starts a new log
//     (RocksDB likewise stops writing to a WAL after a sync error).
//   * ReadLog replays a log through `apply`, record by record. A damaged record at the
//     tail (incomplete, or failing its checksum with nothing but zeros after it) is a
//     write torn by a crash: it and everything after it are dropped, everything before
//     is kept. A damaged record followed by more data cannot be a torn write, so it
//     throws Corruption naming the file and offset: dropping it would lose writes
//     that were acknowledged. (LevelDB's default also skips such records with a report;
//     we refuse, so that no acknowledged write vanishes without the user knowing.)
//   * The engine rotates logs at each flush: the MANIFEST records the live log number
//     and logs with smaller numbers are deleted once that MANIFEST is durable.
// Format choice: LevelDB and RocksDB cut their logs into 32 KiB blocks and split records
// into FULL/FIRST/MIDDLE/LAST fragments, so a reader can resynchronize at the next block
// after damage and skip it. We refuse damage that is not at the tail instead of skipping
// it, so there is nothing to resynchronize for, and a record is simply a checksummed,
// length-prefixed batch of entries; each entry's tag byte is its type (put or delete).
#ifndef WACKY_NATIVE_ENGINE_WAL_H_
#define WACKY_NATIVE_ENGINE_WAL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "env.h"
#include "file_io.h"

namespace wacky {

constexpr size_t kMaxRecordBytes = 1 << 20;

class LogWriter {
 public:
  // Creates `path`, which must not exist.
  LogWriter(std::string path, uint64_t value_bytes, bool sync, FaultInjector* faults);
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // May write out a full record (and throw IOError doing so).
  void Add(uint64_t key, const uint8_t* value, bool tombstone);
  // Writes the buffered records (and fdatasyncs with sync); returns the bytes written
  // since the last successful Commit(). Throws IOError; see the contract above for what a
  // failure leaves behind.
  size_t Commit();
  // True once an fdatasync failed: the log can no longer promise anything.
  bool failed() const { return failed_; }
  const std::string& path() const { return path_; }

 private:
  void Seal();
  void WriteOut();  // writes out_ (no sync)

  std::string path_;
  uint64_t value_bytes_;
  bool sync_;
  FaultInjector* faults_;
  bool failed_ = false;
  ScopedFd fd_;
  std::vector<uint8_t> record_;  // entries of the record being built
  std::vector<uint8_t> out_;     // sealed records not yet written
  size_t unsynced_ = 0;          // bytes written since the last successful Commit()
};

struct LogReadResult {
  uint64_t records = 0;
  uint64_t entries = 0;
  uint64_t dropped_bytes = 0;  // the torn tail
};

using LogApply = std::function<void(uint64_t key, const uint8_t* value, bool tombstone)>;
LogReadResult ReadLog(const std::string& path, uint64_t value_bytes, const LogApply& apply);

std::string LogFileName(const std::string& dir, uint64_t number);
// The number of a file named as LogFileName names logs ("wal-<8+ digits>.log"), or false.
bool ParseLogFileName(const std::string& name, uint64_t* number);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_WAL_H_
