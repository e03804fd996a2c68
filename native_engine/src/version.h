// version.h — one complete state of the tree.
//
// Contract: a Version is the levels (Level 1 first), the runs waiting in level 0 (oldest
// first; only with Options::level1_runs > 1), the top-down size estimate n_est and the id
// the next run file will get. It is a value type (levels share their runs),
// so a compaction builds the next Version as a copy and the engine installs it only
// after the MANIFEST describing it is durable; readers of the old Version (scans) keep
// its runs alive through their own shared pointers.
#ifndef WACKY_NATIVE_ENGINE_VERSION_H_
#define WACKY_NATIVE_ENGINE_VERSION_H_

#include <cstdint>
#include <vector>

#include "level.h"

namespace wacky {

struct Version {
  std::vector<Level> levels;
  std::vector<RunPtr> level0;
  double n_est = 0.0;
  uint64_t next_run_id = 1;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_VERSION_H_
