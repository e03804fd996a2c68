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

namespace {
IOCounter Sub(const IOCounter& a, const IOCounter& b) {
  IOCounter c;
  c.blocks_read = a.blocks_read - b.blocks_read;
  c.bytes_read = a.bytes_read - b.bytes_read;
  c.blocks_written = a.blocks_written - b.blocks_written;
  c.bytes_written = a.bytes_written - b.bytes_written;
  return c;
}
}  // namespace

IOStats IOStats::Diff(const IOStats& a, const IOStats& b) {
  IOStats d;
  d.flush = Sub(a.flush, b.flush);
  d.point_read = Sub(a.point_read, b.point_read);
  d.range_read = Sub(a.range_read, b.range_read);
  d.recovery = Sub(a.recovery, b.recovery);
  d.merge.resize(a.merge.size());
  for (size_t i = 0; i < a.merge.size(); ++i)
    d.merge[i] = i < b.merge.size() ? Sub(a.merge[i], b.merge[i]) : a.merge[i];
  d.manifest_bytes_written = a.manifest_bytes_written - b.manifest_bytes_written;
  d.puts = a.puts - b.puts;
  d.deletes = a.deletes - b.deletes;
  d.gets = a.gets - b.gets;
  d.scans = a.scans - b.scans;
  d.flushes = a.flushes - b.flushes;
  d.merges = a.merges - b.merges;
  d.major_compactions = a.major_compactions - b.major_compactions;
  d.runs_created = a.runs_created - b.runs_created;
  d.runs_deleted = a.runs_deleted - b.runs_deleted;
  d.range_runs_probed = a.range_runs_probed - b.range_runs_probed;
  d.merge_seconds = a.merge_seconds - b.merge_seconds;
  return d;
}

}  // namespace wacky
