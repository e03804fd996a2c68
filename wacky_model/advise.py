"""``wacky advise``: tune a RocksDB that is already running, from what it leaves on disk
(docs/ADVISE.md).

It never writes to the database. It reads the OPTIONS file (the current configuration), the info
LOG (compaction statistics per level, measured write amplification, stalls, uptime, and the
STATISTICS dump when statistics are on), optionally a RocksDB query trace (``DB::StartTrace``,
decoded by RocksDB's own reader through the bridge) and, given the database's directory, opens it
read-only through the bridge (entries per level, and which read keys exist).

From them it infers the :class:`~wacky_model.types.Workload` and
:class:`~wacky_model.types.System` the stock RocksDB search takes, each figure with its source
or, when no input gives it, an assumption and the flag that overrides it (:class:`Overrides`).
It prices the current configuration with the model ``recommend --target rocksdb`` prices every
stock configuration with (:func:`wacky_model.pricing.price`), sets its predicted write
amplification beside the LOG's measured one, runs that search at the same memory
(:func:`wacky_model.rocksdb_tuning.recommend_rocksdb`) and lists each option that changes, with
the search's reason and the predicted effect of that change alone.

Sources, in order of precedence:

* mix: the trace (its Gets, split into point and zero-result reads by whether the key exists:
  written earlier in the trace, else found in the read-only database), else the statistics
  (``rocksdb.number.keys.written``, ``.number.keys.read`` split by the get-hit tickers,
  ``.number.db.seek``), else the flags;
* key distributions: the trace's per-key counts of found Gets and of PUTs over the entries,
  fitted by :func:`wacky_model.trace_skew.fit_distribution`;
* range length: the trace's iterator bounds when it has them, else the statistics' Nexts per
  seek;
* entries: the read-only database's table files, else the LOG's table-file events (when they
  account for every live file), else the LOG's level sizes over bytes per entry;
* entry size: the LOG's table-file events (RocksDB's raw key and value sizes), else the trace's
  values;
* memory: write_buffer_size and the filter's bits per key from OPTIONS, the block cache from the
  LOG's options dump.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from cost_models.universal import UniversalOptions
from wacky_model.rocksdb_files import (
    Figure,
    LogFile,
    OptionsFile,
    RocksFileError,
    disk_bytes_per_entry,
    entry_bytes,
    latest_options_file,
    read_log,
    read_options_file,
)
from wacky_model.types import KeyDistribution, System, Workload

# RocksDB 7.8.3's defaults for the options advise reads, used when OPTIONS lacks one.
ROCKSDB_DEFAULTS = {
    "compaction_style": "kCompactionStyleLevel",
    "write_buffer_size": "67108864",
    "max_bytes_for_level_multiplier": "10.000000",
    "level0_file_num_compaction_trigger": "4",
    "max_bytes_for_level_base": "268435456",
    "target_file_size_base": "67108864",
    "target_file_size_multiplier": "1",
    "level_compaction_dynamic_level_bytes": "false",
    "num_levels": "7",
    "filter_policy": "nullptr",
    "block_size": "4096",
    "cache_index_and_filter_blocks": "false",
}
# Options the search chooses; advise changes only these and keeps the rest of the file.
KNOBS = ("compaction_style", "write_buffer_size", "max_bytes_for_level_multiplier",
         "level0_file_num_compaction_trigger", "max_bytes_for_level_base",
         "target_file_size_base", "level_compaction_dynamic_level_bytes", "num_levels",
         "compaction_options_universal", "level0_slowdown_writes_trigger",
         "level0_stop_writes_trigger", "filter_policy")
TABLE_KNOBS = ("filter_policy",)
GET_HIT_TICKERS = ("rocksdb.memtable.hit", "rocksdb.l0.hit", "rocksdb.l1.hit",
                   "rocksdb.l2andup.hit")
# The read-only database's keys are counted (an iterator over them) up to this many; a larger
# database's entries are its table files' (an overestimate by the versions not yet merged away).
COUNT_KEYS_LIMIT = 20_000_000
MIN_TRACE_OPS = 100  # a trace with fewer operations gives no mix (too few to tell)


class AdviseError(ValueError):
    """Bad input to advise: the message names the file or the flag and what is missing."""


@dataclass(frozen=True)
class Overrides:
    """Figures given on the command line (flag in brackets); None: inferred."""

    entries: float | None = None  # --entries
    entry_bytes: int | None = None  # --entry-bytes
    key_bytes: int | None = None  # --key-bytes
    point_reads: float | None = None  # --point-reads  (the four mix flags go together)
    zero_reads: float | None = None  # --zero-reads
    writes: float | None = None  # --writes
    range_reads: float | None = None  # --range-reads
    range_entries: float | None = None  # --range-entries
    write_keys: str | None = None  # --write-dist (zipf:0.9, uniform, ...)
    read_keys: str | None = None  # --read-dist
    update_fraction: float | None = None  # --update-fraction

    @property
    def mix_given(self) -> bool:
        return any(v is not None for v in (self.point_reads, self.zero_reads, self.writes,
                                           self.range_reads))


@dataclass(frozen=True)
class Inferred:
    """One figure of the workload or the system: its value, where it came from, and the flag
    that overrides it. ``assumed``: no input gave it."""

    name: str
    value: Any
    source: str
    flag: str | None = None
    assumed: bool = False

    def to_dict(self) -> dict:
        v = self.value
        return {"name": self.name, "value": v.spec if isinstance(v, KeyDistribution) else v,
                "source": self.source, "flag": self.flag, "assumed": self.assumed}


@dataclass(frozen=True)
class OptionChange:
    section: str
    name: str
    current: str
    advised: str
    reason: str
    effect: str  # the predicted effect of this change alone, or why it has none alone

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class TraceSummary:
    """What advise read from a RocksDB trace."""

    path: str
    operations: int
    puts: int
    deletes: int
    gets: int
    found_gets: int | None  # None: existence unknown (no read-only database)
    seeks: int
    complete: bool
    other_keys: int


@dataclass(frozen=True)
class Advice:
    inputs: dict[str, str | None]
    went_without: tuple[str, ...]  # inputs advise had to do without, and why
    figures: tuple[Inferred, ...]
    workload: Workload
    system: System  # the current memory (buffer and bits per key), as priced
    current_options: dict[str, str]
    current_config: Any  # a RocksDBConfig or UniversalConfig, or None (not priceable)
    current_note: str  # why the current configuration is (not exactly) priceable
    current: Any  # its Priced, or None
    measured: dict[str, Figure]  # what the LOG (and statistics) measured
    recommendation: Any  # RocksDBRecommendation
    advised: Any  # the pick's Priced under the same pricing as ``current``
    changes: tuple[OptionChange, ...]
    unknown_options: tuple[str, ...]
    options_version: str | None
    trace: TraceSummary | None = None
    notes: tuple[str, ...] = field(default=())
    # The LOG's compaction stats per level: files, bytes, entries (bytes over the bytes per
    # entry on disk, when the LOG's table-file events give it), W-Amp, KeyIn, with the line.
    levels: tuple[dict, ...] = field(default=())

    def figure(self, name: str) -> Inferred:
        for f in self.figures:
            if f.name == name:
                return f
        raise KeyError(name)

    def model_error(self) -> dict[str, Any] | None:
        """The model's write amplification for the current configuration against the one
        measured since the database opened, in the model's unit when the statistics give it
        (``write_amp_per_write``: entries flushed and compacted per entry the user wrote, as
        validation/rocksdb.py measures RocksDB), else the LOG's Sum-row W-Amp (bytes flushed and
        compacted per byte flushed: updates the memtable absorbed are not in its denominator).

        ``steady`` says whether the measured window is one the model's figure describes: at
        least one load of writes (``entries``) since the open, as the project's steady windows
        on RocksDB are (half a load of warm-up, then half a load). A shorter session after a
        reopen holds a few flushes and the compactions the reopen set off: its figure is not the
        steady state the model prices, and ``relative_error`` is then no measure of the model
        (``wacky sweep advise`` measures the current options on a steady window instead)."""
        per_write = self.measured.get("write_amp_per_write")
        m = per_write or self.measured.get("write_amp")
        if self.current is None or m is None or not m.value:
            return None
        sum_row = self.measured.get("write_amp")
        writes = self.measured.get("number.keys.written")
        window = None if writes is None else int(writes.value)
        entries = float(self.system.entries)
        return {"predicted": self.current.write_amp, "measured": float(m.value),
                "unit": "entries per write" if per_write is not None
                else "bytes per byte flushed (LOG Sum row)",
                "relative_error": self.current.write_amp / float(m.value) - 1.0,
                "sum_row": None if sum_row is None else float(sum_row.value),
                "window_writes": window, "entries": entries,
                "steady": window is not None and window >= entries}

    def options_file(self) -> str:
        """The current OPTIONS file with the advised options in place (each with its reason as a
        comment); the other options as they were."""
        return _rewrite_options(self)

    def to_dict(self) -> dict:
        rec = self.recommendation
        return {
            "inputs": self.inputs,
            "went_without": list(self.went_without),
            "inferred": [f.to_dict() for f in self.figures],
            "assumed": [f.to_dict() for f in self.figures if f.assumed],
            "workload": {"point_reads": self.workload.point_reads,
                         "zero_reads": self.workload.zero_reads,
                         "writes": self.workload.writes,
                         "range_reads": self.workload.range_reads,
                         "range_blocks": self.workload.range_blocks,
                         "write_keys": _spec(self.workload.write_keys),
                         "read_keys": _spec(self.workload.read_keys),
                         "update_fraction": self.workload.update_fraction},
            "system": {"entries": self.system.entries, "entry_bytes": self.system.entry_bytes,
                       "key_bytes": self.system.key_bytes, "block_bytes": self.system.block_bytes,
                       "buffer_bytes": self.system.buffer_bytes,
                       "bits_per_entry": self.system.bits_per_entry,
                       "cache_bytes": self.system.cache_bytes,
                       "paged_metadata": self.system.paged_metadata},
            "current": {"options": self.current_options, "note": self.current_note,
                        "config": None if self.current_config is None
                        else self.current_config.to_dict(),
                        "predicted": None if self.current is None else _costs(self.current)},
            "measured": {k: v.to_dict() for k, v in self.measured.items()},
            "model_error": self.model_error(),
            "advised": {"config": rec.best.config.to_dict(), "predicted": _costs(self.advised),
                        "reasons": list(rec.reasons)},
            "changes": [c.to_dict() for c in self.changes],
            "unknown_options": list(self.unknown_options),
            "options_version": self.options_version,
            "trace": None if self.trace is None else dict(self.trace.__dict__),
            "notes": list(self.notes),
            "levels": list(self.levels),
        }


def _spec(d: KeyDistribution | str) -> str:
    return d.spec if isinstance(d, KeyDistribution) else str(d)


def _costs(p: Any) -> dict[str, float]:
    return {"theta": p.theta, "write_amp": p.write_amp, "point_read": p.point_read,
            "zero_result_read": p.zero_result_read, "range_runs": p.range_runs}


# -- the inputs -----------------------------------------------------------------------------------

@dataclass
class _Inputs:
    db_dir: Path | None
    options: OptionsFile | None
    log: LogFile | None
    stats: LogFile | None
    trace_path: Path | None
    went_without: list[str]


def _resolve(db_dir: str | Path | None, options: str | Path | None, log: str | Path | None,
             stats: str | Path | None, trace: str | Path | None) -> _Inputs:
    without: list[str] = []
    d = None
    if db_dir is not None:
        d = Path(db_dir)
        if not d.is_dir():
            raise AdviseError(f"the database directory {d} does not exist")
    if options is None:
        if d is None:
            raise AdviseError("advise needs the database directory or its OPTIONS file "
                              "(--options FILE)")
        try:
            options = latest_options_file(d)
        except RocksFileError as e:
            raise AdviseError(str(e)) from e
    if log is None:
        if d is None:
            raise AdviseError("advise needs the database directory or its info LOG (--log FILE)")
        log = d / "LOG"
    try:
        opts = read_options_file(options)
        log_file = read_log(log)
        stats_file = None if stats is None else read_log(stats)
    except RocksFileError as e:
        raise AdviseError(str(e)) from e
    if stats_file is not None and not stats_file.statistics:
        raise AdviseError(f"the statistics file {stats} has no complete 'STATISTICS:' dump "
                          "(rocksdb.<ticker> COUNT : N lines)")
    if log_file.dump is None and not log_file.statistics and not log_file.created:
        raise AdviseError(
            f"the LOG {log} has none of the figures advise reads: " + "; ".join(
                log_file.problems))
    without += log_file.problems
    if trace is not None and not Path(trace).is_file():
        raise AdviseError(f"the trace file {trace} does not exist")
    return _Inputs(d, opts, log_file, stats_file, None if trace is None else Path(trace),
                   without)


def _bridge():
    import rocksdb_bridge

    return rocksdb_bridge.load() if rocksdb_bridge.available() else None


def _read_only(inputs: _Inputs) -> Any:
    """The database opened read-only through the bridge, or None (with the reason in
    went_without). AdviseError when another process (or this one) has it open."""
    if inputs.db_dir is None:
        return None
    bridge = _bridge()
    if bridge is None:
        inputs.went_without.append("the read-only database: the RocksDB bridge is not built")
        return None
    held = bridge.database_in_use(str(inputs.db_dir))
    if held:
        raise AdviseError(
            f"the database {inputs.db_dir} is open elsewhere (its LOCK file is held: {held}); "
            "advise reads a closed database, or give copies of its files (--options FILE --log "
            "FILE [--query-trace FILE]) without the directory")
    try:
        return bridge.ReadOnlyDatabase(str(inputs.db_dir))
    except RuntimeError as e:
        inputs.went_without.append(f"the read-only database ({e})")
        return None


# -- the trace ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Trace:
    summary: TraceSummary
    ops: np.ndarray
    keys: np.ndarray
    found: np.ndarray | None  # per Get (in order): the key existed
    value_bytes: np.ndarray
    range_entries: float | None  # from bounds


# Op codes of rocksdb_bridge.read_trace (trace.h).
_PUT, _GET, _SEEK, _SEEK_PREV, _DELETE, _MERGE, _DELETE_RANGE = range(7)


def _read_trace(path: Path, db: Any, entries: float | None) -> _Trace:
    bridge = _bridge()
    if bridge is None:
        raise AdviseError(f"reading the trace {path} needs the RocksDB bridge, which is not "
                          "built (librocksdb-dev missing)")
    try:
        t = bridge.read_trace(str(path))
    except (ValueError, RuntimeError) as e:
        raise AdviseError(str(e)) from e
    ops = np.asarray(t["ops"], dtype=np.uint8)
    keys = np.asarray(t["keys"], dtype=np.uint64)
    if ops.size == 0:
        raise AdviseError(f"the trace file {path} holds no operations")
    gets = ops == _GET
    found = None
    n_found = None
    if db is not None:
        # A Get found its key if the key's latest earlier write in the trace is a Put (or
        # Merge); with none, if the database holds it now. In key order (a stable sort keeps
        # each key's operations in trace order), the latest earlier write is the running
        # maximum of write positions, if it lies within the key's own group.
        order = np.argsort(keys, kind="stable")
        sorted_keys, sorted_ops = keys[order], ops[order]
        position = np.arange(ops.size)
        is_write = np.isin(sorted_ops, (_PUT, _MERGE, _DELETE))
        latest = np.maximum.accumulate(np.where(is_write, position, -1))
        before = np.concatenate([[-1], latest[:-1]])
        starts = np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]])
        group_start = np.maximum.accumulate(np.where(starts, position, 0))
        has_write = before >= group_start
        wrote_value = np.zeros(ops.size, dtype=bool)
        wrote_value[has_write] = sorted_ops[before[has_write]] != _DELETE
        found_arr = np.zeros(ops.size, dtype=bool)
        sorted_gets = sorted_ops == _GET
        unknown = sorted_gets & ~has_write
        if unknown.any():
            probe_keys = np.unique(sorted_keys[unknown])
            present = np.asarray(db.get_many(probe_keys), dtype=bool)
            found_arr[order[unknown]] = present[np.searchsorted(probe_keys, sorted_keys[unknown])]
        known = sorted_gets & has_write
        found_arr[order[known]] = wrote_value[known]
        found = found_arr[gets]
        n_found = int(found.sum())
    seeks = np.isin(ops, (_SEEK, _SEEK_PREV))
    range_entries = None
    bounded = seeks & np.asarray(t["has_upper"], dtype=bool)
    if bounded.any() and entries:
        lower = keys[bounded].astype(float)
        upper = np.asarray(t["upper"], dtype=np.uint64)[bounded].astype(float)
        puts = np.unique(keys[ops == _PUT])
        if puts.size > 1:
            density = puts.size / (float(puts[-1]) - float(puts[0]) + 1.0)
            range_entries = float(np.mean(upper - lower) * density)
    summary = TraceSummary(str(path), int(ops.size), int((ops == _PUT).sum()),
                           int((ops == _DELETE).sum()), int(gets.sum()), n_found,
                           int(seeks.sum()), bool(t["complete"]), int(t["other_keys"]))
    return _Trace(summary, ops, keys, found, np.asarray(t["value_bytes"]), range_entries)


# -- inference ------------------------------------------------------------------------------------

def _opt(options: OptionsFile, name: str) -> tuple[str, str]:
    """(value, source) of a CF or table option, RocksDB's default when the file lacks it."""
    for section in ("CFOptions", "TableOptions", "DBOptions"):
        f = options.get(name, section)
        if f is not None:
            return str(f.value), f.source
    return ROCKSDB_DEFAULTS[name], "RocksDB 7.8.3's default (not in the OPTIONS file)"


