// env.cc — see env.h.
#include "env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

namespace wacky {

IOError::IOError(int err, const std::string& what) : std::runtime_error(what), code_(err) {}

void ThrowIOError(int err, const char* what, const std::string& path) {
  throw IOError(err, std::string(what) + " '" + path + "': " + strerror(err));
}

ScopedFd& ScopedFd::operator=(ScopedFd&& o) noexcept {
  if (this != &o) reset(o.release());
  return *this;
}

void ScopedFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

int ScopedFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

Corruption::Corruption(const std::string& what) : IOError(EIO, what) {}

bool ParseNumberedFileName(const std::string& name, const std::string& prefix,
                           const std::string& suffix, uint64_t* number) {
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const size_t n = name.size() - prefix.size() - suffix.size();
  if (n > 19) return false;
  uint64_t v = 0;
  for (size_t i = prefix.size(); i < prefix.size() + n; ++i) {
    const char c = name[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *number = v;
  return true;
}

void CheckPath(const std::string& path) {
  if (path.find('\0') != std::string::npos)
    throw std::invalid_argument("path must not contain a NUL byte");
}

DirLock::DirLock(const std::string& dir, const std::string& what)
    : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
  if (!fd_.valid()) ThrowIOError(errno, "cannot open directory", dir);
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    throw IOError(err, what + " is in use by another open Engine");
  }
}

void SyncDir(const std::string& dir) {
  ScopedFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) ThrowIOError(errno, "cannot open directory", dir);
  if (::fsync(fd.get()) != 0) ThrowIOError(errno, "fsync failed on directory", dir);
}

void MakeDirs(const std::string& path, bool sync) {
  if (path.empty()) throw std::invalid_argument("path must not be empty");
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    const std::string cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0) {
      if (errno != EEXIST) ThrowIOError(errno, "cannot create directory", cur);
    } else if (sync) {
      const size_t slash = cur.find_last_of('/');
      SyncDir(slash == std::string::npos ? "." : slash == 0 ? "/" : cur.substr(0, slash));
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw IOError(ENOTDIR, "'" + path + "' is not a directory");
  if (::access(path.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    throw IOError(err, "directory '" + path + "' is not writable: " + strerror(err));
  }
}

uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), &::closedir);
  if (!d) ThrowIOError(errno, "cannot list directory", dir);
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  return names;
}

}  // namespace wacky
