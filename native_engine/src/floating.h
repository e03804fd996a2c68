// floating.h — Tidal-tree's floating of hot files (Wang, Wu and Mao, "Towards read-intensive
// key-value stores with tidal structure based on LSM-tree", Section III), for file-granular
// designs (Options::granularity = kFileGranularity, file_compaction.h).
//
// Why: a key that sits deep in the tree costs every lookup a check of one file per level
// above it. Data only ever moves down, so a file that many lookups reach stays deep however
// hot it is. Tidal-tree moves ("floats") such a file up to the level where the checks it saves
// outweigh what moving it costs, dropping on the way the keys newer levels shadow.
//
// Contract (Options::float_gamma > 0; with 0 nothing here runs and nothing is counted):
//   * Read counts (ReadHeat; in memory only, like L2SM's hotness.h: a reopen starts from 0).
//     Every point lookup (Get, GetMany) that reaches a file of Levels 1..L whose key range
//     [min_key, max_key] admits the key (the file whose filter, or hash-table signature, the
//     engine then consults, whatever the answer) adds 1 to that file's count, and counts one
//     read; every put and delete (not the writes a reopen replays from the log) counts one
//     write. A file is tracked from the flush that installs it (or the open that finds it) and
//     forgotten once it leaves the tree; its exposure is the number of lookups made since
//     (at least 1). Every Options::float_decay lookups every count, every exposure and the
//     read and write tallies are halved (counts rounding down), so they weigh the last
//     float_decay lookups most and forget a burst in a few halvings.
//       - Eq 1's f is a frequency: the file's share, count / exposure, the fraction of the
//         lookups of its lifetime that checked it. A share, not a count, because files live
//         for very different times: the flushes rewrite Level 1's files over and over, and a
//         count makes young files look cold and old ones hot whatever the reads (measured on
//         engine_tidal_test's MeasureProbes at gamma 1: with counts, uniform reads floated
//         119 times and skewed ones 59; with shares, 53 and 49).
//       - Eq 4's f is the count: the checks the paper expects the file to take again.
//       - eta = reads / max(1, writes) over the same window (Eq 1's read/write ratio; a
//         workload without writes has eta = reads).
//     Counting costs a hash-map update per checked file per lookup, under the engine's lock.
//   * When (the write path only: reads never write). At every flush, before the flush's own
//     merge (file_compaction.h), PlanFloats() lists the floats the equations allow on the tree
//     the lookups were counted on, and the flush carries them out, hottest first, up to
//     Options::float_per_flush of them; before each, the candidate's destination is priced
//     again on the tree the earlier floats left (PlanDestination), and a candidate an earlier
//     float rewrote (it lay in that float's destination) or that no longer gains is skipped.
//     Then the flush merges and drains as usual: Level j may be over its capacity, and the
//     drain may push data back down (the ping-pong Eq 5 is for). Planning before the flush
//     matters: the flush rewrites Level 1's files, and new files start at count 0, so
//     planned after it Eq 1 would compare Level 2 with a Level 1 of zeros and float every
//     file read since.
//   * The trigger (Eq 1). Levels are numbered as the engine does: Level 1 is the first below
//     level 0; nothing floats into level 0 or out of Level 1. A file of Level i >= 2 with a
//     count > 0 and share s is a candidate when s >= smax x gamma / eta, smax the largest
//     share of a file of the reference level: the nearest level above i holding a file that
//     overlaps the candidate's key range. A level above with no such file (empty, or holding
//     other keys only) is skipped because the candidate's lookups check no file there: it
//     neither saves nor costs them a check, so it cannot say how hot is hot. With no
//     reference level, Level i's file is no candidate: every lookup of its keys checks it
//     first, and floating cannot shorten any. (Taking an empty level's maximum as 0, as Eq 1
//     read literally does, makes every file read a candidate and leaves Eq 4 alone to decide,
//     and Eq 4 floats any file read once into an empty level: T_d = 3f - 1. Measured with
//     reads of old keys while writes add new ones, so that Levels 1..2 held none of the read
//     keys: uniform reads then floated as much as skewed ones.)
//   * The destination (Eq 4). For a candidate of Level i with count f and each j in
//     [1, i-1], with c_l the number of files of Level l whose key range overlaps the
//     candidate's:
//         T_d(j) = probe_cost x f x (i - j) - sum_{l=j}^{i-1} c_l - alpha x c_j - 1
//     in page reads (the paper's T_d / T_R, its "3" being Options::float_probe_cost). The
//     candidate floats to the j of the largest T_d if that is > 0; of equal T_d the larger j
//     (the shorter move) wins. As in the paper, the float's cost prices reading the candidate
//     and the c_l files and rewriting Level j's c_j files, not writing the candidate's own
//     entries: with c_j = 0 a float costs one read. And as in the paper's Eq 2, every level
//     passed counts as one check saved per read, though a level holding no file that overlaps
//     the candidate saves none (the trigger's reference level keeps files whose lookups pass
//     no such level from floating at all). Candidates go hottest first (the largest count;
//     ties: the deeper level, then the smaller key).
//   * The float (Algorithm III.1), inside the flush's FlushJob like every merge: new files
//     are written, the MANIFEST is made durable, then the version is installed; a failure
//     leaves the tree as it was. The candidate F leaves Level i. Each key of F that has a
//     version in a file of Levels j+1..i-1 overlapping F is dropped (that version is newer;
//     ShadowedSource), the rest is merged with Level j's overlapping files (a key Level j
//     holds keeps Level j's version, the newer, so F's is dropped there too), and the output,
//     cut at Options::file_entries(), replaces those files. Tombstones are kept (Level j is
//     never Level L). Each file is read once: F, the c_j files as merge inputs, and the files
//     of Levels j+1..i-1 as the removal's inputs (the paper's 1 + sum c_l reads).
//   * Why reads stay right. Lookups and scans take a key's version from the first place that
//     holds it (the buffer, level 0 newest first, then Level 1 on), so a tree is right when,
//     for every key, its versions in that order are newest first. A float moves versions of
//     Level i to Level j < i. One it drops is shadowed by a newer version in Levels j..i-1,
//     which stays where it is: a lookup met that one first before and still does. One it
//     keeps has no version in Levels j..i-1, so its newer versions are all above Level j and
//     its older ones all below Level i (F was the only file of Level i to hold it): at Level
//     j it is still between the two. Level j stays disjoint files in key order: the outputs
//     replace exactly the files overlapping F's range and hold only their keys and F's.
//   * Stretch (Eq 5). With Options::float_stretch delta > 0, the drain lets Level i (1..L-1)
//     hold eta x max(0, 7 - i) x delta x file_entries() entries beyond its capacity before it
//     sends a file down: the paper's theta_i = rho_i + eta (7 - i) delta_i, in files of the
//     engine's size, with the paper's 7 (LevelDB's L0..L6) kept and 7 - i clamped at 0 so
//     that a level below Level 6 is never shrunk. Only the drain's overflow test changes;
//     the shape (ApplyShape, the filters' FPRs) is the unstretched one. A large eta (reads far
//     outnumbering writes) with delta > 0 lets the upper levels grow large: delta is small.
//   * Accounting (io_stats.h): a float's reads and writes are charged to the purpose
//     `floating`, not to merge[j]; IOStats::floats counts the floats, floated_entries the
//     entries of candidates written into Level j and float_dropped_entries those dropped (a
//     float's candidate entries = floated + dropped). Floats are not merges (IOStats::merges).
#ifndef WACKY_NATIVE_ENGINE_FLOATING_H_
#define WACKY_NATIVE_ENGINE_FLOATING_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "entry_source.h"
#include "level.h"
#include "merging_iterator.h"
#include "options.h"

