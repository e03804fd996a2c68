"""Issue 31's dashboard items, through the callbacks (no browser): the stock-RocksDB mode shows
what ``wacky recommend --target rocksdb`` shows and downloads its OPTIONS file; the memory split
disables the fields it overrides and the summary gives the split's buffer; every chart marks the
design at the figures the card headlines; and two bad-input messages.

The browser's side of the same items is in test_dashboard_browser.py.
"""

from __future__ import annotations

import json

import pytest
from dash import dash_table
from dashboard_helpers import SYSTEM, fake_runner, find, services, text_of, views

from dashboard import callbacks as cb
from dashboard import layout as L
from dashboard import validation_panel
from dashboard.jobs import JobState, ValidationRequest
from wacky_model.analysis import analyze
from wacky_model.rocksdb_tuning import RocksDBConfig, recommend_rocksdb
from wacky_model.search import recommend
from wacky_model.types import Design, System, Workload

STOCK = {"target": "rocksdb"}
MIX = Workload(0.2, 0.2, 0.6, 0.0)


def stars(out) -> dict[str, tuple[float, float]]:
    """Each chart's star (the design shown): chart id -> (x, y)."""
    found = {}
    for key in (L.THETA, L.MEMORY_FRONTIER, L.RANGE_FRONTIER):
        (star,) = [t for t in out[key].data if t.marker is not None
                   and t.marker.symbol == "star"]
        found[key] = (star.x[0], star.y[0])
    return found


@pytest.fixture(scope="module")
def stock():
    """The default workload with Target = Stock RocksDB, and the CLI's report of the same."""
    out = views(system=STOCK)
    system = System(bits_per_entry=5.0)
    return out, recommend_rocksdb(MIX, system), recommend(MIX, system, target="rocksdb")


# ----------------------------------------------------------------------- the stock-RocksDB mode


def test_the_stock_rocksdb_mode_shows_what_recommend_target_rocksdb_prints(stock):
    out, report, rec = stock
    assert out[L.MESSAGE] == []
    # The pick is the library's: the same options as the report's and recommend's.
    assert RocksDBConfig(**out[L.CURRENT]["rocksdb"]) == report.best.config
    assert RocksDBConfig.of(rec.configuration) == report.best.config
    card = out[L.CARD]
    assert "Recommended stock RocksDB configuration" in text_of(card)
    assert float(text_of(find(card, "card-theta"))) == pytest.approx(report.best.theta, rel=1e-3)
    options = text_of(find(card, "card-rocksdb-options"))
    for name in ("max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger",
                 "target_file_size_base", "max_bytes_for_level_base", "write_buffer_size"):
        assert name in options
    # RocksDB's defaults beside it and the gain, on the card ...
    gain = 1 - report.best.theta / report.default.theta
    assert report.to_dict()["gain_over_defaults"] == pytest.approx(gain)
    card_gain = text_of(find(card, "card-rocksdb-gain"))
    assert f"Θ {report.default.theta:.4g}" in card_gain
    assert f"{gain:.1%} fewer I/O per operation" in card_gain
    # ... and in the RocksDB panel, as the CLI prints them: Θ and costs of the pick, of the
    # defaults and of the best multiplier alone, the gain, and why each option.
    panel = out[L.ROCKSDB]
    table = text_of(find(panel, "rocksdb-comparison"))
    for p in (report.best, report.default, report.best_multiplier_only):
        assert f"{p.theta:.4g}" in table and f"{p.costs.write_amp:.3g}" in table
    assert "RocksDB's defaults" in table
    assert f"best multiplier ({report.best_multiplier_only.config.multiplier:g})" in table
    summary = text_of(find(panel, "rocksdb-report"))
    assert f"{report.configurations:,} configurations" in summary
    assert f"max_bytes_for_level_multiplier={report.best.config.multiplier:g}" in summary
    assert f"{gain:.1%} fewer I/O per operation" in text_of(find(panel, "rocksdb-gain"))
    assert "trigger 4, a first level of 4 buffers, multiplier 10, files of one buffer" in \
        text_of(find(panel, "rocksdb-gain"))
    reasons = find(panel, "rocksdb-reasons").children
    assert [text_of(li) for li in reasons] == list(report.reasons) and reasons


