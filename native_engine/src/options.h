// options.h — the design and layout knobs of one engine instance.
//
// Contract: Options is a plain value. Validate() throws std::invalid_argument with a
// message naming the offending parameter and its valid range; an Options that passed
// Validate() describes a buildable engine. Derived sizes (entries per block B, buffer
// entries) are computed here so every component agrees on them.
#ifndef WACKY_NATIVE_ENGINE_OPTIONS_H_
#define WACKY_NATIVE_ENGINE_OPTIONS_H_

#include <cstdint>

namespace wacky {

struct Options {
  // Wacky knobs (Section 5).
  double T = 10.0;
  double C = 1.0;
  double X = 1.0;
  double K = 0.0;
  double Z = 0.0;
  // Layout. An entry is an 8-byte key followed by (entry_bytes - 8) value bytes.
  uint64_t entry_bytes = 128;
  uint64_t block_bytes = 4096;
  uint64_t buffer_bytes = 8u << 20;
  // Filter memory: exactly one of bits_per_entry >= 0 or sum_fpr > 0 is used.
  bool use_sum_fpr = false;
  double bits_per_entry = 10.0;
  double sum_fpr = 0.0;
  // How that memory is spread over the levels: false = the Lagrangian optimum (App. C),
  // true = one FPR for every run of every level (RocksDB/LevelDB style).
  bool uniform_filters = false;
  // Levels 1..hash_levels (never Level L) use one hash table per level (App. F).
  int hash_levels = 0;
  // fdatasync run files and the manifest when they are complete, and the write-ahead log
  // before every write call returns.
  bool sync = false;
  // Log every write before acknowledging it (wal.h). Off, writes since the last flush are
  // lost when the process dies; validation turns it off to count only flushes and merges.
  bool wal = true;

  uint64_t value_bytes() const { return entry_bytes - 8; }
  uint64_t entries_per_block() const { return block_bytes / entry_bytes; }
  uint64_t buffer_blocks() const { return buffer_bytes / block_bytes; }
  uint64_t buffer_entries() const { return buffer_blocks() * entries_per_block(); }

  void Validate() const;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_OPTIONS_H_
