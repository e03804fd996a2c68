"""What a user reads in the terminal: tables that fit 80 columns without cutting a number, the
system each result assumed, a projections pick that says when its own table beats it, progress
lines when stderr is not a terminal, and an HTML report that works offline."""

from __future__ import annotations

import json
import re

import pytest

# An ellipsis right after a digit, a sign, a decimal point or an exponent cuts a number.
CUT_NUMBER = re.compile(r"[0-9.eE+\-]…")


@pytest.mark.parametrize("args", [
    ("recommend", "--point-reads", "0.3", "--writes", "0.7"),
    ("recommend", "--point-reads", "0.3", "--writes", "0.7", "--method", "projections"),
    ("recommend", "--point-reads", "0.2", "--zero-reads", "0.2", "--writes", "0.6",
     "--robust", "0.5"),
    ("analyze", "--preset", "qlsm-bush"),
    ("analyze", "--T", "8", "--C", "3", "--X", "1.5", "--K", "1", "--Z", "0",
     "--entries", "1e9", "--sum-fpr", "0.1"),
])
def test_80_columns_cut_no_number(wacky, args) -> None:
    out = wacky(*args, env={"COLUMNS": "80"})
    assert out.returncode == 0, out.stderr
    assert not CUT_NUMBER.search(out.stdout), out.stdout
    assert "…" not in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) <= 80


def test_a_column_that_does_not_fit_is_named_not_cut(wacky) -> None:
    out = wacky("analyze", "--preset", "qlsm-bush", env={"COLUMNS": "80"})
    assert "not shown at 80 columns: filter" in out.stdout
    wide = wacky("analyze", "--preset", "qlsm-bush", env={"COLUMNS": "160"})
    assert "not shown" not in wide.stdout and "bloom" in wide.stdout


def test_analyze_and_recommend_print_the_system_they_assumed(wacky) -> None:
    out = wacky("analyze", "--preset", "leveling", "--entries", "1e8", "--bits-per-entry", "7")
    text = " ".join(out.stdout.split())  # rich wraps long lines
    assert "system: 100,000,000 entries of 128 B (keys 8 B), 4,096 B blocks, buffer " \
           "8,388,608 B, filters 7 bits/entry" in text
    out = wacky("recommend", "--point-reads", "0.5", "--writes", "0.5", "--cache-bytes",
                "4096000", "--entries", "1e6", "--buffer-bytes", "1048576")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("system: 1,000,000 entries")
    assert "block cache 4,096,000 B" in " ".join(out.stdout.split())


def test_the_projections_pick_says_when_its_own_table_beats_it(wacky) -> None:
    out = wacky("recommend", "--point-reads", "0.3", "--writes", "0.7", "--method",
                "projections", "--json")
    doc = json.loads(out.stdout)
    cheapest = min(doc["alternatives"], key=lambda a: a["cost"])
    assert cheapest["cost"] < doc["cost"]  # the case the note is for
    assert doc["beaten_by"]["cost"] == pytest.approx(cheapest["cost"])
    text = wacky("recommend", "--point-reads", "0.3", "--writes", "0.7", "--method",
                 "projections", env={"COLUMNS": "200"}).stdout
    assert "note: the table below beats this pick" in text
    global_pick = json.loads(wacky("recommend", "--point-reads", "0.3", "--writes", "0.7",
                                   "--json").stdout)
    assert global_pick["beaten_by"] is None


def test_long_runs_print_progress_lines_when_stderr_is_not_a_terminal(wacky) -> None:
    out = wacky("validate", "--preset", "leveling", "--T", "4", "--entries", "20000",
                "--buffer-bytes", "16384", "--reads", "200")
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if re.match(r"\[\s*[0-9.]+ s\]", line)]
    assert any("loading" in line for line in lines)
    assert lines[-1].endswith("done")


def test_the_html_report_embeds_plotly(wacky, tmp_path) -> None:
    report = tmp_path / "report.html"
    out = wacky("validate", "--preset", "leveling", "--T", "4", "--entries", "20000",
                "--buffer-bytes", "16384", "--reads", "200", "--html", str(report))
    assert out.returncode == 0, out.stderr
    html = report.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\bsrc=", html)  # nothing fetched from a CDN
    assert len(html) > 1_000_000  # plotly.js itself is inline


def test_errors_name_flags_not_python(wacky) -> None:
    out = wacky("recommend", "--point-reads", "0.5", "--writes", "0.6")
    assert out.returncode == 2
    assert ("--point-reads + --zero-reads + --writes + --range-reads must sum to 1"
            in out.stderr)
    assert "Workload" not in out.stderr and "point_reads" not in out.stderr
