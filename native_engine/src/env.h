// env.h — the engine's thin layer over the operating system.
//
// Contract:
//   * IOError is what every failing syscall becomes: the errno plus a message naming
//     the operation and the path. The bindings map it to Python's OSError.
//   * ScopedFd owns one file descriptor and closes it when destroyed (move-only), so
//     no error path has to remember to close(). DirLock holds an exclusive, non-
//     blocking flock() on a directory itself (not on a file in it, which could be
//     deleted while held) for its lifetime; a second DirLock on the same directory,
//     from this or another process, throws IOError(EWOULDBLOCK) naming `what`.
//     (LevelDB and RocksDB take a POSIX fcntl lock on a LOCK file. That file can be
//     deleted and recreated under an open database, and fcntl locks belong to the
//     process, so a second open in the same process needs a table of its own. flock on
//     the directory has neither gap: its locks belong to the open file description.)
//   * Corruption is an IOError (EIO) for data that fails its checksum or does not parse:
//     the message names the file and where in it.
//   * SyncDir(dir) fsyncs a directory, making the creation, rename and removal of the
//     files in it durable (a file's own fdatasync does not cover its directory entry).
//   * MakeDirs(path, sync) creates path and its missing parents and checks that the
//     result is a writable directory; with sync it fsyncs the parent of every directory
//     it created, so the creation survives a power loss. ListDir(dir) returns the entry
//     names (without "." and "..").
#ifndef WACKY_NATIVE_ENGINE_ENV_H_
#define WACKY_NATIVE_ENGINE_ENV_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wacky {

class IOError : public std::runtime_error {
 public:
  IOError(int err, const std::string& what);
  int code() const { return code_; }

 private:
  int code_;
};

// Throws IOError(err, "<what> '<path>': <strerror(err)>"). `what` is a C string so that
// passing errno directly is safe: no allocation can run between the syscall and the read.
[[noreturn]] void ThrowIOError(int err, const char* what, const std::string& path);

class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() { reset(); }
  ScopedFd(ScopedFd&& o) noexcept : fd_(o.release()) {}
  ScopedFd& operator=(ScopedFd&& o) noexcept;
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes the descriptor now. close() errors are ignored: on Linux the descriptor is
  // released either way, and callers that need durability fdatasync before closing.
  void reset(int fd = -1);
  int release();

 private:
  int fd_ = -1;
};

class Corruption : public IOError {
 public:
  explicit Corruption(const std::string& what);
};

class DirLock {
 public:
  // Locks the existing directory `dir`; `what` names the locked thing in the error.
  DirLock(const std::string& dir, const std::string& what);
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  // Destruction closes the descriptor, which releases the flock.

 private:
  ScopedFd fd_;
};

void SyncDir(const std::string& dir);
// The number in a file name "<prefix><digits><suffix>" (at most 19 digits, so it fits
// in uint64_t), or false. Parsed by hand, not sscanf, so a stray file with a huge number
// is not undefined behaviour.
bool ParseNumberedFileName(const std::string& name, const std::string& prefix,
                           const std::string& suffix, uint64_t* number);
// Throws std::invalid_argument if `path` holds a NUL byte (the OS would cut it there).
void CheckPath(const std::string& path);
void MakeDirs(const std::string& path, bool sync = false);
bool FileExists(const std::string& path);
// The size of a file, or 0 if it cannot be stat'ed.
uint64_t FileBytes(const std::string& path);
std::vector<std::string> ListDir(const std::string& dir);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENV_H_
