// run.h — one immutable sorted run: a file of blocks plus its in-memory metadata.
//
// Contract: a run file is `data_blocks` data blocks (block.h), then `tombstone_blocks`
// blocks holding the sorted 8-byte keys of the run's tombstones (zero padded), then
// `checksum_blocks` blocks: the footer, then the masked CRC-32C (crc32c.h) of each earlier
// block as little-endian uint32 (zero padded). Its file size is exactly the sum of the
// three times block_bytes. The footer (kRunFooterBytes) identifies the file: "wackyrun",
// the directory's db id, the run id, its entry and tombstone counts and its smallest and
// largest key, with its own CRC. Opening a run checks the footer against what the MANIFEST
// expects and the key range against the data, so a file swapped with another of equal
// size, renamed, or copied in from another directory is refused, never read. (The level
// is not in the footer: levels are renumbered without rewriting their runs when the tree
// grows or shrinks at the top, merge_policy.h ApplyShape.) Every block read is checked against its CRC, kept in memory (4
// bytes per block); a mismatch throws Corruption naming the file and block, so no value
// from a damaged block is ever returned. (LevelDB puts a 5-byte trailer after each
// block; a separate section keeps our blocks exactly block_bytes, so the entries per
// block, and with them the costs the model predicts, are unchanged.) In memory a Run keeps the fence pointers (first key of every data
// block), its largest key, its tombstone keys, and either a Bloom filter or, when
// the run lives in a hash-table level (App. F), the 64-bit hashes of its keys in
// entry order (from which the level's HashIndex, or a Bloom filter later, is built).
// A point lookup costs at most one block read; a lookup that the filter or the
// fences exclude costs none. Pinned (the default), filters are not stored in the file (RocksDB
// stores them as checksummed blocks; ours are rebuilt at open from the checked keys, so
// nothing on disk can damage them); each carries a CRC-32C taken when built, which Verify()
// checks (a lookup does not: hashing a whole filter per read would cost more than the read).
// [paged metadata] With Options::paged_metadata, PageMetadata() gives the file a metadata
// tail after its checksum section, RocksDB's filter block and index block of a table:
//   header   ceil(64 / block_bytes) blocks: "wackymet", run id, the filter's bits, its bytes,
//            the index's bytes, the probes, the masked CRC-32C of the filter and of the
//            index bytes, a version and the header's own CRC;
//   filter   ceil(filter_bytes / block_bytes) blocks: the Bloom filter's bit array as
//            ceil(m / 64) little-endian words, filter_bytes = 8 ceil(m / 64) (about bits per
//            entry x entries / 8; none without a filter);
//   index    ceil(index_bytes / block_bytes) blocks: the fences, one 8-byte key per data
//            block, index_bytes = 8 x data blocks (the block's position is its number).
// Each section is zero padded to whole blocks, so a read of one is whole blocks, as every
// read of the engine is. The tail is derived data, like the in-memory filter: the data
// blocks, tombstones, checksum section and footer stay exactly as pinned mode writes them,
// and Recover accepts a file with or without a tail (a tail that is torn or fails its
// checksums is ignored and rewritten by the next PageMetadata), so a directory may be
// reopened in either mode: pinned ignores a tail, paged writes the missing ones at open.
// Once paged, the in-memory filter's bits are released (kept: its shape and counts) and a
// lookup reads the filter and index blocks (ReadFilterBlock, ReadIndexBlock, through the
// engine's block cache) and probes their bytes (FilterBlockMayContain, BlockForIn). The
// fences stay in memory as well, for merges and scans, which read the whole run or seek once. A Run is shared (std::shared_ptr) by its level and by
// open scans; MarkObsolete() makes the last owner delete the file (or rename it to
// *.obsolete when the engine retains obsolete runs for accounting tests).
#ifndef WACKY_NATIVE_ENGINE_RUN_H_
#define WACKY_NATIVE_ENGINE_RUN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bloom_filter.h"
#include "devices.h"
#include "file_io.h"
#include "io_stats.h"
#include "space_meter.h"

