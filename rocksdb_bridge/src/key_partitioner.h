// An SstPartitioner that cuts output files at P - 1 equally spaced keys (OHDB's partitions,
// the native engine's Options::l0_partitions, file_compaction.h PartitionCuts).
//
// Contract: keys are the bridge's 8-byte big-endian encodings of uint64 keys; partition j
// starts at ceil(j 2^64 / P). ShouldPartition asks for a new output file wherever two adjacent
// keys of a compaction fall in different partitions, so no SST file RocksDB writes through a
// compaction spans a cut; a trivial move is allowed only for a file inside one partition.
// RocksDB does not partition flushes, and its level-0 trigger counts every level-0 file, so
// this is not OHDB's per-partition trigger: it is what stock RocksDB can express
// (sst_partitioner_factory), graded approximate by the export.
#ifndef WACKY_ROCKSDB_BRIDGE_KEY_PARTITIONER_H_
#define WACKY_ROCKSDB_BRIDGE_KEY_PARTITIONER_H_

#include <rocksdb/sst_partitioner.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace wacky_rocksdb {

class KeyPartitionerFactory : public rocksdb::SstPartitionerFactory {
 public:
  // Throws std::invalid_argument unless 1 <= partitions <= 1024.
  explicit KeyPartitionerFactory(int partitions);

  const char* Name() const override { return "wacky.KeyPartitionerFactory"; }
  std::unique_ptr<rocksdb::SstPartitioner> CreatePartitioner(
      const rocksdb::SstPartitioner::Context& context) const override;

  // The partition of an encoded key (8 bytes, big-endian).
  size_t PartitionOf(const rocksdb::Slice& key) const;

 private:
  std::vector<uint64_t> cuts_;
};

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_KEY_PARTITIONER_H_
