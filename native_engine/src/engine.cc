// engine.cc — see engine.h.
#include "engine.h"

#include <unistd.h>

#include <errno.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <cstring>
#include <functional>
#include <iterator>

#include "compaction_buffer.h"
#include "directory_check.h"
#include "engine_limits.h"
#include "hash.h"
#include "level_iterator.h"
#include "manifest.h"
#include "merge_policy.h"
#include "merging_iterator.h"
#include "recovery.h"
#include "run_iterator.h"
#include "scan_iterator.h"

namespace wacky {

namespace {
// The ids of every run of v, sorted (defined with WriteManifest, below).
std::vector<uint64_t> RunIds(const Version& v);
}  // namespace

Engine::Engine(const std::string& path, const Options& options, bool retain_obsolete_runs)
    : path_(path),
      options_(options),
      retain_(retain_obsolete_runs),
      buffer_((options.Validate(), options.buffer_entries()), options.value_bytes()),
      strategy_(CompactionStrategy::For(options)),
      cache_(options.cache_bytes, options.block_bytes),
      block_(options.block_bytes) {
  CheckPath(path_);
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  if (options_.salvage) {
    // Read-only: nothing is created, not even the directory.
    if (!FileExists(ManifestFileName(path_)))
      throw IOError(ENOENT, "'" + path_ + "' has no MANIFEST: salvage mode opens an existing "
                    "engine directory read-only and creates nothing (nothing was changed)");
  } else {
    MakeDirs(path_, options_.sync);
  }
  // A failure below destroys lock_ with the half-built engine, releasing the directory.
  lock_ = std::make_unique<DirLock>(path_, "directory '" + path_ + "'");
  // [devices] Every device directory is made and locked too: two engines must not share one,
  // for each deletes the run files there that its MANIFEST does not list.
  auto devices = std::make_shared<Devices>(path_, options_.level_dirs);
  for (size_t d = 1; d < devices->size(); ++d) {
    if (!options_.salvage) MakeDirs(devices->dir(d), options_.sync);
    device_locks_.push_back(std::make_unique<DirLock>(
        devices->dir(d), "device directory '" + devices->dir(d) + "'"));
  }
  stats_.devices = std::move(devices);
  // [floating] Before the open's replay and flush: a flush may float (nothing is hot yet).
  if (options_.float_gamma > 0.0) heat_ = std::make_unique<ReadHeat>(options_.float_decay);
  OpenDirectory();
  if (heat_) heat_->Track(RunIds(current_));  // the files found: exposed from now
}

namespace {

uint64_t NewDbId(const std::string& path) {
  std::random_device rd;
  const uint64_t t = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  uint64_t id = (static_cast<uint64_t>(rd()) << 32 | rd()) ^ t ^ std::hash<std::string>()(path);
  return id == 0 ? 1 : id;
}

}  // namespace

void Engine::OpenDirectory() {
  std::map<uint64_t, std::string> logs;  // every log file in the directory
  for (const std::string& name : ListDir(path_)) {
    uint64_t n = 0;
    if (ParseLogFileName(name, &n)) logs.emplace(n, path_ + "/" + name);
  }
  if (!FileExists(ManifestFileName(path_))) {
    if (HoldsEngineData(path_))
      throw IOError(ENOENT, "'" + path_ + "' holds run files or logs but no MANIFEST, so "
                    "nothing proves which data is live; refusing to open it (nothing was "
                    "changed). Restore the MANIFEST, or move the files away");
    RefuseForeignDirectory(path_);  // before anything is written beside another's files
    // [devices] A device directory holding run files belongs to another tree (or an older
    // one of this directory): a new tree must not delete or mix with them.
    for (size_t d = 1; d < stats_.devices->size(); ++d)
      if (HoldsEngineData(stats_.devices->dir(d)))
        throw std::invalid_argument(
            "device directory '" + stats_.devices->dir(d) + "' (level_dirs) already holds run "
            "files, but '" + path_ + "' is a new engine directory: they belong to another "
            "tree. Give an empty directory (nothing was changed)");
    // A log and nothing else: a creation that crashed before its MANIFEST. It holds no write.
    for (const auto& entry : logs) ::unlink(entry.second.c_str());
    logs.clear();
    options_.db_id = NewDbId(path_);
    ApplyShape(options_, 0.0, &current_.levels);
    MakeHotnessTracker();
    if (options_.wal) {
      log_ = std::make_unique<LogWriter>(LogFileName(path_, next_log_number_),
                                         next_log_number_, options_.db_id,
                                         options_.value_bytes(), options_.sync, &faults_);
      live_logs_ = {next_log_number_++};
    }
    WriteManifest(current_, live_logs_);
    return;
  }
  Recovered rec = Recover(path_, options_, &stats_.recovery,
                          options_.salvage ? &set_aside_ : nullptr, stats_.space, stats_.devices);
  const Manifest& m = rec.manifest;
  options_.db_id = m.db_id;
  stats_.buffer_unreadable = rec.buffer_unreadable;  // [compaction buffer]
  generation_ = m.generation;
  obsolete_ = m.obsolete;
  next_log_number_ = m.next_log_number;

  // Check every live log before replaying any, so a refused open changes nothing.
  const auto mode = static_cast<WalRecovery>(options_.wal_recovery);
  std::vector<LogScan> scans;
  for (uint64_t number : m.logs) {
    const std::string file = LogFileName(path_, number);
    if (!FileExists(file)) {
      if (mode == WalRecovery::kPointInTimeRecovery) break;  // the caller accepts the loss
      throw Corruption("log file '" + file + "' that the MANIFEST lists as live is missing: "
                       "the writes it held since the last flush cannot be recovered. Open "
                       "with wal_recovery='point_in_time' to accept that loss");
    }
    scans.push_back(ScanLog(file, number, m.db_id, options_.value_bytes(), mode));
    stats_.wal_dropped_bytes += scans.back().dropped_bytes;
    if (!scans.back().stopped_at.empty()) break;  // point in time: nothing after the damage
  }
  if (options_.salvage) {
    // Read-only (engine.h): the logs' writes are served from memory. The buffer is sized to
    // hold them all, since nothing may be flushed; it takes memory only as it fills.
    uint64_t logged = 0;
    for (const LogScan& scan : scans) logged += scan.entries;
    buffer_ = Buffer(options_.buffer_entries() + logged, options_.value_bytes());
    for (const LogScan& scan : scans) {
      ApplyLog(scan, options_.value_bytes(), [this](uint64_t k, const uint8_t* v, bool tomb) {
        buffer_.Put(k, v, tomb);
        ++stats_.wal_replayed_entries;
      });
    }
    current_ = std::move(rec.version);
    live_logs_ = m.logs;
    return;
  }
  // Every check passed: only now does anything change. Files the MANIFEST does not list go
  // first (deleted with proof, else moved to lost/), so the replay's flush can reuse ids.
  for (size_t d = 0; d < stats_.devices->size(); ++d)  // each device has its own lost/
    stats_.files_moved_to_lost += DisposeUnlisted(
        stats_.devices->dir(d), ClassifyUnlisted(path_, m, options_.value_bytes(), d),
        options_.max_lost_bytes, options_.sync);
  current_ = std::move(rec.version);
  PageRuns(current_);  // [paged metadata] the runs without a sound tail get one
  MakeHotnessTracker();  // before the replay's flush, which records its keys

  // Replay with no log open: flushes during replay keep the live logs, so a crash during
  // recovery replays the same logs again (puts and deletes are idempotent in order).
  live_logs_ = m.logs;
  replaying_ = true;
  for (const LogScan& scan : scans) {
    ApplyLog(scan, options_.value_bytes(), [this](uint64_t k, const uint8_t* v, bool tomb) {
      PutLocked(k, v, tomb);
      ++stats_.wal_replayed_entries;
    });
  }
  bool flushed = true;
  try {
    FlushLocked();  // the logs' writes are now in runs
  } catch (const DesignLimit&) {
    // The data outgrew the design (engine_limits.h): open anyway, with the replayed
    // writes in the buffer and their logs kept live, so that they stay readable.
    flushed = false;
  }
  replaying_ = false;
  // A crash between creating a log and the MANIFEST naming it leaves a newer log file.
  if (!logs.empty()) next_log_number_ = std::max(next_log_number_, logs.rbegin()->first + 1);
  std::vector<uint64_t> live;
  if (!flushed) live = m.logs;
  if (options_.wal) {
    log_ = std::make_unique<LogWriter>(LogFileName(path_, next_log_number_), next_log_number_,
                                       options_.db_id, options_.value_bytes(), options_.sync,
                                       &faults_);
    live.push_back(next_log_number_++);
  }
  WriteManifest(current_, live);  // with sync, this also makes the new log's creation durable
  const std::vector<uint64_t> before = live_logs_;
  live_logs_ = live;
  for (uint64_t number : before)
    if (std::find(live.begin(), live.end(), number) == live.end())
      ::unlink(LogFileName(path_, number).c_str());
}

void Engine::MakeHotnessTracker() {
  if (options_.log_ratio > 0.0)
    hotness_ = std::make_unique<HotnessTracker>(options_, ExpectedKeys());
}

uint64_t Engine::ExpectedKeys() const {
  // The unique keys the data holds, by the shape's estimate; at least one buffer's worth.
  const double n = std::min(current_.n_est, 1e15);  // a cast beyond 2^64 would be undefined
  return std::max<uint64_t>(options_.buffer_entries(), static_cast<uint64_t>(n));
}

Engine::~Engine() {
  try {
    Close();
  } catch (...) {
    // Destructors must not throw; an explicit close() reports errors.
  }
  current_.levels.clear();  // close run files before releasing the directory lock
  current_.level0.clear();
  lock_.reset();
  device_locks_.clear();
}

void Engine::CheckOpen() const {
  if (closed_) throw EngineClosed();
}

namespace {
// The ids of every run of v, sorted.
std::vector<uint64_t> RunIds(const Version& v) {
  std::vector<uint64_t> ids;
  for (const auto& r : v.level0) ids.push_back(r->id());
  for (const auto& l : v.levels) {
    for (const auto& r : l.runs) ids.push_back(r->id());
    for (const auto& r : l.log) ids.push_back(r->id());  // live: moved, not merged away
  }
  for (const auto& r : BufferedFiles(v.levels)) ids.push_back(r->id());  // [compaction buffer]
  std::sort(ids.begin(), ids.end());
  return ids;
}
}  // namespace

void Engine::PageRuns(const Version& v) {
  if (!options_.paged_metadata) return;
  auto page = [this](const RunPtr& r) {
    if (!r->paged()) r->PageMetadata(&faults_, options_.sync, &stats_.paged_meta_written);
  };
  for (const auto& r : v.level0) page(r);
  for (const auto& l : v.levels) {
    for (const auto& r : l.runs) page(r);
    for (const auto& r : l.log) page(r);
  }
}

void Engine::WriteManifest(const Version& v, const std::vector<uint64_t>& live_logs) {
  Manifest m;
  m.options = options_;
  m.db_id = options_.db_id;
  m.generation = generation_ + 1;
  m.next_run_id = v.next_run_id;
  m.next_log_number = next_log_number_;
  m.logs = live_logs;
  m.n_est = v.n_est;
  // The runs this version drops join those whose files may still exist: recovery may
  // delete exactly these. Ids whose files are gone leave the list.
  const std::vector<uint64_t> now = RunIds(current_), next = RunIds(v);
  std::set_difference(now.begin(), now.end(), next.begin(), next.end(),
                      std::back_inserter(m.obsolete));
  // So do the runs this flush wrote and merged away again (a cascade of file merges).
  // [devices] Where a run's file is (device 0 if on none): the MANIFEST places it there.
  const Devices& devices = *stats_.devices;
  auto on_disk = [&](uint64_t id) -> int {
    for (size_t d = 0; d < devices.size(); ++d)
      if (FileExists(RunFileName(devices.dir(d), id))) return static_cast<int>(d);
    return -1;
  };
  for (uint64_t id = current_.next_run_id; id < v.next_run_id; ++id)
    if (!std::binary_search(next.begin(), next.end(), id) && on_disk(id) >= 0)
      m.obsolete.push_back(id);
  for (uint64_t id : obsolete_)
    if (!std::binary_search(next.begin(), next.end(), id) && on_disk(id) >= 0)
      m.obsolete.push_back(id);
  std::sort(m.obsolete.begin(), m.obsolete.end());
  m.obsolete.erase(std::unique(m.obsolete.begin(), m.obsolete.end()), m.obsolete.end());
  if (devices.size() > 1) {
    for (uint64_t id : m.obsolete)
      if (const int d = on_disk(id); d > 0) m.placed[id] = static_cast<uint32_t>(d);
    auto place = [&](const RunPtr& r) {
      if (const uint32_t d = devices.Of(r->file().path()); d > 0) m.placed[r->id()] = d;
    };
    for (const auto& r : v.level0) place(r);
    for (const auto& l : v.levels) {
      for (const auto& r : l.runs) place(r);
      for (const auto& r : l.log) place(r);
    }
    for (const auto& r : BufferedFiles(v.levels)) place(r);  // [compaction buffer]
  }
  auto record = [](const RunPtr& r) {
    return RunRecord{r->id(), r->entries(), r->tombstone_count(),
                     r->filter_bits_per_key_target(), r->hash_indexed(), r->min_key(),
                     r->max_key()};
  };
  for (const auto& l : v.levels) {
    std::vector<RunRecord> recs, log;
    for (const auto& r : l.runs) recs.push_back(record(r));
    for (const auto& r : l.log) log.push_back(record(r));
    m.levels.push_back(std::move(recs));
    m.level_logs.push_back(std::move(log));
  }
  for (const auto& r : v.level0) m.level0.push_back(record(r));
  if (options_.compaction_buffer)  // [compaction buffer]
    for (const auto& l : v.levels) m.buffers.push_back(l.buffer.Records());
  stats_.manifest_bytes_written +=
      WriteFileAtomically(ManifestFileName(path_), m.Encode(), options_.sync, &faults_);
  generation_ = m.generation;
  obsolete_ = std::move(m.obsolete);
}

// ---- writes ------------------------------------------------------------------------

void Engine::CheckWritable(const char* what) const {
  if (!options_.salvage) return;
  std::string runs;
  if (!set_aside_.empty())
    runs = " (" + std::to_string(set_aside_.size()) + " damaged run" +
           (set_aside_.size() == 1 ? " is set aside; a flush or merge would drop it"
                                   : "s are set aside; a flush or merge would drop them") +
           " for good)";
  throw IOError(EROFS, std::string(what) + " refused: '" + path_ + "' is open in salvage "
                "mode, which is read-only" + runs + ". Copy what you need into a new "
                "directory, or restore the damaged files and reopen without salvage");
}

void Engine::Put(uint64_t key, const uint8_t* value) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  CheckWritable("put");
  PutLocked(key, value, false);
  CommitLog();
  ++stats_.puts;
}

