"""Engine validations on one worker thread owned by the app: a validation takes seconds, too
long to hold a Dash request. The "Validate" callback submits a job and returns at once; a
``dcc.Interval`` polls its progress. The engine releases the GIL, so the server keeps serving.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from validation.results import ValidationResult
from validation.scale import Scale
from wacky_model.types import Compaction, Design, Workload

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class ValidationScale:
    """A size of engine run the user can pick, with the time it takes said up front."""

    label: str
    scale: Scale


# The page's system is far too big to build; a validation runs at one of these sizes. The buffer
# stays at 64 KiB so a bigger run has more levels, closer to the page's tree. The labels' times
# were measured on 2 cores: uniform keys take 0.7-1.5 s / 4-5 s / 18-26 s; zipf keys with
# updates and a 5% cache up to 13 s / 67 s / 4 min (Tiering's skewed window).
VALIDATION_SCALES: dict[str, ValidationScale] = {
    "small": ValidationScale("small: 100k entries (about 1-15 s)", Scale.small()),
    "medium": ValidationScale(
        "medium: 500k entries (about 5-70 s)",
        Scale(entries=500_000, buffer_bytes=64 << 10, reads=10_000, mix_ops=5_000)),
    "large": ValidationScale(
        "large: 2M entries (about 20 s to 4 min)",
        Scale(entries=2_000_000, buffer_bytes=64 << 10, reads=20_000, mix_ops=20_000)),
}
DEFAULT_SCALE = "small"


def scale_named(key: object) -> Scale:
    """The run size ``key`` names; a ValueError in plain words for anything else."""
    choice = VALIDATION_SCALES.get(key) if isinstance(key, str) else None
    if choice is None:
        names = ", ".join(VALIDATION_SCALES)
        raise ValueError(f"choose a validation size ({names}); got {key!r}")
    return choice.scale


def stock_rocksdb_command(current: dict, scale: Scale) -> str:
    """The ``wacky validate`` command that runs a stock RocksDB pick (the ``current-design``
    store) on stock RocksDB at ``scale``, its file size the same share of this run's buffer."""
    k, w, c = current["design"], current["workload"], current["compaction"]
    file_bytes = max(1, round(float(c["file_share"]) * scale.buffer_bytes))
    words = ["wacky validate --engine rocksdb --stock",
             *(f"--{n} {float(k[n]):g}" for n in ("T", "C", "X", "K", "Z")),
             f"--filters {current.get('filters', 'uniform')}",
             f"--granularity file --level1-runs {int(c['level1_runs'])}",
             f"--file-bytes {file_bytes}", f"--bits-per-entry {float(current['bits_per_entry']):g}",
             *(f"--{name.replace('_', '-')} {float(w[name]):.6g}"
               for name in ("point_reads", "zero_reads", "writes", "range_reads", "range_blocks")),
             f"--entries {scale.entries} --entry-bytes {scale.entry_bytes}",
             f"--block-bytes {scale.block_bytes} --buffer-bytes {scale.buffer_bytes}",
             f"--reads {scale.reads}"]
    return " ".join(words)


def stock_rocksdb_refusal(current: dict, scale: Scale) -> str:
    """Why a stock RocksDB pick is not built on the native engine, and the command that
    validates it where it runs."""
    w = current["workload"]
    skewed = (w.get("write_keys", "uniform") != "uniform" or w.get("read_keys", "uniform")
              != "uniform" or w.get("update_fraction") or current.get("cache_fraction"))
    # wacky validate runs skewed keys and a cache on the native engine only.
    keys = " under uniform keys with no cache" if skewed else ""
    return ("the native engine cannot build stock RocksDB's level sizing (dynamic level bytes "
            f"from max_bytes_for_level_base); validate this pick on stock RocksDB{keys} with: "
            + stock_rocksdb_command(current, scale))


@dataclass(frozen=True)
class ValidationRequest:
    """What to build on the engine, with a block cache of ``cache_fraction`` of the data.
    ``page_entries`` and ``page_levels`` (None if unknown) only explain that the run is
    smaller than the page's tree."""

    design: Design
    workload: Workload
    bits_per_entry: float
    scale: Scale = field(default_factory=Scale.small)
    cache_fraction: float = 0.0
    page_entries: float | None = None
    page_levels: int | None = None
    compaction: Compaction = field(default_factory=Compaction)

    @property
    def cache_bytes(self) -> int:
        """The same share of the data as on the page, at the validation's scale."""
        return round(self.cache_fraction * self.scale.entries * self.scale.entry_bytes)


@dataclass(frozen=True)
class JobState:
    status: str  # "queued", "running", "done" or "failed"
    request: ValidationRequest | None = None
    fraction: float = 0.0
    message: str = ""
    result: ValidationResult | None = None
    error: str | None = None
    seconds: float = 0.0


Runner = Callable[[ValidationRequest, Progress], ValidationResult]


def run_on_engine(request: ValidationRequest, progress: Progress) -> ValidationResult:
    """The real runner: ``validation.runner.validate`` at the request's scale and cache."""
    # Imported here: the engine extension loads only when someone asks for a validation.
    from validation.runner import validate

    return validate(request.design, workload=request.workload, scale=request.scale,
                    bits_per_entry=request.bits_per_entry, progress=progress,
                    cache_bytes=request.cache_bytes,
                    compaction=None if request.compaction.is_default else request.compaction)


class ValidationJobs:
    """Queue of validation jobs on one worker thread; the states of the last few are kept."""

    def __init__(self, runner: Runner = run_on_engine, keep: int = 16) -> None:
        self._runner = runner
        self._keep = keep
        self._lock = threading.Lock()
        self._states: OrderedDict[str, JobState] = OrderedDict()
        # One worker: two engine builds at once would only halve each one's speed on 2 cores.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wacky-validate")

    def start(self, request: ValidationRequest) -> str:
        job_id = uuid.uuid4().hex
        with self._lock:
            self._states[job_id] = JobState("queued", request=request, message="queued")
            while len(self._states) > self._keep:
                self._states.popitem(last=False)
        self._executor.submit(self._run, job_id, request)
        return job_id

    def state(self, job_id: str | None) -> JobState | None:
        with self._lock:
            return self._states.get(job_id) if job_id else None

    def _update(self, job_id: str, **changes) -> None:
        with self._lock:
            if job_id in self._states:
                self._states[job_id] = replace(self._states[job_id], **changes)

    def _run(self, job_id: str, request: ValidationRequest) -> None:
        start = time.perf_counter()
        self._update(job_id, status="running", message="starting")

        def progress(fraction: float, message: str) -> None:
            self._update(job_id, fraction=min(1.0, max(0.0, float(fraction))), message=message)

        try:
            result = self._runner(request, progress)
        except Exception as err:  # noqa: BLE001 -- a worker's exception would otherwise vanish
            self._update(job_id, status="failed", error=f"{type(err).__name__}: {err}"
                         if not isinstance(err, ValueError) else str(err),
                         seconds=time.perf_counter() - start)
            return
        self._update(job_id, status="done", fraction=1.0, message="done", result=result,
                     seconds=time.perf_counter() - start)

    def wait(self, job_id: str, timeout: float) -> JobState | None:
        """Block until the job finishes or ``timeout`` passes (for scripts and tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state(job_id)
            if state is None or state.status in ("done", "failed"):
                return state
            time.sleep(0.02)
        return self.state(job_id)
