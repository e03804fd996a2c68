"""The sweep driver (``wacky sweep CASESET``, alias ``wacky validate --sweep``): a case set of
:data:`SWEEPS` (its code a :class:`SetCode` in its module's ``SETS``) runs as Dask tasks
(:func:`run_cases`), each finished case cached on disk (:class:`Cache`: an interrupted sweep
resumes), and writes its section of docs/VALIDATION.md between its markers (families: the head).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import pickle
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from validation.results import Costs, Errors, ValidationResult, with_theta
from validation.runner import validate
from validation.scale import Scale
from wacky_model.table_store import source_version
from wacky_model.types import Design, Workload


@dataclass(frozen=True)
class SweepCase:
    """One run of a case set: ``validate(design, ...)`` with ``options`` (its keywords: scale,
    engine, compaction, ...), or ``measure(**options)`` when the set measures something else."""

    name: str
    group: str
    design: Design | None
    options: dict[str, Any] = field(default_factory=dict)
    measure: Callable[..., Any] | None = None

    def run(self, scale: Scale, budget: dict[str, float], workdir: str | None = None) -> Any:
        if self.measure is not None:  # makes its own temporary directories
            return self.measure(**self.options)
        return validate(self.design, **{"scale": scale, **budget, **self.options},
                        workdir=workdir)


@dataclass(frozen=True)
class SweepResult:
    case: SweepCase
    result: ValidationResult
    seconds: float = 0.0  # the case's wall time where it ran

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


# A case's files go to memory when there is room for this many times its data: the engines'
# block counts are logical, whatever holds the files, and on a disk file system the files'
# creates, renames and unlinks cost more system time than the reads (a file-granular smoke case:
# 3-4 s on ext4, 0.3-0.4 s on tmpfs), which two workers pay together (the journal).
MEMORY_DIR, MEMORY_HEADROOM = Path("/dev/shm"), 8


def scratch_dir(scale: Scale, memory: Path = MEMORY_DIR) -> str | None:
    """``memory`` (a tmpfs) for a case's temporary directory when it and the available memory
    have room for :data:`MEMORY_HEADROOM` times the data and TMPDIR is not set; else None."""
    if os.environ.get("TMPDIR") or not os.access(memory, os.W_OK):
        return None
    try:
        room = min(shutil.disk_usage(memory).free, available_memory())
    except OSError:
        return None
    return str(memory) if room >= MEMORY_HEADROOM * scale.entries * scale.entry_bytes else None


def available_memory(meminfo: Path = Path("/proc/meminfo")) -> int:
    """MemAvailable, in bytes."""
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024  # in kB
    raise OSError(f"no MemAvailable in {meminfo}")


def _run_case(case: SweepCase, scale: Scale, budget: dict[str, float]) -> SweepResult:
    """One Dask task: the case in a temporary directory of its own."""
    start = time.perf_counter()
    own = case.options.get("scale")  # the scale the case runs at, if it has its own
    at = own if isinstance(own, Scale) else scale
    with tempfile.TemporaryDirectory(prefix="wacky-case-", dir=scratch_dir(at)) as tmp:
        result = case.run(scale, budget, tmp)
    return SweepResult(case, result, time.perf_counter() - start)


# What a result depends on: the Python of these packages and the engines compiled beside it.
CODE = ("cost_models", "wacky_model", "validation", "wacky_traces", "native_engine",
        "rocksdb_bridge")


def code_version() -> str:
    """A hash of the .py and .so files of :data:`CODE` wherever they are installed."""
    return source_version(CODE, (".py", ".so"))


def default_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wacky" / "sweeps"


@dataclass(frozen=True)
class Cache:
    """Finished cases of ``caseset``, a pickled :class:`SweepResult` per file named by a hash of
    the case, scale, budget and code version; ``fresh`` reads nothing (every case reruns)."""

    directory: Path
    caseset: str
    fresh: bool = False
    version: str = field(default_factory=code_version)

    def path(self, case: SweepCase, scale: Scale, budget: dict[str, float]) -> Path:
        measure = case.measure and case.measure.__qualname__  # a function's repr has its address
        what = repr((self.caseset, case.name, case.design, case.options, measure, scale,
                     sorted(budget.items()), self.version))
        return self.directory / self.caseset / f"{hashlib.sha256(what.encode()).hexdigest()}.pkl"

    def get(self, case: SweepCase, scale: Scale, budget: dict[str, float]) -> SweepResult | None:
        if self.fresh:
            return None
        try:
            found = pickle.loads(self.path(case, scale, budget).read_bytes())
        except Exception:  # none yet, or unreadable (torn by a disk error, old classes): rerun
            return None
        return found if isinstance(found, SweepResult) else None

    def put(self, found: SweepResult, scale: Scale, budget: dict[str, float]) -> None:
        """Write to a temporary file, then rename: a kill never leaves half an entry."""
        path = self.path(found.case, scale, budget)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as f:
            pickle.dump(found, f)
        os.replace(f.name, path)


# The local cluster's Dask settings. MALLOC_TRIM_THRESHOLD_ (set by nannies) turns off glibc's
# sliding mmap threshold, so every allocation over 128 KiB is a fresh mmap (the smoke set: 850k
# page faults with 2 workers, 21k in one process): left unset. Saturation 1.0: a worker takes a
# case only when free, so cases start in the list's order. The profiler only fills a dashboard.
LOCAL_CLUSTER = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                 "distributed.scheduler.worker-saturation": 1.0,
                 "distributed.worker.profile.enabled": False}


@contextmanager
def _client(workers: int, scheduler: str | None) -> Iterator[Any]:
    """A client of ``scheduler``, or of a local cluster for the sweep: ``workers`` workers of
    one thread, one in this process and the others processes of their own."""
    import dask
    from distributed import Client, LocalCluster, Worker

    if scheduler is None:  # memory_limit=0: an engine's memory is no Dask data to spill, and
        # Dask must not pause or restart a worker over it
        with dask.config.set(LOCAL_CLUSTER), \
                LocalCluster(n_workers=0, threads_per_worker=1, processes=True,
                             dashboard_address=None, memory_limit=0) as cluster:
            # A worker in this process (which has imported everything) starts the first case at
            # once; the processes join as they are ready (about a second each to import).
            options = {**cluster.new_spec["options"]}  # the processes' (nthreads, memory_limit)
            cluster.worker_spec["here"] = {"cls": Worker, "options": options}
            with Client(cluster) as client:
                cluster.scale(workers)
                yield client
        return
    try:
        client = Client(scheduler)
    except (OSError, ValueError) as err:  # nothing answered in 30 s, or not an address
        raise ConnectionError(f"no Dask scheduler at {scheduler}: {err}") from None
    with client:
        yield client


def run_cases(
    cases: Sequence[SweepCase], scale: Scale, budget: dict[str, float], *, workers: int = 2,
    scheduler: str | None = None, cache: Cache | None = None,
    on_done: Callable[[int, int, str, str], None] | None = None,
    refused: list[tuple[str, str]] | None = None,
) -> list[SweepResult]:
    """Run every case not in ``cache`` as a Dask task (on ``scheduler``, else on :func:`_client`'s
    local workers; ``workers=1`` runs them here, one after another, leaving RocksDB the other core
    for its compactions) and return the results in the cases' order, each cached as it returns.
    ``on_done(done, total, name, note)`` follows each case, cached ones first; the note is
    "cached", the seconds, or "failed: why". With ``refused``, a failing case is left out and
    listed there as (name, message); without it, the error stops the sweep."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1; got {workers}")
    results: dict[int, SweepResult] = {}
    count = itertools.count(1)

    def settle(i: int, get: Callable[[], SweepResult], note: str = "") -> None:
        try:
            results[i] = found = get()
        except Exception as err:  # one case must not cost the whole sweep; it is listed
            if refused is None:
                raise
            message = ("" if isinstance(err, ValueError) else f"{type(err).__name__}: ") + str(err)
            refused.append((cases[i].name, message))
            note = f"failed: {message}"
        if not note:
            note = f"{found.seconds:.1f} s"
            if cache is not None:
                cache.put(found, scale, budget)
        if on_done is not None:
            on_done(next(count), len(cases), cases[i].name, note)

    todo = []
    for i, case in enumerate(cases):
        cached = cache.get(case, scale, budget) if cache is not None else None
        if cached is None:
            todo.append(i)
        else:
            settle(i, lambda c=cached: c, "cached")
    if todo and (workers > 1 or scheduler is not None):
        from distributed import as_completed

        token = uuid.uuid4().hex[:8]  # keys unique on a cluster that other sweeps share
        with _client(workers, scheduler) as client:
            if scheduler is not None and cache is not None:  # results are filed by our code
                theirs = set(client.run(code_version).values())
                if theirs - {cache.version}:
                    raise ValueError(f"--scheduler: the workers at {scheduler} run other code "
                                     f"({', '.join(sorted(theirs))}) than this machine "
                                     f"({cache.version}); install the same version there")
            # One batch: the scheduler hands the cases out in the list's order (longest first)
            # to whichever worker is free, not queued on the first workers to join
            batch = client.map(_run_case, [cases[i] for i in todo], scale=scale, budget=budget,
                               key=[f"wacky-case-{token}-{i}" for i in todo], pure=False)
            futures = dict(zip(batch, todo, strict=True))
            for future in as_completed(futures):
                settle(futures[future], future.result)
    else:
        for i in todo:
            settle(i, lambda c=cases[i]: _run_case(c, scale, budget))
    return [results[i] for i in sorted(results)]


