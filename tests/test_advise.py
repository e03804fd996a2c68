"""wacky advise on real RocksDB databases (issue 35): four workloads of known mix and skew, built
through the bridge with statistics on, a trace recorded and stats dumped to the LOG
(tests/advise_helpers.py); and each kind of bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.advise_helpers import build
from tests.rocksdb_helpers import bridge
from validation.advise import ENTRIES, OPERATIONS, WORKLOADS
from wacky_cli.main import main
from wacky_model.advise import AdviseError, advise
from wacky_model.types import KeyDistribution


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    b = bridge()
    root = tmp_path_factory.mktemp("advise")
    return {name: build(b, root, name.replace(".", "_"), entries=ENTRIES, operations=OPERATIONS,
                        mix=mix, theta=theta, seed=i + 1)
            for i, (name, (mix, theta)) in enumerate(WORKLOADS.items())}


def _theta(dist, best_zipf: float) -> float:
    d = dist if isinstance(dist, KeyDistribution) else KeyDistribution.parse(str(dist))
    assert d.kind in ("zipf", "uniform", "hotset"), d.spec
    return {"zipf": d.theta, "uniform": 0.0}.get(d.kind, best_zipf)


def _last_sum_row(log: Path) -> tuple[int, float]:
    """The LOG's last compaction stats Sum row: (line number, W-Amp), read here independently."""
    rows = [(i, line) for i, line in enumerate(log.read_text().splitlines(), start=1)
            if re.match(r"^\s*Sum\s+\d+/\d+", line)]
    number, line = rows[-1]
    return number, float(line.split()[11])  # Sum, Files, Size, unit, Score, Read ... W-Amp


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_advise_infers_a_known_workload(built, name):
    b = built[name]
    a = advise(b.path, trace=b.trace)
    for kind, share in b.mix.items():
        got = a.figure(kind)
        assert abs(got.value - share) <= 0.05, (kind, got.value, share)
        assert not got.assumed and str(b.trace) in got.source
    # The skew: the distribution the estimator chose, as a Zipf theta (uniform: 0), or its best
    # Zipf fit when a hot set fitted better.
    for side in ("write", "read"):
        assert abs(_theta(a.figure(f"{side}_keys").value,
                          a.figure(f"{side}_zipf_theta").value) - b.theta) <= 0.1, side
    entries = a.figure("entries")
    assert abs(entries.value / b.entries - 1) <= 0.10 and "read-only" in entries.source
    # The measured write amplification is the LOG's own (its last Sum row) ...
    line, w_amp = _last_sum_row(b.path / "LOG")
    assert a.measured["write_amp"].value == w_amp
    assert a.measured["write_amp"].source == f"{b.path / 'LOG'}:{line}"
    # ... and the statistics' figure is the database's tickers as they were at the end.
    t = b.tickers
    flushed = t["rocksdb.flush.write.bytes"]
    assert a.measured["write_amp_statistics"].value == pytest.approx(
        (flushed + t["rocksdb.compact.write.bytes"]) / flushed, rel=1e-12)
    if b.mix["range_reads"]:
        # Nexts per seek: a scan that starts near the last key stops short of its length.
        assert a.figure("range_entries").value == pytest.approx(b.range_entries, rel=0.01)
    # The advice is an OPTIONS file RocksDB loads.
    out = b.path.parent / f"{b.path.name}.advised"
    out.write_text(a.options_file())
    bridge().check_options_file(str(out))
    assert a.went_without == ()
    # The model's write amplification is set beside the database's in the model's unit (entries
    # written per entry written, as validation/rocksdb.py measures), and the session since the
    # reopen (fewer writes than one load) is flagged as no steady window.
    e = a.model_error()
    assert e is not None and e["unit"] == "entries per write"
    written = t["rocksdb.number.keys.written"]
    assert e["window_writes"] == written < b.entries and e["steady"] is False
    # Bytes written over the bytes per entry on disk (the LOG's table files'; the live files' here)
    per_entry = sum(v["bytes"] for v in b.levels) / sum(v["entries"] for v in b.levels)
    assert e["measured"] == pytest.approx(
        (flushed + t["rocksdb.compact.write.bytes"]) / per_entry / written, rel=0.05)
    # The LOG's levels hold about the entries (versions not yet merged away count too).
    assert 0.9 <= sum(r["entries"] for r in a.levels) / b.entries <= 1.3


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_advise_never_advises_a_change_it_prices_costlier(built, name):
    """The search's grid may not hold the database's own options (static level sizes): when its
    best prices no lower, advise keeps the current options and says so."""
    b = built[name]
    a = advise(b.path, trace=b.trace)
    assert a.current is not None and a.advised.theta <= a.current.theta
    if a.advised is a.current:
        assert a.changes == () and any("no change advised" in n for n in a.notes)
    else:
        assert a.changes and a.advised.theta < a.current.theta