def test_the_stock_rocksdb_download_is_the_options_file_the_cli_writes(stock):
    out, report, _ = stock
    download = cb.rocksdb_download(L.ROCKSDB_OPTIONS_BUTTON, out[L.CURRENT])
    assert download["filename"] == "OPTIONS-wacky.ini"
    # `wacky recommend --target rocksdb --out FILE` writes report.export.options_file() + "\n".
    assert download["content"] == report.export.options_file() + "\n"
    c = report.best.config
    for line in (f"max_bytes_for_level_multiplier={c.multiplier:g}",
                 f"level0_file_num_compaction_trigger={c.level0_trigger}",
                 f"write_buffer_size={c.buffer_bytes}", f"target_file_size_base={c.file_bytes}"):
        assert line in download["content"]
    exported = json.loads(cb.rocksdb_download(L.ROCKSDB_JSON_BUTTON, out[L.CURRENT])["content"])
    assert exported == json.loads(json.dumps(report.export.to_dict()))


def test_the_stock_report_follows_a_pinned_trigger_and_a_memory_budget():
    out = views(system={**STOCK, "level0-trigger": "8", "memory-split": ["on"],
                        "memory-bits": 12})
    assert out[L.MESSAGE] == []
    report = recommend_rocksdb(MIX, System(memory_bits_per_entry=12.0), level0_trigger=8)
    assert RocksDBConfig(**out[L.CURRENT]["rocksdb"]) == report.best.config
    assert report.best.config.level0_trigger == 8
    assert f"{report.default.theta:.4g}" in text_of(find(out[L.ROCKSDB], "rocksdb-comparison"))


def test_the_native_target_has_no_stock_report():
    out = views()
    assert find(out[L.ROCKSDB], "rocksdb-report") is None
    assert find(out[L.CARD], "card-rocksdb-gain") is None


# ------------------------------------------------------------------------------ the memory split


@pytest.mark.parametrize(("split", "mode", "expected"), [
    ([], "recommend", (False, False, True)),  # no split: the total memory is unused
    ([], "manual", (False, False, True)),
    (["on"], "recommend", (True, True, False)),  # the search picks the buffer and filters
    (["on"], "manual", (False, True, False)),  # a manual design keeps the buffer given
])
def test_the_memory_split_disables_the_fields_it_overrides(split, mode, expected):
    assert cb.memory_fields_disabled(split, mode) == expected


def test_the_page_starts_with_the_total_memory_disabled():
    page = L.build_layout()
    assert find(page, L.MEMORY_BITS[0]).disabled is True
    assert not getattr(find(page, "buffer-mib"), "disabled", False)
    assert not getattr(find(page, "bits-per-entry"), "disabled", False)


def test_the_fields_the_split_overrides_are_not_read():
    split = {"memory-split": ["on"], "memory-bits": 10}
    # Nonsense in the disabled fields neither blocks the page nor changes the pick.
    clean = views(system=split)
    junk = views(system={**split, "buffer-mib": "junk", "bits-per-entry": -3})
    assert junk[L.MESSAGE] == [] and junk[L.CURRENT] == clean[L.CURRENT]
    # A manual design sits at the buffer given: that field is read, the filter field is not.
    manual = views(system={**split, "bits-per-entry": -3, "buffer-mib": "junk"}, mode="manual")
    assert "Buffer (MiB): 'junk' is not a number" in text_of(manual[L.MESSAGE])
    assert "Filter memory" not in text_of(manual[L.MESSAGE])
    # Without the split, both are read as before.
    plain = views(system={"bits-per-entry": -3})
    assert "Filter memory (bits/entry): must be between 0 and 10^6" in text_of(plain[L.MESSAGE])


def test_the_summary_shows_the_split_buffer_not_the_buffer_field():
    out = views(system={"memory-split": ["on"], "memory-bits": 10})
    chosen = System(**out[L.CURRENT]["system"])
    summary = out[L.SYSTEM_SUMMARY]
    assert "65,536 entries" not in summary  # the 8 MiB buffer field, which the split ignores
    assert f"the buffer holds {chosen.buffer_entries:,} entries" in summary
    assert "the search chose the buffer" in summary
    assert f"the filters get {chosen.bits_per_entry:.3g} bits/entry" in summary
    # Before a split is known (the summary of the fields alone), it says the search splits.
    assert cb.system_summary({**SYSTEM, "memory-split": ["on"], "memory-bits": 10}).endswith(
        "10 bits/entry of memory, split between the buffer and the filters by the search.")
    # In manual mode the buffer is the field's, the filters get the rest.
    manual = views(system={"memory-split": ["on"], "memory-bits": 10}, mode="manual")
    assert "the buffer holds 65,536 entries (8 MiB)" in manual[L.SYSTEM_SUMMARY]
    assert "you gave the buffer" in manual[L.SYSTEM_SUMMARY]
    # Without the split the summary is as it was.
    assert cb.system_summary(SYSTEM).endswith("the buffer holds 65,536 entries.")


# ------------------------------------------------------------------ markers at the card's model


