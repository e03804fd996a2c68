"""The engines a validation runs (:data:`ADAPTERS`, one :class:`Adapter` each): ``native``,
``rocksdb`` (the Wacky compaction driver), ``rocksdb-stock`` (RocksDB's compaction) and
``simulator`` (the merge policy's specification, over the same whole-level window)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from validation.native import Progress, run_native
from validation.predict import predict_finite, predict_simulated, steady_window
from validation.results import Checks, EngineRun, window_detail, with_theta
from validation.scale import Scale
from validation.window import Counters
from wacky_model.compat import FEATURES, refusals
from wacky_model.skew import needs_skew_model
from wacky_model.types import Compaction, Design, System, Workload

__all__ = ["ADAPTERS", "Adapter", "Counters", "adapter_for"]

ROCKS = "use engine='rocksdb', stock=True (--engine rocksdb --stock)"


class Adapter(Protocol):
    """One engine: ``refuses`` says in one line, naming the knob, why it cannot build a
    configuration (None: it can); ``run`` runs the preload and the window and measures."""

    name: str

    def refuses(self, compaction: Compaction, hash_levels: int = 0) -> str | None: ...

    def run(self, design: Design, system: System, scale: Scale, workload: Workload | None,
            range_entries: int, *, phase: str, compaction: Compaction,
            save_trace: str | Path | None, report: Progress,
            workdir: str | Path | None) -> EngineRun: ...


@dataclass(frozen=True)
class Native:
    name: str = "native"

    def refuses(self, compaction: Compaction, hash_levels: int = 0) -> str | None:
        c = compaction
        if c.style != "wacky":
            return (f"style={c.style!r}: RocksDB's universal compaction, not the native "
                    f"engine's; {ROCKS}")
        if c.sizing != "wacky":
            return (f"sizing={c.sizing!r}: RocksDB's level sizing (max_bytes_for_level_base), "
                    f"not the native engine's; {ROCKS}")
        if hash_levels:
            found = refusals(set(c.side_runs) | {"hash_levels"})
            if found:
                return f"hash_levels={hash_levels} with {FEATURES[found[0].features[0]]}: " \
                       f"{found[0].reason}"
        return None

    def run(self, *args: Any, **kwargs: Any) -> EngineRun:
        return run_native(*args, **kwargs)


@dataclass(frozen=True)
class RocksDB:
    """RocksDB, under the Wacky compaction driver or (``stock``) its own compaction."""

    name: str
    stock: bool

    def refuses(self, compaction: Compaction, hash_levels: int = 0) -> str | None:
        if hash_levels:
            return f"hash_levels={hash_levels}: RocksDB builds Bloom filters, not hash tables"
        if not self.stock and not compaction.is_default:
            return ("level0_trigger, file_bytes, file_pick, style and sizing apply to stock "
                    "RocksDB (stock=True, --stock) only: the compaction driver runs the "
                    "paper's policy")
        return None  # a design stock RocksDB cannot express is refused by its export

    def run(self, *args: Any, **kwargs: Any) -> EngineRun:
        from validation.rocksdb import run_rocksdb  # loads RocksDB's bridge

        return run_rocksdb(*args, stock=self.stock, **kwargs)


@dataclass(frozen=True)
class Simulator:
    """The engine simulator: the whole-level window's write amplification (``steady_window``)
    and the costs of the tree it grows from every key inserted; the finite model predicts."""

    name: str = "simulator"

    def refuses(self, compaction: Compaction, hash_levels: int = 0) -> str | None:
        if not compaction.is_default:
            return (f"granularity={compaction.granularity!r}, level1_runs="
                    f"{compaction.level1_runs}: the simulator replays whole-level merges only")
        if hash_levels:
            return f"hash_levels={hash_levels}: the simulator prices Bloom filters only"
        return None

    def run(self, design: Design, system: System, scale: Scale, workload: Workload | None,
            range_entries: int, *, phase: str, save_trace: str | Path | None = None,
            **_: Any) -> EngineRun:
        if phase != "steady" or save_trace is not None or needs_skew_model(workload, system):
            raise ValueError("the engine simulator replays uniform inserts in the steady phase "
                             "and saves no trace")
        B = system.entries_per_block
        w = steady_window(*design.knobs.values(), entries=int(system.entries),
                          buffer_entries=system.buffer_entries, entries_per_block=B,
                          uniform=design.filters == "uniform", **system.budget)
        grown = predict_simulated(design, replace(system, entries=float(scale.entries + w.writes)),
                                  workload, range_entries)
        return EngineRun(
            measured=with_theta(replace(grown, write_amp=w.write_amp), workload, B),
            checks=Checks(), simulated=None, window_writes=w.writes,
            predicted=predict_finite(design, system, workload, range_entries, steady_window=True),
            detail=window_detail(w))


ADAPTERS: dict[str, Adapter] = {a.name: a for a in (
    Native(), RocksDB("rocksdb", stock=False), RocksDB("rocksdb-stock", stock=True), Simulator())}


def adapter_for(engine: str, stock: bool = False) -> Adapter:
    """The adapter of ``engine`` ("native", "rocksdb", "simulator"; ``stock`` on RocksDB)."""
    if engine not in ("native", "rocksdb", "simulator"):
        raise ValueError(f"engine must be one of native, rocksdb, simulator; got {engine!r}")
    if stock and engine != "rocksdb":
        raise ValueError("stock applies to the rocksdb engine only")
    return ADAPTERS["rocksdb-stock" if stock else engine]
