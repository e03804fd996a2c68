"""A design as stock RocksDB options: the OPTIONS file, a reason for each option, and a grade.

Each knob is graded ``exact`` (stock RocksDB builds that part of the design as the model prices
it), ``approximate`` (it builds something close; the note says how far) or ``needs-driver`` (only
the Wacky compaction driver builds it). The design's grade is its worst knob's.

The mapping (the design's structure is that of ``cost_models.structure`` at this N, with whole
run counts):

* Every level holds one run (K and Z round to 0): leveled compaction. Level 0 takes the flushes
  and merges each into Level 1 (trigger 1); Levels 1..L are the design's. With X = 1 and C = T - 1
  every ratio is T, and ``level_compaction_dynamic_level_bytes`` sizes the upper levels from
  Level L's actual size, as App. E re-anchors them: exact. Other ratios are set level by level
  (``max_bytes_for_level_multiplier_additional``) from the top: approximate for X, and a free C
  needs the driver (stock RocksDB cannot re-anchor a last ratio that differs from T). Levels are
  made of files of ``file_bytes`` (the buffer's size by default, as RocksDB's own defaults are)
  and RocksDB merges one file at a time into the next level: ``cost_models.partial`` prices
  those partial merges.
* Tiered families map to universal compaction (:func:`design_universal`): merges of at least
  ``min_merge_width`` similar runs, a full merge when the newer runs exceed
  ``max_size_amplification_percent`` of the oldest, and a trigger above the runs the design
  holds. It merges by run sizes, not level capacities: approximate. A configuration of
  universal compaction's own options (``Compaction.universal``) is written as it is: exact.
  LSM-bush (X > 1 with runs above Level L) and fractional K or Z need the driver.
* Monkey filters (Eq 12) give each level its own false-positive rate; stock RocksDB has one bits
  per key for all (approximate; the note gives the model's zero-result cost both ways).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from cost_models.costs import space_amplification
from cost_models.structure import structure
from cost_models.universal import UniversalOptions
from wacky_model.analysis import analyze
from wacky_model.types import Design, System

GRADES = ("exact", "approximate", "needs-driver")
# The native engine's side runs, which stock RocksDB cannot build (issue 32).
SIDE_RUNS = {
    "l2sm_log": "stock RocksDB has no per-level log: L2SM's pseudo and aggregated compactions need "
           "a driver; these options build the tree without it",
    "lsbm_buffer": "stock RocksDB keeps no compaction buffer: LSbM's buffered files need a driver; "
              "these options build the tree without it",
}
# The RocksDB release the OPTIONS file is written for (Debian's librocksdb-dev).
OPTIONS_FOR_VERSION = "7.8.3"
# RocksDB's default num_levels.
ROCKSDB_NUM_LEVELS = 7
# compaction_pri for each way of picking the file that goes down.
PICKS = {"least_overlap": "kMinOverlappingRatio", "round_robin": "kRoundRobin"}
# A file format RocksDB 7.8 reads (full filters, checksums).
TABLE_FORMAT_VERSION = 5


@dataclass(frozen=True)
class RocksOption:
    section: str  # "DBOptions", "CFOptions" or "TableOptions"
    name: str
    value: str
    reason: str


@dataclass(frozen=True)
class KnobGrade:
    knob: str
    grade: str  # one of GRADES
    note: str


@dataclass(frozen=True)
class RocksDBExport:
    design: Design
    system: System
    style: str  # "level" or "universal"
    options: tuple[RocksOption, ...]
    grades: tuple[KnobGrade, ...]
    # OHDB's partitions as RocksDB can have them: an sst_partitioner_factory cutting output
    # files at P equally spaced keys, set by the bridge (rocksdb_bridge/src/key_partitioner.h):
    # a custom factory has no spelling in an OPTIONS file. 1: none.
    partitions: int = 1
    # D1's placement as RocksDB's db_paths, set by the bridge (an OPTIONS file cannot spell
    # db_paths): (device, target bytes) per path, the first path the database's own directory
    # (device 0). Empty: one directory.
    db_paths: tuple[tuple[int, int], ...] = ()

    @property
    def grade(self) -> str:
        """The design's grade: its worst knob's."""
        return max((g.grade for g in self.grades), key=GRADES.index)

    def option(self, name: str) -> str:
        for o in self.options:
            if o.name == name:
                return o.value
        raise KeyError(name)

    def options_dict(self) -> dict[str, str]:
        return {o.name: o.value for o in self.options}

    @property
    def bits_per_key(self) -> float:
        """The filter's bits per key (``filter_policy=bloomfilter:<bits>:false``)."""
        return float(self.option("filter_policy").split(":")[1])

    def options_file(self) -> str:
        """A RocksDB OPTIONS file (``rocksdb::LoadOptionsFromFile``), each option preceded by its
        reason as a comment."""
        what = ("RocksDB's universal compaction with the options below" if any(
            g.knob == "universal" for g in self.grades) else
            f"the Wacky design T={self.design.T:g} C={self.design.C:g} X={self.design.X:g} "
            f"K={self.design.K:g} Z={self.design.Z:g} ({self.design.filters} filters)")
        lines = [
            f"# RocksDB options for {what}, written by wacky.",
            f"# Grade of the design: {self.grade}.",
        ]
        lines += [f"#   {g.knob}: {g.grade}: {g.note}" for g in self.grades]
        lines += ["", "[Version]", f"  rocksdb_version={OPTIONS_FOR_VERSION}",
                  "  options_file_version=1.1", ""]
        headers = {"DBOptions": "[DBOptions]", "CFOptions": '[CFOptions "default"]',
                   "TableOptions": '[TableOptions/BlockBasedTable "default"]'}
        for section, header in headers.items():
            lines.append(header)
            for o in self.options:
                if o.section == section:
                    lines.append(f"  # {o.reason}")
                    lines.append(f"  {o.name}={o.value}")
            lines.append("")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "design": self.design.knobs | {"filters": self.design.filters},
            "buffer_bytes": self.system.buffer_bytes,
            "compaction_style": self.style,
            "grade": self.grade,
            "grades": {g.knob: {"grade": g.grade, "note": g.note} for g in self.grades},
            "options": [{"section": o.section, "name": o.name, "value": o.value,
                         "reason": o.reason} for o in self.options],
            "rocksdb_version": OPTIONS_FOR_VERSION,
            # set by the bridge, not by the OPTIONS file (the l0_partitions grade says so)
            **({"bridge_partitions": self.partitions} if self.partitions > 1 else {}),
            **({"bridge_db_paths": [{"device": d, "target_size": t} for d, t in self.db_paths]}
               if self.db_paths else {}),
        }


