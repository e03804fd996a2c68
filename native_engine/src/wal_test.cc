// wal_test.cc — the write-ahead log: round trips, torn tails dropped, every other damage
// refused, batches all or nothing, logs of other directories refused.
#include "wal.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "file_io.h"
#include "testharness.h"

namespace wacky {
namespace {

constexpr uint64_t kDb = 0x1234abcd5678ef00ULL;
constexpr uint64_t kNumber = 7;

struct Op {
  uint64_t key;
  bool tomb;
  uint8_t fill;
};

std::vector<Op> Replay(const std::string& path, LogScan* result = nullptr,
                       WalRecovery mode = WalRecovery::kTolerateCorruptedTailRecords,
                       uint64_t db = kDb, uint64_t number = kNumber) {
  std::vector<Op> ops;
  LogScan scan = ScanLog(path, number, db, 3, mode);
  ApplyLog(scan, 3, [&](uint64_t k, const uint8_t* v, bool tomb) {
    ops.push_back(Op{k, tomb, tomb ? uint8_t{0} : v[0]});
  });
  if (result) *result = std::move(scan);
  return ops;
}

void WriteBytes(const std::string& path, const std::string& data) {
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC));
  CHECK(fd.valid());
  CHECK_EQ(::write(fd.get(), data.data(), data.size()), static_cast<ssize_t>(data.size()));
}

// Ten writes in four batches (three, three, three and one entries).
std::string Written(const test::TempDir& dir, int n = 10) {
  const std::string path = LogFileName(dir.path(), kNumber);
  LogWriter w(path, kNumber, kDb, 3, false, nullptr);
  for (int i = 0; i < n; ++i) {
    const uint8_t v[3] = {static_cast<uint8_t>(i), 0, 0};
    w.Add(static_cast<uint64_t>(i) * 1000, i % 5 == 4 ? nullptr : v, i % 5 == 4);
    if (i % 3 == 2) w.Commit();
  }
  w.Commit();
  return path;
}

TEST(Wal, RoundTripKeepsOrderKeysValuesAndDeletes) {
  test::TempDir dir;
  const std::string path = Written(dir);
  LogScan r;
  const auto ops = Replay(path, &r);
  CHECK_EQ(ops.size(), 10u);
  CHECK_EQ(r.records, 5u);  // the header and four batches
  CHECK_EQ(r.batches.size(), 4u);
  CHECK_EQ(r.entries, 10u);
  CHECK_EQ(r.dropped_bytes, 0u);
  for (int i = 0; i < 10; ++i) {
    CHECK_EQ(ops[i].key, static_cast<uint64_t>(i) * 1000);
    CHECK_EQ(ops[i].tomb, i % 5 == 4);
    if (!ops[i].tomb) CHECK_EQ(ops[i].fill, static_cast<uint8_t>(i));
  }
  CHECK_THROWS(LogWriter(path, kNumber, kDb, 3, false, nullptr), IOError, "cannot create log");
}

// A log that holds no write is its header record alone.
TEST(Wal, ANewLogIsItsHeaderAlone) {
  test::TempDir dir;
  const std::string path = LogFileName(dir.path(), 3);
  { LogWriter w(path, 3, kDb, 3, false, nullptr); }
  CHECK_EQ(ReadWholeFile(path).size(), kLogHeaderRecordBytes);
  LogScan r;
  CHECK_EQ(Replay(path, &r, WalRecovery::kAbsoluteConsistency, kDb, 3).size(), 0u);
  CHECK(r.has_header);
}

TEST(Wal, EveryTruncationKeepsTheWholeBatchesBeforeIt) {
  test::TempDir dir;
  const std::string path = Written(dir);
  const std::string full = ReadWholeFile(path);
  size_t last = 0;
  for (size_t n = 0; n <= full.size(); ++n) {
    WriteBytes(path, full.substr(0, n));
    LogScan r;
    const auto ops = Replay(path, &r);
    CHECK(ops.size() >= last);  // a longer prefix never keeps fewer writes
    CHECK(ops.size() == 0 || ops.size() == 3 || ops.size() == 6 || ops.size() == 9 ||
          ops.size() == 10);  // whole batches only
    last = ops.size();
    if (n == full.size()) CHECK_EQ(r.dropped_bytes, 0u);
  }
  CHECK_EQ(last, 10u);
}

