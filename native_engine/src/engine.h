// engine.h — the storage engine facade.
//
// Contract:
//   * Engine(path, options) opens or creates the directory `path`. A new directory
//     records `options` in its MANIFEST; an existing one must have been created with
//     the same design and layout (T, C, X, K, Z, entry/block/buffer bytes, filter
//     budget, hash_levels) and compaction options (granularity, file_bytes, file_pick,
//     level1_runs, and the stored rows of options.h OptionTable(): L2SM's log_ratio,
//     log_alpha and log_batch_cap, LSbM's compaction_buffer, OHDB's l0_partitions,
//     Tidal-tree's float_gamma, float_alpha, float_probe_cost and float_stretch), otherwise
//     std::invalid_argument names the first difference (the engine refuses rather than
//     silently adopting other knobs). Reopening reads every run once (counted under
//     "recovery"), checking its footer against the MANIFEST, to rebuild fences and
//     filters (and reads a run's metadata tail, paged metadata below, if it has one); then checks every write-ahead log the MANIFEST lists
//     as live (a missing one is an error unless options.wal_recovery is point-in-time, wal.h
//     for what each mode drops) before replaying any, replays them, flushes what they held
//     and starts a new log. Only then are files the MANIFEST does not list deleted (with
//     proof) or moved to lost/ (recovery.h). A failed open changes no file. An flock on the
//     directory itself keeps two engines, in any processes, from sharing it. A directory
//     holding run files or logs but no MANIFEST is refused (IOError, ENOENT) and left
//     untouched; so is an existing directory with no MANIFEST and no log that holds
//     anything else (std::invalid_argument naming it and what it holds,
//     directory_check.h RefuseForeignDirectory): the engine does not write its files
//     beside another program's.
//   * With options.wal, every write call appends its entries to the log as one batch
//     before it returns: they survive a crash of the process, and with options.sync also a
//     power loss. A batch (PutMany) is all or nothing after a crash: it is logged whole
//     before any of it is applied, and a flush in the middle of applying it keeps its log
//     live until the batch is applied in full. If a write or fdatasync of the log fails,
//     the log is abandoned: the call flushes the buffer into a run (making it durable that
//     way) and starts a new log; only if that flush fails too does the call raise. A
//     PutMany whose batch could not be logged raises with none of the batch applied.
//   * Put/Delete go to the buffer; when the buffer is full it is flushed *before* the
//     new write is applied, so a failed flush (IOError) leaves both the buffer and the
//     runs unchanged and the failed write unapplied. Every merge builds the next tree
//     version as a copy, writes the new run and the MANIFEST, and only then installs
//     it; on failure the new run file is removed and the visible contents are intact.
//   * Get reads at most one block per run whose filter (or level hash table) and
//     fences admit the key (level 0's runs newest first, then Level 1 on; in a level of
//     files only the file covering the key is probed, LSbM's compaction buffer of the level
//     first when that file may hold the key (below), then, with L2SM's per-level log
//     (sst_log.h), each of the level's log files whose key range covers the key, newest
//     first, before the next level); Scan returns a ScanIterator over a stable snapshot,
//     reading log files as further sources at that same place.
//   * L2SM (options.log_ratio > 0): the engine keeps the update counts of hotness.h, in
//     memory, recording each committed flush's keys once.
//   * [floating] Tidal-tree (options.float_gamma > 0; floating.h): the engine keeps the read
//     counts of the files and the read/write ratio (ReadHeat), in memory, counted by Get,
//     GetMany, puts and deletes; flushes float hot files up by them (file_compaction.h). A
//     lookup only counts: reads never write. Every lookup, with floating or without, counts
//     the files it checked (io_stats.h get_files_checked, gets_found,
//     found_get_files_checked).
//   * Block cache (block_cache.h, options.cache_bytes; 0 = off): Get and GetMany look every
//     block they need up in an LRU cache of data blocks first. A hit costs no read (and is
//     not counted in point_read); a miss reads the block from disk, checks its checksum,
//     counts it in point_read and inserts it. Scans, flushes, merges, recovery and Verify
//     neither use nor fill the cache (like RocksDB's fill_cache = false for scans and
//     compaction reads), so a long scan or a merge cannot evict the hot point-read blocks.
//     When a flush or merge installs a new Version, the cached blocks of every run that the
//     old Version held and the new one does not are erased (counted in
//     cache_invalidated_blocks); Close() empties the cache. Hits and misses are counted
//     per level (io_stats.h).
//   * [paged metadata] With options.paged_metadata (options.h), every run file carries its
//     filter block and index block (run.h, the metadata tail), written before the MANIFEST
//     lists the run (a flush or merge's outputs; at open, every recovered run without a sound
//     tail), and the in-memory filter bits are released. Get and GetMany then probe a run as
//     RocksDB's BlockBasedTable::Get does with cache_index_and_filter_blocks: the key range
//     (in memory, the MANIFEST's), then the filter block, then, if it passes the key, the
//     index block, each looked up in the block cache (the same LRU and byte capacity as the
//     data blocks, charged its own bytes), read from the file on a miss (checked against its
//     CRC, counted under filter_read / index_read) and inserted. Flushes and merges do not
//     insert their outputs' blocks (RocksDB's prepopulate_block_cache = kDisable). A scan
//     reads the index block of each file it opens unless cached, without inserting it.
//     Answers are pinned mode's: the blocks hold the same bits. The mode is not part of the
//     design: a directory reopens in either (a pinned open ignores the tails).
//   * Close() flushes the buffer (so reopening gives the same contents), writes the
//     MANIFEST and releases the directory; every later call throws EngineClosed. When
//     the flush is refused because the data outgrew the design (engine_limits.h), the
//     write-ahead log keeps the buffer instead and reopening replays it (without a log,
//     Close() raises the refusal).
//   * Salvage mode (options.salvage; RocksDB has no exact twin: think OpenForReadOnly with
//     best-effort recovery). Opens an existing directory (one with a MANIFEST; otherwise
//     IOError ENOENT) read-only, for reading out what a damaged directory still holds:
//       - A listed run file that cannot be read (missing, truncated, a block or its footer
//         failing its checksum, swapped or foreign) is set aside instead of failing the
//         open: it stays where it is, untouched, and SetAside() describes it (file, level,
//         key range and entry counts, from the checksummed MANIFEST, and the damage found).
//         The MANIFEST itself must be sound, and the live logs are checked as in a normal
//         open (options.wal_recovery), then replayed into memory only.
//       - Nothing in the directory changes: no log is created or deleted, no file moved to
//         lost/, no flush, no MANIFEST write, not even at Close(). Put, Delete, PutMany and
//         Flush throw IOError(EROFS). Read-only because a flush or merge would write the
//         tree without the runs set aside: the loss would become permanent, and older
//         versions of their keys would be served as if current.
//       - Reads never return a wrong value. A set-aside run may hold the newest version (or
//         a tombstone) of any key in its [min_key, max_key]: Get/GetMany of such a key throw
//         Corruption naming the run and its range once the lookup reaches the run's place
//         in the tree without an answer (a key written later, in the logs or a newer run,
//         is still answered); Scan throws Corruption when [lo, hi] overlaps a set-aside
//         run's range. Every other key is answered exactly as a normal open would.
//     With nothing set aside, salvage is simply a read-only open. Verify() checks the served
//     runs and counts the set-aside ones (VerifyReport::set_aside).
//   * [compaction buffer] With options.compaction_buffer (file granularity only, and not
//     with L2SM's log: options.h), LSbM-tree's compaction buffer (compaction_buffer.h): a
//     file the drain merges down stays on disk, buffered beside the level it went into, and
//     Get/GetMany at a Level i whose tree file may hold the key look it up in that level's
//     buffer first (Algorithm 3), through the block cache; a buffered answer is never stale (the proof is in compaction_buffer.h). Scans
//     read the tree only. Every options.buffer_trim_interval merges, the next flush also
//     trims the buffers (planned on a copy of the tree, committed in that flush's MANIFEST),
//     dropping buffered files whose share of cached blocks is below options.buffer_trim; a
//     buffered file is deleted only once the MANIFEST that drops it is durable. Buffering
//     writes nothing: flushes and merges do the same I/O with or without it. Verify() checks
//     buffered files too; Levels() lists each level's buffer tables.
//   * All public methods are thread safe (one mutex). The bindings release the GIL for
//     every call that may wait for that mutex or do I/O beyond a block read.
//   * Methods named TEST_* are hooks for tests only; the Python API does not expose
//     them (they are bound in the submodule native_engine._engine.testing).
//
// Compaction (compaction_strategy.h, chosen once at open: compaction.h, file_compaction.h),
// recovery (recovery.h) and the OS layer (env.h) live in their own files; this one is the
// facade and the read path.
#ifndef WACKY_NATIVE_ENGINE_ENGINE_H_
#define WACKY_NATIVE_ENGINE_ENGINE_H_

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_cache.h"
#include "buffer.h"
#include "compaction_strategy.h"
#include "env.h"
#include "file_io.h"
#include "floating.h"
#include "hotness.h"
#include "io_stats.h"
#include "options.h"
#include "recovery.h"
#include "version.h"
#include "wal.h"

