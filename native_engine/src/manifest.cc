// manifest.cc — see manifest.h.
#include "manifest.h"

#include <errno.h>

#include <stdio.h>

#include <cmath>
#include <sstream>

#include "crc32c.h"

#include "file_io.h"

namespace wacky {

namespace {
// Version 2 added the uniform_filters line; version 3 the log number, the checksum line
// and run files with a checksum section (run.h), so earlier directories cannot be read.
constexpr int kManifestVersion = 4;

std::string Hex(uint32_t v) {
  char buf[16];
  snprintf(buf, sizeof(buf), "%08x", v);
  return buf;
}
}  // namespace

std::string Manifest::Encode() const {
  std::ostringstream os;
  os.precision(17);
  const Options& o = options;
  auto write_run = [&os](const RunRecord& r) {
    os << "run " << r.id << " " << r.entries << " " << r.tombstones << " " << r.bits_per_key
       << " " << (r.hash_indexed ? 1 : 0) << "\n";
  };
  os << "wacky-manifest " << kManifestVersion << "\n";
  os << "T " << o.T << "\nC " << o.C << "\nX " << o.X << "\nK " << o.K << "\nZ " << o.Z << "\n";
  os << "entry_bytes " << o.entry_bytes << "\nblock_bytes " << o.block_bytes
     << "\nbuffer_bytes " << o.buffer_bytes << "\n";
  os << "use_sum_fpr " << (o.use_sum_fpr ? 1 : 0) << "\nbits_per_entry " << o.bits_per_entry
     << "\nsum_fpr " << o.sum_fpr << "\nhash_levels " << o.hash_levels << "\n";
  os << "uniform_filters " << (o.uniform_filters ? 1 : 0) << "\n";
  os << "granularity " << o.granularity << "\nfile_bytes " << o.file_bytes << "\nfile_pick "
     << o.file_pick << "\nlevel1_runs " << o.level1_runs << "\n";
  os << "next_run_id " << next_run_id << "\nlog_number " << log_number << "\nn_est " << n_est
     << "\n";
  os << "levels " << levels.size() << "\n";
  for (const auto& lvl : levels) {
    os << "level " << lvl.size() << "\n";
    for (const auto& r : lvl) write_run(r);
  }
  os << "level0 " << level0.size() << "\n";
  for (const auto& r : level0) write_run(r);
  os << "end\n";
  const std::string body = os.str();
  return body + "crc32c " +
         Hex(crc32c::Value(reinterpret_cast<const uint8_t*>(body.data()), body.size())) + "\n";
}

Manifest Manifest::Decode(const std::string& text, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return Corruption("corrupt manifest '" + path + "': " + what);
  };
  const std::string head = "wacky-manifest ";
  if (text.compare(0, head.size(), head) == 0 && text.size() > head.size() &&
      (text[head.size()] == '1' || text[head.size()] == '2') && text[head.size() + 1] == '\n')
    throw IOError(EINVAL, "manifest '" + path + "' is format version " + text[head.size()] +
                              ", written by an older engine whose run files carry no "
                              "checksums; this engine reads versions 3 and 4 only");
  const size_t tail = text.rfind("crc32c ");
  if (tail == std::string::npos || tail == 0 || text[tail - 1] != '\n')
    throw bad("no checksum line");
  const std::string want =
      Hex(crc32c::Value(reinterpret_cast<const uint8_t*>(text.data()), tail));
  if (text.compare(tail + 7, std::string::npos, want + "\n") != 0)
    throw bad("checksum mismatch (the file was changed or damaged)");
  std::istringstream is(text.substr(0, tail));
  auto expect = [&](const char* name) {
    std::string tok;
    if (!(is >> tok) || tok != name) throw bad(std::string("expected '") + name + "'");
  };
  auto read_run = [&]() {
    RunRecord r;
    int hi = 0;
    expect("run");
    if (!(is >> r.id >> r.entries >> r.tombstones >> r.bits_per_key >> hi))
      throw bad("bad run record");
    r.hash_indexed = hi != 0;
    return r;
  };
  Manifest m;
  Options& o = m.options;
  expect("wacky-manifest");
  int version = 0;
  if (!(is >> version) || (version != kManifestVersion && version != 3))
    throw bad("unsupported version " + std::to_string(version) + " (this engine reads " +
              std::to_string(kManifestVersion) + ")");
  int use_sum = 0;
  expect("T");
  is >> o.T;
  expect("C");
  is >> o.C;
  expect("X");
  is >> o.X;
  expect("K");
  is >> o.K;
  expect("Z");
  is >> o.Z;
  expect("entry_bytes");
  is >> o.entry_bytes;
  expect("block_bytes");
  is >> o.block_bytes;
  expect("buffer_bytes");
  is >> o.buffer_bytes;
  expect("use_sum_fpr");
  is >> use_sum;
  o.use_sum_fpr = use_sum != 0;
  expect("bits_per_entry");
  is >> o.bits_per_entry;
  expect("sum_fpr");
  is >> o.sum_fpr;
  expect("hash_levels");
  is >> o.hash_levels;
  int uniform = 0;
  expect("uniform_filters");
  is >> uniform;
  o.uniform_filters = uniform != 0;
  if (version >= 4) {
    expect("granularity");
    is >> o.granularity;
    expect("file_bytes");
    is >> o.file_bytes;
    expect("file_pick");
    is >> o.file_pick;
    expect("level1_runs");
    is >> o.level1_runs;
  }
  expect("next_run_id");
  is >> m.next_run_id;
  expect("log_number");
  is >> m.log_number;
  expect("n_est");
  is >> m.n_est;
  expect("levels");
  size_t L = 0;
  if (!(is >> L) || L == 0 || L > 4096) throw bad("bad level count");
  m.levels.resize(L);
  for (size_t i = 0; i < L; ++i) {
    expect("level");
    size_t n = 0;
    if (!(is >> n) || n > (1u << 30)) throw bad("bad run count");
    for (size_t j = 0; j < n; ++j) m.levels[i].push_back(read_run());
  }
  if (version >= 4) {
    expect("level0");
    size_t n = 0;
    if (!(is >> n) || n > 1000) throw bad("bad level-0 run count");
    for (size_t j = 0; j < n; ++j) m.level0.push_back(read_run());
  }
  expect("end");
  if (is.fail()) throw bad("unreadable field");
  return m;
}

