"""Match-window views of the Debug and Learn pages (match-windows paper §4).

``debug_panel(t, k)`` is called by the Debug page with its trace: for a run in match windows
(``cep run``'s default for event-set patterns, chosen by ``engine.run_choice``, or the engine
``match-windows``) it shows the lanes per partition key with the live windows, the
filtered events greyed, the summary statistic of the current window (counters, β_s, β_e, the
masks β_b) and the NMC verdict of every window evaluated so far. ``learn_panel()`` is the
Learn page's pruning view: how many calls of A, and how many events given to A, each
technique saves. Session keys are prefixed ``mw_``. Figures and tables come from
``visualizers.windows_view``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

import sample_streams
from app import figures, glossary, jobs, state, ui
from engine.dsl import parse, to_text
from engine.model import Pattern
from engine.engines.windows.analysis import is_event_set_pattern, unsound_reason
from visualizers import escape
from visualizers import windows_view as WV

CHEMO_SAMPLE, CHEMO_PRESET = "chemo", "chemo_cycle"


def debug_panel(t: Any, k: int) -> None:
    """The match windows of a Debug trace at step ``k`` (nothing for other engines)."""
    steps = t.steps
    if not WV.has_windows(steps):
        p = t.pattern
        if unsound_reason(p) is None and (is_event_set_pattern(p) or getattr(t, "match_windows", "auto") == "off"):
            why = getattr(t, "windows_reason", "")
            st.caption("This run has no match windows" + (f" ({escape.message(why)})" if why and why != "off" else "")
                       + ": set **Match windows** to **on** above (or choose the engine **match-windows**) to step "
                         "through its match windows (filtering, partitions, counters, why a window was skipped); "
                         "the command line numbers its matches the same way with match windows on.")
        return
    h = _history(t)
    plan = WV.plan_for(t.pattern)
    st.markdown("##### Match windows")
    st.caption("Every event that fits some variable is kept in the window of its partition (one lane each); a "
               "window is **complete** when an event of its partition falls outside the pattern's time window "
               "of its first event. Cheap counters then test whether the window can hold a match at all, and "
               "only a window that passes is given to the matcher. Grey crosses were dropped: they fit no "
               "variable.")
    glossary.in_the_papers("Algorithm 1 of the match-windows paper (§4.7); the filter is Theorem 1, the "
                           "counter tests are the necessary conditions (4)–(7) (Theorem 2, Definition 5, with "
                           "the counted-mask fix of the notes' §4.5); partitions follow Definition 6.")
    key_name = ", ".join(plan.key.columns()) if plan is not None and plan.key is not None else ""
    figures.show(WV.lanes_figure(steps, k, float(t.pattern.window.size), h, bool(t.time_is_datetime),
                                 key_name=key_name),
                 f"Match windows at step {k}: one lane per partition, each window from its first event to the "
                 "end of the pattern's time window; grey crosses fit no variable",
                 key="mw_lanes", file_name=f"match-windows-step-{k}")
    here = [w for w in h.windows if w["step"] == k]
    if here:
        st.markdown("**Windows completed on this step:** " + " · ".join(  # ids and partition keys: data
            escape.markdown(f"window of e{w['first']}, key {w['key']}: ")
            + (f"matcher called, {w['matches']} match(es)" if w["called"] else escape.message(w["verdict"].get("reason", "")))
            for w in here))
    step = steps[k]
    cur = step.event["id"] if step.event else None
    snap_all = h.state(k)
    key = h.key_of.get(cur) if cur is not None else None
    left, right = st.columns([2, 3], gap="medium")
    with left:
        if cur is not None and cur in h.filtered:
            st.markdown(f"**{escape.markdown(f'e{cur}')} was dropped**: it fits no variable of the pattern.")
        keys = list(snap_all)
        if key is None or key not in snap_all:
            key = keys[0] if keys else None
        if key is not None and plan is not None:
            snap = snap_all[key]
            st.markdown(f"**Window of key {escape.markdown(key)}** · {len(snap['window'])} event(s): "
                        + escape.markdown(" ".join(f"e{i}" for i in snap["window"])))
            st.dataframe(WV.statistic_frame(plan, snap, h.beta_e.get(cur)), hide_index=True, width="stretch",
                         key="mw_stat")
            ok = snap.get("beta_s") and set(snap["beta_s"]) == {"0"}
            st.caption(f"Zero counters {escape.markdown(snap.get('beta_s'))}: " + ("every counter is above 0, so the "
                       "window may hold a match." if ok
                       else "a 1 marks a zero counter: no candidate (in the right order) for that variable yet.")
                       + " A counter counts the events of the window that fit the variable **and** follow a "
                         "candidate of every variable it must follow.")
        else:
            st.caption("No live window after this step.")
    with right:
        frame = WV.verdict_frame(h, k if step.step != "close" else None)
        st.markdown(f"**Windows evaluated so far ({len(frame)})**")
        if len(frame):
            st.dataframe(frame, hide_index=True, width="stretch", key="mw_verdicts",
                         height=min(38 + 35 * len(frame), 320))
        else:
            st.caption("No window is complete yet.")


def _history(t: Any) -> WV.WindowHistory:
    cache = st.session_state.setdefault("mw_history", {})
    sig = getattr(t, "sig", id(t))
    if sig not in cache:
        cache.clear()
        cache[sig] = WV.window_history(t.steps)
    return cache[sig]


@st.cache_data(show_spinner="Running Algorithm 1 under each combination of techniques…", max_entries=8)
def _pruning(pattern_json: str, sample: str, inner: str) -> Any:
    p = Pattern.model_validate_json(pattern_json)
    events = sample_streams.events(sample)
    return jobs.run_and_wait(lambda guard: WV.pruning_frame(p, events, inner), label="pruning")  # guarded


def learn_panel() -> None:
    st.header("Pruning by match windows")
    st.markdown(
        "Matching can be done in two phases. Events are first kept in **match windows** (all events within "
        "the pattern's time window of a first event), and three cheap tests decide whether the expensive "
        "matcher is called on a window at all: **f** filtering drops events that fit no variable, **p** "
        "partitioning gives each value of the attributes every match shares its own window, and **c** counters "
        "skip windows that cannot hold a match. The matcher is then called once per remaining window, for the "
        "matches that start at its first event. The result is the same in every row; only the work differs.")
    glossary.in_the_papers("Cadonna, Gamper and Böhlen (KDD 2012): match windows §4.1, filtering Theorem 1, "
                           "partitioning by derived equality attributes Definition 6, the necessary match "
                           "conditions (4)–(7) tested in constant time with counters and bit vectors (Theorem 2, "
                           "Definition 5); the Chemo example and its counts in §5.")
    src = st.radio("Pattern and stream", ["chemo", "current"], horizontal=True, key="mw_src",
                   format_func={"chemo": "the chemotherapy example (doses, platelet counts, blood tests), earliest and largest matches",
                                "current": "the current pattern on its sample"}.get)
    if src == "chemo":
        text = sample_streams.load(CHEMO_SAMPLE).presets[CHEMO_PRESET]
        p, sample = parse(text.replace("WHERE [PID]", "WHERE earliest_maximal AND [PID]")), CHEMO_SAMPLE
    else:
        p, sample = state.pattern(), state.sample_name()
        # as the Run page: a name the sample does not have is an error, not a run with 0 matches
        if not ui.data_check(p, state.sample_schema(sample), state.text(), f"Sample {escape.markdown(sample)}: "):
            return
    why = unsound_reason(p)
    if why:
        st.warning(f"Match windows do not apply to the current pattern: {escape.message(why)}.",
                   icon=":material/warning:")
        return
    inner = st.radio("Matcher", ["auto", "lazy-tree"], horizontal=True, key="mw_inner",
                     format_func={"auto": "the event-set automaton (or what auto picks)", "lazy-tree": "lazy tree NFA "
                                  "(all matches, then the selection)"}.get)
    st.code(to_text(p).strip(), language="sql")
    try:
        frame = _pruning(p.model_dump_json(), sample, inner)
    except Exception as err:  # noqa: BLE001 - an engine refusing the pattern, a guard
        st.error(escape.message(err))
        return
    base, best = frame.iloc[0], frame.iloc[-1]
    m1, m2, m3 = st.columns(3)
    m1.metric("calls of the matcher", f"{base['matcher calls']} → {best['matcher calls']}", help="baseline → f+p+c")
    m2.metric("events given to the matcher", f"{base['events given to the matcher']} → {best['events given to the matcher']}",
              help="Σ |W| over the calls; baseline → f+p+c")
    m3.metric("matches", str(best["matches"]), help="the same under every combination")
    figures.show(WV.pruning_figure(frame), "Calls of the matcher and events given to it, without pruning and with "
                 "each combination of the filter, the partitions and the counter tests (the matches are the same)",
                 key="mw_pruning_fig", file_name="match-windows-pruning")
    st.dataframe(frame, hide_index=True, width="stretch", key="mw_pruning")
    st.caption("The baseline calls the matcher on the plain window of every event. On the chemotherapy example "
               "that is 14 calls and 100 events without pruning, 3 calls and 15 events with all three tests.")
    if st.button("Step through the windows in Debug", key="mw_learn_debug", icon=":material/bug_report:"):
        from app import debug_data

        debug_data.open_debug({"pattern": to_text(p).strip(), "data": "sample", "sample": sample, "engine": inner,
                               "windows": "on", "event": "1"}, "step through the windows")
