"""Match windows as pictures and tables (match-windows paper §4; notes §8), for the Debug
and Learn pages. Pure functions: a trace of the ``match-windows`` engine (or a pattern and
events) in, pandas frames and plotly figures out; no streamlit here.

* :func:`window_history` reads the trace of Algorithm 1 back: the partition key of every
  buffered event, the filtered events, each key's window (events, counters, β_s) after
  every step, and every completed window with its NMC verdict and the call of A;
* :func:`lanes_figure`: one lane per partition key (Def. 6), the events as glyphs coloured
  by type, the filtered ones greyed on a lane of their own (Thm 1), each live window as a
  bracket ``[first(W), first(W) + WITHIN)`` on its lane, the current event ringed;
* :func:`statistic_frame`: the summary statistic of one window (Def. 5): per variable its
  properties θ^p_v, the counter, its bit of β_s, of β_e (the current event) and the mask
  β_b of the variables it must follow (§4.5);
* :func:`verdict_frame`: every window evaluated so far: its first event, key, the NMC
  verdict ("skipped: (6) fails, no candidate for b"), whether A was called and what it
  returned;
* :func:`pruning_frame` / :func:`pruning_figure`: the Learn page's comparison of the
  techniques (baseline, f, f+p, f+c, f+p+c): calls of A, events given to A, false
  positives, matches (the paper's §5.8 table on the chemotherapy example).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd
import plotly.graph_objects as go

from engine.events import Event
from engine.model import Pattern
from engine.trace import Step
from engine.engines.windows.matcher import MatchWindowMatcher
from engine.engines.windows.algorithm import Techniques
from engine.engines.windows.analysis import WindowPlan, analyse
from visualizers.escape import plotly as plotly_text
from visualizers.timeline import PALETTE

__all__ = ["WindowHistory", "window_history", "has_windows", "lanes_figure", "statistic_frame", "verdict_frame",
           "pruning_frame", "pruning_figure", "TECHNIQUES", "FILTERED_LANE"]

FILTERED_LANE = "filtered"
GREY = "#c8ccd0"
BRACKET = "rgba(230, 126, 34, 0.13)"
CURRENT = "#e67e22"
TECHNIQUES = [("baseline (plain window)", Techniques(False, False, False)), ("f", Techniques(True, False, False)),
              ("f+p", Techniques(True, True, False)), ("f+c", Techniques(True, False, True)),
              ("f+p+c", Techniques(True, True, True))]


@dataclass
class WindowHistory:
    """What the trace of Algorithm 1 says, step by step."""

    key_of: dict[Any, str] = field(default_factory=dict)          # event id -> partition key (text)
    filtered: dict[Any, int] = field(default_factory=dict)        # event id -> step it was filtered at
    snapshots: list[dict[str, dict[str, Any]]] = field(default_factory=list)  # per step: key -> window state
    windows: list[dict[str, Any]] = field(default_factory=list)   # completed windows, in order
    beta_e: dict[Any, str] = field(default_factory=dict)          # event id -> β_e bits

    def state(self, k: int) -> dict[str, dict[str, Any]]:
        """Every key's window after step ``k`` (the close step: as before the drain)."""
        if not self.snapshots:
            return {}
        return self.snapshots[max(0, min(k, len(self.snapshots) - 1))]

    def keys(self) -> list[str]:
        seen: list[str] = []
        for key in self.key_of.values():
            if key not in seen:
                seen.append(key)
        return seen


def has_windows(steps: Sequence[Step]) -> bool:
    """True when the trace comes from Algorithm 1 (the ``match-windows`` engine)."""
    return any(s.buffer.get("kind") == "windows" for s in steps if s.buffer)


def window_history(steps: Sequence[Step]) -> WindowHistory:
    h = WindowHistory()
    current: dict[str, dict[str, Any]] = {}
    for j, s in enumerate(steps):
        for a in s.actions:
            d = a.detail or {}
            if a.kind == "discard" and d.get("filtered"):
                h.filtered[a.event] = j
            elif a.kind == "store":
                h.key_of[a.event] = d.get("key", "all")
                h.beta_e[a.event] = d.get("beta_e", "")
            elif a.kind in ("search", "expire") and "verdict" in d:
                if a.kind == "expire" and d.get("called"):
                    continue  # the removal after a call: the call was recorded by its search action
                h.windows.append({"step": j, "first": d.get("first"), "key": d.get("key"), "window": d.get("window", []),
                                  "verdict": d["verdict"], "called": bool(d.get("called")),
                                  "matches": d.get("matches", 0), "counters": d.get("counters", {}),
                                  "beta_s": d.get("beta_s"), "close": s.step == "close"})
        if s.step != "close":
            for key, snap in (s.buffer or {}).get("changed", {}).items():
                current[key] = snap
            h.snapshots.append({k: v for k, v in current.items() if v.get("window")})
    return h


