// merge_policy.h — the Wacky merge policy: where incoming data goes, and the shape.
//
// Contract (levels are indexed level-first: index 0 is Level 1, back() is Level L):
//   PlanMerge(levels, incoming) decides what one flush of `incoming` entries does.
//   Starting at Level 1, every level i < L that WouldOverflow() is swept into the
//   merge and the data moves on (preemptive merging, the assumption behind Eq 14),
//   so a single merge writes straight into the deepest target. At the target:
//     * Level i < L: merge into the active run if it is below 1/a_i of the capacity,
//       otherwise start a new run;
//     * Level L: the same, but when the active run is full and Level L already holds
//       a_L runs, all of Level L is merged into one run (a full major compaction).
//   Tombstones are dropped only when the output becomes the only run at Level L
//   (nothing older than it remains anywhere).
//
//   ApplyShape(options, n_est, levels) sets the shape top-down (App. E): L from
//   Eq 10 for N/F = n_est / buffer_entries, capacities N_i = fraction_i * n_est,
//   integer a_i, the FPRs (AllocateFprs), the hash-table flags and, with
//   Options::log_ratio > 0, each level's log capacity (structure::LogCapacities). Levels are
//   anchored at Level L: when L grows, empty levels are added above the existing ones; when
//   it shrinks, only empty top levels (no runs, no log) are removed (after any merge into
//   Level L, Levels 1..L-1 are empty, so in practice L always follows Eq 10).
//   The engine calls ApplyShape after every merge into Level L with
//   n_est = entries(Level L) * (C+1)/C. Before the first such merge n_est = 0, which
//   gives L = 1: flushes go straight to Level L until it is big enough for Eq 10 to
//   ask for more levels (the bootstrap).
#ifndef WACKY_NATIVE_ENGINE_MERGE_POLICY_H_
#define WACKY_NATIVE_ENGINE_MERGE_POLICY_H_

#include <cstdint>
#include <vector>

#include "level.h"
#include "options.h"

namespace wacky {

struct MergePlan {
  size_t target = 0;            // level index receiving the output
  std::vector<RunPtr> inputs;   // runs consumed, newest first (the buffer comes first)
  bool drop_tombstones = false;
  bool major = false;           // target is Level L
};

MergePlan PlanMerge(const std::vector<Level>& levels, uint64_t incoming);

void ApplyShape(const Options& options, double n_est, std::vector<Level>* levels);

// Per-level FPRs for the given shape and budget: the Lagrangian optimum, or with
// options.uniform_filters one FPR for every run (structure::UniformFprsFor*).
std::vector<double> AllocateFprs(const Options& options, const std::vector<Level>& levels);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_MERGE_POLICY_H_
