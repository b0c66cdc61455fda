"""The Debug page for a MATCH_RECOGNIZE query: the traced run (engine/engines/sql/trace.py) step by
step — the row read, the threads alive in preference order, what each thread did with the row
(taken with the DEFINE and the values it read, died and why, merged into a preferred thread, cut by
a preferred match) — the rows output so far, and the answers of ``cep explain``: why match K and why
not these rows. On a long table (a generated ticker of up to 100k rows) the query runs untraced once
and a window of the trace around any match or row is traced on demand (app/debug_sql_window.py);
rows are named ``row #N (id X)`` everywhere. Strings from the query and the data reach the page as
dataframe cells, code, or escaped markdown."""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import debug_sql_window as W
from app import sql_views
from visualizers import escape

ss = st.session_state
DATA = {"table": "the query's table", "generated": "generated ticker"}


def _predicates(a: Any) -> str:
    out = []
    for p in a.predicates:
        vals = ", ".join(f"{k} = {v!r}" for k, v in p.values.items())
        out.append(f"{p.text} → {p.result}" + (f" ({vals})" if vals else ""))
    return "; ".join(out)


def _data(query: Any) -> tuple[Any, Any, str] | None:
    """(bound query, table, its name) for the data chosen, or None with the error shown."""
    from engine.engines.sql.binding import bind
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.table_io import TableError

    choice = st.radio("Data", list(DATA), format_func=DATA.get, horizontal=True, key="sql_debug_data")
    if choice == "generated":
        c1, c2 = st.columns(2)
        n = int(c1.number_input("Rows", 1, W.MAX_GENERATED, W.MAX_GENERATED, step=1000, key="sql_debug_rows"))
        seed = int(c2.number_input("Seed", 0, 2**31 - 1, 0, key="sql_debug_seed"))
        if ss.get("sql_generated_key") != (n, seed):
            ss["sql_generated"] = W.generated_ticker(n, seed)
            ss["sql_generated_key"] = (n, seed)
        table = ss["sql_generated"]
        try:
            return bind(query, table.columns), table, f"generated ticker ({n:,} rows, seed {seed})"
        except SqlError as err:
            sql_views._show_error(err)
            return None
    try:
        bound, table, label = sql_views._bind_error(query)
    except TableError as why:
        st.error(escape.message(why))
        return None
    return (bound, table, label) if bound is not None else None


def render() -> None:
    from engine.engines.sql.errors import SqlRunError
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    query, err = sql_views.parsed()
    if err is not None:
        sql_views._show_error(err)
        return
    chosen = _data(query)
    if chosen is None:
        return
    _bound, table, label = chosen
    engine = st.radio("Engine", ["sql", "sql-oracle"], horizontal=True, key="sql_debug_engine",
                      format_func={"sql": "threads in preference order", "sql-oracle": "oracle (labellings tried)"}.get)
    try:
        index = W.index_for(ss, query, table, (sql_views.text(), label, len(table.rows), engine), engine)
        window = W.current_window(ss, index)
    except (SqlRunError, StateExplosion, TraceLimit) as why:
        st.error(escape.message(why))
        return
    st.caption(f"Table {escape.code(label)}: {len(table.rows):,} rows; the run makes {len(index.start):,} searches, "
               f"{len(index.matches):,} matches and {index.total_steps:,} steps (0–{max(index.total_steps - 1, 0):,}, as "
               "the command line's trace numbers them), then the close step. A step is a search starting at a row, a row "
               "a search reads, or a search's result.")
    try:
        _jumps(index)
        window = W.current_window(ss, index)
    except (SqlRunError, StateExplosion, TraceLimit) as why:
        st.error(escape.message(why))
    _stepper(index, window)
    _explain(index)


def _jumps(index: Any) -> None:
    """Go to match K / row N: the window around it is traced (callbacks, before the slider)."""
    def to_match() -> None:
        W.jump_to_match(ss, index, int(ss["sql_jump_match"]))

    def to_row() -> None:
        W.jump_to_row(ss, index, int(ss["sql_jump_row"]))

    c1, c2, c3, c4 = st.columns([2, 1, 2, 1], vertical_alignment="bottom")
    if index.matches:
        c1.number_input(f"Match (1–{len(index.matches):,})", 1, len(index.matches), 1, key="sql_jump_match")
        c2.button("Go to match", key="sql_go_match", on_click=to_match)
    else:
        c1.caption("The query finds no match.")
    c3.number_input(f"Row (1–{index.n_rows:,}, file order)", 1, max(index.n_rows, 1), 1, key="sql_jump_row")
    c4.button("Go to row", key="sql_go_row", on_click=to_row)
    _breaks(index)