def _colour(types: list[str]) -> dict[str, str]:
    return {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(types)}


def _x(ts: float, datetimes: bool) -> Any:
    return pd.to_datetime(ts, unit="s") if datetimes else ts


def lanes_figure(steps: Sequence[Step], k: int, size: float, history: WindowHistory | None = None,
                 datetimes: bool = False, height: int | None = None, key_name: str = "") -> go.Figure:
    """Lanes per partition key with the live windows as brackets after step ``k``."""
    h = history or window_history(steps)
    evs = [s.event for s in steps if s.step != "close" and s.event]
    kk = k if 0 <= k < len(steps) and steps[k].step != "close" else len(evs) - 1
    types = sorted({e["type"] for e in evs})
    colour = _colour(types)
    lanes = h.keys() + ([FILTERED_LANE] if h.filtered else [])
    fig = go.Figure()
    for t in types:
        for past in (True, False):
            pts = [(i, e) for i, e in enumerate(evs) if e["type"] == t and (i <= kk) == past
                   and e["id"] not in h.filtered and e["id"] in h.key_of]
            if not pts:
                continue
            fig.add_trace(go.Scatter(
                # keys, ids and types are data: escaped, as plotly reads tags in labels and hover text
                x=[_x(e["ts"], datetimes) for _i, e in pts], y=[plotly_text(h.key_of[e["id"]]) for _i, e in pts],
                mode="markers+text", name=plotly_text(t), legendgroup=t, showlegend=past,
                opacity=1.0 if past else 0.3,
                text=[plotly_text(f"e{e['id']}") for _i, e in pts], textposition="top center", textfont=dict(size=10),
                marker=dict(size=11, color=colour[t]),
                hovertext=[plotly_text(f"e{e['id']} {t} · key {h.key_of[e['id']]} · β_e {h.beta_e.get(e['id'], '')}")
                           for _i, e in pts], hoverinfo="text"))
    filt = [(i, e) for i, e in enumerate(evs) if e["id"] in h.filtered]
    if filt:
        fig.add_trace(go.Scatter(
            x=[_x(e["ts"], datetimes) for _i, e in filt], y=[plotly_text(FILTERED_LANE)] * len(filt),
            mode="markers+text", name="filtered (fits no variable)",
            text=[plotly_text(f"e{e['id']}") for _i, e in filt], textposition="top center",
            textfont=dict(size=10, color="#999"), marker=dict(size=10, color=GREY, symbol="x"),
            opacity=1.0, hovertext=[plotly_text(f"e{e['id']} {e['type']}: filtered (Thm 1)") for _i, e in filt],
            hoverinfo="text"))
    by_id = {e["id"]: e for e in evs}
    shapes = []
    for key, snap in h.state(kk).items():
        ids = snap.get("window") or []
        if not ids or ids[0] not in by_id or key not in lanes:
            continue
        x0 = by_id[ids[0]]["ts"]
        y = lanes.index(key)
        shapes.append(dict(type="rect", xref="x", yref="y", x0=_x(x0, datetimes), x1=_x(x0 + size, datetimes),
                           y0=y - 0.38, y1=y + 0.38, fillcolor=BRACKET, line=dict(color=CURRENT, width=1.5)))
    cur = steps[k].event if 0 <= k < len(steps) and steps[k].step != "close" else None
    if cur is not None:
        lane = h.key_of.get(cur["id"], FILTERED_LANE if cur["id"] in h.filtered else None)
        if lane is not None:
            fig.add_trace(go.Scatter(x=[_x(cur["ts"], datetimes)], y=[plotly_text(lane)], mode="markers",
                                     name="this event",
                                     hoverinfo="skip", marker=dict(size=22, symbol="circle-open", color=CURRENT,
                                                                   line=dict(width=3, color=CURRENT))))
    fig.update_layout(shapes=shapes, height=height or max(220, 90 + 55 * len(lanes)),
                      yaxis=dict(type="category", categoryorder="array", categoryarray=[plotly_text(x) for x in lanes],
                                 title=dict(text=plotly_text(f"partition key{f' ({key_name})' if key_name else ''}"))),
                      xaxis=dict(title=dict(text="ts"), showgrid=True, gridcolor="#eee"),
                      margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0))
    return fig


