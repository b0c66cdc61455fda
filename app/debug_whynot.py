"""The Debug page's "Why not?": pick events you expected to match (from the traced window, on
its timeline, or as a spec ``a=1,2;b=6``) and ask ``engine.explain`` why they did not.

The events offered are those of the window traced around the current step (and the ones
already picked): a list of every event of a 100k-event stream is no choice. A spec may name
any event. Session keys are prefixed ``dbg_whynot_``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import figures
from app.debug_run import DebugRun
from app.debug_views import show_match
from visualizers import escape
from visualizers import trace_view as TV

__all__ = ["why_not"]

MAX_PICKED = 64
TREE_HEIGHT = 300          # px: the answer's tree scrolls inside this


def _ss() -> Any:
    return st.session_state


def _explain() -> Any:
    try:
        from engine import explain
    except ImportError:
        return None
    return explain


def _event_label(t: DebugRun) -> Any:
    def fmt(i: Any) -> str:
        k = t.index_of.get(i)
        if k is None:
            return str(i)
        e = t.events[k]
        at = f" @ {TV._num(e.ts)}" if isinstance(e.ts, (int, float)) else ""
        return f"{t.event_name(i)} · {e.type}{at}"
    return fmt


def _picked_on_timeline() -> None:
    """Events selected on the why-not timeline join the picked events (in stream order)."""
    ss = _ss()
    t: DebugRun = ss["dbg_traced"]
    sel = ss.get("dbg_whynot_pick")
    try:
        points = list(sel.selection.points) if sel is not None and sel.selection else []
    except AttributeError:
        points = []
    picked = [p.get("customdata") for p in points if p.get("customdata") is not None]
    ids = []
    for i in picked:
        k = t.step_of_id(i)
        if k is not None:
            ids.append(t.events[k].id)
    merged = set(ss.get("dbg_whynot_ids") or []) | set(ids)
    ss["dbg_whynot_ids"] = sorted(merged, key=lambda i: t.index_of.get(i, 0))[:MAX_PICKED]
    ss["dbg_whynot_spec"] = ""


def why_not(t: DebugRun) -> None:
    ss = _ss()
    st.markdown("##### Why not?")
    st.caption("Events you expected to match, or a spec of event ids (`1,2,6`; `a=1,2;b=6` fixes the variables): "
               "a match of this run? If not, the furthest partial run and the first condition that fails.")
    if t.interval:
        st.info("Why-not answers are given for exact timestamps; this data has uncertainty intervals, so "
                "the question is not asked here.", icon=":material/info:")
        return
    k = int(ss.get("dbg_step", 0))
    a, wsteps = t.window(k)
    picked_before = [i for i in (ss.get("dbg_whynot_ids") or []) if i in t.index_of]
    ids = list(dict.fromkeys(picked_before + [s.event["id"] for s in wsteps if s.event is not None
                                              and s.event.get("id") in t.index_of]))
    ids = [i for i in ids if i in t.index_of]
    ss["dbg_whynot_ids"] = picked_before
    with st.expander("Pick events on a timeline", expanded=False):
        st.caption(f"Events #{a + 1:,}..#{min(a + len(wsteps), len(t.events)):,} (the window around this step). "
                   "Click an event, or drag a box (or lasso) around several: they are added to the list below.")
        figures.show(TV.cursor_timeline_figure(wsteps, len(wsteps) - 1, cursor=False, height=220),
                     f"Events #{a + 1:,} to #{min(a + len(wsteps), len(t.events)):,} of the stream, around step {k}",
                     key="dbg_whynot_pick", file_name=f"why-not-events-{a + 1}-to-{min(a + len(wsteps), len(t.events))}",
                     on_select=_picked_on_timeline, selection_mode=("points", "box", "lasso"))
    c1, c2, c3 = st.columns([6, 3, 1], vertical_alignment="bottom")
    picked = c1.multiselect("Events (of the window around this step)", ids, key="dbg_whynot_ids",
                            format_func=_event_label(t), max_selections=MAX_PICKED)
    spec_text = c2.text_input("or a spec", key="dbg_whynot_spec", placeholder="a=1,2;b=6", max_chars=2000)
    spec = spec_text.strip() or ",".join(str(i) for i in picked)
    if c3.button("Why not?", key="dbg_whynot_go", disabled=not spec, type="primary", width="stretch"):
        ex = _explain()
        if ex is None:
            ss["dbg_whynot_result"] = (spec, None, "The explanation engine (engine/explain) is not available.")
        else:
            try:
                with st.spinner("Explaining…"):
                    res = ex.explain_why_not(t.pattern, t.events, spec, engine=t.requested,
                                             match_windows=t.match_windows)
                ss["dbg_whynot_result"] = (spec, res, ex.format_text(res))
            except Exception as err:  # noqa: BLE001 - a message for a person (ExplainError, a bad spec)
                ss["dbg_whynot_result"] = (spec, None, str(err) or type(err).__name__)
    got = ss.get("dbg_whynot_result")
    if not got:
        return
    _answer(t, *got)


def _answer_steps(t: DebugRun, spec: str, cand: dict[str, Any]) -> list[Any]:
    """The traced steps around the events an answer names (at most 400), traced once per
    answer."""
    key = ("whynot-steps", spec)
    if key not in t.explained:
        ks = sorted(t.index_of[i] for i in TV.match_ids({"match": cand}) if i in t.index_of) if cand else []
        lo = ks[0] if ks else int(_ss().get("dbg_step", 0))
        hi = max(ks[-1] if ks else lo, lo)
        t.explained[key] = t.run.steps(max(0, lo - 5), min(t.close_step, hi + 6, lo + 400))
    return t.explained[key]


def _answer(t: DebugRun, spec: str, res: dict[str, Any] | None, text: str) -> None:
    if res is None:
        st.warning(f"{escape.code(spec)}: {escape.message(text)}", icon=":material/warning:")
        return
    verdict = res.get("verdict")
    left, right = st.columns([2, 3], gap="medium")
    with left:
        if verdict == "match":
            no = res.get("index")
            st.success(f"{escape.code(spec)} is match #{escape.markdown(no)}: {escape.markdown(TV.match_text(res))}",
                       icon=":material/check_circle:")
            if isinstance(no, int) and t.mark(no) is not None:
                st.button(f"Show match #{no}", key="dbg_whynot_show", on_click=show_match, args=(no,))
        else:
            reason = res.get("reason") or {}
            st.error(f"{escape.code(spec)} is not a match. **{escape.markdown(reason.get('kind', '?'))}**: "
                     f"{escape.message(reason.get('text', ''))}", icon=":material/block:")
            if reason.get("values"):
                st.markdown("values: " + ", ".join(f"{escape.code(k)} = {escape.markdown(TV._num(v))}"
                                                   for k, v in reason["values"].items()))
            if res.get("furthest"):
                st.markdown("furthest partial run: " + escape.code(" ".join(
                    f"{v}={','.join(str(i) for i in xs)}" for v, xs in res["furthest"].items())))
            else:
                st.markdown("furthest partial run: none (the first event already fails)")
            near = res.get("nearest")
            if isinstance(near, dict) and near.get("index"):
                no = near["index"]
                st.info(f"Did you mean match #{escape.markdown(no)}? {escape.code(TV.match_text(near))} "
                        f"(shares {escape.markdown(near.get('shared', '?'))} "
                        "events)", icon=":material/lightbulb:")
                if t.mark(no) is not None:
                    st.button(f"Show match #{no}", key="dbg_whynot_near", on_click=show_match, args=(no,))
    with right:
        from app import debug_explain

        cand = res.get("candidate") or res.get("match") or {}
        reason = res.get("reason") or {}
        # the timeline of the events the answer names (their span, at most a window's worth)
        steps = _answer_steps(t, spec, cand)
        fig = TV.cursor_timeline_figure(steps, len(steps) - 1, {"match": cand} if cand else None,
                                        marked=reason.get("event"), marked_label=reason.get("kind"),
                                        match_label="your events" if verdict != "match" else "the match",
                                        cursor=False, height=240, focus_event=debug_explain.figure_focus()[1])
        figures.show(fig, ("The events of the match on a timeline" if verdict == "match" else
                           "The events asked about on a timeline")
                     + (f"; marked: where the run stops ({reason.get('kind')})" if reason.get("event") is not None
                        and reason.get("kind") else ""),
                     key="dbg_whynot_timeline", file_name="why-not-answer-timeline")
        # the answer as a linked tree (its text form in an expander under it)
        debug_explain.why_not(res, text, t.index_of, key="dbg_whynot_tree", height=TREE_HEIGHT)
