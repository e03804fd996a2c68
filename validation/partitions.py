"""OHDB's partitioned level 0 (issue 33): the native engine with P = 1 and P = 10 partitions, at
level-0 triggers 1 and 4, against the partial-merge model with P6 (docs/MODEL.md). The paper
(``../shared/papers/ohdb-concurrent-lsm.md``) counts 4-9x fewer level compactions and 31% fewer
bytes with partitions; the model predicts the same bytes and P times the merges into Level 1.
The section says which the engine bears out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from validation.results import ValidationResult
from validation.scale import Scale
from validation.side_runs import side_scale
from validation.sweep import Refused, SetCode, SweepCase, SweepResult, bits, section, table
from wacky_model.types import Compaction, Design

OHDB_ENTRIES = 200_000
OHDB_BUFFER = 128 << 10  # the 4 MiB buffer and 1 MiB files, in the same ratio
OHDB_FILE = 32 << 10
PARTITIONS = (1, 10)  # the paper's P = 10 against none
TRIGGERS = (1, 4)
TARGET_LEVEL_BYTES = 0.10  # bytes per level within 10% of the model
# OHDB's two disk components: the log, the metadata and level 0 on one device, Level 1 and
# below on another (the native engine's level_dirs; RocksDB's db_paths).
OHDB_DEVICES = (0, 1)


@dataclass(frozen=True)
class OhdbCase:
    partitions: int
    trigger: int
    engine: str = "native"  # or "rocksdb": stock RocksDB with the bridge's partitioner

    @property
    def name(self) -> str:
        on = "" if self.engine == "native" else " on RocksDB"
        return f"P={self.partitions} trigger={self.trigger}{on}"

    @property
    def compaction(self) -> Compaction:
        return Compaction("file", OHDB_FILE, self.trigger, l0_partitions=self.partitions,
                          level_devices=OHDB_DEVICES)


DESIGN = Design(T=10, C=9, X=1, K=0, Z=0)


def ohdb_cases(engine: str = "native") -> list[OhdbCase]:
    return [OhdbCase(p, k, engine) for k in TRIGGERS for p in PARTITIONS]


def ohdb_scale(scale: Scale) -> Scale:
    return side_scale(scale, OHDB_ENTRIES, OHDB_BUFFER)


def _runs(scale: Scale, budget: dict[str, float]) -> list[SweepCase]:
    rocks = {"engine": "rocksdb", "stock": True}
    return [SweepCase(c.name, "ohdb", DESIGN, {
        "scale": ohdb_scale(scale), "bits_per_entry": bits(budget),
        "compaction": c.compaction, **(rocks if c.engine == "rocksdb" else {})})
        for c in ohdb_cases() + ohdb_cases("rocksdb")]


def _largest(write_amp: Sequence[float], merges: Sequence[float], scale: Scale) -> float:
    """Entries written per merge into the level whose merges are largest on average."""
    F = scale.system(None, None).buffer_entries  # entries per flush, as the engine counts
    return max((w * F / m for w, m in zip(write_amp, merges, strict=False) if m > 0),
               default=0.0)


def _levels(r: ValidationResult) -> dict[str, list[float]]:
    return r.detail("per_level") or {}


def _fmt(xs: Sequence[float], digits: int = 2) -> str:
    return " / ".join(f"{x:.{digits}f}" for x in xs)


def _section(results: Sequence[SweepResult], scale: Scale, budget: dict[str, float],
             command: str, refused: Refused) -> str:
    by_name = {r.name: r.result for r in results}
    sc = ohdb_scale(scale)
    rows, errors = [], []
    for c in ohdb_cases():
        r = by_name.get(c.name)
        if r is None:
            continue
        lv = _levels(r)
        err = [m / p - 1.0 for m, p in zip(lv["write_amp"], lv["model_write_amp"], strict=False)
               if p > 0]
        errors += err
        rows.append([c.name, f"{r.measured.write_amp:.2f}", f"{r.predicted.write_amp:.2f}",
                     _fmt(lv["write_amp"]), _fmt(lv["model_write_amp"]),
                     _fmt(lv["merges_per_flush"]), _fmt(lv["model_merges_per_flush"]),
                     f"{max(abs(e) for e in err):.1%}", f"{r.measured.zero_result_read:.4f}",
                     f"{r.predicted.zero_result_read:.4f}",
                     f"{_largest(lv['write_amp'], lv['merges_per_flush'], sc):,.0f}",
                     f"{_largest(lv['model_write_amp'], lv['model_merges_per_flush'], sc):,.0f}"])
    body = [*table(["case", "WA", "model", "WA per level (Level 1 first)", "model",
                    "merges per flush per level", "model", "worst level",
                    "zero-result I/O", "model", "largest merge", "model"], rows), "",
            "The largest merge is the level whose merges write the most entries on average "
            "(entries written into it per flush over its merges per flush; Level 1's include "
            "the flushes): P partitions make the merges into Level 1 P times smaller.", "",
            "A lookup probes only its own partition's level-0 runs, so zero-result reads pay "
            "the false positives of (k - 1)/2 of them on average, as without partitions (P3); "
            "had it probed every partition's, P = 10 at trigger 4 would pay about ten times "
            "level 0's share.", ""]
    body += [*_device_rows(by_name), ""]
    pairs = [(by_name.get(OhdbCase(1, k).name), by_name.get(OhdbCase(10, k).name))
             for k in TRIGGERS]
    changes: list[tuple[float, float]] = []  # (measured, model) change in bytes, P 10 vs 1
    for k, (one, ten) in zip(TRIGGERS, pairs, strict=True):
        if one is None or ten is None:
            continue
        m1, m10 = _levels(one)["merges_per_flush"], _levels(ten)["merges_per_flush"]
        measured = ten.measured.write_amp / one.measured.write_amp - 1
        model = ten.predicted.write_amp / one.predicted.write_amp - 1
        changes.append((measured, model))
        body.append(
            f"* Trigger {k}: P = 10 writes {measured:+.1%} against P = 1 (model {model:+.1%});"
            f" merges into Level 1 per flush {m1[0]:.2f} -> {m10[0]:.2f}, into all levels "
            f"{sum(m1):.2f} -> {sum(m10):.2f}.")
    body += ["", *_rocksdb_rows(by_name), ""]
    met = sum(abs(e) <= TARGET_LEVEL_BYTES for e in errors)
    body += ["", f"Bytes per level within {TARGET_LEVEL_BYTES:.0%} of the model: {met} of "
             f"{len(errors)} levels (median {100 * float(np.median(np.abs(errors))):.1f}%, worst "
             f"{100 * max(np.abs(errors)):.1f}%)." if errors else "", "",
             _verdict(changes, _rocksdb_changes(by_name))]
    return section(
        "ohdb", "OHDB's partitioned level 0 against the native engine without it", command,
        f"{sc.entries:,} entries of {sc.entry_bytes} B preloaded, a {sc.buffer_bytes:,} B "
        f"buffer and files of {OHDB_FILE:,} B (the issue's 4 MiB and 1 MiB in the same ratio), "
        "Leveling T = 10, then N uniform inserts; P partitions of the keys, equally spaced, "
        "each with its own level-0 trigger (native_engine/src/file_compaction.h). Written "
        "entries per entry inserted and merges per flush into each level, Level 1 first (with "
        "the flushes and level 0), measured and by the partial-merge model with P6 "
        "(docs/MODEL.md).", body)


def _device_rows(by_name: dict[str, ValidationResult]) -> list[str]:
    """OHDB's two disk components on the native engine: bytes written per byte inserted on each
    device, measured by the engine's device counters, the engine's per-level bytes summed by
    the placement (equal when the placement is exact), and D1's prediction."""
    rows, exact = [], []
    for c in ohdb_cases() + ohdb_cases("rocksdb"):
        r = by_name.get(c.name)
        dev = None if r is None else r.detail("devices")
        if not dev:
            continue
        summed = dev.get("write_amp_by_levels")  # RocksDB: its listener's bytes only
        if summed is not None:
            exact.append(all(abs(a - b) <= 1e-12 * max(1.0, b) for a, b in zip(
                dev["write_amp"], summed, strict=True)))
        rows.append([c.name, *(f"{m:.2f} / {'-' if s is None else f'{s:.2f}'} / {p:.2f}"
                               + (f" ({m / p - 1:+.1%})" if p > 1e-9 else "")
                               for m, s, p in zip(dev["write_amp"], summed or [None] * len(
                                   dev["write_amp"]), dev["model_write_amp"], strict=True))])
    if not rows:
        return []
    return ["OHDB's two disk components: the log, the MANIFEST and level 0 in the engine's own "
            "directory (device 0), Level 1 and below in another (device 1; the native engine's "
            "`level_dirs`, native_engine/src/devices.h). Bytes written per byte inserted on each "
            "device: the device's own count / the per-level bytes summed by the placement / "
            "D1's prediction from the partial model's ledger (docs/MODEL.md D1). On RocksDB the "
            "same placement is `db_paths` (level 0 on the database's directory, Levels 1..L on "
            "a second path; static level sizes, as RocksDB keeps beside two paths), its bytes "
            "the table files RocksDB finished in each path (the bridge's listener, "
            "rocksdb_bridge/src/path_listener.h) over the user bytes written.", "",
            *table(["case", "device 0 (log, level 0)", "device 1 (Levels 1..L)"], rows), "",
            f"Per-device bytes equal the per-level bytes summed by the placement in "
            f"{sum(exact)} of {len(exact)} cases."]


