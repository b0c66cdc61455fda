"""The Debug page's differential view (``engine.diff``, as ``cep diff``): the page's run (side
A) against another pattern, strategy or engine (side B) on the same events.

Both sides run untraced as ``cep run`` runs them, in a guarded job. The page shows the counts
(only in A, only in B, in both), a page of the lines in ``cep diff``'s order, and for a chosen
line: its match on the page (side A's number) and, for a one-sided match, why the other side
did not find it (computed on demand: a why-not is a search). Session keys ``dbg_diff_*``.
"""
from __future__ import annotations

import contextlib

from typing import Any

import pandas as pd
import streamlit as st

from app import jobs, runner
from app.debug_run import DebugRun
from app.debug_views import ENGINE_TITLES, show_match
from visualizers import escape
from visualizers import trace_view as TV

__all__ = ["diff_view"]

PAGE = 25
SIDE_NAMES = {"a": "only in A", "b": "only in B", "both": "in both"}


def _ss() -> Any:
    return st.session_state


def _compare(t: DebugRun, text: str, engine: str, windows: str) -> None:
    from engine.diff import diff_matches, run_side
    from engine.dsl import parse

    ss = _ss()
    try:
        other = runner.scale_window(parse(text), t.seconds_to_ts)
    except Exception as err:  # noqa: BLE001 - DslError, PatternError: a message
        ss["dbg_diff"] = (None, f"pattern B: {err}")
        return
    try:
        def work(guard: Any) -> Any:
            a = run_side(t.pattern, t.events, t.requested, t.match_windows, guard=guard)
            b = run_side(other, t.events, engine, windows, guard=guard)
            return a, b, diff_matches(a, b, t.events, why_not=False)
        a, b, result = jobs.run_and_wait(work, label="diff")
    except Exception as err:  # noqa: BLE001 - EngineUnsupported, RunStopped ...: a message
        ss["dbg_diff"] = (None, str(err) or type(err).__name__)
        return
    ss["dbg_diff"] = ((a, b, result, t.sig), None)
    ss.pop("dbg_diff_answer", None)


def diff_view(t: DebugRun, engines: list[str], framed: bool = True) -> None:
    """Compare (collapsed): pattern B (the page's pattern to start with), engine and
    match-windows mode B; the result."""
    from app import state

    ss = _ss()
    got = ss.get("dbg_diff")
    if got is not None and got[0] is not None and got[0][3] != t.sig:
        got = None  # side A changed: the comparison is stale
        ss.pop("dbg_diff", None)
    title = "Compare with another pattern, strategy or engine"
    if got is not None and got[0] is not None:
        counts = got[0][2].counts
        title += f" — {counts['a']:,} only in A, {counts['b']:,} only in B, {counts['both']:,} in both"
    frame = (st.expander(title, expanded=False, icon=":material/difference:") if framed
             else contextlib.nullcontext())
    with frame:
        if not framed:
            st.caption(title)
        ss.setdefault("dbg_diff_text", state.text())
        c1, c2 = st.columns([3, 2], gap="medium")
        text = c1.text_area("Pattern B (change the strategy, a predicate …)", key="dbg_diff_text", height=140,
                            max_chars=20_000)
        engine = c2.selectbox("Engine B", engines, key="dbg_diff_engine",
                              format_func=lambda n: ENGINE_TITLES.get(n, n))
        windows = c2.selectbox("Match windows B", ["auto", "on", "off"], key="dbg_diff_windows")
        if c2.button("Compare", key="dbg_diff_go", type="primary", width="stretch"):
            with st.spinner("Running both sides…"):
                _compare(t, text, engine, windows)
            got = ss.get("dbg_diff")
        if got is None:
            st.caption(f"Side A is this page's run ({escape.markdown(ENGINE_TITLES.get(t.requested, t.requested))}, "
                       f"match windows {escape.markdown(t.match_windows)}).")
            return
        result, error = got
        if result is None:
            st.warning(escape.message(error), icon=":material/warning:")
            return
        _result(t, *result[:3])


def _result(t: DebugRun, a: Any, b: Any, result: Any) -> None:
    ss = _ss()
    for side, name in ((a, "A"), (b, "B")):
        if side.error:
            st.warning(f"Side {name}: {escape.message(side.error)}", icon=":material/warning:")
    m1, m2, m3 = st.columns(3)
    m1.metric("only in A", f"{result.counts['a']:,}")
    m2.metric("only in B", f"{result.counts['b']:,}")
    m3.metric("in both", f"{result.counts['both']:,}")
    lines = result.lines
    if not lines:
        st.caption("Neither side found a match.")
        return
    show = st.radio("Show", ["all", "a", "b", "both"], horizontal=True, key="dbg_diff_side",
                    format_func=lambda s: SIDE_NAMES.get(s, "all"))
    picked = [(i, x) for i, x in enumerate(lines, 1) if show == "all" or x.side == show]
    if not picked:
        st.caption("None.")
        return
    pages = -(-len(picked) // PAGE)
    page = int(st.number_input(f"page (of {pages:,}, {PAGE} lines each)", 1, pages, 1, key="dbg_diff_page"))
    part = picked[(page - 1) * PAGE: page * PAGE]
    rows = [{"line": i, "side": SIDE_NAMES[x.side], "bindings": TV.match_text({"match": x.match}),
             "A's match #": t.number({"match": x.match}), "start": x.start, "end": x.end} for i, x in part]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="dbg_diff_lines",
                 height=min(38 + 35 * len(rows), 400),
                 column_config={"bindings": st.column_config.TextColumn(width="large")})
    c1, c2, c3 = st.columns([2, 2, 3], vertical_alignment="bottom")
    no = int(c1.number_input(f"line (1..{len(lines):,})", 1, len(lines), part[0][0], key="dbg_diff_line"))
    line = lines[no - 1]
    a_no = t.number({"match": line.match})
    if a_no is not None:
        c2.button(f"Show A's match #{a_no}", key="dbg_diff_show", on_click=show_match, args=(a_no,), width="stretch")
    if line.side != "both" and c3.button(f"Why not on side {'B' if line.side == 'a' else 'A'}?",
                                         key="dbg_diff_whynot", width="stretch"):
        from engine import diff as D
        from engine.explain import format_text

        other = b if line.side == "a" else a
        with st.spinner("Explaining…"):
            res = D.why_not_on(line.match, other, t.events)  # the why-not cep diff prints for this line
        ss["dbg_diff_answer"] = (no, format_text(res) if res.get("verdict") != "unknown"
                                 else res.get("reason", {}).get("text", ""))
    answer = ss.get("dbg_diff_answer")
    if answer is not None and answer[0] == no:
        st.code(answer[1], language=None, wrap_lines=True, height="content" if answer[1].count("\n") < 12 else 260)
