"""Issue 31's bad input: each error names the parameter in the user's terms (the CLI's flag with
exit status 2, the API's argument with the type or range it needs), or the default is said."""

from __future__ import annotations

import json

import pytest

from wacky_model import Design, System, Workload, analyze, preset
from wacky_model.search import recommend, recommend_many
from wacky_model.types import DEFAULT_RANGE_BLOCKS

LEVELING = ["analyze", "--preset", "leveling"]


def refused(out, *words: str) -> str:
    """The one ``error:`` line of a usage error (exit 2, no traceback) holding ``words``."""
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    assert all(w in out.stderr for w in words), out.stderr
    return out.stderr


# -- the CLI ----------------------------------------------------------------------------------

def test_entry_bytes_below_the_key_names_entry_bytes(wacky):
    err = refused(wacky(*LEVELING, "--entry-bytes", "4"),
                  "error: --entry-bytes must be at least --key-bytes", "--entry-bytes = 4")
    # the key size is named too, as the other half of the conflict, not as the culprit
    assert "--key-bytes = 8" in err
    refused(wacky(*LEVELING, "--entry-bytes", "8192"),
            "error: --entry-bytes must be at most --block-bytes")


def test_memory_bytes_too_small_names_memory_bytes_in_bytes(wacky):
    err = refused(wacky(*LEVELING, "--memory-bytes", "100"),
                  "error: --memory-bytes must be more than 1,073,745,920 bytes", "got 100")
    assert "--memory-bits-per-entry" not in err
    err = refused(wacky(*LEVELING, "--memory-bytes", "1e10", "--bits-per-entry", "3"),
                  "give --memory-bytes", "--bits-per-entry", "not both")
    assert "--memory-bits-per-entry" not in err


def test_verify_names_a_missing_path_or_a_plain_file(wacky, tmp_path):
    refused(wacky("verify", str(tmp_path / "nothing-here")), "no such directory")
    plain = tmp_path / "plain.txt"
    plain.write_text("not a database")
    err = refused(wacky("verify", str(plain)), "not a directory")
    assert "MANIFEST" not in err and plain.read_text() == "not a database"


def test_buffer_bytes_with_a_total_memory_fixes_the_buffer(wacky):
    """Honoured, as analyze(System(memory_bits_per_entry=..., buffer_bytes=...)) does: the
    buffer is the one given and the filters get the rest of the memory."""
    args = ["--writes", "0.5", "--point-reads", "0.5", "--entries", "1e8",
            "--memory-bits-per-entry", "10", "--json"]
    doc = json.loads(wacky("recommend", *args, "--buffer-bytes", "1e6").stdout)
    assert doc["buffer_bytes"] == 1_000_000 // 4096 * 4096
    assert doc["memory_bits_per_entry_total"] == pytest.approx(10.0)
    api = System(entries=1e8, memory_bits_per_entry=10, buffer_bytes=1_000_000)
    assert doc["filter_bits_per_entry"] == pytest.approx(
        analyze(preset("leveling"), api).system.bits_per_entry)
    refused(wacky(*LEVELING, "--entries", "1e8", "--memory-bits-per-entry", "10",
                  "--buffer-bytes", "1e8"),
            "error: --buffer-bytes must fit in the total memory", "--memory-bits-per-entry")


def test_range_reads_without_range_blocks_say_their_default(wacky):
    mix = ["--writes", "0.5", "--zero-reads", "0.4", "--range-reads", "0.1", "--json"]
    short = wacky(*LEVELING, *mix)
    assert short.returncode == 0, short.stderr
    assert "--range-reads without --range-blocks" in short.stderr
    assert "--range-blocks 0" in short.stderr
    assert json.loads(short.stdout)["workload"]["range_blocks"] == DEFAULT_RANGE_BLOCKS == 0.0
    longer = wacky(*LEVELING, *mix, "--range-blocks", "4")
    assert "--range-blocks" not in longer.stderr
    assert json.loads(longer.stdout)["theta"] > json.loads(short.stdout)["theta"]
    # The API's default is the same, documented on Workload.
    assert Workload(0.5, 0.4, 0.0, 0.1).range_blocks == DEFAULT_RANGE_BLOCKS
    assert "DEFAULT_RANGE_BLOCKS" in (Workload.__doc__ or "")