void Engine::Delete(uint64_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  CheckWritable("delete");
  PutLocked(key, nullptr, true);
  CommitLog();
  ++stats_.deletes;
}

bool Engine::TryWrite(uint64_t key, const uint8_t* value, bool tombstone) {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  // closed or read-only: the slow path raises
  if (!lock.owns_lock() || closed_ || options_.salvage) return false;
  if ((buffer_.Full() && !buffer_.Contains(key)) || (log_ && options_.sync)) return false;
  PutLocked(key, value, tombstone);
  CommitLog();
  ++(tombstone ? stats_.deletes : stats_.puts);
  return true;
}

bool Engine::TryGet(uint64_t key, uint8_t* value_out, bool* found) {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || closed_) return false;
  ++stats_.gets;
  *found = GetLocked(key, value_out);
  return true;
}

void Engine::CommitLog() {
  if (!log_) return;
  try {
    const size_t n = log_->Commit();
    stats_.wal_bytes_written += n;
    if (n > 0 && options_.sync) ++stats_.wal_syncs;
    return;
  } catch (const IOError&) {
    if (!log_->failed()) throw;
  }
  // A failed write or fdatasync: the log can no longer be trusted (wal.h). The buffer, which
  // holds every write so far, goes into a run instead; the flush also starts a new log. If
  // it succeeds, the writes are durable and the call may return.
  FlushLocked();
}

