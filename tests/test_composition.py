"""Issue 29: features compose, every refusal is in the one table, and the API, the CLI and the
dashboard return the same recommendation."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import pytest
from dashboard_helpers import SYSTEM, WORKLOAD, cli_flags, find, random_inputs, text_of, views

from dashboard import layout as L
from wacky_model.compat import FEATURES, REFUSALS, refusals
from wacky_model.guardrails import Constraints
from wacky_model.pricing import price
from wacky_model.rocksdb_tuning import recommend_rocksdb, stock_config
from wacky_model.search import recommend
from wacky_model.types import System, Workload

BASE_SYSTEM = System(entries=2**22, buffer_bytes=1 << 20, bits_per_entry=8.0)
BASE_WORKLOAD = Workload(point_reads=0.3, zero_reads=0.2, writes=0.5)

# Each feature as a change to the inputs of recommend (the RocksDB target is its own call).
SETTINGS = {
    "skew": lambda a: {**a, "workload": replace(a["workload"], write_keys="zipf:0.9",
                                                read_keys="zipf:0.9", update_fraction=0.5)},
    "cache": lambda a: {**a, "system": replace(a["system"], cache_bytes=16 << 20)},
    "files": lambda a: {**a, "granularity": "file"},  # the level-1 trigger is searched with it
    "memory_split": lambda a: {**a, "system": replace(a["system"], bits_per_entry=None,
                                                      memory_bits_per_entry=14.0)},
    "robust": lambda a: {**a, "rho": 0.5},
    "probe_cost": lambda a: {**a, "system": replace(a["system"], probe_cost=0.5)},
    "guardrails": lambda a: {**a, "constraints": Constraints(max_runs_per_level=4)},
    "level0_trigger": lambda a: {**a, "level0_trigger": 4},
    "rocksdb": lambda a: {**a, "target": "rocksdb"},
}


def inputs(*features: str) -> dict:
    args = {"workload": BASE_WORKLOAD, "system": BASE_SYSTEM}
    for name in features:
        args = SETTINGS[name](args)
    return args


def run(args: dict):
    return recommend(**args)


def reprice(rec) -> float:
    """Θ of the recommendation's configuration priced again by the one pricing function."""
    model = rec.model if rec.model in ("finite", "paper") else "finite"
    return price(rec.configuration, rec.workload, rec.system, model=model).theta


def test_every_refusal_names_known_features_and_a_reason():
    for r in REFUSALS:
        assert set(r.features) <= set(FEATURES) and len(r.reason) > 20
    assert len({frozenset(r.features) for r in REFUSALS}) == len(REFUSALS)


@pytest.mark.parametrize("pair", list(itertools.combinations(SETTINGS, 2)),
                         ids=lambda p: "+".join(p))
def test_every_pair_composes_or_is_refused_by_the_table(pair):
    args = inputs(*pair)
    names = set(pair)
    refused = refusals(names)
    if refused:
        with pytest.raises(ValueError, match="is not supported"):
            run(args)
        return
    rec = run(args)
    if "rocksdb" in names:
        assert rec.model in ("rocksdb", "universal") and rec.configuration.target == "rocksdb"
        assert stock_config(rec.configuration).export(rec.system).options_file()
        # Universal compaction merges whole runs: files asked, or a level-0 trigger, leave it
        # out. Under skew or a cache it is searched (U5) and may be the pick.
        if names & {"files", "level0_trigger"}:
            assert rec.model == "rocksdb"
    if "level0_trigger" in names:
        assert rec.compaction.level1_runs == 4
    if "guardrails" in names and rec.compaction.granularity == "file":
        assert rec.compaction.level1_runs <= 4
    doc = rec.to_dict()
    # The JSON design is the design priced, and its cost is the one reported.
    assert doc["design"] == rec.design.knobs and doc["cost"] == rec.cost
    assert doc["configuration"] == rec.configuration.to_dict()
    if rec.model == "universal":  # stock RocksDB's universal compaction: whole sorted runs
        assert doc["granularity"] == "level" and rec.compaction.universal is not None
    elif names & {"files", "rocksdb", "level0_trigger"}:
        assert doc["granularity"] == "file" and rec.model in ("files", "rocksdb")
    if rec.robust is not None:
        assert rec.robust["robust_design"]["design"] == rec.design.knobs
    else:
        assert reprice(rec) == pytest.approx(rec.cost, rel=1e-9)