Refused = Sequence[tuple[str, str]]  # (case, why) of each case a sweep left out


@dataclass(frozen=True)
class SetCode:
    """A case set's code: its cases, its section's text and a figure beside the document, if
    any."""

    cases: Callable[[Scale, dict[str, float]], list[SweepCase]]
    render: Callable[[Sequence[SweepResult], Scale, dict[str, float], str, Refused], str]
    after: Callable[[Sequence[SweepResult], Scale, Path], None] | None = None


def bits(budget: dict[str, float]) -> float:
    """The budget's filter bits per entry; 5 when it gives none."""
    return budget.get("bits_per_entry") or 5.0


@dataclass(frozen=True)
class CaseSet:
    name: str
    module: str  # its code: the module's ``SETS[name]``, imported when the set runs
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
    CaseSet("rocksdb-skew", "validation.cases", "skewed keys and a block cache on stock "
            "RocksDB: the skew model (S2f leveled, U5 universal)", 3.0, workers=1),
    CaseSet("lsbm", "validation.side_runs", "LSbM's compaction buffer: a hot key range's hit "
            "rate with and without it, model and engine", 1.0),
    CaseSet("l2sm", "validation.side_runs", "L2SM's per-level log: write amplification and "
            "merges with and without it, model (L1) and engine", 1.0),
    CaseSet("ohdb", "validation.partitions", "OHDB's partitioned level 0: bytes and merges "
            "per level at P = 1 and 10, triggers 1 and 4, model (P6), the native engine and "
            "stock RocksDB with a partitioner", 1.5, workers=1),
    CaseSet("space", "validation.space", "transient space: the peak disk use of merges over "
            "the window, T5 against the native engine's and stock RocksDB's metered files, "
            "twelve designs", 2.0, workers=1),
    CaseSet("throughput", "validation.throughput", "insert throughput on the native engine: "
            "T1 from the model's write amplification and a calibration of the engine's CPU, "
            "six designs", 1.0, workers=1),
    CaseSet("stalls", "validation.stalls", "write stalls on stock RocksDB: six "
            "configurations offered 0.5, 0.9 and 1.5 times T2's sustainable rate, T3's stalled "
            "share against rocksdb.stall.micros and T2 against the rate RocksDB held", 3.0,
            workers=1),
    CaseSet("mix", "validation.mix", "throughput of a mix from one client thread on a disk "
            "with direct reads: six stock RocksDB configurations (T6) and six native designs "
            "(T4), each kind's latency, against the measured operations per second", 3.5,
            workers=1),
    CaseSet("tidal", "validation.tidal", "Tidal-tree's floating of hot files on the native "
            "engine, with and without it: files checked per lookup under Zipf and latest reads, "
            "and the writes floats add", 2.0, workers=1),
    CaseSet("paged", "validation.paged", "paged filters and indexes on stock RocksDB: I/O per "
            "zero-result and existing-key read through the block cache at four sizes, G1 "
            "against RocksDB's cache misses", 1.0, workers=1),
    CaseSet("advise", "validation.advise", "wacky advise on the four databases of "
            "tests/test_advise.py: the current and the advised OPTIONS measured on RocksDB, "
            "predicted against measured gain", 1.5, workers=1),
    CaseSet("advisor", "validation.advisor_compare", "RocksDB's Advisor's rules and wacky "
            "advise on three databases that stall: the rules fired, each side's changes, their "
            "stall time, write time and I/O measured on RocksDB", 4.0, workers=1),
    CaseSet("smoke", "validation.cases", "eight designs over the three windows, at a small "
            "scale", 0.5),
)}
MARKERS = {s.name: s.markers for s in SWEEPS.values() if s.marked}


