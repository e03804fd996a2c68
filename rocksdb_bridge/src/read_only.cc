#include "read_only.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_util.h>

#include <stdexcept>

#include "keys.h"

namespace wacky_rocksdb {

std::string DatabaseInUse(const std::string& path) {
  rocksdb::Env* env = rocksdb::Env::Default();
  const std::string lock = path + "/LOCK";
  if (!env->FileExists(lock).ok()) return "";
  rocksdb::FileLock* held = nullptr;
  rocksdb::Status s = env->LockFile(lock, &held);
  if (!s.ok()) return s.ToString();
  env->UnlockFile(held).PermitUncheckedError();
  return "";
}

ReadOnlyDatabase::ReadOnlyDatabase(const std::string& path) {
  rocksdb::Options options;
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.input_strings_escaped = true;
  rocksdb::Status s = rocksdb::LoadLatestOptions(config, path, &db_options, &families);
  if (s.ok()) {
    for (const auto& family : families) {
      if (family.name == rocksdb::kDefaultColumnFamilyName) {
        options = rocksdb::Options(db_options, family.options);
      }
    }
  } else {
    options_problem_ = s.ToString();
  }
  options.create_if_missing = false;
  options.error_if_exists = false;
  options.statistics = nullptr;
  options.listeners.clear();
  options.info_log_level = rocksdb::InfoLogLevel::HEADER_LEVEL;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::OpenForReadOnly(options, path, &raw);
  if (!s.ok()) throw std::runtime_error("RocksDB could not open " + path + " read-only: " +
                                        s.ToString());
  db_.reset(raw);
}

ReadOnlyDatabase::~ReadOnlyDatabase() {
  if (db_) db_->Close().PermitUncheckedError();
}

void ReadOnlyDatabase::GetMany(const uint64_t* keys, size_t n, bool* found) const {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  std::string value;
  for (size_t i = 0; i < n; ++i) {
    rocksdb::Status s = db_->Get(read, EncodeKey(keys[i]), &value);
    if (!s.ok() && !s.IsNotFound()) throw std::runtime_error("RocksDB get: " + s.ToString());
    found[i] = s.ok();
  }
}

uint64_t ReadOnlyDatabase::CountKeys(uint64_t limit) const {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  uint64_t n = 0;
  for (it->SeekToFirst(); it->Valid() && n <= limit; it->Next()) ++n;
  if (!it->status().ok()) throw std::runtime_error("RocksDB scan: " + it->status().ToString());
  return n;
}

std::vector<LevelInfo> ReadOnlyDatabase::Levels() const { return LevelsOf(*db_); }

}  // namespace wacky_rocksdb
