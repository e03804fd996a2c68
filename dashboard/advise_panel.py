"""The "Advise a running RocksDB" panel: upload a database's OPTIONS file and LOG (and a trace),
see what ``wacky advise`` infers, the model against the LOG, and the options to change; download
the advised OPTIONS file. The files go to a temporary directory for the call and are deleted
after it; the panel depends on no other callback.
"""

from __future__ import annotations

import base64
import binascii
import tempfile
from pathlib import Path
from typing import Any

from dash import Dash, Input, Output, State, dash_table, dcc, html, no_update

ADVISE_PANEL = "advise-panel"
OPTIONS_UPLOAD = "advise-options-upload"
LOG_UPLOAD = "advise-log-upload"
TRACE_UPLOAD = "advise-trace-upload"
ADVISE_BUTTON = "advise-button"
ADVISE_RESULT = "advise-result"
ADVISE_MESSAGE = "advise-message"
ADVISE_FILES = "advise-files"  # the uploaded names, shown beside the uploads
ADVISED_OPTIONS = "advise-options-text"  # the advised OPTIONS file (a store)
ADVISE_DOWNLOAD_BUTTON = "advise-download-button"
ADVISE_DOWNLOAD = "advise-download"
MAX_UPLOAD_BYTES = 256 << 20

_UPLOAD_STYLE = {"border": "1px dashed #999", "borderRadius": "6px", "padding": "6px 10px",
                 "margin": "4px 8px 4px 0", "display": "inline-block", "cursor": "pointer"}
_PANEL = {"border": "1px solid #ddd", "borderRadius": "6px", "padding": "10px 14px",
          "marginBottom": "12px", "background": "white"}
_MESSAGE = {"color": "#a40000", "background": "#fff0f0", "border": "1px solid #e0a0a0",
            "borderRadius": "6px", "padding": "4px 12px", "margin": "6px 0"}


def panel() -> html.Div:
    def upload(cid: str, text: str) -> dcc.Upload:
        return dcc.Upload(html.Div(text), id=cid, style=_UPLOAD_STYLE)

    return html.Div([
        html.H4("Advise a running RocksDB", style={"marginTop": 0}),
        html.Div("Upload its OPTIONS file and its LOG (with statistics and stats_dump_period_sec "
                 "on, the LOG carries the measurements) and, optionally, a trace it recorded "
                 "(DB::StartTrace). Nothing is kept after the advice is computed."),
        html.Div([upload(OPTIONS_UPLOAD, "OPTIONS file"), upload(LOG_UPLOAD, "LOG"),
                  upload(TRACE_UPLOAD, "trace (optional)"),
                  html.Button("Advise", id=ADVISE_BUTTON, n_clicks=0)]),
        html.Div(id=ADVISE_FILES, style={"fontSize": "90%", "color": "#555"}),
        html.Div(id=ADVISE_MESSAGE, role="alert"),
        html.Div(id=ADVISE_RESULT),
        html.Div([html.Button("Download the advised OPTIONS file", id=ADVISE_DOWNLOAD_BUTTON,
                              n_clicks=0, disabled=True),
                  dcc.Download(id=ADVISE_DOWNLOAD), dcc.Store(id=ADVISED_OPTIONS)],
                 style={"marginTop": "6px"}),
    ], id=ADVISE_PANEL, style=_PANEL)


def _decode(contents: str, name: str) -> bytes:
    """The bytes of a dcc.Upload's ``data:...;base64,...`` contents (ValueError naming it)."""
    try:
        payload = contents.split(",", 1)[1]
        data = base64.b64decode(payload, validate=True)
    except (IndexError, ValueError, binascii.Error) as e:
        raise ValueError(f"the uploaded file {name} could not be read") from e
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"the uploaded file {name} is larger than {MAX_UPLOAD_BYTES >> 20} MiB")
    return data