def _number(x: float) -> str:
    return f"{x:.6g}" if x != int(x) else str(int(x))


def design_universal(design: Design, runs: list[float], space_amp: float) -> UniversalOptions:
    """Universal options for a tiered design: merges of at least T runs of similar sizes, a
    full merge at the design's space amplification, and a trigger above the runs the design
    holds, so that the run-count rule (U4) stays a backstop. A trigger
    at the merge width (this export's mapping before 2026-11) makes U4 merge the newest runs at
    every flush whatever their sizes: at 2^15 flushes, write amplification 1,945 to 9,113."""
    width = max(2, int(round(design.T)))
    return UniversalOptions(trigger=max(width, int(round(sum(runs))) + 1), min_merge_width=width,
                            max_size_amplification_percent=max(1, int(round(100 * space_amp))))


DELAYED_WRITE_RATE = 16 << 20  # RocksDB's delayed_write_rate when none is set, bytes/s
SOFT_PENDING_BYTES = 64 << 30  # RocksDB's soft_pending_compaction_bytes_limit
HARD_PENDING_BYTES = 256 << 30  # and its hard limit


def slowdown_trigger(level0_trigger: int) -> int:
    """Level 0's files at which the export's RocksDB slows writes: RocksDB's default 20, or its
    default gap of 16 above a higher compaction trigger."""
    return max(20, level0_trigger + 16)


