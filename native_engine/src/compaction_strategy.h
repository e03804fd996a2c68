// compaction_strategy.h — how the engine compacts: one strategy, chosen when it opens.
//
// Contract (RocksDB's CompactionPicker, LevelDB's VersionSet::PickCompaction):
//   * CompactionStrategy::For(options) returns the strategy for options.granularity, once,
//     when the Engine opens; the engine keeps it until it is destroyed and never looks at
//     the granularity again. An unknown granularity is refused with std::invalid_argument
//     naming it and the known ones (Options::Validate refuses it first in an Engine).
//       - kLevelGranularity -> WholeLevelStrategy: the Wacky merge policy (merge_policy.h,
//         compaction.h): every flush merges with whole runs, levels hold a_i runs each.
//       - kFileGranularity  -> FileStrategy: leveled merges cut into files
//         (file_compaction.h): every level is one sorted run of files, and an overflowing
//         level sends one file at a time into the overlapping files of the next.
//     A third strategy is a new subclass and a new case in For().
//   * NewFlush(options, current, buffer, retain, hotness, heat) plans what one flush of
//     `buffer` does to `current` and returns it as a FlushJob, nothing written yet. `hotness`
//     (null without L2SM's log, Options::log_ratio = 0) gives the update counts the files
//     written are weighed by (hotness.h); `heat` (null without Tidal-tree's floating,
//     Options::float_gamma = 0) the read counts the floats are planned by (floating.h). Only
//     FileStrategy's jobs use them. The engine then calls
//     Write(), makes next() durable (the MANIFEST) and calls Install(); a job destroyed
//     without Install() removes every file it wrote, so the tree is as it was. Flushes
//     that only stage the buffer in level 0 (Options::level1_runs > 1) are part of the
//     strategy's job too. The arguments must stay unchanged until Install() or the job's
//     destruction. Called once per flush, never per entry.
//   * levels_are_files(): how the read path, scans, Levels() and salvage read a level of
//     this strategy's trees. false: Levels 1..L hold runs, oldest first, each probed in
//     turn (newest first). true: each of Levels 1..L is ONE sorted run cut into files,
//     disjoint and in key order; a lookup probes only the file covering the key, a scan
//     reads the files one after another as one run. Such a level may also have an L2SM log
//     (Level::log, sst_log.h), read after its tree and before the next level. Fixed for the strategy's lifetime and
//     not virtual, so the read path pays no virtual call for it. Level 0 (staged flushes)
//     is runs, newest first, under every strategy.
//   * The strategy holds no state of the tree: every Version it is given is complete, as
//     recovery rebuilt it or a previous job installed it, so reopening needs nothing from
//     the strategy beyond what the MANIFEST records.
#ifndef WACKY_NATIVE_ENGINE_COMPACTION_STRATEGY_H_
#define WACKY_NATIVE_ENGINE_COMPACTION_STRATEGY_H_

#include <memory>
#include <string>

#include "buffer.h"
#include "file_io.h"
#include "floating.h"
#include "hotness.h"
#include "io_stats.h"
#include "options.h"
#include "version.h"

namespace wacky {

// One flush of the buffer into the tree: plan (construction) -> Write() -> Install(), with
// the crash guarantees of compaction.h (Compaction and FileCompaction are the two kinds).
class FlushJob {
 public:
  virtual ~FlushJob() = default;
  // Writes the new run files and builds the next Version in memory (current is unchanged).
  virtual void Write(const std::string& dir, FaultInjector* faults, IOStats* stats) = 0;
  // The Version Write() built, to be made durable before Install().
  virtual const Version& next() const = 0;
  // Swaps next() in, marks the replaced runs obsolete and counts the flush and merges.
  virtual void Install(Version* current, IOStats* stats) = 0;
};

class CompactionStrategy {
 public:
  // The strategy for options.granularity; std::invalid_argument for an unknown one.
  static std::unique_ptr<CompactionStrategy> For(const Options& options);

  virtual ~CompactionStrategy() = default;
  CompactionStrategy(const CompactionStrategy&) = delete;
  CompactionStrategy& operator=(const CompactionStrategy&) = delete;

  // "level" or "file", as Options spells the granularity (bindings.cc, the MANIFEST).
  virtual const char* name() const = 0;
  // What one flush of `buffer` into `current` does, not yet written.
  virtual std::unique_ptr<FlushJob> NewFlush(const Options& options, const Version& current,
                                             const Buffer& buffer, bool retain,
                                             const HotnessTracker* hotness,
                                             const ReadHeat* heat) const = 0;
  // True when each of Levels 1..L is one sorted run cut into files (see the contract).
  bool levels_are_files() const { return levels_are_files_; }

 protected:
  explicit CompactionStrategy(bool levels_are_files) : levels_are_files_(levels_are_files) {}

 private:
  const bool levels_are_files_;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_COMPACTION_STRATEGY_H_
