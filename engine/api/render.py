"""Notebook rendering (``_repr_html_``) of patterns, automata, results, explanations and traces.

Offline: a figure is plotly HTML with plotly.js inlined (the first figure a kernel shows carries
it, the later ones use it; set ``engine.api.render.PLOTLY_JS = "always"`` to inline it in every
figure, e.g. for outputs that are shown one by one). Every string from a pattern or a data file
goes through ``visualizers.escape`` (``html`` for HTML, ``plotly`` for figure text).

plotly and the figure builders (``visualizers.automaton``: the Automaton page's drawing;
``visualizers.timeline``: the Run page's timeline) are imported here, inside the functions: the
``engine`` package imports neither at import time.

>>> import engine
>>> html = engine.parse("PATTERN SEQ(A a, B b) WHERE a.name = '<b>x</b>'")._repr_html_()
>>> "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
True
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from engine.api.explain import Explanation, Trace
    from engine.api.parsing import ParsedPattern, ParsedQuery
    from engine.api.result import Result

__all__ = ["Automaton", "PLOTLY_JS", "figure_html", "pattern_html", "query_html", "result_html", "result_figure",
           "explanation_html", "trace_html", "table_html"]

#: "once": plotly.js inlined in the first figure of the kernel; "always": in every figure
PLOTLY_JS = "once"
_sent = False

#: rows a result shows in a notebook (``to_pandas()`` has them all)
SHOWN_ROWS = 20

_STYLE = ("<style>.cep-api table{border-collapse:collapse;font-size:12px}.cep-api td,.cep-api th"
          "{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}"
          ".cep-api pre{background:#f7f7f7;padding:6px;white-space:pre-wrap}</style>")


def _esc(value: Any) -> str:
    from visualizers import escape

    return escape.html(value)


def figure_html(fig: Any) -> str:
    """A plotly figure as HTML for a notebook, plotly.js inlined (see :data:`PLOTLY_JS`)."""
    global _sent
    include = PLOTLY_JS == "always" or not _sent
    _sent = True
    return fig.to_html(full_html=False, include_plotlyjs=bool(include), config={"displaylogo": False})


def table_html(columns: Sequence[str], rows: Sequence[dict[str, Any]], total: int | None = None) -> str:
    """An HTML table of ``rows`` (dicts by column), every cell escaped; a note when ``total``
    says there are more."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_esc(_cell(r.get(c)))}</td>" for c in columns) + "</tr>" for r in rows)
    more = ""
    if total is not None and total > len(rows):
        more = f"<p>... {total - len(rows):,} more (to_pandas() has them all)</p>"
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, list):
        return ", ".join(map(str, v))
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# --------------------------------------------------------------------------- patterns
def pattern_html(p: ParsedPattern) -> str:
    """The pattern's text and a table of its components, strategy, window and AGG clause."""
    m = p.model
    facts = [("strategy", m.strategy.value), ("selection", m.selection.value)]
    if m.window is not None:
        facts.append(("window", f"{m.window.value} {m.window.unit or ''}".strip()))
    if m.aggregate is not None:
        a = m.aggregate
        facts.append(("aggregate", f"{a.func}({a.var or ''}{'.' + a.attr if a.attr else ''})"
                                   + (f" GROUP BY {', '.join(a.group_by)}" if a.group_by else "")))
    facts_html = "".join(f"<li>{_esc(k)}: <code>{_esc(v)}</code></li>" for k, v in facts)
    return (f"<div class='cep-api cep-pattern'>{_STYLE}<pre>{_esc(p.text.strip())}</pre>"
            + table_html(["variable", "type", "quantifier", "negated"], p.components())
            + f"<ul>{facts_html}</ul></div>")


def query_html(q: ParsedQuery) -> str:
    """A MATCH_RECOGNIZE query: its text."""
    return f"<div class='cep-api cep-query'>{_STYLE}<pre>{_esc(q.text.strip())}</pre></div>"


