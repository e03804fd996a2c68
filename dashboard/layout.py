"""The page: controls on the left, views on the right (behaviour is in callbacks.py). Component
ids are module constants so the callbacks and the tests name the same things."""

from __future__ import annotations

import math
from typing import Any

from dash import dash_table, dcc, html

from dashboard import help as HELP
from dashboard.jobs import DEFAULT_SCALE, VALIDATION_SCALES
from wacky_model.presets import PRESET_NAMES
from wacky_model.search import C_MAX, T_MAX, X_MAX
from wacky_model.types import System

DEFAULT_SYSTEM = System()

# The workload weights, in percent (normalized on use, so any non-negative numbers work).
WORKLOAD_FIELDS = (
    ("point-reads", "Point reads (existing keys)", 20.0),
    ("zero-reads", "Zero-result point reads", 20.0),
    ("writes", "Writes", 60.0),
    ("range-reads", "Range reads", 0.0),
)
RANGE_BLOCKS = ("range-blocks", "Range length (blocks)", 0.0)
# Which keys the operations touch (the skew model's inputs); text in the CLI's syntax.
KEY_FIELDS = (
    ("write-keys", "Write keys", "uniform"),
    ("read-keys", "Read keys", "uniform"),
)
# Each field's suggestions ("latest": updates of recent inserts, or reads of recent writes).
KEY_SUGGESTIONS = {
    "write-keys": ("uniform", "zipf:0.6", "zipf:0.99", "zipf:1.2", "hotset:0.1:0.9", "latest"),
    "read-keys": ("uniform", "zipf:0.6", "zipf:0.99", "zipf:1.2", "hotset:0.1:0.9",
                  "hotrange:0.02:0.98", "latest"),
}
UPDATE_FRACTION = ("update-fraction", "Updates (% of writes)", 0.0)
CORRELATED = "correlated"
SYSTEM_FIELDS = (
    ("entries", "Entries N", float(DEFAULT_SYSTEM.entries)),
    ("entry-bytes", "Entry size (bytes)", float(DEFAULT_SYSTEM.entry_bytes)),
    ("block-bytes", "Block size (bytes)", float(DEFAULT_SYSTEM.block_bytes)),
    ("buffer-mib", "Buffer (MiB)", DEFAULT_SYSTEM.buffer_bytes / 2**20),
    ("bits-per-entry", "Filter memory (bits/entry)", float(DEFAULT_SYSTEM.bits_per_entry)),
    ("cache-mib", "Block cache (MiB)", 0.0),
)
MEMORY_SPLIT = "memory-split"
MEMORY_BITS = ("memory-bits", "Total memory (bits/entry)", 10.0)
MAX_RUNS = ("max-runs", "Max runs per level (0: no limit)", 36.0)
MAX_PEAK_DISK = ("max-peak-disk", "Max disk during merges (× the data; 0: no limit)", 0.0)
ROBUST = ("robust-rho", "Uncertainty ρ (robust tuning)", 0.0)
# The system's probes, paged metadata and devices (the CLI's --probe-cost, --paged-metadata and
# --device). An empty box is the CLI's flag left out: the defaults change nothing.
PROBE_COST = ("probe-cost", "Probe cost (block reads)", 0.0)
PAGED = "paged-metadata"
OWN_DEVICE = ("own-device-gib", "Own device: capacity (GiB; empty: no limit)", "")
SECOND_DEVICE = (
    ("device2-read", "Second device: read cost (block reads)", ""),
    ("device2-write", "Second device: write cost (block reads)", ""),
    ("device2-gib", "Second device: capacity (GiB; empty: no limit)", ""),
)
DEVICE_FIELDS = (OWN_DEVICE, *SECOND_DEVICE)
# Tidal-tree's floating at this gamma on a file-granular pick (the CLI's --floating GAMMA).
FLOATING = ("floating-gamma", "Floating γ (Tidal-tree; empty: off)", "")
# What the search may pick (recommend's granularity, level0_trigger and target): (id, label,
# ((value, text), ...), default). The values are text so they travel in the URL unchanged.
MERGES = ("merges", "Merges", (("any", "Any — the search chooses"), ("level", "Whole levels"),
                               ("file", "Files")), "any")
