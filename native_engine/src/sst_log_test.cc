// sst_log_test.cc — L2SM's log sizes (structure.h LogCapacities) and the plans of its pseudo
// and aggregated compactions (sst_log.h) on hand-built levels, the paper's Fig. 6 among them.
// (The compactions carried out are checked in file_compaction_test.cc and engine_l2sm_test.cc.)
#include "sst_log.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_writer.h"
#include "structure.h"
#include "testharness.h"

namespace wacky {
namespace {

// A run file holding `keys` (sorted, distinct), with the given hotness.
RunPtr MakeRun(const std::string& dir, uint64_t id, const std::vector<uint64_t>& keys,
               double hotness = 0.0) {
  IOCounter io, sums;
  RunWriter w(id, RunFileName(dir, id), RunLayout{16, 48}, &io, &sums, nullptr, false, false);
  for (uint64_t k : keys) w.Add(k, nullptr, false);
  std::vector<uint64_t> hashes;
  RunPtr r = w.Finish(&hashes);
  r->SetHotness(hotness, hotness);
  return r;
}

// A run file holding the keys lo..hi.
RunPtr Range(const std::string& dir, uint64_t id, uint64_t lo, uint64_t hi, double hot = 0.0) {
  std::vector<uint64_t> keys;
  for (uint64_t k = lo; k <= hi; ++k) keys.push_back(k);
  return MakeRun(dir, id, keys, hot);
}

double LogSum(const std::vector<double>& n, double lambda) {
  double s = 0.0;
  for (size_t i = 0; i + 1 < n.size(); ++i) s += std::pow(lambda, static_cast<double>(i + 1)) * n[i];
  return s;
}

TEST(LogCapacities, SolveTheInverseProportionalEquation) {
  const std::vector<std::vector<double>> shapes = {
      {10, 100, 1000}, {3, 9, 27, 81, 243, 1458}, {1e6, 1e9}, {0, 50, 500}, {7, 7, 7, 7}};
  for (const auto& n : shapes)
    for (double omega : {0.01, 0.1, 0.5, 1.0}) {
      const std::vector<double> logs = structure::LogCapacities(n, omega);
      CHECK_EQ(logs.size(), n.size());
      CHECK_EQ(logs.back(), 0.0);  // never a log on Level L
      double total = 0.0, sum = 0.0;
      for (double v : n) total += v;
      for (double v : logs) sum += v;
      CHECK(std::fabs(sum - omega * total) <= 1e-9 * omega * total);
      // The logs are lambda^i N_i for one lambda.
      size_t first = 0;
      while (n[first] == 0) ++first;
      const double lambda =
          std::pow(logs[first] / n[first], 1.0 / static_cast<double>(first + 1));
      CHECK(std::fabs(LogSum(n, lambda) - omega * total) <= 1e-9 * omega * total);
      for (size_t i = 0; i + 1 < n.size(); ++i)
        CHECK(std::fabs(logs[i] - std::pow(lambda, static_cast<double>(i + 1)) * n[i]) <=
              1e-9 * std::max(1.0, logs[i]));
    }
  // A log smaller than the levels above Level L (here 5% of a tree growing tenfold, whose
  // upper levels hold 10%) has lambda < 1: the log's share of its level falls with depth.
  const std::vector<double> n = {10, 100, 1000, 10000};
  const auto logs = structure::LogCapacities(n, 0.05);
  CHECK_GT(logs[0] / n[0], logs[1] / n[1]);
  CHECK_GT(logs[1] / n[1], logs[2] / n[2]);
}

TEST(LogCapacities, NoLogsWithoutOmegaOrLevels) {
  CHECK(structure::LogCapacities({10, 100}, 0.0) == (std::vector<double>{0, 0}));
  CHECK(structure::LogCapacities({1000}, 0.5) == (std::vector<double>{0}));
  CHECK(structure::LogCapacities({}, 0.5).empty());
  CHECK(structure::LogCapacities({0, 0, 100}, 0.5) == (std::vector<double>{0, 0, 0}));
  CHECK(structure::LogCapacities({0, 0}, 0.5) == (std::vector<double>{0, 0}));
  CHECK_THROWS(structure::LogCapacities({1, 2}, 1.5), std::invalid_argument, "must be in [0, 1]");
  CHECK_THROWS(structure::LogCapacities({1, 2}, -0.1), std::invalid_argument, "omega");
  CHECK_THROWS(structure::LogCapacities({1, -2}, 0.1), std::invalid_argument, ">= 0");
}

TEST(Weights, SparsenessIsTheRangeBitsLessTheLogOfTheEntries) {
  test::TempDir dir;
  const std::string d = dir.path();
  CHECK_EQ(Sparseness(*Range(d, 1, 0, 7)), 2.0 - 3.0);        // msb(0^7) = 2, log2(8) = 3
  CHECK_EQ(Sparseness(*MakeRun(d, 2, {5})), 0.0);             // equal keys: msb 0
  CHECK_EQ(Sparseness(*MakeRun(d, 3, {0, 1ull << 40})), 39.0);  // msb 40, log2(2) = 1
  CHECK_EQ(Sparseness(*MakeRun(d, 4, {0, UINT64_MAX})), 62.0);
}

TEST(Weights, EachTermIsScaledByItsSpread) {
  test::TempDir dir;
  const std::string d = dir.path();
  // Same sparseness (8 keys over 0..7 style ranges): only hotness speaks.
  std::vector<RunPtr> files = {Range(d, 1, 0, 7, 2), Range(d, 2, 16, 23, 6),
                               Range(d, 3, 32, 39, 4)};
  auto w = CombinedWeights(files, 0.5, false);
  CHECK_EQ(w[0], 0.5 * 2 / 4);
  CHECK_EQ(w[1], 0.5 * 6 / 4);
  CHECK_EQ(w[2], 0.5 * 4 / 4);
  // No spread at all: every weight 0.
  files = {Range(d, 4, 0, 7, 3), Range(d, 5, 16, 23, 3)};
  w = CombinedWeights(files, 0.5, false);
  CHECK_EQ(w[0], 0.0);
  CHECK_EQ(w[1], 0.0);
  // alpha = 0: only sparseness; a sparse file (2 keys over 2^20) outweighs a dense one.
  files = {Range(d, 6, 0, 7, 100), MakeRun(d, 7, {8, 1u << 20}, 0)};
  w = CombinedWeights(files, 0.0, false);
  CHECK_GT(w[1], w[0]);
  CHECK(CombinedWeights({}, 0.5, false).empty());
}

// PC moves what the tree's picker chooses, each time from the files not moved yet, with the
// round-robin pointer following the moves; weights play no part (file 1 is the hottest).
TEST(PlanPseudo, MovesThePickersFilesUntilTheTreeFits) {
  test::TempDir dir;
  const std::string d = dir.path();
  Level level;
  level.runs = {Range(d, 1, 0, 7, 1), Range(d, 2, 16, 23, 9), Range(d, 3, 32, 39, 5),
                Range(d, 4, 48, 55, 9)};
  level.capacity = 17;  // two files must go (32 > 17, 24 > 17, 16 <= 17)
  level.pick_after = 20;
  std::vector<uint64_t> seen_after;
  // Round robin: the first file whose smallest key is past the pointer, wrapping.
  auto round_robin = [&](const Level& rest) {
    seen_after.push_back(rest.pick_after.value_or(0));
    for (size_t f = 0; f < rest.runs.size(); ++f)
      if (rest.runs[f]->min_key() > rest.pick_after.value_or(0)) return f;
    return size_t{0};
  };
  PseudoPlan plan = PlanPseudo(level, round_robin);
  CHECK(plan.moves == (std::vector<size_t>{2, 3}));  // 32-39, then 48-55
  CHECK(seen_after == (std::vector<uint64_t>{20, 39}));
  CHECK(plan.pick_after == std::optional<uint64_t>(55));
  level.capacity = 32;
  CHECK(PlanPseudo(level, round_robin).moves.empty());
  level.capacity = 0;
  CHECK(PlanPseudo(level, round_robin).moves == (std::vector<size_t>{2, 3, 0, 1}));
  // The last file left, every time: indices into the original level.
  CHECK(PlanPseudo(level, [](const Level& rest) { return rest.runs.size() - 1; }).moves ==
        (std::vector<size_t>{3, 2, 1, 0}));
  CHECK_THROWS(PlanPseudo(level, [](const Level& rest) { return rest.runs.size(); }),
               std::logic_error, "the picker chose no file");
}

// The paper's Fig. 6: six log files (named by their age, smaller is older); seed 8 ("10-20")
// is the coldest and densest; 6, 14 and 29 overlap it. CS takes 6, 8 and 14; 29 would push
// |IS|/|CS| past the cap and is set aside.
TEST(PlanAggregated, PapersFigureSix) {
  test::TempDir dir;
  const std::string d = dir.path();
  Level level, below;
  // Hotness sets the weights (alpha = 1): 8 is the coldest.
  level.log = {Range(d, 2, 100, 150, 50), Range(d, 6, 5, 12, 40), Range(d, 8, 10, 20, 1),
               Range(d, 14, 15, 30, 30), Range(d, 21, 200, 300, 20), Range(d, 29, 18, 60, 10)};
  below.runs = {Range(d, 100, 0, 9),   Range(d, 101, 11, 14), Range(d, 102, 16, 25),
                Range(d, 103, 26, 29), Range(d, 104, 31, 35), Range(d, 105, 36, 40),
                Range(d, 106, 41, 45), Range(d, 107, 46, 50), Range(d, 108, 51, 55),
                Range(d, 109, 56, 60), Range(d, 110, 400, 500)};
  // 6 involves 2 files (cap 2 x 1), +8 one (3 <= 4), +14 one (4 <= 6), +29 six (10 > 8).
  const AggregatedPlan plan = PlanAggregated(level, below, 1.0, 2);
  CHECK(plan.cs == (std::vector<size_t>{1, 2, 3}));  // 6, 8, 14: oldest first
  CHECK(plan.is == (std::vector<size_t>{0, 1, 2, 3}));
  CheckAggregatedPlan(level.log, plan.cs);
  // A looser cap takes 29 too; 2 and 21 never overlap the seed's closure.
  const AggregatedPlan all = PlanAggregated(level, below, 1.0, 10);
  CHECK(all.cs == (std::vector<size_t>{1, 2, 3, 5}));
  CHECK_EQ(all.is.size(), 10u);
  CHECK_EQ(all.audited, 0u);
  // Audited: exact counts that agree on the seed, then exact counts that make 21 the coldest
  // (the plan still follows the estimate: seed 8).
  AggregatedPlan audited = PlanAggregated(level, below, 1.0, 2, true);
  CHECK_EQ(audited.audited, 1u);
  CHECK_EQ(audited.agreed, 1u);
  level.log[4]->SetHotness(20, 0);
  audited = PlanAggregated(level, below, 1.0, 2, true);
  CHECK(audited.cs == plan.cs);
  CHECK_EQ(audited.audited, 1u);
  CHECK_EQ(audited.agreed, 0u);
}

TEST(PlanAggregated, TheFirstFileAlwaysGoesIn) {
  test::TempDir dir;
  const std::string d = dir.path();
  Level level, below;
  level.log = {Range(d, 1, 0, 100)};
  for (uint64_t b = 0; b < 20; ++b) below.runs.push_back(Range(d, 10 + b, b * 5, b * 5 + 3));
  const AggregatedPlan plan = PlanAggregated(level, below, 0.5, 1);
  CHECK(plan.cs == (std::vector<size_t>{0}));
  CHECK_EQ(plan.is.size(), 20u);
  // No involved set at all: a ratio of 0 never stops the batch.
  Level empty;
  level.log.push_back(Range(d, 2, 50, 150));
  CHECK_EQ(PlanAggregated(level, empty, 0.5, 1).cs.size(), 2u);
  CHECK_THROWS(PlanAggregated(empty, below, 0.5, 1), std::logic_error, "empty");
}

TEST(PlanAggregated, TiesGoToTheSmallestKeyThenTheOldest) {
  test::TempDir dir;
  const std::string d = dir.path();
  Level level, below;
  // 40..47 and 200..207 weigh the same, and the least: the seed is the smaller key, 40..47.
  level.log = {Range(d, 1, 100, 107), Range(d, 2, 40, 47), Range(d, 3, 200, 207)};
  CHECK(PlanAggregated(level, below, 0.5, 10).cs == (std::vector<size_t>{1}));
  level.log.push_back(Range(d, 4, 40, 47));  // same key range, newer: the oldest is the seed,
  CHECK(PlanAggregated(level, below, 0.5, 10).cs == (std::vector<size_t>{1, 3}));  // +overlap
}

TEST(CheckAggregatedPlan, RefusesToLeaveAnOlderOverlappingFileBehind) {
  test::TempDir dir;
  const std::string d = dir.path();
  const std::vector<RunPtr> log = {Range(d, 1, 0, 10), Range(d, 2, 5, 15), Range(d, 3, 50, 60)};
  CheckAggregatedPlan(log, {0});
  CheckAggregatedPlan(log, {0, 1});
  CheckAggregatedPlan(log, {2});  // overlaps nothing older
  CHECK_THROWS(CheckAggregatedPlan(log, {1}), std::logic_error, "would leave log file 1");
  CHECK_THROWS(CheckAggregatedPlan(log, {7}), std::logic_error, "no log file 7");
}

// Random logs and trees: every plan is an oldest-first prefix of the seed's closure, passes
// the check, respects the cap after its first file, and involves exactly the overlapping
// tree files.
TEST(PlanAggregated, RandomPlansKeepTheLogOrder) {
  test::TempDir dir;
  const std::string d = dir.path();
  std::mt19937_64 rng(99);
  uint64_t id = 1;
  for (int round = 0; round < 100; ++round) {
    Level level, below;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int f = 0; f < n; ++f) {
      const uint64_t lo = rng() % 1000, len = 1 + rng() % 120;
      level.log.push_back(Range(d, id++, lo, lo + len, static_cast<double>(rng() % 50)));
    }
    for (uint64_t lo = rng() % 30; lo < 1200; lo += 10 + rng() % 40)
      below.runs.push_back(Range(d, id++, lo, lo + 5 + rng() % 5));
    const int cap = 1 + static_cast<int>(rng() % 4);
    const AggregatedPlan plan = PlanAggregated(level, below, 0.5, cap);
    CHECK(!plan.cs.empty());
    CHECK(std::is_sorted(plan.cs.begin(), plan.cs.end()));
    CheckAggregatedPlan(level.log, plan.cs);
    size_t involved = 0;
    for (size_t b = 0; b < below.runs.size(); ++b) {
      bool meets = false;
      for (size_t c : plan.cs)
        meets = meets || (below.runs[b]->min_key() <= level.log[c]->max_key() &&
                          level.log[c]->min_key() <= below.runs[b]->max_key());
      const bool listed = std::count(plan.is.begin(), plan.is.end(), b) > 0;
      CHECK_EQ(meets, listed);
      involved += meets ? 1 : 0;
    }
    if (plan.cs.size() > 1) CHECK(involved <= static_cast<size_t>(cap) * plan.cs.size());
  }
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
