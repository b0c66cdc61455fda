"""The Learn page's MATCH_RECOGNIZE view: preferment and backtracking. On a few prices the person
types, the candidate labellings from the first row in SQL:2016's preferment order, each with the
row and DEFINE where it fails, down to the match; greedy, reluctant and bounded quantifiers side by
side, and what Flink's possessive greedy quantifier answers instead."""
from __future__ import annotations

import streamlit as st

from visualizers import escape

ss = st.session_state
QUANTIFIERS = {"B+": "greedy: as many B as possible, then give rows back",
               "B+?": "reluctant: as few B as possible, then take more",
               "B{1,2}": "bounded: one or two B, two preferred"}


def _query(prices: list[int], quantifier: str) -> str:
    values = ", ".join(f"({i + 1}, {p})" for i, p in enumerate(prices))
    return (f"SELECT * FROM (VALUES {values}) AS t(ts, price) MATCH_RECOGNIZE (ORDER BY ts "
            f"MEASURES A.ts AS a, FIRST(B.ts) AS first_b, LAST(B.ts) AS last_b, C.ts AS c "
            f"PATTERN (A {quantifier} C) DEFINE A AS price = 20, B AS price < 15, C AS price > 12)")


def preferment_view() -> None:
    from engine.engines.sql.binding import bind, partitions
    from engine.engines.sql.parser import parse_query
    from engine.engines.sql.preferment import candidates
    from engine.engines.sql.run import inline_table, run_query

    st.subheader("MATCH_RECOGNIZE: preferment and backtracking")
    st.caption("SQL:2016 tries the ways to label the rows in *preferment* order and keeps the first whose every "
               "row satisfies its DEFINE. `A B+ C` with `A = 20`, `B < 15`, `C > 12`: type prices and watch the "
               "candidates fail until one holds (docs/semantics.md, *Preferment*).")
    text = st.text_input("Prices", "20, 13, 14, 5, 3", key="lrn_sql_prices")
    try:
        prices = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        st.error(escape.message("write whole numbers separated by commas, e.g. `20, 13, 14, 5, 3`"))
        return
    if not 1 <= len(prices) <= 12:
        st.error(escape.message("give between 1 and 12 prices"))
        return
    cols = st.columns(len(QUANTIFIERS))
    for col, (quantifier, meaning) in zip(cols, QUANTIFIERS.items()):
        with col:
            st.markdown(f"**{escape.code('A ' + quantifier + ' C')}**")
            st.caption(meaning)
            q = parse_query(_query(prices, quantifier))
            table = inline_table(q)
            assert table is not None
            bound = bind(q, table.columns)
            (_, rows), = partitions(bound, table.rows)
            start = next((i for i, p in enumerate(prices) if p == 20), None)
            if start is None:
                st.info("No row is 20: no candidate can start (A = 20).")
                continue
            cands = candidates(bound, rows, start, limit=30)
            st.dataframe([{"try": c.rank, **{f"row {start + i + 1}": v for i, v in enumerate(c.labels)},
                           "result": c.reason} for c in cands], hide_index=True, width="stretch")
            got = run_query(q, table).rows
            st.caption("Match: " + (", ".join(f"{k} = {v}" for k, v in got[0].items()) if got else "none"))
            st.button("Step through it in Debug", key=f"lrn_sql_debug_{quantifier}", icon=":material/bug_report:",
                      on_click=open_in_debug, args=(_query(prices, quantifier),))
    st.caption("Flink 2.3 implements greedy quantifiers *without* giving rows back (possessive): with "
               "20, 13, 14, 5, 3 its `A B+ C` finds no match, because B keeps 13, 14 and 5 and no C follows "
               "(docs/flink.md).")


def open_in_debug(query: str) -> None:
    """The Debug page on ``query`` (its rows are inline): the query's debugger, searches and all
    (a button's callback: the page switches on the next run)."""
    ss["lang"] = "sql"
    ss["sql_text"] = query
    ss["lrn_goto_debug"] = True


def follow_debug_request() -> None:
    """Switch to the Debug page when a button asked for it (outside a callback, where switching works)."""
    if ss.pop("lrn_goto_debug", False):
        from streamlit.errors import StreamlitAPIException

        try:
            st.switch_page("pages/4_Debug.py")
        except StreamlitAPIException:  # the page runs on its own (outside the multipage app)
            st.info("Open the Debug page to step through the query.", icon=":material/bug_report:")