namespace wacky {

// The read counts of the files, their shares, and the read/write ratio eta (contract above).
class ReadHeat {
 public:
  // decay_lookups >= 1 (Options::float_decay): lookups between halvings.
  explicit ReadHeat(uint64_t decay_lookups);

  // The files of the tree are `live` (sorted ids): those not tracked yet start now (count 0,
  // exposure 0), those tracked but not in `live` left the tree and are forgotten.
  void Track(const std::vector<uint64_t>& live);
  // A lookup checked the file `run_id` (its key range admits the key); an untracked file is
  // tracked from now.
  void Checked(uint64_t run_id);
  // One point lookup is done (after its Checked() calls); every decay_lookups, the decay.
  void Looked();
  // `n` puts or deletes.
  void Wrote(uint64_t n) { writes_ += static_cast<double>(n); }

  // The file's count: the lookups that checked it, decayed (Eq 4's f); 0 if untracked.
  uint64_t count(uint64_t run_id) const;
  // The file's share: its count over its exposure, the lookups made while it was tracked,
  // decayed alike (at least 1); Eq 1's f, a frequency. 0 for an untracked file.
  double share(uint64_t run_id) const;
  // reads / max(1, writes) over the decayed window.
  double eta() const;
  uint64_t decays() const { return decays_; }
  size_t files() const { return files_.size(); }  // tracked

