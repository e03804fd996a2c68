"""wacky advise's pick against a black-box tuner (Optuna's TPE) on measured RocksDB runs.

Run: .venv/bin/python benchmarks/bench_tuner.py [--workloads NAME ...] [--trials 40]
     [--entries 40000] [--operations 60000] [--repeats 3]

The workloads are ``wacky sweep advise``'s four (:data:`validation.advise.WORKLOADS`: their mix of
point reads, zero-result reads, writes and 8-entry ranges, and the Zipf theta of the keys
updated and read; 0 is uniform), run on small RocksDB databases through the bridge. A run loads
``--entries`` keys of 8 + 100 bytes, waits for compactions, then runs ``--operations``
operations and measures, over them, the I/O per operation in the units of Θ (Eq 16): data blocks
read (block-cache misses; the bridge's reads never fill its 1 MiB cache, so each block read is a
miss) plus blocks written by flushes and compactions (bytes over the 4 KiB block). Every run uses
the same keys and operations (seed 7): runs of the same options differ only by when the
background compactions ran. Every configuration has the same memory: RocksDB's defaults scaled
to a 64 KiB buffer with 10 bits per key.

For each workload:

1. RocksDB's defaults run with a trace recorded; ``wacky advise`` on that database picks the
   options (the model's search, no measured run of its own). The defaults and the pick are each
   measured ``--repeats`` times: the spread is the measurement's noise.
2. Optuna's TPE sampler (seeded) searches the same options the stock search does (leveled:
   multiplier, level-0 trigger, first level size, file size; universal: trigger and
   size-amplification limit; and the buffer's share of the memory), one measured run a trial.
3. TPE's best trial is measured again ``--repeats`` times, as advise's pick is: its one trial is
   the least of 40 noisy draws, so it is biased low, and only the re-measured mean compares
   with the pick's mean.

It prints, per workload, the measured cost of the defaults, of advise's pick and of TPE's best
(its trial and re-measured), the trial at which TPE first measured below the pick, the wall time
of advise and of TPE's trials and their ratio; then a summary table against the issue's target
(the pick within 5% of TPE's best, or better, at under 1/100 of its tuning time). Needs the
RocksDB bridge and optuna (a dev dependency).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rocksdb_bridge  # noqa: E402
from cost_models.universal import UniversalOptions  # noqa: E402
from validation.advise import WORKLOADS  # noqa: E402
from validation.advise_dbs import ROUND, run_round  # noqa: E402
from validation.generators import rank_sampler  # noqa: E402
from wacky_model.advise import advise  # noqa: E402
from wacky_model.rocksdb_tuning import (  # noqa: E402
    MIN_WRITE_BUFFER,
    RocksDBConfig,
    UniversalConfig,
)
from wacky_model.types import KeyDistribution, System  # noqa: E402

RANGE = 8
VALUE_BYTES = 100
BLOCK = 4096
BUFFER = 64 << 10
BITS = 10.0
KINDS = ("point_reads", "zero_reads", "writes", "range_reads")
# The target: the pick's measured cost at most 5% above TPE's best, at under 1/100 of
# TPE's tuning time.
WITHIN = 0.05
TIME_RATIO = 0.01


def _system(entries: int) -> System:
    return System(entries=entries, entry_bytes=8 + VALUE_BYTES, key_bytes=8, block_bytes=BLOCK,
                  buffer_bytes=BUFFER, bits_per_entry=BITS)


def run(bridge, root: Path, name: str, options: str, entries: int, operations: int,
        mix: dict[str, float], theta: float, trace: bool = False, seed: int = 7
        ) -> tuple[float, Path]:
    """The measured I/O per operation of one run (module doc), and its database directory (kept
    only when traced)."""
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
    # theta 0 is uniform, as validation/advise_dbs.py builds its databases.
    sampler = rank_sampler(KeyDistribution("zipf", theta=theta) if theta > 0
                           else KeyDistribution(), entries)
    values = np.zeros((ROUND, VALUE_BYTES), dtype=np.uint8)
    p = np.array([mix.get(k, 0.0) for k in KINDS])
    for _ in range(operations // ROUND):
        run_round(db, rng, KINDS, p, ranked, sampler, values, entries, RANGE)
    if trace:
        db.end_trace()
    db.wait_for_background_work(300.0)
    after = db.tickers()
    del db
    if not trace:  # only the traced database is read again (by advise): 200 runs fill a disk
        shutil.rmtree(path)

    def delta(name: str) -> int:
        return after[name] - before[name]

    written = delta("rocksdb.flush.write.bytes") + delta("rocksdb.compact.write.bytes")
    cost = (delta("rocksdb.block.cache.data.miss") + written / BLOCK) / operations
    return cost, path


def options_of(config, system: System) -> str:
    return config.export(system).options_file()


@dataclass(frozen=True)
class Outcome:
    """One workload's figures (module doc)."""

    name: str
    defaults: tuple[float, ...]  # measured cost of each repeat
    advised: tuple[float, ...]
    tpe_trials: tuple[float, ...]  # each trial's one measured cost, in order
    tpe_best_again: tuple[float, ...]  # TPE's best options measured again, as the pick is
    advise_seconds: float
    traced_run_seconds: float  # the traced run of the defaults advise read
    tpe_seconds: float  # TPE's trials, end to end
    predicted_defaults: float
    predicted_advised: float
    advised_options: str
    tpe_options: str
    tpe_best_trial: int  # 1-based

    @property
    def against_best(self) -> float:
        """The pick's mean over TPE's best re-measured mean, minus 1 (negative: the pick is
        cheaper)."""
        return float(np.mean(self.advised)) / float(np.mean(self.tpe_best_again)) - 1.0

    @property
    def against_best_trial(self) -> float:
        """The same against TPE's best trial as TPE measured it (one run, biased low)."""
        return float(np.mean(self.advised)) / min(self.tpe_trials) - 1.0

    @property
    def time_ratio(self) -> float:
        return self.advise_seconds / self.tpe_seconds

    @property
    def first_below(self) -> int | None:
        mean = float(np.mean(self.advised))
        return next((i + 1 for i, v in enumerate(self.tpe_trials) if v < mean), None)


