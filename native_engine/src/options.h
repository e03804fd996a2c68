// options.h — the design and layout knobs of one engine instance.
//
// Contract: Options is a plain value. Validate() throws std::invalid_argument with a
// message naming the offending parameter and its valid range; an Options that passed
// Validate() describes a buildable engine. Derived sizes (entries per block B, buffer
// entries) are computed here so every component agrees on them.
// The options of L2SM's per-level log (sst_log.h), of LSbM's compaction buffer
// (compaction_buffer.h), of OHDB's partitions and of Tidal-tree's floating (floating.h) are
// described once, in OptionTable(): one row per option with its
// name, range, default, and whether it is part of the design (the MANIFEST records it and a
// reopen must give the same value) or memory only (any value on reopen). Validate(), the
// MANIFEST (manifest.h: encode, decode, CompareDesign) and the bindings (stored_options) all
// read the table, so a new option of that kind is one row.
#ifndef WACKY_NATIVE_ENGINE_OPTIONS_H_
#define WACKY_NATIVE_ENGINE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace wacky {

constexpr int kLevelGranularity = 0;
constexpr int kFileGranularity = 1;
constexpr int kLeastOverlap = 0;
constexpr int kRoundRobin = 1;
constexpr int kMaxLevel1Runs = 1000;
constexpr int kExactHotness = 0;  // Options::hotness: exact update counts
constexpr int kHotMap = 1;        // the paper's HotMap (layered Bloom filters)

