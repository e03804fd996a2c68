// engine_salvage_test.cc — salvage mode (engine.h, options.salvage). One flipped byte in one
// run file: a normal open fails with Corruption naming the file and changes nothing; a
// salvage open serves the intact runs read-only, names the damaged run (file, level, key
// range, entries), and never answers a key that run may hold, while CheckDirectory
// (directory_check.h) lists the same run as lost.
#include "engine.h"

#include <errno.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "directory_check.h"
#include "engine_test_util.h"
#include "env.h"
#include "recovery.h"
#include "run.h"
#include "scan_iterator.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::FlipByte;
using test::InAChildThatDies;
using test::Load;
using test::Model;
using test::Snapshot;
using test::Value;

// What Get answers in salvage mode: the value, "absent", or "refused" (Corruption naming
// `file`). Any other exception fails the test.
enum class Answer { kFound, kAbsent, kRefused };
Answer SalvageGet(Engine* e, uint64_t key, const std::string& file, std::vector<uint8_t>* out) {
  try {
    return e->Get(key, out->data()) ? Answer::kFound : Answer::kAbsent;
  } catch (const Corruption& err) {
    const std::string what = err.what();
    if (what.find(file) == std::string::npos || what.find("set aside") == std::string::npos)
      test::Fail(__FILE__, __LINE__, "a refusal that does not name " + file + ": " + what);
    return Answer::kRefused;
  }
}

// The directory of the main tests, with level1_runs = 3 so that flushes wait in level 0:
// keys 0..79 written (salt 0) and merged into the tree; then keys 0..7 rewritten (salt 1)
// and flushed, a level-0 run of its own (the victim) newer than the older versions of the
// same keys in Level 1..L; key 100 written and deleted (a tombstone); keys from 200 up
// flushed as needed so that the victim's flush waits in level 0. Returns the model
// and the victim (the newest level-0 run) as Levels() describes it.
struct Built {
  Model model;
  RunInfo victim;
  std::string file;
};

Options Staged() {
  Options o = test::SmallOptions();
  o.level1_runs = 3;
  return o;
}

Built Build(const std::string& path) {
  const Options o = Staged();
  Built b;
  Engine e(path, o);
  Load(&e, &b.model, 0, 80, 0);
  e.Put(100, Value(o, 100, 0).data());
  e.Delete(100);
  e.Flush();
  // The next flush must wait in level 0, not trigger a merge of level 0 into Level 1.
  for (uint64_t k = 200; e.Levels().front().runs.size() + 1 >= 3; ++k) {
    e.Put(k, Value(o, k, 0).data());
    b.model[k] = Value(o, k, 0);
    e.Flush();
  }
  Load(&e, &b.model, 0, 8, 1);
  e.Flush();
  const auto levels = e.Levels();
  CHECK_EQ(levels.front().level, 0);
  CHECK(!levels.front().runs.empty());
  b.victim = levels.front().runs.back();  // the newest run: keys 0..7, salt 1
  CHECK_EQ(b.victim.min_key, 0u);
  CHECK_EQ(b.victim.max_key, 7u);
  CHECK_GT(levels.size(), 1u);  // older versions of keys 0..7 live in Level 1..L
  b.file = RunFileName(path, b.victim.id);
  e.Close();
  return b;
}

TEST(Salvage, AStrictOpenNamesTheDamagedRunAndChangesNothing) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Built b = Build(path);
  FlipByte(b.file, 20, 0x10);  // inside entry 0's value, block 0
  const auto before = Snapshot(path);
  CHECK_THROWS(Engine(path, Staged()), Corruption, b.file);
  CHECK_THROWS(Engine(path, Staged()), Corruption, "block 0 fails its checksum");
  CHECK(Snapshot(path) == before);
}

