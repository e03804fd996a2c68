"""RocksDB's on-disk entry format, as the models size it (a leaf: the RocksDB model of
``wacky_model.rocksdb_model`` and the cache stage of ``wacky_model.skew`` both take it)."""

from __future__ import annotations

# Bytes an entry takes in an SST file beside its key and value: the internal key's 8-byte
# sequence number and type, and about 3 bytes of length varints and restart points (1 left for
# the block's share of its trailer).
DISK_OVERHEAD_BYTES = 12.0


def data_block_entries(entry_bytes: int, block_bytes: int) -> int:
    """Entries in one of RocksDB's data blocks: a block is cut at ``block_bytes`` of its own
    format, where an entry takes its key and value, the 8-byte sequence number and about 3 bytes
    of length varints, and the block its restart points and trailer (DISK_OVERHEAD_BYTES; the
    index and filter are not in it). At 108-byte entries and 4 KiB blocks that is 34, not the
    4096 // 108 = 37 of the entry alone: RocksDB 7.8 cut 60,000 such entries into 1,774 to 1,790
    blocks (33.5 to 33.8 a block, the last block of each file partly full; docs/MODEL.md S5)."""
    return max(1, int(block_bytes // (entry_bytes + DISK_OVERHEAD_BYTES)))
