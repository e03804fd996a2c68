"""Progress of long runs: a rich bar on a terminal; elsewhere (a log, CI, a pipe), where a bar
prints nothing, :class:`LineProgress`'s line per change of description or tenth of the work."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Task:
    description: str
    total: float | None
    completed: float = 0.0


@dataclass
class LineProgress:
    """The part of rich's ``Progress`` the commands use, printed as lines."""

    console: Any
    tasks: dict[int, _Task] = field(default_factory=dict)
    start: float = field(default_factory=time.perf_counter)

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None, **_: Any) -> int:
        key = len(self.tasks)
        self.tasks[key] = _Task(description, total)
        self._line(self.tasks[key])
        return key

    def update(self, task_id: int, *, completed: float | None = None,
               description: str | None = None, **_: Any) -> None:
        task = self.tasks[task_id]
        changed = description is not None and description != task.description
        done = completed is not None and task.total is not None and (
            _step(completed, task.total) != _step(task.completed, task.total))
        if description is not None:
            task.description = description
        if completed is not None:
            task.completed = completed
        if changed or done:
            self._line(task)

    def _line(self, task: _Task) -> None:
        elapsed = time.perf_counter() - self.start
        count = (f"{task.completed:g}/{task.total:g}" if task.total and task.total > 1
                 else f"{task.completed / task.total:.0%}" if task.total else "")
        self.console.print(f"[{elapsed:7.1f} s] {count} {task.description}".replace("  ", " "),
                           highlight=False, soft_wrap=True)  # a log line is never folded


def _step(completed: float, total: float) -> int:
    """Which tenth of the task ``completed`` is in (each item of a task of ten or fewer)."""
    return int(10 * completed / total) if total > 10 else int(completed)


def time_left(seconds: float, ran: int, left: int) -> str:
    """``"; about ... left"`` for ``left`` more items at the wall-time pace of ``ran`` in
    ``seconds``; nothing before the first."""
    if not ran or not left:
        return ""
    eta = seconds / ran * left
    return f"; about {eta:.0f} s left" if eta < 90 else f"; about {eta / 60:.0f} min left"


def progress(console: Any, count: bool = False) -> Any:
    """A rich bar on a terminal, :class:`LineProgress` elsewhere; ``count``: items done of the
    total, not a percentage."""
    if getattr(console, "is_terminal", False):
        from rich import progress as rp

        done = rp.MofNCompleteColumn() if count else rp.TaskProgressColumn()
        return rp.Progress(rp.TextColumn("{task.description}"), rp.BarColumn(), done,
                           rp.TimeElapsedColumn(), console=console, transient=True)
    return LineProgress(console)
