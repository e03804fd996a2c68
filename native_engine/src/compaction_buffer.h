// compaction_buffer.h — LSbM-tree's compaction buffer (Teng et al., ICDE 2017, Sections III-V),
// for file-granular designs (Options::granularity = kFileGranularity, file_compaction.h).
//
// Why: a merge rewrites the files of the level it merges into, so every block of theirs that
// the block cache held is invalidated, and hot keys miss until the cache warms up again. The
// file the drain moves down, though, is already on disk and its hot blocks are cached. LSbM
// keeps that file (no I/O) as a "buffered" copy beside the level it went into, and serves
// point reads of hot keys from it, so their cached blocks keep serving after the merge.
//
// Contract:
//   * Each Level i >= 2 (Level::buffer) holds a buffer list B_i: tables B_i^0 (newest) ..
//     B_i^j, each a list of files, disjoint and in key order. An entry of a table is a live
//     file (a Run, still on disk) or a removed marker: only the key range of a file dropped
//     from the buffer, whose data is gone (Section V's correctness rule, below). Level 1 has
//     no buffer: its inputs are the write buffer and level 0's runs, not files of a level
//     above, so nothing would fence the newer versions a flush brings (FileCompaction clears
//     it whenever a level becomes Level 1).
//   * Buffered merge (BufferMovedFile): when the drain merges file f of Level i into Level
//     i+1, f is not deleted but appended to B_{i+1}^0 (no I/O: only the Version changes).
//     B^0 takes f unless f's key range overlaps an entry B^0 already holds; then a new B^0
//     starts. So a table never holds two versions of a key, and of two overlapping entries the
//     later one is always in a newer table. Under file_pick = kRoundRobin this starts one table
//     per sweep of the level above over the key space, the paper's "merge round"; under
//     kLeastOverlap, whenever a pick comes back over a range B^0 already covers. A hash-indexed
//     file (Options::hash_levels) gets a Bloom filter at its old level's FPR when buffered,
//     as Level::RefreshFilters does for a level leaving the hash-table range.
//   * Drain at the pace of the merges (rule b): when f leaves Level i, the entries of B_i whose
//     key ranges lie inside f's range become markers: f, now in B_{i+1}^0, holds those keys
//     sorted and newer, and a read of them no longer reaches Level i's tree files (f left).
//   * Trim (Section IV-B, TrimBuffers): every Options::buffer_trim_interval merges, a live file
//     of any table but B^0 whose share of data blocks in the block cache is below
//     Options::buffer_trim becomes a marker (BlockCache::CachedBlocks, an O(1) counter).
//     The engine plans the trim on a copy of its Version and commits it with the next flush,
//     in that flush's MANIFEST; a file dropped from the buffer is deleted only once that
//     MANIFEST is durable (FileCompaction::Install), so a crash keeps it listed.
//   * Markers: a marker is dropped once no older live file of its buffer overlaps it (then
//     no walk that it would stop could have reached an older copy anyway); a table left empty
//     is dropped. Unlike the paper, which keeps only a removed file's smallest and largest
//     key, a marker made in this process keeps the removed file's Bloom filter in memory
//     (until the marker goes) and fences only the keys it may have held: a filter has no false
//     negatives, so a key the removed file held is still fenced, while a cold file whose range
//     merely spans hot keys no longer hides their older buffered copies. Filters are not
//     written down: a marker read back from the MANIFEST fences its whole range.
//   * Freezing (the paper freezes B_{i+1} while repeated keys arrive) is left out: it is not
//     needed for correctness here (entries shadowed by newer copies stop being read, their
//     blocks leave the cache and the trim drops them), and the paper's test (entries merged
//     into C_{i+1} exceed its growth) fires under any update workload, which would turn
//     exactly the hot, updated files into markers.
//   * Reads (Algorithm 3, Get): a point read at Level i >= 2 first finds the tree file covering
//     the key and checks its filter (or hash-table signature); only when it may hold the key
//     does it walk B_i newest table first: in each table the entry covering the key, if any;
//     a marker that may have held the key stops the walk; a live file whose filter admits the
//     key has its block read through the block cache (that is the point); a value or
//     tombstone found there is the answer. Unlike Algorithm 3, the engine reads a block of an
//     older table than B^0 only when it is cached, and otherwise stops the walk: B^0 is still
//     warming up (Section IV-B), but a cold block of an older table is a false positive's or a
//     copy the trim is about to drop, and reading it costs the tree block's I/O and cache
//     room. (`wacky sweep lsbm`, uniform updates, T = 10: hit rate 0.853 with Algorithm 3's
//     walk, 0.881 with this one, 0.902 without the buffer; engine_buffer_io_test, hot keys
//     only read: 0.957 with this walk, 0.890 without the buffer.) When the walk ends
//     without an answer, the tree file's block answers. Scans read the tree only (always
//     correct: the tree holds every live version).
//   * Why a buffered answer is never stale. Let b, buffered in B_i (i >= 2), hold version v of
//     key k: v entered Level i's tree when b was merged into it. A later version of k can
//     enter Levels >= i only through Level i (data moves one level down at a time), and Level
//     i >= 2 is entered only by a drain of Level i-1 (flushes enter Level 1 alone; a level
//     that becomes Level 1 loses its buffer). Every drained file f is appended to B_i, and
//     since f holds k it overlaps b, so it lands in a newer table than b's. Entries then only
//     turn into markers, never move; a marker keeps f's key range (and, in memory, its filter,
//     which admits k) and is dropped only once no older live file overlaps it, which b does.
//     So a walk, newest table first, meets f's copy of k or its marker before b: it returns v
//     only when no newer version of k entered Levels >= i since v did, i.e. v is the newest
//     version of k at Levels >= i, the tree's own answer below the levels the read has already
//     passed (whether v still sits in Level i or moved on down; a tombstone v dropped at Level
//     L answers "absent" just as the tree does). Entries of one table are disjoint, so the
//     walk sees at most one per table. The buffer of Level i is consulted only when Level i's
//     tree file may hold k; skipping it is always correct, the tree being authoritative.
//   * Persistence: Manifest::buffers records, per level, the tables (newest first) with each
//     live file's RunRecord and each marker's key range, in an optional section of the
//     MANIFEST (EncodeBufferSection / DecodeBufferSection) whose presence also records
//     compaction_buffer = true; a MANIFEST without it (every older one) has no buffer.
//     RecoverBuffers rebuilds the buffers exactly. A buffered file is a copy (the tree holds
//     its entries or newer ones), so one that cannot be read at open is replaced by a marker
//     of its key range, counted, and its file left where it is (a later open moves it to
//     lost/: it is no longer listed, and nothing proves it obsolete).
#ifndef WACKY_NATIVE_ENGINE_COMPACTION_BUFFER_H_
#define WACKY_NATIVE_ENGINE_COMPACTION_BUFFER_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bloom_filter.h"
#include "manifest.h"
#include "run.h"

