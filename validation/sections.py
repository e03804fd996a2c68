"""Sections of docs/VALIDATION.md that their own commands write, between two marker lines, so
that each sweep rewrites its part and keeps the others."""

from __future__ import annotations

import re
from pathlib import Path

# The cost columns of the engine tables: (Costs field, column label).
COST_COLUMNS = (("write_amp", "write amp"), ("zero_result_read", "zero-result I/O"),
                ("point_read", "existing-key I/O (Level L)"),
                ("point_read_uniform", "existing-key I/O (uniform)"))


def replace_section(document: str, section: str, begin: str, end: str) -> str:
    """``document`` with the section between ``begin`` and ``end`` replaced by ``section``
    (appended if absent)."""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.S)
    if pattern.search(document):
        return pattern.sub(lambda _: section, document)
    return document.rstrip("\n") + "\n\n" + section


def existing_section(path: Path, begin: str, end: str) -> str | None:
    """The section between ``begin`` and ``end`` of the file at ``path``, if it has one."""
    if not path.exists():
        return None
    found = re.search(re.escape(begin) + r".*?" + re.escape(end) + r"\n?",
                      path.read_text(encoding="utf-8"), re.S)
    return found.group(0) if found else None