struct Options {
  // Wacky knobs (Section 5).
  double T = 10.0;
  double C = 1.0;
  double X = 1.0;
  double K = 0.0;
  double Z = 0.0;
  // Layout. An entry is an 8-byte key followed by (entry_bytes - 8) value bytes.
  uint64_t entry_bytes = 128;
  uint64_t block_bytes = 4096;
  uint64_t buffer_bytes = 8u << 20;
  // Filter memory: exactly one of bits_per_entry >= 0 or sum_fpr > 0 is used.
  bool use_sum_fpr = false;
  double bits_per_entry = 10.0;
  double sum_fpr = 0.0;
  // How that memory is spread over the levels: false = the Lagrangian optimum (App. C),
  // true = one FPR for every run of every level (RocksDB/LevelDB style).
  bool uniform_filters = false;
  // Levels 1..hash_levels (never Level L) use one hash table per level (App. F).
  int hash_levels = 0;
  // fdatasync run files and the manifest when they are complete, and the write-ahead log
  // before every write call returns.
  bool sync = false;
  // Log every write before acknowledging it (wal.h). Off, writes since the last flush are
  // lost when the process dies; validation turns it off to count only flushes and merges.
  bool wal = true;
  // How merges are cut (file_compaction.h): kLevelGranularity merges whole levels (the
  // paper's policy); kFileGranularity keeps each level's run as files of at most file_bytes
  // and sends one file at a time from an overflowing level into the overlapping files of the
  // next (leveled designs only, K = Z = 0).
  int granularity = 0;
  uint64_t file_bytes = 0;  // 0: buffer_bytes
  int file_pick = 0;        // kLeastOverlap (RocksDB's default) or kRoundRobin (LevelDB's)
  // Flushes that gather as separate runs in level 0 before merging into Level 1 together
  // (RocksDB's level0_file_num_compaction_trigger); 1 merges each flush at once.
  int level1_runs = 1;
  // [compaction buffer] LSbM-tree's compaction buffer (compaction_buffer.h; granularity =
  // kFileGranularity only, and not with log_ratio > 0): a file the drain merges out of Level i
  // stays on disk as a buffered copy beside Level i+1 and serves point reads of its keys, so
  // its blocks cached before the merge keep serving after it. Part of the design (the
  // MANIFEST records it; a reopen must give the same value). Every buffer_trim_interval merges
  // (>= 1) the trim drops each buffered file, outside the newest table, with a share of its
  // data blocks in the block cache below buffer_trim (in [0, 1]; 0 never trims, 1 keeps only
  // fully cached files). The paper's 0.8 assumes small files (its super-files split a merge
  // unit into them): a file of many blocks, hot in a few, is trimmed at 0.8, so give small
  // file_bytes or a lower threshold. The two trim knobs are memory only, like cache_bytes:
  // not recorded, any value on reopen. Ranges, defaults and reopen rules: OptionTable().
  bool compaction_buffer = false;
  double buffer_trim = 0.8;
  uint64_t buffer_trim_interval = 8;
  // Bytes of the LRU block cache for point reads (block_cache.h): floor(cache_bytes /
  // block_bytes) blocks; 0 (or less than a block) disables it. Memory only, not part of the
  // design: the MANIFEST does not record it, and a reopen may give any value.
  uint64_t cache_bytes = 0;
  // [paged metadata] RocksDB's cache_index_and_filter_blocks: each run file carries its
  // filter block and index block (run.h, the metadata tail) and a lookup reads them through
  // the block cache (cache_bytes, shared with the data blocks, in bytes) instead of from
  // memory. Off (the default), filters and fences are pinned in memory as always. Memory only
  // (a read-path choice, like cache_bytes: not recorded, any value on reopen; a pinned open
  // ignores tails, a paged one writes the missing ones). Not with hash_levels > 0 (a level's
  // hash table is in memory by design, App. F), compaction_buffer (its Algorithm 3 probes the
  // buffered files' filters in memory) or salvage (paging writes; salvage writes nothing).
  // Ranges and reopen rules: OptionTable().
  bool paged_metadata = false;
  // Read run files around the page cache (O_DIRECT, file_io.h), so that a block the block
  // cache misses costs a device read, as it does once the data outgrows memory: how the
  // time model's measurements read (issue 34). Needs block_bytes a multiple of 4096 and a
  // file system that takes O_DIRECT (tmpfs takes it on Linux 6.6 and later, but reads memory
  // there all the same). Memory only, like cache_bytes.
  bool direct_reads = false;
  // What replaying a damaged or missing live log may drop (wal.h WalRecovery, RocksDB's
  // WALRecoveryMode): 0 only a torn tail (default), 1 nothing, 2 everything from the first
  // damage on (the caller accepts the loss). Not part of the design.
  int wal_recovery = 0;
  // Cap on dir/lost/, where open moves the files it cannot prove obsolete; the oldest there
  // are deleted first once it is over the cap. Not part of the design.
  uint64_t max_lost_bytes = 256u << 20;
  // Salvage mode (engine.h): open an existing directory read-only, setting aside every run
  // file that cannot be read (missing, truncated, failing a checksum or its footer) instead
  // of refusing to open, and serve the rest; a read that may need a set-aside run raises
  // Corruption instead of answering. Changes no file. Not part of the design.
  bool salvage = false;
  // The directory's identity (MANIFEST db_id), stamped in every run footer and log header.
  // Set by the engine when it opens a directory, never by the caller.
  uint64_t db_id = 0;
  // L2SM's per-level log (sst_log.h, file_compaction.h), granularity 'file' only. Ranges,
  // defaults and reopen rules: OptionTable().
  double log_ratio = 0.0;    // omega: all logs / all tree levels, in entries; 0 = no logs
  double log_alpha = 0.5;    // alpha: weight of hotness against sparseness
  int log_batch_cap = 10;    // |IS|/|CS| cap of an aggregated compaction, in files
  int hotness = kExactHotness;
  int hotmap_layers = 5;     // M: update counts are told apart up to M
  bool hotness_audit = false;  // with the HotMap, keep exact counts too and compare picks
  // OHDB's partitioned level 0 (file_compaction.h), granularity 'file' only: a flush is cut
  // into l0_partitions pieces at fixed, equally spaced keys, each partition gathers its own
  // level1_runs pieces and merges them into Level 1 on its own, and Level 1's files are cut
  // at the same keys. 1 = one partition (no cut). Part of the design: OptionTable().
  int l0_partitions = 1;
  // Tidal-tree's floating of hot files (floating.h), granularity 'file' only: at flush time a
  // file of Level i >= 2 read much more than the files above it (Eq 1) moves up to the level
  // where it saves the most reads net of its cost (Eq 4), dropping what newer levels shadow.
  // Ranges, defaults and reopen rules: OptionTable().
  double float_gamma = 0.0;       // gamma of Eq 1; 0 = no floating
  double float_alpha = 1.0;       // alpha of Eq 4: a page write costs alpha page reads
  double float_probe_cost = 3.0;  // page reads per checked file in Eq 2-4 (the paper's 3)
  double float_stretch = 0.0;     // delta of Eq 5, in files; 0 = no stretch
  uint64_t float_decay = 10000;   // point lookups between halvings of every read count
  int float_per_flush = 1;        // floats at most per flush, hottest candidate first
  // Devices (devices.h): level i (0 = level 0, i = Level i) keeps its new run files in
  // level_dirs[min(i, n - 1)], "" meaning the engine's own directory (which always holds the
  // log, the MANIFEST and lost/); empty: every level there. Each entry is "" or an absolute
  // path without whitespace, at most 64 entries. Part of the design like the table's stored
  // rows (the MANIFEST records it; a reopen must give the same list), but a list of paths, so
  // it has no row in OptionTable(), whose values are numbers.
  std::vector<std::string> level_dirs;

