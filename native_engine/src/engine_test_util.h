// engine_test_util.h — setup and checks shared by the tests that drive the whole engine
// through a directory (engine_test.cc, engine_buffer_test.cc, engine_buffer_io_test.cc,
// engine_cache_test.cc, engine_l2sm_test.cc, engine_salvage_test.cc).
//
// Why: each of those files had grown its own copy of the same helpers (small designs, the
// value pattern, model checks, the crash helper, byte flips, directory snapshots), and the
// copies had started to drift. They live here once; a file keeps only what is its own.
//
// Contract (test-only; everything is in wacky::test, header-only, and uses testharness.h):
//   * Temporary directories are testharness.h's TempDir (RAII: a fresh directory, removed
//     with its contents when the TempDir is destroyed). An engine lives in a subdirectory of
//     it (by convention dir.path() + "/db"), which the engine creates.
//   * SmallOptions(granularity, file_bytes) is the tiny design the engine tests use: 24-byte
//     entries (16-byte values), 4 entries per block, 8 per buffer, T = 3, C = 2, 10 bits per
//     entry, so that few writes make many flushes and merges. With kFileGranularity levels
//     are files of file_bytes (0: buffer_bytes). Tests change further fields themselves.
//   * Value(o, key, salt) is a value of o.value_bytes() bytes determined by (key, salt), so a
//     test can say which write a read must return without storing it. Model maps each live
//     key to its value (an absent key: deleted or never written).
//   * Load(e, model, begin, end, salt, stride) puts keys begin, begin + stride, ... < end with
//     Value(e->options(), key, salt), recording each in *model (when given) after its Put.
//   * Step(e, model, key, salt, dice, put_below, delete_below) is one operation of a random
//     workload: a put of Value(key, salt) when dice < put_below, else a delete when dice <
//     delete_below, else a Get checked against the model; the model follows the writes.
//   * Checks fail the running test through CHECK (at this header's lines):
//     CheckGets(e, model) finds every key of the model with its value; CheckKeySpace(e,
//     model, universe) checks every key of [0, universe): found exactly when in the model,
//     with its value; CheckScan(e, model, lo, hi, batch) requires Scan(lo, hi), read in
//     batches of `batch`, to yield exactly the model's entries in [lo, hi], keys and values
//     (nothing when lo > hi); CheckMatches(e, model, universe, batch) is CheckKeySpace and a
//     CheckScan of all keys; CheckNoTempFiles(dir) finds no "*.tmp" entry in dir.
//   * InAChildThatDies(body) runs body in a forked child that then _exit()s, like a crashed
//     process, and requires body to have returned normally (exit status 0).
//   * FlipByte(file, offset, mask) xors one byte of a file in place (damage on disk).
//   * Snapshot(dir) is every entry under dir, by name relative to dir ("lost/run-..."), with
//     its bytes, directories as "<dir>": two equal snapshots mean nothing was written,
//     created, moved or deleted there.
//   * Sum(v) adds up a per-level counter vector of IOStats.
#ifndef WACKY_NATIVE_ENGINE_ENGINE_TEST_UTIL_H_
#define WACKY_NATIVE_ENGINE_ENGINE_TEST_UTIL_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine.h"
#include "env.h"
#include "file_io.h"
#include "options.h"
#include "scan_iterator.h"
#include "testharness.h"

