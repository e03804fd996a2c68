"""The one table of combinations the library refuses, each with its reason.

Every feature of a recommendation composes with every other except the pairs below (a row may
name more features, refused only together). Each row says whether the refusal is physical (the
combination cannot exist) or a gap of the models (a model that prices one feature does not
price the other yet): a gap is a promise to close it, not a property of LSM-trees. Surfaces do
not write their own refusals: they name the features in play and call :func:`check`. Key
distributions a workload field does not take are the rows of :data:`KEY_REFUSALS`, which
every :class:`~wacky_model.types.Workload` checks when built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wacky_model.guardrails import Constraints

# wacky_model.types builds every Workload through check_keys, so this module names its types
# without importing them: the arrow points one way (types -> compat).
Workload = System = Any

# The features a recommendation can combine, in the words of the API's arguments.
FEATURES = {
    "skew": "skewed keys or updates (Workload.write_keys, read_keys, update_fraction)",
    "cache": "a block cache (System.cache_bytes)",
    "files": "file-granular merges (granularity='file')",
    "level0_trigger": "a level-0 trigger above 1 (level0_trigger)",
    "universal": "RocksDB's universal compaction (Compaction(style='universal'))",
    "paper": "the paper's model (model='paper')",
    "robust": "robust tuning (rho)",
    "guardrails": "guardrails (constraints)",
    "rocksdb": "the stock RocksDB target (target='rocksdb')",
    "memory_split": "a total memory budget (System.memory_bits_per_entry)",
    "probe_cost": "a probe cost (System.probe_cost)",
    "hash_levels": "hash levels given (System.hash_levels)",
    "l2sm_log": "L2SM's per-level log (Compaction(log=Log(...)))",
    "lsbm_buffer": "LSbM's compaction buffer (Compaction(buffer=Buffer(...)))",
    "l0_partitions": "OHDB's partitioned level 0 (Compaction(l0_partitions=P))",
    "devices": "levels placed on devices (Compaction(level_devices=...), System.devices)",
    "paged": "paged filters and indexes (System.paged_metadata)",
    "floating": "Tidal-tree's floating of hot files (Compaction(floating=Floating(...)))",
    "time_objective": "the throughput objective on stock RocksDB (throughput_on)",
    "placed_skew": ("skew that puts the keys read most in particular levels or key ranges "
                    "(skewed write_keys, updates, or latest or hotrange read_keys)"),
}


@dataclass(frozen=True)
class Refusal:
    features: tuple[str, ...]  # a pair, or more features refused only together
    physical: bool  # False: a gap of the models, to be closed
    reason: str


def _row(a: str, b: str, reason: str, physical: bool = False) -> Refusal:
    return Refusal((a, b), physical, reason)


REFUSALS: tuple[Refusal, ...] = (
    _row("paper", "files", "the paper's model is its Eq 8-16, which describe merges of whole "
                           "levels; a file-granular design is priced by the partial-merge "
                           "model (P1-P7) under the finite model, the default", physical=True),
    _row("hash_levels", "rocksdb", "stock RocksDB builds Bloom filters, not App. F's hash "
                                   "tables", physical=True),
    _row("paper", "rocksdb", "stock RocksDB merges files, which the paper's Eq 8-16 do not "
                             "price", physical=True),
    _row("probe_cost", "hash_levels", "with a probe cost the search chooses the hash levels; "
                                      "giving them too says two things", physical=True),
    _row("universal", "files", "universal compaction merges whole sorted runs; file-granular "
                               "merges are leveled compaction's", physical=True),
    _row("universal", "level0_trigger", "universal compaction's trigger is its merge width, "
                                        "which the design's runs set (a_1 + 1)", physical=True),
    _row("universal", "paper", "the paper's Eq 8-16 price the Wacky policy, not universal "
                               "compaction's size rules (U1-U4)", physical=True),
    # The native engine refuses these pairs too (native_engine/src/options.cc).
    _row("l2sm_log", "hash_levels", "a level's hash table indexes its tree files only, so a read "
                                    "would probe the overlapping log files without one",
         physical=True),
    _row("l2sm_log", "lsbm_buffer", "they cannot be combined: the log merges batches of "
                                    "overlapping files, and the buffer keeps the one file each "
                                    "merge takes down, one version of a key per table; a batch "
                                    "would break that rule (the buffer has no rule for a batch "
                                    "yet)"),
    _row("l0_partitions", "universal", "universal compaction merges whole sorted runs, which a "
                                       "partition's merge cannot take apart (docs/MODEL.md P6)",
         physical=True),
    _row("devices", "universal", "universal compaction has no levels to place: a merge turns "
                                 "runs of every size into one, so a run's size, not a level, "
                                 "decides where it would go (RocksDB places universal outputs "
                                 "by size against db_paths' targets)", physical=True),
    _row("devices", "paper", "the paper's Eq 8-16 give the tree's totals; D1 needs each "
                             "level's reads and writes, which the finite model (the default) "
                             "and the partial-merge model give"),
    # D1 under skew or a cache is priced for whole levels and files (docs/MODEL.md "D1 under
    # skew": S2f's levels carry their engine levels).
    # paged metadata under skewed reads is priced (docs/MODEL.md "G1 under skew"), by price and
    # the searches, where a key's level and place in the key order are independent of how
    # often it is read.
    _row("paged", "placed_skew", "G1 under skew takes a key's level and its place in the key "
                                 "order to be independent of how often it is read (a settled "
                                 "tree loaded in any order, the hot keys scattered); skewed "
                                 "writes, updates and latest reads put the hot keys in the upper "
                                 "levels, and hotrange reads in a few files, which it does not "
                                 "price yet"),
    _row("paged", "universal", "G1 prices leveled compaction's files; universal compaction's "
                               "runs are not priced with paged metadata yet"),
    _row("paged", "paper", "the paper's Eq 8-16 keep every filter and fence in memory",
         physical=True),
    # paged metadata on devices is priced: G1's misses by level at each level's device (D1).
    _row("paged", "hash_levels", "the native engine pages Bloom filters only: a hash level's "
                                 "table stays in memory, and the engine refuses the pair"),
    _row("paged", "lsbm_buffer", "the native engine does not page the buffered files' filters "
                                 "and indexes yet, and refuses the pair"),
    _row("paged", "l2sm_log", "G1 counts the tree's files; an L2SM log's files have filter and "
                              "index blocks of their own, which it does not price yet"),
    # Tidal-tree's floating (F1-F5). The native engine refuses the first three pairs too
    # (native_engine/src/options.cc): a float's proof knows only the tree's levels of files.
    _row("floating", "l2sm_log", "a level's L2SM log holds overlapping files between its tree "
                                 "and the next level, which a float's removal of shadowed keys "
                                 "(Algorithm III.1) and its cost (Eq 4) do not count",
         physical=True),
    _row("floating", "lsbm_buffer", "a buffered copy answers reads because data only moves "
                                    "down one level at a time, which a float breaks",
         physical=True),
    _row("floating", "l0_partitions", "each partition's merge rewrites only its own Level 1 "
                                      "files, and a float into Level 1 would write files "
                                      "across the partitions' cuts", physical=True),
    _row("floating", "rocksdb", "stock RocksDB only moves data down: CompactFiles refuses an "
                                "output level above its inputs, so floating needs a driver",
         physical=True),
    # floating with a cache is priced (F1-F4 on the skew model's cached costs; docs/MODEL.md
    # "Floating with a cache" names what it leaves out and what that cost on the engine), and
    # on devices (F4's writes and F3's moved reads by level, "Floating on devices").
    _row("floating", "paged", "with paged filters a check costs a filter block's miss, which "
                              "F1-F5 and G1 do not compose yet"),
    # T7 (docs/MODEL.md): its write constraint, T2 at least the inserts its own throughput asks,
    # is taken at the workload's write share, which the robust objective's worst mix changes.
    _row("time_objective", "robust", "T7 tunes for the workload as given: its writes must be "
                                     "sustained at the mix's own write share, while the robust "
                                     "objective prices the worst mix within rho, whose write "
                                     "share differs"),
)

@dataclass(frozen=True)
class KeyRefusal:
    """A key distribution a :class:`~wacky_model.types.Workload` field does not take: the
    field, the distribution's kind, the case (in words, and as ``applies``) and its reason."""

    field: str
    kind: str
    case: str
    applies: Callable[[Workload], bool]
    physical: bool  # False: a gap of the models, to be closed
    reason: str


