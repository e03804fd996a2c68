"""Sweeps on Dask (issue 30): a real scheduler and two worker processes on localhost measure what
a local cluster measures; a worker killed mid-sweep loses no case; finished cases are cached, a
corrupted entry runs again; a failing case is reported while the others finish.

The smoke set runs twice (locally and on the scheduler), 10-20 s each on a 2-core machine.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import run_wacky

from validation.scale import Scale
from validation.sweep import Cache, SweepCase, _client, case_set, run_cases, scratch_dir
from wacky_model.types import Design

DASK = Path(sys.executable).parent / "dask"
BUDGET = {"bits_per_entry": 5.0}
TINY = Scale(entries=20_000, buffer_bytes=1 << 14, reads=300, mix_ops=0)


@dataclass
class Cluster:
    address: str
    workers: list[subprocess.Popen]


@contextmanager
def dask_cluster(tmp: Path, n_workers: int = 2) -> Iterator[Cluster]:
    """``dask scheduler`` and ``dask worker`` processes on localhost, each the leader of its own
    process group (a worker's nanny and its worker process die together), killed at the end."""
    from distributed import Client

    tmp.mkdir(parents=True, exist_ok=True)
    spawned: list[subprocess.Popen] = []

    def start(*args: str, log: str) -> subprocess.Popen:
        # TMPDIR: the cases' directories here, not in memory (/dev/shm), where a killed
        # worker's would stay until the machine restarts
        with open(tmp / log, "wb") as out:
            spawned.append(subprocess.Popen([str(DASK), *args], stdout=out, stderr=out,
                                            start_new_session=True, cwd=tmp,
                                            env={**os.environ, "TMPDIR": str(tmp)}))
        return spawned[-1]

    try:
        info = tmp / "scheduler.json"
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(info), log="scheduler.log")
        # The scheduler creates the file and then writes it: wait for whole JSON, not the name.
        deadline, address = time.monotonic() + 60, None
        while address is None and time.monotonic() < deadline:
            try:
                address = json.loads(info.read_text())["address"]
            except (FileNotFoundError, json.JSONDecodeError, KeyError):
                time.sleep(0.1)
        if address is None:
            raise RuntimeError(f"the dask scheduler wrote no address to {info} within 60 s")
        workers = [start("worker", address, "--nthreads", "1", "--no-dashboard",
                         "--memory-limit", "0", "--local-directory", str(tmp / f"w{i}"),
                         log=f"worker{i}.log") for i in range(n_workers)]
        with Client(address) as client:
            client.wait_for_workers(n_workers, timeout=60)
        yield Cluster(address, workers)
    finally:
        for proc in spawned:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    with dask_cluster(tmp_path_factory.mktemp("dask")) as running:
        yield running


@dataclass
class Sweep:
    out: Path
    cache: Path
    stderr: str

    def measured(self) -> dict:
        """Each case's measured costs, from the cache the sweep wrote."""
        found = [pickle.loads(p.read_bytes()) for p in (self.cache / "smoke").glob("*.pkl")]
        return {r.name: r.result.measured for r in found}


def smoke(tmp: Path, *args: str, cache: Path | None = None) -> Sweep:
    out, cache = tmp / "VALIDATION.md", cache or tmp / "cache"
    done = run_wacky("sweep", "smoke", "--out", str(out), "--cache-dir", str(cache), *args)
    assert done.returncode == 0, done.stderr
    return Sweep(out, cache, done.stderr)


@pytest.fixture(scope="module")
def local(tmp_path_factory) -> Sweep:
    return smoke(tmp_path_factory.mktemp("local"), "--workers", "2")


@pytest.fixture(scope="module")
def remote(tmp_path_factory, cluster) -> Sweep:
    return smoke(tmp_path_factory.mktemp("remote"), "--scheduler", cluster.address)


def test_a_sweep_on_a_dask_scheduler_measures_what_a_local_one_does(local, remote) -> None:
    assert len(remote.measured()) == 8 and "refused" not in remote.stderr
    assert remote.measured() == local.measured()  # the engines are deterministic for a seed
    assert remote.out.read_text() == local.out.read_text()


def test_a_second_run_takes_every_case_from_the_cache(remote, tmp_path) -> None:
    measured = remote.measured()
    again = smoke(tmp_path, cache=remote.cache)
    lines = [line for line in again.stderr.splitlines() if "/8 smoke: " in line]
    assert len(lines) == 8 and all(": cached" in line for line in lines)
    assert "(8 runs, 8 of them cached)" in again.stderr
    assert again.out.read_text() == remote.out.read_text()

    # A torn or foreign entry is ignored and its case runs again; --fresh ignores them all.
    entry = sorted((remote.cache / "smoke").glob("*.pkl"))[0]
    entry.write_bytes(b"not a pickle")
    again = smoke(tmp_path, "--workers", "1", cache=remote.cache)
    assert "(8 runs, 7 of them cached)" in again.stderr
    assert again.out.read_text() == remote.out.read_text()
    assert remote.measured() == measured  # the entry is whole again
    # The key the command used: its default scale.
    first = case_set("smoke").cases(Scale(), BUDGET)[0]
    assert Cache(remote.cache, "smoke").get(first, Scale(), BUDGET).result.measured == measured[
        first.name]
    assert Cache(remote.cache, "smoke", fresh=True).get(first, Scale(), BUDGET) is None


