"""cost_models.tidal (docs/MODEL.md F1-F5): the floating model's invariants. Its accuracy
against the engine is `wacky sweep tidal`'s (docs/VALIDATION.md)."""

from __future__ import annotations

import pytest

from cost_models.partial import LeveledFiles, window_costs
from cost_models.tidal import (
    CUT_SHARE,
    Floating,
    FloatTree,
    checks_by_level,
    float_costs,
    float_tree,
    idle_share,
    landing,
    placement_bound,
    writes_per_float,
)
from wacky_model.types import KeyDistribution

ZIPF = KeyDistribution.parse("zipf:0.99")
UNIFORM = KeyDistribution.parse("uniform")


@pytest.fixture(scope="module")
def tree() -> FloatTree:
    policy = LeveledFiles(T=10, C=9, flush_entries=64, file_entries=16, targets="wacky",
                          flush_writes=False, boundary_files=1.0)
    return float_tree(window_costs(policy, 20_000, 2_000, settled=True), policy)


def test_checks_grow_with_depth(tree: FloatTree) -> None:
    chk = checks_by_level(tree)
    assert chk[0] == 1.0
    assert all(b > a for a, b in zip(chk, chk[1:], strict=False))


def test_without_floating_nothing_moves(tree: FloatTree) -> None:
    c = float_costs(tree, None, ZIPF, 20_000, 9.0, 30)
    assert c.probes_on == pytest.approx(c.probes_off, rel=1e-12)
    assert c.floats_per_flush == 0 and c.extra_writes == 0


def test_floating_under_zipf_saves_checks_and_costs_writes(tree: FloatTree) -> None:
    c = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 60)
    assert c.probes_on < c.probes_off
    assert 0 < c.float_writes < c.extra_writes
    assert c.floats_per_flush <= 1.0 + 1e-9  # per_flush 1


def test_the_floor_is_below_what_floating_reaches(tree: FloatTree) -> None:
    floor = placement_bound(tree, ZIPF, 20_000)
    for per_flush in (1, 8):
        c = float_costs(tree, Floating(gamma=1.0, per_flush=per_flush), ZIPF, 20_000, 9.0, 60)
        assert 1.0 <= floor < c.probes_on
    # Uniform reads: placing keys buys (almost) nothing.
    assert placement_bound(tree, UNIFORM, 20_000) == pytest.approx(
        float_costs(tree, None, UNIFORM, 20_000, 9.0, 1).probes_off, rel=0.01)


def test_a_high_gamma_floats_nothing(tree: FloatTree) -> None:
    c = float_costs(tree, Floating(gamma=1e6), ZIPF, 20_000, 9.0, 30)
    assert c.floats_per_flush == 0
    assert c.probes_on == pytest.approx(c.probes_off)


def test_skew_pays_more_than_uniform(tree: FloatTree) -> None:
    skewed = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 60)
    flat = float_costs(tree, Floating(gamma=1.0), UNIFORM, 20_000, 9.0, 60)
    assert skewed.probe_change < flat.probe_change


def test_a_loads_writes_hold_floating_back(tree: FloatTree) -> None:
    fresh = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 40)
    loaded = float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 40,
                         writes_before=200_000)
    assert loaded.floats_per_flush < fresh.floats_per_flush


def test_idle_flushes_by_hand() -> None:
    """F3: a batch of I inserts holds I / B flushes, the first after the batch's lookups."""
    assert idle_share(100, 64) == pytest.approx(0.36)  # the sweep's R:W 9:1 rounds
    assert idle_share(200, 64) == pytest.approx(0.68)  # and 4:1's
    assert idle_share(64, 64) == 0.0 and idle_share(10, 64) == 0.0
    with pytest.raises(ValueError, match="inserts_per_batch"):
        idle_share(0, 64)