def ratio(r: float) -> str:
    """A time ratio as 1/N when advise is the faster, else as a multiple."""
    return f"1/{1 / r:.0f}" if r < 1 else f"{r:.1f}x"


def spread(costs: tuple[float, ...]) -> str:
    return f"{np.mean(costs):.4f} (runs {', '.join(f'{c:.4f}' for c in costs)})"


def tune(bridge, root: Path, name: str, entries: int, operations: int, trials: int,
         repeats: int) -> Outcome:
    """The defaults, advise's pick and TPE's search on workload ``name`` (module doc)."""
    import optuna

    mix, theta = WORKLOADS[name]
    system = _system(entries)
    memory = BUFFER + BITS * entries / 8  # bytes: the buffer and the filters
    root = root / name.replace(".", "_")
    root.mkdir()

    def measure(tag: str, options: str, trace: bool = False) -> tuple[float, Path]:
        return run(bridge, root, tag, options, entries, operations, mix, theta, trace=trace)

    defaults = RocksDBConfig(10.0, 4, False, BUFFER, BUFFER, BITS, 4 * BUFFER)
    default_costs = []
    for i in range(repeats):
        t = time.perf_counter()
        cost, path = measure(f"defaults{i}", options_of(defaults, system), trace=i == 0)
        default_costs.append(cost)
        if i == 0:
            traced_s = time.perf_counter() - t
            t = time.perf_counter()
            advice = advise(path, trace=root / "defaults0.trace")
            advise_s = time.perf_counter() - t
    pick = advice.recommendation.best.config
    advised = tuple(measure(f"advised{i}", options_of(pick, system))[0]
                    for i in range(repeats))
    texts: dict[int, tuple[str, str]] = {}  # trial -> (OPTIONS text, options in words)

    def objective(trial: optuna.Trial) -> float:
        share = trial.suggest_categorical("buffer_share", [1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2,
                                                           3 / 4])
        # RocksDB raises a smaller write buffer to 64 KiB: a trial below it would hold more
        # memory than the budget (wacky_model.rocksdb_tuning.MIN_WRITE_BUFFER).
        buffer = max(MIN_WRITE_BUFFER, int(share * memory))
        bits = max(0.0, (memory - buffer) * 8 / entries)
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
        texts[trial.number] = (options_of(config, system), config.options_text())
        return measure(f"trial{trial.number}", texts[trial.number][0])[0]

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    t = time.perf_counter()
    study.optimize(objective, n_trials=trials)
    tpe_s = time.perf_counter() - t
    best = study.best_trial.number
    again = tuple(measure(f"tpe_best{i}", texts[best][0])[0] for i in range(repeats))
    return Outcome(name, tuple(default_costs), advised,
                   tuple(float(tr.value) for tr in study.trials), again, advise_s, traced_s,
                   tpe_s, advice.current.theta, advice.advised.theta, pick.options_text(),
                   texts[best][1], best + 1)