def stop_trigger(level0_trigger: int) -> int:
    """... and stops them: RocksDB's default 36, or its gap of 32 above the trigger."""
    return max(36, level0_trigger + 32)


def _stall_triggers(opt, level0_trigger: int) -> None:
    """The stall triggers and pending-bytes limits T3 relies on, each with its reason."""
    # RocksDB's gaps above its default trigger of 4 (slowdown 20, stop 36): runs wait at the
    # trigger, so a stall comes only when compaction falls behind.
    opt("CFOptions", "level0_slowdown_writes_trigger", slowdown_trigger(level0_trigger),
        "writes slow down only when level 0 exceeds its compaction trigger by RocksDB's default "
        "gap: the backlog T3 lets build before a stall")
    opt("CFOptions", "level0_stop_writes_trigger", stop_trigger(level0_trigger),
        "writes stop only at RocksDB's default gap above the trigger")
    opt("CFOptions", "soft_pending_compaction_bytes_limit", SOFT_PENDING_BYTES,
        "RocksDB's default, written down: T3 prices level 0's stalls only, not those of "
        "pending compaction bytes")
    opt("CFOptions", "hard_pending_compaction_bytes_limit", HARD_PENDING_BYTES,
        "RocksDB's default, four times the soft limit")


def rocksdb_export(design: Design, system: System, level0_trigger: int = 1,
                   file_bytes: int | None = None,
                   file_pick: str = "least_overlap", dynamic: bool | None = None,
                   level_base_bytes: int | None = None,
                   universal: UniversalOptions | None = None,
                   side_runs: tuple[str, ...] = (), l0_partitions: int = 1,
                   level_devices: tuple[int, ...] = ()) -> RocksDBExport:
    """The stock RocksDB options closest to ``design`` on ``system`` (a fixed buffer; a memory
    budget is split as ``analyze`` does), with a reason for each and a grade for each knob.

    ``level0_trigger`` (leveled designs only) lets level 0 gather that many flushes before they
    merge into Level 1, as RocksDB's default of 4 does: a tiered level above the design's
    levels, which the continuum cannot express (graded approximate). ``file_bytes`` (leveled
    designs) is RocksDB's ``target_file_size_base``, from one block to Level 1's capacity; by
    default the buffer's size. ``file_pick`` is its ``compaction_pri``: ``least_overlap``
    (kMinOverlappingRatio, RocksDB's default) or ``round_robin`` (kRoundRobin). ``dynamic``
    (C = T - 1, X = 1 only) sets ``level_compaction_dynamic_level_bytes`` (default on) and
    ``level_base_bytes`` its ``max_bytes_for_level_base`` (default: the design's Level 1), for
    configurations that are RocksDB's rather than a Wacky design's (``rocksdb_tuning``).
    ``universal`` writes universal compaction with these options whatever the design (a
    configuration of RocksDB's universal compaction, ``Compaction.universal``). ``side_runs``
    names the native engine's side runs the configuration has (``Compaction.side_runs``:
    "l2sm_log", "lsbm_buffer"): stock RocksDB has neither, so each is graded needs-driver and
    left out. ``level_devices`` (D1, ``Compaction.level_devices``) becomes ``db_paths``: RocksDB
    places a level by its paths' target sizes in order, so only the first k levels on the own
    device and the rest on one other (0, ..., 0, d) is expressible, with static level sizes
    (RocksDB ignores dynamic ones beside two paths)."""
    fast = _fast_levels(level_devices)
    if fast is not None and dynamic is None:
        dynamic = False  # RocksDB turns dynamic level sizes off beside two paths
    if (isinstance(l0_partitions, bool) or not isinstance(l0_partitions, int)
            or not 1 <= l0_partitions <= 1024):
        raise ValueError(f"l0_partitions must be a whole number in [1, 1024]; got "
                         f"{l0_partitions!r}")
    unknown = set(side_runs) - set(SIDE_RUNS)
    if unknown:
        raise ValueError(f"side_runs must name {' or '.join(SIDE_RUNS)}; got "
                         f"{', '.join(sorted(unknown))}")
    if file_pick not in PICKS:
        raise ValueError(f"file_pick must be 'least_overlap' or 'round_robin'; got "
                         f"{file_pick!r}")
    if (not isinstance(level0_trigger, int) or isinstance(level0_trigger, bool)
            or not 1 <= level0_trigger <= 1000):
        raise ValueError(f"level0_trigger must be a whole number in [1, 1000]; got "
                         f"{level0_trigger!r}")
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    s = structure(design.T, design.C, design.X, design.K, design.Z, system.buffers,
                  integer_runs=True)
    L = int(s.L)
    runs = [float(a) for a in s.runs[:L]]
    caps = [float(f) * system.entries * system.entry_bytes for f in s.fractions[:L]]
    file_bytes = check_file_bytes(file_bytes, system,
                                  caps[0] if level_base_bytes is None else level_base_bytes)
    fractional = [k for k in ("K", "Z") if getattr(design, k) not in (0.0, 1.0)]
    leveled = all(a == 1.0 for a in runs)
    uniform_ratio = math.isclose(design.X, 1.0) and math.isclose(design.C, design.T - 1.0)
    grades: list[KnobGrade] = []
    options: list[RocksOption] = []

    def opt(section: str, name: str, value: object, reason: str) -> None:
        options.append(RocksOption(section, name, str(value), reason))

    opt("DBOptions", "create_if_missing", "true", "a new database for the design")
    opt("DBOptions", "max_background_jobs", 2, "one flush and one compaction at a time")
    opt("DBOptions", "delayed_write_rate", DELAYED_WRITE_RATE,
        "RocksDB's default, written down: at level 0's slowdown trigger writes slow to this "
        "many bytes per second (T3 in docs/MODEL.md prices the stall)")
    opt("CFOptions", "write_buffer_size", system.buffer_bytes,
        f"the design's buffer F = {system.buffer_bytes:,} bytes")
    opt("CFOptions", "max_write_buffer_number", 2,
        "one buffer fills while the other flushes, so a flush never blocks the writer")
    opt("CFOptions", "compression", "kNoCompression",
        "the model counts uncompressed blocks")
    grades.append(KnobGrade("buffer", "exact", "write_buffer_size is the buffer"))

    if leveled and not fractional and universal is None:
        style = "level"
        opt("CFOptions", "compaction_style", "kCompactionStyleLevel",
            "every level of the design holds one run (K = Z = 0): leveled compaction")
        if level_base_bytes is None:
            opt("CFOptions", "num_levels", L + 1,
                f"Level 0 takes the flushes; RocksDB's Levels 1..{L} are the design's")
        else:
            opt("CFOptions", "num_levels", max(ROCKSDB_NUM_LEVELS, L + 1),
                "RocksDB's default: levels above the data's stay empty")
        if level0_trigger == 1:
            opt("CFOptions", "level0_file_num_compaction_trigger", 1,
                "each flush merges into Level 1 at once, as the design's Level 1 absorbs every "
                "flush")
        else:
            opt("CFOptions", "level0_file_num_compaction_trigger", level0_trigger,
                f"level 0 gathers {level0_trigger} flushes before they merge into Level 1: a "
                "tiered level above the design's (RocksDB's default is 4)")
            grades.append(KnobGrade(
                "level0_trigger", "approximate",
                f"level 0 holds up to {level0_trigger} runs, a tiered level the continuum "
                "cannot express: the paper's model prices Level 1 absorbing every flush; "
                "cost_models.partial prices the trigger (P3 in docs/MODEL.md)"))
        if level_base_bytes is None:
            opt("CFOptions", "max_bytes_for_level_base", int(round(caps[0])),
                f"Level 1's capacity in the design ({caps[0]:,.0f} bytes)")
        else:
            opt("CFOptions", "max_bytes_for_level_base", level_base_bytes,
                "the first level's capacity")
        opt("CFOptions", "target_file_size_base", file_bytes,
            f"levels are made of files of {file_bytes:,} bytes; RocksDB merges one at a time "
            "into the next level (partial merges, priced by cost_models.partial)")
        opt("CFOptions", "max_compaction_bytes", 25 * file_bytes,
            "RocksDB's default: 25 files")
        _stall_triggers(opt, level0_trigger)
        opt("CFOptions", "compaction_pri", PICKS[file_pick],
            "RocksDB's default: the file with the least overlap in the next level goes first"
            if file_pick == "least_overlap" else
            "files go down in key order, round-robin, as LevelDB's compact pointer does")
        if uniform_ratio:
            opt("CFOptions", "max_bytes_for_level_multiplier", _number(design.T),
                f"every level is T = {design.T:g} times the one above (C = T - 1)")
            opt("CFOptions", "level_compaction_dynamic_level_bytes",
                "false" if dynamic is False else "true",
                "levels sized from the first one down (RocksDB 7.8's default)" if dynamic is False
                else "sizes Levels 1..L-1 from Level L's actual size, as App. E re-anchors them")
            grades += [KnobGrade("T", "exact", "max_bytes_for_level_multiplier = T; the levels "
                                 "and their runs match, but RocksDB merges a file at a time "
                                 "after a level overflows, not whole levels before: "
                                 "cost_models.partial prices that, the paper's model does not"),
                       KnobGrade("C", "exact", "C = T - 1: Level L is T times Level L-1"),
                       KnobGrade("X", "exact", "X = 1: one ratio for every level")]
        else:
            if dynamic is not None or level_base_bytes is not None:
                raise ValueError("dynamic and level_base_bytes need one ratio (C = T - 1, X = 1)")
            extra = [caps[i + 1] / caps[i] for i in range(L - 1)]
            # RocksDB 7.8 holds the per-level multipliers as whole numbers (a vector<int>: its
            # OPTIONS parser reads "1.25" as 1), so Eq 8's ratios are rounded here, not there.
            whole = [max(1, round(r)) for r in extra]
            opt("CFOptions", "max_bytes_for_level_multiplier", 1,
                "the ratios are given level by level")
            opt("CFOptions", "max_bytes_for_level_multiplier_additional",
                ":".join(str(r) for r in whole) or "1",
                "each level's ratio to the one above (Eq 8 and 9 at this N), rounded to the "
                "whole numbers RocksDB takes")
            opt("CFOptions", "level_compaction_dynamic_level_bytes", "false",
                "the per-level ratios only apply to capacities fixed from Level 1 down")
            rounded = [f"{r:.3g} -> {w}" for r, w in zip(extra, whole, strict=True)
                       if not math.isclose(r, w, rel_tol=1e-9)]
            grades.append(KnobGrade(
                "T", "approximate" if rounded else "exact",
                "RocksDB takes whole per-level multipliers, so Eq 8's ratios are rounded ("
                + ", ".join(rounded) + ")" if rounded else
                "the ratios follow Eq 8 level by level"))
            grades.append(KnobGrade(
                "X", "exact" if math.isclose(design.X, 1.0) else "approximate",
                "capacities are fixed from Level 1 down at this N; the design re-anchors them on "
                "Level L (App. E), so they drift apart as the data grows (by up to one ratio)"))
            grades.append(KnobGrade(
                "C", "exact" if math.isclose(design.C, design.T - 1.0) else "needs-driver",
                "a last-level ratio other than T needs the driver: stock RocksDB cannot keep it "
                "as Level L grows"))
        grades.append(KnobGrade("K", "exact", "one run per level"))
        grades.append(KnobGrade("Z", "exact", "one run at Level L"))
    else:
        if level0_trigger != 1:
            raise ValueError("level0_trigger applies to leveled designs (K = Z = 0); a tiered "
                             "design's level 0 is universal compaction's trigger")
        style = "universal"
        own = universal is not None
        u = universal if own else design_universal(design, runs, float(space_amplification(s)))
        opt("CFOptions", "compaction_style", "kCompactionStyleUniversal",
            "the configuration's universal compaction" if own else
            "the design gathers several runs in a level before merging: tiered (universal) "
            "compaction")
        opt("CFOptions", "level0_file_num_compaction_trigger", u.trigger,
            f"merge once {u.trigger} sorted runs are waiting" + ("" if own else
            f": the design's {sum(runs):g} runs and the newest flush (a trigger at the merge "
            "width makes the run-count rule rewrite the newest large run at every flush)"))
        _stall_triggers(opt, u.trigger)
        opt("CFOptions", "compaction_options_universal",
            "{" + ";".join([
                f"size_ratio={_number(u.size_ratio)}", f"min_merge_width={u.min_merge_width}",
                f"max_merge_width={u.max_merge_width}",
                f"max_size_amplification_percent={_number(u.max_size_amplification_percent)}",
                "stop_style=kCompactionStopStyleTotalSize", "compression_size_percent=-1",
                "allow_trivial_move=false"]) + "}",
            "the configuration's universal options, priced by U1-U4" if own else
            f"merge at least {u.min_merge_width} runs of similar size (ratio T); a full merge "
            f"when the newer runs exceed {u.max_size_amplification_percent:g}% of the oldest, "
            "the design's worst space amplification")
        if own:
            grades.append(KnobGrade("universal", "exact", "RocksDB runs these options as U1-U4 "
                                    "price them (docs/VALIDATION.md checks U1-U4 on RocksDB)"))
        else:
            deviation = ("universal compaction merges by run sizes and its size-amplification "
                         "rule, not by level capacities: U1-U4 price the options, not the design")
            grades.append(KnobGrade("T", "approximate", deviation))
            grades.append(KnobGrade(
                "C", "approximate" if math.isclose(design.C, design.T - 1.0) else "needs-driver",
                "Level L's size is set by the size-amplification rule" if
                math.isclose(design.C, design.T - 1.0) else
                "a last-level ratio other than T needs the driver"))
            bush = design.X > 1.0 + 1e-9
            grades.append(KnobGrade("X", "needs-driver" if bush else "approximate",
                                    "growing ratios with runs above Level L (LSM-bush) need the "
                                    "driver" if bush else "one ratio, as universal compaction "
                                    "has"))
            for k in ("K", "Z"):
                grades.append(KnobGrade(k, "needs-driver" if k in fractional else "approximate",
                                        f"a fractional {k} needs the driver" if k in fractional
                                        else deviation))

    bits = _filter_bits(design, system)
    opt("TableOptions", "filter_policy", f"bloomfilter:{_number(round(bits, 3))}:false",
        f"{bits:.3g} bits per key, the design's filter memory per entry")
    _table_options(opt, system)
    grades.append(_filter_grade(design, system))
    grades += [KnobGrade(name, "needs-driver", SIDE_RUNS[name]) for name in side_runs]
    if l0_partitions > 1:
        if style != "level":
            from wacky_model.compat import check  # the one table of refused combinations

            check({"l0_partitions", "universal"})
        grades.append(KnobGrade(
            "l0_partitions", "approximate",
            f"RocksDB cuts every compaction's output files at the {l0_partitions - 1} partition "
            "keys (sst_partitioner_factory, set by wacky's bridge: a custom factory has no "
            "OPTIONS-file spelling, so this file alone does not partition), but it does not "
            "cut flushes and its level-0 trigger counts every level-0 file: partitions do not "
            "merge into Level 1 on their own, as OHDB's do (docs/MODEL.md P6)"))
    db_paths: tuple[tuple[int, int], ...] = ()
    if fast is not None:
        if style != "level":
            from wacky_model.compat import check  # the one table of refused combinations

            check({"devices", "universal"})
        if dynamic:
            raise ValueError("level_devices needs static level sizes (dynamic=False): RocksDB "
                             "turns level_compaction_dynamic_level_bytes off beside two db_paths")
        from wacky_model.rocksdb_paths import paths_for_levels

        options_now = {o.name: o.value for o in options}
        base = int(options_now["max_bytes_for_level_base"])
        ratio = float(options_now["max_bytes_for_level_multiplier"])
        paths = paths_for_levels(fast, base, ratio, "0", str(level_devices[-1]))
        db_paths = tuple((int(d), int(t)) for d, t in paths)
        grades.append(KnobGrade(
            "level_devices", "exact",
            f"db_paths: levels 0-{fast - 1} on the first path (target {db_paths[0][1]:,} bytes, "
            f"RocksDB's GetPathId counting level 0 as Level 1's size), the rest on device "
            f"{level_devices[-1]}; set by wacky's bridge (an OPTIONS file cannot spell db_paths)"
            if fast > 0 else
            f"db_paths: every level on device {level_devices[-1]}; flushes still go to the "
            "first path (RocksDB writes every flush there), so this cannot be expressed"))
        if fast == 0:
            raise ValueError("level_devices must keep level 0 on the own device (0) for "
                             "RocksDB: it writes every flush to its first db_path")
    return RocksDBExport(design, system, style, tuple(options), tuple(grades),
                         partitions=l0_partitions, db_paths=db_paths)


