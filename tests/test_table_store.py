"""Tables kept on disk between processes (wacky_model.table_store): the same answers as a
table built in the process, read back instead of rebuilt, and rebuilt when unreadable."""

from __future__ import annotations

import pytest

import wacky_model.search as search
from wacky_model.search import recommend, space_for
from wacky_model.table_store import kept
from wacky_model.types import System, Workload

SYSTEM = System(entries=2**24, buffer_bytes=1 << 20)
WORKLOAD = Workload(0.3, 0.2, 0.5)


def test_a_kept_table_gives_the_answer_a_built_one_does(tmp_path, monkeypatch) -> None:
    built = recommend(WORKLOAD, SYSTEM, granularity="level")
    stored = recommend(WORKLOAD, SYSTEM, granularity="level", tables=tmp_path)
    assert len(list(tmp_path.glob("*.pkl"))) == 1
    space_for.cache_clear()  # as a new process: nothing in memory

    def refuse(*args, **kwargs):
        raise AssertionError("the table was rebuilt, not read")

    monkeypatch.setattr(search.DesignSpace, "build", refuse)
    read = recommend(WORKLOAD, SYSTEM, granularity="level", tables=tmp_path)
    for rec in (stored, read):
        assert rec.design == built.design and rec.cost == built.cost
    # without_cap searches again with the same directory: its table is kept too.
    space_for.cache_clear()
    monkeypatch.undo()
    assert read.without_cap == built.without_cap
    assert len(list(tmp_path.glob("*.pkl"))) == 2


def test_an_unreadable_file_is_rebuilt_and_replaced(tmp_path) -> None:
    calls = []

    def build() -> dict:
        calls.append(1)
        return {"value": len(calls)}

    assert kept(("key",), build, tmp_path) == {"value": 1}
    (path,) = tmp_path.glob("*.pkl")
    path.write_bytes(b"torn")
    assert kept(("key",), build, tmp_path) == {"value": 2}
    assert kept(("key",), build, tmp_path) == {"value": 2} and len(calls) == 2
    assert kept(("other",), build, tmp_path) == {"value": 3}


def test_a_directory_that_cannot_be_written_only_costs_time(tmp_path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert kept(("key",), lambda: 42, blocked / "tables") == 42


@pytest.mark.parametrize("model", ["nope"])
def test_a_bad_model_is_refused_and_nothing_is_kept(tmp_path, model) -> None:
    with pytest.raises(ValueError, match="model must be one of"):
        space_for(SYSTEM, model, None, tmp_path)
    assert not list(tmp_path.iterdir())
