// key_partitioner.cc — see key_partitioner.h.
#include "key_partitioner.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wacky_rocksdb {
namespace {

uint64_t DecodeKey(const rocksdb::Slice& key) {
  if (key.size() != 8)
    throw std::invalid_argument("a key of " + std::to_string(key.size()) +
                                " bytes: the bridge writes 8-byte keys");
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(key[i]);
  return v;
}

class KeyPartitioner : public rocksdb::SstPartitioner {
 public:
  explicit KeyPartitioner(const KeyPartitionerFactory* factory) : factory_(factory) {}
  const char* Name() const override { return "wacky.KeyPartitioner"; }
  rocksdb::PartitionerResult ShouldPartition(
      const rocksdb::PartitionerRequest& request) override {
    return factory_->PartitionOf(*request.prev_user_key) ==
                   factory_->PartitionOf(*request.current_user_key)
               ? rocksdb::kNotRequired
               : rocksdb::kRequired;
  }
  bool CanDoTrivialMove(const rocksdb::Slice& smallest,
                        const rocksdb::Slice& largest) override {
    return factory_->PartitionOf(smallest) == factory_->PartitionOf(largest);
  }

 private:
  const KeyPartitionerFactory* factory_;  // outlives the partitioners it creates
};

}  // namespace

KeyPartitionerFactory::KeyPartitionerFactory(int partitions) {
  if (partitions < 1 || partitions > 1024)
    throw std::invalid_argument("partitions = " + std::to_string(partitions) +
                                " must be in [1, 1024]");
  const auto p = static_cast<unsigned>(partitions);
  for (unsigned j = 1; j < p; ++j)  // ceil(j 2^64 / P), as the native engine cuts
    cuts_.push_back(
        static_cast<uint64_t>(((static_cast<unsigned __int128>(j) << 64) + p - 1) / p));
}

size_t KeyPartitionerFactory::PartitionOf(const rocksdb::Slice& key) const {
  const uint64_t k = DecodeKey(key);
  return static_cast<size_t>(std::upper_bound(cuts_.begin(), cuts_.end(), k) - cuts_.begin());
}

std::unique_ptr<rocksdb::SstPartitioner> KeyPartitionerFactory::CreatePartitioner(
    const rocksdb::SstPartitioner::Context& /*context*/) const {
  return std::make_unique<KeyPartitioner>(this);
}

}  // namespace wacky_rocksdb