_HOT_RANGE_WRITES = ("the skew model takes where a key sits in the key space to be independent "
                     "of how often it is written (the sweeps and overlaps of docs/MODEL.md S2f "
                     "and P1, the blocks of S5r): a hot range of writes rewrites one stretch of "
                     "the keys far more often than the rest, which is not priced yet. hotrange "
                     "is priced for existing-key reads (S5r)")

KEY_REFUSALS: tuple[KeyRefusal, ...] = (
    KeyRefusal("write_keys", "hotrange", "as a write distribution",
               lambda w: w.write_keys.kind == "hotrange", False, _HOT_RANGE_WRITES),
    # With skewed writes, correlated reads would read most the keys written most, which are
    # scattered over the key space: a clustered read range would make them a hot write range.
    KeyRefusal("read_keys", "hotrange", "with skewed writes and correlated=True",
               lambda w: (w.read_keys.kind == "hotrange" and w.correlated
                          and not w.write_keys.is_uniform), False,
               "the keys read most would be the keys written most, so the writes would have "
               "a hot range too, which is not priced yet (see write_keys='hotrange'); give "
               "correlated=False, or uniform writes"),
)


def check_keys(workload: Workload) -> None:
    """Raise ``ValueError`` naming the field, the distribution and the reason of the first row
    of :data:`KEY_REFUSALS` that ``workload`` falls under."""
    for r in KEY_REFUSALS:
        if r.applies(workload):
            spec = getattr(workload, r.field).spec
            raise ValueError(f"{r.field}: {spec!r} {r.case} is not supported: {r.reason}")


