// manifest.h — the durable description of an engine directory.
//
// Contract: the MANIFEST file records the design and layout options; the directory's id
// (db_id, random, made when the directory is created, stamped in every run footer and log
// header so files of another directory are refused); a generation, one more at every
// rewrite; the next run id; the live write-ahead logs (every log still holding writes that
// no run holds: they must all exist, wal.h); the runs merged away whose files may not be
// deleted yet (`obsolete`: recovery may delete those, having this proof); the top-down
// size estimate n_est; and for every level (Level 1 first) its runs (oldest first) with
// entry count, tombstone count, filter bits per key, whether the run is hash indexed, and
// its smallest and largest key. It is plain text ending in a line "crc32c <hex>", the
// CRC-32C of everything before it, and is rewritten atomically (file_io.h
// WriteFileAtomically) after every structural change, so a directory always describes a
// complete, consistent set of runs. (LevelDB and RocksDB append version edits to a
// MANIFEST log named by CURRENT; a tree of this engine lists at most a few thousand runs,
// so rewriting the whole description, checksummed, is cheap and leaves one file to trust:
// there is no edit log to replay or to tear.) Version 6 adds the design options of
// options.h's OptionTable() that are recorded as lines (one line each, in table order, after
// level1_runs) and, after each level's runs, its L2SM log: "log <n>" and its files, oldest
// first. Encode() writes version 6 only when one of those options differs from its default
// (L2SM's log is on) and version 5 otherwise, byte for byte as before, so directories without
// logs stay readable by engines that predate them. Either version may end, after level 0's
// runs and before "end", with optional sections, each recording a table option by its
// presence: today LSbM's compaction buffer (options.compaction_buffer; compaction_buffer.h),
// which records the buffers, so a MANIFEST without it (every older one) opens with the
// buffer off. Another optional section records the devices (devices.h) when
// options.level_dirs is not empty: the list itself, and the device of every run file not on
// device 0, live or obsolete (`placed`), so recovery opens, deletes or sets aside each file
// where it is. Decode() reads both versions (a version-5 file has the line options' defaults
// and empty logs) and the optional sections in any order, each at most once; it throws
// Corruption (env.h) on a checksum mismatch or a malformed file, and IOError naming the
// version for files of versions 1 to 4, whose run files do not identify themselves.
#ifndef WACKY_NATIVE_ENGINE_MANIFEST_H_
#define WACKY_NATIVE_ENGINE_MANIFEST_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "options.h"

namespace wacky {

struct RunRecord {
  uint64_t id = 0;
  uint64_t entries = 0;
  uint64_t tombstones = 0;
  double bits_per_key = 0.0;
  bool hash_indexed = false;
  uint64_t min_key = 0;
  uint64_t max_key = 0;
};

// [compaction buffer] An entry of a level's compaction buffer (compaction_buffer.h): a live
// buffered file, or a removed marker (only run.min_key and run.max_key are meaningful).
struct BufferedRecord {
  bool removed = false;
  RunRecord run;
};

struct Manifest {
  Options options;
  uint64_t db_id = 0;
  uint64_t generation = 0;
  uint64_t next_run_id = 1;
  uint64_t next_log_number = 1;    // logs below it that `logs` omits are retired
  std::vector<uint64_t> logs;      // live write-ahead logs, oldest first
  std::vector<uint64_t> obsolete;  // runs merged away whose files may remain
  double n_est = 0.0;
  std::vector<std::vector<RunRecord>> levels;  // Level 1 first; runs oldest first
  // Level 1 first, each level's L2SM log (oldest first); empty, or as long as `levels`.
  std::vector<std::vector<RunRecord>> level_logs;
  std::vector<RunRecord> level0;               // runs waiting in level 0, oldest first
  // [compaction buffer] Per level (Level 1 first): its buffer's tables, newest first. Empty,
  // and absent from the file, unless options.compaction_buffer.
  std::vector<std::vector<std::vector<BufferedRecord>>> buffers;
  // [devices] The device (devices.h, an index of DeviceDirs(dir, options.level_dirs)) of each
  // run file, live or obsolete, that is not on device 0. Empty without level_dirs.
  std::map<uint64_t, uint32_t> placed;

  std::string Encode() const;
  static Manifest Decode(const std::string& text, const std::string& path);
};

// The file of run `id` in the directory `home` whose MANIFEST is `m`: on its device.
std::string RunFilePath(const Manifest& m, const std::string& home, uint64_t id);

// dir + "/MANIFEST".
std::string ManifestFileName(const std::string& dir);

// The record of the flush in progress (dir/OUTPUTS), written before its first output file
// is created: the outputs of a flush that starts from MANIFEST generation `generation` get
// run ids from first_run_id up. When recovery finds the MANIFEST still at that generation,
// unlisted run files with such ids are provably that flush's uncommitted outputs and are
// deleted; without this proof (a torn or older record, a MANIFEST restored from a copy)
// they are moved to lost/. The engine removes the record once the flush has committed, so
// it never outlives its generation. Plain text with a CRC-32C line like the MANIFEST.
struct OutputsRecord {
  uint64_t db_id = 0;
  uint64_t generation = 0;
  uint64_t first_run_id = 0;

  std::string Encode() const;
  // False (and *out untouched) unless `text` is a whole, intact record.
  static bool Decode(const std::string& text, OutputsRecord* out);
};
std::string OutputsFileName(const std::string& dir);

// True if the MANIFEST written for `options` records row `spec` of OptionTable(): a stored
// line option when the file is version 6, a stored own_section option when its section is
// there (the option on). What stored_options (the bindings) reports, "only what applies".
bool RecordsOption(const Options& options, const OptionSpec& spec);

// Returns "" if `stored` and `requested` describe the same design, layout and compaction
// options (file_bytes as used: 0 means buffer_bytes; the stored rows of OptionTable()), else a
// message naming the first parameter that differs.
std::string CompareDesign(const Options& stored, const Options& requested);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_MANIFEST_H_
