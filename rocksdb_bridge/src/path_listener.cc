#include "path_listener.h"

#include <set>
#include <utility>

namespace wacky_rocksdb {

PathListener::PathListener(std::vector<std::string> dirs) : dirs_(std::move(dirs)) {}

std::string PathListener::DirOf(const std::string& file_path) {
  const size_t slash = file_path.find_last_of('/');
  return slash == std::string::npos ? std::string() : file_path.substr(0, slash);
}

void PathListener::OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) {
  if (!info.status.ok() || info.file_size == 0) return;  // a failed or empty output is gone
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, added] = files_.emplace(info.file_path, File{DirOf(info.file_path), info.file_size});
  if (!added) return;  // reported twice: counted once
  written_[it->second.dir] += info.file_size;
}

void PathListener::OnCompactionCompleted(rocksdb::DB* /*db*/,
                                         const rocksdb::CompactionJobInfo& info) {
  AddCompaction(info);
}

void PathListener::AddCompaction(const rocksdb::CompactionJobInfo& info) {
  if (!info.status.ok()) return;
  // FIFO's size and TTL compactions drop their inputs unread (the other FIFO reason merges).
  const bool deletion = info.compaction_reason == rocksdb::CompactionReason::kFIFOMaxSize ||
                        info.compaction_reason == rocksdb::CompactionReason::kFIFOTtl;
  const std::set<std::string> inputs(info.input_files.begin(), info.input_files.end());
  const std::set<std::string> outputs(info.output_files.begin(), info.output_files.end());
  std::lock_guard<std::mutex> lock(mutex_);
  if (!deletion) {
    for (const auto& name : inputs) {
      if (outputs.count(name) > 0) continue;  // moved, not read
      auto it = files_.find(name);
      if (it == files_.end() || it->second.read) continue;
      it->second.read = true;
      read_[it->second.dir] += it->second.bytes;
    }
  }
  if (info.output_level < 0) return;
  for (const auto& name : outputs) {
    if (inputs.count(name) > 0) continue;  // moved: written by the compaction that made it
    auto it = files_.find(name);
    if (it == files_.end() || it->second.placed) continue;
    it->second.placed = true;
    std::vector<uint64_t>& levels = written_by_level_[it->second.dir];
    if (levels.size() <= static_cast<size_t>(info.output_level)) {
      levels.resize(info.output_level + 1, 0);
    }
    levels[info.output_level] += it->second.bytes;
  }
}

std::map<std::string, uint64_t> PathListener::ZeroPerDir() const {
  std::map<std::string, uint64_t> out;
  for (const auto& dir : dirs_) out[dir] = 0;
  return out;
}

std::map<std::string, uint64_t> PathListener::Written() const {
  std::map<std::string, uint64_t> out = ZeroPerDir();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [dir, bytes] : written_) out[dir] += bytes;
  return out;
}

std::map<std::string, uint64_t> PathListener::Read() const {
  std::map<std::string, uint64_t> out = ZeroPerDir();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [dir, bytes] : read_) out[dir] += bytes;
  return out;
}

std::map<std::string, std::vector<uint64_t>> PathListener::WrittenByLevel() const {
  std::map<std::string, std::vector<uint64_t>> out;
  for (const auto& dir : dirs_) out[dir];
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [dir, levels] : written_by_level_) out[dir] = levels;
  return out;
}

void PathListener::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  written_.clear();
  read_.clear();
  written_by_level_.clear();
}

}  // namespace wacky_rocksdb
