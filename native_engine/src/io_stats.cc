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
  return t;
}

}  // namespace wacky
