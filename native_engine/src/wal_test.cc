// wal_test.cc — the write-ahead log: round trips, torn tails dropped, damage refused.
#include "wal.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "file_io.h"
#include "testharness.h"

namespace wacky {
namespace {

struct Op {
  uint64_t key;
  bool tomb;
  uint8_t fill;
};

std::vector<Op> Replay(const std::string& path, LogReadResult* result = nullptr) {
  std::vector<Op> ops;
  const LogReadResult r = ReadLog(path, 3, [&](uint64_t k, const uint8_t* v, bool tomb) {
    ops.push_back(Op{k, tomb, tomb ? uint8_t{0} : v[0]});
  });
  if (result) *result = r;
  return ops;
}

void WriteBytes(const std::string& path, const std::string& data) {
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC));
  CHECK(fd.valid());
  CHECK_EQ(::write(fd.get(), data.data(), data.size()), static_cast<ssize_t>(data.size()));
}

std::string Written(const test::TempDir& dir, int n) {
  const std::string path = LogFileName(dir.path(), 7);
  LogWriter w(path, 3, false, nullptr);
  for (int i = 0; i < n; ++i) {
    const uint8_t v[3] = {static_cast<uint8_t>(i), 0, 0};
    w.Add(static_cast<uint64_t>(i) * 1000, i % 5 == 4 ? nullptr : v, i % 5 == 4);
    if (i % 3 == 2) w.Commit();  // several records
  }
  w.Commit();
  return path;
}

TEST(Wal, RoundTripKeepsOrderKeysValuesAndDeletes) {
  test::TempDir dir;
  const std::string path = Written(dir, 10);
  LogReadResult r;
  const auto ops = Replay(path, &r);
  CHECK_EQ(ops.size(), 10u);
  CHECK_EQ(r.records, 4u);
  CHECK_EQ(r.dropped_bytes, 0u);
  for (int i = 0; i < 10; ++i) {
    CHECK_EQ(ops[i].key, static_cast<uint64_t>(i) * 1000);
    CHECK_EQ(ops[i].tomb, i % 5 == 4);
    if (!ops[i].tomb) CHECK_EQ(ops[i].fill, static_cast<uint8_t>(i));
  }
  CHECK_THROWS(LogWriter(path, 3, false, nullptr), IOError, "cannot create log");
}

TEST(Wal, EveryTruncationKeepsTheWholeRecordsBeforeIt) {
  test::TempDir dir;
  const std::string path = Written(dir, 10);
  const std::string full = ReadWholeFile(path);
  size_t last = 0;
  for (size_t n = 0; n <= full.size(); ++n) {
    WriteBytes(path, full.substr(0, n));
    LogReadResult r;
    const auto ops = Replay(path, &r);
    CHECK(ops.size() >= last);  // a longer prefix never keeps fewer writes
    last = ops.size();
    if (n == full.size()) CHECK_EQ(r.dropped_bytes, 0u);
    if (n > 0 && n < 8) CHECK_EQ(r.dropped_bytes, n);  // not even a whole header
  }
  CHECK_EQ(last, 10u);
}

TEST(Wal, DamageBeforeMoreDataIsRefusedAndAZeroTailIsDropped) {
  test::TempDir dir;
  const std::string path = Written(dir, 10);
  const std::string full = ReadWholeFile(path);
  std::string bad = full;
  bad[10] = static_cast<char>(bad[10] ^ 0x40);  // inside the first record
  WriteBytes(path, bad);
  CHECK_THROWS(Replay(path), Corruption, "fails its checksum");
  bad = full;
  bad[bad.size() - 1] = static_cast<char>(bad[bad.size() - 1] ^ 1);  // the last record
  WriteBytes(path, bad);
  CHECK_EQ(Replay(path).size(), 9u);  // torn tail: the last record (one entry) is dropped
  WriteBytes(path, full + std::string(4096, '\0'));
  LogReadResult r;
  CHECK_EQ(Replay(path, &r).size(), 10u);
  CHECK_EQ(r.dropped_bytes, 4096u);
}

