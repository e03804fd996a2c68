// engine.cc — see engine.h.
#include "engine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "block.h"
#include "hash.h"
#include "merge_policy.h"
#include "merging_iterator.h"
#include "run_iterator.h"
#include "run_writer.h"
#include "scan_iterator.h"
#include "structure.h"

namespace wacky {

namespace {

constexpr size_t kMergePrefetchBlocks = 256;  // 1 MiB sequential reads during merges

bool FileExists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

void MakeDirs(const std::string& path) {
  if (path.empty()) throw std::invalid_argument("path must not be empty");
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw IOError(errno, "cannot create directory '" + cur + "': " + strerror(errno));
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw IOError(ENOTDIR, "'" + path + "' is not a directory");
  if (::access(path.c_str(), W_OK | X_OK) != 0)
    throw IOError(errno, "directory '" + path + "' is not writable: " + strerror(errno));
}

double ElapsedSeconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Engine::Engine(const std::string& path, const Options& options, bool retain_obsolete_runs)
    : path_(path),
      options_(options),
      retain_(retain_obsolete_runs),
      buffer_((options.Validate(), options.buffer_entries()), options.value_bytes()) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  MakeDirs(path_);
  const std::string lock_path = path_ + "/LOCK";
  lock_fd_ = ::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock_fd_ < 0)
    throw IOError(errno, "cannot create '" + lock_path + "': " + strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw IOError(err, "directory '" + path_ + "' is in use by another open Engine");
  }
  try {
    const std::string mpath = path_ + "/MANIFEST";
    if (FileExists(mpath)) {
      Manifest m = Manifest::Decode(ReadWholeFile(mpath), mpath);
      const std::string diff = CompareDesign(m.options, options_);
      if (!diff.empty())
        throw std::invalid_argument("'" + path_ + "' was created with a different design: " +
                                    diff + "; reopen it with the stored parameters");
      Recover(m);
    } else {
      ApplyShape(options_, 0.0, &levels_);
      WriteManifest(levels_, n_est_, next_run_id_);
    }
  } catch (...) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw;
  }
}

Engine::~Engine() {
  try {
    Close();
  } catch (...) {
    // Destructors must not throw; an explicit close() reports errors.
  }
  levels_.clear();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void Engine::CheckOpen() const {
  if (closed_) throw EngineClosed();
}

void Engine::Recover(const Manifest& m) {
  next_run_id_ = m.next_run_id;
  n_est_ = m.n_est;
  std::set<uint64_t> live;
  levels_.assign(m.levels.size(), Level());
  const RunLayout layout{options_.entry_bytes, options_.block_bytes};
  for (size_t i = 0; i < m.levels.size(); ++i) {
    for (const auto& rec : m.levels[i]) {
      std::vector<uint64_t> hashes;
      auto run = Run::Recover(rec.id, RunFileName(path_, rec.id), layout, rec.entries,
                              rec.tombstones, &stats_.recovery, &hashes);
      if (rec.hash_indexed) {
        run->SetKeyHashes(std::move(hashes));
      } else {
        BloomFilter f(rec.entries, rec.bits_per_key);
        if (!f.empty())
          for (uint64_t h : hashes) f.AddHash(h);
        run->SetFilter(std::move(f), rec.bits_per_key);
      }
      levels_[i].runs.push_back(run);
      live.insert(rec.id);
    }
  }
  ApplyShape(options_, n_est_, &levels_);
  RefreshHashLevels(&levels_);
  // Remove run files that no manifest references (left by an interrupted merge).
  if (DIR* d = ::opendir(path_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      unsigned long long id = 0;
      char tail[8] = {0};
      if (sscanf(e->d_name, "run-%llu.ss%1s", &id, tail) == 2 &&
          std::string(e->d_name).size() == 16 && live.count(id) == 0)
        ::unlink((path_ + "/" + e->d_name).c_str());
    }
    ::closedir(d);
  }
}

void Engine::RefreshHashLevels(std::vector<Level>* levels) const {
  for (auto& l : *levels) {
    if (!l.hash_table) {
      for (auto& r : l.runs)
        if (r->hash_indexed()) r->ConvertHashesToFilter(structure::BloomBitsPerKey(l.fpr));
    }
    l.RebuildIndex(options_.entries_per_block());
  }
}

void Engine::WriteManifest(const std::vector<Level>& levels, double n_est, uint64_t next_id) {
  Manifest m;
  m.options = options_;
  m.next_run_id = next_id;
  m.n_est = n_est;
  for (const auto& l : levels) {
    std::vector<RunRecord> recs;
    for (const auto& r : l.runs)
      recs.push_back(RunRecord{r->id(), r->entries(), r->tombstone_count(),
                               r->filter_bits_per_key_target(), r->hash_indexed()});
    m.levels.push_back(std::move(recs));
  }
  stats_.manifest_bytes_written +=
      WriteFileAtomically(path_ + "/MANIFEST", m.Encode(), options_.sync, &faults_);
}

// ---- writes ------------------------------------------------------------------------

void Engine::Put(uint64_t key, const uint8_t* value) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  PutLocked(key, value, false);
  ++stats_.puts;
}