TEST(Salvage, ServesTheIntactRunsNamesTheDamagedOneAndNeverAnswersWrongly) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = Staged();
  const Built b = Build(path);
  FlipByte(b.file, 20, 0x10);
  const auto before = Snapshot(path);
  Options so = o;
  so.salvage = true;
  {
    Engine e(path, so);
    CHECK(e.read_only());
    // The damaged run is named: its file, level 0, its key range and counts.
    CHECK_EQ(e.SetAside().size(), 1u);
    const DamagedRun& d = e.SetAside()[0];
    CHECK_EQ(d.file, b.file);
    CHECK_EQ(d.id, b.victim.id);
    CHECK_EQ(d.level, 0);
    CHECK_EQ(d.min_key, 0u);
    CHECK_EQ(d.max_key, 7u);
    CHECK_EQ(d.entries, b.victim.entries);
    CHECK(d.why.find("fails its checksum") != std::string::npos);
    for (const auto& l : e.Levels())
      for (const auto& r : l.runs) CHECK_NE(r.id, b.victim.id);  // not served
    // Keys 0..7: their newest versions were in the damaged run; the intact runs hold the
    // older ones (salt 0), which must not be returned. Each such Get is refused.
    std::vector<uint8_t> out(o.value_bytes());
    for (uint64_t k = 0; k < 8; ++k)
      CHECK(SalvageGet(&e, k, b.file, &out) == Answer::kRefused);
    // Every other key is answered as a normal open would: values, a tombstone, absence.
    for (uint64_t k = 8; k < 80; ++k) {
      CHECK(SalvageGet(&e, k, b.file, &out) == Answer::kFound);
      CHECK(out == b.model.at(k));
    }
    CHECK(SalvageGet(&e, 100, b.file, &out) == Answer::kAbsent);  // deleted
    CHECK(SalvageGet(&e, 5000, b.file, &out) == Answer::kAbsent);  // never written
    // A batch holding a lost key is refused as a whole; one without is answered.
    std::vector<uint64_t> keys = {9, 3};
    std::vector<uint8_t> values(2 * o.value_bytes());
    bool found[2];
    CHECK_THROWS(e.GetMany(keys.data(), 2, values.data(), found), Corruption, b.file);
    keys = {9, 70};
    e.GetMany(keys.data(), 2, values.data(), found);
    CHECK(found[0] && found[1]);
    CHECK(std::vector<uint8_t>(values.begin() + o.value_bytes(), values.end()) ==
          b.model.at(70));
    // Scans: refused where they overlap [0, 7], answered elsewhere.
    CHECK_THROWS(e.Scan(5, 20), Corruption, "set aside as damaged");
    CHECK_THROWS(e.Scan(0, UINT64_MAX), Corruption, b.file);
    auto it = e.Scan(8, 200);
    std::vector<uint64_t> got;
    std::vector<uint8_t> vals;
    while (it->NextBatch(16, &got, &vals) > 0) {}
    size_t expected = 0;
    for (const auto& kv : b.model) expected += kv.first >= 8 && kv.first <= 200;
    CHECK_EQ(got.size(), expected);  // 8..79 (and 200 if written); 100 is deleted
    CHECK_EQ(got.front(), 8u);
    // Verify checks what is served and counts what was set aside.
    const VerifyReport report = e.Verify();
    CHECK_EQ(report.set_aside, 1u);
    CHECK_GT(report.runs, 0u);
  }
  CHECK(Snapshot(path) == before);  // nothing written, moved or deleted, Close() included
  // The same run, as the directory check lists it.
  const DirectoryReport r = CheckDirectory(path);
  CHECK(r.lost_writes);
  CHECK_EQ(r.damaged_runs.size(), 1u);
  CHECK_EQ(r.damaged_runs[0].file, b.file);
  CHECK_EQ(r.damaged_runs[0].level, 0);
  CHECK_EQ(r.damaged_runs[0].min_key, 0u);
  CHECK_EQ(r.damaged_runs[0].max_key, 7u);
  CHECK_EQ(r.damaged_runs[0].entries, b.victim.entries);
  bool named = false;
  for (const auto& p : r.problems)
    named |= p.find(b.file) != std::string::npos && p.find("keys [0, 7]") != std::string::npos &&
             p.find("level 0") != std::string::npos;
  CHECK(named);
  // And a strict open still refuses it: salvage set nothing aside for good.
  CHECK_THROWS(Engine(path, o), Corruption, b.file);
}

TEST(Salvage, IsReadOnly) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = Staged();
  const Built b = Build(path);
  FlipByte(b.file, 20, 0x10);
  const auto before = Snapshot(path);
  Options so = o;
  so.salvage = true;
  Engine e(path, so);
  const std::vector<uint8_t> v = Value(o, 9, 9);
  auto refused = [&](const std::function<void()>& call) {
    try {
      call();
    } catch (const IOError& err) {
      CHECK_EQ(err.code(), EROFS);
      CHECK(std::string(err.what()).find("salvage mode, which is read-only") !=
            std::string::npos);
      return;
    }
    test::Fail(__FILE__, __LINE__, "a write in salvage mode was not refused");
  };
  refused([&] { e.Put(9, v.data()); });
  refused([&] { e.Delete(9); });
  const uint64_t key = 9;
  refused([&] { e.PutMany(&key, v.data(), 1); });
  refused([&] { e.Flush(); });
  CHECK(!e.TryWrite(9, v.data(), false));  // the fast path declines; the slow path refuses
  std::vector<uint8_t> out(o.value_bytes());
  CHECK(e.Get(9, out.data()));
  CHECK(out == b.model.at(9));  // no write landed
  e.Close();
  CHECK(Snapshot(path) == before);
}

