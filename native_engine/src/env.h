// env.h — the engine's thin layer over the operating system.
//
// Contract:
//   * IOError is what every failing syscall becomes: the errno plus a message naming
//     the operation and the path. The bindings map it to Python's OSError.
//   * ScopedFd owns one file descriptor and closes it when destroyed (move-only), so
//     no error path has to remember to close(). FileLock holds an exclusive, non-
//     blocking flock() on a file for its lifetime; a second FileLock on the same file
//     (from this or another process) throws IOError(EWOULDBLOCK) naming `what`.
//   * SyncDir(dir) fsyncs a directory, making the creation, rename and removal of the
//     files in it durable (a file's own fdatasync does not cover its directory entry).
//   * MakeDirs(path) creates path and its missing parents and checks that the result is
//     a writable directory; ListDir(dir) returns the entry names (without "." and "..").
#ifndef WACKY_NATIVE_ENGINE_ENV_H_
#define WACKY_NATIVE_ENGINE_ENV_H_

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

class FileLock {
 public:
  // Creates `path` if needed and locks it; `what` names the locked thing in the error.
  FileLock(const std::string& path, const std::string& what);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  // Destruction closes the descriptor, which releases the flock.

 private:
  ScopedFd fd_;
};

void SyncDir(const std::string& dir);
void MakeDirs(const std::string& path);
bool FileExists(const std::string& path);
std::vector<std::string> ListDir(const std::string& dir);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENV_H_
