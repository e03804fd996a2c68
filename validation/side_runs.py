"""The side runs' case sets (issue 32): each mechanism on the native engine against the engine
without it, same workload and seed. **lsbm**: LSbM's compaction buffer (B1) under reads of a hot
key range. **l2sm**: L2SM's per-level log (L1) under skewed writes, and under uniform inserts at
other ratios and log sizes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from validation.results import ValidationResult
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, bits, section, table
from wacky_model.types import Buffer, Compaction, Design, Log, Workload

# -- lsbm ----------------------------------------------------------------------------------------
LSBM_FIGURE = "validation-lsbm.png"
HOT_RANGE = "hotrange:0.02:0.98"
HOT_KEYS = 0.02
LSBM_CACHE_RANGES = 1.5  # the cache, in multiples of the hot range's bytes: it holds the range
LSBM_READS = 0.2  # existing-key reads per operation; the rest are updates (4 writes a read)
LSBM_ENTRIES = 200_000
LSBM_BUFFER = 64 << 10  # files of one buffer: 16 blocks, fine enough for the trim
TARGET_HIT = 0.05
TARGET_SPACE = 0.10
# Issue 32's drops: how far the hit rate falls after merges, without the buffer and with it.
TARGET_DROP_WITHOUT = 0.20
TARGET_DROP_WITH = 0.05


@dataclass(frozen=True)
class LsbmCase:
    T: int
    buffer: bool

    @property
    def name(self) -> str:
        return f"T={self.T} {'with' if self.buffer else 'without'} the buffer"

    @property
    def design(self) -> Design:
        return Design(T=self.T, C=self.T - 1, X=1, K=0, Z=0)

    @property
    def compaction(self) -> Compaction:
        return Compaction("file", LSBM_BUFFER, 1, buffer=Buffer() if self.buffer else None)


LSBM_WORKLOAD = Workload(point_reads=LSBM_READS, writes=1.0 - LSBM_READS, read_keys=HOT_RANGE,
                         update_fraction=1.0, correlated=False)


def lsbm_cases() -> list[LsbmCase]:
    return [LsbmCase(T, b) for T in (10, 4) for b in (False, True)]


def side_scale(scale: Scale, entries: int, buffer_bytes: int) -> Scale:
    """A set's own entries and buffer, with ``scale``'s entry and block sizes, reads and seed."""
    return Scale(entries=entries, entry_bytes=scale.entry_bytes, block_bytes=scale.block_bytes,
                 buffer_bytes=buffer_bytes, reads=scale.reads, seed=scale.seed)


def lsbm_scale(scale: Scale) -> Scale:
    return side_scale(scale, LSBM_ENTRIES, LSBM_BUFFER)


def lsbm_cache(scale: Scale) -> int:
    return int(LSBM_CACHE_RANGES * HOT_KEYS * scale.entries * scale.entry_bytes)


# -- l2sm ----------------------------------------------------------------------------------------
L2SM_ENTRIES = 200_000
L2SM_BUFFER = 128 << 10  # the issue's 1 MiB buffer and 256 KiB files at 2M keys, scaled down
L2SM_FILE = 32 << 10
L2SM_DISTRIBUTIONS = ("latest", "zipf:0.99", "uniform")
L2SM_RATIO = 0.1  # the paper's omega
# Issue 32's targets for the log against the same run without it.
TARGET_SKEW_WA = -0.15
TARGET_SKEW_MERGES = -0.30
TARGET_UNIFORM_WA = 0.02
TARGET_ZERO_RESULT = 0.01


TARGET_MODEL_PP = 0.05  # the model's change in write amplification, within 5 points
# The model's check on designs and ratios the issue's cases do not cover: uniform inserts.
L2SM_MODEL_CHECKS = ((10, 0.1), (4, 0.1), (6, 0.1), (10, 0.2))


@dataclass(frozen=True)
class L2smCase:
    writes: str  # a write distribution, or "insert": uniform inserts of new keys
    log: bool
    T: int = 10
    ratio: float = L2SM_RATIO

    @property
    def name(self) -> str:
        shape = "" if (self.T, self.ratio) == (10, L2SM_RATIO) else \
            f" (T={self.T}, omega={self.ratio:g})"
        return f"{self.writes}{shape} {'with' if self.log else 'without'} the log"

    @property
    def workload(self) -> Workload:
        # Updates need inserts under latest (YCSB's: an update picks a recent insert), so half
        # the writes update; uniform keys update the loaded keys.
        if self.writes == "insert":
            return Workload(point_reads=0.5, writes=0.5, write_keys="uniform",
                            read_keys="uniform", correlated=False, update_fraction=0.0)
        return Workload(point_reads=0.5, writes=0.5, write_keys=self.writes,
                        read_keys="uniform", correlated=False,
                        update_fraction=1.0 if self.writes == "uniform" else 0.5)

    @property
    def design(self) -> Design:
        return Design(T=self.T, C=self.T - 1, X=1, K=0, Z=0)

    @property
    def compaction(self) -> Compaction:
        return Compaction("file", L2SM_FILE, 1, log=Log(self.ratio) if self.log else None)


def l2sm_cases() -> list[L2smCase]:
    shapes = [(d, 10, L2SM_RATIO) for d in L2SM_DISTRIBUTIONS] + \
        [("insert", T, r) for T, r in L2SM_MODEL_CHECKS]
    return [L2smCase(d, log, T, r) for d, T, r in shapes for log in (False, True)]


def l2sm_scale(scale: Scale) -> Scale:
    return side_scale(scale, L2SM_ENTRIES, L2SM_BUFFER)


# -- the sets ------------------------------------------------------------------------------------
def _lsbm_runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    sc = lsbm_scale(scale)
    return [SweepCase(c.name, "lsbm", c.design, {
        "workload": LSBM_WORKLOAD, "scale": sc, "bits_per_entry": bits(budget),
        "cache_bytes": lsbm_cache(sc), "compaction": c.compaction}) for c in lsbm_cases()]


def _l2sm_runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [SweepCase(c.name, "l2sm", c.design, {
        "workload": c.workload, "scale": l2sm_scale(scale), "bits_per_entry": bits(budget),
        "compaction": c.compaction}) for c in l2sm_cases()]


def _pairs(results: Sequence[SweepResult], known: Sequence[Any]
           ) -> list[tuple[Any, ValidationResult, ValidationResult]]:
    """(case without the mechanism, its result, the result with it), in ``known``'s order."""
    by_name = {r.name: r.result for r in results}
    out = []
    for c in known:
        flag = "buffer" if isinstance(c, LsbmCase) else "log"
        if getattr(c, flag):
            continue
        on = replace(c, **{flag: True})
        if c.name in by_name and on.name in by_name:
            out.append((c, by_name[c.name], by_name[on.name]))
    return out