def _breaks(index: Any) -> None:
    """Breakpoints as `cep trace --break` takes them for a query: Continue goes to the next."""
    from engine.engines.sql.trace_breaks import SqlBreakError

    def go() -> None:
        specs = [line for line in str(ss.get("sql_breaks", "")).splitlines() if line.strip()]
        try:
            ss["sql_break_note"] = ("info", W.continue_to_break(ss, index, specs))
        except SqlBreakError as err:
            ss["sql_break_note"] = ("error", str(err))

    with st.expander("Breakpoints", expanded=bool(ss.get("sql_breaks"))):
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        c1.text_area("One a line: event:N (input row N), id:X, match:K", key="sql_breaks", height=80)
        c2.button("Continue", key="sql_continue", on_click=go, help="to the next breakpoint after this step's row")
        note = ss.get("sql_break_note")
        if note:
            (st.error if note[0] == "error" else st.caption)(escape.message(note[1]))


def _stepper(index: Any, window: Any) -> None:
    steps = window.steps
    if not steps:
        st.info("No search starts in this window.")
        return
    ss["sql_step"] = min(max(int(ss.get("sql_step", 0)), 0), len(steps) - 1)
    st.caption(f"Traced: the searches that start in {escape.markdown(index.label(window.first))} to "
               f"{escape.markdown(index.label(window.last))} ({len(steps):,} steps); Back and Next go on into "
               "the rows before and after.")
    c1, c2, c3 = st.columns([1, 1, 6])
    c1.button("◀ Back", key="sql_back", on_click=W.move, args=(ss, index, -1),
              disabled=ss["sql_step"] <= 0 and window.first <= 1)
    c2.button("Next ▶", key="sql_next", on_click=W.move, args=(ss, index, 1),
              disabled=ss["sql_step"] >= len(steps) - 1 and window.last >= index.n_rows)
    with c3:
        st.select_slider("Step", list(range(len(steps))), key="sql_step", label_visibility="collapsed",
                         format_func=lambda k: W.step_label(index, steps[k]))
    k = int(ss["sql_step"])
    step = steps[k]
    search = W.search_of(k, steps)
    where = f" of the search from {index.label(search)}" if search is not None and step.step != "close" else ""
    st.markdown(f"**{escape.markdown(W.step_label(index, step).capitalize())}**{escape.markdown(where)}")
    if step.event is not None:
        st.dataframe([{"row": index.label(step.event["id"]), **{c: v for c, v in step.event.items() if c != "id"}}],
                     hide_index=True, width="stretch")
    threads = [{"thread": r.id, "state": r.state, "labels": ", ".join(f"{v}: {ids}" for v, ids in r.bindings.items())}
               for r in step.runs] or [{"thread": "", "state": "no thread alive", "labels": ""}]
    _listed("Threads alive, in preference order (the first is tried first)", "threads", threads)
    actions = [{"action": a.kind if not a.edge else f"{a.kind} ({a.edge})", "thread": a.run or "",
                "row": "" if a.event is None else index.label(a.event), "DEFINE and values": _predicates(a),
                "why": a.reason or ""} for a in step.actions]
    _listed("What happened", "actions", actions)
    if step.matches:
        _listed("Rows output at this step", "rows", step.matches)


def _listed(title: str, noun: str, rows: list[dict[str, Any]]) -> None:
    """A table of the first rows, the rest behind "N more — show"."""
    first, rest = W.split_list(rows)
    st.markdown(f"**{title}**" + (f" — {len(rows):,} {noun}" if rest else ""))
    st.dataframe(first, hide_index=True, width="stretch")
    if rest:
        with st.expander(f"{len(rest):,} more {noun} — show"):
            st.dataframe(rest[:2_000], hide_index=True, width="stretch", height=300)
            if len(rest) > 2_000:
                st.caption(f"the first 2,000 of {len(rest):,}")


def _explain(index: Any) -> None:
    from engine.engines.sql.errors import SqlRunError
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    k = int(ss.get("sql_jump_match", 1) or 1)
    if index.matches:
        k = min(max(k, 1), len(index.matches))
        with st.expander(f"Matches around match #{k:,} (of {len(index.matches):,})"):
            st.dataframe(W.matches_around(index, k), hide_index=True, width="stretch")
    why, why_not = st.tabs([f"Why match #{k:,}?" if index.matches else "Why this match?", "Why not these rows?"])
    with why:
        if index.matches:
            try:
                st.code(W.explain_match(index, k), language=None, height=320, wrap_lines=True)
            except (ValueError, TraceLimit, SqlRunError, StateExplosion) as err:
                st.info(escape.message(err))
        else:
            st.caption("The query found no match.")
    with why_not:
        spec = st.text_input("Rows (1-based, as in the file: 3-5 or 3,4,5)", "1", key="sql_why_not")
        try:
            st.code(W.explain_rows(index, spec), language=None, height=320, wrap_lines=True)
        except (ValueError, TraceLimit, SqlRunError, StateExplosion) as err:
            st.info(escape.message(err))
