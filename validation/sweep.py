"""The one sweep driver: case sets validated in bulk, each writing its section of
docs/VALIDATION.md (``wacky sweep CASESET``; ``wacky validate --sweep`` is an alias).

A case set is an entry of :data:`SWEEPS`: the module that lists its cases (``cases(scale,
budget)``, :class:`SweepCase` each) and renders its section (``render(results, scale, budget,
command, refused)``). The driver runs the cases (in parallel where the engine allows), keeps the
cases an engine refuses as a list, and writes the section between its two marker lines, keeping
every other section as it is, whichever set runs; the families set writes the document's head.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from validation.results import Costs, Errors, ValidationResult, with_theta
from validation.runner import validate
from validation.scale import Scale
from wacky_model.types import Design, Workload

# The cost columns of the engine tables: (Costs field, column label).
COST_COLUMNS = (("write_amp", "write amp"), ("zero_result_read", "zero-result I/O"),
                ("point_read", "existing-key I/O (Level L)"),
                ("point_read_uniform", "existing-key I/O (uniform)"))


@dataclass(frozen=True)
class SweepCase:
    """One run of a case set: ``validate(design, ...)`` with ``options`` (its keywords: scale,
    engine, compaction, ...), or ``measure(**options)`` when the set measures something else."""

    name: str
    group: str
    design: Design | None
    options: dict[str, Any] = field(default_factory=dict)
    measure: Callable[..., Any] | None = None

    def run(self, scale: Scale, budget: dict[str, float]) -> Any:
        if self.measure is not None:
            return self.measure(**self.options)
        return validate(self.design, **{"scale": scale, **budget, **self.options})


@dataclass(frozen=True)
class SweepResult:
    case: SweepCase
    result: ValidationResult

    @property
    def name(self) -> str:
        return self.case.name

    def source(self, model: str) -> Costs:
        """The figures of ``model`` ("finite", "paper", "simulator") or "measured"."""
        r = self.result
        return {"finite": r.predicted, "paper": r.paper, "simulator": r.simulated,
                "measured": r.measured}[model]

    def errors(self, model: str) -> Errors:
        r = self.result
        return {"finite": r.relative_error, "paper": r.paper_relative_error,
                "simulator": r.simulated_relative_error}[model]

    def theta(self, model: str, workload: Workload) -> float:
        """Eq 16 of ``model``'s per-operation costs for ``workload``."""
        B = self.result.scale.block_bytes // self.result.scale.entry_bytes
        theta = with_theta(self.source(model), workload, B).theta
        assert theta is not None  # a workload was given
        return theta


def _run_case(case: SweepCase, scale: Scale, budget: dict[str, float]) -> SweepResult:
    return SweepResult(case, case.run(scale, budget))


