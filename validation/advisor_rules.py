"""RocksDB's Advisor's rules on write stalls and compaction, restated in Python (issue 35: ``wacky
advise`` against the Advisor, docs/ADVISE.md "Against RocksDB's Advisor").

The rules are those of ``tools/advisor/advisor/rules.ini`` in facebook/rocksdb (the stored
version read: commit 020791d1a50758d4e93ed6bc478b6f32687a0bff), every rule of it: four on stalls
(LOG conditions) and one on the sizes of level 0 and level 1 (an OPTIONS condition). Each
:class:`Rule`, :class:`LogCondition`, :class:`OptionsCondition` and :class:`Suggestion` below
carries the name rules.ini gives it; their regexes, options and actions are rules.ini's.

How a rule fires is the Advisor's (``rule_parser.py``, ``db_log_parser.py``): a LOG condition
holds when its regex matches a line of the LOG (its scope is the column family; these
databases have one), an OPTIONS condition when its expression of the options is true, and a
rule fires when all its conditions hold.

rules.ini gives a direction per option, not a value. The step applied is the Advisor's own, its
``ConfigOptimizer.apply_action_on_value`` (``db_config_optimizer.py``) with no suggested values:
"increase" adds 2 to a value under 10 and multiplies a larger one by 1.3, "decrease" multiplies by
0.7, both truncated to an integer; an option the OPTIONS file does not hold is left alone. A value
of -1 (RocksDB's "derive it", as ``max_background_compactions`` is by default) is under 10, so the
step makes it 1, as the Advisor's does. Where the Advisor's optimizer applies one option at a
time and measures, :func:`advice` applies every suggestion of every fired rule at once, one step
each (a user following all of the printed advice); an option two fired rules move in opposite
directions is dropped, as its ``disambiguate_guidelines`` drops it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wacky_model.rocksdb_files import OptionsFile, read_log, read_options_file


@dataclass(frozen=True)
class LogCondition:
    """``source=LOG``: holds when ``regex`` matches a LOG line."""

    name: str
    regex: str


@dataclass(frozen=True)
class OptionsCondition:
    """``source=OPTIONS``: holds when ``evaluate`` of the ``options`` (as numbers) is true."""

    name: str
    options: tuple[str, ...]  # "CFOptions.write_buffer_size"
    evaluate: Callable[[Sequence[float]], bool]
    expression: str  # rules.ini's ``evaluate=``, for the report


@dataclass(frozen=True)
class Suggestion:
    name: str
    option: str | None  # "DBOptions.max_background_flushes"; None: a description only
    action: str | None  # "increase" or "decrease"
    description: str = ""


@dataclass(frozen=True)
class Rule:
    name: str
    conditions: tuple[str, ...]
    suggestions: tuple[str, ...]


# rules.ini, [Condition "..."] sections.
CONDITIONS: dict[str, LogCondition | OptionsCondition] = {c.name: c for c in (
    LogCondition("stall-too-many-memtables",
                 r"Stopping writes because we have \d+ immutable memtables \(waiting for "
                 r"flush\), max_write_buffer_number is set to \d+"),
    LogCondition("stall-too-many-L0", r"Stalling writes because we have \d+ level-0 files"),
    LogCondition("stop-too-many-L0", r"Stopping writes because we have \d+ level-0 files"),
    LogCondition("stall-too-many-compaction-bytes",
                 r"Stalling writes because of estimated pending compaction bytes \d+"),
    OptionsCondition(
        "level0-level1-ratio",
        ("CFOptions.level0_file_num_compaction_trigger", "CFOptions.write_buffer_size",
         "CFOptions.max_bytes_for_level_base"),
        lambda o: int(o[0]) * int(o[1]) - int(o[2]) < -251659456,
        "int(options[0])*int(options[1])-int(options[2])<(-251659456)"),
)}

# rules.ini, [Suggestion "..."] sections.
SUGGESTIONS: dict[str, Suggestion] = {s.name: s for s in (
    Suggestion("inc-bg-flush", "DBOptions.max_background_flushes", "increase"),
    Suggestion("inc-write-buffer", "CFOptions.max_write_buffer_number", "increase"),
    Suggestion("inc-max-subcompactions", "DBOptions.max_subcompactions", "increase"),
    Suggestion("inc-max-bg-compactions", "DBOptions.max_background_compactions", "increase"),
    Suggestion("inc-write-buffer-size", "CFOptions.write_buffer_size", "increase"),
    Suggestion("dec-max-bytes-for-level-base", "CFOptions.max_bytes_for_level_base",
               "decrease"),
    Suggestion("inc-l0-slowdown-writes-trigger", "CFOptions.level0_slowdown_writes_trigger",
               "increase"),
    Suggestion("inc-l0-stop-writes-trigger", "CFOptions.level0_stop_writes_trigger", "increase"),
    Suggestion("inc-hard-pending-compaction-bytes-limit",
               "CFOptions.hard_pending_compaction_bytes_limit", "increase"),
    Suggestion("inc-soft-pending-compaction-bytes-limit",
               "CFOptions.soft_pending_compaction_bytes_limit", "increase"),
    Suggestion("l0-l1-ratio-health-check", None, None,
               "modify options such that (level0_file_num_compaction_trigger * "
               "write_buffer_size - max_bytes_for_level_base < 5) is satisfied"),
)}

# rules.ini, [Rule "..."] sections, in its order.
RULES: tuple[Rule, ...] = (
    Rule("stall-too-many-memtables", ("stall-too-many-memtables",),
         ("inc-bg-flush", "inc-write-buffer")),
    Rule("stall-too-many-L0", ("stall-too-many-L0",),
         ("inc-max-subcompactions", "inc-max-bg-compactions", "inc-write-buffer-size",
          "dec-max-bytes-for-level-base", "inc-l0-slowdown-writes-trigger")),
    Rule("stop-too-many-L0", ("stop-too-many-L0",),
         ("inc-max-bg-compactions", "inc-write-buffer-size", "inc-l0-stop-writes-trigger")),
    Rule("stall-too-many-compaction-bytes", ("stall-too-many-compaction-bytes",),
         ("inc-max-bg-compactions", "inc-write-buffer-size",
          "inc-hard-pending-compaction-bytes-limit", "inc-soft-pending-compaction-bytes-limit")),
    Rule("level0-level1-ratio", ("level0-level1-ratio",), ("l0-l1-ratio-health-check",)),
)


@dataclass(frozen=True)
class Fired:
    """A rule that fired: its name, the evidence of each condition (the first matching LOG line
    and the count of matching lines, or the options' values) and its suggestions."""

    rule: str
    evidence: tuple[str, ...]
    suggestions: tuple[str, ...]


@dataclass(frozen=True)
class Change:
    """One option the fired rules move, by one Advisor step (module doc)."""

    option: str  # "CFOptions.write_buffer_size"
    action: str
    current: str
    advised: str
    rules: tuple[str, ...]

    @property
    def section(self) -> str:
        return self.option.split(".", 1)[0]

    @property
    def name(self) -> str:
        return self.option.split(".", 1)[1]


@dataclass(frozen=True)
class Advice:
    fired: tuple[Fired, ...]
    changes: tuple[Change, ...]
    unchanged: tuple[str, ...]  # suggestions that change nothing, with why


def step(old: float | None, action: str) -> int | None:
    """The Advisor's ``apply_action_on_value`` with no suggested values (module doc)."""
    if not old:  # absent, or 0: the Advisor needs a suggested value, which rules.ini has none of
        return None
    if action == "increase":
        return int(old + 2 if old < 10 else 1.3 * old)
    if action == "decrease":
        return int(0.7 * old)
    raise ValueError(f"action must be 'increase' or 'decrease', not {action!r}")


def _option_value(options: OptionsFile, option: str) -> str | None:
    section, name = option.split(".", 1)
    figure = options.get(name, section)
    return None if figure is None else str(figure.value)


def _holds(condition: LogCondition | OptionsCondition, lines: Sequence[str],
           options: OptionsFile) -> str | None:
    """The evidence that ``condition`` holds, or None."""
    if isinstance(condition, LogCondition):
        pattern = re.compile(condition.regex)
        hits = [i for i, line in enumerate(lines) if pattern.search(line)]
        if not hits:
            return None
        return (f"{len(hits)} LOG line(s), first at line {hits[0] + 1}: "
                f"{lines[hits[0]].strip()[-120:]}")
    values = [_option_value(options, o) for o in condition.options]
    try:
        numbers = [float(v) for v in values if v is not None]
    except ValueError:
        return None
    if len(numbers) < len(values) or not condition.evaluate(numbers):
        return None
    return f"{condition.expression} with " + ", ".join(
        f"{o.split('.', 1)[1]}={v}" for o, v in zip(condition.options, values, strict=True))


def fired_rules(lines: Sequence[str], options: OptionsFile) -> tuple[Fired, ...]:
    """The rules of :data:`RULES` whose conditions all hold on the LOG's ``lines`` and the
    ``options``."""
    fired = []
    for rule in RULES:
        evidence = [_holds(CONDITIONS[c], lines, options) for c in rule.conditions]
        if all(e is not None for e in evidence):
            fired.append(Fired(rule.name, tuple(e for e in evidence if e is not None),
                               rule.suggestions))
    return tuple(fired)


def changes_of(fired: Sequence[Fired], options: OptionsFile
               ) -> tuple[tuple[Change, ...], tuple[str, ...]]:
    """Each option the fired rules' suggestions move, one step each, and the suggestions that
    change nothing (a description only, an option absent from the file, or two directions)."""
    wanted: dict[str, dict[str, list[str]]] = {}  # option -> action -> rules
    unchanged = []
    for f in fired:
        for name in f.suggestions:
            s = SUGGESTIONS[name]
            if s.option is None or s.action is None:
                unchanged.append(f"{name} ({f.rule}): no option, only '{s.description}'")
                continue
            wanted.setdefault(s.option, {}).setdefault(s.action, []).append(f.rule)
    changes = []
    for option, actions in wanted.items():
        if len(actions) > 1:
            unchanged.append(f"{option}: the rules move it both ways ({', '.join(actions)}); "
                             "the Advisor drops it")
            continue
        (action, rules), = actions.items()
        current = _option_value(options, option)
        new = step(None if current is None else float(current), action)
        if current is None or not new:  # the Advisor skips a None or 0 result too
            unchanged.append(f"{option}: {action} ({', '.join(rules)}), but the OPTIONS file "
                             f"has {'no such option' if current is None else current}")
            continue
        changes.append(Change(option, action, current, str(new), tuple(rules)))
    return tuple(changes), tuple(unchanged)


def advice(log: str | Path, options: str | Path) -> Advice:
    """The Advisor's rules on a LOG and an OPTIONS file (module doc). Both are read with
    :mod:`wacky_model.rocksdb_files` (which refuses what is not RocksDB's), the LOG's lines then
    matched as the Advisor matches them."""
    read_log(log)  # a RocksFileError for a missing file or one that is no RocksDB LOG
    opts = read_options_file(options)
    lines = Path(log).read_text(encoding="utf-8", errors="replace").splitlines()
    fired = fired_rules(lines, opts)
    changes, unchanged = changes_of(fired, opts)
    return Advice(fired, changes, unchanged)


def apply_changes(text: str, changes: Sequence[Change]) -> str:
    """The OPTIONS file ``text`` with each change's ``name=value`` line replaced in its section
    (the default column family's); every other line as it was."""
    by = {(c.section, c.name): c for c in changes}
    out, section = [], None
    for raw in text.splitlines():
        s = raw.strip()
        if s.startswith("["):
            head = s.strip("[]").split(" ", 1)[0]
            family = re.search(r'"([^"]*)"', s)
            section = head if family is None or family.group(1) == "default" else None
        elif "=" in s and not s.startswith("#") and section is not None:
            c = by.get((section, s.split("=", 1)[0].strip()))
            if c is not None:
                indent = raw[: len(raw) - len(raw.lstrip())]
                out += [f"{indent}# RocksDB Advisor: {c.action} ({', '.join(c.rules)}), was "
                        f"{c.current}", f"{indent}{c.name}={c.advised}"]
                continue
        out.append(raw)
    return "\n".join(out) + "\n"
