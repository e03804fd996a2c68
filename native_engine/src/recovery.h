// recovery.h — rebuilding the tree of an existing engine directory, and deciding what may
// be done with the files its MANIFEST does not list.
//
// Contract:
//   * Recover(dir, options, io) reads dir/MANIFEST and returns it with the Version it
//     describes. It changes nothing in the directory.
//       - The MANIFEST must record the same design and layout as `options`; otherwise
//         std::invalid_argument names the first difference (manifest.h CompareDesign).
//       - Every listed run file is read once, front to back (blocks counted in *io), to
//         check its footer against the MANIFEST (run.h) and rebuild its fences and
//         tombstones and either its Bloom filter (at the bits per key the MANIFEST recorded)
//         or, for a hash-indexed run, its key hashes. A missing, truncated, damaged,
//         swapped or foreign run file throws Corruption naming it.
//       - The shape is then re-applied from the stored n_est (merge_policy.h ApplyShape)
//         and every level's filters and hash index refreshed, exactly as after a merge.
//   * ClassifyUnlisted(dir, manifest, value_bytes) lists the run files and logs that the
//     MANIFEST does not list as live, each with what opening does with it and why. Nothing
//     is deleted without proof:
//       - a run the MANIFEST records as merged away (`obsolete`) is deleted;
//       - a run with an id the OUTPUTS record (manifest.h) gives to the flush that started
//         from this very MANIFEST generation is that flush's uncommitted output: deleted;
//       - a log numbered below the MANIFEST's next_log_number is retired: deleted; a newer
//         log that holds no write (created just before a crash) is deleted;
//       - anything else (a run newer than the MANIFEST without that record, a run the
//         MANIFEST never mentions, a newer log holding writes) is moved to dir/lost/.
//   * DisposeUnlisted carries that out; then lost/ is kept under max_lost_bytes by
//     deleting its oldest files first. With sync, the directories are fsynced.
//   * CleanLost(dir) empties dir/lost/ and returns the files and bytes removed.
#ifndef WACKY_NATIVE_ENGINE_RECOVERY_H_
#define WACKY_NATIVE_ENGINE_RECOVERY_H_

#include <string>
#include <vector>

#include "io_stats.h"
#include "manifest.h"
#include "options.h"
#include "version.h"

namespace wacky {

struct Recovered {
  Manifest manifest;
  Version version;
};

Recovered Recover(const std::string& dir, const Options& options, IOCounter* io);

struct UnlistedFile {
  std::string name;  // in dir
  bool remove;       // true: deleted as provably obsolete; false: moved to lost/
  std::string why;
};

std::vector<UnlistedFile> ClassifyUnlisted(const std::string& dir, const Manifest& m,
                                           uint64_t value_bytes);
// Returns the number of files moved to lost/.
size_t DisposeUnlisted(const std::string& dir, const std::vector<UnlistedFile>& files,
                       uint64_t max_lost_bytes, bool sync);

struct LostContents {
  uint64_t files = 0;
  uint64_t bytes = 0;
};
LostContents ListLost(const std::string& dir);
LostContents CleanLost(const std::string& dir);

// True if dir holds data an engine wrote: a run file, or a log holding more than its header.
// Such a directory without a MANIFEST cannot be opened or checked: nothing proves what is live.
bool HoldsEngineData(const std::string& dir);

// True if `name` is named as a run file (run.h RunFileName); its id goes to *id.
bool ParseRunFileName(const std::string& name, uint64_t* id);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_RECOVERY_H_
