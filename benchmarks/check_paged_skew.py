"""G1 under skew (docs/MODEL.md "G1 under skew") against the native engine with paged metadata
(``Engine(paged_metadata=True)``): N keys loaded in a random order into levels of 16 KiB files,
then existing keys read with Zipf chances (the hot keys scattered over the key order), and
apart zero-result reads (uniform), each kind through its own fresh cache: a warm-up of as many
reads as are measured, then the filter, index and data blocks missed per read, against the
model on the engine's own tree (``levels()``), G1 with uniform keys beside it, and the price of
the design (``wacky_model.pricing.price``: the model's settled tree, P7, instead of the engine's).

    .venv/bin/python benchmarks/check_paged_skew.py [--keys 100000] [--reads 100000]

With ``--rocksdb``: stock RocksDB instead (``validation.paged``'s two designs, 200,000 keys, its
four caches, 20,000 reads after as many), existing keys by Zipf and uniform, against the model
on the settled tree (``rocksdb_model.paged_levels``; RocksDB's files are not read back).
"""

from __future__ import annotations

import argparse

import numpy as np

from cost_models.paged import hottest_needed, native_paged_levels, paged_reads, read_chances
from validation.paged_skew import BLOCK, measure
from wacky_model.config import Configuration, Memory
from wacky_model.pricing import price
from wacky_model.types import Compaction, Design, KeyDistribution, System, Workload


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=100_000)
    ap.add_argument("--reads", type=int, default=100_000)
    ap.add_argument("--reads-dist", default="zipf:0.99", help="zipf:THETA or hotset:H:P")
    ap.add_argument("--caches", type=str, default="16,128,1024", help="KiB, comma-separated")
    ap.add_argument("--rocksdb", action="store_true", help="stock RocksDB (module doc)")
    args = ap.parse_args()
    if args.rocksdb:
        rocksdb(args.reads_dist)
        return
    n = args.keys
    print(f"{n:,} keys, {args.reads:,} reads measured; filter + index + data misses per read")
    print(f"{'reads':<14}{'cache':>8}{'engine':>26}{'G1 under skew':>26}{'G1 uniform':>12}"
          f"{'apart':>8}{'price':>8}")
    for dist in (args.reads_dist, None):
        for kib in map(int, args.caches.split(",")):
            got, levels = measure(n, args.reads, kib << 10, dist, seed=7)
            paged = native_paged_levels(levels, 0, 2 * n)
            if dist is None:
                r = paged_reads(paged, kib << 10, BLOCK, 1.0)
                want = r.zero_result_by_kind
                uniform = sum(want)
            else:
                chances = read_chances(KeyDistribution.parse(dist), n, hottest_needed(paged))
                want = _by_kind(paged, kib << 10, BLOCK, chances)
                uniform = paged_reads(paged, kib << 10, BLOCK, 0.0).point_read_uniform
            name = "zero-result" if dist is None else dist
            print(f"{name:<14}{kib:>6}Ki{_three(got):>26}{_three(want):>26}{uniform:>12.3f}"
                  f"{(sum(got) - sum(want)) / sum(want):>+8.1%}{_priced(n, kib, dist):>8.3f}")


def rocksdb(dist: str) -> None:
    """The module doc's ``--rocksdb``."""
    from cost_models.paged import ROCKSDB_CACHE_ENTRY_BYTES
    from validation.paged import BITS, BUFFER, CACHES, DESIGNS, ENTRIES, ENTRY_BYTES, FILE
    from validation.paged_skew import measure_rocksdb
    from wacky_model.rocksdb_model import paged_levels
    from wacky_model.rocksdb_options import rocksdb_export

    print(f"stock RocksDB, {ENTRIES:,} keys; filter + index + data misses per existing-key "
          "read: RocksDB, the model, (model - RocksDB) / RocksDB")
    for label, design, trigger in DESIGNS:
        system = System(entries=ENTRIES, buffer_bytes=BUFFER, entry_bytes=ENTRY_BYTES,
                        bits_per_entry=BITS, paged_metadata=True)
        levels = paged_levels(rocksdb_export(design, system, trigger, FILE, dynamic=False),
                              ENTRIES)
        block = system.block_bytes + ROCKSDB_CACHE_ENTRY_BYTES
        chances = read_chances(KeyDistribution.parse(dist), ENTRIES, hottest_needed(levels))
        for cache in CACHES:
            for t in (dist, None):
                got = list(measure_rocksdb(design, trigger, cache, t, 20_000).values())
                want = _by_kind(levels, cache, block, chances if t is not None else None)
                name = "uniform" if t is None else t
                print(f"{label:<26}{cache >> 10:>6}Ki {name:<10}{_three(got):>26}"
                      f"{_three(want):>26}{(sum(want) - sum(got)) / sum(got):>+8.1%}")


def _priced(keys: int, kib: int, dist: str | None) -> float:
    """The price of the engine's design under these reads: existing keys' or zero-result."""
    system = System(entries=keys, entry_bytes=64, block_bytes=BLOCK, buffer_bytes=64 << 10,
                    bits_per_entry=10, cache_bytes=kib << 10, paged_metadata=True)
    config = Configuration(Design(T=4, C=1, K=0, Z=0, filters="uniform"),
                           Compaction(granularity="file", file_bytes=16 << 10),
                           Memory.of(system))
    if dist is None:
        return price(config, Workload(zero_reads=1.0), system).zero_result_read
    return price(config, Workload(point_reads=1.0, read_keys=dist), system).point_read


def _by_kind(paged: list, cache: int, block: float, chances) -> tuple[float, float, float]:
    """An existing-key read's misses by kind (filter, index, data): the model's hits per kind
    times the requests of each."""
    r = paged_reads(paged, cache, block, 0.0, chances)
    # filter_hit etc. are request-weighted over an existing-key read's own requests
    share = np.array([lv.share for lv in paged])
    share = share / share.sum()
    below = 1.0 - np.cumsum(share)
    cover = np.array([lv.coverage for lv in paged])
    fpr = np.array([lv.fpr for lv in paged])
    f = float(np.sum((share + cover * below) * (1 - np.array(r.filter_hit))))
    x = float(np.sum((share + cover * fpr * below) * (1 - np.array(r.index_hit))))
    d = float(np.sum((share + cover * fpr * below) * (1 - np.array(r.data_hit))))
    return f, x, d


def _three(v) -> str:
    return f"{v[0]:.3f}+{v[1]:.3f}+{v[2]:.3f}={sum(v):.3f}"


if __name__ == "__main__":
    main()