void Engine::PutMany(const uint64_t* keys, const uint8_t* values, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  CheckWritable("put_many");
  const size_t vb = options_.value_bytes();
  if (n == 0) return;
  // The whole batch goes into the log first, as one batch (wal.h), then into the buffer:
  // after a crash it is replayed whole or not at all.
  bool logged = false;
  // A log broken by an earlier call is retired first (its writes go into a run), so the
  // failure handled below is this batch's own.
  if (log_ && log_->failed()) FlushLocked();
  if (log_) {
    try {
      for (size_t i = 0; i < n; ++i) log_->Add(keys[i], values + i * vb, false);
      stats_.wal_bytes_written += log_->Commit();
      if (options_.sync) ++stats_.wal_syncs;
      logged = true;
    } catch (const IOError&) {
      // The log is broken (wal.h). The buffer holds every earlier write: a flush makes them
      // durable and starts a new log. If the batch's records did reach the file whole (only
      // the fdatasync failed), applying it and flushing makes it durable too; otherwise the
      // call fails with none of the batch applied.
      const bool written = log_->sync_failed();
      if (!written) {
        try {
          FlushLocked();
        } catch (...) {
        }
        throw;
      }
    }
  }
  batch_log_ = log_ ? log_->number() : 0;
  try {
    for (size_t i = 0; i < n; ++i) {
      if (buffer_.Full() && !buffer_.Contains(keys[i])) FlushLocked();
      buffer_.Put(keys[i], values + i * vb, false);
      ++stats_.puts;
    }
  } catch (...) {
    batch_log_ = 0;
    throw;
  }
  batch_log_ = 0;
  if (heat_) heat_->Wrote(n);  // [floating]
  if (log_ && !logged) FlushLocked();  // the log failed: the batch is made durable in runs
}

