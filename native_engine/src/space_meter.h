// space_meter.h — the bytes of an engine's run files on disk, now and at their most.
//
// Contract (RocksDB's SstFileManager::GetTotalSize, with a high-water mark):
//   * A run writer Add()s the bytes it appends as it appends them, so a merge's unfinished
//     output counts while the merge's inputs are still on disk: the peak a merge reaches is
//     its inputs and its output together, the transient space the model prices.
//   * Whoever removes a run file (unlink, or the rename to *.obsolete of retained runs)
//     Sub()s what was added for it; a recovered run file is Add()ed when it is opened.
//   * peak() is the largest current() since construction or the last ResetPeak().
//   * Only run files count: not the write-ahead log, the MANIFEST, lost/ or the buffer.
//   * Thread-safe: the last reference to an obsolete run (a scan's) may drop on any thread.
// Shared (std::shared_ptr, in RunLayout) by the engine and every run it writes or opens, so a
// run that outlives its engine still has a meter to report to.
#ifndef WACKY_NATIVE_ENGINE_SPACE_METER_H_
#define WACKY_NATIVE_ENGINE_SPACE_METER_H_

#include <atomic>
#include <cstdint>

namespace wacky {

class SpaceMeter {
 public:
  void Add(uint64_t bytes);
  void Sub(uint64_t bytes);
  uint64_t current() const { return current_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  // Starts a new high-water mark at the current bytes.
  void ResetPeak() { peak_.store(current(), std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> current_{0};
  std::atomic<uint64_t> peak_{0};
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_SPACE_METER_H_
