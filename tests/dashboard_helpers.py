"""Shared pieces of the dashboard tests: default controls, a fake validation runner, and
walking a Dash component tree."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np
from dash import no_update

from dashboard import callbacks as cb
from dashboard.jobs import ValidationJobs, ValidationRequest
from validation.results import Checks, Costs, LevelShape, ValidationResult
from validation.scale import Scale
from wacky_model.guardrails import Constraints
from wacky_model.search import DesignSpace
from wacky_model.types import System

WORKLOAD = {"point-reads": 20, "zero-reads": 20, "writes": 60, "range-reads": 0,
            "range-blocks": 0}
SYSTEM = {"entries": 2**31, "entry-bytes": 128, "block-bytes": 4096, "buffer-mib": 8,
          "bits-per-entry": 5}
KNOBS = {"T": 10, "C": 9, "X": 1, "K": 0, "Z": 0}


@lru_cache(maxsize=8)
def space_for(system: System, constraints: Constraints | None = None) -> DesignSpace:
    return DesignSpace.build(system, constraints=constraints)


def services(runner=None) -> cb.Services:
    return cb.Services(space_for=space_for, jobs=ValidationJobs(runner or fake_runner))


def fake_runner(request: ValidationRequest, progress) -> ValidationResult:
    """A ValidationResult with made-up figures, without building anything."""
    progress(0.5, "loading")
    levels = (LevelShape(1, 3, 3000), LevelShape(2, 1, 97000))
    model = Costs(write_amp=4.0, zero_result_read=0.2, point_read=1.1, point_read_uniform=1.05,
                  range_runs=6.0, range_io=6.0, memory_bits_per_entry=5.0, levels=levels,
                  theta=0.5)
    return ValidationResult(
        design=request.design,
        scale=Scale(entries=100_000, entry_bytes=128, buffer_bytes=65536),
        budget={"bits_per_entry": request.bits_per_entry},
        workload=request.workload,
        predicted=model,
        paper=replace(model, write_amp=4.5),
        simulated=model,
        measured=replace(model, write_amp=5.0),
        checks=Checks(),
        seconds=0.01,
    )


def views(workload=None, system=None, mode="recommend", knobs=None, filters="optimized",
          svc=None):
    return cb.update_views(
        {**WORKLOAD, **(workload or {})}, {**SYSTEM, **(system or {})}, mode,
        {**KNOBS, **(knobs or {})}, filters, svc or services(),
    )


def text_of(component) -> str:
    """All the text inside a Dash component tree."""
    if component is None or component is no_update:
        return ""
    if isinstance(component, (str, int, float)):
        return str(component)
    if isinstance(component, (list, tuple)):
        return " ".join(text_of(c) for c in component)
    return text_of(getattr(component, "children", None))


def find(component, component_id):
    if getattr(component, "id", None) == component_id:
        return component
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if hasattr(child, "to_plotly_json"):
            hit = find(child, component_id)
            if hit is not None:
                return hit
    return None


def random_inputs(count: int, seed: int) -> list[tuple[dict, dict, bool]]:
    """Dashboard fields for mixes, sizes and memory; every fourth with skew and a cache."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        mix = np.round(rng.dirichlet(np.full(4, 0.8)) * 100, 1)
        mix[2] += 100 - mix.sum()  # the fields are percentages
        fields_w = {"point-reads": mix[0], "zero-reads": mix[1], "writes": mix[2],
                    "range-reads": mix[3], "range-blocks": float(rng.choice([0, 1, 16]))}
        fields_s = {"entries": int(2 ** rng.integers(22, 32)),
                    "buffer-mib": int(rng.choice([1, 8, 64])),
                    "bits-per-entry": float(rng.choice([2, 5, 10]))}
        skewed = i % 4 == 3
        if skewed:
            fields_w |= {"write-keys": "zipf:0.9", "read-keys": "zipf:0.9",
                         "update-fraction": 50}
            fields_s |= {"cache-mib": 16}
        out.append((fields_w, fields_s, skewed))
    return out


def cli_flags(workload, system, skewed: bool) -> list[str]:
    flags = ["--entries", str(int(system.entries)), "--buffer-bytes", str(system.buffer_bytes),
             "--bits-per-entry", repr(float(system.bits_per_entry))]
    for name in ("point-reads", "zero-reads", "writes", "range-reads", "range-blocks"):
        flags += [f"--{name}", repr(float(getattr(workload, name.replace("-", "_"))))]
    if skewed:
        flags += ["--write-dist", "zipf:0.9", "--read-dist", "zipf:0.9",
                  "--update-fraction", "0.5", "--cache-bytes", str(system.cache_bytes)]
    return flags
