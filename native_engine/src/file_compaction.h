// file_compaction.h — one flush when merges are cut into files, or when flushes gather in
// level 0 first: plan -> write -> install, with the crash guarantees of compaction.h.
//
// Contract (Options::granularity, level1_runs; docs/MODEL.md "Files and partial merges"):
//   * Stage (level1_runs > 1 and level 0 holds fewer than level1_runs - 1 runs): the buffer
//     is written as one run (one file, not cut) appended to level 0, with a Bloom filter at
//     Level 1's FPR. I/O is charged to flush.
//   * OHDB's partitions (Options::l0_partitions = P > 1, kFileGranularity only): the buffer is
//     cut at PartitionCuts(P) into pieces, one per partition it has keys in, and each piece
//     on its own stages (as one level-0 run) while its partition holds fewer than
//     level1_runs - 1 level-0 runs, and otherwise merges, with that partition's level-0 runs
//     (newest first), into the files of Level 1 that overlap their key range, the output cut
//     at file_entries() and at every partition cut. A partition without keys in the buffer
//     is left as it is. Each partition's merge counts as one merge (a flush that only staged
//     counts as one flush); the drain below then runs once, as for P = 1.
//   * Otherwise, under kFileGranularity: the buffer and every level-0 run (newest first) merge
//     with the files of Level 1 that overlap their key range; the output, cut into files of
//     at most Options::file_entries(), replaces those files. Then, Level 1 first, while a
//     level other than Level L holds more entries than its capacity N_i, one of its files is
//     picked (PickFile below) and merged with the overlapping files of the next level, newest
//     version of a key winning (post-overflow merging, like RocksDB's level score > 1, not
//     the paper's preemptive merging). A file with no overlap is rewritten, not moved, so
//     every entry moved is written, as the model assumes. Tombstones are dropped only in
//     outputs that go into Level L, which holds the only older data. After every merge into
//     Level L the shape is re-anchored as in compaction.h (ApplyShape at n_est =
//     entries(Level L) (C+1)/C), which may add an empty level on top or, when deletes shrank
//     Level L, lower every capacity; the drain then starts again at Level 1, so that once
//     Write() returns every level but Level L holds at most its capacity. (It ends: each
//     step moves a file's entries one level closer to Level L.) I/O is charged to
//     merge[target level] (flush when Level 1 held nothing to merge with).
//   * With L2SM's per-level log (Options::log_ratio > 0; sst_log.h for the plans) the drain
//     is instead, Level 1 first, for each level i < L: if its tree part holds more entries
//     than its capacity, a pseudo compaction moves files into its log (metadata only, no
//     I/O), the ones PickFile would send down, until it fits; then, while its log holds more entries than its log capacity, an
//     aggregated compaction merges a compaction set CS of log files (newest first, so the
//     newest version of a key wins) with the involved set IS of Level i+1's tree files into
//     Level i+1's tree, the output cut at file_entries() and before every tree file it must
//     not span (IS need not be contiguous), I/O charged to merge[i+1]. Tombstones are dropped
//     only in outputs into Level L; after a merge into Level L the shape is re-anchored and
//     the drain starts again at Level 1, as above. (It ends: a pseudo compaction moves entries
//     from a tree to its log, an aggregated one from a log at least one file down.) Each
//     output file's hotness is summed from `hotness` as it is written (hotness.h: the
//     recorded counts, plus one for a key of the buffer being flushed, which the engine
//     records once the flush commits). With log_ratio = 0 none of this runs: the flush does
//     exactly the I/O it did before logs existed.
//   * [floating] With Tidal-tree's floating (Options::float_gamma > 0; floating.h for the
//     rules, kFileGranularity only, never with L2SM's log, LSbM's buffer or l0_partitions > 1),
//     before the flush above (staging in level 0, or merging and draining) the floats that
//     PlanFloats allows under the ReadHeat given are carried out on current's tree, hottest
//     first, at most Options::float_per_flush of them; the flush then merges and drains as
//     above (a staging flush that floated drains too: Level j may be over its capacity). A
//     float's I/O is charged to `floating` (io_stats.h), not to a merge. With float_stretch > 0 the drain's overflow test allows each level its Eq 5
//     stretch (floating.h StretchEntries) beyond its capacity. With float_gamma = 0 none of
//     this runs.
//   * Every output file gets a Bloom filter at its level's FPR, or its key hashes in a
//     hash-table level; every level's filters and hash index are refreshed at the end.
//   * [compaction buffer] With Options::compaction_buffer, the file a drain merges down (the
//     one-file-at-a-time drain above: Options::Validate refuses the buffer together with
//     L2SM's log) is not deleted but buffered beside the level it went into
//     (compaction_buffer.h BufferMovedFile), and a reshape clears the buffer of Level 1.
//     Neither changes what is written: the tree, and the I/O, are those of the same flush
//     without the buffer.
//   * Nothing is visible until Install(); files written by a FileCompaction destroyed before
//     Install() (a failed write or MANIFEST) are marked obsolete, so the tree is as it was.
//     Install() marks the replaced files (and outputs that a later merge of the same flush
//     consumed, and buffered files the new version no longer buffers) obsolete and counts
//     the flushes, merges and runs, the pseudo and aggregated compactions (an aggregated
//     compaction counts as a merge too), and the floats and their floated and dropped
//     entries.
// Under kLevelGranularity with level0 runs waiting, compaction.h merges them with the buffer.
#ifndef WACKY_NATIVE_ENGINE_FILE_COMPACTION_H_
#define WACKY_NATIVE_ENGINE_FILE_COMPACTION_H_