void Engine::Delete(uint64_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  PutLocked(key, nullptr, true);
  ++stats_.deletes;
}

void Engine::PutMany(const uint64_t* keys, const uint8_t* values, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  const size_t vb = options_.value_bytes();
  for (size_t i = 0; i < n; ++i) {
    PutLocked(keys[i], values + i * vb, false);
    ++stats_.puts;
  }
}

void Engine::PutLocked(uint64_t key, const uint8_t* value, bool tombstone) {
  if (buffer_.Full() && !buffer_.Contains(key)) FlushLocked();
  buffer_.Put(key, value, tombstone);
}

void Engine::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  FlushLocked();
}

void Engine::FlushLocked() {
  if (buffer_.size() == 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  const MergePlan plan = PlanMerge(levels_, buffer_.size());
  IOTag tag;
  if (plan.inputs.empty()) {
    tag.purpose = Purpose::kFlush;
  } else {
    tag.purpose = Purpose::kMerge;
    tag.level = static_cast<int>(plan.target) + 1;
  }
  IOCounter* counter = &stats_.For(tag);

  // 1. Merge the buffer (newest) and the input runs into one new run.
  std::vector<std::unique_ptr<EntrySource>> sources;
  sources.push_back(std::make_unique<BufferSource>(&buffer_, buffer_.SortedSlots()));
  for (const auto& r : plan.inputs)
    sources.push_back(std::make_unique<RunIterator>(r, 0, kMergePrefetchBlocks, counter));
  const RunLayout layout{options_.entry_bytes, options_.block_bytes};
  const uint64_t id = next_run_id_;
  RunWriter writer(id, RunFileName(path_, id), layout, counter, &faults_, options_.sync, retain_);
  MergingIterator it(std::move(sources));
  for (; it.Valid(); it.Next()) {
    const bool tomb = it.tombstone();
    if (tomb && plan.drop_tombstones) continue;
    writer.Add(it.key(), it.value(), tomb);
  }
  std::vector<uint64_t> hashes;
  RunPtr out = writer.Finish(&hashes);

  // 2. Build the next version of the tree.
  std::vector<Level> next = levels_;
  for (auto& l : next) {
    std::vector<RunPtr> kept;
    for (const auto& r : l.runs)
      if (std::find(plan.inputs.begin(), plan.inputs.end(), r) == plan.inputs.end())
        kept.push_back(r);
    l.runs.swap(kept);
  }
  size_t target = plan.target;
  if (out) next[target].runs.push_back(out);
  double n_est = n_est_;
  if (plan.major) {
    n_est = static_cast<double>(next[target].entries()) * (options_.C + 1.0) / options_.C;
    const size_t before = next.size();
    ApplyShape(options_, n_est, &next);
    target = target + next.size() - before;  // Level L stays last
  }
  if (out) {
    const Level& t = next[target];
    if (t.hash_table) {
      out->SetKeyHashes(std::move(hashes));
    } else {
      const double bits = structure::BloomBitsPerKey(t.fpr);
      BloomFilter f(out->entries(), bits);
      if (!f.empty())
        for (uint64_t h : hashes) f.AddHash(h);
      out->SetFilter(std::move(f), bits);
    }
  }
  RefreshHashLevels(&next);

  // 3. Make it durable, then install it.
  try {
    WriteManifest(next, n_est, id + 1);
  } catch (...) {
    if (out) out->MarkObsolete(retain_);
    throw;
  }
  levels_.swap(next);
  n_est_ = n_est;
  next_run_id_ = id + 1;
  for (const auto& r : plan.inputs) r->MarkObsolete(retain_);
  buffer_.Clear();
  if (plan.inputs.empty())
    ++stats_.flushes;
  else
    ++stats_.merges;
  if (plan.major) ++stats_.major_compactions;
  if (out) ++stats_.runs_created;
  stats_.runs_deleted += plan.inputs.size();
  stats_.merge_seconds += ElapsedSeconds(t0);
}

// ---- reads -------------------------------------------------------------------------

bool Engine::Get(uint64_t key, uint8_t* value_out) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  ++stats_.gets;
  return GetLocked(key, value_out);
}

void Engine::GetMany(const uint64_t* keys, size_t n, uint8_t* values_out, bool* found_out) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  const size_t vb = options_.value_bytes();
  for (size_t i = 0; i < n; ++i) {
    ++stats_.gets;
    found_out[i] = GetLocked(keys[i], values_out + i * vb);
    if (!found_out[i]) std::memset(values_out + i * vb, 0, vb);
  }
}

