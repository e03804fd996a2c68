// devices.h — where an engine's run files live: its own directory and the level directories.
//
// Contract (RocksDB's db_paths, placed by level rather than by target size):
//   * Device 0 is the engine's directory, which always holds the MANIFEST, the OUTPUTS
//     record, the write-ahead logs and lost/. Options::level_dirs places level i (0 = level
//     0, i = Level i) on level_dirs[min(i, n - 1)], "" meaning device 0; with no level_dirs
//     every level is on device 0. The other devices are the distinct non-empty entries, in
//     order of first appearance (Dirs()). An entry is an absolute path without whitespace
//     (the MANIFEST records it as one token); Options::Validate() checks that.
//   * A run file is created on the device of the level its writer fills (ForLevel) and stays
//     there when levels are renumbered as the tree grows; the MANIFEST records the device of
//     every run file not on device 0 (Manifest::placed), so recovery finds it, deletes it
//     with proof or moves it to that device's own lost/ (a rename cannot cross devices).
//   * Every byte read from or written to a run file is counted in its device's DeviceIO, as
//     the purposes of io_stats.h count it: the checksum section a flush or merge writes is
//     metadata, counted apart (IOStats::checksums) and not here, so over all devices the
//     counts equal IOStats::Total(), and a device's writes are those of the merges and
//     flushes whose outputs it holds. The counters are
//     shared (std::shared_ptr) by the engine and every run file on the device, so a run that
//     outlives its engine (a scan's snapshot) still has somewhere to count, and they are
//     atomic, since such a run may be read on any thread.
#ifndef WACKY_NATIVE_ENGINE_DEVICES_H_
#define WACKY_NATIVE_ENGINE_DEVICES_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wacky {

class DeviceIO {
 public:
  void Read(uint64_t bytes) { read_.fetch_add(bytes, std::memory_order_relaxed); }
  void Wrote(uint64_t bytes) { written_.fetch_add(bytes, std::memory_order_relaxed); }
  uint64_t bytes_read() const { return read_.load(std::memory_order_relaxed); }
  uint64_t bytes_written() const { return written_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> read_{0};
  std::atomic<uint64_t> written_{0};
};

// The directories of `home`'s devices for `level_dirs`: home first, then the distinct
// non-empty entries in order of first appearance.
std::vector<std::string> DeviceDirs(const std::string& home,
                                    const std::vector<std::string>& level_dirs);

class Devices {
 public:
  Devices(const std::string& home, const std::vector<std::string>& level_dirs);

  size_t size() const { return dirs_.size(); }
  const std::string& dir(size_t device) const { return dirs_.at(device); }
  const std::vector<std::string>& dirs() const { return dirs_; }
  // The device new run files of `level` (0 = level 0, i = Level i) are created on.
  uint32_t ForLevel(int level) const;
  // The device whose directory holds `file` (a path as RunFileName makes it); 0 if none does.
  uint32_t Of(const std::string& file) const;
  // The counters of a device (shared with its run files).
  const std::shared_ptr<DeviceIO>& io(size_t device) const { return io_.at(device); }

 private:
  std::vector<std::string> dirs_;
  std::vector<uint32_t> level_device_;  // per level_dirs entry; empty: every level on 0
  std::vector<std::shared_ptr<DeviceIO>> io_;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_DEVICES_H_
