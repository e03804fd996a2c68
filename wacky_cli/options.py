"""Every ``wacky`` flag is declared here once; commands take them in groups.

An :class:`OptionGroup`'s flags build one object (a ``System``, a ``Workload``, ...);
:func:`takes` adds them to a command and hands it the object, so commands cannot drift apart.
Only ``wacky_model`` types are imported here; engines and the dashboard load lazily."""

from __future__ import annotations

import functools
import inspect
import math
import re
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from cost_models.limits import MAX_RUNS_PER_LEVEL
from wacky_model.guardrails import PRACTICAL_RUNS_PER_LEVEL, Constraints
from wacky_model.presets import PRESET_NAMES, preset
from wacky_model.types import Buffer, Compaction, Design, Floating, Log, System, Workload


@dataclass(frozen=True)
class Flag:
    """One command-line option; ``name``, the Python name, is the flag's in snake case."""

    flag: str
    type: Any
    help: str
    panel: str
    parser: Callable[[str], Any] | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.flag[2:].split("/")[0].replace("-", "_"))

    def option(self) -> Any:
        return typer.Option(self.flag, help=self.help, rich_help_panel=self.panel,
                            parser=self.parser)

    def parameter(self, default: Any) -> inspect.Parameter:
        return inspect.Parameter(self.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                 annotation=Annotated[self.type, self.option()])


SYSTEM, DESIGN, WORKLOAD, RUN, GUARDRAILS = ("System", "Design", "Workload", "Engine run",
                                             "Guardrails")