// A write that fails part-way (a full disk) leaves a torn record at the end of the file;
// the next Commit() appends the rest of it exactly once, so replay sees every entry once.
TEST(Wal, AFailedWriteIsCompletedByTheNextCommitWithoutDuplicates) {
  for (int64_t budget : {0, 5, 8, 20, 30, 40}) {
    test::TempDir dir;
    const std::string path = LogFileName(dir.path(), 1);
    FaultInjector faults;
    LogWriter w(path, 3, false, &faults);
    const uint8_t v[3] = {7, 7, 7};
    w.Add(1, v, false);
    w.Add(2, v, false);
    CHECK_EQ(w.Commit(), 8u + 2 * 12);
    w.Add(3, v, false);
    w.Add(4, nullptr, true);
    w.Add(5, v, false);
    faults.budget = budget;
    CHECK_THROWS(w.Commit(), IOError, "injected fault");
    CHECK(!w.failed());  // a failed write() is not final
    LogReadResult r;
    const size_t before = Replay(path, &r).size();  // what a crash now would keep
    CHECK_EQ(before, 2u);  // the torn record (41 bytes) is dropped
    faults.budget = -1;
    w.Add(6, v, false);
    w.Commit();
    const auto ops = Replay(path, &r);
    CHECK_EQ(r.dropped_bytes, 0u);
    CHECK_EQ(ops.size(), 6u);
    for (size_t i = 0; i < ops.size(); ++i) CHECK_EQ(ops[i].key, i + 1);
    CHECK(ops[3].tomb);
  }
}

// After a failed fdatasync the log refuses every later commit: retrying could report
// success for pages the kernel already dropped.
TEST(Wal, AFailedSyncIsFinal) {
  test::TempDir dir;
  const std::string path = LogFileName(dir.path(), 1);
  FaultInjector faults;
  LogWriter w(path, 3, true, &faults);
  const uint8_t v[3] = {1, 2, 3};
  w.Add(1, v, false);
  w.Commit();
  faults.fail_log_sync = true;
  w.Add(2, v, false);
  CHECK_THROWS(w.Commit(), IOError, "fdatasync failed (injected fault)");
  CHECK(w.failed());
  faults.fail_log_sync = false;
  w.Add(3, v, false);
  CHECK_THROWS(w.Commit(), IOError, "earlier fdatasync of it failed");
  CHECK(w.failed());
}

// A batch larger than a record goes to the file record by record as it is added, not
// all at Commit(); replay sees it whole and in order.
TEST(Wal, ABigBatchIsWrittenAsItGrows) {
  test::TempDir dir;
  const std::string path = LogFileName(dir.path(), 1);
  LogWriter w(path, 3, false, nullptr);
  const uint64_t n = 3 * kMaxRecordBytes / 12;  // 12 bytes an entry: three records' worth
  for (uint64_t k = 0; k < n; ++k) {
    const uint8_t v[3] = {static_cast<uint8_t>(k), 1, 2};
    w.Add(k, v, false);
  }
  CHECK(ReadWholeFile(path).size() >= 2 * kMaxRecordBytes);  // before any Commit()
  CHECK_EQ(w.Commit(), n * 12 + 4 * 8);  // four records with their headers
  LogReadResult r;
  const auto ops = Replay(path, &r);
  CHECK_EQ(r.records, 4u);
  CHECK_EQ(ops.size(), n);
  for (uint64_t k = 0; k < n; ++k) CHECK_EQ(ops[k].key, k);
}

TEST(Wal, FileNames) {
  uint64_t n = 0;
  CHECK(ParseLogFileName("wal-00000012.log", &n));
  CHECK_EQ(n, 12u);
  CHECK(!ParseLogFileName("wal-12.log", &n));
  CHECK(!ParseLogFileName("run-00000012.sst", &n));
  CHECK_EQ(LogFileName("/d", 3), std::string("/d/wal-00000003.log"));
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
