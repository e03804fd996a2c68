// manifest.h — the durable description of an engine directory.
//
// Contract: the MANIFEST file records the design and layout options (including the
// filter allocation mode, uniform_filters, since format version 2), the next run
// id, the top-down size estimate n_est, and for every level (Level 1 first) its runs
// (oldest first) with entry count, tombstone count, filter bits per key and whether
// the run is hash indexed. It is plain text, rewritten atomically (file_io.h
// WriteFileAtomically) after every structural change, so a directory always describes
// a complete, consistent set of runs. Encode() writes version 2; Decode() also reads
// version 1 (no uniform_filters line: the Lagrangian allocation) and throws IOError on
// a malformed file or an unknown version.
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
  double n_est = 0.0;
  std::vector<std::vector<RunRecord>> levels;  // Level 1 first; runs oldest first

  std::string Encode() const;
  static Manifest Decode(const std::string& text, const std::string& path);
};

// dir + "/MANIFEST".
std::string ManifestFileName(const std::string& dir);

// Returns "" if `stored` and `requested` describe the same design and layout, else a
// message naming the first parameter that differs.
std::string CompareDesign(const Options& stored, const Options& requested);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_MANIFEST_H_
