// RocksDB query traces (DB::StartTrace) read back with RocksDB's own trace reader.
//
// Contract: ReadTrace(path) decodes every query record of a trace file written by
// DB::StartTrace with NewFileTraceWriter, through RocksDB's NewFileTraceReader and its default
// Replayer (which needs a database: an empty scratch database in a temporary directory, created
// and destroyed by the call; the trace's own database is never opened). A write record (one
// write batch) gives one operation per batch entry, in batch order; a MultiGet gives one Get per
// key. Keys of 8 bytes are the bridge's u64 keys (big-endian, decoded); other keys are counted
// in `other_keys` and given as their first 8 bytes, zero-padded. A file that is not a RocksDB
// trace (a wrong header), or a record RocksDB cannot decode, throws std::invalid_argument naming
// the file (and the record). A file cut inside a record reads up to its last whole record and
// says so in `complete` (RocksDB's reader cannot tell a file cut between two records from one
// whose writer never called EndTrace: both read as whole).
#ifndef WACKY_ROCKSDB_BRIDGE_TRACE_H_
#define WACKY_ROCKSDB_BRIDGE_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace wacky_rocksdb {

// Operation kinds of a decoded trace.
enum TraceOp : uint8_t {
  kTracePut = 0,
  kTraceGet = 1,
  kTraceSeek = 2,
  kTraceSeekForPrev = 3,
  kTraceDelete = 4,  // Delete and SingleDelete
  kTraceMerge = 5,
  kTraceDeleteRange = 6,  // key .. upper (exclusive)
};

struct DecodedTrace {
  std::vector<uint8_t> ops;          // TraceOp
  std::vector<uint64_t> keys;        // decoded keys (see the contract)
  std::vector<uint64_t> timestamps;  // microseconds, as RocksDB's tracer stamps them
  std::vector<uint32_t> value_bytes;  // of a Put or Merge (0 otherwise)
  // Iterator bounds of a seek (ReadOptions::iterate_lower_bound / upper_bound) and a
  // DeleteRange's end; has_* false when the record has none.
  std::vector<uint64_t> lower;
  std::vector<uint64_t> upper;
  std::vector<uint8_t> has_lower;
  std::vector<uint8_t> has_upper;
  uint64_t other_keys = 0;  // keys that were not 8 bytes long
  uint64_t header_timestamp = 0;
  bool complete = true;  // false: the file ends inside a record
};

DecodedTrace ReadTrace(const std::string& path);

}  // namespace wacky_rocksdb

#endif  // WACKY_ROCKSDB_BRIDGE_TRACE_H_
