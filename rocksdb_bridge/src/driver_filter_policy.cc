#include "driver_filter_policy.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace wacky_rocksdb {
namespace {

int Millibits(double bits_per_key) {
  if (!std::isfinite(bits_per_key) || bits_per_key < 0.0 || bits_per_key > 1e4) {
    throw std::invalid_argument("filter bits per key must be finite and in [0, 10000]; got " +
                                std::to_string(bits_per_key));
  }
  return static_cast<int>(std::lround(bits_per_key * 1000.0));
}

}  // namespace

DriverFilterPolicy::DriverFilterPolicy(double bits_per_key)
    : next_millibits_(Millibits(bits_per_key)),
      reader_(rocksdb::NewBloomFilterPolicy(10.0)) {}

void DriverFilterPolicy::SetNextFileBits(double bits_per_key) {
  const int millibits = Millibits(bits_per_key);
  std::lock_guard<std::mutex> lock(mu_);
  next_millibits_ = millibits;
}

const char* DriverFilterPolicy::CompatibilityName() const {
  return reader_->CompatibilityName();
}

rocksdb::FilterBitsBuilder* DriverFilterPolicy::GetBuilderWithContext(
    const rocksdb::FilterBuildingContext& context) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto& policy = policies_[next_millibits_];
  if (!policy) policy.reset(rocksdb::NewBloomFilterPolicy(next_millibits_ / 1000.0));
  return policy->GetBuilderWithContext(context);
}

rocksdb::FilterBitsReader* DriverFilterPolicy::GetFilterBitsReader(
    const rocksdb::Slice& contents) const {
  return reader_->GetFilterBitsReader(contents);
}

}  // namespace wacky_rocksdb