def test_bits_per_entry_above_the_keys_own_bits_is_refused(wacky):
    refused(wacky(*LEVELING, "--bits-per-entry", "1000"),
            "error: --bits-per-entry must be in [0, 64] (8 * --key-bytes)", "got 1000")
    with pytest.raises(ValueError, match=r"bits_per_entry must be in \[0, 128\]"):
        System(key_bytes=16, bits_per_entry=200)
    # A total memory beyond that leaves the excess unused rather than failing.
    split = System(entries=1e8, memory_bits_per_entry=5000).with_buffer(1 << 20)
    assert split.bits_per_entry == split.max_filter_bits == 64.0


def test_byte_and_count_flags_take_the_forms_entries_takes(wacky):
    out = wacky(*LEVELING, "--entries", "1e9", "--cache-bytes", "1.5e9",
                "--buffer-bytes", "1.6e7", "--entry-bytes", "1.28e2", "--json")
    assert out.returncode == 0, out.stderr
    refused(wacky(*LEVELING, "--cache-bytes", "1.5"), "error: --cache-bytes must be a whole")
    refused(wacky(*LEVELING, "--buffer-bytes", "1e6.5"), "--buffer-bytes",
            "is not a size in bytes")


def test_byte_flags_take_size_suffixes(wacky):
    """K, M, G (KiB...) are powers of 1024, as RocksDB reads them; KB, MB, GB powers of 1000."""
    from wacky_cli.options import size

    assert [size(t) for t in ("4096", "1.5e9", "64MiB", "1G", "4k", "1.5GB", "2_000")] == [
        4096, 1_500_000_000, 64 << 20, 1 << 30, 4096, 1_500_000_000, 2000]
    out = wacky(*LEVELING, "--cache-bytes", "1GiB", "--buffer-bytes", "16M", "--json")
    assert out.returncode == 0, out.stderr
    refused(wacky(*LEVELING, "--cache-bytes", "1XB"), "--cache-bytes", "is not a size in bytes")


# -- the Python API ---------------------------------------------------------------------------

D, S = Design(T=10, C=9, K=0, Z=0), System()


@pytest.mark.parametrize("call, message", [
    (lambda: analyze(D, "big"), r"^system must be a System, e\.g\. .*; got str 'big'"),
    (lambda: analyze(D, S, {"writes": 1}),
     r"^workload must be a Workload or None, .*Workload\(\*\*fields\).*; got dict"),
    (lambda: analyze(None, S), r"^design must be a Design, e\.g\. preset.*; got NoneType"),
    (lambda: recommend(None, S), r"^workload must be a Workload, e\.g\. .*; got NoneType"),
    (lambda: recommend("write-heavy", S), r"^workload must be a Workload, .*; got str"),
    (lambda: recommend_many(Workload(writes=1.0), S), r"^workloads must be a list of Workload"),
    (lambda: recommend_many([Workload(writes=1.0), "reads"], S),
     r"^workloads\[1\] must be a Workload"),
    (lambda: preset("tiering", system="big"), r"^system must be a System or None"),
])
def test_api_names_the_argument_of_the_wrong_type(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_side_run_flags_are_named_and_refused_where_they_cannot_work(wacky):
    files = [*LEVELING, "--granularity", "file", "--writes", "1"]
    refused(wacky(*files, "--log-ratio", "2"), "error: --log-ratio must be in (0, 1]", "got 2")
    refused(wacky(*files, "--compaction-buffer", "--buffer-trim", "1.5"),
            "error: --buffer-trim must be a share of blocks in [0, 1]")
    refused(wacky(*LEVELING, "--compaction-buffer"), "error: --compaction-buffer needs",
            "--granularity")
    refused(wacky(*files, "--log-alpha", "0.3"), "--log-alpha goes with --log-ratio")
    refused(wacky(*files, "--log-ratio", "0.1", "--compaction-buffer"), "cannot be combined")
    # L1 prices the log: analyze takes it, with less written than without it
    priced = [json.loads(wacky(*files, *log, "--json").stdout)["write_amp"]
              for log in ([], ["--log-ratio", "0.1"])]
    assert priced[1] < priced[0]
