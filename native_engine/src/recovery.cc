// recovery.cc — see recovery.h.
#include "recovery.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "bloom_filter.h"
#include "compaction_buffer.h"
#include "env.h"
#include "file_io.h"
#include "merge_policy.h"
#include "run.h"
#include "wal.h"

namespace wacky {

DamagedRun DamagedRun::Of(const std::string& file, const RunRecord& rec, int level,
                          std::string why) {
  DamagedRun d;
  d.file = file;
  d.id = rec.id;
  d.level = level;
  d.entries = rec.entries;
  d.tombstones = rec.tombstones;
  d.min_key = rec.min_key;
  d.max_key = rec.max_key;
  d.why = std::move(why);
  return d;
}

bool ParseRunFileName(const std::string& name, uint64_t* id) {
  uint64_t v = 0;
  // The canonical name only: e.g. wrong zero padding is not a run file.
  if (!ParseNumberedFileName(name, "run-", ".sst", &v) || RunFileName("", v) != "/" + name)
    return false;
  *id = v;
  return true;
}

bool HoldsEngineData(const std::string& dir) {
  for (const std::string& name : ListDir(dir)) {
    uint64_t n = 0;
    if (ParseRunFileName(name, &n)) return true;
    if (ParseLogFileName(name, &n) && FileBytes(dir + "/" + name) > kLogHeaderRecordBytes)
      return true;
  }
  return false;
}

Recovered Recover(const std::string& dir, const Options& options, IOCounter* io,
                  std::vector<DamagedRun>* damaged, std::shared_ptr<SpaceMeter> space,
                  std::shared_ptr<const Devices> devices) {
  const std::string mpath = ManifestFileName(dir);
  Recovered out;
  out.manifest = Manifest::Decode(ReadWholeFile(mpath), mpath);
  const Manifest& m = out.manifest;
  const std::string diff = CompareDesign(m.options, options);
  if (!diff.empty())
    throw std::invalid_argument("'" + dir + "' was created with a different design: " + diff +
                                "; reopen it with the stored parameters");

  Version& v = out.version;
  v.next_run_id = m.next_run_id;
  v.n_est = m.n_est;
  v.levels.assign(m.levels.size(), Level());
  const RunLayout layout{options.entry_bytes, options.block_bytes, m.db_id, std::move(space),
                         std::move(devices), options.direct_reads};
  auto recover = [&](const RunRecord& rec) {
    const std::string path = RunFilePath(m, dir, rec.id);
    if (!FileExists(path))
      throw Corruption("run file '" + path + "' that the MANIFEST lists is missing: its " +
                       std::to_string(rec.entries) + " entries cannot be read");
    std::vector<uint64_t> hashes;
    const RunIdentity expect{rec.id, rec.entries, rec.tombstones, rec.min_key, rec.max_key};
    auto run = Run::Recover(path, layout, expect, io, &hashes);
    if (rec.hash_indexed) {
      run->SetKeyHashes(std::move(hashes));
    } else {
      BloomFilter f(rec.entries, rec.bits_per_key);
      if (!f.empty())
        for (uint64_t h : hashes) f.AddHash(h);
      run->SetFilter(std::move(f), rec.bits_per_key);
    }
    return run;
  };
  // Strict: the first run that cannot be read throws. Salvage: it is set aside, and the
  // place a lookup would have met it is kept (its level, and the served runs older than it).
  auto add = [&](const RunRecord& rec, int level, int lookup_level, bool in_log,
                 std::vector<RunPtr>* runs) {
    if (damaged == nullptr) {
      runs->push_back(recover(rec));
      return;
    }
    try {
      runs->push_back(recover(rec));
    } catch (const IOError& e) {
      DamagedRun d = DamagedRun::Of(RunFilePath(m, dir, rec.id), rec, level, e.what());
      d.in_log = in_log;
      d.lookup_level = lookup_level;
      d.older_served = runs->size();
      damaged->push_back(std::move(d));
    }
  };
  const size_t levels_before = m.levels.size();
  for (size_t i = 0; i < m.levels.size(); ++i) {
    for (const auto& rec : m.levels[i])
      add(rec, static_cast<int>(i + 1), static_cast<int>(i), false, &v.levels[i].runs);
    if (i < m.level_logs.size())
      for (const auto& rec : m.level_logs[i])
        add(rec, static_cast<int>(i + 1), static_cast<int>(i), true, &v.levels[i].log);
  }
  for (const auto& rec : m.level0) add(rec, 0, -1, false, &v.level0);
  // [compaction buffer] A buffered file is a copy: one that cannot be read becomes a marker.
  RecoverBuffers(m, [&](const RunRecord& rec) -> RunPtr {
    try {
      return recover(rec);
    } catch (const IOError&) {
      return nullptr;
    }
  }, mpath, &v.levels, &out.buffer_unreadable);
  ApplyShape(options, v.n_est, &v.levels);
  ClearLevel1Buffer(&v.levels);  // [compaction buffer] should the shape have moved
  for (auto& l : v.levels) l.RefreshFilters(options.entries_per_block());
  if (damaged != nullptr && v.levels.size() != levels_before) {
    // ApplyShape adds or drops empty levels at the top only, so a level's index moves by
    // the difference. A level dropped because its only runs were set aside lay above every
    // level that remains: its runs are met first in Level 1, before any of its runs.
    const int shift = static_cast<int>(v.levels.size()) - static_cast<int>(levels_before);
    for (DamagedRun& d : *damaged) {
      if (d.lookup_level < 0) continue;
      d.lookup_level += shift;
      if (d.lookup_level < 0) {
        d.lookup_level = 0;
        d.in_log = false;  // met before Level 1's tree, like a run newer than all of it
        d.older_served = v.levels.empty() ? 0 : v.levels[0].runs.size();
      }
    }
  }
  return out;
}

namespace {

// True if the log holds any write, or cannot be read as one of ours (then it is kept).
bool LogHoldsWrites(const std::string& path, uint64_t number, uint64_t db_id,
                    uint64_t value_bytes) {
  try {
    const LogScan scan =
        ScanLog(path, number, db_id, value_bytes, WalRecovery::kPointInTimeRecovery);
    return !scan.batches.empty() || scan.dropped_bytes > 0;
  } catch (const IOError&) {
    return true;
  }
}

}  // namespace

std::vector<UnlistedFile> ClassifyUnlisted(const std::string& dir, const Manifest& m,
                                           uint64_t value_bytes, size_t device) {
  std::set<uint64_t> listed, obsolete(m.obsolete.begin(), m.obsolete.end());
  auto list = [&](uint64_t id) {
    const auto at = m.placed.find(id);
    if ((at == m.placed.end() ? 0 : at->second) == device) listed.insert(id);
  };
  for (const auto& l : m.levels)
    for (const auto& r : l) list(r.id);
  for (const auto& l : m.level_logs)
    for (const auto& r : l) list(r.id);
  for (const auto& r : m.level0) list(r.id);
  for (const auto& e : BufferedRecords(m)) list(e.second.id);  // [compaction buffer]
  const std::set<uint64_t> live_logs(m.logs.begin(), m.logs.end());
  OutputsRecord outputs;
  bool have_outputs = false;
  if (FileExists(OutputsFileName(dir))) {
    try {
      have_outputs = OutputsRecord::Decode(ReadWholeFile(OutputsFileName(dir)), &outputs) &&
                     outputs.db_id == m.db_id && outputs.generation == m.generation;
    } catch (const IOError&) {
      have_outputs = false;
    }
  }
  std::vector<UnlistedFile> out;
  const std::string here = device == 0 ? dir : DeviceDirs(dir, m.options.level_dirs).at(device);
  for (const std::string& name : ListDir(here)) {
    uint64_t n = 0;
    if (ParseRunFileName(name, &n)) {
      if (listed.count(n) != 0) continue;
      if (obsolete.count(n) != 0)
        out.push_back({name, true, "merged away (the MANIFEST records it obsolete)"});
      else if (have_outputs && n >= outputs.first_run_id)
        out.push_back({name, true, "an output of a flush that never committed (the OUTPUTS "
                                   "record names it)"});
      else
        out.push_back({name, false, n >= m.next_run_id
                                        ? "newer than the MANIFEST, with no record of an "
                                          "uncommitted flush"
                                        : "not listed by the MANIFEST"});
    } else if (device == 0 && ParseLogFileName(name, &n)) {
      if (live_logs.count(n) != 0) continue;
      if (n < m.next_log_number)
        out.push_back({name, true, "a retired log (its writes are in runs)"});
      else if (!LogHoldsWrites(dir + "/" + name, n, m.db_id, value_bytes))
        out.push_back({name, true, "a new log that holds no write"});
      else
        out.push_back({name, false, "a log newer than the MANIFEST that holds writes"});
    }
  }
  return out;
}

namespace {

std::vector<std::tuple<int64_t, std::string, uint64_t>> LostFiles(const std::string& lost) {
  std::vector<std::tuple<int64_t, std::string, uint64_t>> files;  // (mtime ns, name, bytes)
  struct stat st;
  if (::stat(lost.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return files;
  for (const std::string& name : ListDir(lost)) {
    const std::string path = lost + "/" + name;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    files.emplace_back(static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                       name, static_cast<uint64_t>(st.st_size));
  }
  std::sort(files.begin(), files.end());  // oldest first
  return files;
}

}  // namespace

size_t DisposeUnlisted(const std::string& dir, const std::vector<UnlistedFile>& files,
                       uint64_t max_lost_bytes, bool sync) {
  const std::string lost = dir + "/lost";
  size_t moved = 0;
  for (const UnlistedFile& f : files) {
    const std::string from = dir + "/" + f.name;
    if (f.remove) {
      ::unlink(from.c_str());
      continue;
    }
    MakeDirs(lost, sync);
    // A name already in lost/ (an earlier crash) gets a suffix: nothing there is overwritten.
    std::string to = lost + "/" + f.name;
    for (int k = 1; FileExists(to); ++k) to = lost + "/" + f.name + "." + std::to_string(k);
    if (::rename(from.c_str(), to.c_str()) != 0)
      ThrowIOError(errno, "cannot move an unlisted file to lost/", from);
    ++moved;
  }
  // The cap: oldest first. These files were kept for a person to look at; past the cap the
  // oldest are the least likely to be wanted.
  auto in_lost = LostFiles(lost);
  uint64_t total = 0;
  for (const auto& f : in_lost) total += std::get<2>(f);
  bool trimmed = false;
  for (const auto& [mtime, name, bytes] : in_lost) {
    if (total <= max_lost_bytes) break;
    if (::unlink((lost + "/" + name).c_str()) == 0) {
      total -= bytes;
      trimmed = true;
    }
  }
  if (sync && (moved > 0 || trimmed)) SyncDir(lost);
  if (sync && !files.empty()) SyncDir(dir);
  return moved;
}

LostContents ListLost(const std::string& dir) {
  LostContents c;
  for (const auto& f : LostFiles(dir + "/lost")) {
    ++c.files;
    c.bytes += std::get<2>(f);
  }
  return c;
}

LostContents CleanLost(const std::string& dir) {
  LostContents c;
  const std::string lost = dir + "/lost";
  for (const auto& [mtime, name, bytes] : LostFiles(lost)) {
    if (::unlink((lost + "/" + name).c_str()) != 0)
      ThrowIOError(errno, "cannot remove", lost + "/" + name);
    ++c.files;
    c.bytes += bytes;
  }
  return c;
}

}  // namespace wacky
