"""The Debug page for a MATCH_RECOGNIZE query: the traced run (engine/engines/sql/trace.py) step by
step — the row read, the threads alive in preference order, what each thread did with the row
(taken with the DEFINE and the values it read, died and why, merged into a preferred thread, cut by
a preferred match) — the rows output so far, and the answers of ``cep explain``: why match K and why
not these rows. Strings from the query and the data reach the page as dataframe cells, code, or
escaped markdown."""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import sql_views
from visualizers import escape

ss = st.session_state
LIMIT = 5_000  # rows a trace holds in memory


def _predicates(a: Any) -> str:
    out = []
    for p in a.predicates:
        vals = ", ".join(f"{k} = {v!r}" for k, v in p.values.items())
        out.append(f"{p.text} → {p.result}" + (f" ({vals})" if vals else ""))
    return "; ".join(out)


def _trace(query: Any, table: Any, label: str, engine: str) -> Any:
    from engine.engines.sql.trace import trace_query

    key = (sql_views.text(), label, engine, len(table.rows))
    if ss.get("sql_trace_key") != key:
        ss["sql_trace"] = trace_query(query, table, engine, limit=LIMIT)
        ss["sql_trace_key"] = key
        ss["sql_step"] = 0
    return ss["sql_trace"]


def render() -> None:
    from engine.engines.sql.errors import SqlRunError
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    query, err = sql_views.parsed()
    if err is not None:
        sql_views._show_error(err)
        return
    bound, table, label = sql_views._bind_error(query)
    if bound is None:
        return
    engine = st.radio("Engine", ["sql", "sql-oracle"], horizontal=True, key="sql_debug_engine",
                      format_func={"sql": "threads in preference order", "sql-oracle": "oracle (labellings tried)"}.get)
    try:
        trace = _trace(query, table, label, engine)
    except (SqlRunError, StateExplosion, TraceLimit) as why:
        st.error(escape.message(why))
        return
    steps = trace.steps
    st.caption(f"Table {escape.code(label)}: {len(table.rows):,} rows, {len(steps):,} steps, "
               f"{len(trace.matches):,} matches. A step is a search starting at a row, a row a search reads, or a "
               "search's result.")
    c1, c2, c3 = st.columns([1, 1, 6])
    with c1:
        if st.button("◀ Back", key="sql_back", disabled=ss.get("sql_step", 0) <= 0):
            ss["sql_step"] = max(0, ss.get("sql_step", 0) - 1)
    with c2:
        if st.button("Next ▶", key="sql_next", disabled=ss.get("sql_step", 0) >= len(steps) - 1):
            ss["sql_step"] = min(len(steps) - 1, ss.get("sql_step", 0) + 1)
    with c3:
        st.slider("Step", 0, max(len(steps) - 1, 1), key="sql_step", label_visibility="collapsed")
    k = min(ss.get("sql_step", 0), len(steps) - 1)
    step = steps[k]
    if step.event is not None:
        st.markdown("**Row**")
        st.dataframe([step.event], hide_index=True, width="stretch")
    st.markdown("**Threads alive, in preference order** (the first is tried first)")
    st.dataframe([{"thread": r.id, "state": r.state, "labels": ", ".join(f"{v}: {ids}" for v, ids in r.bindings.items())}
                  for r in step.runs] or [{"thread": "", "state": "no thread alive", "labels": ""}],
                 hide_index=True, width="stretch")
    st.markdown("**What happened**")
    st.dataframe([{"action": a.kind if not a.edge else f"{a.kind} ({a.edge})", "thread": a.run or "",
                   "row": "" if a.event is None else str(a.event), "DEFINE and values": _predicates(a),
                   "why": a.reason or ""} for a in step.actions], hide_index=True, width="stretch")
    if step.matches:
        st.markdown("**Rows output at this step**")
        st.dataframe(step.matches, hide_index=True, width="stretch")
    _explain(trace, len(table.rows))


def _explain(trace: Any, n_rows: int) -> None:
    from engine.explain.sql_match import explain_sql_match, format_sql_match
    from engine.explain.sql_whynot import explain_sql_why_not, format_sql_why_not

    left, right = st.columns(2)
    with left:
        st.markdown("**Why this match?**")
        if trace.matches:
            k = st.number_input("Match", 1, len(trace.matches), 1, key="sql_explain_k")
            try:
                st.code(format_sql_match(explain_sql_match(trace, int(k))), language=None)
            except ValueError as why:
                st.info(escape.message(why))
        else:
            st.caption("The query found no match.")
    with right:
        st.markdown("**Why not these rows?**")
        spec = st.text_input("Rows (1-based, as in the file: 3-5 or 3,4,5)", "1", key="sql_why_not")
        try:
            st.code(format_sql_why_not(explain_sql_why_not(trace, spec, n_rows)), language=None)
        except ValueError as why:
            st.info(escape.message(why))
