"""The skew and cache flags of the CLI: bad values exit 2 naming the flag; good ones reach the
JSON of recommend and validate."""

from __future__ import annotations

import json

import pytest

SMALL = ("--entries", "50000", "--buffer-bytes", "32768", "--reads", "500",
         "--bits-per-entry", "10")
MIX = ("--point-reads", "0.5", "--writes", "0.5")


@pytest.mark.parametrize(("flags", "message"), [
    (("--write-dist", "zipf:2"), "--write-dist: zipf theta must be in [0, 1.5]; got 2"),
    (("--write-dist", "zipf:-0.1"), "--write-dist: zipf theta must be in [0, 1.5]"),
    (("--read-dist", "hotset:0:0.5"), "--read-dist: hotset h must be in (0, 1)"),
    (("--read-dist", "hotset:0.1:1"), "--read-dist: hotset p must be in (0, 1)"),
    (("--read-dist", "hotset:0.1:1.5"), "--read-dist: hotset p must be in (0, 1)"),
    (("--read-dist", "pareto"), "--read-dist: unknown distribution 'pareto'"),
    (("--update-fraction", "1.2"), "--update-fraction must be a share in [0, 1]"),
    (("--cache-bytes", "-1"), "--cache-bytes must be a whole number of bytes in [0, 2^62]"),
])
def test_bad_skew_flags_exit_2_naming_the_flag(wacky, flags, message) -> None:
    out = wacky("recommend", *MIX, *flags)
    assert out.returncode == 2, out.stdout
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_skew_flags_without_a_workload_are_refused(wacky) -> None:
    out = wacky("recommend", "--read-dist", "zipf:0.9")
    assert out.returncode == 2
    assert "--read-dist describe a workload: give its fractions too" in out.stderr


def test_recommend_under_skew_reports_the_skew_pick(wacky) -> None:
    out = wacky("recommend", "--entries", "1e6", "--buffer-bytes", "1048576",
                "--bits-per-entry", "10", "--point-reads", "0.7", "--writes", "0.3",
                "--write-dist", "zipf:0.99", "--read-dist", "zipf:0.99",
                "--update-fraction", "1", "--cache-bytes", "16000000", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    skew = doc["skew"]
    assert skew["theta"] <= skew["uniform_pick_theta"]
    assert doc["design"] == skew["design"]
    assert 0.0 < skew["costs"]["cache_hit_rate"] < 1.0


def test_validate_json_has_cache_hit_rates_in_predicted_and_measured(wacky, tmp_path) -> None:
    report = tmp_path / "report.html"
    out = wacky("validate", "--preset", "leveling", "--T", "4", *SMALL, *MIX,
                "--write-dist", "hotset:0.1:0.9", "--read-dist", "hotset:0.1:0.9",
                "--update-fraction", "1", "--cache-bytes", "320000", "--json",
                "--html", str(report))
    assert out.returncode == 0, out.stderr
    assert "skew model" in report.read_text(encoding="utf-8")
    doc = json.loads(out.stdout)
    assert doc["model"] == "skew" and doc["simulated"] is None
    for side in ("predicted", "measured"):
        assert 0.0 < doc[side]["cache_hit_rate"] < 1.0
        assert len(doc[side]["cache_hit_rate_per_level"]) >= 3
    assert doc["workload"]["read_keys"] == "hotset:0.1:0.9"
    assert abs(doc["skew"]["cache_hit_rate_error"]) <= 0.05


def test_a_cache_larger_than_the_data_works_and_mostly_hits(wacky) -> None:
    # 50,000 entries of 128 B are 6.4 MB; the cache holds ten times that. Only merges, which
    # drop the blocks of the runs they rewrite, cause misses.
    out = wacky("validate", "--preset", "leveling", "--T", "4", *SMALL,
                "--point-reads", "0.9", "--writes", "0.1", "--read-dist", "zipf:0.9",
                "--write-dist", "zipf:0.9", "--update-fraction", "1",
                "--cache-bytes", "64000000", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["measured"]["cache_hit_rate"] > 0.8
    assert abs(doc["predicted"]["cache_hit_rate"] - doc["measured"]["cache_hit_rate"]) <= 0.05


def test_validate_refuses_skew_on_rocksdb_and_in_sweeps(wacky) -> None:
    out = wacky("validate", "--preset", "leveling", *MIX, "--read-dist", "zipf:0.9",
                "--engine", "rocksdb")
    assert out.returncode == 2
    assert "run on the native engine" in out.stderr
    out = wacky("validate", "--sweep", "--skew", *MIX)
    assert out.returncode == 2
    assert "--skew goes with --sweep on the native engine" in out.stderr


@pytest.mark.parametrize("flags", [("--target", "rocksdb"), ("--granularity", "file")])
def test_recommend_prices_skew_with_files_and_the_rocksdb_target(wacky, flags) -> None:
    """Issue 29: both were refused; the skew stage of file-granular merges (S2f) prices them."""
    out = wacky("recommend", "--entries", "1e6", *MIX, "--read-dist", "zipf:0.9",
                "--cache-bytes", str(1 << 20), *flags, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    if flags[1] == "rocksdb":
        assert doc["target"] == "rocksdb" and doc["best"]["theta"] > 0
    else:
        assert doc["model"] == "files" and "zipf:0.9" in doc["keys"]
        assert doc["skew"]["costs"]["cache_hit_rate"] > 0


def test_validate_under_skew_refuses_to_save_a_trace(wacky, tmp_path) -> None:
    out = wacky("validate", "--preset", "leveling", *SMALL, *MIX, "--read-dist", "zipf:0.9",
                "--save-trace", str(tmp_path / "t.lz4"))
    assert out.returncode == 2
    assert "--save-trace is not written under skewed keys" in out.stderr


def test_recommend_under_skew_takes_robust_tuning(wacky) -> None:
    """Issue 29: the skew model's candidates are ranked by their worst case nearby (whole
    levels asked: which side wins the granularity choice is another test's)."""
    out = wacky("recommend", "--entries", "1e6", *MIX, "--read-dist", "zipf:0.9", "--robust",
                "0.5", "--granularity", "level", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["model"] == "skew" and doc["robust"]["robust_design"]["design"] == doc["design"]
    mine, theirs = doc["robust"]["robust_design"], doc["robust"]["nominal_design"]
    assert mine["worst_case_cost"] <= theirs["worst_case_cost"] * (1 + 1e-9)
    assert theirs["nominal_cost"] <= mine["nominal_cost"] * (1 + 1e-9)
    assert doc["cost"] == mine["worst_case_cost"] >= mine["nominal_cost"]
