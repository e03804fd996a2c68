// file_compaction.cc — see file_compaction.h.
#include "file_compaction.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <unordered_set>
#include <utility>

#include "compaction_buffer.h"
#include "floating.h"
#include "merge_policy.h"
#include "level_iterator.h"
#include "merging_iterator.h"
#include "run_iterator.h"
#include "run_writer.h"
#include "sst_log.h"
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
  return options.l0_partitions == 1 && options.level1_runs > 1 &&
         current.level0.size() + 1 < static_cast<size_t>(options.level1_runs);
}

std::vector<uint64_t> PartitionCuts(int partitions) {
  std::vector<uint64_t> cuts;
  for (int j = 1; j < partitions; ++j)  // ceil(j 2^64 / P): partition j starts there
    cuts.push_back(static_cast<uint64_t>(
        ((static_cast<unsigned __int128>(j) << 64) + static_cast<unsigned>(partitions) - 1) /
        static_cast<unsigned>(partitions)));
  return cuts;
}

size_t PartitionOf(const std::vector<uint64_t>& cuts, uint64_t key) {
  return static_cast<size_t>(std::upper_bound(cuts.begin(), cuts.end(), key) - cuts.begin());
}

FileCompaction::FileCompaction(const Options& options, const Version& current,
                               const Buffer& buffer, bool retain,
                               const HotnessTracker* hotness, const ReadHeat* heat)
    : options_(options),
      prefetch_(ChunkBlocks(options.block_bytes)),
      current_(current),
      buffer_(buffer),
      retain_(retain),
      hotness_(hotness),
      heat_(options.float_gamma > 0.0 ? heat : nullptr),
      eta_(heat_ != nullptr ? heat_->eta() : 0.0) {}

FileCompaction::~FileCompaction() {
  if (installed_) return;
  for (const auto& r : created_) r->MarkObsolete(retain_);
}

std::vector<RunPtr> FileCompaction::Merge(int target,
                                          std::vector<std::unique_ptr<EntrySource>> sources,
                                          bool cut, IOCounter* counter,
                                          const std::vector<uint64_t>& barriers) {
  const bool to_level0 = target < 0;
  const bool last_level = !to_level0 && static_cast<size_t>(target) + 1 == next_.levels.size();
  const Level& level = next_.levels[to_level0 ? 0 : static_cast<size_t>(target)];
  const bool hashed = !to_level0 && level.hash_table;
  const double bits = structure::BloomBitsPerKey(level.fpr);
  const uint64_t per_file = cut ? options_.file_entries() : std::numeric_limits<uint64_t>::max();
  const RunLayout layout{options_.entry_bytes, options_.block_bytes, options_.db_id,
                         stats_->space, stats_->devices, options_.direct_reads};
  // L2SM: each file's hotness, summed as its keys pass (hotness.h). A key of the buffer being
  // flushed counts once more than recorded: the engine records the flush once it commits.
  const bool audit = hotness_ != nullptr && hotness_->audited();
  const int layers = hotness_ != nullptr ? hotness_->layers() : 0;
  double hot = 0.0, exact_hot = 0.0;
  std::vector<RunPtr> outputs;
  std::unique_ptr<RunWriter> writer;
  uint64_t in_file = 0;
  size_t barrier = 0;  // the first barrier not yet passed
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
    out->SetHotness(hot, exact_hot);
    outputs.push_back(out);
  };
  for (MergingIterator it(std::move(sources)); it.Valid(); it.Next()) {
    const bool tomb = it.tombstone();
    if (tomb && last_level) continue;  // Level L holds the only older data
    const uint64_t key = it.key();
    bool crossed = false;  // a file the outputs must not span lies before this key
    while (barrier < barriers.size() && barriers[barrier] <= key) {
      ++barrier;
      crossed = true;
    }
    if (!writer || in_file >= per_file || crossed) {
      finish();
      const uint64_t id = next_.next_run_id++;
      writer = std::make_unique<RunWriter>(id, layout.NewRunFile(dir_, to_level0 ? 0 : target + 1,
                                                                  id),
                                           layout, counter,
                                           &stats_->checksums, faults_, options_.sync,
                                           retain_);
      in_file = 0;
      hot = exact_hot = 0.0;
    }
    writer->Add(key, it.value(), tomb);
    ++in_file;
    if (hotness_ != nullptr) {
      const int flushing = buffer_.Contains(key) ? 1 : 0;
      const double h = KeyHotness(std::min(layers, hotness_->Count(key) + flushing));
      hot += h;
      exact_hot += audit ? KeyHotness(std::min(layers, hotness_->ExactCount(key) + flushing)) : h;
    }
  }
  finish();
  return outputs;
}

