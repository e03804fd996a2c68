"""The case sets files, skew, skew-files, rocksdb-skew, rocksdb and smoke (:data:`SETS`), each
listing its cases and rendering its section of docs/VALIDATION.md: what it validates, how, and
against which targets."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from validation.predict import range_entries_for
from validation.results import Costs, ValidationResult, with_theta
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, bits, section, table
from wacky_model import rocksdb_tuning as tuning
from wacky_model.families import TABLE
from wacky_model.presets import preset
from wacky_model.rocksdb_tuning import RocksDBConfig, StockConfig, StockPriced, UniversalConfig
from wacky_model.types import Compaction, Design, Workload

# The cost columns of the engine tables: (Costs field, column label).
COST_COLUMNS = (("write_amp", "write amp"), ("zero_result_read", "zero-result I/O"),
                ("point_read", "existing-key I/O (Level L)"),
                ("point_read_uniform", "existing-key I/O (uniform)"))
LABELS = [label for _, label in COST_COLUMNS]


def _pair(model: float, measured: float, error: float | None, spec: str = ".3g",
          error_spec: str = "+.0%") -> str:
    """A table cell: model / measured (error)."""
    return (f"{model:{spec}} / {measured:{spec}} "
            f"({'n/a' if error is None else format(error, error_spec)})")


def _costs(r: ValidationResult) -> list[str]:
    """The cells of :data:`COST_COLUMNS`, n/a where nothing was measured (skew's worst case)."""
    return ["n/a" if getattr(r.measured, m) is None else
            _pair(getattr(r.predicted, m), getattr(r.measured, m), r.relative_error.metric(m))
            for m, _ in COST_COLUMNS]


def _spread(errors: Sequence[float], spec: str) -> str:
    return (f"median error {format(statistics.median(errors), spec)}, "
            f"worst {format(max(errors), spec)}")


# -- files ---------------------------------------------------------------------------------------
RATIOS = (4.0, 10.0)
TRIGGERS = (1, 4)
BUFFERS = (250, 2_000, 16_000)  # N/F
# Every file holds an open descriptor (no table cache yet): above this many buffers of data a
# file holds FILE_BUFFERS_LARGE_N buffers, so the files stay well below the process's limit.
LARGE_N_BUFFERS = 4_000
FILE_BUFFERS_LARGE_N = 4


def case_scale(scale: Scale, n_buffers: int) -> Scale:
    """``scale`` with the buffer that gives ``n_buffers`` buffers of data (whole blocks)."""
    per_block = scale.block_bytes // scale.entry_bytes
    blocks = max(1, round(scale.entries / n_buffers / per_block))
    return replace(scale, buffer_bytes=blocks * scale.block_bytes)


def _files_cases(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    """Leveling at each ratio, trigger and N/F, least-overlap picking; round-robin once."""
    grid = [(T, k, n, "least_overlap") for T in RATIOS for k in TRIGGERS for n in BUFFERS]
    out = []
    for T, k, n, pick in [*grid, (4.0, 1, 2_000, "round_robin")]:
        sc = case_scale(scale, n)
        file_bytes = (FILE_BUFFERS_LARGE_N if n > LARGE_N_BUFFERS else 1) * sc.buffer_bytes
        name = (f"T={T:g}, level-1 trigger {k}, N/F = {n:,}"
                + (", round-robin" if pick == "round_robin" else ""))
        out.append(SweepCase(name, "files", Design(T, T - 1, 1, 0, 0), {
            "scale": sc, "bits_per_entry": bits(budget),
            "compaction": Compaction("file", file_bytes, k, pick)}))
    return out


def _files_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                   command: str, refused: Refused) -> str:
    body = table(["case", *LABELS, "levels (measured)"], ([
        r.name, *_costs(r.result),
        ", ".join(f"{lv.entries:,.0f}" for lv in r.result.measured.levels if lv.level > 0)]
        for r in results))
    errors = [abs(r.result.relative_error.metric("write_amp") or 0.0) for r in results]
    if errors:
        body += ["", f"Write amplification: {_spread(errors, '.1%')}, over {len(errors)} cases."]
    return section(
        "files", "File-granular merges: the partial-merge model against the native engine",
        command, "The native engine with `granularity=\"file\"` (files of one buffer, four above "
        f"N/F = {LARGE_N_BUFFERS:,} so that the open files stay within the process's limit; "
        "least-overlap picking unless noted), "
        f"Leveling (C = T - 1), {scale.entries:,} entries of {scale.entry_bytes} B preloaded, "
        "then a window of as many inserts with the reads spread over it; the buffer sets N/F. "
        "Each cell is the partial-merge model (`cost_models/partial.py`, P1-P7 in "
        "docs/MODEL.md, from an empty tree through the preload and the window) / the engine "
        "(error = (model - measured) / measured). Target: write amplification within 10% "
        "median, 25% worst.", body)


# -- skew ----------------------------------------------------------------------------------------
FIGURE = "validation-cache.png"
DISTRIBUTIONS = ("zipf:0.6", "zipf:0.9", "zipf:1.2", "hotset:0.1:0.9")
CACHE_SHARE = 0.05  # of the data's bytes
WRITE_SHARES = (0.2, 0.5, 0.8)  # for the cache-under-compaction figure ...
EFFECT_SCALE_DIVISOR = 4  # ... run at a quarter of the entries: many reads per write are slow
TARGET_WA, TARGET_HIT, TARGET_READ, TARGET_READ_ABS = 0.15, 0.05, 0.15, 0.02
TARGETS = (f"write amplification within {TARGET_WA:.0%}, the overall hit rate within "
           f"{TARGET_HIT} (absolute), read I/O within {TARGET_READ:.0%} or {TARGET_READ_ABS} I/O")


def designs(scale: Scale) -> dict[str, Design]:
    system = scale.system(10.0, None)
    return {"Leveling": preset("leveling", T=10), "Tiering": preset("tiering", T=4),
            "Lazy Leveling": preset("lazy-leveling", T=10),
            "QLSM-bush": preset("qlsm-bush", system=system)}


@dataclass(frozen=True)
class SkewCase:
    family: str
    design: Design
    distribution: str
    writes: float = 0.5

    @property
    def name(self) -> str:
        return f"{self.family}, {self.distribution}, {self.writes:.0%} writes"

    @property
    def workload(self) -> Workload:
        return Workload(1.0 - self.writes, 0.0, self.writes, write_keys=self.distribution,
                        read_keys=self.distribution, update_fraction=1.0)


def cache_bytes(scale: Scale) -> int:
    return int(CACHE_SHARE * scale.entries * scale.entry_bytes)


def effect_scale(scale: Scale) -> Scale:
    """The cache-under-compaction runs' scale: a quarter of the entries, at least four buffers."""
    entries = max(scale.entries // EFFECT_SCALE_DIVISOR,
                  4 * scale.buffer_bytes // scale.entry_bytes)
    return replace(scale, entries=min(entries, scale.entries))


def _read_ok(r: ValidationResult) -> bool:
    p, m = r.predicted.point_read_uniform, r.measured.point_read_uniform
    return abs(p - m) <= max(TARGET_READ * m, TARGET_READ_ABS)


SKEW_COLUMNS = ("write amp", "existing-key read I/O", "cache hit rate",
                "hit rate by level (model / engine)")


def _skew_cells(r: ValidationResult, write_amp: float, point_read: float,
                hit_rate: float) -> list[str]:
    """The cells of :data:`SKEW_COLUMNS`, with the errors given."""
    p, m = r.predicted, r.measured
    return [_pair(p.write_amp, m.write_amp, write_amp),
            _pair(p.point_read_uniform, m.point_read_uniform, point_read, error_spec="+.3f"),
            _pair(p.cache_hit_rate, m.cache_hit_rate, hit_rate, ".3f", "+.3f"), _level_rates(r)]


def skew_cases(scale: Scale) -> list[tuple[SkewCase, Scale, str]]:
    """The table's cases at ``scale``; the cache under compaction's at :func:`effect_scale`."""
    both = {k: v for k, v in designs(scale).items() if k in ("Leveling", "Tiering")}
    return ([(SkewCase(f, d, dist), scale, "table") for f, d in designs(scale).items()
             for dist in DISTRIBUTIONS]
            + [(SkewCase(f, d, "zipf:0.9", w), effect_scale(scale), "effect")
               for f, d in both.items() for w in WRITE_SHARES])


def _skew_runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [SweepCase(c.name, group, c.design, {
        "workload": c.workload, "scale": sc, "bits_per_entry": 10.0,
        "cache_bytes": cache_bytes(sc)}) for c, sc, group in skew_cases(scale)]


def _effect(results: Sequence[SweepResult], scale: Scale,
            group: str = "effect") -> list[tuple[SkewCase, ValidationResult]]:
    return _matched(results, [c for c, _, _ in skew_cases(scale)], group)


def _skew_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                  command: str, refused: Refused) -> str:
    cases, effect = _effect(results, scale, "table"), _effect(results, scale)
    rows, wa_errors, hit_errors, misses = [], [], [], []
    for case, r in cases:
        p, m = r.predicted, r.measured
        e_wa = (p.write_amp - m.write_amp) / m.write_amp
        e_hit = p.cache_hit_rate - m.cache_hit_rate
        wa_errors.append(abs(e_wa))
        hit_errors.append(abs(e_hit))
        if abs(e_wa) > TARGET_WA or abs(e_hit) > TARGET_HIT or not _read_ok(r):
            misses.append(f"{case.family}, {case.distribution}")
        window = (f"{r.window_writes:,} writes, {r.detail('major_compactions')} merges into "
                  "L" + ("" if r.detail("window_complete") else ", cut short"))
        rows.append([f"{case.family} ({_knobs(case.design)})", case.distribution,
                     *_skew_cells(r, e_wa, p.point_read_uniform - m.point_read_uniform, e_hit),
                     window])
    body = table(["design", "keys", *SKEW_COLUMNS, "window"], rows)
    if cases:
        body += ["", f"Write amplification: {_spread(wa_errors, '.1%')}. Hit rate: "
                     f"{_spread(hit_errors, '.3f')}. "
                     + (f"Cases outside a target: {'; '.join(misses)}." if misses
                        else "Every case within its targets.")]
    if effect:
        by_share: dict[float, list[str]] = {}
        for case, r in effect:
            by_share.setdefault(case.writes, []).append(
                f"{r.predicted.cache_hit_rate:.3f} / {r.measured.cache_hit_rate:.3f}")
        body += [
            "",
            "### The cache under compaction",
            "",
            f"At {effect[0][1].scale.entries:,} entries, the same buffer and a cache of 5% of "
            "that data. The more writes per read, the faster merges rewrite runs and drop their "
            "cached blocks, and the more so for greedier merging: Leveling rewrites a level on "
            "every merge into it, Tiering only when the level fills. Zipf 0.9, updates only; the "
            "hit rate of existing-key reads, model / engine:",
            "",
            *table(["writes", *dict.fromkeys(c.family for c, _ in effect)],
                   ([f"{share:.0%}", *cells] for share, cells in by_share.items())),
            "", f"![hit rate against the share of writes, and over a window]({FIGURE})",
            "", "Left: measured (markers) and predicted (lines) hit rates. Right: the "
            "hit rate in each twentieth of the window at 50% writes, with the model's "
            "steady value dashed; it dips after each merge into the largest level."]
    return section(
        "skew", "Skewed keys and a block cache: the skew model against the native engine",
        command, f"{scale.entries:,} entries of "
        f"{scale.entry_bytes} B preloaded, a {scale.buffer_bytes:,} B buffer, 10 filter bits "
        f"per entry, an LRU block cache of {cache_bytes(scale):,} B ({CACHE_SHARE:.0%} of the "
        "data) for point reads. Then half existing-key reads, half updates, both drawn from "
        "the distribution (the same keys hot for both), over whole cycles of the largest "
        "level after a warm-up (validation/window.py). Each cell is the skew model "
        f"(S1-S7 in docs/MODEL.md) / the engine. Targets: {TARGETS}.", body)


def _knobs(d: Design) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in d.knobs.items())


