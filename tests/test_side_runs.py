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


def test_side_runs_compose_with_files_but_not_with_each_other() -> None:
    for side in (dict(log=Log(0.1)), dict(buffer=Buffer(trim=0.8))):
        c = Compaction(granularity="file", file_bytes=1 << 18, level1_runs=4, **side)
        assert not c.is_default
    with pytest.raises(ValueError, match="cannot be combined"):
        Compaction(granularity="file", log=Log(0.1), buffer=Buffer())


# -- LSbM's compaction buffer in the model (B1) --------------------------------------------------

def _buffer_costs(read_keys: str, buffer: Buffer | None, cache_share: float = 0.03,
                  writes: float = 0.5):
    from wacky_model.skew import file_skew_costs
    from wacky_model.types import Design, System, Workload

    n = 200_000
    w = Workload(point_reads=1.0 - writes, writes=writes, read_keys=read_keys,
                 update_fraction=1.0, correlated=False)
    s = System(entries=n, entry_bytes=128, block_bytes=4096, buffer_bytes=64 << 10,
               bits_per_entry=5, cache_bytes=int(cache_share * n * 128))
    return file_skew_costs(Design(T=10, C=9, X=1, K=0, Z=0), s,
                           Compaction("file", 64 << 10, 1, buffer=buffer), w, history_writes=n)


def test_the_buffer_keeps_a_hot_range_cached_for_a_little_space() -> None:
    off, on = _buffer_costs("hotrange:0.02:0.98", None), _buffer_costs("hotrange:0.02:0.98",
                                                                       Buffer())
    assert on.cache_hit_rate > off.cache_hit_rate
    assert on.point_read < off.point_read
    assert 0.0 < on.buffer_space <= 0.10  # the hot files of Levels 2..L, not the tree
    assert on.buffer_kept[0] == 0.0  # Level 1 has no buffer: flushes enter it without a file
    assert on.write_amp == off.write_amp  # buffering moves no bytes


def test_the_buffer_costs_nothing_where_the_trim_keeps_nothing() -> None:
    # Reads spread over the keys: no file has 80% of its blocks cached, the trim drops them all.
    off, on = _buffer_costs("zipf:0.9", None), _buffer_costs("zipf:0.9", Buffer())
    assert on.cache_hit_rate == pytest.approx(off.cache_hit_rate, abs=1e-12)
    assert on.buffer_space == 0.0
    # Without a cache there is nothing to keep warm.
    off, on = (_buffer_costs("hotrange:0.02:0.98", b, cache_share=0.0) for b in (None, Buffer()))
    assert on.point_read == off.point_read and on.buffer_space == 0.0


@pytest.mark.parametrize("read_keys, pays", [("hotrange:0.02:0.98", True), ("zipf:0.9", False)])
def test_recommend_prices_the_buffer_but_takes_it_only_once_the_engine_confirms_it(
        read_keys, pays) -> None:
    from wacky_model import granularity
    from wacky_model.search import recommend
    from wacky_model.types import System, Workload

    w = Workload(point_reads=0.3, writes=0.7, read_keys=read_keys, update_fraction=1.0,
                 correlated=False)
    r = recommend(w, System(entries=1e6, cache_bytes=int(0.03e6 * 128)), granularity="file")
    doc = r.to_dict()
    priced = doc["granularity_choice"]["file"]["compaction_buffer"]
    assert (priced["theta_with"] < priced["theta_without"] * (1 - granularity.BUFFER_GAIN)) is pays
    # B1 is not confirmed by the engine (docs/VALIDATION.md, LSbM): it informs, it never picks.
    assert not granularity.BUFFER_CHOSEN
    assert r.compaction.buffer is None and not priced["chosen"]
    assert not doc["compaction"]["compaction_buffer"]
    assert ("on the native engine it has not" in doc["granularity_choice"]["reason"]) is pays


def test_the_side_run_case_sets_pair_each_mechanism_with_the_same_run_without_it() -> None:
    from validation import side_runs
    from validation.scale import Scale
    from validation.sweep import MARKERS, SWEEPS, SweepResult

    assert {"lsbm", "l2sm"} <= set(SWEEPS) and {"lsbm", "l2sm"} <= set(MARKERS)
    for name, flag in (("lsbm", "buffer"), ("l2sm", "log")):
        cases = side_runs.SETS[name].cases(Scale(), {"bits_per_entry": 5.0})
        on = [c for c in cases if getattr(c.options["compaction"], flag) is not None]
        off = [c for c in cases if getattr(c.options["compaction"], flag) is None]
        assert len(on) == len(off) > 0
        for a, b in zip(off, on, strict=True):  # same workload, scale and seed
            assert a.options["workload"] == b.options["workload"]
            assert a.options["scale"] == b.options["scale"] and a.design == b.design
        known = side_runs.lsbm_cases() if name == "lsbm" else side_runs.l2sm_cases()
        fake = [SweepResult(c, object()) for c in cases]  # type: ignore[arg-type]
        assert len(side_runs._pairs(fake, known)) == len(off)


def test_the_hit_rate_timeline_is_fine_enough_to_show_a_merge_s_drop(tmp_path) -> None:
    """The skew run's hit rate in fine slices (SkewReads.fine_points) adds up to its mean, and
    the LSbM section's drop is the median slice less the lowest."""
    from validation import side_runs
    from validation.runner import validate
    from validation.scale import Scale

    sc = side_runs.lsbm_scale(Scale())
    case = side_runs.LsbmCase(10, False)
    r = validate(case.design, workload=side_runs.LSBM_WORKLOAD, scale=sc, bits_per_entry=5,
                 cache_bytes=side_runs.lsbm_cache(sc), compaction=case.compaction,
                 workdir=tmp_path)
    skew = r.detail("skew")
    fine, coarse = skew["fine_timeline"], skew["timeline"]
    assert 150 <= len(fine) <= 200 and 15 <= len(coarse) <= 20
    rates = np.array([p["hit_rate"] for p in fine])
    assert np.all((rates >= 0) & (rates <= 1))
    assert np.all(np.diff([p["writes"] for p in fine]) > 0)
    assert abs(rates.mean() - r.measured.cache_hit_rate) < 0.02  # slices of equal writes
    assert side_runs._drop(r) == pytest.approx(np.median(rates) - rates.min())
    assert side_runs._drop(r) > 0.1  # merges through the hot range do drop it
