// wal.cc — see wal.h.
#include "wal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

#include "crc32c.h"

namespace wacky {

namespace {

constexpr char kLogMagic[8] = {'w', 'a', 'c', 'k', 'y', 'l', 'o', 'g'};
constexpr size_t kHeaderPayloadBytes = kLogHeaderRecordBytes - kLogHeaderBytes;  // magic, db id, number

void PutU32(uint8_t* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}

void PutU64(uint8_t* p, uint64_t v) {
  for (int k = 0; k < 8; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}

uint32_t GetU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = v << 8 | p[k];
  return v;
}

// Appends one record (header and payload) to *out.
void AppendRecord(std::vector<uint8_t>* out, LogRecordType type, const uint8_t* payload,
                  size_t n) {
  const size_t at = out->size();
  out->resize(at + kLogHeaderBytes + n);
  uint8_t* h = out->data() + at;
  PutU32(h + 4, static_cast<uint32_t>(n));
  h[8] = static_cast<uint8_t>(type);
  h[9] = h[10] = h[11] = 0;
  if (n > 0) std::memcpy(h + kLogHeaderBytes, payload, n);
  PutU32(h + 12, crc32c::Mask(crc32c::Value(h + kLogHeaderBytes, n)));
  PutU32(h, crc32c::Mask(crc32c::Value(h + 4, kLogHeaderBytes - 4)));
}

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

LogWriter::LogWriter(std::string path, uint64_t number, uint64_t db_id, uint64_t value_bytes,
                     bool sync, FaultInjector* faults)
    : path_(std::move(path)),
      number_(number),
      value_bytes_(value_bytes),
      sync_(sync),
      faults_(faults),
      fd_(::open(path_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_CLOEXEC, 0644)) {
  if (!fd_.valid()) ThrowIOError(errno, "cannot create log", path_);
  uint8_t payload[kHeaderPayloadBytes];
  std::memcpy(payload, kLogMagic, 8);
  PutU64(payload + 8, db_id);
  PutU64(payload + 16, number);
  AppendRecord(&out_, LogRecordType::kHeader, payload, sizeof(payload));
  // Written now, synced with the first commit: a log torn inside its header is empty.
  try {
    WriteOut();
  } catch (...) {
    // A log that never came to be leaves no file: the next attempt reuses its number
    // (O_EXCL), and it holds no write anyway.
    fd_.reset();
    ::unlink(path_.c_str());
    throw;
  }
  unsynced_ = 0;  // not a write of the caller's
}

void LogWriter::Add(uint64_t key, const uint8_t* value, bool tombstone) {
  const size_t entry = 9 + (tombstone ? 0 : value_bytes_);
  if (!record_.empty() && record_.size() + entry > kMaxRecordBytes) {
    Seal(false);
    // A big batch goes out a fragment at a time instead of piling up in memory; Commit()
    // still syncs at the end of the call. (A failed log only buffers: see Commit().)
    if (!failed_) WriteOut();
  }
  const size_t at = record_.size();
  record_.resize(at + entry);
  uint8_t* p = record_.data() + at;
  p[0] = tombstone ? 0 : 1;
  PutU64(p + 1, key);
  if (!tombstone) {
    if (value != nullptr)
      std::memcpy(p + 9, value, value_bytes_);
    else
      std::memset(p + 9, 0, value_bytes_);
  }
}

void LogWriter::Seal(bool last) {
  if (record_.empty() && !(last && fragments_ > 0)) return;
  LogRecordType type;
  if (fragments_ == 0)
    type = last ? LogRecordType::kFull : LogRecordType::kFirst;
  else
    type = last ? LogRecordType::kLast : LogRecordType::kMiddle;
  AppendRecord(&out_, type, record_.data(), record_.size());
  record_.clear();
  fragments_ = last ? 0 : fragments_ + 1;
}

void LogWriter::Fail(int err, const char* what) {
  failed_ = true;
  ThrowIOError(err, what, path_);
}

void LogWriter::WriteOut() {
  const size_t len = out_.size();
  size_t done = 0;
  while (done < len) {
    size_t want = len - done;
    if (faults_ != nullptr) {
      const size_t ok = faults_->Allow(want);
      if (ok < want) {
        // Write what the "disk" still accepts, then fail like a full disk would.
        if (ok > 0) {
          const ssize_t w = ::write(fd_.get(), out_.data() + done, ok);
          (void)w;  // failing anyway
        }
        Fail(ENOSPC, "write failed (injected fault)");
      }
    }
    const ssize_t w = ::write(fd_.get(), out_.data() + done, want);
    if (w < 0) {
      if (errno == EINTR) continue;
      Fail(errno, "write failed");
    }
    if (w == 0) Fail(EIO, "write made no progress");
    done += static_cast<size_t>(w);
  }
  out_.clear();
  unsynced_ += len;
}

size_t LogWriter::Commit() {
  if (failed_)
    throw IOError(EIO, "log '" + path_ + "' is unusable: an earlier write or fdatasync of it "
                  "failed, so data it holds may be lost");
  Seal(true);
  WriteOut();
  const size_t len = unsynced_;
  if (len == 0) return 0;
  if (sync_) {
    const bool injected = faults_ != nullptr && faults_->fail_log_sync;
    if (injected || ::fdatasync(fd_.get()) != 0) {
      const int err = injected ? EIO : errno;
      sync_failed_ = true;
      Fail(err, injected ? "fdatasync failed (injected fault)" : "fdatasync failed");
    }
  }
  unsynced_ = 0;
  return len;
}

LogScan ScanLog(const std::string& path, uint64_t number, uint64_t db_id, uint64_t value_bytes,
                WalRecovery mode) {
  LogScan scan;
  scan.data = ReadWholeFile(path);
  const auto* p = reinterpret_cast<const uint8_t*>(scan.data.data());
  const size_t size = scan.data.size();
  const std::string where = "log file '" + path + "'";
  auto only_zeros_from = [&](size_t from) {
    for (size_t i = from; i < size; ++i)
      if (p[i] != 0) return false;
    return true;
  };
  // Damage at `at`: dropped from there to the end if it is a torn tail (`torn`) the mode
  // tolerates, or in point-in-time mode; otherwise refused. The scan stops either way.
  auto damage = [&](size_t at, bool torn, const std::string& what) {
    if (mode == WalRecovery::kPointInTimeRecovery) {
      scan.dropped_bytes = size - at;
      scan.stopped_at = where + ": " + what + " at byte " + std::to_string(at);
      return;
    }
    if (torn && mode == WalRecovery::kTolerateCorruptedTailRecords) {
      scan.dropped_bytes = size - at;
      return;
    }
    throw Corruption(where + ": " + what + " at byte " + std::to_string(at) + " (" +
                     std::to_string(size - at) + " bytes from there to the end" +
                     (torn ? "; a torn tail, refused under absolute consistency"
                           : "; refusing to drop acknowledged writes") +
                     ")");
  };
  LogBatch open;        // the batch being gathered
  size_t open_at = 0;   // where it began
  bool in_batch = false;
  uint64_t open_entries = 0;
  size_t at = 0;
  while (at < size) {
    const size_t left = size - at;
    if (left < kLogHeaderBytes) {
      damage(at, true, "an incomplete record header");
      break;
    }
    const uint8_t* h = p + at;
    if (GetU32(h) != crc32c::Mask(crc32c::Value(h + 4, kLogHeaderBytes - 4))) {
      damage(at, only_zeros_from(at), "a record header that fails its checksum");
      break;
    }
    const size_t n = GetU32(h + 4);
    const uint8_t type = h[8];
    if (n > left - kLogHeaderBytes) {
      // The intact header announces more than the file holds: torn while being written.
      damage(at, true, "an incomplete record");
      break;
    }
    const uint8_t* payload = h + kLogHeaderBytes;
    if (GetU32(h + 12) != crc32c::Mask(crc32c::Value(payload, n))) {
      damage(at, only_zeros_from(at + kLogHeaderBytes),
             "a record whose payload fails its checksum");
      break;
    }
    if (type == static_cast<uint8_t>(LogRecordType::kHeader)) {
      if (at != 0 || n != kHeaderPayloadBytes) {
        damage(at, false, "a misplaced header record");
        break;
      }
      if (std::memcmp(payload, kLogMagic, 8) != 0)
        throw Corruption(where + " is not a log of this engine (bad magic)");
      if (GetU64(payload + 8) != db_id)
        throw Corruption(where + " belongs to another directory (its db id is " +
                         Hex(GetU64(payload + 8)) + ", this directory's is " + Hex(db_id) +
                         "); refusing to replay it");
      if (GetU64(payload + 16) != number)
        throw Corruption(where + " says it is log " + std::to_string(GetU64(payload + 16)) +
                         ", not " + std::to_string(number) + " (renamed?); refusing to replay "
                         "it");
      scan.has_header = true;
      ++scan.records;
      at += kLogHeaderBytes + n;
      continue;
    }
    if (!scan.has_header) {
      damage(at, false, "a record before the log's header record");
      break;
    }
    if (type < 1 || type > 4) {
      damage(at, false, "a record of unknown type " + std::to_string(type));
      break;
    }
    // The entries must parse: a record with a good checksum and bad entries was written so.
    uint64_t entries = 0;
    bool malformed = false;
    for (size_t e = 0; e < n;) {
      const bool put = payload[e] == 1;
      const size_t need = 9 + (put ? value_bytes : 0);
      if ((payload[e] != 0 && payload[e] != 1) || n - e < need) {
        malformed = true;
        break;
      }
      e += need;
      ++entries;
    }
    if (malformed) {
      damage(at, false, "a malformed entry in the record");
      break;
    }
    const auto rtype = static_cast<LogRecordType>(type);
    if (rtype == LogRecordType::kFull || rtype == LogRecordType::kFirst) {
      // The writer never starts a batch before ending the last one (a failed write breaks
      // the log), so an unfinished batch followed by another means records went missing.
      if (in_batch) {
        damage(open_at, false, "an unfinished batch followed by another");
        break;
      }
      open = LogBatch();
      open_entries = 0;
      open_at = at;
      in_batch = true;
    } else if (!in_batch) {
      damage(at, false, "a batch fragment with no beginning");
      break;
    }
    open.fragments.emplace_back(at + kLogHeaderBytes, n);
    open_entries += entries;
    if (rtype == LogRecordType::kFull || rtype == LogRecordType::kLast) {
      scan.batches.push_back(std::move(open));
      scan.entries += open_entries;
      open = LogBatch();
      in_batch = false;
    }
    ++scan.records;
    at += kLogHeaderBytes + n;
  }
  if (in_batch && at >= size && scan.stopped_at.empty() && scan.dropped_bytes == 0) {
    // The file ends inside a batch: the call writing it never finished.
    damage(open_at, true, "an unfinished batch");
  } else if (in_batch && scan.dropped_bytes > 0) {
    scan.dropped_bytes = size - open_at;  // the unfinished batch goes with the tail
  }
  return scan;
}

void ApplyLog(const LogScan& scan, uint64_t value_bytes, const LogApply& apply) {
  const auto* p = reinterpret_cast<const uint8_t*>(scan.data.data());
  for (const LogBatch& b : scan.batches)
    for (const auto& [offset, n] : b.fragments)
      for (size_t e = 0; e < n;) {
        const uint8_t* entry = p + offset + e;
        const bool put = entry[0] == 1;
        apply(GetU64(entry + 1), put ? entry + 9 : nullptr, !put);
        e += 9 + (put ? value_bytes : 0);
      }
}

std::string LogFileName(const std::string& dir, uint64_t number) {
  char name[64];
  snprintf(name, sizeof(name), "/wal-%08llu.log", static_cast<unsigned long long>(number));
  return dir + name;
}

bool ParseLogFileName(const std::string& name, uint64_t* number) {
  uint64_t v = 0;
  if (!ParseNumberedFileName(name, "wal-", ".log", &v) || LogFileName("", v) != "/" + name)
    return false;
  *number = v;
  return true;
}

}  // namespace wacky
