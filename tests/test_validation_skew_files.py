"""Skewed keys, updates and a cache with file-granular merges through the one runner (S2f,
``file_skew_costs``), and the skew-files case set's section of docs/VALIDATION.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from validation import cases
from validation.runner import Scale, validate
from validation.sweep import MARKERS, SWEEPS, SweepResult, case_set, write_section
from wacky_model.types import Compaction, Design, Workload

# 50,000 entries, 256 a buffer (N/F = 195): five levels at T = 4, a few seconds.
SMALL = Scale(entries=50_000, buffer_bytes=32 << 10, reads=2_000, mix_ops=0)
DOC = Path(__file__).resolve().parent.parent / "docs" / "VALIDATION.md"


@pytest.fixture(scope="module")
def zipf_files():
    """T = 4, level-1 trigger 4, Zipf 0.9 with half the writes updates, a cache of 15%."""
    case = cases.SkewFileCase(4, 4, "zipf:0.9")
    [run] = cases.skew_file_runs(SMALL, 5.0, [case])
    return case, run, validate(run.design, **run.options)


def test_file_skew_case_is_priced_by_s2f_within_loose_tolerances(zipf_files) -> None:
    _, _, r = zipf_files
    assert r.model == "skew" and r.simulated is None
    assert r.detail("compaction")["granularity"] == "file"
    assert not r.checks.any
    skew = r.detail("skew")
    # The fixed window: half a load of warm-up, half a load measured (whole chunks of an
    # eighth of a buffer), priced at its middle.
    chunk = SMALL.buffer_bytes // SMALL.entry_bytes // 8
    for writes in (r.window_writes, skew["warmup_writes"]):
        assert SMALL.entries // 2 <= writes < SMALL.entries // 2 + chunk
    assert skew["history_writes"] == skew["warmup_writes"] + r.window_writes / 2
    p, m = r.predicted, r.measured
    assert abs(p.write_amp / m.write_amp - 1) < 0.2
    assert abs(p.cache_hit_rate - m.cache_hit_rate) < 0.06
    assert abs(p.point_read_uniform - m.point_read_uniform) < max(0.2 * m.point_read_uniform,
                                                                  0.03)
    # Per-level rates start at Level 1 on both sides; level 0 (trigger 4) apart.
    assert len(p.cache_hit_rate_per_level) == len(m.cache_hit_rate_per_level)
    assert skew["level0_cache_hit_rate"]["measured"] is not None
    assert r.measured.theta is not None and r.predicted.theta is not None


def test_skew_refusals_left() -> None:
    skewed = Workload(0.5, 0.0, 0.5, write_keys="zipf:0.9", read_keys="zipf:0.9",
                      update_fraction=0.5)
    with pytest.raises(ValueError, match="level-1 trigger with files only"):
        validate(Design(4, 3, 1, 0, 0), workload=skewed, scale=SMALL,
                 compaction=Compaction(level1_runs=4))
    with pytest.raises(ValueError, match="steady phase"):
        validate(Design(4, 3, 1, 0, 0), workload=skewed, scale=SMALL, phase="load",
                 compaction=Compaction("file"))


def test_skew_files_case_set_lists_the_check_cases() -> None:
    assert "skew-files" in SWEEPS and "skew-files" in MARKERS
    listed = case_set("skew-files").cases(Scale(), {"bits_per_entry": 5.0})
    assert len(listed) == 16
    assert {c.options["compaction"].level1_runs for c in listed} == {1, 4}
    assert all(c.options["scale"].entries == 200_000 for c in listed)
    assert sum(c.options["workload"].update_fraction == 0.5 for c in listed) == 12


def test_skew_files_section_keeps_every_other_section(zipf_files, tmp_path) -> None:
    """Its section replaces its own text only: the document outside it is kept byte for byte."""
    case, run, r = zipf_files
    section = case_set("skew-files").render([SweepResult(run, r)], SMALL, {"bits_per_entry": 5.0},
                           "wacky sweep skew-files", [])
    begin, end = MARKERS["skew-files"]
    assert section.startswith(begin) and section.rstrip("\n").endswith(end)
    assert "S2f against the native engine" in section
    assert "Write amplification (within 15%): 1 of 1 skewed cases" in section
    doc = tmp_path / "VALIDATION.md"
    doc.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    write_section(doc, "skew-files", section)
    once = doc.read_text(encoding="utf-8")
    start, stop = once.index(begin), once.index(end) + len(end) + 1
    outside = once[:start] + once[stop:]
    write_section(doc, "skew-files", section.replace("T=4, trigger 4", "T=4, trigger 4 (again)"))
    again = doc.read_text(encoding="utf-8")
    start, stop = again.index(begin), again.index(end) + len(end) + 1
    assert again[:start] + again[stop:] == outside
    assert "(again)" in again
    for name in MARKERS:
        if name != "skew-files":
            b, e = MARKERS[name]
            original = DOC.read_text(encoding="utf-8")
            if b in original:
                kept = original[original.index(b):original.index(e) + len(e)]
                assert kept in again