def _fast_levels(level_devices: tuple[int, ...]) -> int | None:
    """k in level_devices = (0,) * k + (d,): the levels on the own device; None without a
    placement (or every level on the own device). ValueError for another shape."""
    if not level_devices or all(d == 0 for d in level_devices):
        return None
    k = next(i for i, d in enumerate(level_devices) if d != 0)
    if any(d != level_devices[k] for d in level_devices[k:]):
        raise ValueError(f"level_devices {list(level_devices)} cannot be RocksDB's db_paths: it "
                         "places levels by its paths' target sizes in order, the first levels on "
                         "the first path and the rest on the next (give 0, ..., 0, d)")
    return k


def check_file_bytes(file_bytes: int | None, system: System, level1_bytes: float) -> int:
    """``file_bytes`` checked against one block and Level 1's capacity; None: the buffer's
    size (RocksDB's defaults tie ``target_file_size_base`` to ``write_buffer_size``)."""
    if file_bytes is None:
        return int(min(system.buffer_bytes, max(system.block_bytes, level1_bytes)))
    if (isinstance(file_bytes, bool) or not isinstance(file_bytes, int)
            or not system.block_bytes <= file_bytes <= level1_bytes):
        raise ValueError(f"file_bytes must be a whole number of bytes from one block to Level "
                         f"1's capacity, [{system.block_bytes}, {int(level1_bytes)}]; got "
                         f"{file_bytes!r}")
    return file_bytes


