// io_stats.cc — see io_stats.h.
#include "io_stats.h"

namespace wacky {

IOCounter& IOStats::For(const IOTag& tag) {
  switch (tag.purpose) {
    case Purpose::kFlush:
      return flush;
    case Purpose::kPointRead:
      return point_read;
    case Purpose::kRangeRead:
      return range_read;
    case Purpose::kRecovery:
      return recovery;
    case Purpose::kFloat:
      return floating;
    case Purpose::kMerge:
      break;
  }
  const size_t idx = tag.level > 0 ? static_cast<size_t>(tag.level - 1) : 0;
  if (merge.size() <= idx) merge.resize(idx + 1);
  return merge[idx];
}

IOCounter IOStats::MergeTotal() const {
  IOCounter t;
  for (const auto& m : merge) t.Add(m);
  return t;
}

IOCounter IOStats::Total() const {
  IOCounter t = MergeTotal();
  t.Add(flush);
  t.Add(point_read);
  t.Add(range_read);
  t.Add(recovery);
  t.Add(floating);
  t.Add(filter_read);  // [paged metadata]
  t.Add(index_read);
  return t;
}

void IOStats::CountCacheLookup(size_t level, bool hit) {
  std::vector<uint64_t>& v = hit ? cache_hits : cache_misses;
  if (v.size() <= level) v.resize(level + 1);
  ++v[level];
}

void IOStats::CountAt(std::vector<uint64_t>* v, size_t level) {
  if (v->size() <= level) v->resize(level + 1);
  ++(*v)[level];
}

namespace {
uint64_t Sum(const std::vector<uint64_t>& v) {
  uint64_t t = 0;
  for (uint64_t x : v) t += x;
  return t;
}
}  // namespace

uint64_t IOStats::CacheHits() const { return Sum(cache_hits); }
uint64_t IOStats::CacheMisses() const { return Sum(cache_misses); }

}  // namespace wacky
