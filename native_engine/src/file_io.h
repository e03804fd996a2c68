// file_io.h — block files on disk, with I/O accounting and fault injection.
//
// Contract:
//   * BlockFile is one run file: it is created empty, written front to back in whole
//     blocks (appends are buffered and issued as large write() calls), finished
//     (optionally fdatasync'ed), and afterwards only read with pread(). With direct_reads
//     the reads bypass the page cache (O_DIRECT, through a second descriptor), so a block
//     read costs a device read, as on a server whose data outgrows its memory. Every byte
//     that reaches the kernel is counted in the IOCounter passed by the caller, so
//     the counters measure the syscalls that were really made.
//   * Any failing syscall throws IOError (env.h: errno and path in the message).
//     Descriptors are owned by ScopedFd, so no error path leaks one.
//   * FaultInjector lets tests make writes fail: once `budget` bytes have been written
//     through files sharing the injector, every further write fails with ENOSPC,
//     until the budget is reset to -1 (no fault). With fail_log_sync, every fdatasync
//     of a write-ahead log (wal.h) fails with EIO.
#ifndef WACKY_NATIVE_ENGINE_FILE_IO_H_
#define WACKY_NATIVE_ENGINE_FILE_IO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devices.h"
#include "env.h"
#include "io_stats.h"

namespace wacky {

// Blocks per large sequential read or write (merges, recovery, verify, run writing): about
// 1 MiB, at least one block, so a huge block size does not multiply the memory a chunk takes.
constexpr size_t kIoChunkBytes = 1 << 20;
// The alignment direct reads need of offsets, lengths and buffers (the page size: any logical
// block size of a disk divides it).
constexpr size_t kDirectAlign = 4096;
inline size_t ChunkBlocks(uint64_t block_bytes) {
  return block_bytes >= kIoChunkBytes ? 1 : static_cast<size_t>(kIoChunkBytes / block_bytes);
}

struct FaultInjector {
  int64_t budget = -1;  // bytes that may still be written; -1 = unlimited
  bool fail_log_sync = false;  // every fdatasync of a write-ahead log fails with EIO
  // Returns the number of bytes of an n-byte write that may proceed (n unless a fault
  // is armed); when it returns less than n the caller must fail the write.
  size_t Allow(size_t n);
};

class BlockFile {
 public:
  // Creates a new file (fails if it exists).
  // With sync, written ranges are handed to the kernel for writeback as they are
  // written (sync_file_range), so the final fdatasync in Finish() has little left to do
  // and disk writes overlap with merge work.
  // With direct_reads (block_bytes a multiple of kDirectAlign), Read() bypasses the page
  // cache; a file system that refuses O_DIRECT throws IOError saying so.
  static std::unique_ptr<BlockFile> Create(const std::string& path, size_t block_bytes,
                                           FaultInjector* faults, bool sync = false,
                                           bool direct_reads = false);
  // Opens an existing file for reading.
  static std::unique_ptr<BlockFile> Open(const std::string& path, size_t block_bytes,
                                         bool direct_reads = false);
  BlockFile(const BlockFile&) = delete;
  BlockFile& operator=(const BlockFile&) = delete;

  // Appends whole blocks (len must be a multiple of block_bytes). Buffered.
  void Append(const uint8_t* data, size_t len, IOCounter* c);
  // Writes out the buffered blocks (counted in c) without finishing the file.
  void Drain(IOCounter* c);
  // Writes out the buffer and, if sync, fdatasyncs. The file is then read-only.
  void Finish(bool sync, IOCounter* c);
  // [paged metadata] Cuts the file to `from_block` blocks and writes `len` bytes (whole
  // blocks) there, through a descriptor of its own (the file may be open read-only), honoring
  // `faults`; fdatasyncs with sync. Counted in *c, not on the device (metadata, like the
  // checksum section). size_bytes() is then from_block * block_bytes + len. A failure leaves
  // the file cut or with a partial tail: the run's reader checks a tail before using it.
  void ReplaceTail(uint64_t from_block, const uint8_t* data, size_t len, bool sync,
                   FaultInjector* faults, IOCounter* c);
  // Reads blocks [first, first + n) into out with one pread; counts n blocks.
  void Read(uint64_t first, size_t n, uint8_t* out, IOCounter* c) const;

  uint64_t size_bytes() const { return size_; }
  const std::string& path() const { return path_; }
  // Counts every later read and write of this file on `device` too (devices.h).
  void CountOn(std::shared_ptr<DeviceIO> device) { device_ = std::move(device); }
  const std::shared_ptr<DeviceIO>& device() const { return device_; }

 private:
  BlockFile(std::string path, ScopedFd fd, size_t block_bytes, FaultInjector* faults, bool sync);
  void WriteOut(const uint8_t* data, size_t len, IOCounter* c);

  void OpenDirect();

  std::string path_;
  ScopedFd fd_;
  ScopedFd direct_;  // O_DIRECT, for Read(), with direct_reads
  std::shared_ptr<DeviceIO> device_;
  size_t block_bytes_;
  FaultInjector* faults_;
  bool sync_;
  uint64_t size_ = 0;  // bytes written (or file size when opened)
  std::vector<uint8_t> pending_;
};

// Writes `contents` to path atomically: path.tmp, then rename; with sync, fdatasync
// before the rename and fsync the directory after it, so the new contents survive a
// crash. On failure path.tmp is removed. Returns the number of bytes written. Honors
// the fault injector.
size_t WriteFileAtomically(const std::string& path, const std::string& contents, bool sync,
                           FaultInjector* faults);
// Reads a whole (small) file. Throws IOError.
std::string ReadWholeFile(const std::string& path);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_FILE_IO_H_
