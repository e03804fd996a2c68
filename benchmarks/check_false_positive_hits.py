"""Two checks of the skew model's cache (S5-S7) that the notes on issues 29 and 30 cite.

``--false-positives`` (the default): what S7 would predict for the rocksdb-skew section's
universal cases (Tiering T=4, docs/VALIDATION.md) if a false positive's block were a cache
request like any other, spread evenly over its level's blocks, beside S7 as it is (false
positives count as misses). A prototype only: the model does not price them so, because it
would end ``SkewedTree.point_read_floor`` as the bound the skew search prunes by.

``--bound``: the skew search's floor (``KeyMap.hottest_read_share``) against the model's own
hits, on the random workloads and systems of benchmarks/check_skew_grid.py: the largest ratio
of the hits the model predicts to the most a cache of that size can serve (at most 1).

    .venv/bin/python benchmarks/check_false_positive_hits.py [--false-positives | --bound]
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


def hits_with_false_positives(tree: cs.SkewedTree, blocks: int) -> tuple[float, float]:
    """(hit rate, I/O per existing-key read) with false positives' blocks as cache requests."""
    levels, B = tree.levels, tree.entries_per_block
    target, fp = tree.share[1:], tree.false_positives
    level_blocks = np.array([max(lev.entries / B, 1.0) for lev in levels])
    rates = cs._block_rates(levels, tree.place, tree.pop_count, tree.pop_rate, B,
                            tree.reads_per_write)
    extra = fp * tree.reads_per_write / level_blocks
    terms = cs._cache_terms(levels, rates + extra[:, None], level_blocks)
    h = cs._hit(terms.lam, terms.life, cs._characteristic_time(terms, blocks))
    share = terms.req / terms.lam

    def ratio(weights: np.ndarray) -> np.ndarray:
        total = np.bincount(terms.level, weights=weights, minlength=len(levels))
        got = np.bincount(terms.level, weights=weights * h, minlength=len(levels))
        return np.where(total > 0, got / np.where(total > 0, total, 1.0), 0.0)

    hits = target * ratio(share * (terms.lam - extra[terms.level])) + fp * ratio(share)
    accesses = float((target + fp).sum())
    return float(hits.sum()) / accesses, accesses - float(hits.sum())


def false_positives() -> None:
    print("universal Tiering T=4 (rocksdb-skew scale): S7 now | false positives cached")
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
            now = universal_skew_costs(RULES, 5.0, SYSTEM, workload, preload=200_000,
                                       window=100_000, cycle=True)
        finally:
            cs._with_cache = original
        hit, io = hits_with_false_positives(trees[-1], cache_blocks(SYSTEM))
        print(f"  {keys:15s} hit rate {now.cache_hit_rate:.3f} | {hit:.3f}; "
              f"I/O per read {now.point_read:.3f} | {io:.3f}")


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
                        c = skew_tree(Design(T, T - 1, 1, K, Z), system, workload,
                                      keys=keys).costs(blocks)
                    except ValueError:
                        continue
                    hits = 1.0 - c.read_buffer_share + c.false_positives - c.point_read
                    worst = max(worst, hits / most if most > 0 else 0.0)
    print(f"the model's hits over the most the cache can serve, worst of 48 cases x 12 "
          f"designs: {worst:.3f}")


if __name__ == "__main__":
    bound() if "--bound" in sys.argv[1:] else false_positives()
