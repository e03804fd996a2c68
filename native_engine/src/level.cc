// level.cc — see level.h.
#include "level.h"

#include "structure.h"

namespace wacky {

namespace {
constexpr double kRelTol = 1e-9;  // absorbs floating-point noise in N_i / a_i
}

uint64_t Level::entries() const {
  uint64_t n = 0;
  for (const auto& r : runs) n += r->entries();
  return n;
}

uint64_t Level::log_entries() const {
  uint64_t n = 0;
  for (const auto& r : log) n += r->entries();
  return n;
}

bool Level::ActiveFull() const {
  if (runs.empty()) return true;
  const double threshold = capacity / max_runs;
  return static_cast<double>(runs.back()->entries()) >= threshold * (1.0 - kRelTol);
}

bool Level::WouldOverflow(uint64_t incoming) const {
  if (static_cast<double>(entries() + incoming) > capacity * (1.0 + kRelTol)) return true;
  return ActiveFull() && static_cast<double>(runs.size()) >= max_runs;
}

void Level::RefreshFilters(uint64_t entries_per_block) {
  if (!hash_table) {
    for (auto& r : runs)
      if (r->hash_indexed()) r->ConvertHashesToFilter(structure::BloomBitsPerKey(fpr));
  }
  for (auto& r : log)  // the index covers `runs` only
    if (r->hash_indexed()) r->ConvertHashesToFilter(structure::BloomBitsPerKey(fpr));
  std::vector<HashIndex::Source> sources;
  for (uint32_t i = 0; i < runs.size(); ++i)
    if (runs[i]->hash_indexed()) sources.push_back({i, &runs[i]->key_hashes()});
  if (!hash_table || sources.empty()) {
    index.reset();
    return;
  }
  const double fp = fpr * held_runs;  // the level's share a_i p_i of the FPR sum
  index = std::make_shared<HashIndex>(sources, entries_per_block, HashIndex::SignatureBits(fp));
}

}  // namespace wacky