namespace wacky {

class BlockCache;
struct Level;

// One entry of a buffer table: a live buffered file, or the marker of one removed.
struct BufferedFile {
  RunPtr run;  // null for a removed marker
  uint64_t min_key = 0;
  uint64_t max_key = 0;
  // A marker made in this process: the removed file's Bloom filter, so that the marker fences
  // only the keys the file may have held. Null (a marker read from the MANIFEST, or of a file
  // without a filter): it fences its whole key range.
  std::shared_ptr<const BloomFilter> fence;
  bool removed() const { return run == nullptr; }
  // For a marker: true if the removed file may have held the key (then the walk stops).
  bool Fences(uint64_t hash) const { return fence == nullptr || fence->MayContainHash(hash); }
};

// One sorted table B_i^j: entries disjoint, in key order.
using BufferTable = std::vector<BufferedFile>;

// The buffer list B_i of one level. A value type (entries share their runs), copied with the
// Version like the level's runs.
class CompactionBuffer {
 public:
  bool empty() const { return tables_.empty(); }
  // Newest table first.
  const std::vector<BufferTable>& tables() const { return tables_; }

  // Appends `file`, merged out of the level above, to B^0, or to a new B^0 when it overlaps
  // an entry of B^0 (contract).
  void Append(const RunPtr& file);
  // Rule (b): every live file whose key range lies inside [lo, hi] becomes a marker.
  // Returns how many did.
  uint64_t DropInside(uint64_t lo, uint64_t hi);
  // The trim: every live file of the tables after B^0 whose share of data blocks cached in
  // `cache` is below `threshold` becomes a marker. Returns how many did.
  uint64_t Trim(double threshold, const BlockCache& cache);
  // Drops every entry; returns how many live files there were.
  uint64_t Clear();

