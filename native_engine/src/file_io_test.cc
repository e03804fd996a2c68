// file_io_test.cc — block files, atomic small files, and injected write faults.
#include "file_io.h"

#include <errno.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "testharness.h"

namespace wacky {
namespace {

constexpr size_t kBlock = 64;

std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(BlockFile, WrittenBlocksReadBackAndAreCounted) {
  test::TempDir dir;
  const std::string p = dir.path() + "/run";
  // Enough to cross the 1 MiB write chunk, in uneven appends.
  const auto data = RandomBytes(kBlock * 20000, 1);
  IOCounter w;
  {
    auto f = BlockFile::Create(p, kBlock, nullptr, true);
    size_t at = 0;
    for (size_t n : {1, 7, 3000, 16384, 1, 607}) {
      f->Append(data.data() + at * kBlock, n * kBlock, &w);
      at += n;
    }
    CHECK_EQ(at, 20000u);
    f->Finish(true, &w);
    CHECK_EQ(f->size_bytes(), data.size());
  }
  CHECK_EQ(w.bytes_written, data.size());
  CHECK_EQ(w.blocks_written, 20000u);
  CHECK_EQ(w.blocks_read, 0u);

  auto f = BlockFile::Open(p, kBlock);
  CHECK_EQ(f->size_bytes(), data.size());
  IOCounter r;
  std::vector<uint8_t> out(kBlock * 3);
  f->Read(19997, 3, out.data(), &r);
  CHECK(std::equal(out.begin(), out.end(), data.end() - 3 * kBlock));
  f->Read(0, 1, out.data(), &r);
  CHECK(std::equal(out.begin(), out.begin() + kBlock, data.begin()));
  CHECK_EQ(r.blocks_read, 4u);
  CHECK_EQ(r.bytes_read, 4 * kBlock);
  CHECK_THROWS(f->Read(19999, 2, out.data(), &r), IOError, "unexpected end of file");
  CHECK_THROWS(BlockFile::Create(p, kBlock, nullptr), IOError, "cannot create run file");
  CHECK_THROWS(BlockFile::Open(p + "x", kBlock), IOError, "cannot open run file");
}

// Direct reads return the same bytes, into aligned and unaligned buffers alike, from a file
// just written (its pages still dirty) and from one opened again; a file system that refuses
// O_DIRECT is named in the error instead.
TEST(BlockFile, DirectReadsReturnTheSameBytesOrSayTheFileSystemRefuses) {
  test::TempDir dir;
  constexpr size_t kPage = 4096;
  const std::string p = dir.path() + "/run";
  const auto data = RandomBytes(kPage * 40, 2);
  IOCounter w;
  std::unique_ptr<BlockFile> f;
  try {
    f = BlockFile::Create(p, kPage, nullptr, false, /*direct_reads=*/true);
  } catch (const IOError& e) {
    CHECK(std::string(e.what()).find("does not take O_DIRECT") != std::string::npos);
    return;
  }
  f->Append(data.data(), data.size(), &w);
  f->Finish(false, &w);
  std::vector<uint8_t> out(kPage * 3 + 1);
  IOCounter r;
  f->Read(37, 3, out.data() + 1, &r);  // an unaligned buffer: through the bounce buffer
  CHECK(std::equal(out.begin() + 1, out.end(), data.end() - 3 * kPage));
  auto g = BlockFile::Open(p, kPage, true);
  alignas(kPage) static uint8_t page[kPage];
  g->Read(5, 1, page, &r);
  CHECK(std::equal(page, page + kPage, data.begin() + 5 * kPage));
  CHECK_EQ(r.blocks_read, 4u);
  CHECK_THROWS(BlockFile::Open(p, kBlock, true), IOError, "multiple of 4096");
}

TEST(BlockFile, InjectedFaultFailsTheWriteLikeAFullDisk) {
  test::TempDir dir;
  FaultInjector faults;
  faults.budget = 3 * kBlock;
  auto f = BlockFile::Create(dir.path() + "/run", kBlock, &faults);
  IOCounter w;
  const auto data = RandomBytes(8 * kBlock, 2);
  f->Append(data.data(), 8 * kBlock, &w);  // buffered: no write yet
  try {
    f->Finish(false, &w);
    test::Fail(__FILE__, __LINE__, "write beyond the budget succeeded");
  } catch (const IOError& e) {
    CHECK_EQ(e.code(), ENOSPC);
  }
  CHECK_EQ(faults.budget, 0);
  CHECK_EQ(w.bytes_written, 0u);  // a failed write is not counted
}

TEST(WriteFileAtomically, ReplacesWholeOrNotAtAll) {
  test::TempDir dir;
  const std::string p = dir.path() + "/MANIFEST";
  FaultInjector faults;
  CHECK_EQ(WriteFileAtomically(p, "first version\n", true, &faults), 14u);
  CHECK_EQ(ReadWholeFile(p), std::string("first version\n"));
  const std::string big(200000, 'z');  // more than one read() chunk
  WriteFileAtomically(p, big, false, &faults);
  CHECK(ReadWholeFile(p) == big);

  faults.budget = 10;
  CHECK_THROWS(WriteFileAtomically(p, "second version, longer\n", true, &faults), IOError,
               "injected fault");
  CHECK(ReadWholeFile(p) == big);  // the old contents survive
  CHECK(!FileExists(p + ".tmp"));  // and no partial file is left behind
  faults.budget = -1;
  WriteFileAtomically(p, "", true, &faults);
  CHECK_EQ(ReadWholeFile(p), std::string());
  CHECK_THROWS(ReadWholeFile(dir.path() + "/none"), IOError, "cannot open");
  CHECK_THROWS(WriteFileAtomically(dir.path() + "/no/such/dir/M", "x", false, nullptr), IOError,
               "cannot create");
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
