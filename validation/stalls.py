"""Write stalls on stock RocksDB at offered rates (issue 34; docs/MODEL.md "T2", "T3", "T3u").

Each case calibrates this machine's RocksDB first (:func:`calibrate`: loads into a leveled
tree at RocksDB's defaults scaled down, timed by RocksDB's own statistics), then loads its own
configuration and offers it windows of inserts at 0.5, 0.9 and 1.5 times its predicted
sustainable rate: T2's (from the I/O model's write amplification at the window's size and the
calibration), or for universal compaction T3u's burst-free rate where that is lower. A paced
writer puts batches on a fixed schedule and, when behind it, back to back, as a client with a
queue does. Each window starts with compaction caught up; RocksDB's ``rocksdb.stall.micros``
over the window's wall time is the stalled share, against T3's (leveled) or T3u's (universal).

RocksDB's pending-compaction-bytes limits are scaled down with the data (SOFT_PENDING). No
write-ahead log (so the writer can outrun compaction on two cores: with it, the WAL's
writes bound the writer below the sustainable rate of these trees), no compression, tmpfs."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cost_models.throughput import stall_share
from cost_models.universal import RunsNow
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table
from validation.timed_mix import MIX, draw, keys_of, load_all, masks
from wacky_model.stalls import (
    COMPACTION_THREADS,
    backlog_entries,
    burst_free_rate,
    delayed_inserts,
    sustainable,
    universal_bursts,
)

VALUE_BYTES = 100
KEY_BYTES = 8
ENTRY_BYTES = KEY_BYTES + VALUE_BYTES
BUFFER = 256 << 10
BITS = 10.0
ENTRIES = 400_000  # loaded before the windows
WINDOW = 600_000  # inserts per offered rate
MULTIPLES = (0.5, 0.9, 1.5)
BATCH = 100  # inserts per put_many; the schedule's step
CALIBRATION_ENTRIES = 200_000
CALIBRATION_ROUNDS = 3  # calibrate's loads; each figure is their median
CALIBRATION_HEAD = 0.1  # the share of a calibration load put at full speed: the put's CPU
WRITER_SHARE = 0.5  # the rest paced to this share of a core of the writer's own CPU per put
SHARE_TARGET = 0.15  # the issue's: the stalled share within 0.15 of the measured
RATE_TARGET = 0.25  # the issue's: the sustainable write rate within 25%
# RocksDB's pending-bytes limits scaled from a database of terabytes (64 and 256 GiB) to these
# few hundred megabytes, so that a leveled tree's backlog stalls within a window, as a large
# database's does within hours.
SOFT_PENDING = 64 << 20
STALL_FREE = 0.01  # "no stall time" at 0.5x: below 1% of the window (a scheduler's hiccup)


@dataclass(frozen=True)
class Calibration:
    """This machine's RocksDB, from one load (:func:`calibrate`)."""

    ns_per_put: float  # the writer thread's CPU per insert
    ns_per_compaction_byte: float  # compaction wall time per byte read or written
    ns_per_flush_byte: float  # flush wall time per byte written (RocksDB times no flush CPU)

    def profile_fields(self) -> dict[str, Any]:
        """As :class:`wacky_model.devices.DeviceProfile` names them."""
        return {"rocksdb_ns_per_put": self.ns_per_put,
                "rocksdb_ns_per_compaction_byte": self.ns_per_compaction_byte,
                "rocksdb_ns_per_flush_byte": self.ns_per_flush_byte,
                "cores": os.cpu_count() or 1}