// The heart of the format: a damaged byte anywhere — a length, a type, a checksum, a value —
// is refused, never taken for a torn tail (which silently dropped every later write).
TEST(Wal, EveryFlippedByteIsRefused) {
  test::TempDir dir;
  const std::string path = Written(dir);
  const std::string full = ReadWholeFile(path);
  for (size_t i = 0; i < full.size(); ++i) {
    std::string bad = full;
    bad[i] = static_cast<char>(bad[i] ^ 0x40);
    WriteBytes(path, bad);
    CHECK_THROWS(Replay(path), Corruption, "at byte");
  }
  // The length field of the first batch (bytes 4..8 of the record after the header).
  std::string bad = full;
  bad[kLogHeaderRecordBytes + 6] = static_cast<char>(bad[kLogHeaderRecordBytes + 6] ^ 0x01);
  WriteBytes(path, bad);
  CHECK_THROWS(Replay(path), Corruption, "record header that fails its checksum at byte 40");
}

TEST(Wal, AZeroTailIsDroppedAndATornTailIsRefusedUnderAbsoluteConsistency) {
  test::TempDir dir;
  const std::string path = Written(dir);
  const std::string full = ReadWholeFile(path);
  WriteBytes(path, full + std::string(4096, '\0'));
  LogScan r;
  CHECK_EQ(Replay(path, &r).size(), 10u);
  CHECK_EQ(r.dropped_bytes, 4096u);
  CHECK_THROWS(Replay(path, nullptr, WalRecovery::kAbsoluteConsistency), Corruption,
               "absolute consistency");
  WriteBytes(path, full.substr(0, full.size() - 3));
  CHECK_EQ(Replay(path).size(), 9u);
  CHECK_THROWS(Replay(path, nullptr, WalRecovery::kAbsoluteConsistency), Corruption,
               "an incomplete record");
  WriteBytes(path, full);
  CHECK_EQ(Replay(path, nullptr, WalRecovery::kAbsoluteConsistency).size(), 10u);
}

TEST(Wal, PointInTimeStopsAtTheFirstDamage) {
  test::TempDir dir;
  const std::string path = Written(dir);
  std::string bad = ReadWholeFile(path);
  // Inside the second batch: the first batch (three writes) is kept, the rest dropped.
  const size_t second = kLogHeaderRecordBytes + kLogHeaderBytes + 3 * 12 + 20;
  bad[second] = static_cast<char>(bad[second] ^ 1);
  WriteBytes(path, bad);
  CHECK_THROWS(Replay(path), Corruption, "refusing to drop acknowledged writes");
  LogScan r;
  CHECK_EQ(Replay(path, &r, WalRecovery::kPointInTimeRecovery).size(), 3u);
  CHECK(r.stopped_at.find("fails its checksum") != std::string::npos);
  CHECK(r.dropped_bytes > 0);
}

TEST(Wal, ALogOfAnotherDirectoryOrNumberIsRefused) {
  test::TempDir dir;
  const std::string path = Written(dir);
  CHECK_THROWS(Replay(path, nullptr, WalRecovery::kTolerateCorruptedTailRecords, kDb + 1),
               Corruption, "belongs to another directory");
  CHECK_THROWS(Replay(path, nullptr, WalRecovery::kPointInTimeRecovery, kDb + 1), Corruption,
               "belongs to another directory");
  CHECK_THROWS(Replay(path, nullptr, WalRecovery::kTolerateCorruptedTailRecords, kDb, 8),
               Corruption, "says it is log 7, not 8");
}