class Automaton:
    """The pattern's automaton as the Automaton page draws it (``visualizers.automaton``):
    ``figure()`` the plotly figure, ``graph()`` its networkx graph; in a notebook, the figure."""

    def __init__(self, pattern: ParsedPattern, engine: str | None = None, interval: bool = False):
        self.pattern = pattern
        self.engine = engine
        self.interval = interval

    def graph(self) -> Any:
        """The compiled automaton (``automaton_graph``); states folded as the page folds a big one."""
        from visualizers.automaton import MANY_STATES, automaton_graph, default_engine, fold_states, foldable

        engine = self.engine or default_engine(self.pattern.model, self.interval)
        g = automaton_graph(self.pattern.model, engine, interval=self.interval)
        if g.number_of_nodes() > MANY_STATES and foldable(g):
            g = fold_states(g)
        return g

    def figure(self) -> Any:
        """The plotly figure (compact, as the page draws a big automaton)."""
        from visualizers.automaton import COMPACT_EDGES, automaton_figure

        g = self.graph()
        return automaton_figure(g, compact=g.number_of_edges() > COMPACT_EDGES)

    def _repr_html_(self) -> str:
        from visualizers.automaton import AutomatonUnavailable

        try:
            g = self.graph()
        except AutomatonUnavailable as err:
            return f"<div class='cep-api'><p>{_esc(err)}</p></div>"
        from visualizers.automaton import COMPACT_EDGES, automaton_figure

        fig = automaton_figure(g, compact=g.number_of_edges() > COMPACT_EDGES)
        note = f"<p>{_esc(g.graph['note'])}</p>" if g.graph.get("note") else ""
        return f"<div class='cep-api cep-automaton'>{note}{figure_html(fig)}</div>"

    def __repr__(self) -> str:
        return f"<Automaton of {' '.join(str(self.pattern).split())[:60]}>"


# --------------------------------------------------------------------------- results
def result_figure(result: Result) -> Any:
    """The Run page's figure of a result: the timeline (events and matches), or for AGG rows the
    aggregate's value over time; None for signatures and query rows."""
    from visualizers import escape

    if result.kind == "matches":
        from visualizers.timeline import timeline_figure

        return timeline_figure(result.all_events(), list(result.items), order=result.variables)
    if result.kind == "rows":
        from visualizers.timeline import aggregate_figure

        fig = aggregate_figure(result.items)
        for trace in fig.data:  # the group names and event ids are data: plotly reads tags in them
            trace.name = escape.plotly(trace.name)
            if trace.hovertext is not None:
                trace.hovertext = [escape.plotly(t) for t in trace.hovertext]
        return fig
    return None


def result_html(result: Result) -> str:
    """A line saying what ran, the first rows, and the figure (:func:`result_figure`)."""
    one, many = {"matches": ("match", "matches"), "signatures": ("signature", "signatures")}.get(
        result.kind, ("row", "rows"))
    n = len(result)
    columns, rows = result.table_rows()
    head = f"<p><b>{n:,} {one if n == 1 else many}</b> (engine {_esc(result.engine)})</p>"
    warnings = "".join(f"<pre>{_esc(w)}</pre>" for w in result.warnings)
    figure = ""
    if n:
        fig = result_figure(result)
        if fig is not None:
            figure = figure_html(fig)
    return (f"<div class='cep-api cep-result'>{_STYLE}{head}{warnings}"
            + table_html(columns, rows[:SHOWN_ROWS], n) + figure + "</div>")


def explanation_html(explanation: Explanation) -> str:
    """``cep explain``'s text, escaped."""
    return f"<div class='cep-api cep-explanation'>{_STYLE}<pre>{_esc(explanation.text)}</pre></div>"


def trace_html(trace: Trace) -> str:
    """A table of the trace: per step its event, the actions and the matches emitted."""
    rows = []
    for s in trace.steps[:200]:
        e = s.get("event") or {}
        rows.append({"step": s.get("step"), "event": f"{e.get('type', '')} {e.get('id', '')}".strip(),
                     "actions": ", ".join(a.get("kind", "") for a in s.get("actions", [])),
                     "runs": s.get("runs_total", len(s.get("runs", []))), "matches": len(s.get("matches", []))})
    return (f"<div class='cep-api cep-trace'>{_STYLE}<p>{len(trace):,} steps (engine {_esc(trace.engine)})</p>"
            + table_html(["step", "event", "actions", "runs", "matches"], rows, len(trace)) + "</div>")