@dataclass(frozen=True)
class Window:
    multiple: float
    offered: float  # inserts per second asked for
    entries_before: int
    # the I/O model's: leveled, at the window's middle size; universal, U1-U4 walked in time
    # over the window at the offered rate from the runs it starts with
    predicted_write_amp: float
    measured_write_amp: float  # (flush + compaction bytes) / user bytes, over the window
    # T2 at the predicted write amplification. It sets ``offered`` for leveled trees; for
    # universal ones T2 at the walk's write amplification with compaction keeping up does
    # (or T3u's burst-free rate, if lower)
    predicted_rate: float
    rate_at_measured: float  # T2 at the window's measured write amplification
    seconds: float
    stall_seconds: float
    achieved: float  # inserts per second over the window
    held_rate: float | None  # inserts per second after the first stall (the write controller's)
    predicted_share: float  # T3
    # inserts over the window's time and its catch-up (compaction busy throughout once the
    # writer outruns it): the rate the tree sustains, T2's measure
    cycle_rate: float = 0.0
    # inserts per second of the background threads' busy time over the window and its
    # catch-up (RocksDB's compaction.times.micros and db.flush.micros): the rate the tree
    # sustains with its compaction thread busy throughout, whatever the write controller let
    # the writer do (T2's measure where the controller holds the writer below the tree)
    busy_rate: float = 0.0
    # T3u's sustainable rate (universal compaction; None: leveled): the most the window takes
    # with no burst holding the writer. The offered rate is the multiple of the lower of it
    # and T2's.
    burst_free: float | None = None
    # the multiple is of T2 even where T3u's burst-free rate is lower (universal compaction's
    # extra window, which loads the tree past T2 to measure it)
    of_average: bool = False

    @property
    def share(self) -> float:
        return self.stall_seconds / self.seconds


@dataclass(frozen=True)
class Measured:
    label: str
    calibration: Calibration
    windows: tuple[Window, ...]


def _system(entries: float):
    from wacky_model.types import System

    return System(entries=entries, entry_bytes=ENTRY_BYTES, key_bytes=KEY_BYTES,
                  block_bytes=4096, buffer_bytes=BUFFER, bits_per_entry=BITS)


def configs() -> dict[str, Any]:
    """The configurations: RocksDB's leveled defaults scaled to the buffer, three other leveled
    trees (deeper, shallower with each flush merged at once, a higher trigger), and universal
    compaction at its defaults and with a tighter size-amplification limit."""
    from cost_models.universal import UniversalOptions
    from wacky_model.rocksdb_tuning import RocksDBConfig, UniversalConfig

    def leveled(T: float, trigger: int, base: int) -> Any:
        return RocksDBConfig(T, trigger, False, BUFFER, BUFFER, BITS, base * BUFFER)

    return {"leveled T 10, trigger 4": leveled(10.0, 4, 4),
            "leveled T 4, trigger 2": leveled(4.0, 2, 2),
            "leveled T 6, trigger 1": leveled(6.0, 1, 2),
            "leveled T 10, trigger 8": leveled(10.0, 8, 8),
            "universal, trigger 4": UniversalConfig(UniversalOptions(trigger=4), BUFFER, BITS),
            "universal, trigger 8, size amplification 100%": UniversalConfig(
                UniversalOptions(trigger=8, max_size_amplification_percent=100.0), BUFFER,
                BITS)}


def _open(root: Path, name: str, options: str):
    import rocksdb_bridge

    path = root / f"{name}.options"
    path.write_text(options)
    return rocksdb_bridge.load().Database(str(root / name), str(path), 1 << 20, wal=False)


def _counters(db) -> dict[str, float]:
    t, h = db.tickers(), db.histograms()
    return {"stall": t["rocksdb.stall.micros"], "cw": t["rocksdb.compact.write.bytes"],
            "cr": t["rocksdb.compact.read.bytes"], "fw": t["rocksdb.flush.write.bytes"],
            "ct": h["rocksdb.compaction.times.micros"][1],
            "ft": h["rocksdb.db.flush.micros"][1]}


