"""The dashboard's Merges, Level-0 trigger and Target menus against the API and the CLI: the
sibling of test_composition.py's agreement test, with the search pinned.

For random inputs (mixes, sizes, skew and a cache) and pins (stock RocksDB, files, a pinned
trigger), the dashboard's callback, ``recommend`` and ``wacky recommend --json`` report the same
configuration and the same Θ, or all three refuse the inputs.
"""

from __future__ import annotations

import json
import math

import pytest
from dashboard_helpers import SYSTEM, WORKLOAD, cli_flags, find, random_inputs, text_of, views

from dashboard import callbacks as cb
from dashboard import layout as L
from wacky_model.rocksdb_tuning import RocksDBConfig
from wacky_model.search import recommend

# The menus' values as the page sends them, each with the flags the CLI takes for it. The CLI
# pins no trigger of 1 (--level1-runs 1 is its default, the trigger searched), so the page's
# "1" has no CLI twin and is left out here.
PINS = (
    ({"merges": "file"}, ["--granularity", "file"]),
    ({"target": "rocksdb", "level0-trigger": "2"}, ["--target", "rocksdb", "--level1-runs", "2"]),
    ({"target": "rocksdb", "merges": "file", "level0-trigger": "8"},
     ["--target", "rocksdb", "--level1-runs", "8"]),
    ({"target": "rocksdb"}, ["--target", "rocksdb"]),  # with skew and a cache (the 4th input)
    ({"merges": "file", "level0-trigger": "4"}, ["--granularity", "file", "--level1-runs", "4"]),
    ({"level0-trigger": "8"}, ["--level1-runs", "8"]),
    ({"merges": "level"}, ["--granularity", "level"]),
    ({}, []),
)


def test_the_api_the_cli_and_the_dashboard_agree_with_the_search_pinned(wacky):
    """8 random inputs, each with its own pins: one configuration and one Θ from all three
    (or one refusal)."""
    for (fields_w, fields_s, skewed), (pins, pin_flags) in zip(random_inputs(8, seed=31), PINS,
                                                               strict=True):
        out = views(fields_w, {**fields_s, **pins})
        workload = cb.parse_workload({**WORKLOAD, **fields_w})
        system = cb.parse_system({**SYSTEM, **fields_s})
        arguments = cb.parse_pins(pins).arguments()
        cli = wacky("recommend", *cli_flags(workload, system, skewed), *pin_flags, "--json")
        try:
            api = recommend(workload, system, **arguments)
        except ValueError:  # a combination the library refuses: the other two refuse it too
            assert cli.returncode == 2 and "is not supported" in cli.stderr, cli.stderr
            assert out[L.CURRENT] is None and "Cannot recommend" in text_of(out[L.MESSAGE])
            continue
        assert cli.returncode == 0, cli.stderr
        doc = json.loads(cli.stdout)
        current = out[L.CURRENT]
        assert out[L.MESSAGE] == [] and current["configuration"] == api.configuration.to_dict()
        assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(api.cost,
                                                                                rel=1e-3)
        if arguments["target"] == "rocksdb":
            # The CLI reports a stock pick as RocksDB's options, the page keeps them to export.
            options = RocksDBConfig.of(api.configuration).to_dict()
            assert doc["best"]["options"] == options
            assert RocksDBConfig(**current["rocksdb"]).to_dict() == options
            assert math.isclose(doc["best"]["theta"], api.cost, rel_tol=1e-9)
            continue
        assert current["rocksdb"] is None
        assert doc["configuration"] == api.configuration.to_dict()
        assert math.isclose(doc["cost"], api.cost, rel_tol=1e-9)
        if arguments["level0_trigger"] is not None:
            assert api.compaction.level1_runs == arguments["level0_trigger"]