def filter_bits(policy: str) -> float:
    """Bits per key of an OPTIONS ``filter_policy`` value (``bloomfilter:10:false``,
    ``ribbonfilter:10``, ``nullptr``: 0)."""
    p = policy.strip()
    if p in ("", "nullptr"):
        return 0.0
    m = re.search(r"(?:bloomfilter|ribbonfilter|FilterPolicy)[^:]*:([\d.]+)", p)
    if m is None:
        raise AdviseError(f"filter_policy={policy}: advise reads bloomfilter:<bits>:... or "
                          "ribbonfilter:<bits>")
    return float(m.group(1))


def _universal(text: str, trigger: int) -> UniversalOptions:
    fields_ = dict(item.split("=", 1) for item in text.strip("{}").split(";") if "=" in item)
    return UniversalOptions(
        trigger=trigger, min_merge_width=int(fields_.get("min_merge_width", 2)),
        max_merge_width=int(fields_.get("max_merge_width", UniversalOptions().max_merge_width)),
        size_ratio=float(fields_.get("size_ratio", 1)),
        max_size_amplification_percent=float(fields_.get("max_size_amplification_percent",
                                                         200)))


def current_config(options: OptionsFile) -> tuple[Any, str]:
    """The stock configuration the OPTIONS file runs (rocksdb_tuning's RocksDBConfig or
    UniversalConfig), or None, and a note on what the pricing leaves out."""
    from wacky_model.rocksdb_tuning import RocksDBConfig, UniversalConfig

    style = _opt(options, "compaction_style")[0]
    buffer = int(_opt(options, "write_buffer_size")[0])
    bits = filter_bits(_opt(options, "filter_policy")[0])
    notes = []
    if style == "kCompactionStyleUniversal":
        u = _universal(_opt(options, "compaction_options_universal")[0] if options.get(
            "compaction_options_universal") else "{}",
            int(_opt(options, "level0_file_num_compaction_trigger")[0]))
        return UniversalConfig(u, buffer, bits), "universal compaction, priced by U1-U4"
    if style != "kCompactionStyleLevel":
        return None, f"compaction_style={style}: the model prices leveled and universal only"
    extra = options.get("max_bytes_for_level_multiplier_additional")
    if extra is not None and any(float(x) != 1.0 for x in str(extra.value).split(":") if x):
        notes.append("max_bytes_for_level_multiplier_additional is left out (one ratio priced)")
    if float(_opt(options, "target_file_size_multiplier")[0]) != 1.0:
        notes.append("target_file_size_multiplier is left out (files of one size priced)")
    config = RocksDBConfig(
        float(_opt(options, "max_bytes_for_level_multiplier")[0]),
        int(_opt(options, "level0_file_num_compaction_trigger")[0]),
        _opt(options, "level_compaction_dynamic_level_bytes")[0] == "true",
        int(_opt(options, "target_file_size_base")[0]), buffer, bits,
        int(_opt(options, "max_bytes_for_level_base")[0]))
    return config, "leveled compaction, priced by the partial-merge model" + (
        "; " + "; ".join(notes) if notes else "")


