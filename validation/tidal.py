"""Tidal-tree's floating of hot files (issue 33; native_engine/src/floating.h) against the native
engine without it, same workload and seed: N entries of 1 KiB loaded, then rounds of existing-key
reads and uniform inserts at a read/write ratio, the reads Zipf-skewed over keys scattered in the
key space (the popularity order is a random permutation), or ``latest`` (the most recently
inserted keys read most). Measured per case: the files a lookup of an existing key checks (its
key range admitted the key), data blocks read per lookup, and the blocks the floats and merges
wrote per insert; beside them the model's (cost_models.tidal, docs/MODEL.md F1-F5) for the same
window. The window starts after a warm-up of WARMUP operations: Eq 1's eta counts the load's
writes until the lookups' halvings decay them (floating.h), so floating starts slowly after a
load, and the model follows it through the warm-up too."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cost_models.partial import window_costs
from cost_models.tidal import (
    FloatCosts,
    Floating,
    float_costs,
    float_tree,
    idle_share,
    placement_bound,
    window_flushes,
)
from validation.generators import rank_sampler
from validation.scale import Scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, section, table
from wacky_model.files import native_policy
from wacky_model.types import Compaction, Design, KeyDistribution, System

ENTRIES = 100_000
ENTRY_BYTES = 1024  # the paper's 1 KB values
BUFFER = 64 << 10
FILE = 16 << 10
BLOCK = 4096  # the engine's default block size, which the runs keep
T = 10
OPERATIONS = 50_000
WARMUP = 50_000  # operations before the window: floating's start after the load, not counted
ROUND = 1_000  # operations per round: reads, then the round's inserts
# (gamma, Eq 5's stretch delta): the paper's trigger at two gammas, and with the stretch.
SETTINGS = ((1.0, 0.0), (4.0, 0.0), (1.0, 1.0))
WORKLOADS = (("zipf:0.99", 9), ("zipf:0.99", 4), ("latest", 9))
DESIGN = Design(T=T, C=T - 1, X=1, K=0, Z=0)
TARGET_PROBES = -0.40  # files checked per existing-key lookup: -40% or better under Zipf
LATEST_BAND = 0.05  # within +-5% under latest reads
# Paged metadata (Engine(paged_metadata=True)): each checked file's filter block, and on a
# "maybe" its index block, through a cache this small, so a check saved is a read saved.
PAGED_CACHE = 64 << 10
PAGED_LABEL = ", paged metadata"
MODEL_PROBES = 0.10  # the model's files checked per lookup within 10% of the engine's
MODEL_WRITES = 0.25  # the model's extra writes per insert within 25%


@dataclass(frozen=True)
class TidalRun:
    probes: float  # files checked per existing-key lookup
    read_blocks: float  # data blocks read per existing-key lookup
    written_per_insert: float  # blocks written by flushes, merges and floats per insert
    float_per_insert: float  # of which by floats
    floats: int
    meta_reads: float = 0.0  # filter and index blocks read per lookup (paged metadata)
    # With level_dirs (D1): per device, blocks written per insert (flushes, merges and floats)
    # and blocks the lookups read per existing-key lookup, counted around the gets alone.
    device_written: tuple[float, ...] = ()
    device_read: tuple[float, ...] = ()


def measure(reads: str, ratio: int, gamma: float, seed: int = 5, per_flush: int = 1,
            stretch: float = 0.0, operations: int = OPERATIONS,
            entries: int = ENTRIES, warmup: int = WARMUP, paged_cache: int = 0,
            cache_bytes: int = 0, level_dirs: Sequence[str] = ()) -> TidalRun:
    """One run: the load of ``entries``, then ``operations`` operations with ``ratio`` reads per
    insert (the notebook runs a smaller load). ``paged_cache``: paged metadata through a cache
    of that size; else ``cache_bytes``: a block cache for data blocks (metadata pinned).
    ``level_dirs``: the engine's per-level devices, whose reads and writes are counted."""
    if paged_cache and cache_bytes:
        raise ValueError("give paged_cache (paged metadata) or cache_bytes (a data block "
                         f"cache), not both; got {paged_cache}, {cache_bytes}")
    from native_engine import Engine

    rng = np.random.default_rng(seed)
    keys = rng.choice(2**62, entries + warmup + operations, replace=False).astype(np.uint64) + 1
    load, fresh = keys[:entries], keys[entries:]
    value = np.zeros((ROUND, ENTRY_BYTES - 8), dtype=np.uint8)
    dist = KeyDistribution.parse(reads)
    popularity = rng.permutation(load)  # the hot keys scattered over the key space
    sampler = rank_sampler(dist, entries + warmup + operations)
    floating = ({"float_gamma": gamma, "float_per_flush": per_flush, "float_stretch": stretch}
                if gamma > 0 else {})
    with tempfile.TemporaryDirectory(prefix="wacky-tidal-") as tmp:
        e = Engine(Path(tmp) / "db", T=T, C=T - 1, X=1, K=0, Z=0, entry_bytes=ENTRY_BYTES,
                   buffer_bytes=BUFFER, granularity="file", file_bytes=FILE, bits_per_entry=10,
                   wal=False, level_dirs=list(level_dirs), **floating,
                   **({"paged_metadata": True, "cache_bytes": paged_cache} if paged_cache
                      else {"cache_bytes": cache_bytes} if cache_bytes else {}))
        for i in range(0, entries, ROUND):
            e.put_many(load[i:i + ROUND], value[:len(load[i:i + ROUND])])
        inserted = 0
        reads_per_round = ROUND * ratio // (ratio + 1)
        before = e.stats()

        def device_bytes(kind: str) -> np.ndarray:
            return np.array([d[kind] for d in e.stats()["devices"]], dtype=float)

        get_reads = np.zeros(len(before["devices"]))
        for step in range((warmup + operations) // ROUND):
            if step == warmup // ROUND:
                before = e.stats()
            counting = step >= warmup // ROUND
            r0 = device_bytes("bytes_read") if counting and level_dirs else None
            if dist.kind == "latest":  # 0 the newest: the fresh inserts, then the load's last
                written = np.concatenate([fresh[:inserted][::-1], load[::-1]])
                ranks = sampler.draw(rng, reads_per_round)
                draw = written[np.minimum(ranks, written.size - 1)]
            else:
                draw = popularity[sampler.draw(rng, reads_per_round) % entries]
            found = e.get_many(draw)
            if r0 is not None:
                get_reads += device_bytes("bytes_read") - r0
            if not all(v is not None for v in found):
                raise RuntimeError("the engine lost an existing key")
            n = ROUND - reads_per_round
            e.put_many(fresh[inserted:inserted + n], value[:n])
            inserted += n
        after = e.stats()
        e.close()

    def delta(*path: str) -> float:
        a: object = after
        b: object = before
        for p in path:
            a, b = a[p], b[p]  # type: ignore[index]
        return float(a) - float(b)  # type: ignore[arg-type]

    found_gets = delta("gets_found")
    counted = inserted - (warmup // ROUND) * (ROUND - reads_per_round)
    block = float(BLOCK)
    written_on = (np.array([d["bytes_written"] for d in after["devices"]], dtype=float)
                  - np.array([d["bytes_written"] for d in before["devices"]], dtype=float))
    written = (delta("total", "blocks_written"))
    return TidalRun(probes=delta("found_get_files_checked") / max(1.0, found_gets),
                    read_blocks=delta("point_read", "blocks_read") / max(1.0, found_gets),
                    written_per_insert=written / max(1, counted),
                    float_per_insert=delta("float", "blocks_written") / max(1, counted),
                    meta_reads=(delta("filter", "blocks_read") + delta("index", "blocks_read"))
                    / max(1.0, found_gets),
                    floats=int(delta("floats")),
                    device_written=(tuple(written_on / block / max(1, counted)) if level_dirs
                                    else ()),
                    device_read=(tuple(get_reads / block / max(1.0, found_gets)) if level_dirs
                                 else ()))


def predict(reads: str, ratio: int, gamma: float, per_flush: int = 1,
            operations: int = OPERATIONS, entries: int = ENTRIES,
            warmup: int = WARMUP) -> FloatCosts | None:
    """The model's figures for :func:`measure`'s window (cost_models.tidal over the partial
    model's tree for this design); None for ``latest`` reads, which F3 does not describe (its
    read keys are scattered loaded keys, not the newest)."""
    dist = KeyDistribution.parse(reads)
    if dist.kind == "latest":
        return None
    system = System(entries=entries, entry_bytes=ENTRY_BYTES, buffer_bytes=BUFFER,
                    bits_per_entry=10)
    policy = native_policy(DESIGN, system, Compaction("file", FILE))
    inserts = (warmup + operations) // (ratio + 1)
    tree = float_tree(window_costs(policy, entries, inserts, settled=True), policy)
    flushes = window_flushes(operations // (ratio + 1), tree)
    opts = Floating(gamma=gamma, per_flush=per_flush) if gamma > 0 else None
    return float_costs(tree, opts, dist, entries, float(ratio), flushes,
                       writes_before=entries, warmup=window_flushes(warmup // (ratio + 1), tree),
                       idle=_idle(ratio, tree.flush_entries))


def _idle(ratio: int, flush_entries: float) -> float:
    """F3's share of flushes after no lookup: a round's reads come first, then its inserts,
    and the flushes of one batch of inserts after its first follow no lookup."""
    return idle_share(ROUND - ROUND * ratio // (ratio + 1), flush_entries)


def _label(reads: str, ratio: int, gamma: float, stretch: float = 0.0) -> str:
    return f"{reads} reads, R:W {ratio}:1, " + (_setting(gamma, stretch) if gamma
                                                else "no floating")


def _setting(gamma: float, stretch: float) -> str:
    return f"gamma {gamma:g}" + (f", stretch {stretch:g}" if stretch else "")


def _runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    return [*(SweepCase(_label(reads, ratio, g, st), "tidal", None,
                        {"reads": reads, "ratio": ratio, "gamma": g, "stretch": st},
                        measure=measure)
              for reads, ratio in WORKLOADS for g, st in ((0.0, 0.0), *SETTINGS)),
            *(SweepCase(_label("zipf:0.99", 9, g) + PAGED_LABEL, "tidal", None,
                        {"reads": "zipf:0.99", "ratio": 9, "gamma": g,
                         "paged_cache": PAGED_CACHE}, measure=measure) for g in (0.0, 1.0))]


def _model_cells(off: TidalRun, on: TidalRun, model: FloatCosts | None, per_block: float,
                 inserts: int) -> tuple[list[str], list[str]]:
    """The model's cells beside the measured ones, and its verdicts against F1-F4's bars."""
    if model is None:
        return ["-"] * 5, []
    extra = on.written_per_insert - off.written_per_insert
    m_extra = model.extra_writes / per_block
    e_probes = model.probes_on / on.probes - 1.0
    e_extra = m_extra / extra - 1.0 if extra > 0 else float("inf")
    cells = [f"{model.probes_on:.2f}", f"{model.probe_change:+.1%}", f"{m_extra:.2f}",
             f"{model.float_writes / per_block:.2f}",
             f"{model.floats_per_flush * inserts / (BUFFER // ENTRY_BYTES):,.0f}"]
    verdicts = [f"files checked {e_probes:+.1%} "
                f"({'within' if abs(e_probes) <= MODEL_PROBES else 'outside'} "
                f"{MODEL_PROBES:.0%})",
                f"extra writes {e_extra:+.1%} "
                f"({'within' if abs(e_extra) <= MODEL_WRITES else 'outside'} "
                f"{MODEL_WRITES:.0%})"]
    return cells, verdicts


def _section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    by = {r.name: r.result for r in results}
    per_block = 4096 // ENTRY_BYTES
    rows, verdicts, model_verdicts, steady = [], [], [], []
    for reads, ratio in WORKLOADS:
        off: TidalRun | None = by.get(_label(reads, ratio, 0.0))
        if off is None:
            continue
        for g, st in SETTINGS:
            on: TidalRun | None = by.get(_label(reads, ratio, g, st))
            if on is None:
                continue
            change = on.probes / off.probes - 1.0
            model = predict(reads, ratio, g) if not st else None
            cells, said = _model_cells(off, on, model, per_block,
                                       OPERATIONS // (ratio + 1))
            rows.append([f"{reads}, R:W {ratio}:1", _setting(g, st), f"{off.probes:.2f}",
                         f"{on.probes:.2f}", cells[0], f"{change:+.1%}", cells[1],
                         f"{off.read_blocks:.3f}", f"{on.read_blocks:.3f}",
                         f"{on.written_per_insert - off.written_per_insert:.2f}", cells[2],
                         f"{on.float_per_insert:.2f}", cells[3], f"{on.floats:,}", cells[4]])
            if said:
                model_verdicts.append(f"{reads}, R:W {ratio}:1, {_setting(g, st)}: "
                                      + ", ".join(said))
            if reads == "latest":
                verdicts.append(f"latest, {_setting(g, st)}: {change:+.1%} "
                                f"({'within' if abs(change) <= LATEST_BAND else 'outside'} "
                                f"+-{LATEST_BAND:.0%})")
            else:
                verdicts.append(f"{reads}, R:W {ratio}:1, {_setting(g, st)}: {change:+.1%} "
                                f"({'met' if change <= TARGET_PROBES else 'missed'}: "
                                f"{TARGET_PROBES:+.0%} or better)")
        if reads != "latest":
            steady.append(_steady_line(reads, ratio))
    paged_off = by.get(_label("zipf:0.99", 9, 0.0) + PAGED_LABEL)
    paged_on = by.get(_label("zipf:0.99", 9, 1.0) + PAGED_LABEL)
    paged = "" if paged_off is None or paged_on is None else (
        f"With paged metadata (filter and index blocks through a {PAGED_CACHE // 1024} KiB "
        "cache, `Engine(paged_metadata=True)`), zipf:0.99 at R:W 9:1, gamma 1: files checked "
        f"{paged_off.probes:.2f} -> {paged_on.probes:.2f}, filter and index blocks read per "
        f"lookup {paged_off.meta_reads:.3f} -> {paged_on.meta_reads:.3f} "
        f"({paged_on.meta_reads / max(1e-9, paged_off.meta_reads) - 1:+.1%}), all blocks read "
        f"{paged_off.meta_reads + paged_off.read_blocks:.3f} -> "
        f"{paged_on.meta_reads + paged_on.read_blocks:.3f} per lookup, at "
        f"{paged_on.written_per_insert - paged_off.written_per_insert:+.2f} blocks written per "
        "insert. The model does not price this mode with floating yet (the one table: F1-F5 "
        "and G1 are not composed).")
    body = [*table(["reads", "floating", "files checked per lookup, off", "on", "model",
                    "change", "model", "data blocks read per lookup, off", "on",
                    "extra blocks written per insert", "model", "by floats", "model",
                    "floats", "model"], rows), "",
            "Against the issue's targets: " + "; ".join(verdicts) + "." if verdicts else "",
            "",
            "The model against the engine (bars: files checked within "
            f"{MODEL_PROBES:.0%}, extra writes within {MODEL_WRITES:.0%}): "
            + "; ".join(model_verdicts) + ". Eq 5's stretch and latest reads are not "
            "modelled ('-'). A round's inserts hold "
            + " and ".join(f"{(ROUND - ROUND * r // (r + 1)) / (BUFFER // ENTRY_BYTES):.2f} "
                           f"flushes at R:W {r}:1" for r in sorted({r for _, r in WORKLOADS},
                                                                    reverse=True))
            + ", so " + " and ".join(f"{_idle(r, BUFFER // ENTRY_BYTES):.0%}" for r in
                                     sorted({r for _, r in WORKLOADS}, reverse=True))
            + " of the flushes follow no lookup: Level 1's files, all written by the flush "
            "before, then have share 0, so Eq 1's bar against Level 1 is 0 whatever gamma "
            "and a file of Level 2 floats (F3); this, not Eq 1, sets most of the floats at "
            "gamma 4. A float's run returns to its level in the same flush, one file more "
            "down each level (F4).",
            "",
            paged,
            "",
            "Past the warm-up, at steady state (no load's writes in eta), and the floor F5 "
            "that no floating can pass at these level sizes (each level's files holding one "
            "hot key each, the hottest highest): " + "; ".join(steady) + ".",
            "",
            "A file is checked when its key range admits the key (so its filter is consulted): "
            "level 0's runs, the one file of each level that covers it. With filters pinned in "
            "memory a check costs its false-positive rate, so fewer checks save little I/O "
            "here; with paged filters (docs/MODEL.md G1) each saved check is a filter block "
            "the cache need not hold. Extra blocks written: with floating less without, per "
            "insert (the floats' own writes and their entries' way back down)."]
    return section(
        "tidal", "Tidal-tree's floating of hot files against the native engine without it",
        command,
        f"{ENTRIES:,} entries of {ENTRY_BYTES:,} B loaded (Leveling T = {T} with files of "
        f"{FILE:,} B, a {BUFFER:,} B buffer, 10 bits per entry), then {WARMUP:,} operations "
        f"of warm-up and {OPERATIONS:,} measured, in rounds of {ROUND:,}: existing-key reads, "
        "then uniform inserts of new keys, at the read/write ratio given. Zipf reads are over "
        "a random permutation of the loaded keys (hot keys scattered); latest reads favour "
        "the newest inserts. Floating: `Engine(float_gamma=...)` with the paper's Eq 4 "
        "(3 reads per check saved, alpha 1), native_engine/src/floating.h. Model: "
        "cost_models.tidal (docs/MODEL.md F1-F5) over the partial model's tree.", body)


def _steady_line(reads: str, ratio: int) -> str:
    """F3 far past any load (eta at its workload value), and F5's floor, for gamma 1."""
    system = System(entries=ENTRIES, entry_bytes=ENTRY_BYTES, buffer_bytes=BUFFER,
                    bits_per_entry=10)
    policy = native_policy(DESIGN, system, Compaction("file", FILE))
    tree = float_tree(window_costs(policy, ENTRIES, OPERATIONS // (ratio + 1), settled=True),
                      policy)
    dist = KeyDistribution.parse(reads)
    flushes = window_flushes(OPERATIONS // (ratio + 1), tree)
    warm = 4 * flushes
    on = float_costs(tree, Floating(gamma=1.0), dist, ENTRIES, float(ratio), flushes,
                     warmup=warm, idle=_idle(ratio, tree.flush_entries))
    floor = placement_bound(tree, dist, ENTRIES)
    return (f"{reads}, R:W {ratio}:1, gamma 1: {on.probes_off:.2f} -> {on.probes_on:.2f} "
            f"({on.probe_change:+.1%}); floor {floor:.2f} ({floor / on.probes_off - 1:+.1%})")


SETS = {"tidal": SetCode(_runs, _section)}
