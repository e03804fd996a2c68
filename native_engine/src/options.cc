// options.cc — validation of engine options; see options.h.
#include "options.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "structure.h"

namespace wacky {

namespace {
[[noreturn]] void Bad(const std::string& msg) { throw std::invalid_argument(msg); }
}  // namespace

void Options::Validate() const {
  structure::ValidateDesign(T, C, X, K, Z);
  if (entry_bytes < 9 || entry_bytes > (1u << 20))
    Bad("entry_bytes = " + std::to_string(entry_bytes) +
        " must be in [9, 1048576] (an 8-byte key plus at least 1 value byte)");
  if (block_bytes < entry_bytes || block_bytes > (64u << 20))
    Bad("block_bytes = " + std::to_string(block_bytes) + " must be >= entry_bytes (" +
        std::to_string(entry_bytes) + ") and <= 64 MiB");
  if (buffer_bytes < block_bytes || buffer_bytes > (1ull << 36))
    Bad("buffer_bytes = " + std::to_string(buffer_bytes) +
        " must hold at least one block (block_bytes = " + std::to_string(block_bytes) +
        ") and be <= 64 GiB");
  if (buffer_entries() > (1ull << 31))
    Bad("buffer_bytes too large: the buffer may hold at most 2^31 entries");
  if (use_sum_fpr) {
    if (!std::isfinite(sum_fpr) || !(sum_fpr > 0.0))
      Bad("sum_fpr = " + std::to_string(sum_fpr) + " must be a finite number > 0");
  } else {
    if (!std::isfinite(bits_per_entry) || bits_per_entry < 0.0 || bits_per_entry > 64.0)
      Bad("bits_per_entry = " + std::to_string(bits_per_entry) + " must be in [0, 64]");
  }
  if (hash_levels < 0 || hash_levels > 64)
    Bad("hash_levels = " + std::to_string(hash_levels) + " must be in [0, 64]");
  if (granularity != kLevelGranularity && granularity != kFileGranularity)
    Bad("granularity must be 'level' or 'file'; got " + std::to_string(granularity));
  if (file_pick != kLeastOverlap && file_pick != kRoundRobin)
    Bad("file_pick must be 'least_overlap' or 'round_robin'; got " + std::to_string(file_pick));
  if (level1_runs < 1 || level1_runs > kMaxLevel1Runs)
    Bad("level1_runs = " + std::to_string(level1_runs) + " must be in [1, " +
        std::to_string(kMaxLevel1Runs) + "]");
  const double most = T * static_cast<double>(buffer_bytes);
  if (file_bytes != 0 &&
      (file_bytes < block_bytes || static_cast<double>(file_bytes) > most))
    Bad("file_bytes must be in [block_bytes, T x buffer_bytes] = [" +
        std::to_string(block_bytes) + ", " + std::to_string(static_cast<uint64_t>(most)) +
        "] (one block to Level 1's capacity); got " + std::to_string(file_bytes));
  // Options that would do nothing under whole-level merges are refused, not ignored.
  if (granularity == kLevelGranularity && file_bytes != 0)
    Bad("file_bytes applies only to granularity='file'; got file_bytes = " +
        std::to_string(file_bytes) + " with granularity='level'");
  if (granularity == kLevelGranularity && file_pick != kLeastOverlap)
    Bad("file_pick applies only to granularity='file'; got 'round_robin' with "
        "granularity='level'");
  if (wal_recovery < 0 || wal_recovery > 2)
    Bad("wal_recovery must be 'tolerate_corrupted_tail_records', 'absolute_consistency' or "
        "'point_in_time'; got " + std::to_string(wal_recovery));
  // [compaction buffer] (options.h)
  if (compaction_buffer && granularity != kFileGranularity)
    Bad("compaction_buffer applies only to granularity='file' (it buffers the files merged "
        "one at a time); got compaction_buffer with granularity='level'");
  if (!std::isfinite(buffer_trim) || buffer_trim < 0.0 || buffer_trim > 1.0)
    Bad("buffer_trim = " + std::to_string(buffer_trim) + " must be in [0, 1] (the share of a "
        "buffered file's blocks that must be cached for the trim to keep it)");
  if (buffer_trim_interval < 1 || buffer_trim_interval > (1ull << 32))
    Bad("buffer_trim_interval = " + std::to_string(buffer_trim_interval) +
        " must be in [1, 2^32] (merges between two trims of the compaction buffer)");
  if (granularity == kFileGranularity && (K != 0.0 || Z != 0.0))
    Bad("granularity='file' needs one run per level (K = 0 and Z = 0); got K=" +
        std::to_string(K) + ", Z=" + std::to_string(Z));
}

}  // namespace wacky
