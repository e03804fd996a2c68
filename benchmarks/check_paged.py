"""What RocksDB 7.8's block cache charges for a filter, an index and a data block beyond their
contents, with cache_index_and_filter_blocks=true: the constants G1 (docs/MODEL.md) takes for
RocksDB (cost_models.paged.ROCKSDB_*). One cold get per file, so each miss inserts one block.

    .venv/bin/python benchmarks/check_paged.py
"""

from __future__ import annotations

import pathlib
import tempfile

import numpy as np

import rocksdb_bridge
from cost_models.paged import rocksdb_filter_bytes
from wacky_model.rocksdb_model import DISK_OVERHEAD_BYTES
from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.types import Design, System


def main() -> None:
    native = rocksdb_bridge.load()
    n, entry, bits = 100_000, 128, 10
    system = System(entries=n, buffer_bytes=128 << 10, entry_bytes=entry, bits_per_entry=bits,
                    paged_metadata=True)
    exported = rocksdb_export(Design(10, 9, 1, 0, 0), system, 4, 64 << 10, dynamic=False)
    rng = np.random.default_rng(1)
    keys = rng.choice(2**40, n, replace=False).astype(np.uint64) * 2 + 2
    values = rng.integers(0, 255, (4096, entry - 8), dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        options = pathlib.Path(tmp) / "OPTIONS"
        options.write_text(exported.options_file())
        db = native.Database(str(pathlib.Path(tmp) / "db"), str(options), 256 << 20,
                             fill_cache=True)
        for i in range(0, n, 4096):
            db.put_many(keys[i:i + 4096], values[:len(keys[i:i + 4096])])
        db.flush()
        db.wait_for_background_work(60)
        files = [f for f in db.live_files() if f["entries"] > 0]
        del db
        # Reopened, the cache holds nothing: each live file's filter and index go in once, when
        # its table is opened (prefetched), and a cold get per file adds one data block.
        db = native.Database(str(pathlib.Path(tmp) / "db"), str(options), 256 << 20,
                             fill_cache=True)
        for f in files:
            db.get_many(np.array([f["smallest_key"]], dtype=np.uint64))
        t = db.tickers()
        del db
    content = sum(rocksdb_filter_bytes(f["entries"], bits) for f in files)
    # Data blocks hold the entries with RocksDB's per-entry overhead (the stock model's).
    blocks = sum(f["entries"] * (entry + DISK_OVERHEAD_BYTES) / system.block_bytes
                 for f in files)

    def per(kind: str) -> float:
        return t[f"rocksdb.block.cache.{kind}.bytes.insert"] / max(
            1, t[f"rocksdb.block.cache.{kind}.add"])

    print(f"{len(files)} files: filter charge {per('filter'):.1f} B per block, its contents "
          f"{content / len(files):.1f} B (overhead {per('filter') - content / len(files):.1f})")
    print(f"index charge {per('index'):.1f} B per block: "
          f"{(per('index') - 64) * len(files) / blocks:.2f} B per data block beyond a 64-byte "
          "entry charge")
    print(f"data charge {per('data'):.1f} B per block (block_bytes {system.block_bytes})")


if __name__ == "__main__":
    main()
