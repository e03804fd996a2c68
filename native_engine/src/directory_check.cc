// directory_check.cc — see directory_check.h.
#include "directory_check.h"

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

#include "compaction_buffer.h"
#include "env.h"
#include "file_io.h"
#include "io_stats.h"
#include "manifest.h"
#include "recovery.h"
#include "run.h"
#include "wal.h"

namespace wacky {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Whether the engine writes a file or directory of this name (see ForeignEntries).
bool IsEngineEntry(const std::string& name) {
  if (name == "MANIFEST" || name == "MANIFEST.tmp" || name == "OUTPUTS" ||
      name == "OUTPUTS.tmp" || name == "lost")
    return true;
  uint64_t n = 0;
  if (ParseLogFileName(name, &n) || ParseRunFileName(name, &n)) return true;
  const std::string obsolete = ".obsolete";
  return EndsWith(name, obsolete) &&
         ParseRunFileName(name.substr(0, name.size() - obsolete.size()), &n);
}

}  // namespace

std::vector<std::string> ForeignEntries(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& name : ListDir(dir))
    if (!IsEngineEntry(name)) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

void RefuseForeignDirectory(const std::string& dir) {
  if (FileExists(ManifestFileName(dir))) return;
  uint64_t n = 0;
  for (const std::string& name : ListDir(dir))
    if (ParseLogFileName(name, &n)) return;  // a creation that crashed before its MANIFEST
  const std::vector<std::string> foreign = ForeignEntries(dir);
  if (foreign.empty()) return;
  constexpr size_t kNamed = 5;
  std::string names;
  for (size_t i = 0; i < foreign.size() && i < kNamed; ++i)
    names += (i ? ", " : "") + foreign[i];
  if (foreign.size() > kNamed) names += ", ...";
  const std::string count = foreign.size() == 1
                                ? std::string("1 file that is")
                                : std::to_string(foreign.size()) + " files that are";
  throw std::invalid_argument("'" + dir + "' holds " + count + " not this engine's (" +
                              names + ") and no MANIFEST; open an empty or new directory, "
                              "or an engine directory (nothing was written)");
}

