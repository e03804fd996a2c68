// manifest.cc — see manifest.h.
#include "manifest.h"

#include <errno.h>

#include <stdio.h>

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "compaction_buffer.h"
#include "crc32c.h"
#include "devices.h"

#include "file_io.h"
#include "run.h"

namespace wacky {

namespace {
// Version 2 added the uniform_filters line; version 3 the log number, the checksum line
// and run files with a checksum section; version 4 the compaction options and level 0;
// version 5 the db id, generation, live logs, obsolete runs, key ranges, and run files
// with a footer (run.h), so earlier directories cannot be read; version 6 the option lines
// of OptionTable() and L2SM's logs, written only when they are used (manifest.h). LSbM's
// compaction-buffer section is optional in either version.
constexpr int kManifestVersion = 6;
constexpr int kOldestReadable = 5;
constexpr const char* kDevicesSectionTag = "devices";

// A stored row of OptionTable() that version 6 records as a line of its option block.
bool OptionLine(const OptionSpec& spec) { return spec.stored && !spec.own_section; }

// True when the design uses an option line: the MANIFEST must then be version 6.
bool NeedsTable(const Options& o) {
  for (const OptionSpec& spec : OptionTable())
    if (OptionLine(spec) && spec.get(o) != spec.default_value) return true;
  return false;
}

std::string Hex(uint32_t v) {
  char buf[16];
  snprintf(buf, sizeof(buf), "%08x", v);
  return buf;
}

std::string Hex64(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

std::string Manifest::Encode() const {
  std::ostringstream os;
  os.precision(17);
  const Options& o = options;
  auto write_run = [&os](const RunRecord& r) {
    os << "run " << r.id << " " << r.entries << " " << r.tombstones << " " << r.bits_per_key
       << " " << (r.hash_indexed ? 1 : 0) << " " << r.min_key << " " << r.max_key << "\n";
  };
  const bool table = NeedsTable(o);
  if (!table)
    for (const auto& log : level_logs)
      if (!log.empty())
        throw std::logic_error("a MANIFEST without L2SM's options cannot list log files");
  os << "wacky-manifest " << (table ? kManifestVersion : kOldestReadable) << "\n";
  os << "T " << o.T << "\nC " << o.C << "\nX " << o.X << "\nK " << o.K << "\nZ " << o.Z << "\n";
  os << "entry_bytes " << o.entry_bytes << "\nblock_bytes " << o.block_bytes
     << "\nbuffer_bytes " << o.buffer_bytes << "\n";
  os << "use_sum_fpr " << (o.use_sum_fpr ? 1 : 0) << "\nbits_per_entry " << o.bits_per_entry
     << "\nsum_fpr " << o.sum_fpr << "\nhash_levels " << o.hash_levels << "\n";
  os << "uniform_filters " << (o.uniform_filters ? 1 : 0) << "\n";
  os << "granularity " << o.granularity << "\nfile_bytes " << o.file_bytes << "\nfile_pick "
     << o.file_pick << "\nlevel1_runs " << o.level1_runs << "\n";
  if (table)
    for (const OptionSpec& spec : OptionTable())
      if (OptionLine(spec)) os << spec.name << " " << spec.get(o) << "\n";
  os << "db_id " << Hex64(db_id) << "\ngeneration " << generation << "\nnext_run_id "
     << next_run_id << "\nnext_log_number " << next_log_number << "\n";
  os << "logs " << logs.size();
  for (uint64_t n : logs) os << " " << n;
  os << "\nobsolete " << obsolete.size();
  for (uint64_t id : obsolete) os << " " << id;
  os << "\nn_est " << n_est << "\n";
  os << "levels " << levels.size() << "\n";
  for (size_t i = 0; i < levels.size(); ++i) {
    os << "level " << levels[i].size() << "\n";
    for (const auto& r : levels[i]) write_run(r);
    if (!table) continue;
    const size_t n = i < level_logs.size() ? level_logs[i].size() : 0;
    os << "log " << n << "\n";
    for (size_t j = 0; j < n; ++j) write_run(level_logs[i][j]);
  }
  os << "level0 " << level0.size() << "\n";
  for (const auto& r : level0) write_run(r);
  // Optional sections, each recording an own_section option of OptionTable() by its presence.
  if (o.compaction_buffer) EncodeBufferSection(*this, &os);  // [compaction buffer]
  if (!o.level_dirs.empty()) {  // [devices]: "-" is the engine's directory ("")
    os << kDevicesSectionTag << " " << o.level_dirs.size();
    for (const std::string& d : o.level_dirs) os << " " << (d.empty() ? "-" : d);
    os << "\nplaced " << placed.size();
    for (const auto& [id, device] : placed) os << " " << id << " " << device;
    os << "\n";
  } else if (!placed.empty()) {
    throw std::logic_error("a MANIFEST without level_dirs cannot place run files on devices");
  }
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
      text[head.size()] >= '1' && text[head.size()] <= '4' && text[head.size() + 1] == '\n')
    throw IOError(EINVAL, "manifest '" + path + "' is format version " + text[head.size()] +
                              ", written by an older engine whose run files do not identify "
                              "themselves (no footer); this engine reads version 5 only (or "
                              "6, version 5 with L2SM's logs). Nothing was changed");
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
    if (!(is >> r.id >> r.entries >> r.tombstones >> r.bits_per_key >> hi >> r.min_key >>
          r.max_key))
      throw bad("bad run record");
    r.hash_indexed = hi != 0;
    return r;
  };
  Manifest m;
  Options& o = m.options;
  expect("wacky-manifest");
  int version = 0;
  if (!(is >> version) || version < kOldestReadable || version > kManifestVersion)
    throw bad("unsupported version " + std::to_string(version) + " (this engine reads " +
              std::to_string(kOldestReadable) + " to " + std::to_string(kManifestVersion) +
              ")");
  const bool table = version >= 6;
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
  {
    expect("granularity");
    is >> o.granularity;
    expect("file_bytes");
    is >> o.file_bytes;
    expect("file_pick");
    is >> o.file_pick;
    expect("level1_runs");
    is >> o.level1_runs;
  }
  if (table) {
    // The option lines, by name, up to db_id: a row added to the table after a MANIFEST was
    // written is absent from it and keeps its default (the value every older engine had).
    std::string tok;
    std::set<std::string> seen;
    while ((is >> tok) && tok != "db_id") {
      const OptionSpec* spec = nullptr;
      for (const OptionSpec& row : OptionTable())
        if (OptionLine(row) && tok == row.name) spec = &row;
      if (spec == nullptr) throw bad("unknown option line '" + tok + "'");
      if (!seen.insert(tok).second) throw bad("option line '" + tok + "' twice");
      double v = 0.0;
      if (!(is >> v)) throw bad("bad " + tok);
      spec->set(&o, v);
    }
    if (tok != "db_id") throw bad("expected 'db_id'");
  } else {
    expect("db_id");
  }
  std::string id_hex;
  is >> id_hex;
  if (id_hex.size() != 16 || id_hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw bad("bad db_id");
  m.db_id = std::stoull(id_hex, nullptr, 16);
  expect("generation");
  is >> m.generation;
  expect("next_run_id");
  is >> m.next_run_id;
  expect("next_log_number");
  is >> m.next_log_number;
  auto read_list = [&](const char* name, std::vector<uint64_t>* out) {
    expect(name);
    size_t n = 0;
    if (!(is >> n) || n > (1u << 20)) throw bad(std::string("bad ") + name + " count");
    out->resize(n);
    for (auto& v : *out)
      if (!(is >> v)) throw bad(std::string("bad ") + name + " entry");
  };
  read_list("logs", &m.logs);
  read_list("obsolete", &m.obsolete);
  expect("n_est");
  is >> m.n_est;
  expect("levels");
  size_t L = 0;
  if (!(is >> L) || L == 0 || L > 4096) throw bad("bad level count");
  m.levels.resize(L);
  if (table) m.level_logs.resize(L);
  for (size_t i = 0; i < L; ++i) {
    expect("level");
    size_t n = 0;
    if (!(is >> n) || n > (1u << 30)) throw bad("bad run count");
    for (size_t j = 0; j < n; ++j) m.levels[i].push_back(read_run());
    if (!table) continue;
    expect("log");
    if (!(is >> n) || n > (1u << 30)) throw bad("bad log file count");
    for (size_t j = 0; j < n; ++j) m.level_logs[i].push_back(read_run());
  }
  {
    expect("level0");
    size_t n = 0;
    if (!(is >> n) || n > 1000) throw bad("bad level-0 run count");
    for (size_t j = 0; j < n; ++j) m.level0.push_back(read_run());
  }
  // Optional sections before "end", in either version, each at most once and in any order:
  // today only LSbM's compaction buffer (compaction_buffer.h; it sets compaction_buffer).
  for (bool buffer_seen = false, devices_seen = false;;) {
    std::string tok;
    if (!(is >> tok)) throw bad("expected 'end'");
    if (tok == "end") break;
    if (tok == kDevicesSectionTag) {
      if (devices_seen) throw bad("a second devices section");
      devices_seen = true;
      size_t n = 0;
      if (!(is >> n) || n == 0 || n > 64) throw bad("bad devices count");
      for (size_t i = 0; i < n; ++i) {
        std::string d;
        if (!(is >> d) || (d != "-" && d[0] != '/')) throw bad("bad device directory");
        o.level_dirs.push_back(d == "-" ? "" : d);
      }
      const size_t devices = DeviceDirs(path, o.level_dirs).size();
      expect("placed");
      if (!(is >> n) || n > (1u << 30)) throw bad("bad placed count");
      for (size_t i = 0; i < n; ++i) {
        uint64_t id = 0;
        uint32_t device = 0;
        if (!(is >> id >> device) || device == 0 || device >= devices ||
            !m.placed.emplace(id, device).second)
          throw bad("bad placed run");
      }
      continue;
    }
    if (tok != kBufferSectionTag) throw bad("expected 'end'");
    if (buffer_seen) throw bad("a second compaction-buffer section");
    DecodeBufferSection(&is, path, &m);
    buffer_seen = true;
  }
  if (is.fail()) throw bad("unreadable field");
  return m;
}

std::string RunFilePath(const Manifest& m, const std::string& home, uint64_t id) {
  const auto at = m.placed.find(id);
  if (at == m.placed.end()) return RunFileName(home, id);
  return RunFileName(DeviceDirs(home, m.options.level_dirs).at(at->second), id);
}

std::string ManifestFileName(const std::string& dir) { return dir + "/MANIFEST"; }

std::string OutputsFileName(const std::string& dir) { return dir + "/OUTPUTS"; }

std::string OutputsRecord::Encode() const {
  std::ostringstream os;
  os << "wacky-outputs 1\ndb_id " << Hex64(db_id) << "\ngeneration " << generation
     << "\nfirst_run_id " << first_run_id << "\n";
  const std::string body = os.str();
  return body + "crc32c " +
         Hex(crc32c::Value(reinterpret_cast<const uint8_t*>(body.data()), body.size())) + "\n";
}

bool OutputsRecord::Decode(const std::string& text, OutputsRecord* out) {
  const size_t tail = text.rfind("crc32c ");
  if (tail == std::string::npos || tail == 0 ||
      text.compare(tail + 7, std::string::npos,
                   Hex(crc32c::Value(reinterpret_cast<const uint8_t*>(text.data()), tail)) +
                       "\n") != 0)
    return false;
  std::istringstream is(text.substr(0, tail));
  std::string magic, k1, k2, k3, id_hex;
  int version = 0;
  OutputsRecord r;
  if (!(is >> magic >> version >> k1 >> id_hex >> k2 >> r.generation >> k3 >>
        r.first_run_id) ||
      magic != "wacky-outputs" || version != 1 || k1 != "db_id" || k2 != "generation" ||
      k3 != "first_run_id" || id_hex.size() != 16 ||
      id_hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    return false;
  r.db_id = std::stoull(id_hex, nullptr, 16);
  *out = r;
  return true;
}

bool RecordsOption(const Options& o, const OptionSpec& spec) {
  if (!spec.stored) return false;
  return spec.own_section ? spec.get(o) != spec.default_value : NeedsTable(o);
}

std::string CompareDesign(const Options& s, const Options& r) {
  // Granularity first: the file-only options differ whenever it does.
  auto granularity = [](int g) { return g == kFileGranularity ? "file" : "level"; };
  if (s.granularity != r.granularity)
    return std::string("granularity (stored ") + granularity(s.granularity) + ", requested " +
           granularity(r.granularity) + ")";
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
  // The stored rows of OptionTable(): L2SM's design options, LSbM's compaction_buffer.
  for (const OptionSpec& spec : OptionTable()) {
    if (!spec.stored || spec.get(s) == spec.get(r)) continue;
    return std::string(spec.name) + " (stored " + spec.Show(spec.get(s)) + ", requested " +
           spec.Show(spec.get(r)) + ")";
  }
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
  if (s.level_dirs != r.level_dirs) {
    // The runs already placed stay where the MANIFEST says; a new placement would put the
    // next ones elsewhere, and a directory dropped from the list would hide its runs.
    auto show = [](const std::vector<std::string>& dirs) {
      std::string out = "[";
      for (size_t i = 0; i < dirs.size(); ++i)
        out += (i ? ", '" : "'") + dirs[i] + "'";
      return out + "]";
    };
    return "level_dirs (stored " + show(s.level_dirs) + ", requested " + show(r.level_dirs) +
           ")";
  }
  return "";
}

}  // namespace wacky
