"""The sections of docs/VALIDATION.md and the sweeps that write them (:data:`SWEEPS`).

The families sweep (``wacky validate --sweep``) writes the document's head; every other sweep
writes its own section between two marker lines. :func:`write_section` rewrites one and keeps
every other section as it is, whichever sweep runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# The cost columns of the engine tables: (Costs field, column label).
COST_COLUMNS = (("write_amp", "write amp"), ("zero_result_read", "zero-result I/O"),
                ("point_read", "existing-key I/O (Level L)"),
                ("point_read_uniform", "existing-key I/O (uniform)"))


@dataclass(frozen=True)
class Sweep:
    name: str
    command: str
    markers: tuple[str, str] | None  # None: the document's head


def _marked(name: str, command: str) -> Sweep:
    return Sweep(name, command, (f"<!-- {name} section: written by {command} -->",
                                 f"<!-- end of the {name} section -->"))


SWEEPS = (
    Sweep("families", "wacky validate --sweep", None),  # validation.sweep.run_sweep
    _marked("rocksdb", "wacky validate --sweep --engine rocksdb"),  # rocksdb_sweep
    _marked("files", "wacky validate --sweep --granularity file"),  # files_sweep
    _marked("skew", "wacky validate --sweep --skew"),  # skew_sweep
)
MARKERS = {s.name: s.markers for s in SWEEPS if s.markers}


def _pattern(begin: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.S)


def replace_section(document: str, section: str, begin: str, end: str) -> str:
    """``document`` with the section between ``begin`` and ``end`` replaced by ``section``
    (appended if absent)."""
    pattern = _pattern(begin, end)
    if pattern.search(document):
        return pattern.sub(lambda _: section, document)
    return document.rstrip("\n") + "\n\n" + section


def existing_section(path: Path, begin: str, end: str) -> str | None:
    """The section between ``begin`` and ``end`` of the file at ``path``, if it has one."""
    if not path.exists():
        return None
    found = _pattern(begin, end).search(path.read_text(encoding="utf-8"))
    return found.group(0) if found else None


def write_section(out: Path, name: str, section: str) -> None:
    """Write sweep ``name``'s ``section`` into ``out``, keeping every other section: a marked
    section replaces its old text (or is appended); the head replaces everything outside the
    marked sections, which follow it in the order the file had them."""
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    if name in MARKERS:
        text = replace_section(old or "# Validation\n", section, *MARKERS[name])
    else:
        found = sorted((m.start(), m.group(0)) for begin, end in MARKERS.values()
                       if (m := _pattern(begin, end).search(old)))
        text = section
        for _, kept in found:
            text = text.rstrip("\n") + "\n\n" + kept
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
