"""``wacky sweep advisor``: RocksDB's Advisor's rules and ``wacky advise`` on databases that stall
(issue 35; docs/ADVISE.md, "Against RocksDB's Advisor").

Each database of :data:`STALLED` is built as tests/test_advise.py builds its databases
(:func:`validation.advise_dbs.build`: 60,000 keys loaded, reopened with statistics, a trace and a
stats dump every second, then 30,000 operations of a known mix) but with options that make it
stall: level-0 triggers just above the compaction trigger, small pending-compaction-bytes limits
or two memtables, one background job, and a delayed write rate of 256 KiB/s (RocksDB's default is
16 MiB/s, which these small writes seldom reach: a slowdown would cost nothing measurable).
Then:

* the Advisor's rules (:mod:`validation.advisor_rules`, rules.ini restated) read its LOG and
  OPTIONS file, and give the rules that fire and their changes (one Advisor step each);
* ``wacky advise`` reads the directory and the trace, as the CLI does, and gives its ``--out``
  OPTIONS file;
* the database's own OPTIONS file, the Advisor's and advise's each run the same workload on fresh
  databases (the same keys, operations and seed, ``REPEATS`` times: seeds 0, 1, ...), measured
  two ways: (a) a stall run (:func:`stall_run`: the load of the keys, then ``OPERATIONS``
  operations of the mix; RocksDB's ``rocksdb.stall.micros`` ticker over the whole run, the wall
  time of the load and of the operations, the LOG's stall lines), and (b) Θ, the I/O per
  operation as ``wacky sweep advise`` measures it (:func:`validation.advise.measure_options`:
  run_stock's steady window, Eq 16 for the mix).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from validation import advisor_rules
from validation.advise import ENTRIES, OPERATIONS, RANGE_ENTRIES, WORKLOADS, true_workload
from validation.advise_dbs import (
    BLOCK_CACHE_BYTES,
    ROUND,
    VALUE_BYTES,
    build,
    options_text,
    run_round,
)
from validation.generators import rank_sampler
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table

REPEATS = 2
DELAYED_WRITE_RATE = 256 << 10  # bytes per second while writes are slowed down
# name -> (what stalls it, the workload of validation/advise.py it runs, DBOptions, CFOptions)
STALLED: dict[str, tuple[str, str, dict[str, str], dict[str, str]]] = {
    "l0-files": ("level 0 full: slowdown at 5 files, stop at 6, compaction trigger 4",
                 "writes-uniform",
                 {"max_background_jobs": "1", "delayed_write_rate": str(DELAYED_WRITE_RATE)},
                 {"level0_slowdown_writes_trigger": "5", "level0_stop_writes_trigger": "6"}),
    "pending-bytes": ("pending compaction bytes: soft limit 1 MiB, hard 4 MiB",
                      "ranges-zipf0.6",
                      {"max_background_jobs": "1",
                       "delayed_write_rate": str(DELAYED_WRITE_RATE)},
                      {"soft_pending_compaction_bytes_limit": str(1 << 20),
                       "hard_pending_compaction_bytes_limit": str(4 << 20)}),
    # 64 KiB: RocksDB raises a smaller write_buffer_size to it (SanitizeOptions).
    "memtables": ("two memtables of 64 KiB (RocksDB's smallest), one background job",
                  "writes-uniform",
                  {"max_background_jobs": "1", "delayed_write_rate": str(DELAYED_WRITE_RATE)},
                  {"write_buffer_size": str(64 << 10), "max_write_buffer_number": "2"}),
}
_STALL_LINE = re.compile(r"(Stalling|Stopping) writes because")


def with_options(text: str, db: dict[str, str], cf: dict[str, str]) -> str:
    """The OPTIONS file ``text`` with ``db`` set in [DBOptions] and ``cf`` in the default
    [CFOptions]: a line replaced where the file has it, else added under the section's head."""
    out: list[str] = []
    todo: dict[str, str] = {}
    lines = text.splitlines()
    for raw in lines:
        s = raw.strip()
        if s.startswith("["):
            out += [f"  {k}={v}" for k, v in todo.items()]
            todo = (dict(db) if s == "[DBOptions]" else dict(cf)
                    if s.startswith("[CFOptions") and '"default"' in s else {})
            out.append(raw)
            continue
        name = s.split("=", 1)[0].strip() if "=" in s and not s.startswith("#") else None
        if name in todo:
            out.append(f"  {name}={todo.pop(name)}")
            continue
        out.append(raw)
    out += [f"  {k}={v}" for k, v in todo.items()]
    return "\n".join(out) + "\n"