void Engine::PutLocked(uint64_t key, const uint8_t* value, bool tombstone) {
  if (buffer_.Full() && !buffer_.Contains(key)) FlushLocked();
  if (log_) log_->Add(key, value, tombstone);
  buffer_.Put(key, value, tombstone);
  if (heat_ && !replaying_) heat_->Wrote(1);  // [floating] eta counts the workload's writes
}

void Engine::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  CheckWritable("flush");
  FlushLocked();
}

void Engine::FlushLocked() {
  if (buffer_.size() == 0) return;
  // Records still pending in the log belong to the call in progress, which has not
  // returned: after a crash they may be lost. Once the MANIFEST below is durable the run
  // holds them, and the old log with its pending records is dropped.
  const auto t0 = std::chrono::steady_clock::now();
  // Recorded before any output file exists: proof for recovery that unlisted runs from
  // current_.next_run_id up are this flush's, should it never commit (recovery.h).
  stats_.manifest_bytes_written += WriteFileAtomically(
      OutputsFileName(path_),
      OutputsRecord{options_.db_id, generation_, current_.next_run_id}.Encode(), false,
      &faults_);
  {
    // [compaction buffer] A trim that is due is planned on a copy of the tree and committed
    // with this flush, in its MANIFEST; Install() deletes what it drops (compaction_buffer.h).
    Version trimmed;
    uint64_t trims = 0;
    const bool trim = options_.compaction_buffer &&
                      stats_.merges - buffer_trim_merges_ >= options_.buffer_trim_interval;
    if (trim) {
      trimmed = current_;
      trims = TrimBuffers(options_.buffer_trim, cache_, &trimmed.levels);
    }
    const std::unique_ptr<FlushJob> job = strategy_->NewFlush(
        options_, trim ? trimmed : current_, buffer_, retain_, hotness_.get(), heat_.get());
    job->Write(path_, &faults_, &stats_);
    CommitFlush(job->next(), [&] {
      job->Install(&current_, &stats_);
      // Counted once committed (hotness.h): a flush that failed never happened.
      if (hotness_) hotness_->RecordFlush(buffer_, ExpectedKeys());
    });
    if (trim) {
      stats_.buffer_trimmed += trims;
      buffer_trim_merges_ = stats_.merges;
    }
    if (heat_) heat_->Track(RunIds(current_));  // [floating] the files installed start now
  }
  // Committed: the record must not outlive the generation it was made for, or a MANIFEST
  // restored from that generation would take this flush's outputs for uncommitted ones.
  ::unlink(OutputsFileName(path_).c_str());
  stats_.merge_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Engine::CommitFlush(const Version& next_version, const std::function<void()>& install) {
  // [paged metadata] New runs get their tails before the MANIFEST lists them (a failure here
  // is a failed flush: the compaction removes its files). Their blocks are not cached: like
  // RocksDB's prepopulate_block_cache = kDisable, the first lookup reads them.
  PageRuns(next_version);
  // The buffer's logs are obsolete once the MANIFEST naming the next log is durable, except
  // while replaying (a crash then must replay the same logs) and while a logged batch is
  // being applied (its log, and every later one, stay live until it is applied whole).
  std::unique_ptr<LogWriter> next;
  std::vector<uint64_t> live;
  if (replaying_) {
    live = live_logs_;
  } else if (batch_log_ != 0) {
    for (uint64_t n : live_logs_)
      if (n >= batch_log_) live.push_back(n);
  }
  const uint64_t next_number = next_log_number_;
  if (log_) {
    next = std::make_unique<LogWriter>(LogFileName(path_, next_number), next_number,
                                       options_.db_id, options_.value_bytes(), options_.sync,
                                       &faults_);
    live.push_back(next_number);
    ++next_log_number_;
  }
  try {
    WriteManifest(next_version, live);  // if this throws, the compaction removes its files
  } catch (...) {
    if (next) {
      ::unlink(next->path().c_str());
      --next_log_number_;
    }
    throw;
  }
  std::vector<uint64_t> cached_runs;  // the runs that may have blocks cached
  if (cache_.size() > 0) cached_runs = RunIds(current_);
  install();
  if (!cached_runs.empty()) EraseDroppedRuns(cached_runs);
  buffer_.Clear();
  if (next) log_ = std::move(next);
  const std::vector<uint64_t> before = live_logs_;
  live_logs_ = std::move(live);
  for (uint64_t n : before)
    if (std::find(live_logs_.begin(), live_logs_.end(), n) == live_logs_.end())
      ::unlink(LogFileName(path_, n).c_str());
}

void Engine::EraseDroppedRuns(const std::vector<uint64_t>& before) {
  const std::vector<uint64_t> after = RunIds(current_);
  std::vector<uint64_t> dropped;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::back_inserter(dropped));
  for (uint64_t id : dropped) stats_.cache_invalidated_blocks += cache_.EraseRun(id);
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
  uint64_t checked = 0;
  const bool found = LookupLocked(key, value_out, &checked);
  stats_.get_files_checked += checked;
  if (found) {
    ++stats_.gets_found;
    stats_.found_get_files_checked += checked;
  }
  if (heat_) heat_->Looked();  // [floating] after its checks: a decay may follow
  return found;
}