def _mix(inputs: _Inputs, trace: _Trace | None, over: Overrides
         ) -> tuple[dict[str, float], str, bool]:
    """(fractions, source, assumed)."""
    if over.mix_given:
        mix = {k: float(getattr(over, k) or 0.0) for k in ("point_reads", "zero_reads", "writes",
                                                            "range_reads")}
        total = sum(mix.values())
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise AdviseError(f"--point-reads, --zero-reads, --writes and --range-reads must sum "
                              f"to 1; they sum to {total:g}")
        return mix, "the flags", False
    st = inputs.stats or (inputs.log if inputs.log is not None and inputs.log.statistics
                          else None)

    def tick(name: str) -> int:
        f = None if st is None else st.ticker(name)
        return 0 if f is None else int(f.value)

    gets = tick("rocksdb.number.keys.read") + tick("rocksdb.number.multiget.keys.read")
    found = min(sum(tick(t) for t in GET_HIT_TICKERS), gets)
    if trace is not None and trace.summary.operations >= MIN_TRACE_OPS:
        s = trace.summary
        n = s.operations - int((trace.ops == _DELETE_RANGE).sum())
        assumed = False
        if s.found_gets is not None:
            hits = float(s.found_gets)
            how = ("Gets split by whether the key exists (written earlier in the trace, else in "
                   "the read-only database)")
        elif gets > 0:
            hits = s.gets * found / gets
            how = (f"Gets split by the share the statistics found ({found:,} of {gets:,}, "
                   f"get-hit tickers at {st.path}:{st.statistics_line})")
        else:
            hits, assumed = float(s.gets), s.gets > 0
            how = ("every Get counted as a point read of an existing key (no read-only database "
                   "or statistics to tell zero-result reads)")
        mix = {"point_reads": hits / n, "zero_reads": (s.gets - hits) / n,
               "writes": (s.puts + s.deletes + int((trace.ops == _MERGE).sum())) / n,
               "range_reads": s.seeks / n}
        return mix, f"the trace {s.path} ({s.operations:,} operations; {how})", assumed
    if st is not None:
        writes = tick("rocksdb.number.keys.written")
        seeks = tick("rocksdb.number.db.seek")
        n = gets + writes + seeks
        if n > 0:
            return ({"point_reads": found / n, "zero_reads": (gets - found) / n,
                     "writes": writes / n, "range_reads": seeks / n},
                    f"the STATISTICS dump at {st.path}:{st.statistics_line} (keys written, keys "
                    "read split by the get-hit tickers, seeks; since the database opened)",
                    False)
    raise AdviseError("no input gives the workload's mix: give a trace (--query-trace FILE), a LOG "
                      "with a STATISTICS dump (statistics on, stats_dump_period_sec), or the "
                      "mix (--point-reads, --zero-reads, --writes, --range-reads)")


