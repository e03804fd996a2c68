// sst_log.cc — see sst_log.h.
#include "sst_log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wacky {

namespace {

bool Overlap(const Run& a, const Run& b) {
  return a.min_key() <= b.max_key() && b.min_key() <= a.max_key();
}

// Files of `files` (disjoint, in key order) whose key range meets [lo, hi]: [first, last).
std::pair<size_t, size_t> Overlapping(const std::vector<RunPtr>& files, uint64_t lo,
                                      uint64_t hi) {
  const auto first = std::partition_point(files.begin(), files.end(),
                                          [lo](const RunPtr& r) { return r->max_key() < lo; });
  const auto last = std::partition_point(first, files.end(),
                                         [hi](const RunPtr& r) { return r->min_key() <= hi; });
  return {static_cast<size_t>(first - files.begin()), static_cast<size_t>(last - files.begin())};
}

}  // namespace

double Sparseness(const Run& file) {
  const uint64_t diff = file.min_key() ^ file.max_key();
  const int msb = diff == 0 ? 0 : 63 - __builtin_clzll(diff);
  return static_cast<double>(msb) -
         std::log2(static_cast<double>(std::max<uint64_t>(1, file.entries())));
}

std::vector<double> CombinedWeights(const std::vector<RunPtr>& files, double alpha, bool exact) {
  std::vector<double> w(files.size(), 0.0);
  if (files.empty()) return w;
  std::vector<double> h(files.size()), s(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    h[i] = exact ? files[i]->exact_hotness() : files[i]->hotness();
    s[i] = Sparseness(*files[i]);
  }
  const auto [hmin, hmax] = std::minmax_element(h.begin(), h.end());
  const auto [smin, smax] = std::minmax_element(s.begin(), s.end());
  // The paper's normalization: each term divided by its spread (not shifted), so only the
  // spread sets how much hotness weighs against sparseness. No spread, no say.
  const double hspread = *hmax - *hmin, sspread = *smax - *smin;
  for (size_t i = 0; i < files.size(); ++i) {
    if (hspread > 0) w[i] += alpha * h[i] / hspread;
    if (sspread > 0) w[i] += (1.0 - alpha) * s[i] / sspread;
  }
  return w;
}

PseudoPlan PlanPseudo(const Level& level, const std::function<size_t(const Level&)>& pick) {
  PseudoPlan plan;
  plan.pick_after = level.pick_after;
  Level rest;  // the level as the picker sees it: the files not moved yet, in key order
  rest.runs = level.runs;
  rest.pick_after = level.pick_after;
  std::vector<size_t> index(level.runs.size());
  for (size_t f = 0; f < index.size(); ++f) index[f] = f;
  uint64_t entries = level.entries();
  while (static_cast<double>(entries) > level.capacity && !rest.runs.empty()) {
    const size_t p = pick(rest);
    if (p >= rest.runs.size()) throw std::logic_error("PlanPseudo: the picker chose no file");
    entries -= rest.runs[p]->entries();
    rest.pick_after = plan.pick_after = rest.runs[p]->max_key();
    plan.moves.push_back(index[p]);
    rest.runs.erase(rest.runs.begin() + static_cast<std::ptrdiff_t>(p));
    index.erase(index.begin() + static_cast<std::ptrdiff_t>(p));
  }
  return plan;
}

AggregatedPlan PlanAggregated(const Level& level, const Level& below, double alpha,
                              int batch_cap, bool audit) {
  const auto& log = level.log;
  if (log.empty()) throw std::logic_error("PlanAggregated: the log is empty");
  // Ties: the smallest key, then the oldest (the lower index).
  auto coldest = [&](const std::vector<double>& w) {
    size_t seed = 0;
    for (size_t f = 1; f < log.size(); ++f)
      if (w[f] < w[seed] || (w[f] == w[seed] && log[f]->min_key() < log[seed]->min_key()))
        seed = f;
    return seed;
  };
  const size_t seed = coldest(CombinedWeights(log, alpha, false));
  AggregatedPlan plan;
  if (audit) {
    plan.audited = 1;
    plan.agreed = coldest(CombinedWeights(log, alpha, true)) == seed ? 1 : 0;
  }

  // The seed and every log file overlapping it, transitively; then oldest first.
  std::vector<bool> in(log.size(), false);
  std::vector<size_t> closure = {seed};
  in[seed] = true;
  for (size_t next = 0; next < closure.size(); ++next) {
    const Run& x = *log[closure[next]];
    for (size_t f = 0; f < log.size(); ++f)
      if (!in[f] && Overlap(x, *log[f])) {
        in[f] = true;
        closure.push_back(f);
      }
  }
  std::sort(closure.begin(), closure.end());

  const auto& tree = below.runs;
  std::vector<bool> involved(tree.size(), false);
  size_t is_count = 0;
  for (size_t f : closure) {
    const auto [first, last] = Overlapping(tree, log[f]->min_key(), log[f]->max_key());
    size_t added = 0;
    for (size_t b = first; b < last; ++b) added += involved[b] ? 0 : 1;
    const uint64_t cap = static_cast<uint64_t>(batch_cap) * (plan.cs.size() + 1);
    if (!plan.cs.empty() && is_count + added > cap) break;  // the IO limit: set aside
    for (size_t b = first; b < last; ++b) involved[b] = true;
    is_count += added;
    plan.cs.push_back(f);
  }
  for (size_t b = 0; b < tree.size(); ++b)
    if (involved[b]) plan.is.push_back(b);
  return plan;
}

void CheckAggregatedPlan(const std::vector<RunPtr>& log, const std::vector<size_t>& cs) {
  std::vector<bool> taken(log.size(), false);
  for (size_t c : cs) {
    if (c >= log.size()) throw std::logic_error("aggregated compaction: no log file " +
                                                std::to_string(c));
    taken[c] = true;
  }
  for (size_t c : cs)
    for (size_t r = 0; r < c; ++r)
      if (!taken[r] && Overlap(*log[r], *log[c]))
        throw std::logic_error(
            "aggregated compaction would leave log file " + std::to_string(log[r]->id()) +
            " (keys [" + std::to_string(log[r]->min_key()) + ", " +
            std::to_string(log[r]->max_key()) + "]) behind while merging down the newer, "
            "overlapping log file " + std::to_string(log[c]->id()) +
            ": the older data would be read before the newer");
}

}  // namespace wacky
