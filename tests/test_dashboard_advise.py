"""The dashboard's "Advise a running RocksDB" panel: uploads of a real database's files (built
through the bridge, tests/advise_helpers.py) give the advice; bad uploads a message naming them."""

from __future__ import annotations

import base64

import pytest

from dashboard import advise_panel as P
from tests.advise_helpers import build
from tests.rocksdb_helpers import bridge


def _upload(data: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(data).decode()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("dashboard-advise")
    return build(bridge(), root, "db", entries=30_000, operations=10_000,
                 mix={"point_reads": 0.4, "zero_reads": 0.1, "writes": 0.5}, theta=0.9)


def test_uploads_give_the_advice(built, tmp_path):
    options = sorted(built.path.glob("OPTIONS-*"))[-1]
    children, text, message = P.advise_uploads(
        _upload(options.read_bytes()), "OPTIONS-live", _upload((built.path / "LOG").read_bytes()),
        "LOG-live", _upload(built.trace.read_bytes()), "ops.trace")
    assert message == "" and text is not None
    shown = str(children)
    # The sources name the uploaded files, not the temporary copies.
    assert "LOG-live" in shown and "ops.trace" in shown and "wacky-advise-" not in shown
    assert "What advise inferred" in shown and "Advised options" in shown
    out = tmp_path / "OPTIONS.advised"
    out.write_text(text)
    bridge().check_options_file(str(out))


def test_bad_uploads_name_the_file(built):
    options = sorted(built.path.glob("OPTIONS-*"))[-1]
    children, text, message = P.advise_uploads(
        _upload(options.read_bytes()), "OPTIONS-live", _upload(b"not a rocksdb log\n" * 9),
        "syslog.txt")
    assert children == [] and text is None
    assert "syslog.txt" in message and "is not a RocksDB info LOG" in message
    _, _, message = P.advise_uploads(
        _upload(options.read_bytes()), "OPTIONS-live", _upload((built.path / "LOG").read_bytes()),
        "LOG", _upload(b"\x00" * 64), "junk.trace")
    assert "junk.trace" in message and "is not a RocksDB trace file" in message
    _, _, message = P.advise_uploads("data:;base64,@@@", "broken", None, None)
    assert "OPTIONS file and its LOG" in message
    _, _, message = P.advise_uploads("data:;base64,@@@", "broken", "data:;base64,AAAA", "LOG")
    assert "the uploaded file broken could not be read" in message


def test_the_page_has_the_panel():
    from dashboard.app import create_app

    page = str(create_app().layout)
    for cid in (P.OPTIONS_UPLOAD, P.LOG_UPLOAD, P.TRACE_UPLOAD, P.ADVISE_BUTTON):
        assert cid in page
