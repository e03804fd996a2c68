"""The files a running RocksDB leaves in its directory, read without opening it: the OPTIONS file
and the info LOG (``wacky advise``, docs/ADVISE.md).

Every figure is a :class:`Figure`: its value and where it came from (the file and the line). The
formats are RocksDB 7.8.3's, as the bridge's databases write them:

* OPTIONS (``rocksdb::PersistRocksDBOptions``): an INI file with ``[Version]``, ``[DBOptions]``,
  ``[CFOptions "default"]`` and ``[TableOptions/BlockBasedTable "default"]`` sections of
  ``name=value`` lines. Options RocksDB 7.8.3 does not know
  (:data:`wacky_model.rocksdb_known_options.KNOWN_OPTIONS`) are recorded, not fatal: the caller
  decides whether they matter.
* LOG: the header's options dump (``block_cache_options: capacity : N``); every
  ``------- DUMPING STATS -------`` block RocksDB writes each ``stats_dump_period_sec`` (the
  ``** Compaction Stats [default] **`` table per level, ``Uptime(secs)``, ``Cumulative
  writes``, ``Cumulative compaction``, ``Flush(GB)``, ``Stalls(count)``); the ``STATISTICS:``
  dump that follows when statistics are on (``rocksdb.<ticker> COUNT : N`` lines); and the
  ``EVENT_LOG_v1`` lines of table files created (their sizes and entry counts). The last
  complete dump is the one read.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from wacky_model.rocksdb_known_options import KNOWN_OPTIONS

SECTIONS = {"Version": "Version", "DBOptions": "DBOptions", "CFOptions": "CFOptions",
            "TableOptions": "TableOptions"}
# RocksDB's NumberToHumanString and BytesToHumanString suffixes.
_COUNT_SUFFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BYTE_UNIT = {"B": 1.0, "KB": 1024.0, "MB": 1024.0**2, "GB": 1024.0**3, "TB": 1024.0**4}


class RocksFileError(ValueError):
    """A file that is missing, cut short or not what it should be; the message names it."""


@dataclass(frozen=True)
class Figure:
    """A value read from a file, with where it came from (``path:line``)."""

    value: float | int | str
    source: str

    def to_dict(self) -> dict:
        return {"value": self.value, "source": self.source}


# -- OPTIONS ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OptionsFile:
    path: str
    rocksdb_version: str | None
    # section ("DBOptions", "CFOptions", "TableOptions", "Version") -> name -> Figure (str value)
    options: dict[str, dict[str, Figure]]
    unknown: tuple[str, ...]  # "section.name" of options RocksDB 7.8.3 does not have

    def get(self, name: str, section: str = "CFOptions") -> Figure | None:
        return self.options.get(section, {}).get(name)

    @property
    def newer_than_bridge(self) -> bool:
        """Whether the file was written by a RocksDB newer than 7.8.3."""
        return self.rocksdb_version is not None and _version(self.rocksdb_version) > (7, 8, 3)


def _version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.strip().split("."))
    except ValueError:
        return (0,)


def _section_of(header: str) -> str | None:
    name = header.strip("[]").split(" ", 1)[0]
    if name.startswith("TableOptions/"):
        return "TableOptions"
    return SECTIONS.get(name)


def read_options_file(path: str | Path) -> OptionsFile:
    """The options of a RocksDB OPTIONS file (module doc). RocksFileError, naming the file, for a
    missing file or one with no ``[CFOptions "default"]`` section (not an OPTIONS file)."""
    p = Path(path)
    if not p.is_file():
        raise RocksFileError(f"the OPTIONS file {p} does not exist")
    try:
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise RocksFileError(f"the OPTIONS file {p} cannot be read: {e}") from e
    options: dict[str, dict[str, Figure]] = {}
    unknown: list[str] = []
    section: str | None = None
    family: str | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = _section_of(line)
            m = re.search(r'"([^"]*)"', line)
            family = m.group(1) if m else None
            continue
        if section is None or "=" not in line:
            continue
        if section in ("CFOptions", "TableOptions") and family not in (None, "default"):
            continue  # other column families: advise looks at the default one
        name, value = (s.strip() for s in line.split("=", 1))
        options.setdefault(section, {})[name] = Figure(value, f"{p}:{number}")
        if name not in KNOWN_OPTIONS.get(section, frozenset()):
            unknown.append(f"{section}.{name}")
    if "CFOptions" not in options:
        raise RocksFileError(f"{p} is not a RocksDB OPTIONS file: it has no [CFOptions "
                             '"default"] section of name=value lines')
    version = options.get("Version", {}).get("rocksdb_version")
    return OptionsFile(str(p), None if version is None else str(version.value), options,
                       tuple(unknown))


def latest_options_file(db_dir: str | Path) -> Path:
    """The newest ``OPTIONS-<number>`` file of a database directory (RocksFileError if none)."""
    d = Path(db_dir)
    found = sorted((int(f.name.split("-", 1)[1]), f) for f in d.glob("OPTIONS-*")
                   if f.name.split("-", 1)[1].isdigit())
    if not found:
        raise RocksFileError(f"{d} has no OPTIONS-<number> file: not a RocksDB database "
                             "directory, or one RocksDB never opened (give --options FILE)")
    return found[-1][1]


# -- LOG ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LevelStats:
    """One row of the compaction stats table (Sum: level -1)."""

    level: int
    files: Figure
    size_bytes: Figure  # as printed (two or three significant digits)
    write_amp: Figure  # W-Amp, one decimal
    write_gb: Figure  # Write(GB), one decimal
    key_in: Figure  # KeyIn (rounded, K/M/G)
    compactions: Figure  # Comp(cnt)


@dataclass(frozen=True)
class StatsDump:
    """One ``DUMPING STATS`` block of the LOG."""

    line: int
    uptime_secs: Figure | None
    levels: tuple[LevelStats, ...]  # per non-empty level row, L0 first
    total: LevelStats | None  # the Sum row
    cumulative_writes: dict[str, Figure]  # writes, keys, ingest_gb
    cumulative_compaction: dict[str, Figure]  # write_gb, read_gb, seconds
    flush_gb: Figure | None
    stalls: dict[str, Figure]  # cause -> count
    stall_percent: Figure | None


@dataclass(frozen=True)
class TableFile:
    """A table file an EVENT_LOG_v1 ``table_file_creation`` line describes."""

    number: int
    file_bytes: int
    entries: int
    raw_key_bytes: int  # user keys plus RocksDB's 8-byte internal suffix
    raw_value_bytes: int
    line: int


@dataclass(frozen=True)
class LogFile:
    path: str
    rocksdb_version: Figure | None
    dump: StatsDump | None  # the last complete one
    dumps: int
    statistics: dict[str, Figure]  # ticker -> COUNT, from the last STATISTICS dump
    statistics_line: int | None
    block_cache_bytes: Figure | None
    created: tuple[TableFile, ...]
    deleted: frozenset[int]
    problems: tuple[str, ...] = field(default=())  # what the LOG lacks, in words

    def ticker(self, name: str) -> Figure | None:
        return self.statistics.get(name)


_TICKER = re.compile(r"^\s*(rocksdb\.[\w.]+) COUNT : (\d+)\s*$")
_EVENT = re.compile(r"EVENT_LOG_v1 (\{.*\})\s*$")


def _count(token: str) -> float:
    m = re.fullmatch(r"([\d.]+)([KMGT]?)", token)
    if m is None:
        raise ValueError(token)
    return float(m.group(1)) * _COUNT_SUFFIX[m.group(2)]


def _stats_table(lines: list[str], start: int, where: str
                 ) -> tuple[list[LevelStats], LevelStats | None, int] | None:
    """The level rows of the compaction stats table whose title is at ``start`` (0-based), or
    None when the table is cut short."""
    if start + 2 >= len(lines) or not lines[start + 1].startswith("Level"):
        return None
    header = lines[start + 1].split()
    col = {name: i for i, name in enumerate(header)}
    need = ("Files", "Size", "W-Amp", "Write(GB)", "KeyIn", "Comp(cnt)")
    if any(n not in col for n in need):
        return None
    rows: list[LevelStats] = []
    total = None
    i = start + 3
    while i < len(lines):
        tokens = lines[i].split()
        if not tokens or not re.fullmatch(r"L\d+|Sum|Int", tokens[0]):
            break
        # Size is printed as two tokens (value, unit): the columns after it shift by one.
        if len(tokens) < len(header) + 1:
            return None

        def at(name: str, tokens: list[str] = tokens) -> str:
            j = col[name]
            return tokens[j + 1] if j > col["Size"] else tokens[j]

        try:
            files = int(tokens[col["Files"]].split("/")[0])
            size = float(tokens[col["Size"]]) * _BYTE_UNIT[tokens[col["Size"] + 1]]
            row_src = f"{where}:{i + 1}"
            stats = LevelStats(
                -1 if tokens[0] in ("Sum", "Int") else int(tokens[0][1:]),
                Figure(files, row_src), Figure(size, row_src), Figure(float(at("W-Amp")), row_src),
                Figure(float(at("Write(GB)")), row_src), Figure(_count(at("KeyIn")), row_src),
                Figure(int(float(at("Comp(cnt)"))), row_src))
        except (ValueError, KeyError):
            return None
        if tokens[0] == "Sum":
            total = stats
        elif tokens[0].startswith("L"):
            rows.append(stats)
        i += 1
    if total is None:
        return None
    return rows, total, i


def _numbers(pattern: str, line: str) -> re.Match | None:
    return re.search(pattern, line)


def _dump(lines: list[str], start: int, end: int, where: str) -> StatsDump | None:
    """The DUMPING STATS block in lines[start:end] (0-based), or None when it is incomplete."""
    uptime = None
    writes: dict[str, Figure] = {}
    compaction: dict[str, Figure] = {}
    flush = None
    stalls: dict[str, Figure] = {}
    stall_percent = None
    table = None
    for i in range(start, end):
        line = lines[i]
        src = f"{where}:{i + 1}"
        if line.startswith("** Compaction Stats [default] **") and table is None:
            table = _stats_table(lines, i, where)
            if table is None:
                return None
        elif line.startswith("Uptime(secs):") and uptime is None:
            m = _numbers(r"Uptime\(secs\): ([\d.]+) total", line)
            if m:
                uptime = Figure(float(m.group(1)), src)
        elif line.startswith("Cumulative writes:"):
            m = _numbers(r"Cumulative writes: (\S+) writes, (\S+) keys, .*ingest: ([\d.]+) GB",
                         line)
            if m:
                writes = {"writes": Figure(_count(m.group(1)), src),
                          "keys": Figure(_count(m.group(2)), src),
                          "ingest_gb": Figure(float(m.group(3)), src)}
        elif line.startswith("Cumulative stall:"):
            m = _numbers(r"([\d.]+) percent", line)
            if m:
                stall_percent = Figure(float(m.group(1)), src)
        elif line.startswith("Cumulative compaction:"):
            m = _numbers(r"Cumulative compaction: ([\d.]+) GB write, .* ([\d.]+) GB read, .* "
                         r"([\d.]+) seconds", line)
            if m:
                compaction = {"write_gb": Figure(float(m.group(1)), src),
                              "read_gb": Figure(float(m.group(2)), src),
                              "seconds": Figure(float(m.group(3)), src)}
        elif line.startswith("Flush(GB): cumulative"):
            m = _numbers(r"cumulative ([\d.]+)", line)
            if m:
                flush = Figure(float(m.group(1)), src)
        elif line.startswith("Stalls(count):"):
            body = line.split(":", 1)[1].split(", interval")[0]
            for part in body.split(","):
                m = re.match(r"\s*(\d+) (.+?)\s*$", part)
                if m:
                    stalls[m.group(2)] = Figure(int(m.group(1)), src)
    if table is None or uptime is None or not stalls:
        return None
    rows, total, _ = table
    return StatsDump(start + 1, uptime, tuple(rows), total, writes, compaction, flush, stalls,
                     stall_percent)


def read_log(path: str | Path) -> LogFile:
    """The figures of a RocksDB info LOG (module doc). RocksFileError naming the file for a
    missing file or one that is not RocksDB's (no ``RocksDB version:`` header and no stats).
    A LOG without a complete stats dump or statistics is read; ``problems`` says what it
    lacks."""
    p = Path(path)
    if not p.is_file():
        raise RocksFileError(f"the LOG {p} does not exist")
    try:
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise RocksFileError(f"the LOG {p} cannot be read: {e}") from e
    where = str(p)
    version = None
    block_cache = None
    marks: list[int] = []
    stats_at: list[int] = []
    created: dict[int, TableFile] = {}
    deleted: set[int] = set()
    for i, line in enumerate(lines):
        if version is None and "RocksDB version: " in line:
            version = Figure(line.split("RocksDB version: ", 1)[1].strip(), f"{where}:{i + 1}")
        elif "------- DUMPING STATS -------" in line:
            marks.append(i)
        elif line.rstrip().endswith("] STATISTICS:") or line.rstrip().endswith(" STATISTICS:"):
            stats_at.append(i)
        elif block_cache is None and line.strip() == "block_cache_options:" and i + 1 < len(
                lines):
            m = re.match(r"\s*capacity : (\d+)", lines[i + 1])
            if m:
                block_cache = Figure(int(m.group(1)), f"{where}:{i + 2}")
        elif "EVENT_LOG_v1" in line:
            m = _EVENT.search(line)
            if not m:
                continue
            try:
                event = json.loads(m.group(1))
            except json.JSONDecodeError:
                continue
            kind = event.get("event")
            if kind == "table_file_creation" and "table_properties" in event:
                t = event["table_properties"]
                try:
                    created[int(event["file_number"])] = TableFile(
                        int(event["file_number"]), int(event["file_size"]),
                        int(t["num_entries"]), int(t["raw_key_size"]),
                        int(t["raw_value_size"]), i + 1)
                except (KeyError, TypeError, ValueError):
                    continue
            elif kind == "table_file_deletion":
                try:
                    deleted.add(int(event["file_number"]))
                except (KeyError, TypeError, ValueError):
                    continue
    if version is None and not marks and not stats_at:
        raise RocksFileError(f"{p} is not a RocksDB info LOG: it has no 'RocksDB version:' line "
                             "and no statistics")
    dump = None
    for j in range(len(marks) - 1, -1, -1):
        end = marks[j + 1] if j + 1 < len(marks) else len(lines)
        dump = _dump(lines, marks[j], end, where)
        if dump is not None:
            break
    statistics: dict[str, Figure] = {}
    statistics_line = None
    for s in reversed(stats_at):
        block: dict[str, Figure] = {}
        for i in range(s + 1, len(lines)):
            m = _TICKER.match(lines[i])
            if m:
                block[m.group(1)] = Figure(int(m.group(2)), f"{where}:{i + 1}")
            elif "rocksdb." not in lines[i]:
                break
        # A dump cut short lacks the last tickers RocksDB prints: keep the previous one.
        if "rocksdb.number.keys.written" in block and "rocksdb.flush.write.bytes" in block:
            statistics, statistics_line = block, s + 1
            break
    problems = []
    if version is None:
        problems.append(f"{p} has no 'RocksDB version:' header line (the start of the LOG is "
                        "missing)")
    if dump is None:
        problems.append(
            f"{p} has no complete '------- DUMPING STATS -------' block ('** Compaction Stats "
            "[default] **' table, Uptime and Stalls lines): RocksDB writes one every "
            "stats_dump_period_sec (600 s by default)" + (
                f"; the {len(marks)} there are are cut short" if marks else ""))
    if not statistics:
        problems.append(f"{p} has no complete 'STATISTICS:' dump: statistics are off (set "
                        "DBOptions::statistics) or the dump was cut short")
    return LogFile(where, version, dump, len(marks), statistics, statistics_line, block_cache,
                   tuple(created.values()), frozenset(deleted), tuple(problems))


def disk_bytes_per_entry(log: LogFile) -> Figure | None:
    """On-disk bytes per entry of the table files the LOG saw created (their file sizes over
    their entries), or None when it saw none."""
    files = [f for f in log.created if f.entries > 0]
    if not files:
        return None
    entries = sum(f.entries for f in files)
    return Figure(sum(f.file_bytes for f in files) / entries,
                  f"{log.path}: {len(files)} table_file_creation events")


def entry_bytes(log: LogFile) -> tuple[Figure, Figure] | None:
    """(key bytes, value bytes) per entry of the table files the LOG saw created (RocksDB's raw
    key size less its 8-byte internal suffix), or None."""
    files = [f for f in log.created if f.entries > 0]
    if not files:
        return None
    entries = sum(f.entries for f in files)
    src = f"{log.path}: {len(files)} table_file_creation events"
    key = sum(f.raw_key_bytes for f in files) / entries - 8.0
    value = sum(f.raw_value_bytes for f in files) / entries
    return Figure(max(1.0, key), src), Figure(value, src)


def human_bytes(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(x) < 1024 or unit == "TiB":
            return f"{x:,.0f} {unit}" if unit == "B" else f"{x:,.1f} {unit}"
        x /= 1024
    return str(x)
