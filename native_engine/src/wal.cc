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

void PutU32(uint8_t* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
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

}  // namespace

LogWriter::LogWriter(std::string path, uint64_t value_bytes, bool sync, FaultInjector* faults)
    : path_(std::move(path)),
      value_bytes_(value_bytes),
      sync_(sync),
      faults_(faults),
      fd_(::open(path_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_CLOEXEC, 0644)) {
  if (!fd_.valid()) ThrowIOError(errno, "cannot create log", path_);
}

void LogWriter::Add(uint64_t key, const uint8_t* value, bool tombstone) {
  const size_t entry = 9 + (tombstone ? 0 : value_bytes_);
  if (!record_.empty() && record_.size() + entry > kMaxRecordBytes) {
    Seal();
    // A big batch goes out a record at a time instead of piling up in memory; Commit()
    // still syncs at the end of the call. (A failed log only buffers: see Commit().)
    if (!failed_) WriteOut();
  }
  const size_t at = record_.size();
  record_.resize(at + entry);
  uint8_t* p = record_.data() + at;
  p[0] = tombstone ? 0 : 1;
  for (int k = 0; k < 8; ++k) p[1 + k] = static_cast<uint8_t>(key >> (8 * k));
  if (!tombstone) {
    if (value != nullptr)
      std::memcpy(p + 9, value, value_bytes_);
    else
      std::memset(p + 9, 0, value_bytes_);
  }
}

void LogWriter::Seal() {
  if (record_.empty()) return;
  const size_t at = out_.size();
  out_.resize(at + 8 + record_.size());
  uint8_t* h = out_.data() + at;
  PutU32(h + 4, static_cast<uint32_t>(record_.size()));
  std::memcpy(h + 8, record_.data(), record_.size());
  PutU32(h, crc32c::Mask(crc32c::Value(h + 4, 4 + record_.size())));
  record_.clear();
}

void LogWriter::WriteOut() {
  const size_t len = out_.size();
  size_t done = 0;
  // Bytes that reached the file leave out_, so a retry appends the rest exactly once.
  auto fail = [&](int err, const char* what) {
    out_.erase(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(done));
    unsynced_ += done;
    ThrowIOError(err, what, path_);
  };
  while (done < len) {
    size_t want = len - done;
    if (faults_ != nullptr) {
      const size_t ok = faults_->Allow(want);
      if (ok < want) {
        // Write what the "disk" still accepts, then fail like a full disk would.
        const ssize_t w = ok > 0 ? ::write(fd_.get(), out_.data() + done, ok) : 0;
        if (w > 0) done += static_cast<size_t>(w);
        fail(ENOSPC, "write failed (injected fault)");
      }
    }
    const ssize_t w = ::write(fd_.get(), out_.data() + done, want);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(errno, "write failed");
    }
    if (w == 0) fail(EIO, "write made no progress");
    done += static_cast<size_t>(w);
  }
  out_.clear();
  unsynced_ += len;
}

size_t LogWriter::Commit() {
  if (failed_)
    throw IOError(EIO, "log '" + path_ + "' is unusable: an earlier fdatasync of it failed, "
                  "so data it holds may be lost");
  Seal();
  WriteOut();
  const size_t len = unsynced_;
  if (len == 0) return 0;
  if (sync_) {
    const bool injected = faults_ != nullptr && faults_->fail_log_sync;
    if (injected || ::fdatasync(fd_.get()) != 0) {
      const int err = injected ? EIO : errno;
      failed_ = true;
      ThrowIOError(err, injected ? "fdatasync failed (injected fault)" : "fdatasync failed",
                   path_);
    }
  }
  unsynced_ = 0;
  return len;
}

LogReadResult ReadLog(const std::string& path, uint64_t value_bytes, const LogApply& apply) {
  const std::string data = ReadWholeFile(path);
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const size_t size = data.size();
  LogReadResult result;
  size_t at = 0;
  auto only_zeros_from = [&](size_t from) {
    for (size_t i = from; i < size; ++i)
      if (p[i] != 0) return false;
    return true;
  };
  while (at < size) {
    const size_t left = size - at;
    const uint32_t n = left >= 8 ? GetU32(p + at + 4) : 0;
    const bool complete = left >= 8 && n <= kMaxRecordBytes && 8 + static_cast<size_t>(n) <= left;
    const bool intact = complete && GetU32(p + at) == crc32c::Mask(crc32c::Value(p + at + 4, 4 + n));
    if (!intact) {
      // A torn write is the last thing in the file: an incomplete record, or a damaged
      // one followed only by zeros (a file extended but never written).
      const size_t end = complete ? at + 8 + n : size;
      if (!complete || only_zeros_from(end)) {
        result.dropped_bytes = size - at;
        return result;
      }
      throw Corruption("log file '" + path + "': the record at byte " + std::to_string(at) +
                       " fails its checksum and " + std::to_string(size - end) +
                       " bytes follow it (corrupt; refusing to drop acknowledged writes)");
    }
    const uint8_t* e = p + at + 8;
    const uint8_t* end = e + n;
    while (e < end) {
      const bool put = e[0] == 1;
      const size_t need = 9 + (put ? value_bytes : 0);
      if ((e[0] != 0 && e[0] != 1) || static_cast<size_t>(end - e) < need)
        throw Corruption("log file '" + path + "': malformed entry in the record at byte " +
                         std::to_string(at));
      apply(GetU64(e + 1), put ? e + 9 : nullptr, !put);
      e += need;
      ++result.entries;
    }
    ++result.records;
    at += 8 + n;
  }
  return result;
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
