"""Side runs of a level: L2SM's per-level log and LSbM's compaction buffer (issue 32).

The configuration's option groups, the log sizes (the paper's inverse-proportional rule) and
the engine's copy of them."""

from __future__ import annotations

import numpy as np
import pytest

from cost_models.structure import log_capacities
from wacky_model.types import Buffer, Compaction, Log


def test_log_sizes_follow_the_inverse_proportional_rule() -> None:
    caps = np.array([1e4, 1e5, 1e6, 1e7])
    logs = log_capacities(caps, 0.1)
    assert logs[-1] == 0.0  # Level L has no log
    assert logs[:-1].sum() == pytest.approx(0.1 * caps.sum(), rel=1e-9)
    lam = logs[0] / caps[0]
    assert logs[:-1] / caps[:-1] == pytest.approx(lam ** np.arange(1, 4), rel=1e-9)
    assert not log_capacities(caps, 0.0).any()
    assert not log_capacities(caps[:1], 0.5).any()  # one level: nothing above Level L


def test_the_engine_sizes_its_logs_as_the_model_does() -> None:
    from native_engine._engine import testing as t

    for caps, omega in (([3e3, 2.7e4, 2.4e5], 0.1), ([1e4, 4e4, 1.6e5, 6.4e5, 2.56e6], 0.3),
                        ([5e3, 5e4], 1.0), ([8e3], 0.2)):
        assert t.log_capacities(caps, omega) == pytest.approx(
            list(log_capacities(caps, omega)), rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("kwargs, message", [
    (dict(log=Log(0.1)), "granularity='file'"),
    (dict(buffer=Buffer()), "granularity='file'"),
    (dict(granularity="file", log=0.1), "log must be a Log"),
])
def test_side_runs_need_file_granular_native_compaction(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        Compaction(**kwargs)


@pytest.mark.parametrize("make, message", [
    (lambda: Log(0.0), "log ratio must be in"), (lambda: Log(1.5), "log ratio"),
    (lambda: Log(0.1, alpha=2), "log alpha"), (lambda: Log(0.1, batch_cap=0.5), "batch_cap"),
    (lambda: Log(0.1, hotness="lru"), "hotness"), (lambda: Buffer(trim=1.2), "buffer trim"),
    (lambda: Buffer(interval=0), "buffer interval"),
])
def test_bad_side_run_options_are_named(make, message) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_side_runs_compose_with_files() -> None:
    c = Compaction(granularity="file", file_bytes=1 << 18, level1_runs=4, log=Log(0.1),
                   buffer=Buffer(trim=0.8))
    assert not c.is_default and c.log is not None and c.buffer is not None