def _entries(inputs: _Inputs, db: Any, per_entry: Figure | None
             ) -> tuple[float, str] | None:
    if db is not None:
        keys = int(db.count_keys(COUNT_KEYS_LIMIT))
        if 0 < keys <= COUNT_KEYS_LIMIT:
            return float(keys), f"the read-only database {inputs.db_dir} (its keys, counted)"
        levels = db.levels()
        total = sum(int(v["entries"]) for v in levels)
        if total > 0:
            return float(total), (
                f"the read-only database {inputs.db_dir} (entries of its "
                f"{sum(int(v['files']) for v in levels)} table files, more than "
                f"{COUNT_KEYS_LIMIT:,} keys to count: overwritten versions still in upper levels "
                "count too)")
    log = inputs.log
    if log is None or log.dump is None:
        return None
    live = [f for f in log.created if f.number not in log.deleted]
    if live and len(live) == int(log.dump.total.files.value):
        return float(sum(f.entries for f in live)), (
            f"the LOG's table-file events ({len(live)} live files, as many as its compaction "
            f"stats at {log.dump.total.files.source} count; their entries include versions "
            "not yet merged away)")
    if per_entry is not None and per_entry.value:
        size = sum(float(r.size_bytes.value) for r in log.dump.levels)
        return size / float(per_entry.value), (
            f"the LOG's level sizes ({log.dump.total.size_bytes.source}) over "
            f"{float(per_entry.value):.1f} bytes per entry on disk ({per_entry.source}; "
            "versions not yet merged away count too)")
    return None