namespace wacky {
namespace test {

using Model = std::map<uint64_t, std::vector<uint8_t>>;

inline Options SmallOptions(int granularity = kLevelGranularity, uint64_t file_bytes = 0) {
  Options o;
  o.T = 3;
  o.C = 2;
  o.entry_bytes = 24;    // 16-byte values
  o.block_bytes = 96;    // 4 entries per block
  o.buffer_bytes = 192;  // 8 entries per buffer: many flushes and merges from few writes
  o.bits_per_entry = 10;
  o.granularity = granularity;
  o.file_bytes = file_bytes;
  return o;
}

inline std::vector<uint8_t> Value(const Options& o, uint64_t key, uint64_t salt) {
  std::vector<uint8_t> v(o.value_bytes());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<uint8_t>((key * 131 + salt * 7 + i) ^ (key >> (8 * (i % 8))));
  return v;
}

inline void Load(Engine* e, Model* model, uint64_t begin, uint64_t end, uint64_t salt,
                 uint64_t stride = 1) {
  for (uint64_t k = begin; k < end; k += stride) {
    const auto v = Value(e->options(), k, salt);
    e->Put(k, v.data());
    if (model != nullptr) (*model)[k] = v;
  }
}

inline void Step(Engine* e, Model* model, uint64_t key, uint64_t salt, uint64_t dice,
                 uint64_t put_below, uint64_t delete_below) {
  if (dice < put_below) {
    const auto v = Value(e->options(), key, salt);
    e->Put(key, v.data());
    (*model)[key] = v;
  } else if (dice < delete_below) {
    e->Delete(key);
    model->erase(key);
  } else {
    std::vector<uint8_t> out(e->options().value_bytes());
    const bool found = e->Get(key, out.data());
    CHECK_EQ(found, model->count(key) == 1);
    if (found) CHECK(out == model->at(key));
  }
}

inline void CheckGets(Engine* e, const Model& model) {
  std::vector<uint8_t> out(e->options().value_bytes());
  for (const auto& [k, v] : model) {
    CHECK(e->Get(k, out.data()));
    CHECK(out == v);
  }
}

inline void CheckKeySpace(Engine* e, const Model& model, uint64_t universe) {
  std::vector<uint8_t> out(e->options().value_bytes());
  for (uint64_t k = 0; k < universe; ++k) {
    const auto it = model.find(k);
    CHECK_EQ(e->Get(k, out.data()), it != model.end());
    if (it != model.end()) CHECK(out == it->second);
  }
}

inline void CheckScan(Engine* e, const Model& model, uint64_t lo, uint64_t hi, size_t batch) {
  const size_t vb = e->options().value_bytes();
  auto it = e->Scan(lo, hi);
  std::vector<uint64_t> keys;
  std::vector<uint8_t> values;
  while (it->NextBatch(batch, &keys, &values) > 0) {}
  size_t n = 0;
  if (lo <= hi)
    for (auto m = model.lower_bound(lo); m != model.end() && m->first <= hi; ++m, ++n) {
      CHECK(n < keys.size());
      CHECK_EQ(keys[n], m->first);
      CHECK(std::vector<uint8_t>(values.begin() + n * vb, values.begin() + (n + 1) * vb) ==
            m->second);
    }
  CHECK_EQ(keys.size(), n);
}

inline void CheckMatches(Engine* e, const Model& model, uint64_t universe, size_t batch = 64) {
  CheckKeySpace(e, model, universe);
  CheckScan(e, model, 0, UINT64_MAX, batch);
}

inline void CheckNoTempFiles(const std::string& dir) {
  for (const auto& name : ListDir(dir))
    CHECK(name.size() < 4 || name.compare(name.size() - 4, 4, ".tmp") != 0);
}

// An engine that must not be closed has to be leaked by `body` (new without delete): a
// destructor would close it, which flushes. Returns once the child is gone.
template <typename F>
void InAChildThatDies(F body) {
  const pid_t pid = ::fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  CHECK_EQ(::waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

// After a child that put key_of(i) with Value(o, key_of(i), i) for i = 0, 1, ... died once put n
// raised an IOError, having written n to `mark`: checks that n >= `at_least`, reopens `path`
// and checks that every acknowledged put survived (the raised one counts if the engine applied
// it, engine.h) and that nothing went to lost/.
template <typename KeyOf>
void CheckAcknowledgedSurvive(const std::string& path, const std::string& mark, const Options& o,
                              KeyOf key_of, int at_least, uint64_t universe, size_t batch) {
  int failed_at = -1;
  std::ifstream(mark) >> failed_at;
  CHECK_GE(failed_at, at_least);
  Model model;
  for (int i = 0; i < failed_at; ++i) model[key_of(i)] = Value(o, key_of(i), i);
  Engine e(path, o);
  std::vector<uint8_t> out(o.value_bytes());
  if (e.Get(key_of(failed_at), out.data()) && out == Value(o, key_of(failed_at), failed_at))
    model[key_of(failed_at)] = out;
  CheckMatches(&e, model, universe, batch);
  CHECK(!FileExists(path + "/lost") || ListDir(path + "/lost").empty());
}

inline void FlipByte(const std::string& file, off_t offset, uint8_t mask) {
  ScopedFd fd(::open(file.c_str(), O_RDWR));
  CHECK(fd.valid());
  uint8_t byte = 0;
  CHECK_EQ(::pread(fd.get(), &byte, 1, offset), 1);
  byte ^= mask;
  CHECK_EQ(::pwrite(fd.get(), &byte, 1, offset), 1);
}

inline std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& name : ListDir(dir)) {
    const std::string p = dir + "/" + name;
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      out[name] = "<dir>";
      for (const auto& [k, v] : Snapshot(p)) out[name + "/" + k] = v;
    } else {
      out[name] = ReadWholeFile(p);
    }
  }
  return out;
}

inline uint64_t Sum(const std::vector<uint64_t>& v) {
  uint64_t t = 0;
  for (uint64_t x : v) t += x;
  return t;
}

}  // namespace test
}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_ENGINE_TEST_UTIL_H_
