// engine_buffer_test.cc — the compaction buffer inside the engine (Options::compaction_buffer,
// compaction_buffer.h): reads match a std::map model through updates, deletes, trims and
// reopens, the trim spares the newest tables, crashes and failed writes keep every buffered
// file the MANIFEST lists, a lost buffered file loses nothing, and the option is part of the
// design. (Its effect on I/O and on the block cache: engine_buffer_io_test.cc.)
#include "engine.h"

#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "directory_check.h"
#include "engine_test_util.h"
#include "env.h"
#include "manifest.h"
#include "options.h"
#include "run.h"
#include "scan_iterator.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::CheckMatches;
using test::InAChildThatDies;
using test::Model;
using test::Sum;
using test::Value;

// Files of 2 blocks, buffered.
Options Buffered() {
  Options o = test::SmallOptions(kFileGranularity, 192);
  o.compaction_buffer = true;
  o.cache_bytes = 64 * 96;
  o.buffer_trim_interval = 4;
  return o;
}

// Each level's buffer as (level, table, id or 0 for a marker, min_key, max_key).
std::vector<std::vector<uint64_t>> BufferShape(Engine* e) {
  std::vector<std::vector<uint64_t>> out;
  for (const LevelInfo& l : e->Levels())
    for (size_t t = 0; t < l.buffer.size(); ++t)
      for (const BufferedInfo& f : l.buffer[t])
        out.push_back({static_cast<uint64_t>(l.level), t, f.removed ? 0 : f.id, f.min_key,
                       f.max_key});
  return out;
}

// A long random workload on small files, so that the buffers fill, trimmed often: updates,
// deletes, and point reads mostly on a hot range, every answer checked against the model;
// then everything again, and after a reopen that must rebuild the same buffers.
TEST(EngineBuffer, ReadsMatchAModelThroughUpdatesDeletesTrimsAndReopen) {
  std::vector<Options> designs(4, Buffered());
  designs[1].file_pick = kRoundRobin;
  designs[2].hash_levels = 1;  // files from a hash-table level are buffered with a filter
  designs[2].level1_runs = 2;
  designs[3].file_bytes = 96;  // one-block files
  designs[3].buffer_trim = 0.5;
  designs[3].buffer_trim_interval = 1;
  for (size_t d = 0; d < designs.size(); ++d) {
    const Options& o = designs[d];
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    std::mt19937_64 rng(d + 7);
    Model model;
    constexpr uint64_t kKeys = 1200, kHot = 60;
    std::vector<std::vector<uint64_t>> shape;
    IOStats s;
    {
      Engine e(path, o);
      for (int step = 0; step < 6000; ++step) {
        const uint64_t dice = rng() % 100;
        const bool hot = rng() % 10 < 8;
        const uint64_t key = hot ? 300 + rng() % kHot : rng() % kKeys;
        test::Step(&e, &model, key, step, dice, 35, 45);
      }
      CheckMatches(&e, model, kKeys);
      s = e.Stats();
      CHECK_GT(s.buffer_reads, 0u);
      CHECK_GT(s.buffer_trimmed, 0u);
      CHECK_GT(s.buffer_drained, 0u);
      CHECK_GT(s.buffer_files, 0u);
      CHECK_GT(s.buffer_bytes, 0u);
      CHECK_GT(Sum(s.buffer_entries), 0u);
      CHECK_EQ(s.buffer_entries.at(0) + s.buffer_entries.at(1), 0u);  // level 0, Level 1
      CHECK_EQ(Sum(s.cache_misses), s.point_read.blocks_read);
      e.Verify();
      e.Flush();
      shape = BufferShape(&e);
      CHECK(!shape.empty());
      e.Close();
    }
    Engine e(path, o);
    CHECK(BufferShape(&e) == shape);
    CHECK_EQ(e.Stats().buffer_unreadable, 0u);
    CheckMatches(&e, model, kKeys);
    CHECK_GT(e.Stats().buffer_reads, 0u);
    fprintf(stderr, "design %zu: %llu buffer reads, %llu trimmed, %llu drained, %zu entries "
            "buffered at close\n", d, static_cast<unsigned long long>(s.buffer_reads),
            static_cast<unsigned long long>(s.buffer_trimmed),
            static_cast<unsigned long long>(s.buffer_drained), shape.size());
  }
}