def test_advise_from_files_only(built):
    """Without the directory: entries from the LOG's level sizes, Gets split by the statistics."""
    b = built["reads-zipf0.9"]
    options = sorted(b.path.glob("OPTIONS-*"))[-1]
    a = advise(options=options, log=b.path / "LOG", trace=b.trace)
    assert abs(a.figure("entries").value / b.entries - 1) <= 0.20
    assert "LOG" in a.figure("entries").source
    for kind, share in b.mix.items():
        assert abs(a.figure(kind).value - share) <= 0.05, kind
    assert "statistics" in a.figure("zero_reads").source


def test_cli_advise_json_and_out(built, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # the tables' cells unfolded, whatever the terminal
    b = built["ranges-zipf0.6"]
    out = tmp_path / "OPTIONS.advised"
    assert main(["advise", str(b.path), "--query-trace", str(b.trace), "--json", "--out",
                 str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["out"] == str(out) and out.read_text().startswith("# Advised by wacky advise")
    assert {f["name"] for f in doc["inferred"]} >= {"entries", "writes", "write_keys"}
    assert doc["measured"]["write_amp"]["value"] > 1
    # The tables for people: the inferred figures, the measurement and the advice.
    assert main(["advise", str(b.path), "--query-trace", str(b.trace)]) == 0
    text = capsys.readouterr().out
    assert "What advise inferred" in text and "Advised options" in text
    assert "write amplification (LOG, Sum W-Amp)" in text
    assert "Not a steady window" in text
    # A flag overrides an inferred figure and says so.
    assert main(["advise", str(b.path), "--entries", "1e6", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    entries = next(f for f in doc["inferred"] if f["name"] == "entries")
    assert entries["value"] == 1e6 and entries["source"] == "--entries"
    # Without a trace the key distributions are assumed, each with its flag.
    assumed = {f["name"]: f["flag"] for f in doc["assumed"]}
    assert assumed["write_keys"] == "--write-dist" and assumed["read_keys"] == "--read-dist"
    assert any("a trace" in w for w in doc["went_without"])


# -- bad input ------------------------------------------------------------------------------------

def _copy(b, tmp_path: Path) -> Path:
    """A closed copy of a built database's directory."""
    dst = tmp_path / "db"
    shutil.copytree(b.path, dst)
    return dst


def _cli_error(capsys, args: list[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    return err


def test_missing_log(built, tmp_path, capsys):
    db = _copy(built["writes-uniform"], tmp_path)
    (db / "LOG").unlink()
    with pytest.raises(AdviseError, match=r"the LOG .*LOG does not exist"):
        advise(db)
    assert str(db / "LOG") in _cli_error(capsys, ["advise", str(db)])


def test_truncated_log(built, tmp_path, capsys):
    b = built["writes-uniform"]
    text = (b.path / "LOG").read_text()
    first = text.index("------- DUMPING STATS -------")
    cut = tmp_path / "LOG"
    cut.write_text(text[: first + 400])  # the header and a stats dump cut short
    options = sorted(b.path.glob("OPTIONS-*"))[-1]
    err = _cli_error(capsys, ["advise", "--options", str(options), "--log", str(cut)])
    assert str(cut) in err and "DUMPING STATS" in err
    # With the database to count entries and a trace for the mix, advise goes on without it.
    a = advise(b.path, log=cut, trace=b.trace)
    assert any(str(cut) in w and "DUMPING STATS" in w for w in a.went_without)
    assert "write_amp" not in a.measured and a.model_error() is None


def test_foreign_log(built, tmp_path, capsys):
    b = built["writes-uniform"]
    foreign = tmp_path / "LOG"
    foreign.write_text("Nov 27 10:00:01 host sshd[123]: Accepted publickey for root\n" * 50)
    options = sorted(b.path.glob("OPTIONS-*"))[-1]
    with pytest.raises(AdviseError, match="is not a RocksDB info LOG"):
        advise(options=options, log=foreign)
    assert str(foreign) in _cli_error(capsys, ["advise", "--options", str(options), "--log",
                                               str(foreign)])


def test_options_from_a_newer_rocksdb(built, tmp_path, capsys):
    b = built["writes-uniform"]
    db = _copy(b, tmp_path)
    options = sorted(db.glob("OPTIONS-*"))[-1]
    text = options.read_text().replace("rocksdb_version=7.8.3", "rocksdb_version=9.10.0")
    text = text.replace('[CFOptions "default"]',
                        '[CFOptions "default"]\n  memtable_max_range_deletions=0', 1)
    options.write_text(text)
    err = _cli_error(capsys, ["advise", str(db), "--query-trace", str(b.trace)])
    assert str(options) in err and "9.10.0" in err
    assert "CFOptions.memtable_max_range_deletions" in err
    assert "--allow-unknown-options" in err
    a = advise(db, trace=b.trace, allow_unknown_options=True)
    assert any("memtable_max_range_deletions" in w for w in a.went_without)


def test_not_a_trace(built, tmp_path, capsys):
    b = built["writes-uniform"]
    junk = tmp_path / "junk.trace"
    junk.write_bytes(b"not a trace at all\n" * 20)
    with pytest.raises(AdviseError, match="is not a RocksDB trace file"):
        advise(b.path, trace=junk)
    assert str(junk) in _cli_error(capsys, ["advise", str(b.path), "--query-trace", str(junk)])
    missing = tmp_path / "missing.trace"
    assert "does not exist" in _cli_error(capsys, ["advise", str(b.path), "--query-trace",
                                                   str(missing)])


def test_cut_trace(built, tmp_path):
    """A trace cut inside a record is read up to there, and the advice says so."""
    b = built["reads-zipf0.9"]
    data = b.trace.read_bytes()
    cut = tmp_path / "cut.trace"
    cut.write_bytes(data[: len(data) // 2 + 7])
    a = advise(b.path, trace=cut)
    assert any(str(cut) in w and "cut inside a record" in w for w in a.went_without)
    assert 0 < a.trace.operations < OPERATIONS


def test_database_open_elsewhere(built, tmp_path, capsys):
    b = built["writes-uniform"]
    db_dir = _copy(b, tmp_path)
    options = tmp_path / "OPTIONS.open"
    options.write_text(sorted(db_dir.glob("OPTIONS-*"))[-1].read_text())
    held = bridge().Database(str(db_dir), str(options), 1 << 20)
    try:
        with pytest.raises(AdviseError, match="is open elsewhere"):
            advise(db_dir)
        err = _cli_error(capsys, ["advise", str(db_dir)])
        assert str(db_dir) in err and "--options FILE --log FILE" in err
    finally:
        del held


def test_not_a_database_directory(tmp_path, capsys):
    err = _cli_error(capsys, ["advise", str(tmp_path)])
    assert str(tmp_path) in err and "OPTIONS" in err
    err = _cli_error(capsys, ["advise", str(tmp_path / "nowhere")])
    assert "does not exist" in err


def test_bad_flags_are_named(built, capsys):
    b = built["ranges-zipf0.6"]
    for args, words in ((["--write-dist", "zipf:abc"], "--write-dist"),
                        (["--entry-bytes", "4"], "--entry-bytes (4) must be larger"),
                        (["--writes", "0.5"], "must sum to 1"),
                        (["--update-fraction", "2"], "--update-fraction"),
                        (["--entries", "-5"], "--entries must be at least 1")):
        assert words in _cli_error(capsys, ["advise", str(b.path), *args])