// A batch larger than a record goes out fragment by fragment as it is added; replay sees it
// whole, and a file that ends inside it drops all of it.
TEST(Wal, ABigBatchIsWrittenAsItGrowsAndIsAllOrNothing) {
  test::TempDir dir;
  const std::string path = LogFileName(dir.path(), kNumber);
  LogWriter w(path, kNumber, kDb, 3, false, nullptr);
  const uint8_t v[3] = {1, 1, 1};
  w.Add(999999, v, false);
  w.Commit();  // one small batch first
  const uint64_t n = 3 * kMaxRecordBytes / 12;  // 12 bytes an entry: three fragments' worth
  for (uint64_t k = 0; k < n; ++k) {
    const uint8_t value[3] = {static_cast<uint8_t>(k), 1, 2};
    w.Add(k, value, false);
  }
  CHECK(ReadWholeFile(path).size() >= 2 * kMaxRecordBytes);  // before any Commit()
  CHECK_EQ(w.Commit(), n * 12 + 4 * kLogHeaderBytes);  // four fragments with their headers
  LogScan r;
  const auto ops = Replay(path, &r);
  CHECK_EQ(r.batches.size(), 2u);
  CHECK_EQ(ops.size(), n + 1);
  for (uint64_t k = 0; k < n; ++k) CHECK_EQ(ops[k + 1].key, k);
  const std::string full = ReadWholeFile(path);
  const size_t big = kLogHeaderRecordBytes + kLogHeaderBytes + 12;  // where it begins
  for (size_t cut : {big + 100, big + kMaxRecordBytes, big + 2 * kMaxRecordBytes + 17,
                     full.size() - 1}) {
    WriteBytes(path, full.substr(0, cut));
    CHECK_EQ(Replay(path).size(), 1u);  // the big batch is gone whole
  }
}

// A write that fails part-way (a full disk) leaves a torn record at the end and breaks the
// log: nothing more is ever appended, so the tear stays the last thing in the file.
TEST(Wal, AFailedWriteBreaksTheLogAndLeavesATornTail) {
  for (int64_t budget : {0, 5, 16, 20, 30}) {
    test::TempDir dir;
    const std::string path = LogFileName(dir.path(), kNumber);
    FaultInjector faults;
    LogWriter w(path, kNumber, kDb, 3, false, &faults);
    const uint8_t v[3] = {7, 7, 7};
    w.Add(1, v, false);
    w.Add(2, v, false);
    CHECK_EQ(w.Commit(), kLogHeaderBytes + 2 * 12);
    w.Add(3, v, false);
    w.Add(4, nullptr, true);
    faults.budget = budget;
    CHECK_THROWS(w.Commit(), IOError, "injected fault");
    CHECK(w.failed());
    CHECK(!w.sync_failed());
    faults.budget = -1;
    w.Add(5, v, false);
    CHECK_THROWS(w.Commit(), IOError, "unusable");
    LogScan r;
    const auto ops = Replay(path, &r);
    CHECK_EQ(ops.size(), 2u);  // the torn batch is dropped, nothing after it was written
    CHECK_EQ(r.dropped_bytes, static_cast<uint64_t>(budget));
  }
}

// After a failed fdatasync the log refuses every later commit: retrying could report
// success for pages the kernel already dropped.
TEST(Wal, AFailedSyncIsFinal) {
  test::TempDir dir;
  const std::string path = LogFileName(dir.path(), 1);
  FaultInjector faults;
  LogWriter w(path, 1, kDb, 3, true, &faults);
  const uint8_t v[3] = {1, 2, 3};
  w.Add(1, v, false);
  w.Commit();
  faults.fail_log_sync = true;
  w.Add(2, v, false);
  CHECK_THROWS(w.Commit(), IOError, "fdatasync failed (injected fault)");
  CHECK(w.failed());
  CHECK(w.sync_failed());
  faults.fail_log_sync = false;
  w.Add(3, v, false);
  CHECK_THROWS(w.Commit(), IOError, "earlier write or fdatasync of it failed");
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
