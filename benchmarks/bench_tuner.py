"""wacky advise's pick against a black-box tuner (Optuna's TPE) on measured RocksDB runs.

Run: .venv/bin/python benchmarks/bench_tuner.py [--trials 40] [--entries 40000]

One workload (30% point reads, 10% zero-result reads, 50% writes, 10% 8-entry ranges, keys
Zipf 0.8) runs on small RocksDB databases through the bridge. A run loads ``--entries`` keys of
8 + 100 bytes, waits for compactions, then runs ``--operations`` operations and measures, over
them, the I/O per operation in the units of Θ (Eq 16): data blocks read (block-cache misses; the
bridge's reads never fill its 1 MiB cache, so each block read is a miss) plus blocks written by
flushes and compactions (bytes over the 4 KiB block). Every configuration has the same memory:
RocksDB's defaults scaled to a 64 KiB buffer with 10 bits per key.

1. RocksDB's defaults run with a trace recorded; ``wacky advise`` on that database picks the
   options (the model's search, no measured run of its own). The defaults and the pick are each
   measured ``--repeats`` times: the spread is the measurement's noise (compactions run in the
   background, so the same options and keys give different trees).
2. Optuna's TPE sampler (seeded) searches the same options the stock search does (leveled:
   multiplier, level-0 trigger, first level size, file size; universal: trigger and
   size-amplification limit; and the buffer's share of the memory), one measured run a trial.

It prints the measured cost of the defaults, of advise's pick and of TPE's best, and the trial at
which TPE first measured below advise's pick. Needs the RocksDB bridge and optuna (a dev
dependency).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rocksdb_bridge  # noqa: E402
from cost_models.universal import UniversalOptions  # noqa: E402
from validation.advise_dbs import ROUND, run_round  # noqa: E402
from validation.generators import rank_sampler  # noqa: E402
from wacky_model.advise import advise  # noqa: E402
from wacky_model.rocksdb_tuning import RocksDBConfig, UniversalConfig  # noqa: E402
from wacky_model.types import KeyDistribution, System  # noqa: E402

MIX = {"point_reads": 0.3, "zero_reads": 0.1, "writes": 0.5, "range_reads": 0.1}
THETA = 0.8
RANGE = 8
VALUE_BYTES = 100
BLOCK = 4096
BUFFER = 64 << 10
BITS = 10.0


def _system(entries: int) -> System:
    return System(entries=entries, entry_bytes=8 + VALUE_BYTES, key_bytes=8, block_bytes=BLOCK,
                  buffer_bytes=BUFFER, bits_per_entry=BITS)


def run(bridge, root: Path, name: str, options: str, entries: int, operations: int,
        trace: bool = False, seed: int = 7) -> tuple[float, Path]:
    """The measured I/O per operation of one run (module doc), and its database directory."""
    path = root / name
    opts = root / f"{name}.options"
    opts.write_text(options.replace("[DBOptions]", "[DBOptions]\n  stats_dump_period_sec=1", 1))
    rng = np.random.default_rng(seed)
    keys = rng.permutation(entries).astype(np.uint64) * np.uint64(2)
    db = bridge.Database(str(path), str(opts), 1 << 20, wal=True)
    db.put_many(keys, np.zeros((entries, VALUE_BYTES), dtype=np.uint8))
    db.wait_for_background_work(300.0)
    if trace:
        db.start_trace(str(root / f"{name}.trace"))
    before = db.tickers()
    ranked = rng.permutation(keys)
    sampler = rank_sampler(KeyDistribution("zipf", theta=THETA), entries)
    values = np.zeros((ROUND, VALUE_BYTES), dtype=np.uint8)
    kinds = list(MIX)
    p = np.array([MIX[k] for k in kinds])
    for _ in range(operations // ROUND):
        run_round(db, rng, kinds, p, ranked, sampler, values, entries, RANGE)
    if trace:
        db.end_trace()
    db.wait_for_background_work(300.0)
    after = db.tickers()
    del db

    def delta(name: str) -> int:
        return after[name] - before[name]

    written = delta("rocksdb.flush.write.bytes") + delta("rocksdb.compact.write.bytes")
    cost = (delta("rocksdb.block.cache.data.miss") + written / BLOCK) / operations
    return cost, path


def options_of(config, system: System) -> str:
    return config.export(system).options_file()


def main() -> None:
    import optuna

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--entries", type=int, default=40_000)
    parser.add_argument("--operations", type=int, default=60_000)
    parser.add_argument("--repeats", type=int, default=3,
                        help="measured runs of the defaults and of advise's pick (the spread "
                        "is the measurement's noise)")
    args = parser.parse_args()
    bridge = rocksdb_bridge.load()
    system = _system(args.entries)
    memory = BUFFER + BITS * args.entries / 8  # bytes: the buffer and the filters
    root = Path(tempfile.mkdtemp(prefix="bench-tuner-"))
    start = time.perf_counter()
    defaults = RocksDBConfig(10.0, 4, False, BUFFER, BUFFER, BITS, 4 * BUFFER)
    default_costs = []
    for i in range(args.repeats):
        cost, path = run(bridge, root, f"defaults{i}", options_of(defaults, system),
                         args.entries, args.operations, trace=i == 0)
        default_costs.append(cost)
        if i == 0:
            t = time.perf_counter()
            advice = advise(path, trace=root / "defaults0.trace")
            advise_s = time.perf_counter() - t
    pick = advice.recommendation.best.config
    advise_costs = [run(bridge, root, f"advised{i}", options_of(pick, system), args.entries,
                        args.operations)[0] for i in range(args.repeats)]
    advise_cost = float(np.mean(advise_costs))

    def objective(trial: optuna.Trial) -> float:
        share = trial.suggest_categorical("buffer_share", [1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2,
                                                           3 / 4])
        buffer = max(BLOCK, int(share * memory))
        bits = max(0.0, (memory - buffer) * 8 / args.entries)
        style = trial.suggest_categorical("style", ["leveled", "universal"])
        if style == "universal":
            config = UniversalConfig(UniversalOptions(
                trigger=trial.suggest_categorical("trigger", [16, 24, 32, 48, 64]),
                max_size_amplification_percent=trial.suggest_categorical("amp", [200, 400])),
                buffer, bits)
        else:
            base = buffer * trial.suggest_categorical("base_buffers", [1, 2, 4, 8, 16])
            config = RocksDBConfig(
                float(trial.suggest_int("multiplier", 2, 16)),
                trial.suggest_categorical("level0_trigger", [1, 2, 4, 8]), True,
                min(base, max(BLOCK, int(buffer * trial.suggest_categorical(
                    "file_share", [0.25, 1.0, 4.0])))), buffer, bits, base)
        cost, _ = run(bridge, root, f"trial{trial.number}", options_of(config, system),
                      args.entries, args.operations)
        trial.set_user_attr("options", config.options_text())
        return cost

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    t = time.perf_counter()
    study.optimize(objective, n_trials=args.trials)
    tpe_s = time.perf_counter() - t
    values = [tr.value for tr in study.trials]
    beat = next((i + 1 for i, v in enumerate(values) if v < advise_cost), None)
    print(f"{args.entries:,} entries, {args.operations:,} operations of {MIX}, Zipf {THETA}; "
          f"memory {memory:,.0f} bytes; measured I/O per operation (data blocks read + blocks "
          "written)")
    def spread(costs: list[float]) -> str:
        return (f"{np.mean(costs):.4f} (runs {', '.join(f'{c:.4f}' for c in costs)})")

    print(f"RocksDB's defaults:  {spread(default_costs)}  ({defaults.options_text()}); "
          f"predicted Θ {advice.current.theta:.4f}")
    print(f"advise's pick:       {spread(advise_costs)}  ({pick.options_text()}); predicted Θ "
          f"{advice.advised.theta:.4f}; advise took {advise_s:.1f} s and no measured run")
    print(f"TPE best of {args.trials}:    {study.best_value:.4f}  "
          f"({study.best_trial.user_attrs['options']}); {tpe_s:.0f} s of measured runs")
    print("TPE first measured below advise's pick (its mean) at trial "
          + (str(beat) if beat is not None else f"none of {args.trials}"))
    print("TPE's best so far after 10, 20, 40 trials: "
          + ", ".join(f"{min(values[:n]):.4f}" for n in (10, 20, 40) if n <= len(values)))
    print(f"total {time.perf_counter() - start:.0f} s (databases in {root})")


if __name__ == "__main__":
    main()