LEVEL0_TRIGGER = ("level0-trigger", "Level-0 trigger",
                  (("searched", "Searched"), ("1", "1"), ("2", "2"), ("4", "4"), ("8", "8")),
                  "searched")
TARGET = ("target", "Target", (("native", "This project's engine"),
                               ("rocksdb", "Stock RocksDB")), "native")
SEARCH_CHOICES = (MERGES, LEVEL0_TRIGGER, TARGET)
# The machine (issue 34): a profile from `wacky calibrate --out`, kept in the page (a Store),
# not in the link. With it, the write rate (stock RocksDB, T2 and T3) and the objective (the
# native engine's T4, stock RocksDB's T7) apply; each field shows only where it applies.
PROFILE = "machine-profile"  # the Store of the parsed profile (DeviceProfile's fields)
PROFILE_UPLOAD = "profile-upload"
PROFILE_STATUS = "profile-status"
PROFILE_LABEL = "Machine profile (wacky calibrate --out)"
WRITE_RATE = ("write-rate", "Write rate (inserts/s; empty: none)", "")
OBJECTIVE = ("objective", "Objective", (("io", "I/O per operation"),
                                        ("throughput", "Time per operation")), "io")
WRITE_RATE_FIELD = "write-rate-field"
OBJECTIVE_FIELD = "objective-field"
# (id, label, min, max, step, default). The ranges are the search's bounds, so every
# recommendation fits; each slider's input box sets exact values where dragging is too coarse.
KNOBS = (
    ("T", "T: base ratio", 2, T_MAX, 0.1, 10.0),
    ("C", "C: capping ratio", 1, C_MAX, 0.01, 9.0),
    ("X", "X: growth exponential", 1, X_MAX, 0.05, 1.0),
    ("K", "K: greediness, levels 1..L-1", 0, 1, 0.05, 1.0),
    ("Z", "Z: greediness, level L", 0, 1, 0.05, 0.0),
)

MESSAGE = "message"
MIX = "mix"
SYSTEM_SUMMARY = "system-summary"
LOADING = "views-loading"
LOADING_NOTE = "views-loading-note"
MODE = "mode"
MANUAL_CONTROLS = "manual-controls"
FILTERS = "filters"
PRESET_TYPE = "preset"
PRESET_MESSAGE = "preset-message"
CARD = "card"
ALTERNATIVES = "alternatives"
STRUCTURE = "structure"
LEVELS = "levels"
THETA = "theta-vs-t"
THROUGHPUT = "throughput-vs-writes"
MEMORY_FRONTIER = "memory-frontier"
RANGE_FRONTIER = "range-frontier"
CURRENT = "current-design"
VALIDATE = "validate-button"
POLL = "validation-poll"
JOB = "validation-job"
PROGRESS = "validation-progress"
STATUS = "validation-status"
VALIDATION_RESULT = "validation-result"
URL = "url"
ROCKSDB = "rocksdb"
VALIDATED = "validated-inputs"
VALIDATION_STALE = "validation-stale"
VALIDATION_PANEL = "validation-panel"
SCROLLED = "validation-scrolled"
ROCKSDB_OPTIONS_BUTTON = "rocksdb-options-button"
ROCKSDB_JSON_BUTTON = "rocksdb-json-button"
ROCKSDB_DOWNLOAD = "rocksdb-download"
ROCKSDB_PANEL = "rocksdb-panel"
VALIDATION_SCALE = "validation-scale"
VALIDATION_EXPLAINED = "validation-explained"
VALIDATION_NOTES = "validation-notes"

POLL_MS = 400