bool Engine::LookupLocked(uint64_t key, uint8_t* value_out, uint64_t* checked) {
  switch (buffer_.Get(key, value_out)) {
    case Buffer::Lookup::kFound:
      return true;
    case Buffer::Lookup::kDeleted:
      return false;
    case Buffer::Lookup::kAbsent:
      break;
  }
  const uint64_t h = Hash64(key);
  // Salvage mode: before each run, the set-aside runs newer than it (engine.h).
  const bool salvaged = !set_aside_.empty();
  for (size_t pos = current_.level0.size(); pos-- > 0;) {
    if (salvaged) CheckSetAside(-1, pos + 1, key);
    const Run& r = *current_.level0[pos];
    if (key >= r.min_key() && key <= r.max_key()) ++*checked;  // never floats: no read count
    uint64_t b = 0;
    if (!Probe(r, key, h, 0, &b)) continue;
    const Run::Lookup res = GetCached(r, key, b, 0, value_out);
    if (res == Run::Lookup::kFound) return true;
    if (res == Run::Lookup::kDeleted) return false;
  }
  if (salvaged) CheckSetAside(-1, 0, key);
  const bool files = strategy_->levels_are_files();
  // Per level: its tree (LSbM's compaction buffer of the level walked first, when the tree
  // file may hold the key), then its L2SM log. The two are never on together (options.h).
  for (size_t i = 0; i < current_.levels.size(); ++i) {
    const Level& l = current_.levels[i];
    // A level of files is one sorted run: a set-aside file is the only one that may hold a
    // key of its range. Otherwise, newest first, as in level 0.
    if (salvaged && files) CheckSetAside(static_cast<int>(i), 0, key);
    // A level of files is one sorted run: only the file whose key range covers the key can
    // hold it, so it alone is probed (one filter, at most one block), found in O(log n).
    size_t end = l.runs.size(), begin = 0;
    if (files) {
      begin = FileFor(l.runs, key);
      end = begin == l.runs.size() ? begin : begin + 1;
    }
    candidates_.clear();
    if (l.index && begin < end) l.index->Lookup(h, &candidates_);
    for (size_t pos = end; pos-- > begin;) {
      if (salvaged) CheckSetAside(static_cast<int>(i), pos + 1, key);
      const Run& r = *l.runs[pos];
      if (key >= r.min_key() && key <= r.max_key()) CountChecked(r, checked);
      Run::Lookup res = Run::Lookup::kAbsent;
      if (l.index && r.hash_indexed()) {
        // Every signature match costs a block read (App. F): true hits and false ones.
        uint32_t last_block = UINT32_MAX;
        for (const auto& cand : candidates_) {
          if (cand.first != pos || cand.second == last_block) continue;
          // [compaction buffer] The level's tree file may hold the key: its buffer first.
          if (last_block == UINT32_MAX && !l.buffer.empty() &&
              (res = BufferGet(l, i + 1, key, h, value_out)) != Run::Lookup::kAbsent)
            break;
          last_block = cand.second;
          res = GetCached(r, key, cand.second, i + 1, value_out);
          if (res != Run::Lookup::kAbsent) break;
        }
      } else if (uint64_t b = 0; Probe(r, key, h, i + 1, &b)) {
        if (!l.buffer.empty()) res = BufferGet(l, i + 1, key, h, value_out);  // [compaction buffer]
        if (res == Run::Lookup::kAbsent) res = GetCached(r, key, b, i + 1, value_out);
      }
      if (res == Run::Lookup::kFound) return true;
      if (res == Run::Lookup::kDeleted) return false;
    }
    if (salvaged) CheckSetAside(static_cast<int>(i), 0, key);
    // L2SM: the level's log is older than its tree and newer than the next level. Its files
    // may overlap: each covering the key is probed, newest first, through its filter.
    for (size_t pos = l.log.size(); pos-- > 0;) {
      if (salvaged) CheckSetAside(static_cast<int>(i), pos + 1, key, true);
      const Run& r = *l.log[pos];
      if (key >= r.min_key() && key <= r.max_key()) CountChecked(r, checked);
      uint64_t b = 0;
      if (!Probe(r, key, h, i + 1, &b)) continue;
      const Run::Lookup res = GetCached(r, key, b, i + 1, value_out);
      if (res == Run::Lookup::kFound) return true;
      if (res == Run::Lookup::kDeleted) return false;
    }
    if (salvaged) CheckSetAside(static_cast<int>(i), 0, key, true);
  }
  return false;
}

