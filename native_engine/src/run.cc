// run.cc — see run.h.
#include "run.h"

#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "block.h"
#include "crc32c.h"
#include "hash.h"

namespace wacky {

std::string RunFileName(const std::string& dir, uint64_t id) {
  char name[64];
  snprintf(name, sizeof(name), "/run-%08llu.sst", static_cast<unsigned long long>(id));
  return dir + name;
}

uint64_t ChecksumBlocks(uint64_t blocks, uint64_t block_bytes) {
  return (kRunFooterBytes + blocks * 4 + block_bytes - 1) / block_bytes;
}

namespace {
constexpr char kRunMagic[8] = {'w', 'a', 'c', 'k', 'y', 'r', 'u', 'n'};
constexpr uint32_t kRunFooterVersion = 1;

void PutU64(uint8_t* p, uint64_t v) {
  for (int k = 0; k < 8; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = v << 8 | p[k];
  return v;
}
uint32_t GetU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
void PutU32(uint8_t* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}

// The footer's first field after the magic, and the CRC, sit at fixed offsets.
constexpr size_t kFooterCrcAt = 64;

// Checks a footer and the identity it holds against what is expected of the file.
void CheckIdentity(const RunIdentity& got, const RunIdentity& want, const std::string& path) {
  auto bad = [&](const std::string& what) {
    throw Corruption("run file '" + path + "': " + what +
                     " (a file swapped, renamed or copied in; it is not read)");
  };
  if (got.id != want.id)
    bad("its footer says it is run " + std::to_string(got.id) + ", not run " +
        std::to_string(want.id));
  if (got.entries != want.entries || got.tombstones != want.tombstones)
    bad("its footer says " + std::to_string(got.entries) + " entries and " +
        std::to_string(got.tombstones) + " tombstones, the MANIFEST " +
        std::to_string(want.entries) + " and " + std::to_string(want.tombstones));
  if (got.min_key != want.min_key || got.max_key != want.max_key)
    bad("its footer gives the key range [" + std::to_string(got.min_key) + ", " +
        std::to_string(got.max_key) + "], the MANIFEST [" + std::to_string(want.min_key) +
        ", " + std::to_string(want.max_key) + "]");
}

// ---- [paged metadata] the tail's header (run.h) ----
constexpr char kTailMagic[8] = {'w', 'a', 'c', 'k', 'y', 'm', 'e', 't'};
constexpr uint32_t kTailVersion = 1;
constexpr size_t kTailHeaderBytes = 64;
constexpr size_t kTailCrcAt = 56;

uint64_t Blocks(uint64_t bytes, uint64_t block_bytes) {
  return (bytes + block_bytes - 1) / block_bytes;
}

// True if the bytes right after the checksum section (block `at`) begin with the tail's
// magic: anything else beyond the run's size is a file that does not match the MANIFEST.
bool StartsWithTailMagic(const BlockFile& file, uint64_t at, uint64_t block_bytes,
                         IOCounter* c) {
  if (file.size_bytes() < (at + 1) * block_bytes) return false;
  std::vector<uint8_t> first(block_bytes);
  file.Read(at, 1, first.data(), c);
  return block_bytes >= 8 && std::memcmp(first.data(), kTailMagic, 8) == 0;
}
}  // namespace

void EncodeRunFooter(uint64_t db_id, const RunIdentity& who, uint8_t* out) {
  std::memset(out, 0, kRunFooterBytes);
  std::memcpy(out, kRunMagic, 8);
  PutU64(out + 8, db_id);
  PutU64(out + 16, who.id);
  PutU64(out + 24, who.entries);
  PutU64(out + 32, who.tombstones);
  PutU64(out + 40, who.min_key);
  PutU64(out + 48, who.max_key);
  PutU32(out + 56, kRunFooterVersion);
  PutU32(out + kFooterCrcAt, crc32c::Mask(crc32c::Value(out, kFooterCrcAt)));
}

RunIdentity DecodeRunFooter(const uint8_t* f, uint64_t db_id, const std::string& path) {
  if (std::memcmp(f, kRunMagic, 8) != 0 ||
      GetU32(f + kFooterCrcAt) != crc32c::Mask(crc32c::Value(f, kFooterCrcAt)))
    throw Corruption("run file '" + path + "': its footer fails its checksum (corrupt)");
  if (GetU32(f + 56) != kRunFooterVersion)
    throw Corruption("run file '" + path + "': unknown footer version " +
                     std::to_string(GetU32(f + 56)));
  if (GetU64(f + 8) != db_id)
    throw Corruption("run file '" + path + "' belongs to another directory (its footer's db "
                     "id differs from this directory's); it is not read");
  return RunIdentity{GetU64(f + 16), GetU64(f + 24), GetU64(f + 32), GetU64(f + 40),
                     GetU64(f + 48)};
}

Run::Run(uint64_t id, RunLayout layout, std::unique_ptr<BlockFile> file, uint64_t entries,
         std::vector<uint64_t> fences, uint64_t max_key, std::vector<uint64_t> tombstones,
         std::vector<uint32_t> block_crcs)
    : id_(id),
      layout_(layout),
      file_(std::move(file)),
      entries_(entries),
      fences_(std::move(fences)),
      max_key_(max_key),
      tombstones_(std::move(tombstones)),
      crcs_(std::move(block_crcs)) {}

void Run::ReadBlocks(uint64_t first, size_t n, uint8_t* out, IOCounter* c) const {
  file_->Read(first, n, out, c);
  const uint64_t bb = layout_.block_bytes;
  for (size_t j = 0; j < n; ++j) {
    const uint64_t b = first + j;
    if (b >= crcs_.size() || crc32c::Mask(crc32c::Value(out + j * bb, bb)) != crcs_[b])
      throw Corruption("run file '" + file_->path() + "': block " + std::to_string(b) +
                       " fails its checksum (corrupt)");
  }
}

namespace {
uint32_t HashesChecksum(const std::vector<uint64_t>& hashes) {
  return crc32c::Value(reinterpret_cast<const uint8_t*>(hashes.data()), hashes.size() * 8);
}
}  // namespace

uint64_t Run::Verify(IOCounter* c) const {
  const std::string where = "run file '" + file_->path() + "': ";
  if (filter_crc_ != (hash_mode_ ? HashesChecksum(key_hashes_) : filter_.Checksum()))
    throw Corruption(where + (hash_mode_ ? "the key hashes" : "the filter") +
                     " fail their checksum (damaged in memory)");
  const uint64_t bb = layout_.block_bytes;
  // [paged metadata] Lookups use the tail's blocks: those are what is checked (their CRCs as
  // read, the index against the fences, the filter against every key).
  std::vector<uint8_t> filter_block, index_block;
  if (paged_) {
    ReadFilterBlock(&filter_block, c);
    ReadIndexBlock(&index_block, c);
    for (size_t b = 0; b < fences_.size(); ++b)
      if (GetU64(index_block.data() + 8 * b) != fences_[b])
        throw Corruption(where + "its index block disagrees with its fences at block " +
                         std::to_string(b));
  }
  auto admits = [&](uint64_t h) {
    return paged_ ? FilterBlockMayContain(filter_block.data(), h) : filter_.MayContainHash(h);
  };
  const size_t chunk = std::min<uint64_t>(ChunkBlocks(bb), std::max<uint64_t>(crcs_.size(), 1));
  std::vector<uint8_t> buf(chunk * bb);
  uint64_t index = 0, prev = 0;
  for (uint64_t b = 0; b < crcs_.size(); b += chunk) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, crcs_.size() - b));
    ReadBlocks(b, n, buf.data(), c);
    for (size_t j = 0; j < n && b + j < fences_.size(); ++j) {
      const uint64_t block = b + j;
      const uint8_t* blk = buf.data() + j * bb;
      const size_t cnt = EntriesInBlock(block);
      for (size_t e = 0; e < cnt; ++e, ++index) {
        const uint64_t k = DecodeKey(blk + e * layout_.entry_bytes);
        const std::string at = "block " + std::to_string(block) + " entry " + std::to_string(e);
        if ((index > 0 && k <= prev) || (e == 0 && k != fences_[block]))
          throw Corruption(where + at + " is out of order or disagrees with the fences");
        if (hash_mode_ ? key_hashes_[index] != Hash64(k) : !admits(Hash64(k)))
          throw Corruption(where + at + ": the " + (hash_mode_ ? "key hash" : "filter") +
                           " does not admit its key (damaged in memory)");
        prev = k;
      }
    }
  }
  // The footer: the file must still say it is this run.
  std::vector<uint8_t> section(ChecksumBlocks(crcs_.size(), bb) * bb);
  file_->Read(crcs_.size(), section.size() / bb, section.data(), c);
  const RunIdentity me{id_, entries_, tombstones_.size(), min_key(), max_key_};
  CheckIdentity(DecodeRunFooter(section.data(), layout_.db_id, file_->path()), me,
                file_->path());
  return crcs_.size();
}