PANEL = {"border": "1px solid #ddd", "borderRadius": "6px", "padding": "10px 14px",
         "marginBottom": "12px", "background": "white"}
MESSAGE_STYLE = {"color": "#a40000", "background": "#fff0f0", "border": "1px solid #e0a0a0",
                 "borderRadius": "6px", "padding": "0 12px", "margin": "8px 0"}
FIELD = {"display": "flex", "justifyContent": "space-between", "alignItems": "center",
         "margin": "3px 0", "gap": "8px"}
INPUT = {"width": "170px", "flex": "0 0 170px", "boxSizing": "border-box"}  # aligned boxes
# A menu's longest choice ("Any — the search chooses") needs a little more than a number box,
# and a slightly smaller font to fit beside its label.
WIDE_INPUT = {**INPUT, "width": "240px", "flex": "0 0 240px", "fontSize": "14px"}


def knob_id(name: str) -> str:
    return f"knob-{name}"


def _box(field_id: str, value: float, style: dict) -> dcc.Input:
    """A number box that applies on Enter or on leaving it, not on each keystroke. Text, not
    type="number": Dash 4's number box ignored retyping its first value after a callback set
    it. The callbacks parse the text."""
    return dcc.Input(id=field_id, type="text", inputMode="decimal", value=value,
                     debounce=True, style=style)


def display_value(field_id: str, value: float) -> float | str:
    """A field's starting text: entries with thousands separators (2,147,483,648), not raw."""
    return f"{int(value):,}" if field_id == "entries" and float(value).is_integer() else value


# A small circled "?" (drawn with CSS: not every font has the ⓘ glyph).
HELP_MARK = {"display": "inline-block", "width": "13px", "height": "13px", "lineHeight": "13px",
             "marginLeft": "4px", "borderRadius": "50%", "border": "1px solid #999",
             "color": "#777", "fontSize": "10px", "textAlign": "center", "cursor": "help",
             "verticalAlign": "middle"}


def label(help_key: str, text: str, target: str | None = None) -> html.Label:
    """A control's label with its help as a tooltip (on the label and on the ? beside it)."""
    return html.Label([text, html.Span("?", style=HELP_MARK)], htmlFor=target or help_key,
                      title=HELP.CONTROLS[help_key])


def _number_field(field_id: str, text: str, value: float | str,
                  disabled: bool = False) -> html.Div:
    box = _box(field_id, display_value(field_id, value), INPUT)
    box.disabled = disabled
    return html.Div([label(field_id, text), box], style=FIELD)


def key_suggestions_list(field_id: str) -> str:
    return f"{field_id}-suggestions"


def _key_field(field_id: str, text: str, value: str) -> html.Div:
    """A distribution in the CLI's syntax, with the common ones suggested."""
    box = dcc.Input(id=field_id, type="text", value=value, debounce=True,
                    list=key_suggestions_list(field_id), style=INPUT)
    suggestions = html.Datalist([html.Option(value=v) for v in KEY_SUGGESTIONS[field_id]],
                                id=key_suggestions_list(field_id))
    return html.Div([label(field_id, text), box, suggestions], style=FIELD)


def _choice_field(field_id: str, text: str, options: tuple[tuple[str, str], ...],
                  value: str) -> html.Div:
    """A closed list of choices, aligned with the number boxes."""
    menu = dcc.Dropdown(id=field_id, value=value, clearable=False, searchable=False,
                        options=[{"label": t, "value": v} for v, t in options])
    return html.Div([label(field_id, text), html.Div(menu, style=WIDE_INPUT)], style=FIELD)


def _flag(field_id: str, text: str, value: bool) -> dcc.Checklist:
    option = {"label": html.Span(f" {text}", title=HELP.CONTROLS[field_id]), "value": "on"}
    return dcc.Checklist(id=field_id, options=[option], value=["on"] if value else [],
                         style={"margin": "3px 0"})