def whole(text: str) -> int | float:
    """A count: 4096, 1.5e9, 2_000_000; an int if whole, else a float (the API refuses it)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a number (4096 and 1.5e9 are)") from None
    return int(value) if value.is_integer() else value


# Size suffixes of byte flags: K, M, G, T (and KiB ... TiB) are powers of 1024, as RocksDB's
# options read "64M"; KB ... TB are powers of 1000.
_SIZE = re.compile(r"^\s*([0-9._eE+-]+)\s*([kKmMgGtT])(i?[bB])?\s*$")


def size(text: str) -> int | float:
    """A byte flag: the forms of :func:`whole`, or with a size suffix (64MiB, 1G, 1.5GB)."""
    found = _SIZE.match(text) if isinstance(text, str) else None
    if found is None:
        try:
            return whole(text)
        except typer.BadParameter:
            raise typer.BadParameter(f"{text!r} is not a size in bytes (4096, 1.5e9, 64MiB, 1G "
                                     "and 1GB are)") from None
    number, unit, tail = found.groups()
    base = 1000 if tail in ("b", "B") else 1024
    value = whole(number) * base ** ("kmgt".index(unit.lower()) + 1)
    return int(value) if float(value).is_integer() else value


# The float type lets users write 1e9; System and Scale check that a count is whole. The other
# byte and count flags parse the same forms (``whole``).
_SYSTEM_FLAGS = (
    Flag("--entries", float, "Number of entries N (1e9 is accepted).", SYSTEM),
    Flag("--entry-bytes", int, "Bytes per entry (key and value).", SYSTEM, size),
    Flag("--key-bytes", int, "Bytes per key.", SYSTEM, size),
    Flag("--block-bytes", int, "Bytes per storage block.", SYSTEM, size),
    Flag("--buffer-bytes", int | None, "Bytes of write buffer (default 8 MiB). With "
         "--memory-bits-per-entry or --memory-bytes it fixes the buffer, and the rest of the "
         "memory after the fence pointers goes to the filters.", SYSTEM, size),
    Flag("--sum-fpr", float | None,
         "Filter budget as the sum of the runs' false-positive rates p.", SYSTEM),
    Flag("--bits-per-entry", float | None, "Filter budget in bits per entry (default 5).",
         SYSTEM),
    Flag("--hash-levels", int,
         "Smallest levels served by a hash table instead of a filter (App. F).", SYSTEM, whole),
    Flag("--memory-bits-per-entry", float | None, "Total memory per entry (buffer + filters + "
         "fence pointers); recommend then chooses the buffer/filter split (fixed by "
         "--buffer-bytes if given). Replaces the filter budget.", SYSTEM),
    Flag("--memory-bytes", float | None, "Total memory in bytes (buffer + filters + fence "
         "pointers); the same as --memory-bits-per-entry, in bytes.", SYSTEM, size),
    Flag("--write-cost-ratio", float, "phi: a block written costs phi block reads in Θ (device "
         "asymmetry; default 1).", SYSTEM),
    Flag("--probe-cost", float, "Time of one filter or hash-table probe, in block reads "
         "(default 0). Above 0, point reads pay for their probes and recommend chooses hash "
         "tables for the smallest levels where they pay off (App. F).", SYSTEM),
    Flag("--cache-bytes", int, "Bytes of LRU block cache for point reads (RocksDB's "
         "block_cache); 0: none. Compaction drops the blocks of the runs it rewrites.", SYSTEM,
         size),
    Flag("--paged-metadata/--pinned-metadata", bool, "Filter and index blocks on disk, through "
         "the block cache (RocksDB's cache_index_and_filter_blocks=true; docs/MODEL.md G1): a "
         "probe costs I/O on a miss. Priced for --target rocksdb and for the native engine's "
         "--granularity file (Engine(paged_metadata=True)). Default: pinned in memory.",
         SYSTEM),
    Flag("--device", list[str] | None, "A device levels may sit on, NAME:READ_COST:WRITE_COST"
         "[:CAPACITY] (costs per block in block reads of the first device; capacity in bytes, "
         "may end in K, M, G or T). Repeat it: the first is the system's own device (read cost "
         "1, write cost the --write-cost-ratio), holding the log; recommend then places the "
         "levels (docs/MODEL.md D1).", SYSTEM),
)
_DESIGN_FLAGS = (
    Flag("--preset", str | None, f"One of: {', '.join(PRESET_NAMES)}.", DESIGN),
    Flag("--T", float | None,
         "Base ratio between adjacent levels, from 2 to N/F (the data size in buffers).", DESIGN),
    Flag("--C", float | None, "Capping ratio of Level L to the rest, from 1 to N/F.", DESIGN),
    Flag("--X", float | None, "Growth exponential of the ratios, in [1, 64]; no level may hold "
         f"more runs than buffers of data, nor more than {MAX_RUNS_PER_LEVEL:,} runs.", DESIGN),
    Flag("--K", float | None, "Greediness in Levels 1..L-1 (0 leveled, 1 tiered); required with "
         "--T unless a --preset is given.", DESIGN),
    Flag("--Z", float | None, "Greediness in Level L (0 leveled, 1 tiered); required with --T "
         "unless a --preset is given.", DESIGN),
    Flag("--filters", str | None, "optimized (Lagrangian) or uniform Bloom filters; default: "
         "the preset's, else optimized.", DESIGN),
)
_WORKLOAD_FLAGS = (
    Flag("--point-reads", float, "Fraction of reads of existing entries.", WORKLOAD),
    Flag("--zero-reads", float, "Fraction of zero-result reads.", WORKLOAD),
    Flag("--writes", float, "Fraction of writes.", WORKLOAD),
    Flag("--range-reads", float, "Fraction of range reads.", WORKLOAD),
    Flag("--range-blocks", float | None, "Blocks of data each range read returns, on top of one "
         "I/O per run. Not given: 0, the paper's short range (a seek and a few nexts), with a "
         "note on stderr when --range-reads is given.", WORKLOAD),
    Flag("--expected-point-reads", float, "Share of the existing-key reads priced at their "
         "expected cost (keys uniform over the entries) instead of the worst case, a key in "
         "Level L (default 0, the paper's).", WORKLOAD),
    Flag("--write-dist", str, "Which keys writes touch: uniform, zipf:THETA (THETA in [0, 1.5]; "
         "YCSB uses 0.99), hotset:H:P (a share H of the keys gets a share P of the writes) or "
         "latest[:THETA] (updates favour recently inserted keys, as YCSB's latest).", WORKLOAD,
         name="write_keys"),
    Flag("--read-dist", str, "Which keys existing-key reads touch: uniform, zipf:THETA, "
         "hotset:H:P or latest (recently written keys, as YCSB-D).", WORKLOAD,
         name="read_keys"),
    Flag("--update-fraction", float,
         "Share of writes that update an existing key (the rest insert new keys).", WORKLOAD),
    Flag("--correlated/--uncorrelated", bool,
         "Whether the keys read most are the keys written most (default: correlated).",
         WORKLOAD),
)
_RUN_FLAGS = (
    Flag("--reads", int, "Reads of each kind measured.", RUN, whole),
    Flag("--seed", int, "Seed of the keys and the operation stream.", RUN),
)
FLAGS = {f.name: f for f in (*_SYSTEM_FLAGS, *_DESIGN_FLAGS, *_WORKLOAD_FLAGS, *_RUN_FLAGS)}

NO_LIMIT = "none"


def runs_cap(text: str) -> int | float | str:
    """--max-runs-per-level: a whole number, or ``none`` for no cap."""
    if text.strip().lower() == NO_LIMIT:
        return NO_LIMIT
    return whole(text)


_GUARDRAIL_FLAGS = (
    Flag("--max-runs-per-level", str | None, "Recommend only designs with at most this many "
         f"runs in any level. Default {PRACTICAL_RUNS_PER_LEVEL}: RocksDB stops writes at "
         f"{PRACTICAL_RUNS_PER_LEVEL} level-0 files; 'none' lifts the cap.", GUARDRAILS,
         runs_cap),
    Flag("--max-total-runs", int | None,
         "Recommend only designs with at most this many runs in all. Off by default.",
         GUARDRAILS, whole),
    Flag("--max-space-amp", float | None, "Recommend only designs whose worst-case space "
         "amplification (obsolete over live entries) is at most this. Off by default.",
         GUARDRAILS),
    Flag("--max-transient-space", float | None, "Recommend only designs whose merges need at "
         "most this many times the data on disk at their peak (a merge keeps its inputs until "
         "its output is whole: 2 when it rewrites everything; docs/MODEL.md T5). Above 1; off "
         "by default.", GUARDRAILS),
)
_COMPACTION_FLAGS = (
    Flag("--granularity", str | None, "level: merge whole levels (the paper's policy, the native "
         "engine's default); file: cut levels into files of --file-bytes and merge one file at a "
         "time into the next level, as RocksDB does (leveled designs). recommend searches both "
         "unless one is given.", RUN),
    Flag("--file-bytes", int | None, "Target size of one file (RocksDB's "
         "target_file_size_base), from one block to Level 1's capacity; default: the buffer's "
         "size.", RUN, size),
    Flag("--level1-runs", int, "Flushes that gather as separate runs before merging into the "
         "tree together (RocksDB's level0_file_num_compaction_trigger); 1 merges each at once.",
         RUN, whole),
    Flag("--file-pick", str, "With --granularity file: least_overlap (RocksDB's default) or "
         "round_robin (LevelDB's) picks the file that goes down.", RUN),
    Flag("--log-ratio", float | None, "With --granularity file: L2SM's per-level log, its "
         "total size as a share of the tree's in (0, 1] (the paper's 0.1); 0 turns it off. "
         "recommend chooses it itself.", RUN),
    Flag("--log-alpha", float, "With --log-ratio: the weight of hotness against sparseness in "
         "[0, 1] in choosing the files that leave the log (the paper's 0.5).", RUN),
    Flag("--compaction-buffer/--no-compaction-buffer", bool | None, "With --granularity file: "
         "LSbM's compaction buffer (files merged out of a level stay readable so their cached "
         "blocks keep serving). recommend reports what it would buy beside its pick but does "
         "not take it, nor this flag.", RUN),
    Flag("--buffer-trim", float, "With --compaction-buffer: a buffered file stays while at "
         "least this share of its blocks is cached (the paper's 0.8).", RUN),
    Flag("--level-devices", str | None, "Where the levels sit: the device of level 0, Level 1, "
         "... as numbers into the --device list (0 the first), the last for every level below, "
         "e.g. 0,0,1 (docs/MODEL.md D1; the native engine's level_dirs).", RUN),
    Flag("--l0-partitions", int, "With --granularity file: OHDB's partitioned level 0, flushes "
         "and Level 1 cut at this many equally spaced keys, each partition merging on its own "
         "(the paper's 10); 1 is none. The model prices it (docs/MODEL.md P6); recommend does "
         "not take it.", RUN, whole),
    Flag("--floating", float | None, "With --granularity file: Tidal-tree's floating of hot "
         "files with this gamma (Eq 1: a file floats when its read share reaches gamma / eta "
         "of the level above's hottest; the paper's 1). recommend chooses it itself "
         "(docs/MODEL.md F1-F5); 0 turns it off.", RUN),
)

# Single flags that are not part of a group, declared here so every command spells them alike.
CacheBytesFlag = Annotated[int, FLAGS["cache_bytes"].option()]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
ProfileFile = Annotated[Path | None, typer.Option(
    "--profile", help="A machine profile (wacky calibrate --out): also print the predicted "
    "insert throughput on the native engine (T1, docs/MODEL.md), or with --target rocksdb "
    "the sustainable write rate and stalls (T2, T3).")]
OutFile = Annotated[Path, typer.Option(
    "--out", help="File to write: frontier's HTML page, the table of validate --sweep, the "
    "OPTIONS file of export and of recommend --target rocksdb (export: its JSON with --json; "
    "standard output without --out), or calibrate's profile as JSON.")]


@dataclass(frozen=True)
class DesignChoice:
    """The design flags as given: a preset, or the knobs (presets size themselves to a system)."""

    preset: str | None
    T: float | None
    C: float | None
    X: float | None
    K: float | None
    Z: float | None
    filters: str | None

    def resolve(self, system: System) -> Design:
        if self.preset is not None:
            extra = [n for n in ("X", "K", "Z") if getattr(self, n) is not None]
            if extra:
                raise ValueError(f"--preset fixes {', '.join(extra)}; give only --T "
                                 "(and --C for cll and qlsm-bush)")
            design = preset(self.preset, T=self.T, system=system, C=self.C)
        elif self.T is None or self.C is None or self.K is None or self.Z is None:
            missing = [f"--{n}" for n in ("T", "C", "K", "Z") if getattr(self, n) is None]
            raise ValueError(f"give --preset NAME, or the knobs --T, --C, --K and --Z (--X "
                             f"defaults to 1); missing: {', '.join(missing)}")
        else:
            design = Design(self.T, self.C, 1.0 if self.X is None else self.X, self.K, self.Z)
        if self.filters not in (None, design.filters):
            design = Design(**design.knobs, filters=self.filters)
        return design


def workload_or_none(point_reads: float, zero_reads: float, writes: float, range_reads: float,
                     range_blocks: float | None, expected_point_reads: float = 0.0,
                     write_keys: str = "uniform", read_keys: str = "uniform",
                     update_fraction: float = 0.0, correlated: bool = True) -> Workload | None:
    """The workload the flags give, or None when no fraction was given."""
    if point_reads == zero_reads == writes == range_reads == 0:
        skew = {"--write-dist": write_keys != "uniform", "--read-dist": read_keys != "uniform",
                "--update-fraction": update_fraction != 0.0, "--uncorrelated": not correlated}
        given = [flag for flag, on in skew.items() if on]
        if given:
            raise ValueError(f"{', '.join(given)} describe a workload: give its fractions too "
                             "(--point-reads, --zero-reads, --writes, --range-reads)")
        return None
    if range_reads > 0 and range_blocks is None:  # the default, said out loud (stderr)
        from wacky_model.types import DEFAULT_RANGE_BLOCKS

        print(f"note: --range-reads without --range-blocks: each range read is priced as the "
              f"paper's short range, one I/O per run and no further blocks (--range-blocks "
              f"{DEFAULT_RANGE_BLOCKS:g}); give --range-blocks N for ranges that return N blocks",
              file=sys.stderr)
    return Workload(point_reads, zero_reads, writes, range_reads, range_blocks,
                    expected_point_reads, write_keys, read_keys, update_fraction, correlated)


def whole_entries(values: dict[str, Any]) -> dict[str, Any]:
    """``--entries 2e6`` arrives as a float; a Scale counts whole entries."""
    entries = values["entries"]
    if isinstance(entries, float) and entries.is_integer():
        values["entries"] = int(entries)
    return values


@dataclass(frozen=True)
class OptionGroup:
    """Flags that together build one object; a flag's default is in ``defaults``, else None."""

    flags: tuple[Flag, ...]
    build: Callable[..., Any]
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def parameters(self) -> list[inspect.Parameter]:
        return [f.parameter(self.defaults.get(f.name)) for f in self.flags]