def _side(r: ValidationResult, name: str = "side_runs") -> Any:
    """``name`` of the run's detail, the skew model's or the uniform one's (its side runs'
    counts, or ``file_widths``); {} if none."""
    return (r.detail("skew") or {}).get(name) or r.detail(name) or {}


def _space(r: ValidationResult) -> float:
    skew = r.detail("skew") or {}
    return float(_side(r).get("buffer_bytes") or 0) / max(float(skew.get("tree_bytes") or 1), 1.0)


def _fine(r: ValidationResult) -> list[float]:
    return [p["hit_rate"] for p in (r.detail("skew") or {}).get("fine_timeline") or []]


def _drop(r: ValidationResult) -> float:
    """How far the hit rate falls after merges: the median slice of the fine timeline less the
    lowest (NaN without one)."""
    line = _fine(r)
    return float(np.median(line) - min(line)) if line else float("nan")


def _lsbm_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                  command: str, refused: Refused) -> str:
    rows, scale = _pairs(results, lsbm_cases()), lsbm_scale(scale)
    body: list[str] = []
    met = drops_met = 0
    for c, off, on in rows:
        hits = [(r.predicted.cache_hit_rate, r.measured.cache_hit_rate) for r in (off, on)]
        ok = all(abs(p - m) <= TARGET_HIT for p, m in hits) and _space(on) <= TARGET_SPACE
        met += ok
        model_space = (on.detail("skew") or {}).get("model_buffer_space") or 0.0
        body += [f"* T = {c.T}: hit rate without the buffer {hits[0][0]:.3f} (model) / "
                 f"{hits[0][1]:.3f} (engine), with it {hits[1][0]:.3f} / {hits[1][1]:.3f}; "
                 f"existing-key read I/O {off.measured.point_read_uniform:.3f} -> "
                 f"{on.measured.point_read_uniform:.3f} (model "
                 f"{off.predicted.point_read_uniform:.3f} -> "
                 f"{on.predicted.point_read_uniform:.3f}); the buffer's space "
                 f"{_space(on):+.1%} of the tree (model {model_space:+.1%}), reads it served "
                 f"{_side(on).get('buffer_reads', 0):,}, files trimmed "
                 f"{_side(on).get('buffer_trimmed', 0):,}; write amplification "
                 f"{off.measured.write_amp:.2f} / {on.measured.write_amp:.2f}. After merges "
                 f"the hit rate drops {_drop(off):.2f} without the buffer and {_drop(on):.2f} "
                 f"with it (median slice less the lowest, {len(_fine(off))} slices)."]
        drops_met += _drop(off) >= TARGET_DROP_WITHOUT and _drop(on) <= TARGET_DROP_WITH
    body += ["", f"The model's mean hit rate within {TARGET_HIT} with and without the buffer and "
             f"its space at most +{TARGET_SPACE:.0%}: {met} of {len(rows)} designs. The drop "
             f"after merges at least {TARGET_DROP_WITHOUT} without the buffer and at most "
             f"{TARGET_DROP_WITH} with it: {drops_met} of {len(rows)}.", "",
             f"![hit rate over the window, without and with the buffer]({LSBM_FIGURE})", "",
             f"The hit rate in each {len(_fine(rows[0][1])) if rows else 0}th of the window "
             "(engine: lines; model: the dashed steady value)."]
    return section(
        "lsbm", "LSbM's compaction buffer against the native engine without it", command,
        f"{scale.entries:,} entries of {scale.entry_bytes} B preloaded, a "
        f"{scale.buffer_bytes:,} B buffer and files of one buffer, Leveling, 5 filter bits per "
        f"entry. Then uniform updates with one existing-key read per {1 / LSBM_READS - 1:g} "
        f"updates, {HOT_RANGE.split(':')[2]} of them to a contiguous range of "
        f"{HOT_KEYS:.0%} of the keys (`{HOT_RANGE}`), and an LRU cache of "
        f"{lsbm_cache(scale):,} B ({LSBM_CACHE_RANGES:g} times the range's bytes), over a "
        "window after a warm-up (validation/window.py). Same workload and seed with and "
        "without the buffer (trim 0.8 every 8 merges). The model is S2f with S3-S7 and S5r, "
        "and B1 for the buffer (docs/MODEL.md).", body)