bool Run::TEST_DamageFilter() {
  if (hash_mode_) {
    if (key_hashes_.empty()) return false;
    key_hashes_[0] ^= 1;
    return true;
  }
  return filter_.TEST_ClearASetBit();  // some key of the run now misses the filter
}

Run::~Run() {
  if (!obsolete_) return;
  const std::string path = file_->path();
  const uint64_t bytes = file_->size_bytes();
  file_.reset();
  if (layout_.space) layout_.space->Sub(bytes);
  if (retain_)
    ::rename(path.c_str(), (path + ".obsolete").c_str());
  else
    ::unlink(path.c_str());
}

std::string RunLayout::NewRunFile(const std::string& home, int level, uint64_t id) const {
  return RunFileName(devices ? devices->dir(devices->ForLevel(level)) : home, id);
}

void RunLayout::CountOnDevice(BlockFile* file) const {
  if (devices) file->CountOn(devices->io(devices->Of(file->path())));
}

std::shared_ptr<Run> Run::Recover(const std::string& path, RunLayout layout,
                                  const RunIdentity& expect, IOCounter* c,
                                  std::vector<uint64_t>* key_hashes) {
  const uint64_t entries = expect.entries, tombstones = expect.tombstones;
  auto file = BlockFile::Open(path, layout.block_bytes, layout.direct_reads);
  layout.CountOnDevice(file.get());
  const uint64_t B = layout.entries_per_block();
  const uint64_t data_blocks = (entries + B - 1) / B;
  const uint64_t tomb_per_block = layout.block_bytes / 8;
  const uint64_t tomb_blocks = (tombstones + tomb_per_block - 1) / tomb_per_block;
  const uint64_t blocks = data_blocks + tomb_blocks;
  const uint64_t crc_blocks = ChecksumBlocks(blocks, layout.block_bytes);
  const uint64_t base_bytes = (blocks + crc_blocks) * layout.block_bytes;
  if (file->size_bytes() < base_bytes || entries == 0 || tombstones > entries ||
      (file->size_bytes() > base_bytes &&
       !StartsWithTailMagic(*file, blocks + crc_blocks, layout.block_bytes, c)))
    throw Corruption("run file '" + path + "' does not match the manifest (size " +
                     std::to_string(file->size_bytes()) + " bytes, expected " +
                     std::to_string((blocks + crc_blocks) * layout.block_bytes) + ")");
  std::vector<uint32_t> crcs(blocks);
  {
    std::vector<uint8_t> cb(crc_blocks * layout.block_bytes);
    file->Read(blocks, crc_blocks, cb.data(), c);
    // The footer first: a file that is not this run is refused before its data is read.
    CheckIdentity(DecodeRunFooter(cb.data(), layout.db_id, path), expect, path);
    for (uint64_t b = 0; b < blocks; ++b)
      crcs[b] = GetU32(cb.data() + kRunFooterBytes + 4 * b);
  }
  auto check = [&](uint64_t b, const uint8_t* blk) {
    if (crc32c::Mask(crc32c::Value(blk, layout.block_bytes)) != crcs[b])
      throw Corruption("run file '" + path + "': block " + std::to_string(b) +
                       " fails its checksum (corrupt)");
  };
  std::vector<uint64_t> fences;
  fences.reserve(data_blocks);
  key_hashes->clear();
  key_hashes->reserve(entries);
  uint64_t max_key = 0;
  const size_t chunk_blocks =
      std::min<uint64_t>(ChunkBlocks(layout.block_bytes), std::max<uint64_t>(data_blocks, 1));
  std::vector<uint8_t> buf(chunk_blocks * layout.block_bytes);
  uint64_t prev = 0;
  uint64_t seen = 0;
  for (uint64_t b = 0; b < data_blocks; b += chunk_blocks) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk_blocks, data_blocks - b));
    file->Read(b, n, buf.data(), c);
    for (size_t j = 0; j < n; ++j) {
      const uint8_t* blk = buf.data() + j * layout.block_bytes;
      check(b + j, blk);
      const size_t cnt = static_cast<size_t>(std::min<uint64_t>(B, entries - (b + j) * B));
      for (size_t e = 0; e < cnt; ++e) {
        const uint64_t k = DecodeKey(blk + e * layout.entry_bytes);
        if (seen > 0 && k <= prev)
          throw Corruption("run file '" + path + "' is not sorted (corrupt)");
        if (e == 0) fences.push_back(k);
        key_hashes->push_back(Hash64(k));
        prev = k;
        max_key = k;
        ++seen;
      }
    }
  }
  if (fences.front() != expect.min_key || max_key != expect.max_key)
    throw Corruption("run file '" + path + "' holds keys [" + std::to_string(fences.front()) +
                     ", " + std::to_string(max_key) + "], not the range its footer and the "
                     "MANIFEST give (corrupt)");
  std::vector<uint64_t> tombs(tombstones);
  if (tomb_blocks > 0) {
    std::vector<uint8_t> tb(tomb_blocks * layout.block_bytes);
    file->Read(data_blocks, tomb_blocks, tb.data(), c);
    for (uint64_t j = 0; j < tomb_blocks; ++j) check(data_blocks + j, tb.data() + j * layout.block_bytes);
    std::memcpy(tombs.data(), tb.data(), tombstones * 8);
  }
  // [paged metadata] A tail: read whole and kept if sound (else ignored, and rewritten by
  // PageMetadata when the engine pages; pinned mode never reads it again).
  Tail tail;
  if (file->size_bytes() > base_bytes)
    tail = ReadTail(*file, blocks + crc_blocks, layout.block_bytes, expect.id, data_blocks, c);
  if (layout.space) layout.space->Add(file->size_bytes());  // on disk again, as a run
  auto run = std::make_shared<Run>(expect.id, layout, std::move(file), entries,
                                   std::move(fences), max_key, std::move(tombs), std::move(crcs));
  run->tail_ = tail;
  return run;
}

