// directory_check.h — checking an engine directory without opening it.
//
// Contract: CheckDirectory(dir) reports whether every acknowledged write in `dir` can be
// recovered, and changes nothing: it takes the directory's flock (so no engine has it open;
// IOError EWOULDBLOCK otherwise), opens every file read-only, replays the live logs in
// memory only, and writes, renames and deletes nothing. It checks
//   * the MANIFEST (its checksum and format);
//   * every listed run file (the levels' L2SM log files too): present, its size, its footer against the MANIFEST (run.h),
//     every block against its checksum, its keys sorted and within the recorded range;
//   * every live log: present, its header (this directory's, this number), every record's
//     framing and checksums, as opening with the default recovery mode would (wal.h);
//   * [compaction buffer] every live buffered file (compaction_buffer.h) likewise; one that
//     cannot be read is a warning, not a problem: it is a copy, and opening replaces it by a
//     marker;
//   * the files the MANIFEST does not list, and what opening would do with them
//     (recovery.h ClassifyUnlisted), and what lost/ holds.
// Damage that loses acknowledged writes (a missing or damaged run, a missing or damaged
// live log, an unreadable MANIFEST, runs or logs without a MANIFEST) is a problem and sets
// lost_writes; what opening drops or moves without loss (a torn log tail, unlisted files)
// is a warning. A path with no MANIFEST and no run file or log throws
// std::invalid_argument: it is not an engine directory.
// Every listed run that cannot be read is also described in damaged_runs (recovery.h
// DamagedRun: file, level, key range and counts from the MANIFEST, and the damage), and its
// problem names that level and range: those are the keys whose newest version may be lost.
// They are exactly the runs a salvage open (engine.h, options.salvage) sets aside.
//
// Contract: ForeignEntries(dir) lists, sorted, the names in `dir` that this engine never
// writes: anything but MANIFEST, OUTPUTS (and the ".tmp" files that write them), run files
// (and their ".obsolete" renames), logs and lost/. RefuseForeignDirectory(dir) throws
// std::invalid_argument, naming `dir`, how many such entries it holds and the first few,
// when `dir` has no MANIFEST and no log but holds a foreign entry: the engine opens an
// empty or new directory or one of its own, and never writes its files beside another
// program's. Both read the directory listing only and change nothing.
#ifndef WACKY_NATIVE_ENGINE_DIRECTORY_CHECK_H_
#define WACKY_NATIVE_ENGINE_DIRECTORY_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "recovery.h"

namespace wacky {

struct DirectoryReport {
  bool lost_writes = false;
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
  uint64_t runs = 0, blocks = 0, entries = 0;
  uint64_t logs = 0, log_records = 0, log_entries = 0, log_tail_dropped_bytes = 0;
  uint64_t lost_files = 0, lost_bytes = 0;
  std::vector<DamagedRun> damaged_runs;  // listed runs that cannot be read, MANIFEST order
  bool ok() const { return problems.empty(); }
};

DirectoryReport CheckDirectory(const std::string& dir);

std::vector<std::string> ForeignEntries(const std::string& dir);
void RefuseForeignDirectory(const std::string& dir);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_DIRECTORY_CHECK_H_
