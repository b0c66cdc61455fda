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

from visualizers import escape

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]
VAR_SYMBOLS = ["circle", "diamond", "square", "triangle-up", "star", "cross", "x", "pentagon"]


def _time(v: float | None, is_datetime: bool) -> Any:
    if v is None:
        return None
    return pd.to_datetime(v, unit="s", utc=True) if is_datetime else v


def _attrs_text(attrs: dict[str, Any], limit: int = 6) -> str:
    """The first attributes as plotly text (escaped: names and values come from the data)."""
    items = list(attrs.items())
    s = ", ".join(f"{k}={v}" for k, v in items[:limit])
    return escape.plotly(s + (", …" if len(items) > limit else ""))


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
    uncertain = any(hasattr(m, "confidence") for m in matches)
    rows = []
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        r: dict[str, Any] = {"#": k, "start": _time(m.start, is_datetime), "end": _time(m.end, is_datetime),
                             "events": sum(len(d.get(v, [])) for v in variables)}
        if uncertain:
            r["confidence"] = float(getattr(m, "confidence", 1))
        for v in variables:
            r[v] = " ".join(str(i) for i in d.get(v, []))
        rows.append(r)
    return pd.DataFrame(rows, columns=["#", "start", "end", "events", *(["confidence"] if uncertain else []),
                                       *variables])


def aggregate_frame(rows: Sequence[Any], is_datetime: bool = False) -> pd.DataFrame:
    """AGG results (A-Seq rows): ``ts``, the triggering ``event``, ``group``, ``value``."""
    out = [{"ts": _time(r.ts, is_datetime), "event": r.event, "group": r.group, "value": r.value} for r in rows]
    return pd.DataFrame(out, columns=["ts", "event", "group", "value"])


def aggregate_figure(rows: Sequence[Any], is_datetime: bool = False) -> go.Figure:
    """The aggregate over time, one step line per group."""
    fig = go.Figure()
    groups: dict[Any, list[Any]] = {}
    for r in rows:
        groups.setdefault(r.group, []).append(r)
    for k, (g, rs) in enumerate(groups.items()):
        fig.add_trace(go.Scatter(x=[_time(r.ts, is_datetime) for r in rs], y=[r.value for r in rs],
                                 mode="lines+markers", line=dict(shape="hv", color=PALETTE[k % len(PALETTE)]),
                                 name="all" if g is None else str(g),
                                 hovertext=[f"after event {r.event}: {r.value}" for r in rs], hoverinfo="text"))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0), yaxis_title="value")
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#f3f3f3")
    return fig


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


def export_frame(matches: Sequence[Any], order: Sequence[str] | None = None, is_datetime: bool = False
                 ) -> pd.DataFrame:
    """Matches for download (CSV, Parquet), as ``cep run --format csv`` writes them: ``match``
    (1-based), ``start``, ``end``, then one column per variable with the ids it bound,
    joined by a space, so that a spreadsheet shows one match per row. A variable named like
    one of the first three columns gets the suffix ``_ids``."""
    variables = match_variables(matches, order)
    cols = {v: (f"{v}_ids" if v in ("match", "start", "end", "confidence") else v) for v in variables}
    uncertain = any(hasattr(m, "confidence") for m in matches)
    rows = []
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        r: dict[str, Any] = {"match": k, "start": _time(m.start, is_datetime), "end": _time(m.end, is_datetime)}
        if uncertain:
            r["confidence"] = float(getattr(m, "confidence", 1))
        for v in variables:
            r[cols[v]] = " ".join(str(i) for i in d.get(v, []))
        rows.append(r)
    return pd.DataFrame(rows, columns=["match", "start", "end", *(["confidence"] if uncertain else []),
                                       *cols.values()])


def jsonl_text(matches: Iterable[Any]) -> str:
    """The JSON Lines contract: one ``Match.to_json()`` per line."""
    return "".join(json.dumps(m.to_json(), default=str) + "\n" for m in matches)


def match_span(matches: Sequence[Any]) -> tuple[float, float] | None:
    """First start and last end of ``matches`` (engine time), or None."""
    if not matches:
        return None
    return min(float(m.start) for m in matches), max(float(m.end) for m in matches)