def test_a_huge_gamma_floats_at_idle_flushes_only(tree: FloatTree) -> None:
    """Eq 1's bar is smax gamma / eta: at a flush after no lookup Level 1's files, all new,
    have share 0, so the bar against Level 1 is 0 whatever gamma, and a Level 2 file read
    since it was written floats at every such flush, at none other."""
    huge = Floating(gamma=1e9)
    assert float_costs(tree, huge, ZIPF, 20_000, 4.0, 60).floats_per_flush == 0.0
    half = float_costs(tree, huge, ZIPF, 20_000, 4.0, 60, idle=0.5)
    assert half.floats_per_flush == pytest.approx(0.5, rel=0.02)
    assert half.floats_from[1] > 0.9 * half.floats_per_flush  # from Level 2, against Level 1


def test_the_engine_floats_at_idle_flushes_whatever_gamma() -> None:
    """The engine beside F3 at a small scale (R:W 4:1 in rounds of 1,000 operations: 68% of
    the flushes follow no lookup): at gamma 10^6 it floats at about every idle flush."""
    from validation.tidal import measure, predict

    scale = {"operations": 10_000, "entries": 10_000, "warmup": 5_000}
    engine = measure("zipf:0.99", 4, 1e6, **scale).floats
    model = predict("zipf:0.99", 4, 1e6, **scale)
    assert model is not None
    flushes = 10_000 // 5 / 64
    assert model.floats_per_flush * flushes == pytest.approx(0.68 * flushes, rel=0.05)
    assert engine == pytest.approx(model.floats_per_flush * flushes, rel=0.2)


def test_a_float_lands_where_its_cut_leaves_it() -> None:
    """F3: a quarter of the floated run stays at each level it passes below Level 1 (the
    cut's narrower file, holding the rest, goes on), what is left returns to Level i."""
    assert CUT_SHARE == 0.25
    assert landing(4, 3, 0) == pytest.approx([0.0, 1 / 4, 3 / 16, 9 / 16])
    assert landing(4, 1, 0) == pytest.approx([0.0, 1.0, 0.0, 0.0])
    assert landing(4, 3, 1) == pytest.approx([0.0, 1 / 4, 3 / 16, 9 / 16])
    assert landing(4, 2, 1) == pytest.approx([0.0, 1 / 4, 3 / 4, 0.0])
    assert landing(4, 1, 1).sum() == 0.0


def test_the_writes_of_one_float_by_hand() -> None:
    """F4 on a tree small enough to price by hand: E = 16; spans cov E / n of 0.08, 0.0128
    and 0.0016."""
    t = FloatTree((100.0, 1_000.0, 10_000.0), (0.5, 0.8, 1.0), (2.0, 5.0, 6.0), 64.0, 16.0)
    # From Level 2 to 1: its reference is Level 1, so it overlaps a file there: c_1 = 1; the
    # flush's merge rewrites it (16) and the two files carrying it go back to its own slot
    # (16, no Level 2 file at the cut).
    assert writes_per_float(t, 1, 0) == pytest.approx((32.0, 16.0 + 16.0))
    # From Level 3: reference Level 2 with chance 0.9, else Level 1 (0.1 x 0.51): c_1 is 1
    # given Level 1, 0.51 otherwise. Back: 16 (flush) + 16 (1 + 0.8: the Level 2 file at the
    # cut) + 16 (1 + 0.25 x 0.0128 x 625 + 1.0 / 2: the carrier beyond the slot at Level 3).
    given = 0.1 * 0.51 / (0.9 + 0.1 * 0.51)
    own = 16.0 * (1.0 + given + (1.0 - given) * 0.51)
    assert writes_per_float(t, 2, 0) == pytest.approx((own, 16.0 + 28.8 + 56.0))
    with pytest.raises(ValueError, match="j < i"):
        writes_per_float(t, 1, 1)