namespace wacky {

class ScanIterator;

class EngineClosed : public std::logic_error {
 public:
  EngineClosed() : std::logic_error("operation on a closed Engine") {}
};

struct RunInfo {
  uint64_t id, entries, tombstones, blocks, file_bytes, min_key, max_key;
  double filter_bits_per_key;  // actual filter bits / entries (0 without a filter)
  double filter_bits_target;   // ln(1/p_i)/ln(2)^2 asked by the allocation
  int filter_probes;
  bool hash_indexed;
  double theoretical_fpr;  // of the run's own filter (1 without one)
  double fpr_given_fill;   // (bits set / bits)^k of the run's filter
  std::string file;        // the run file's path, on its device (devices.h)
};

struct VerifyReport {
  uint64_t runs = 0;
  uint64_t blocks = 0;   // data and tombstone blocks read and checked
  uint64_t entries = 0;  // keys checked against their run's fences and filter
  uint64_t set_aside = 0;  // salvage mode: runs set aside as unreadable at open (not checked)
};

// Levels() lists level 0 first (level = 0, only with Options::level1_runs > 1: the flushes
// waiting to merge, with ratio = max_runs = level1_runs and capacity = level1_runs buffers;
// it is not part of the shape), then Level 1..L (level = 1..L). With `files` set (Levels
// 1..L of a strategy whose levels are files, compaction_strategy.h: kFileGranularity) a level
// is ONE sorted run and `runs` lists its files in key order, disjoint; count it as one run
// (a_i = 1) wherever runs are counted. `log` lists the level's L2SM log files (sst_log.h),
// oldest first, empty without logs.
// [compaction buffer] An entry of a level's compaction buffer (compaction_buffer.h): a live
// buffered file, or (removed) a marker with only its key range.
struct BufferedInfo {
  uint64_t id, entries, blocks, file_bytes, min_key, max_key;
  uint64_t cached_blocks;  // of its data blocks, in the block cache now
  bool removed;
};

struct LevelInfo {
  int level;
  double ratio, capacity, max_runs, fpr;
  bool hash_table;
  int hash_sig_bits;
  std::vector<RunInfo> runs;
  bool files;
  double held_runs = 1.0;  // max_runs capped at the capacity in buffers (Level::held_runs)
  // [compaction buffer] The level's buffer tables, newest first (empty without the buffer).
  std::vector<std::vector<BufferedInfo>> buffer = {};
  // L2SM: the level's log files, oldest first (they may overlap), and its capacity in entries.
  std::vector<RunInfo> log{};
  double log_capacity = 0.0;
};

class Engine {
 public:
  Engine(const std::string& path, const Options& options, bool retain_obsolete_runs = false);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void Put(uint64_t key, const uint8_t* value);  // value: options().value_bytes() bytes
  void Delete(uint64_t key);
  // Copies the value into value_out (value_bytes) and returns true if the key exists.
  bool Get(uint64_t key, uint8_t* value_out);
  void PutMany(const uint64_t* keys, const uint8_t* values, size_t n);
  // Fast paths for callers that hold a lock of their own (the bindings hold Python's GIL).
  // They do the work only if it is short: the engine's mutex is free and, for a write, no
  // flush or fdatasync is due. Otherwise they return false having done nothing, and the
  // caller releases its lock and calls Get/Put/Delete. Releasing the GIL for a 2 us call
  // would cost far more: a busy Python thread keeps it for up to its switch interval.
  bool TryGet(uint64_t key, uint8_t* value_out, bool* found);
  bool TryWrite(uint64_t key, const uint8_t* value, bool tombstone);
  void GetMany(const uint64_t* keys, size_t n, uint8_t* values_out, bool* found_out);
  std::unique_ptr<ScanIterator> Scan(uint64_t lo, uint64_t hi);
  // Forces the buffer out as a flush (no-op when empty).
  void Flush();
  void Close();
  // Reads every block of every run and checks it against its checksum, and every
  // run's filter against its checksum and its keys (Run::Verify); throws Corruption at
  // the first damage found.
  VerifyReport Verify();
  bool closed() const { return closed_.load(); }  // lock-free: safe beside any call
  // Salvage mode: the runs set aside at open, as the MANIFEST lists them (Level 1 first,
  // level 0 last); empty when nothing was damaged, and always empty in a normal open.
  const std::vector<DamagedRun>& SetAside() const { return set_aside_; }
  bool read_only() const { return options_.salvage; }

