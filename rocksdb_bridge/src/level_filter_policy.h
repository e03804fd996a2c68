// Bloom filters whose bits per key depend on the level an SST file is created for.
//
// Contract: a file built for RocksDB level j (FilterBuildingContext::level_at_creation; a flush
// builds for level 0) gets a Bloom filter of bits_per_level[j] bits per key, the last entry
// serving deeper levels; fewer than 0.5 bits means no filter. This gives each level its own
// false-positive rate, Monkey's Eq 12, which stock RocksDB's one bits-per-key cannot. Filters
// are read by the built-in reader, which reads any built-in Bloom filter.
#ifndef WACKY_ROCKSDB_BRIDGE_LEVEL_FILTER_POLICY_H_
#define WACKY_ROCKSDB_BRIDGE_LEVEL_FILTER_POLICY_H_

#include <rocksdb/filter_policy.h>

#include <memory>
#include <vector>

namespace wacky_rocksdb {

class LevelFilterPolicy : public rocksdb::FilterPolicy {
 public:
  // Throws std::invalid_argument for an empty list or a negative or non-finite entry.
  explicit LevelFilterPolicy(const std::vector<double>& bits_per_level);

  const char* Name() const override { return "wacky.LevelFilterPolicy"; }
  const char* CompatibilityName() const override;
  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& context) const override;
  rocksdb::FilterBitsReader* GetFilterBitsReader(const rocksdb::Slice& contents) const override;

 private:
  std::vector<std::unique_ptr<const rocksdb::FilterPolicy>> per_level_;
};

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_LEVEL_FILTER_POLICY_H_
