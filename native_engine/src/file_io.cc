// file_io.cc — see file_io.h.
#include "file_io.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace wacky {

namespace {
constexpr size_t kWriteChunk = 1 << 20;  // issue writes of up to 1 MiB

[[noreturn]] void Fail(int err, const char* what, const std::string& path) {
  ThrowIOError(err, what, path);
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

size_t FaultInjector::Allow(size_t n) {
  if (budget < 0) return n;
  const size_t ok = static_cast<size_t>(budget) < n ? static_cast<size_t>(budget) : n;
  budget -= static_cast<int64_t>(ok);
  return ok;
}

BlockFile::BlockFile(std::string path, ScopedFd fd, size_t block_bytes, FaultInjector* faults,
                     bool sync)
    : path_(std::move(path)),
      fd_(std::move(fd)),
      block_bytes_(block_bytes),
      faults_(faults),
      sync_(sync) {}

std::unique_ptr<BlockFile> BlockFile::Create(const std::string& path, size_t block_bytes,
                                             FaultInjector* faults, bool sync,
                                             bool direct_reads) {
  ScopedFd fd(::open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644));
  if (!fd.valid()) Fail(errno, "cannot create run file", path);
  std::unique_ptr<BlockFile> f(new BlockFile(path, std::move(fd), block_bytes, faults, sync));
  if (direct_reads) f->OpenDirect();
  return f;
}

std::unique_ptr<BlockFile> BlockFile::Open(const std::string& path, size_t block_bytes,
                                           bool direct_reads) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) Fail(errno, "cannot open run file", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) Fail(errno, "cannot stat run file", path);
  std::unique_ptr<BlockFile> f(new BlockFile(path, std::move(fd), block_bytes, nullptr, false));
  f->size_ = static_cast<uint64_t>(st.st_size);
  if (direct_reads) f->OpenDirect();
  return f;
}