@pytest.mark.parametrize("kwargs, name", [
    ({"gamma": 0.0}, "gamma"), ({"gamma": 1.0, "per_flush": 0}, "per_flush"),
    ({"gamma": 1.0, "probe_cost": 0.0}, "probe_cost")])
def test_bad_options_are_named(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Floating(**kwargs)


def test_bad_windows_are_named(tree: FloatTree) -> None:
    with pytest.raises(ValueError, match="reads_per_insert"):
        float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 0.0, 10)
    with pytest.raises(ValueError, match="flushes"):
        float_costs(tree, Floating(gamma=1.0), ZIPF, 20_000, 9.0, 0)
    with pytest.raises(ValueError, match="one value per level"):
        FloatTree((10.0, 100.0), (0.5,), (1.0, 1.0), 4.0, 2.0)


def _recommend_files(read_keys: str, probe_cost: float):
    from wacky_model.search import recommend
    from wacky_model.types import System, Workload

    system = System(entries=1e7, entry_bytes=1024, buffer_bytes=1 << 20, bits_per_entry=10,
                    probe_cost=probe_cost)
    return recommend(Workload(point_reads=0.9, writes=0.1, read_keys=read_keys), system,
                     granularity="file")


def test_recommend_floats_where_checks_cost_and_reads_are_skewed() -> None:
    """Both directions (issue 33): with a probe cost, Zipf-skewed reads of scattered keys make
    floating pay and the pick floats; its Θ is price()'s, and the reason says what it buys.
    At a probe cost of 1 (a check a block read): at 0.5 F1-F4 save 2.87 -> 2.78 checks for
    1.2 entries more per insert, Θ -0.4%, under the search's 0.5% bar (FLOAT_GAIN)."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price

    pick = _recommend_files("zipf:0.99", 1.0)
    assert pick.compaction.floating is not None
    report = pick.granularity["file"]["floating"]
    assert report["chosen"] and report["theta_with"] < report["theta_without"]
    assert report["probes_with"] < report["probes_without"]
    assert "with Tidal-tree's floating" in pick.granularity["reason"]
    again = price(Configuration(pick.design, pick.compaction, Memory.of(pick.system)),
                  pick.workload, pick.system)
    assert again.theta == pytest.approx(pick.cost, rel=1e-6)
    assert again.floating is not None and again.floating.extra_writes > 0


@pytest.mark.parametrize("read_keys, probe_cost", [
    ("latest", 0.5),  # the hot keys are the newest, already on top: never float
    ("uniform", 1.0),  # no hot file to float
    ("zipf:0.99", 0.0),  # with filters in memory and no probe cost a check saved costs nothing
])
def test_recommend_does_not_float_where_it_cannot_pay(read_keys: str, probe_cost: float) -> None:
    pick = _recommend_files(read_keys, probe_cost)
    assert pick.compaction.floating is None


def test_floating_is_refused_where_it_cannot_work() -> None:
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price
    from wacky_model.types import Compaction, Design, Log, System, Workload

    with pytest.raises(ValueError, match="needs granularity='file'"):
        Compaction(floating=Floating(1.0))
    with pytest.raises(ValueError, match="L2SM"):  # the one table, as the engine refuses it
        Compaction("file", floating=Floating(1.0), log=Log(0.1))
    with pytest.raises(ValueError, match="partition"):
        Compaction("file", floating=Floating(1.0), l0_partitions=4)
    system = System(entries=1e6, entry_bytes=1024, buffer_bytes=1 << 20, bits_per_entry=10)
    config = Configuration(Design(10, 9, 1, 0, 0), Compaction("file", floating=Floating(1.0)),
                           Memory.of(system))
    with pytest.raises(ValueError, match="latest reads"):
        price(config, Workload(point_reads=0.9, writes=0.1, read_keys="latest"), system)


def test_floating_with_a_cache_is_f1_f4_on_the_cached_costs() -> None:
    """With a block cache, price() applies F1-F4 to the skew model's cached costs: the checks
    saved at the probe cost come off its point read, F4's entries go onto its writes
    (docs/MODEL.md "Floating with a cache"; S6 for floated blocks is left out, measured under
    1% of the block reads by benchmarks/check_float_cache.py)."""
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price
    from wacky_model.types import Compaction, Design, System, Workload

    system = System(entries=1e6, entry_bytes=1024, buffer_bytes=1 << 20, bits_per_entry=10,
                    cache_bytes=64 << 20, probe_cost=1.0)
    workload = Workload(point_reads=0.9, writes=0.1, read_keys="zipf:0.99")
    design, memory = Design(10, 9, 1, 0, 0), Memory.of(system)
    off = price(Configuration(design, Compaction("file"), memory), workload, system)
    on = price(Configuration(design, Compaction("file", floating=Floating(1.0)), memory),
               workload, system)
    f = on.floating
    assert off.cache_hit_rate is not None and 0 < off.cache_hit_rate < 1
    assert f is not None and f.probes_on < f.probes_off and f.extra_writes > 0
    assert on.point_read == pytest.approx(off.point_read - (f.probes_off - f.probes_on), rel=1e-9)
    assert on.write_amp == pytest.approx(off.write_amp + f.extra_writes, rel=1e-9)


@pytest.mark.parametrize("read_keys, floats", [("zipf:0.99", True), ("uniform", False)])
def test_recommend_with_a_cache_floats_only_under_skewed_reads(read_keys: str,
                                                               floats: bool) -> None:
    """Both directions with a cache of a tenth of the data: at a probe cost of 1, Zipf reads
    make floating pay and uniform reads do not."""
    from wacky_model.search import recommend
    from wacky_model.types import System, Workload

    system = System(entries=1e7, entry_bytes=1024, buffer_bytes=1 << 20, bits_per_entry=10,
                    probe_cost=1.0, cache_bytes=1 << 30)
    pick = recommend(Workload(point_reads=0.9, writes=0.1, read_keys=read_keys), system,
                     granularity="file")
    assert (pick.compaction.floating is not None) is floats


def test_analyze_prices_a_file_design_as_price_does(capsys) -> None:
    """`analyze --granularity file` goes through price(): the skew stage and F1-F4 included
    (it priced uniform keys before, whatever the workload)."""
    import json

    from wacky_cli.main import main
    from wacky_model.config import Configuration, Memory
    from wacky_model.pricing import price
    from wacky_model.types import Compaction, Design, System, Workload

    args = ["analyze", "--granularity", "file", "--T", "10", "--C", "9", "--K", "0", "--Z", "0",
            "--entries", "1e6", "--entry-bytes", "1024", "--file-bytes", "65536",
            "--probe-cost", "0.5", "--read-dist", "zipf:0.99", "--point-reads", "0.9",
            "--writes", "0.1", "--floating", "1", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    system = System(entries=1e6, entry_bytes=1024, probe_cost=0.5)
    workload = Workload(point_reads=0.9, writes=0.1, read_keys="zipf:0.99")
    p = price(Configuration(Design(10, 9, 1, 0, 0),
                            Compaction("file", 65536, floating=Floating(1.0)),
                            Memory.of(system)), workload, system)
    assert doc["theta"] == pytest.approx(p.theta, rel=1e-9)
    assert doc["floating"]["probes_with"] < doc["floating"]["probes_without"]
    assert doc["keys"] == p.keys


def test_recommend_refuses_a_floating_flag_it_would_drop(wacky) -> None:
    """recommend chooses floating itself; a --floating it did not use was silently dropped."""
    run = wacky("recommend", "--writes", "0.1", "--point-reads", "0.9", "--zero-reads", "0",
                "--range-reads", "0", "--floating", "2")
    flat = " ".join(run.stderr.replace("│", " ").split())
    assert run.returncode == 2 and "recommend chooses floating itself" in flat, run.stderr
