// options.cc — validation of engine options; see options.h.
#include "options.h"

#include <stdio.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "structure.h"

namespace wacky {

namespace {
[[noreturn]] void Bad(const std::string& msg) { throw std::invalid_argument(msg); }

std::string Num(double v) {  // 0.1, 10, 1e-05: as a person would write it
  char buf[32];
  snprintf(buf, sizeof(buf), "%.12g", v);
  return buf;
}

// Checks every row of OptionTable() against its range, and the rows that need a log or
// floating.
void ValidateTable(const Options& o) {
  for (const OptionSpec& spec : OptionTable()) {
    const double v = spec.get(o);
    const bool whole = spec.kind != OptionSpec::kReal;
    if (!std::isfinite(v) || v < spec.lo || v > spec.hi || (whole && v != std::floor(v))) {
      if (spec.kind == OptionSpec::kChoice) {
        std::string names;
        for (size_t i = 0; i < spec.choices.size(); ++i)
          names += std::string(i ? " or '" : "'") + spec.choices[i] + "'";
        Bad(std::string(spec.name) + " must be " + names + "; got " + Num(v));
      }
      Bad(std::string(spec.name) + " = " + Num(v) + " must be " +
          (whole ? "a whole number " : "") + "in [" + Num(spec.lo) + ", " + Num(spec.hi) + "]");
    }
    if (v == spec.default_value) continue;
    if (spec.needs == OptionSpec::kWithLog && o.log_ratio == 0.0)
      Bad(std::string(spec.name) + " applies only with log_ratio > 0 (L2SM's per-level log); "
          "got " + spec.name + " = " + spec.Show(v) + " with log_ratio = 0");
    if (spec.needs == OptionSpec::kWithFloat && o.float_gamma == 0.0)
      Bad(std::string(spec.name) + " applies only with float_gamma > 0 (Tidal-tree's "
          "floating of hot files); got " + spec.name + " = " + spec.Show(v) +
          " with float_gamma = 0");
  }
}

// The rows: L2SM's per-level log (sst_log.h). Ranges are the brief's: omega and alpha are
// shares, M up to 16 layers, the IS/CS cap up to 1000 files per file. Then LSbM's compaction
// buffer (compaction_buffer.h): the option itself is part of the design, recorded by the
// MANIFEST's buffer section; its trim knobs are memory only. OHDB's l0_partitions is a
// version-6 option line (own_section false, stored true); the MANIFEST reads those lines by
// name, so a row added later is simply absent from MANIFESTs written before it (its default).
std::vector<OptionSpec> MakeTable() {
  using S = OptionSpec;
  std::vector<OptionSpec> t;
  t.push_back({"log_ratio", S::kReal, 0.0, 1.0, 0.0, /*stored=*/true, /*own_section=*/false,
               /*needs=*/S::kAlways, {},
               [](const Options& o) { return o.log_ratio; },
               [](Options* o, double v) { o->log_ratio = v; }});
  t.push_back({"log_alpha", S::kReal, 0.0, 1.0, 0.5, true, false, S::kWithLog, {},
               [](const Options& o) { return o.log_alpha; },
               [](Options* o, double v) { o->log_alpha = v; }});
  t.push_back({"log_batch_cap", S::kInt, 1.0, 1000.0, 10.0, true, false, S::kWithLog, {},
               [](const Options& o) { return static_cast<double>(o.log_batch_cap); },
               [](Options* o, double v) { o->log_batch_cap = static_cast<int>(v); }});
  t.push_back({"hotness", S::kChoice, 0.0, 1.0, kExactHotness, false, false, S::kWithLog,
               {"exact", "hotmap"},
               [](const Options& o) { return static_cast<double>(o.hotness); },
               [](Options* o, double v) { o->hotness = static_cast<int>(v); }});
  t.push_back({"hotmap_layers", S::kInt, 1.0, 16.0, 5.0, false, false, S::kWithLog, {},
               [](const Options& o) { return static_cast<double>(o.hotmap_layers); },
               [](Options* o, double v) { o->hotmap_layers = static_cast<int>(v); }});
  t.push_back({"hotness_audit", S::kBool, 0.0, 1.0, 0.0, false, false, S::kWithLog, {},
               [](const Options& o) { return o.hotness_audit ? 1.0 : 0.0; },
               [](Options* o, double v) { o->hotness_audit = v != 0.0; }});
  t.push_back({"l0_partitions", S::kInt, 1.0, 1024.0, 1.0, true, false, S::kAlways, {},
               [](const Options& o) { return static_cast<double>(o.l0_partitions); },
               [](Options* o, double v) { o->l0_partitions = static_cast<int>(v); }});
  t.push_back({"compaction_buffer", S::kBool, 0.0, 1.0, 0.0, /*stored=*/true,
               /*own_section=*/true, /*needs=*/S::kAlways, {"off", "on"},
               [](const Options& o) { return o.compaction_buffer ? 1.0 : 0.0; },
               [](Options* o, double v) { o->compaction_buffer = v != 0.0; }});
  t.push_back({"buffer_trim", S::kReal, 0.0, 1.0, 0.8, false, false, S::kAlways, {},
               [](const Options& o) { return o.buffer_trim; },
               [](Options* o, double v) { o->buffer_trim = v; }});
  t.push_back({"buffer_trim_interval", S::kInt, 1.0, 4294967296.0, 8.0, false, false,
               S::kAlways, {},
               [](const Options& o) { return static_cast<double>(o.buffer_trim_interval); },
               [](Options* o, double v) { o->buffer_trim_interval = static_cast<uint64_t>(v); }});
  // Tidal-tree's floating (floating.h). The paper's parameters are the design, stored like
  // L2SM's: gamma, alpha and the probe cost decide which files float and where to, and delta
  // changes the levels' capacities, so a tree reopened with other values would be another
  // design than the one measured. How the engine keeps its read counts (the decay) and how
  // fast it carries out the floats the equations allow (per flush) are not in the paper and
  // only pace the same decisions: memory only, like L2SM's hotness source. All but gamma need
  // gamma > 0. Ranges: gamma may be any share up to 1e6 (1 floats a file as hot as the
  // hottest above it at eta = 1); alpha and the probe cost are costs in page reads, in
  // [0.001, 1000] (the paper's flash has alpha = 1250/75, about 17); delta is in files.
  t.push_back({"float_gamma", S::kReal, 0.0, 1e6, 0.0, /*stored=*/true, /*own_section=*/false,
               /*needs=*/S::kAlways, {},
               [](const Options& o) { return o.float_gamma; },
               [](Options* o, double v) { o->float_gamma = v; }});
  t.push_back({"float_alpha", S::kReal, 0.001, 1000.0, 1.0, true, false, S::kWithFloat, {},
               [](const Options& o) { return o.float_alpha; },
               [](Options* o, double v) { o->float_alpha = v; }});
  t.push_back({"float_probe_cost", S::kReal, 0.001, 1000.0, 3.0, true, false, S::kWithFloat,
               {},
               [](const Options& o) { return o.float_probe_cost; },
               [](Options* o, double v) { o->float_probe_cost = v; }});
  t.push_back({"float_stretch", S::kReal, 0.0, 1000.0, 0.0, true, false, S::kWithFloat, {},
               [](const Options& o) { return o.float_stretch; },
               [](Options* o, double v) { o->float_stretch = v; }});
  t.push_back({"float_decay", S::kInt, 1.0, 4294967296.0, 10000.0, false, false,
               S::kWithFloat, {},
               [](const Options& o) { return static_cast<double>(o.float_decay); },
               [](Options* o, double v) { o->float_decay = static_cast<uint64_t>(v); }});
  t.push_back({"float_per_flush", S::kInt, 1.0, 1000.0, 1.0, false, false, S::kWithFloat, {},
               [](const Options& o) { return static_cast<double>(o.float_per_flush); },
               [](Options* o, double v) { o->float_per_flush = static_cast<int>(v); }});
  // [paged metadata] (run.h, the metadata tail): which copy of the filters and fences a
  // lookup reads, memory or the files through the block cache. Both copies hold the same
  // bits and the tail is rebuilt from the run's keys, so it is not part of the design: not
  // stored, any value on reopen, like cache_bytes.
  t.push_back({"paged_metadata", S::kBool, 0.0, 1.0, 0.0, /*stored=*/false,
               /*own_section=*/false, /*needs=*/S::kAlways, {},
               [](const Options& o) { return o.paged_metadata ? 1.0 : 0.0; },
               [](Options* o, double v) { o->paged_metadata = v != 0.0; }});
  // How run files are read (file_io.h): the same bytes either way, so memory only.
  t.push_back({"direct_reads", S::kBool, 0.0, 1.0, 0.0, /*stored=*/false,
               /*own_section=*/false, /*needs=*/S::kAlways, {},
               [](const Options& o) { return o.direct_reads ? 1.0 : 0.0; },
               [](Options* o, double v) { o->direct_reads = v != 0.0; }});
  return t;
}
}  // namespace

std::string OptionSpec::Show(double v) const {
  switch (kind) {
    case kBool:
      if (choices.size() == 2) return choices[v != 0.0 ? 1 : 0];
      return v != 0.0 ? "true" : "false";
    case kChoice:
      if (v >= 0 && v < static_cast<double>(choices.size()) && v == std::floor(v))
        return std::string("'") + choices[static_cast<size_t>(v)] + "'";
      return Num(v);
    default:
      return Num(v);
  }
}

double OptionSpec::Parse(const std::string& spelling) const {
  std::string names;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (spelling == choices[i]) return static_cast<double>(i);
    names += std::string(i ? " or '" : "'") + choices[i] + "'";
  }
  Bad(std::string(name) + " must be " + names + "; got '" + spelling + "'");
}

