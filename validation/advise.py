"""``wacky sweep advise``: wacky advise's options applied and measured on RocksDB (issue 35).

For each of the four workloads of tests/test_advise.py a database is built as the test builds it
(:func:`validation.advise_dbs.build`: 60,000 keys loaded, reopened with statistics, a trace and
stats dumps, 30,000 operations of a known mix), and ``wacky advise`` reads it. Then the same
workload (its mix, its Zipf theta over the loaded keys for updates and existing-key reads,
zero-result reads of absent keys, 8-entry ranges, the same scale and block cache) runs on fresh
databases through the bridge with (a) the database's own OPTIONS file and (b) advise's ``--out``
OPTIONS file, each measured as :mod:`validation.rocksdb` measures stock RocksDB under skew
(:func:`validation.rocksdb.run_stock`: the preload, a warm-up of updates, then a window of
updates with the reads paced over it, each read batch counted only while no flush or compaction
ran; write amplification from RocksDB's flush and compaction bytes in entries per write), and Θ
(Eq 16, :func:`validation.results.with_theta`) for the workload's mix. Each side runs
``REPEATS`` times (seeds 0, 1, ...): the spread is the measurement's noise.

Reported per workload: measured Θ of both, the measured gain (1 - advised / current), advise's
predicted gain (1 - its Θ of the pick / its Θ of the current options), whether the predicted gain
is within a third of the measured one, whether the advised options cost no more than the current
ones (beyond the noise), and the model's write amplification of the current options against
the measured steady window's and against the LOG's.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cost_models.objective import COST_ROW
from validation import window
from validation.advise_dbs import BLOCK_CACHE_BYTES, BUFFER_BYTES, VALUE_BYTES, build
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table

ENTRIES = 60_000
OPERATIONS = 30_000
RANGE_ENTRIES = 8
WORKLOADS = {
    "writes-uniform": ({"point_reads": 0.1, "zero_reads": 0.1, "writes": 0.8,
                        "range_reads": 0.0}, 0.0),
    "reads-zipf0.9": ({"point_reads": 0.6, "zero_reads": 0.2, "writes": 0.2,
                       "range_reads": 0.0}, 0.9),
    "ranges-zipf0.6": ({"point_reads": 0.3, "zero_reads": 0.1, "writes": 0.4,
                        "range_reads": 0.2}, 0.6),
    "zero-reads-zipf0.3": ({"point_reads": 0.2, "zero_reads": 0.5, "writes": 0.3,
                            "range_reads": 0.0}, 0.3),
}
# The measured window: a warm-up of WARMUP_LOADS loads of updates, then WINDOW_LOADS loads
# (validation/rocksdb.py's skew window is half a load of each; longer here, so that the options
# compared run at their steady state: 25 flushes of the 256 KiB buffer a load).
WARMUP_LOADS = 1.0
WINDOW_LOADS = 1.0
REPEATS = 3
READS = 4_000  # reads of each kind over the window (Scale.reads)
# "Costs no more": the advised Θ at most the current Θ plus the measured noise, the larger of
# the two sides' spreads (max - min over the repeats).
WITHIN = 1.0 / 3.0


def scale(seed: int = 0) -> Scale:
    return Scale(entries=ENTRIES, entry_bytes=8 + VALUE_BYTES, block_bytes=4096,
                 buffer_bytes=BUFFER_BYTES, reads=READS, range_entries=RANGE_ENTRIES, seed=seed)


def true_workload(mix: dict[str, float], theta: float) -> Any:
    """The workload as the databases were built with it: every write an update of a loaded key."""
    from wacky_model.types import KeyDistribution, Workload

    keys = KeyDistribution("zipf", theta=theta) if theta > 0 else KeyDistribution()
    B = 4096 // (8 + VALUE_BYTES)
    return Workload(mix["point_reads"], mix["zero_reads"], mix["writes"], mix["range_reads"],
                    RANGE_ENTRIES / B if mix["range_reads"] > 0 else None, write_keys=keys,
                    read_keys=keys, update_fraction=1.0)


@dataclass(frozen=True)
class _Options:
    """An OPTIONS file's text as validation.rocksdb's ``_database`` opens it (no partitions, no
    db_paths); ``system`` sets the write chunk (the current options' buffer for both sides, so
    that both see the same stream of writes and reads)."""

    text: str
    system: Any
    partitions: int = 1
    db_paths: tuple = ()

    def options_file(self) -> str:
        return self.text


def measure_options(text: str, workload: Any, seed: int) -> dict[str, float]:
    """One measured run of the OPTIONS file ``text`` under ``workload`` (module doc)."""
    from validation.results import with_theta
    from validation.rocksdb import run_stock
    from wacky_model.skew import skewed_workload

    sc = scale(seed)
    rule = window.fixed(int(WINDOW_LOADS * ENTRIES), settle_reads=True,
                        warmup=int(WARMUP_LOADS * ENTRIES))
    run = run_stock(_Options(text, sc.system(10.0, None)), sc, RANGE_ENTRIES,
                    skew=skewed_workload(workload), cache_bytes=BLOCK_CACHE_BYTES, rule=rule)
    c = with_theta(run.costs, workload, sc.block_bytes // sc.entry_bytes)
    per_level = c.cache_hit_rate_per_level or ()
    return {"theta": float(c.theta), "write_amp": c.write_amp,
            "hit_rate": c.cache_hit_rate, "last_level_hit_rate": per_level[-1] if per_level
            else None,
            "zero_result_read": c.zero_result_read, "point_read": c.point_read_uniform,
            "range_io": c.range_io, "window_writes": run.window.writes,
            "warmup_writes": run.window.warmup_writes,
            "read_batches_discarded": run.detail["read_batches_discarded"]}


def measure_workload(name: str, repeats: int = REPEATS, seed: int | None = None
                     ) -> dict[str, Any]:
    """Build ``name``'s database, advise on it, and measure the current and the advised
    OPTIONS files ``repeats`` times each."""
    import rocksdb_bridge
    from wacky_model.advise import advise

    mix, theta = WORKLOADS[name]
    i = list(WORKLOADS).index(name)
    bridge = rocksdb_bridge.load()
    with tempfile.TemporaryDirectory(prefix="wacky-advise-") as tmp:
        built = build(bridge, Path(tmp), name.replace(".", "_"), entries=ENTRIES,
                      operations=OPERATIONS, mix=mix, theta=theta,
                      seed=i + 1 if seed is None else seed)
        a = advise(built.path, trace=built.trace)
        current = Path(a.inputs["options"]).read_text()
        advised = a.options_file()
        bridge.check_options_file(str(Path(a.inputs["options"])))
    workload = true_workload(mix, theta)
    # The same model on the workload as it was drawn (every write an update): what the
    # prediction would be had advise inferred the workload exactly.
    from wacky_model.pricing import price

    truly = {"current": price(a.current_config.configuration, workload, a.system),
             "advised": price(a.recommendation.best.config.configuration, workload, a.system)}
    runs = {side: [measure_options(text, workload, s) for s in range(repeats)]
            for side, text in (("current", current), ("advised", advised))}
    err = a.model_error() or {}
    ranges = a.workload.range_blocks or 0.0

    def costs(priced: Any) -> dict[str, float]:
        # The terms of the model's Θ, in the measured runs' units (a range: runs and blocks).
        per_level = tuple(getattr(priced.detail, "cache_hit_rate_per_level", None) or ())
        # The last level that reads reach: a walk under updates can open a level of a few
        # spilled entries that no read ends in (docs/MODEL.md S2f), whose hit rate says nothing.
        shares = tuple(getattr(priced.detail, "read_level_share", None) or ())
        if len(shares) == len(per_level):
            per_level = tuple(h for h, r in zip(per_level, shares, strict=True) if r > 1e-9)
        return {"write_amp": priced.write_amp, "point_read": priced.point_read,
                "zero_result_read": priced.zero_result_read,
                # S7r: stock RocksDB's seeks and blocks through its cache (the row's terms).
                "range_io": (float(priced.row[COST_ROW.index("range_runs")]) + ranges
                             * float(priced.row[COST_ROW.index("range_spread")])),
                "hit_rate": getattr(priced.detail, "cache_hit_rate", None),
                "last_level_hit_rate": float(per_level[-1]) if per_level else None}

    return {
        "name": name, "mix": mix, "theta": theta,
        "predicted": {"current": a.current.theta, "advised": a.advised.theta,
                      "current_write_amp": a.current.write_amp,
                      "advised_write_amp": a.advised.write_amp,
                      "true_current": truly["current"].theta,
                      "true_advised": truly["advised"].theta,
                      "true_current_write_amp": truly["current"].write_amp},
        "inferred": {"update_fraction": a.workload.update_fraction,
                     "write_keys": str(getattr(a.workload.write_keys, "spec",
                                               a.workload.write_keys))},
        "model_costs": {"current": costs(a.current), "advised": costs(a.advised)},
        "changes": [f"{c.name} {c.current} -> {c.advised}" for c in a.changes],
        "log_write_amp": err.get("sum_row"),
        "log_write_amp_per_write": (a.measured["write_amp_per_write"].value
                                    if "write_amp_per_write" in a.measured else None),
        "log_window_writes": (a.measured["number.keys.written"].value
                              if "number.keys.written" in a.measured else None),
        "runs": runs,
    }


@dataclass(frozen=True)
class Row:
    """One workload's figures (module doc)."""

    name: str
    current: tuple[float, ...]  # measured Θ of each run
    advised: tuple[float, ...]
    predicted_gain: float
    current_write_amp: tuple[float, ...]
    model_write_amp: float  # the model's, current options
    log_write_amp: float | None  # the LOG's Sum row (per byte flushed)
    log_write_amp_per_write: float | None
    changes: tuple[str, ...]
    log_window_writes: int | None = None
    true_gain: float | None = None  # the model's gain on the workload as drawn
    true_model_write_amp: float | None = None
    update_fraction: float | None = None  # advise's inferred
    # side -> cost -> (model, measured mean): write_amp, point_read, zero_result_read, range_io
    terms: dict[str, dict[str, tuple[float, float]]] | None = None

    @property
    def measured_gain(self) -> float:
        return 1.0 - float(np.mean(self.advised)) / float(np.mean(self.current))

    @property
    def noise(self) -> float:
        """The larger spread (max - min) of the two sides' runs, in Θ."""
        return max(max(v) - min(v) for v in (self.current, self.advised))

    @property
    def within_a_third(self) -> bool:
        """The predicted gain within a third of the measured gain (|p - m| <= |m| / 3). When
        advise kept the current options (no change) it predicts no gain, and both sides run the
        same options: then the measured difference must lie within the noise."""
        if not self.changes:
            return abs(float(np.mean(self.advised)) - float(np.mean(self.current))) <= self.noise
        return abs(self.predicted_gain - self.measured_gain) <= WITHIN * abs(self.measured_gain)

    @property
    def no_costlier(self) -> bool:
        """The advised options' mean Θ at most the current's plus the noise."""
        return float(np.mean(self.advised)) <= float(np.mean(self.current)) + self.noise

    @property
    def steady_write_amp_error(self) -> float:
        return self.model_write_amp / float(np.mean(self.current_write_amp)) - 1.0


