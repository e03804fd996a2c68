// wal.h — the write-ahead log: every acknowledged write, in order, until a flush covers it.
//
// Contract:
//   * A log file (dir/wal-NNNNNNNN.log) is a sequence of records. A record is a 16-byte
//     header — the masked CRC-32C (crc32c.h) of header bytes 4..16, the 4-byte
//     little-endian payload length n, a type byte, 3 zero bytes, the masked CRC-32C of the
//     payload — then n payload bytes. The header's own checksum covers the length, so a
//     damaged length is recognised as damage, never taken for a write torn at the end.
//   * The first record of every log is a header record (kHeader): "wackylog", the id of
//     the directory that wrote it (its MANIFEST's db id) and the log's own number, so a log
//     copied in from another directory, or renamed, is refused at replay.
//   * Every write call of the engine is one batch: its entries (a tag byte, 1 put or 0
//     delete, the 8-byte key and, for a put, value_bytes bytes) go into one kFull record,
//     or, when they exceed kMaxRecordBytes, into kFirst, kMiddle..., kLast fragments
//     (LevelDB's record types). Replay applies a batch only when its last fragment is
//     intact, so a batch is all or nothing after a crash (a batch torn by the crash is
//     dropped whole).
//   * LogWriter::Add buffers entries (writing each full fragment out as it is sealed, so a
//     big batch does not pile up in memory); Commit() ends the batch, writes it out with
//     write() before returning (so it survives a crash of the process) and, with sync,
//     fdatasyncs (so it survives power loss). The engine commits at the end of every write
//     call, so an acknowledged write is in the log.
//   * A failed write() or fdatasync breaks the log for good: failed() turns true and every
//     later Commit() throws. After a failed write the file ends in a torn record; after a
//     failed fdatasync the kernel may already have dropped pages, so retrying could report
//     success for data that is gone (PostgreSQL's "fsyncgate"). The engine then flushes
//     the buffer into a run, which starts a new log (RocksDB likewise stops writing to a
//     WAL after an error).
//   * ScanLog reads a log whole, checks every record and the header, and returns where the
//     complete batches' payloads are; it applies nothing, so a log can be checked before
//     any of it is replayed (and `verify` replays it in memory only). What it tolerates
//     depends on the recovery mode, named after RocksDB's WALRecoveryMode:
//       - kTolerateCorruptedTailRecords (the default): only a write torn by a crash is
//         dropped: an incomplete last record (the file ends inside its header, or inside
//         the payload its intact header announces), an unfinished last batch, or damage
//         followed only by zeros (a file extended but never written). Any other damage —
//         a record that is complete but fails a checksum, a bad type, a header from
//         another directory — throws Corruption naming the file and the byte offset.
//       - kAbsoluteConsistency: nothing may be dropped: a torn tail throws Corruption too.
//       - kPointInTimeRecovery: replay stops at the first damage and the rest is dropped
//         (reported in LogScan::stopped_at), the caller having accepted that loss.
//   * The engine rotates logs at each flush: the MANIFEST lists the live logs, and a log
//     is deleted once a durable MANIFEST no longer lists it.
// Format choice: LevelDB and RocksDB cut their logs into 32 KiB blocks so a reader can
// resynchronize after damage and skip it. We refuse damage that is not a torn tail instead
// of skipping it, so there is nothing to resynchronize for; the header checksum is what
// tells damage from a tear.
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
constexpr size_t kLogHeaderBytes = 16;
constexpr size_t kLogHeaderRecordBytes = kLogHeaderBytes + 24;  // a log that holds no write

enum class LogRecordType : uint8_t { kFull = 1, kFirst = 2, kMiddle = 3, kLast = 4, kHeader = 5 };

enum class WalRecovery : int {
  kTolerateCorruptedTailRecords = 0,
  kAbsoluteConsistency = 1,
  kPointInTimeRecovery = 2,
};

class LogWriter {
 public:
  // Creates `path`, which must not exist, and writes its header record (number, db_id). If
  // the header cannot be written, the file is removed again before the IOError propagates.
  LogWriter(std::string path, uint64_t number, uint64_t db_id, uint64_t value_bytes, bool sync,
            FaultInjector* faults);
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // May write out a full fragment (and throw IOError doing so, breaking the log).
  void Add(uint64_t key, const uint8_t* value, bool tombstone);
  // Ends the batch: writes what is buffered (and fdatasyncs with sync); returns the bytes
  // written since the last successful Commit(). Throws IOError, after which failed().
  size_t Commit();
  // True once a write or an fdatasync failed: the log can no longer promise anything.
  bool failed() const { return failed_; }
  // True if the failure was an fdatasync: every record had been written to the file.
  bool sync_failed() const { return sync_failed_; }
  uint64_t number() const { return number_; }
  const std::string& path() const { return path_; }

 private:
  void Seal(bool last);
  void WriteOut();  // writes out_ (no sync)
  [[noreturn]] void Fail(int err, const char* what);

  std::string path_;
  uint64_t number_;
  uint64_t value_bytes_;
  bool sync_;
  FaultInjector* faults_;
  bool failed_ = false;
  bool sync_failed_ = false;
  ScopedFd fd_;
  std::vector<uint8_t> record_;  // entries of the fragment being built
  std::vector<uint8_t> out_;     // sealed fragments not yet written
  size_t fragments_ = 0;         // fragments of the current batch sealed so far
  size_t unsynced_ = 0;          // bytes written since the last successful Commit()
};

// One complete batch: the payloads of its fragments, as offsets into LogScan::data.
struct LogBatch {
  std::vector<std::pair<size_t, size_t>> fragments;  // (offset, length)
};

struct LogScan {
  std::string data;  // the whole file
  std::vector<LogBatch> batches;
  uint64_t records = 0;
  uint64_t entries = 0;             // in the complete batches
  uint64_t dropped_bytes = 0;       // a torn tail (or, point-in-time, all after the damage)
  bool has_header = false;          // false only for an empty (or torn-at-birth) log
  std::string stopped_at;           // point-in-time only: the damage replay stopped at
};

// Reads and checks the log at `path` (see the contract); throws Corruption on damage the
// mode does not tolerate, IOError if it cannot be read.
LogScan ScanLog(const std::string& path, uint64_t number, uint64_t db_id, uint64_t value_bytes,
                WalRecovery mode);

using LogApply = std::function<void(uint64_t key, const uint8_t* value, bool tombstone)>;
// Applies the complete batches of a scan, in order.
void ApplyLog(const LogScan& scan, uint64_t value_bytes, const LogApply& apply);

std::string LogFileName(const std::string& dir, uint64_t number);
// The number of a file named as LogFileName names logs ("wal-<8+ digits>.log"), or false.
bool ParseLogFileName(const std::string& name, uint64_t* number);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_WAL_H_
