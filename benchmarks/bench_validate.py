"""How long one validation takes at the default scale (2M entries of 128 B).

Target: under 60 s on the 2-core machine. The peer, measured in the same run, is the engine
alone loading the same load trace into the same design (``replay`` of ``load_trace``): the ratio
shows what the validation adds on top of the engine's work (key generation, the read phase,
both models).

    .venv/bin/python benchmarks/bench_validate.py [--entries N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from native_engine import Engine
from validation.generators import load_trace
from validation.replay import replay
from validation.runner import Scale, validate
from wacky_model.presets import preset
from wacky_model.types import System

DESIGNS = ("leveling", "tiering", "lazy-leveling", "qlsm-bush")


def engine_load_seconds(design, scale: Scale) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        e = Engine(Path(tmp) / "db", **design.knobs, filters=design.filters,
                   entry_bytes=scale.entry_bytes, block_bytes=scale.block_bytes,
                   buffer_bytes=scale.buffer_bytes, bits_per_entry=5.0)
        load = load_trace(scale.entries, entry_bytes=scale.entry_bytes, seed=scale.seed)
        start = time.perf_counter()
        replay(e, load)
        seconds = time.perf_counter() - start
        e.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=Scale().entries)
    args = parser.parse_args()
    scale = Scale(entries=args.entries)
    system = System(entries=scale.entries, buffer_bytes=scale.buffer_bytes)
    print(f"validation at {scale.entries:,} entries of {scale.entry_bytes} B, "
          f"{scale.reads:,} reads per kind (target: < 60 s each)")
    worst = 0.0
    for name in DESIGNS:
        design = preset(name, system=system)
        start = time.perf_counter()
        validate(design, scale=scale)
        total = time.perf_counter() - start
        peer = engine_load_seconds(design, scale)
        worst = max(worst, total)
        print(f"  {name:14s} validate {total:6.2f} s   engine-only load {peer:6.2f} s   "
              f"ratio {total / peer:5.2f}")
    print(f"slowest validation: {worst:.2f} s ({'meets' if worst < 60 else 'misses'} the 60 s "
          f"target)")


if __name__ == "__main__":
    main()
