// compaction.cc — see compaction.h.
#include "compaction.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "merging_iterator.h"
#include "run_iterator.h"
#include "run_writer.h"
#include "structure.h"

namespace wacky {

Compaction::Compaction(const Options& options, const Version& current, const Buffer& buffer,
                       bool retain)
    : options_(options),
      current_(current),
      buffer_(buffer),
      retain_(retain),
      plan_(PlanMerge(current.levels, buffer.size() + [&current] {
              uint64_t n = 0;  // level 0's runs join the flush (file_compaction.h)
              for (const auto& r : current.level0) n += r->entries();
              return n;
            }())),
      level0_(current.level0) {}

Compaction::~Compaction() {
  if (!installed_ && out_) out_->MarkObsolete(retain_);
}

void Compaction::Write(const std::string& dir, FaultInjector* faults, IOStats* stats) {
  IOTag tag;
  if (plan_.inputs.empty() && level0_.empty()) {
    tag.purpose = Purpose::kFlush;
  } else {
    tag.purpose = Purpose::kMerge;
    tag.level = static_cast<int>(plan_.target) + 1;
  }
  IOCounter* counter = &stats->For(tag);

  // 1. Merge the buffer (newest) and the input runs into one new run.
  const size_t prefetch = ChunkBlocks(options_.block_bytes);  // about 1 MiB per read
  std::vector<std::unique_ptr<EntrySource>> sources;
  sources.push_back(std::make_unique<BufferSource>(&buffer_, buffer_.SortedSlots()));
  for (auto r = level0_.rbegin(); r != level0_.rend(); ++r)
    sources.push_back(std::make_unique<RunIterator>(*r, 0, prefetch, counter));
  for (const auto& r : plan_.inputs)
    sources.push_back(std::make_unique<RunIterator>(r, 0, prefetch, counter));
  const RunLayout layout{options_.entry_bytes, options_.block_bytes, options_.db_id,
                         stats->space, stats->devices, options_.direct_reads};
  const uint64_t id = current_.next_run_id;
  // The output lands at the target (Level target + 1); staging in level 0 is Level0Flush.
  const int out_level = static_cast<int>(plan_.target) + 1;
  RunWriter writer(id, layout.NewRunFile(dir, out_level, id), layout, counter,
                   &stats->checksums, faults, options_.sync, retain_);
  for (MergingIterator it(std::move(sources)); it.Valid(); it.Next()) {
    const bool tomb = it.tombstone();
    if (tomb && plan_.drop_tombstones) continue;
    writer.Add(it.key(), it.value(), tomb);
  }
  std::vector<uint64_t> hashes;
  out_ = writer.Finish(&hashes);

  // 2. Build the next version of the tree.
  next_ = current_;
  next_.next_run_id = id + 1;
  next_.level0.clear();
  for (auto& l : next_.levels) {
    std::vector<RunPtr> kept;
    for (const auto& r : l.runs)
      if (std::find(plan_.inputs.begin(), plan_.inputs.end(), r) == plan_.inputs.end())
        kept.push_back(r);
    l.runs.swap(kept);
  }
  size_t target = plan_.target;
  if (out_) next_.levels[target].runs.push_back(out_);
  if (plan_.major) {
    next_.n_est = static_cast<double>(next_.levels[target].entries()) * (options_.C + 1.0) /
                  options_.C;
    const size_t before = next_.levels.size();
    ApplyShape(options_, next_.n_est, &next_.levels);
    target = target + next_.levels.size() - before;  // Level L stays last
  }
  if (out_) {
    const Level& t = next_.levels[target];
    if (t.hash_table) {
      out_->SetKeyHashes(std::move(hashes));
    } else {
      const double bits = structure::BloomBitsPerKey(t.fpr);
      BloomFilter f(out_->entries(), bits);
      if (!f.empty())
        for (uint64_t h : hashes) f.AddHash(h);
      out_->SetFilter(std::move(f), bits);
    }
  }
  for (auto& l : next_.levels) l.RefreshFilters(options_.entries_per_block());
}

void Compaction::Install(Version* current, IOStats* stats) {
  installed_ = true;
  *current = std::move(next_);
  for (const auto& r : plan_.inputs) r->MarkObsolete(retain_);
  for (const auto& r : level0_) r->MarkObsolete(retain_);
  if (plan_.inputs.empty() && level0_.empty())
    ++stats->flushes;
  else
    ++stats->merges;
  if (plan_.major) ++stats->major_compactions;
  if (out_) ++stats->runs_created;
  stats->runs_deleted += plan_.inputs.size() + level0_.size();
}

}  // namespace wacky