std::string ManifestFileName(const std::string& dir) { return dir + "/MANIFEST"; }

std::string CompareDesign(const Options& s, const Options& r) {
  std::ostringstream os;
  os.precision(17);
  auto diff = [&](const char* name, double a, double b) {
    if (a == b) return false;
    os << name << " (stored " << a << ", requested " << b << ")";
    return true;
  };
  if (diff("T", s.T, r.T) || diff("C", s.C, r.C) || diff("X", s.X, r.X) ||
      diff("K", s.K, r.K) || diff("Z", s.Z, r.Z) ||
      diff("entry_bytes", s.entry_bytes, r.entry_bytes) ||
      diff("block_bytes", s.block_bytes, r.block_bytes) ||
      diff("buffer_bytes", s.buffer_bytes, r.buffer_bytes) ||
      diff("hash_levels", s.hash_levels, r.hash_levels) ||
      // Compared as used: 0 stands for buffer_bytes (the default), so the two agree.
      diff("file_bytes", static_cast<double>(s.file_bytes ? s.file_bytes : s.buffer_bytes),
           static_cast<double>(r.file_bytes ? r.file_bytes : r.buffer_bytes)) ||
      diff("level1_runs", s.level1_runs, r.level1_runs))
    return os.str();
  auto granularity = [](int g) { return g == kFileGranularity ? "file" : "level"; };
  if (s.granularity != r.granularity)
    return std::string("granularity (stored ") + granularity(s.granularity) + ", requested " +
           granularity(r.granularity) + ")";
  auto pick = [](int p) { return p == kRoundRobin ? "round_robin" : "least_overlap"; };
  if (s.file_pick != r.file_pick)
    return std::string("file_pick (stored ") + pick(s.file_pick) + ", requested " +
           pick(r.file_pick) + ")";
  if (s.uniform_filters != r.uniform_filters)
    return std::string("filters (stored ") + (s.uniform_filters ? "uniform" : "optimized") +
           ", requested " + (r.uniform_filters ? "uniform" : "optimized") + ")";
  if (s.use_sum_fpr != r.use_sum_fpr)
    return s.use_sum_fpr ? "filter budget (stored sum_fpr, requested bits_per_entry)"
                         : "filter budget (stored bits_per_entry, requested sum_fpr)";
  if (s.use_sum_fpr ? diff("sum_fpr", s.sum_fpr, r.sum_fpr)
                    : diff("bits_per_entry", s.bits_per_entry, r.bits_per_entry))
    return os.str();
  return "";
}

}  // namespace wacky