def _parsed(flag: str, text: str) -> KeyDistribution:
    try:
        return KeyDistribution.parse(text)
    except ValueError as e:
        raise AdviseError(f"{flag}: {e}") from e


def _fit(counts: np.ndarray, population: int) -> tuple[KeyDistribution, float, int]:
    from wacky_model.trace_skew import fit_distribution

    f = fit_distribution(counts, max(population, counts.size))
    return f.dist, f.zipf_theta, f.samples


def _key_counts(keys: np.ndarray) -> np.ndarray:
    _, counts = np.unique(keys, return_counts=True)
    return counts.astype(np.int64)


def _measured(log: LogFile | None, stats: LogFile | None, per_entry: Figure | None = None
              ) -> dict[str, Figure]:
    out: dict[str, Figure] = {}
    if log is not None and log.dump is not None:
        d = log.dump
        out["write_amp"] = d.total.write_amp
        for r in d.levels:
            out[f"write_amp_L{r.level}"] = r.write_amp
        out["uptime_secs"] = d.uptime_secs
        stalls = sum(int(f.value) for f in d.stalls.values())
        src = next(iter(d.stalls.values())).source
        out["stalls"] = Figure(stalls, src)
        for cause, f in d.stalls.items():
            if int(f.value):
                out[f"stalls_{cause.replace(' ', '_')}"] = f
        if d.stall_percent is not None:
            out["stall_percent"] = d.stall_percent
        out["compactions"] = d.total.compactions
        if d.flush_gb is not None:
            out["flushed_gb"] = d.flush_gb
        for key in ("writes", "keys", "ingest_gb"):
            if key in d.cumulative_writes:
                out[f"cumulative_{key}"] = d.cumulative_writes[key]
        if "write_gb" in d.cumulative_compaction:
            out["compaction_write_gb"] = d.cumulative_compaction["write_gb"]
    st = stats if stats is not None else log
    if st is not None and st.statistics:
        t = st.statistics
        flushed = t.get("rocksdb.flush.write.bytes")
        compacted = t.get("rocksdb.compact.write.bytes")
        if flushed is not None and compacted is not None and int(flushed.value) > 0:
            # The LOG's Sum row W-Amp is bytes written over bytes flushed; these tickers give
            # it with more digits, but RocksDB 7.8 counts a flush at recovery (reopening a
            # database whose WAL holds writes) as a compaction write, so they can differ.
            out["write_amp_statistics"] = Figure(
                (int(flushed.value) + int(compacted.value)) / int(flushed.value),
                f"{compacted.source} (compact.write.bytes) and {flushed.source} "
                "(flush.write.bytes)")
            out["flushed_bytes"] = flushed
            keys = t.get("rocksdb.number.keys.written")
            if per_entry is not None and per_entry.value and keys is not None and \
                    int(keys.value) > 0:
                # The model's unit (validation/rocksdb.py's): entries written by flushes and
                # compactions per entry the user wrote, bytes over the on-disk bytes per entry.
                out["write_amp_per_write"] = Figure(
                    (int(flushed.value) + int(compacted.value)) / float(per_entry.value)
                    / int(keys.value),
                    f"{flushed.source} and {compacted.source} over {float(per_entry.value):.1f} "
                    f"bytes per entry on disk ({per_entry.source}) and {keys.source} "
                    "(number.keys.written)")
        useful = t.get("rocksdb.bloom.filter.useful")
        positive = t.get("rocksdb.bloom.filter.full.positive")
        true_positive = t.get("rocksdb.bloom.filter.full.true.positive")
        if useful is not None and positive is not None and true_positive is not None:
            probes = int(useful.value) + int(positive.value)
            if probes:
                out["filter_false_positive_rate"] = Figure(
                    (int(positive.value) - int(true_positive.value)) /
                    max(1, int(useful.value) + int(positive.value) - int(true_positive.value)),
                    f"{useful.source}, {positive.source}, {true_positive.source}")
        for name in ("rocksdb.block.cache.hit", "rocksdb.block.cache.miss",
                     "rocksdb.number.db.seek", "rocksdb.number.keys.read",
                     "rocksdb.number.keys.written"):
            if name in t:
                out[name.removeprefix("rocksdb.")] = t[name]
    return out


def advise(db_dir: str | Path | None = None, *, options: str | Path | None = None,
           log: str | Path | None = None, stats: str | Path | None = None,
           trace: str | Path | None = None, overrides: Overrides | None = None,
           allow_unknown_options: bool = False) -> Advice:
    """Advice for the RocksDB at ``db_dir`` (or described by the files given): module doc.
    AdviseError (a ValueError) names the file or flag for bad input. An OPTIONS file with
    options RocksDB 7.8.3 does not know (one from a newer RocksDB) is refused unless
    ``allow_unknown_options``: the model prices what 7.8.3 runs, and those options may change
    it; allowed, the advice lists them among the inputs it went without."""
    from wacky_model.pricing import price
    from wacky_model.rocksdb_tuning import recommend_rocksdb

    over = overrides or Overrides()
    inputs = _resolve(db_dir, options, log, stats, trace)
    assert inputs.options is not None
    unknown = inputs.options.unknown
    if unknown:
        shown = ", ".join(unknown[:8]) + (f" and {len(unknown) - 8} more" if len(unknown) > 8
                                          else "")
        who = (f"written by RocksDB {inputs.options.rocksdb_version}" if
               inputs.options.rocksdb_version else "of no [Version] section")
        if not allow_unknown_options:
            raise AdviseError(
                f"the OPTIONS file {inputs.options.path} ({who}) has options RocksDB 7.8.3 does "
                f"not know: {shown}. The model prices what 7.8.3 runs and these may change it; "
                "give --allow-unknown-options to advise without them")
        inputs.went_without.append(f"the options of {inputs.options.path} RocksDB 7.8.3 does "
                                   f"not know ({who}): {shown}")
    db = _read_only(inputs)
    try:
        return _advise(inputs, db, over, price, recommend_rocksdb)
    finally:
        del db


