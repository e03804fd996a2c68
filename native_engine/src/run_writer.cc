// run_writer.cc — see run_writer.h.
#include "run_writer.h"

#include <stdio.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "block.h"
#include "crc32c.h"
#include "hash.h"

namespace wacky {


RunWriter::RunWriter(uint64_t id, std::string path, RunLayout layout, IOCounter* counter,
                     IOCounter* checksum_counter, FaultInjector* faults, bool sync, bool retain)
    : id_(id),
      path_(std::move(path)),
      layout_(layout),
      counter_(counter),
      checksum_counter_(checksum_counter),
      faults_(faults),
      sync_(sync),
      retain_(retain) {
  out_.reserve(ChunkBlocks(layout_.block_bytes) * layout_.block_bytes);
}

RunWriter::~RunWriter() {
  if (!done_) Abandon();
}

void RunWriter::Abandon() {
  done_ = true;
  if (file_) {
    file_.reset();
    if (layout_.space) layout_.space->Sub(added_);
    if (retain_)
      ::rename(path_.c_str(), (path_ + ".obsolete").c_str());
    else
      ::unlink(path_.c_str());
  }
}

void RunWriter::Add(uint64_t key, const uint8_t* value, bool tombstone) {
  if (entries_ > 0 && key <= last_key_)
    throw std::logic_error("RunWriter: keys must be strictly increasing");
  if (in_block_ == 0) {
    out_.resize(out_.size() + layout_.block_bytes, 0);
    fences_.push_back(key);
  }
  uint8_t* dst = out_.data() + out_.size() - layout_.block_bytes + in_block_ * layout_.entry_bytes;
  EncodeKey(dst, key);
  if (tombstone || value == nullptr)
    std::memset(dst + 8, 0, layout_.entry_bytes - 8);
  else
    std::memcpy(dst + 8, value, layout_.entry_bytes - 8);
  if (tombstone) tombstones_.push_back(key);
  hashes_.push_back(Hash64(key));
  last_key_ = key;
  ++entries_;
  if (++in_block_ == layout_.entries_per_block()) {
    in_block_ = 0;
    if (out_.size() >= ChunkBlocks(layout_.block_bytes) * layout_.block_bytes) FlushBlocks(false);
  }
}

void RunWriter::FlushBlocks(bool final) {
  // Everything in out_ except a trailing partial block (unless final) is written.
  size_t len = out_.size();
  if (!final && in_block_ != 0) len -= layout_.block_bytes;
  if (len == 0) return;
  if (!file_) {
    file_ = BlockFile::Create(path_, layout_.block_bytes, faults_, sync_, layout_.direct_reads);
    layout_.CountOnDevice(file_.get());
  }
  for (size_t at = 0; at < len; at += layout_.block_bytes)
    crcs_.push_back(crc32c::Mask(crc32c::Value(out_.data() + at, layout_.block_bytes)));
  file_->Append(out_.data(), len, counter_);
  Added(len);
  out_.erase(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(len));
}

void RunWriter::Added(uint64_t bytes) {
  added_ += bytes;
  if (layout_.space) layout_.space->Add(bytes);
}

RunPtr RunWriter::Finish(std::vector<uint64_t>* key_hashes) {
  if (entries_ == 0) {
    done_ = true;
    return nullptr;
  }
  in_block_ = 0;
  // Tombstone section: sorted keys, padded to whole blocks.
  if (!tombstones_.empty()) {
    const size_t per_block = layout_.block_bytes / 8;
    const size_t nblocks = (tombstones_.size() + per_block - 1) / per_block;
    const size_t at = out_.size();
    out_.resize(at + nblocks * layout_.block_bytes, 0);
    std::memcpy(out_.data() + at, tombstones_.data(), tombstones_.size() * 8);
  }
  FlushBlocks(true);
  file_->Drain(counter_);
  std::vector<uint8_t> section(ChecksumBlocks(crcs_.size(), layout_.block_bytes) *
                                   layout_.block_bytes,
                               0);
  const RunIdentity me{id_, entries_, tombstones_.size(), fences_.front(), last_key_};
  EncodeRunFooter(layout_.db_id, me, section.data());
  for (size_t b = 0; b < crcs_.size(); ++b)
    for (int k = 0; k < 4; ++k)
      section[kRunFooterBytes + 4 * b + k] = static_cast<uint8_t>(crcs_[b] >> (8 * k));
  // The checksum section is metadata, counted apart from every purpose (io_stats.h); a device
  // counts what the purposes count (devices.h), so it is left out there too.
  std::shared_ptr<DeviceIO> device = file_->device();
  file_->CountOn(nullptr);
  file_->Append(section.data(), section.size(), checksum_counter_);
  Added(section.size());
  file_->Finish(sync_, checksum_counter_);
  file_->CountOn(std::move(device));
  // Reopen read-only semantics are not needed: the same fd serves preads.
  auto run = std::make_shared<Run>(id_, layout_, std::move(file_), entries_, std::move(fences_),
                                   last_key_, std::move(tombstones_), std::move(crcs_));
  *key_hashes = std::move(hashes_);
  done_ = true;
  return run;
}

}  // namespace wacky
