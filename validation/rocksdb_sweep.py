"""The RocksDB section of docs/VALIDATION.md (``wacky validate --sweep --engine rocksdb``).

Two sets of runs, each a steady validation on RocksDB:

* **the driver** (:mod:`validation.rocksdb_driver`) on every Figure 8 family: the design as the
  continuum defines it, Monkey filters included, on an engine this project did not write;
* **stock RocksDB** on the families it expresses: Leveling at T = 4, 6 and 10 with a level-0
  trigger of 1 (the export) and of 4 (RocksDB's default), and the tiered families under
  universal compaction, each against the model of RocksDB's own compaction (partial merges or
  the universal rules, uniform filters);
* **the ranking** of ``recommend --target rocksdb`` on RocksDB (:mod:`validation.rocksdb_ranking`).

The section is written between two markers and replaces the previous one; the native sweep
(``wacky validate --sweep``) keeps it when it rewrites the rest of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validation import sections
from validation.results import ValidationResult
from validation.rocksdb_runner import validate_rocksdb
from validation.scale import Scale
from wacky_model.families import TABLE
from wacky_model.presets import preset
from wacky_model.types import Design

BEGIN, END = sections.MARKERS["rocksdb"]
METRICS = sections.COST_COLUMNS


@dataclass(frozen=True)
class RocksCase:
    name: str
    design: Design
    stock: bool
    level0_trigger: int = 1


def rocksdb_cases(scale: Scale, bits_per_entry: float | None,
                  sum_fpr: float | None) -> list[RocksCase]:
    """The driver on each Figure 8 family (at its default T), stock RocksDB on Leveling at
    T = 4, 6, 10 with level-0 triggers 1 and 4, and on Tiering and Lazy Leveling at T = 4."""
    system = scale.system(bits_per_entry, sum_fpr)
    cases = [RocksCase(f"{f.figure8} (T={f.default_T:g})",
                       preset(f.preset, system=system), stock=False)
             for f in TABLE if f.figure8 and f.preset]
    for T in (4, 6, 10):
        for trigger in (1, 4):
            cases.append(RocksCase(f"Leveling T={T}, level-0 trigger {trigger}",
                                   Design(T, T - 1, 1, 0, 0), stock=True,
                                   level0_trigger=trigger))
    cases.append(RocksCase("Tiering T=4 (universal)", Design(4, 3, 1, 1, 1), stock=True))
    cases.append(RocksCase("Lazy Leveling T=4 (universal)", Design(4, 3, 1, 1, 0), stock=True))
    return cases


def run_rocksdb_cases(cases: Sequence[RocksCase], scale: Scale, bits_per_entry: float | None,
                      sum_fpr: float | None,
                      on_done: Callable[[int, int, str], None] | None = None,
                      refused: list[tuple[str, str]] | None = None,
                      ) -> list[tuple[RocksCase, ValidationResult]]:
    """One at a time: RocksDB's background compactions need the machine's other core."""
    out = []
    for i, case in enumerate(cases, start=1):
        try:
            out.append((case, validate_rocksdb(
                case.design, scale=scale, bits_per_entry=bits_per_entry, sum_fpr=sum_fpr,
                stock=case.stock, level0_trigger=case.level0_trigger)))
        except ValueError as err:
            if refused is None:
                raise
            refused.append((case.name, str(err)))
        if on_done is not None:
            on_done(i, len(cases), case.name)
    return out


def _cell(r: ValidationResult, metric: str) -> str:
    predicted, measured = getattr(r.predicted, metric), getattr(r.measured, metric)
    error = r.relative_error.metric(metric)
    return (f"{predicted:.3g} / {measured:.3g} "
            f"({'n/a' if error is None else f'{error:+.0%}'})")


def _row(case: RocksCase, r: ValidationResult, *extra: str) -> str:
    return "| " + " | ".join([case.name, *(_cell(r, m) for m, _ in METRICS), *extra]) + " |"


def _runs(r: ValidationResult) -> str:
    return ", ".join(str(level.runs) for level in r.measured.levels)


def _target_lines(stock: Sequence[tuple[RocksCase, ValidationResult]]) -> list[str]:
    """How many stock runs met their targets."""
    leveled = [r for case, r in stock if r.model == "partial"]
    universal = [r for case, r in stock if r.model == "universal"]
    out = []
    if leveled:
        wa = [abs(r.relative_error.metric("write_amp") or 0.0) for r in leveled]
        zero_ok = sum(abs(r.predicted.zero_result_read - r.measured.zero_result_read)
                      <= max(0.01, 0.2 * r.measured.zero_result_read) for r in leveled)
        out.append(f"Leveled: write amplification within 15% in {sum(e <= 0.15 for e in wa)} "
                   f"of {len(wa)} (worst {max(wa):.1%}); zero-result reads within 20% or 0.01 "
                   f"I/O in {zero_ok} of {len(leveled)}.")
    if universal:
        wa = [abs(r.relative_error.metric("write_amp") or 0.0) for r in universal]
        out.append(f"Universal: write amplification within 25% in {sum(e <= 0.25 for e in wa)} "
                   f"of {len(wa)} (worst {max(wa):.1%}).")
    return out


def render_section(results: Sequence[tuple[RocksCase, ValidationResult]], scale: Scale,
                   command: str, refused: Sequence[tuple[str, str]] = (),
                   ranking: Sequence[Any] = ()) -> str:
    """The markdown section, markers included."""
    version = results[0][1].engine_version if results else "?"
    F = scale.buffer_bytes // scale.entry_bytes
    head = "| design | " + " | ".join(label for _, label in METRICS)
    lines = [
        BEGIN,
        "## RocksDB: the models against an engine this project did not write",
        "",
        f"Generated by `{command}`; do not edit by hand. RocksDB {version}, "
        f"{scale.entries:,} entries of {scale.entry_bytes} B preloaded, {scale.buffer_bytes:,} B "
        f"buffer (N/F = {scale.entries / F:,.0f}), {scale.reads:,} reads of each kind, spread "
        "over the window. Each cell is model / RocksDB (error = (model - measured) / measured). "
        "Write amplification is entries written per entry inserted over the window: RocksDB's "
        "statistics (flush + compaction bytes written) divided by the on-disk bytes per entry of "
        "its files (its format adds a sequence number, lengths and index to each entry; "
        "`write_amp_bytes` in `--json` keeps RocksDB's own byte ratio). Read I/O is data-block "
        "cache misses per read with index and filter blocks in memory.",
        "",
        "### The Wacky compaction driver, every Figure 8 family",
        "",
        "The design's own merge policy and Monkey filters, every run a level-0 file "
        "(`validation/rocksdb_driver.py`), over the native engine's steady window. *Policy* is "
        "the entries the policy wrote per insert (the driver's counts) against the engine "
        "simulator's replay of the same window; RocksDB's statistics add the level-0 file of "
        "each flush the driver merges at once, and SST overhead. *Runs* are per level, "
        "Level 1 first, and *same tree* says whether they equal the simulator's.",
        "",
        head + " | policy write amp (driver / simulator) | runs | same tree |",
        "|---" * (len(METRICS) + 4) + "|",
    ]
    for case, r in results:
        if not case.stock:
            same = [lv.runs for lv in r.measured.levels] == [lv.runs for lv in r.simulated.levels]
            lines.append(_row(case, r, f"{r.tree_write_amp:.3g} / {r.simulated.write_amp:.3g}",
                              _runs(r), "yes" if same else "no"))
    lines += [
        "",
        "### Stock RocksDB, the families it expresses",
        "",
        "The options of `wacky export --rocksdb` under RocksDB's own compaction: leveled with "
        "files of one buffer (`target_file_size_base`) merged one at a time, or universal; one "
        "bits per key at every level. The model is the one of RocksDB's compaction that "
        "`predicted` reports: *partial* (`cost_models/partial.py`, P1-P6 in docs/MODEL.md) for "
        "leveled compaction, *universal* (`cost_models/universal.py`, U1-U4) for universal. The "
        "window is N fresh inserts after the preload; the writer waits after each buffer while "
        "RocksDB compacts (*throttle*). Targets: leveled write amplification within 15%, "
        "zero-result reads within 20% or 0.01 I/O; universal within 25%.",
        "",
        head + " | model | runs | throttle |",
        "|---" * (len(METRICS) + 4) + "|",
    ]
    stock = [(case, r) for case, r in results if case.stock]
    for case, r in stock:
        lines.append(_row(case, r, r.model, _runs(r), f"{r.throttle_seconds:.0f} s"))
    lines += [""] + _target_lines(stock)
    if ranking:
        from validation.rocksdb_ranking import TOLERANCE, render_ranking

        lines += [
            "",
            "### Ranking on RocksDB: `recommend --target rocksdb` against the defaults and a "
            "grid",
            "",
            "For each workload, the configuration `wacky recommend --target rocksdb` picks, "
            "RocksDB's defaults (scaled to this buffer: level-0 trigger 4, a first level of 4 "
            "buffers, multiplier 10, files of one buffer, static targets) and those defaults at "
            "each multiplier of a grid are measured on RocksDB with the same protocol; Θ is "
            "Eq 16 of the measured costs. The pick must be the best measured or within "
            f"{TOLERANCE:.0%} of it (`validation/rocksdb_ranking.py`).",
            "",
            *render_ranking(ranking),
            "",
            f"Best or within {TOLERANCE:.0%}: "
            f"{sum(r.gap_to_best <= TOLERANCE for r in ranking)} of {len(ranking)} workloads; "
            "measured gain over RocksDB's defaults from "
            f"{min(r.gain_over_defaults for r in ranking):+.1%} to "
            f"{max(r.gain_over_defaults for r in ranking):+.1%}.",
        ]
    if refused:
        lines += ["", "Not run:", ""] + [f"- {name}: {message}" for name, message in refused]
    lines.append(END)
    return "\n".join(lines) + "\n"


def replace_section(document: str, section: str) -> str:
    """``document`` with its RocksDB section replaced by ``section`` (appended if absent)."""
    return sections.replace_section(document, section, BEGIN, END)


def existing_section(path: Path) -> str | None:
    """The RocksDB section of the file at ``path``, if it has one."""
    return sections.existing_section(path, BEGIN, END)


def run_rocksdb_sweep(scale: Scale, *, out: Path, console: Any,
                      bits_per_entry: float | None = None, sum_fpr: float | None = None,
                      command: str = "wacky validate --sweep --engine rocksdb",
                      with_ranking: bool = True,
                      ) -> list[tuple[RocksCase, ValidationResult]]:
    """Run :func:`rocksdb_cases` (and the ranking of ``recommend --target rocksdb``) and write
    the RocksDB section into ``out``."""
    from validation.progress import progress

    if bits_per_entry is None and sum_fpr is None:
        bits_per_entry = 5.0
    cases = rocksdb_cases(scale, bits_per_entry, sum_fpr)
    refused: list[tuple[str, str]] = []
    with progress(console) as bar:
        task = bar.add_task("RocksDB", total=len(cases))
        results = run_rocksdb_cases(
            cases, scale, bits_per_entry, sum_fpr, refused=refused,
            on_done=lambda done, total, name: bar.update(
                task, completed=done, description=f"RocksDB: {name}"))
    ranking = []
    if with_ranking:
        from validation.rocksdb_ranking import run_ranking

        with progress(console) as bar:
            task = bar.add_task("ranking", total=1)
            ranking = run_ranking(scale, bits_per_entry if bits_per_entry is not None else 5.0,
                                  on_done=lambda done, total, name: bar.update(
                                      task, total=total, completed=done,
                                      description=f"ranking: {name}"))
    sections.write_section(out, "rocksdb", render_section(results, scale, command, refused,
                                                          ranking))
    console.print(f"wrote the RocksDB section of {out} ({len(results)} validations)")
    return results
