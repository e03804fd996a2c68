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
//     than its capacity, the tree file of highest W (weights taken once, over all the level's
//     tree files; ties to the smallest key) moves to the end of the log. Metadata only.
//     With `audit`, each pick is also made from exact hotness (Run::exact_hotness()) among
//     the same remaining files, and the picks that agree are counted.
//   * PlanAggregated (aggregated compaction, AC), for a log over its capacity: the seed is the
//     log file of smallest W (weights over the log's files; ties to the smallest key, then
//     the oldest); every log file overlapping the seed transitively joins it; they are taken
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
#include <vector>

#include "level.h"
#include "run.h"

namespace wacky {

double Sparseness(const Run& file);

// W for each of `files` (exact: from Run::exact_hotness()).
std::vector<double> CombinedWeights(const std::vector<RunPtr>& files, double alpha, bool exact);

struct PseudoPlan {
  std::vector<size_t> moves;  // indices into level.runs, in the order they move
  uint64_t audited = 0;       // picks checked against exact hotness
  uint64_t agreed = 0;        // of those, the picks exact hotness would have made too
};
PseudoPlan PlanPseudo(const Level& level, double alpha, bool audit);

struct AggregatedPlan {
  std::vector<size_t> cs;  // indices into level.log, oldest first
  std::vector<size_t> is;  // indices into below.runs, in key order
};
// level.log must not be empty.
AggregatedPlan PlanAggregated(const Level& level, const Level& below, double alpha,
                              int batch_cap);

// Throws std::logic_error if a file of `log` left out of `cs` is older than a CS file and
// overlaps it (its data would end up above newer data).
void CheckAggregatedPlan(const std::vector<RunPtr>& log, const std::vector<size_t>& cs);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_SST_LOG_H_