def _advise(inputs: _Inputs, db: Any, over: Overrides, price: Any, recommend_rocksdb: Any
            ) -> Advice:
    opts = inputs.options
    assert opts is not None
    figures: list[Inferred] = []
    notes: list[str] = []

    def add(name: str, value: Any, source: str, flag: str | None, assumed: bool = False) -> None:
        figures.append(Inferred(name, value, source, flag, assumed))

    log = inputs.log
    per_entry = disk_bytes_per_entry(log) if log is not None else None
    sizes = entry_bytes(log) if log is not None else None

    # Entry and key sizes.
    if over.key_bytes is not None:
        key_bytes, key_src, key_assumed = int(over.key_bytes), "--key-bytes", False
    elif sizes is not None:
        key_bytes, key_src, key_assumed = int(round(float(sizes[0].value))), \
            f"{sizes[0].source} (raw key size less RocksDB's 8-byte suffix)", False
    else:
        key_bytes, key_src, key_assumed = 8, "assumed (no table-file events in the LOG)", True
    add("key_bytes", key_bytes, key_src, "--key-bytes", key_assumed)

    trace_data = None
    entries_found = _entries(inputs, db, per_entry)
    if inputs.trace_path is not None:
        trace_data = _read_trace(inputs.trace_path, db,
                                 over.entries or (entries_found[0] if entries_found else None))
        if not trace_data.summary.complete:
            inputs.went_without.append(
                f"the end of the trace {inputs.trace_path}: it is cut inside a record (read "
                f"{trace_data.summary.operations:,} operations up to there)")
        if trace_data.summary.other_keys:
            notes.append(f"{trace_data.summary.other_keys:,} trace keys are not 8 bytes long: "
                         "their first 8 bytes stand for them")
    else:
        inputs.went_without.append("a trace (--query-trace FILE): the key distributions are "
                                   "assumed uniform unless given")

    if over.entry_bytes is not None:
        eb, eb_src, eb_assumed = int(over.entry_bytes), "--entry-bytes", False
    elif sizes is not None:
        eb = int(round(float(sizes[0].value) + float(sizes[1].value)))
        eb_src, eb_assumed = f"{sizes[1].source} (raw key and value sizes per entry)", False
    elif trace_data is not None and (trace_data.ops == _PUT).any():
        vb = trace_data.value_bytes[trace_data.ops == _PUT]
        eb = int(round(key_bytes + float(np.mean(vb))))
        eb_src, eb_assumed = f"the trace's Put values ({inputs.trace_path})", False
    else:
        eb, eb_src, eb_assumed = 128, "assumed (no table-file events, no trace)", True
    if eb <= key_bytes:
        if over.entry_bytes is not None or over.key_bytes is not None:
            raise AdviseError(f"--entry-bytes ({eb}) must be larger than the key bytes "
                              f"({key_bytes}): an entry is its key and a value")
        eb = key_bytes + 1
    add("entry_bytes", eb, eb_src, "--entry-bytes", eb_assumed)

    if over.entries is not None:
        if not over.entries >= 1:
            raise AdviseError(f"--entries must be at least 1; got {over.entries:g}")
        entries, ent_src, ent_assumed = float(over.entries), "--entries", False
    elif entries_found is not None:
        entries, ent_src = entries_found
        ent_assumed = False
    else:
        lacks = "; ".join(inputs.log.problems) if inputs.log is not None else ""
        raise AdviseError(
            "no input gives the number of entries: "
            + (lacks + "; " if lacks else "")
            + "its table-file events do not account for the live files, and there is no "
            "database directory to open read-only: give the directory, or --entries")
    if entries < 1:
        raise AdviseError(f"the database holds no entries ({ent_src}): there is nothing to tune; "
                          "give --entries for the size it will have")
    add("entries", entries, ent_src, "--entries", ent_assumed)

    # The mix.
    mix, mix_src, mix_assumed = _mix(inputs, trace_data, over)
    for k, v in mix.items():
        add(k, v, mix_src, "--" + k.replace("_", "-"), mix_assumed)

    # Range length.
    range_entries: float | None
    if over.range_entries is not None:
        range_entries, r_src, r_assumed = float(over.range_entries), "--range-entries", False
    elif trace_data is not None and trace_data.range_entries is not None:
        range_entries, r_src, r_assumed = trace_data.range_entries, \
            f"the trace's iterator bounds ({inputs.trace_path}) over the key density", False
    else:
        st = inputs.stats or inputs.log
        seek = st.ticker("rocksdb.number.db.seek") if st is not None else None
        nxt = st.ticker("rocksdb.number.db.next") if st is not None else None
        if seek is not None and nxt is not None and int(seek.value) > 0:
            range_entries = int(nxt.value) / int(seek.value)
            r_src, r_assumed = f"Nexts per seek ({nxt.source}, {seek.source})", False
        else:
            range_entries, r_src, r_assumed = 0.0, "assumed short (a seek and a few nexts)", True
    if mix["range_reads"] > 0:
        add("range_entries", range_entries, r_src, "--range-entries", r_assumed)

    # Key distributions and updates.
    population = int(round(entries))
    write_keys: KeyDistribution | str = "uniform"
    read_keys: KeyDistribution | str = "uniform"
    update_fraction = 0.0
    if over.write_keys is not None:
        write_keys = _parsed("--write-dist", over.write_keys)
        add("write_keys", write_keys, "--write-dist", "--write-dist")
    if over.read_keys is not None:
        read_keys = _parsed("--read-dist", over.read_keys)
        add("read_keys", read_keys, "--read-dist", "--read-dist")
    if trace_data is not None:
        ops, keys = trace_data.ops, trace_data.keys
        put_keys = keys[ops == _PUT]
        if over.write_keys is None:
            if put_keys.size:
                dist, theta, n = _fit(_key_counts(put_keys), population)
                write_keys = dist
                src = (f"the trace's {n:,} Puts over the {population:,} entries "
                       "(trace_skew.fit_distribution)")
                add("write_keys", dist, src, "--write-dist")
                add("write_zipf_theta", theta, src + ": the best Zipf fit, whichever model won",
                    "--write-dist")
            else:
                add("write_keys", "uniform", "the trace has no Puts", "--write-dist", True)
        if over.read_keys is None:
            gets = keys[ops == _GET]
            if trace_data.found is not None:
                gets = gets[trace_data.found]
            if gets.size:
                dist, theta, n = _fit(_key_counts(gets), population)
                read_keys = dist
                src = (f"the trace's {n:,} Gets" + (" of existing keys" if trace_data.found
                                                    is not None else "") +
                       f" over the {population:,} entries (trace_skew.fit_distribution)")
                add("read_keys", dist, src, "--read-dist")
                add("read_zipf_theta", theta, src + ": the best Zipf fit, whichever model won",
                    "--read-dist")
            else:
                add("read_keys", "uniform", "the trace has no Gets of existing keys",
                    "--read-dist", True)
        if over.update_fraction is None and put_keys.size:
            # A Put repeating a key written earlier in the trace is an update; a key's first
            # Put may be either (the trace cannot tell what existed before it). The repeats
            # are a lower bound; S1 inverted over the fitted write distribution gives the
            # share whose distinct keys match the trace's, when that distribution repeats
            # keys enough to tell (trace_skew.update_share).
            distinct = int(np.unique(put_keys).size)
            lower = 1.0 - distinct / put_keys.size
            dist = write_keys if isinstance(write_keys, KeyDistribution) else KeyDistribution()
            from wacky_model.trace_skew import update_share

            solved = update_share(int(put_keys.size), distinct, dist, population)
            if solved is None:
                update_fraction = lower
                add("update_fraction", update_fraction,
                    f"the trace's Puts of keys it had written before ({inputs.trace_path}); a "
                    "key's first Put counts as an insert, so this is a lower bound (the fitted "
                    "write distribution repeats too few keys to tell more)",
                    "--update-fraction", True)
            else:
                update_fraction = max(solved, lower)
                add("update_fraction", update_fraction,
                    f"the distinct keys of the trace's {put_keys.size:,} Puts ({distinct:,}) "
                    f"against the {dist.spec} updates over {population:,} entries would write "
                    f"(S1 inverted, trace_skew.update_share; {lower:.2f} of them repeat a key "
                    "of the trace, a lower bound)", "--update-fraction", True)
    else:
        if over.write_keys is None:
            add("write_keys", "uniform", "assumed (no trace)", "--write-dist", True)
        if over.read_keys is None:
            add("read_keys", "uniform", "assumed (no trace)", "--read-dist", True)
    if over.update_fraction is not None:
        update_fraction = float(over.update_fraction)
        add("update_fraction", update_fraction, "--update-fraction", "--update-fraction")
    elif trace_data is None:
        add("update_fraction", 0.0, "assumed: every write a new key (no trace)",
            "--update-fraction", True)

    # The system at the current memory.
    block_bytes = int(_opt(opts, "block_size")[0])
    buffer = int(_opt(opts, "write_buffer_size")[0])
    bits = filter_bits(_opt(opts, "filter_policy")[0])
    add("buffer_bytes", buffer, _opt(opts, "write_buffer_size")[1], None)
    add("bits_per_key", bits, _opt(opts, "filter_policy")[1], None)
    add("block_bytes", block_bytes, _opt(opts, "block_size")[1], None)
    cache = 0
    if log is not None and log.block_cache_bytes is not None:
        cache = int(log.block_cache_bytes.value)
        add("block_cache_bytes", cache, log.block_cache_bytes.source, None)
    else:
        inputs.went_without.append("the block cache's size (the LOG's options dump): priced "
                                   "without a cache")
    paged = _opt(opts, "cache_index_and_filter_blocks")[0] == "true"
    add("cache_index_and_filter_blocks", paged, _opt(opts, "cache_index_and_filter_blocks")[1],
        None)
    entries_per_block = block_bytes / eb
    blocks = (range_entries or 0.0) / entries_per_block
    try:
        workload = Workload(mix["point_reads"], mix["zero_reads"], mix["writes"],
                            mix["range_reads"], blocks if mix["range_reads"] > 0 else None,
                            write_keys=write_keys, read_keys=read_keys,
                            update_fraction=update_fraction)
        system = System(entries=entries, entry_bytes=eb, key_bytes=min(key_bytes, eb - 1),
                        block_bytes=block_bytes, buffer_bytes=buffer, bits_per_entry=bits,
                        cache_bytes=cache, paged_metadata=paged)
    except ValueError as e:
        raise AdviseError(f"the inferred figures do not make a workload and a system: {e}") \
            from e

    # The current configuration, priced.
    config, note = current_config(opts)
    current = None
    if config is not None:
        try:
            current = price(config.configuration, workload, system)
        except ValueError as e:
            note += f"; cannot be priced: {e}"
    measured = _measured(log, inputs.stats, per_entry)

    # The recommendation at the same memory.
    # The current buffer, filters and fence pointers: the search's split pays the fences too, so
    # leaving them out would give the advice less filter memory than the database has.
    memory_bits = system.memory_bits_per_entry_total
    budget = replace(system, bits_per_entry=None, memory_bits_per_entry=memory_bits)
    try:
        rec = recommend_rocksdb(workload, budget)
    except ValueError as e:
        raise AdviseError(f"the stock RocksDB search failed on the inferred workload: {e}") from e
    advised = price(rec.best.config.configuration, workload, system)
    changes = _changes(opts, config, current, rec, workload, system, price)
    if current is not None and advised.theta >= current.theta:
        # The search's grid may not hold the current options (static level sizes, say): advice
        # priced no cheaper than what runs is no advice.
        notes.append(f"no change advised: the current options price at Θ {current.theta:.4g}, "
                     f"no more than the best the search found ({advised.theta:.4g}, "
                     f"{rec.best.config.options_text()})")
        advised, changes = current, []
    current_options = {n: _opt(opts, n)[0] for n in KNOBS if n in ROCKSDB_DEFAULTS
                       or opts.get(n) is not None}
    levels = ()
    if log is not None and log.dump is not None:
        levels = tuple({"level": r.level, "files": r.files.value, "bytes": r.size_bytes.value,
                        "entries": (None if per_entry is None else
                                    float(r.size_bytes.value) / float(per_entry.value)),
                        "write_amp": r.write_amp.value, "key_in": r.key_in.value,
                        "source": r.files.source} for r in log.dump.levels)
    return Advice(
        inputs={"db_dir": None if inputs.db_dir is None else str(inputs.db_dir),
                "options": opts.path, "log": None if log is None else log.path,
                "stats": None if inputs.stats is None else inputs.stats.path,
                "trace": None if inputs.trace_path is None else str(inputs.trace_path)},
        went_without=tuple(inputs.went_without), figures=tuple(figures), workload=workload,
        system=system, current_options=current_options, current_config=config,
        current_note=note, current=current, measured=measured, recommendation=rec,
        advised=advised, changes=tuple(changes), unknown_options=opts.unknown,
        options_version=opts.rocksdb_version,
        trace=None if trace_data is None else trace_data.summary, notes=tuple(notes),
        levels=levels)


