"""The wacky CLI: JSON keys, and bad input as one message with exit status 2 (no traceback)."""

import json
import subprocess
import sys

import pytest

LEVEL_KEYS = {
    "level", "runs", "capacity_entries", "buffer_multiple", "fpr_per_run", "level_fpr",
    "filter_bits_per_entry", "structure",
}
TOTAL_KEYS = {
    "design", "levels", "write_amp", "write_cost", "point_read", "zero_result_read", "range_runs",
    "memory_bits_per_entry", "sum_fpr",
}


def wacky(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "wacky_model.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_analyze_json_has_the_documented_keys():
    out = wacky("analyze", "--preset", "qlsm-bush", "--sum-fpr", "0.1", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert TOTAL_KEYS <= doc.keys()
    assert doc["design"] == {"T": 2.0, "C": 1.0, "X": 2.0, "K": 1.0, "Z": 0.0}
    assert all(LEVEL_KEYS == row.keys() for row in doc["levels"])
    assert doc["sum_fpr"] == pytest.approx(0.1)


def test_analyze_table_prints_every_level():
    out = wacky("analyze", "--T", "4", "--C", "3", "--X", "1", "--K", "0", "--Z", "0",
                "--entries", "1e8")
    assert out.returncode == 0, out.stderr
    assert "write amplification" in out.stdout and "bloom" in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--T", "1", "--C", "1"], "T must be >= 2"),
        (["--T", "4", "--C", "0"], "C must be >= 1"),
        (["--T", "4", "--C", "2", "--K", "2"], "K must be in [0, 1]"),
        (["--preset", "nope"], "preset must be one of"),
        (["--preset", "leveling", "--sum-fpr", "50"], "sum_fpr must lie in"),
        (["--preset", "leveling", "--entries", "nan"], "entries must be a finite number"),
        (["--preset", "leveling", "--entries", "1e30"], "entries must be in"),
        (["--preset", "leveling", "--bits-per-entry", "-2"], "bits_per_entry"),
        (["--preset", "leveling", "--entries", "100"], "buffer_bytes"),
        (["--T", "4"], "give --preset NAME"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(args, message):
    out = wacky("analyze", *args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.strip() == f"error: {out.stderr.strip()[7:]}"
    assert message in out.stderr


def test_unknown_flag_is_a_usage_error_with_exit_2():
    out = wacky("analyze", "--no-such-flag")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_recommend_from_a_trace(tmp_path):
    """The workload comes from the trace: here 3 puts, 1 existing read, 1 zero-result read."""
    path = tmp_path / "ops.txt"
    path.write_text("# a hand-written trace\nput 1\nput 2\nput 3\nget 2\nget 99\n")
    out = wacky("recommend", "--trace", str(path), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    from_flags = wacky("recommend", "--writes", "0.6", "--point-reads", "0.2", "--zero-reads",
                       "0.2", "--json")
    assert doc["design"] == json.loads(from_flags.stdout)["design"]


@pytest.mark.parametrize(
    "content, flags, message",
    [
        ("put 1\nget x\n", [], "line 2"),
        ("put 1\nrange 5 2\n", [], "line 2"),
        ("put 1\nget 1\n", ["--writes", "1"], "not both"),
    ],
)
def test_recommend_bad_trace(tmp_path, content, flags, message):
    path = tmp_path / "ops.txt"
    path.write_text(content)
    out = wacky("recommend", "--trace", str(path), *flags)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
