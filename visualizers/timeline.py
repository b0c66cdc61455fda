"""Events and matches as tables and a plotly timeline (the Run page).

Pure functions from engine objects (``Event``, ``Match``) to pandas frames and plotly
figures. Time stamps that were date-times in the input (``LoadResult.time_is_datetime``)
are shown as UTC date-times; numeric ones as they are.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]
VAR_SYMBOLS = ["circle", "diamond", "square", "triangle-up", "star", "cross", "x", "pentagon"]


def _time(v: float | None, is_datetime: bool) -> Any:
    if v is None:
        return None
    return pd.to_datetime(v, unit="s", utc=True) if is_datetime else v


def _attrs_text(attrs: dict[str, Any], limit: int = 6) -> str:
    items = list(attrs.items())
    s = ", ".join(f"{k}={v}" for k, v in items[:limit])
    return s + (", …" if len(items) > limit else "")


def events_frame(events: Sequence[Any], is_datetime: bool = False, limit: int | None = None) -> pd.DataFrame:
    """One row per event: seq, id, type, ts (and lower/upper), then the attributes."""
    rows = []
    for e in events[:limit] if limit else events:
        r: dict[str, Any] = {"seq": e.seq, "id": e.id, "type": e.type, "ts": _time(e.ts, is_datetime)}
        if getattr(e, "lower", None) is not None:
            r["lower"] = _time(e.lower, is_datetime)
            r["upper"] = _time(e.upper, is_datetime)
        r.update(e.attrs)
        rows.append(r)
    return pd.DataFrame(rows)


def match_variables(matches: Sequence[Any], order: Sequence[str] | None = None) -> list[str]:
    if order:
        return list(order)
    return [v for v, _ids in matches[0].bindings] if matches else []


def matches_frame(matches: Sequence[Any], is_datetime: bool = False, order: Sequence[str] | None = None
                  ) -> pd.DataFrame:
    """One row per match: ``#``, start, end, events, then one column per variable with the
    ids it bound (space separated)."""
    variables = match_variables(matches, order)
    rows = []
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        r: dict[str, Any] = {"#": k, "start": _time(m.start, is_datetime), "end": _time(m.end, is_datetime),
                             "events": sum(len(d.get(v, [])) for v in variables)}
        for v in variables:
            r[v] = " ".join(str(i) for i in d.get(v, []))
        rows.append(r)
    return pd.DataFrame(rows, columns=["#", "start", "end", "events", *variables])


def match_events_frame(match: Any, by_id: dict[Any, Any], is_datetime: bool = False) -> pd.DataFrame:
    """The events of one match, in stream order, with the variable each is bound to."""
    rows = []
    for v, ids in match.bindings:
        for pos, i in enumerate(ids, 1):
            e = by_id.get(i)
            r: dict[str, Any] = {"variable": v if len(ids) == 1 else f"{v}[{pos}]", "id": i}
            if e is not None:
                r.update({"seq": e.seq, "type": e.type, "ts": _time(e.ts, is_datetime)})
                r.update(e.attrs)
            rows.append(r)
    df = pd.DataFrame(rows)
    if "seq" in df.columns:
        df = df.sort_values("seq", kind="stable").reset_index(drop=True)
    return df


def export_frame(matches: Sequence[Any], order: Sequence[str] | None = None) -> pd.DataFrame:
    """Matches for download: ``match`` (JSON ``{var: [ids]}``), start, end, start_seq,
    end_seq, as the Spark pipeline writes them."""
    rows = [{"match": json.dumps(m.as_dict(), default=str), "start": float(m.start), "end": float(m.end),
             "start_seq": int(m.start_seq), "end_seq": int(m.end_seq)} for m in matches]
    return pd.DataFrame(rows, columns=["match", "start", "end", "start_seq", "end_seq"])


def jsonl_text(matches: Iterable[Any]) -> str:
    """The JSON Lines contract: one ``Match.to_json()`` per line."""
    return "".join(json.dumps(m.to_json(), default=str) + "\n" for m in matches)


def timeline_figure(events: Sequence[Any], matches: Sequence[Any], is_datetime: bool = False,
                    highlight: int | None = None, max_events: int = 5000, max_matches: int = 200,
                    order: Sequence[str] | None = None) -> go.Figure:
    """Top: the events by type over time, events that are part of a match ringed. Bottom:
    one row per match, its events as markers (one symbol per variable) joined by a line,
    from first to last event. ``highlight`` (0-based) draws that match as a band on top."""
    has_matches = bool(matches)
    fig = make_subplots(rows=2 if has_matches else 1, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        row_heights=[0.55, 0.45] if has_matches else [1.0])
    shown_events = list(events[:max_events])
    by_id = {e.id: e for e in events}
    used_ids: set[Any] = set()
    for m in matches[:max_matches]:
        for _v, ids in m.bindings:
            used_ids.update(ids)
    types = sorted({e.type for e in shown_events})
    colour = {t: PALETTE[k % len(PALETTE)] for k, t in enumerate(types)}
    for t in types:
        evs = [e for e in shown_events if e.type == t]
        fig.add_trace(go.Scatter(
            x=[_time(e.ts, is_datetime) for e in evs], y=[t] * len(evs), mode="markers", name=t,
            legendgroup="types",
            marker=dict(size=[13 if e.id in used_ids else 9 for e in evs], color=colour[t],
                        line=dict(width=[2.5 if e.id in used_ids else 0 for e in evs], color="#111")),
            hovertext=[f"id {e.id} · seq {e.seq}<br>{t} at {_time(e.ts, is_datetime)}<br>{_attrs_text(e.attrs)}"
                       for e in evs],
            hoverinfo="text"), row=1, col=1)
    if has_matches:
        variables = match_variables(matches, order)
        sym = {v: VAR_SYMBOLS[k % len(VAR_SYMBOLS)] for k, v in enumerate(variables)}
        shown = list(matches[:max_matches])
        labels = [f"#{k}" for k in range(1, len(shown) + 1)]
        # one line per match (None separates them)
        lx: list[Any] = []
        ly: list[Any] = []
        for k, m in enumerate(shown):
            lx += [_time(m.start, is_datetime), _time(m.end, is_datetime), None]
            ly += [labels[k], labels[k], None]
        fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", line=dict(color="#999", width=2), hoverinfo="skip",
                                 showlegend=False), row=2, col=1)
        for v in variables:
            xs, ys, hs, cs = [], [], [], []
            for k, m in enumerate(shown):
                for i in m.as_dict().get(v, []):
                    e = by_id.get(i)
                    if e is None:
                        continue
                    xs.append(_time(e.ts, is_datetime))
                    ys.append(labels[k])
                    hs.append(f"match #{k + 1} · {v} = id {i}<br>{e.type} at {_time(e.ts, is_datetime)}"
                              f"<br>{_attrs_text(e.attrs)}")
                    cs.append(colour.get(e.type, "#333"))
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=f"variable {v}", legendgroup="vars",
                                     marker=dict(symbol=sym[v], size=11, color=cs, line=dict(width=1, color="#111")),
                                     hovertext=hs, hoverinfo="text"), row=2, col=1)
        fig.update_yaxes(title_text="matches", autorange="reversed", type="category", row=2, col=1)
        if highlight is not None and 0 <= highlight < len(matches):
            m = matches[highlight]
            x0, x1 = _time(m.start, is_datetime), _time(m.end, is_datetime)
            if x0 == x1:
                fig.add_vline(x=x0, line=dict(color="#f39c12", width=6), opacity=0.5, row=1, col=1)
            else:
                fig.add_vrect(x0=x0, x1=x1, fillcolor="#f39c12", opacity=0.18, line_width=0, row=1, col=1)
    fig.update_yaxes(title_text="event type", type="category", row=1, col=1)
    n_rows = min(len(matches), max_matches)
    fig.update_layout(height=320 + (min(n_rows, 40) * 14 + 120 if has_matches else 0),
                      margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0),
                      hoverlabel=dict(align="left"))
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#f3f3f3")
    return fig


def stats_rows(stats: dict[str, Any]) -> pd.DataFrame:
    """Flat ``name, value`` rows for a stats dict (nested dicts joined with a dot)."""
    rows = []
    for k, v in stats.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                rows.append({"stat": f"{k}.{k2}", "value": v2})
        else:
            rows.append({"stat": k, "value": v})
    return pd.DataFrame(rows, columns=["stat", "value"]).astype({"value": "string"})
