// merge_policy_test.cc — where a flush goes (PlanMerge) and the shape (ApplyShape,
// AllocateFprs), on hand-built levels.
#include "merge_policy.h"

#include <cmath>
#include <numeric>
#include <vector>

#include "run_writer.h"
#include "structure.h"
#include "testharness.h"

namespace wacky {
namespace {

// Real (tiny) run files, since levels hold runs; only their entry counts matter here.
class Runs {
 public:
  RunPtr Make(uint64_t entries) {
    const uint64_t id = next_id_++;
    RunWriter w(id, RunFileName(dir_.path(), id), RunLayout{16, 64}, &io_, &io_, nullptr, false,
                false);
    for (uint64_t k = 0; k < entries; ++k) w.Add(k, nullptr, false);
    std::vector<uint64_t> hashes;
    return w.Finish(&hashes);
  }

 private:
  test::TempDir dir_;
  IOCounter io_;
  uint64_t next_id_ = 1;
};

Level MakeLevel(double capacity, double max_runs, std::vector<RunPtr> runs) {
  Level l;
  l.capacity = capacity;
  l.max_runs = max_runs;
  l.held_runs = max_runs;
  l.runs = std::move(runs);
  return l;
}

TEST(PlanMerge, FirstFlushGoesStraightToLevelL) {
  Options o;
  std::vector<Level> levels;
  ApplyShape(o, 0.0, &levels);
  CHECK_EQ(levels.size(), 1u);
  const MergePlan p = PlanMerge(levels, 100);
  CHECK_EQ(p.target, 0u);
  CHECK(p.inputs.empty());
  CHECK(p.major);
  CHECK(p.drop_tombstones);  // nothing older exists anywhere
}

TEST(PlanMerge, MergesIntoTheActiveRunUntilItHoldsItsShare) {
  Runs runs;
  const RunPtr small = runs.Make(10);
  std::vector<Level> levels = {MakeLevel(100, 1, {small})};
  MergePlan p = PlanMerge(levels, 5);
  CHECK_EQ(p.inputs.size(), 1u);
  CHECK(p.inputs[0] == small);
  CHECK(p.major && p.drop_tombstones);

  // Tiered Level L (a_L = 3): a full active run starts a new run; the older runs survive,
  // so tombstones must be kept.
  const RunPtr full = runs.Make(40);  // >= 100 / 3
  levels = {MakeLevel(100, 3, {full})};
  p = PlanMerge(levels, 5);
  CHECK(p.inputs.empty());
  CHECK(p.major);
  CHECK(!p.drop_tombstones);

  // With a_L runs already there and the active one full: everything merges (major
  // compaction), newest run first.
  const RunPtr a = runs.Make(34), b = runs.Make(34), c = runs.Make(34);
  levels = {MakeLevel(100, 3, {a, b, c})};
  p = PlanMerge(levels, 5);
  CHECK_EQ(p.inputs.size(), 3u);
  CHECK(p.inputs[0] == c && p.inputs[1] == b && p.inputs[2] == a);
  CHECK(p.drop_tombstones);
}

TEST(PlanMerge, OverflowingLevelsAreSweptDownPreemptively) {
  Runs runs;
  const RunPtr l1 = runs.Make(8), l2 = runs.Make(50), l3 = runs.Make(500);
  // 8 + 5 overflows Level 1 (capacity 10); Level 2 takes the 13 entries.
  std::vector<Level> levels = {MakeLevel(10, 1, {l1}), MakeLevel(100, 1, {l2}),
                               MakeLevel(1000, 1, {l3})};
  MergePlan p = PlanMerge(levels, 5);
  CHECK_EQ(p.target, 1u);
  CHECK(!p.major && !p.drop_tombstones);
  CHECK_EQ(p.inputs.size(), 2u);
  CHECK(p.inputs[0] == l1 && p.inputs[1] == l2);

  // A fuller Level 2 overflows too: the merge goes straight to Level L.
  const RunPtr l2_full = runs.Make(95);
  levels[1] = MakeLevel(100, 1, {l2_full});
  p = PlanMerge(levels, 5);
  CHECK_EQ(p.target, 2u);
  CHECK(p.major && p.drop_tombstones);
  CHECK_EQ(p.inputs.size(), 3u);
  CHECK(p.inputs[0] == l1 && p.inputs[1] == l2_full && p.inputs[2] == l3);

  // Incoming data that fits leaves Level 1's active run as the only input.
  levels[0] = MakeLevel(10, 1, {runs.Make(2)});
  p = PlanMerge(levels, 5);
  CHECK_EQ(p.target, 0u);
  CHECK_EQ(p.inputs.size(), 1u);
  CHECK(!p.major);
}

TEST(PlanMerge, RunsOfASweptLevelComeNewestFirst) {
  Runs runs;
  const RunPtr old_run = runs.Make(5), new_run = runs.Make(5);
  std::vector<Level> levels = {MakeLevel(10, 2, {old_run, new_run}),
                               MakeLevel(1000, 1, {runs.Make(100)})};
  const MergePlan p = PlanMerge(levels, 1);
  CHECK_EQ(p.target, 1u);
  CHECK_EQ(p.inputs.size(), 3u);
  CHECK(p.inputs[0] == new_run && p.inputs[1] == old_run);
}

// Eq 10 for X = 1, computed here independently of structure.h.
int LevelsEq10(double T, double C, double n_buffers) {
  return static_cast<int>(std::ceil(1.0 + std::log(n_buffers / (C + 1.0) * (T - 1.0) / T) /
                                              std::log(T)));
}

TEST(ApplyShape, LevelsCapacitiesAndHashFlags) {
  Options o;
  o.T = 10;
  o.C = 9;
  o.hash_levels = 1;
  const double n_buffers = 1000.0;
  const double n_est = n_buffers * static_cast<double>(o.buffer_entries());
  std::vector<Level> levels;
  ApplyShape(o, n_est, &levels);
  CHECK_EQ(levels.size(), static_cast<size_t>(LevelsEq10(o.T, o.C, n_buffers)));
  CHECK_EQ(levels.size(), 3u);
  double total = 0.0;
  for (const Level& l : levels) {
    total += l.capacity;
    CHECK_EQ(l.max_runs, 1.0);  // leveling
  }
  // Leveling's levels are a geometric series (Eq 9): together they hold all of N but the
  // last term, T^-(L-1) N / (C+1), which is the buffer's share.
  const double buffer_share = std::pow(o.T, -2.0) / (o.C + 1);
  CHECK_LT(std::fabs(total - n_est * (1 - buffer_share)), 1e-9 * n_est);
  CHECK_LT(std::fabs(levels.back().capacity - n_est * o.C / (o.C + 1)), 1e-9 * n_est);
  CHECK_LT(std::fabs(levels.back().ratio - o.C * o.T / (o.T - 1)), 1e-12);
  CHECK_LT(std::fabs(levels[1].ratio - o.T), 1e-12);
  CHECK(levels[0].hash_table);
  CHECK(!levels[1].hash_table && !levels[2].hash_table);

  // Level L never gets a hash table, even when hash_levels covers every level.
  o.hash_levels = 64;
  ApplyShape(o, n_est, &levels);
  CHECK(levels[0].hash_table && levels[1].hash_table && !levels[2].hash_table);

  // Tiering above Level L: a_i = (r_i - 1)^K = T - 1 runs.
  o.K = 1;
  ApplyShape(o, n_est, &levels);
  CHECK_EQ(levels[0].max_runs, o.T - 1);
  CHECK_EQ(levels.back().max_runs, 1.0);
}

TEST(ApplyShape, LevelsAreAnchoredAtLevelL) {
  Runs runs;
  Options o;
  o.T = 4;
  o.C = 1;
  const double F = static_cast<double>(o.buffer_entries());
  std::vector<Level> levels;
  ApplyShape(o, 0.0, &levels);
  const RunPtr bottom = runs.Make(3);
  levels.back().runs.push_back(bottom);
  ApplyShape(o, 1000 * F, &levels);  // L grows: new levels appear above
  const size_t big = levels.size();
  CHECK_GT(big, 2u);
  CHECK(levels.back().runs.size() == 1 && levels.back().runs[0] == bottom);
  for (size_t i = 0; i + 1 < big; ++i) CHECK(levels[i].runs.empty());

  const RunPtr upper = runs.Make(3);
  levels[1].runs.push_back(upper);  // Level 1 is empty, Level 2 is not
  ApplyShape(o, 0.0, &levels);       // L shrinks: only the empty top level goes
  CHECK_EQ(levels.size(), big - 1);
  CHECK(levels[0].runs.size() == 1 && levels[0].runs[0] == upper);
  CHECK(levels.back().runs[0] == bottom);
}

// L2SM: every level but Level L gets its log capacity (structure.h LogCapacities); a top
// level whose tree is empty but whose log is not is never removed; no logs, no capacities.
TEST(ApplyShape, LogCapacitiesAndLevelsWithLogs) {
  Runs runs;
  Options o;
  o.T = 4;
  o.C = 1;
  const double F = static_cast<double>(o.buffer_entries());
  std::vector<Level> levels;
  ApplyShape(o, 1000 * F, &levels);
  for (const Level& l : levels) CHECK_EQ(l.log_capacity, 0.0);
  o.granularity = kFileGranularity;
  o.log_ratio = 0.1;
  ApplyShape(o, 1000 * F, &levels);
  CHECK_GT(levels.size(), 2u);
  std::vector<double> capacities;
  for (const Level& l : levels) capacities.push_back(l.capacity);
  const std::vector<double> logs = structure::LogCapacities(capacities, 0.1);
  for (size_t i = 0; i < levels.size(); ++i) CHECK_EQ(levels[i].log_capacity, logs[i]);
  CHECK_GT(levels[0].log_capacity, 0.0);
  CHECK_EQ(levels.back().log_capacity, 0.0);

  const size_t big = levels.size();
  levels[0].log.push_back(runs.Make(3));  // Level 1: no tree, a log
  levels.back().runs.push_back(runs.Make(3));
  ApplyShape(o, 0.0, &levels);  // L would shrink to 1: Level 1 stays for its log
  CHECK_EQ(levels.size(), big);
  CHECK_EQ(levels[0].log.size(), 1u);
}

// Shapes the engine cannot build are refused naming the knob and the limit, as soon as
// the data grows into them: too many runs in a level, too many levels, ratios that
// overflow a double.
TEST(ApplyShape, UnphysicalShapesAreRefusedByName) {
  Options o;
  o.T = 2;
  o.C = 1;
  o.X = 64;
  o.K = 1;
  o.Z = 1;
  const double F = static_cast<double>(o.buffer_entries());
  std::vector<Level> levels;
  ApplyShape(o, 6 * F, &levels);  // two levels: fine
  CHECK_EQ(levels.size(), 2u);
  CHECK_THROWS(ApplyShape(o, 100 * F, &levels), std::invalid_argument,
               "runs in Level 1 once the data reaches");  // (2^64 - 1) runs
  CHECK_THROWS(ApplyShape(o, 100 * F, &levels), std::invalid_argument, "lower T, X and K");

  o = Options();
  o.T = 10;
  o.X = 400;  // T^X = 10^400: no double holds it
  levels.clear();
  CHECK_THROWS(ApplyShape(o, 1e6 * F, &levels), std::invalid_argument,
               "size ratio of T^(X^1) at Level 1");
  CHECK_THROWS(ApplyShape(o, 1e6 * F, &levels), std::invalid_argument, "lower X or T");

  o = Options();
  o.C = 1e300;  // C T/(T-1) is fine; C^Z with Z = 1 is not
  o.Z = 1;
  levels.clear();
  CHECK_THROWS(ApplyShape(o, 0.0, &levels), std::invalid_argument,
               "needs 1e+300 runs in Level 1");
  CHECK_THROWS(ApplyShape(o, 0.0, &levels), std::invalid_argument, "lower C and Z");
  o.T = 1e300;  // now C T/(T-1) overflows
  CHECK_THROWS(ApplyShape(o, 0.0, &levels), std::invalid_argument,
               "size ratio of C T/(T-1) at Level 1 once the data reaches 0 entries");

  o = Options();
  o.T = 2;
  o.C = 1;
  levels.clear();
  CHECK_THROWS(ApplyShape(o, std::ldexp(1.0, 80) * F, &levels), std::invalid_argument,
               "at most 64 are allowed");
}

TEST(AllocateFprs, BudgetsAreSpentExactly) {
  Options o;
  o.T = 5;
  o.C = 3;
  o.K = 1;
  o.Z = 1;
  std::vector<Level> levels;
  const double n_est = 5000.0 * static_cast<double>(o.buffer_entries());

  // Lagrangian, FPR sum: sum_i a_i p_i = sum_fpr (no level is capped at 1 here).
  o.use_sum_fpr = true;
  o.sum_fpr = 0.5;
  ApplyShape(o, n_est, &levels);
  CHECK_GT(levels.size(), 2u);
  double sum = 0.0;
  for (const Level& l : levels) {
    CHECK_LT(l.fpr, 1.0);
    sum += l.held_runs * l.fpr;  // the runs the level can hold (a_i capped at its buffers)
  }
  CHECK_LT(std::fabs(sum - 0.5), 1e-9);
  // The optimum gives smaller levels lower FPRs (p_i proportional to N_i / a_i).
  for (size_t i = 0; i + 1 < levels.size(); ++i) CHECK_LT(levels[i].fpr, levels[i + 1].fpr);

  // Lagrangian, memory: sum_i N_i bits(p_i) = bits_per_entry sum_i N_i.
  o.use_sum_fpr = false;
  o.bits_per_entry = 6;
  ApplyShape(o, n_est, &levels);
  double bits = 0.0, entries = 0.0;
  for (const Level& l : levels) {
    bits += l.capacity * structure::BloomBitsPerKey(l.fpr);
    entries += l.capacity;
  }
  CHECK_LT(std::fabs(bits / entries - 6.0), 1e-9);

  // Uniform: the same FPR everywhere, e^(-M ln(2)^2) or sum_fpr / sum_i a_i.
  o.uniform_filters = true;
  ApplyShape(o, n_est, &levels);
  const double ln2 = std::log(2.0);
  for (const Level& l : levels) CHECK_LT(std::fabs(l.fpr - std::exp(-6 * ln2 * ln2)), 1e-15);
  o.use_sum_fpr = true;
  ApplyShape(o, n_est, &levels);
  double total_runs = 0.0;
  for (const Level& l : levels) total_runs += l.held_runs;
  for (const Level& l : levels) CHECK_LT(std::fabs(l.fpr - 0.5 / total_runs), 1e-15);
}

}  // namespace
}  // namespace wacky

int main() { return wacky::test::RunAllTests(); }
