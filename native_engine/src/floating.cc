// floating.cc — see floating.h.
#include "floating.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace wacky {

ReadHeat::ReadHeat(uint64_t decay_lookups) : decay_lookups_(decay_lookups) {
  if (decay_lookups_ == 0)
    throw std::invalid_argument("float_decay = 0 must be a whole number in [1, 4294967296] "
                                "(point lookups between halvings of the read counts)");
}

void ReadHeat::Track(const std::vector<uint64_t>& live) {
  for (auto it = files_.begin(); it != files_.end();) {
    if (std::binary_search(live.begin(), live.end(), it->first))
      ++it;
    else
      it = files_.erase(it);
  }
  for (uint64_t id : live) files_.try_emplace(id, File{0, reads_});
}

void ReadHeat::Checked(uint64_t run_id) {
  ++files_.try_emplace(run_id, File{0, reads_}).first->second.count;
}

void ReadHeat::Looked() {
  reads_ += 1.0;
  if (++since_decay_ >= decay_lookups_) Decay();
}

void ReadHeat::Decay() {
  since_decay_ = 0;
  ++decays_;
  reads_ /= 2.0;
  writes_ /= 2.0;
  for (auto& [id, f] : files_) {
    f.count /= 2;
    f.born /= 2.0;
  }
}

uint64_t ReadHeat::count(uint64_t run_id) const {
  const auto it = files_.find(run_id);
  return it == files_.end() ? 0 : it->second.count;
}

double ReadHeat::share(uint64_t run_id) const {
  const auto it = files_.find(run_id);
  if (it == files_.end()) return 0.0;
  return static_cast<double>(it->second.count) / std::max(1.0, reads_ - it->second.born);
}

double ReadHeat::eta() const { return reads_ / std::max(1.0, writes_); }

namespace {
// The files of `files` (disjoint, in key order) whose key range meets [lo, hi].
size_t CountOverlapping(const std::vector<RunPtr>& files, uint64_t lo, uint64_t hi) {
  const auto first = std::partition_point(files.begin(), files.end(),
                                          [lo](const RunPtr& r) { return r->max_key() < lo; });
  const auto last = std::partition_point(first, files.end(),
                                         [hi](const RunPtr& r) { return r->min_key() <= hi; });
  return static_cast<size_t>(last - first);
}
}  // namespace

double FloatGain(const Options& options, uint64_t f, size_t from, size_t to,
                 const std::vector<size_t>& overlaps) {
  double passed = 0.0;  // sum_{l=j}^{i-1} c_l
  for (size_t l = to; l < from; ++l) passed += static_cast<double>(overlaps[l]);
  return options.float_probe_cost * static_cast<double>(f) * static_cast<double>(from - to) -
         passed - options.float_alpha * static_cast<double>(overlaps[to]) - 1.0;
}

bool PlanDestination(const Options& options, const std::vector<Level>& levels, size_t from,
                     size_t file, uint64_t count, FloatPlan* plan) {
  const Run& r = *levels[from].runs[file];
  std::vector<size_t> overlaps(from, 0);
  for (size_t l = 0; l < from; ++l)
    overlaps[l] = CountOverlapping(levels[l].runs, r.min_key(), r.max_key());
  bool found = false;
  for (size_t j = from; j-- > 0;) {  // from the shortest move up: a tie keeps the shorter
    const double gain = FloatGain(options, count, from, j, overlaps);
    if (gain > 0.0 && (!found || gain > plan->gain)) {
      *plan = FloatPlan{from, file, r.id(), j, count, 0.0, gain};
      found = true;
    }
  }
  return found;
}

std::vector<FloatPlan> PlanFloats(const Options& options, const std::vector<Level>& levels,
                                  const ReadHeat& heat) {
  std::vector<FloatPlan> plans;
  if (!(options.float_gamma > 0.0)) return plans;
  const double eta = heat.eta();
  // Guarded by max(1, writes), eta > 0 once anything was read; with no read at all no count
  // is > 0 and nothing can float (T_d < 0 at f = 0).
  if (!(eta > 0.0)) return plans;
  const double bar_per_max = options.float_gamma / eta;
  std::vector<double> level_max(levels.size(), 0.0);  // smax of each level
  for (size_t l = 0; l < levels.size(); ++l)
    for (const RunPtr& r : levels[l].runs) level_max[l] = std::max(level_max[l], heat.share(r->id()));
  for (size_t i = 1; i < levels.size(); ++i) {
    const std::vector<RunPtr>& files = levels[i].runs;
    for (size_t f = 0; f < files.size(); ++f) {
      const uint64_t count = heat.count(files[f]->id());
      if (count == 0) continue;  // never read since written: nothing to gain
      // The nearest level above whose files the candidate's lookups pass (contract).
      size_t above = i;  // i: none
      for (size_t l = i; l-- > 0;) {
        if (CountOverlapping(levels[l].runs, files[f]->min_key(), files[f]->max_key()) > 0) {
          above = l;
          break;
        }
      }
      if (above == i) continue;
      const double share = heat.share(files[f]->id());
      if (share < level_max[above] * bar_per_max) continue;  // Eq 1
      FloatPlan plan;
      if (PlanDestination(options, levels, i, f, count, &plan)) {
        plan.share = share;
        plans.push_back(plan);
      }
    }
  }
  std::stable_sort(plans.begin(), plans.end(), [](const FloatPlan& a, const FloatPlan& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.from > b.from;  // then the deeper level; within a level, key order (stable)
  });
  return plans;
}

double StretchEntries(const Options& options, size_t level, double eta) {
  if (!(options.float_gamma > 0.0) || !(options.float_stretch > 0.0) || level >= 7) return 0.0;
  return eta * static_cast<double>(7 - level) * options.float_stretch *
         static_cast<double>(options.file_entries());
}

ShadowedSource::ShadowedSource(std::unique_ptr<EntrySource> source,
                               std::vector<std::unique_ptr<EntrySource>> newer)
    : source_(std::move(source)), newer_(std::move(newer)) {
  Settle();
}

void ShadowedSource::Next() {
  source_->Next();
  Settle();
}

void ShadowedSource::Settle() {
  while (source_->Valid()) {
    const uint64_t k = source_->key();
    while (newer_.Valid() && newer_.key() < k) newer_.Next();
    if (!newer_.Valid() || newer_.key() != k) return;
    ++shadowed_;
    source_->Next();
  }
}

}  // namespace wacky
