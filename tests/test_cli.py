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




def test_analyze_json_has_the_documented_keys(wacky):
    out = wacky("analyze", "--preset", "qlsm-bush", "--sum-fpr", "0.1", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert TOTAL_KEYS <= doc.keys()
    assert doc["design"] == {"T": 2.0, "C": 1.0, "X": 2.0, "K": 1.0, "Z": 0.0}
    assert all(LEVEL_KEYS == row.keys() for row in doc["levels"])
    assert doc["sum_fpr"] == pytest.approx(0.1)


def test_analyze_table_prints_every_level(wacky):
    out = wacky("analyze", "--T", "4", "--C", "3", "--X", "1", "--K", "0", "--Z", "0",
                "--entries", "1e8")
    assert out.returncode == 0, out.stderr
    assert "write amplification" in out.stdout and "bloom" in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--T", "1", "--C", "1", "--K", "0", "--Z", "0"], "--T must be >= 2"),
        (["--T", "4", "--C", "0", "--K", "0", "--Z", "0"], "--C must be >= 1"),
        (["--T", "4", "--C", "2", "--K", "2", "--Z", "0"], "--K must be in [0, 1]"),
        # Greediness is never assumed: --T 10 --C 9 alone used to mean K = 1, Z = 0.
        (["--T", "10", "--C", "9"], "missing: --K, --Z"),
        (["--T", "10", "--C", "9", "--K", "0"], "missing: --Z"),
        (["--preset", "nope"], "--preset must be one of"),
        (["--preset", "leveling", "--sum-fpr", "50"], "--sum-fpr must lie in"),
        (["--preset", "leveling", "--entries", "nan"], "--entries must be a finite number"),
        (["--preset", "leveling", "--entries", "1e30"], "--entries must be in"),
        (["--preset", "leveling", "--bits-per-entry", "-2"], "--bits-per-entry"),
        (["--preset", "leveling", "--entries", "100"], "--buffer-bytes"),
        (["--T", "4"], "give --preset NAME"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(args, message, wacky):
    out = wacky("analyze", *args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.strip() == f"error: {out.stderr.strip()[7:]}"
    assert message in out.stderr


def test_unknown_flag_is_a_usage_error_with_exit_2(wacky):
    out = wacky("analyze", "--no-such-flag")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_recommend_from_a_trace(tmp_path, wacky):
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
def test_recommend_bad_trace(tmp_path, content, flags, message, wacky):
    path = tmp_path / "ops.txt"
    path.write_text(content)
    out = wacky("recommend", "--trace", str(path), *flags)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_cli_recommend_json_keys(wacky):
    out = wacky("recommend", "--point-reads", "0.2", "--zero-reads", "0.2", "--writes", "0.6",
                "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {"design", "family", "cost", "costs", "alternatives", "method", "search_ms"} <= set(doc)
    assert set(doc["design"]) == set("TCXKZ")
    assert set(doc["costs"]) == {"write_cost", "write_amp", "point_read", "zero_result_read",
                                 "range_runs", "memory_bits_per_entry"}
    assert all(set(a) == {"family", "design", "cost", "relative_throughput", "buffer_bytes"}
               for a in doc["alternatives"])
    proj = json.loads(wacky("recommend", "--writes", "0.6", "--zero-reads", "0.4",
                            "--method", "projections", "--json").stdout)
    assert proj["method"] == "projections"


@pytest.mark.parametrize(
    "args",
    [
        ["recommend"],
        ["recommend", "--writes", "0.7", "--point-reads", "0.7"],
        ["recommend", "--writes", "1", "--method", "nope"],
        ["recommend", "--writes", "1", "--entries", "10"],
        ["frontier", "--out", "/nonexistent-dir/f.html"],
    ],
)
def test_cli_bad_input_exits_2(args, wacky):
    out = wacky(*args)
    assert out.returncode == 2 and out.stderr.startswith("error: ")
    assert "Traceback" not in out.stderr


def test_cli_frontier_writes_html(tmp_path, wacky):
    target = tmp_path / "frontier.html"
    out = wacky("frontier", "--out", str(target), "--entries", "1e8")
    assert out.returncode == 0, out.stderr
    html = target.read_text()
    assert "Memory vs write amplification" in html and "Range-read cost" in html


def _loaded_after(code: str) -> set[str]:
    """Top-level packages and the modules a fresh interpreter has loaded after ``code``."""
    probe = (f"{code}\nimport sys\n"
             "print(' '.join(sorted({*sys.modules, *(m.split('.')[0] for m in sys.modules)})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.splitlines()[-1].split())


HEAVY = {"typer", "rich", "lz4", "dash", "native_engine", "validation", "wacky_cli"}


def test_the_model_library_loads_no_cli_engine_or_trace_codec():
    assert _loaded_after("import wacky_model, wacky_model.search, wacky_model.figures") & HEAVY \
        == set()


def test_analyze_loads_neither_the_engine_nor_the_dashboard():
    loaded = _loaded_after("from wacky_cli.main import main\n"
                           "main(['analyze', '--preset', 'leveling', '--json'])")
    assert "wacky_model" in loaded
    assert loaded & {"native_engine", "dash", "dashboard", "lz4", "validation.runner"} == set()


def test_every_command_declares_the_shared_flags_alike():
    """One declaration per flag: type and help text agree wherever a flag appears."""
    from typer.main import get_command

    from wacky_cli.main import app

    commands = get_command(app).commands
    seen: dict[str, tuple] = {}
    for name, command in commands.items():
        for param in command.params:
            sig = (param.bare_type(), param.help, param.rich_help_panel)
            for flag in (f for f in param.opts if f.startswith("--")):  # not arguments
                assert seen.setdefault(flag, (name, sig))[1] == sig, (flag, name)
    system = {"--entries", "--entry-bytes", "--block-bytes", "--buffer-bytes", "--sum-fpr",
              "--bits-per-entry"}
    for name in ("analyze", "recommend", "frontier", "validate"):
        assert system <= {f for p in commands[name].params for f in p.opts}, name


def test_errors_name_the_flags_not_the_parameters(wacky):
    out = wacky("recommend", "--writes", "1", "--buffer-bytes", "100")
    assert out.returncode == 2
    assert "--buffer-bytes" in out.stderr and "buffer_bytes" not in out.stderr
    out = wacky("recommend")
    assert out.returncode == 2 and "--trace" in out.stderr


def test_replay_exits_1_when_the_engine_answers_wrongly(tmp_path, wacky):
    """A GET of a key the trace never wrote must find it: the replay reports a miss."""
    import numpy as np

    from wacky_traces import OpKind, build_trace, write_trace

    def phase(name, kind, keys):
        keys = np.asarray(keys, np.uint64)
        return (name, np.full(keys.size, int(kind), np.uint8), keys, np.zeros(keys.size, np.uint64))

    path = tmp_path / "bad.lz4"
    write_trace(path, build_trace([phase("load", OpKind.PUT, [1, 2]), phase("reads", OpKind.GET,
                                                                             [1, 3])],
                                  entry_bytes=32, meta={}))
    out = wacky("replay", str(path))
    assert out.returncode == 1
    assert "error: the engine answered wrongly: 1 reads of existing keys found nothing" \
        in out.stderr
    assert "Traceback" not in out.stderr


def test_validate_refuses_an_unwritable_trace_path_before_running(wacky):
    out = wacky("validate", "--preset", "leveling", "--save-trace", "/nonexistent/dir/t.lz4")
    assert out.returncode == 2
    assert out.stderr.startswith("error: --save-trace: cannot write")


def test_verify_reports_a_sound_directory_and_exits_1_on_damage(tmp_path, wacky):
    from native_engine import Engine

    path = tmp_path / "db"
    with Engine(path, T=4, C=3, entry_bytes=32, block_bytes=256, buffer_bytes=1024) as e:
        for k in range(2000):
            e.put(k, b"x" * 24)
    out = wacky("verify", str(path), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["ok"] and doc["runs"] > 0 and doc["blocks"] > 0
    run = max(path.glob("run-*.sst"), key=lambda p: p.stat().st_size)
    data = bytearray(run.read_bytes())
    data[100] ^= 1
    run.write_bytes(bytes(data))
    out = wacky("verify", str(path))
    assert out.returncode == 1 and "fails its checksum" in out.stderr
    out = wacky("verify", str(tmp_path / "nothing-here"))
    assert out.returncode == 2 and "not an engine directory" in out.stderr


# -- wacky verify: read only, exit 1 on a loss (issue 36) -------------------------------------
VERIFY_DESIGN = dict(T=4, C=3, entry_bytes=32, block_bytes=256, buffer_bytes=1024)
# Writes 20 more entries, then exits without close: they live only in the log.
LIVE_LOG_CHILD = """
import os, sys
from native_engine import Engine
e = Engine(sys.argv[1], T=4, C=3, entry_bytes=32, block_bytes=256, buffer_bytes=1024)
for k in range(20):
    e.put(10_000 + k, bytes([k]) * 24)
os._exit(0)
"""


def _engine_dir(tmp_path, live_log: bool = False):
    """A closed engine directory with runs, and with a live log of 20 unflushed writes."""
    from native_engine import Engine

    path = tmp_path / "db"
    with Engine(path, **VERIFY_DESIGN) as e:
        for k in range(2000):
            e.put(k, b"x" * 24)
    if live_log:
        subprocess.run([sys.executable, "-c", LIVE_LOG_CHILD, str(path)], check=True)
        assert any(p.stat().st_size > 0 for p in path.glob("wal-*.log"))
    return path


def _snapshot(path) -> dict:
    """Every entry under ``path`` (lost/ included): a file's bytes, None for a directory."""
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(path.rglob("*"))}


def test_verify_leaves_the_directory_byte_identical(tmp_path, wacky):
    """Opening would replay and rotate the log and may merge: verify must do neither."""
    path = _engine_dir(tmp_path, live_log=True)
    before = _snapshot(path)
    out = wacky("verify", str(path))
    assert out.returncode == 0, out.stderr
    assert "live logs: " in out.stdout and "20 entries replayed" in out.stdout
    assert "lost/: 0 files" in out.stdout and out.stdout.rstrip().endswith("recoverable")
    assert _snapshot(path) == before
    out = wacky("verify", str(path), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["path"] == str(path) and doc["ok"] and not doc["lost_writes"]
    assert doc["logs"] >= 1 and doc["log_entries"] == 20 and doc["problems"] == []
    assert doc["runs"] > 0 and doc["entries"] >= 2000
    assert _snapshot(path) == before


def test_verify_exits_1_when_the_live_log_is_deleted(tmp_path, wacky):
    path = _engine_dir(tmp_path, live_log=True)
    log = next(p for p in path.glob("wal-*.log") if p.stat().st_size > 0)
    log.unlink()
    before = _snapshot(path)
    out = wacky("verify", str(path), "--json")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    doc = json.loads(out.stdout)
    assert not doc["ok"] and doc["lost_writes"]
    assert any(log.name in problem for problem in doc["problems"])
    assert f"error: {path}: acknowledged writes cannot be recovered" in out.stderr
    out = wacky("verify", str(path))
    assert out.returncode == 1 and log.name in out.stderr
    assert _snapshot(path) == before


def test_verify_exits_1_when_a_run_file_is_deleted(tmp_path, wacky):
    path = _engine_dir(tmp_path)
    run = max(path.glob("run-*.sst"), key=lambda p: p.stat().st_size)
    run.unlink()
    before = _snapshot(path)
    out = wacky("verify", str(path))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert any(line.startswith("error: ") and run.name in line
               for line in out.stderr.splitlines())
    assert "acknowledged writes cannot be recovered" in out.stderr
    doc = json.loads(wacky("verify", str(path), "--json").stdout)
    assert not doc["ok"] and doc["lost_writes"]
    assert _snapshot(path) == before


def test_verify_exits_1_for_runs_without_a_manifest(tmp_path, wacky):
    path = _engine_dir(tmp_path)
    (path / "MANIFEST").unlink()
    before = _snapshot(path)
    out = wacky("verify", str(path))
    assert out.returncode == 1 and "MANIFEST" in out.stderr and "Traceback" not in out.stderr
    assert _snapshot(path) == before


def test_verify_clean_lost_empties_lost_only_when_asked(tmp_path, wacky):
    path = _engine_dir(tmp_path)
    (path / "lost").mkdir(exist_ok=True)
    (path / "lost" / "run-009999.sst").write_bytes(b"z" * 100)
    out = wacky("verify", str(path))
    assert out.returncode == 0 and "lost/: 1 files, 100 bytes" in out.stdout
    assert (path / "lost" / "run-009999.sst").exists()  # reported, not removed
    rest = {k: v for k, v in _snapshot(path).items() if not k.startswith("lost")}
    out = wacky("verify", str(path), "--clean-lost", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cleaned"] == {"files": 1, "bytes": 100}
    assert not (path / "lost").exists() or not any((path / "lost").iterdir())
    assert {k: v for k, v in _snapshot(path).items() if not k.startswith("lost")} == rest


def test_verify_keeps_lost_when_a_problem_is_found(tmp_path, wacky):
    """lost/ may hold what a recovery needs: --clean-lost does not empty it after a failure."""
    path = _engine_dir(tmp_path)
    (path / "lost").mkdir(exist_ok=True)
    (path / "lost" / "run-009999.sst").write_bytes(b"z" * 100)
    min(path.glob("run-*.sst")).unlink()
    out = wacky("verify", str(path), "--clean-lost")
    assert out.returncode == 1 and "lost/ was not emptied" in out.stderr
    assert (path / "lost" / "run-009999.sst").read_bytes() == b"z" * 100


def test_verify_of_a_directory_in_use_exits_2(tmp_path, wacky):
    from native_engine import Engine

    with Engine(tmp_path / "db", **VERIFY_DESIGN):
        out = wacky("verify", str(tmp_path / "db"))
    assert out.returncode == 2 and out.stderr.startswith("error: cannot verify")


def test_validate_runs_the_engine_simulator_as_an_engine(wacky):
    """--engine simulator: the simulator adapter measures the whole-level window, and says what
    it is; what it cannot build is refused naming the flag."""
    out = wacky("validate", "--preset", "leveling", "--T", "4", "--entries", "100000",
                "--buffer-bytes", "65536", "--engine", "simulator", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["engine"] == "simulator" and doc["measured"]["write_amp"] > 1.0
    bad = wacky("validate", "--preset", "leveling", "--engine", "simulator", "--sweep")
    assert bad.returncode == 2 and "leave out --engine simulator" in bad.stderr


@pytest.mark.parametrize("flags, says", [
    (["--granularity", "file", "--log-ratio", "0.1"], "recommend chooses L2SM's log itself"),
    (["--target", "rocksdb", "--log-ratio", "0"], "recommend chooses L2SM's log itself"),
    (["--compaction-buffer"], "recommend does not take --compaction-buffer"),
    (["--granularity", "file", "--l0-partitions", "10"],
     "recommend does not take --l0-partitions"),
])
def test_recommend_refuses_side_run_flags(flags, says, wacky):
    """recommend chooses the log itself and reports the buffer without taking it; a flag for
    either is refused with the reason, not dropped."""
    out = wacky("recommend", "--writes", "0.5", "--point-reads", "0.5", *flags)
    assert out.returncode == 2 and out.stderr.startswith(f"error: {says}")
    off = wacky("recommend", "--writes", "0.5", "--point-reads", "0.5", "--granularity", "file",
                "--no-compaction-buffer", "--json")
    assert off.returncode == 0, off.stderr


def test_analyze_prices_level_0_partitions_on_files_only(wacky):
    """--l0-partitions (OHDB) is priced by analyze on file-granular designs (P6: the same
    bytes) and refused, naming the flag, on whole levels."""
    args = ("analyze", "--T", "10", "--C", "9", "--X", "1", "--K", "0", "--Z", "0",
            "--granularity", "file", "--json")
    one, ten = (json.loads(wacky(*args, "--l0-partitions", p).stdout) for p in ("1", "10"))
    assert ten["write_amp"] == pytest.approx(one["write_amp"], rel=0.05)
    bad = wacky("analyze", "--T", "10", "--C", "9", "--X", "1", "--K", "0", "--Z", "0",
                "--l0-partitions", "10")
    assert bad.returncode == 2 and "--l0-partitions > 1" in bad.stderr


def test_partitions_with_universal_compaction_are_refused_in_flags(wacky):
    """The table's refusal (l0_partitions with universal) reaches the CLI in its flags."""
    out = wacky("export", "--rocksdb", "--T", "4", "--C", "3", "--X", "1", "--K", "1", "--Z",
                "1", "--granularity", "file", "--l0-partitions", "4")
    assert out.returncode == 2
    assert out.stderr.startswith("error: --l0-partitions with universal compaction")
    assert "Compaction(" not in out.stderr
