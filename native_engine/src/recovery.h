// recovery.h — rebuilding the tree of an existing engine directory, and deciding what may
// be done with the files its MANIFEST does not list.
//
// Contract:
//   * Recover(dir, options, io) reads dir/MANIFEST and returns it with the Version it
//     describes. It changes nothing in the directory.
//       - The MANIFEST must record the same design and layout as `options`; otherwise
//         std::invalid_argument names the first difference (manifest.h CompareDesign).
//       - Every listed run file (and every file of a level's L2SM log, recovered into
//         Level::log in the recorded order) is read once, front to back (blocks counted in *io), to
//         check its footer against the MANIFEST (run.h) and rebuild its fences and
//         tombstones and either its Bloom filter (at the bits per key the MANIFEST recorded)
//         or, for a hash-indexed run, its key hashes. A missing, truncated, damaged,
//         swapped or foreign run file throws Corruption naming it.
//       - [compaction buffer] The buffers the MANIFEST records are rebuilt likewise
//         (compaction_buffer.h RecoverBuffers); a buffered file that cannot be read, in either
//         mode, becomes a marker of its key range (nothing is lost: it is a copy) and is
//         counted in buffer_unreadable.
//       - The shape is then re-applied from the stored n_est (merge_policy.h ApplyShape)
//         and every level's filters and hash index refreshed, exactly as after a merge.
//       - Salvage (`damaged` not null, engine.h options.salvage): a listed run that cannot
//         be read (any IOError above: missing, truncated, damaged, swapped, foreign) is set
//         aside instead: left out of the Version, its file left where it is, and described
//         in *damaged (file, level, key range and counts as the MANIFEST records them, which
//         its own checksum vouches for, and the error). The Version holds the other runs.
//   * ClassifyUnlisted(dir, manifest, value_bytes) lists the run files and logs that the
//     MANIFEST does not list as live (in a level, level 0 or a compaction buffer), each with
//     what opening does with it and why. Nothing is deleted without proof:
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

#include <memory>
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
  // [compaction buffer] Buffered files (compaction_buffer.h) that could not be read: each
  // became a marker of its key range (a copy: the tree holds its data), its file left as is.
  uint64_t buffer_unreadable = 0;
};

// A listed run whose file cannot be read: what its loss takes away. The fields up to `why`
// come from the MANIFEST (checksummed) and need nothing from the file.
struct DamagedRun {
  std::string file;  // the run file's path
  uint64_t id = 0;
  int level = 0;  // as the MANIFEST numbers it: 0 = level 0, i = Level i
  uint64_t entries = 0, tombstones = 0, min_key = 0, max_key = 0;
  std::string why;  // the damage found (the error's message)
  bool in_log = false;  // a file of the level's L2SM log (Level::log), not of its tree
  // Where a lookup meets it in the recovered Version (Recover only): the index into
  // Version::levels (-1 = level0) and how many served runs of that level (of its log, when
  // in_log) are older than it; a lookup that reaches it without an answer must not go on to
  // the older ones.
  int lookup_level = 0;
  size_t older_served = 0;

  // The run `rec`, whose file is `file` (manifest.h RunFilePath), at MANIFEST level
  // `level`, found damaged for `why`.
  static DamagedRun Of(const std::string& file, const RunRecord& rec, int level,
                       std::string why);
};

// With `damaged` null a run that cannot be read throws (the default, strict open); with it,
// the run is set aside and described there (salvage).
// The runs it opens report their bytes to `space` (space_meter.h; null: to none) and count
// their I/O on `devices` (devices.h; null: on none). Each run file is opened on its device
// (manifest.h RunFilePath).
Recovered Recover(const std::string& dir, const Options& options, IOCounter* io,
                  std::vector<DamagedRun>* damaged = nullptr,
                  std::shared_ptr<SpaceMeter> space = nullptr,
                  std::shared_ptr<const Devices> devices = nullptr);

struct UnlistedFile {
  std::string name;  // in dir
  bool remove;       // true: deleted as provably obsolete; false: moved to lost/
  std::string why;
};

// `device` > 0 classifies the run files in that device's directory (devices.h DeviceDirs of
// dir and m.options.level_dirs) by the same rules, with the proofs of dir (its OUTPUTS
// record): a run listed live is listed only on the device the MANIFEST places it on (a copy
// elsewhere goes to lost/), and nothing but run files is considered there.
std::vector<UnlistedFile> ClassifyUnlisted(const std::string& dir, const Manifest& m,
                                           uint64_t value_bytes, size_t device = 0);
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