namespace wacky {

struct RunLayout {
  uint64_t entry_bytes;
  uint64_t block_bytes;
  uint64_t db_id = 0;  // the directory's identity, stamped in every footer
  // The engine's disk meter (space_meter.h): the run file's bytes are added as they are
  // written or when it is reopened, and removed with the file. Null: nothing counted.
  std::shared_ptr<SpaceMeter> space = nullptr;
  // Where run files live and are counted (devices.h). Null: every run file in the engine's
  // directory, counted on no device.
  std::shared_ptr<const Devices> devices = nullptr;
  // Options::direct_reads: run files are read around the page cache (file_io.h).
  bool direct_reads = false;
  uint64_t entries_per_block() const { return block_bytes / entry_bytes; }
  // The file a new run `id` of `level` (0 = level 0) is created as: on the level's device,
  // or in `home` without devices.
  std::string NewRunFile(const std::string& home, int level, uint64_t id) const;
  // Counts `file`'s I/O on the device holding it (nothing without devices).
  void CountOnDevice(BlockFile* file) const;
};

constexpr size_t kRunFooterBytes = 72;

// What a run file must say of itself (its footer) and hold (its key range).
struct RunIdentity {
  uint64_t id = 0;
  uint64_t entries = 0;
  uint64_t tombstones = 0;
  uint64_t min_key = 0;
  uint64_t max_key = 0;
};

// The footer's bytes for `who` in a directory of id db_id, and the identity a footer
// holds (throws Corruption naming `path` if it fails its checksum or is not a footer).
void EncodeRunFooter(uint64_t db_id, const RunIdentity& who, uint8_t* out);
RunIdentity DecodeRunFooter(const uint8_t* footer, uint64_t db_id, const std::string& path);

class Run {
 public:
  enum class Lookup { kAbsent, kFound, kDeleted };

  Run(uint64_t id, RunLayout layout, std::unique_ptr<BlockFile> file, uint64_t entries,
      std::vector<uint64_t> fences, uint64_t max_key, std::vector<uint64_t> tombstones,
      std::vector<uint32_t> block_crcs);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Reopens a run file written earlier: reads it fully (counted in *c) to rebuild fences,
  // tombstones and key hashes, checking every block. Throws Corruption if the file's size,
  // footer or key range does not match `expect` (or its footer names another directory
  // than layout.db_id), or if a block fails its checksum. [paged metadata] A file longer
  // than that holds a metadata tail: read too (counted in *c) and kept if sound; a tail
  // whose first bytes are not the tail's magic is refused like any other size mismatch.
  static std::shared_ptr<Run> Recover(const std::string& path, RunLayout layout,
                                      const RunIdentity& expect, IOCounter* c,
                                      std::vector<uint64_t>* key_hashes);

  uint64_t id() const { return id_; }
  uint64_t entries() const { return entries_; }
  uint64_t tombstone_count() const { return tombstones_.size(); }
  uint64_t data_blocks() const { return fences_.size(); }
  uint64_t file_bytes() const { return file_->size_bytes(); }
  uint64_t min_key() const { return fences_.empty() ? 0 : fences_[0]; }
  uint64_t max_key() const { return max_key_; }
  const RunLayout& layout() const { return layout_; }
  const BlockFile& file() const { return *file_; }

  // Filter state. A run has a Bloom filter, or key hashes (hash-table level), or
  // neither (its level's FPR is 1: every in-range lookup reads a block).
  void SetFilter(BloomFilter filter, double bits_per_key_target);
  void SetKeyHashes(std::vector<uint64_t> hashes);
  // Turns the run's key hashes into a Bloom filter (level left the hash-table range).
  void ConvertHashesToFilter(double bits_per_key);
  const BloomFilter& filter() const { return filter_; }
  double filter_bits_per_key_target() const { return bits_target_; }
  bool hash_indexed() const { return hash_mode_; }
  const std::vector<uint64_t>& key_hashes() const { return key_hashes_; }

  // True if the run may hold key (fence range and filter); no I/O. Pinned runs only.
  bool MayContain(uint64_t key, uint64_t hash) const;
  bool InRange(uint64_t key) const {
    return entries_ > 0 && key >= fences_[0] && key <= max_key_;
  }