 private:
  struct File {
    uint64_t count = 0;
    double born = 0.0;  // reads_ when tracking began, decayed with it: exposure = reads_ - born
  };
  void Decay();

  const uint64_t decay_lookups_;
  uint64_t since_decay_ = 0;
  uint64_t decays_ = 0;
  double reads_ = 0.0;
  double writes_ = 0.0;
  std::unordered_map<uint64_t, File> files_;
};

// One float Eq 1 and Eq 4 allow. Levels are indexes of Version::levels (0 = Level 1).
struct FloatPlan {
  size_t from = 0;     // the candidate's level
  size_t file = 0;     // its index in levels[from].runs
  uint64_t id = 0;     // its run id
  size_t to = 0;       // the destination level (< from)
  uint64_t count = 0;  // its read count (Eq 4's f)
  double share = 0.0;  // its share of the lookups (Eq 1's f)
  double gain = 0.0;   // T_d at `to`, in page reads (> 0)
};

// Every float the trigger and the destination rule allow in `levels` (files in key order)
// with the shares, counts and eta of `heat`, hottest (largest count) first (contract). Empty
// unless options.float_gamma > 0.
std::vector<FloatPlan> PlanFloats(const Options& options, const std::vector<Level>& levels,
                                  const ReadHeat& heat);

// Eq 4 for file `file` of levels[from] with count `count`: true, with *plan set (its share
// left 0), when some destination has T_d > 0 (the largest; of equal ones the shortest move).
bool PlanDestination(const Options& options, const std::vector<Level>& levels, size_t from,
                     size_t file, uint64_t count, FloatPlan* plan);

// T_d of Eq 4 for a file with count f moving from Level index `from` to `to`, where
// overlaps[l] is c_l, the files of level index l overlapping it (l in [to, from)).
double FloatGain(const Options& options, uint64_t f, size_t from, size_t to,
                 const std::vector<size_t>& overlaps);

// Eq 5: the entries Level `level` (1 = Level 1) may hold beyond its capacity in the drain:
// eta x max(0, 7 - level) x float_stretch x file_entries() (0 without floating or stretch).
double StretchEntries(const Options& options, size_t level, double eta);

// Algorithm III.1's removal of old data: the entries of `source` whose key none of `newer`
// holds (any version, tombstones included). Reads `newer` alongside `source`, once.
class ShadowedSource : public EntrySource {
 public:
  ShadowedSource(std::unique_ptr<EntrySource> source,
                 std::vector<std::unique_ptr<EntrySource>> newer);

  bool Valid() const override { return source_->Valid(); }
  uint64_t key() const override { return source_->key(); }
  const uint8_t* value() const override { return source_->value(); }
  bool tombstone() const override { return source_->tombstone(); }
  void Next() override;

  // Entries of `source` skipped so far because a newer source holds their key.
  uint64_t shadowed() const { return shadowed_; }

 private:
  // Skips the entries of source_ that newer_ holds, from the current one on.
  void Settle();

  std::unique_ptr<EntrySource> source_;
  MergingIterator newer_;
  uint64_t shadowed_ = 0;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_FLOATING_H_