// Live buffered files by level: (newest table's, older tables').
struct Live {
  std::set<uint64_t> newest, older;
};
Live LiveBuffered(Engine* e) {
  Live out;
  for (const LevelInfo& l : e->Levels())
    for (size_t t = 0; t < l.buffer.size(); ++t)
      for (const BufferedInfo& f : l.buffer[t])
        if (!f.removed) (t == 0 ? out.newest : out.older).insert(f.id);
  return out;
}

// Without a cache every buffered file is cold. Each flush that finds a trim due (every merge
// here) drops every live file of the older tables, and none of a newest table: after it,
// every older-table file is one the flush itself buffered, and every file of a newest table
// before it is still buffered unless the flush drained some. A threshold of 0 never trims.
TEST(EngineBuffer, TheTrimDropsColdFilesButNeverTheNewestTable) {
  for (double threshold : {0.8, 0.0}) {
    Options o = Buffered();
    o.cache_bytes = 0;
    o.buffer_trim = threshold;
    o.buffer_trim_interval = 1;
    test::TempDir dir;
    Engine e(dir.path() + "/db", o);
    std::mt19937_64 rng(3);
    IOStats prev = e.Stats();
    Live before = LiveBuffered(&e);
    uint64_t trim_merges = 0, checked = 0;
    size_t most_tables = 0;
    for (int step = 0; step < 3000; ++step) {
      const uint64_t key = rng() % 1000;
      e.Put(key, Value(o, key, step).data());
      const IOStats now = e.Stats();
      if (now.flushes + now.merges == prev.flushes + prev.merges) continue;  // no flush
      const Live after = LiveBuffered(&e);
      // The engine's rule: a trim is due when a merge happened since the last one.
      const bool trimmed = prev.merges - trim_merges >= 1;
      if (trimmed) trim_merges = now.merges;
      if (trimmed && threshold > 0) {
        ++checked;
        for (uint64_t id : before.older) CHECK(after.newest.count(id) + after.older.count(id) == 0);
        if (now.buffer_drained == prev.buffer_drained)
          for (uint64_t id : before.newest)
            CHECK(after.newest.count(id) + after.older.count(id) == 1);
      }
      for (const LevelInfo& l : e.Levels()) most_tables = std::max(most_tables, l.buffer.size());
      prev = now;
      before = after;
    }
    const IOStats s = e.Stats();
    if (threshold > 0) {
      CHECK_GT(checked, 100u);
      CHECK_GT(s.buffer_trimmed, 0u);
      CHECK_GT(s.buffer_files, 0u);  // the newest tables
    } else {
      CHECK_EQ(s.buffer_trimmed, 0u);
      CHECK_GT(most_tables, 3u);
    }
  }
}

// Fills `path` until its buffers hold files; returns the model.
Model Fill(const std::string& path, const Options& o, uint64_t keys, uint64_t salt) {
  Model model;
  Engine e(path, o);
  std::vector<uint8_t> out(o.value_bytes());
  for (uint64_t k = 0; k < keys; ++k) {
    const uint64_t key = (k * 7919) % keys;
    e.Put(key, Value(o, key, salt).data());
    model[key] = Value(o, key, salt);
    e.Get((k * 13) % (key + 1), out.data());  // warm the cache, so the trim keeps some
  }
  CHECK_GT(e.Stats().buffer_files, 0u);
  return model;
}

