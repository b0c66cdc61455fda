"""Automaton: the compiled NFA^b of the current pattern, with strategy and optimisation switches."""
from __future__ import annotations

import streamlit as st

from app import state, ui
from engine.planner import reasons
from visualizers.automaton import (COMPILERS, STATE_FILL, AutomatonUnavailable, automaton_figure, automaton_graph,
                                   edge_table, state_table)

ui.page("Automaton", "🕸️")
ss = st.session_state
p = state.pattern()

st.title("Automaton")
st.caption("The pattern compiled into an NFA^b (SASE+ §4): a state per component (a pair `a[1] → a[i]` for "
           "Kleene +) and F. **begin** and **take** edges consume an event, **ignore** skips it (dashed), "
           "**proceed** (ε) moves on without consuming one. The strategy only changes the ignore formulas.")

if ss.get("au_rev") != state.rev():
    ss["au_strategy"] = p.strategy.value
    ss["au_rev"] = state.rev()

c1, c2, c3 = st.columns([3, 2, 2])
with c1:
    st.radio("Strategy (view only; change it on Design)",
             ["strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"],
             key="au_strategy", horizontal=False)
with c2:
    st.toggle("Push window to every edge (step 5)", value=True, key="au_push",
              help="SASE+ §4.5 step 5: runs that leave the window die at once")
    st.toggle("Peek before proceed (step 6)", value=True, key="au_peek",
              help="SASE+ §4.5 step 6: proceed only if the event can begin the next state; "
                   "this defines skip_till_next_match and the engine always uses it")
with c3:
    st.selectbox("Engine", list(COMPILERS), format_func=lambda k: COMPILERS[k][0], key="au_engine")
    st.radio("Edge labels", ["short", "full", "none"], horizontal=True, key="au_labels")

with st.expander("Pattern", expanded=False):
    st.code(state.text().strip(), language="sql")

try:
    g = automaton_graph(p, ss.get("au_engine", "nfab"), ss["au_strategy"], ss["au_push"], ss["au_peek"])
except AutomatonUnavailable as err:
    st.warning(str(err), icon=":material/warning:")
    why = reasons(p)
    st.caption("Engines and whether they can run this pattern:")
    st.dataframe([{"engine": k, "can run it": "yes" if v is None else "no", "why not": v or ""}
                  for k, v in why.items()], hide_index=True, width="stretch")
    st.stop()

if g.graph.get("alternatives", 1) > 1:
    st.info(f"The pattern expands into {g.graph['alternatives']} SEQ alternatives (optional components, OR, "
            "AND of single events); each is its own chain, and matches are de-duplicated.", icon=":material/info:")
fig = automaton_figure(g, labels=ss.get("au_labels", "short"))
event = st.plotly_chart(fig, width="stretch", key="au_chart", on_select="rerun",
                        selection_mode="points", config={"displaylogo": False})

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

st.markdown("##### Edges")
st.dataframe(edge_table(g), hide_index=True, width="stretch", key="au_edges")
with st.expander("States"):
    st.dataframe(state_table(g), hide_index=True, width="stretch")
    st.caption("Colours: " + ", ".join(f"{k}" for k in STATE_FILL))
if g.graph.get("partition"):
    st.caption(f"Partition key: [{', '.join(g.graph['partition'])}] — runs are kept per key value.")