#include <memory>
#include <string>
#include <vector>

#include "buffer.h"
#include "compaction_strategy.h"
#include "entry_source.h"
#include "hotness.h"
#include "file_io.h"
#include "io_stats.h"
#include "options.h"
#include "version.h"

namespace wacky {

class ReadHeat;
struct FloatPlan;

// True when this flush only adds a run to level 0 (the Stage case above; never with
// l0_partitions > 1, whose partitions stage or merge each on its own).
bool FlushStagesInLevel0(const Options& options, const Version& current);

// OHDB's partitions of level 0 (Options::l0_partitions = P): the P - 1 keys where partitions
// 1..P-1 start, ceil(j 2^64 / P), equally spaced over the keys; and the partition of a key.
std::vector<uint64_t> PartitionCuts(int partitions);
size_t PartitionOf(const std::vector<uint64_t>& cuts, uint64_t key);

// The file of `level` (files in key order, at least one) that goes down into `below` next.
// kLeastOverlap (RocksDB's kMinOverlappingRatio): the smallest ratio of the entries of the
// overlapping files of `below` to the file's own entries, ties to the smallest key.
// kRoundRobin (LevelDB's compact pointer): the first file whose smallest key is greater than
// level.pick_after, wrapping to the first file (the caller then sets pick_after to the
// picked file's largest key).
size_t PickFile(const Options& options, const Level& level, const Level& below);

// The FlushJob of FileStrategy, and of WholeLevelStrategy for a flush that stages in level 0
// (compaction_strategy.h).
class FileCompaction : public FlushJob {
 public:
  // `options`, `current` and `buffer` (and `hotness`, which may be null: every file then has
  // hotness 0, and `heat`, null when nothing floats: floating.h) must stay unchanged until
  // Install() or destruction.
  FileCompaction(const Options& options, const Version& current, const Buffer& buffer,
                 bool retain, const HotnessTracker* hotness = nullptr,
                 const ReadHeat* heat = nullptr);
  ~FileCompaction() override;
  FileCompaction(const FileCompaction&) = delete;
  FileCompaction& operator=(const FileCompaction&) = delete;

  void Write(const std::string& dir, FaultInjector* faults, IOStats* stats) override;
  const Version& next() const override { return next_; }
  void Install(Version* current, IOStats* stats) override;

 private:
  struct Counts {
    uint64_t flushes = 0, merges = 0, majors = 0;
    uint64_t buffer_drained = 0;  // [compaction buffer] files dropped other than by the trim
    uint64_t pseudo = 0, aggregated = 0, log_files_merged = 0, audited = 0, agreed = 0;
    uint64_t floats = 0, floated = 0, float_dropped = 0;  // [floating]
    std::vector<uint64_t> merges_into;  // [i]: merges into Level i ([0] unused)
  };
  // Counts one merge into Level `level` (1 = Level 1).
  void CountMerge(size_t level);
  // Merges `sources` (newest first) into new files for level `target` of next_ (level 0 when
  // target < 0) and returns them in key order. With `cut` a file holds at most
  // file_entries(); a file also ends before a key past any of `barriers` (sorted: the
  // smallest keys of files the outputs must not span).
  std::vector<RunPtr> Merge(int target, std::vector<std::unique_ptr<EntrySource>> sources,
                            bool cut, IOCounter* counter,
                            const std::vector<uint64_t>& barriers = {});
  // Merge(), then the outputs replace next_.levels[target].runs[first, last) (or are
  // appended to level 0 when target < 0).
  void MergeInto(int target, std::vector<std::unique_ptr<EntrySource>> sources, size_t first,
                 size_t last, bool cut, IOCounter* counter,
                 const std::vector<uint64_t>& barriers = {});
  // The flush under l0_partitions > 1 (contract); true when a partition merged into Level 1.
  bool FlushPartitions(IOCounter* flush_counter);
  // The drain after a merge into Level 1: DrainThroughLogs or DrainFiles.
  void Drain();
  // Re-anchors the shape after a merge into Level L (levels may be added or removed on top).
  void Reanchor();
  // The drains: one file at a time (log_ratio = 0), or through the levels' logs.
  void DrainFiles();
  void DrainThroughLogs();
  // Moves files of next_.levels[i]'s tree into its log until the tree fits.
  void PseudoCompact(size_t i);
  // Merges part of next_.levels[i]'s log into Level i+1's tree; true if that is Level L.
  bool AggregatedCompact(size_t i);
  // [floating] The floats of this flush (contract); true if any.
  bool Float();
  // [floating] Algorithm III.1: moves the file of `plan` up (floating.h).
  void FloatFile(const FloatPlan& plan);

  const Options& options_;
  const size_t prefetch_;  // blocks per sequential read (file_io.h ChunkBlocks)
  const Version& current_;
  const Buffer& buffer_;
  const bool retain_;
  const HotnessTracker* const hotness_;
  const ReadHeat* const heat_;  // [floating] null when nothing floats
  const double eta_;            // [floating] heat_'s read/write ratio at the flush's start
  std::string dir_;
  FaultInjector* faults_ = nullptr;
  IOStats* stats_ = nullptr;
  Version next_;
  std::vector<RunPtr> created_;   // every file written
  std::vector<RunPtr> replaced_;  // files of current_ or created_ that next_ no longer holds
  Counts counts_;
  bool installed_ = false;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_FILE_COMPACTION_H_
