"""wacky advise on the four workloads of tests/test_advise.py: what it inferred against what the
workload was, and the model's write amplification against the one the database measured since
its reopen (docs/ADVISE.md). The advised options applied and measured on steady windows are
``wacky sweep advise`` (validation/advise.py).

    .venv/bin/python benchmarks/advise_workloads.py [DIR]

builds the databases in DIR (default: a temporary directory) through the RocksDB bridge and
prints a Markdown table."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rocksdb_bridge  # noqa: E402
from validation.advise import ENTRIES, OPERATIONS, WORKLOADS  # noqa: E402
from validation.advise_dbs import build  # noqa: E402
from wacky_model.advise import advise  # noqa: E402


def _session(a, e: dict) -> str:
    """The model over the LOG's session on the current options: the partial-merge model's window
    of its writes (as fresh inserts) after a load of the entries, and the skew model S2f at the
    session's middle (``history_writes``, as validation/rocksdb.py prices its skew windows)."""
    from wacky_model.pricing import stock_export
    from wacky_model.rocksdb_model import leveled_costs, leveled_policy
    from wacky_model.rocksdb_tuning import RocksDBConfig
    from wacky_model.skew import leveled_skew_costs

    if not isinstance(a.current_config, RocksDBConfig) or not e["window_writes"]:
        return "- | -"
    config = a.current_config.configuration
    system = config.system(a.system)
    export = stock_export(config, system)
    partial = leveled_costs(export, a.system.entries, e["window_writes"]).write_amp
    s2f = leveled_skew_costs(leveled_policy(export), config.memory.filter_bits_per_entry, system,
                             a.workload, history_writes=e["window_writes"] / 2).write_amp
    return " | ".join(f"{w:.2f} ({w / e['measured'] - 1:+.1%})" for w in (partial, s2f))


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="advise-"))
    root.mkdir(parents=True, exist_ok=True)
    b = rocksdb_bridge.load()
    print("| workload | mix (point/zero/write/range) | inferred | theta | write keys (best Zipf) "
          "| read keys (best Zipf) | entries | writes since the reopen | W-Amp, LOG Sum row "
          "| W-Amp per write | W-Amp, model | model error (per write) | steady window "
          "| partial model over the session (its error) "
          "| S2f at the session's middle (its error) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, (name, (mix, theta)) in enumerate(WORKLOADS.items()):
        bt = build(b, root, name.replace(".", "_"), entries=ENTRIES, operations=OPERATIONS,
                   mix=mix, theta=theta, seed=i + 1)
        a = advise(bt.path, trace=bt.trace)
        kinds = ("point_reads", "zero_reads", "writes", "range_reads")
        t = "/".join(f"{mix[k]:.2f}" for k in kinds)
        g = "/".join(f"{a.figure(k).value:.3f}" for k in kinds)
        wk = f"{a.figure('write_keys').value.spec} ({a.figure('write_zipf_theta').value:.3f})"
        rk = f"{a.figure('read_keys').value.spec} ({a.figure('read_zipf_theta').value:.3f})"
        e = a.model_error()
        print(f"| {name} | {t} | {g} | {theta} | {wk} | {rk} | "
              f"{a.figure('entries').value:,.0f} of {bt.entries:,} | "
              f"{e['window_writes']:,} | {a.measured['write_amp'].value} | {e['measured']:.2f} | "
              f"{e['predicted']:.2f} | {e['relative_error']:+.1%} | "
              f"{'yes' if e['steady'] else 'no'} | {_session(a, e)} |")
        changes = ", ".join(f"{c.name} {c.current} -> {c.advised}" for c in a.changes)
        print(f"  {name}: {changes}; Θ {a.current.theta:.4g} -> {a.advised.theta:.4g}",
              file=sys.stderr)
    print(f"\n(databases in {root})")


if __name__ == "__main__":
    main()
