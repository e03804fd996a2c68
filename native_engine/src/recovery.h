// recovery.h — rebuilding the tree of an existing engine directory.
//
// Contract: Recover(dir, options, io) reads dir/MANIFEST and returns the Version it
// describes.
//   * The MANIFEST must record the same design and layout as `options`; otherwise
//     std::invalid_argument names the first difference (manifest.h CompareDesign), and
//     nothing in the directory is changed.
//   * Every listed run file is read once, front to back (blocks counted in *io), to
//     rebuild its fences and tombstones and either its Bloom filter (at the bits per
//     key the MANIFEST recorded) or, for a hash-indexed run, its key hashes. A missing,
//     truncated or unsorted run file throws IOError.
//   * The shape is then re-applied from the stored n_est (merge_policy.h ApplyShape)
//     and every level's filters and hash index refreshed, exactly as after a merge.
//   * Run files that the MANIFEST does not list are removed only when the MANIFEST
//     proves them unused: an id at or above its next run id was made by a merge that
//     never committed. Unlisted files with smaller ids are moved to dir/lost/ instead.
//   * *log_number is the MANIFEST's live write-ahead log number (wal.h).
#ifndef WACKY_NATIVE_ENGINE_RECOVERY_H_
#define WACKY_NATIVE_ENGINE_RECOVERY_H_

#include <string>

#include "io_stats.h"
#include "options.h"
#include "version.h"

namespace wacky {

Version Recover(const std::string& dir, const Options& options, IOCounter* io,
                uint64_t* log_number);

// True if `name` is named as a run file (run.h RunFileName); its id goes to *id.
bool ParseRunFileName(const std::string& name, uint64_t* id);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_RECOVERY_H_