void FileCompaction::MergeInto(int target, std::vector<std::unique_ptr<EntrySource>> sources,
                               size_t first, size_t last, bool cut, IOCounter* counter,
                               const std::vector<uint64_t>& barriers) {
  const std::vector<RunPtr> outputs = Merge(target, std::move(sources), cut, counter, barriers);
  if (target < 0) {
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

// A level over its capacity sends one file at a time into the next level.
void FileCompaction::DrainFiles() {
  for (size_t i = 0; i + 1 < next_.levels.size();) {
    Level& level = next_.levels[i];
    // [floating] Eq 5: the level may hold its stretch beyond its capacity (0 without it).
    const double room = level.capacity + StretchEntries(options_, i + 1, eta_);
    if (level.runs.empty() || static_cast<double>(Entries(level.runs)) <= room) {
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
    IOCounter* c = &stats_->For(merge_tag);
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
    CountMerge(i + 2);
    if (into_last) {
      // The capacities changed (and levels may have been added or removed on top): start
      // over, so that no level is left above a capacity that shrank.
      Reanchor();
      i = 0;
    }
  }
}

// L2SM (sst_log.h): a level over its capacity moves files into its log; a log over its
// capacity merges part of itself into the next level's tree.
void FileCompaction::DrainThroughLogs() {
  for (size_t i = 0; i + 1 < next_.levels.size();) {
    Level& level = next_.levels[i];
    if (static_cast<double>(Entries(level.runs)) > level.capacity) PseudoCompact(i);
    if (level.log.empty() || static_cast<double>(Entries(level.log)) <= level.log_capacity) {
      ++i;
      continue;
    }
    if (AggregatedCompact(i)) {
      Reanchor();  // as in DrainFiles: capacities changed, levels may have come or gone
      i = 0;
    }
  }
}

void FileCompaction::PseudoCompact(size_t i) {
  Level& level = next_.levels[i];
  const Level& below = next_.levels[i + 1];
  const PseudoPlan plan =
      PlanPseudo(level, [&](const Level& rest) { return PickFile(options_, rest, below); });
  level.pick_after = plan.pick_after;
  std::vector<bool> moving(level.runs.size(), false);
  for (size_t f : plan.moves) {
    level.log.push_back(level.runs[f]);  // the newest log file: the tree is newer than its log
    moving[f] = true;
  }
  std::vector<RunPtr> kept;
  for (size_t f = 0; f < level.runs.size(); ++f)
    if (!moving[f]) kept.push_back(level.runs[f]);
  level.runs.swap(kept);
  counts_.pseudo += plan.moves.size();
}

bool FileCompaction::AggregatedCompact(size_t i) {
  Level& level = next_.levels[i];
  Level& below = next_.levels[i + 1];
  const bool audit = hotness_ != nullptr && hotness_->audited();
  const AggregatedPlan plan =
      PlanAggregated(level, below, options_.log_alpha, options_.log_batch_cap, audit);
  // Cheap beside the merge (|CS| x |log| key-range tests), and what keeps reads right.
  CheckAggregatedPlan(level.log, plan.cs);
  IOTag merge_tag;
  merge_tag.purpose = Purpose::kMerge;
  merge_tag.level = static_cast<int>(i) + 2;
  IOCounter* c = &stats_->For(merge_tag);
  std::vector<std::unique_ptr<EntrySource>> sources;
  for (auto f = plan.cs.rbegin(); f != plan.cs.rend(); ++f)  // newest first
    sources.push_back(std::make_unique<RunIterator>(level.log[*f], 0, prefetch_, c));
  std::vector<RunPtr> involved;
  std::vector<uint64_t> barriers;  // the tree files outside IS: no output may span one
  std::vector<bool> in_is(below.runs.size(), false);
  for (size_t b : plan.is) {
    in_is[b] = true;
    involved.push_back(below.runs[b]);
  }
  for (size_t b = 0; b < below.runs.size(); ++b)
    if (!in_is[b]) barriers.push_back(below.runs[b]->min_key());
  sources.push_back(std::make_unique<LevelIterator>(involved, 0, prefetch_, c));

  std::vector<bool> in_cs(level.log.size(), false);
  for (size_t f : plan.cs) {
    in_cs[f] = true;
    replaced_.push_back(level.log[f]);
  }
  std::vector<RunPtr> log;
  for (size_t f = 0; f < level.log.size(); ++f)
    if (!in_cs[f]) log.push_back(level.log[f]);
  level.log.swap(log);

  const bool into_last = i + 2 == next_.levels.size();
  const std::vector<RunPtr> outputs =
      Merge(static_cast<int>(i) + 1, std::move(sources), true, c, barriers);
  // IS leaves the tree, the outputs join it; both are disjoint and in key order.
  std::vector<RunPtr> kept, files;
  for (size_t b = 0; b < below.runs.size(); ++b)
    (in_is[b] ? replaced_ : kept).push_back(below.runs[b]);
  std::merge(kept.begin(), kept.end(), outputs.begin(), outputs.end(),
             std::back_inserter(files),
             [](const RunPtr& a, const RunPtr& b) { return a->min_key() < b->min_key(); });
  below.runs.swap(files);
  CountMerge(i + 2);
  ++counts_.aggregated;
  counts_.log_files_merged += plan.cs.size();
  counts_.audited += plan.audited;
  counts_.agreed += plan.agreed;
  return into_last;
}

void FileCompaction::Write(const std::string& dir, FaultInjector* faults, IOStats* stats) {
  dir_ = dir;
  faults_ = faults;
  stats_ = stats;
  next_ = current_;
  if (next_.levels.empty()) next_.levels.resize(1);  // an engine always has Level L
  IOTag flush_tag;
  flush_tag.purpose = Purpose::kFlush;
  if (options_.l0_partitions > 1) {
    if (FlushPartitions(&stats->For(flush_tag))) Drain();
    for (auto& l : next_.levels) l.RefreshFilters(options_.entries_per_block());
    return;
  }
  // [floating] On the tree the lookups were counted on, before this flush rewrites Level 1.
  const bool floated = Float();
  std::vector<std::unique_ptr<EntrySource>> incoming;
  incoming.push_back(std::make_unique<BufferSource>(&buffer_, buffer_.SortedSlots()));
  if (FlushStagesInLevel0(options_, current_)) {
    MergeInto(-1, std::move(incoming), 0, 0, false, &stats->For(flush_tag));
    ++counts_.flushes;
    if (floated) Drain();  // a destination may be over its capacity
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
  if (merges)
    CountMerge(1);
  else
    ++counts_.flushes;
  if (next_.levels.size() == 1) Reanchor();
  Drain();
  for (auto& l : next_.levels) l.RefreshFilters(options_.entries_per_block());
}

bool FileCompaction::Float() {
  if (heat_ == nullptr) return false;
  int floats = 0;
  for (const FloatPlan& planned : PlanFloats(options_, next_.levels, *heat_)) {
    if (floats == options_.float_per_flush) break;
    // An earlier float may have rewritten the file (it lay in that float's destination) or
    // changed the levels it would pass: find it, and price its destination again.
    const auto& files = next_.levels[planned.from].runs;
    size_t file = 0;
    while (file < files.size() && files[file]->id() != planned.id) ++file;
    FloatPlan plan;
    if (file == files.size() ||
        !PlanDestination(options_, next_.levels, planned.from, file, planned.count, &plan))
      continue;
    FloatFile(plan);
    ++floats;
  }
  return floats > 0;
}

void FileCompaction::FloatFile(const FloatPlan& plan) {
  Level& from = next_.levels[plan.from];
  const RunPtr file = from.runs[plan.file];
  IOCounter* c = &stats_->For(IOTag{Purpose::kFloat, 0});
  // The files of the levels passed (j+1..i-1) that overlap the candidate: their keys are
  // newer, so the candidate's versions of them are dropped (Algorithm III.1, lines 2-5).
  std::vector<std::unique_ptr<EntrySource>> newer;
  for (size_t l = plan.to + 1; l < plan.from; ++l) {
    const auto& files = next_.levels[l].runs;
    const auto [first, last] = Overlapping(files, file->min_key(), file->max_key());
    if (first < last)
      newer.push_back(std::make_unique<LevelIterator>(Slice(files, first, last), 0, prefetch_, c));
  }
  auto rest = std::make_unique<ShadowedSource>(
      std::make_unique<RunIterator>(file, 0, prefetch_, c), std::move(newer));
  // Level j's overlapping files are newer than the candidate too: the merge keeps their
  // version of a key both hold (line 6), and its output replaces them.
  auto& dest = next_.levels[plan.to].runs;
  const auto [d_first, d_last] = Overlapping(dest, file->min_key(), file->max_key());
  const uint64_t before = Entries(dest);
  std::vector<std::unique_ptr<EntrySource>> sources;
  sources.push_back(
      std::make_unique<LevelIterator>(Slice(dest, d_first, d_last), 0, prefetch_, c));
  sources.push_back(std::move(rest));
  replaced_.push_back(file);
  from.runs.erase(from.runs.begin() + static_cast<std::ptrdiff_t>(plan.file));
  MergeInto(static_cast<int>(plan.to), std::move(sources), d_first, d_last, true, c);
  // Every entry of Level j's files is written again (no tombstone is dropped above Level L),
  // so what the level gained is what floated; the rest of the candidate was dropped.
  const uint64_t floated = Entries(next_.levels[plan.to].runs) - before;
  ++counts_.floats;
  counts_.floated += floated;
  counts_.float_dropped += file->entries() - floated;
}

void FileCompaction::CountMerge(size_t level) {
  ++counts_.merges;
  if (counts_.merges_into.size() <= level) counts_.merges_into.resize(level + 1, 0);
  ++counts_.merges_into[level];
}

void FileCompaction::Drain() {
  // Through L2SM's logs, or one file at a time (LSbM's compaction buffer, when on, hooks into
  // the latter; Options::Validate refuses the two together).
  if (options_.log_ratio > 0.0)
    DrainThroughLogs();
  else
    DrainFiles();
}

bool FileCompaction::FlushPartitions(IOCounter* flush_counter) {
  const std::vector<uint64_t> cuts = PartitionCuts(options_.l0_partitions);
  const std::vector<uint32_t> slots = buffer_.SortedSlots();
  const size_t trigger = static_cast<size_t>(options_.level1_runs);
  IOTag tag;
  tag.purpose = Purpose::kMerge;
  tag.level = 1;
  uint64_t merges = 0;
  size_t from = 0;
  for (size_t p = 0; p < cuts.size() + 1; ++p) {
    size_t to = from;
    while (to < slots.size() && PartitionOf(cuts, buffer_.key(slots[to])) == p) ++to;
    std::vector<uint32_t> piece(slots.begin() + static_cast<std::ptrdiff_t>(from),
                                slots.begin() + static_cast<std::ptrdiff_t>(to));
    from = to;
    if (piece.empty()) continue;  // nothing arrives: the partition is as it was
    // This partition's level-0 runs, oldest first (each lies inside one partition).
    std::vector<RunPtr> mine, others;
    for (const RunPtr& r : next_.level0)
      (PartitionOf(cuts, r->min_key()) == p ? mine : others).push_back(r);
    std::vector<std::unique_ptr<EntrySource>> incoming;
    const uint64_t lo_piece = buffer_.key(piece.front()), hi_piece = buffer_.key(piece.back());
    incoming.push_back(std::make_unique<BufferSource>(&buffer_, std::move(piece)));
    if (mine.size() + 1 < trigger) {  // stage: one run in level 0, not cut
      MergeInto(-1, std::move(incoming), 0, 0, false, flush_counter);
      continue;
    }
    uint64_t lo = lo_piece, hi = hi_piece;
    for (const RunPtr& r : mine) {
      lo = std::min(lo, r->min_key());
      hi = std::max(hi, r->max_key());
    }
    auto& level1 = next_.levels[0].runs;
    const auto [first, last] = Overlapping(level1, lo, hi);
    const bool merges_here = first < last || !mine.empty();
    IOCounter* counter = merges_here ? &stats_->For(tag) : flush_counter;
    for (auto r = mine.rbegin(); r != mine.rend(); ++r)
      incoming.push_back(std::make_unique<RunIterator>(*r, 0, prefetch_, counter));
    incoming.push_back(std::make_unique<LevelIterator>(Slice(level1, first, last), 0,
                                                       prefetch_, counter));
    replaced_.insert(replaced_.end(), mine.begin(), mine.end());
    next_.level0.swap(others);
    // Level 1's files end at the partition cuts, so that each partition's merge rewrites
    // only its own files (OHDB's buckets; RocksDB's sst_partitioner does the same).
    MergeInto(0, std::move(incoming), first, last, true, counter, cuts);
    if (merges_here) CountMerge(1);
    merges += merges_here;
  }
  if (merges == 0) {
    ++counts_.flushes;
    return false;
  }
  if (next_.levels.size() == 1) Reanchor();
  return true;
}

void FileCompaction::Install(Version* current, IOStats* stats) {
  installed_ = true;
  // [compaction buffer] What the old version buffered and the new one does not is deleted.
  const std::vector<RunPtr> was_buffered = BufferedFiles(current->levels);
  *current = std::move(next_);
  std::unordered_set<const Run*> live;
  for (const auto& l : current->levels) {
    for (const auto& r : l.runs) live.insert(r.get());
    for (const auto& r : l.log) live.insert(r.get());
  }
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
  if (stats->merges_per_level.size() < counts_.merges_into.size())
    stats->merges_per_level.resize(counts_.merges_into.size(), 0);
  for (size_t i = 0; i < counts_.merges_into.size(); ++i)
    stats->merges_per_level[i] += counts_.merges_into[i];
  stats->major_compactions += counts_.majors;
  stats->runs_created += created_.size();
  stats->runs_deleted += deleted;
  stats->buffer_drained += counts_.buffer_drained;  // [compaction buffer]
  stats->pseudo_compactions += counts_.pseudo;
  stats->aggregated_compactions += counts_.aggregated;
  stats->log_files_merged += counts_.log_files_merged;
  stats->hotness_picks += counts_.audited;
  stats->hotness_picks_agree += counts_.agreed;
  stats->floats += counts_.floats;  // [floating]
  stats->floated_entries += counts_.floated;
  stats->float_dropped_entries += counts_.float_dropped;
}

}  // namespace wacky
