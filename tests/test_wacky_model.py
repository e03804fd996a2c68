"""wacky_model: types validate their input, presets match Figure 8, analyze reports every cost."""

import math

import numpy as np
import pytest

from wacky_model import Design, System, Workload, analyze, analyze_many, preset

PAPER = System(entries=2**31, bits_per_entry=5.0)


@pytest.mark.parametrize(
    "name, knobs",
    [
        ("leveling", dict(C=9.0, X=1.0, K=0.0, Z=0.0)),
        ("tiering", dict(C=9.0, X=1.0, K=1.0, Z=1.0)),
        ("lazy-leveling", dict(C=9.0, X=1.0, K=1.0, Z=0.0)),
        ("cll", dict(C=1.0, X=1.0, K=1.0, Z=0.0)),
        ("plain-leveling", dict(C=9.0, X=1.0, K=0.0, Z=0.0)),
        ("plain-tiering", dict(C=9.0, X=1.0, K=1.0, Z=1.0)),
    ],
)
def test_presets_match_figure_8_columns(name, knobs):
    d = preset(name, T=10)
    assert d.T == 10
    assert {k: getattr(d, k) for k in knobs} == knobs
    assert d.filters == ("uniform" if name.startswith("plain") else "optimized")


def test_scll_caps_at_the_number_of_levels_and_qlsm_bush_is_quadratic():
    d = preset("scll", T=4, system=PAPER)
    assert (d.X, d.K, d.Z) == (1.0, 1.0, 0.0)
    assert d.C == pytest.approx(math.log(PAPER.buffers, 4))
    # C = log_T(N/F) approximates L: analyze's L is within one of it.
    assert abs(len(analyze(d, PAPER).levels) - d.C) <= 1.5
    q = preset("qlsm-bush")
    assert (q.T, q.C, q.X, q.K, q.Z) == (2.0, 1.0, 2.0, 1.0, 0.0)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (("nope",), {}, "preset must be one of leveling, tiering, lazy-leveling, cll, scll, "
                        "qlsm-bush, plain-leveling, plain-tiering; got 'nope'"),
        (("leveling", 1.5), {}, "T must be >= 2; got 1.5"),
        (("leveling",), dict(C=2.0), "C is fixed by the leveling preset; only cll and qlsm-bush "
                                     "take C"),
        (("scll",), {}, "the scll preset needs the system: its C is log_T"),
        (("cll",), dict(C=0.5), "C must be >= 1"),
    ],
)
def test_bad_presets_are_refused(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        preset(*args, **kwargs)


def test_cll_and_qlsm_bush_take_c():
    assert preset("cll", T=6, C=3).C == 3.0
    assert preset("qlsm-bush", C=2).knobs == {"T": 2.0, "C": 2.0, "X": 2.0, "K": 1.0, "Z": 0.0}


def test_analyze_reproduces_figure_11():
    system = System(entries=131072 * 65536, sum_fpr=0.1)
    assert system.buffers == 131072
    result = analyze(preset("qlsm-bush"), system)
    assert [r.runs for r in result.levels] == pytest.approx([255, 15, 3, 1, 1])
    assert [round(r.buffer_multiple) for r in result.levels] == [510, 7680, 24576, 32768, 65536]
    assert result.sum_fpr == pytest.approx(0.1)
    assert result.fence_bits_per_entry == 4.0


def test_analyze_theta_is_eq_16():
    w = Workload(point_reads=0.3, zero_reads=0.2, writes=0.4, range_reads=0.1, range_blocks=2)
    r = analyze(preset("lazy-leveling"), PAPER, w)
    expected = 0.3 * r.point_read + 0.2 * r.zero_result_read + 0.4 * r.write_cost
    expected += 0.1 * (r.range_runs + 2 * sum(x.capacity_entries for x in r.levels) / 2**31)
    assert r.theta == pytest.approx(expected)
    assert r.to_dict()["theta"] == r.theta


def test_memory_budget_given_as_bits_or_as_sum_fpr_agree():
    by_bits = analyze(preset("cll", T=6), PAPER)
    by_p = analyze(preset("cll", T=6), System(entries=2**31, sum_fpr=by_bits.sum_fpr))
    assert by_p.memory_bits_per_entry == pytest.approx(5.0, rel=1e-9)


def test_zero_memory_means_no_filters():
    r = analyze(preset("leveling"), System(entries=2**31, bits_per_entry=0))
    assert all(row.filter_bits_per_entry == 0 and row.fpr_per_run == 1 for row in r.levels)
    assert r.zero_result_read == pytest.approx(len(r.levels))


def test_uniform_filters_are_never_better_than_optimized():
    for name in ("leveling", "tiering"):
        opt = analyze(preset(name), PAPER)
        uni = analyze(preset("plain-" + name), PAPER)
        assert uni.memory_bits_per_entry == pytest.approx(opt.memory_bits_per_entry)
        assert uni.zero_result_read > opt.zero_result_read


def test_hash_levels_replace_bloom_filters_of_the_smallest_levels():
    system = System(entries=2**31, sum_fpr=0.1, hash_levels=2)
    r = analyze(preset("qlsm-bush"), system)
    assert [row.structure for row in r.levels] == ["hash", "hash", "bloom", "bloom", "bloom"]
    plain = analyze(preset("qlsm-bush"), System(entries=2**31, sum_fpr=0.1))
    assert r.memory_bits_per_entry > plain.memory_bits_per_entry
    assert r.zero_result_read == pytest.approx(plain.zero_result_read)


def test_analyze_many_matches_analyze():
    rng = np.random.default_rng(1)
    T, C = rng.uniform(2, 50, 20), rng.uniform(1, 20, 20)
    X, K, Z = rng.uniform(1, 3, 20), rng.uniform(0, 1, 20), rng.uniform(0, 1, 20)
    many = analyze_many(T, C, X, K, Z, PAPER)
    for i in range(20):
        one = analyze(Design(T[i], C[i], X[i], K[i], Z[i]), PAPER)
        assert many.write_amp[i] == pytest.approx(one.write_amp)
        assert many.point_read[i] == pytest.approx(one.point_read)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(T=1.5, C=1, K=1, Z=0), "T"),
        (dict(T=4, C=0.5, K=1, Z=0), "C"),
        (dict(T=4, C=1, X=0.9, K=1, Z=0), "X"),
        (dict(T=4, C=1, K=1.2, Z=0), "K"),
        (dict(T=4, C=1, K=1, Z=-0.1), "Z"),
        (dict(T=float("nan"), C=1, K=1, Z=0), "T"),
        (dict(T=4, C=float("inf"), K=1, Z=0), "C"),
        (dict(T=4, C=1, K=1, Z=0, filters="magic"), "filters"),
    ],
)
def test_bad_designs_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        Design(**kwargs)