// A process that dies in the middle of flushes (its writes failing from some byte on, then
// _exit) leaves every buffered file its MANIFEST lists: nothing it buffered, trimmed or
// drained was deleted before the MANIFEST dropping it was durable. Every acknowledged write
// is there after the reopen.
TEST(EngineBuffer, ACrashInAFlushKeepsEveryListedBufferedFile) {
  const Options o = Buffered();
  for (int64_t budget : {0, 100, 400, 700, 1500, 2000, 3500, 5000, 9000, 20000}) {
    test::TempDir dir;
    const std::string path = dir.path() + "/db";
    Model model = Fill(path, o, 600, 0);
    InAChildThatDies([&] {
      auto* e = new Engine(path, o);  // leaked: no close
      e->TEST_InjectWriteFailure(budget);
      try {
        for (uint64_t k = 0; k < 5000; ++k) e->Put(k % 700, Value(o, k % 700, 1).data());
      } catch (const IOError&) {
      }
    });
    // The child's acknowledged writes are in its log; which ones is not known here, so the
    // check is: every key holds its old value or the new one, and the buffers are whole.
    Engine e(path, o);
    CHECK_EQ(e.Stats().buffer_unreadable, 0u);
    std::vector<uint8_t> out(o.value_bytes());
    for (uint64_t k = 0; k < 700; ++k) {
      const bool found = e.Get(k, out.data());
      if (model.count(k) == 0) {
        if (found) CHECK(out == Value(o, k, 1));
      } else {
        CHECK(found);
        CHECK(out == model[k] || out == Value(o, k, 1));
      }
    }
    e.Verify();
    e.Close();
    const DirectoryReport r = CheckDirectory(path);
    CHECK(r.ok());
    for (const auto& w : r.warnings) CHECK(w.find("compaction-buffer") == std::string::npos);
  }
}

// Writes that fail part-way through flushes and merges, in the running engine (a failed
// MANIFEST included): every acknowledged write survives, every buffered file of the tree is
// still readable (Verify reads them all), and the reopen finds them all.
TEST(EngineBuffer, FailedWritesLoseNothingAndKeepTheBufferedFiles) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = Buffered();
  Model model = Fill(path, o, 500, 0);
  uint64_t k = 0;
  int failures = 0;
  {
    Engine e(path, o);
    // Budgets from 0 up in small steps: the failures land in run files, the OUTPUTS record and
    // MANIFEST writes (the largest write of a flush here) alike.
    for (int64_t budget = 0; budget < 30 * 173; budget += 173) {
      e.TEST_InjectWriteFailure(budget);
      try {
        for (int i = 0; i < 20000; ++i, ++k) {
          const uint64_t key = (k * 31) % 700;
          const auto v = Value(o, key, k + 1);
          e.Put(key, v.data());
          model[key] = v;  // acknowledged
        }
      } catch (const IOError& err) {
        CHECK_EQ(err.code(), ENOSPC);
        ++failures;
        e.TEST_InjectWriteFailure(-1);
        const uint64_t key = (k * 31) % 700;
        std::vector<uint8_t> out(o.value_bytes());
        if (e.Get(key, out.data()) && out == Value(o, key, k + 1)) model[key] = out;
        ++k;
      }
      e.TEST_InjectWriteFailure(-1);
      e.Verify();
      CheckMatches(&e, model, 700);
    }
    CHECK_GT(e.Stats().buffer_files, 0u);
  }
  CHECK_EQ(failures, 30);
  Engine e(path, o);
  CHECK_EQ(e.Stats().buffer_unreadable, 0u);
  CheckMatches(&e, model, 700);
}