def row_of(m: dict[str, Any]) -> Row:
    p = m["predicted"]
    return Row(m["name"], tuple(r["theta"] for r in m["runs"]["current"]),
               tuple(r["theta"] for r in m["runs"]["advised"]),
               1.0 - p["advised"] / p["current"],
               tuple(r["write_amp"] for r in m["runs"]["current"]), p["current_write_amp"],
               m["log_write_amp"], m["log_write_amp_per_write"], tuple(m["changes"]),
               m["log_window_writes"], 1.0 - p["true_advised"] / p["true_current"],
               p["true_current_write_amp"], m["inferred"]["update_fraction"],
               {side: {k: (v, _mean([r.get(k) for r in m["runs"][side]]))
                       for k, v in m["model_costs"][side].items()}
                for side in ("current", "advised")})


def _mean(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else float(np.mean(values))


def _runs(v: Sequence[float]) -> str:
    return f"{np.mean(v):.4f} ({', '.join(f'{x:.4f}' for x in v)})"


def render_rows(rows: Sequence[Row]) -> list[str]:
    lines = table(["workload", "Θ current, measured (runs)", "Θ advised, measured (runs)",
                   "noise", "measured gain", "predicted gain", "within a third",
                   "advised costs no more", "predicted gain, workload as drawn"],
                  ([r.name, _runs(r.current), _runs(r.advised), f"{r.noise:.4f}",
                    f"{r.measured_gain:+.1%}", f"{r.predicted_gain:+.1%}",
                    "yes" if r.within_a_third else "no", "yes" if r.no_costlier else "no",
                    "-" if r.true_gain is None else f"{r.true_gain:+.1%}"]
                   for r in rows))
    within = sum(r.within_a_third for r in rows)
    cheaper = sum(r.no_costlier for r in rows)
    lines += ["", f"Predicted gain within a third of the measured: {within} of {len(rows)}. "
              f"Advised options costing no more than the current (within the noise): {cheaper} "
              f"of {len(rows)}."]

    def err(model: float | None, measured: float | None) -> str:
        return "-" if not model or not measured else f"{model / measured - 1:+.1%}"

    lines += ["", *table(
        ["workload", "W-Amp current, model (inferred workload)", "model, workload as drawn",
         "measured, steady window (runs)", "model error, steady", "LOG session: writes",
         "LOG Sum row (per byte flushed)", "model error against it",
         "LOG session, per write", "model error against it"],
        ([r.name, f"{r.model_write_amp:.2f}",
          "-" if r.true_model_write_amp is None else f"{r.true_model_write_amp:.2f}",
          f"{np.mean(r.current_write_amp):.2f} ("
          + ", ".join(f"{x:.2f}" for x in r.current_write_amp) + ")",
          f"{r.steady_write_amp_error:+.1%}",
          "-" if r.log_window_writes is None else f"{r.log_window_writes:,}",
          "-" if r.log_write_amp is None else f"{r.log_write_amp:.2f}",
          err(r.model_write_amp, r.log_write_amp),
          "-" if r.log_write_amp_per_write is None else f"{r.log_write_amp_per_write:.2f}",
          err(r.model_write_amp, r.log_write_amp_per_write)] for r in rows))]
    def pair(m: float | None, x: float | None, f: str) -> str:
        return "-" if m is None or x is None else f"{m:{f}} / {x:{f}}"

    lines += ["", "Each term of Θ, model (as advise priced it) / RocksDB (the runs' mean); range "
              "read I/O is measured and priced whether or not the mix has ranges; the hit rates "
              "are the existing-key reads' in the block cache, overall and in the last level:",
              "", *table(
                  ["workload", "options", "W-Amp", "existing-key read I/O",
                   "zero-result read I/O", "range read I/O", "hit rate", "last level's hit rate"],
                  ([r.name, side] + [pair(*r.terms[side].get(k, (None, None)), f) for k, f in (
                      ("write_amp", ".2f"), ("point_read", ".3f"), ("zero_result_read", ".4f"),
                      ("range_io", ".2f"), ("hit_rate", ".3f"), ("last_level_hit_rate", ".3f"))]
                   for r in rows if r.terms for side in ("current", "advised")))]
    lines += ["", "Options advise changed: " + "; ".join(
        f"{r.name} (inferred update share {r.update_fraction:.2f}): "
        + (", ".join(r.changes) or "none") for r in rows) + "."]
    return lines


def _cases(sc: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [SweepCase(name, "advise", None, {"name": name}, measure_workload)
            for name in WORKLOADS]


def _section(results: Sequence[SweepResult], sc: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    rows = [row_of(r.result) for r in results]
    return section(
        "advise", "wacky advise: the advised options applied and measured on RocksDB", command,
        f"For each workload of tests/test_advise.py ({ENTRIES:,} keys of 8 + {VALUE_BYTES} B, "
        f"a {BUFFER_BYTES >> 10} KiB buffer, a {BLOCK_CACHE_BYTES >> 20} MiB block cache, "
        "leveled compaction at multiplier 10, trigger 4, 10 bits per key), a database is built "
        f"and traced as the test builds it ({OPERATIONS:,} operations after a reopen) and "
        "`wacky advise` reads it; then the same workload (its mix; updates of loaded keys and "
        "existing-key reads Zipf(theta), zero-result reads of absent keys, 8-entry ranges) runs "
        "on fresh databases with the database's OPTIONS file and with advise's `--out` file, "
        f"measured as validation/rocksdb.py measures stock RocksDB under skew (`run_stock`): "
        f"the load, a warm-up of {WARMUP_LOADS:g} load of updates, then a window of "
        f"{WINDOW_LOADS:g} load with {READS:,} reads of each kind paced over it, a read batch "
        "counted only while no flush or compaction ran; write amplification is RocksDB's flush "
        "and compaction bytes in entries per write; Θ is Eq 16 for the mix. Each side runs "
        f"{REPEATS} times (seeds 0 to {REPEATS - 1}); noise is the larger side's spread. Gain: "
        "1 - Θ advised / Θ current, measured (means) and predicted (advise's own Θ of both); "
        "within a third: |predicted - measured| <= |measured| / 3 (where advise kept the "
        "current options, predicting no gain: the two sides' means within the noise); costs no "
        "more: the advised "
        "mean at most the current mean plus the noise. The second table is the model's write "
        "amplification for the current options against the measured steady window's and "
        "against the LOG's of the traced session.", render_rows(rows), refused)


SETS = {"advise": SetCode(_cases, _section)}