def _table(rows: list[dict], columns: list[str]) -> dash_table.DataTable:
    return dash_table.DataTable(
        data=rows, columns=[{"name": c, "id": c} for c in columns],
        style_cell={"textAlign": "left", "whiteSpace": "normal", "height": "auto",
                    "fontFamily": "sans-serif", "fontSize": "90%"},
        style_table={"overflowX": "auto"})


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:,.0f}" if v.is_integer() or abs(v) >= 1e6 else f"{v:.4g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def advise_uploads(options: str | None, options_name: str | None, log: str | None,
                   log_name: str | None, trace: str | None = None,
                   trace_name: str | None = None) -> tuple[list, str | None, str]:
    """The panel's result for the uploads: (children, the advised OPTIONS file or None, an error
    message or ""). File names in messages are the uploaded ones, not the temporary copies."""
    from wacky_model.advise import advise

    if options is None or log is None:
        return [], None, "Upload the database's OPTIONS file and its LOG, then press Advise."
    names = {"OPTIONS": options_name or "OPTIONS", "LOG": log_name or "LOG",
             "trace": trace_name or "trace"}
    with tempfile.TemporaryDirectory(prefix="wacky-advise-") as tmp:
        root = Path(tmp)
        paths = {}
        try:
            for key, contents in (("OPTIONS", options), ("LOG", log), ("trace", trace)):
                if contents is not None:
                    paths[key] = root / key
                    paths[key].write_bytes(_decode(contents, names[key]))
            advice = advise(options=paths["OPTIONS"], log=paths["LOG"], trace=paths.get("trace"),
                            allow_unknown_options=True)
            text = advice.options_file()
        except ValueError as e:
            message = str(e)
            for key, path in paths.items():
                message = message.replace(str(path), names[key])
            return [], None, message
        d = advice.to_dict()

        def named(text: str) -> str:
            for key, path in paths.items():
                text = text.replace(str(path), names[key])
            return text

    inferred = [{"figure": f["name"], "value": _value(f["value"]),
                 "source": ("assumed: " if f["assumed"] else "") + named(f["source"]),
                 "override": f["flag"] or ""} for f in d["inferred"]]
    measured = [{"figure": k, "value": _value(v["value"]), "source": named(v["source"])}
                for k, v in d["measured"].items()]
    changes = [{"option": c["name"], "current": c["current"], "advised": c["advised"],
                "reason": c["reason"], "predicted effect": c["effect"]} for c in d["changes"]]
    error = d["model_error"]
    cur, adv = d["current"]["predicted"], d["advised"]["predicted"]
    summary = []
    if error is not None:
        summary.append(f"Write amplification: the model predicts {error['predicted']:.3g} for "
                       f"the current options; the database measured {error['measured']:.3g} "
                       f"({error['unit']}; {error['relative_error']:+.0%})"
                       + ("." if error["steady"] else
                          " over a session shorter than one load of writes since the open: not "
                          "the steady state the model prices, so no measure of the model."))
    if cur is not None:
        summary.append(f"Θ {cur['theta']:.4g} → {adv['theta']:.4g} "
                       f"({adv['theta'] / cur['theta'] - 1:+.1%}) with the advised options.")
    children = [
        html.Div([html.P(s) for s in summary]),
        *[html.Div(f"Went without: {named(w)}", style={"color": "#8a5a00"})
          for w in d["went_without"]],
        html.H5("What advise inferred, and from where"),
        _table(inferred, ["figure", "value", "source", "override"]),
        html.H5("What the LOG measured"),
        _table(measured, ["figure", "value", "source"]),
        html.H5("Advised options (the stock RocksDB search at the same memory)"),
        _table(changes, ["option", "current", "advised", "reason", "predicted effect"])
        if changes else html.Div("The current options are the search's pick."),
    ]
    return children, named(text), ""


def register(app: Dash) -> None:
    @app.callback(Output(ADVISE_FILES, "children"), Input(OPTIONS_UPLOAD, "filename"),
                  Input(LOG_UPLOAD, "filename"), Input(TRACE_UPLOAD, "filename"))
    def _files(options_name, log_name, trace_name):
        shown = [f"{what}: {name}" for what, name in (("OPTIONS", options_name),
                                                      ("LOG", log_name), ("trace", trace_name))
                 if name]
        return "; ".join(shown)

    @app.callback(Output(ADVISE_RESULT, "children"), Output(ADVISED_OPTIONS, "data"),
                  Output(ADVISE_MESSAGE, "children"), Output(ADVISE_MESSAGE, "style"),
                  Output(ADVISE_DOWNLOAD_BUTTON, "disabled"),
                  Input(ADVISE_BUTTON, "n_clicks"),
                  State(OPTIONS_UPLOAD, "contents"), State(OPTIONS_UPLOAD, "filename"),
                  State(LOG_UPLOAD, "contents"), State(LOG_UPLOAD, "filename"),
                  State(TRACE_UPLOAD, "contents"), State(TRACE_UPLOAD, "filename"),
                  prevent_initial_call=True)
    def _advise(_clicks, options, options_name, log, log_name, trace, trace_name):
        children, text, message = advise_uploads(options, options_name, log, log_name, trace,
                                                 trace_name)
        return (children, text, message, _MESSAGE if message else {}, text is None)

    @app.callback(Output(ADVISE_DOWNLOAD, "data"), Input(ADVISE_DOWNLOAD_BUTTON, "n_clicks"),
                  State(ADVISED_OPTIONS, "data"), prevent_initial_call=True)
    def _download(_clicks, text):
        if not text:
            return no_update
        return {"content": text, "filename": "OPTIONS.advised"}