def _table_options(opt, system: System) -> None:
    """The table and filter options every export shares."""
    opt("TableOptions", "whole_key_filtering", "true", "point reads probe the filters")
    opt("TableOptions", "block_size", system.block_bytes, "the model's block B")
    if system.paged_metadata:
        opt("TableOptions", "cache_index_and_filter_blocks", "true",
            "index and filter blocks live on disk and share the block cache (paged metadata, "
            "docs/MODEL.md G1)")
        opt("TableOptions", "pin_l0_filter_and_index_blocks_in_cache", "false",
            "no level's metadata is pinned: every block competes in the LRU, as G1 prices it")
    else:
        opt("TableOptions", "cache_index_and_filter_blocks", "false",
            "index and filter blocks stay in memory, as the model assumes")
    opt("TableOptions", "format_version", TABLE_FORMAT_VERSION, "full (not block) filters")
    opt("CFOptions", "optimize_filters_for_hits", "false",
        "the model keeps a filter at every level, Level L included")


# Stall triggers far above any run count a design can have (RocksDB's defaults stop writes at
# 36 level-0 files, and the driver keeps every run in level 0).
NO_STALL_FILES = 1 << 30


def driver_export(design: Design, system: System) -> RocksDBExport:
    """The options of a database the Wacky compaction driver runs (``validation.rocksdb_driver``):
    RocksDB's own compaction off, every run one file in level 0, flushes and merges chosen by the
    driver, each file's filter set by it. Any design maps exactly; the note of each knob says
    what the mapping costs."""
    if system.memory_split:
        system = system.with_buffer(system.buffer_bytes)
    options: list[RocksOption] = []

    def opt(section: str, name: str, value: object, reason: str) -> None:
        options.append(RocksOption(section, name, str(value), reason))

    opt("DBOptions", "create_if_missing", "true", "a new database for the design")
    opt("DBOptions", "max_background_jobs", 2, "flushes run in the background; the driver waits")
    opt("CFOptions", "disable_auto_compactions", "true",
        "the driver chooses every merge (CompactFiles), as the design's policy says")
    opt("CFOptions", "write_buffer_size", 4 * system.buffer_entries * system.entry_bytes,
        f"room for four buffers of F = {system.buffer_entries:,} entries with RocksDB's "
        "memtable overhead: the driver flushes after every F entries itself")
    opt("CFOptions", "max_write_buffer_number", 2, "one buffer fills while the other flushes")
    opt("CFOptions", "compression", "kNoCompression", "the model counts uncompressed blocks")
    opt("CFOptions", "compaction_style", "kCompactionStyleLevel",
        "unused: automatic compactions are off")
    opt("CFOptions", "num_levels", 2, "every run lives in level 0")
    for name in ("level0_file_num_compaction_trigger", "level0_slowdown_writes_trigger",
                 "level0_stop_writes_trigger"):
        opt("CFOptions", name, NO_STALL_FILES,
            "a level of the design may hold many runs, each a level-0 file: never stall on them")
    for name in ("soft_pending_compaction_bytes_limit", "hard_pending_compaction_bytes_limit"):
        opt("CFOptions", name, 0, "no stall on compaction debt: the driver merges synchronously")
    opt("CFOptions", "target_file_size_base", 1 << 40, "one file per run")
    opt("TableOptions", "filter_policy", "bloomfilter:10:false",
        "replaced by the driver's policy, which sets each run's bits per key (Eq 12)")
    _table_options(opt, system)
    mapping = ("every run is one level-0 file, newest first, and the driver keeps which design "
               "level holds it; a read probes the runs' filters newest first, as in the design")
    grades = tuple(KnobGrade(k, "exact", mapping if k == "T" else "set by the driver's policy")
                   for k in ("buffer", "T", "C", "X", "K", "Z", "filters"))
    return RocksDBExport(design, system, "driver", tuple(options), grades)


def _filter_bits(design: Design, system: System) -> float:
    if system.bits_per_entry is not None:
        return float(system.bits_per_entry)
    return float(analyze(design, system, realizable=True).memory_bits_per_entry)


def _filter_grade(design: Design, system: System) -> KnobGrade:
    if design.filters == "uniform":
        return KnobGrade("filters", "exact", "the same bits per key at every level")
    ours = analyze(design, system, realizable=True).finite
    flat = analyze(replace(design, filters="uniform"), system, realizable=True).finite
    assert ours is not None and flat is not None
    change = flat.zero_result_read / ours.zero_result_read - 1 if ours.zero_result_read else 0.0
    return KnobGrade(
        "filters", "approximate",
        f"Monkey's per-level rates (Eq 12) need the driver's filter policy; one rate for all "
        f"levels moves the model's zero-result read cost from {ours.zero_result_read:.4g} to "
        f"{flat.zero_result_read:.4g} I/O ({change:+.0%})")