def test_the_markers_sit_at_the_finite_model_the_card_headlines():
    out = views()
    a = analyze(Design(**out[L.CURRENT]["design"], filters=out[L.CURRENT]["filters"]),
                System(**out[L.CURRENT]["system"]), MIX, realizable=True)
    theta = float(text_of(find(out[L.CARD], "card-theta")))
    assert theta == pytest.approx(a.finite.theta, rel=1e-3)
    s = stars(out)
    assert s[L.THETA][1] == pytest.approx(a.finite.theta, rel=1e-4)
    # The frontiers' curves are the paper's closed forms; the star is the card's finite-N
    # write amplification (5.87 on the default pick, not the paper's 19.6).
    assert s[L.MEMORY_FRONTIER] == pytest.approx(
        (a.finite.write_amp, a.finite.memory_bits_per_entry), rel=1e-4)
    assert s[L.RANGE_FRONTIER] == pytest.approx((a.finite.write_amp, a.finite.range_runs),
                                                rel=1e-4)
    assert a.finite.write_amp != pytest.approx(a.write_amp, rel=0.01)  # a real difference
    for key in (L.MEMORY_FRONTIER, L.RANGE_FRONTIER):
        assert "★ at the card's figures (finite-N model)" in out[key].layout.title.text


def test_the_markers_of_a_stock_pick_sit_at_the_partial_merge_model(stock):
    out, report, rec = stock
    costs = rec.costs
    s = stars(out)
    assert s[L.THETA] == pytest.approx((report.best.config.multiplier, report.best.theta),
                                       rel=1e-4)
    assert s[L.MEMORY_FRONTIER] == pytest.approx(
        (costs["write_amp"], costs["memory_bits_per_entry"]), rel=1e-4)
    assert s[L.RANGE_FRONTIER] == pytest.approx((costs["write_amp"], costs["range_runs"]),
                                                rel=1e-4)
    # The card shows those figures in its own column, first.
    cells = [text_of(c) for c in _cells(out[L.CARD], "card-headline-cost")]
    assert f"{costs['write_amp']:.4g}" == cells[0]
    assert "partial-merge model" in out[L.THETA].layout.title.text


def test_the_markers_under_skew_sit_at_the_skew_model():
    out = views({"write-keys": "zipf:0.9", "read-keys": "zipf:0.9"}, mode="manual",
                knobs={"T": 10, "C": 9, "X": 1, "K": 0, "Z": 0})
    a = analyze(Design(10, 9, 1, 0, 0), System(bits_per_entry=5.0),
                Workload(0.2, 0.2, 0.6, 0.0, write_keys="zipf:0.9", read_keys="zipf:0.9"),
                realizable=True)
    assert a.skew is not None and a.skew.theta is not None
    s = stars(out)
    assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(a.skew.theta,
                                                                           rel=1e-3)
    assert s[L.THETA][1] == pytest.approx(a.skew.theta, rel=1e-4)
    assert s[L.MEMORY_FRONTIER][0] == pytest.approx(a.skew.write_amp, rel=1e-4)
    assert s[L.RANGE_FRONTIER][0] == pytest.approx(a.skew.write_amp, rel=1e-4)


def _cells(component, class_name: str) -> list:
    found = []
    if getattr(component, "className", None) == class_name:
        found.append(component)
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if hasattr(child, "to_plotly_json"):
            found += _cells(child, class_name)
    return found


# ------------------------------------------------------------------------------ fits at 1280 px


def test_the_validation_table_scrolls_inside_its_card():
    request = ValidationRequest(design=Design(10, 9, 1, 1, 1), bits_per_entry=5.0,
                                workload=MIX)
    result = fake_runner(request, lambda *_: None)
    view = validation_panel.validation_view(JobState(status="done", result=result,
                                                     request=request, seconds=0.1))
    (table,) = [c for c in view.children if isinstance(c, dash_table.DataTable)]
    assert table.style_table["overflowX"] == "auto" and table.style_table["maxWidth"] == "100%"
    assert table.style_cell["whiteSpace"] == "normal"  # headers wrap before anything scrolls


# ---------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("typed", ["9" * 500, "9" * 500 + ".5", "-" + "9" * 500])
def test_a_number_beyond_a_double_is_out_of_range_not_empty(typed):
    message = text_of(views(system={"entries": typed})[L.MESSAGE])
    assert "the field is empty" not in message
    assert "Entries N: must be between 1 and 2^53; got" in message
    if typed.isdigit():
        assert "got a 500-digit number" in message