def features_in(workload: Workload, system: System, model: str = "finite",
                rho: float | None = None, constraints: Constraints | None = None) -> set[str]:
    """The features of :data:`FEATURES` that a recommendation's inputs put in play."""
    return {name for name, used in (
        # a cache the skew model prices: with paged metadata G1 prices it ("paged")
        ("skew", workload.skewed),
        ("placed_skew", not workload.write_keys.is_uniform or workload.update_fraction > 0.0
         or workload.read_keys.kind in ("latest", "hotrange")),
        ("cache", system.cache_bytes > 0 and not system.paged_metadata),
        ("paper", model == "paper"), ("robust", rho is not None),
        ("guardrails", constraints is not None and constraints.active),
        ("memory_split", system.memory_split), ("probe_cost", system.probe_cost > 0),
        ("hash_levels", system.hash_levels > 0), ("devices", len(system.devices) > 1),
        ("paged", system.paged_metadata)) if used}


# A feature that only exists with another: a level-0 trigger above 1 is a file-granular knob,
# and only stock RocksDB builds universal compaction.
IMPLIES = {"level0_trigger": "files", "universal": "rocksdb", "floating": "files"}


def refusals(features: set[str] | frozenset[str]) -> list[Refusal]:
    """The rows of the table that the ``features`` in play (and what they imply) fall under."""
    unknown = set(features) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown features {sorted(unknown)}; known: {', '.join(FEATURES)}")
    features = set(features) | {IMPLIES[f] for f in features if f in IMPLIES}
    return [r for r in REFUSALS if set(r.features) <= features]


def check(features: set[str] | frozenset[str], names: dict[str, str] | None = None) -> None:
    """Raise ``ValueError`` naming the first refused pair and its reason. ``names`` gives the
    caller's words for a feature (the CLI's flags), default :data:`FEATURES`' words."""
    found = refusals(features)
    if not found:
        return
    words = {**FEATURES, **(names or {})}
    r = found[0]
    named = [words[f] for f in r.features]
    raise ValueError(f"{', '.join(named[:-1])} with {named[-1]} is not supported: {r.reason}")
