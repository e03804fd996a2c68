// Bloom filters whose bits per key the Wacky compaction driver sets file by file.
//
// Contract: every SST file built after SetNextFileBits(b) gets a Bloom filter of b bits per key
// (fewer than 0.5 bits means no filter), whatever level RocksDB builds it for. The driver keeps
// every run in RocksDB's level 0, so the level RocksDB sees says nothing about the run's level in
// the design; the driver sets the design level's Eq 12 rate before each flush and merge, which it
// runs one at a time (a flush waits; CompactFiles runs in the caller's thread). Filters are read
// by the built-in reader, which reads any built-in Bloom filter. Thread-safe.
#ifndef WACKY_ROCKSDB_BRIDGE_DRIVER_FILTER_POLICY_H_
#define WACKY_ROCKSDB_BRIDGE_DRIVER_FILTER_POLICY_H_

#include <rocksdb/filter_policy.h>

#include <map>
#include <memory>
#include <mutex>

namespace wacky_rocksdb {

class DriverFilterPolicy : public rocksdb::FilterPolicy {
 public:
  // Throws std::invalid_argument for a negative or non-finite bits_per_key.
  explicit DriverFilterPolicy(double bits_per_key);

  void SetNextFileBits(double bits_per_key);

  const char* Name() const override { return "wacky.DriverFilterPolicy"; }
  const char* CompatibilityName() const override;
  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& context) const override;
  rocksdb::FilterBitsReader* GetFilterBitsReader(const rocksdb::Slice& contents) const override;

 private:
  // One built-in policy per bits-per-key value (in thousandths), kept for the database's
  // lifetime: a builder refers to the policy that made it.
  mutable std::mutex mu_;
  int next_millibits_;
  mutable std::map<int, std::unique_ptr<const rocksdb::FilterPolicy>> policies_;
  std::unique_ptr<const rocksdb::FilterPolicy> reader_;
};

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_DRIVER_FILTER_POLICY_H_
