// devices.cc — see devices.h.
#include "devices.h"

#include <algorithm>

namespace wacky {

namespace {

// A directory as RunFileName's callers spell it: no trailing '/'.
std::string Trimmed(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

std::vector<std::string> DeviceDirs(const std::string& home,
                                    const std::vector<std::string>& level_dirs) {
  std::vector<std::string> dirs{Trimmed(home)};
  for (const std::string& entry : level_dirs) {
    const std::string d = Trimmed(entry);
    if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  return dirs;
}

Devices::Devices(const std::string& home, const std::vector<std::string>& level_dirs)
    : dirs_(DeviceDirs(home, level_dirs)) {
  for (const std::string& entry : level_dirs) {
    const std::string d = Trimmed(entry);
    // "" and the home directory itself are device 0.
    const auto at = d.empty() ? dirs_.begin() : std::find(dirs_.begin(), dirs_.end(), d);
    level_device_.push_back(static_cast<uint32_t>(at - dirs_.begin()));
  }
  for (size_t i = 0; i < dirs_.size(); ++i) io_.push_back(std::make_shared<DeviceIO>());
}

uint32_t Devices::ForLevel(int level) const {
  if (level_device_.empty()) return 0;
  const size_t i = std::min(static_cast<size_t>(std::max(level, 0)), level_device_.size() - 1);
  return level_device_[i];
}

uint32_t Devices::Of(const std::string& file) const {
  const size_t slash = file.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string() : file.substr(0, slash);
  for (size_t d = 1; d < dirs_.size(); ++d)
    if (dirs_[d] == dir) return static_cast<uint32_t>(d);
  return 0;
}

}  // namespace wacky