def report(o: Outcome, trials: int) -> list[str]:
    mix, theta = WORKLOADS[o.name]
    lines = [f"{o.name}: {', '.join(f'{k} {v:g}' for k, v in mix.items())}; "
             + (f"Zipf {theta:g}" if theta > 0 else "uniform keys"),
             f"  RocksDB's defaults:    {spread(o.defaults)}; predicted Θ "
             f"{o.predicted_defaults:.4f}",
             f"  advise's pick:         {spread(o.advised)} ({o.advised_options}); predicted "
             f"Θ {o.predicted_advised:.4f}",
             f"  TPE best of {trials}, trial: {min(o.tpe_trials):.4f} (trial {o.tpe_best_trial}: "
             f"{o.tpe_options})",
             f"  TPE best, re-measured: {spread(o.tpe_best_again)}",
             f"  pick against TPE's best re-measured {o.against_best:+.1%}, against its trial "
             f"{o.against_best_trial:+.1%}; TPE first measured below the pick's mean at trial "
             + (str(o.first_below) if o.first_below is not None else f"none of {trials}"),
             "  TPE's best so far after 10, 20, 40 trials: "
             + ", ".join(f"{min(o.tpe_trials[:n]):.4f}" for n in (10, 20, 40)
                         if n <= len(o.tpe_trials)) if len(o.tpe_trials) >= 10 else "-",
             f"  wall time: advise {o.advise_seconds:.1f} s (after a traced run of the defaults, "
             f"{o.traced_run_seconds:.1f} s), TPE's {trials} trials {o.tpe_seconds:.0f} s; "
             f"ratio {ratio(o.time_ratio)}"]
    return lines


def summary(outcomes: list[Outcome]) -> list[str]:
    rows = ["| workload | defaults | advise's pick | TPE best trial | TPE best re-measured | "
            "pick vs TPE best (re-measured) | within 5% | advise (s) | TPE (s) | time ratio | "
            "under 1/100 |", "|---" * 11 + "|"]
    for o in outcomes:
        rows.append(
            f"| {o.name} | {np.mean(o.defaults):.4f} ({min(o.defaults):.4f}-"
            f"{max(o.defaults):.4f}) | {np.mean(o.advised):.4f} ({min(o.advised):.4f}-"
            f"{max(o.advised):.4f}) | {min(o.tpe_trials):.4f} | {np.mean(o.tpe_best_again):.4f}"
            f" ({min(o.tpe_best_again):.4f}-{max(o.tpe_best_again):.4f}) | "
            f"{o.against_best:+.1%} | {'yes' if o.against_best <= WITHIN else 'no'} | "
            f"{o.advise_seconds:.1f} | {o.tpe_seconds:.0f} | {ratio(o.time_ratio)} | "
            f"{'yes' if o.time_ratio < TIME_RATIO else 'no'} |")
    within = sum(o.against_best <= WITHIN for o in outcomes)
    fast = sum(o.time_ratio < TIME_RATIO for o in outcomes)
    rows += ["", f"Within 5% of TPE's best (re-measured) or better: {within} of "
             f"{len(outcomes)}; advise under 1/100 of TPE's tuning time: {fast} of "
             f"{len(outcomes)}."]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", choices=list(WORKLOADS),
                        default=list(WORKLOADS), metavar="NAME",
                        help=f"a subset of {', '.join(WORKLOADS)} (default: all four)")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--entries", type=int, default=40_000)
    parser.add_argument("--operations", type=int, default=60_000)
    parser.add_argument("--repeats", type=int, default=3,
                        help="measured runs of the defaults, of advise's pick and of TPE's best "
                        "(the spread is the measurement's noise)")
    args = parser.parse_args()
    bridge = rocksdb_bridge.load()
    root = Path(tempfile.mkdtemp(prefix="bench-tuner-"))
    start = time.perf_counter()
    memory = BUFFER + BITS * args.entries / 8
    print(f"{args.entries:,} entries of 8 + {VALUE_BYTES} B, {args.operations:,} operations; "
          f"memory {memory:,.0f} bytes; measured I/O per operation (data blocks read + blocks "
          f"written); {args.repeats} runs of the same options and keys each", flush=True)
    outcomes = []
    for name in args.workloads:
        o = tune(bridge, root, name, args.entries, args.operations, args.trials, args.repeats)
        outcomes.append(o)
        print("\n".join(report(o, args.trials)), flush=True)
    print()
    print("\n".join(summary(outcomes)))
    print(f"total {time.perf_counter() - start:.0f} s (databases in {root})")


if __name__ == "__main__":
    main()
