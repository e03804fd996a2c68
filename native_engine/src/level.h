// level.h — one level of the tree: its runs and its place in the current shape.
//
// Contract: runs are ordered oldest first; back() is the level's active run, the only
// one that incoming data may be merged into (Section 5). Under kFileGranularity a level
// holds one sorted run cut into files instead: `runs` are those files, disjoint and in key
// order (file_compaction.h). The shape fields (ratio,
// capacity N_i in entries, integer run bound a_i, per-run FPR p_i from the Lagrangian
// allocation, hash-table flag, log capacity) are set by merge_policy.h's ApplyShape().
// With L2SM's per-level log (Options::log_ratio > 0, sst_log.h) a level of files also has
// `log`: side runs, files moved out of the level's tree by pseudo compaction (no I/O), in the
// order they were moved, oldest first; they may overlap each other, and the tree part is
// always newer than its own log (reads probe the tree, then the log newest first). A Level is a
// value type (runs and the hash index are shared pointers), so the engine can build
// the next version of the tree as a copy and install it only after it is durable.
#ifndef WACKY_NATIVE_ENGINE_LEVEL_H_
#define WACKY_NATIVE_ENGINE_LEVEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "compaction_buffer.h"
#include "hash_index.h"
#include "run.h"

namespace wacky {

struct Level {
  std::vector<RunPtr> runs;  // oldest first; back() is the active run (or files, in key order)
  double ratio = 0.0;        // r_i
  double capacity = 0.0;     // N_i, entries
  double max_runs = 1.0;     // a_i, rounded half up (at least 1)
  // The runs the level can hold: a_i capped at its capacity in buffers, since a run is at
  // least one buffer and the capacity check stops a level at floor(c) one-buffer runs. The
  // filters are allocated over these (as cost_models.structure caps its runs).
  double held_runs = 1.0;
  double fpr = 1.0;          // p_i for new runs (1 = no filter)
  bool hash_table = false;   // App. F: one HashIndex instead of per-run Bloom filters
  std::shared_ptr<const HashIndex> index;
  // Under kFileGranularity the level's one sorted run is `runs` as files in key order, and
  // round-robin picking resumes after this key: the largest key of the file last picked
  // here, unset before the first pick. In memory only (LevelDB keeps its compact pointers
  // in the MANIFEST): a reopen starts again from the first file.
  std::optional<uint64_t> pick_after;
  // [compaction buffer] Options::compaction_buffer: the level's buffer list B_i, copies of
  // files merged into it from the level above (compaction_buffer.h); always empty otherwise,
  // and for Level 1.
  CompactionBuffer buffer;
  // L2SM (sst_log.h): the level's log, oldest first, and its capacity in entries (0 on
  // Level L and without logs). Never hash indexed: log files keep Bloom filters.
  // (Options::Validate refuses the log together with the compaction buffer: at most one of
  // `buffer` and `log` is ever non-empty.)
  std::vector<RunPtr> log;
  double log_capacity = 0.0;

  // Entries of the tree part (`runs`); the log's are log_entries().
  uint64_t entries() const;
  uint64_t log_entries() const;
  // True when there is no active run or it has reached 1/a_i of the capacity.
  bool ActiveFull() const;
  // For Levels 1..L-1: true if taking `incoming` more entries would exceed the
  // capacity, or would need a new run beyond a_i. Such a level is merged down
  // together with the incoming data (preemptive merging).
  bool WouldOverflow(uint64_t incoming) const;
  // Makes the runs' filter state match the level's current shape: outside the
  // hash-table range, hash-indexed runs get Bloom filters at the level's FPR; then
  // `index` is rebuilt over the hash-indexed runs (or dropped). Log files get Bloom filters
  // at the level's FPR should they hold key hashes. Call after ApplyShape() or any change to
  // `runs` or `log`.
  void RefreshFilters(uint64_t entries_per_block);
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_LEVEL_H_