def _defaults_of(obj: Any, flags: tuple[Flag, ...]) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name, None) for f in flags}


def system_from_flags(*, memory_bytes: float | None = None, buffer_bytes: int | None = None,
                      device: list[str] | None = None, **values: Any) -> System:
    """The system the flags give. With a total memory, ``--buffer-bytes`` (when given) fixes the
    buffer and the filters get the rest; without it the search splits the memory."""
    if device:
        from wacky_model.devices import Device

        try:
            values["devices"] = tuple(Device.parse(d) for d in device)
        except ValueError as err:
            raise ValueError(f"--device: {err}") from None
    if buffer_bytes is not None:
        values["buffer_bytes"] = buffer_bytes
    if memory_bytes is not None:
        if values.get("memory_bits_per_entry") is not None:
            raise ValueError("give --memory-bits-per-entry or --memory-bytes, not both")
        if not memory_bytes > 0:
            raise ValueError(f"--memory-bytes must be > 0; got {memory_bytes:g}")
        values["memory_bits_per_entry"] = 8.0 * memory_bytes / values["entries"]
    if buffer_bytes is None and values.get("memory_bits_per_entry") is not None:
        # The search splits the memory: the default buffer is only where the split starts, so
        # keep it smaller than the data (whole blocks) rather than refuse a small N.
        per_block = max(1, int(values["block_bytes"]) // int(values["entry_bytes"]))
        blocks = max(1, math.ceil(float(values["entries"]) / per_block) - 1)
        values["buffer_bytes"] = min(_DEFAULT_SYSTEM.buffer_bytes,
                                     blocks * int(values["block_bytes"]))
    try:
        system = System(**values)
    except ValueError as err:  # System names the bits per entry --memory-bytes became
        text = str(err)
        if text.startswith("devices"):
            raise ValueError("--device: " + text.replace("devices[0]", "the first --device")
                             .replace("write_cost_ratio", "--write-cost-ratio")) from None
        if memory_bytes is None or not text.startswith(("memory_bits_per_entry must",
                                                        "give memory_bits_per_entry")):
            raise
        if text.startswith("give"):
            raise ValueError(text.replace("memory_bits_per_entry", "--memory-bytes", 1)) from None
        raise ValueError(_memory_bytes_range(values, memory_bytes)) from None
    if system.memory_split and buffer_bytes is not None:
        if buffer_bytes > system.max_buffer_bytes:
            raise ValueError(
                f"--buffer-bytes must fit in the total memory (--memory-bits-per-entry or "
                f"--memory-bytes) after the fence pointers: at most "
                f"{system.max_buffer_bytes:,} bytes; got {buffer_bytes:,}")
        system = system.with_buffer(buffer_bytes)
    return system


def _memory_bytes_range(values: dict[str, Any], memory_bytes: float) -> str:
    """``--memory-bytes`` out of range, in bytes (System names the bits per entry it became)."""
    sized = System(**{**values, "memory_bits_per_entry": None, "bits_per_entry": None,
                      "sum_fpr": None})
    least = sized.least_memory_bits_per_entry * sized.entries / 8
    most = 1e6 * sized.entries / 8
    return (f"--memory-bytes must be more than {least:,.0f} bytes (the fence pointers, "
            f"{sized.fence_bits_per_entry:.4g} bits per entry, plus a one-block buffer) and at "
            f"most {most:,.0f}; got {memory_bytes:g}")


_DEFAULT_SYSTEM = System()
SYSTEM_OPTIONS = OptionGroup(_SYSTEM_FLAGS, system_from_flags,
                             {**_defaults_of(_DEFAULT_SYSTEM, _SYSTEM_FLAGS),
                              "bits_per_entry": None, "buffer_bytes": None})
DESIGN_OPTIONS = OptionGroup(_DESIGN_FLAGS, DesignChoice)
WORKLOAD_OPTIONS = OptionGroup(_WORKLOAD_FLAGS, workload_or_none,
                               {**{f.name: 0.0 for f in _WORKLOAD_FLAGS}, "range_blocks": None,
                                "write_keys": "uniform", "read_keys": "uniform",
                                "correlated": True})


def guardrails_from_flags(max_runs_per_level: int | float | str | None,
                          max_total_runs: int | None, max_space_amp: float | None,
                          max_transient_space: float | None = None) -> Constraints:
    """--max-runs-per-level defaults to RocksDB's write stop (``none`` lifts it); others off."""
    if max_runs_per_level is None:
        max_runs_per_level = PRACTICAL_RUNS_PER_LEVEL
    elif max_runs_per_level == NO_LIMIT:
        max_runs_per_level = None
    elif not isinstance(max_runs_per_level, int) or max_runs_per_level < 1:
        raise typer.BadParameter(f"must be a whole number >= 1 or 'none'; got "
                                 f"{max_runs_per_level!r}", param_hint="'--max-runs-per-level'")
    if max_transient_space is not None and not max_transient_space > 1:
        raise typer.BadParameter(f"must be a number above 1 (the peak disk use during merges "
                                 f"over the data); got {max_transient_space!r}",
                                 param_hint="'--max-transient-space'")
    return Constraints(max_runs_per_level=max_runs_per_level, max_total_runs=max_total_runs,
                       max_space_amp=max_space_amp, max_transient_space=max_transient_space)


GUARDRAIL_OPTIONS = OptionGroup(_GUARDRAIL_FLAGS, guardrails_from_flags)


@dataclass(frozen=True)
class FilterBudget:
    """The filter memory of an engine run: bits per entry or a sum of FPRs (5 bits if neither)."""

    bits_per_entry: float | None
    sum_fpr: float | None

    def __post_init__(self) -> None:
        if self.bits_per_entry is not None and self.sum_fpr is not None:
            raise ValueError("give --bits-per-entry or --sum-fpr, not both")
        if self.bits_per_entry is None and self.sum_fpr is None:
            object.__setattr__(self, "bits_per_entry", 5.0)


FILTER_BUDGET_OPTIONS = OptionGroup((FLAGS["sum_fpr"], FLAGS["bits_per_entry"]), FilterBudget)


@dataclass(frozen=True)
class CompactionChoice:
    """The compaction flags as given; the engine decides the granularity when it is not."""

    granularity: str | None
    file_bytes: int | None
    level1_runs: int
    file_pick: str
    log_ratio: float | None = None
    log_alpha: float = 0.5
    compaction_buffer: bool | None = None
    buffer_trim: float = 0.8
    level_devices: str | None = None
    l0_partitions: int = 1
    floating: float | None = None

    def resolve(self, default_granularity: str = "level") -> Compaction:
        try:
            log = Log(self.log_ratio, self.log_alpha) if self.log_ratio else None
            if log is None and self.log_alpha != 0.5:
                raise ValueError("--log-alpha goes with --log-ratio")
            buffer = Buffer(self.buffer_trim) if self.compaction_buffer else None
            if buffer is None and self.buffer_trim != 0.8:
                raise ValueError("--buffer-trim goes with --compaction-buffer")
            return Compaction(self.granularity or default_granularity, self.file_bytes,
                              self.level1_runs, self.file_pick, log=log, buffer=buffer,
                              l0_partitions=self.l0_partitions,
                              level_devices=level_devices(self.level_devices),
                              floating=(Floating(self.floating) if self.floating is not None
                                        and self.floating != 0 else None))
        except ValueError as e:
            raise ValueError(compaction_flags(str(e))) from None


def level_devices(text: str | None) -> tuple[int, ...]:
    """``--level-devices``: comma-separated device numbers, level 0 first."""
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--level-devices must be device numbers separated by commas, level 0 "
                         f"first (0,0,1); got {text!r}") from None