# -- the changes ----------------------------------------------------------------------------------

_CONFIG_FIELDS = {"max_bytes_for_level_multiplier": "multiplier",
                  "level0_file_num_compaction_trigger": "level0_trigger",
                  "level_compaction_dynamic_level_bytes": "dynamic",
                  "target_file_size_base": "file_bytes",
                  "write_buffer_size": "buffer_bytes",
                  "max_bytes_for_level_base": "level_base_bytes"}


def _same(a: str, b: str) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except ValueError:
        return a.strip() == b.strip()


def _changes(opts: OptionsFile, config: Any, current: Any, rec: Any, workload: Workload,
             system: System, price: Any) -> list[OptionChange]:
    from wacky_model.rocksdb_tuning import RocksDBConfig

    export = rec.export
    advised = {o.name: o for o in export.options}
    best = rec.best.config
    reasons = {}
    for line in rec.reasons:
        name = line.split(" = ", 1)[0].split(" rather", 1)[0]
        reasons[name] = line
    out = []
    for name in KNOBS:
        if name not in advised:
            continue
        new = advised[name].value
        old, _ = (_opt(opts, name) if name in ROCKSDB_DEFAULTS or opts.get(name) is not None
                  else ("(not set)", ""))
        if name == "filter_policy":
            if math.isclose(filter_bits(old), filter_bits(new), rel_tol=1e-3):
                continue
        elif name == "num_levels" and int(new) <= int(old):
            continue
        elif _same(old, new):
            continue
        reason = reasons.get(name, advised[name].reason)
        if name == "filter_policy":
            reason = (f"{filter_bits(new):.3g} bits per key: the search's split of the same "
                      "memory between the write buffer and the filters")
        elif name == "write_buffer_size":
            reason = ("the search's split of the same memory between the write buffer and the "
                      "filters")
        effect = "takes effect with the other changes (not priced alone)"
        if isinstance(config, RocksDBConfig) and isinstance(best, RocksDBConfig) and \
                current is not None and (name in _CONFIG_FIELDS or name == "filter_policy"):
            alone = replace(config, **({"bits_per_key": best.bits_per_key}
                                       if name == "filter_policy" else
                                       {_CONFIG_FIELDS[name]: getattr(best,
                                                                      _CONFIG_FIELDS[name])}))
            try:
                alone.export(system)
                p = price(alone.configuration, workload, system)
                effect = (f"alone: Θ {current.theta:.4g} -> {p.theta:.4g} "
                          f"({p.theta / current.theta - 1:+.1%}), write amplification "
                          f"{current.write_amp:.3g} -> {p.write_amp:.3g}, zero-result read "
                          f"{current.zero_result_read:.3g} -> {p.zero_result_read:.3g} I/O")
            except ValueError as e:
                effect = f"not priceable alone ({e}); takes effect with the other changes"
        out.append(OptionChange(advised[name].section, name, old, new, reason, effect))
    return out