// ---- [paged metadata] the metadata tail (run.h) ------------------------------------------

void Run::EncodeTailHeader(uint64_t id, const Tail& t, uint8_t* out) {
  std::memset(out, 0, kTailHeaderBytes);
  std::memcpy(out, kTailMagic, 8);
  PutU64(out + 8, id);
  PutU64(out + 16, t.num_bits);
  PutU64(out + 24, t.filter_bytes);
  PutU64(out + 32, t.index_bytes);
  PutU32(out + 40, static_cast<uint32_t>(t.probes));
  PutU32(out + 44, t.filter_crc);
  PutU32(out + 48, t.index_crc);
  PutU32(out + 52, kTailVersion);
  PutU32(out + kTailCrcAt, crc32c::Mask(crc32c::Value(out, kTailCrcAt)));
}

Run::Tail Run::ReadTail(const BlockFile& file, uint64_t at, uint64_t block_bytes, uint64_t id,
                        uint64_t data_blocks, IOCounter* c) {
  const uint64_t bytes = file.size_bytes() - at * block_bytes;
  Tail t;  // not valid
  if (bytes % block_bytes != 0) return t;  // torn
  std::vector<uint8_t> buf(bytes);
  file.Read(at, bytes / block_bytes, buf.data(), c);
  const uint8_t* h = buf.data();
  if (bytes < kTailHeaderBytes || std::memcmp(h, kTailMagic, 8) != 0 ||
      GetU32(h + kTailCrcAt) != crc32c::Mask(crc32c::Value(h, kTailCrcAt)) ||
      GetU32(h + 52) != kTailVersion || GetU64(h + 8) != id)
    return t;
  t.num_bits = GetU64(h + 16);
  t.filter_bytes = GetU64(h + 24);
  t.index_bytes = GetU64(h + 32);
  t.probes = static_cast<int>(GetU32(h + 40));
  t.filter_crc = GetU32(h + 44);
  t.index_crc = GetU32(h + 48);
  const uint64_t hb = Blocks(kTailHeaderBytes, block_bytes);
  if (t.index_bytes != 8 * data_blocks || t.filter_bytes != (t.num_bits + 63) / 64 * 8 ||
      t.filter_bytes > bytes || t.index_bytes > bytes ||
      (hb + Blocks(t.filter_bytes, block_bytes) + Blocks(t.index_bytes, block_bytes)) *
              block_bytes != bytes)
    return t;
  const uint8_t* filter = h + hb * block_bytes;
  const uint8_t* index = filter + Blocks(t.filter_bytes, block_bytes) * block_bytes;
  if (crc32c::Mask(crc32c::Value(filter, t.filter_bytes)) != t.filter_crc ||
      crc32c::Mask(crc32c::Value(index, t.index_bytes)) != t.index_crc)
    return t;
  t.valid = true;
  return t;
}

