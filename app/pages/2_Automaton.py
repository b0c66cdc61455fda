"""Automaton: the current pattern compiled for each engine, with strategy and optimisation switches."""
from __future__ import annotations

import streamlit as st

from app import figures, glossary, state, ui
from engine.engines.planner import ENGINES, reasons
from visualizers import escape
from visualizers.automaton import (CITED_AT, COMPACT_EDGES, COMPILERS, ENGINE_HELP, MANY_STATES, UNCERTAIN,
                                   AutomatonUnavailable, automaton_figure, automaton_graph, default_engine, edge_table,
                                   fold_states, foldable, legend_rows, state_table)

SCROLL_AT = 900  # pixels: a taller drawing scrolls inside a box of this height
LABELS_DRAWN = {"none": "as the edges' names only", "names": "as the move and variable only (`take c`)",
                "short (narrower)": "narrower"}

ui.page("Automaton", "🕸️")
ss = st.session_state
p = state.pattern()
interval = state.data_is_interval()

st.title("Automaton")
st.caption("The pattern compiled into an " + glossary.term("automaton") + ": the states a " + glossary.term("run")
           + " passes through and the moves that take an event. The " + glossary.term("strategy")
           + " decides when a run may skip an event; a " + glossary.term("Kleene") + " component loops on its "
           "state; the " + glossary.term("window") + " ends runs that last too long.", unsafe_allow_html=True)
from app import sql_views  # noqa: E402

if sql_views.language_switch() == "sql":
    sql_views.automaton()
    st.stop()
if not ui.data_check(p, state.data_schema(), state.text(), f"Data {escape.markdown(state.data_in_use()[1])}: "):
    st.stop()  # as the Run page refuses it: an unknown attribute is an error, not an automaton

if ss.get("au_rev") != (state.rev(), interval):
    ss["au_strategy"] = p.strategy.value
    ss["au_engine"] = default_engine(p, interval)
    ss["au_rev"] = (state.rev(), interval)

c1, c2, c3 = st.columns([3, 2, 2])
with c3:
    st.selectbox("Engine", list(COMPILERS), format_func=lambda k: COMPILERS[k][0], key="au_engine",
                 help="interval data (uncertainty intervals) is run by the uncertain engines; point data by the others")
    st.radio("Edge labels", ["short", "full", "none"], horizontal=True, key="au_labels")
engine = ss.get("au_engine") or next(iter(COMPILERS))
with c1:
    st.radio("Strategy (view only; change it on Design)",
             ["strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"],
             key="au_strategy", horizontal=False,
             help="applies to every engine that implements the strategy: NFA^b all four, the uncertain engines "
                  "skip_till_any/next_match, the lazy, eager and SES engines skip_till_any_match only; an engine "
                  "that does not implement it is drawn without it and says so below")
with c2:
    shown = bool(ENGINES[engine].drawing and ENGINES[engine].drawing.shown_formulas)  # NFA^b's optimisations
    why = None if shown else "an NFA^b optimisation: the other engines place the window on their own edges"
    st.toggle("Check the window on every move", value=True, key="au_push", disabled=not shown,
              help=why or "Runs that leave the window are dropped at once, on every move, not only at the end.")
    st.toggle("Look at the event before moving on", value=True, key="au_peek", disabled=not shown,
              help=why or "Move on to the next component only if the event can start it; this is what skipping "
                          "to the next fitting event means, and the engine always does it")

st.caption(ENGINE_HELP.get(engine, ""))
if CITED_AT.get(engine):
    glossary.in_the_papers(f"This drawing follows {escape.markdown(CITED_AT[engine])}.")
with st.expander("Pattern", expanded=False):
    st.code(state.text().strip(), language="sql")

why_not = reasons(p, interval=interval)
with st.expander("Engines and whether they run this pattern on this data", expanded=False):
    st.dataframe([{"engine": k, "runs it": "yes" if v is None else "no", "why not": v or ""}
                  for k, v in why_not.items() if not ENGINES[k].reference], hide_index=True, width="stretch")

try:
    g = automaton_graph(p, engine, ss["au_strategy"], ss.get("au_push", True), ss.get("au_peek", True),
                        interval=interval)
