// sst_log.h — L2SM's per-level log (SST-Log): which files of a level move into its log, and
// which leave the log for the next level, as pure functions of the levels (no I/O).
// file_compaction.h carries the plans out.
//
// Contract (l2sm paper III.B-III.E; Options::log_ratio > 0, granularity 'file'):
//   * Levels 1..L-1 each have a log (Level::log, oldest first) of capacity
//     Level::log_capacity entries (structure.h LogCapacities). Data only moves tree_i ->
//     log_i -> tree_{i+1}, so for every key: level 0, then tree_1, log_1 newest to oldest,
//     tree_2, log_2, ..., tree_L is newest to oldest (the read order).
//   * Weights (III.C, III.D). A file's sparseness S = msb(min_key XOR max_key) - log2(entries)
//     (msb: the index 0..63 of the highest set bit; 0 when min_key == max_key): the log of
//     the key range it spans per entry. Its hotness H is Run::hotness() (hotness.h). Over a set
//     of candidate files, W = alpha H / (Hmax - Hmin) + (1 - alpha) S / (Smax - Smin), a term
//     whose max equals its min contributing 0.
//   * PlanPseudo (pseudo compaction, PC): while the tree part of a level holds more entries
//     than its capacity, the file the tree's own picker would send down next (`pick`:
//     file_compaction.h PickFile, least overlap or round robin) moves to the end of the log.
//     Metadata only. This is the authors' code (ericaloha/L2SM, VersionSet::AddSSTIntoLog:
//     the compact pointer's file unless one is hotter than a fixed threshold), not the
//     paper's text (III-D: the file of highest W). Measured on this engine (wacky sweep l2sm,
//     docs/VALIDATION.md "L2SM"), the highest-W pick raised write amplification 7 to 10
//     times: it takes the sparse files that refill the holes earlier moves left, so the
//     holes grow and each log file merged down meets a wide stretch of the next level;
//     moving the hottest file first whenever it was 1.5 times the level's mean hotness was
//     0.2-2.5% worse than never doing so.
//   * PlanAggregated (aggregated compaction, AC), for a log over its capacity: the seed is the
//     log file of smallest W (weights over the log's files; ties to the smallest key, then
//     the oldest; with `audit` the seed exact hotness would choose is found too, and whether
//     the two agree is counted); every log file overlapping the seed transitively joins it; they are taken
//     oldest first into the compaction set CS, each time computing the involved set IS (the
//     files of the next level's tree overlapping any CS file), stopping before a file that
//     would make |IS| > batch_cap |CS| (files; the first file always goes in). The caller
//     merges CS (newest first) with IS into the next level's tree. CS is never empty, so every
//     AC removes at least one log file.
//   * Why CS may leave closure files behind: they are newer than every CS file (CS is the
//     oldest-first prefix), and files outside the closure share no key with it. So no log
//     file older than a CS file and overlapping it is ever left above data newer than it;
//     CheckAggregatedPlan throws std::logic_error if a plan broke that.
#ifndef WACKY_NATIVE_ENGINE_SST_LOG_H_
#define WACKY_NATIVE_ENGINE_SST_LOG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "level.h"
#include "run.h"

namespace wacky {

double Sparseness(const Run& file);

// W for each of `files` (exact: from Run::exact_hotness()).
std::vector<double> CombinedWeights(const std::vector<RunPtr>& files, double alpha, bool exact);

struct PseudoPlan {
  std::vector<size_t> moves;  // indices into level.runs, in the order they move
  std::optional<uint64_t> pick_after;  // the last moved file's largest key (round robin)
};
// `pick` returns the index of the file that goes down next from a level (files in key order,
// at least one), given the level with the files already moved taken out and its pick_after
// set to the last moved file's largest key.
PseudoPlan PlanPseudo(const Level& level, const std::function<size_t(const Level&)>& pick);

struct AggregatedPlan {
  std::vector<size_t> cs;  // indices into level.log, oldest first
  std::vector<size_t> is;  // indices into below.runs, in key order
  uint64_t audited = 0;     // seeds checked against exact hotness (0 or 1)
  uint64_t agreed = 0;      // of those, the seeds exact hotness would have chosen too
};
// level.log must not be empty.
AggregatedPlan PlanAggregated(const Level& level, const Level& below, double alpha,
                              int batch_cap, bool audit = false);

// Throws std::logic_error if a file of `log` left out of `cs` is older than a CS file and
// overlaps it (its data would end up above newer data).
void CheckAggregatedPlan(const std::vector<RunPtr>& log, const std::vector<size_t>& cs);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_SST_LOG_H_