def _merges(r: ValidationResult) -> int:
    return int((r.detail("skew") or {}).get("merges") or r.detail("merges") or 0)


def _l2sm_section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
                  command: str, refused: Refused) -> str:
    rows, scale, out = _pairs(results, l2sm_cases()), l2sm_scale(scale), []
    for c, off, on in rows:
        m0, m1 = _merges(off), _merges(on)
        side = _side(on)
        batch = (side.get("log_files_merged") or 0) / max(side.get("aggregated_compactions")
                                                           or 0, 1)
        out.append([c.name.removesuffix(" without the log"), f"{off.measured.write_amp:.2f}",
                    f"{on.measured.write_amp:.2f}", f"{_change(off, on, 'measured'):+.1%}",
                    f"{_change(off, on, 'predicted'):+.1%}", f"{m0:,}", f"{m1:,}",
                    f"{m1 / max(m0, 1) - 1:+.0%}", f"{batch:.2f}",
                    f"{off.measured.zero_result_read:.4f}", f"{on.measured.zero_result_read:.4f}",
                    f"{on.predicted.zero_result_read - off.predicted.zero_result_read:+.4f}"])
    body = [*table(["writes", "WA without", "WA with", "change", "model's change",
                    "merges without", "merges with", "change", "log files a batch",
                    "zero-result I/O without", "with", "model's change"], out), "",
            "Reads do not change what the engine writes, so write amplification and merges are "
            "the same at every read:write ratio; zero-result I/O is per read.", ""]
    issue = [(c, off, on) for c, off, on in rows if c.writes in L2SM_DISTRIBUTIONS]
    for c, off, on in issue:  # how wide the files are that go down from Level L-1
        w0, w1 = ((_side(r, "file_widths") or [{}])[-2:-1] or [{}] for r in (off, on))
        if w0[0].get("files") is not None and w1[0].get("log") is not None:
            body.append(
                f"* {c.writes}: at Level L-1 the median file spans {w0[0]['files']:.2%} of the "
                f"keys without the log; with it the tree's files span {w1[0]['files']:.2%} "
                f"and the log's {w1[0]['log']:.2%}.")
    skewed = [(c, off, on) for c, off, on in issue if c.writes != "uniform"]
    uniform = [(c, off, on) for c, off, on in issue if c.writes == "uniform"]
    met_wa = sum(_change(off, on, "measured") <= TARGET_SKEW_WA for _, off, on in skewed)
    met_merges = sum(_merges(on) / max(_merges(off), 1) - 1 <= TARGET_SKEW_MERGES
                     for _, off, on in skewed)
    met_uniform = sum(_change(off, on, "measured") <= TARGET_UNIFORM_WA
                      for _, off, on in uniform)
    met_zero = sum(on.measured.zero_result_read - off.measured.zero_result_read
                   <= TARGET_ZERO_RESULT for _, off, on in issue)
    errors = [abs(_change(off, on, "predicted") - _change(off, on, "measured"))
              for _, off, on in rows]
    met_model = sum(e <= TARGET_MODEL_PP for e in errors)
    body += ["", f"Targets: under skewed writes, write amplification {TARGET_SKEW_WA:+.0%} or "
             f"better: {met_wa} of {len(skewed)}; merges {TARGET_SKEW_MERGES:+.0%} or better: "
             f"{met_merges} of {len(skewed)}; under uniform keys at most {TARGET_UNIFORM_WA:+.0%}:"
             f" {met_uniform} of {len(uniform)}; zero-result read I/O at most "
             f"{TARGET_ZERO_RESULT:+g}: {met_zero} of {len(issue)}. The model's change in write "
             f"amplification within {TARGET_MODEL_PP * 100:g} points of the engine's: "
             f"{met_model} of {len(rows)} (median {100 * float(np.median(errors)):.1f}, worst "
             f"{100 * max(errors):.1f} points). L1 fits no constant to these runs; the insert "
             "rows check it on designs and log sizes beyond the issue's. One correction came "
             "after this section's first run, which had T=6 8.2 points off: a level that "
             "holds data for part of the window is taken at its density while it does.", "",
             "The model is L1 (docs/MODEL.md) on S2f: a batch of overlapping log files meets "
             "the next level once. A pseudo compaction moves the file the tree's own picker "
             "would send down, as the authors' code does (ericaloha/L2SM, "
             "VersionSet::AddSSTIntoLog). With the pick of the paper's text (the highest W, "
             "hottest and sparsest first) the first three cases measured +767% (latest), +931% "
             "(Zipf 0.99) and +629% (uniform) (this section at commit 0c70937): the sparse "
             "files it takes are the ones that refill the holes earlier moves left, so the "
             "holes grow and each log file merged down meets a wide stretch of the next level."]
    return section(
        "l2sm", "L2SM's per-level log against the native engine without it", command,
        f"{scale.entries:,} entries of {scale.entry_bytes} B preloaded, a "
        f"{scale.buffer_bytes:,} B buffer, files of {L2SM_FILE:,} B, Leveling T = 10 unless "
        "given, 5 filter bits per entry: the issue's shape (2M keys, 1 MiB buffer, 256 KiB "
        "files) at a tenth. Then a window of writes (latest and Zipf: half updates, half "
        "inserts; uniform: all updates; insert: new keys) with as many uniform reads, after a "
        f"warm-up. The log: the paper's omega = {L2SM_RATIO:g} unless given, alpha = 0.5, the "
        "batch cap 10, exact hotness.", body)


