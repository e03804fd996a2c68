// recovery.cc — see recovery.h.
#include "recovery.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bloom_filter.h"
#include "env.h"
#include "file_io.h"
#include "manifest.h"
#include "merge_policy.h"
#include "run.h"

namespace wacky {

bool ParseRunFileName(const std::string& name, uint64_t* id) {
  uint64_t v = 0;
  // The canonical name only: e.g. wrong zero padding is not a run file.
  if (!ParseNumberedFileName(name, "run-", ".sst", &v) || RunFileName("", v) != "/" + name)
    return false;
  *id = v;
  return true;
}

Version Recover(const std::string& dir, const Options& options, IOCounter* io,
                uint64_t* log_number) {
  const std::string mpath = ManifestFileName(dir);
  const Manifest m = Manifest::Decode(ReadWholeFile(mpath), mpath);
  const std::string diff = CompareDesign(m.options, options);
  if (!diff.empty())
    throw std::invalid_argument("'" + dir + "' was created with a different design: " + diff +
                                "; reopen it with the stored parameters");

  Version v;
  v.next_run_id = m.next_run_id;
  v.n_est = m.n_est;
  *log_number = m.log_number;
  v.levels.assign(m.levels.size(), Level());
  std::set<uint64_t> live;
  const RunLayout layout{options.entry_bytes, options.block_bytes};
  auto recover = [&](const RunRecord& rec) {
    std::vector<uint64_t> hashes;
    auto run = Run::Recover(rec.id, RunFileName(dir, rec.id), layout, rec.entries,
                            rec.tombstones, io, &hashes);
    if (rec.hash_indexed) {
      run->SetKeyHashes(std::move(hashes));
    } else {
      BloomFilter f(rec.entries, rec.bits_per_key);
      if (!f.empty())
        for (uint64_t h : hashes) f.AddHash(h);
      run->SetFilter(std::move(f), rec.bits_per_key);
    }
    live.insert(rec.id);
    return run;
  };
  for (size_t i = 0; i < m.levels.size(); ++i)
    for (const auto& rec : m.levels[i]) v.levels[i].runs.push_back(recover(rec));
  for (const auto& rec : m.level0) v.level0.push_back(recover(rec));
  ApplyShape(options, v.n_est, &v.levels);
  for (auto& l : v.levels) l.RefreshFilters(options.entries_per_block());

  bool moved = false;
  for (const std::string& name : ListDir(dir)) {
    uint64_t id = 0;
    if (!ParseRunFileName(name, &id) || live.count(id) != 0) continue;
    const std::string from = dir + "/" + name;
    if (id >= m.next_run_id) {
      ::unlink(from.c_str());
    } else {
      MakeDirs(dir + "/lost");
      if (::rename(from.c_str(), (dir + "/lost/" + name).c_str()) != 0)
        ThrowIOError(errno, "cannot move an unlisted run file to lost/", from);
      moved = true;
    }
  }
  if (moved && options.sync) {
    SyncDir(dir + "/lost");
    SyncDir(dir);
  }
  return v;
}

}  // namespace wacky