def test_the_api_the_cli_and_the_dashboard_agree(wacky):
    """20 random inputs, skewed ones among them: one design and one Θ from all three."""
    from dashboard import callbacks as cb

    for fields_w, fields_s, skewed in random_inputs(20, seed=29):
        out = views(fields_w, fields_s)
        page_w = {**WORKLOAD, **fields_w}
        workload = cb.parse_workload(page_w)
        system = cb.parse_system({**SYSTEM, **fields_s})
        api = recommend(workload, system)
        assert out[L.CURRENT]["design"] == api.design.knobs
        assert out[L.CURRENT]["compaction"]["granularity"] == api.compaction.granularity
        assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(api.cost,
                                                                                rel=1e-3)
        cli = wacky("recommend", *cli_flags(workload, system, skewed), "--json")
        assert cli.returncode == 0, cli.stderr
        doc = json.loads(cli.stdout)
        assert doc["design"] == pytest.approx(api.design.knobs, rel=1e-9)
        assert doc["granularity"] == api.compaction.granularity
        assert math.isclose(doc["cost"], api.cost, rel_tol=1e-9)


def test_analyze_prices_a_file_granular_design_as_the_search_does(wacky):
    """`wacky analyze --granularity file` gives the Θ that recommend's file side gave."""
    system = System(entries=2**22, buffer_bytes=1 << 20, bits_per_entry=8.0)
    rec = recommend(BASE_WORKLOAD, system, granularity="file")
    c = rec.compaction
    out = wacky("analyze", "--T", f"{rec.design.T!r}", "--C", f"{rec.design.C!r}", "--X", "1",
                "--K", "0", "--Z", "0", "--granularity", "file", "--file-bytes",
                str(c.file_bytes), "--level1-runs", str(c.level1_runs),
                *(["--log-ratio", f"{c.log.ratio!r}"] if c.log else []), "--entries", str(2**22),
                "--buffer-bytes", str(1 << 20), "--bits-per-entry", "8",
                "--point-reads", "0.3", "--zero-reads", "0.2", "--writes", "0.5", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["granularity"] == "file" and doc["theta"] == pytest.approx(rec.cost, rel=1e-12)
    assert doc["write_amp"] == pytest.approx(rec.costs["write_amp"], rel=1e-12)
    assert doc["compaction"]["log_ratio"] == (c.log.ratio if c.log else 0.0)
    out = wacky("analyze", "--preset", "tiering", "--granularity", "file")
    assert out.returncode == 2 and "--granularity='file' needs one run per level" in out.stderr


def test_guardrails_bound_file_granular_and_rocksdb_picks():
    one_run = Constraints(max_runs_per_level=1)
    rec = recommend(BASE_WORKLOAD, BASE_SYSTEM, granularity="file", constraints=one_run)
    free = recommend(BASE_WORKLOAD, BASE_SYSTEM, granularity="file")
    assert rec.compaction.level1_runs == 1 and rec.cost >= free.cost
    assert recommend_rocksdb(BASE_WORKLOAD, BASE_SYSTEM, one_run).best.config.level0_trigger == 1
    with pytest.raises(ValueError, match="no stock RocksDB configuration meets"):
        recommend_rocksdb(BASE_WORKLOAD, BASE_SYSTEM, Constraints(max_total_runs=1))


def test_the_dashboard_validates_a_file_granular_pick_with_its_files():
    """The validation request carries the pick's granularity and trigger, its file size scaled
    to the validation's buffer."""
    from dashboard.validation_panel import validation_request

    current = {"design": {"T": 6.0, "C": 5.0, "X": 1.0, "K": 0.0, "Z": 0.0},
               "workload": BASE_WORKLOAD.to_dict(), "bits_per_entry": 5.0,
               "compaction": {"granularity": "file", "level1_runs": 4, "file_share": 0.25}}
    request = validation_request(current)
    assert request.compaction.granularity == "file" and request.compaction.level1_runs == 4
    assert request.compaction.file_bytes == round(0.25 * request.scale.buffer_bytes)
    assert request.compaction.log is None
    current["compaction"]["log_ratio"] = 0.2  # a pick with L2SM's log validates with it
    assert validation_request(current).compaction.log.ratio == 0.2
    del current["compaction"]
    assert validation_request(current).compaction.is_default


def test_the_page_keeps_a_picks_log_for_validation_and_export():
    """A pick with L2SM's log: the page's compaction record carries it, its validation runs
    it, and its RocksDB export grades it needs-driver (stock RocksDB has no log)."""
    from dashboard.callbacks import compaction_doc, export_for
    from dashboard.validation_panel import validation_request

    rec = recommend(Workload(point_reads=0.1, writes=0.9), BASE_SYSTEM, granularity="file")
    assert rec.compaction.log is not None
    doc = compaction_doc(rec)
    assert doc["log_ratio"] == rec.compaction.log.ratio
    current = {"design": rec.design.knobs, "workload": rec.workload.to_dict(),
               "bits_per_entry": 5.0, "compaction": doc}
    assert validation_request(current).compaction.log == rec.compaction.log
    exported = export_for(rec.design, rec.system, doc)
    assert exported.grade == "needs-driver"
    assert {g.knob: g.grade for g in exported.grades}["l2sm_log"] == "needs-driver"


@pytest.mark.parametrize("pins", [{"target": "rocksdb"}, {"granularity": "file"},
                                  {"level0_trigger": 4}, {"target": "rocksdb", "rho": 0.5}],
                         ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_recommend_many_takes_the_targets_and_pins_of_recommend(pins):
    from wacky_model.search import recommend_many

    workloads = [Workload(point_reads=a, zero_reads=b, writes=1 - a - b)
                 for a, b in ((0.1, 0.1), (0.4, 0.4), (0.2, 0.5))]
    batch = recommend_many(workloads, BASE_SYSTEM, **pins)
    for i, w in enumerate(workloads):
        one = recommend(w, BASE_SYSTEM, **pins)
        assert batch.designs[i] == one.design and batch.compactions[i] == one.compaction
        assert batch.cost[i] == pytest.approx(one.cost, rel=1e-12)
        assert batch.models[i] == one.model and batch.buffer_bytes[i] == one.system.buffer_bytes


@pytest.mark.parametrize("feature", ["skew", "cache", "memory_split", "robust", "probe_cost",
                                     "level0_trigger", "files"])
def test_universal_compaction_is_priced_with_each_feature_or_refused_by_the_table(feature):
    """Universal compaction is a configuration the pricing function prices (U1-U4, and U5
    under skew or a cache). With each other feature it is priced, or refused by the one
    table."""
    from wacky_model.config import Configuration
    from wacky_model.types import Compaction, Design

    compaction = (Compaction(style="universal", level1_runs=4) if feature == "level0_trigger"
                  else Compaction(style="universal"))
    if feature == "files":
        with pytest.raises(ValueError, match="universal"):
            Compaction("file", style="universal")
        assert refusals({"universal", "files"})
        return
    config = Configuration(Design(4.0, 3.0, 1.0, 1.0, 1.0, "uniform"), compaction)
    args = inputs(feature) if feature in SETTINGS else inputs()
    rho = args.get("rho")
    if refusals({"universal", feature}):
        with pytest.raises(ValueError, match="is not supported"):
            price(config, args["workload"], args["system"], rho=rho)
        return
    priced = price(config, args["workload"], args["system"], rho=rho)
    assert priced.model == "universal" and priced.configuration.target == "rocksdb"
    assert priced.theta > 0 and math.isfinite(priced.write_amp)
    # Under skew or a cache the skew stage (U5) priced it: a hit rate, and its own write
    # amplification.
    assert (priced.cache_hit_rate is not None) == (feature in ("skew", "cache"))