  const Options& options() const { return options_; }
  // The counters, with cache_blocks set and the per-level cache counters sized to at least
  // the current levels (1 + L entries: level 0, then Level 1..L).
  IOStats Stats() const;
  // Starts the high-water mark of the run files' bytes (IOStats::space) again from now.
  void ResetPeakSpace() { stats_.space->ResetPeak(); }
  std::vector<LevelInfo> Levels() const;
  double n_est() const;
  uint64_t buffer_size() const;

  // Test hook: allow `bytes` more bytes of writes, then fail every write with ENOSPC;
  // -1 disarms.
  void TEST_InjectWriteFailure(int64_t bytes);
  // Test hook: while `fail` is set, every fdatasync of the write-ahead log fails (EIO).
  void TEST_FailLogSync(bool fail);
  // Test hook: damages the in-memory filter of the newest run with one; false if none.
  bool TEST_DamageFilter();

 private:
  friend class ScanIterator;
  void CheckOpen() const;
  void PutLocked(uint64_t key, const uint8_t* value, bool tombstone);
  // A point lookup: LookupLocked, counted (io_stats.h; the read counts of floating.h).
  bool GetLocked(uint64_t key, uint8_t* value_out);
  // The lookup itself; adds the files it checked (key range admits the key) to *checked.
  bool LookupLocked(uint64_t key, uint8_t* value_out, uint64_t* checked);
  // A file of Levels 1..L whose key range admits the lookup's key is checked.
  void CountChecked(const Run& r, uint64_t* checked) {
    ++*checked;
    if (heat_) heat_->Checked(r.id());
  }
  // Looks key up in block b of r through the cache: a hit reads nothing, a miss reads the
  // block (counted in point_read) and caches it. `level`: 0 = level 0, i = Level i.
  Run::Lookup GetCached(const Run& r, uint64_t key, uint64_t b, size_t level,
                        uint8_t* value_out);
  // Whether run r may hold key (hash h), and then the data block that would: pinned, the
  // filter and fences in memory; [paged metadata] paged, the filter block and (if it passes)
  // the index block through the cache (MetaBlock). `level`: 0 = level 0, i = Level i.
  bool Probe(const Run& r, uint64_t key, uint64_t h, size_t level, uint64_t* block);
  // [paged metadata] r's filter or index block (which: BlockCache::kFilterBlock or
  // kIndexBlock) from the cache, else read from the file (filter_read or index_read) and,
  // with fill, inserted; counted as a hit or miss at `level`. Valid until the next call.
  const uint8_t* MetaBlock(const Run& r, uint64_t which, size_t level, bool fill);
  // [paged metadata] Gives every run of v that is not paged yet its metadata tail.
  void PageRuns(const Version& v);
  // [compaction buffer] Algorithm 3: the buffer of `l` (Level `level`) answers key, or
  // returns kAbsent (then the tree file does).
  Run::Lookup BufferGet(const Level& l, size_t level, uint64_t key, uint64_t h,
                        uint8_t* value_out);
  // Erases from the cache every block of a run in `before` (sorted run ids) that current_
  // no longer holds.
  void EraseDroppedRuns(const std::vector<uint64_t>& before);
  void FlushLocked();
  // Makes `next_version` durable (the MANIFEST, with a new log), then calls `install`,
  // clears the buffer and retires the logs no longer live.
  void CommitFlush(const Version& next_version, const std::function<void()>& install);
  void CommitLog();
  // Writes the MANIFEST of `v` with `live_logs` as its live logs (generation + 1).
  void WriteManifest(const Version& v, const std::vector<uint64_t>& live_logs);
  void OpenDirectory();
  // Throws IOError(EROFS) naming `what` in salvage mode.
  void CheckWritable(const char* what) const;
  // Salvage mode: throws Corruption if `key` lies in the range of a run set aside in lookup
  // level `level` (-1 = level 0, i = current_.levels[i]; in its log when `in_log`) with at
  // least `min_older` served runs older than it: a run the lookup has reached without an
  // answer.
  void CheckSetAside(int level, size_t min_older, uint64_t key, bool in_log = false) const;
  // Makes hotness_ (L2SM only), sized for the data current_ describes.
  void MakeHotnessTracker();
  uint64_t ExpectedKeys() const;