bool Engine::GetLocked(uint64_t key, uint8_t* value_out) {
  switch (buffer_.Get(key, value_out)) {
    case Buffer::Lookup::kFound:
      return true;
    case Buffer::Lookup::kDeleted:
      return false;
    case Buffer::Lookup::kAbsent:
      break;
  }
  const uint64_t h = Hash64(key);
  IOCounter* c = &stats_.point_read;
  for (const Level& l : levels_) {
    candidates_.clear();
    if (l.index) l.index->Lookup(h, &candidates_);
    for (size_t pos = l.runs.size(); pos-- > 0;) {
      const Run& r = *l.runs[pos];
      Run::Lookup res = Run::Lookup::kAbsent;
      if (l.index && r.hash_indexed()) {
        // Every signature match costs a block read (App. F): true hits and false ones.
        uint32_t last_block = UINT32_MAX;
        for (const auto& cand : candidates_) {
          if (cand.first != pos || cand.second == last_block) continue;
          last_block = cand.second;
          res = r.GetFromBlock(key, cand.second, value_out, c);
          if (res != Run::Lookup::kAbsent) break;
        }
      } else {
        res = r.Get(key, h, value_out, c);
      }
      if (res == Run::Lookup::kFound) return true;
      if (res == Run::Lookup::kDeleted) return false;
    }
  }
  return false;
}

std::unique_ptr<ScanIterator> Engine::Scan(uint64_t lo, uint64_t hi) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  ++stats_.scans;
  std::vector<std::unique_ptr<EntrySource>> sources;
  sources.push_back(std::make_unique<BufferSource>(buffer_, lo, hi, options_.value_bytes()));
  if (lo <= hi) {
    for (const Level& l : levels_)
      for (auto r = l.runs.rbegin(); r != l.runs.rend(); ++r)
        if ((*r)->entries() > 0 && (*r)->min_key() <= hi && (*r)->max_key() >= lo) {
          ++stats_.range_runs_probed;
          sources.push_back(std::make_unique<RunIterator>(*r, lo, 1, &stats_.range_read));
        }
  }
  auto it = std::make_unique<MergingIterator>(std::move(sources));
  return std::make_unique<ScanIterator>(this, std::move(it), hi, options_.value_bytes());
}

// ---- lifecycle and introspection ------------------------------------------------

void Engine::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  FlushLocked();
  WriteManifest(levels_, n_est_, next_run_id_);
  closed_ = true;
  levels_.clear();  // closes run files (open scans keep theirs until they finish)
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

IOStats Engine::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

IOCounter Engine::TotalIO() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.Total();
}

double Engine::n_est() const {
  std::lock_guard<std::mutex> lock(mu_);
  return n_est_;
}

uint64_t Engine::buffer_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return buffer_.size();
}

std::vector<LevelInfo> Engine::Levels() const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  std::vector<LevelInfo> out;
  for (size_t i = 0; i < levels_.size(); ++i) {
    const Level& l = levels_[i];
    LevelInfo li{static_cast<int>(i + 1), l.ratio, l.capacity, l.max_runs, l.fpr, l.hash_table,
                 l.index ? l.index->sig_bits() : 0, {}};
    for (const auto& r : l.runs) {
      const auto& f = r->filter();
      li.runs.push_back(RunInfo{
          r->id(), r->entries(), r->tombstone_count(), r->data_blocks(), r->file_bytes(),
          r->min_key(), r->max_key(),
          r->entries() ? static_cast<double>(f.num_bits()) / static_cast<double>(r->entries())
                       : 0.0,
          r->filter_bits_per_key_target(), f.num_probes(), r->hash_indexed(),
          f.TheoreticalFpr(r->entries()), f.FprGivenFill()});
    }
    out.push_back(std::move(li));
  }
  return out;
}

void Engine::InjectWriteFailure(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.budget = bytes < 0 ? -1 : bytes;
}

std::vector<uint64_t> Engine::SampleKeysAtLevel(int level, size_t count, uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  std::vector<uint64_t> keys;
  const size_t idx = level < 0 ? levels_.size() - 1 : static_cast<size_t>(level - 1);
  if (idx >= levels_.size()) throw std::invalid_argument("no such level");
  const Level& l = levels_[idx];
  const uint64_t total = l.entries();
  if (total == 0 || count == 0) return keys;
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> block(options_.block_bytes);
  const uint64_t B = options_.entries_per_block();
  for (size_t s = 0; s < count; ++s) {
    uint64_t pick = rng() % total;
    for (const auto& r : l.runs) {
      if (pick >= r->entries()) {
        pick -= r->entries();
        continue;
      }
      const uint64_t b = pick / B;
      r->file().Read(b, 1, block.data(), &stats_.recovery);
      const uint64_t key = DecodeKey(block.data() + (pick % B) * options_.entry_bytes);
      if (!r->IsTombstone(key)) keys.push_back(key);
      break;
    }
  }
  return keys;
}

}  // namespace wacky
