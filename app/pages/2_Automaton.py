"""Automaton: the current pattern compiled for each engine, with strategy and optimisation switches."""
from __future__ import annotations

import streamlit as st

from app import state, ui
from engine.planner import reasons
from visualizers.automaton import (COMPILERS, ENGINE_HELP, AutomatonUnavailable, automaton_figure, automaton_graph,
                                   default_engine, edge_table, legend_rows, state_table)

ui.page("Automaton", "🕸️")
ss = st.session_state
p = state.pattern()

st.title("Automaton")

if ss.get("au_rev") != state.rev():
    ss["au_strategy"] = p.strategy.value
    ss["au_engine"] = default_engine(p)
    ss["au_rev"] = state.rev()

c1, c2, c3 = st.columns([3, 2, 2])
with c3:
    st.selectbox("Engine", list(COMPILERS), format_func=lambda k: COMPILERS[k][0], key="au_engine")
    st.radio("Edge labels", ["short", "full", "none"], horizontal=True, key="au_labels")
engine = ss.get("au_engine", "nfab")
with c1:
    st.radio("Strategy (view only; change it on Design)",
             ["strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"],
             key="au_strategy", horizontal=False,
             help="applies to every engine that implements the strategy; the lazy and eager engines "
                  "implement skip_till_any_match only and say so below")
with c2:
    nfab = engine == "nfab"
    why = None if nfab else "an NFA^b optimisation: the other engines place the window on their own edges"
    st.toggle("Push window to every edge (step 5)", value=True, key="au_push", disabled=not nfab,
              help=why or "SASE+ §4.5 step 5: runs that leave the window die at once")
    st.toggle("Peek before proceed (step 6)", value=True, key="au_peek", disabled=not nfab,
              help=why or "SASE+ §4.5 step 6: proceed only if the event can begin the next state; "
                          "this defines skip_till_next_match and the engine always uses it")

st.caption(ENGINE_HELP.get(engine, ""))
with st.expander("Pattern", expanded=False):
    st.code(state.text().strip(), language="sql")

why_not = reasons(p)
with st.expander("Engines and whether they run this pattern as designed", expanded=False):
    st.dataframe([{"engine": k, "runs it": "yes" if v is None else "no", "why not": v or ""}
                  for k, v in why_not.items() if k != "oracle"], hide_index=True, width="stretch")

try:
    g = automaton_graph(p, engine, ss["au_strategy"], ss.get("au_push", True), ss.get("au_peek", True),
                        interval=state.data_is_interval())
except AutomatonUnavailable as err:
    st.warning(str(err), icon=":material/warning:")
    st.caption("Choose another engine above: the table says which engines run this pattern.")
    st.stop()

if g.graph.get("note"):
    st.info(g.graph["note"], icon=":material/info:")
if g.graph.get("alternatives", 1) > 1:
    st.info(f"The pattern expands into {g.graph['alternatives']} SEQ alternatives (optional components, OR, "
            "AND of single events); each is its own chain, and matches are de-duplicated.", icon=":material/info:")
fig = automaton_figure(g, labels=ss.get("au_labels", "short"))
if g.graph.get("labels_drawn") not in (None, ss.get("au_labels", "short")):
    st.caption(f"Edge labels are drawn {g.graph['labels_drawn']} here so that none overlaps another "
               f"({g.number_of_nodes()} states); hover over an edge, or see the Edges table, for its formula.")
event = st.plotly_chart(fig, width="content", key="au_chart", on_select="rerun",
                        selection_mode="points", config={"displaylogo": False, "displayModeBar": False})

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
            st.info(f"State **{u}**" + (f": {shown}" if shown else ""))
        else:
            st.info(f"**{kind}** {u} → {v}\n\nshown: `{shown}`\n\nθ: `{basic}`\n\nθ*: `{opt}`")
else:
    st.caption("Hover over a state or an edge label for its full formula; click one to pin it here.")

st.markdown("##### Legend")
st.dataframe(legend_rows(g), hide_index=True, width="stretch", key="au_legend")
st.markdown("##### Edges")
st.dataframe(edge_table(g), hide_index=True, width="stretch", key="au_edges")
with st.expander("States"):
    st.dataframe(state_table(g), hide_index=True, width="stretch")
if g.graph.get("partition"):
    st.caption(f"Partition key: [{', '.join(g.graph['partition'])}] — runs are kept per key value.")