def compaction_flags(message: str) -> str:
    """An API message about the compaction arguments in terms of their flags."""
    from wacky_model.compat import FEATURES

    for name, flag in (("l2sm_log", "--log-ratio"), ("lsbm_buffer", "--compaction-buffer"),
                       ("l0_partitions", "--l0-partitions"), ("devices", "--level-devices"),
                       ("floating", "--floating"),
                       ("universal", "universal compaction (the export's for a tiered design)")):
        message = message.replace(FEATURES[name], flag)
    message = re.sub(r"\blog (ratio|alpha)\b", lambda m: f"--log-{m.group(1)}", message)
    message = re.sub(r"\bbuffer trim\b", "--buffer-trim", message)
    message = re.sub(r"^gamma\b", "--floating", message)
    message = re.sub(r"\b(log|buffer) \((L2SM|LSbM)\)",
                     lambda m: "--log-ratio" if m.group(1) == "log" else "--compaction-buffer",
                     message)
    # (?<!-): a name already given as its flag (the compat table's words) stays one.
    return re.sub(r"(?<!-)\b(granularity|file_bytes|level1_runs|level0_trigger|file_pick|"
                  r"l0_partitions|level_devices)\b",
                  lambda m: "--" + m.group(1).replace("_", "-").replace("level0-trigger",
                                                                        "level1-runs"),
                  message)