def _change(off: ValidationResult, on: ValidationResult, side: str) -> float:
    """The relative change in write amplification the log makes, measured or predicted."""
    return getattr(on, side).write_amp / getattr(off, side).write_amp - 1.0


def _lsbm_figure(results: Sequence[SweepResult], scale: Scale, out: Path) -> None:
    """The hit rate over the window without and with the buffer, engine and model."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for c, off, on in _pairs(results, lsbm_cases()):
        for r, label, dash in ((off, "without", "dot"), (on, "with", "dash")):
            line = (r.detail("skew") or {}).get("fine_timeline") or []
            name_ = f"T={c.T} {label} the buffer"
            fig.add_scatter(x=[p["writes"] for p in line], y=[p["hit_rate"] for p in line],
                            mode="lines", name=name_)
            if line:
                fig.add_scatter(x=[line[0]["writes"], line[-1]["writes"]],
                                y=[r.predicted.cache_hit_rate] * 2, mode="lines",
                                line={"dash": dash}, name=f"{name_} (model)")
    fig.update_layout(xaxis_title="writes into the window", yaxis_title="cache hit rate",
                      width=900, height=450, template="plotly_white")
    fig.write_image(str(out.parent / LSBM_FIGURE), scale=1.5)


SETS = {"lsbm": SetCode(_lsbm_runs, _lsbm_section, _lsbm_figure),
        "l2sm": SetCode(_l2sm_runs, _l2sm_section)}
