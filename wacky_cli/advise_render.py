"""How ``wacky advise`` shows its advice in a terminal (rich tables)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from wacky_model.advise import Advice


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if hasattr(v, "spec"):
        return str(v.spec)
    if isinstance(v, float):
        return f"{v:,.0f}" if v.is_integer() or abs(v) >= 1e6 else f"{v:,.4g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def print_advice(console: Console, advice: Advice, out: Path | None) -> None:
    """What advise read, inferred, measured and advises (``--json`` has the same and more)."""
    used = [f"{k} {v}" for k, v in advice.inputs.items() if v is not None]
    console.print("[bold]Inputs:[/bold] " + "; ".join(used))
    for what in advice.went_without:
        console.print(f"[yellow]went without:[/yellow] {what}")
    for note in advice.notes:
        console.print(f"note: {note}")

    t = Table(title="What advise inferred, and from where")
    for col in ("figure", "value", "source", "override"):
        t.add_column(col, overflow="fold")
    for f in advice.figures:
        t.add_row(f.name, _value(f.value), ("[yellow]assumed:[/yellow] " if f.assumed else "")
                  + f.source, f.flag or "")
    console.print(t)

    console.print(f"[bold]Current configuration:[/bold] {advice.current_note}")
    if advice.current_config is not None:
        console.print("  " + advice.current_config.options_text())
    m = Table(title="The current options: the model's prediction against the LOG")
    for col in ("figure", "predicted", "measured", "source"):
        m.add_column(col, overflow="fold")
    error = advice.model_error()
    predicted = "" if advice.current is None else f"{advice.current.write_amp:.3g}"
    pw = advice.measured.get("write_amp_per_write")
    wa = advice.measured.get("write_amp")
    if pw is not None:
        m.add_row("write amplification (per entry written)",
                  predicted, f"{float(pw.value):.3g}"
                  + ("" if error is None else f" (model {error['relative_error']:+.0%})"),
                  pw.source)
    if wa is not None:
        m.add_row("write amplification (LOG, Sum W-Amp)",
                  predicted if pw is None else "", f"{float(wa.value):.3g}"
                  + ("" if error is None or pw is not None
                     else f" (model {error['relative_error']:+.0%})"), wa.source)
    for key, label in (("write_amp_statistics", "write amplification (STATISTICS tickers)"),
                       ("filter_false_positive_rate", "filter false-positive rate"),
                       ("stalls", "write stalls"), ("stall_percent", "time stalled (%)"),
                       ("uptime_secs", "uptime (s)"), ("compactions", "compactions")):
        f = advice.measured.get(key)
        if f is not None:
            m.add_row(label, "", _value(f.value), f.source)
    for key, f in advice.measured.items():
        if key.startswith("stalls_"):
            m.add_row(f"  stalls: {key.removeprefix('stalls_').replace('_', ' ')}", "",
                      _value(f.value), f.source)
    console.print(m)
    if error is not None and not error["steady"]:
        console.print(
            "[yellow]Not a steady window:[/yellow] the LOG covers "
            + ("an unknown number of" if error["window_writes"] is None
               else f"{error['window_writes']:,}")
            + f" writes since the database opened, less than one load ({error['entries']:,.0f} "
            "entries) that the project's steady windows take: its write amplification holds a "
            "few flushes and the compactions the reopen set off, not the settled state the model "
            "prices, so the difference above is no measure of the model (wacky sweep advise "
            "measures it on steady windows).", soft_wrap=True)
    if advice.levels:
        lv = Table(title="The LOG's compaction stats per level")
        for col in ("level", "files", "bytes", "entries", "W-Amp", "KeyIn", "source"):
            lv.add_column(col, justify="right", overflow="fold")
        for r in advice.levels:
            lv.add_row(f"L{r['level']}", _value(r["files"]), _value(round(r["bytes"])),
                       "" if r["entries"] is None else _value(round(r["entries"])),
                       _value(r["write_amp"]), _value(r["key_in"]), r["source"])
        console.print(lv)

    c = Table(title="Advised options (recommend --target rocksdb at the same memory)")
    for col in ("option", "current", "advised", "reason", "predicted effect"):
        c.add_column(col, overflow="fold")
    for ch in advice.changes:
        c.add_row(ch.name, ch.current, ch.advised, ch.reason, ch.effect)
    console.print(c)
    if not advice.changes:
        console.print("The current options are the search's pick: nothing to change.")
    a = advice.advised
    if advice.current is not None:
        console.print(
            f"Θ {advice.current.theta:.4g} -> {a.theta:.4g} "
            f"({a.theta / advice.current.theta - 1:+.1%}); write amplification "
            f"{advice.current.write_amp:.3g} -> {a.write_amp:.3g}; zero-result read "
            f"{advice.current.zero_result_read:.3g} -> {a.zero_result_read:.3g} I/O; point "
            f"read {advice.current.point_read:.3g} -> {a.point_read:.3g} I/O")
    if out is not None:
        console.print(f"wrote the advised OPTIONS file to {out}")
