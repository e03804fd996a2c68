"""The dashboard's behaviour as plain functions of the controls' raw values (the tests call
them directly), and their registration. Bad values never raise: they come back as messages.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode

import plotly.graph_objects as go
from dash import ALL, Dash, Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from dashboard import help as HELP
from dashboard import layout as L
from dashboard import validation_panel
from dashboard.jobs import ValidationJobs
from dashboard.payload import lighten
from wacky_model.analysis import Analysis, analyze
from wacky_model.compat import FEATURES
from wacky_model.config import Configuration
from wacky_model.devices import Device, DeviceProfile
from wacky_model.figures.design import structure_figure, theta_by_family
from wacky_model.figures.frontiers import memory_frontier, range_frontier
from wacky_model.guardrails import DEFAULT_CONSTRAINTS, Constraints, WriteRate
from wacky_model.presets import PRESET_NAMES, preset
from wacky_model.rocksdb_options import RocksDBExport, rocksdb_export
from wacky_model.rocksdb_tuning import (
    RocksDBConfig,
    RocksDBRecommendation,
    UniversalConfig,
    recommend_rocksdb,
    stock_config,
)
from wacky_model.search import Alternative, DesignSpace, Recommendation, classify, recommend
from wacky_model.skew import needs_skew_model
from wacky_model.throughput import in_seconds
from wacky_model.types import Design, Floating, KeyDistribution, System, Workload

WORKLOAD_IDS = tuple(i for i, _, _ in L.WORKLOAD_FIELDS)
KEY_IDS = tuple(i for i, _, _ in L.KEY_FIELDS)
SYSTEM_IDS = tuple(i for i, _, _ in L.SYSTEM_FIELDS)
KNOB_NAMES = tuple(name for name, *_ in L.KNOBS)
SEARCH_IDS = tuple(i for i, *_ in L.SEARCH_CHOICES)
DEVICE_IDS = tuple(i for i, _, _ in L.DEVICE_FIELDS)
# The fields after the system's own: probes, paged metadata, devices and floating.
OPTION_FIELDS = (L.PROBE_COST, *L.DEVICE_FIELDS, L.FLOATING)
OPTION_IDS = tuple(i for i, _, _ in OPTION_FIELDS)
# The workload dict: weights, keys, updates, correlation and rho; the system dict: the system
# fields, the memory split and what the search may pick.
WORKLOAD_CONTROLS = (*WORKLOAD_IDS, L.RANGE_BLOCKS[0], *KEY_IDS, L.UPDATE_FRACTION[0],
                     L.CORRELATED, L.ROBUST[0])
SYSTEM_CONTROLS = (*SYSTEM_IDS, L.MEMORY_SPLIT, L.MEMORY_BITS[0], L.MAX_RUNS[0],
                   L.MAX_PEAK_DISK[0], *SEARCH_IDS, *OPTION_IDS, L.PAGED)
LABELS = {i: label for i, label, *_ in (*L.WORKLOAD_FIELDS, L.RANGE_BLOCKS, *L.KEY_FIELDS,
                                        L.UPDATE_FRACTION, L.ROBUST, *L.SYSTEM_FIELDS,
                                        L.MEMORY_BITS, L.MAX_RUNS, L.MAX_PEAK_DISK, *L.KNOBS,
                                        *L.SEARCH_CHOICES, *OPTION_FIELDS)}
LABELS[L.PAGED] = "filters and indexes paged through the cache"  # a check box's text
LABELS.update({L.PROFILE: L.PROFILE_LABEL, L.WRITE_RATE[0]: L.WRITE_RATE[1],
               L.OBJECTIVE[0]: L.OBJECTIVE[1]})
# Each menu's choices: value -> the text the page shows for it.
CHOICE_TEXT = {i: dict(options) for i, _, options, _ in (*L.SEARCH_CHOICES, L.OBJECTIVE)}
CHOICE_DEFAULTS = {i: default for i, *_, default in L.SEARCH_CHOICES}
# The model's own parameter names, as its errors spell them, in the page's words.
MODEL_NAMES = {
    **{f.replace("-", "_"): LABELS[f] for f in (
        *KEY_IDS, "update-fraction", "range-blocks", "bits-per-entry", "entry-bytes",
        "block-bytes", "point-reads", "zero-reads", "range-reads")},
    "memory_bits_per_entry": LABELS["memory-bits"], "buffer_bytes": LABELS["buffer-mib"],
    "cache_bytes": LABELS["cache-mib"], "sum_fpr": "sum of false-positive rates",
    "--max-runs-per-level": f"the field “{LABELS['max-runs']}”",
    "max_runs_per_level": f"the field “{LABELS['max-runs']}” at",  # Constraints.describe()
    "--max-transient-space": f"the field “{LABELS['max-peak-disk']}”",
    "max_transient_space": f"the field “{LABELS['max-peak-disk']}”",
    "probe_cost": LABELS["probe-cost"],
    "--probe-cost": f"the field “{LABELS['probe-cost']}”",  # the search's floating reason
    "correlated=True": "“hot reads are hot writes” ticked",  # wacky_model.compat.KEY_REFUSALS
    "correlated=False": "“hot reads are hot writes” unticked",
}
_MODEL_NAME = re.compile(r"(?<![\w-])(" + "|".join(sorted(MODEL_NAMES, key=len, reverse=True))
                         + r")\b")


def page_words(message: str) -> str:
    """A model error in the page's words: its parameter names become the fields' labels."""
    return _MODEL_NAME.sub(lambda m: MODEL_NAMES[m.group(1)], message)


def choice_words(field: str, value: str) -> str:
    """A menu's choice as the page shows it: “Target: Stock RocksDB”."""
    return f"“{LABELS[field]}: {CHOICE_TEXT[field][value]}”"


def _field(field: str) -> str:
    return f"“{LABELS[field]}”"


# The library's refusals name its arguments (wacky_model.compat.FEATURES, and search's checks
# of granularity, target and level0_trigger): here they name the page's fields and choices.
SEARCH_WORDS = {
    FEATURES["skew"]: f"skewed keys or updates ({_field('write-keys')}, {_field('read-keys')}, "
                      f"{_field('update-fraction')})",
    FEATURES["cache"]: f"a block cache ({_field('cache-mib')})",
    FEATURES["memory_split"]: f"a total memory budget ({_field('memory-bits')})",
    FEATURES["robust"]: f"robust tuning ({_field('robust-rho')})",
    FEATURES["guardrails"]: f"a run limit ({_field('max-runs')})",
    FEATURES["files"]: f"file-granular merges ({choice_words('merges', 'file')})",
    FEATURES["level0_trigger"]: f"a level-0 trigger above 1 ({_field('level0-trigger')})",
    FEATURES["rocksdb"]: f"the stock RocksDB target ({choice_words('target', 'rocksdb')})",
    FEATURES["probe_cost"]: f"a probe cost ({_field('probe-cost')})",
    FEATURES["paged"]: f"paged filters and indexes ({_field(L.PAGED)} ticked)",
    FEATURES["devices"]: f"levels placed on devices ({_field('device2-read')}, "
                         f"{_field('device2-write')})",
    FEATURES["floating"]: f"Tidal-tree's floating of hot files ({_field('floating-gamma')})",
    FEATURES["time_objective"]: f"the time objective ({choice_words('objective', 'throughput')})",
    FEATURES["placed_skew"]: (f"skew that puts the keys read most in particular levels or key "
                              f"ranges ({_field('write-keys')}, {_field('update-fraction')}, "
                              f"or latest or hotrange {_field('read-keys')})"),
    "(System.devices' capacity_bytes)": f"({_field('own-device-gib')}, "
                                        f"{_field('device2-gib')})",
    "level0_trigger above 1": f"{_field('level0-trigger')} above 1",
    "target='rocksdb'": choice_words("target", "rocksdb"),
    "target='native'": choice_words("target", "native"),
    "granularity='level'": choice_words("merges", "level"),
    "granularity='file'": choice_words("merges", "file"),
}


def search_words(message: str) -> str:
    """A refusal of the search in the page's words (longest first: the features' words
    contain the arguments' own)."""
    for api in sorted(SEARCH_WORDS, key=len, reverse=True):
        message = message.replace(api, SEARCH_WORDS[api])
    return page_words(message)


@dataclass(frozen=True)
class SearchPins:
    """``recommend``'s granularity, target and level-0 trigger (None: searched), and on stock
    RocksDB the machine of the throughput objective (T7; None: Θ)."""

    granularity: str = "any"
    target: str = "native"
    level0_trigger: int | None = None
    throughput_on: DeviceProfile | None = None

    def arguments(self) -> dict[str, Any]:
        # Not dataclasses.asdict: it would turn the profile into a dict.
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


SEARCHED = SearchPins()  # the search chooses everything: the page's defaults


@dataclass(frozen=True)
class Services:
    """What the callbacks need beyond their inputs, one per app. ``recommend_for`` and
    ``rocksdb_report_for``, when given, stand in for the methods (``create_app`` caches them)."""

    space_for: Callable[..., DesignSpace]  # (system, constraints=None)
    jobs: ValidationJobs
    recommend_for: Callable[..., Recommendation] | None = None
    rocksdb_report_for: Callable[..., RocksDBRecommendation] | None = None

    def recommend(self, workload: Workload, system: System, rho: float | None,
                  constraints: Constraints | None = None,
                  pins: SearchPins = SEARCHED) -> Recommendation:
        if self.recommend_for is not None:
            return self.recommend_for(workload, system, rho, constraints, pins)
        return recommend(workload, system, space=self.space_for(system, constraints=constraints),
                         rho=rho, constraints=constraints, **pins.arguments())

    def rocksdb_report(self, workload: Workload, system: System, rho: float | None,
                       constraints: Constraints | None = None,
                       pins: SearchPins = SEARCHED) -> RocksDBRecommendation:
        """What ``wacky recommend --target rocksdb`` prints beside its pick."""
        if self.rocksdb_report_for is not None:
            return self.rocksdb_report_for(workload, system, rho, constraints, pins)
        return recommend_rocksdb(workload, system, constraints, rho, pins.level0_trigger,
                                 pins.throughput_on)


@dataclass(frozen=True)
class Controls:
    """The parsed controls; rho None: tune for the workload exactly."""

    workload: Workload
    system: System
    design: Design | None  # None: recommend one
    rho: float | None = None
    constraints: Constraints | None = None  # guardrails on the recommendation
    pins: SearchPins = SEARCHED  # what the search may pick
    floating: float | None = None  # Tidal-tree's gamma to price the pick with (None: off)
    machine: Machine | None = None  # a machine profile and what applies with it