# T and C span decades: their sliders move in log10 of the value, with ticks at round numbers.
LOG_KNOBS = {"T": (2, 5, 10, 20, 50, 100, 200, 512),
             "C": (1, 3, 10, 30, 100, 300, 1000, 4096)}


def knob_slider_id(name: str) -> str:
    return f"knob-{name}-slider"


def to_slider(name: str, value: float) -> float:
    return math.log10(value) if name in LOG_KNOBS else value


def from_slider(name: str, position: float) -> float:
    """The knob's value at a slider position, rounded to 3 significant digits."""
    value = 10 ** position if name in LOG_KNOBS else position
    return float(f"{value:.3g}")


def _knob(name: str, text: str, lo: float, hi: float, step: float, default: float) -> html.Div:
    slider = dcc.Slider(id=knob_slider_id(name), min=to_slider(name, lo), max=to_slider(name, hi),
                        step=0.001 if name in LOG_KNOBS else step,
                        value=to_slider(name, default), allow_direct_input=False,
                        marks={to_slider(name, t): f"{t:g}" for t in LOG_KNOBS.get(name, (lo, hi))})
    # The box is the knob's value (the slider only drives it); a value outside [lo, hi] is
    # reported inline, not clamped.
    box = html.Div([label(name, text, knob_id(name)),
                    _box(knob_id(name), default, {"width": "90px"})], style=FIELD)
    return html.Div([box, slider], style={"marginBottom": "6px"})


def _panel(title: str | None, children: list, **kwargs: Any) -> html.Div:
    head = [] if title is None else [html.H4(title, style={"marginTop": 0})]
    return html.Div(head + children, **{"style": PANEL, **kwargs})


def _graph(graph_id: str) -> dcc.Graph:
    return dcc.Graph(id=graph_id, config={"displaylogo": False})


def _radio(radio_id: str, values: tuple[str, ...], suffix: str = "",
           **kwargs: Any) -> dcc.RadioItems:
    options = [{"label": html.Span(f" {v}{suffix}", title=HELP.CONTROLS[radio_id]), "value": v}
               for v in values]
    return dcc.RadioItems(id=radio_id, options=options, value=values[0], inline=True, **kwargs)


def _devices() -> html.Details:
    """Probes, paged metadata and a second device: folded, as the key skew is (rarely set)."""
    return html.Details([
        html.Summary("Probes, paged metadata and devices", style={"cursor": "pointer"}),
        _number_field(*PROBE_COST),
        _flag(PAGED, "filters and indexes paged through the cache", False),
        *[_number_field(*f) for f in DEVICE_FIELDS]], style={"marginTop": "6px"})


def _machine() -> html.Div:
    """The machine profile upload, its status, and the fields it enables."""
    upload = dcc.Upload(id=PROFILE_UPLOAD, accept=".json,application/json", multiple=False,
                        children=html.Div(["Drop the JSON file or ", html.A("choose it")]),
                        style={"border": "1px dashed #999", "borderRadius": "4px",
                               "padding": "6px", "textAlign": "center", "cursor": "pointer"})
    return _panel("Machine", [
        label(PROFILE, PROFILE_LABEL, PROFILE_UPLOAD), upload,
        html.Div("No profile: costs in I/O only.", id=PROFILE_STATUS, role="status",
                 style={"fontSize": "90%", "margin": "4px 0"}),
        dcc.Store(id=PROFILE),
        html.Div(_number_field(*WRITE_RATE), id=WRITE_RATE_FIELD, style={"display": "none"}),
        html.Div(_choice_field(*OBJECTIVE), id=OBJECTIVE_FIELD, style={"display": "none"})])


