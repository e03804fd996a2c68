// compaction.h — one flush of the buffer into the tree: plan -> write -> install.
//
// Contract: a Compaction moves the buffer's entries into the tree in three steps.
//   * Plan (constructor): merge_policy.h's PlanMerge() picks the target level and the
//     input runs for the buffer together with the runs waiting in level 0 (which merge
//     with it, newest first, when Options::level1_runs > 1). Nothing is touched.
//   * Write(): merges the buffer (newest) and the input runs into one new run file,
//     with I/O charged to flush (no input runs) or merge[target]; tombstones are
//     dropped when the plan says so. It then builds the next Version in memory: inputs
//     removed, the output appended at the target, the shape re-applied after a merge
//     into Level L (n_est = entries(Level L) (C+1)/C), and the output given a Bloom
//     filter at its level's FPR or, in a hash-table level, its key hashes. The current
//     Version is not modified (levels share runs, so the copy is cheap).
//   * Install(): once the caller has made next() durable (the MANIFEST), swaps it in,
//     marks the input runs obsolete and counts the flush or merge in the stats. The
//     caller then clears the buffer.
// A Compaction destroyed without Install() (a failed write or MANIFEST) marks its
// output obsolete, so the new run file disappears and the tree is as it was.
#ifndef WACKY_NATIVE_ENGINE_COMPACTION_H_
#define WACKY_NATIVE_ENGINE_COMPACTION_H_

#include <string>
#include <vector>

#include "buffer.h"
#include "compaction_strategy.h"
#include "file_io.h"
#include "io_stats.h"
#include "merge_policy.h"
#include "options.h"
#include "version.h"

namespace wacky {

// The FlushJob of WholeLevelStrategy (compaction_strategy.h) for a flush that merges.
class Compaction : public FlushJob {
 public:
  // `options`, `current` and `buffer` must stay unchanged until Install() or destruction.
  // retain: obsolete run files are renamed to *.obsolete instead of deleted (tests).
  Compaction(const Options& options, const Version& current, const Buffer& buffer, bool retain);
  ~Compaction() override;
  Compaction(const Compaction&) = delete;
  Compaction& operator=(const Compaction&) = delete;

  const MergePlan& plan() const { return plan_; }
  void Write(const std::string& dir, FaultInjector* faults, IOStats* stats) override;
  const Version& next() const override { return next_; }
  void Install(Version* current, IOStats* stats) override;

 private:
  const Options& options_;
  const Version& current_;
  const Buffer& buffer_;
  const bool retain_;
  MergePlan plan_;
  std::vector<RunPtr> level0_;  // level 0's runs, merged with the buffer
  Version next_;
  RunPtr out_;  // null until written, or when every entry was a dropped tombstone
  bool installed_ = false;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_COMPACTION_H_
