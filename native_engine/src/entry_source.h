// entry_source.h — the interface of a sorted stream of entries.
//
// Contract: a source yields entries in strictly increasing key order. While Valid(),
// key(), value() (entry_bytes - 8 bytes, stable until Next()) and tombstone() describe
// the current entry. Sources may do counted I/O in Next() and may throw IOError.
#ifndef WACKY_NATIVE_ENGINE_ENTRY_SOURCE_H_
#define WACKY_NATIVE_ENGINE_ENTRY_SOURCE_H_

#include <cstdint>

namespace wacky {

class EntrySource {
 public:
  virtual ~EntrySource() = default;
  virtual bool Valid() const = 0;
  virtual uint64_t key() const = 0;
  virtual const uint8_t* value() const = 0;
  virtual bool tombstone() const = 0;
  virtual void Next() = 0;
};

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENTRY_SOURCE_H_
