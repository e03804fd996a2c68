// engine_partition_test.cc — OHDB's partitioned level 0 (Options::l0_partitions,
// file_compaction.h): the cuts, the options and their reopen rules, random workloads against
// a std::map model across reopens and a crash, the shape the contract promises (every level-0
// run inside one partition, no Level 1 file across a cut), one partition's merge leaving the
// others' files alone, and a MANIFEST written before the option existed.
#include "engine.h"

#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "crc32c.h"
#include "engine_test_util.h"
#include "env.h"
#include "file_compaction.h"
#include "manifest.h"
#include "testharness.h"

namespace wacky {
namespace {

using test::InAChildThatDies;
using test::Model;
using test::Value;

constexpr int kPartitions = 4;

// Tiny files and buffers (test::SmallOptions), P = 4 partitions, a trigger of 3.
Options Partitioned(int trigger = 3) {
  Options o = test::SmallOptions(kFileGranularity, 96);
  o.level1_runs = trigger;
  o.l0_partitions = kPartitions;
  return o;
}

// Keys spread over the whole key space, so that every partition gets some.
uint64_t Spread(uint64_t i) { return i * 0x9E3779B97F4A7C15ull; }

void CheckModel(Engine* e, const Model& model, uint64_t universe) {
  std::vector<uint8_t> out(e->options().value_bytes());
  for (uint64_t i = 0; i < universe; ++i) {
    const uint64_t k = Spread(i);
    const auto it = model.find(k);
    CHECK_EQ(e->Get(k, out.data()), it != model.end());
    if (it != model.end()) CHECK(out == it->second);
  }
  test::CheckScan(e, model, 0, UINT64_MAX, 7);
}

// The contract's shape: each level-0 run inside one partition, at most trigger - 1 of them
// per partition, and no Level 1 file across a cut.
void CheckShape(Engine* e) {
  const std::vector<uint64_t> cuts = PartitionCuts(kPartitions);
  std::vector<int> per_partition(kPartitions, 0);
  for (const auto& l : e->Levels()) {
    for (const auto& r : l.runs) {
      if (r.entries == 0) continue;
      const size_t p = PartitionOf(cuts, r.min_key);
      if (l.level == 0) {
        CHECK_EQ(PartitionOf(cuts, r.max_key), p);
        ++per_partition[p];
      } else if (l.level == 1) {
        CHECK_EQ(PartitionOf(cuts, r.max_key), p);
      }
    }
  }
  for (int n : per_partition) CHECK(n < e->options().level1_runs);
}

TEST(Partitions, CutsAreEquallySpaced) {
  CHECK(PartitionCuts(1).empty());
  const auto two = PartitionCuts(2);
  CHECK_EQ(two.size(), 1u);
  CHECK_EQ(two[0], uint64_t{1} << 63);
  const auto ten = PartitionCuts(10);
  CHECK_EQ(ten.size(), 9u);
  for (size_t j = 1; j < ten.size(); ++j) CHECK(ten[j] > ten[j - 1]);
  CHECK_EQ(PartitionOf(ten, 0), 0u);
  CHECK_EQ(PartitionOf(ten, ten[0] - 1), 0u);
  CHECK_EQ(PartitionOf(ten, ten[0]), 1u);
  CHECK_EQ(PartitionOf(ten, UINT64_MAX), 9u);
}

TEST(Partitions, OptionsAreCheckedAndStored) {
  Options o = Partitioned();
  o.l0_partitions = 0;
  bool threw = false;
  try {
    o.Validate();
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("l0_partitions") != std::string::npos;
  }
  CHECK(threw);
  o = Partitioned();
  o.granularity = kLevelGranularity;
  o.file_bytes = 0;
  threw = false;
  try {
    o.Validate();
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("granularity='file'") != std::string::npos;
  }
  CHECK(threw);

  test::TempDir tmp;
  const std::string dir = tmp.path() + "/db";
  {
    Engine e(dir, Partitioned());
    test::Load(&e, nullptr, 0, 50, 1);
  }
  Options other = Partitioned();
  other.l0_partitions = 2;
  threw = false;
  try {
    Engine e(dir, other);
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("l0_partitions (stored 4, requested 2)") !=
            std::string::npos;
  }
  CHECK(threw);
  Engine again(dir, Partitioned());
  CHECK_EQ(again.options().l0_partitions, kPartitions);
}

TEST(Partitions, RandomWorkloadsMatchAModelAcrossReopen) {
  for (int trigger : {1, 3}) {
    test::TempDir tmp;
    const std::string dir = tmp.path() + "/db";
    Model model;
    std::mt19937_64 rng(7 + trigger);
    const uint64_t universe = 600;
    for (int round = 0; round < 4; ++round) {
      Engine e(dir, Partitioned(trigger));
      for (int i = 0; i < 1500; ++i)
        test::Step(&e, &model, Spread(rng() % universe), round * 10000 + i, rng() % 100, 60,
                   75);
      CheckShape(&e);
      CheckModel(&e, model, universe);
      CHECK(e.Stats().merges > 0);
    }
    Engine e(dir, Partitioned(trigger));
    CheckModel(&e, model, universe);
  }
}

TEST(Partitions, AMergeRewritesOnlyItsPartitionsFiles) {
  // Writes into partition 0 only: once the other partitions hold files in Level 1, merges of
  // partition 0 must leave those files as they are.
  test::TempDir tmp;
  const std::string dir = tmp.path() + "/db";
  Options o = Partitioned(2);
  Engine e(dir, o);
  Model model;
  for (uint64_t i = 0; i < 400; ++i) test::Load(&e, &model, Spread(i), Spread(i) + 1, 1);
  e.Flush();
  const std::vector<uint64_t> cuts = PartitionCuts(kPartitions);
  auto others = [&]() {
    std::vector<uint64_t> ids;
    for (const auto& l : e.Levels())
      for (const auto& r : l.runs)
        if (l.level >= 1 && PartitionOf(cuts, r.min_key) != 0) ids.push_back(r.id);
    return ids;
  };
  // Partition 0 alone takes these writes; small enough not to overflow Level 1 (no drain).
  const std::vector<uint64_t> before = others();
  CHECK(!before.empty());
  const uint64_t merges = e.Stats().merges;
  for (uint64_t k = 1; k <= 8; ++k) test::Load(&e, &model, k, k + 1, 2);
  e.Flush();
  for (uint64_t k = 1; k <= 8; ++k) test::Load(&e, &model, k, k + 1, 3);
  e.Flush();
  CHECK(e.Stats().merges > merges);
  CHECK(others() == before);
  CheckModel(&e, model, 400);
}

TEST(Partitions, ACrashLosesNoAcknowledgedWrite) {
  test::TempDir tmp;
  const std::string dir = tmp.path() + "/db";
  Model model;
  for (uint64_t i = 0; i < 300; ++i)
    model[Spread(i)] = Value(Partitioned(), Spread(i), 5);
  InAChildThatDies([&] {
    Engine* e = new Engine(dir, Partitioned());  // leaked: a crash does not close it
    for (uint64_t i = 0; i < 300; ++i) test::Load(e, nullptr, Spread(i), Spread(i) + 1, 5);
  });
  Engine e(dir, Partitioned());
  CheckModel(&e, model, 300);
  CheckShape(&e);
}

TEST(Partitions, AManifestWrittenBeforeTheOptionReadsAsOnePartition) {
  // A version-6 MANIFEST (L2SM's option lines) without the l0_partitions line, as an engine
  // built before the option wrote it.
  Manifest m;
  m.options = test::SmallOptions(kFileGranularity, 96);
  m.options.log_ratio = 0.2;
  m.levels.resize(1);
  m.level_logs.resize(1);
  std::string text = m.Encode();
  text = text.substr(0, text.rfind("crc32c "));
  const std::string line = "l0_partitions 1\n";
  const size_t at = text.find(line);
  CHECK(at != std::string::npos);
  text.erase(at, line.size());
  char crc[16];
  snprintf(crc, sizeof(crc), "%08x",
           crc32c::Value(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  text += std::string("crc32c ") + crc + "\n";
  const Manifest back = Manifest::Decode(text, "MANIFEST");
  CHECK_EQ(back.options.l0_partitions, 1);
  CHECK(back.options.log_ratio == 0.2);
  // And an unknown option line is refused, naming it.
  std::string bad = text.substr(0, text.rfind("crc32c "));
  bad.insert(bad.find("db_id"), "no_such_option 3\n");
  snprintf(crc, sizeof(crc), "%08x",
           crc32c::Value(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()));
  bad += std::string("crc32c ") + crc + "\n";
  bool threw = false;
  try {
    Manifest::Decode(bad, "MANIFEST");
  } catch (const std::exception& e) {
    threw = std::string(e.what()).find("no_such_option") != std::string::npos;
  }
  CHECK(threw);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
