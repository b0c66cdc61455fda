"""Breakpoints on the Debug page (``engine.breakpoints``, the same specs as ``cep trace --break``).

A person writes one spec a line (``event:812``, ``id:4711``, ``match:17``,
``fails:b.price > a.price``, ``runs>50``, ``buffer>200``). **Continue** goes to the first step
after the current one where one holds (``first_hit`` on the page's run: the pre-pass kinds
without tracing, to the end; the others by tracing windows, at most :data:`SCAN` steps a click); Play stops
at one (the steps Play moves over are checked before it moves). Session keys ``dbg_break*``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app.debug_run import DebugRun
from visualizers import escape

__all__ = ["SCAN", "breakpoints_bar", "stop_at", "parsed"]

SCAN = 20_000          # steps one Continue looks at (traced for the kinds the pre-pass cannot answer)
MAX_LINES = 20


def _ss() -> Any:
    return st.session_state


def parsed(t: DebugRun) -> tuple[list[Any], list[str]]:
    """The breakpoints written (``dbg_breaks``) parsed against the run's pattern and stream:
    ``(breakpoints, errors)``; kept while the text and the run are the same."""
    from engine.breakpoints import BreakpointError, parse_breakpoint

    ss = _ss()
    text = str(ss.get("dbg_breaks") or "")
    key = (text, t.sig)
    got = ss.get("dbg_break_parsed")
    if got is not None and got[0] == key:
        return got[1], got[2]
    bps, errors = [], []
    for line in [x.strip() for x in text.splitlines() if x.strip()][:MAX_LINES]:
        try:
            bps.append(parse_breakpoint(line, t.pattern, len(t.events)))
        except BreakpointError as err:
            errors.append(str(err))
    ss["dbg_break_parsed"] = (key, bps, errors)
    return bps, errors


def _continue() -> None:
    """On to the first step after this one where a breakpoint holds."""
    from engine.breakpoints import first_hit

    ss = _ss()
    t: DebugRun = ss["dbg_traced"]
    bps, _errors = parsed(t)
    k = int(ss.get("dbg_step", 0))
    ss["dbg_playing"] = False
    if not bps:
        ss["dbg_break_message"] = "write a breakpoint first"
        return
    from engine.breakpoints import PREPASS_KINDS

    # the pre-pass answers event / id / match without tracing: those look to the end
    scan = None if all(bp.kind in PREPASS_KINDS for bp in bps) else SCAN
    hit = first_hit(t.run, bps, k + 1, limit=scan)
    if hit is None:
        last = t.close_step if scan is None else min(t.close_step, k + scan)
        ss["dbg_break_message"] = (f"no breakpoint holds from {t.label(k + 1)} to {t.label(last)}"
                                   + ("; Continue looks further" if last < t.close_step else ""))
        if last < t.close_step:
            ss["dbg_step"] = last
        return
    ss["dbg_step"] = hit[0]
    ss["dbg_break_message"] = "stopped: " + hit[1]


def stop_at(start: int, target: int) -> int | None:
    """For Play: the first step in ``start+1 .. target`` where a breakpoint holds (None: none,
    or no breakpoints); its reason is kept for the page."""
    from engine.breakpoints import first_hit

    ss = _ss()
    t: DebugRun | None = ss.get("dbg_traced")
    if t is None or target <= start:
        return None
    bps, _errors = parsed(t)
    if not bps:
        return None
    hit = first_hit(t.run, bps, start + 1, limit=target - start)
    if hit is None:
        return None
    ss["dbg_break_message"] = "Play stopped: " + hit[1]
    return hit[0]


def breakpoints_bar(t: DebugRun) -> None:
    """The breakpoints (collapsed, with their count), Continue and what the last stop said."""
    ss = _ss()
    bps, errors = parsed(t)
    label = f"Breakpoints ({len(bps)})" if bps else "Breakpoints"
    c1, c2, c3 = st.columns([3, 2, 5], vertical_alignment="center")
    with c1.popover(label, icon=":material/flag:", width="stretch"):
        st.text_area("One a line: event:N, id:X, match:K, fails:PREDICATE, holds:PREDICATE, runs>N, buffer>N",
                     key="dbg_breaks", height=120, max_chars=4000,
                     placeholder="match:17\nfails:b.price > a.price\nruns>50",
                     help="the same breakpoints as the command line's trace; a PREDICATE is one of the pattern's WHERE conditions")
    c2.button("Continue", key="dbg_continue", on_click=_continue, icon=":material/resume:", width="stretch",
              disabled=not bps, help="on to the next step where a breakpoint holds")
    notes = [f":red[{escape.message(e)}]" for e in errors]
    if ss.get("dbg_break_message"):
        notes.append(escape.message(ss["dbg_break_message"]))
    if notes:
        c3.caption("  \n".join(notes))