COMPACTION_DEFAULTS = CompactionChoice(None, None, 1, "least_overlap")
COMPACTION_OPTIONS = OptionGroup(_COMPACTION_FLAGS, CompactionChoice,
                                 _defaults_of(COMPACTION_DEFAULTS, _COMPACTION_FLAGS))


def scale_options() -> OptionGroup:
    """The size of an engine run. Its defaults are validation's, a few seconds' run."""
    from validation.scale import Scale  # numpy and wacky_model only; no engine

    flags = tuple(FLAGS[n] for n in ("entries", "entry_bytes", "block_bytes", "buffer_bytes",
                                     "reads", "seed"))
    return OptionGroup(flags, lambda **v: Scale(**whole_entries(v)), _defaults_of(Scale(), flags))


def takes(prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
          **groups: OptionGroup) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the objects its option groups build: ``@takes(system=SYSTEM_OPTIONS)``
    adds the system flags and passes ``system: System``. ``prepare`` may change the flags'
    values first (``recommend --trace``: the trace's scale)."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(command, include_extras=True)
        own = [p.replace(annotation=hints.get(name, p.annotation))
               for name, p in inspect.signature(command).parameters.items()
               if name not in groups]
        added = [p for group in groups.values() for p in group.parameters()]

        @functools.wraps(command)
        def run(**values: Any) -> Any:
            if prepare is not None:
                values = prepare(values)
            for name, group in groups.items():
                values[name] = group.build(**{f.name: values.pop(f.name) for f in group.flags})
            return command(**values)

        del run.__wrapped__  # typer must read the new signature, not the command's
        run.__signature__ = inspect.Signature(own + added)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in own + added}
        return run

    return decorate


_ALL_FLAGS = {f.name: f.flag.split("/")[0] for f in (*FLAGS.values(), *_GUARDRAIL_FLAGS)}
_SNAKE_NAME = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
_LEADING_NAME = re.compile(r"^(scale )?([A-Za-z]+)\b")


def in_flags(message: str) -> str:
    """An API error message in terms of the flags: ``sum_fpr must ...`` -> ``--sum-fpr must``.
    A one-word name (``T``, ``entries``) is replaced only where the message starts with it."""
    # The API's advice for Python callers means nothing on the command line.
    message = message.replace("Use Workload.from_counts(...) to normalize weights.",
                              "Give fractions of the operations.")
    message = _SNAKE_NAME.sub(lambda m: _ALL_FLAGS.get(m.group(0), m.group(0)), message)
    message = re.sub(r"(?<=\+ )writes(?= \+)", "--writes", message)
    lead = _LEADING_NAME.match(message)
    if lead and lead.group(2) in _ALL_FLAGS:
        message = _ALL_FLAGS[lead.group(2)] + message[lead.end():]
    return message