void BlockFile::OpenDirect() {
  if (block_bytes_ % kDirectAlign != 0) {
    Fail(EINVAL, "direct_reads needs block_bytes a multiple of 4096 for run file", path_);
  }
  direct_ = ScopedFd(::open(path_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
  if (!direct_.valid()) {
    Fail(errno, "direct_reads: the file system does not take O_DIRECT; cannot open run file",
         path_);
  }
}

void BlockFile::WriteOut(const uint8_t* data, size_t len, IOCounter* c) {
  size_t done = 0;
  while (done < len) {
    size_t want = len - done;
    if (faults_ != nullptr) {
      const size_t ok = faults_->Allow(want);
      if (ok < want) {
        // Write what the "disk" still accepts, then fail like a full disk would.
        if (ok > 0) {
          ssize_t w = ::pwrite(fd_.get(), data + done, ok, static_cast<off_t>(size_ + done));
          (void)w;
        }
        Fail(ENOSPC, "write failed (injected fault)", path_);
      }
    }
    const ssize_t w = ::pwrite(fd_.get(), data + done, want, static_cast<off_t>(size_ + done));
    if (w < 0) {
      if (errno == EINTR) continue;
      Fail(errno, "write failed", path_);
    }
    if (w == 0) Fail(EIO, "write made no progress", path_);
    done += static_cast<size_t>(w);
  }
  if (sync_) {
    // Start writeback of this range now; errors surface in Finish()'s fdatasync.
    ::sync_file_range(fd_.get(), static_cast<off_t>(size_), static_cast<off_t>(len),
                      SYNC_FILE_RANGE_WRITE);
  }
  size_ += len;
  if (device_) device_->Wrote(len);
  c->bytes_written += len;
  c->blocks_written += len / block_bytes_;
}

void BlockFile::Append(const uint8_t* data, size_t len, IOCounter* c) {
  if (pending_.empty() && len >= kWriteChunk) {
    WriteOut(data, len, c);
    return;
  }
  pending_.insert(pending_.end(), data, data + len);
  if (pending_.size() >= kWriteChunk) {
    WriteOut(pending_.data(), pending_.size(), c);
    pending_.clear();
  }
}

void BlockFile::Drain(IOCounter* c) {
  if (!pending_.empty()) {
    WriteOut(pending_.data(), pending_.size(), c);
    pending_.clear();
  }
}

void BlockFile::Finish(bool sync, IOCounter* c) {
  Drain(c);
  pending_.shrink_to_fit();
  if (sync && ::fdatasync(fd_.get()) != 0) Fail(errno, "fdatasync failed", path_);
}

void BlockFile::ReplaceTail(uint64_t from_block, const uint8_t* data, size_t len, bool sync,
                            FaultInjector* faults, IOCounter* c) {
  ScopedFd fd(::open(path_.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) Fail(errno, "cannot open run file for its metadata", path_);
  const uint64_t at = from_block * block_bytes_;
  if (::ftruncate(fd.get(), static_cast<off_t>(at)) != 0) Fail(errno, "ftruncate failed", path_);
  size_ = at;
  size_t allowed = len;
  if (faults != nullptr) allowed = faults->Allow(len);
  size_t done = 0;
  while (done < allowed) {
    const ssize_t w = ::pwrite(fd.get(), data + done, allowed - done,
                               static_cast<off_t>(at + done));
    if (w < 0) {
      if (errno == EINTR) continue;
      size_ = at + done;
      Fail(errno, "write failed", path_);
    }
    if (w == 0) Fail(EIO, "write made no progress", path_);
    done += static_cast<size_t>(w);
  }
  size_ = at + done;
  if (allowed < len) Fail(ENOSPC, "write failed (injected fault)", path_);
  if (sync && ::fdatasync(fd.get()) != 0) Fail(errno, "fdatasync failed", path_);
  c->bytes_written += len;
  c->blocks_written += len / block_bytes_;
}

void BlockFile::Read(uint64_t first, size_t n, uint8_t* out, IOCounter* c) const {
  const size_t len = n * block_bytes_;
  const off_t off = static_cast<off_t>(first * block_bytes_);
  // O_DIRECT needs an aligned buffer: the caller's when it is, else one of our own.
  const bool direct = direct_.valid();
  std::unique_ptr<uint8_t, decltype(&std::free)> bounce(nullptr, &std::free);
  uint8_t* into = out;
  if (direct && reinterpret_cast<uintptr_t>(out) % kDirectAlign != 0) {
    bounce.reset(static_cast<uint8_t*>(std::aligned_alloc(kDirectAlign, len)));
    if (!bounce) Fail(ENOMEM, "cannot allocate a buffer for a direct read of", path_);
    into = bounce.get();
  }
  const int fd = direct ? direct_.get() : fd_.get();
  size_t done = 0;
  while (done < len) {
    const ssize_t r = ::pread(fd, into + done, len - done, off + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      Fail(errno, "read failed", path_);
    }
    if (r == 0) Fail(EIO, "unexpected end of file while reading", path_);
    done += static_cast<size_t>(r);
  }
  if (bounce) std::memcpy(out, bounce.get(), len);
  if (device_) device_->Read(len);
  c->bytes_read += len;
  c->blocks_read += n;
}

size_t WriteFileAtomically(const std::string& path, const std::string& contents, bool sync,
                           FaultInjector* faults) {
  const std::string tmp = path + ".tmp";
  ScopedFd fd(::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644));
  if (!fd.valid()) Fail(errno, "cannot create", tmp);
  // Every failure below removes the partial tmp file so the directory holds only the
  // last complete MANIFEST.
  auto fail = [&](int err, const char* what) {
    fd.reset();
    ::unlink(tmp.c_str());
    Fail(err, what, tmp);
  };
  size_t done = 0;
  while (done < contents.size()) {
    const size_t want = contents.size() - done;
    if (faults != nullptr && faults->Allow(want) < want)
      fail(ENOSPC, "write failed (injected fault)");
    const ssize_t w = ::write(fd.get(), contents.data() + done, want);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(errno, "write failed");
    }
    done += static_cast<size_t>(w);
  }
  if (sync && ::fdatasync(fd.get()) != 0) fail(errno, "fdatasync failed");
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    Fail(err, "rename failed", path);
  }
  if (sync) SyncDir(DirOf(path));
  return contents.size();
}

std::string ReadWholeFile(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) Fail(errno, "cannot open", path);
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t r = ::read(fd.get(), buf, sizeof(buf));
    if (r < 0) {
      if (errno == EINTR) continue;
      Fail(errno, "read failed", path);
    }
    if (r == 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

}  // namespace wacky