  uint64_t value_bytes() const { return entry_bytes - 8; }
  uint64_t entries_per_block() const { return block_bytes / entry_bytes; }
  uint64_t buffer_blocks() const { return buffer_bytes / block_bytes; }
  uint64_t buffer_entries() const { return buffer_blocks() * entries_per_block(); }
  // Entries one file holds under kFileGranularity (whole blocks).
  uint64_t file_entries() const {
    return ((file_bytes ? file_bytes : buffer_bytes) / block_bytes) * entries_per_block();
  }

  void Validate() const;
};

// One option of OptionTable(). Values travel as doubles: kInt and kBool options hold whole
// numbers, a kChoice option the index of its spelling in `choices`.
struct OptionSpec {
  enum Kind { kReal, kInt, kBool, kChoice };
  const char* name;
  Kind kind;
  double lo, hi;        // the valid range, inclusive
  double default_value;
  // Part of the design: the MANIFEST records it, and reopening with another value is refused.
  // Otherwise memory only: not recorded, any value on reopen.
  bool stored;
  // How the MANIFEST records a stored option (manifest.h). False: a line of version 6's
  // option block, which is written (all its lines) only when one of them differs from its
  // default. True: a kBool option recorded by the presence of its own optional section,
  // which a MANIFEST of either version may carry (LSbM's compaction buffer section,
  // compaction_buffer.h): a MANIFEST without the section has the option off.
  bool own_section;
  // The option another value than the default needs, else it is refused as doing nothing:
  // kWithLog, log_ratio > 0 (L2SM's per-level log); kWithFloat, float_gamma > 0 (floating).
  enum Needs { kAlways, kWithLog, kWithFloat };
  Needs needs;
  // kChoice: the spelling of each value. kBool: the spellings of false and true in messages,
  // if not "false" and "true".
  std::vector<const char*> choices;
  double (*get)(const Options&);
  void (*set)(Options*, double);

  // The value as the bindings and messages spell it: 0.1, 10, true, 'hotmap'.
  std::string Show(double value) const;
  // The value a spelling of a kChoice option stands for; std::invalid_argument naming the
  // option and its choices when there is none.
  double Parse(const std::string& spelling) const;
};

// The table-described options; the version-6 option lines of the MANIFEST follow this order.
const std::vector<OptionSpec>& OptionTable();
// The row named `name`, or nullptr.
const OptionSpec* FindOption(const std::string& name);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_OPTIONS_H_
