"""RocksDB's Advisor's rules restated (validation/advisor_rules.py): which fire on LOGs with and
without stall lines, the Advisor's step, and the OPTIONS file they give."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from tests.rocksdb_helpers import bridge
from validation import advisor_rules
from validation.advise_dbs import VALUE_BYTES, options_text
from validation.advisor_compare import stalled_options, with_options
from wacky_model.rocksdb_files import RocksFileError, read_options_file

# Lines of the LOGs of validation/advisor_compare.py's databases (RocksDB 7.8.3, 2026-11-27).
HEADER = "2026/11/27-12:40:04.611398 12412 RocksDB version: 7.8.3"
STALL_LINES = {
    "stall-too-many-L0": "2026/11/27-12:40:04.640695 12418 [WARN] [db/column_family.cc:1001] "
    "[default] Stalling writes because we have 5 level-0 files rate 262144",
    "stop-too-many-L0": "2026/11/27-12:39:47.687500 11758 [WARN] [db/column_family.cc:958] "
    "[default] Stopping writes because we have 6 level-0 files",
    "stall-too-many-compaction-bytes": "2026/11/27-12:40:07.410799 12412 [WARN] "
    "[db/column_family.cc:1025] [default] Stalling writes because of estimated pending "
    "compaction bytes 3737974 rate 262144",
    "stall-too-many-memtables": "2026/11/27-12:40:10.745529 12412 [WARN] "
    "[db/column_family.cc:944] [default] Stopping writes because we have 2 immutable memtables "
    "(waiting for flush), max_write_buffer_number is set to 2",
}
# rules.ini has no rule for this one: a stop on pending bytes fires nothing.
UNMATCHED = ("2026/11/27-12:40:07.539658 12418 [WARN] [db/column_family.cc:966] [default] "
             "Stopping writes because of estimated pending compaction bytes 4716250")


def _options(tmp_path: Path, text: str):
    path = tmp_path / "OPTIONS-000007"
    path.write_text(text)
    return read_options_file(path)


def test_each_stall_line_fires_its_rule_alone(tmp_path):
    options = _options(tmp_path, options_text())
    for rule, line in STALL_LINES.items():
        fired = advisor_rules.fired_rules([HEADER, line], options)
        assert [f.rule for f in fired] == [rule]
        assert "1 LOG line(s), first at line 2" in fired[0].evidence[0]
    assert advisor_rules.fired_rules([HEADER, UNMATCHED], options) == ()
    assert advisor_rules.fired_rules([HEADER], options) == ()


def test_the_advisor_step():
    # db_config_optimizer.py's apply_action_on_value without suggested values.
    assert advisor_rules.step(-1, "increase") == 1
    assert advisor_rules.step(4, "increase") == 6
    assert advisor_rules.step(262144, "increase") == 340787
    assert advisor_rules.step(1048576, "decrease") == 734003
    assert advisor_rules.step(None, "increase") is None
    assert advisor_rules.step(0, "decrease") is None


def test_rules_name_known_conditions_and_suggestions():
    for rule in advisor_rules.RULES:
        assert all(c in advisor_rules.CONDITIONS for c in rule.conditions)
        assert all(s in advisor_rules.SUGGESTIONS for s in rule.suggestions)


def test_the_level0_level1_options_rule(tmp_path):
    # 4 x 8 MiB - 512 MiB < -251659456: rules.ini's level0-level1-ratio fires, with no change.
    text = with_options(options_text(), {}, {"write_buffer_size": str(8 << 20),
                                             "max_bytes_for_level_base": str(512 << 20)})
    options = _options(tmp_path, text)
    fired = advisor_rules.fired_rules([HEADER], options)
    assert [f.rule for f in fired] == ["level0-level1-ratio"]
    changes, unchanged = advisor_rules.changes_of(fired, options)
    assert changes == () and "l0-l1-ratio-health-check" in unchanged[0]


def _write_burst(b, root: Path, name: str, text: str, paced: bool = False) -> Path:
    """A fresh database of ``text`` given 30,000 puts at once (``paced``: in batches of 500, 5 ms
    apart, so that the flush thread keeps up even on a loaded machine); its directory."""
    (root / f"{name}.options").write_text(text)
    db = b.Database(str(root / name), str(root / f"{name}.options"), 1 << 20)
    keys = np.arange(30_000, dtype=np.uint64)
    step = 500 if paced else keys.size
    for i in range(0, keys.size, step):
        db.put_many(keys[i:i + step], np.zeros((min(step, keys.size - i), VALUE_BYTES),
                                                dtype=np.uint8))
        if paced:
            time.sleep(0.005)
    db.wait_for_background_work(60.0)
    del db
    return root / name


def test_rules_on_real_logs(tmp_path):
    b = bridge()
    # Whether a burst stops on its memtables depends on when the flush thread runs: up to three
    # bursts (each stopped in 5 of 5 tries on 2 shared cores; one test run missed once).
    for attempt in range(3):
        stalled = _write_burst(b, tmp_path, f"stalled{attempt}", stalled_options("memtables"))
        got = advisor_rules.advice(stalled / "LOG", sorted(stalled.glob("OPTIONS-*"))[-1])
        if got.fired:
            break
    # Room for six memtables and the default level-0 triggers, and paced: this one does not stall.
    quiet = _write_burst(b, tmp_path, "quiet", with_options(
        options_text(), {}, {"max_write_buffer_number": "6"}), paced=True)
    assert "stall-too-many-memtables" in [f.rule for f in got.fired], got
    changed = {c.name: (c.current, c.advised) for c in got.changes}
    assert changed["max_write_buffer_number"] == ("2", "4")
    text = advisor_rules.apply_changes(
        sorted(stalled.glob("OPTIONS-*"))[-1].read_text(), got.changes)
    assert "  max_write_buffer_number=4" in text.splitlines()
    (tmp_path / "advised.ini").write_text(text)
    b.check_options_file(str(tmp_path / "advised.ini"))
    calm = advisor_rules.advice(quiet / "LOG", sorted(quiet.glob("OPTIONS-*"))[-1])
    assert calm.fired == () and calm.changes == (), calm
    with pytest.raises(RocksFileError):
        advisor_rules.advice(tmp_path / "advised.ini", sorted(quiet.glob("OPTIONS-*"))[-1])