// A write made after the damaged run (here only in the live log) is newer than it, so it is
// answered even inside the damaged range; the log is replayed in memory and left as it is.
TEST(Salvage, WritesNewerThanTheDamagedRunAreAnswered) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = Staged();
  const Built b = Build(path);
  InAChildThatDies([&] {
    Engine* e = new Engine(path, o);  // leaked: no close, no flush
    e->Put(3, Value(o, 3, 2).data());
    e->Delete(4);
  });
  FlipByte(b.file, 20, 0x10);
  const auto before = Snapshot(path);
  Options so = o;
  so.salvage = true;
  {
    Engine e(path, so);
    CHECK_EQ(e.Stats().wal_replayed_entries, 2u);
    std::vector<uint8_t> out(o.value_bytes());
    CHECK(SalvageGet(&e, 3, b.file, &out) == Answer::kFound);
    CHECK(out == Value(o, 3, 2));
    CHECK(SalvageGet(&e, 4, b.file, &out) == Answer::kAbsent);  // its deletion is newer
    CHECK(SalvageGet(&e, 5, b.file, &out) == Answer::kRefused);
  }
  CHECK(Snapshot(path) == before);  // the log was not replayed into runs, nor retired
  {
    Engine e(path, so);  // and a second salvage open replays it again
    std::vector<uint8_t> out(o.value_bytes());
    CHECK(e.Get(3, out.data()));
    CHECK(out == Value(o, 3, 2));
  }
}

// A missing run file is set aside like a damaged one; a sound directory sets nothing aside
// and is simply open read-only; salvage never creates a directory.
TEST(Salvage, MissingRunsSoundDirectoriesAndNoDirectory) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = Staged();
  Options so = o;
  so.salvage = true;
  const Built b = Build(path);
  {
    Engine e(path, so);
    CHECK(e.SetAside().empty());
    CHECK(e.read_only());
    test::CheckGets(&e, b.model);
    CHECK_EQ(e.Verify().set_aside, 0u);
  }
  CHECK_EQ(::unlink(b.file.c_str()), 0);
  {
    Engine e(path, so);
    CHECK_EQ(e.SetAside().size(), 1u);
    CHECK(e.SetAside()[0].why.find("missing") != std::string::npos);
    std::vector<uint8_t> out(o.value_bytes());
    CHECK_THROWS(e.Get(0, out.data()), Corruption, b.file);
    CHECK(e.Get(50, out.data()));
  }
  const std::string none = dir.path() + "/none";
  CHECK_THROWS(Engine(none, so), IOError, "has no MANIFEST");
  CHECK(!FileExists(none));
}

// A level of files (granularity 'file') is one sorted run: a damaged file loses its key
// range at that level, and the other files of every level are served.
TEST(Salvage, ADamagedFileOfALevel) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = test::SmallOptions(kFileGranularity, 192);
  Model model;
  {
    Engine e(path, o);
    Load(&e, &model, 0, 300, 0);
    Load(&e, &model, 0, 300, 1, 3);
  }
  RunInfo victim{};
  int victim_level = 0;
  {
    Engine e(path, o);
    for (const auto& l : e.Levels())
      if (!l.runs.empty() && victim_level == 0) {
        victim = l.runs[l.runs.size() / 2];  // a file of the shallowest level holding any
        victim_level = l.level;
      }
  }
  CHECK_GT(victim_level, 0);
  const std::string file = RunFileName(path, victim.id);
  FlipByte(file, 20, 0x10);
  CHECK_THROWS(Engine(path, o), Corruption, file);
  Options so = o;
  so.salvage = true;
  Engine e(path, so);
  CHECK_EQ(e.SetAside().size(), 1u);
  CHECK_EQ(e.SetAside()[0].level, victim_level);
  CHECK_EQ(e.SetAside()[0].min_key, victim.min_key);
  CHECK_EQ(e.SetAside()[0].max_key, victim.max_key);
  std::vector<uint8_t> out(o.value_bytes());
  CHECK(SalvageGet(&e, victim.min_key, file, &out) == Answer::kRefused);
  size_t refused = 0;
  for (const auto& [k, v] : model) {
    const Answer a = SalvageGet(&e, k, file, &out);
    if (k < victim.min_key || k > victim.max_key) {
      CHECK(a == Answer::kFound);  // outside the lost range: every key, rightly
      CHECK(out == v);
    } else {
      CHECK(a == Answer::kRefused);  // no newer level holds these keys
      ++refused;
    }
  }
  CHECK_EQ(refused, victim.max_key - victim.min_key + 1);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
