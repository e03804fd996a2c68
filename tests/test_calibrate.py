"""``wacky calibrate`` and device profiles (issue 34): the profile's checks and JSON file, direct
I/O on a real directory, tmpfs refused, the engine's CPU figures, and the command's flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validation.calibrate import measure_cpu, measure_storage
from wacky_model.devices import DeviceProfile, read_profile, write_profile

GOOD = dict(name="disk", seq_write_mb_s=500.0, seq_read_mb_s=900.0, rand_read_iops=20_000.0,
            rand_read_latency_us=50.0)


def test_a_profile_checks_its_numbers_and_round_trips(tmp_path) -> None:
    p = DeviceProfile(**GOOD)
    assert p.block_read_seconds() == pytest.approx(5e-5)
    path = tmp_path / "p.json"
    write_profile(p, path)
    assert read_profile(path) == p
    assert json.loads(path.read_text())["units"]["seq_write_mb_s"].startswith("sequential")
    with pytest.raises(ValueError, match=r"seq_read_mb_s \(sequential read"):
        DeviceProfile(**{**GOOD, "seq_read_mb_s": 0})
    with pytest.raises(ValueError, match="block_bytes must be a power of two"):
        DeviceProfile(**GOOD, block_bytes=1000)
    with pytest.raises(ValueError, match="unknown fields: iops"):
        DeviceProfile.from_dict({**GOOD, "iops": 3})
    with pytest.raises(ValueError, match="lacks rand_read_iops"):
        DeviceProfile.from_dict({k: v for k, v in GOOD.items() if k != "rand_read_iops"})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=f"{bad} is not a JSON profile"):
        read_profile(bad)
    with pytest.raises(ValueError, match="no profile at"):
        read_profile(tmp_path / "none.json")


def test_storage_is_measured_with_direct_io(tmp_path) -> None:
    m = measure_storage(tmp_path, 4 << 20, random_seconds=0.1)
    assert all(v > 0 for v in m.values())
    assert m["rand_read_latency_us"] == pytest.approx(1e6 / m["rand_read_iops"])
    assert not list(tmp_path.iterdir())  # the scratch file is gone
    with pytest.raises(ValueError, match="--size-mib must be at least 4"):
        measure_storage(tmp_path, 1 << 20)
    shm = Path("/dev/shm")
    if shm.is_dir():
        with pytest.raises(ValueError, match="a file system in memory"):
            measure_storage(shm, 4 << 20, random_seconds=0.1)


def test_the_engines_cpu_is_timed() -> None:
    m = measure_cpu(entries=20_000, rounds=1)
    assert all(0 < m[k] < 1e6 for k in ("cpu_ns_per_put", "cpu_ns_per_entry_merged",
                                         "cpu_ns_per_probe"))
    with pytest.raises(ValueError, match="rounds must be an integer >= 1"):
        measure_cpu(rounds=0)


def test_the_put_is_the_least_of_its_loads_and_the_rest_their_rounds_median() -> None:
    """A busy neighbour only adds to a put, so the put is the least of its loads; one slow round
    moves no other figure: each is its rounds' median."""
    from validation.calibrate import _cpu_figures

    def round_(load: float, probe: float) -> dict[str, float]:
        return {"entries": 1000, "load_seconds": load * 1e-6, "written": 4000,
                "probe_seconds": probe * 1e-6, "probes": 2000}

    got = _cpu_figures([377e-9, 350e-9, 140e-9, 139e-9, 150e-9, 141e-9],
                       [round_(1377, 60), round_(1900, 300), round_(1340, 62), round_(1339, 58),
                        round_(1350, 64)])
    assert got["cpu_ns_per_put"] == pytest.approx(139)
    assert got["cpu_ns_per_entry_merged"] == pytest.approx((1350 - 139) / 4)
    assert got["cpu_ns_per_probe"] == pytest.approx(31)


def test_the_command_prints_and_writes_a_profile(wacky, tmp_path) -> None:
    out = tmp_path / "profile.json"
    run = wacky("calibrate", "--dir", str(tmp_path), "--size-mib", "4", "--random-seconds",
                "0.1", "--no-cpu", "--out", str(out), "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["seq_write_mb_s"] > 0 and doc["cpu_ns_per_probe"] is None
    assert read_profile(out).seq_write_mb_s == doc["seq_write_mb_s"]
    for args, says in ((["--size-mib", "1"], "--size-mib must be at least 4"),
                       (["--dir", str(tmp_path / "none")], "is not a directory"),
                       (["--random-seconds", "0"], "--random-seconds must be in")):
        bad = wacky("calibrate", "--dir", str(tmp_path), "--no-cpu", *args)
        assert bad.returncode == 2 and says in bad.stderr, bad.stderr
