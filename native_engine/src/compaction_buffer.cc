// compaction_buffer.cc — see compaction_buffer.h.
#include "compaction_buffer.h"

#include <algorithm>
#include <istream>
#include <ostream>

#include "block_cache.h"
#include "env.h"
#include "level.h"
#include "structure.h"

namespace wacky {

namespace {

bool Overlaps(const BufferedFile& f, uint64_t lo, uint64_t hi) {
  return f.min_key <= hi && f.max_key >= lo;
}

// True if a live entry of `table` overlaps [lo, hi] (the table is disjoint and in key order).
bool LiveOverlap(const BufferTable& table, uint64_t lo, uint64_t hi) {
  auto it = std::partition_point(table.begin(), table.end(),
                                 [lo](const BufferedFile& f) { return f.max_key < lo; });
  for (; it != table.end() && it->min_key <= hi; ++it)
    if (!it->removed()) return true;
  return false;
}

BufferedFile Marker(uint64_t min_key, uint64_t max_key) {
  BufferedFile m;
  m.min_key = min_key;
  m.max_key = max_key;
  return m;
}

// The marker of live file f: its range, and its filter when it has one (compaction_buffer.h).
BufferedFile MarkerOf(const BufferedFile& f) {
  BufferedFile m = Marker(f.min_key, f.max_key);
  if (!f.run->hash_indexed() && !f.run->filter().empty())
    m.fence = std::make_shared<const BloomFilter>(f.run->filter());
  return m;
}

}  // namespace

const BufferedFile* CompactionBuffer::Covering(const BufferTable& table, uint64_t key) {
  auto it = std::partition_point(table.begin(), table.end(),
                                 [key](const BufferedFile& f) { return f.max_key < key; });
  if (it == table.end() || it->min_key > key) return nullptr;
  return &*it;
}

void CompactionBuffer::Append(const RunPtr& file) {
  BufferedFile f;
  f.run = file;
  f.min_key = file->min_key();
  f.max_key = file->max_key();
  bool fresh = tables_.empty();
  if (!fresh)
    for (const BufferedFile& e : tables_.front())
      if (Overlaps(e, f.min_key, f.max_key)) {
        fresh = true;
        break;
      }
  if (fresh) tables_.insert(tables_.begin(), BufferTable());
  BufferTable& b0 = tables_.front();
  auto at = std::partition_point(b0.begin(), b0.end(),
                                 [&f](const BufferedFile& e) { return e.max_key < f.min_key; });
  b0.insert(at, std::move(f));
}

uint64_t CompactionBuffer::DropInside(uint64_t lo, uint64_t hi) {
  uint64_t dropped = 0;
  for (BufferTable& table : tables_)
    for (BufferedFile& f : table)
      if (!f.removed() && f.min_key >= lo && f.max_key <= hi) {
        f = MarkerOf(f);
        ++dropped;
      }
  if (dropped > 0) Collect();
  return dropped;
}

uint64_t CompactionBuffer::Trim(double threshold, const BlockCache& cache) {
  uint64_t dropped = 0;
  for (size_t t = 1; t < tables_.size(); ++t)  // B^0 is still being read into the cache
    for (BufferedFile& f : tables_[t]) {
      if (f.removed()) continue;
      const uint64_t blocks = std::max<uint64_t>(1, f.run->data_blocks());
      const double share = static_cast<double>(cache.CachedBlocks(f.run->id())) /
                           static_cast<double>(blocks);
      if (share < threshold) {
        f = MarkerOf(f);
        ++dropped;
      }
    }
  if (dropped > 0) Collect();
  return dropped;
}

uint64_t CompactionBuffer::Clear() {
  const uint64_t live = live_files();
  tables_.clear();
  return live;
}

void CompactionBuffer::Collect() {
  // Oldest table first: a marker matters only while an older live file overlaps it.
  for (size_t t = tables_.size(); t-- > 0;) {
    BufferTable& table = tables_[t];
    table.erase(std::remove_if(table.begin(), table.end(),
                               [&](const BufferedFile& f) {
                                 if (!f.removed()) return false;
                                 for (size_t o = t + 1; o < tables_.size(); ++o)
                                   if (LiveOverlap(tables_[o], f.min_key, f.max_key))
                                     return false;
                                 return true;
                               }),
                table.end());
  }
  tables_.erase(std::remove_if(tables_.begin(), tables_.end(),
                               [](const BufferTable& t) { return t.empty(); }),
                tables_.end());
}

std::vector<RunPtr> CompactionBuffer::Files() const {
  std::vector<RunPtr> out;
  for (const BufferTable& table : tables_)
    for (const BufferedFile& f : table)
      if (!f.removed()) out.push_back(f.run);
  return out;
}

uint64_t CompactionBuffer::live_files() const {
  uint64_t n = 0;
  for (const BufferTable& table : tables_)
    for (const BufferedFile& f : table) n += f.removed() ? 0 : 1;
  return n;
}

uint64_t CompactionBuffer::markers() const {
  uint64_t n = 0;
  for (const BufferTable& table : tables_)
    for (const BufferedFile& f : table) n += f.removed() ? 1 : 0;
  return n;
}

uint64_t CompactionBuffer::entries() const {
  uint64_t n = 0;
  for (const BufferTable& table : tables_)
    for (const BufferedFile& f : table) n += f.removed() ? 0 : f.run->entries();
  return n;
}

uint64_t CompactionBuffer::file_bytes() const {
  uint64_t n = 0;
  for (const BufferTable& table : tables_)
    for (const BufferedFile& f : table) n += f.removed() ? 0 : f.run->file_bytes();
  return n;
}

std::vector<std::vector<BufferedRecord>> CompactionBuffer::Records() const {
  std::vector<std::vector<BufferedRecord>> out;
  for (const BufferTable& table : tables_) {
    std::vector<BufferedRecord> recs;
    for (const BufferedFile& f : table) {
      BufferedRecord rec;
      rec.removed = f.removed();
      rec.run.min_key = f.min_key;
      rec.run.max_key = f.max_key;
      if (!f.removed()) {
        const Run& r = *f.run;
        rec.run = RunRecord{r.id(), r.entries(), r.tombstone_count(),
                            r.filter_bits_per_key_target(), r.hash_indexed(), r.min_key(),
                            r.max_key()};
      }
      recs.push_back(rec);
    }
    out.push_back(std::move(recs));
  }
  return out;
}

CompactionBuffer CompactionBuffer::FromRecords(
    const std::vector<std::vector<BufferedRecord>>& tables,
    const std::function<RunPtr(const RunRecord&)>& open, const std::string& path) {
  CompactionBuffer b;
  for (const auto& recs : tables) {
    BufferTable table;
    for (const BufferedRecord& rec : recs) {
      if (rec.run.min_key > rec.run.max_key ||
          (!table.empty() && table.back().max_key >= rec.run.min_key))
        throw Corruption("corrupt manifest '" + path + "': a compaction-buffer table whose "
                         "entries are not disjoint and in key order");
      RunPtr run = rec.removed ? nullptr : open(rec.run);
      if (run) {
        BufferedFile f;
        f.run = std::move(run);
        f.min_key = rec.run.min_key;
        f.max_key = rec.run.max_key;
        table.push_back(std::move(f));
      } else {
        table.push_back(Marker(rec.run.min_key, rec.run.max_key));
      }
    }
    b.tables_.push_back(std::move(table));
  }
  b.Collect();  // an unreadable file may have become a marker nothing older needs
  return b;
}

// ---- hooks ---------------------------------------------------------------------------------

uint64_t BufferMovedFile(std::vector<Level>* levels, size_t i, const RunPtr& file) {
  Level& from = (*levels)[i];
  const uint64_t drained = from.buffer.DropInside(file->min_key(), file->max_key());
  // A buffered file is probed by its own filter: one from a hash-table level gets one.
  if (file->hash_indexed()) file->ConvertHashesToFilter(structure::BloomBitsPerKey(from.fpr));
  (*levels)[i + 1].buffer.Append(file);
  return drained;
}

uint64_t TrimBuffers(double threshold, const BlockCache& cache, std::vector<Level>* levels) {
  uint64_t dropped = 0;
  for (Level& l : *levels) dropped += l.buffer.Trim(threshold, cache);
  return dropped;
}

uint64_t ClearLevel1Buffer(std::vector<Level>* levels) {
  return levels->empty() ? 0 : (*levels)[0].buffer.Clear();
}

std::vector<RunPtr> BufferedFiles(const std::vector<Level>& levels) {
  std::vector<RunPtr> out;
  for (const Level& l : levels) {
    if (l.buffer.empty()) continue;
    const auto files = l.buffer.Files();
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

// ---- MANIFEST ------------------------------------------------------------------------------
//
// compaction_buffer <levels>          (as many as the MANIFEST's levels, Level 1 first)
// buffer <tables>                     (per level; tables newest first)
// table <entries>                     (per table; entries in key order)
// file <id> <entries> <tombstones> <bits_per_key> <hash_indexed> <min_key> <max_key>
// removed <min_key> <max_key>

void EncodeBufferSection(const Manifest& m, std::ostream* os) {
  *os << kBufferSectionTag << " " << m.levels.size() << "\n";
  for (size_t i = 0; i < m.levels.size(); ++i) {
    const size_t n = i < m.buffers.size() ? m.buffers[i].size() : 0;
    *os << "buffer " << n << "\n";
    for (size_t t = 0; t < n; ++t) {
      const auto& table = m.buffers[i][t];
      *os << "table " << table.size() << "\n";
      for (const BufferedRecord& e : table) {
        const RunRecord& r = e.run;
        if (e.removed)
          *os << "removed " << r.min_key << " " << r.max_key << "\n";
        else
          *os << "file " << r.id << " " << r.entries << " " << r.tombstones << " "
              << r.bits_per_key << " " << (r.hash_indexed ? 1 : 0) << " " << r.min_key << " "
              << r.max_key << "\n";
      }
    }
  }
}

void DecodeBufferSection(std::istream* is, const std::string& path, Manifest* m) {
  auto bad = [&](const std::string& what) {
    return Corruption("corrupt manifest '" + path + "': " + what);
  };
  auto expect = [&](const char* name) {
    std::string tok;
    if (!(*is >> tok) || tok != name) throw bad(std::string("expected '") + name + "'");
  };
  size_t levels = 0;
  if (!(*is >> levels) || levels != m->levels.size())
    throw bad("the compaction buffer lists another number of levels than the tree");
  m->options.compaction_buffer = true;
  m->buffers.assign(levels, {});
  for (size_t i = 0; i < levels; ++i) {
    expect("buffer");
    size_t tables = 0;
    if (!(*is >> tables) || tables > (1u << 20)) throw bad("bad compaction-buffer table count");
    m->buffers[i].resize(tables);
    for (auto& table : m->buffers[i]) {
      expect("table");
      size_t n = 0;
      if (!(*is >> n) || n > (1u << 30)) throw bad("bad compaction-buffer entry count");
      for (size_t j = 0; j < n; ++j) {
        std::string kind;
        BufferedRecord e;
        RunRecord& r = e.run;
        int hi = 0;
        if (!(*is >> kind)) throw bad("bad compaction-buffer entry");
        if (kind == "removed") {
          e.removed = true;
          if (!(*is >> r.min_key >> r.max_key)) throw bad("bad compaction-buffer marker");
        } else if (kind == "file") {
          if (!(*is >> r.id >> r.entries >> r.tombstones >> r.bits_per_key >> hi >> r.min_key >>
                r.max_key))
            throw bad("bad compaction-buffer file record");
          r.hash_indexed = hi != 0;
        } else {
          throw bad("expected 'file' or 'removed' in the compaction buffer");
        }
        table.push_back(e);
      }
    }
  }
}

std::vector<std::pair<int, RunRecord>> BufferedRecords(const Manifest& m) {
  std::vector<std::pair<int, RunRecord>> out;
  for (size_t i = 0; i < m.buffers.size(); ++i)
    for (const auto& table : m.buffers[i])
      for (const BufferedRecord& e : table)
        if (!e.removed) out.emplace_back(static_cast<int>(i + 1), e.run);
  return out;
}

void RecoverBuffers(const Manifest& m, const std::function<RunPtr(const RunRecord&)>& open,
                    const std::string& path, std::vector<Level>* levels, uint64_t* unreadable) {
  auto counted = [&](const RunRecord& rec) {
    RunPtr run = open(rec);
    if (!run) ++*unreadable;
    return run;
  };
  for (size_t i = 0; i < m.buffers.size() && i < levels->size(); ++i)
    (*levels)[i].buffer = CompactionBuffer::FromRecords(m.buffers[i], counted, path);
}

}  // namespace wacky