DirectoryReport CheckDirectory(const std::string& dir) {
  CheckPath(dir);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::invalid_argument("'" + dir + "' is not a directory");
  DirLock lock(dir, "directory '" + dir + "'");
  DirectoryReport report;
  auto problem = [&](const std::string& what) {
    report.problems.push_back(what);
    report.lost_writes = true;
  };
  const LostContents lost = ListLost(dir);
  report.lost_files = lost.files;
  report.lost_bytes = lost.bytes;

  const std::string mpath = ManifestFileName(dir);
  if (!FileExists(mpath)) {
    if (!HoldsEngineData(dir))
      throw std::invalid_argument("'" + dir + "' is not an engine directory (no MANIFEST, no "
                                  "run file, no log)");
    problem("'" + dir + "' holds run files or logs but no MANIFEST: nothing says which data "
            "is live");
    return report;
  }
  Manifest m;
  try {
    m = Manifest::Decode(ReadWholeFile(mpath), mpath);
  } catch (const IOError& e) {
    problem(e.what());
    return report;
  }
  const Options& o = m.options;
  const RunLayout layout{o.entry_bytes, o.block_bytes, m.db_id, nullptr};  // counts nothing
  IOCounter io;
  // A run that cannot be read: the problem names the keys it takes with it.
  auto damaged = [&](const RunRecord& rec, int level, bool in_log, const std::string& why) {
    DamagedRun d = DamagedRun::Of(RunFilePath(m, dir, rec.id), rec, level, why);
    d.in_log = in_log;
    problem(why + "; lost with it: " +
            (level == 0 ? std::string("level 0") : "Level " + std::to_string(level)) +
            (in_log ? "'s log" : "") +
            ", keys [" + std::to_string(rec.min_key) + ", " + std::to_string(rec.max_key) +
            "], " + std::to_string(rec.entries) + " entries (" +
            std::to_string(rec.tombstones) + " of them tombstones)");
    report.damaged_runs.push_back(std::move(d));
  };
  auto check_run = [&](const RunRecord& rec, int level, bool in_log) {
    const std::string path = RunFilePath(m, dir, rec.id);
    if (!FileExists(path)) {
      damaged(rec, level, in_log, "run file '" + path + "' that the MANIFEST lists is missing");
      return;
    }
    try {
      std::vector<uint64_t> hashes;
      const RunIdentity expect{rec.id, rec.entries, rec.tombstones, rec.min_key, rec.max_key};
      auto run = Run::Recover(path, layout, expect, &io, &hashes);
      ++report.runs;
      report.entries += run->entries();
      report.blocks += run->data_blocks();
    } catch (const IOError& e) {
      damaged(rec, level, in_log, e.what());
    }
  };
  for (size_t i = 0; i < m.levels.size(); ++i) {
    for (const auto& rec : m.levels[i]) check_run(rec, static_cast<int>(i + 1), false);
    if (i < m.level_logs.size())
      for (const auto& rec : m.level_logs[i]) check_run(rec, static_cast<int>(i + 1), true);
  }
  for (const auto& rec : m.level0) check_run(rec, 0, false);
  // [compaction buffer] A buffered file is a copy (compaction_buffer.h): one that cannot be
  // read loses nothing, so it is a warning; opening replaces it by a marker.
  for (const auto& [level, rec] : BufferedRecords(m)) {
    const std::string path = RunFilePath(m, dir, rec.id);
    try {
      if (!FileExists(path)) throw IOError(ENOENT, "run file '" + path + "' is missing");
      std::vector<uint64_t> hashes;
      const RunIdentity expect{rec.id, rec.entries, rec.tombstones, rec.min_key, rec.max_key};
      auto run = Run::Recover(path, layout, expect, &io, &hashes);
      ++report.runs;
      report.entries += run->entries();
    } catch (const IOError& e) {
      report.warnings.push_back(std::string(e.what()) + "; it is a compaction-buffer copy of " +
                                "Level " + std::to_string(level) + " (nothing is lost: the "
                                "tree holds its data); opening replaces it by a marker");
    }
  }
  report.blocks = io.blocks_read;  // every block read: data, tombstones and checksums

  for (uint64_t number : m.logs) {
    const std::string path = LogFileName(dir, number);
    if (!FileExists(path)) {
      problem("log file '" + path + "' that the MANIFEST lists as live is missing: the "
              "writes it held since the last flush are lost");
      continue;
    }
    try {
      const LogScan scan = ScanLog(path, number, m.db_id, o.value_bytes(),
                                   WalRecovery::kTolerateCorruptedTailRecords);
      ++report.logs;
      report.log_records += scan.records;
      report.log_entries += scan.entries;
      report.log_tail_dropped_bytes += scan.dropped_bytes;
      if (scan.dropped_bytes > 0)
        report.warnings.push_back("log file '" + path + "' ends in " +
                                  std::to_string(scan.dropped_bytes) +
                                  " bytes of a write torn by a crash (never acknowledged); "
                                  "opening drops them");
    } catch (const IOError& e) {
      problem(e.what());
    }
  }
  const std::vector<std::string> devices = DeviceDirs(dir, o.level_dirs);
  for (size_t d = 0; d < devices.size(); ++d) {
    if (d > 0 && !FileExists(devices[d])) {
      problem("device directory '" + devices[d] + "' (level_dirs) is missing");
      continue;
    }
    const std::string where = d == 0 ? "" : " in device directory '" + devices[d] + "'";
    for (const UnlistedFile& f : ClassifyUnlisted(dir, m, o.value_bytes(), d))
      report.warnings.push_back("'" + f.name + "'" + where + " is " + f.why + "; opening " +
                                (f.remove ? "deletes it" : "moves it to lost/"));
  }
  if (report.lost_files > 0)
    report.warnings.push_back("lost/ holds " + std::to_string(report.lost_files) + " files (" +
                              std::to_string(report.lost_bytes) +
                              " bytes) that earlier opens could not prove obsolete");
  return report;
}

}  // namespace wacky