def zoom_range(lo: float, hi: float, whole: tuple[float, float] | None = None, pad: float = 0.08
               ) -> tuple[float, float]:
    """``[lo, hi]`` with a margin of ``pad`` of its length (for a single instant: 1% of the
    whole stream, or one time unit)."""
    span = hi - lo
    if span > 0:
        margin = span * pad
    else:
        margin = (whole[1] - whole[0]) * 0.01 if whole and whole[1] > whole[0] else 1.0
    return lo - margin, hi + margin


ZOOMS = {"matches": "all matches", "match": "the selected match", "all": "the whole stream"}


def timeline_figure(events: Sequence[Any], matches: Sequence[Any], is_datetime: bool = False,
                    highlight: int | None = None, max_events: int = 5000, max_matches: int = 200,
                    order: Sequence[str] | None = None, zoom: str = "matches") -> go.Figure:
    """Top: the events by type over time, events that are part of a match ringed. Bottom:
    one row per match, its events as markers (one symbol per variable) joined by a line,
    from first to last event.

    ``highlight`` (0-based) selects a match: a band over its span, its own events drawn
    large with their variable (trace ``match #k: its events``) and the events inside its
    span that it skipped greyed (trace ``match #k: skipped``). ``zoom``: the x range shows
    ``matches`` (all matches, the default), ``match`` (the selected one) or ``all``."""
    has_matches = bool(matches)
    fig = make_subplots(rows=2 if has_matches else 1, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        row_heights=[0.55, 0.45] if has_matches else [1.0])
    shown_events = list(events[:max_events])
    by_id = {e.id: e for e in events}
    used_ids: set[Any] = set()
    for m in matches[:max_matches]:
        for _v, ids in m.bindings:
            used_ids.update(ids)
    sel = matches[highlight] if has_matches and highlight is not None and 0 <= highlight < len(matches) else None
    own: dict[Any, str] = {}
    if sel is not None:
        for v, ids in sel.bindings:
            for pos, i in enumerate(ids, 1):
                own[i] = v if len(ids) == 1 else f"{v}[{pos}]"
    skipped = ([e for e in events if sel.start_seq <= e.seq <= sel.end_seq and e.id not in own]
               if sel is not None else [])
    skipped_ids = {e.id for e in skipped}
    types = sorted({e.type for e in shown_events})
    colour = {t: PALETTE[k % len(PALETTE)] for k, t in enumerate(types)}
    for t in types:
        evs = [e for e in shown_events if e.type == t and e.id not in own and e.id not in skipped_ids]
        fig.add_trace(go.Scatter(
            # types, ids and values are data: escaped, as plotly reads tags in labels and hover text
            x=[_time(e.ts, is_datetime) for e in evs], y=[escape.plotly(t)] * len(evs), mode="markers",
            name=escape.plotly(t),
            legendgroup="types", customdata=[e.id for e in evs],
            marker=dict(size=[13 if e.id in used_ids else 9 for e in evs], color=colour[t],
                        opacity=0.45 if sel is not None else 1.0,
                        line=dict(width=[2.5 if e.id in used_ids else 0 for e in evs], color="#111")),
            hovertext=[f"id {escape.plotly(e.id)} · seq {e.seq}<br>{escape.plotly(t)} at {_time(e.ts, is_datetime)}"
                       f"<br>{_attrs_text(e.attrs)}"
                       for e in evs],
            hoverinfo="text"), row=1, col=1)
    if sel is not None:
        k = highlight + 1  # type: ignore[operator]
        if skipped:
            fig.add_trace(go.Scatter(
                x=[_time(e.ts, is_datetime) for e in skipped], y=[escape.plotly(e.type) for e in skipped],
                mode="markers",
                name=f"match #{k}: skipped", customdata=[e.id for e in skipped],
                marker=dict(size=10, color="#c8c8c8", symbol="x-thin-open", line=dict(width=2, color="#9a9a9a")),
                hovertext=[f"id {escape.plotly(e.id)} · seq {e.seq}: inside match #{k}'s span, not part of it<br>"
                           f"{escape.plotly(e.type)} at "
                           f"{_time(e.ts, is_datetime)}<br>{_attrs_text(e.attrs)}" for e in skipped],
                hoverinfo="text"), row=1, col=1)
        mine = sorted((by_id[i] for i in own if i in by_id), key=lambda e: e.seq)
        fig.add_trace(go.Scatter(
            x=[_time(e.ts, is_datetime) for e in mine], y=[escape.plotly(e.type) for e in mine], mode="markers+text",
            name=f"match #{k}: its events", customdata=[e.id for e in mine],
            text=[escape.plotly(own[e.id]) for e in mine], textposition="top center", textfont=dict(size=12, color="#b35900"),
            marker=dict(size=16, color=[colour.get(e.type, "#333") for e in mine],
                        line=dict(width=3, color="#e67e22")),
            hovertext=[f"match #{k} · {escape.plotly(own[e.id])} = id {escape.plotly(e.id)} · seq {e.seq}<br>"
                       f"{escape.plotly(e.type)} at "
                       f"{_time(e.ts, is_datetime)}<br>{_attrs_text(e.attrs)}" for e in mine],
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
        if sel is not None and highlight < len(shown):  # type: ignore[operator]
            fig.add_trace(go.Scatter(x=[_time(sel.start, is_datetime), _time(sel.end, is_datetime)],
                                     y=[labels[highlight], labels[highlight]], mode="lines",  # type: ignore[index]
                                     line=dict(color="#f39c12", width=8), opacity=0.5, hoverinfo="skip",
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
                    hs.append(f"match #{k + 1} · {escape.plotly(v)} = id {escape.plotly(i)}<br>{escape.plotly(e.type)} "
                              f"at {_time(e.ts, is_datetime)}"
                              f"<br>{_attrs_text(e.attrs)}")
                    cs.append(colour.get(e.type, "#333"))
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=f"variable {escape.plotly(v)}", legendgroup="vars",
                                     marker=dict(symbol=sym[v], size=11, color=cs, line=dict(width=1, color="#111")),
                                     hovertext=hs, hoverinfo="text"), row=2, col=1)
        fig.update_yaxes(title_text="matches", autorange="reversed", type="category", row=2, col=1)
        if sel is not None:
            x0, x1 = _time(sel.start, is_datetime), _time(sel.end, is_datetime)
            if x0 == x1:
                fig.add_vline(x=x0, line=dict(color="#f39c12", width=6), opacity=0.5, row=1, col=1)
            else:
                fig.add_vrect(x0=x0, x1=x1, fillcolor="#f39c12", opacity=0.18, line_width=0, row=1, col=1)
    # the x range: the matches (or the selected one), not the whole stream
    whole = (float(min(e.ts for e in events)), float(max(e.ts for e in events))) if events else None
    span = None
    if zoom == "match" and sel is not None:
        span = (float(sel.start), float(sel.end))
    elif zoom in ("matches", "match") and has_matches:
        span = match_span(matches[:max_matches])
    if span is not None:
        lo, hi = zoom_range(span[0], span[1], whole)
        fig.update_xaxes(range=[_time(lo, is_datetime), _time(hi, is_datetime)])
    fig.update_yaxes(title_text="event type", type="category", row=1, col=1)
    n_rows = min(len(matches), max_matches)
    fig.update_layout(height=320 + (min(n_rows, 40) * 14 + 120 if has_matches else 0),
                      margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0),
                      hoverlabel=dict(align="left"))
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#f3f3f3")
    return fig


def _stat_text(v: Any) -> str:
    """Counters as integers (``28``, not ``28.0``), times with a few digits."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if hasattr(v, "item"):  # numpy scalars
        v = v.item()
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:.4g}"
    return str(v)


def stats_rows(stats: dict[str, Any]) -> pd.DataFrame:
    """Flat ``name, value`` rows for a stats dict (nested dicts joined with a dot); each value
    formatted on its own, so that counters stay integers."""
    rows = []
    for k, v in stats.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                rows.append({"stat": f"{k}.{k2}", "value": _stat_text(v2)})
        else:
            rows.append({"stat": k, "value": _stat_text(v)})
    return pd.DataFrame(rows, columns=["stat", "value"]).astype({"value": "string"})
