// space_meter.cc — see space_meter.h.
#include "space_meter.h"

namespace wacky {

void SpaceMeter::Add(uint64_t bytes) {
  const uint64_t now = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  uint64_t seen = peak_.load(std::memory_order_relaxed);
  while (now > seen && !peak_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
}

void SpaceMeter::Sub(uint64_t bytes) {
  // Called from destructors, so it cannot throw: more removed than added (a bookkeeping bug,
  // which the tests look for by comparing current() with the files on disk) stops at 0.
  uint64_t seen = current_.load(std::memory_order_relaxed);
  while (!current_.compare_exchange_weak(seen, seen > bytes ? seen - bytes : 0,
                                         std::memory_order_relaxed)) {
  }
}

}  // namespace wacky