  std::string path_;
  Options options_;
  bool retain_;
  mutable std::mutex mu_;
  std::atomic<bool> closed_{false};  // written under mu_
  std::unique_ptr<DirLock> lock_;  // held from construction until Close()
  std::vector<std::unique_ptr<DirLock>> device_locks_;  // [devices] the other devices' dirs
  std::unique_ptr<LogWriter> log_;  // null without options.wal, and while replaying logs
  // The logs the MANIFEST lists as live, oldest first (log_, if any, is the last): every log
  // holding a write that no run holds yet.
  std::vector<uint64_t> live_logs_;
  uint64_t next_log_number_ = 1;
  uint64_t generation_ = 0;         // of the MANIFEST on disk
  std::vector<uint64_t> obsolete_;  // runs merged away whose files may remain (MANIFEST)
  bool replaying_ = false;          // open: flushes keep the live logs as they are
  // While a PutMany applies a logged batch: the number of the log holding it, which every
  // flush meanwhile keeps live (with every later log), so a crash replays the whole batch.
  uint64_t batch_log_ = 0;
  Buffer buffer_;
  // Chosen from options_.granularity once, after options_ passed Validate() (buffer_).
  const std::unique_ptr<const CompactionStrategy> strategy_;
  Version current_;
  IOStats stats_;
  BlockCache cache_;
  std::vector<uint8_t> block_;  // a block read by GetCached
  std::vector<uint8_t> filter_block_, index_block_;  // [paged metadata] read by MetaBlock
  FaultInjector faults_;
  std::vector<std::pair<uint32_t, uint32_t>> candidates_;  // reused by GetLocked
  std::vector<DamagedRun> set_aside_;  // salvage mode: the runs left out at open
  uint64_t buffer_trim_merges_ = 0;  // [compaction buffer] stats_.merges at the last trim
  std::unique_ptr<HotnessTracker> hotness_;  // L2SM's update counts; null without logs
  std::unique_ptr<ReadHeat> heat_;  // [floating] the files' read counts; null without floats
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENGINE_H_
