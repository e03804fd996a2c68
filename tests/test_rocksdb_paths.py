"""RocksDB's db_paths (levels on devices): the rule of wacky_model/rocksdb_paths.py worked by hand,
and (where the RocksDB bridge is built) against where RocksDB 7.8.3 put each level's files, with
the bridge's per-directory byte counts checked against the directories themselves."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from rocksdb_helpers import bridge

from wacky_model.rocksdb_options import rocksdb_export
from wacky_model.rocksdb_paths import UNBOUNDED, level_sizes, path_of_level, paths_for_levels
from wacky_model.types import Design, System

# Levels of 64 KiB (Level 0 and Level 1), 256 KiB, 1 MiB, 4 MiB: 2^16 entries of about 50 bytes
# reach Level 4, in 32 KiB flushes of 16 KiB files.
BASE, RATIO = 64 << 10, 4
ENTRIES, VALUE_BYTES = 1 << 16, 32


# --- the rule, by hand (base 100, multiplier 10: the walk's sizes are 100, 100, 1000, 10000) ---

@pytest.mark.parametrize("targets, paths", [
    ([200, 0], [0, 0, 1, 1]),  # Levels 0 and 1 fill the first path exactly
    ([199, 0], [0, 1, 1, 1]),  # Level 1 does not fit what Level 0 left
    ([99, 0], [1, 1, 1, 1]),  # not even Level 0 (flushes still write to path 0)
    ([100, 1100, 0], [0, 1, 1, 2]),  # Level 1 moves on, Level 2 fills the rest of path 1
    ([100, 1099, 0], [0, 1, 2, 2]),
    ([0], [0, 0, 0, 0]),  # one path: the fallback takes everything
    ([10**9], [0, 0, 0, 0]),
    ([150, 10**9, 10**9], [0, 1, 1, 1]),  # what Level 0 left of path 0 stays unused
])
def test_the_walk_worked_by_hand(targets, paths) -> None:
    assert [path_of_level(level, targets, 100, 10) for level in range(4)] == paths


def test_level_sizes_truncate_and_take_the_additional_multipliers_from_level_1() -> None:
    # 3, 3, int(3 * 1.5) = 4, int(4 * 1.5) = 6, 9: truncated at each step, as RocksDB does.
    assert level_sizes(5, 3, 1.5) == [3, 3, 4, 6, 9]
    # additional[l] multiplies the step from Level l to l + 1 (l >= 1); additional[0] never does.
    assert level_sizes(5, 3, 1.5, [7, 2]) == [3, 3, 9, 13, 19]
    assert path_of_level(2, [3 + 3 + 4, 0], 3, 1.5) == 0
    assert path_of_level(2, [3 + 3 + 4, 0], 3, 1.5, additional=[7, 2]) == 1


@pytest.mark.parametrize("base, ratio", [(BASE, RATIO), (100, 10), (3, 1.5), (1 << 20, 8)])
def test_paths_for_levels_puts_exactly_the_first_k_levels_on_the_fast_dir(base, ratio) -> None:
    for k in range(5):
        db_paths = paths_for_levels(k, base, ratio, "fast", "slow")
        dirs = [d for d, _ in db_paths]
        targets = [t for _, t in db_paths]
        assert dirs == (["fast", "slow"] if k else ["slow"])
        assert targets[-1] == UNBOUNDED
        placed = [dirs[path_of_level(level, targets, base, ratio)] for level in range(12)]
        assert placed == ["fast"] * k + ["slow"] * (12 - k)
        if k:
            assert targets[0] == sum(level_sizes(k, base, ratio))


def test_bad_input_is_refused_naming_what() -> None:
    with pytest.raises(ValueError, match="level must be"):
        path_of_level(-1, [100], 100, 10)
    with pytest.raises(ValueError, match="target_sizes must name"):
        path_of_level(0, [], 100, 10)
    with pytest.raises(ValueError, match="target_sizes must be whole"):
        path_of_level(0, [-1, 0], 100, 10)
    with pytest.raises(ValueError, match="base_bytes"):
        path_of_level(0, [100], 0, 10)
    with pytest.raises(ValueError, match="multiplier"):
        path_of_level(0, [100], 100, math.nan)
    with pytest.raises(ValueError, match="additional"):
        path_of_level(0, [100], 100, 10, additional=[1.5])
    with pytest.raises(ValueError, match="fast_levels"):
        paths_for_levels(-1, 100, 10, "a", "b")
    with pytest.raises(ValueError, match="fast_dir must be a non-empty path"):
        paths_for_levels(1, 100, 10, "", "b")
    with pytest.raises(ValueError, match="slow_dir must be a non-empty path"):
        paths_for_levels(1, 100, 10, "a", "")
    with pytest.raises(ValueError, match="must differ"):
        paths_for_levels(1, 100, 10, "a", "a")
    with pytest.raises(ValueError, match="rounds to 0 bytes"):
        paths_for_levels(2, 100, 0.001, "a", "b")


# --- against RocksDB, through the bridge ---

def _options(tmp_path: Path, dynamic: bool = False) -> Path:
    """The project's own export of a leveled design with ratio 4 and a 64 KiB Level 1, sized
    from Level 1 down (dynamic level sizes are off with two paths; the bridge refuses them)."""
    e = rocksdb_export(Design(RATIO, RATIO - 1, 1, 0, 0),
                       System(entries=ENTRIES, entry_bytes=48, buffer_bytes=32 << 10),
                       level0_trigger=2, file_bytes=16 << 10, dynamic=dynamic,
                       level_base_bytes=BASE)
    assert int(e.option("max_bytes_for_level_base")) == BASE
    assert float(e.option("max_bytes_for_level_multiplier")) == RATIO
    path = tmp_path / ("OPTIONS-dynamic" if dynamic else "OPTIONS")
    path.write_text(e.options_file())
    return path


def _load(db, seed: int, n: int = ENTRIES) -> None:
    """n random keys: every flush spans the key range, so compactions out of Level 0 merge."""
    keys = np.random.default_rng(seed).integers(0, 2**64, size=n, dtype=np.uint64)
    db.put_many(keys, np.full((n, VALUE_BYTES), 7, dtype=np.uint8))
    db.flush()
    db.wait_for_background_work(60.0)


def _listed(directory: Path, suffix: str) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in directory.iterdir() if p.name.endswith(suffix)}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_rocksdb_puts_each_level_where_the_rule_says(tmp_path, k) -> None:
    native = bridge()
    fast, slow, wal, home = (tmp_path / d for d in ("fast", "slow", "wal", "db"))
    db_paths = paths_for_levels(k, BASE, RATIO, str(fast), str(slow))
    dirs = [d for d, _ in db_paths]
    targets = [t for _, t in db_paths]
    db = native.Database(str(home), str(_options(tmp_path)), 1 << 20, db_paths=db_paths,
                         wal_dir=str(wal))
    _load(db, seed=k)

    files = db.live_files()
    assert max(f["level"] for f in files) >= k  # levels on both sides of the cut
    for f in files:  # flushes write to path 0, which holds Level 0 for every k >= 1
        assert f["db_path"] == dirs[path_of_level(f["level"], targets, BASE, RATIO)]
    assert {f["level"] for f in files if f["db_path"] == str(fast)} <= set(range(k))
    # Every compaction's outputs went where the rule says for its output level.
    by_level = db.path_level_bytes_written()
    assert set(by_level) == set(dirs)
    for d, levels in by_level.items():
        for level, written in enumerate(levels):
            if written:
                assert d == dirs[path_of_level(level, targets, BASE, RATIO)], (d, level)
    assert sum(by_level[str(slow)]) > 0

    written, read, live = db.path_bytes_written(), db.path_bytes_read(), db.path_live_bytes()
    assert set(written) == set(read) == set(live) == set(dirs)
    assert written[str(slow)] == sum(by_level[str(slow)])  # no flush wrote there
    for d in (fast, slow):
        on_disk = _listed(d, ".sst")
        reported = {f["name"]: f["bytes"] for f in files if f["db_path"] == str(d)}
        assert on_disk == reported
        assert live[str(d)] == sum(on_disk.values())
        # Each file written is live, or was read once by the compaction that replaced it.
        assert written[str(d)] == live[str(d)] + read[str(d)]
    assert read[str(fast)] > 0  # Level 0's files, read by every compaction out of it
    if k == 1:
        assert read[str(slow)] > 0  # Level 1's, which those compactions merge with
    # The database's own directory keeps no table file; the WAL is in wal_dir only.
    assert not _listed(home, ".sst")
    assert len(_listed(wal, ".log")) == 1
    assert not any(_listed(d, ".log") for d in (home, fast, slow))

    db.reset_path_bytes()
    assert set(db.path_bytes_written().values()) == set(db.path_bytes_read().values()) == {0}
    assert db.path_live_bytes() == live


def test_without_db_paths_the_database_directory_is_the_one_path(tmp_path) -> None:
    native = bridge()
    home = tmp_path / "db"
    db = native.Database(str(home), str(_options(tmp_path)), 1 << 20)
    _load(db, seed=7, n=ENTRIES // 4)
    written, read, live = db.path_bytes_written(), db.path_bytes_read(), db.path_live_bytes()
    assert set(written) == set(read) == set(live) == {str(home)}
    assert live[str(home)] == sum(_listed(home, ".sst").values()) > 0
    assert written[str(home)] == live[str(home)] + read[str(home)]
    assert {f["db_path"] for f in db.live_files()} == {str(home)}
    per_level: dict[str, int] = defaultdict(int)
    for d, levels in db.path_level_bytes_written().items():
        per_level[d] += sum(levels)
    assert 0 < per_level[str(home)] < written[str(home)]  # the rest are flushes


def test_bad_db_paths_are_refused_naming_the_parameter(tmp_path) -> None:
    native = bridge()
    options = str(_options(tmp_path))
    a, b = str(tmp_path / "a"), str(tmp_path / "b")

    def open_with(db_paths, opts=options):
        return native.Database(str(tmp_path / "db"), opts, 1 << 20, db_paths=db_paths)

    with pytest.raises(ValueError, match=r"db_paths\[0\]: the path is empty"):
        open_with([("", BASE), (b, 0)])
    with pytest.raises(ValueError, match=r"db_paths\[0\] \(.*\): a target size of 0 bytes"):
        open_with([(a, 0), (b, 0)])
    with pytest.raises(ValueError, match=r"db_paths\[1\]: the path .* is given twice"):
        open_with([(a, BASE), (a, 0)])
    with pytest.raises(ValueError, match="db_paths: .*level_compaction_dynamic_level_bytes"):
        open_with([(a, BASE), (b, 0)], str(_options(tmp_path, dynamic=True)))
    assert not (tmp_path / "db").exists()  # refused before RocksDB made anything