void Engine::CheckSetAside(int level, size_t min_older, uint64_t key, bool in_log) const {
  for (const DamagedRun& d : set_aside_) {
    if (d.lookup_level != level || d.in_log != in_log || d.older_served < min_older ||
        key < d.min_key || key > d.max_key)
      continue;
    throw Corruption(
        "key " + std::to_string(key) + " is in the key range [" + std::to_string(d.min_key) +
        ", " + std::to_string(d.max_key) + "] of run file '" + d.file + "' (" +
        (d.level == 0 ? std::string("level 0") : "Level " + std::to_string(d.level)) +
        (d.in_log ? "'s log" : "") + ", " + std::to_string(d.entries) +
        " entries), set aside as damaged by the salvage open: it "
        "may hold the key's newest version or its deletion, so no answer is given ("
        "`wacky verify` lists every lost range)");
  }
}

bool Engine::Probe(const Run& r, uint64_t key, uint64_t h, size_t level, uint64_t* block) {
  if (!r.paged()) {  // pinned: the filter and fences in memory
    if (!r.MayContain(key, h)) return false;
    *block = r.BlockFor(key);
    return true;
  }
  // [paged metadata] RocksDB's order (BlockBasedTable::Get): the filter block, then, if it
  // passes the key, the index block; the key range is the MANIFEST's, in memory.
  if (!r.InRange(key)) return false;
  if (r.filter_block_bytes() > 0 &&
      !r.FilterBlockMayContain(MetaBlock(r, BlockCache::kFilterBlock, level, true), h))
    return false;
  *block = r.BlockForIn(MetaBlock(r, BlockCache::kIndexBlock, level, true), key);
  return true;
}

const uint8_t* Engine::MetaBlock(const Run& r, uint64_t which, size_t level, bool fill) {
  const bool filter = which == BlockCache::kFilterBlock;
  std::vector<uint64_t>& hits = filter ? stats_.filter_hits : stats_.index_hits;
  std::vector<uint64_t>& misses = filter ? stats_.filter_misses : stats_.index_misses;
  if (const uint8_t* cached = cache_.Lookup(r.id(), which)) {
    IOStats::CountAt(&hits, level);
    return cached;
  }
  std::vector<uint8_t>& buf = filter ? filter_block_ : index_block_;
  if (filter)
    r.ReadFilterBlock(&buf, &stats_.filter_read);  // checked against its CRC
  else
    r.ReadIndexBlock(&buf, &stats_.index_read);
  IOStats::CountAt(&misses, level);
  if (fill)
    cache_.InsertMeta(r.id(), which, buf.data(),
                      filter ? r.filter_block_bytes() : r.index_block_bytes());
  return buf.data();
}

Run::Lookup Engine::GetCached(const Run& r, uint64_t key, uint64_t b, size_t level,
                              uint8_t* value_out) {
  if (const uint8_t* cached = cache_.Lookup(r.id(), b)) {
    stats_.CountCacheLookup(level, true);
    return r.FindInBlock(key, b, cached, value_out);
  }
  r.ReadBlock(b, block_.data(), &stats_.point_read);  // checked before it is cached
  stats_.CountCacheLookup(level, false);
  cache_.Insert(r.id(), b, block_.data());
  return r.FindInBlock(key, b, block_.data(), value_out);
}