def statistic_frame(plan: WindowPlan, snap: dict[str, Any] | None, beta_e: str | None = None) -> pd.DataFrame:
    """The summary statistic of one window: a row per positive variable."""
    pos = [v for v in plan.vars if not v.negated]
    names = [v.name for v in pos]
    counters = (snap or {}).get("counters") or {}
    beta_s = (snap or {}).get("beta_s") or ""
    cl = plan.clauses[0]
    rows = []
    for i, v in enumerate(pos):
        pred = plan.bitstring(cl.pred_mask.get(v.name, 0), names) if v.name in cl.pred_mask else ""
        rows.append({"variable": v.name + ("+" if v.kleene else ""), "fits when": v.label,
                     "counter": counters.get(v.name, 0), "counter is zero": beta_s[i] if i < len(beta_s) else "",
                     "this event fits": beta_e[i] if beta_e and i < len(beta_e) else "",
                     "must follow": pred})
    return pd.DataFrame(rows)


def verdict_frame(history: WindowHistory, upto_step: int | None = None) -> pd.DataFrame:
    """The windows evaluated up to a step, newest first; ``event`` names the step that completed
    each (``#14`` is event #14, the one index of the Debug page) or the end of the stream."""
    rows = []
    for w in history.windows:
        if upto_step is not None and w["step"] > upto_step:
            continue
        v = w["verdict"]
        rows.append({"event": "end of stream" if w["close"] else f"#{w['step'] + 1:,}", "first event": f"e{w['first']}",
                     "key": w["key"],
                     "events": len(w["window"]), "counter test": "pass" if v.get("passed") else f"fail ({v.get('failed')})",
                     "verdict": v.get("reason", ""), "matcher called": "yes" if w["called"] else "no",
                     "matches": w["matches"] if w["called"] else "",
                     "window": " ".join(f"e{i}" for i in w["window"])})
    rows.reverse()
    return pd.DataFrame(rows, columns=["event", "first event", "key", "events", "counter test", "verdict", "matcher called", "matches",
                                       "window"])


def pruning_frame(pattern: Pattern, events: Sequence[Event], inner: str = "auto") -> pd.DataFrame:
    """Algorithm 1 under each combination of techniques: calls of A, events given to A,
    windows the NMC skipped, false positives (calls that found nothing) and matches."""
    rows = []
    base_calls = base_events = None
    for label, tech in TECHNIQUES:
        m = MatchWindowMatcher(pattern, inner=inner, techniques=tech)
        n = 0
        for e in events:
            n += len(m.feed(e))
        n += len(m.close())
        st = m.algo.stats
        if base_calls is None:
            base_calls, base_events = st.calls, st.events_to_matcher
        rows.append({"techniques": label, "matcher calls": st.calls, "events given to the matcher": st.events_to_matcher,
                     "filtered events": st.events_filtered, "partitions": st.partitions,
                     "windows skipped by the counters": sum(st.nmc_fail.values()) + st.drain_stopped,
                     "false positives": st.false_positives, "matches": n,
                     "calls saved": f"{1 - st.calls / base_calls:.0%}" if base_calls else "–",
                     "events saved": f"{1 - st.events_to_matcher / base_events:.0%}" if base_events else "–",
                     "matcher": m.inner})
    return pd.DataFrame(rows)


def pruning_figure(frame: pd.DataFrame) -> go.Figure:
    """Calls of A and events given to A per technique (grouped bars)."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=frame["techniques"], y=frame["matcher calls"], name="calls of the matcher",
                         text=frame["matcher calls"], textposition="outside", marker_color="#2e86c1"))
    fig.add_trace(go.Bar(x=frame["techniques"], y=frame["events given to the matcher"], name="events given to the matcher",
                         text=frame["events given to the matcher"], textposition="outside", marker_color="#e67e22"))
    fig.update_layout(barmode="group", height=320, margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      yaxis=dict(title=dict(text="count"), gridcolor="#eee"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0))
    return fig


def plan_for(pattern: Pattern) -> WindowPlan | None:
    """The window plan of a pattern, or None where match windows are unsound."""
    try:
        return analyse(pattern)
    except ValueError:
        return None