def _skew_figure(results: Sequence[SweepResult], scale: Scale, out: Path) -> None:
    effect_figure(_effect(results, scale)).write_image(str(out.parent / FIGURE), scale=1.5)


def effect_figure(effect: Sequence[tuple[SkewCase, ValidationResult]]) -> Any:
    """Hit rate against the share of writes (measured and predicted) and over the window."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "hit rate as writes speed up compaction", "hit rate over the window (50% writes)"))
    colors = {"Leveling": "#1f77b4", "Tiering": "#d62728"}
    for family in dict.fromkeys(c.family for c, _ in effect):
        rows = [(c.writes, r) for c, r in effect if c.family == family]
        color, x = colors.get(family, "#333"), [w for w, _ in rows]
        fig.add_trace(go.Scatter(x=x, y=[r.predicted.cache_hit_rate for _, r in rows],
                                 mode="lines", name=f"{family}, model", line_color=color),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=[r.measured.cache_hit_rate for _, r in rows],
                                 mode="markers", name=f"{family}, engine", marker_color=color,
                                 marker_size=10), row=1, col=1)
        half = [r for w, r in rows if abs(w - 0.5) < 1e-9]
        if half and (skew := half[0].detail("skew")):
            span = max(half[0].window_writes or 1, 1)
            fig.add_trace(go.Scatter(x=[t["writes"] / span for t in skew["timeline"]],
                                     y=[t["hit_rate"] for t in skew["timeline"]],
                                     mode="lines+markers", name=f"{family}, engine over time",
                                     line_color=color, showlegend=False), row=1, col=2)
            fig.add_hline(y=half[0].predicted.cache_hit_rate, line_dash="dash",
                          line_color=color, row=1, col=2)
    for col, title in enumerate(("share of operations that are writes",
                                 "share of the window's writes done"), 1):
        fig.update_xaxes(title_text=title, tickformat=".0%", row=1, col=col)
    fig.update_yaxes(title_text="cache hit rate", row=1, col=1)
    fig.update_layout(width=1100, height=420, template="plotly_white",
                      margin=dict(l=60, r=20, t=50, b=50))
    return fig


# -- skew-files ----------------------------------------------------------------------------------
SKEW_FILE_DISTRIBUTIONS = ("uniform", "zipf:0.9", "zipf:1.2", "hotset:0.1:0.9")
SKEW_FILE_UPDATES = 0.5  # of the skewed cases' writes; the uniform controls insert only
SKEW_FILE_CACHE_SHARE = 0.15  # of the loaded data's bytes
SKEW_FILE_BUFFER = 64 << 10  # bytes: 512 entries of 128 B a flush
# File-granular merges cost more per write than whole levels: a tenth of the sweep's entries
# (200,000 at the default scale, N/F = 390) keeps the set to a few minutes.
SKEW_FILE_ENTRIES_DIVISOR = 10
ONE_READ_PER_WRITE = ("Then one existing-key read per write, both drawn from the distribution "
                      f"(the same keys hot for both), {SKEW_FILE_UPDATES:.0%} of the writes "
                      "updates (the uniform controls insert only)")


@dataclass(frozen=True)
class SkewFileCase:
    T: int
    level1_runs: int
    distribution: str

    @property
    def updates(self) -> float:
        return 0.0 if self.distribution == "uniform" else SKEW_FILE_UPDATES

    @property
    def skewed(self) -> bool:
        return self.distribution != "uniform"

    @property
    def label(self) -> str:
        return f"T={self.T}, trigger {self.level1_runs}"

    @property
    def name(self) -> str:
        return f"{self.label}, {self.distribution}"

    @property
    def workload(self) -> Workload:
        return Workload(0.5, 0.0, 0.5, write_keys=self.distribution,
                        read_keys=self.distribution, update_fraction=self.updates)


def skew_file_cases() -> list[SkewFileCase]:
    """Uniform controls first, then the skewed cases (check_skew_files.py's sixteen)."""
    return [SkewFileCase(T, k, dist) for dist in SKEW_FILE_DISTRIBUTIONS
            for T in (4, 10) for k in TRIGGERS]


def skew_file_scale(scale: Scale) -> Scale:
    """A tenth of ``scale``'s entries (at least 64 buffers) and a 64 KiB buffer."""
    buffer_entries = SKEW_FILE_BUFFER // scale.entry_bytes
    entries = max(scale.entries // SKEW_FILE_ENTRIES_DIVISOR, 64 * buffer_entries)
    return replace(scale, entries=entries, buffer_bytes=SKEW_FILE_BUFFER)


def skew_file_runs(sc: Scale, bits: float,
                   which: Sequence[SkewFileCase] | None = None) -> list[SweepCase]:
    """The runs of ``which`` (default all) at exactly ``sc``: files of one buffer,
    least-overlap picking, a cache of 15% of the data (benchmarks/check_skew_files.py runs
    these at its own scale)."""
    return [SweepCase(c.name, "skew-files", Design(c.T, c.T - 1, 1, 0, 0), {
        "workload": c.workload, "scale": sc, "bits_per_entry": bits,
        "cache_bytes": skew_file_cache(sc),
        "compaction": Compaction("file", None, c.level1_runs)})
        for c in (skew_file_cases() if which is None else which)]


def skew_file_cache(scale: Scale) -> int:
    return int(SKEW_FILE_CACHE_SHARE * scale.entries * scale.entry_bytes)


def skew_file_errors(r: ValidationResult) -> dict[str, float]:
    """Write amplification (relative), the hit rate and read I/O (absolute), model - engine."""
    p, m = r.predicted, r.measured
    return {"write_amp": p.write_amp / m.write_amp - 1.0,
            "hit_rate": p.cache_hit_rate - m.cache_hit_rate,
            "point_read": p.point_read_uniform - m.point_read_uniform,
            "zero_result_read": (p.zero_result_read / m.zero_result_read - 1.0
                                 if m.zero_result_read else math.nan)}


def skew_file_verdict(r: ValidationResult) -> dict[str, bool]:
    """Each target (the whole-level skew section's) met."""
    e = skew_file_errors(r)
    return {"write_amp": abs(e["write_amp"]) <= TARGET_WA,
            "hit_rate": abs(e["hit_rate"]) <= TARGET_HIT,
            "point_read": _read_ok(r)}


def _level_rates(r: ValidationResult) -> str:
    """Per-level hit rates, model/engine, level 0 first when the trigger stages flushes. Under
    universal compaction the model's levels are its runs by rank, the oldest last (U5r), as
    RocksDB's last level holds its oldest run: the rows are paired from the last."""
    model = tuple(r.predicted.cache_hit_rate_per_level or ())
    engine = tuple(r.measured.cache_hit_rate_per_level or ())
    if r.detail("model_cycle_writes") is not None:  # universal: the oldest rows together
        k = min(len(model), len(engine))
        model, engine = model[len(model) - k:], engine[len(engine) - k:]
    cells = [f"{a:.2f}/{b:.2f}" for a, b in zip(model, engine, strict=False)]
    if (level0 := (r.detail("skew") or {}).get("level0_cache_hit_rate")) is not None:
        cells.insert(0, "L0 " + "/".join("-" if level0[k] is None else f"{level0[k]:.2f}"
                                         for k in ("predicted", "measured")))
    return ", ".join(cells)


SKEW_FILE_METRICS = (("write_amp", "Write amplification", "within 15%"),
                     ("hit_rate", "Overall hit rate", "within 0.05"),
                     ("point_read", "Existing-key read I/O", "within 15% or 0.02 I/O"))


def _verdict_line(key: str, label: str, target: str,
                  rows: Sequence[tuple[SkewFileCase, ValidationResult]]) -> str:
    skewed = [(c, r) for c, r in rows if c.skewed]
    controls = [(c, r) for c, r in rows if not c.skewed]
    errs = [abs(skew_file_errors(r)[key]) for _, r in skewed]
    met = sum(skew_file_verdict(r)[key] for _, r in skewed)
    missed = [c.name for c, r in skewed if not skew_file_verdict(r)[key]]
    spec = ".1%" if key == "write_amp" else ".3f"
    line = (f"{label} ({target}): {met} of {len(skewed)} skewed cases"
            + (f", {_spread(errs, spec)}" if errs else ""))
    if controls:
        line += (f"; {sum(skew_file_verdict(r)[key] for _, r in controls)} of "
                 f"{len(controls)} uniform controls")
    return line + (f". Missed: {'; '.join(missed)}." if missed else ".")


def _skew_files_cases(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return skew_file_runs(skew_file_scale(scale), bits(budget))


def _skew_files_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                        command: str, refused: Refused) -> str:
    sc, rows = skew_file_scale(scale), _matched(results, skew_file_cases())
    F = sc.buffer_bytes // sc.entry_bytes
    return section(
        "skew-files", "Skewed keys and a cache with file-granular merges: S2f against the "
        "native engine", command, "The native engine with "
        "`granularity=\"file\"` (files of one buffer, least-overlap picking), Leveling "
        f"(C = T - 1), {sc.entries:,} entries of {sc.entry_bytes} B preloaded, a "
        f"{sc.buffer_bytes:,} B buffer (N/F = {sc.entries / F:,.0f}), 5 filter bits per entry "
        f"and an LRU block cache of {skew_file_cache(sc):,} B ({SKEW_FILE_CACHE_SHARE:.0%} of "
        f"the data) for point reads. {ONE_READ_PER_WRITE}: a warm-up of half a load, then a window "
        "of half a load (validation/window.py, `fixed`). Each cell is the file-granular skew "
        "model (`file_skew_costs`: S2f with S3-S7 in docs/MODEL.md, at the window's middle) / "
        "the engine; errors are relative for write amplification and zero-result reads, "
        "absolute for read I/O and hit rates. Targets (the whole-level skew section's): "
        f"{TARGETS}; zero-result reads have no target here.", _skew_file_table(rows), refused)


def _window_cell(r: ValidationResult, warmup: int) -> str:
    """Warm-up + window writes, and a universal window's cycle as its model has it."""
    text = f"{warmup:,} + {r.window_writes:,} writes"
    if cycle := r.detail("model_cycle_writes"):
        capped = "" if r.detail("window_complete") else "; capped, no full merge"
        text += f" (model's cycle {cycle:,.0f}{capped})"
    return text


def _skew_file_table(rows: Sequence[tuple[SkewFileCase, ValidationResult]]) -> list[str]:
    """A skew-files table (model / engine per case) and the targets it met, metric by metric."""
    cells = []
    for case, r in rows:
        p, m, e = r.predicted, r.measured, skew_file_errors(r)
        ok = skew_file_verdict(r)
        flag = "" if all(ok.values()) else " (outside: " + ", ".join(
            k.replace("_", " ") for k, v in ok.items() if not v) + ")"
        cells.append([
            f"{case.label}{flag}",
            case.distribution + (f", {case.updates:.0%} updates" if case.updates else ""),
            *_skew_cells(r, e["write_amp"], e["point_read"], e["hit_rate"]),
            _pair(p.zero_result_read, m.zero_result_read, e["zero_result_read"]),
            _window_cell(r, (r.detail("skew") or {}).get("warmup_writes", 0))])
    lines = table(["case", "keys", *SKEW_COLUMNS, "zero-result I/O", "window"], cells)
    if rows:
        lines += [""] + [_verdict_line(k, label, target, rows) + "  "
                         for k, label, target in SKEW_FILE_METRICS]
        zero = [abs(skew_file_errors(r)["zero_result_read"]) for _, r in rows]
        lines.append(f"Zero-result read I/O (no target): {_spread(zero, '.0%')}.")
    return lines


# -- rocksdb-skew --------------------------------------------------------------------------------
# RocksDB syncs every file a flush or compaction writes (about 0.1 s each here): a 128 KiB buffer
# (N/F = 195 at the skew-files entries, three levels at T = 10) keeps each case near a minute.
ROCKSDB_SKEW_BUFFER = 128 << 10


@dataclass(frozen=True)
class RocksSkewCase(SkewFileCase):
    """A skew-files case on stock RocksDB: Leveling (leveled compaction, level-0 trigger
    ``level1_runs``), or ``universal``: Tiering T = 4."""

    universal: bool = False

    @property
    def design(self) -> Design:
        return Design(4, 3, 1, 1, 1) if self.universal else Design(self.T, self.T - 1, 1, 0, 0)

    @property
    def label(self) -> str:
        return ("Tiering T=4 (universal)" if self.universal
                else f"Leveling T={self.T} (trigger {self.level1_runs})")


def rocksdb_skew_cases() -> list[RocksSkewCase]:
    """Leveling T = 10 (trigger 1), then universal Tiering, under each skew-files distribution."""
    return [RocksSkewCase(10, 1, dist, universal) for universal in (False, True)
            for dist in SKEW_FILE_DISTRIBUTIONS]


def rocksdb_skew_scale(scale: Scale) -> Scale:
    return replace(skew_file_scale(scale), buffer_bytes=ROCKSDB_SKEW_BUFFER)


def _rocksdb_skew_cases(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    sc = rocksdb_skew_scale(scale)
    return [SweepCase(c.name, "rocksdb-skew", c.design, {
        "workload": c.workload, "scale": sc, "bits_per_entry": bits(budget), "engine": "rocksdb",
        "stock": True, "cache_bytes": skew_file_cache(sc),
        "compaction": Compaction(level1_runs=c.level1_runs)}) for c in rocksdb_skew_cases()]


def _rocksdb_skew_section(results: Sequence[SweepResult], scale: Scale,
                          budget: dict[str, float], command: str, refused: Refused) -> str:
    sc, rows = rocksdb_skew_scale(scale), _matched(results, rocksdb_skew_cases())
    F = sc.buffer_bytes // sc.entry_bytes
    version = rows[0][1].detail("rocksdb_version") if rows else "?"
    redone = sum(r.detail("read_batches_discarded") or 0 for _, r in rows)
    return section(
        "rocksdb-skew", "Skewed keys and a block cache on stock RocksDB: the skew model against "
        "an engine this project did not write", command, f"RocksDB {version} under its own "
        "compaction with the options of `wacky export --rocksdb`: Leveling T = 10 (leveled "
        "compaction, files of one buffer, the export's level-0 trigger) and Tiering T = 4 "
        f"(universal compaction); {sc.entries:,} entries of {sc.entry_bytes} B preloaded, a "
        f"{sc.buffer_bytes:,} B write buffer (N/F = {sc.entries / F:,.0f}), 5 filter bits per "
        f"key and an LRU block cache of {skew_file_cache(sc):,} B ({SKEW_FILE_CACHE_SHARE:.0%} "
        "of the data; one shard, no high-priority pool) of data blocks only (index and filter "
        "blocks stay in memory), which point reads fill and flushes and compactions do not. "
        f"{ONE_READ_PER_WRITE}: for leveled compaction a warm-up of half a load, then a window "
        "of half a load (validation/window.py, `half_loads`); for universal compaction a "
        "warm-up of at "
        "least half a load, then one whole cycle of the largest run, from a full merge to the "
        "next, the window U5 prices (`full_merge_cycle`; its own cycle shown beside the "
        "engine's), the writer waiting while RocksDB flushes or compacts. A read batch is "
        "counted only if no flush or compaction ran during it, "
        f"otherwise redone ({redone} redone in this set). Each cell is the skew model of "
        "RocksDB's compaction at the window's middle (S2f, `leveled_skew_costs`, for leveled; "
        "U5 over its cycle, `universal_skew_costs`, for universal; S3-S7 in docs/MODEL.md) / "
        "RocksDB. Write amplification is RocksDB's flush and compaction bytes in entries (as in "
        "the RocksDB section); read I/O is data-block cache misses per read (RocksDB's per-level "
        "PerfContext); hit rates by level are RocksDB's levels 1 on, against the model's levels "
        "(for universal compaction its runs by rank, newest first, paired from the oldest, "
        "which RocksDB keeps in its last level: the other rows are alike, not the same). "
        f"Targets (the native engine's): {TARGETS}; zero-result reads have no target here.",
        _skew_file_table(rows), refused)


# -- rocksdb -------------------------------------------------------------------------------------
def _rocksdb_cases(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    """The driver on each Figure 8 family (at its default T), stock RocksDB on Leveling at
    T = 4, 6, 10 with level-0 triggers 1 and 4 and on Tiering and Lazy Leveling at T = 4, then
    the configurations of the ranking."""
    system = scale.system(budget.get("bits_per_entry"), budget.get("sum_fpr"))

    def run(name: str, design: Design, stock: bool, trigger: int = 1) -> SweepCase:
        return SweepCase(name, "stock" if stock else "driver", design, {
            "engine": "rocksdb", "stock": stock, "compaction": Compaction(level1_runs=trigger)})

    return ([run(f"{f.figure8} (T={f.default_T:g})", preset(f.preset, system=system), False)
             for f in TABLE if f.figure8 and f.preset]
            + [run(f"Leveling T={T}, level-0 trigger {trigger}", Design(T, T - 1, 1, 0, 0),
                   True, trigger) for T in (4, 6, 10) for trigger in (1, 4)]
            + [run("Tiering T=4 (universal)", Design(4, 3, 1, 1, 1), True),
               run("Lazy Leveling T=4 (universal)", Design(4, 3, 1, 1, 0), True)]
            + [SweepCase(_label(c), "ranking", None, {
                "config": c, "scale": scale, "bits_per_entry": bits(budget)}, measure_config)
               for c in _ranking_configs(scale, bits(budget))])


def _runs(r: ValidationResult) -> str:
    return ", ".join(str(level.runs) for level in r.measured.levels)


def _target_lines(stock: Sequence[ValidationResult]) -> list[str]:
    """How many stock runs met their targets."""
    out = []
    for model, label, limit in (("partial", "Leveled", 0.15), ("universal", "Universal", 0.25)):
        runs = [r for r in stock if r.model == model]
        if not runs:
            continue
        wa = [abs(r.relative_error.metric("write_amp") or 0.0) for r in runs]
        line = (f"{label}: write amplification within {limit:.0%} in "
                f"{sum(e <= limit for e in wa)} of {len(wa)} (worst {max(wa):.1%})")
        if model == "partial":
            zero_ok = sum(abs(r.predicted.zero_result_read - r.measured.zero_result_read)
                          <= max(0.01, 0.2 * r.measured.zero_result_read) for r in runs)
            line += f"; zero-result reads within 20% or 0.01 I/O in {zero_ok} of {len(runs)}"
        out.append(line + ".")
    return out


def _rocksdb_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                     command: str, refused: Refused) -> str:
    ran = {g: [(r.name, r.result) for r in results if r.case.group == g]
           for g in ("driver", "stock")}
    measured = {r.case.options["config"]: r.result for r in results if r.case.group == "ranking"}
    ranking = (_ranking_rows(measured, scale, bits(budget))
               if len(measured) == len(_ranking_configs(scale, bits(budget))) else [])
    version = next((r.detail("rocksdb_version") for _, r in ran["driver"] + ran["stock"]), "?")
    F = scale.buffer_bytes // scale.entry_bytes
    driver = ([name, *_costs(r), f"{r.detail('tree_write_amp'):.3g} / {r.simulated.write_amp:.3g}",
               _runs(r), "yes" if [lv.runs for lv in r.measured.levels]
               == [lv.runs for lv in r.simulated.levels] else "no"] for name, r in ran["driver"])
    body = [
        "### The Wacky compaction driver, every Figure 8 family",
        "",
        "The design's own merge policy and Monkey filters, every run a level-0 file "
        "(`validation/rocksdb_driver.py`), over the native engine's steady window. *Policy* is "
        "the entries the policy wrote per insert (the driver's counts) against the engine "
        "simulator's replay of the same window; RocksDB's statistics add the level-0 file of "
        "each flush the driver merges at once, and SST overhead. *Runs* are per level, "
        "Level 1 first, and *same tree* says whether they equal the simulator's.",
        "",
        *table(["design", *LABELS, "policy write amp (driver / simulator)", "runs",
                "same tree"], driver),
        "",
        "### Stock RocksDB, the families it expresses",
        "",
        "The options of `wacky export --rocksdb` under RocksDB's own compaction: leveled with "
        "files of one buffer (`target_file_size_base`) merged one at a time, or universal; one "
        "bits per key at every level. The model is the one of RocksDB's compaction that "
        "`predicted` reports: *partial* (`cost_models/partial.py`, P1-P7 in docs/MODEL.md) for "
        "leveled compaction, *universal* (`cost_models/universal.py`, U1-U4) for universal. The "
        "window is N fresh inserts after the preload; the writer waits after each buffer while "
        "RocksDB compacts (*throttle*). Targets: leveled write amplification within 15%, "
        "zero-result reads within 20% or 0.01 I/O; universal within 25%.",
        "",
        *table(["design", *LABELS, "model", "runs", "throttle"], (
            [name, *_costs(r), r.model, _runs(r), f"{r.detail('throttle_seconds'):.0f} s"]
            for name, r in ran["stock"])),
        "",
        *_target_lines([r for _, r in ran["stock"]]),
    ]
    if ranking:
        body += [
            "",
            "### Ranking on RocksDB: `recommend --target rocksdb` against the defaults and a "
            "grid",
            "",
            "For each workload, the configuration `wacky recommend --target rocksdb` picks, "
            "RocksDB's defaults (scaled to this buffer: level-0 trigger 4, a first level of 4 "
            "buffers, multiplier 10, files of one buffer, static targets) and those defaults at "
            "each multiplier of a grid are measured on RocksDB with the same protocol; Θ is "
            "Eq 16 of the measured costs. The pick must be the best measured or within "
            f"{TOLERANCE:.0%} of it (`validation/cases.py`).",
            "",
            *render_ranking(ranking),
            "",
            f"Best or within {TOLERANCE:.0%}: "
            f"{sum(r.gap_to_best <= TOLERANCE for r in ranking)} of {len(ranking)} workloads; "
            "measured gain over RocksDB's defaults from "
            f"{min(r.gain_over_defaults for r in ranking):+.1%} to "
            f"{max(r.gain_over_defaults for r in ranking):+.1%}.",
        ]
    return section(
        "rocksdb", "RocksDB: the models against an engine this project did not write", command,
        f"RocksDB {version}, "
        f"{scale.entries:,} entries of {scale.entry_bytes} B preloaded, {scale.buffer_bytes:,} B "
        f"buffer (N/F = {scale.entries / F:,.0f}), {scale.reads:,} reads of each kind, spread "
        "over the window. Each cell is model / RocksDB (error = (model - measured) / measured). "
        "Write amplification is entries written per entry inserted over the window: RocksDB's "
        "statistics (flush + compaction bytes written) divided by the on-disk bytes per entry of "
        "its files (its format adds a sequence number, lengths and index to each entry; "
        "`write_amp_bytes` in `--json` keeps RocksDB's own byte ratio). Read I/O is data-block "
        "cache misses per read with index and filter blocks in memory.", body, refused)


TOLERANCE = 0.05
GRID_MULTIPLIERS = (4.0, 6.0, 8.0, 10.0, 12.0, 16.0)


def ranking_workloads(range_blocks: float) -> list[tuple[str, Workload]]:
    """Six mixes from write-heavy to read-heavy; short range reads of ``range_blocks``."""
    mixes = [("writes 90%", 0.05, 0.05, 0.90, 0.0), ("writes 70%", 0.10, 0.15, 0.70, 0.05),
             ("writes 50%", 0.20, 0.25, 0.50, 0.05), ("writes 30%", 0.30, 0.35, 0.30, 0.05),
             ("writes 10%", 0.40, 0.45, 0.10, 0.05), ("writes 2%", 0.48, 0.45, 0.02, 0.05)]
    return [(name, Workload(p, z, w, r, range_blocks)) for name, p, z, w, r in mixes]


def default_config(buffer_bytes: int, bits_per_key: float,
                   multiplier: float = tuning.DEFAULT_MULTIPLIER) -> RocksDBConfig:
    return RocksDBConfig(multiplier, tuning.DEFAULT_TRIGGER, False, buffer_bytes, buffer_bytes,
                         bits_per_key, tuning.DEFAULT_BASE_BUFFERS * buffer_bytes)


@dataclass(frozen=True)
class RankingRow:
    workload: Workload
    recommended: StockConfig
    predicted: StockPriced
    measured_theta: dict[str, float]  # label -> measured Θ ("recommended", "defaults", "T=…")

    @property
    def best_label(self) -> str:
        return min(self.measured_theta, key=self.measured_theta.get)

    @property
    def gap_to_best(self) -> float:
        best = min(self.measured_theta.values())
        return self.measured_theta["recommended"] / best - 1.0

    @property
    def gain_over_defaults(self) -> float:
        return 1.0 - self.measured_theta["recommended"] / self.measured_theta["defaults"]

    @property
    def grid_best(self) -> tuple[str, float]:
        grid = {k: v for k, v in self.measured_theta.items() if k.startswith("T=")}
        label = min(grid, key=grid.get)
        return label, grid[label]


def _theta(costs: Costs, workload: Workload, B: int) -> float:
    value = with_theta(replace(costs, theta=None), workload, B).theta
    assert value is not None
    return value


def _label(c: StockConfig) -> str:
    if isinstance(c, UniversalConfig):
        return (f"universal, trigger {c.trigger}, size amplification "
                f"{c.max_size_amplification_percent:g}%")
    return (f"multiplier {c.multiplier:g}, trigger {c.level0_trigger}, first level "
            f"{c.level_base_bytes // c.buffer_bytes} buffers, files "
            f"{c.file_bytes / c.buffer_bytes:g} buffers"
            + ("" if c.dynamic else ", static targets"))


def render_ranking(rows: Sequence[RankingRow]) -> list[str]:
    """Markdown lines: one row per workload."""
    return table(["workload (point / zero / writes / range)", "recommended", "Θ predicted",
                  "Θ measured", "RocksDB's defaults", "best grid multiplier", "best measured",
                  "gap to best", "gain over defaults"], ([
        f"{r.workload.point_reads:g} / {r.workload.zero_reads:g} / {r.workload.writes:g} / "
        f"{r.workload.range_reads:g}", _label(r.recommended), f"{r.predicted.theta:.4g}",
        f"{r.measured_theta['recommended']:.4g}", f"{r.measured_theta['defaults']:.4g}",
        "{}: {:.4g}".format(*r.grid_best), r.best_label, f"{r.gap_to_best:+.1%}",
        f"{r.gain_over_defaults:+.1%}"] for r in rows))


def measure_config(config: StockConfig, scale: Scale, bits_per_entry: float) -> Costs:
    """One configuration on stock RocksDB (no Θ: that depends on the workload)."""
    from validation.rocksdb import run_stock

    system = scale.system(bits_per_entry, None)
    return run_stock(config.export(system), scale,
                     range_entries_for(scale, None, system.entries_per_block)).costs


def _recommendations(scale: Scale, bits: float) -> list[tuple[str, Workload, Any]]:
    system = scale.system(bits, None)
    B = system.entries_per_block
    workloads = ranking_workloads(range_entries_for(scale, None, B) / B)
    return [(name, w, tuning.recommend_rocksdb(w, system)) for name, w in workloads]


def _ranking_configs(scale: Scale, bits: float) -> list[StockConfig]:
    configs = {r.best.config: None for _, _, r in _recommendations(scale, bits)}
    for T in (tuning.DEFAULT_MULTIPLIER, *GRID_MULTIPLIERS):
        configs[default_config(scale.buffer_bytes, bits, T)] = None
    return list(configs)


def _ranking_rows(measured: dict[StockConfig, Costs], scale: Scale,
                  bits: float) -> list[RankingRow]:
    B, F = scale.block_bytes // scale.entry_bytes, scale.buffer_bytes
    configs = {"defaults": default_config(F, bits),
               **{f"T={T:g}": default_config(F, bits, T) for T in GRID_MULTIPLIERS}}
    return [RankingRow(w, rec.best.config, rec.best,
                       {k: _theta(measured[c], w, B)
                        for k, c in (("recommended", rec.best.config), *configs.items())})
            for _, w, rec in _recommendations(scale, bits)]


# -- smoke ---------------------------------------------------------------------------------------
SMOKE_SCALE = Scale.small()


def _smoke_cases(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    """Cases of a few seconds each, the longest first, so that two workers finish together."""
    leveling, cache = Design(4, 3, 1, 0, 0), SMOKE_SCALE.entries * SMOKE_SCALE.entry_bytes // 20

    def run(name: str, design: Design, **options: Any) -> SweepCase:
        return SweepCase(name, "smoke", design, {"scale": SMOKE_SCALE, **options})

    def skewed(label: str, keys: str, design: Design = leveling) -> SweepCase:
        workload = Workload(0.5, 0.0, 0.5, write_keys=keys, read_keys=keys, update_fraction=1.0)
        return run(f"{label} ({keys}, a cache)", design, workload=workload, cache_bytes=cache)

    def files(label: str, design: Design, trigger: int) -> SweepCase:
        return run(f"{label} (files, level-1 trigger {trigger})", design,
                   compaction=Compaction("file", None, trigger))

    return [skewed("Leveling T=4", "hotset:0.1:0.9"), skewed("Leveling T=4", "zipf:1.2"),
            files("Leveling T=10", Design(10, 9, 1, 0, 0), 1), skewed("Leveling T=4", "zipf:0.9"),
            files("Leveling T=4", leveling, 4),
            skewed("Lazy Leveling T=4", "zipf:0.9", Design(4, 3, 1, 1, 0)),
            run("Tiering T=4 (whole levels)", Design(4, 3, 1, 1, 1)),
            run("Leveling T=4 (whole levels)", leveling)]


def _smoke_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                   command: str, refused: Refused) -> str:
    sc = SMOKE_SCALE
    return section(
        "smoke", "Smoke: every window, end to end", command, f"{sc.entries:,} entries of "
        f"{sc.entry_bytes} B, a {sc.buffer_bytes:,} B buffer, on the native engine: whole-level "
        "windows, fixed windows of file-granular merges, and full-merge windows under skew "
        "(half reads, half updates) with a cache of 5% of the data. Each cell is model / "
        "engine.", table(["design", "model", *LABELS],
                         ([r.name, r.result.model, *_costs(r.result)] for r in results)))


def _matched(results: Sequence[SweepResult], known: Sequence[Any],
             group: str | None = None) -> list[tuple[Any, ValidationResult]]:
    """Each result (of ``group`` if given) with the case of ``known`` it ran, by name."""
    named = {c.name: c for c in known}
    return [(named[r.name], r.result) for r in results if group in (None, r.case.group)]


SETS = {"files": SetCode(_files_cases, _files_section),
        "skew": SetCode(_skew_runs, _skew_section, _skew_figure),
        "skew-files": SetCode(_skew_files_cases, _skew_files_section),
        "rocksdb-skew": SetCode(_rocksdb_skew_cases, _rocksdb_skew_section),
        "rocksdb": SetCode(_rocksdb_cases, _rocksdb_section),
        "smoke": SetCode(_smoke_cases, _smoke_section)}