def _rocksdb_changes(by_name: dict[str, ValidationResult]) -> list[float]:
    """RocksDB's change in bytes with P = 10 against P = 1, per trigger (where both ran)."""
    out = []
    for k in TRIGGERS:
        one, ten = (by_name.get(OhdbCase(p, k, "rocksdb").name) for p in PARTITIONS)
        if one is not None and ten is not None:
            out.append(ten.measured.write_amp / one.measured.write_amp - 1)
    return out


def _rocksdb_rows(by_name: dict[str, ValidationResult]) -> list[str]:
    """Stock RocksDB with the bridge's partitioner (graded approximate: it cuts compaction
    outputs at the partitions, not flushes, and its level-0 trigger counts every file)."""
    rows = []
    for k in TRIGGERS:
        one, ten = (by_name.get(OhdbCase(p, k, "rocksdb").name) for p in PARTITIONS)
        if one is None or ten is None:
            continue
        rows.append([f"trigger {k}", f"{one.measured.write_amp:.2f}",
                     f"{ten.measured.write_amp:.2f}",
                     f"{ten.measured.write_amp / one.measured.write_amp - 1:+.1%}",
                     f"{one.predicted.write_amp:.2f}",
                     *(_fmt(r.detail("per_level")["write_amp"]) if r.detail("per_level")
                       else "-" for r in (one, ten)),
                     _fmt(one.detail("per_level")["model_write_amp"])
                     if one.detail("per_level") else "-"])
    if not rows:
        return []
    return ["On stock RocksDB 7.8.3 the same export with and without the bridge's partitioner "
            "(`sst_partitioner_factory` cutting every compaction's output at the same keys; "
            "RocksDB neither cuts flushes nor triggers per partition, so the export grades it "
            "approximate). The model's prediction is P6's: the same bytes with partitions.", "",
            "Per level, Level 1 (with the flushes) first: bytes written per user byte, from the "
            "bridge's listener (rocksdb_bridge/src/path_listener.h), and the stock partial "
            "model's.", "",
            *table(["RocksDB", "WA, P = 1", "WA, P = 10", "change", "model (either)",
                    "per level, P = 1", "per level, P = 10", "model"], rows)]