// A buffered file is a copy: when it is missing or damaged, checking the directory warns,
// opening (strict or salvage) replaces it by a marker and every answer is still right; in a
// running engine, Verify() reads buffered files and names the damaged one.
TEST(EngineBuffer, AnUnreadableBufferedFileIsACopyLost) {
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  const Options o = Buffered();
  const Model model = Fill(path, o, 600, 0);
  uint64_t victim = 0, other = 0;
  {
    Engine e(path, o);
    for (const LevelInfo& l : e.Levels())
      for (const auto& t : l.buffer)
        for (const BufferedInfo& f : t)
          if (!f.removed) (victim == 0 ? victim : other) = f.id;
  }
  CHECK_GT(victim, 0u);
  CHECK_GT(other, 0u);
  const std::string file = RunFileName(path, victim);
  test::FlipByte(file, 20, 0x04);
  DirectoryReport r = CheckDirectory(path);
  CHECK(r.ok());
  CHECK(!r.lost_writes);
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.find("compaction-buffer copy") != w.npos;
  CHECK(warned);
  {
    Options so = o;
    so.salvage = true;
    Engine e(path, so);
    CHECK_EQ(e.Stats().buffer_unreadable, 1u);
    CHECK(e.SetAside().empty());  // nothing is lost
    CheckMatches(&e, model, 700);
  }
  {
    Engine e(path, o);
    CHECK_EQ(e.Stats().buffer_unreadable, 1u);
    CheckMatches(&e, model, 700);
    // Another buffered file damaged under a running engine: Verify names it.
    test::FlipByte(RunFileName(path, other), 20, 0x04);
    CHECK_THROWS(e.Verify(), Corruption, RunFileName(path, other));
  }
  CHECK(FileExists(file) || !ListDir(path + "/lost").empty());  // never deleted
}

// The option is part of the design, refused where it would do nothing, and its trim knobs
// are checked; a directory made without it (as by the engine before it) reopens as before
// and refuses a request for it by name.
TEST(EngineBuffer, OptionsAreCheckedAndTheBufferIsPartOfTheDesign) {
  auto bad = [](void (*change)(Options*), const char* what) {
    Options o = Buffered();
    change(&o);
    CHECK_THROWS(o.Validate(), std::invalid_argument, what);
  };
  bad([](Options* o) { o->granularity = kLevelGranularity; o->file_bytes = 0; },
      "compaction_buffer applies only to granularity='file'");
  bad([](Options* o) { o->buffer_trim = 1.5; }, "buffer_trim = 1.5");
  bad([](Options* o) { o->buffer_trim = -0.1; }, "must be in [0, 1]");
  bad([](Options* o) { o->buffer_trim_interval = 0; }, "buffer_trim_interval = 0");
  // Not with L2SM's per-level log (options.h): the message names both.
  bad([](Options* o) { o->log_ratio = 0.1; },
      "log_ratio > 0 cannot be combined with compaction_buffer");
  // One table describes the options (options.h OptionTable): the buffer is part of the
  // design, recorded by its own MANIFEST section; the trim knobs are memory only.
  CHECK(FindOption("compaction_buffer")->stored && FindOption("compaction_buffer")->own_section);
  CHECK(!FindOption("buffer_trim")->stored && !FindOption("buffer_trim_interval")->stored);
  {
    Options a = Buffered(), b = Buffered();
    b.buffer_trim = 0.3;
    b.buffer_trim_interval = 99;
    CHECK_EQ(CompareDesign(a, b), std::string());
    CHECK(RecordsOption(a, *FindOption("compaction_buffer")));
    CHECK(!RecordsOption(a, *FindOption("log_ratio")));
    CHECK(!RecordsOption(test::SmallOptions(kFileGranularity, 192),
                         *FindOption("compaction_buffer")));
  }
  test::TempDir dir;
  const std::string path = dir.path() + "/db";
  Options off = test::SmallOptions(kFileGranularity, 192);
  {
    Engine e(path, off);
    test::Load(&e, nullptr, 0, 300, 0);
  }
  CHECK(ReadWholeFile(path + "/MANIFEST").find("compaction_buffer") == std::string::npos);
  Options on = off;
  on.compaction_buffer = true;
  CHECK_THROWS(Engine(path, on), std::invalid_argument,
               "compaction_buffer (stored off, requested on)");
  Engine e(path, off);
  std::vector<uint8_t> out(off.value_bytes());
  CHECK(e.Get(7, out.data()));
  e.Close();
  test::TempDir dir2;
  { Engine b(dir2.path() + "/db", on); }
  CHECK_THROWS(Engine(dir2.path() + "/db", off), std::invalid_argument,
               "compaction_buffer (stored on, requested off)");
  on.buffer_trim = 0.1;  // the trim knobs are memory only: any value reopens
  on.buffer_trim_interval = 100;
  Engine again(dir2.path() + "/db", on);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