def test_a_number_beyond_a_double_survives_the_url():
    """The URL keeps what was typed (not "inf", which came back as an empty field)."""
    workload, system, mode, knobs, filters = cb.default_controls()
    query = cb.state_query(workload, {**system, "entries": "9" * 500}, mode, knobs, filters)
    assert "entries=" + "9" * 500 in query
    restored = cb.state_from_query(query)
    assert restored["entries"] == "9" * 500
    message = text_of(views(system={"entries": restored["entries"]})[L.MESSAGE])
    assert "Entries N: must be between 1 and 2^53; got a 500-digit number" in message
    for raw in ("inf", "nan", "-inf"):
        assert cb.state_from_query(f"?entries={raw}")["entries"] == raw
    assert "'nan' is not a number" in text_of(views(system={"entries": "nan"})[L.MESSAGE])


@pytest.mark.parametrize("typed", ["pareto", "x" * 40])
def test_the_key_messages_offer_latest(typed):
    for field, label in (("write-keys", "Write keys:"), ("read-keys", "Read keys:")):
        message = text_of(views({field: typed})[L.MESSAGE])
        assert message.count(label) == 1
        offered = message.split("use ")[-1]
        assert "or latest" in offered and "hotset:h:p" in offered


@pytest.mark.parametrize("typed", ["latest", "latest:0.5"])
def test_the_write_keys_take_latest(typed):
    """YCSB's latest for writes: updates favour recently inserted keys."""
    assert "Write keys" not in text_of(views({"write-keys": typed})[L.MESSAGE])


def test_both_key_suggestions_offer_latest():
    page = L.build_layout()
    write = find(page, L.key_suggestions_list("write-keys"))
    read = find(page, L.key_suggestions_list("read-keys"))
    assert "latest" in [o.value for o in write.children]
    assert "latest" in [o.value for o in read.children]
    assert find(page, "write-keys").list == write.id
    assert find(page, "read-keys").list == read.id


def test_the_stock_mode_through_a_services_cache_matches_the_uncached_one(stock):
    """create_app's services keep the report (as they keep recommendations): same views."""
    from dashboard.app import make_services

    cached = views(system=STOCK, svc=make_services(fake_runner))
    out, _, _ = stock
    assert cached[L.CURRENT] == out[L.CURRENT]
    assert text_of(cached[L.ROCKSDB]) == text_of(out[L.ROCKSDB])
    assert services().rocksdb_report_for is None  # the helpers' services: no cache


def test_a_universal_pick_is_shown_and_exported_as_the_cli_prints_it():
    """A write-heavy mix on the stock-RocksDB target picks universal compaction: the card, the
    panel and the OPTIONS export carry its trigger and size-amplification limit, as
    recommend_rocksdb reports them."""
    from wacky_model.rocksdb_tuning import UniversalConfig

    heavy = {"point-reads": 5, "zero-reads": 5, "writes": 90}
    out = views(workload=heavy, system=STOCK)
    assert out[L.MESSAGE] == []
    report = recommend_rocksdb(Workload(0.05, 0.05, 0.9, 0.0), System(bits_per_entry=5.0))
    u = report.best.config
    assert isinstance(u, UniversalConfig)
    assert UniversalConfig.from_dict(out[L.CURRENT]["rocksdb"]) == u
    assert out[L.CURRENT]["compaction"] == {"granularity": "level", "style": "universal",
                                            "target": "rocksdb"}
    card = text_of(out[L.CARD])
    assert f"trigger {u.trigger}" in card and "universal compaction" in card
    assert float(text_of(find(out[L.CARD], "card-theta"))) == pytest.approx(report.best.theta,
                                                                             rel=1e-3)
    panel = text_of(out[L.ROCKSDB])
    assert "Stock RocksDB, universal compaction" in panel
    assert f"level0_file_num_compaction_trigger={u.trigger}" in panel
    assert "compaction_style = universal rather than leveled" in panel


def test_the_read_keys_take_a_hot_range_and_the_writes_name_why_not():
    """hotrange:h:p is offered for reads; for writes the refusal names the field and says why."""
    assert "Read keys" not in text_of(views({"read-keys": "hotrange:0.02:0.98"})[L.MESSAGE])
    offered = text_of(views({"read-keys": "pareto"})[L.MESSAGE]).split("use ")[-1]
    assert "hotrange:h:p" in offered and "for reads also" not in offered
    message = text_of(views({"write-keys": "hotrange:0.02:0.98"})[L.MESSAGE])
    assert "Write keys:" in message and "hotrange" in message
    message = text_of(views({"read-keys": "hotrange:0.02:0.98", "write-keys": "zipf:0.9"})
                      [L.MESSAGE])
    assert "“hot reads are hot writes” unticked" in message and "correlated" not in message