def test_a_failing_case_is_reported_and_the_others_finish(cluster) -> None:
    cases = [SweepCase("Leveling", "t", Design(4, 3, 1, 0, 0)),
             SweepCase("no such engine", "t", Design(4, 3, 1, 0, 0), {"engine": "nope"}),
             SweepCase("not a measure", "t", None, {"x": 2.0}, measure=math.sqrt),
             SweepCase("Tiering", "t", Design(4, 3, 1, 1, 1))]
    refused: list[tuple[str, str]] = []
    notes: dict[str, str] = {}
    results = run_cases(cases, TINY, BUDGET, scheduler=cluster.address,
                        refused=refused, on_done=lambda _d, _t, name, note: notes.update(
                            {name: note}))
    assert [r.name for r in results] == ["Leveling", "Tiering"]
    assert dict(refused)["no such engine"].startswith("engine must be one of")
    assert dict(refused)["not a measure"].startswith("TypeError: ")
    assert notes["no such engine"].startswith("failed: engine must be one of")
    assert notes["Leveling"].endswith(" s")
    with pytest.raises(ValueError, match="engine must be one of"):  # no list: the error stops it
        run_cases(cases[1:2], TINY, BUDGET, workers=1)


def test_workers_running_other_code_are_refused(cluster, tmp_path) -> None:
    """Results are filed by this machine's code version: workers on another would mislabel."""
    stale = Cache(tmp_path, "t", version="not-this-code")
    with pytest.raises(ValueError, match="--scheduler: the workers at .* run other code"):
        run_cases([SweepCase("Leveling", "t", Design(4, 3, 1, 0, 0))], TINY, BUDGET,
                  scheduler=cluster.address, cache=stale)


def test_a_worker_killed_mid_sweep_loses_no_case(tmp_path) -> None:
    from distributed import Client

    cases = [SweepCase(f"{name} T={T}", "t", Design(T, T - 1, 1, *kz))
             for T in (3, 4, 5) for name, kz in (("Leveling", (0, 0)), ("Tiering", (1, 1)))]
    killed: list[str] = []
    with dask_cluster(tmp_path) as running, Client(running.address) as spy:
        groups = spy.run(os.getpgrp)  # worker address -> its `dask worker` process group

        def kill_after_the_first(done: int, *_: object) -> None:
            """Kill (nanny and worker) a worker that is running a case."""
            if done == 1:
                busy, keys = next((a, k) for a, k in spy.processing().items() if k)
                killed.extend(keys)
                os.killpg(groups[busy], signal.SIGKILL)

        refused: list[tuple[str, str]] = []
        results = run_cases(cases, Scale.small(), BUDGET, scheduler=running.address,
                            refused=refused, on_done=kill_after_the_first)
        assert any(w.poll() is not None for w in running.workers)
    assert killed  # a case was lost with the worker ...
    assert not refused, refused  # ... and the scheduler ran it again on the other one
    assert [r.name for r in results] == [c.name for c in cases]


def test_the_local_cluster_has_a_worker_here_and_leaves_malloc_as_this_process_has_it() -> None:
    """One worker in this process (warm: it starts the first case at once), the others processes
    of their own, none with Dask's MALLOC_TRIM_THRESHOLD_ (it makes every allocation over 128 KiB
    an mmap of its own: page faults that cost the engines system time)."""
    with _client(2, None) as client:
        client.wait_for_workers(2, timeout=60)
        pids = client.run(os.getpid)
        malloc = client.run(os.getenv, "MALLOC_TRIM_THRESHOLD_")
    assert os.getpid() in pids.values() and len(set(pids.values())) == 2
    assert set(malloc.values()) == {os.getenv("MALLOC_TRIM_THRESHOLD_")}


def test_a_case_runs_in_memory_when_there_is_room(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)
    assert scratch_dir(TINY, tmp_path) == str(tmp_path)
    big = Scale(entries=10**9, entry_bytes=1 << 16, block_bytes=1 << 16)  # 64 TiB of data
    assert scratch_dir(big, tmp_path) is None
    assert scratch_dir(TINY, tmp_path / "no such directory") is None
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert scratch_dir(TINY, tmp_path) is None  # a TMPDIR of one's own is kept


@pytest.mark.parametrize("args, message", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--scheduler", "localhost"], "--scheduler: no Dask scheduler at localhost"),
    (["--cache-dir", "/proc/no/such"], "--cache-dir: cannot write /proc/no/such"),
])
def test_bad_sweep_flags_exit_2_naming_the_flag(args, message, tmp_path) -> None:
    done = run_wacky("sweep", "smoke", "--out", str(tmp_path / "V.md"), "--cache-dir",
                     str(tmp_path), *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