def case_set(name: str) -> SetCode:
    return import_module(SWEEPS[name].module).SETS[name]


def _pattern(begin: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.S)


def existing_section(path: Path, name: str) -> str | None:
    """Case set ``name``'s section of the file at ``path``, if it has one."""
    if not path.exists():
        return None
    found = _pattern(*MARKERS[name]).search(path.read_text(encoding="utf-8"))
    return found.group(0) if found else None


def write_section(out: Path, name: str, section: str) -> None:
    """Write ``section`` into ``out``: a marked section replaces its old text (or is appended);
    the head replaces everything else, the marked sections following in their order."""
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


def row(*cells: Any) -> str:
    """One row of a markdown table."""
    return "| " + " | ".join(map(str, cells)) + " |"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]] = ()) -> list[str]:
    """A markdown table: the ``header`` row, its rule, then one line per row of cells."""
    return [row(*header), "|---" * len(header) + "|", *(row(*cells) for cells in rows)]


def section(name: str, title: str, command: str, about: str, body: Iterable[str],
            refused: Refused = ()) -> str:
    """Case set ``name``'s section: heading, who wrote it, ``about``, ``body``, the cases not
    run, within its markers (the head has none)."""
    marked = name in MARKERS
    lines = [("## " if marked else "# ") + title, "",
             f"Generated by `{command}`; do not edit by hand. {about}", "", *body]
    if refused:
        lines += ["", "Not run:", ""] + [f"- {case}: {message}" for case, message in refused]
    return "\n".join([MARKERS[name][0], *lines, MARKERS[name][1]] if marked else lines) + "\n"