def _delta(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {k: b[k] - a[k] for k in a}


def _put_paced(db, keys: np.ndarray, values: np.ndarray, rate: float
               ) -> tuple[float, tuple[int, float] | None, float]:
    """Put ``keys`` at ``rate`` per second in batches of BATCH (back to back when behind the
    schedule; ``inf``: as fast as RocksDB takes them). Returns the wall seconds; if the writer
    stalled, (writes, seconds) at the first batch that saw a stall; and the writer thread's CPU
    seconds."""
    start, cpu = time.perf_counter(), time.thread_time()
    stall0 = db.tickers()["rocksdb.stall.micros"]
    first = None
    for i in range(0, keys.size, BATCH):
        if np.isfinite(rate):
            wait = start + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        batch = keys[i:i + BATCH]
        db.put_many(batch, values[:batch.size])
        if first is None and (i // BATCH) % 10 == 9 \
                and db.tickers()["rocksdb.stall.micros"] > stall0:
            first = (i + batch.size, time.perf_counter() - start)
    return time.perf_counter() - start, first, time.thread_time() - cpu


def calibrate(root: Path, entries: int = CALIBRATION_ENTRIES, seed: int = 5,
              rounds: int = CALIBRATION_ROUNDS) -> Calibration:
    """Load ``entries`` inserts into RocksDB's leveled defaults (scaled to the buffer), a share
    CALIBRATION_HEAD of them as fast as RocksDB takes them and the rest at WRITER_SHARE of a
    core of the writer's CPU per put (compaction then has a core to itself, as in a paced
    window); compaction and flush time per byte from RocksDB's histograms
    (``rocksdb.compaction.times.micros``, ``rocksdb.db.flush.micros``: wall time, which is what
    holds a thread's progress, its waits included) over the bytes they moved, and the writer
    thread's CPU per put. Each figure is the median of ``rounds`` loads, each into a fresh
    database with its own keys: one load's compactions last about a second, and on a shared
    machine one such second varies by 15% or more (a median of three halves that)."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a whole number >= 1; got {rounds!r}")
    config = configs()["leveled T 10, trigger 4"]
    options = config.export(_system(entries)).options_file()
    values = np.zeros((BATCH, VALUE_BYTES), dtype=np.uint8)
    figures = []
    for i in range(rounds):
        db = _open(root, f"calibration{i}", options)
        keys = np.random.default_rng(seed + i).integers(1, 2**63, entries, dtype=np.uint64)
        before = _counters(db)
        # The writer's CPU per put from a head loaded as fast as RocksDB takes it, then the rest
        # paced so the writer takes WRITER_SHARE of a core: on 2 cores a writer at full speed
        # leaves the compaction thread part of one, and its wall time per byte then carries
        # that wait, which a window paced at the sustainable rate does not.
        head = keys[:max(1, int(CALIBRATION_HEAD * entries))]
        _, _, head_cpu = _put_paced(db, head, values, float("inf"))
        pace = WRITER_SHARE * head.size / max(head_cpu, 1e-9)
        _, _, rest_cpu = _put_paced(db, keys[head.size:], values, pace)
        put_cpu = head_cpu + rest_cpu
        db.wait_for_background_work(600.0)
        d = _delta(before, _counters(db))
        del db
        figures.append((put_cpu / entries * 1e9, d["ct"] * 1e3 / max(1.0, d["cw"] + d["cr"]),
                        d["ft"] * 1e3 / max(1.0, d["fw"])))
    put, compaction, flush = (float(np.median(f)) for f in zip(*figures, strict=True))
    return Calibration(ns_per_put=put, ns_per_compaction_byte=compaction,
                       ns_per_flush_byte=flush)


def calibrate_reads(root: Path, entries: int = CALIBRATION_ENTRIES, seed: int = 3,
                    operations: int = 40_000) -> dict[str, float]:
    """RocksDB's time per read of each kind with its blocks in the cache, as DeviceProfile
    names them: ``entries`` keys in a leveled tree at RocksDB's defaults scaled to the buffer
    (:func:`calibrate`'s tree), a cache that holds them all, every key read once to fill it.
    Then ``operations`` of MIX, twice, timed by ``run_mix``: each kind's time is the mean over
    its operations that read no block (a flush's or a merge's output is not cached). In a mix,
    not alone: each kind then pays for the caches the others left cold, as it does in service.
    A range's seek and its entries come from the two rounds' ranges, of 1 and 65 entries."""
    import rocksdb_bridge

    config = configs()["leveled T 10, trigger 4"]
    (root / "calibration.options").write_text(config.export(_system(entries)).options_file())
    db = rocksdb_bridge.load().Database(str(root / "reads"), str(root / "calibration.options"),
                                        4 * entries * ENTRY_BYTES, fill_cache=True)
    keys = keys_of(entries, seed)
    load_all(db, keys, VALUE_BYTES)
    value = np.zeros(VALUE_BYTES, dtype=np.uint8)
    rng = np.random.default_rng(seed)
    db.get_many(keys)  # every data block into the cache
    means: dict[str, list[float]] = {k: [] for k in MIX}
    for length in (1, 65):
        kinds, picked, zero = draw(keys, operations, rng)
        ns, blocks, _ = db.run_mix(kinds, picked, value, length)
        for k, m in masks(kinds, zero).items():
            cached = m & (blocks == 0)
            if cached.sum() < max(10, m.sum() // 10):
                raise RuntimeError(f"RocksDB read blocks the calibration's cache should hold "
                                   f"({k}: {cached.sum()} of {m.sum()} read none)")
            means[k].append(float(ns[cached].mean()))
    del db
    step = max((means["range_read"][1] - means["range_read"][0]) / 64.0, 0.0)
    return {"rocksdb_ns_per_get": float(np.mean(means["point_read"])),
            "rocksdb_ns_per_zero_get": float(np.mean(means["zero_read"])),
            "rocksdb_ns_per_seek": max(means["range_read"][0] - step, 1.0),
            "rocksdb_ns_per_next": max(step, 1e-3)}


def _machine(cal: Calibration):
    """This machine as ``recommend --profile`` sees it from a calibrated profile."""
    from wacky_model.devices import DeviceProfile

    return DeviceProfile("this machine", 1.0, 1.0, 1.0, 1.0, **cal.profile_fields())


def _rate(cal: Calibration, write_amp: float) -> float:
    """T2 on this machine, as ``recommend --profile`` computes it from a calibrated profile."""
    return sustainable(write_amp, ENTRY_BYTES, _machine(cal))


def runs_now(db) -> RunsNow:
    """A universal RocksDB's sorted runs, newest first: each level-0 file (newest sequence
    numbers first), then each non-empty level below; ``bottom`` if the last level holds one."""
    files = db.live_files()
    level0 = sorted((f for f in files if f["level"] == 0), key=lambda f: -f["largest_seqno"])
    levels = db.levels()
    runs = [float(f["entries"]) for f in level0] + \
        [float(v["entries"]) for v in levels[1:] if v["entries"] > 0]
    return RunsNow(tuple(runs), levels[-1]["entries"] > 0)


def _burst_free(config, cal: Calibration, rate: float, present: float,
                window: float, start: RunsNow | None = None) -> float | None:
    """T3u's sustainable rate over this window from the runs ``start``, up to T2's ``rate``
    (universal compaction; None for leveled, whose T3 has no bursts)."""
    from wacky_model.rocksdb_tuning import UniversalConfig

    if not isinstance(config, UniversalConfig):
        return None
    system = config.system(_system(present + window / 2))
    return burst_free_rate(config, system, _machine(cal), present, window, rate, start=start)


def _predicted(config, cal: Calibration, offered: float, rate: float, write_amp: float,
               present: float, window: float,
               start: RunsNow | None = None) -> tuple[float, float, float]:
    """The share of the window stalled, its write amplification and T2 at it. Leveled: T3 (the
    backlog over T2's average ``rate``), with ``write_amp`` and ``rate`` as given. Universal:
    T3u, U1-U4 walked in time over this very window at the ``offered`` rate from the runs
    ``start`` (its full merges hold the compaction thread while level 0 fills), and the walk's
    own write amplification: a writer faster than the merges leaves more runs for each merge
    to take, so fewer merges write fewer entries, and the rate the tree sustains is T2 at it."""
    from wacky_model.rocksdb_tuning import UniversalConfig

    system = _system(present + window / 2)
    if isinstance(config, UniversalConfig):
        walk = universal_bursts(config, config.system(system), _machine(cal), offered,
                                preload=present, window=window, start=start)
        return walk.share, walk.write_amp, _rate(cal, walk.write_amp)
    return stall_share(offered, rate, cal.ns_per_put, window,
                       backlog_entries(config, system, SOFT_PENDING),
                       delayed_inserts(ENTRY_BYTES)), write_amp, rate


def _predicted_write_amp(config, present: float, window: float,
                         start: RunsNow | None = None) -> float:
    """The I/O model's write amplification over a window of ``window`` inserts into a tree of
    ``present``: leveled, the partial walk's at the window's middle size (its write
    amplification drifts little over a window); universal, U1-U4 walked over this very window
    (``universal_costs_of``), since a window sees only part of the largest run's cycle and the
    cycle's average (what ``price`` gives, and the search uses) is not that part's."""
    from wacky_model.pricing import price
    from wacky_model.rocksdb_model import universal_costs_of
    from wacky_model.rocksdb_tuning import UniversalConfig
    from wacky_model.types import Workload

    system = _system(present + window / 2)
    if isinstance(config, UniversalConfig):
        return universal_costs_of(config.export(system), present, window, start).write_amp
    return price(config.configuration, Workload(writes=1.0), config.system(system)).write_amp


def _options(config, entries: int) -> str:
    """The export's OPTIONS file with the sweep's pending-bytes limits (module doc)."""
    text = config.export(_system(entries)).options_file()
    for name, value in (("soft_pending_compaction_bytes_limit", SOFT_PENDING),
                        ("hard_pending_compaction_bytes_limit", 4 * SOFT_PENDING)):
        text = "\n".join(f"  {name}={value}" if line.strip().startswith(f"{name}=") else line
                          for line in text.splitlines())
    return text


def measure(label: str, entries: int = ENTRIES, window: int = WINDOW,
            multiples: Sequence[float] = MULTIPLES, seed: int = 7) -> Measured:
    """Calibrate, load ``label``'s configuration with ``entries`` inserts, then offer it a
    window of ``window`` inserts at each multiple of its sustainable rate: T2's, or for
    universal compaction T3u's if lower (module doc)."""
    from wacky_model.rocksdb_tuning import UniversalConfig

    config = configs()[label]
    universal = isinstance(config, UniversalConfig)
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        root = Path(tmp)
        cal = calibrate(root)
        db = _open(root, "db", _options(config, entries))
        rng = np.random.default_rng(seed)
        values = np.zeros((BATCH, VALUE_BYTES), dtype=np.uint8)
        _put_paced(db, rng.integers(1, 2**63, entries, dtype=np.uint64), values, float("inf"))
        db.wait_for_background_work(600.0)
        out, present = [], entries
        # Universal: 1.5 times T3u's lower rate may not load the tree to T2, so one more
        # window offers 1.5 times T2 itself.
        plan = [(m, False) for m in multiples] + ([(max(multiples), True)] if universal else [])
        for m, of_average in plan:
            # Universal: the model walks on from the runs the database holds now, since which
            # full merges fall inside a window depends on where the largest run's cycle stands,
            # and the load (a writer that outran compaction) leaves runs U1-U4 did not walk.
            start = runs_now(db) if universal else None
            wa = _predicted_write_amp(config, present, window, start)
            rate = _rate(cal, wa)
            free = _burst_free(config, cal, rate, present, window, start)
            offered = m * (rate if free is None or of_average else min(rate, free))
            share, wa, rate = _predicted(config, cal, offered, rate, wa, present, window, start)
            before = _counters(db)
            wall, first, _ = _put_paced(db, rng.integers(1, 2**63, window, dtype=np.uint64),
                                     values, offered)
            d = _delta(before, _counters(db))
            catch_up = db.wait_for_background_work(600.0)  # the next window starts caught up
            done = _delta(before, _counters(db))  # the window's writes, compacted
            measured_wa = (done["cw"] + done["fw"]) / (window * ENTRY_BYTES)
            held = None if first is None or wall - first[1] < 0.1 else \
                (window - first[0]) / (wall - first[1])
            out.append(Window(
                m, offered, present, wa, measured_wa, rate,
                _rate(cal, measured_wa),
                wall, d["stall"] * 1e-6, window / wall, held,
                share,
                window / (wall + catch_up),
                window / (max(done["ct"] / COMPACTION_THREADS, done["ft"]) * 1e-6), free,
                of_average))
            present += window
        del db
    return Measured(label, cal, tuple(out))


def _runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [SweepCase(label, "stalls", None, {"label": label}, measure=measure)
            for label in configs()]


def _section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    rows, shares, calm, stalled, rates, agree = [], [], [], [], [], []
    for r in results:
        m: Measured = r.result
        # T2's window: the one offered a multiple of T2 itself where there is one
        extra = any(w.of_average for w in m.windows)
        for w in m.windows:
            shares.append(w.predicted_share - w.share)
            agree.append((w.predicted_share > STALL_FREE) == (w.share > STALL_FREE))
            if w.multiple < 0.6:
                calm.append((w.share <= STALL_FREE, w.predicted_share <= STALL_FREE))
            if w.multiple > 1.2 and not w.of_average:
                stalled.append(w.stall_seconds > 0)
            if w.multiple > 1.2 and w.of_average == extra:
                # the window and its catch-up measure the tree only if the writer outran T2
                outran = w.offered > w.predicted_rate
                rates.append((m.label,
                              w.predicted_rate / w.cycle_rate - 1.0 if outran else None,
                              w.rate_at_measured / w.cycle_rate - 1.0 if outran else None,
                              w.predicted_rate / w.busy_rate - 1.0))
            rows.append([m.label, f"{w.multiple:g}×" + (" T2" if w.of_average else ""),
                         f"{w.offered:,.0f}",
                         f"{w.predicted_write_amp:.2f} / {w.measured_write_amp:.2f}",
                         f"{w.predicted_rate:,.0f}", f"{w.rate_at_measured:,.0f}",
                         "–" if w.burst_free is None else f"{w.burst_free:,.0f}",
                         "–" if w.held_rate is None else f"{w.held_rate:,.0f}",
                         f"{w.cycle_rate:,.0f}", f"{w.busy_rate:,.0f}",
                         f"{w.achieved:,.0f}", f"{w.predicted_share:.2f}", f"{w.share:.2f}",
                         f"{w.stall_seconds:.2f} / {w.seconds:.2f}"])
    cals = [r.result.calibration for r in results]
    met = sum(abs(s) <= SHARE_TARGET for s in shares)

    def within(i: int) -> str:
        found = [x[i] for x in rates if x[i] is not None]
        return (f"{sum(abs(e) <= RATE_TARGET for e in found)} of {len(found)} ("
                + ", ".join("–" if x[i] is None else f"{x[i]:+.0%}" for x in rates) + ")")

    body = [*table(["configuration", "offered ÷ sustainable", "offered (inserts/s)",
                    "WA model / measured", "T2 (model WA)", "T2 (measured WA)",
                    "T3u burst-free", "held after first stall",
                    "sustained over window and catch-up", "compaction-bound (busy time)",
                    "achieved", "T3 / T3u share", "measured share", "stall s / window s"],
                   rows),
            "",
            f"- Stalled share within {SHARE_TARGET} of T3's (leveled) or T3u's (universal): "
            f"{met} of {len(shares)} windows"
            + (f" (worst {max(map(abs, shares)):.2f})." if shares else "."),
            f"- No stall time at 0.5× (under {STALL_FREE:.0%} of the window): "
            f"{sum(c for c, _ in calm)} of {len(calm)}; predicted (T3 / T3u under "
            f"{STALL_FREE:.0%}): {sum(p for _, p in calm)} of {len(calm)}; stalls at 1.5×: "
            f"{sum(stalled)} of {len(stalled)}. Stalled or not (over {STALL_FREE:.0%} of the "
            f"window), predicted as measured: {sum(agree)} of {len(agree)} windows.",
            f"- T2 within {RATE_TARGET:.0%} of the rate sustained over the 1.5× window (universal: "
            f"the 1.5× T2 window) and its catch-up, where the window offered more than T2 (else "
            f"'–'): "
            f"{within(1)} at the model's write amplification, {within(2)} at the measured one. "
            f"T2 at the model's write amplification within {RATE_TARGET:.0%} of the "
            "compaction-bound rate (the window's inserts over the compaction thread's busy "
            "time, or the flush thread's if longer, as RocksDB's statistics time them): "
            f"{within(3)}. The rate held after the first "
            "stall is the write controller's (RocksDB's delayed_write_rate, about 151,000 puts "
            "a second here, or a fifth less), not the tree's; where the controller holds the "
            "writer below the tree's rate the window and its catch-up measure the controller "
            "too, so the comparison is exact only where T2 is under the delayed rate.",
            "- Calibration in each case (put / compaction byte / flush byte, ns): "
            + "; ".join(f"{c.ns_per_put:.0f} / {c.ns_per_compaction_byte:.2f} / "
                        f"{c.ns_per_flush_byte:.2f}" for c in cals) + "."]
    return section(
        "stalls", "Write stalls on RocksDB at offered rates: T2 and T3", command,
        f"Each configuration is loaded with {ENTRIES:,} inserts of {ENTRY_BYTES} B (a "
        f"{BUFFER:,} B buffer, {BITS:g} filter bits per key, no WAL, tmpfs; the export's "
        f"options with RocksDB's pending-compaction-bytes limits scaled to the data: soft "
        f"{SOFT_PENDING >> 20} MiB, hard {4 * SOFT_PENDING >> 20} MiB), then offered "
        f"{WINDOW:,} inserts at 0.5, 0.9 and 1.5 times its sustainable rate (T2's; for "
        "universal compaction T3u's burst-free rate if lower; universal compaction then gets "
        "a fourth window at 1.5 times T2 itself, '1.5× T2', which loads the tree past T2 "
        "where 1.5 times T3u's lower rate may not), each window "
        "starting with compaction caught up. T2 (docs/MODEL.md) takes the I/O model's write "
        "amplification over the window (leveled: the partial walk at the window's middle size; "
        "universal: U1-U4 walked in time over the window itself at the offered rate, one merge "
        "at a time, from the runs the database holds when the window starts, a part of the "
        "largest run's cycle; the rate it is offered at comes from the same walk with "
        "compaction keeping up) and a calibration measured in the same case "
        "(validation/stalls.py, the median of three loads); T3 the share of time stalled "
        "from the backlog over T2's average rate (leveled), T3u the share of that walk in "
        "time, with RocksDB's write controller on level 0's files "
        "(universal: a full merge holds the compaction thread while level 0 fills, so it can "
        "stall below T2). Measured: RocksDB's "
        "`rocksdb.stall.micros` over the window's wall time.", body)


SETS = {"stalls": SetCode(_runs, _section)}