Run::Lookup Engine::BufferGet(const Level& l, size_t level, uint64_t key, uint64_t h,
                              uint8_t* value_out) {
  // B^0's blocks are read as Algorithm 3 does; an older table's only when cached
  // (compaction_buffer.h, Reads): a cold one costs the tree block's I/O and cache room.
  const Run::Lookup res = l.buffer.Get(
      key, h, [&](const Run& r, uint64_t b, bool newest) -> std::optional<Run::Lookup> {
        if (newest) return GetCached(r, key, b, level, value_out);
        const uint8_t* cached = cache_.Lookup(r.id(), b);
        if (cached == nullptr) return std::nullopt;
        stats_.CountCacheLookup(level, true);
        return r.FindInBlock(key, b, cached, value_out);
      });
  if (res != Run::Lookup::kAbsent) ++stats_.buffer_reads;
  return res;
}

std::unique_ptr<ScanIterator> Engine::Scan(uint64_t lo, uint64_t hi) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  if (lo <= hi)
    for (const DamagedRun& d : set_aside_)
      if (d.min_key <= hi && d.max_key >= lo)
        throw Corruption(
            "scan [" + std::to_string(lo) + ", " + std::to_string(hi) + "] overlaps the key "
            "range [" + std::to_string(d.min_key) + ", " + std::to_string(d.max_key) +
            "] of run file '" + d.file + "' (" +
            (d.level == 0 ? std::string("level 0") : "Level " + std::to_string(d.level)) +
            ", " + std::to_string(d.entries) + " entries), set aside as damaged by the "
            "salvage open: the scan could return stale or deleted values there, so it is "
            "refused; scan around that range");
  ++stats_.scans;
  // [paged metadata] A scan positions itself in each file it opens with the file's index
  // block: through the cache, and read on a miss without filling it (scans fill no cache).
  auto index = [this](const RunPtr& r, size_t level) {
    if (r->paged()) MetaBlock(*r, BlockCache::kIndexBlock, level, false);
  };
  std::vector<std::unique_ptr<EntrySource>> sources;
  sources.push_back(std::make_unique<BufferSource>(buffer_, lo, hi, options_.value_bytes()));
  if (lo <= hi) {
    for (auto r = current_.level0.rbegin(); r != current_.level0.rend(); ++r)
      if ((*r)->entries() > 0 && (*r)->min_key() <= hi && (*r)->max_key() >= lo) {
        ++stats_.range_runs_probed;
        index(*r, 0);
        sources.push_back(std::make_unique<RunIterator>(*r, lo, 1, &stats_.range_read));
      }
    const bool files = strategy_->levels_are_files();
    for (size_t i = 0; i < current_.levels.size(); ++i) {
      const Level& l = current_.levels[i];
      if (files) {
        // One sorted run: its files are read one after another, opened as the scan
        // reaches them, and probed as one run.
        auto first = std::partition_point(l.runs.begin(), l.runs.end(),
                                          [lo](const RunPtr& r) { return r->max_key() < lo; });
        auto last = std::partition_point(first, l.runs.end(),
                                         [hi](const RunPtr& r) { return r->min_key() <= hi; });
        if (first != last) {
          std::vector<RunPtr> files(first, last);
          ++stats_.range_runs_probed;
          for (const RunPtr& f : files) index(f, i + 1);
          sources.push_back(
              std::make_unique<LevelIterator>(std::move(files), lo, 1, &stats_.range_read));
        }
        // L2SM: the level's log files, newest first, right after its tree (sst_log.h).
        for (auto r = l.log.rbegin(); r != l.log.rend(); ++r)
          if ((*r)->entries() > 0 && (*r)->min_key() <= hi && (*r)->max_key() >= lo) {
            ++stats_.range_runs_probed;
            index(*r, i + 1);
            sources.push_back(std::make_unique<RunIterator>(*r, lo, 1, &stats_.range_read));
          }
        continue;
      }
      for (auto r = l.runs.rbegin(); r != l.runs.rend(); ++r)
        if ((*r)->entries() > 0 && (*r)->min_key() <= hi && (*r)->max_key() >= lo) {
          ++stats_.range_runs_probed;
          index(*r, i + 1);
          sources.push_back(std::make_unique<RunIterator>(*r, lo, 1, &stats_.range_read));
        }
    }
  }
  auto it = std::make_unique<MergingIterator>(std::move(sources));
  return std::make_unique<ScanIterator>(this, std::move(it), hi, options_.value_bytes());
}

// ---- lifecycle and introspection ------------------------------------------------

void Engine::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  if (options_.salvage) {  // read-only: nothing is written, the replayed writes stay in the logs
    closed_ = true;
    current_.levels.clear();
    current_.level0.clear();
    cache_.Clear();
    lock_.reset();
    device_locks_.clear();
    return;
  }
  try {
    FlushLocked();
  } catch (const DesignLimit&) {
    if (!log_) throw;  // without a log, the buffer would be lost
    // The logs hold the buffer; the MANIFEST keeps them live and reopening replays them.
  }
  WriteManifest(current_, live_logs_);
  closed_ = true;
  current_.levels.clear();  // closes run files (open scans keep theirs until they finish)
  current_.level0.clear();
  cache_.Clear();
  lock_.reset();
  device_locks_.clear();
}