const std::vector<OptionSpec>& OptionTable() {
  static const std::vector<OptionSpec> table = MakeTable();
  return table;
}

const OptionSpec* FindOption(const std::string& name) {
  for (const OptionSpec& spec : OptionTable())
    if (name == spec.name) return &spec;
  return nullptr;
}

void Options::Validate() const {
  structure::ValidateDesign(T, C, X, K, Z);
  if (level_dirs.size() > 64)
    Bad("level_dirs has " + std::to_string(level_dirs.size()) +
        " entries; at most 64 (one per level, the last one for every level below)");
  for (size_t i = 0; i < level_dirs.size(); ++i) {
    const std::string& d = level_dirs[i];
    if (d.empty()) continue;
    if (d[0] != '/' || d.find_first_of(std::string(" \t\n\r\v\f\0", 7)) != std::string::npos)
      Bad("level_dirs[" + std::to_string(i) + "] = '" + d + "' must be \"\" (the engine's "
          "directory) or an absolute path without whitespace");
  }
  if (entry_bytes < 9 || entry_bytes > (1u << 20))
    Bad("entry_bytes = " + std::to_string(entry_bytes) +
        " must be in [9, 1048576] (an 8-byte key plus at least 1 value byte)");
  if (block_bytes < entry_bytes || block_bytes > (64u << 20))
    Bad("block_bytes = " + std::to_string(block_bytes) + " must be >= entry_bytes (" +
        std::to_string(entry_bytes) + ") and <= 64 MiB");
  if (buffer_bytes < block_bytes || buffer_bytes > (1ull << 36))
    Bad("buffer_bytes = " + std::to_string(buffer_bytes) +
        " must hold at least one block (block_bytes = " + std::to_string(block_bytes) +
        ") and be <= 64 GiB");
  if (buffer_entries() > (1ull << 31))
    Bad("buffer_bytes too large: the buffer may hold at most 2^31 entries");
  if (direct_reads && block_bytes % 4096 != 0)
    Bad("direct_reads needs block_bytes a multiple of 4096 (O_DIRECT's alignment); got " +
        std::to_string(block_bytes));
  if (use_sum_fpr) {
    if (!std::isfinite(sum_fpr) || !(sum_fpr > 0.0))
      Bad("sum_fpr = " + std::to_string(sum_fpr) + " must be a finite number > 0");
  } else {
    if (!std::isfinite(bits_per_entry) || bits_per_entry < 0.0 || bits_per_entry > 64.0)
      Bad("bits_per_entry = " + std::to_string(bits_per_entry) + " must be in [0, 64]");
  }
  if (hash_levels < 0 || hash_levels > 64)
    Bad("hash_levels = " + std::to_string(hash_levels) + " must be in [0, 64]");
  if (granularity != kLevelGranularity && granularity != kFileGranularity)
    Bad("granularity must be 'level' or 'file'; got " + std::to_string(granularity));
  if (file_pick != kLeastOverlap && file_pick != kRoundRobin)
    Bad("file_pick must be 'least_overlap' or 'round_robin'; got " + std::to_string(file_pick));
  if (level1_runs < 1 || level1_runs > kMaxLevel1Runs)
    Bad("level1_runs = " + std::to_string(level1_runs) + " must be in [1, " +
        std::to_string(kMaxLevel1Runs) + "]");
  const double most = T * static_cast<double>(buffer_bytes);
  if (file_bytes != 0 &&
      (file_bytes < block_bytes || static_cast<double>(file_bytes) > most))
    Bad("file_bytes must be in [block_bytes, T x buffer_bytes] = [" +
        std::to_string(block_bytes) + ", " + std::to_string(static_cast<uint64_t>(most)) +
        "] (one block to Level 1's capacity); got " + std::to_string(file_bytes));
  // Options that would do nothing under whole-level merges are refused, not ignored.
  if (granularity == kLevelGranularity && file_bytes != 0)
    Bad("file_bytes applies only to granularity='file'; got file_bytes = " +
        std::to_string(file_bytes) + " with granularity='level'");
  if (granularity == kLevelGranularity && file_pick != kLeastOverlap)
    Bad("file_pick applies only to granularity='file'; got 'round_robin' with "
        "granularity='level'");
  if (wal_recovery < 0 || wal_recovery > 2)
    Bad("wal_recovery must be 'tolerate_corrupted_tail_records', 'absolute_consistency' or "
        "'point_in_time'; got " + std::to_string(wal_recovery));
  if (granularity == kFileGranularity && (K != 0.0 || Z != 0.0))
    Bad("granularity='file' needs one run per level (K = 0 and Z = 0); got K=" +
        std::to_string(K) + ", Z=" + std::to_string(Z));
  ValidateTable(*this);
  if (log_ratio > 0.0 && compaction_buffer)
    Bad("log_ratio > 0 cannot be combined with compaction_buffer: L2SM moves files through "
        "its per-level log and merges them in batches; LSbM buffers the single file each "
        "drain merges out: the buffer has no rule for a batch of log files yet; got "
        "log_ratio = " + Num(log_ratio) + " with compaction_buffer");
  if (compaction_buffer && granularity != kFileGranularity)
    Bad("compaction_buffer applies only to granularity='file' (it buffers the files merged "
        "one at a time); got compaction_buffer with granularity='level'");
  if (log_ratio > 0.0) {
    if (granularity != kFileGranularity)
      Bad("log_ratio > 0 needs granularity='file': L2SM's per-level log holds files moved out "
          "of a level of files; got log_ratio = " + Num(log_ratio) + " with granularity='level'");
    if (hash_levels != 0)
      Bad("log_ratio > 0 cannot be combined with hash_levels > 0: a level's hash table indexes "
          "its tree files only, and a read would have to probe the overlapping log files "
          "without one; got hash_levels = " + std::to_string(hash_levels));
  }
  if (l0_partitions > 1 && granularity != kFileGranularity)
    Bad("l0_partitions > 1 needs granularity='file': a partition merges into the Level 1 "
        "files of its key range, and a whole-level Level 1 is one run that every partition's "
        "merge would rewrite; got l0_partitions = " + std::to_string(l0_partitions) +
        " with granularity='level'");
  // Tidal-tree's floating (floating.h) moves one file of a level of files up, and its proof
  // of correctness (the newest version of a key stays the first a lookup meets) knows only
  // the tree's levels of files: every design that adds another place for data is refused.
  if (float_gamma > 0.0) {
    const std::string got = "; got float_gamma = " + Num(float_gamma) + " with ";
    if (granularity != kFileGranularity)
      Bad("float_gamma > 0 needs granularity='file': a float moves one file of a level up into "
          "the files of a level above that overlap it, and a whole-level run has no file to "
          "move without rewriting the level" + got + "granularity='level'");
    if (log_ratio > 0.0)
      Bad("float_gamma > 0 cannot be combined with log_ratio > 0: a level's L2SM log holds "
          "overlapping files between its tree and the next level, which the float's removal "
          "of shadowed keys (Algorithm III.1) and its cost (Eq 4) do not count" + got +
          "log_ratio = " + Num(log_ratio));
    if (compaction_buffer)
      Bad("float_gamma > 0 cannot be combined with compaction_buffer: a buffered copy answers "
          "reads because data only moves down one level at a time (compaction_buffer.h), "
          "which a float breaks by moving a file up past the levels above it" + got +
          "compaction_buffer");
    if (l0_partitions > 1)
      Bad("float_gamma > 0 cannot be combined with l0_partitions > 1: Level 1's files must end "
          "at the partitions' cuts so that each partition's merge rewrites only its own files, "
          "and a float into Level 1 would write files across them" + got + "l0_partitions = " +
          std::to_string(l0_partitions));
  }
  if (paged_metadata) {
    if (hash_levels != 0)
      Bad("paged_metadata cannot be combined with hash_levels > 0: a hash-table level's "
          "index is in memory by design (App. F) and its runs have no filter block to page; "
          "got hash_levels = " + std::to_string(hash_levels));
    if (compaction_buffer)
      Bad("paged_metadata cannot be combined with compaction_buffer: LSbM's Algorithm 3 "
          "probes the buffered files' filters in memory, which paging has not been built "
          "for; got compaction_buffer with paged_metadata");
    if (salvage)
      Bad("paged_metadata cannot be combined with salvage: paging writes each run's "
          "metadata tail, and a salvage open writes nothing; salvage with paged_metadata = "
          "false (the mode is not part of the design)");
  }
  if (hotness_audit && hotness != kHotMap)
    Bad("hotness_audit applies only with hotness='hotmap' (it checks the HotMap's picks "
        "against exact counts); got hotness='exact'");
}

}  // namespace wacky