def _controls() -> html.Div:
    presets = html.Div([html.Button(name, id={"type": PRESET_TYPE, "name": name}, n_clicks=0,
                                    style={"margin": "2px"}) for name in PRESET_NAMES])
    small = {"fontSize": "90%", "color": "#444"}
    manual = html.Div(
        [html.Div("Figure 8 presets:", style={"marginTop": "8px"}), presets,
         html.Div(id=PRESET_MESSAGE, role="alert", style={"color": "#a40000", "fontSize": "90%"}),
         html.Div([_knob(*knob) for knob in KNOBS], style={"marginTop": "8px"}),
         _radio(FILTERS, ("optimized", "uniform"), " filters")],
        id=MANUAL_CONTROLS, style={"display": "none"})
    skew = html.Details([html.Summary("Key skew and updates", style={"cursor": "pointer"}),
                         *[_key_field(*f) for f in KEY_FIELDS], _number_field(*UPDATE_FRACTION),
                         _flag(CORRELATED, "hot reads are hot writes", True)],
                        style={"marginTop": "6px"})
    return html.Div([
        _panel("Workload", [*[_number_field(*f) for f in (*WORKLOAD_FIELDS, RANGE_BLOCKS)],
                            html.Div(id=MIX, style=small), _number_field(*ROBUST), skew]),
        _panel("System", [
            *[_number_field(*f) for f in SYSTEM_FIELDS],
            _flag(MEMORY_SPLIT, "search the buffer/filter split of a total budget", False),
            # Off until the split is ticked; the split then disables the fields it overrides
            # (callbacks.memory_fields_disabled).
            _number_field(*MEMORY_BITS, disabled=True),
            html.Div(id=SYSTEM_SUMMARY, style=small), _devices()]),
        _panel("Design", [_radio(MODE, ("recommend", "manual"), inputStyle={"marginLeft": "10px"}),
                          _number_field(*MAX_RUNS), _number_field(*MAX_PEAK_DISK),
                          *[_choice_field(*choice) for choice in SEARCH_CHOICES],
                          _number_field(*FLOATING), manual]),
        _machine(),
        _panel("Validate on engine", [
            html.Div("Builds the design on the native engine and measures it. The page's N is "
                     "far too big to build: pick the run's size (bigger runs have more levels, "
                     "closer to the page's tree).", style=small),
            label(VALIDATION_SCALE, "Run size"),
            dcc.Dropdown(id=VALIDATION_SCALE, value=DEFAULT_SCALE, clearable=False,
                         searchable=False, options=[{"label": c.label, "value": key}
                                                    for key, c in VALIDATION_SCALES.items()]),
            html.Button("Validate on engine", id=VALIDATE, n_clicks=0, style={"margin": "6px 0"}),
            html.Progress(id=PROGRESS, value="0", max="1", style={"width": "100%"}),
            html.Div(id=STATUS, style={"fontSize": "90%"}),
            dcc.Store(id=JOB),
            dcc.Interval(id=POLL, interval=POLL_MS, disabled=True)]),
    ], style={"flex": "0 0 390px"})


def _table(table_id: str, columns: list[tuple[str, str]]) -> dash_table.DataTable:
    return dash_table.DataTable(
        id=table_id, columns=[{"id": c, "name": name} for c, name in columns], data=[],
        tooltip_header={c: HELP.COLUMNS[c] for c, _ in columns if c in HELP.COLUMNS},
        tooltip_delay=300, tooltip_duration=None, style_header={"fontWeight": "bold"},
        style_cell={"fontFamily": "sans-serif", "fontSize": "13px", "padding": "3px 8px",
                    "textAlign": "right"}, style_table={"overflowX": "auto"})


ALTERNATIVE_COLUMNS = [("family", "family"), ("T", "T"), ("C", "C"), ("X", "X"), ("K", "K"),
                       ("Z", "Z"), ("theta", "Θ (I/O per op)"),
                       ("relative", "throughput ÷ shown")]
LEVEL_COLUMNS = [("level", "level"), ("runs", "runs"), ("entries", "capacity (entries)"),
                 ("buffers", "× buffer"), ("fpr", "FPR/run"), ("level_fpr", "level FPR"),
                 ("bits", "bits/entry"), ("structure", "filter")]


