#include "space_listener.h"

#include <algorithm>

namespace wacky_rocksdb {

void SpaceListener::OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) {
  if (!info.status.ok() || info.file_size == 0) return;  // a failed or empty output is gone
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, added] = files_.emplace(info.file_path, info.file_size);
  if (!added) return;  // reported twice: counted once
  current_ += info.file_size;
  peak_ = std::max(peak_, current_);
}

void SpaceListener::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = files_.find(info.file_path);
  if (it == files_.end()) return;  // not one this listener saw created
  current_ -= it->second;
  files_.erase(it);
}

uint64_t SpaceListener::Current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

uint64_t SpaceListener::Peak() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_;
}

void SpaceListener::ResetPeak() {
  std::lock_guard<std::mutex> lock(mutex_);
  peak_ = current_;
}

}  // namespace wacky_rocksdb