def run_cases(
    cases: Sequence[SweepCase], scale: Scale, budget: dict[str, float], *, workers: int = 2,
    on_done: Callable[[int, int, str], None] | None = None,
    refused: list[tuple[str, str]] | None = None,
) -> list[SweepResult]:
    """Run every case, ``workers`` at a time (1: in this process, one after another, as RocksDB
    needs the other core for its compactions); results come back in the cases' order.

    With ``refused`` given, a case that fails (a design the engine or the model refuses at this
    scale, a ``ValueError``, or any other error) is left out and listed there as (name,
    message); without it, the error stops the sweep."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1; got {workers}")
    results: list[SweepResult | None] = [None] * len(cases)

    def settle(i: int, done: int, get: Callable[[], SweepResult]) -> None:
        try:
            results[i] = get()
        except Exception as err:  # one case must not cost the whole sweep; it is listed
            if refused is None:
                raise
            kind = "" if isinstance(err, ValueError) else f"{type(err).__name__}: "
            refused.append((cases[i].name, kind + str(err)))
        if on_done is not None:
            on_done(done, len(cases), cases[i].name)

    if workers == 1:
        for i, case in enumerate(cases):
            settle(i, i + 1, lambda c=case: _run_case(c, scale, budget))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_case, c, scale, budget): i for i, c in enumerate(cases)}
            for done, fut in enumerate(as_completed(futures), start=1):
                settle(futures[fut], done, fut.result)
    return [r for r in results if r is not None]


@dataclass(frozen=True)
class CaseSet:
    name: str
    module: str  # lists the cases (``cases``) and renders the section (``render``)
    about: str
    minutes: float  # expected wall time at the default scale on this machine (2 cores)
    marked: bool = True  # False: the document's head
    workers: int | None = None  # None: as many as the command asks for
    alias: str = ""  # the ``wacky validate --sweep`` flags that run it too, if any

    @property
    def command(self) -> str:
        return (f"wacky validate --sweep{self.alias}".rstrip() if self.alias
                else f"wacky sweep {self.name}")

    @property
    def markers(self) -> tuple[str, str]:  # the documents written so far carry these
        return (f"<!-- {self.name} section: written by {self.command} -->",
                f"<!-- end of the {self.name} section -->")


SWEEPS = {s.name: s for s in (
    CaseSet("families", "validation.families", "every Figure 8 family, uniform baselines and "
            "random designs at three buffer sizes, the ranking, the load phase", 30.0,
            marked=False, alias=" "),
    CaseSet("files", "validation.cases", "file-granular merges: the partial-merge model", 12.0,
            alias=" --granularity file"),
    CaseSet("skew", "validation.cases", "skewed keys and a block cache: the skew model", 25.0,
            workers=1, alias=" --skew"),
    CaseSet("skew-files", "validation.cases", "skewed keys and a cache with file-granular "
            "merges: S2f (file_skew_costs), T 4 and 10, triggers 1 and 4", 2.0),
    CaseSet("rocksdb", "validation.cases", "RocksDB: the driver on every family, stock "
            "RocksDB, the ranking of recommend --target rocksdb", 20.0, workers=1,
            alias=" --engine rocksdb"),
    CaseSet("smoke", "validation.cases", "three designs, one of each window, at a small scale",
            1.5),
)}
MARKERS = {s.name: s.markers for s in SWEEPS.values() if s.marked}


def _pattern(begin: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.S)


def existing_section(path: Path, name: str) -> str | None:
    """Case set ``name``'s section of the file at ``path``, if it has one."""
    if not path.exists():
        return None
    found = _pattern(*MARKERS[name]).search(path.read_text(encoding="utf-8"))
    return found.group(0) if found else None


def write_section(out: Path, name: str, section: str) -> None:
    """Write case set ``name``'s ``section`` into ``out``, keeping every other section: a marked
    section replaces its old text (or is appended); the head replaces everything outside the
    marked sections, which follow it in the order the file had them."""
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    if name in MARKERS:
        pattern = _pattern(*MARKERS[name])
        doc = old or "# Validation\n"
        text = (pattern.sub(lambda _: section, doc) if pattern.search(doc)
                else doc.rstrip("\n") + "\n\n" + section)
    else:
        found = sorted((m.start(), m.group(0)) for begin, end in MARKERS.values()
                       if (m := _pattern(begin, end).search(old)))
        text = section
        for _, kept in found:
            text = text.rstrip("\n") + "\n\n" + kept
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


def case_list(name: str, scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return import_module(SWEEPS[name].module).cases(name, scale, budget)


def run_sweep(name: str, scale: Scale, *, out: Path, console: Any, workers: int = 2,
              budget: dict[str, float] | None = None, command: str | None = None) -> list:
    """Run case set ``name`` and write its section of ``out``; returns its results."""
    from validation.progress import progress

    entry, budget = SWEEPS[name], budget or {"bits_per_entry": 5.0}
    module = import_module(entry.module)
    cases = module.cases(name, scale, budget)
    refused: list[tuple[str, str]] = []
    with progress(console) as bar:
        task = bar.add_task(name, total=len(cases))
        results = run_cases(cases, scale, budget, workers=entry.workers or workers,
                            refused=refused, on_done=lambda done, total, case: bar.update(
                                task, completed=done, description=f"{name}: {case}"))
    if refused:
        console.print(f"{len(refused)} refused: " + "; ".join(f"{n}: {m}" for n, m in refused))
    section = module.render(name, results, scale, budget, command or entry.command, refused)
    write_section(out, name, section)
    if hasattr(module, "after"):  # a figure beside the document
        module.after(name, results, scale, out)
    console.print(f"wrote the {name} section of {out} ({len(results)} runs)")
    return results
