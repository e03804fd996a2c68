// manifest.h — the durable description of an engine directory.
//
// Contract: the MANIFEST file records the design and layout options, the next run
// id, the number of the live write-ahead log (logs with smaller numbers are already in
// runs), the top-down size estimate n_est, and for every level (Level 1 first) its
// runs (oldest first) with entry count, tombstone count, filter bits per key and
// whether the run is hash indexed. It is plain text ending in a line "crc32c <hex>",
// the CRC-32C of everything before it, and is rewritten atomically (file_io.h
// WriteFileAtomically) after every structural change, so a directory always describes
// a complete, consistent set of runs. (LevelDB and RocksDB append version edits to a
// MANIFEST log named by CURRENT; a tree of this engine lists at most a few thousand runs,
// so rewriting the whole description, checksummed, is cheap and leaves one file to
// trust: there is no edit log to replay or to tear.) Version 4 adds the compaction
// options (granularity, file_bytes, file_pick, level1_runs) and level 0's runs; Decode()
// reads version 3 as the defaults with no level 0. Encode() writes version 4. Decode() throws
// Corruption (env.h) on a checksum mismatch or a malformed file, and IOError naming
// the version for files of versions 1 and 2, whose run files had no checksums.
#ifndef WACKY_NATIVE_ENGINE_MANIFEST_H_
#define WACKY_NATIVE_ENGINE_MANIFEST_H_

#include <cstdint>
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
};

struct Manifest {
  Options options;
  uint64_t next_run_id = 1;
  uint64_t log_number = 0;
  double n_est = 0.0;
  std::vector<std::vector<RunRecord>> levels;  // Level 1 first; runs oldest first
  std::vector<RunRecord> level0;               // runs waiting in level 0, oldest first

  std::string Encode() const;
  static Manifest Decode(const std::string& text, const std::string& path);
};

// dir + "/MANIFEST".
std::string ManifestFileName(const std::string& dir);

// Returns "" if `stored` and `requested` describe the same design, layout and compaction
// options (file_bytes as used: 0 means buffer_bytes), else a message naming the first
// parameter that differs.
std::string CompareDesign(const Options& stored, const Options& requested);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_MANIFEST_H_