# The paper's claim about bytes: 31% fewer written with P = 10 (96.3 -> 66.8 GB).
PAPER_BYTES_CHANGE = 66.8 / 96.3 - 1.0
SAME_BYTES = 0.05  # a change in bytes within this is "the same bytes"


def _verdict(changes: Sequence[tuple[float, float]], rocksdb: Sequence[float] = ()) -> str:
    """Who was right about the bytes, from the measured changes (P = 10 against P = 1) on the
    native engine and, where it ran, on RocksDB."""
    if not changes:
        return ""
    worst = max(abs(m) for m, _ in changes)
    rocks = max((abs(c) for c in rocksdb), default=None)
    if worst <= SAME_BYTES and (rocks is None or rocks <= SAME_BYTES):
        also = ("" if rocks is None else
                f", and RocksDB with the partitioner within {rocks:.1%}")
        return (f"Who was right about the bytes: the model. The native engine writes within "
                f"{worst:.1%} of the same bytes with ten partitions as with one{also} (the "
                f"paper: {PAPER_BYTES_CHANGE:+.0%}). Each partition's merge takes its share of "
                "level 0 "
                "with its share of Level 1, so together they write what one merge of the whole "
                "would (P6); what changes is how often Level 1 is merged (P times) and how "
                "large each merge is (1/P), and Level 1's files, cut at the partitions, are "
                "smaller, so more merges go on from Level 1 to Level 2.")
    return (f"Who was right about the bytes: not the model. The bytes change by up to "
            f"{max(worst, rocks or 0.0):.1%} with ten partitions (the model: "
            f"{max(abs(p) for _, p in changes):.1%}; the paper: {PAPER_BYTES_CHANGE:+.0%}).")


SETS = {"ohdb": SetCode(_runs, _section)}
