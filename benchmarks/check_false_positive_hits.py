"""Two checks of the skew model's cache with false positives as cache requests (S7f), which the
notes on issues 29 and 30 cite.

``--levels`` (the default): S7f by level for the rocksdb-skew section's universal cases
(Tiering T=4, docs/VALIDATION.md): each run rank's blocks, its false positives per read,
the rate every block gets from the dense ones (bulk), how many sparse keys read a block of
their own, and the hit rate over every block its reads need.

``--sparse``: what the sparse terms add: the point read and hit rate of a few designs with
S7f as it is and with every false positive summed into its level's blocks (all bulk).

``--bound``: the skew search's bound (``SkewedTree.point_read_bound`` with
``KeyMap.hottest_read_share``) against the model's own point reads, on the random workloads and
systems of benchmarks/check_skew_grid.py: the bound must never be above the price, or the
search would skip designs that win. Prints the worst ratio of bound to price (at most 1).

    .venv/bin/python benchmarks/check_false_positive_hits.py [--levels | --sparse | --bound]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import cost_models.skew as cs
from cost_models.universal import UniversalRules
from wacky_model.skew import cache_blocks, skew_key_map, skew_tree, universal_skew_costs
from wacky_model.types import Design, System, Workload

# The rocksdb-skew section's universal design and scale (wacky sweep rocksdb-skew).
RULES = UniversalRules(trigger=12, min_merge_width=4, max_size_amplification_percent=298,
                       flush_entries=789.59)
SYSTEM = System(entries=200_000, entry_bytes=128, buffer_bytes=131072, bits_per_entry=5.0,
                cache_bytes=3_840_000)


def levels() -> None:
    print("universal Tiering T=4 (rocksdb-skew scale), S7f by run rank")
    original = cs._with_cache
    for keys in ("uniform", "zipf:0.9", "zipf:1.2", "hotset:0.1:0.9"):
        workload = Workload(point_reads=0.5, writes=0.5, write_keys=keys, read_keys=keys,
                            update_fraction=0.0 if keys == "uniform" else 0.5)
        trees: list = []

        def keep(tree: cs.SkewedTree, blocks: float, trees: list = trees) -> cs.SkewedCosts:
            trees.append(tree)
            return original(tree, blocks)

        cs._with_cache = keep
        try:
            c = universal_skew_costs(RULES, 5.0, SYSTEM, workload, preload=200_000,
                                     window=100_000, cycle=True)
        finally:
            cs._with_cache = original
        tree = trees[-1]
        blocks = np.array([max(lev.entries / tree.entries_per_block, 1.0)
                           for lev in tree.levels])
        fp = cs._false_positive_requests(tree, blocks)
        print(f"{keys}: hit rate {c.cache_hit_rate:.3f}, I/O per read {c.point_read:.3f}")
        for i in range(len(tree.levels)):
            print(f"  rank {len(blocks) - 1 - i:2d}: {blocks[i]:7.0f} blocks, false positives "
                  f"{tree.false_positives[i]:.3f} a read, bulk {fp.bulk[i]:.1e} a block, "
                  f"{fp.keys[fp.level == i].sum():6.0f} sparse keys, "
                  f"hit rate {c.cache_hit_rate_per_level[i]:.2f}")


def sparse() -> None:
    cases = [(Design(10, 9, 1, 0, 0), "uniform", "zipf:1.2"),
             (Design(4, 3, 1, 1, 1), "zipf:0.9", "zipf:0.9"),
             (Design(10, 9, 1, 0, 0), "zipf:0.9", "zipf:0.9")]
    system = System(entries=2**24, bits_per_entry=5.0, cache_bytes=16 << 20)
    original = cs._false_positive_requests

    def all_bulk(tree: cs.SkewedTree, blocks: np.ndarray,
                 spread: float = cs.NODE_SPREAD) -> cs._FalsePositives:
        fp = original(tree, blocks, spread)
        extra = np.bincount(fp.level, weights=fp.keys * fp.rate, minlength=blocks.size)
        return cs._FalsePositives(fp.bulk + extra / blocks, fp.rate[:0], fp.keys[:0],
                                  fp.level[:0])

    print("2^24 entries, 5 bits a key, a 16 MiB cache, half updates: S7f | all bulk")
    for design, writes, reads in cases:
        workload = Workload(point_reads=0.5, writes=0.5, write_keys=writes, read_keys=reads,
                            update_fraction=0.5, correlated=writes == reads)
        got = []
        for fp in (original, all_bulk):
            cs._false_positive_requests = fp
            try:
                got.append(skew_tree(design, system, workload).costs(cache_blocks(system)))
            finally:
                cs._false_positive_requests = original
        a, b = got
        print(f"  T={design.T:g} K={design.K:g} Z={design.Z:g}, writes {writes}, "
              f"reads {reads}: point read {a.point_read:.4f} | {b.point_read:.4f}, hit rate "
              f"{a.cache_hit_rate:.4f} | {b.cache_hit_rate:.4f}")


def bound() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from check_skew_grid import cases

    worst = 0.0
    for seed in (1, 2):
        for workload, system in cases(seed):
            keys = skew_key_map(system, workload)
            blocks = cache_blocks(system)
            most = keys.hottest_read_share(blocks * system.entries_per_block)
            for T in (2.0, 4.0, 8.0, 16.0):
                for K, Z in ((0, 0), (1, 1), (1, 0)):
                    try:
                        tree = skew_tree(Design(T, T - 1, 1, K, Z), system, workload, keys=keys)
                    except ValueError:
                        continue
                    price = tree.costs(blocks).point_read
                    worst = max(worst, tree.point_read_bound(most) / price if price > 0 else 0)
    print(f"the bound over the model's point read, worst of 48 cases x 12 designs: {worst:.3f}")


if __name__ == "__main__":
    {"--bound": bound, "--sparse": sparse}.get(next(iter(sys.argv[1:]), ""), levels)()