def _rewrite_options(advice: Advice) -> str:
    """The current OPTIONS file with each changed option replaced (or added to its section)."""
    path = Path(advice.inputs["options"] or "")
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    by_name = {c.name: c for c in advice.changes}
    done: set[str] = set()
    out = [f"# Advised by wacky advise from {path.name}: {len(advice.changes)} option(s) "
           "changed, each preceded by its reason; every other option as it was."]
    section = None
    family = None

    def pending(sec: str | None) -> list[str]:
        extra = []
        for c in advice.changes:
            if c.name not in done and _section_name(c.section) == sec:
                extra += [f"  # wacky advise: {c.reason}", f"  {c.name}={c.advised}"]
                done.add(c.name)
        return extra

    for raw in lines:
        s = raw.strip()
        if s.startswith("["):
            if section in ("CFOptions", "TableOptions") and family in (None, "default"):
                out += pending(section)
            from wacky_model.rocksdb_files import _section_of

            section = _section_of(s)
            m = re.search(r'"([^"]*)"', s)
            family = m.group(1) if m else None
        elif "=" in s and not s.startswith("#") and family in (None, "default"):
            name = s.split("=", 1)[0].strip()
            c = by_name.get(name)
            if c is not None and name not in done and _section_name(c.section) == section:
                indent = raw[: len(raw) - len(raw.lstrip())]
                out += [f"{indent}# wacky advise: {c.reason} (was {c.current})",
                        f"{indent}{name}={c.advised}"]
                done.add(name)
                continue
        out.append(raw)
    if section in ("CFOptions", "TableOptions") and family in (None, "default"):
        out += pending(section)
    return "\n".join(out) + "\n"


def _section_name(section: str) -> str:
    return "TableOptions" if section == "TableOptions" else section
