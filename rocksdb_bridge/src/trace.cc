#include "trace.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/trace_reader_writer.h>
#include <rocksdb/trace_record.h>
#include <rocksdb/utilities/replayer.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <utility>

namespace wacky_rocksdb {
namespace {

class Collector {
 public:
  explicit Collector(DecodedTrace* out) : out_(out) {}

  void Add(TraceOp op, const rocksdb::Slice& key, uint64_t timestamp, uint32_t value_bytes = 0,
           const rocksdb::Slice* lower = nullptr, const rocksdb::Slice* upper = nullptr) {
    out_->ops.push_back(op);
    out_->keys.push_back(Key(key));
    out_->timestamps.push_back(timestamp);
    out_->value_bytes.push_back(value_bytes);
    const bool has_lower = lower != nullptr && lower->size() > 0;
    const bool has_upper = upper != nullptr && upper->size() > 0;
    out_->lower.push_back(has_lower ? Key(*lower) : 0);
    out_->upper.push_back(has_upper ? Key(*upper) : 0);
    out_->has_lower.push_back(has_lower);
    out_->has_upper.push_back(has_upper);
  }

 private:
  uint64_t Key(const rocksdb::Slice& key) {
    if (key.size() != 8) ++out_->other_keys;
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) {
      v = (v << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
    }
    return v;
  }

  DecodedTrace* out_;
};

// One write batch's entries, in order.
class BatchHandler : public rocksdb::WriteBatch::Handler {
 public:
  BatchHandler(Collector* collector, uint64_t timestamp)
      : collector_(collector), timestamp_(timestamp) {}

  rocksdb::Status PutCF(uint32_t, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    collector_->Add(kTracePut, key, timestamp_, static_cast<uint32_t>(value.size()));
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice& key) override {
    collector_->Add(kTraceDelete, key, timestamp_);
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t, const rocksdb::Slice& key) override {
    collector_->Add(kTraceDelete, key, timestamp_);
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice& begin,
                                const rocksdb::Slice& end) override {
    collector_->Add(kTraceDeleteRange, begin, timestamp_, 0, nullptr, &end);
    return rocksdb::Status::OK();
  }
  rocksdb::Status MergeCF(uint32_t, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) override {
    collector_->Add(kTraceMerge, key, timestamp_, static_cast<uint32_t>(value.size()));
    return rocksdb::Status::OK();
  }

 private:
  Collector* collector_;
  uint64_t timestamp_;
};

// An empty database in a temporary directory, destroyed with the object: the Replayer
// RocksDB 7.8 offers is made by a database (DB::NewDefaultReplayer).
class ScratchDatabase {
 public:
  ScratchDatabase() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                          "/wacky-trace-reader-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("could not make a scratch directory to read a trace in");
    }
    dir_ = pattern;
    options_.create_if_missing = true;
    options_.info_log_level = rocksdb::InfoLogLevel::HEADER_LEVEL;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options_, dir_ + "/db", &raw);
    if (!s.ok()) {
      Remove();
      throw std::runtime_error("RocksDB could not open a scratch database to read a trace: " +
                               s.ToString());
    }
    db_.reset(raw);
  }
  ~ScratchDatabase() {
    if (db_) db_->Close().PermitUncheckedError();
    db_.reset();
    Remove();
  }
  rocksdb::DB* db() const { return db_.get(); }

 private:
  void Remove() {
    rocksdb::DestroyDB(dir_ + "/db", options_).PermitUncheckedError();
    rocksdb::Env::Default()->DeleteDir(dir_ + "/db").PermitUncheckedError();
    rocksdb::Env::Default()->DeleteDir(dir_).PermitUncheckedError();
  }

  std::string dir_;
  rocksdb::Options options_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace

DecodedTrace ReadTrace(const std::string& path) {
  rocksdb::Env* env = rocksdb::Env::Default();
  if (!env->FileExists(path).ok()) {
    throw std::invalid_argument("the trace file " + path + " does not exist");
  }
  std::unique_ptr<rocksdb::TraceReader> reader;
  rocksdb::Status s = rocksdb::NewFileTraceReader(env, rocksdb::EnvOptions(), path, &reader);
  if (!s.ok()) {
    throw std::invalid_argument("could not open the trace file " + path + ": " + s.ToString());
  }
  ScratchDatabase scratch;
  std::unique_ptr<rocksdb::Replayer> replayer;
  s = scratch.db()->NewDefaultReplayer({scratch.db()->DefaultColumnFamily()}, std::move(reader),
                                       &replayer);
  if (!s.ok()) throw std::runtime_error("RocksDB could not make a trace replayer: " + s.ToString());
  s = replayer->Prepare();
  if (!s.ok()) {
    throw std::invalid_argument(path + " is not a RocksDB trace file (DB::StartTrace): " +
                                s.ToString());
  }
  DecodedTrace out;
  out.header_timestamp = replayer->GetHeaderTimestamp();
  Collector collector(&out);
  for (uint64_t record = 0;; ++record) {
    std::unique_ptr<rocksdb::TraceRecord> r;
    s = replayer->Next(&r);
    if (s.IsIncomplete()) {
      // The end of the records: with or without the end record (RocksDB's reader says
      // Incomplete for both; a cut file ends in a record it cannot read whole).
      break;
    }
    if (s.IsNotSupported()) continue;  // a record kind the replayer skips (not a query)
    if (!s.ok() || r == nullptr) {
      if (s.IsCorruption()) {
        out.complete = false;
        break;
      }
      throw std::invalid_argument("the trace file " + path + ": record " +
                                  std::to_string(record) + " cannot be decoded: " + s.ToString());
    }
    const uint64_t ts = r->GetTimestamp();
    switch (r->GetTraceType()) {
      case rocksdb::kTraceWrite: {
        const auto& w = static_cast<const rocksdb::WriteQueryTraceRecord&>(*r);
        rocksdb::WriteBatch batch(w.GetWriteBatchRep().ToString());
        BatchHandler handler(&collector, ts);
        s = batch.Iterate(&handler);
        if (!s.ok()) {
          throw std::invalid_argument("the trace file " + path + ": the write batch of record " +
                                      std::to_string(record) + " cannot be read: " +
                                      s.ToString());
        }
        break;
      }
      case rocksdb::kTraceGet: {
        const auto& g = static_cast<const rocksdb::GetQueryTraceRecord&>(*r);
        collector.Add(kTraceGet, g.GetKey(), ts);
        break;
      }
      case rocksdb::kTraceMultiGet: {
        const auto& g = static_cast<const rocksdb::MultiGetQueryTraceRecord&>(*r);
        for (const auto& key : g.GetKeys()) collector.Add(kTraceGet, key, ts);
        break;
      }
      case rocksdb::kTraceIteratorSeek:
      case rocksdb::kTraceIteratorSeekForPrev: {
        const auto& it = static_cast<const rocksdb::IteratorSeekQueryTraceRecord&>(*r);
        const rocksdb::Slice lower = it.GetLowerBound(), upper = it.GetUpperBound();
        collector.Add(r->GetTraceType() == rocksdb::kTraceIteratorSeek ? kTraceSeek
                                                                       : kTraceSeekForPrev,
                      it.GetKey(), ts, 0, &lower, &upper);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

}  // namespace wacky_rocksdb