uint64_t Run::TailStart() const {
  return crcs_.size() + ChecksumBlocks(crcs_.size(), layout_.block_bytes);
}

void Run::PageMetadata(FaultInjector* faults, bool sync, IOCounter* c) {
  if (paged_) return;
  if (hash_mode_)
    throw std::logic_error("Run::PageMetadata: run " + std::to_string(id_) +
                           " has key hashes (a hash-table level), not a filter");
  const uint64_t bb = layout_.block_bytes;
  Tail want;
  want.valid = true;
  want.num_bits = filter_.num_bits();
  want.probes = filter_.num_probes();
  want.filter_bytes = filter_.byte_size();
  want.index_bytes = 8 * fences_.size();
  const uint64_t hb = Blocks(kTailHeaderBytes, bb), fb = Blocks(want.filter_bytes, bb),
                 ib = Blocks(want.index_bytes, bb);
  std::vector<uint8_t> tail((hb + fb + ib) * bb, 0);
  uint8_t* filter = tail.data() + hb * bb;
  uint8_t* index = filter + fb * bb;
  filter_.EncodeTo(filter);
  for (size_t b = 0; b < fences_.size(); ++b) PutU64(index + 8 * b, fences_[b]);
  want.filter_crc = crc32c::Mask(crc32c::Value(filter, want.filter_bytes));
  want.index_crc = crc32c::Mask(crc32c::Value(index, want.index_bytes));
  const Tail& have = tail_;
  const bool same = have.valid && have.num_bits == want.num_bits &&
                    have.probes == want.probes && have.filter_bytes == want.filter_bytes &&
                    have.index_bytes == want.index_bytes && have.filter_crc == want.filter_crc &&
                    have.index_crc == want.index_crc;
  if (!same) {
    EncodeTailHeader(id_, want, tail.data());
    const uint64_t before = file_->size_bytes();
    tail_.valid = false;  // until the new one is complete
    try {
      file_->ReplaceTail(TailStart(), tail.data(), tail.size(), sync, faults, c);
    } catch (...) {
      if (layout_.space) {
        layout_.space->Sub(before);
        layout_.space->Add(file_->size_bytes());
      }
      throw;
    }
    if (layout_.space) {
      layout_.space->Sub(before);
      layout_.space->Add(file_->size_bytes());
    }
    tail_ = want;
  }
  filter_.Release();  // lookups now probe the filter block's bytes
  paged_ = true;
}