IOStats Engine::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  IOStats s = stats_;
  s.cache_blocks = cache_.data_blocks();
  const size_t levels = std::max({current_.levels.size() + 1, s.cache_hits.size(),
                                  s.cache_misses.size(), s.filter_hits.size(),
                                  s.filter_misses.size(), s.index_hits.size(),
                                  s.index_misses.size()});
  for (auto* v : {&s.cache_hits, &s.cache_misses, &s.filter_hits, &s.filter_misses,
                  &s.index_hits, &s.index_misses})
    v->resize(levels);
  // [paged metadata] The gauges: metadata in the cache, and filters and fences that lookups
  // read from memory (a paged run's are in its file; see io_stats.h).
  s.meta_cache_bytes = cache_.meta_bytes();
  auto pinned = [&s](const RunPtr& r) {
    if (!r->paged()) s.pinned_meta_bytes += r->filter_block_bytes() + r->index_block_bytes();
  };
  for (const auto& r : current_.level0) pinned(r);
  for (const Level& l : current_.levels) {
    for (const auto& r : l.runs) pinned(r);
    for (const auto& r : l.log) pinned(r);
  }
  if (options_.compaction_buffer) {  // [compaction buffer] the gauges
    s.buffer_entries.assign(current_.levels.size() + 1, 0);
    for (size_t i = 0; i < current_.levels.size(); ++i) {
      const CompactionBuffer& b = current_.levels[i].buffer;
      s.buffer_files += b.live_files();
      s.buffer_bytes += b.file_bytes();
      s.buffer_entries[i + 1] = b.entries();
    }
  }
  for (const Level& l : current_.levels) s.log_entries.push_back(l.log_entries());  // L2SM
  if (heat_) s.float_eta = heat_->eta();  // [floating]
  return s;
}

double Engine::n_est() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_.n_est;
}

uint64_t Engine::buffer_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return buffer_.size();
}

std::vector<LevelInfo> Engine::Levels() const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  std::vector<LevelInfo> out;
  const auto& levels = current_.levels;
  auto run_info = [](const RunPtr& r) {
    const auto& f = r->filter();
    return RunInfo{
        r->id(), r->entries(), r->tombstone_count(), r->data_blocks(), r->file_bytes(),
        r->min_key(), r->max_key(),
        r->entries() ? static_cast<double>(f.num_bits()) / static_cast<double>(r->entries())
                     : 0.0,
        r->filter_bits_per_key_target(), f.num_probes(), r->hash_indexed(),
        f.TheoreticalFpr(r->entries()), f.FprGivenFill(), r->file().path()};
  };
  if (options_.level1_runs > 1) {
    const double k = options_.level1_runs;
    LevelInfo l0{0, k, k * static_cast<double>(options_.buffer_entries()), k,
                 levels.empty() ? 1.0 : levels[0].fpr, false, 0, {}, false};
    l0.held_runs = k;
    for (const auto& r : current_.level0) l0.runs.push_back(run_info(r));
    out.push_back(std::move(l0));
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    const Level& l = levels[i];
    LevelInfo li{static_cast<int>(i + 1), l.ratio, l.capacity, l.max_runs, l.fpr, l.hash_table,
                 l.index ? l.index->sig_bits() : 0, {},
                 strategy_->levels_are_files()};
    li.held_runs = l.held_runs;
    for (const auto& r : l.runs) li.runs.push_back(run_info(r));
    for (const BufferTable& t : l.buffer.tables()) {  // [compaction buffer]
      std::vector<BufferedInfo> table;
      for (const BufferedFile& f : t)
        table.push_back(f.removed()
                            ? BufferedInfo{0, 0, 0, 0, f.min_key, f.max_key, 0, true}
                            : BufferedInfo{f.run->id(), f.run->entries(), f.run->data_blocks(),
                                           f.run->file_bytes(), f.min_key, f.max_key,
                                           cache_.CachedBlocks(f.run->id()), false});
      li.buffer.push_back(std::move(table));
    }
    for (const auto& r : l.log) li.log.push_back(run_info(r));  // L2SM
    li.log_capacity = l.log_capacity;
    out.push_back(std::move(li));
  }
  return out;
}

VerifyReport Engine::Verify() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  VerifyReport report;
  std::vector<RunPtr> all(current_.level0.begin(), current_.level0.end());
  for (const Level& l : current_.levels) {
    all.insert(all.end(), l.runs.begin(), l.runs.end());
    all.insert(all.end(), l.log.begin(), l.log.end());
  }
  for (const auto& r : BufferedFiles(current_.levels)) all.push_back(r);  // [compaction buffer]
  for (const auto& r : all) {
    report.blocks += r->Verify(&stats_.recovery);
    report.entries += r->entries();
    ++report.runs;
  }
  report.set_aside = set_aside_.size();
  return report;
}

bool Engine::TEST_DamageFilter() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Level& l : current_.levels)
    for (auto r = l.runs.rbegin(); r != l.runs.rend(); ++r)
      if ((*r)->TEST_DamageFilter()) return true;
  return false;
}

void Engine::TEST_InjectWriteFailure(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.budget = bytes < 0 ? -1 : bytes;
}

void Engine::TEST_FailLogSync(bool fail) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.fail_log_sync = fail;
}

}  // namespace wacky
