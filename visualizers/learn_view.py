"""Teaching views for the Learn page: pure functions from a pattern and a stream to
tables and plotly figures (no streamlit here).

* :func:`compare_strategies`: one stream under the four event selection strategies of
  SASE+ (§3.4; docs/papers.md, "SASE+ / NFA^b"): the matches each finds, the live runs
  after each event, and the ignore-edge formula each puts on the automaton (§4.5 step 3,
  from ``engine.engines.nfab.compiler.edge_formulas``).
* :func:`compare_lazy_eager`: the eager NFA against the lazy chain and tree NFAs of
  Kolchinsky & Schuster (§2.2, §3, §4) on a stream with skewed
  type rates: partial matches created per event, live partial matches, the chain's
  evaluation order against the pattern's order.

Both run the engines through ``engine.run_choice.trace``, so what is counted is what the Debug
page steps through.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd
import plotly.graph_objects as go

from engine.model import Pattern, Strategy
from engine.run_choice import trace
from engine.trace import Step
from visualizers.escape import plotly as plotly_text

STRATEGIES = [Strategy.STRICT, Strategy.PARTITION, Strategy.NEXT, Strategy.ANY]
STRATEGY_COLOUR = {Strategy.STRICT.value: "#7f8c8d", Strategy.PARTITION.value: "#2980b9",
                   Strategy.NEXT.value: "#27ae60", Strategy.ANY.value: "#c0392b"}
STRATEGY_DASH = {Strategy.PARTITION.value: "dash"}
ENGINE_COLOUR = {"eager": "#c0392b", "lazy-chain": "#27ae60", "lazy-tree": "#8e44ad"}
ENGINE_TITLE = {"eager": "eager NFA", "lazy-chain": "lazy chain NFA", "lazy-tree": "lazy tree NFA"}
IGNORE_RULE = {  # SASE+ §3.4, the ignore edge's formula per strategy
    Strategy.STRICT.value: "false: selected events must be adjacent in the stream",
    Strategy.PARTITION.value: "¬partition: skip events of other partitions only",
    Strategy.NEXT.value: "¬take / ¬begin: skip what cannot be selected, select the next relevant event",
    Strategy.ANY.value: "true: any event may also be skipped (every combination is explored)",
}


def _key(m: dict[str, Any]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    return tuple((v, tuple(ids)) for v, ids in m["match"].items())


def match_text(m: dict[str, Any]) -> str:
    return " ".join(f"{v}={','.join(str(i) for i in ids)}" for v, ids in m["match"].items() if ids)


# --------------------------------------------------------------------------- strategies

@dataclass
class StrategyRun:
    strategy: str
    matches: list[dict[str, Any]]
    runs: list[int]                    # live runs after each event
    ignore: list[tuple[str, str]]      # (state, ignore-edge formula)
    runs_created: int = 0
    error: str | None = None

    @property
    def count(self) -> int:
        return len(self.matches)


def compare_strategies(pattern: Pattern, events: Sequence[Any], limit: int = 2000) -> list[StrategyRun]:
    """The pattern under each of the four strategies (NFA^b), on the same events."""
    from engine.engines.nfab.compiler import compile_pattern, edge_formulas

    out = []
    for s in STRATEGIES:
        p = pattern.model_copy(update={"strategy": s})
        ignore: list[tuple[str, str]] = []
        try:
            nfa = compile_pattern(p)
            for e in edge_formulas(nfa, nfa.chains[0], optimised=False):
                if e["kind"] == "ignore":
                    ignore.append((e["src"], e["formula"]))
            steps = trace(p, list(events)[:limit], engine="nfab", limit=None)
        except Exception as err:  # noqa: BLE001 - shown next to the strategy
            out.append(StrategyRun(s.value, [], [], ignore, error=f"{type(err).__name__}: {err}"))
            continue
        ev = [st for st in steps if st.step != "close"]
        created = sum(1 for st in steps for a in st.actions if a.kind == "begin" and a.state == nfa.chains[0].states[0].name)
        out.append(StrategyRun(s.value, [m for st in steps for m in st.matches], [st.runs_total for st in ev],
                               ignore, runs_created=created))
    return out


def strategy_matrix(results: Sequence[StrategyRun], seq_of: dict[Any, int] | None = None) -> pd.DataFrame:
    """One row per distinct match (in stream order of its last, then first event), a ✓
    column per strategy that finds it, and ``found by`` (how many strategies)."""
    seq_of = seq_of or {}
    found: dict[Any, dict[str, Any]] = {}
    for r in results:
        for m in r.matches:
            found.setdefault(_key(m), {"match": m, "by": set()})["by"].add(r.strategy)

    def order(item: tuple[Any, dict[str, Any]]) -> tuple[Any, ...]:
        ids = [i for _v, xs in item[0] for i in xs]
        seqs = [seq_of.get(i, i if isinstance(i, (int, float)) else 0) for i in ids] or [0]
        return (max(seqs), min(seqs), repr(item[0]))

    rows = []
    for _k, d in sorted(found.items(), key=order):
        row: dict[str, Any] = {"match": match_text(d["match"])}
        for r in results:
            row[r.strategy] = "✓" if r.strategy in d["by"] else ""
        row["found by"] = len(d["by"])
        rows.append(row)
    return pd.DataFrame(rows, columns=["match", *[r.strategy for r in results], "found by"])


def _log_ticks(top: float) -> dict[str, Any]:
    """Tick values 1, 2, 5, 10, 20, 50 ... up to ``top`` for a log axis."""
    vals, d = [], 1
    while d <= max(top, 1) * 1.01:
        vals += [v for v in (d, 2 * d, 5 * d) if v <= max(top, 1) * 1.5]
        d *= 10
    return {"tickvals": vals, "ticktext": [str(v) for v in vals]}


def strategy_runs_figure(results: Sequence[StrategyRun], event_labels: Sequence[str] | None = None,
                         log: bool = True) -> go.Figure:
    """Live runs after each event, one line per strategy (log scale: polynomial against
    exponential growth, SASE+ §4)."""
    fig = go.Figure()
    for r in results:
        if r.error:
            continue
        x = ([plotly_text(label) for label in event_labels[: len(r.runs)]] if event_labels  # ids: data
             else list(range(1, len(r.runs) + 1)))
        fig.add_trace(go.Scatter(x=x, y=r.runs, mode="lines+markers", name=f"{r.strategy} ({r.count})",
                                 line=dict(color=STRATEGY_COLOUR.get(r.strategy), width=2.5,
                                           dash=STRATEGY_DASH.get(r.strategy, "solid"))))
    top = max((max(r.runs, default=1) for r in results if not r.error), default=1)
    fig.update_layout(height=330, margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0),
                      yaxis=dict(title=dict(text="live runs after the event"), type="log" if log else "linear",
                                 gridcolor="#eee", **(_log_ticks(top) if log else {})),
                      xaxis=dict(title=dict(text="event"), type="category", gridcolor="#eee"))
    return fig


def strategy_counts_figure(results: Sequence[StrategyRun]) -> go.Figure:
    """Matches per strategy, as bars (log scale when they differ by more than 10×)."""
    ok = [r for r in results if not r.error]
    counts = [r.count for r in ok]
    fig = go.Figure(go.Bar(x=[r.strategy for r in ok], y=counts, text=counts, textposition="outside",
                           marker_color=[STRATEGY_COLOUR.get(r.strategy) for r in ok]))
    spread = max(counts, default=1) / max(min([c for c in counts if c] or [1]), 1)
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      yaxis=dict(title=dict(text="matches"), type="log" if spread > 10 else "linear",
                                 gridcolor="#eee", **(_log_ticks(max(counts, default=1) * 2) if spread > 10 else {}),
                                 **({"range": [0, math.log10(max(counts, default=1) * 2)]} if spread > 10 else {})),
                      showlegend=False)
    return fig


# --------------------------------------------------------------------------- lazy vs eager

@dataclass
class EngineRun:
    engine: str
    created: list[int]                 # partial matches created on each event
    live: list[int]                    # live partial matches after each event
    matches: int
    order: list[list[str]] | None
    seconds: float = 0.0
    predicate_evals: int = 0
    error: str | None = None
    events: list[Any] = field(default_factory=list)

    @property
    def total_created(self) -> int:
        return sum(self.created)

    @property
    def peak(self) -> int:
        return max(self.live, default=0)


def partial_created(step: Step) -> int:
    """Partial matches created on a step: new instances (``take`` with a ``child``) that are
    not complete matches emitted on the same step."""
    complete = {str(a.run) for a in step.actions if a.kind == "match" and a.run is not None}
    return sum(1 for a in step.actions if a.kind == "take" and (a.detail or {}).get("child") is not None
               and str(a.detail["child"]) not in complete)


def compare_lazy_eager(pattern: Pattern, events: Sequence[Any], rates: dict[str, float] | None = None,
                       engines: Sequence[str] = ("eager", "lazy-chain", "lazy-tree"), limit: int = 3000
                       ) -> list[EngineRun]:
    """Each engine on the same events; the lazy chain gets the type ``rates`` (its
    evaluation order: ascending frequency, Kolchinsky & Schuster §4.1)."""
    import time

    out = []
    evs = list(events)[:limit]
    for eng in engines:
        t0 = time.perf_counter()
        try:
            steps = trace(pattern, evs, engine=eng, limit=None, rates=rates if eng == "lazy-chain" else None)
        except Exception as err:  # noqa: BLE001 - shown next to the engine
            out.append(EngineRun(eng, [], [], 0, None, error=f"{type(err).__name__}: {err}"))
            continue
        secs = time.perf_counter() - t0
        ev = [s for s in steps if s.step != "close"]
        order = None
        for s in ev:
            if (s.buffer or {}).get("order"):
                order = [list(x) for x in s.buffer["order"]]
                break
        preds = sum(len(a.predicates) for s in steps for a in s.actions)
        out.append(EngineRun(eng, [partial_created(s) for s in ev], [s.runs_total for s in ev],
                             sum(len(s.matches) for s in steps), order, secs, preds))
    return out


def lazy_frame(results: Sequence[EngineRun]) -> pd.DataFrame:
    rows = []
    for r in results:
        rows.append({"engine": ENGINE_TITLE.get(r.engine, r.engine),
                     "partial matches created": r.total_created if not r.error else None,
                     "peak live partial matches": r.peak if not r.error else None,
                     "predicates evaluated": r.predicate_evals if not r.error else None,
                     "matches": r.matches if not r.error else None,
                     "evaluation order": " → ".join(r.order[0]) if r.order else "",
                     "note": r.error or ""})
    df = pd.DataFrame(rows)
    if len(df) and not df["note"].any():
        df = df.drop(columns=["note"])
    return df


def lazy_figure(results: Sequence[EngineRun], cumulative: bool = True) -> go.Figure:
    """Partial matches created (cumulative) and live, per event, one line per engine."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "partial matches created (cumulative)" if cumulative else "partial matches created per event",
        "live partial matches after each event"))
    for r in results:
        if r.error:
            continue
        x = list(range(1, len(r.created) + 1))
        ys = r.created
        if cumulative:
            acc, ys = 0, []
            for c in r.created:
                acc += c
                ys.append(acc)
        colour = ENGINE_COLOUR.get(r.engine)
        dash = "dot" if r.engine == "lazy-tree" else "solid"  # the tree often runs on top of the chain
        fig.add_trace(go.Scatter(x=x, y=ys, mode="lines", name=ENGINE_TITLE.get(r.engine, r.engine),
                                 legendgroup=r.engine, line=dict(color=colour, width=2.5, dash=dash)), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=r.live, mode="lines", name=ENGINE_TITLE.get(r.engine, r.engine),
                                 legendgroup=r.engine, showlegend=False, line=dict(color=colour, width=2, dash=dash)),
                      row=1, col=2)
    fig.update_xaxes(title_text="event", gridcolor="#eee")
    fig.update_yaxes(gridcolor="#eee")
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=40, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.08, x=0))
    return fig


def type_counts(events: Sequence[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in events:
        out[e.type] = out.get(e.type, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


__all__ = ["EngineRun", "IGNORE_RULE", "STRATEGIES", "StrategyRun", "compare_lazy_eager", "compare_strategies",
           "lazy_figure", "lazy_frame", "match_text", "partial_created", "strategy_counts_figure", "strategy_matrix",
           "strategy_runs_figure", "type_counts"]
