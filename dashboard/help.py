"""The dashboard's help: one short sentence per control (keyed by its id), card metric and table
column, with the RocksDB option it corresponds to; the page shows each as a tooltip.
"""

from __future__ import annotations

CONTROLS: dict[str, str] = {
    # Workload
    "point-reads": "Share of operations that read a key that exists (RocksDB Get that finds "
                   "a value). Any units: the weights are normalized to sum to 1.",
    "zero-reads": "Share of operations that read a key that does not exist (a Get that finds "
                  "nothing). The Bloom filters answer most of these without touching disk.",
    "writes": "Share of operations that insert or update a key (RocksDB Put).",
    "range-reads": "Share of operations that scan a key range (a RocksDB iterator Seek + Next).",
    "range-blocks": "How many blocks of data each range read returns, beyond the first block "
                    "of each run it probes.",
    "write-keys": "Which keys the writes touch: uniform; zipf:θ (θ in [0, 1.5]; YCSB uses "
                  "0.99); hotset:h:p (a share h of the keys gets a share p of the writes); "
                  "latest (updates favour recently inserted keys, as YCSB's latest).",
    "read-keys": "Which keys the existing-key reads touch: uniform, zipf:θ, hotset:h:p, "
                 "hotrange:h:p (a contiguous range of a share h of the keys gets a share p of "
                 "the reads), or latest (recently written keys, as in YCSB workload D).",
    "update-fraction": "Percent of writes that overwrite a key that exists; the rest insert new "
                       "keys. Merges drop the overwritten versions, so updates cost less.",
    "correlated": "Whether the keys read most are the keys written most. Leave it on unless "
                  "reads and writes are skewed toward different keys.",
    # System
    "entries": "Number of entries (key-value pairs) in the store, N. Accepts 2^31, 2e9 or "
               "2,147,483,648.",
    "entry-bytes": "Bytes per entry, key plus value.",
    "block-bytes": "Bytes per storage block, the unit of one I/O (RocksDB block_size).",
    "buffer-mib": "Write buffer in MiB: writes gather here before a flush makes them a run "
                  "(RocksDB write_buffer_size).",
    "bits-per-entry": "Bloom filter memory in bits per entry, shared among the runs as the "
                      "design says (RocksDB's filter_policy bits_per_key, which is uniform).",
    "cache-mib": "LRU cache of data blocks for point reads, in MiB; 0 for none (RocksDB "
                 "block_cache). Merges drop the cached blocks of the runs they rewrite.",
    "memory-split": "Give one memory budget for the write buffer, filters and fence pointers "
                    "together, and let the search choose how to split it (as Endure does). "
                    "The fields it overrides are disabled: the filter memory, and the buffer "
                    "too in recommend mode (a manual design keeps the buffer given).",
    "memory-bits": "Total memory in bits per entry: write buffer + Bloom filters + fence "
                   "pointers. With the split on, this replaces the filter field, and the "
                   "buffer field for the recommendation; off without the split.",
    "probe-cost": "Time of one in-memory filter or hash-table probe, in block reads (0 to 1; "
                  "the CLI's --probe-cost). Above 0, point reads pay for their probes and the "
                  "search picks hash tables for the smallest levels where they pay off.",
    "paged-metadata": "Keep filter and index blocks on disk, read through the block cache "
                      "(RocksDB's cache_index_and_filter_blocks=true; the CLI's "
                      "--paged-metadata), so a probe costs I/O on a miss. Priced for stock "
                      "RocksDB and for this engine's file-granular merges, under skewed "
                      "reads too (scattered hot keys: not latest or hotrange reads, nor "
                      "skewed writes or updates).",
    "own-device-gib": "What the system's own device (read cost 1, the unit of cost; it holds "
                      "the log and the upper levels) may hold, in GiB. Empty: no limit. With a "
                      "second device the search places the levels (RocksDB db_paths).",
    "device2-read": "A second device the deeper levels may sit on: what a block read costs "
                    "there, in block reads of the own device (10 for a disk beside an SSD). "
                    "Empty, with its write cost: one device.",
    "device2-write": "The second device's cost of a block written, in block reads of the own "
                     "device. Give it with the read cost.",
    "device2-gib": "What the second device may hold, in GiB. Empty: no limit.",
    # Design
    "mode": "recommend: search all five knobs for the cheapest design for this workload. "
            "manual: set the knobs yourself and compare with the recommendation.",
    "robust-rho": "How far the real workload may drift from the one given, as a KL divergence "
                  "(Endure's ρ). Above 0 the recommendation minimizes the worst cost over "
                  "that neighbourhood; 0 tunes for the workload exactly, 0.5 to 2 is typical.",
    "max-peak-disk": "A guardrail: recommend only designs whose merges need at most this many "
                     "times the data on disk at their peak (a merge keeps its inputs until its "
                     "output is whole: 2 for one that rewrites everything, a few files more for "
                     "merges of one file at a time; docs/MODEL.md T5). 0 sets no limit.",
    "max-runs": "A guardrail: recommend only designs with at most this many runs in any level. "
                "RocksDB stops writes at 36 level-0 files (level0_stop_writes_trigger); 0 sets "
                "no limit.",
    "merges": "How merges are cut. Any: the search prices whole-level merges and leveled "
              "designs merging one file at a time, and keeps the cheaper. Whole levels: the "
              "paper's continuum. Files: leveled designs with files, as RocksDB's leveled "
              "compaction (target_file_size_base).",
    "level0-trigger": "Flushes that gather before they merge into the tree (RocksDB "
                      "level0_file_num_compaction_trigger). Searched: the search picks it; "
                      "above 1 it means file-granular merges.",
    "target": "What the design must run on. This project's engine: any design of the "
              "continuum (RocksDB runs them under the Wacky compaction driver). Stock "
              "RocksDB: only what its own leveled compaction expresses (multiplier, level-0 "
              "trigger, file and first-level sizes, dynamic level sizes, one bits per key), "
              "as `wacky recommend --target rocksdb`: the pick beside RocksDB's defaults, the "
              "gain, and its OPTIONS file to download.",
    "floating-gamma": "Tidal-tree's floating of hot files on a file-granular pick of this "
                      "engine: a file floats up when its share of the reads reaches γ of the "
                      "level above's hottest (the paper's 1; the CLI's --floating). Shows the "
                      "pick priced with it. Empty: off (the search still reports its own try).",
    # Machine
    "machine-profile": "The JSON file `wacky calibrate --out FILE` writes (or one written by "
                       "hand with its fields): this machine's device and CPU. It stays in this "
                       "page only, not in the link: upload it again after opening a link. With "
                       "Stock RocksDB it gives the sustainable write rate (T2) and the time "
                       "objective (T7); with this project's engine, the time objective and the "
                       "throughput plot (T4).",
    "write-rate": "With a profile and Stock RocksDB: the inserts per second the application "
                  "offers. The search keeps only options whose sustainable rate (T2) reaches "
                  "it, and the card says whether RocksDB's defaults stall at it and how much "
                  "(T3; the CLI's --write-rate). Empty: no rate.",
    "objective": "With a profile: minimize I/O per operation (Θ), or the time per operation "
                 "on the profile's machine (the CLI's --objective throughput). This project's "
                 "engine: blocks read at its latency, written at its merge CPU and bandwidth, "
                 "probes at its CPU (T4); Θ is then in block-read times. Stock RocksDB: one "
                 "client thread's time (T6) among the options whose background compaction "
                 "keeps up with the writes of their own throughput (T7).",
    "T": "Size ratio between adjacent levels (RocksDB max_bytes_for_level_multiplier). "
         "Larger T: fewer levels, cheaper reads, costlier merges.",
    "C": "Capping ratio: the last level's capacity over all the levels above it together "
         "(C = T - 1 when every ratio is T). RocksDB sets it only through "
         "max_bytes_for_level_multiplier_additional; the RocksDB panel grades it.",
    "X": "Growth exponential: how fast the ratios between the smaller levels grow toward the "
         "last (1: every level has ratio T). Above 1 gives the LSM-bush shapes.",
    "K": "Greediness of Levels 1 to L-1: 0 keeps one run per level (leveled, RocksDB's level "
         "compaction); 1 lets runs gather up to the ratio (tiered, universal compaction).",
    "Z": "Greediness of the last level: 0 keeps it one run (leveled); 1 lets runs gather "
         "(tiered). Lazy Leveling is K = 1, Z = 0.",
    "filters": "optimized: the Lagrangian allocation, which gives smaller runs more bits per "
               "entry (Monkey). uniform: the same bits per entry everywhere, as RocksDB does.",
    "validation-scale": "Entries the engine run holds. A bigger run takes longer, but its "
                        "tree has more levels, closer to the page's.",
}