def stalled_options(name: str) -> str:
    _, _, db, cf = STALLED[name]
    return with_options(options_text(), db, cf)


def stall_run(bridge, root: Path, tag: str, text: str, mix: dict[str, float], theta: float,
              seed: int) -> dict[str, float]:
    """One stall run of the OPTIONS file ``text`` (module doc, (a)) on a fresh database."""
    path, opts = root / tag, root / f"{tag}.options"
    opts.write_text(text)
    rng = np.random.default_rng(seed)
    keys = rng.permutation(ENTRIES).astype(np.uint64) * np.uint64(2)  # even keys, as build's
    db = bridge.Database(str(path), str(opts), BLOCK_CACHE_BYTES, wal=True)
    t = time.perf_counter()
    for start in range(0, ENTRIES, 10_000):
        chunk = keys[start:start + 10_000]
        db.put_many(chunk, np.zeros((chunk.size, VALUE_BYTES), dtype=np.uint8))
    load_s = time.perf_counter() - t
    ranked = rng.permutation(keys)
    sampler = rank_sampler(advisor_theta_keys(theta), ENTRIES)
    kinds = ("point_reads", "zero_reads", "writes", "range_reads")
    p = np.array([mix.get(k, 0.0) for k in kinds])
    values = np.zeros((ROUND, VALUE_BYTES), dtype=np.uint8)
    t = time.perf_counter()
    for _ in range(OPERATIONS // ROUND):
        run_round(db, rng, kinds, p, ranked, sampler, values, ENTRIES, RANGE_ENTRIES)
    operations_s = time.perf_counter() - t
    t = time.perf_counter()
    db.wait_for_background_work(300.0)
    settle_s = time.perf_counter() - t
    tickers = db.tickers()
    del db
    log = (path / "LOG").read_text(errors="replace")
    return {"stall_s": tickers["rocksdb.stall.micros"] / 1e6, "load_s": load_s,
            "operations_s": operations_s, "settle_s": settle_s,
            "stall_lines": float(len(_STALL_LINE.findall(log))),
            "write_bytes": float(tickers["rocksdb.flush.write.bytes"]
                                 + tickers["rocksdb.compact.write.bytes"])}


def advisor_theta_keys(theta: float) -> Any:
    """The key distribution of the updates and existing-key reads: Zipf(theta), 0 uniform (as
    validation/advise_dbs.py draws them)."""
    from wacky_model.types import KeyDistribution

    return KeyDistribution("zipf", theta=theta) if theta > 0 else KeyDistribution()


def compare(name: str, repeats: int = REPEATS) -> dict[str, Any]:
    """Build ``name``'s stalled database, run both advisers on it, and measure the three OPTIONS
    files (module doc)."""
    import rocksdb_bridge
    from validation.advise import measure_options
    from wacky_model.advise import advise

    about, workload_name, _, _ = STALLED[name]
    mix, theta = WORKLOADS[workload_name]
    bridge = rocksdb_bridge.load()
    with tempfile.TemporaryDirectory(prefix="wacky-advisor-") as tmp:
        root = Path(tmp)
        built = build(bridge, root, name.replace("-", "_"), entries=ENTRIES,
                      operations=OPERATIONS, mix=mix, theta=theta, seed=1,
                      options_file=stalled_options(name))
        t = time.perf_counter()
        a = advise(built.path, trace=built.trace)
        advise_s = time.perf_counter() - t
        options_path = Path(a.inputs["options"] or "")
        current = options_path.read_text()
        t = time.perf_counter()
        rules = advisor_rules.advice(built.path / "LOG", options_path)
        rules_s = time.perf_counter() - t
        texts = {"current": current,
                 "Advisor": advisor_rules.apply_changes(current, rules.changes),
                 "wacky advise": a.options_file()}
        for side, text in texts.items():
            (root / f"{side}.ini").write_text(text)
            bridge.check_options_file(str(root / f"{side}.ini"))
        built_log = (built.path / "LOG").read_text(errors="replace")
        stalls = {side: [stall_run(bridge, root, f"{side.replace(' ', '_')}{s}", text, mix,
                                   theta, s) for s in range(repeats)]
                  for side, text in texts.items()}
    workload = true_workload(mix, theta)
    theta_runs = {side: [measure_options(text, workload, s)["theta"] for s in range(repeats)]
                  for side, text in texts.items()}
    return {
        "name": name, "about": about, "workload": workload_name, "mix": mix, "theta": theta,
        "log_stall_lines": len(_STALL_LINE.findall(built_log)),
        "log_stall_micros": built.tickers.get("rocksdb.stall.micros"),
        "fired": [(f.rule, f.evidence) for f in rules.fired],
        "advisor_changes": [f"{c.name} {c.current} -> {c.advised}" for c in rules.changes],
        "advisor_unchanged": list(rules.unchanged),
        "advise_changes": [f"{c.name} {c.current} -> {c.advised}" for c in a.changes],
        "advise_predicted": {"current": a.current.theta if a.current else None,
                             "advised": a.advised.theta if a.advised else None},
        "advise_s": advise_s, "rules_s": rules_s,
        "stalls": stalls, "theta_runs": theta_runs,
    }


def _runs(v: Sequence[float], f: str = ".2f") -> str:
    return f"{np.mean(v):{f}} ({', '.join(f'{x:{f}}' for x in v)})"


def render(results: Sequence[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for m in results:
        lines += [f"### {m['name']}: {m['about']}; workload {m['workload']}", "",
                  f"The built database's LOG: {m['log_stall_lines']} stall lines; "
                  f"{(m['log_stall_micros'] or 0) / 1e6:.2f} s stalled over its "
                  f"{OPERATIONS:,} operations.", "",
                  "Advisor rules fired: " + ("; ".join(
                      f"`{rule}` ({'; '.join(ev)})" for rule, ev in m["fired"]) or "none")
                  + ".", "",
                  "Advisor's changes: " + (", ".join(m["advisor_changes"]) or "none")
                  + ("; unchanged: " + "; ".join(m["advisor_unchanged"])
                     if m["advisor_unchanged"] else "") + ".", "",
                  "wacky advise's changes: " + (", ".join(m["advise_changes"]) or "none")
                  + (f" (predicted Θ {m['advise_predicted']['current']:.4f} -> "
                     f"{m['advise_predicted']['advised']:.4f})"
                     if m["advise_predicted"]["advised"] is not None else "") + ".", ""]
        lines += table(
            ["options", "stalled (s)", "stall lines in LOG", "load (s)", "operations (s)",
             "MiB written by flush and compaction", "Θ measured (I/O per operation)"],
            ([side, _runs([r["stall_s"] for r in runs]),
              _runs([r["stall_lines"] for r in runs], ".0f"),
              _runs([r["load_s"] for r in runs]), _runs([r["operations_s"] for r in runs]),
              _runs([r["write_bytes"] / 2**20 for r in runs], ".1f"),
              _runs(m["theta_runs"][side], ".4f")]
             for side, runs in m["stalls"].items()))
        lines.append("")
    return lines


def _cases(sc: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [SweepCase(name, "advisor", None, {"name": name}, compare) for name in STALLED]


def _section(results: Sequence[SweepResult], sc: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    return section(
        "advisor", "RocksDB's Advisor and wacky advise on databases that stall", command,
        f"Each database is built as tests/test_advise.py builds its ({ENTRIES:,} keys of 8 + "
        f"{VALUE_BYTES} B loaded, reopened with a trace and a stats dump every second, "
        f"{OPERATIONS:,} operations of one of `wacky sweep advise`'s workloads) with options "
        "that make it stall (one background job, a delayed write rate of 256 KiB/s, and the "
        "trigger named in its heading). RocksDB's Advisor's rules (validation/advisor_rules.py, "
        "tools/advisor/advisor/rules.ini restated, one Advisor step per suggested option) read "
        "its LOG and OPTIONS file; `wacky advise` reads the directory and the trace. The "
        "database's OPTIONS file, the Advisor's and advise's `--out` file each run the same "
        f"workload on fresh databases {REPEATS} times (seeds 0 to {REPEATS - 1}): the load and "
        f"{OPERATIONS:,} operations, measuring RocksDB's `rocksdb.stall.micros`, the wall time "
        "of the load and of the operations, the LOG's stall lines and the bytes flushed and "
        "compacted; and Θ, the I/O per operation as `wacky sweep advise` measures it "
        "(run_stock's steady window, Eq 16 for the mix). Each cell: the mean (the runs).",
        render([r.result for r in results]), refused)


SETS = {"advisor": SetCode(_cases, _section)}
