#include "level_filter_policy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wacky_rocksdb {

LevelFilterPolicy::LevelFilterPolicy(const std::vector<double>& bits_per_level) {
  if (bits_per_level.empty()) {
    throw std::invalid_argument("filter bits per level: give at least one level");
  }
  for (double bits : bits_per_level) {
    if (!std::isfinite(bits) || bits < 0.0) {
      throw std::invalid_argument("filter bits per level must be finite and >= 0; got " +
                                  std::to_string(bits));
    }
    per_level_.emplace_back(rocksdb::NewBloomFilterPolicy(bits));
  }
}

const char* LevelFilterPolicy::CompatibilityName() const {
  return per_level_.front()->CompatibilityName();
}

rocksdb::FilterBitsBuilder* LevelFilterPolicy::GetBuilderWithContext(
    const rocksdb::FilterBuildingContext& context) const {
  const int last = static_cast<int>(per_level_.size()) - 1;
  const int level = std::clamp(context.level_at_creation, 0, last);
  return per_level_[level]->GetBuilderWithContext(context);
}

rocksdb::FilterBitsReader* LevelFilterPolicy::GetFilterBitsReader(
    const rocksdb::Slice& contents) const {
  return per_level_.front()->GetFilterBitsReader(contents);
}

}  // namespace wacky_rocksdb
