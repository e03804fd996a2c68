// file_compaction.cc — see file_compaction.h.
#include "file_compaction.h"

#include <algorithm>
#include <limits>
#include <unordered_set>
#include <utility>

#include "compaction_buffer.h"
#include "merge_policy.h"
#include "level_iterator.h"
#include "merging_iterator.h"
#include "run_iterator.h"
#include "run_writer.h"
#include "structure.h"

namespace wacky {

namespace {

uint64_t Entries(const std::vector<RunPtr>& runs) {
  uint64_t n = 0;
  for (const auto& r : runs) n += r->entries();
  return n;
}

// files[first, last).
std::vector<RunPtr> Slice(const std::vector<RunPtr>& files, size_t first, size_t last) {
  return {files.begin() + static_cast<std::ptrdiff_t>(first),
          files.begin() + static_cast<std::ptrdiff_t>(last)};
}

// Files of `files` (disjoint, in key order) whose key range meets [lo, hi]: [first, last).
std::pair<size_t, size_t> Overlapping(const std::vector<RunPtr>& files, uint64_t lo,
                                      uint64_t hi) {
  size_t first = 0;
  while (first < files.size() && files[first]->max_key() < lo) ++first;
  size_t last = first;
  while (last < files.size() && files[last]->min_key() <= hi) ++last;
  return {first, last};
}
}  // namespace

bool FlushStagesInLevel0(const Options& options, const Version& current) {
  return options.level1_runs > 1 &&
         current.level0.size() + 1 < static_cast<size_t>(options.level1_runs);
}

FileCompaction::FileCompaction(const Options& options, const Version& current,
                               const Buffer& buffer, bool retain)
    : options_(options),
      prefetch_(ChunkBlocks(options.block_bytes)),
      current_(current),
      buffer_(buffer),
      retain_(retain) {}

FileCompaction::~FileCompaction() {
  if (installed_) return;
  for (const auto& r : created_) r->MarkObsolete(retain_);
}

void FileCompaction::MergeInto(int target, std::vector<std::unique_ptr<EntrySource>> sources,
                               size_t first, size_t last, bool cut, IOCounter* counter) {
  const bool to_level0 = target < 0;
  const bool last_level = !to_level0 && static_cast<size_t>(target) + 1 == next_.levels.size();
  const Level& level = next_.levels[to_level0 ? 0 : static_cast<size_t>(target)];
  const bool hashed = !to_level0 && level.hash_table;
  const double bits = structure::BloomBitsPerKey(level.fpr);
  const uint64_t per_file = cut ? options_.file_entries() : std::numeric_limits<uint64_t>::max();
  const RunLayout layout{options_.entry_bytes, options_.block_bytes, options_.db_id};
  std::vector<RunPtr> outputs;
  std::unique_ptr<RunWriter> writer;
  uint64_t in_file = 0;
  auto finish = [&]() {
    if (!writer) return;
    std::vector<uint64_t> hashes;
    RunPtr out = writer->Finish(&hashes);
    writer.reset();
    if (!out) return;
    created_.push_back(out);
    if (hashed) {
      out->SetKeyHashes(std::move(hashes));
    } else {
      BloomFilter f(out->entries(), bits);
      if (!f.empty())
        for (uint64_t h : hashes) f.AddHash(h);
      out->SetFilter(std::move(f), bits);
    }
    outputs.push_back(out);
  };
  for (MergingIterator it(std::move(sources)); it.Valid(); it.Next()) {
    const bool tomb = it.tombstone();
    if (tomb && last_level) continue;  // Level L holds the only older data
    if (!writer || in_file >= per_file) {
      finish();
      const uint64_t id = next_.next_run_id++;
      writer = std::make_unique<RunWriter>(id, RunFileName(dir_, id), layout, counter,
                                           &stats_->checksums, faults_, options_.sync,
                                           retain_);
      in_file = 0;
    }
    writer->Add(it.key(), it.value(), tomb);
    ++in_file;
  }
  finish();
  if (to_level0) {
    next_.level0.insert(next_.level0.end(), outputs.begin(), outputs.end());
    return;
  }
  auto& files = next_.levels[static_cast<size_t>(target)].runs;
  replaced_.insert(replaced_.end(), files.begin() + static_cast<std::ptrdiff_t>(first),
                   files.begin() + static_cast<std::ptrdiff_t>(last));
  files.erase(files.begin() + static_cast<std::ptrdiff_t>(first),
              files.begin() + static_cast<std::ptrdiff_t>(last));
  files.insert(files.begin() + static_cast<std::ptrdiff_t>(first), outputs.begin(),
               outputs.end());
}

void FileCompaction::Reanchor() {
  ++counts_.majors;
  next_.n_est = static_cast<double>(Entries(next_.levels.back().runs)) * (options_.C + 1.0) /
                options_.C;
  // [compaction buffer] A level erased on top takes its buffer along, and the level that is
  // now Level 1 loses its own (compaction_buffer.h): both count as drained.
  const uint64_t buffered = options_.compaction_buffer ? BufferedFiles(next_.levels).size() : 0;
  ApplyShape(options_, next_.n_est, &next_.levels);
  if (options_.compaction_buffer) {
    ClearLevel1Buffer(&next_.levels);
    counts_.buffer_drained += buffered - BufferedFiles(next_.levels).size();
  }
}

size_t PickFile(const Options& options, const Level& level, const Level& below_level) {
  const auto& files = level.runs;
  if (options.file_pick == kRoundRobin) {
    if (!level.pick_after) return 0;
    for (size_t f = 0; f < files.size(); ++f)
      if (files[f]->min_key() > *level.pick_after) return f;
    return 0;  // wrap around
  }
  const auto& below = below_level.runs;
  size_t best = 0;
  double best_ratio = std::numeric_limits<double>::infinity();
  size_t lo = 0;  // first file below that can still overlap (files are in key order)
  for (size_t f = 0; f < files.size(); ++f) {
    while (lo < below.size() && below[lo]->max_key() < files[f]->min_key()) ++lo;
    uint64_t overlap = 0;
    for (size_t b = lo; b < below.size() && below[b]->min_key() <= files[f]->max_key(); ++b)
      overlap += below[b]->entries();
    const double ratio = static_cast<double>(overlap) /
                         static_cast<double>(std::max<uint64_t>(1, files[f]->entries()));
    if (ratio < best_ratio) {  // strict: a tie keeps the smaller key
      best_ratio = ratio;
      best = f;
    }
  }
  return best;
}

void FileCompaction::Write(const std::string& dir, FaultInjector* faults, IOStats* stats) {
  dir_ = dir;
  faults_ = faults;
  stats_ = stats;
  next_ = current_;
  if (next_.levels.empty()) next_.levels.resize(1);  // an engine always has Level L
  std::vector<std::unique_ptr<EntrySource>> incoming;
  incoming.push_back(std::make_unique<BufferSource>(&buffer_, buffer_.SortedSlots()));

  IOTag flush_tag;
  flush_tag.purpose = Purpose::kFlush;
  if (FlushStagesInLevel0(options_, current_)) {
    MergeInto(-1, std::move(incoming), 0, 0, false, &stats->For(flush_tag));
    ++counts_.flushes;
    for (auto& l : next_.levels) l.RefreshFilters(options_.entries_per_block());
    return;
  }

  // The flush (and level 0's runs, newest first) into the files of Level 1 they overlap.
  uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
  const auto slots = buffer_.SortedSlots();
  if (!slots.empty()) {
    lo = buffer_.key(slots.front());
    hi = buffer_.key(slots.back());
  }
  for (auto r = next_.level0.rbegin(); r != next_.level0.rend(); ++r) {
    lo = std::min(lo, (*r)->min_key());
    hi = std::max(hi, (*r)->max_key());
  }
  auto& level1 = next_.levels[0].runs;
  const auto [first, last] = Overlapping(level1, lo, hi);
  IOTag tag;
  tag.purpose = Purpose::kMerge;
  tag.level = 1;
  const bool merges = first < last || !next_.level0.empty();
  IOCounter* counter = merges ? &stats->For(tag) : &stats->For(flush_tag);
  for (auto r = next_.level0.rbegin(); r != next_.level0.rend(); ++r)
    incoming.push_back(std::make_unique<RunIterator>(*r, 0, prefetch_, counter));
  incoming.push_back(std::make_unique<LevelIterator>(Slice(level1, first, last), 0,
                                                     prefetch_, counter));
  replaced_.insert(replaced_.end(), next_.level0.begin(), next_.level0.end());
  next_.level0.clear();
  MergeInto(0, std::move(incoming), first, last, true, counter);
  ++(merges ? counts_.merges : counts_.flushes);
  if (next_.levels.size() == 1) Reanchor();

  // Drains: a level over its capacity sends one file at a time into the next level.
  for (size_t i = 0; i + 1 < next_.levels.size();) {
    Level& level = next_.levels[i];
    if (level.runs.empty() || static_cast<double>(Entries(level.runs)) <= level.capacity) {
      ++i;
      continue;
    }
    const size_t pick = PickFile(options_, level, next_.levels[i + 1]);
    const RunPtr file = level.runs[pick];
    level.pick_after = file->max_key();
    auto& below = next_.levels[i + 1].runs;
    const auto [b_first, b_last] = Overlapping(below, file->min_key(), file->max_key());
    IOTag merge_tag;
    merge_tag.purpose = Purpose::kMerge;
    merge_tag.level = static_cast<int>(i) + 2;
    IOCounter* c = &stats->For(merge_tag);
    std::vector<std::unique_ptr<EntrySource>> sources;
    sources.push_back(std::make_unique<RunIterator>(file, 0, prefetch_, c));
    sources.push_back(std::make_unique<LevelIterator>(Slice(below, b_first, b_last), 0,
                                                      prefetch_, c));
    replaced_.push_back(file);
    // [compaction buffer] The file stays on disk, buffered beside the level it goes into.
    if (options_.compaction_buffer)
      counts_.buffer_drained += BufferMovedFile(&next_.levels, i, file);
    level.runs.erase(level.runs.begin() + static_cast<std::ptrdiff_t>(pick));
    const bool into_last = i + 2 == next_.levels.size();
    MergeInto(static_cast<int>(i) + 1, std::move(sources), b_first, b_last, true, c);
    ++counts_.merges;
    if (into_last) {
      // The capacities changed (and levels may have been added or removed on top): start
      // over, so that no level is left above a capacity that shrank.
      Reanchor();
      i = 0;
    }
  }
  for (auto& l : next_.levels) l.RefreshFilters(options_.entries_per_block());
}

void FileCompaction::Install(Version* current, IOStats* stats) {
  installed_ = true;
  // [compaction buffer] What the old version buffered and the new one does not is deleted.
  const std::vector<RunPtr> was_buffered = BufferedFiles(current->levels);
  *current = std::move(next_);
  std::unordered_set<const Run*> live;
  for (const auto& l : current->levels)
    for (const auto& r : l.runs) live.insert(r.get());
  for (const auto& r : current->level0) live.insert(r.get());
  for (const auto& r : BufferedFiles(current->levels)) live.insert(r.get());
  uint64_t deleted = 0;
  for (const auto& r : replaced_) {
    if (live.count(r.get())) continue;
    r->MarkObsolete(retain_);
    ++deleted;
  }
  for (const auto& r : was_buffered) {  // [compaction buffer]
    if (live.count(r.get())) continue;
    r->MarkObsolete(retain_);
    ++deleted;
  }
  stats->flushes += counts_.flushes;
  stats->merges += counts_.merges;
  stats->major_compactions += counts_.majors;
  stats->runs_created += created_.size();
  stats->runs_deleted += deleted;
  stats->buffer_drained += counts_.buffer_drained;  // [compaction buffer]
}

}  // namespace wacky
