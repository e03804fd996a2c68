// env_test.cc — RAII descriptors and locks, directory helpers.
#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(ScopedFd, ClosesOnDestructionAndHandsOver) {
  test::TempDir dir;
  const std::string p = dir.path() + "/f";
  int raw;
  {
    ScopedFd fd(::open(p.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644));
    CHECK(fd.valid());
    raw = fd.get();
    CHECK(IsOpen(raw));
  }
  CHECK(!IsOpen(raw));

  ScopedFd a(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  raw = a.get();
  ScopedFd b(std::move(a));  // the moved-from one must not close it
  CHECK(!a.valid());
  CHECK_EQ(b.get(), raw);
  ScopedFd c;
  c = std::move(b);
  CHECK(IsOpen(raw));
  const int released = c.release();
  CHECK(!c.valid());
  CHECK(IsOpen(released));
  c.reset(released);
  c.reset();
  CHECK(!IsOpen(released));
}

TEST(DirLock, ExcludesASecondHolderUntilReleased) {
  test::TempDir dir;
  const std::string p = dir.path();
  {
    DirLock first(p, "directory 'x'");
    // flock() locks belong to the open file description, so even this process is refused.
    try {
      DirLock second(p, "directory 'x'");
      test::Fail(__FILE__, __LINE__, "second lock succeeded");
    } catch (const IOError& e) {
      CHECK_EQ(e.code(), EWOULDBLOCK);
      CHECK_EQ(std::string(e.what()),
               std::string("directory 'x' is in use by another open Engine"));
    }
  }
  DirLock again(p, "directory 'x'");  // released by the destructor
  CHECK_THROWS(DirLock(dir.path() + "/missing", "d"), IOError, "cannot open directory");
}

TEST(Env, MakeDirsListDirSyncDir) {
  test::TempDir dir;
  const std::string deep = dir.path() + "/a/b/c";
  MakeDirs(deep);
  MakeDirs(deep);  // existing: fine
  CHECK(FileExists(deep));
  MakeDirs(dir.path() + "/a/s1/s2", true);  // with sync: each new entry's parent fsynced
  CHECK(FileExists(dir.path() + "/a/s1/s2"));
  std::ofstream(dir.path() + "/a/file") << "x";
  std::vector<std::string> names = ListDir(dir.path() + "/a");
  std::sort(names.begin(), names.end());
  CHECK(names == (std::vector<std::string>{"b", "file", "s1"}));
  SyncDir(deep);

  CHECK_THROWS(MakeDirs(""), std::invalid_argument, "must not be empty");
  try {
    MakeDirs(dir.path() + "/a/file");
    test::Fail(__FILE__, __LINE__, "MakeDirs over a file succeeded");
  } catch (const IOError& e) {
    CHECK_EQ(e.code(), ENOTDIR);
  }
  CHECK_THROWS(MakeDirs(dir.path() + "/a/file/sub"), IOError, "cannot create directory");
  try {
    SyncDir(dir.path() + "/nope");
    test::Fail(__FILE__, __LINE__, "SyncDir on a missing directory succeeded");
  } catch (const IOError& e) {
    CHECK_EQ(e.code(), ENOENT);
    CHECK(std::string(e.what()).find("/nope") != std::string::npos);
  }
  CHECK_THROWS(ListDir(dir.path() + "/nope"), IOError, "cannot list directory");
  CHECK(!FileExists(dir.path() + "/nope"));
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
