"""A validation in words (the CLI and the dashboard print these): which errors are large and why,
and what went wrong with the measurement itself."""

from __future__ import annotations

from validation.results import Costs, Errors, ValidationResult, relative_error

VALIDATED_METRICS = (
    ("theta", "Θ (I/O per op)"), ("write_amp", "write amplification"),
    ("point_read", "point read (I/O)"), ("point_read_uniform", "point read, uniform keys (I/O)"),
    ("zero_result_read", "zero-result read (I/O)"), ("range_runs", "range read (runs)"),
    ("range_io", "range read (I/O)"), ("memory_bits_per_entry", "filter memory (bits/entry)"))
LARGE_ERROR = 0.25  # a relative error beyond this gets a sentence saying what it means
SMALL_IO = 0.1  # I/O per operation below this: a small gap is a large relative error


def model_name(result: ValidationResult) -> str:
    """The model in the "predicted" column: the skew model under skew or a cache."""
    return "skew model" if result.model == "skew" else "finite model"


def models(result: ValidationResult) -> list[tuple[str, Costs, Errors]]:
    """(label, figures, errors) of each model, in report order (no simulator under skew)."""
    out = [(model_name(result), result.predicted, result.relative_error),
           ("paper model", result.paper, result.paper_relative_error)]
    if result.simulated is not None:
        out.append(("engine simulator", result.simulated, result.simulated_relative_error))
    return out


def sources(result: ValidationResult) -> list[tuple[str, Costs]]:
    return [(f"the {label}", costs) for label, costs, _ in models(result)]


def why_large(key: str, source: str, predicted: float, measured: float,
               result: ValidationResult) -> str:
    """Why one relative error is large: a small measured figure, a near-zero prediction, or a
    real gap."""
    gap = abs(predicted - measured)
    if measured < SMALL_IO:
        why = (f"The engine measured only {measured:.2g}, and a relative error divides by the "
               f"measured figure: a gap of {gap:.2g} I/O per operation shows as a large "
               "percentage.")
    elif predicted < SMALL_IO:
        why = (f"The model predicts almost nothing ({predicted:.2g}) where the engine spent "
               f"{measured:.2g}: the relative error cannot go below -100%, so read the gap, "
               f"{gap:.2g} I/O per operation.")
    else:
        why = (f"Both figures are well above a small fraction of one I/O: a real gap for "
               f"{source} at this size.")
        if source == "the paper model":
            why += " The paper's model counts every level full, which a small tree rarely is."
    w = result.workload
    if key == "zero_result_read" and min(predicted, measured) < SMALL_IO:
        why += (" A zero-result read costs only its filters' false positives, hundredths of an "
                "I/O with enough bits per entry: a handful of false positives more or fewer "
                "moves its relative error a lot.")
    if key in ("range_runs", "range_io") and w is not None and w.range_reads == 0:
        why += " Range reads are 0% of this workload, so this figure does not enter Θ."
    return why


def large_error_notes(result: ValidationResult) -> list[str]:
    """A sentence for each metric some source misses by more than LARGE_ERROR."""
    notes = []
    for key, name in VALIDATED_METRICS:
        measured = getattr(result.measured, key)
        if measured == 0:
            # No relative error exists (the table shows "–"): say why instead.
            said = "; ".join(f"{source} predicts {getattr(costs, key):.3g}"
                             for source, costs in sources(result) if getattr(costs, key))
            if said:
                notes.append(f"{name}: the engine measured 0, so there is no relative error "
                             f"(it divides by the measured figure); {said}.")
            continue
        predicted = [(source, getattr(costs, key)) for source, costs in sources(result)]
        misses = [(source, p, e) for source, p in predicted
                  if (e := relative_error(p, measured)) is not None and abs(e) > LARGE_ERROR]
        if not misses:
            continue
        said = "; ".join(f"{source} predicts {p:.3g} ({e:+.0%})" for source, p, e in misses)
        worst = max(misses, key=lambda m: abs(m[2]))
        names = {source for source, _, _ in misses}
        notes.append(f"{name}: measured {measured:.3g}, {said}. "
                     + why_large(key, *worst[:2], measured, result)
                     + _window_start(key, names, measured, result)
                     + _simulated_tree(key, names))
    return notes


READS = ("zero_result_read", "point_read", "point_read_uniform", "range_runs", "range_io")


def _window_start(key: str, names: set[str], measured: float, result: ValidationResult) -> str:
    """The finite model averages over Level L's runs at the window's start; the engine began at
    one count: when the model told it is close, that is the why."""
    c = result.conditioned
    if c is None or f"the {model_name(result)}" not in names or key not in READS:
        return ""
    e = relative_error(getattr(c, key), measured)
    if e is None or abs(e) > LARGE_ERROR:
        return ""
    runs = result.detail("level_L_runs_at_start")
    return (f" The window's start: Level L held {runs} run{'s' if runs != 1 else ''} when the "
            "window began, and the model averages over every start; told that count, it "
            f"predicts {getattr(c, key):.3g} ({e:+.0%}).")


def _simulated_tree(key: str, names: set[str]) -> str:
    if "the engine simulator" not in names or key not in READS:
        return ""
    return (" The simulator's read figures are those of the tree the engine ended with; the "
            "engine's are averages over reads spread through the window, while its levels "
            "filled and emptied (the simulator replays the window for write amplification "
            "only).")


def window_notes(result: ValidationResult) -> list[str]:
    """Warnings about the measurement itself: an incomplete window, compaction behind."""
    notes = []
    if result.detail("window_complete") is False:
        notes.append("The measurement window hit its length cap before the largest level "
                     "finished a merge cycle: write amplification and Θ cover part of a cycle "
                     "only and may be off.")
    if result.phase == "steady" and result.detail("major_compactions") == 0:
        notes.append("No merge into the largest level happened during the window: the measured "
                     "write amplification leaves out the largest level's merges.")
    if waited := result.detail("throttle_seconds"):
        notes.append(f"The writer waited {waited:.1f} s for compaction to keep up.")
    if result.checks.any:
        c = result.checks
        notes.append(f"The engine gave wrong answers ({c.get_misses} missed keys, {c.zero_hits} "
                     f"found absent keys, {c.wrong_values} wrong values): a bug in the engine.")
    return notes