void Run::ReadTailSection(uint64_t first_block, uint64_t bytes, uint32_t crc, const char* what,
                          std::vector<uint8_t>* out, IOCounter* c) const {
  const uint64_t bb = layout_.block_bytes;
  const uint64_t n = Blocks(bytes, bb);
  out->resize(n * bb);
  if (n == 0) return;
  file_->Read(first_block, n, out->data(), c);
  if (crc32c::Mask(crc32c::Value(out->data(), bytes)) != crc)
    throw Corruption("run file '" + file_->path() + "': its " + what +
                     " block fails its checksum (corrupt)");
}

void Run::ReadFilterBlock(std::vector<uint8_t>* out, IOCounter* c) const {
  if (!tail_.valid) throw std::logic_error("Run::ReadFilterBlock: run has no metadata tail");
  const uint64_t bb = layout_.block_bytes;
  ReadTailSection(TailStart() + Blocks(kTailHeaderBytes, bb), tail_.filter_bytes,
                  tail_.filter_crc, "filter", out, c);
}

void Run::ReadIndexBlock(std::vector<uint8_t>* out, IOCounter* c) const {
  if (!tail_.valid) throw std::logic_error("Run::ReadIndexBlock: run has no metadata tail");
  const uint64_t bb = layout_.block_bytes;
  ReadTailSection(TailStart() + Blocks(kTailHeaderBytes, bb) + Blocks(tail_.filter_bytes, bb),
                  tail_.index_bytes, tail_.index_crc, "index", out, c);
}