def _views() -> html.Div:
    validation = _panel(None, [
        html.Div(id=VALIDATION_STALE, role="status"),
        html.Div("Press “Validate on engine” to build the design shown on the engine and "
                 "compare the model's predictions with what it measures.", id=VALIDATION_RESULT),
        dcc.Store(id=VALIDATED), dcc.Store(id=SCROLLED)], id=VALIDATION_PANEL)
    from dashboard.advise_panel import panel as advise_panel

    return html.Div([_loading(_model_views()), validation, advise_panel()],
                    style={"flex": "1", "minWidth": "0"})


def _model_views() -> list:
    half = {"flex": "1 1 400px", "minWidth": "0"}
    return [
        # At 1280 px the table goes below the card rather than being cut off.
        _panel(None, [html.Div(id=CARD, style={"flex": "0 0 300px"}),
                      html.Div([html.H4("Each family at its best T", style={"marginTop": 0}),
                                _table(ALTERNATIVES, ALTERNATIVE_COLUMNS)],
                               style={"flex": "1 1 480px", "minWidth": "0"})],
               style={**PANEL, "display": "flex", "gap": "16px", "flexWrap": "wrap"}),
        _panel("RocksDB options for this design", [
            html.Div([html.Button("Download OPTIONS file", id=ROCKSDB_OPTIONS_BUTTON, n_clicks=0,
                                  style={"marginRight": "6px"}),
                      html.Button("Download JSON", id=ROCKSDB_JSON_BUTTON, n_clicks=0),
                      dcc.Download(id=ROCKSDB_DOWNLOAD)], style={"marginBottom": "6px"}),
            html.Div(id=ROCKSDB)], id=ROCKSDB_PANEL),
        _panel(None, [_graph(STRUCTURE), _table(LEVELS, LEVEL_COLUMNS)]),
        html.Div(_graph(THETA), style=PANEL),
        html.Div(_graph(THROUGHPUT), style=PANEL),
        _panel(None, [html.Div(_graph(MEMORY_FRONTIER), style=half),
                      html.Div(_graph(RANGE_FRONTIER), style=half)],
               style={**PANEL, "display": "flex", "flexWrap": "wrap"}),
    ]


def _loading(children: list) -> dcc.Loading:
    """While the views recompute (a skewed workload takes seconds), they dim and a note at the
    top of the window says so; quick updates (under 300 ms) show nothing."""
    note = html.Div("Updating the views…", id=LOADING_NOTE,
                    style={"position": "fixed", "top": "10px", "right": "20px", "zIndex": 1000,
                           "background": "#fff8d0", "border": "1px solid #d0b050",
                           "borderRadius": "6px", "padding": "6px 14px",
                           "boxShadow": "0 2px 6px rgba(0,0,0,.2)"})
    return dcc.Loading(children, id=LOADING, target_components={CARD: "children"},
                       delay_show=300, custom_spinner=note,
                       overlay_style={"visibility": "visible", "opacity": 0.55})


def build_layout() -> html.Div:
    return html.Div([
        html.H2("wacky: tune an LSM-tree on the Wacky continuum", style={"margin": "6px 0"}),
        html.Div(id=MESSAGE, role="alert"),
        # The controls' state lives in the query string: a link restores the page.
        dcc.Location(id=URL, refresh=False),
        dcc.Store(id=CURRENT),
        html.Div([_controls(), _views()], style={"display": "flex", "gap": "14px"}),
    ], style={"fontFamily": "sans-serif", "background": "#f6f6f6", "padding": "8px 14px"})


def fill(component: Any, values: dict[tuple[str, str], Any]) -> None:
    """Set (component id, property) to a value throughout a layout, in place: the page's first
    paint then has content instead of waiting for its first callbacks."""
    key = getattr(component, "id", None)
    if isinstance(key, str):
        for (cid, prop), value in values.items():
            if cid == key:
                setattr(component, prop, value)
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if hasattr(child, "to_plotly_json"):
            fill(child, values)