@dataclass(frozen=True)
class Machine:
    """The machine the page prices time on (issue 34): its profile, and what applies with the
    target: the write rate on stock RocksDB (T2, T3), the objective on both (the native
    engine's T4, stock RocksDB's T7). ``io_system``: the system before the native engine's time
    objective priced it in seconds."""

    profile: DeviceProfile
    write_rate: float | None = None
    objective: str = "io"
    io_system: System | None = None


OBJECTIVE_TEXT = dict(L.OBJECTIVE[2])
# The machine's controls as the page starts: no profile, no rate, the I/O objective.
DEFAULT_MACHINE = {L.PROFILE: None, L.WRITE_RATE[0]: L.WRITE_RATE[2],
                   L.OBJECTIVE[0]: L.OBJECTIVE[3]}


def parse_profile_upload(contents: Any, filename: Any) -> tuple[dict[str, Any] | None, str]:
    """(the profile's fields for the page's Store, or None; what the status line says) for an
    upload's data URL. A bad file's message is the library's (DeviceProfile.from_dict), naming
    the field and the file, after the control's label."""
    import base64
    import binascii

    name = str(filename or "the file")
    if not isinstance(contents, str) or "," not in contents:
        return None, "No profile: costs in I/O only."
    try:
        text = base64.b64decode(contents.split(",", 1)[1], validate=True).decode("utf-8")
        doc = json.loads(text)
        profile = DeviceProfile.from_dict(doc, name)
    except (binascii.Error, UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, f"{L.PROFILE_LABEL}: {name} is not a JSON profile: {err}"
    except ValueError as err:
        return None, f"{L.PROFILE_LABEL}: {err}"
    fields = {k: v for k, v in profile.to_dict().items() if k != "units"}
    return fields, f"{L.PROFILE_LABEL}: {profile.name} ({profile.method}), from {name}."


def machine_fields_shown(profile: Any, target: Any) -> tuple[dict, dict]:
    """(write rate, objective) field styles: each shown only where it applies (a profile and
    stock RocksDB; a profile and either target)."""
    show, hide = {"display": "block"}, {"display": "none"}
    if not profile:
        return hide, hide
    return (show, show) if target == "rocksdb" else (hide, show)


def parse_machine(values: dict[str, Any] | None, pins: SearchPins) -> Machine | None:
    """The machine controls (keys as DEFAULT_MACHINE) for the target in ``pins``: None without
    a profile; a field that does not apply to the target (hidden) is not read. Refuses what
    ``recommend --profile`` refuses, naming the page's fields."""
    values = {**DEFAULT_MACHINE, **(values or {})}
    doc = values.get(L.PROFILE)
    if not doc:
        return None
    try:
        profile = DeviceProfile.from_dict(doc, L.PROFILE_LABEL)
    except ValueError as err:
        raise ValueError(str(err)) from None
    raw = values.get(L.OBJECTIVE[0]) or L.OBJECTIVE[3]
    if raw not in OBJECTIVE_TEXT:
        raise ValueError(f"{LABELS[L.OBJECTIVE[0]]}: {_quoted(raw)} is not a choice; choose "
                         f"{' or '.join(OBJECTIVE_TEXT.values())}")
    if pins.target == "rocksdb":
        if not profile.has_rocksdb:
            raise ValueError(f"{L.PROFILE_LABEL}: {profile.name} has no RocksDB figures "
                             "(rocksdb_ns_per_put, ...): run wacky calibrate with the RocksDB "
                             f"bridge built, or choose {choice_words('target', 'native')}")
        if raw == "throughput" and not profile.has_rocksdb_reads:
            raise ValueError(f"{L.PROFILE_LABEL}: {profile.name} has no RocksDB read figures "
                             "(rocksdb_ns_per_get, ...), which “"
                             f"{LABELS['objective']}: {OBJECTIVE_TEXT['throughput']}” needs on "
                             "stock RocksDB (T6, T7): run wacky calibrate with the RocksDB "
                             "bridge built")
        rate = _positive(L.WRITE_RATE[0], values)
        return Machine(profile, write_rate=rate, objective=raw)
    if raw == "throughput" and None in (profile.cpu_ns_per_put, profile.cpu_ns_per_entry_merged,
                                        profile.cpu_ns_per_probe):
        raise ValueError(f"{L.PROFILE_LABEL}: {profile.name} has no CPU costs, which "
                         f"“{LABELS['objective']}: {OBJECTIVE_TEXT['throughput']}” needs "
                         "(wacky calibrate without --no-cpu)")
    return Machine(profile, objective=raw)


def with_machine(controls: Controls, machine: Machine | None) -> Controls:
    """The controls as the search takes them with a machine: the write rate as a constraint
    (the CLI's --write-rate) and, with --objective throughput, on stock RocksDB the machine
    the search times (T7), on the native engine the system priced in time (T4)."""
    if machine is None:
        return controls
    if machine.write_rate is not None:
        constraints = replace(controls.constraints or Constraints(),
                              write_rate=WriteRate(machine.write_rate, machine.profile))
        controls = replace(controls, constraints=constraints)
    if machine.objective == "throughput" and controls.pins.target == "rocksdb":
        return replace(controls, pins=replace(controls.pins, throughput_on=machine.profile),
                       machine=machine)
    if machine.objective == "throughput":
        if controls.system.probe_cost > 0:
            raise ValueError(f"{LABELS['probe-cost']}: “{LABELS['objective']}: "
                             f"{OBJECTIVE_TEXT['throughput']}” takes the probe cost from the "
                             "machine profile; set it to 0")
        io_system = controls.system
        return replace(controls, system=in_seconds(io_system, machine.profile),
                       machine=replace(machine, io_system=io_system))
    return replace(controls, machine=machine)


def default_controls() -> tuple[dict[str, Any], dict[str, Any], str, dict[str, Any], str]:
    """The controls as the page starts: (workload, system, mode, knobs, filters)."""
    workload = {**{i: v for i, _, v in (*L.WORKLOAD_FIELDS, L.RANGE_BLOCKS, *L.KEY_FIELDS,
                                        L.UPDATE_FRACTION, L.ROBUST)}, L.CORRELATED: ["on"]}
    system = {**{i: L.display_value(i, v) for i, _, v in (*L.SYSTEM_FIELDS, L.MEMORY_BITS,
                                                          L.MAX_RUNS, L.MAX_PEAK_DISK,
                                                          *OPTION_FIELDS)},
              L.MEMORY_SPLIT: [], **CHOICE_DEFAULTS, L.PAGED: []}
    knobs = {name: default for name, *_, default in L.KNOBS}
    return workload, system, "recommend", knobs, "optimized"


MAX_SHOWN = 24  # characters of a bad value quoted back in a message


def _quoted(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…")


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _plain(value: Any) -> str:
    return str(value).strip().replace(",", "").replace("_", "").replace(" ", "")


def _to_float(value: Any) -> float:
    """A number as people type it: 2,147,483,648, 2_000, 1e9, 2^31 (or 2**31)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = _plain(value)
    base, sep, exponent = text.replace("**", "^").partition("^")
    if sep:
        b, e = float(base), float(exponent)
        return math.inf if abs(e) > 400 else b ** e
    return float(text)


MAX_ENTRIES = 2.0**53  # System's bound: entries are counted in doubles
MAX_MIB = 2.0**42  # 2^62 bytes, System's bound on any size
# Each field's valid range, as the model bounds it, in the field's own units, and its words.
FIELD_RANGES: dict[str, tuple[float, float, str]] = {
    **dict.fromkeys(WORKLOAD_IDS, (0.0, 1e12, "between 0 and 10^12")),
    "write-rate": (0.0, 1e12, "above 0 and at most 10^12"),  # WriteRate: above 0
    "range-blocks": (0.0, 1e15, "between 0 and 10^15"),
    "entries": (1.0, MAX_ENTRIES, "between 1 and 2^53"),
    **dict.fromkeys(("entry-bytes", "block-bytes"), (1.0, 2.0**30, "between 1 and 2^30")),
    **dict.fromkeys(("buffer-mib", "cache-mib"), (0.0, MAX_MIB, "between 0 and 2^42")),
    **dict.fromkeys(("bits-per-entry", "memory-bits", "max-runs", "max-peak-disk"),
                    (0.0, 1e6, "between 0 and 10^6")),
    **dict.fromkeys(("update-fraction", "robust-rho"), (0.0, 100.0, "between 0 and 100")),
    "probe-cost": (0.0, 1.0, "between 0 and 1"),  # System's bound
    # Device's bounds: a cost in (0, 10^6]; a capacity above 0 (parse_devices checks > 0).
    **dict.fromkeys(("device2-read", "device2-write"), (0.0, 1e6, "above 0 and at most 10^6")),
    **dict.fromkeys(("own-device-gib", "device2-gib"), (0.0, MAX_MIB / 1024,
                                                        "above 0 and at most 2^32")),
    "floating-gamma": (0.0, 1e6, "above 0 and at most 10^6"),  # Floating: gamma above 0
    # The knobs' ranges are the search's bounds (layout.KNOBS).
    **{name: (lo, hi, f"between {lo:g} and {hi:g}") for name, _, lo, hi, *_ in L.KNOBS},
}


def number(field: str, value: Any) -> float:
    """One numeric control in its FIELD_RANGES; a ValueError names the field's label."""
    label = LABELS.get(field, field)
    if _blank(value):
        raise ValueError(f"{label}: the field is empty; enter a number")
    try:
        v = _to_float(value)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        raise ValueError(f"{label}: {_quoted(value)} is not a number") from None
    if isinstance(v, complex) or math.isnan(v):
        raise ValueError(f"{label}: {_quoted(value)} is not a number")
    lo, hi, words = FIELD_RANGES[field]
    if not lo <= v <= hi:
        # A number too large for a double (500 nines) is out of the field's range, not missing.
        got = f"{v:.6g}" if math.isfinite(v) else _too_large(value)
        raise ValueError(f"{label}: must be {words}; got {got}")
    return v


def _too_large(value: Any) -> str:
    """A value beyond a double's range: "a 500-digit number", or the typed text."""
    text = _plain(value)
    sign = "negative " if text.startswith("-") else ""
    digits = text.lstrip("+-")
    if digits.isdigit():
        return f"a {sign}{len(digits):,}-digit number"
    return _quoted(value)


def is_on(value: Any) -> bool:
    """A one-box checklist's value: ["on"] when ticked."""
    return isinstance(value, (list, tuple)) and "on" in value


# What each key field takes, in the page's words ("latest": for writes, updates of recently
# inserted keys; for reads, recently written keys).
KEY_CHOICES = {"write-keys": "uniform, zipf:θ, hotset:h:p or latest",
               "read-keys": "uniform, zipf:θ, hotset:h:p, hotrange:h:p or latest"}
_LIBRARY_CHOICES = re.compile(r"use uniform, zipf:\S+,? hotset:\S+ or latest\S*"
                              r"( \(for reads also hotrange:\S+\))?")


def _key_distribution(field: str, value: Any) -> str:
    text = "uniform" if value is None or not str(value).strip() else str(value).strip()
    if len(text) > MAX_SHOWN:
        raise ValueError(f"{LABELS[field]}: {_quoted(text)} is not a distribution; use "
                         f"{KEY_CHOICES[field]}")
    try:
        KeyDistribution.parse(text)
    except ValueError as err:
        words = _LIBRARY_CHOICES.sub(f"use {KEY_CHOICES[field]}", page_words(str(err)))
        raise ValueError(f"{LABELS[field]}: {words}") from None
    return text


def _each(parse: Callable[[str], Any], fields: Iterable[str],
          problems: list[str]) -> dict[str, Any]:
    """``parse`` of each field; what it refuses goes to ``problems`` (one line each), so that
    every problem is reported at once."""
    parsed = {}
    for field in fields:
        try:
            parsed[field] = parse(field)
        except ValueError as err:
            problems.extend(str(err).split("\n"))
    return parsed


def _refuse(problems: list[str]) -> None:
    if problems:
        raise ValueError("\n".join(problems))


def _model_names(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields keyed by the model's names: ``point-reads`` -> ``point_reads``."""
    return {field.replace("-", "_"): value for field, value in fields.items()}


def parse_workload(values: dict[str, Any]) -> Workload:
    """Weights in any units (percent, counts) normalized to fractions summing to 1, with the
    keys they touch."""
    problems: list[str] = []
    weights = _each(lambda f: number(f, values.get(f)), (*WORKLOAD_IDS, L.RANGE_BLOCKS[0]),
                    problems)
    keys = _each(lambda f: _key_distribution(f, values.get(f)), KEY_IDS, problems)
    updates = _each(lambda f: number(f, values.get(f, 0.0)), (L.UPDATE_FRACTION[0],), problems)
    _refuse(problems)
    if sum(weights[f] for f in WORKLOAD_IDS) <= 0:
        raise ValueError("Workload: every operation weight is 0; give at least one a weight "
                         "above 0")
    mix = Workload.from_counts(**_model_names(weights))
    try:
        return replace(mix, **_model_names(keys),
                       update_fraction=updates[L.UPDATE_FRACTION[0]] / 100.0,
                       correlated=is_on(values.get(L.CORRELATED, ["on"])))
    except ValueError as err:
        raise ValueError(page_words(str(err))) from None


def parse_constraints(values: dict[str, Any]) -> Constraints | None:
    """At most this many runs in any level (0: no limit; empty: recommend's default, 36), and
    at most this much disk during merges, over the data (0 or empty: no limit; T5)."""
    limit = _optional(L.MAX_RUNS[0], values)
    runs = (DEFAULT_CONSTRAINTS.max_runs_per_level if limit is None
            else _whole(L.MAX_RUNS[0], limit))
    peak = _optional(L.MAX_PEAK_DISK[0], values) or None
    if not runs and peak is None:
        return None
    if limit is None and peak is None:
        return DEFAULT_CONSTRAINTS  # recommend's own default, as recommend spells it
    try:  # Constraints checks the limit; its message, in the page's words
        return Constraints(max_runs_per_level=runs or None, max_transient_space=peak)
    except ValueError as err:
        raise ValueError(page_words(str(err))) from None


def _choice(field: str, values: dict[str, Any]) -> str:
    """One menu's value (its default when absent); anything else (a hand-made link) is
    refused, naming the field and its choices."""
    raw = values.get(field)
    if raw is None or raw == "":
        return CHOICE_DEFAULTS[field]
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    text = str(raw)
    if text not in CHOICE_TEXT[field]:
        names = list(CHOICE_TEXT[field].values())
        raise ValueError(f"{LABELS[field]}: {_quoted(raw)} is not a choice; choose "
                         f"{', '.join(names[:-1])} or {names[-1]}")
    return text


def parse_pins(values: dict[str, Any]) -> SearchPins:
    """Merges, level-0 trigger and target; which go together is the library's to say."""
    problems: list[str] = []
    chosen = _each(lambda f: _choice(f, values), SEARCH_IDS, problems)
    _refuse(problems)
    trigger = chosen[L.LEVEL0_TRIGGER[0]]
    return SearchPins(granularity=chosen[L.MERGES[0]], target=chosen[L.TARGET[0]],
                      level0_trigger=None if trigger == "searched" else int(trigger))


def parse_rho(values: dict[str, Any]) -> float | None:
    """The robust tuning's rho; 0 (or empty) is off."""
    return _optional(L.ROBUST[0], values) or None


def _optional(field: str, values: dict[str, Any]) -> float | None:
    raw = values.get(field)
    return None if _blank(raw) else number(field, raw)


def _positive(field: str, values: dict[str, Any]) -> float | None:
    """An optional field whose value must be above 0 (empty: None)."""
    v = _optional(field, values)
    if v is not None and v <= 0:
        raise ValueError(f"{LABELS[field]}: must be {FIELD_RANGES[field][2]}; got {v:.6g}")
    return v


# The devices' names, as the placement's words print them ("levels 0-3 on own, ...").
OWN_DEVICE, SECOND_DEVICE = "own", "second"


def parse_devices(values: dict[str, Any]) -> tuple[Device, ...]:
    """The CLI's ``--device`` list: none while the fields are empty (one device, today's);
    else the own device first (read cost 1 and write cost 1, the unit: the page has no
    write-cost ratio), then the second when its costs are given."""
    problems: list[str] = []
    v = _each(lambda f: _positive(f, values), DEVICE_IDS, problems)
    _refuse(problems)
    own_gib, read, write, gib = (v[f] for f in DEVICE_IDS)
    if (read is None) != (write is None):
        empty = "device2-write" if write is None else "device2-read"
        raise ValueError(f"{LABELS[empty]}: the field is empty; give the second device's read "
                         "and write costs together")
    if read is None and gib is not None:
        raise ValueError(f"{LABELS['device2-gib']}: give the second device's read and write "
                         "costs too")
    if own_gib is None and read is None:
        return ()
    own = Device(OWN_DEVICE, 1.0, 1.0, math.inf if own_gib is None else own_gib * 2**30)
    if read is None or write is None:
        return (own,)
    return (own, Device(SECOND_DEVICE, read, write, math.inf if gib is None else gib * 2**30))


def parse_floating(values: dict[str, Any]) -> float | None:
    """Tidal-tree's gamma (empty: off, as the CLI without --floating)."""
    return _positive(L.FLOATING[0], values)


def _whole(field: str, value: float, what: str = "a whole number") -> int:
    if value != int(value):
        raise ValueError(f"{LABELS[field]}: must be {what}; got {value:.6g}")
    return int(value)


def split_overrides(split: Any, mode: Any) -> tuple[str, ...]:
    """The system fields a ticked memory split overrides (disabled, not read): the filter
    memory, and the buffer too unless a manual design keeps the buffer given."""
    if not is_on(split):
        return ()
    return ("bits-per-entry",) if mode == "manual" else ("buffer-mib", "bits-per-entry")


def memory_fields_disabled(split: Any, mode: Any) -> tuple[bool, bool, bool]:
    """(buffer, filter memory, total memory) disabled: what the split overrides; the total
    without a split."""
    overridden = split_overrides(split, mode)
    return ("buffer-mib" in overridden, "bits-per-entry" in overridden, not is_on(split))


def parse_system(values: dict[str, Any], mode: Any = "recommend") -> System:
    """The system fields as a System (what a ticked split overrides is not read). Every
    problem at once: each check runs when the fields it needs are usable."""
    problems: list[str] = []
    split = is_on(values.get(L.MEMORY_SPLIT))
    overridden = split_overrides(values.get(L.MEMORY_SPLIT), mode)
    fields = tuple(f for f in SYSTEM_IDS if f not in overridden) + (
        (L.MEMORY_BITS[0],) if split else ())
    v = _each(lambda f: number(f, values.get(f, 0.0) if f == "cache-mib" else values.get(f)),
              fields, problems)
    sizes = _each(lambda f: _whole(f, v[f], "a whole number of bytes"),
                  [f for f in ("entry-bytes", "block-bytes") if f in v], problems)
    entries = v.get("entries")
    entry_bytes, block_bytes = sizes.get("entry-bytes"), sizes.get("block-bytes")
    if entries is not None and entry_bytes is not None and entries * entry_bytes > 2.0**62:
        problems.append(f"{LABELS['entries']} × {LABELS['entry-bytes']}: the data must be at "
                        f"most 2^62 bytes (4 EiB); got {entries * entry_bytes:.3g} bytes")
    if entry_bytes is not None and block_bytes is not None and block_bytes < entry_bytes:
        problems.append(f"{LABELS['block-bytes']}: a block must hold at least one entry "
                        f"({entry_bytes:,} bytes); got {block_bytes:,}")
    # The CLI's --probe-cost, --paged-metadata and --device, as System takes them.
    probe = _each(lambda f: _optional(f, values) or 0.0, (L.PROBE_COST[0],), problems)
    devices = _each(lambda _: parse_devices(values), ("devices",), problems)
    _refuse(problems)
    if "buffer-mib" in overridden:
        # Only where a design sits before the search splits the memory: the field's value when
        # usable, else one block (a disabled field must not block the page).
        try:
            buffer_bytes = _buffer(number("buffer-mib", values.get("buffer-mib")), entries,
                                   entry_bytes, block_bytes)
        except ValueError:
            buffer_bytes = block_bytes
    else:
        buffer_bytes = _buffer(v["buffer-mib"], entries, entry_bytes, block_bytes)
    budget = ({"memory_bits_per_entry": v[L.MEMORY_BITS[0]]} if split
              else {"bits_per_entry": v["bits-per-entry"]})
    try:
        return System(entries=v["entries"], entry_bytes=entry_bytes, block_bytes=block_bytes,
                      key_bytes=min(8, entry_bytes), buffer_bytes=buffer_bytes,
                      cache_bytes=int(round(v["cache-mib"] * 2**20)),
                      probe_cost=probe[L.PROBE_COST[0]], paged_metadata=is_on(values.get(L.PAGED)),
                      devices=devices["devices"], **budget)
    except ValueError as err:
        raise ValueError(page_words(str(err))) from None


def _buffer(mib: float, entries: float, entry_bytes: int, block_bytes: int) -> int:
    """The buffer field in bytes, checked against the data in the page's words."""
    buffer_bytes = int(round(mib * 2**20))
    if buffer_bytes < block_bytes:
        raise ValueError(f"{LABELS['buffer-mib']}: the buffer must hold at least one block "
                         f"({block_bytes:,} bytes)")
    # System checks this too, but in its own field names; say it in the page's words.
    entries_in_buffer = (buffer_bytes // block_bytes) * (block_bytes // entry_bytes)
    if entries_in_buffer >= entries:
        raise ValueError(
            f"{LABELS['buffer-mib']}: the buffer holds {entries_in_buffer:,} entries, as many "
            f"as the data ({entries:,.0f} entries) or more; make it smaller than the data")
    return buffer_bytes


def parse_design(knobs: dict[str, Any], filters: Any) -> Design:
    problems: list[str] = []
    values = _each(lambda name: number(name, knobs.get(name)), KNOB_NAMES, problems)
    _refuse(problems)
    try:
        return Design(**values, filters="uniform" if filters == "uniform" else "optimized")
    except ValueError as err:
        raise ValueError(f"Design: {err}") from None


def parse_controls(workload: dict[str, Any], system: dict[str, Any], mode: Any,
                   knobs: dict[str, Any], filters: Any) -> Controls:
    """All controls at once; every problem is reported, one per line, in one ValueError."""
    errors: list[str] = []
    steps = {"workload": lambda: parse_workload(workload), "rho": lambda: parse_rho(workload),
             "system": lambda: parse_system(system, mode),
             "constraints": lambda: parse_constraints(system), "pins": lambda: parse_pins(system),
             "floating": lambda: parse_floating(system)}
    if mode == "manual":
        steps["design"] = lambda: parse_design(knobs, filters)
    parsed = _each(lambda key: steps[key](), steps, errors)
    if not errors and parsed["rho"] is not None and needs_skew_model(parsed["workload"],
                                                                      parsed["system"]):
        errors.append(f"{LABELS['robust-rho']}: robust tuning is not combined with key skew, "
                      f"updates or a block cache yet; set it to 0, or make {LABELS['write-keys']}"
                      f" and {LABELS['read-keys']} uniform with no updates and no cache")
    _refuse(errors)
    return Controls(**{"design": None, **parsed})


def mix_text(workload: dict[str, Any]) -> str:
    """The normalized mix as the search sees it, or a hint while the weights are unusable."""
    try:
        w = parse_workload({k: workload.get(k) for k in (*WORKLOAD_IDS, L.RANGE_BLOCKS[0])})
    except ValueError:
        return "Mix: enter non-negative weights, at least one above 0."
    parts = zip(("point", "zero-result", "write", "range"), w.fractions, strict=True)
    return "Normalized mix: " + ", ".join(f"{name} {f:.0%}" for name, f in parts)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def knob_text(design: Design) -> str:
    return ", ".join(f"{k} = {v:.4g}" for k, v in design.knobs.items())


def _bytes(n: float) -> str:
    """Bytes in binary units: 256 GiB, 8 MiB, 512 B."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n:.0f} B"


def system_summary(system: dict[str, Any], mode: Any = "recommend",
                   split: System | None = None) -> str:
    """What the system fields add up to ("" while unusable); with the memory split ticked, the
    buffer is the split's (``split``: the system the design shown was priced on)."""
    try:
        s = parse_system(system, mode)
    except ValueError:
        return ""
    text = (f"{s.entries:,.0f} entries = {_bytes(s.entries * s.entry_bytes)} of data, "
            f"{s.entries_per_block} entries per block; ")
    if not s.memory_split:
        text += f"the buffer holds {s.buffer_entries:,} entries"
    elif split is None or split.memory_split:  # before a split is known
        text += (f"{s.memory_bits_per_entry:g} bits/entry of memory, split between the buffer "
                 "and the filters " + ("by the search" if mode != "manual" else
                                       f"(the buffer {_bytes(s.buffer_bytes)}, the rest for "
                                       "filters)"))
    else:
        who = "you gave" if mode == "manual" else "the search chose"
        text += (f"{s.memory_bits_per_entry:g} bits/entry of memory split ({who} the buffer): "
                 f"the buffer holds {split.buffer_entries:,} entries "
                 f"({_bytes(split.buffer_bytes)}), the filters get "
                 f"{split.bits_per_entry or 0.0:.3g} bits/entry")
    if s.cache_bytes:
        text += f"; the cache holds {s.cache_bytes / (s.entries * s.entry_bytes):.2%} of the data"
    return text + "."


COST_ROWS = (
    ("write amplification", "write_amp"),
    ("write cost (I/O per write)", "write_cost"),
    ("point read (I/O)", "point_read"),
    ("zero-result read (I/O)", "zero_result_read"),
    ("range read (runs probed)", "range_runs"),
    ("range read (I/O, with its blocks)", "range_cost"),
    ("filter memory (bits/entry)", "memory_bits_per_entry"),
)


def _help_cell(name: str) -> html.Td:
    return html.Td(name, title=HELP.METRICS.get(name, ""), style={"cursor": "help"})


def memory_text(analysis: Analysis, split: bool) -> str:
    s = analysis.system
    head = "Memory, split by the search: " if split else "Memory: "
    return (f"{head}buffer {_bytes(s.buffer_bytes)} "
            f"({8.0 * s.buffer_bytes / s.entries:.3g} bits/entry) + filters "
            f"{analysis.memory_bits_per_entry:.3g} + fence pointers "
            f"{analysis.fence_bits_per_entry:.3g} = {analysis.total_memory_bits_per_entry:.3g} "
            "bits/entry.")


def disk_text(transient_space: float, space_amp: float) -> str:
    """The disk the design needs beyond its data (docs/MODEL.md T5 and the space guardrail)."""
    return (f"Disk: merges need up to {transient_space:.3g}× the data at their peak (a merge "
            "keeps its inputs until its output is whole); obsolete entries add at most "
            f"{space_amp:.3g}× in the worst case.")


def skew_text(analysis: Analysis) -> str:
    k = analysis.skew
    levels = ", ".join(f"L{i + 1} {h:.0%}" for i, h in enumerate(k.cache_hit_rate_per_level))
    theta = "" if k.theta is None else f"Θ = {k.theta:.4g} I/O per operation; "
    return (f"Under the key skew, updates and cache (skew model, docs/MODEL.md S1-S7): {theta}"
            f"write amplification {k.write_amp:.3g}; {k.point_read:.3g} I/O per existing-key "
            f"read; cache hit rate {k.cache_hit_rate:.1%} ({levels}). The table and the charts "
            "below are for uniform keys.")


def robust_text(robust: dict[str, Any]) -> str:
    mine, theirs = robust["robust_design"], robust["nominal_design"]
    return (f"Robust tuning for ρ = {robust['rho']:g}: the worst Θ over the workloads within "
            f"ρ is {mine['worst_case_cost']:.4g}, against {theirs['worst_case_cost']:.4g} for "
            f"the design tuned for this workload exactly; at this workload it costs "
            f"{mine['nominal_cost']:.4g} against {theirs['nominal_cost']:.4g}. The table's Θ "
            "is each family's worst case.")


@dataclass(frozen=True)
class Headline:
    """The model the card headlines and its figures: every chart marks the design shown at
    these, so a marker and the card never disagree."""

    model: str  # in words: "finite-N model", "skew model", "partial-merge model"
    column: str | None  # the card table's column for it (None: the finite-N column)
    theta: float
    costs: dict[str, float]  # COST_ROWS' keys that this model prices
    words: str  # the card's headline between this Θ and the paper's


def headline_of(analysis: Analysis, files: Recommendation | None = None) -> Headline:
    """The partial-merge (or universal) model's costs for a file-granular pick (``files``),
    the skew model's under skew, updates or a cache, else the finite-N model's."""
    f = analysis.finite
    finite = {key: float(getattr(f, key)) for _, key in COST_ROWS
              if getattr(f, key, None) is not None}
    if files is not None:
        c, stock = files.compaction, files.model in ("rocksdb", "universal")
        if files.model == "universal":
            model = "U1-U4 model, stock RocksDB"
            words = (" I/O per operation on stock RocksDB (its universal compaction, U1-U4 "
                     f"model): trigger {c.universal.trigger}, size amplification "
                     f"{c.universal.max_size_amplification_percent:g}%. The table below is a "
                     "tiered label's whole levels")
        else:
            model = "partial-merge model" + (", stock RocksDB" if stock else "")
            how = ("on stock RocksDB (its leveled compaction with dynamic level sizes; "
                   "partial-merge model)" if stock else
                   "with file-granular merges (partial-merge model)")
            if files.skew is not None:
                how += " under the key skew (its skew stage)"
            words = (f" I/O per operation {how}: files of {_bytes(c.file_bytes)}, level-0 "
                     f"trigger {c.level1_runs}. The table below is the same knobs merging "
                     "whole levels")
        return Headline(model, "stock RocksDB" if stock else "files", files.cost,
                        dict(files.costs), f"{words}: finite-N {f.theta:.4g}, the paper's Eq 16 ")
    k = analysis.skew
    if k is not None and k.theta is not None:
        costs = {key: v for key, v in finite.items() if key != "write_cost"}
        costs.update(write_amp=k.write_amp, point_read=k.point_read)
        return Headline("skew model", "skew", k.theta, costs,
                        " I/O per operation under the key skew (skew model); with uniform keys "
                        f"the finite-N model gives {f.theta:.4g} and the paper's Eq 16 ")
    return Headline("finite-N model", None, f.theta, finite,
                    " I/O per operation at steady state (finite-N model); the paper's Eq 16 "
                    "gives ")


RIGHT = {"textAlign": "right", "paddingLeft": "12px"}
NOTE = {"fontSize": "85%", "color": "#666"}


def card(title: str, family: str, analysis: Analysis, note: str = "",
         extra: tuple[str, ...] = (), files: Recommendation | None = None,
         configuration: html.Div | None = None) -> html.Div:
    """The design's costs by the finite-N model (what the search optimizes) beside the paper's
    closed forms, after the headline model's own column when it is another (:func:`headline_of`).
    ``configuration``: what a recommendation priced, below the costs."""
    a, f, w = analysis, analysis.finite, analysis.workload
    head = headline_of(a, files)
    own = () if head.column is None else (head.column,)
    headline = ["Θ = ", html.B(f"{head.theta:.4g}", id="card-theta"), head.words,
                html.Span(f"{a.theta:.4g}", id="card-paper-theta"), "."]
    header = html.Tr([html.Th(""),
                      *(html.Th(c, style=RIGHT, title=f"The card's Θ: the {head.model}.")
                        for c in own),
                      html.Th("finite N", style=RIGHT, title="The finite-N model at steady "
                              "state (docs/MODEL.md): what the search optimizes."),
                      html.Th("paper", style=RIGHT, title="The paper's closed forms (Eq 8-16).")])
    rows = [html.Tr([_help_cell(name),
                     *(html.Td(_fmt(head.costs[key]) if key in head.costs else "–",
                               style=RIGHT, className="card-headline-cost") for _ in own),
                     html.Td(_fmt(getattr(f, key) or 0.0), style=RIGHT),
                     html.Td(_fmt(getattr(a, key) or 0.0), style=RIGHT)])
            for name, key in COST_ROWS]
    rows += [html.Tr([_help_cell(name), *[html.Td("")] * (1 + len(own)),
                      html.Td(value, style=RIGHT)])
             for name, value in (("sum of FPRs (paper)", _fmt(a.sum_fpr)),
                                 ("levels", str(len(a.levels))))]
    return html.Div([
        html.Div(title, style={"color": "#666", "fontSize": "90%"}),
        html.H3(family, id="card-family", style={"margin": "2px 0"}),
        html.Div(knob_text(a.design) + f"  ({a.design.filters} filters)", id="card-knobs",
                 style={"fontFamily": "monospace"}),
        html.Div(headline, title=HELP.METRICS["Θ"], style={"fontSize": "120%", "margin": "6px 0"}),
        html.Table([header, *rows], style={"fontSize": "90%"}),
        html.Div(f"workload: point {w.point_reads:.0%}, zero {w.zero_reads:.0%}, writes "
                 f"{w.writes:.0%}, range {w.range_reads:.0%} × {w.range_blocks:g} blocks",
                 style=NOTE),
        html.Div(note, style=NOTE),
        configuration,
        *[html.Div(line, className="card-extra",
                   style={"fontSize": "85%", "color": "#333", "marginTop": "4px"})
          for line in extra],
        html.Ul([html.Li(page_words(w)) for w in a.warnings], id="card-warnings",
                style={"color": "#a15c00", "fontSize": "85%"}) if a.warnings else None,
    ])


# The options a stock RocksDB pick sets, as the card lists them (the rest are in the file).
CARD_ROCKSDB_OPTIONS = ("compaction_style", "max_bytes_for_level_multiplier",
                        "level0_file_num_compaction_trigger", "target_file_size_base",
                        "max_bytes_for_level_base", "level_compaction_dynamic_level_bytes",
                        "write_buffer_size", "compaction_options_universal")
BYTE_OPTIONS = ("target_file_size_base", "max_bytes_for_level_base", "write_buffer_size")


def compaction_doc(rec: Recommendation) -> dict[str, Any]:
    """How a recommendation merges, for the ``current-design`` store: whole levels, or files
    as a share of the buffer (a validation scales it to its own) and a level-0 trigger, and
    ``target`` "rocksdb" when only stock RocksDB builds it."""
    c = rec.compaction
    if c.style == "universal":  # stock RocksDB's universal compaction: whole sorted runs
        return {"granularity": "level", "style": "universal", "target": "rocksdb"}
    if rec.file_costs is None:
        return {"granularity": "level"}
    return ({"granularity": "file", "level1_runs": c.level1_runs, "file_bytes": c.file_bytes,
             "file_share": c.file_bytes / rec.system.buffer_bytes,
             "log_ratio": c.log.ratio if c.log is not None else 0.0}
            | ({"target": "rocksdb"} if rec.configuration.target == "rocksdb" else {}))


def export_for(design: Design, system: System, compaction: dict[str, Any] | None = None,
               stock: dict[str, Any] | None = None) -> RocksDBExport:
    """The RocksDB options of what the page shows: a stock RocksDB pick's own (``stock``,
    its config's fields), a file-granular pick's files and trigger, or the design's."""
    if stock is not None:
        return (UniversalConfig.from_dict(stock) if "options" in stock
                else RocksDBConfig(**stock)).export(system)
    if compaction and compaction.get("granularity") == "file":
        return rocksdb_export(design, system, int(compaction["level1_runs"]),
                              int(compaction["file_bytes"]),
                              side_runs=("l2sm_log",) if compaction.get("log_ratio") else ())
    return rocksdb_export(design, system)


def configuration_view(rec: Recommendation, exported: RocksDBExport | None,
                       report: RocksDBRecommendation | str | None = None) -> html.Div:
    """What the recommendation priced: how it merges and, for a stock RocksDB pick, the
    options that carry it (``exported``, reasons on hover) and its gain (``report``)."""
    c = rec.compaction
    merges = ("Merges: whole levels (every flush merges into Level 1 at once)."
              if c.granularity == "level" else
              f"Merges: files of {_bytes(c.file_bytes)} ({c.file_bytes:,} B), one at a time "
              f"into the next level; level-0 trigger {c.level1_runs}"
              + (f"; L2SM's log, {c.log.ratio:g} of the tree, merges batches of overlapping "
                 "files" if c.log is not None else "") + ".")
    sizing = ("Level sizes: RocksDB's dynamic level sizing, the first level "
              f"{_bytes(c.level_base_bytes)}." if c.sizing == "dynamic" else
              "Level sizes: the design's (T, C, X).")
    if c.universal is not None:
        merges = (f"Merges: RocksDB's universal compaction, whole sorted runs by their sizes, "
                  f"once {c.universal.trigger} runs wait.")
        sizing = ("Run sizes: set by the size ratio and the size-amplification limit "
                  f"({c.universal.max_size_amplification_percent:g}%).")
    children: list[Any] = [html.B("Configuration priced"), html.Div(merges), html.Div(sizing)]
    if exported is not None:
        reasons = {o.name: o.reason for o in exported.options}
        options = exported.options_dict()
        shown = [(n, n, f"{int(options[n]):,} ({_bytes(int(options[n]))})"
                  if n in BYTE_OPTIONS else options[n])
                 for n in CARD_ROCKSDB_OPTIONS if n in options]
        shown.append(("bits per key", "filter_policy", f"{exported.bits_per_key:g}"))
        rows = [html.Tr([html.Td(name, title=reasons[why], style={"cursor": "help"}),
                         html.Td(value, style={"textAlign": "right", "paddingLeft": "10px"})])
                for name, why, value in shown]
        children += [html.Div("Stock RocksDB options:", style={"marginTop": "4px"}),
                     html.Table(rows, id="card-rocksdb-options",
                                style={"fontFamily": "monospace", "fontSize": "95%"})]
        if isinstance(report, RocksDBRecommendation):
            children.append(html.Div(
                [f"RocksDB's defaults: Θ {report.default.theta:.4g}; this pick: ",
                 html.B(gain_text(report))], id="card-rocksdb-gain"))
        children.append(html.A("RocksDB's defaults beside it, the OPTIONS file and its "
                               "download are below.", href=f"#{L.ROCKSDB_PANEL}"))
    return html.Div(children, id="card-configuration",
                    style={"fontSize": "85%", "marginTop": "6px", "padding": "4px 8px",
                           "background": "#f4f8ff", "border": "1px solid #d8e2f0",
                           "borderRadius": "4px"})


def gain_text(report: RocksDBRecommendation) -> str:
    """The pick against RocksDB's defaults, in I/O per operation."""
    gain = report.to_dict()["gain_over_defaults"]
    return (f"{gain:.1%} fewer I/O per operation" if gain >= 0 else
            f"{-gain:.1%} more I/O per operation")


def _bytes_in_buffers(n: int, buffer: int) -> str:
    share = n / buffer
    return "one buffer" if share == 1 else f"{share:g} buffers"


def stock_report_view(report: RocksDBRecommendation) -> html.Div:
    """What ``wacky recommend --target rocksdb`` prints: the pick, RocksDB's defaults (scaled
    to this buffer) and the best multiplier alone, priced; the gain; why each option."""
    b, c, d = report.best, report.best.config, report.default.config
    right = {"textAlign": "right", "padding": "2px 8px"}
    head = ("configuration", "I/O per op (Θ)", "write amp", "zero-result I/O",
            "existing-key I/O", "runs per range read", "peak disk during compactions (× data)")
    alone = report.best_multiplier_only
    rows = [html.Tr([html.Td(name, style={"padding": "2px 8px"}),
                     html.Td(f"{p.theta:.4g}", style=right),
                     *(html.Td(f"{getattr(p.costs, k):.3g}", style=right) for k in (
                         "write_amp", "zero_result_read", "point_read", "range_runs")),
                     html.Td(f"{p.transient_space:.2f}", style=right)])
            for name, p in (("recommended", b), ("RocksDB's defaults", report.default),
                            (f"defaults, best multiplier ({alone.config.multiplier:g})", alone))]
    defaults = (f"trigger {d.level0_trigger}, a first level of "
                f"{_bytes_in_buffers(d.level_base_bytes, d.buffer_bytes)}, multiplier "
                f"{d.multiplier:g}, files of {_bytes_in_buffers(d.file_bytes, d.buffer_bytes)}")
    return html.Div(
        [
            html.Div([html.B(f"Stock RocksDB, {c.style} compaction"),
                      f": {b.theta:.4g} I/O per operation ({c.model} model, "
                      f"{report.configurations:,} configurations searched)"]),
            html.Div(c.options_text(),
                     style={"fontFamily": "monospace", "fontSize": "90%",
                            "overflowWrap": "anywhere", "margin": "4px 0"}),
            html.Div(html.Table(
                [html.Tr([html.Th(h, style=right) for h in head])] + rows,
                id="rocksdb-comparison", style={"fontSize": "90%", "borderCollapse": "collapse"}),
                style={"overflowX": "auto", "maxWidth": "100%"}),
            html.Div([f"Gain over RocksDB's defaults (scaled to this buffer: {defaults}): ",
                      html.B(gain_text(report))], id="rocksdb-gain", style={"margin": "4px 0"}),
            html.Div("Why each option (against the best configuration that differs in it "
                     "alone):"),
            html.Ul([html.Li(line) for line in report.reasons], id="rocksdb-reasons",
                    style={"fontSize": "85%"}),
        ],
        id="rocksdb-report",
        style={"marginBottom": "8px", "paddingBottom": "6px", "borderBottom": "1px solid #eee"},
    )


def rocksdb_view(exported: RocksDBExport | str,
                 report: RocksDBRecommendation | str | None = None) -> html.Div:
    """The stock RocksDB options of what the page shows (as ``wacky export --rocksdb`` writes
    them), or why there are none: a stock RocksDB pick's report first (or why there is none),
    each knob's grade, then the OPTIONS file with a reason above each option."""
    if isinstance(exported, str):
        return html.Div(f"No RocksDB export for this design: {exported}", id="rocksdb-error",
                        style={"color": "#a40000"})
    top = (stock_report_view(report) if isinstance(report, RocksDBRecommendation) else
           html.Div(f"No comparison with RocksDB's defaults: {report}",
                    id="rocksdb-report-error", style={"color": "#a40000"})
           if isinstance(report, str) else None)
    return html.Div([
        top,
        html.Div(["Grade of the design: ", html.B(exported.grade, id="rocksdb-grade"),
                  f" (compaction style: {exported.style})"]),
        html.Ul([html.Li([html.B(g.knob), f": {g.grade}: {g.note}"]) for g in exported.grades],
                style={"fontSize": "85%"}),
        html.Pre(exported.options_file(), id="rocksdb-options",
                 style={"maxHeight": "220px", "overflow": "auto", "fontSize": "12px",
                        "background": "#fafafa", "border": "1px solid #eee", "padding": "6px"}),
    ])


def rocksdb_download(kind: Any, current: dict | None) -> Any:
    """The download for a button: the OPTIONS file or the full JSON of the design shown, on
    the system it was priced on (the chosen split of a memory budget)."""
    if not current:
        return no_update
    try:
        exported = export_for(validation_panel.shown_design(current),
                              System(**current["system"]), current.get("compaction"),
                              current.get("rocksdb"))
    except (ValueError, KeyError, TypeError):
        return no_update
    if kind == L.ROCKSDB_JSON_BUTTON:
        return dcc.send_string(json.dumps(exported.to_dict(), indent=2) + "\n",
                               "wacky-rocksdb.json", type="application/json")
    return dcc.send_string(exported.options_file() + "\n", "OPTIONS-wacky.ini",
                           type="text/plain")


def alternative_rows(alternatives: tuple[Alternative, ...], theta: float | None) -> list[dict]:
    """Each family at its best T, with its throughput (1 / Θ) over the design shown's: above
    1, it beats it (– when the shown design's cost is not on the table's scale)."""
    return [{"family": alt.family, **{k: _fmt(v) for k, v in alt.design.knobs.items()},
             "theta": _fmt(alt.cost),
             "relative": "–" if theta is None else f"{theta / alt.cost:.3f}"}
            for alt in alternatives]


def level_rows(analysis: Analysis) -> list[dict]:
    return [{"level": row.level, "runs": _fmt(row.runs), "entries": f"{row.capacity_entries:,.0f}",
             "buffers": _fmt(row.buffer_multiple), "fpr": f"{row.fpr_per_run:.3g}",
             "level_fpr": f"{row.level_fpr:.3g}", "bits": f"{row.filter_bits_per_entry:.2f}",
             "structure": row.structure}
            for row in analysis.levels]


MESSAGE_STYLE = "message-style"  # update_views' key for the message box's style
# (key in update_views' result, component id, property): the key is the id but for the style.
VIEW_OUTPUTS = ((L.MESSAGE, L.MESSAGE, "children"), (MESSAGE_STYLE, L.MESSAGE, "style"), *(
    (i, i, prop) for i, prop in (
        (L.MIX, "children"), (L.SYSTEM_SUMMARY, "children"), (L.CARD, "children"),
        (L.ALTERNATIVES, "data"), (L.STRUCTURE, "figure"), (L.LEVELS, "data"),
        (L.THETA, "figure"), (L.THROUGHPUT, "figure"), (L.MEMORY_FRONTIER, "figure"),
        (L.RANGE_FRONTIER, "figure"),
        (L.CURRENT, "data"), (L.ROCKSDB, "children"))))


def update_views(workload: dict[str, Any], system: dict[str, Any], mode: Any,
                 knobs: dict[str, Any], filters: Any, services: Services,
                 machine: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every view for the controls, keyed as VIEW_OUTPUTS (``machine``: the machine's
    controls, keyed as DEFAULT_MACHINE). Bad values leave the views as they were
    (``no_update``), say why in "message" and clear "current-design" (nothing to validate)."""
    out: dict[str, Any] = {key: no_update for key, _, _ in VIEW_OUTPUTS}
    out[L.MIX] = mix_text(workload)
    out[L.SYSTEM_SUMMARY] = system_summary(system, mode)
    problems: list[str] = []
    try:
        controls = parse_controls(workload, system, mode, knobs, filters)
        controls = with_machine(controls, parse_machine(machine, controls.pins))
    except ValueError as err:
        problems = str(err).split("\n")
    else:
        try:
            out.update(_views_of(controls, services))
        except Refused as err:  # the search refused the inputs together: say which and why
            problems = [f"Cannot recommend: {err}"]
        except ValueError as err:  # a corner of the model the controls reach: say it
            problems = [f"Cannot evaluate: {page_words(str(err))}"]
    out[L.MESSAGE], out[MESSAGE_STYLE] = [], {"display": "none"}
    if problems:
        out[L.MESSAGE] = [html.B("Fix these inputs (the views show the last valid ones):"),
                          html.Ul([html.Li(e) for e in problems])]
        out[MESSAGE_STYLE], out[L.CURRENT] = L.MESSAGE_STYLE, None
    elif controls.system.memory_split:  # the split the design shown was priced at
        out[L.SYSTEM_SUMMARY] = system_summary(system, mode,
                                               System(**out[L.CURRENT]["system"]))
    return out


class Refused(ValueError):
    """The library refused the inputs (a combination it does not price), in the page's words."""


def search_note(rec: Recommendation) -> str:
    """What the search covered and how long it took."""
    if rec.skew is not None:
        return (f"The skew model priced {rec.skew.candidates} candidate designs in "
                f"{rec.search_ms / 1e3:.1f} s.")
    if rec.model in ("rocksdb", "universal"):
        what = ("stock RocksDB's options (leveled: multiplier, level-0 trigger, file and "
                "first-level sizes; universal: trigger and size-amplification limit)")
    elif rec.file_costs is not None and (rec.granularity or {}).get("level") is None:
        what = "leveled designs with files (T, file size, level-0 trigger)"  # no whole levels
    else:
        what = "all five knobs"
    return f"Searched {what} in {rec.search_ms:.0f} ms."


def cap_text(cap: dict[str, Any]) -> str:
    """What the runs-per-level cap costs, in the page's words (``Recommendation.without_cap``)."""
    return (f"At most {cap['cap']} runs per level (RocksDB stops writes at 36 level-0 files). "
            f"Without the cap ({_field('max-runs')} at 0): {cap['family']} "
            f"{knob_text(Design(**cap['design']))}, Θ {cap['theta_lower']:.1%} lower, "
            f"{cap['max_runs_per_level']:,.0f} runs in Level {cap['level']}.")


def check_floating(controls: Controls) -> None:
    """Floating with what else is in play, refused by the one table (wacky_model.compat)
    before the search: whatever it picks, the pair cannot be priced."""
    from wacky_model.compat import check, features_in

    if controls.floating is None:
        return
    features = features_in(controls.workload, controls.system, rho=controls.rho,
                           constraints=controls.constraints) | {"floating"}
    if controls.pins.target == "rocksdb":
        features.add("rocksdb")
    try:
        check(features)
    except ValueError as err:
        raise Refused(search_words(str(err))) from None


def floating_text(rec: Recommendation, workload: Workload, gamma: float) -> str:
    """The pick priced with Tidal-tree's floating at ``gamma`` (F1-F4), as ``wacky analyze
    --granularity file --floating GAMMA`` prices that design, beside the pick without it."""
    from wacky_model.pricing import price

    config = rec.configuration
    if config.compaction.granularity != "file":
        raise Refused(f"{_field('floating-gamma')}: floating moves files, and the pick merges "
                      f"whole levels; choose {choice_words('merges', 'file')}, or empty the "
                      "field")
    with_float = replace(config, compaction=replace(config.compaction,
                                                    floating=Floating(gamma)))
    try:
        on, off = price(with_float, workload, rec.system), price(config, workload, rec.system)
    except ValueError as err:
        raise Refused(search_words(str(err))) from None
    text = (f"Floating at γ = {gamma:g} (Tidal-tree, docs/MODEL.md F1-F4): Θ {on.theta:.4g} "
            f"against {off.theta:.4g} without it")
    f = on.floating
    if f is not None:
        text += (f"; files checked per existing-key read {f.probes_off:.3g} -> "
                 f"{f.probes_on:.3g}, {f.extra_writes:.3g} more entries written per insert")
    return text + "."


def placement_view(placement: dict[str, Any]) -> str:
    """Where the pick's levels go (D1), as ``wacky recommend`` prints it."""
    from wacky_model.placement import describe

    return "Placement: " + describe(placement)


def placed_theta(design: Design, workload: Workload, system: System) -> tuple[float, str]:
    """A manual design's Θ at the devices' costs, at its cheapest placement that fits
    (wacky_model.placement.place, as the search places its pick), and that placement in
    words."""
    from wacky_model.placement import explain, place

    try:
        best, priced = place(Configuration(design), workload, system)
    except ValueError as err:
        raise Refused(search_words(str(err))) from None
    return best.theta, explain(best, priced, system)["in_words"]


def floating_tried(rec: Recommendation) -> bool:
    """Whether the search priced floating on its file-granular pick (its reason says how)."""
    return ((rec.granularity or {}).get("file") or {}).get("floating") is not None


def _views_of(controls: Controls, services: Services) -> dict[str, Any]:
    check_floating(controls)
    try:
        rec = services.recommend(controls.workload, controls.system, controls.rho,
                                 controls.constraints, controls.pins)
    except ValueError as err:
        raise Refused(search_words(str(err))) from None
    recommended = controls.design is None
    extra: list[str] = []
    if recommended:
        design, family, analysis = rec.design, rec.family, rec.analysis
        note = search_note(rec)
        if rec.bounds_hit:
            note += f" The optimum sits on the search bound of {', '.join(rec.bounds_hit)}."
        title = ("Recommended stock RocksDB configuration" if rec.model == "rocksdb"
                 else "Recommended design")
        if rec.robust is not None:
            extra.append(robust_text(rec.robust))
        if rec.without_cap is not None:
            extra.append(cap_text(rec.without_cap))
    else:
        design = controls.design
        analysis = analyze(design, controls.system, controls.workload, realizable=True)
        family = classify(design, controls.system)
        theta = analysis.finite.theta if analysis.skew is None else analysis.skew.theta
        if rec.placement is not None:  # the pick's Θ is at the devices' costs: so is this one
            theta, words = placed_theta(design, controls.workload, controls.system)
            extra.append(f"Placement (this design at its cheapest that fits): {words}.")
        if rec.robust is None:
            note = (f"The recommendation for this workload, {rec.family}, has Θ = "
                    f"{rec.cost:.4g}: this design reaches {rec.cost / theta:.0%} of its "
                    "throughput.")
        else:  # its worst case and this design's Θ at the workload are not comparable
            nominal = rec.robust["robust_design"]["nominal_cost"]
            note = (f"The robust recommendation, {rec.family}, has Θ = {nominal:.4g} at this "
                    f"workload (worst case {rec.cost:.4g}): this design reaches "
                    f"{nominal / theta:.0%} of its throughput here.")
        title = "Manual design"
    if controls.system.memory_split or controls.system.cache_bytes:
        extra.append(memory_text(analysis, controls.system.memory_split and recommended))
    if analysis.skew is not None:
        extra.append(skew_text(analysis))
    extra.append(disk_text(rec.transient_space if recommended else analysis.transient_space,
                           analysis.space_amp))
    # Why whole levels or files, when the search chose between them (a pin says it already),
    # or what the search's floating would do on its file-granular pick.
    if recommended and rec.granularity is not None and (controls.pins == SEARCHED
                                                        or floating_tried(rec)):
        extra.append("Granularity: " + page_words(rec.granularity["reason"]))
    if recommended and rec.placement is not None:
        extra.append(placement_view(rec.placement))
    if recommended and controls.floating is not None:
        extra.append(floating_text(rec, controls.workload, controls.floating))
    files = rec if recommended and rec.file_costs is not None else None
    # What the panel, the card and the downloads export: the recommendation's own merges (a
    # stock RocksDB pick's options), or a manual design merging whole levels.
    compaction = compaction_doc(rec) if recommended else {"granularity": "level"}
    stock = (stock_config(rec.configuration)
             if recommended and rec.configuration.target == "rocksdb" else None)
    stock_fields = None if stock is None else dataclasses.asdict(stock)
    # The charts, the export and the store: at the system the design was priced on (the split
    # chosen or, for a manual design, the buffer given and the rest for filters).
    system = analysis.system
    try:
        exported: RocksDBExport | str = export_for(design, system, compaction, stock_fields)
    except ValueError as err:
        exported = page_words(str(err))
    # A stock RocksDB pick comes with the CLI's report: RocksDB's defaults beside it, the gain.
    report: RocksDBRecommendation | str | None = None
    if stock is not None:
        try:
            report = services.rocksdb_report(controls.workload, controls.system, controls.rho,
                                             controls.constraints, controls.pins)
        except ValueError as err:
            report = search_words(str(err))
    configuration = configuration_view(rec, None if stock is None or isinstance(
        exported, str) else exported, report) if recommended else None
    extra += machine_lines(rec, report, controls, services)
    # The table prices uniform keys (the shown design's finite-N Θ is its peer) or, with rho,
    # the worst case, which only the recommendation's cost gives.
    reference = (analysis.finite.theta if rec.robust is None
                 else rec.cost if recommended else None)
    return {
        L.CARD: card(title, family, analysis, note, tuple(extra), files, configuration),
        L.ALTERNATIVES: alternative_rows(rec.alternatives, reference),
        L.ROCKSDB: rocksdb_view(exported, report),
        L.STRUCTURE: lighten(structure_figure(analysis)),
        L.THROUGHPUT: lighten(throughput_view(rec, design, compaction_of(rec, recommended),
                                              system, f"{family} (T={design.T:.3g})",
                                              controls)),
        L.LEVELS: level_rows(analysis),
        **charts(analysis, design, f"{family} (T={design.T:.3g})", headline_of(analysis, files),
                 controls.workload, services),
        L.CURRENT: {
            "design": design.knobs, "filters": design.filters, "family": family,
            "compaction": compaction,
            # What was priced (wacky_model.config), and a stock RocksDB pick's options.
            "configuration": (rec.configuration if recommended
                              else Configuration(design)).to_dict(),
            "rocksdb": stock_fields, "workload": controls.workload.to_dict(),
            "bits_per_entry": system.bits_per_entry, "entries": system.entries,
            "levels": len(analysis.levels), "system": dataclasses.asdict(system),
            "cache_fraction": system.cache_bytes / (system.entries * system.entry_bytes),
        },
    }


def machine_lines(rec: Recommendation, report: RocksDBRecommendation | str | None,
                  controls: Controls, services: Services) -> list[str]:
    """The card's time lines, the CLI's own: on stock RocksDB T2's sustainable rate (and at a
    write rate T3's stalls) for the pick and RocksDB's defaults; with the time objective, the
    pick's operations per second beside the I/O objective's pick (T4; stock RocksDB's T7)."""
    from wacky_model.rocksdb_throughput import report as stock_throughput
    from wacky_model.rocksdb_throughput import throughput_text as stock_text
    from wacky_model.stalls import stall_text, stock_time
    from wacky_model.throughput import native_time, throughput_text

    m = controls.machine
    if m is None:
        return []
    if controls.pins.target == "rocksdb":
        if not isinstance(report, RocksDBRecommendation):
            return []  # a manual design, or the report's refusal (the panel says it)
        t = stock_time(report, controls.system, m.profile, m.write_rate)
        lines = [stall_text(label, t[key]) for key, label in (
            ("recommended", "Recommended"), ("defaults", "RocksDB's defaults"))]
        if report.objective != "throughput":
            return lines
        io = services.rocksdb_report(controls.workload, controls.system, controls.rho,
                                     controls.constraints,
                                     replace(controls.pins, throughput_on=None))
        return [*lines, stock_text(stock_throughput(report, io.best, m.profile))]
    if m.objective != "throughput" or m.io_system is None:
        return []
    t = native_time(rec, controls.workload, m.io_system, controls.system, m.profile,
                    controls.constraints, controls.pins.level0_trigger)
    return [throughput_text(t) + ". Θ above is in block-read times on this machine (T4)."]


def compaction_of(rec: Recommendation, recommended: bool) -> Any:
    """How the design shown merges: the pick's own, or whole levels for a manual design."""
    from wacky_model.config import Compaction

    return rec.compaction if recommended else Compaction()


def throughput_view(rec: Recommendation, design: Design, compaction: Any, system: System,
                    label: str, controls: Controls) -> go.Figure:
    """Operations per second against the write share on the native engine, for the design
    shown and each family at its best T (the table's), or what the plot needs."""
    from wacky_model.figures.design import message_figure, throughput_by_write_share
    from wacky_model.throughput import WRITE_SHARES, ops_by_write_share

    m = controls.machine
    if m is None:
        return message_figure(f"Throughput against the share of writes needs a machine "
                              f"profile: upload one at “{L.PROFILE_LABEL}”.")
    if controls.pins.target == "rocksdb":
        return message_figure(f"Throughput against the share of writes prices this "
                              f"project's engine (T4): choose {choice_words('target', 'native')}"
                              ". On stock RocksDB the card gives the sustainable write "
                              "rate and, with the time objective, the pick's throughput (T7).")
    profile = m.profile
    if None in (profile.cpu_ns_per_put, profile.cpu_ns_per_entry_merged,
                profile.cpu_ns_per_probe):
        return message_figure(f"Throughput needs the profile's CPU costs; {profile.name} has "
                              "none (wacky calibrate without --no-cpu).")
    io_system = m.io_system or controls.system
    if io_system.probe_cost > 0:
        return message_figure(f"Throughput takes the probe cost from the machine profile: set "
                              f"{_field('probe-cost')} to 0.")
    # The families' best designs merge whole levels, on the system the search priced.
    whole = compaction_of(rec, False)
    designs = {alt.family: (alt.design, whole, rec.system) for alt in rec.alternatives}
    designs[label] = (design, compaction, system)
    try:
        ops = ops_by_write_share(designs, controls.workload, io_system, profile)
    except ValueError as err:
        return message_figure(f"No throughput plot: {page_words(str(err))}")
    return throughput_by_write_share(WRITE_SHARES, ops, label, profile.name)


def charts(analysis: Analysis, design: Design, label: str, head: Headline, workload: Workload,
           services: Services) -> dict[str, go.Figure]:
    """The Θ curves and the two frontiers. Each marks the design at the figures of the model
    the card headlines (``head``), whatever model draws the curves."""
    system = analysis.system
    # Each family's whole curve, guardrails aside: the card flags the levels they would limit.
    theta = theta_by_family(system, workload, space=services.space_for(system),
                            current=(design.T, head.theta, label))
    _keep_in_view(theta, head.theta)
    if head.column is not None:  # the Θ curves are the finite-N model's, whole levels
        _mark_headline(theta, design.T, head.theta,
                       f"★ at the card's Θ ({head.model}); curves: finite-N, whole levels")
    # Hold the point-read cost at the shown design's own sum of FPRs, so the curves show what
    # others need for the point reads the design has. Every family has at least one run, so
    # any p <= 1 is reachable by all of them.
    memory = memory_frontier(system, min(max(analysis.sum_fpr, 1e-9), 1.0), design=design,
                             label=label)
    ranges = range_frontier(system, design=design, label=label)
    note = f"★ at the card's figures ({head.model}); curves: the paper's closed forms"
    memory_note = note
    if analysis.sum_fpr > 1.0:  # the curves are held at p = 1, which the design exceeds
        memory_note += f"<br>sum of FPRs {analysis.sum_fpr:.3g} > 1: shown at its own memory"
    for fig, cost, words in ((memory, "memory_bits_per_entry", memory_note),
                             (ranges, "range_runs", note)):
        # Side by side here: legend below the plot, a smaller title. Write amplification spans
        # decades (about 1 to several hundred): a log axis keeps the designs out of a corner.
        fig.update_layout(legend={"orientation": "h", "y": -0.25}, title_font_size=13,
                          title_text=(fig.layout.title.text or "").replace(" at ", "<br>at ", 1),
                          height=580, margin={"t": 70, "l": 50, "r": 10})
        fig.update_xaxes(type="log")
        _mark_headline(fig, head.costs["write_amp"], head.costs.get(cost), words)
    return {L.THETA: lighten(theta), L.MEMORY_FRONTIER: lighten(memory),
            L.RANGE_FRONTIER: lighten(ranges)}


def _mark_headline(fig: go.Figure, x: float, y: float | None, note: str) -> None:
    """Move the design's star to (``x``, ``y``), the card's headline figures (``y`` None:
    where the figure put it), and say under the title which model they are."""
    for trace in fig.data:
        if trace.marker is not None and trace.marker.symbol == "star":
            trace.x = [x]
            if y is not None:
                trace.y = [y]
            words = note.replace("<br>", "; ")
            trace.hovertemplate = (f"{trace.name}<br>{words}<br>%{{x:.4g}}, %{{y:.4g}}"
                                   "<extra></extra>")
    top = (fig.layout.margin.t or 70) + 16 * (note.count("<br>") + 1)
    fig.update_layout(title_text=f"{fig.layout.title.text}<br><span style='font-size:11px'>"
                                 f"{note}</span>", margin={"t": top})


def _keep_in_view(fig: go.Figure, theta: float) -> None:
    """Widen the Θ axis (log) so the design shown stays on it, however far from the best."""
    y_range = fig.layout.yaxis.range
    if y_range and theta > 0:
        lo, hi = y_range
        room = 0.08  # the marker and its label with some room
        fig.update_yaxes(range=[min(lo, math.log10(theta) - room),
                                max(hi, math.log10(theta) + room)])


def manual_controls_style(mode: Any) -> dict:
    return {"display": "block"} if mode == "manual" else {"display": "none"}


def shown_knob(value: float) -> float:
    """A knob as the card prints it: 4 significant digits (9.075, not 9.0745001775637)."""
    return float(f"{value:.4g}")


def set_knobs(trigger: Any, mode: Any, current: dict | None, system: dict[str, Any],
              search: Any = "") -> tuple[Any, ...]:
    """(T, C, X, K, Z, filters, message) for a preset button (``trigger``: its dict id), or the
    shown design when switching to manual; the message says why a preset is not set (SCLL's C
    is log_T(N/F): it needs a valid system)."""
    keep = (no_update,) * 6
    if isinstance(trigger, dict) and trigger.get("type") == L.PRESET_TYPE:
        name = trigger.get("name")
        if name not in PRESET_NAMES:
            return keep + (f"Unknown preset {name!r}",)
        try:
            sys_ = parse_system(system)
        except ValueError as err:
            return keep + (f"The {name} preset needs a valid system: {err}",)
        d = preset(name, system=sys_)
        return (*map(shown_knob, d.knobs.values()), d.filters, "")
    # A link that gives the knobs switches to manual too: its knobs win over the design shown.
    from_link = any(name in state_from_query(search) for name in KNOB_NAMES)
    if trigger == L.MODE and mode == "manual" and current and not from_link:
        k = current["design"]
        return (*(shown_knob(k[n]) for n in KNOB_NAMES), current.get("filters", "optimized"),
                "")
    return keep + (no_update,)


URL_NUMBER_FIELDS = (*WORKLOAD_IDS, L.RANGE_BLOCKS[0], L.UPDATE_FRACTION[0], L.ROBUST[0],
                     *SYSTEM_IDS, L.MEMORY_BITS[0], L.MAX_RUNS[0], L.MAX_PEAK_DISK[0],
                     *OPTION_IDS)
URL_TEXT_FIELDS = (*KEY_IDS, *SEARCH_IDS)  # the menus' values are text too
URL_FLAGS = (L.CORRELATED, L.MEMORY_SPLIT, L.PAGED)
URL_CHOICES = {"mode": ("recommend", "manual"), "filters": ("optimized", "uniform")}


def _url_number(value: Any) -> str:
    if isinstance(value, str):  # a box's text: "2,147,483,648" goes in the URL as 2147483648
        try:
            parsed = _to_float(value)
        except (ValueError, OverflowError, ZeroDivisionError):
            return value
        if not math.isfinite(parsed):  # 500 nines stay as typed, for the message to name
            return value
        value = parsed
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
        if math.isfinite(v) and v == int(v) and abs(v) < 1e18:
            return str(int(v))  # 2147483648, not 2.147483648e9
        return repr(v)
    return str(value)


def state_query(workload: dict[str, Any], system: dict[str, Any], mode: Any,
                knobs: dict[str, Any], filters: Any) -> str:
    """The controls as a query string ("?writes=60&..."); knobs only in manual mode."""
    params = [(k, ("1" if is_on(v) else "0") if k in URL_FLAGS
               else str(v) if k in URL_TEXT_FIELDS else _url_number(v))
              for k, v in (*workload.items(), *system.items()) if v is not None and v != ""]
    params.append(("mode", "manual" if mode == "manual" else "recommend"))
    if mode == "manual":
        params += [(n, _url_number(knobs[n])) for n in KNOB_NAMES
                   if knobs.get(n) is not None and knobs.get(n) != ""]
        params.append(("filters", "uniform" if filters == "uniform" else "optimized"))
    return "?" + urlencode(params)


def state_from_query(search: Any) -> dict[str, Any]:
    """The control values a query string sets (unknown keys ignored). Numbers come back as
    numbers; anything else as its text, for the inline message to name."""
    if not isinstance(search, str) or not search.strip("?"):
        return {}
    out: dict[str, Any] = {}
    for key, raw in parse_qsl(search.lstrip("?"), keep_blank_values=True):
        if key in URL_NUMBER_FIELDS or key in KNOB_NAMES:
            try:
                v = float(raw)
                # Beyond a double (500 nines, "inf"): the text, which the page's JSON keeps
                # (an infinite number would arrive as an empty field).
                out[key] = (raw if not math.isfinite(v) else int(v) if v == int(v) else v)
            except ValueError:
                out[key] = raw
        elif key in URL_FLAGS and raw in ("0", "1"):
            out[key] = ["on"] if raw == "1" else []
        elif key in URL_TEXT_FIELDS or raw in URL_CHOICES.get(key, ()):
            out[key] = raw
    if isinstance(out.get("entries"), (int, float)):
        out["entries"] = L.display_value("entries", out["entries"])
    return out


# The URL's keys are the controls' ids (the knobs' boxes are knob-T, ...).
URL_CONTROLS = (*URL_NUMBER_FIELDS, *URL_TEXT_FIELDS, *URL_FLAGS, L.MODE, *KNOB_NAMES, L.FILTERS)


def sync_url(trigger: Any, search: Any, values: dict[str, Any]) -> tuple[Any, ...]:
    """Restore the controls (``values``, keyed as URL_CONTROLS) from the URL on load; write
    them to it when they change. Returns (search, *controls in URL_CONTROLS order)."""
    if trigger is None or trigger == L.URL:  # first load (or a navigation): restore
        restored = state_from_query(search)
        return (no_update,) + tuple(restored.get(k, no_update) for k in URL_CONTROLS)
    workload = {k: values.get(k) for k in WORKLOAD_CONTROLS}
    system = {k: values.get(k) for k in SYSTEM_CONTROLS}
    knobs = {k: values.get(k) for k in KNOB_NAMES}
    query = state_query(workload, system, values.get(L.MODE), knobs, values.get(L.FILTERS))
    return (no_update if query == search else query,) + (no_update,) * len(URL_CONTROLS)


def sync_knob(name: str, trigger: Any, position: Any, value: Any) -> tuple[Any, Any]:
    """(slider position, box value): the slider sets the box; a box value in range moves the
    slider, a bad one leaves it (the inline message names the field)."""
    if trigger == L.knob_slider_id(name):
        return no_update, (no_update if position is None
                           else L.from_slider(name, float(position)))
    try:
        v = number(name, value)
    except ValueError:
        return no_update, no_update
    return L.to_slider(name, v), no_update


def register(app: Dash, services: Services) -> None:
    knob_ids = tuple(L.knob_id(n) for n in KNOB_NAMES)
    view_inputs = (*WORKLOAD_CONTROLS, *SYSTEM_CONTROLS, L.MODE, *knob_ids, L.FILTERS)
    defaults = default_controls()

    @app.callback([Output(i, p) for _, i, p in VIEW_OUTPUTS],
                  [Input(i, "value") for i in view_inputs]
                  + [Input(L.PROFILE, "data"), Input(L.WRITE_RATE[0], "value"),
                     Input(L.OBJECTIVE[0], "value")])
    def _views(*values):
        it = iter(values)
        workload = {i: next(it) for i in WORKLOAD_CONTROLS}
        system = {i: next(it) for i in SYSTEM_CONTROLS}
        mode = next(it)
        knobs = {n: next(it) for n in KNOB_NAMES}
        controls = (workload, system, mode, knobs, next(it))
        machine = {k: next(it) for k in DEFAULT_MACHINE}
        # create_app put the default views in the layout: on load, with the controls still at
        # their defaults, there is nothing to send.
        if (ctx.triggered_id is None and controls == defaults
                and {**machine, L.PROFILE: machine[L.PROFILE] or None} == DEFAULT_MACHINE):
            raise PreventUpdate
        out = update_views(*controls, services, machine)
        return [out[key] for key, _, _ in VIEW_OUTPUTS]

    for name in KNOB_NAMES:
        @app.callback(Output(L.knob_slider_id(name), "value"),
                      Output(L.knob_id(name), "value", allow_duplicate=True),
                      Input(L.knob_slider_id(name), "value"), Input(L.knob_id(name), "value"),
                      prevent_initial_call=True)
        def _knob(position, value, name=name):
            return sync_knob(name, ctx.triggered_id, position, value)

    @app.callback(Output(L.ROCKSDB_DOWNLOAD, "data"),
                  Input(L.ROCKSDB_OPTIONS_BUTTON, "n_clicks"),
                  Input(L.ROCKSDB_JSON_BUTTON, "n_clicks"), State(L.CURRENT, "data"),
                  prevent_initial_call=True)
    def _download(_options, _json, current):
        return rocksdb_download(ctx.triggered_id, current)

    app.callback(Output(L.MANUAL_CONTROLS, "style"), Input(L.MODE, "value"))(
        manual_controls_style)
    app.callback(Output(L.PROFILE, "data"), Output(L.PROFILE_STATUS, "children"),
                 Input(L.PROFILE_UPLOAD, "contents"), State(L.PROFILE_UPLOAD, "filename"),
                 prevent_initial_call=True)(parse_profile_upload)
    app.callback(Output(L.WRITE_RATE_FIELD, "style"), Output(L.OBJECTIVE_FIELD, "style"),
                 Input(L.PROFILE, "data"), Input(L.TARGET[0], "value"))(machine_fields_shown)
    app.callback(Output("buffer-mib", "disabled"), Output("bits-per-entry", "disabled"),
                 Output(L.MEMORY_BITS[0], "disabled"),
                 Input(L.MEMORY_SPLIT, "value"), Input(L.MODE, "value"))(memory_fields_disabled)
    url_ids = tuple(L.knob_id(k) if k in KNOB_NAMES else k for k in URL_CONTROLS)

    @app.callback([Output(L.URL, "search")] + [Output(i, "value") for i in url_ids],
                  [Input(L.URL, "search")] + [Input(i, "value") for i in url_ids])
    def _url(search, *values):
        return sync_url(ctx.triggered_id, search, dict(zip(URL_CONTROLS, values, strict=True)))

    @app.callback([Output(i, "value", allow_duplicate=True) for i in knob_ids]
                  + [Output(L.FILTERS, "value", allow_duplicate=True),
                     Output(L.PRESET_MESSAGE, "children")],
                  Input({"type": L.PRESET_TYPE, "name": ALL}, "n_clicks"),
                  Input(L.MODE, "value"), State(L.CURRENT, "data"), State(L.URL, "search"),
                  *[State(i, "value") for i in SYSTEM_IDS], prevent_initial_call=True)
    def _knobs(_clicks, mode, current, search, *system_values):
        return set_knobs(ctx.triggered_id, mode, current,
                         dict(zip(SYSTEM_IDS, system_values, strict=True)), search)

    validation_panel.register(app, services.jobs)
    from dashboard import advise_panel

    advise_panel.register(app)