bool Run::FilterBlockMayContain(const uint8_t* filter_block, uint64_t hash) const {
  return BloomFilter::MayContainHashIn(filter_block, tail_.num_bits, tail_.probes, hash);
}

uint64_t Run::BlockForIn(const uint8_t* index_block, uint64_t key) const {
  // upper_bound over the fences as stored, then one back (key >= the first fence).
  uint64_t lo = 0, hi = tail_.index_bytes / 8;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (GetU64(index_block + 8 * mid) <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

void Run::SetFilter(BloomFilter filter, double bits_per_key_target) {
  filter_ = std::move(filter);
  bits_target_ = bits_per_key_target;
  hash_mode_ = false;
  key_hashes_.clear();
  key_hashes_.shrink_to_fit();
  filter_crc_ = filter_.Checksum();
}

void Run::SetKeyHashes(std::vector<uint64_t> hashes) {
  key_hashes_ = std::move(hashes);
  hash_mode_ = true;
  filter_ = BloomFilter();
  bits_target_ = 0.0;
  filter_crc_ = HashesChecksum(key_hashes_);
}

void Run::ConvertHashesToFilter(double bits_per_key) {
  BloomFilter f(entries_, bits_per_key);
  if (!f.empty())
    for (uint64_t h : key_hashes_) f.AddHash(h);
  SetFilter(std::move(f), bits_per_key);
}

bool Run::MayContain(uint64_t key, uint64_t hash) const {
  if (entries_ == 0 || key < fences_[0] || key > max_key_) return false;
  return filter_.MayContainHash(hash);  // throws std::logic_error once paged (released)
}

uint64_t Run::BlockFor(uint64_t key) const {
  auto it = std::upper_bound(fences_.begin(), fences_.end(), key);
  return static_cast<uint64_t>(it - fences_.begin()) - 1;
}

size_t Run::EntriesInBlock(uint64_t b) const {
  const uint64_t B = layout_.entries_per_block();
  return static_cast<size_t>(std::min<uint64_t>(B, entries_ - b * B));
}

Run::Lookup Run::GetFromBlock(uint64_t key, uint64_t b, uint8_t* value_out,
                              IOCounter* c) const {
  thread_local std::vector<uint8_t> block;
  block.resize(layout_.block_bytes);
  ReadBlock(b, block.data(), c);
  return FindInBlock(key, b, block.data(), value_out);
}

Run::Lookup Run::FindInBlock(uint64_t key, uint64_t b, const uint8_t* block,
                             uint8_t* value_out) const {
  const int i = wacky::FindInBlock(block, EntriesInBlock(b), layout_.entry_bytes, key);
  if (i < 0) return Lookup::kAbsent;
  if (IsTombstone(key)) return Lookup::kDeleted;
  if (value_out != nullptr)
    std::memcpy(value_out, block + static_cast<size_t>(i) * layout_.entry_bytes + 8,
                layout_.entry_bytes - 8);
  return Lookup::kFound;
}

Run::Lookup Run::Get(uint64_t key, uint64_t hash, uint8_t* value_out, IOCounter* c) const {
  if (!MayContain(key, hash)) return Lookup::kAbsent;
  return GetFromBlock(key, BlockFor(key), value_out, c);
}

bool Run::IsTombstone(uint64_t key) const {
  return std::binary_search(tombstones_.begin(), tombstones_.end(), key);
}

}  // namespace wacky
