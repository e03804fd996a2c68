// compaction_strategy.cc — see compaction_strategy.h.
#include "compaction_strategy.h"

#include <stdexcept>

#include "compaction.h"
#include "file_compaction.h"

namespace wacky {

namespace {

// kLevelGranularity: the paper's policy. A flush that only adds a run to level 0 is the
// staging case of file_compaction.h; every other flush merges whole runs (compaction.h),
// together with level 0's runs when level1_runs > 1.
class WholeLevelStrategy final : public CompactionStrategy {
 public:
  WholeLevelStrategy() : CompactionStrategy(/*levels_are_files=*/false) {}
  const char* name() const override { return "level"; }
  std::unique_ptr<FlushJob> NewFlush(const Options& options, const Version& current,
                                     const Buffer& buffer, bool retain,
                                     const HotnessTracker* /*hotness: no logs*/,
                                     const ReadHeat* /*heat: no floats*/) const override {
    if (FlushStagesInLevel0(options, current))
      return std::make_unique<FileCompaction>(options, current, buffer, retain);
    return std::make_unique<Compaction>(options, current, buffer, retain);
  }
};

// kFileGranularity: leveled merges, one file at a time (file_compaction.h, which also
// stages flushes in level 0).
class FileStrategy final : public CompactionStrategy {
 public:
  FileStrategy() : CompactionStrategy(/*levels_are_files=*/true) {}
  const char* name() const override { return "file"; }
  std::unique_ptr<FlushJob> NewFlush(const Options& options, const Version& current,
                                     const Buffer& buffer, bool retain,
                                     const HotnessTracker* hotness,
                                     const ReadHeat* heat) const override {
    return std::make_unique<FileCompaction>(options, current, buffer, retain, hotness, heat);
  }
};

}  // namespace

std::unique_ptr<CompactionStrategy> CompactionStrategy::For(const Options& options) {
  switch (options.granularity) {
    case kLevelGranularity:
      return std::make_unique<WholeLevelStrategy>();
    case kFileGranularity:
      return std::make_unique<FileStrategy>();
  }
  throw std::invalid_argument(
      "no compaction strategy for granularity " + std::to_string(options.granularity) +
      ": expected " + std::to_string(kLevelGranularity) + " ('level', whole-level merges) or " +
      std::to_string(kFileGranularity) + " ('file', file-granular leveled merges)");
}

}  // namespace wacky
