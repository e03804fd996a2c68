// io_stats.h — I/O counters by purpose.
//
// Contract: every block the engine reads or writes on a run file is counted exactly
// once, at the file layer (file_io.h), under the purpose that caused it:
//   flush       — the buffer written alone as a new run (no existing run merged in);
//   merge[i]    — any merge whose output lands at Level i (1-based, numbered by the L
//                 at the time of the merge); this includes a buffer merged into an
//                 active run and preemptive merges that skip levels;
//   point_read  — blocks fetched by get()/get_many();
//   range_read  — blocks fetched by scan();
//   recovery    — blocks read when reopening an existing directory;
//   floating    — Tidal-tree's floats (floating.h): the candidate file and the overlapping
//                 files of the levels it passes read, and the output written into the
//                 destination level. Not counted in merge[i] (a block is counted once).
// range_runs_probed counts, per scan(), the runs whose key range overlaps it (each costs
// at least one block read): the model's V = sum_i a_i for short ranges. A level of files
// (kFileGranularity) is one sorted run and counts once.
// The block cache (block_cache.h) serves point reads only: cache_hits[i] counts the blocks a
// get found cached and cache_misses[i] the blocks it read from disk instead, per level
// (index 0 = level 0's runs, index i = Level i, as numbered when the read happened). A miss
// is counted for every point-read block read from disk, with the cache disabled too (its
// hit rate is then 0), so sum(cache_misses) == point_read.blocks_read always.
// cache_invalidated_blocks counts the cached blocks dropped because a flush or merge
// deleted their run; cache_blocks is a gauge (blocks cached when the stats were taken),
// set by Engine::Stats().
// L2SM's per-level log (sst_log.h; Options::log_ratio > 0): pseudo_compactions counts the
// files moved from a tree level into its log (metadata only, no I/O); aggregated_compactions
// the merges of log files into the next level (each also counted in merges, its I/O in
// merge[i]) and log_files_merged the log files they took (their mean is
// log_files_merged / aggregated_compactions). With hotness_audit, hotness_picks counts the
// aggregated-compaction seeds checked against exact update counts and hotness_picks_agree those
// the exact counts would have made too. log_entries is a gauge (entries in each level's log,
// Level 1 first), set by Engine::Stats().
// Point lookups (Get, GetMany): get_files_checked counts the files (runs) whose key range
// admitted the key, each of which the lookup then checked through its filter or its level's
// hash table (level 0's runs, a level's file covering the key, its L2SM log files covering
// it; not LSbM's buffered copies), gets_found the lookups that found the key (a value; the
// write buffer's answers included, with no file checked) and found_get_files_checked the
// files those checked: found_get_files_checked / gets_found is the probes per existing-key
// lookup, the paper's "number of times to check SSTables" (Tidal-tree, Fig. 5).
// Tidal-tree's floating (floating.h; all 0 without Options::float_gamma): floats counts the
// floats, floated_entries the entries they wrote into their destination levels (the
// candidates' entries that were not shadowed) and float_dropped_entries the candidates'
// entries dropped as shadowed by newer levels. float_eta is a gauge (the read/write ratio
// eta the floats use now), set by Engine::Stats().
// [paged metadata] (Options::paged_metadata; all 0 pinned): filter_read and index_read are
// the purposes of the filter and index blocks (run.h's metadata tail) read from disk: by point
// lookups on a cache miss, and (index_read) by scans, which need each overlapping file's index;
// they are in Total() (a lookup's I/O is its data blocks, point_read, plus these), so
// point_read and the data-block cache counters stay data blocks only. Per level, as the
// cache counters: filter_hits/filter_misses count the filter blocks a point lookup found
// cached / read (one per run probed that has a filter), index_hits/index_misses the same for
// index blocks (one per probe the filter passes, and per run a scan opens; a scan's index
// misses are not inserted, as it fills no cache). sum(filter_misses) counts the reads, and
// filter_read.blocks_read the blocks they took (a filter block spans
// ceil(bytes / block_bytes) of the file's blocks). paged_meta_written counts the tails written
// (by flushes, merges and opens that page runs), apart from the purposes and Total(), like the
// checksum section. meta_cache_bytes (gauge) is what the cache's metadata entries are charged
// now, and pinned_meta_bytes (gauge) the bytes of filters and fences that lookups use from
// memory: every run's filter bits and fences pinned, 0 paged (the fences' copy merges and
// scans keep is not used by lookups, see run.h).
// Bytes are counted as actually transferred (a block is block_bytes bytes). Metadata is
// counted apart from these purposes (and from Total()), since the cost model does not
// price it: the MANIFEST (manifest_bytes_written), the write-ahead log
// (wal_bytes_written) and the checksum section at the end of every run file
// (checksums: written by flushes and merges, read on recovery).
#ifndef WACKY_NATIVE_ENGINE_IO_STATS_H_
#define WACKY_NATIVE_ENGINE_IO_STATS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices.h"
#include "space_meter.h"