def run_sweep(name: str, scale: Scale, *, out: Path, console: Any, workers: int = 2,
              budget: dict[str, float] | None = None, command: str | None = None,
              scheduler: str | None = None, cache_dir: Path | None = None,
              fresh: bool = False) -> list:
    """Run case set ``name`` (:func:`run_cases`, cached in ``cache_dir``, which ``fresh``
    ignores) and write its section of ``out``; returns its results."""
    from validation.progress import progress, time_left

    entry, code, budget = SWEEPS[name], case_set(name), budget or {"bits_per_entry": 5.0}
    cases = code.cases(scale, budget)
    refused: list[tuple[str, str]] = []
    cache = Cache(cache_dir or default_cache_dir(), name, fresh)
    start, notes = time.perf_counter(), []

    def show(done: int, total: int, case: str, note: str) -> None:
        notes.append(note)
        ran = sum(n != "cached" for n in notes)  # the pace is the cases run, not the cached
        left = time_left(time.perf_counter() - start, ran, total - done)
        bar.update(task, completed=done, description=f"{name}: {case}: {note}{left}")

    with progress(console, count=True) as bar:
        task = bar.add_task(name, total=len(cases))
        results = run_cases(cases, scale, budget, workers=entry.workers or workers,
                            scheduler=scheduler, cache=cache, refused=refused, on_done=show)
    if refused:
        console.print(f"{len(refused)} refused: " + "; ".join(f"{n}: {m}" for n, m in refused))
    write_section(out, name, code.render(results, scale, budget, command or entry.command,
                                         refused))
    if code.after is not None:
        code.after(results, scale, out)
    cached = f", {notes.count('cached')} of them cached" if "cached" in notes else ""
    console.print(f"wrote the {name} section of {out} ({len(results)} runs{cached})",
                  soft_wrap=True)
    return results