METRICS: dict[str, str] = {
    "write amplification": "Times each entry is written to storage over its life, by flushes "
                           "and merges.",
    "write cost (I/O per write)": "Block writes per application write: write amplification "
                                  "over the entries in a block.",
    "point read (I/O)": "Block reads of a read that finds its key, in the worst case (the key "
                        "in the last level): filter false positives plus the one true read.",
    "zero-result read (I/O)": "Block reads of a read that finds nothing: only the filters' "
                              "false positives.",
    "range read (runs probed)": "Runs a range read must visit: one seek in each.",
    "range read (I/O, with its blocks)": "Block reads of a range read: one per run probed, "
                                         "plus the blocks it returns.",
    "filter memory (bits/entry)": "Bloom filter memory the design uses, per entry.",
    "sum of FPRs (paper)": "The sum of the runs' false positive rates: the expected wasted I/O "
                           "of a read that finds nothing.",
    "levels": "Levels below the write buffer.",
    "Θ": "Expected I/O per operation for this workload: each cost weighted by its share "
         "(Eq 16). Lower is better; throughput is 1 / Θ.",
}

COLUMNS: dict[str, str] = {
    "family": "The family of designs this one belongs to (Leveling, Tiering, Lazy Leveling, "
              "CLL, SCLL, LSM-bush or Wacky).",
    "theta": "Θ: expected I/O per operation for this workload (lower is better).",
    "relative": "This family's throughput over the design shown: above 1, it beats it.",
    "level": "Level number, 1 the smallest.",
    "runs": "Runs the level holds when full (1: leveled).",
    "entries": "Entries the level holds when full.",
    "buffers": "The level's capacity in write buffers.",
    "fpr": "False positive rate of each run's Bloom filter.",
    "level_fpr": "The level's share of the sum of FPRs (runs × FPR per run).",
    "bits": "Bloom filter bits per entry in this level.",
    "structure": "Bloom filter, or a hash table when probes cost more than a filter's misses.",
}