  // Algorithm 3's walk for `key` (hash = Hash64(key)). `read(run, block, in_b0)` looks the
  // key up in that block of that buffered run (in_b0: the run is in B^0) and returns the
  // Run::Lookup, or nullopt when it will not read the block (the engine's walk reads an older
  // table's block only when it is cached, contract): the walk stops there.
  // kFound or kDeleted: the answer (value copied by `read`); kAbsent: the buffer does not
  // answer (a marker fenced the key, a block was not read, or no table holds it): read the
  // tree file.
  template <typename ReadBlock>
  Run::Lookup Get(uint64_t key, uint64_t hash, ReadBlock&& read) const {
    for (size_t t = 0; t < tables_.size(); ++t) {
      const BufferedFile* f = Covering(tables_[t], key);
      if (f == nullptr) continue;
      if (f->removed()) {
        if (f->Fences(hash)) return Run::Lookup::kAbsent;  // a newer version may have been here
        continue;
      }
      if (!f->run->MayContain(key, hash)) continue;
      const std::optional<Run::Lookup> res =
          read(*f->run, f->run->BlockFor(key), t == 0);
      if (!res) return Run::Lookup::kAbsent;  // the block is not cached: the tree answers
      if (*res != Run::Lookup::kAbsent) return *res;
    }
    return Run::Lookup::kAbsent;
  }

  // The live files, newest table first.
  std::vector<RunPtr> Files() const;
  uint64_t live_files() const;
  uint64_t markers() const;
  uint64_t entries() const;     // of the live files
  uint64_t file_bytes() const;  // on disk, of the live files

  // The tables as recorded in a MANIFEST, and back. FromRecords checks that every table is
  // disjoint and in key order (throws Corruption naming `path` otherwise); `open(record)`
  // reopens a live file and returns null when it cannot be read (it then becomes a marker).
  std::vector<std::vector<BufferedRecord>> Records() const;
  static CompactionBuffer FromRecords(const std::vector<std::vector<BufferedRecord>>& tables,
                                      const std::function<RunPtr(const RunRecord&)>& open,
                                      const std::string& path);

 private:
  // The entry of `table` whose key range covers key, or null (binary search).
  static const BufferedFile* Covering(const BufferTable& table, uint64_t key);
  // Drops the markers no older live file overlaps, then the empty tables.
  void Collect();

  std::vector<BufferTable> tables_;
};

// ---- hooks of the flush (file_compaction.cc) and the engine ------------------------------

// `file`, the file of (*levels)[i] that the drain merges into (*levels)[i + 1]: appended to
// the buffer of (*levels)[i + 1], after the buffer of (*levels)[i] was drained of the
// entries inside its key range (rule b). Returns the live files so drained.
uint64_t BufferMovedFile(std::vector<Level>* levels, size_t i, const RunPtr& file);
// The trim of every level's buffer (contract); returns the files dropped.
uint64_t TrimBuffers(double threshold, const BlockCache& cache, std::vector<Level>* levels);
// Clears the buffer of Level 1 ((*levels)[0]) after a reshape; returns the files dropped.
uint64_t ClearLevel1Buffer(std::vector<Level>* levels);
// Every live buffered file of `levels`.
std::vector<RunPtr> BufferedFiles(const std::vector<Level>& levels);

// ---- MANIFEST -----------------------------------------------------------------------------

// The tag that opens the MANIFEST's optional buffer section (after level 0's runs).
constexpr const char* kBufferSectionTag = "compaction_buffer";
// Writes the section for m.buffers (one list per level of m.levels); called only when
// m.options.compaction_buffer.
void EncodeBufferSection(const Manifest& m, std::ostream* os);
// Reads the section after its tag into m->buffers and sets m->options.compaction_buffer;
// throws Corruption naming `path` when it is malformed.
void DecodeBufferSection(std::istream* is, const std::string& path, Manifest* m);
// The live buffered files m records, each with its level (1 = Level 1), Level 1 first.
std::vector<std::pair<int, RunRecord>> BufferedRecords(const Manifest& m);
// Rebuilds the buffers m records into `levels` (aligned with m.levels), reopening each live
// file with `open` (null: it cannot be read; it becomes a marker, counted in *unreadable).
void RecoverBuffers(const Manifest& m, const std::function<RunPtr(const RunRecord&)>& open,
                    const std::string& path, std::vector<Level>* levels, uint64_t* unreadable);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_COMPACTION_BUFFER_H_