@pytest.mark.parametrize(
    "kwargs, missing",
    [
        (dict(T=10, C=9), "K and Z"),
        (dict(T=10, C=9, X=1), "K and Z"),
        (dict(T=10, C=9, K=1), "Z"),
        (dict(T=10, C=9, Z=0), "K"),
    ],
)
def test_a_design_needs_k_and_z_nothing_about_greediness_is_assumed(kwargs, missing):
    # Issue 29: Design(T=10, C=9) used to mean Lazy Leveling silently (K=1, Z=0 by default).
    with pytest.raises(ValueError) as err:
        Design(**kwargs)
    message = str(err.value)
    assert message.startswith("Design needs K and Z"), message
    assert f"(missing: {missing})" in message, message
    assert "Design(T=10, C=9, K=0, Z=0) is Leveling" in message, message


def test_a_design_given_k_and_z_keeps_them_by_name_and_by_position():
    leveling = Design(T=10, C=9, K=0, Z=0)
    assert leveling.knobs == {"T": 10.0, "C": 9.0, "X": 1.0, "K": 0.0, "Z": 0.0}
    assert Design(10, 9, 1, 0, 0) == leveling
    assert Design(10, 9, 1, 1, 0, "uniform").knobs["K"] == 1.0
    assert analyze(leveling, PAPER).theta == analyze(preset("leveling", T=10), PAPER).theta


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(entries=-5), "entries"),
        (dict(entries=float("nan")), "entries"),
        (dict(entries=1e300), "entries"),
        (dict(entries=2**60), "entries"),
        (dict(entries=2**50, entry_bytes=2**20, block_bytes=2**20, buffer_bytes=2**30),
         "entries \\* entry_bytes"),
        (dict(entries=1000), "buffer_bytes"),
        (dict(block_bytes=64), "block_bytes"),
        (dict(key_bytes=200), "key_bytes"),
        (dict(bits_per_entry=-1), "bits_per_entry"),
        (dict(bits_per_entry=float("inf")), "bits_per_entry"),
        (dict(sum_fpr=0), "sum_fpr"),
        (dict(sum_fpr=0.1, bits_per_entry=3), "bits_per_entry or sum_fpr"),
        (dict(hash_levels=1.5), "hash_levels"),
    ],
)
def test_bad_systems_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        System(**kwargs)


def test_sum_fpr_beyond_the_number_of_runs_is_refused():
    with pytest.raises(ValueError, match="sum_fpr must lie in"):
        analyze(preset("leveling"), System(entries=2**31, sum_fpr=1000.0))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(point_reads=-0.1, writes=1.1), "point_reads"),
        (dict(point_reads=0.5, writes=0.6), "sum to 1"),
        (dict(), "no operations"),
        (dict(writes=float("nan")), "writes"),
        (dict(writes=1, range_blocks=-1), "range_blocks"),
    ],
)
def test_bad_workloads_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Workload(**kwargs)


def test_workload_from_counts_normalizes():
    w = Workload.from_counts(point_reads=3, writes=1)
    assert (w.point_reads, w.writes) == (0.75, 0.25)
    with pytest.raises(ValueError, match="no operations"):
        Workload.from_counts()
