// compaction_buffer_test.cc — one level's compaction buffer on its own (compaction_buffer.h):
// when B^0 starts, the walk of Algorithm 3 and its markers, the drain and the trim, and the
// MANIFEST records. (The buffer inside the engine is checked in engine_buffer_test.cc.)
#include "compaction_buffer.h"

#include <stdio.h>

#include <set>
#include <string>
#include <vector>

#include "block_cache.h"
#include "crc32c.h"
#include "env.h"
#include "hash.h"
#include "manifest.h"
#include "run_writer.h"
#include "testharness.h"

namespace wacky {
namespace {

const RunLayout kLayout{16, 48};  // 8-byte values, 3 entries per block

// A run file holding `keys` (ascending) with values whose first byte is `tag`; the keys in
// `dead` are tombstones.
RunPtr MakeRun(const std::string& dir, uint64_t id, const std::vector<uint64_t>& keys,
               uint8_t tag, const std::set<uint64_t>& dead = {}) {
  IOCounter io, sums;
  RunWriter w(id, RunFileName(dir, id), kLayout, &io, &sums, nullptr, false, false);
  std::vector<uint8_t> v(8, tag);
  for (uint64_t k : keys) w.Add(k, v.data(), dead.count(k) > 0);
  std::vector<uint64_t> hashes;
  return w.Finish(&hashes);  // no filter: every key in range may be there
}

std::vector<uint64_t> Range(uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> out;
  for (uint64_t k = lo; k <= hi; ++k) out.push_back(k);
  return out;
}

// The ids of each table's entries, newest table first (0 for a marker).
std::vector<std::vector<uint64_t>> Shape(const CompactionBuffer& b) {
  std::vector<std::vector<uint64_t>> out;
  for (const BufferTable& t : b.tables()) {
    std::vector<uint64_t> ids;
    for (const BufferedFile& f : t) ids.push_back(f.removed() ? 0 : f.run->id());
    out.push_back(ids);
  }
  return out;
}

// The buffer's answer for key: -1 not answered, -2 deleted, else the value's tag.
int Answer(const CompactionBuffer& b, uint64_t key) {
  uint8_t value[8] = {0};
  IOCounter io;
  const Run::Lookup res = b.Get(key, 0, [&](const Run& r, uint64_t block, bool) {
    return r.GetFromBlock(key, block, value, &io);
  });
  if (res == Run::Lookup::kAbsent) return -1;
  if (res == Run::Lookup::kDeleted) return -2;
  return value[0];
}

// The same, with the key's real hash (filters are probed with it).
int AnswerHashed(const CompactionBuffer& b, uint64_t key) {
  uint8_t value[8] = {0};
  IOCounter io;
  const Run::Lookup res = b.Get(key, Hash64(key), [&](const Run& r, uint64_t block, bool) {
    return r.GetFromBlock(key, block, value, &io);
  });
  if (res == Run::Lookup::kAbsent) return -1;
  if (res == Run::Lookup::kDeleted) return -2;
  return value[0];
}

TEST(CompactionBuffer, B0TakesDisjointFilesAndAnOverlapStartsANewTable) {
  test::TempDir dir;
  const std::string d = dir.path();
  CompactionBuffer b;
  CHECK(b.empty());
  b.Append(MakeRun(d, 1, Range(0, 9), 1));
  b.Append(MakeRun(d, 2, Range(20, 29), 1));
  b.Append(MakeRun(d, 3, Range(12, 15), 1));  // between the two: same table, in key order
  CHECK(Shape(b) == (std::vector<std::vector<uint64_t>>{{1, 3, 2}}));
  b.Append(MakeRun(d, 4, Range(5, 11), 2));  // overlaps run 1: a new B^0
  CHECK(Shape(b) == (std::vector<std::vector<uint64_t>>{{4}, {1, 3, 2}}));
  b.Append(MakeRun(d, 5, Range(30, 31), 2));  // overlaps nothing in B^0: joins it
  CHECK(Shape(b) == (std::vector<std::vector<uint64_t>>{{4, 5}, {1, 3, 2}}));
  CHECK_EQ(b.live_files(), 5u);
  CHECK_EQ(b.entries(), 10u + 10u + 4u + 7u + 2u);
  CHECK_EQ(b.markers(), 0u);
}

TEST(CompactionBuffer, TheWalkTakesTheNewestCopyAndStopsAtAMarker) {
  test::TempDir dir;
  const std::string d = dir.path();
  CompactionBuffer b;
  b.Append(MakeRun(d, 1, Range(0, 9), 1));             // older: keys 0..9
  b.Append(MakeRun(d, 2, {0, 2, 4}, 2, {4}));          // newer: 0 and 2, and 4 deleted
  CHECK_EQ(b.tables().size(), 2u);
  CHECK_EQ(Answer(b, 2), 2);    // the newest copy
  CHECK_EQ(Answer(b, 4), -2);   // a tombstone is an answer
  CHECK_EQ(Answer(b, 3), 1);    // the newer file covers 3 but does not hold it: the older does
  CHECK_EQ(Answer(b, 50), -1);  // no table holds it
  // Rule (b): the newer file lies inside [0, 4]; it becomes a marker, kept because the older
  // file overlaps it. Keys it covers are no longer answered: the tree reads them.
  CHECK_EQ(b.DropInside(0, 4), 1u);
  CHECK_EQ(b.markers(), 1u);
  CHECK_EQ(Answer(b, 3), -1);
  CHECK_EQ(Answer(b, 2), -1);
  CHECK_EQ(Answer(b, 7), 1);  // beyond the marker: the older file still answers
  // The older file goes too: neither marker has an older live file left, so both go.
  CHECK_EQ(b.DropInside(0, 9), 1u);
  CHECK(b.empty());
  CHECK_EQ(Answer(b, 7), -1);
}

// A block the reader declines (the engine reads only cached buffered blocks) ends the walk:
// the older table below may hold a stale copy of the key, so only the tree may answer.
TEST(CompactionBuffer, ABlockNotReadStopsTheWalk) {
  test::TempDir dir;
  const std::string d = dir.path();
  CompactionBuffer b;
  b.Append(MakeRun(d, 1, Range(0, 9), 1));  // older: a stale copy of 2
  const RunPtr newer = MakeRun(d, 2, {0, 2, 4}, 2);
  b.Append(newer);
  uint8_t value[8] = {0};
  IOCounter io;
  int reads = 0;
  auto skip_newer = [&](const Run& r, uint64_t block, bool) -> std::optional<Run::Lookup> {
    ++reads;
    if (r.id() == newer->id()) return std::nullopt;
    return r.GetFromBlock(2, block, value, &io);
  };
  CHECK(b.Get(2, 0, skip_newer) == Run::Lookup::kAbsent);
  CHECK_EQ(reads, 1);  // the older file was not read
  CHECK_EQ(Answer(b, 2), 2);  // read, the newer copy answers
}

// A marker made from a file with a filter fences only the keys the file may have held; read
// back from a MANIFEST (no filter) it fences its whole range.
TEST(CompactionBuffer, AMarkerWithAFilterFencesOnlyItsKeys) {
  test::TempDir dir;
  const std::string d = dir.path();
  CompactionBuffer b;
  b.Append(MakeRun(d, 1, Range(0, 9), 1));
  RunPtr newer = MakeRun(d, 2, {0, 2, 9}, 2);
  BloomFilter f(3, 20);
  for (uint64_t k : {0, 2, 9}) f.AddHash(Hash64(k));
  newer->SetFilter(std::move(f), 20);
  b.Append(newer);
  BlockCache cold(0, kLayout.block_bytes);
  CHECK_EQ(b.Trim(0.5, cold), 1u);  // the older table: run 1 is cold
  CHECK(b.tables().size() == 1 && !b.tables()[0][0].removed());
  CHECK_EQ(b.DropInside(0, 9), 1u);  // run 2 too: a marker, fencing nothing live: gone
  CHECK(b.empty());
  // Again, with run 2 dropped first: its marker stays above run 1 and fences keys 0, 2, 9
  // only.
  CompactionBuffer c;
  c.Append(MakeRun(d, 3, Range(0, 9), 1));
  c.Append(newer);
  CHECK_EQ(c.DropInside(0, 9), 2u);  // both lie inside [0, 9]
  CompactionBuffer e;
  e.Append(MakeRun(d, 4, Range(0, 20), 1));
  e.Append(newer);
  CHECK_EQ(e.DropInside(0, 9), 1u);  // only run 2: a marker above run 4
  CHECK_EQ(e.markers(), 1u);
  CHECK(e.tables()[0][0].fence != nullptr);
  for (uint64_t k : {0, 2, 9}) CHECK_EQ(AnswerHashed(e, k), -1);
  int answered = 0;
  for (uint64_t k : {1, 3, 4, 5, 6, 7, 8}) answered += AnswerHashed(e, k) == 1;
  CHECK_GE(answered, 6);  // at most one false positive of a 20-bit-per-key filter
  auto open = [&](const RunRecord& r) -> RunPtr { return r.id == 4 ? e.Files()[0] : nullptr; };
  const CompactionBuffer back = CompactionBuffer::FromRecords(e.Records(), open, "M");
  CHECK(back.tables()[0][0].fence == nullptr);
  for (uint64_t k : {1, 3, 5, 9}) CHECK_EQ(AnswerHashed(back, k), -1);
  CHECK_EQ(AnswerHashed(back, 15), 1);
}

TEST(CompactionBuffer, TheTrimSparesB0AndFilesMostlyCached) {
  test::TempDir dir;
  const std::string d = dir.path();
  BlockCache cache(100 * kLayout.block_bytes, kLayout.block_bytes);
  const std::vector<uint8_t> block(kLayout.block_bytes);
  CompactionBuffer b;
  b.Append(MakeRun(d, 1, Range(0, 5), 1));    // 2 blocks, both cached below
  b.Append(MakeRun(d, 2, Range(10, 15), 1));  // 2 blocks, one cached
  b.Append(MakeRun(d, 3, Range(3, 12), 2));   // B^0: 4 blocks, none cached
  cache.Insert(1, 0, block.data());
  cache.Insert(1, 1, block.data());
  cache.Insert(2, 0, block.data());
  CHECK_EQ(b.Trim(0.0, cache), 0u);  // 0 never trims
  CHECK_EQ(b.Trim(1.0, cache), 1u);  // 1 keeps only the fully cached file (and B^0)
  // Run 2's marker had no older live file to fence: it is gone.
  CHECK(Shape(b) == (std::vector<std::vector<uint64_t>>{{3}, {1}}));
  CHECK_EQ(b.Trim(0.8, cache), 0u);
  cache.EraseRun(1);
  CHECK_EQ(b.Trim(0.8, cache), 1u);
  CHECK(Shape(b) == (std::vector<std::vector<uint64_t>>{{3}}));  // B^0 stays, uncached
  CHECK_EQ(b.Clear(), 1u);
  CHECK(b.empty());
}

TEST(CompactionBuffer, RecordsRoundTripAndAnUnreadableFileBecomesAMarker) {
  test::TempDir dir;
  const std::string d = dir.path();
  CompactionBuffer b;
  b.Append(MakeRun(d, 1, Range(0, 9), 1));
  b.Append(MakeRun(d, 2, Range(20, 29), 1));
  b.Append(MakeRun(d, 3, Range(5, 12), 2));
  b.DropInside(5, 12);  // a marker in B^0, fenced by run 1
  const auto recs = b.Records();
  CHECK_EQ(recs.size(), 2u);
  CHECK(recs[0][0].removed);
  CHECK_EQ(recs[0][0].run.min_key, 5u);
  CHECK_EQ(recs[0][0].run.max_key, 12u);
  CHECK_EQ(recs[1][1].run.id, 2u);
  CHECK_EQ(recs[1][1].run.entries, 10u);
  std::vector<RunPtr> runs = b.Files();
  auto open = [&](const RunRecord& r) -> RunPtr {
    for (const auto& run : runs)
      if (run->id() == r.id) return run;
    return nullptr;
  };
  const CompactionBuffer same = CompactionBuffer::FromRecords(recs, open, "M");
  CHECK(Shape(same) == Shape(b));
  CHECK_EQ(Answer(same, 7), -1);  // still fenced
  CHECK_EQ(Answer(same, 25), 1);
  // Run 1 cannot be read: it becomes a marker, and the marker above it has nothing left to
  // fence, so it goes.
  runs.erase(runs.begin());  // Files() lists newest first: runs = {1, 2} after run 3 left
  const CompactionBuffer lost = CompactionBuffer::FromRecords(recs, open, "M");
  CHECK(Shape(lost) == (std::vector<std::vector<uint64_t>>{{2}}));
  CHECK_EQ(Answer(lost, 3), -1);
  // Entries out of order are a corrupt MANIFEST.
  auto swapped = recs;
  std::swap(swapped[1][0], swapped[1][1]);
  CHECK_THROWS(CompactionBuffer::FromRecords(swapped, open, "M"), Corruption,
               "not disjoint and in key order");
}

// `body` with its checksum line, as Manifest::Encode ends it.
std::string Signed(const std::string& body) {
  char hex[16];
  snprintf(hex, sizeof(hex), "%08x",
           crc32c::Value(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
  return body + "crc32c " + hex + "\n";
}

Manifest WithLevels(size_t n) {
  Manifest m;
  m.db_id = 0x1234;
  m.levels.resize(n);
  m.levels.back().push_back(RunRecord{7, 100, 3, 9.5, false, 0, 999});
  return m;
}

TEST(CompactionBuffer, TheManifestSectionRoundTripsAndIsOptional) {
  Manifest m = WithLevels(3);
  m.options.granularity = kFileGranularity;
  // Without the buffer the MANIFEST is what it always was, and reads back with it off.
  const std::string plain = m.Encode();
  CHECK(plain.find(kBufferSectionTag) == std::string::npos);
  CHECK(!Manifest::Decode(plain, "M").options.compaction_buffer);
  m.options.compaction_buffer = true;
  BufferedRecord file{false, RunRecord{5, 40, 2, 7.25, false, 10, 90}};
  BufferedRecord marker{true, RunRecord{}};
  marker.run.min_key = 95;
  marker.run.max_key = UINT64_MAX;
  m.buffers = {{}, {{file, marker}, {file}}, {}};
  const std::string text = m.Encode();
  const Manifest back = Manifest::Decode(text, "M");
  CHECK(back.options.compaction_buffer);
  CHECK_EQ(back.buffers.size(), 3u);
  CHECK(back.buffers[0].empty());
  CHECK_EQ(back.buffers[1].size(), 2u);
  CHECK_EQ(back.buffers[1][0].size(), 2u);
  const BufferedRecord& f = back.buffers[1][0][0];
  CHECK(!f.removed);
  CHECK_EQ(f.run.id, 5u);
  CHECK_EQ(f.run.entries, 40u);
  CHECK_EQ(f.run.tombstones, 2u);
  CHECK_EQ(f.run.bits_per_key, 7.25);
  CHECK_EQ(f.run.min_key, 10u);
  CHECK_EQ(f.run.max_key, 90u);
  CHECK(back.buffers[1][0][1].removed);
  CHECK_EQ(back.buffers[1][0][1].run.max_key, UINT64_MAX);
  CHECK_EQ(back.Encode(), text);  // exact
  const auto listed = BufferedRecords(back);
  CHECK_EQ(listed.size(), 2u);
  CHECK_EQ(listed[0].first, 2);
  // The design differs from a request without the buffer.
  Options off = back.options;
  off.compaction_buffer = false;
  CHECK_EQ(CompareDesign(back.options, off), "compaction_buffer (stored on, requested off)");
  // A section that does not match the tree is corrupt, even under a valid checksum.
  std::string body = text.substr(0, text.rfind("crc32c "));
  const std::string tag = std::string(kBufferSectionTag) + " 3";
  body.replace(body.find(tag), tag.size(), std::string(kBufferSectionTag) + " 2");
  CHECK_THROWS(Manifest::Decode(Signed(body), "M"), Corruption, "another number of levels");
  body = text.substr(0, text.rfind("crc32c "));
  body.replace(body.find("removed 95"), 7, "deleted");
  CHECK_THROWS(Manifest::Decode(Signed(body), "M"), Corruption, "expected 'file' or 'removed'");
}

// The buffer section and version 6 (L2SM's option lines and logs) are independent parts of
// the format: the buffer alone keeps version 5, as LSbM wrote it; a MANIFEST with both (which
// Options::Validate refuses to build, but the codec does not rely on that) round-trips
// exactly; logs alone carry no section; a second buffer section is corrupt.
TEST(CompactionBuffer, TheSectionCoexistsWithVersion6) {
  Manifest m = WithLevels(3);
  m.options.granularity = kFileGranularity;
  m.options.compaction_buffer = true;
  BufferedRecord file{false, RunRecord{5, 40, 2, 7.25, false, 10, 90}};
  m.buffers = {{}, {{file}}, {}};
  const std::string v5 = m.Encode();
  CHECK(v5.rfind("wacky-manifest 5\n", 0) == 0);
  CHECK(v5.find("log_ratio") == std::string::npos);
  m.options.log_ratio = 0.1;
  m.level_logs = {{RunRecord{8, 10, 0, 9.5, false, 0, 50}}, {}, {}};
  const std::string v6 = m.Encode();
  CHECK(v6.rfind("wacky-manifest 6\n", 0) == 0);
  CHECK_EQ(v6.find(kBufferSectionTag), v6.rfind(kBufferSectionTag));  // no option line for it
  const Manifest back = Manifest::Decode(v6, "M");
  CHECK(back.options.compaction_buffer);
  CHECK_EQ(back.options.log_ratio, 0.1);
  CHECK_EQ(back.level_logs.size(), 3u);
  CHECK_EQ(back.level_logs[0].size(), 1u);
  CHECK_EQ(back.level_logs[0][0].id, 8u);
  CHECK_EQ(back.buffers.size(), 3u);
  CHECK_EQ(back.buffers[1][0][0].run.id, 5u);
  CHECK_EQ(back.Encode(), v6);
  m.options.compaction_buffer = false;
  m.buffers.clear();
  const std::string logs_only = m.Encode();
  CHECK(logs_only.find(kBufferSectionTag) == std::string::npos);
  CHECK(!Manifest::Decode(logs_only, "M").options.compaction_buffer);
  std::string body = v6.substr(0, v6.rfind("crc32c "));
  const size_t at = body.find(kBufferSectionTag), end = body.rfind("end\n");
  body.insert(end, body.substr(at, end - at));
  CHECK_THROWS(Manifest::Decode(Signed(body), "M"), Corruption,
               "a second compaction-buffer section");
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