namespace wacky {

struct IOCounter {
  uint64_t blocks_read = 0;
  uint64_t bytes_read = 0;
  uint64_t blocks_written = 0;
  uint64_t bytes_written = 0;

  void Add(const IOCounter& o) {
    blocks_read += o.blocks_read;
    bytes_read += o.bytes_read;
    blocks_written += o.blocks_written;
    bytes_written += o.bytes_written;
  }
};

enum class Purpose { kFlush, kMerge, kPointRead, kRangeRead, kRecovery, kFloat };

// Where the next I/O is charged. level is used for kMerge only (1-based).
struct IOTag {
  Purpose purpose = Purpose::kRecovery;
  int level = 0;
};

class IOStats {
 public:
  IOCounter flush;
  IOCounter point_read;
  IOCounter range_read;
  IOCounter recovery;
  IOCounter floating;  // [floating] ("float" is taken)
  IOCounter filter_read, index_read;  // [paged metadata]
  IOCounter paged_meta_written;       // [paged metadata] outside Total()
  std::vector<IOCounter> merge;  // merge[i-1] is "merge into Level i"

  IOCounter checksums;
  uint64_t manifest_bytes_written = 0;
  uint64_t wal_bytes_written = 0;
  uint64_t wal_syncs = 0;
  // What the last open did: log bytes dropped as a torn tail (or, point in time, as
  // accepted loss), log entries replayed, and unlisted files moved to lost/.
  uint64_t wal_dropped_bytes = 0;
  uint64_t wal_replayed_entries = 0;
  uint64_t files_moved_to_lost = 0;
  uint64_t puts = 0, deletes = 0, gets = 0, scans = 0;
  uint64_t flushes = 0, merges = 0, major_compactions = 0;
  // Merges into each level ([0] = level 0, always 0; [i] = Level i, as it was numbered when
  // the merge ran), under file-granular merges only (file_compaction.h); empty otherwise.
  std::vector<uint64_t> merges_per_level;
  uint64_t runs_created = 0, runs_deleted = 0;
  uint64_t range_runs_probed = 0;
  // Point lookups: files checked, lookups that found the key and the files they checked.
  uint64_t get_files_checked = 0, gets_found = 0, found_get_files_checked = 0;
  double merge_seconds = 0.0;  // wall time spent in flushes and merges (write path)
  std::vector<uint64_t> cache_hits, cache_misses;  // [0] = level 0, [i] = Level i
  uint64_t cache_invalidated_blocks = 0;
  uint64_t cache_blocks = 0;
  // [paged metadata] (see above): per level, [0] = level 0, [i] = Level i.
  std::vector<uint64_t> filter_hits, filter_misses, index_hits, index_misses;
  uint64_t meta_cache_bytes = 0, pinned_meta_bytes = 0;  // gauges, set by Engine::Stats()
  // [compaction buffer] (compaction_buffer.h; all 0 without Options::compaction_buffer):
  // point reads answered by a buffered file (found or deleted), buffered files dropped by the
  // trim and otherwise (drained at the pace of the merges, or with Level 1's buffer), and,
  // at the last open, buffered files that could not be read (replaced by markers). Gauges set
  // by Engine::Stats(): live buffered files, their bytes on disk, and their entries per level
  // ([0] = level 0, always 0; [i] = Level i).
  uint64_t buffer_reads = 0, buffer_trimmed = 0, buffer_drained = 0, buffer_unreadable = 0;
  uint64_t buffer_files = 0, buffer_bytes = 0;
  std::vector<uint64_t> buffer_entries;
  // L2SM's per-level log (see above; all 0 without Options::log_ratio).
  uint64_t pseudo_compactions = 0, aggregated_compactions = 0, log_files_merged = 0;
  uint64_t hotness_picks = 0, hotness_picks_agree = 0;
  std::vector<uint64_t> log_entries;  // [i] = Level i+1's log
  // Tidal-tree's floating (see above; all 0 without Options::float_gamma).
  uint64_t floats = 0, floated_entries = 0, float_dropped_entries = 0;
  double float_eta = 0.0;
  // The bytes of the run files on disk, now and at their most (space_meter.h): the engine's
  // meter, shared with every run it writes or opens (a copy of the stats shares it too).
  std::shared_ptr<SpaceMeter> space = std::make_shared<SpaceMeter>();
  // Where the engine's run files live, with each device's byte counts (devices.h): set by the
  // engine at open and shared like `space`. Null (a bare test harness): one directory.
  std::shared_ptr<const Devices> devices = nullptr;

  // One point-read block at `level` (0 = level 0): found in the cache, or read from disk.
  void CountCacheLookup(size_t level, bool hit);
  // [paged metadata] One filter or index block lookup at `level`.
  static void CountAt(std::vector<uint64_t>* v, size_t level);
  uint64_t CacheHits() const;
  uint64_t CacheMisses() const;

  IOCounter& For(const IOTag& tag);
  // Sum over all purposes.
  IOCounter Total() const;
  IOCounter MergeTotal() const;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_IO_STATS_H_
