"""The dashboard's machine profile (issue 34): the upload, the write rate on stock RocksDB (T2,
T3), the time objective on the native engine (T4) and the plot of throughput against the write
share, each against the library and the CLI on the same inputs."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import replace

import pytest
from dashboard_helpers import KNOBS, SYSTEM, WORKLOAD, cli_flags, find, services, text_of

from dashboard import callbacks as cb
from dashboard import layout as L
from wacky_model.config import Configuration
from wacky_model.devices import DeviceProfile, write_profile
from wacky_model.guardrails import WriteRate
from wacky_model.pricing import price
from wacky_model.rocksdb_throughput import report, throughput_text
from wacky_model.rocksdb_tuning import RocksDBConfig, UniversalConfig, recommend_rocksdb
from wacky_model.stalls import stall_text, stock_time, sustainable
from wacky_model.throughput import WRITE_SHARES, at_write_share, in_seconds, ops_per_second

MACHINE = DeviceProfile("test-machine", 500.0, 500.0, 10_000.0, 100.0, cpu_ns_per_put=300.0,
                        cpu_ns_per_entry_merged=150.0, cpu_ns_per_probe=40.0,
                        rocksdb_ns_per_put=1500.0, rocksdb_ns_per_compaction_byte=2.0,
                        rocksdb_ns_per_flush_byte=5.0, cores=2)
FIELDS = {k: v for k, v in MACHINE.to_dict().items() if k != "units"}
# Above what the unconstrained stock pick sustains on MACHINE (about 108k/s), within what some
# leveled configurations do (up to about 160k/s). Universal compaction's T2 is higher, but on
# this system (2^31 entries) a full merge holds the compaction thread for minutes and level 0
# fills: T3u refuses it at any rate above RocksDB's delayed write rate (about 128k/s here).
RATE = 150_000.0
SVC = services()


def _views(system=None, machine=None, mode="recommend", knobs=None):
    return cb.update_views(dict(WORKLOAD), {**SYSTEM, **(system or {})}, mode,
                           {**KNOBS, **(knobs or {})}, "optimized", SVC, machine)


def _upload(doc) -> str:
    """What dcc.Upload sends for a file: a data URL of its bytes."""
    raw = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def _stock(current: dict):
    """The stock RocksDB configuration the page picked (leveled or universal)."""
    fields = current["rocksdb"]
    return (UniversalConfig.from_dict(fields) if "options" in fields
            else RocksDBConfig(**fields))


def _number(text: str) -> float:
    return float(text.replace(",", ""))


# --------------------------------------------------------------------------- the upload


def test_the_profile_upload_parses_the_file_calibrate_writes(tmp_path):
    path = tmp_path / "profile.json"
    write_profile(MACHINE, path)  # what `wacky calibrate --out` writes, units and all
    fields, status = cb.parse_profile_upload(_upload(path.read_bytes()), "profile.json")
    assert DeviceProfile.from_dict(fields) == MACHINE
    assert "test-machine" in status and "profile.json" in status
    assert cb.parse_profile_upload(None, None) == (None, "No profile: costs in I/O only.")


@pytest.mark.parametrize("doc, says", [
    ({**FIELDS, "seq_write_mb_s": -1}, "seq_write_mb_s (sequential write bandwidth"),
    ({**FIELDS, "iops": 3}, "has unknown fields: iops"),
    ({k: v for k, v in FIELDS.items() if k != "rand_read_iops"}, "lacks rand_read_iops"),
    (b"{not json", "is not a JSON profile"),
    ([1, 2], "must be a JSON object"),
])
def test_a_bad_profile_names_the_control_the_file_and_the_field(doc, says):
    fields, status = cb.parse_profile_upload(_upload(doc), "mine.json")
    assert fields is None
    assert status.startswith(f"{L.PROFILE_LABEL}: ") and "mine.json" in status
    assert says in status


def test_the_machine_fields_show_only_where_they_apply():
    hidden, shown = {"display": "none"}, {"display": "block"}
    assert cb.machine_fields_shown(None, "rocksdb") == (hidden, hidden)
    assert cb.machine_fields_shown(FIELDS, "rocksdb") == (shown, shown)
    assert cb.machine_fields_shown(FIELDS, "native") == (hidden, shown)
    for key in (L.PROFILE, L.WRITE_RATE[0], L.OBJECTIVE[0]):
        assert cb.HELP.CONTROLS[key]
    assert "not in the link" in cb.HELP.CONTROLS[L.PROFILE]


# --------------------------------------------------------------------------- stock RocksDB


def test_the_write_rate_constrains_the_stock_pick_as_the_cli_flag_does(wacky, tmp_path):
    free = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS})
    out = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS, L.WRITE_RATE[0]: "150,000"})
    assert out[L.MESSAGE] == [] and free[L.MESSAGE] == []
    workload, system = cb.parse_workload(WORKLOAD), cb.parse_system(SYSTEM)
    constraints = replace(cb.parse_constraints(SYSTEM), write_rate=WriteRate(RATE, MACHINE))
    report = recommend_rocksdb(workload, system, constraints)
    picked = _stock(out[L.CURRENT])
    assert picked == report.best.config != _stock(free[L.CURRENT])
    assert sustainable(report.best.costs.write_amp, system.entry_bytes, MACHINE) >= RATE
    # The card's time lines are the library's (the CLI prints the same).
    t = stock_time(report, system, MACHINE, RATE)
    card = text_of(out[L.CARD])
    assert stall_text("Recommended", t["recommended"]) in card
    assert stall_text("RocksDB's defaults", t["defaults"]) in card
    assert "no stall predicted" in card and "writes stall after" in card
    # The CLI with --write-rate picks the same options.
    profile = tmp_path / "machine.json"
    write_profile(MACHINE, profile)
    run = wacky("recommend", *cli_flags(workload, system, False), "--target", "rocksdb",
                "--profile", str(profile), "--write-rate", str(RATE), "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["best"]["options"] == picked.to_dict()
    assert doc["time"]["recommended"]["sustainable_rate"] == pytest.approx(
        t["recommended"]["sustainable_rate"], rel=1e-9)


def test_no_stock_pick_falls_below_the_write_rate():
    for rate in (5e4, 1.2e5, 1.5e5):
        out = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS, L.WRITE_RATE[0]: rate})
        assert out[L.MESSAGE] == []
        rate_line = re.search(r"Recommended: sustains ([\d,]+) inserts/s", text_of(out[L.CARD]))
        assert rate_line and _number(rate_line.group(1)) >= rate, rate
        assert out[L.CURRENT]["rocksdb"] is not None
    # More than any stock configuration sustains: the search's refusal, as the CLI's.
    out = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS, L.WRITE_RATE[0]: 1e9})
    assert out[L.CURRENT] is None
    assert "no stock RocksDB configuration meets" in text_of(out[L.MESSAGE])


def test_bad_machine_inputs_name_the_fields():
    out = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS, L.WRITE_RATE[0]: "-5"})
    assert "Write rate (inserts/s; empty: none): must be above 0" in text_of(out[L.MESSAGE])
    no_rocksdb = {**FIELDS, "rocksdb_ns_per_put": None}
    out = _views({"target": "rocksdb"}, {L.PROFILE: no_rocksdb})
    assert f"{L.PROFILE_LABEL}: test-machine has no RocksDB figures" in text_of(out[L.MESSAGE])
    no_cpu = {**FIELDS, "cpu_ns_per_probe": None}
    out = _views(machine={L.PROFILE: no_cpu, L.OBJECTIVE[0]: "throughput"})
    assert "has no CPU costs" in text_of(out[L.MESSAGE])
    out = _views({"probe-cost": 0.1}, {L.PROFILE: FIELDS, L.OBJECTIVE[0]: "throughput"})
    assert "Probe cost (block reads): “Objective: Time per operation”" in text_of(
        out[L.MESSAGE])
    # A field that does not apply to the target is hidden, and not read.
    assert _views(machine={L.PROFILE: FIELDS, L.WRITE_RATE[0]: "-5"})[L.MESSAGE] == []


def test_the_time_objective_on_stock_rocksdb_is_the_librarys_t7():
    reads = {"rocksdb_ns_per_get": 4000.0, "rocksdb_ns_per_zero_get": 2000.0,
             "rocksdb_ns_per_seek": 8000.0, "rocksdb_ns_per_next": 200.0}
    machine = replace(MACHINE, **reads)
    fields = {k: v for k, v in machine.to_dict().items() if k != "units"}
    out = _views({"target": "rocksdb"}, {L.PROFILE: fields, L.OBJECTIVE[0]: "throughput"})
    assert out[L.MESSAGE] == []
    workload, system = cb.parse_workload(WORKLOAD), cb.parse_system(SYSTEM)
    constraints = cb.parse_constraints(SYSTEM)
    t7 = recommend_rocksdb(workload, system, constraints, throughput_on=machine)
    io = recommend_rocksdb(workload, system, constraints)
    assert _stock(out[L.CURRENT]) == t7.best.config != io.best.config
    assert throughput_text(report(t7, io.best, machine)) in text_of(out[L.CARD])
    # Without RocksDB's read figures the objective is refused, naming the profile.
    out = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS, L.OBJECTIVE[0]: "throughput"})
    assert f"{L.PROFILE_LABEL}: test-machine has no RocksDB read figures" in text_of(
        out[L.MESSAGE])


# --------------------------------------------------------------------------- native engine


def test_the_time_objective_gives_the_clis_ops_per_second(wacky, tmp_path):
    out = _views(machine={L.PROFILE: FIELDS, L.OBJECTIVE[0]: "throughput"})
    assert out[L.MESSAGE] == []
    workload, system = cb.parse_workload(WORKLOAD), cb.parse_system(SYSTEM)
    profile = tmp_path / "machine.json"
    write_profile(MACHINE, profile)
    run = wacky("recommend", *cli_flags(workload, system, False), "--objective", "throughput",
                "--profile", str(profile), "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert out[L.CURRENT]["configuration"] == doc["configuration"]
    card = text_of(out[L.CARD])
    got = re.search(r"on test-machine\): ([\d,]+) operations/s; .* does ([\d,]+)/s", card)
    assert got, card
    assert _number(got.group(1)) == pytest.approx(doc["time"]["ops_per_second"], abs=0.5)
    assert _number(got.group(2)) == pytest.approx(doc["time"]["io_pick"]["ops_per_second"],
                                                  abs=0.5)
    assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(doc["cost"],
                                                                            rel=1e-3)


def test_the_plot_has_each_family_and_the_pick_at_ops_per_second():
    out = _views(machine={L.PROFILE: FIELDS})
    assert out[L.MESSAGE] == []
    fig = out[L.THROUGHPUT]
    alternatives = out[L.ALTERNATIVES]
    names = [t.name for t in fig.data]
    family = text_of(find(out[L.CARD], "card-family"))
    pick = f"{family} (T={out[L.CURRENT]['design']['T']:.3g})"
    assert names == [a["family"] for a in alternatives] + [pick]
    assert all(list(t.x) == list(WRITE_SHARES) for t in fig.data)
    workload, system = cb.parse_workload(WORKLOAD), cb.parse_system(SYSTEM)
    seconds = in_seconds(system, MACHINE)
    rec = cb.recommend(workload, system, space=SVC.space_for(system, cb.parse_constraints(
        SYSTEM)), constraints=cb.parse_constraints(SYSTEM))
    designs = {a.family: Configuration(a.design) for a in rec.alternatives}
    designs[pick] = rec.configuration
    for trace in fig.data:
        for share, y in zip(WRITE_SHARES, trace.y, strict=True):
            mix = at_write_share(workload, share)
            theta = price(replace(designs[trace.name], memory=None), mix, seconds).theta
            assert y == pytest.approx(ops_per_second(theta, mix, MACHINE), rel=1e-4)
    # All reads and all writes: the mix's ends.
    assert at_write_share(workload, 0.0).writes == 0.0
    assert at_write_share(workload, 1.0).writes == 1.0


def test_without_a_profile_the_plot_says_what_it_needs():
    fig = _views()[L.THROUGHPUT]
    assert not fig.data and "needs a machine profile" in fig.layout.annotations[0].text
    fig = _views({"target": "rocksdb"}, {L.PROFILE: FIELDS})[L.THROUGHPUT]
    assert not fig.data and "choose “Target: This project's engine”" in \
        fig.layout.annotations[0].text