except AutomatonUnavailable as err:
    st.warning(escape.message(err), icon=":material/warning:")
    st.caption("Choose another engine above: the table says which engines run this pattern"
               + (" (interval data: the uncertain engines)." if interval and engine not in UNCERTAIN else "."))
    st.stop()

if g.graph.get("note"):
    st.info(escape.message(g.graph["note"]), icon=":material/info:")
if g.graph.get("alternatives", 1) > 1:
    st.info(f"The pattern expands into {g.graph['alternatives']} SEQ alternatives (optional components, OR, "
            "AND of single events); each is its own chain, and matches are de-duplicated.", icon=":material/info:")

saves = foldable(g)
d1, d2 = st.columns(2)
with d1:
    fold = st.toggle(f"Fold states that bind the same variables ({g.number_of_nodes()} → "
                     f"{g.number_of_nodes() - saves} states)", value=g.number_of_nodes() > MANY_STATES,
                     key=f"au_fold_{engine}", disabled=saves == 0,
                     help="the lazy tree has a state per order of the variables taken so far; the edges out of a "
                          "state depend only on which variables are bound, so states with the same set behave "
                          "alike and can be drawn as one" if saves else "no two states of this automaton behave alike")
if fold and saves:
    g = fold_states(g)
with d2:
    every = st.toggle("Draw every edge", value=False, key="au_every",
                      help="a big automaton leaves out the loops and the edges to R that most states share "
                           "(they are listed under the drawing and in the Edges table)")
compact = not every and g.number_of_edges() > COMPACT_EDGES  # the shared loops and edges to R left out
fig = automaton_figure(g, labels=ss.get("au_labels", "short"), compact=compact)
if g.graph.get("labels_drawn") not in (None, ss.get("au_labels", "short")):
    how = LABELS_DRAWN.get(g.graph["labels_drawn"], g.graph["labels_drawn"])
    st.caption(f"Edge labels are drawn {how} here so that none overlaps another ({g.number_of_nodes()} states); "
               "hover over an edge, or see the Edges table, for its formula.")
if g.graph.get("omitted"):
    st.caption("Not drawn, to keep the picture readable (switch on *Draw every edge*): "
               + "; ".join(f"**{escape.markdown(m)}** on {n} states" for m, n in g.graph["omitted"].items())
               + ". The legend explains them and the Edges table lists them.")
tall = (fig.layout.height or 0) > SCROLL_AT
with st.container(height=SCROLL_AT if tall else "content", border=tall):
    event = figures.show(fig, f"The automaton of the pattern as {COMPILERS[engine][0]} runs it: "
                              f"{g.number_of_nodes()} states, {g.number_of_edges()} edges"
                              + (" (shared loops and edges to R left out)" if compact else "") + ".",
                         "au_chart", f"automaton-{engine}", width="content", on_select="rerun", selection_mode="points")

points = []
try:
    points = list(event.selection.points) if event and event.selection else []
except AttributeError:
    points = []
if points:
    cd = points[0].get("customdata")
    if cd:
        kind, u, v, shown, basic, opt = (list(cd) + [""] * 6)[:6]
        if kind == "state":
            st.info(f"State **{escape.markdown(u)}**" + (f": {escape.markdown(shown)}" if shown else ""))
        else:  # formulas hold the pattern's literals: escaped
            st.info(f"**{escape.markdown(kind)}** {escape.markdown(u)} → {escape.markdown(v)}\n\n"
                    f"shown: {escape.code(shown)}\n\nθ: {escape.code(basic)}\n\nθ*: {escape.code(opt)}")
else:
    st.caption("Hover over a state or an edge label for its full formula; click one to pin it here.")

st.markdown("##### Legend")
st.dataframe(legend_rows(g), hide_index=True, width="stretch", key="au_legend")
st.markdown("##### Edges")
st.dataframe(edge_table(g), hide_index=True, width="stretch", key="au_edges")
with st.expander("States"):
    st.dataframe(state_table(g), hide_index=True, width="stretch")
if g.graph.get("partition"):
    st.caption(f"Partition key: {escape.markdown('[' + ', '.join(g.graph['partition']) + ']')} — runs are kept "
               "per key value.")