  // [paged metadata] Gives the file its metadata tail (see above) unless the one on disk is
  // already this filter's and these fences' (recovered intact), then releases the filter's
  // bits: from then on lookups must use the blocks below. The tail's writes are counted in
  // *c (metadata, apart from the purposes: io_stats.h); fdatasync'ed with sync. Needs a
  // filter (not key hashes: std::logic_error). On IOError the file may have a partial
  // tail, which the next PageMetadata or Recover ignores; the run stays pinned.
  void PageMetadata(FaultInjector* faults, bool sync, IOCounter* c);
  bool paged() const { return paged_; }
  bool has_tail() const { return tail_.valid; }  // a sound tail is on disk now
  // The filter block's and the index block's bytes (what the block cache is charged).
  uint64_t filter_block_bytes() const { return filter_.byte_size(); }
  uint64_t index_block_bytes() const { return 8 * fences_.size(); }
  // Reads the filter (index) block from the tail into out (resized to whole blocks; the
  // first filter_block_bytes() (index_block_bytes()) bytes are the block), counted in *c,
  // and checks it against the CRC the header gave; Corruption naming the file otherwise.
  void ReadFilterBlock(std::vector<uint8_t>* out, IOCounter* c) const;
  void ReadIndexBlock(std::vector<uint8_t>* out, IOCounter* c) const;
  // MayContainHash from the filter block's bytes (true when the run has no filter).
  bool FilterBlockMayContain(const uint8_t* filter_block, uint64_t hash) const;
  // BlockFor from the index block's bytes (requires InRange(key)).
  uint64_t BlockForIn(const uint8_t* index_block, uint64_t key) const;
  // Block that would hold key (requires min_key() <= key <= max_key()).
  uint64_t BlockFor(uint64_t key) const;
  // Entries stored in data block b.
  size_t EntriesInBlock(uint64_t b) const;
  // Reads block b (ReadBlock) and looks key up in it (FindInBlock); copies the value on
  // kFound.
  Lookup GetFromBlock(uint64_t key, uint64_t b, uint8_t* value_out, IOCounter* c) const;
  // Reads blocks [first, first + n) and checks each against its CRC.
  void ReadBlocks(uint64_t first, size_t n, uint8_t* out, IOCounter* c) const;
  // Reads data block b into out (block_bytes) and checks it against its CRC.
  void ReadBlock(uint64_t b, uint8_t* out, IOCounter* c) const { ReadBlocks(b, 1, out, c); }
  // Looks key up in `block`, the bytes of data block b as ReadBlock returned them (or a
  // cached copy of them, block_cache.h); no I/O. Copies the value on kFound.
  Lookup FindInBlock(uint64_t key, uint64_t b, const uint8_t* block, uint8_t* value_out) const;
  // Reads and checks every block and the footer (counted in *c); then checks the in-memory
  // state that reads rely on against the keys read: the fences, and the filter (or key hashes),
  // whose CRC-32C was taken when it was built and which must admit every key (a Bloom
  // filter has no false negatives). Throws Corruption naming the file and the block
  // or filter; returns the number of blocks checked.
  uint64_t Verify(IOCounter* c) const;
  // Bloom check, fences, one block read.
  Lookup Get(uint64_t key, uint64_t hash, uint8_t* value_out, IOCounter* c) const;
  bool IsTombstone(uint64_t key) const;
  // Test hook: damages the in-memory filter (or a key hash); false if there is none.
  bool TEST_DamageFilter();

  // L2SM (sst_log.h): the file's hotness, the sum over its keys of their update-count
  // weights (hotness.h KeyHotness), set once when the file is written, and the same from
  // exact counts when the HotMap is audited. In memory only: a recovered run has 0 (the
  // paper's HotMap is in memory too).
  void SetHotness(double hotness, double exact_hotness) {
    hotness_ = hotness;
    exact_hotness_ = exact_hotness;
  }
  double hotness() const { return hotness_; }
  double exact_hotness() const { return exact_hotness_; }

  void MarkObsolete(bool retain) {
    obsolete_ = true;
    retain_ = retain;
  }

 private:
  uint64_t id_;
  RunLayout layout_;
  std::unique_ptr<BlockFile> file_;
  uint64_t entries_;
  std::vector<uint64_t> fences_;
  uint64_t max_key_;
  std::vector<uint64_t> tombstones_;
  std::vector<uint32_t> crcs_;  // data blocks, then tombstone blocks
  BloomFilter filter_;
  double bits_target_ = 0.0;
  bool hash_mode_ = false;
  std::vector<uint64_t> key_hashes_;
  uint32_t filter_crc_ = 0;  // of filter_, or of key_hashes_ in hash mode
  bool obsolete_ = false;
  bool retain_ = false;
  double hotness_ = 0.0;
  double exact_hotness_ = 0.0;
  // [paged metadata] The tail on disk, as its header describes it (valid: sound and read).
  struct Tail {
    bool valid = false;
    uint64_t num_bits = 0, filter_bytes = 0, index_bytes = 0;
    int probes = 0;
    uint32_t filter_crc = 0, index_crc = 0;
  };
  uint64_t TailStart() const;  // the tail's first block: after the checksum section
  void ReadTailSection(uint64_t first_block, uint64_t bytes, uint32_t crc, const char* what,
                       std::vector<uint8_t>* out, IOCounter* c) const;
  static void EncodeTailHeader(uint64_t id, const Tail& t, uint8_t* out);
  // The tail of `file` from block `at` to its end (read whole, counted in *c), if sound: its
  // header's magic, CRC, version, run id and sizes, and both sections' CRCs.
  static Tail ReadTail(const BlockFile& file, uint64_t at, uint64_t block_bytes, uint64_t id,
                       uint64_t data_blocks, IOCounter* c);
  Tail tail_;
  bool paged_ = false;
};

using RunPtr = std::shared_ptr<Run>;

std::string RunFileName(const std::string& dir, uint64_t id);
// Blocks of the checksum section (footer and CRCs) for `blocks` data and tombstone blocks.
uint64_t ChecksumBlocks(uint64_t blocks, uint64_t block_bytes);

}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_RUN_H_
