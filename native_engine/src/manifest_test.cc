// manifest_test.cc — the MANIFEST codec: exact round trips, old versions, checksum, corrupt input.
#include "manifest.h"

#include <errno.h>

#include <stdio.h>

#include <random>
#include <stdexcept>
#include <string>

#include "crc32c.h"
#include "env.h"
#include "testharness.h"

namespace wacky {
namespace {

Manifest Sample() {
  Manifest m;
  Options& o = m.options;
  o.T = 0.1 + 3.2;  // not exactly representable in decimal: checks full precision
  o.C = 2.0 / 3.0;
  o.X = 1.5;
  o.K = 0.25;
  o.Z = 1.0;
  o.entry_bytes = 40;
  o.block_bytes = 160;
  o.buffer_bytes = 640;
  o.use_sum_fpr = true;
  o.bits_per_entry = 7.125;
  o.sum_fpr = 0.3;
  o.uniform_filters = true;
  o.hash_levels = 2;
  o.granularity = kFileGranularity;
  o.file_bytes = 320;
  o.file_pick = kRoundRobin;
  o.level1_runs = 4;
  m.level0 = {{99, 12, 1, 3.5, false, 5, 77}};
  m.db_id = 0xfedcba9876543210ULL;
  m.generation = 42;
  m.next_run_id = 123456789012ULL;
  m.next_log_number = 98766;
  m.logs = {98764, 98765};
  m.obsolete = {3, 5, 8};
  m.n_est = 1e9 / 7.0;
  m.levels = {
      {{1, 10, 0, 9.5, true, 0, 9}, {7, 33, 4, 0.0, false, 1, 2}},
      {},  // an empty level survives the round trip
      {{18446744073709551615ULL, 18446744073709551615ULL, 5, 1e-300, false, 0,
        18446744073709551615ULL}},
  };
  return m;
}

void CheckSame(const Manifest& a, const Manifest& b) {
  CHECK_EQ(a.options.T, b.options.T);
  CHECK_EQ(a.options.C, b.options.C);
  CHECK_EQ(a.options.X, b.options.X);
  CHECK_EQ(a.options.K, b.options.K);
  CHECK_EQ(a.options.Z, b.options.Z);
  CHECK_EQ(a.options.entry_bytes, b.options.entry_bytes);
  CHECK_EQ(a.options.block_bytes, b.options.block_bytes);
  CHECK_EQ(a.options.buffer_bytes, b.options.buffer_bytes);
  CHECK_EQ(a.options.use_sum_fpr, b.options.use_sum_fpr);
  CHECK_EQ(a.options.bits_per_entry, b.options.bits_per_entry);
  CHECK_EQ(a.options.sum_fpr, b.options.sum_fpr);
  CHECK_EQ(a.options.uniform_filters, b.options.uniform_filters);
  CHECK_EQ(a.options.hash_levels, b.options.hash_levels);
  CHECK_EQ(a.options.granularity, b.options.granularity);
  CHECK_EQ(a.options.file_bytes, b.options.file_bytes);
  CHECK_EQ(a.options.file_pick, b.options.file_pick);
  CHECK_EQ(a.options.level1_runs, b.options.level1_runs);
  CHECK_EQ(a.level0.size(), b.level0.size());
  for (size_t i = 0; i < a.level0.size(); ++i) {
    CHECK_EQ(a.level0[i].id, b.level0[i].id);
    CHECK_EQ(a.level0[i].entries, b.level0[i].entries);
  }
  CHECK_EQ(a.db_id, b.db_id);
  CHECK_EQ(a.generation, b.generation);
  CHECK_EQ(a.next_run_id, b.next_run_id);
  CHECK_EQ(a.next_log_number, b.next_log_number);
  CHECK(a.logs == b.logs);
  CHECK(a.obsolete == b.obsolete);
  CHECK_EQ(a.n_est, b.n_est);
  CHECK_EQ(a.levels.size(), b.levels.size());
  for (size_t i = 0; i < a.levels.size(); ++i) {
    CHECK_EQ(a.levels[i].size(), b.levels[i].size());
    for (size_t j = 0; j < a.levels[i].size(); ++j) {
      const RunRecord &x = a.levels[i][j], &y = b.levels[i][j];
      CHECK_EQ(x.id, y.id);
      CHECK_EQ(x.entries, y.entries);
      CHECK_EQ(x.tombstones, y.tombstones);
      CHECK_EQ(x.bits_per_key, y.bits_per_key);
      CHECK_EQ(x.hash_indexed, y.hash_indexed);
      CHECK_EQ(x.min_key, y.min_key);
      CHECK_EQ(x.max_key, y.max_key);
    }
  }
}

TEST(Manifest, RoundTripIsExact) {
  const Manifest m = Sample();
  const std::string text = m.Encode();
  CheckSame(m, Manifest::Decode(text, "x"));
  CHECK_EQ(Manifest::Decode(text, "x").Encode(), text);  // a fixed point

  Manifest plain;  // defaults: one level, no runs
  plain.levels.resize(1);
  CheckSame(plain, Manifest::Decode(plain.Encode(), "x"));
}

// L2SM's options and logs (version 6): exact round trips, the logs in their order; without
// them the file is version 5, as engines before logs wrote it.
TEST(Manifest, LogsAndTheirOptionsRoundTrip) {
  Manifest m = Sample();
  CHECK(m.Encode().rfind("wacky-manifest 5\n", 0) == 0);
  m.options.hash_levels = 0;
  m.options.file_pick = kLeastOverlap;
  m.options.log_ratio = 0.1 + 0.2;  // full precision
  m.options.log_alpha = 0.75;
  m.options.log_batch_cap = 7;
  m.options.hotness = kHotMap;  // memory only: not recorded
  m.options.hotmap_layers = 9;
  m.level_logs = {{{40, 3, 1, 9.5, false, 4, 90}, {41, 5, 0, 9.5, false, 2, 50}}, {}, {}};
  const std::string text = m.Encode();
  CHECK(text.rfind("wacky-manifest 6\n", 0) == 0);
  CHECK(text.find("hotness") == std::string::npos);
  CHECK(text.find("log_ratio 0.30000000000000004\nlog_alpha 0.75\nlog_batch_cap 7\n") !=
        std::string::npos);
  const Manifest back = Manifest::Decode(text, "x");
  CheckSame(m, back);
  CHECK_EQ(back.options.log_ratio, m.options.log_ratio);
  CHECK_EQ(back.options.log_alpha, 0.75);
  CHECK_EQ(back.options.log_batch_cap, 7);
  CHECK_EQ(back.options.hotness, kExactHotness);
  CHECK_EQ(back.options.hotmap_layers, 5);
  CHECK_EQ(back.level_logs.size(), 3u);
  CHECK_EQ(back.level_logs[0].size(), 2u);
  CHECK_EQ(back.level_logs[0][1].id, 41u);
  CHECK_EQ(back.level_logs[0][1].max_key, 50u);
  CHECK(back.level_logs[1].empty() && back.level_logs[2].empty());
  CHECK_EQ(back.Encode(), text);
  // A version-5 file: no logs, the table's defaults.
  const Manifest old = Manifest::Decode(Sample().Encode(), "x");
  CHECK(old.level_logs.empty());
  CHECK_EQ(old.options.log_ratio, 0.0);
  CHECK_EQ(old.options.log_batch_cap, 10);
  // Logs cannot be written into a MANIFEST that does not record L2SM's options.
  Manifest bad = Sample();
  bad.level_logs = {{{40, 3, 1, 9.5, false, 4, 90}}};
  CHECK_THROWS(bad.Encode(), std::logic_error, "cannot list log files");
  // The design's table options are compared on reopen; memory-only ones are not.
  Options a, b;
  b.log_ratio = 0.2;
  CHECK_EQ(CompareDesign(a, b), std::string("log_ratio (stored 0, requested 0.2)"));
  a.log_ratio = 0.2;
  b.log_batch_cap = 3;
  CHECK_EQ(CompareDesign(a, b), std::string("log_batch_cap (stored 10, requested 3)"));
  b.log_batch_cap = 10;
  b.hotness = kHotMap;
  b.hotness_audit = true;
  CHECK_EQ(CompareDesign(a, b), std::string());
}

TEST(Manifest, OlderVersionsAreRefusedByName) {
  for (const char* v : {"1", "2", "3", "4"}) {
    std::string text = "wacky-manifest " + std::string(v) + "\nT 10\n";
    try {
      Manifest::Decode(text, "/db/MANIFEST");
      test::Fail(__FILE__, __LINE__, "old version accepted");
    } catch (const IOError& e) {
      CHECK(std::string(e.what()).find("format version " + std::string(v)) != std::string::npos);
      CHECK(std::string(e.what()).find("reads version 5 only") != std::string::npos);
    }
  }
}

// Every single flipped bit anywhere in the file is caught by the checksum.
TEST(Manifest, ChecksumCatchesEveryBitFlip) {
  const std::string good = Sample().Encode();
  for (size_t i = 0; i < good.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string s = good;
      s[i] = static_cast<char>(s[i] ^ (1 << bit));
      CHECK_THROWS(Manifest::Decode(s, "x"), IOError, "");
    }
}

void CheckCorrupt(const std::string& text, const std::string& why) {
  try {
    Manifest::Decode(text, "/db/MANIFEST");
  } catch (const IOError& e) {
    CHECK_EQ(e.code(), EIO);
    const std::string what = e.what();
    CHECK(what.find("corrupt manifest '/db/MANIFEST'") != std::string::npos);
    if (what.find(why) == std::string::npos)
      test::Fail(__FILE__, __LINE__, "'" + why + "' not in: " + what);
    return;
  }
  test::Fail(__FILE__, __LINE__, "no IOError for corrupt manifest (" + why + ")");
}

// Edits the body and writes a matching checksum line, so the parser itself is tested.
std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  if (at == std::string::npos) test::Fail(__FILE__, __LINE__, "'" + from + "' not in text");
  s.replace(at, from.size(), to);
  const std::string body = s.substr(0, s.rfind("crc32c "));
  char hex[16];
  snprintf(hex, sizeof(hex), "%08x",
           crc32c::Value(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
  return body + "crc32c " + hex + "\n";
}

TEST(Manifest, CorruptInputNamesTheProblem) {
  const std::string good = Sample().Encode();
  CheckCorrupt("", "no checksum line");
  CheckCorrupt(Replace(good, "wacky-manifest 5", "leveldb-manifest 4"),
               "expected 'wacky-manifest'");
  CheckCorrupt(good.substr(0, good.size() - 3) + "0\n", "checksum mismatch");
  CheckCorrupt(Replace(good, "wacky-manifest 5", "wacky-manifest 7"), "unsupported version 7");
  // A version-5 body that claims version 6 lacks the levels' log lists. (Its option lines are
  // read by name, and a line a MANIFEST lacks keeps its default: see engine_partition_test.)
  CheckCorrupt(Replace(good, "wacky-manifest 5", "wacky-manifest 6"), "expected 'log'");
  CheckCorrupt(Replace(good, "wacky-manifest 5", "wacky-manifest 0"), "unsupported version");
  CheckCorrupt(Replace(good, "wacky-manifest 5", "wacky-manifest x"), "unsupported version");
  CheckCorrupt(Replace(good, "\ngranularity ", "\ngranularitx "), "expected 'granularity'");
  CheckCorrupt(Replace(good, "level0 1", "level0 2"), "expected 'run'");
  CheckCorrupt(Replace(good, "\nC ", "\nD "), "expected 'C'");
  CheckCorrupt(Replace(good, "levels 3", "levels 0"), "bad level count");
  CheckCorrupt(Replace(good, "levels 3", "levels 5000"), "bad level count");
  CheckCorrupt(Replace(good, "levels 3", "levels -1"), "bad level count");
  CheckCorrupt(Replace(good, "level 2", "level 99999999999"), "bad run count");
  CheckCorrupt(Replace(good, "level 2", "level 3"), "expected 'run'");
  CheckCorrupt(Replace(good, "run 7 33", "run 7 x33"), "bad run record");
  CheckCorrupt(Replace(good, "end\n", "fin\n"), "expected 'end'");
  CheckCorrupt(Replace(good, "n_est ", "n_est nope "), "expected 'levels'");
  CheckCorrupt(Replace(good, "next_log_number", "next_log_num"), "expected 'next_log_number'");
  CheckCorrupt(Replace(good, "db_id fedcba9876543210", "db_id fedcba987654321"), "bad db_id");
  CheckCorrupt(Replace(good, "logs 2 ", "logs 3 "), "bad logs entry");
  CheckCorrupt(Replace(good, "obsolete 3 3", "obsolete 4 3"), "bad obsolete entry");
  CheckCorrupt(Replace(good, "entry_bytes 40", "entry_bytes forty"), "expected 'block_bytes'");
}

// Every proper prefix of a valid file (a torn write) is rejected, never half-read.
TEST(Manifest, EveryTruncationIsRejected) {
  const std::string good = Sample().Encode();
  CHECK(good.find("end\ncrc32c ") != std::string::npos);
  for (size_t n = 0; n + 1 < good.size(); ++n)
    CHECK_THROWS(Manifest::Decode(good.substr(0, n), "t"), IOError, "corrupt manifest");
}

// Random byte damage either still decodes or throws IOError: no other failure mode.
TEST(Manifest, RandomDamageOnlyThrowsIOError) {
  const std::string good = Sample().Encode();
  std::mt19937_64 rng(2024);
  const std::string alphabet = "0123456789 \n-+.eE xrunlvdT";
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) s[rng() % s.size()] = alphabet[rng() % alphabet.size()];
    try {
      Manifest::Decode(s, "fuzz");
    } catch (const IOError&) {
      ++rejected;
    }
  }
  CHECK_GT(rejected, 0);
}

TEST(Manifest, OutputsRecordRoundTripsAndAnyDamageIsNoProof) {
  const OutputsRecord r{0x0123456789abcdefULL, 17, 4242};
  const std::string text = r.Encode();
  OutputsRecord back;
  CHECK(OutputsRecord::Decode(text, &back));
  CHECK_EQ(back.db_id, r.db_id);
  CHECK_EQ(back.generation, r.generation);
  CHECK_EQ(back.first_run_id, r.first_run_id);
  for (size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = static_cast<char>(bad[i] ^ 0x04);
    OutputsRecord out{1, 2, 3};
    CHECK(!OutputsRecord::Decode(bad, &out));
    CHECK_EQ(out.first_run_id, 3u);  // untouched
  }
  for (size_t n = 0; n < text.size(); ++n) CHECK(!OutputsRecord::Decode(text.substr(0, n), &back));
}

TEST(Manifest, CompareDesignNamesTheFirstDifference) {
  Options a;
  CHECK_EQ(CompareDesign(a, a), std::string());
  Options b = a;
  b.T = 4;
  b.C = 7;
  CHECK_EQ(CompareDesign(a, b), std::string("T (stored 10, requested 4)"));
  b = a;
  b.hash_levels = 1;
  CHECK_EQ(CompareDesign(a, b), std::string("hash_levels (stored 0, requested 1)"));
  b = a;
  b.uniform_filters = true;
  CHECK_EQ(CompareDesign(a, b), std::string("filters (stored optimized, requested uniform)"));
  b = a;
  b.use_sum_fpr = true;
  CHECK(CompareDesign(a, b).find("stored bits_per_entry, requested sum_fpr") !=
        std::string::npos);
  b = a;
  b.bits_per_entry = 5;
  CHECK_EQ(CompareDesign(a, b), std::string("bits_per_entry (stored 10, requested 5)"));
  b.sync = !a.sync;  // not part of the design
  b.bits_per_entry = a.bits_per_entry;
  CHECK_EQ(CompareDesign(a, b), std::string());
  CHECK_EQ(ManifestFileName("/x/db"), std::string("/x/db/MANIFEST"));
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
