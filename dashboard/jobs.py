"""Engine validations run in the background: one worker thread owned by the app.

A validation takes seconds; running it inside a Dash callback would hold that request (and, on
a 2-core machine, the page) until it ends. Instead the "Validate" callback submits a job here
and returns at once; a ``dcc.Interval`` polls :meth:`ValidationJobs.state` for its progress.
The engine releases the GIL while it works, so the thread does not stall the web server.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from validation.results import ValidationResult
from wacky_model.types import Design, Workload

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class ValidationRequest:
    """What to build on the engine: the design shown, its workload and its filter budget."""

    design: Design
    workload: Workload
    bits_per_entry: float


@dataclass(frozen=True)
class JobState:
    status: str  # "queued", "running", "done" or "failed"
    fraction: float = 0.0
    message: str = ""
    result: ValidationResult | None = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed")


Runner = Callable[[ValidationRequest, Progress], ValidationResult]


def run_on_engine(request: ValidationRequest, progress: Progress) -> ValidationResult:
    """The real runner: ``validation.runner.validate`` at ``Scale.small()``."""
    # Imported here so the dashboard starts (and its other views work) without loading the
    # engine extension until someone asks for a validation.
    from validation.runner import Scale, validate

    return validate(
        request.design,
        workload=request.workload,
        scale=Scale.small(),
        bits_per_entry=request.bits_per_entry,
        progress=progress,
    )


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
            self._states[job_id] = JobState("queued", message="queued")
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
            if state is None or state.finished:
                return state
            time.sleep(0.02)
        return self.state(job_id)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
