// merge_policy.cc — see merge_policy.h.
#include "merge_policy.h"

#include <stdio.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine_limits.h"
#include "structure.h"

namespace wacky {

namespace {
std::string Num(double v) {  // 6 significant digits: 1.84467e+19, not 20 digits
  char buf[32];
  snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}
}  // namespace

MergePlan PlanMerge(const std::vector<Level>& levels, uint64_t incoming) {
  MergePlan plan;
  const size_t L = levels.size();
  uint64_t size = incoming;
  size_t j = 0;
  while (j + 1 < L && levels[j].WouldOverflow(size)) {
    const auto& runs = levels[j].runs;
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      plan.inputs.push_back(*it);
      size += (*it)->entries();
    }
    ++j;
  }
  plan.target = j;
  const Level& t = levels[j];
  plan.major = (j + 1 == L);
  if (!t.ActiveFull()) {
    plan.inputs.push_back(t.runs.back());
  } else if (plan.major && static_cast<double>(t.runs.size()) >= t.max_runs) {
    for (auto it = t.runs.rbegin(); it != t.runs.rend(); ++it) plan.inputs.push_back(*it);
  }
  if (plan.major) {
    // Drop tombstones iff no run of Level L survives next to the output.
    size_t consumed = 0;
    for (const auto& r : t.runs)
      for (const auto& in : plan.inputs)
        if (in == r) ++consumed;
    plan.drop_tombstones = (consumed == t.runs.size());
  }
  return plan;
}

std::vector<double> AllocateFprs(const Options& o, const std::vector<Level>& levels) {
  std::vector<double> n, a;
  for (const auto& l : levels) {
    // Shares of N (the scale cancels in the allocation); a_i as the engine builds them.
    n.push_back(l.capacity > 0 ? l.capacity : 0.0);
    a.push_back(l.held_runs);
  }
  bool any = false;
  for (double v : n) any = any || v > 0;
  if (!any) {
    // Empty tree (bootstrap): allocate over the shape's fractions instead.
    n.clear();
    const size_t L = levels.size();
    for (size_t i = 0; i < L; ++i)
      n.push_back(structure::LevelAtDepth(o.T, o.C, o.X, o.K, o.Z, static_cast<int>(L - 1 - i),
                                          true)
                      .fraction);
  }
  if (o.uniform_filters) {
    // One FPR for every run: independent of the level sizes n_i.
    if (o.use_sum_fpr) return structure::UniformFprsForSum(a, o.sum_fpr);
    return structure::UniformFprsForMemory(a, o.bits_per_entry);
  }
  if (o.use_sum_fpr) return structure::LagrangianFprsForSum(n, a, o.sum_fpr);
  return structure::LagrangianFprsForMemory(n, a, o.bits_per_entry);
}

void ApplyShape(const Options& o, double n_est, std::vector<Level>* levels) {
  const double n_buffers = n_est / static_cast<double>(o.buffer_entries());
  size_t L_new = static_cast<size_t>(structure::NumLevels(o.T, o.C, o.X, n_buffers));
  if (L_new > static_cast<size_t>(kMaxLevels))
    throw DesignLimit("the design needs " + std::to_string(L_new) + " levels at " +
                                Num(n_est) + " entries; at most " +
                                std::to_string(kMaxLevels) + " are allowed (raise T)");
  if (levels->empty()) levels->resize(1);
  size_t L_old = levels->size();
  if (L_new > L_old) {
    levels->insert(levels->begin(), L_new - L_old, Level());
  } else if (L_new < L_old) {
    size_t removable = 0;
    while (removable + 1 < L_old && (*levels)[removable].runs.empty() &&
           (*levels)[removable].log.empty())
      ++removable;
    const size_t remove = std::min(removable, L_old - L_new);
    levels->erase(levels->begin(), levels->begin() + static_cast<std::ptrdiff_t>(remove));
  }
  const size_t L = levels->size();
  for (size_t i = 0; i < L; ++i) {
    Level& l = (*levels)[i];
    const auto s =
        structure::LevelAtDepth(o.T, o.C, o.X, o.K, o.Z, static_cast<int>(L - 1 - i), true);
    if (!std::isfinite(s.ratio) || !(s.fraction > 0.0)) {
      const size_t depth = L - 1 - i;
      throw DesignLimit(
          "the design needs a size ratio of " +
          (depth == 0 ? std::string("C T/(T-1)") : "T^(X^" + std::to_string(depth - 1) + ")") +
          " at Level " + std::to_string(i + 1) + " once the data reaches " +
          Num(n_est) + " entries, which overflows a double (T = " +
          Num(o.T) + ", C = " + Num(o.C) + ", X = " + Num(o.X) +
          "); lower " + (depth == 0 ? "C or T" : "X or T"));
    }
    l.ratio = s.ratio;
    l.capacity = s.fraction * n_est;
    if (!(s.runs <= static_cast<double>(kMaxRunsPerLevel)))
      throw DesignLimit(
          "the design needs " + Num(s.runs) + " runs in Level " +
          std::to_string(i + 1) + " once the data reaches " + Num(n_est) +
          " entries, more than the limit of " + std::to_string(kMaxRunsPerLevel) +
          " runs per level; lower " + (i + 1 == L ? "C and Z" : "T, X and K"));
    l.max_runs = s.runs;
    // An empty tree's bootstrap shape (no capacity yet) keeps the bound.
    l.held_runs = l.capacity > 0 ? std::min(l.max_runs, std::max(1.0, std::floor(
                                       l.capacity / static_cast<double>(o.buffer_entries()) *
                                       (1.0 + 1e-9))))
                                 : l.max_runs;
    l.hash_table = (static_cast<int>(i) < o.hash_levels) && (i + 1 < L);
  }
  const auto fprs = AllocateFprs(o, *levels);
  for (size_t i = 0; i < L; ++i) (*levels)[i].fpr = fprs[i];
  if (o.log_ratio > 0.0) {  // L2SM: Levels 1..L-1 get logs, inversely proportional
    std::vector<double> capacities;
    for (const Level& l : *levels) capacities.push_back(l.capacity);
    const std::vector<double> logs = structure::LogCapacities(capacities, o.log_ratio);
    for (size_t i = 0; i < L; ++i) (*levels)[i].log_capacity = logs[i];
  }
}

}  // namespace wacky
