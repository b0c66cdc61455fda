"""The Debug page's step views: everything that changes with the step (the body of the
fragment that Play reruns).

Each rerun does bounded work: the step comes from the run's cached window of traced steps
(``DebugRun.window``), the matches so far are a bisection of the pre-pass's matches, lists
are paged or collapsed with their counts, and tables carry full values (wide columns and a
full-text list under them). Session keys are prefixed ``dbg_``.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Sequence

import pandas as pd
import streamlit as st

from app import debug_breaks, debug_data, debug_explain, figures, windows_panels
from app.debug_filters import Filter, filter_bar
from app.debug_run import PATH_CAP, WINDOW, DebugRun, MatchPath
from app.step_controls import Jump, Stepper
from engine.engines import planner
from engine.trace import Step
from visualizers import escape
from visualizers import trace_view as TV

__all__ = ["STEPPER", "ENGINE_TITLES", "step_views", "chosen_match", "show_match", "when"]

TIMINGS = 40               # per-step render times kept for the caption
MATCHES_SHOWN = 5          # the latest matches so far listed without paging
FULL_TEXT = 48             # characters a table cell shows whole; longer values are listed in full below
PAGE = 50                  # rows per page of the paged lists
AUTOMATON_MAX = 560        # px: the automaton's height at most (several alternatives side by side)
BUFFER_EVENTS = 6          # events drawn in the shared buffer (the latest; the caption counts the rest)
RUNS_SHOWN = 50            # live runs listed (the table says how many more)
EXPLAIN_LINES = 8          # lines of "why it fired" shown whole; a longer text scrolls in a box
EXPLAIN_HEIGHT = 200       # px: that box (the page stays within three screens at a match of 100k events)
CHAIN_SHOWN = 6            # moves of "Its run" shown before it is collapsed
FIGURE_FORMAT = "dbg_fig_format"  # one SVG/PNG choice for the page's figures (app.figures)
ENGINE_TITLES = {"auto": "auto (the engine Run would choose)", **{s.name: s.title for s in planner.SPECS
                                                          if s.language == "dsl"}}

ACTION_COLUMNS = {"predicates": st.column_config.TextColumn(width="large", help="every conjunct evaluated: ✓/✗, "
                                                           "text, operand values (in full below the table)"),
                  "why / detail": st.column_config.TextColumn(width="large")}
RUN_COLUMNS = {"bindings": st.column_config.TextColumn(width="large"),
               "this step": st.column_config.TextColumn(width="medium")}
MATCH_COLUMNS = {"bindings": st.column_config.TextColumn(width="large"),
                 "completed at": st.column_config.TextColumn(width="medium")}

STEPPER = Stepper("dbg", "dbg_traced", (
    Jump("dbg_prev_match", "Match", -1, "back to the previous step that completed a match"),
    Jump("dbg_next_match", "Next match", 1, "on to the next step that completes a match (or emits an aggregate row)"),
), slider_help=f"event #1 is the first event of the stream; the last step is the end of the stream (close). The "
                f"run is not traced as a whole: each step shows a window of {WINDOW} traced steps around it (a "
                f"match's path: from its first event, at most {PATH_CAP:,} steps).",
    one_based=True, slider_label="Event #", stop_at=debug_breaks.stop_at)


def _ss() -> Any:
    return st.session_state


# --------------------------------------------------------------------------- jumps

def show_match(no: int) -> None:
    """Jump to the step that completed match ``no`` and highlight it."""
    ss = _ss()
    t: DebugRun = ss["dbg_traced"]
    mk = t.mark(no)
    if mk is None:
        return
    ss["dbg_step"] = mk.step
    ss["dbg_match_no"] = no
    ss["dbg_playing"] = False


def _go_event() -> None:
    ss = _ss()
    ss["dbg_step"] = STEPPER.clamp(int(ss.get("dbg_go_event") or 1) - 1)
    ss["dbg_playing"] = False
    ss["dbg_go_message"] = ""


def _go_id() -> None:
    ss = _ss()
    t: DebugRun = ss["dbg_traced"]
    text = str(ss.get("dbg_go_id") or "").strip()
    k = t.step_of_id(text) if text else None
    if k is None:
        ss["dbg_go_message"] = f"no event has the id {text!r}" if text else "type an event id"
        return
    ss["dbg_step"] = k
    ss["dbg_playing"] = False
    ss["dbg_go_message"] = ""


def _go_match() -> None:
    ss = _ss()
    show_match(int(ss.get("dbg_go_match") or 1))
    ss["dbg_go_message"] = ""


def jump_bar(t: DebugRun) -> None:
    """Go to an event by its position or id, or to match K (as ``cep run`` numbers them)."""
    c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
    c1.number_input(f"event # (1..{t.total_steps:,})", 1, t.total_steps, key="dbg_go_event", step=1,
                    help="the last one is the end of stream")
    c1.button("Go to event #", key="dbg_go_event_btn", on_click=_go_event, width="stretch")
    c2.text_input("event id", key="dbg_go_id", max_chars=200, placeholder="e.g. 4711")
    c2.button("Go to event id", key="dbg_go_id_btn", on_click=_go_id, width="stretch")
    last = t.marks[-1].number if t.marks else 0
    c3.number_input(f"match # (1..{last:,})", 1, max(last, 1), key="dbg_go_match", step=1, disabled=not last)
    c3.button("Go to match #", key="dbg_go_match_btn", on_click=_go_match, width="stretch", disabled=not last)


# --------------------------------------------------------------------------- the chosen match

def chosen_match(t: DebugRun, k: int) -> tuple[int, dict[str, Any] | None]:
    """``(number, match)`` of the match whose number is picked (``dbg_match_no``); 0 = the
    first one completed on this step."""
    no = int(_ss().get("dbg_match_no", 0) or 0)
    if no <= 0:
        here = t.at(k)
        return (here[0].number, here[0].match) if here else (0, None)
    mk = t.mark(no)
    return (no, mk.match) if mk is not None else (0, None)


# --------------------------------------------------------------------------- the views

@dataclass
class WindowTrace:
    """A window of steps as the match-windows panel reads a trace (``steps``, ``sig`` ...)."""

    steps: list[Step]
    sig: tuple
    pattern: Any
    match_windows: str
    windows_reason: str
    time_is_datetime: bool


def step_views(t: DebugRun) -> None:
    """Everything that changes with the step (the body of the fragment)."""
    t0 = time.perf_counter()
    k, b5 = STEPPER.controls()
    a, wsteps = t.window(k)
    step = wsteps[k - a]
    done = t.at(k)
    n_so_far = t.count_so_far(k)
    go, line = b5.columns([3, 8], vertical_alignment="center")
    with go.popover("Go to", icon=":material/search:", width="stretch",
                    help="an event by its number or id, or a match by its number"):
        jump_bar(t)
    line.markdown(f"**{escape.markdown(TV.step_label(wsteps, k - a))}** · {step.runs_total} live run(s) · "
                  f"{n_so_far:,} match(es) so far"
                  + (f" · :orange[**{len(done)} completed here**]" if done else ""))
    if _ss().get("dbg_go_message"):
        st.caption(escape.message(_ss()["dbg_go_message"]))

    no, m = chosen_match(t, k)
    mp = t.path(no) if m is not None else None
    path = mp.moves if mp is not None else []

    auto_focus, event_focus = debug_explain.figure_focus()
    if debug_explain.focused():
        debug_explain.pattern_panel(t_text())  # the pattern with the highlighted predicate marked
    st.markdown("##### Automaton")
    if TV.has_moves(t.graph):
        rows = len({d.get("alternative", 0) for _n, d in t.graph.nodes(data=True)}) or 1
        fig = TV.live_automaton_figure(t.graph, step if step.step != "close" else None, path,
                                       height=min(300 + 180 * (rows - 1), AUTOMATON_MAX), focus=auto_focus)
        figures.show(fig, f"The automaton of the pattern ({ENGINE_TITLES.get(t.engine, t.engine)}) at "
                     f"{t.label(k)}: the states its live runs are in and the edges this step took.",
                     "dbg_automaton", f"automaton-event-{k + 1}", format_key=FIGURE_FORMAT)
    else:
        st.caption(f"The {ENGINE_TITLES.get(t.engine, t.engine)} engine moves through no automaton in its trace "
                   "(A-Seq keeps prefix counters per start event instead of runs; the Aggregate page animates "
                   "them): its live state is listed under Runs and State below.")

    flt = filter_bar(t)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        _actions(t, step, flt)
    with right:
        _runs(t, step, flt)
        _completed(done)

    c1, c2 = st.columns([1, 1], gap="medium")
    with c1:
        buf, line = st.tabs(["Buffer", "Timeline"])
        with buf:
            buffer_view(t, wsteps, k - a, no, m, mp, flt)
        with line:
            st.markdown("##### Timeline")
            st.caption(f"Events #{a + 1:,}..#{min(a + len(wsteps), len(t.events)):,} (the window traced around "
                       "this step).")
            figures.show(TV.cursor_timeline_figure(wsteps, k - a, m, TV.live_event_ids(step), height=260,
                                                   focus_event=event_focus),
                         f"The events around {t.label(k)}, the events the live runs hold"
                         + (f" and match #{no:,}" if m is not None else "") + ".",
                         "dbg_timeline", f"timeline-event-{k + 1}", format_key=FIGURE_FORMAT)
    with c2:
        _highlight(t)
        so_far_tab = f"Matches so far ({n_so_far:,})"
        why_tab = f"Why match #{no:,} fired" if m is not None else "Why it fired"
        # a new match opens on its explanation (the key changes with it, so the default applies)
        tabs = st.tabs([why_tab, so_far_tab], default=why_tab if m is not None else so_far_tab,
                       key=f"dbg_match_tabs_{no}")
        with tabs[1]:
            _matches_so_far(t, k, n_so_far)
        with tabs[0]:
            if m is not None:
                explanation(t, no, m, mp)
            else:
                st.caption("Pick a match (or step to one with **Next match**) to see its path and why it fired.")
        timing = st.empty()

    view = WindowTrace(wsteps, (t.sig, a, a + len(wsteps)), t.pattern, t.match_windows, t.windows_reason,
                       t.time_is_datetime)
    windows_panels.debug_panel(view, k - a)  # match windows: lanes, counters, NMC verdicts (of the window)

    debug_data.set_url_step(k, int(_ss().get("dbg_match_no", 0) or 0))
    dt = (time.perf_counter() - t0) * 1000
    times = _ss().setdefault("dbg_times", [])
    times.append(dt)
    del times[:-TIMINGS]
    timing.caption(f"This step rendered in {dt:.0f} ms on the server (median of the last {len(times)}: "
               f"{statistics.median(times):.0f} ms); the run was computed once, in {t.seconds:.2f} s, and "
               f"{t.traced_windows} window(s) of steps traced since.")


def _completed(done: Sequence[Any]) -> None:
    """The matches this step completed (the first three; the rest are counted)."""
    if not done:
        return
    lines = [f"#{mk.number} · {escape.code(TV.match_text(mk.match))}" for mk in done[:3]]
    more = len(done) - len(lines)
    head = ("Match completed: " if len(done) == 1
            else f"{len(done)} matches completed on this step:  \n")
    st.success(head + "  \n".join(lines) + (f"  \n… and {more} more (listed under Matches so far)"
                                               if more > 0 else ""), icon=":material/target:")


def _actions(t: DebugRun, step: Step, flt: Filter) -> None:
    st.markdown("##### This step")
    acts = TV.actions_frame(step, label=t.event_name)
    keep = flt.action_rows(step)
    if keep is not None:
        acts = acts.iloc[keep]
        st.caption(f"{len(acts)} of {len(step.actions)} action(s) match the filter.")
    if len(acts):
        st.dataframe(acts, hide_index=True, width="stretch", key="dbg_actions",
                     height=min(38 + 35 * len(acts), 320), column_config=ACTION_COLUMNS)
        full = [(r["action"], r["run"], r["predicates"], r["why / detail"]) for r in acts.to_dict("records")
                if len(r["predicates"]) > FULL_TEXT or len(r["why / detail"]) > FULL_TEXT]
        if full:
            with st.expander(f"Predicates and details in full ({len(full)} action(s))"):
                for kind, run, preds, why in full[:PAGE]:
                    st.markdown(f"**{escape.markdown(kind)}** {escape.code(run) if run else ''}")
                    st.code("\n".join(x for x in (preds, why) if x), language=None, wrap_lines=True)
                if len(full) > PAGE:
                    st.caption(f"… and {len(full) - PAGE} more (filter by run to see them).")
    else:
        st.caption("The engine did nothing on this event (no run could use it)." if not step.actions
                   else "No action of this step matches the filter.")
    rows = TV.step_rows(step)
    if rows:
        st.markdown(f"**{len(rows)} aggregate row(s) emitted on this step** (the AGG result, as Run shows it)")
        st.dataframe(pd.DataFrame(rows[:PAGE]), hide_index=True, width="stretch", key="dbg_rows",
                     height=min(38 + 35 * min(len(rows), PAGE), 320))


def _runs(t: DebugRun, step: Step, flt: Filter) -> None:
    st.markdown(f"##### Runs ({step.runs_total:,})" if step.step != "close" else "##### Runs")
    if step.step == "close":
        st.caption("End of stream: the close step reports what was pending (trailing negations, windows).")
        return
    if not step.runs:
        st.caption("No live runs.")
        return
    runs = flt.runs(step)
    frame = TV.runs_frame(step, label=t.event_name)
    if runs is not None:
        frame = frame[frame["run"].isin({r.id for r in runs})]
    page_count = max(1, -(-len(frame) // RUNS_SHOWN))
    page = 1
    if page_count > 1:
        page = int(st.number_input(f"page (of {page_count}, {RUNS_SHOWN} runs each)", 1, page_count, 1,
                                   key="dbg_runs_page"))
    shown = frame.iloc[(page - 1) * RUNS_SHOWN: page * RUNS_SHOWN]
    st.dataframe(shown, hide_index=True, width="stretch", key="dbg_runs", height=min(38 + 35 * len(shown), 320),
                 column_config=RUN_COLUMNS)
    long = [(r["run"], r["bindings"], r["this step"]) for r in shown.to_dict("records")
            if len(r["bindings"]) > FULL_TEXT or len(r["this step"]) > FULL_TEXT]
    if long:
        with st.expander(f"Bindings and moves in full ({len(long)} run(s))"):
            st.code("\n".join(f"run {run}: {bindings}" + (f"\n  this step: {moves}" if moves else "")
                              for run, bindings, moves in long), language=None, wrap_lines=True,
                    height="content" if len(long) <= 8 else 300)
    notes = []
    if runs is not None:
        notes.append(f"{len(frame):,} of {len(step.runs):,} listed run(s) match the filter")
    elif len(frame) > RUNS_SHOWN:
        notes.append(f"runs {(page - 1) * RUNS_SHOWN + 1}..{(page - 1) * RUNS_SHOWN + len(shown)} of {len(frame):,}")
    if step.runs_total > len(step.runs):
        notes.append(f"{step.runs_total - len(step.runs):,} more runs are alive (the trace lists "
                     f"{len(step.runs):,})")
    if notes:
        st.caption("; ".join(notes) + ".")


def _highlight(t: DebugRun) -> None:
    """The number of the match drawn (bounded by the matches there are)."""
    last = t.marks[-1].number if t.marks else 0
    if int(_ss().get("dbg_match_no", 0) or 0) > last:
        _ss()["dbg_match_no"] = 0
    st.number_input(f"Highlight match # (1..{last:,}; 0: the first completed on this step)", 0, max(last, 0),
                    key="dbg_match_no",
                    help="its path is drawn on the automaton, the buffer and the timeline; the numbers are "
                         "those of the Run page (and the command line)")


def _matches_so_far(t: DebugRun, k: int, n: int) -> None:
    st.markdown(f"##### Matches so far ({n:,})")
    if not n:
        return
    latest = t.so_far(k)[-MATCHES_SHOWN:]
    st.dataframe(pd.DataFrame(_match_rows(t, latest)), hide_index=True, width="stretch", key="dbg_matches",
                 height=min(38 + 35 * len(latest), 320), column_config=MATCH_COLUMNS)
    if n > MATCHES_SHOWN:
        with st.expander(f"{n:,} matches completed so far — show"):
            pages = -(-n // PAGE)
            page = int(st.number_input(f"page (of {pages:,}, {PAGE} matches each)", 1, pages, pages,
                                       key="dbg_matches_page"))
            part = t.so_far(k)[(page - 1) * PAGE: page * PAGE]
            st.dataframe(pd.DataFrame(_match_rows(t, part)), hide_index=True, width="stretch",
                         key="dbg_matches_all", height=min(38 + 35 * len(part), 420), column_config=MATCH_COLUMNS)


def _match_rows(t: DebugRun, marks: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"#": mk.number, "completed at": t.label(mk.step), "bindings": TV.match_text(mk.match),
             **when(mk.match)} for mk in marks]


def when(m: dict[str, Any]) -> dict[str, Any]:
    """start/end of a match; an uncertain match's range and confidence instead."""
    if m.get("start") is None and m.get("range") is not None:
        lo, hi = (list(m["range"]) + [None, None])[:2]
        out = {"start": lo, "end": hi}
        if m.get("confidence") is not None:
            out["confidence"] = m["confidence"]
        return out
    return {"start": m.get("start"), "end": m.get("end")}


def buffer_view(t: DebugRun, steps: list[Step], j: int, no: int, m: dict[str, Any] | None,
                mp: MatchPath | None, flt: Filter) -> None:
    """The engine's buffer after step ``j`` of the window ``steps``."""
    step = steps[j]
    kind = t.buffer_kind
    if kind == "shared":
        entries, added, pointed, _removed = shared_buffer(t, steps, j)
        held = flt.held_events(step)
        if held is not None:
            entries = {i: e for i, e in entries.items() if e.get("event") in held}
        total = (step.buffer or {}).get("entries")
        shown = len([e for e in entries.values() if not e.get("removed")])
        st.markdown(f"##### Shared buffer ({total if total is not None else shown} entries)")
        rp: list[Any] = []
        if m is not None and mp is not None and mp.found is not None and mp.start + mp.found[0] <= step_index(step, t):
            rp = TV.retrieval_path(entries, TV.match_ids(m)[-1], mp.found[2].run)
        fig = TV.shared_buffer_figure(entries, TV.stack_order(t.graph, entries), t.seq_of, added, pointed, rp,
                                      max_events=BUFFER_EVENTS)
        figures.show(fig, f"The shared buffer after {t.label(step_index(step, t))}: one column per state, each entry "
                          "pointing to the previous event of the runs that took it.",
                     "dbg_buffer", f"shared-buffer-event-{step_index(step, t) + 1}", format_key=FIGURE_FORMAT)
        events = len({e.get("event") for e in entries.values()})
        st.caption(f"Drawn: the entries of the latest {min(events, BUFFER_EVENTS)} of the {events} buffered events"
                   + (" the filter keeps" if held is not None else "") + "; filter by run or event to draw others.",
                   help="One column per state; each entry points to the previous event of every run that took it, "
                        "labelled with the run's version number. A match is read back from its last entry by "
                        "following, at each entry, the pointer whose label starts its version.")
    elif kind == "lazy" and not planner.ENGINES[t.engine].trace_buffers:
        st.markdown(f"##### Partial matches ({(step.buffer or {}).get('partial', step.runs_total)})")
        st.caption(planner.ENGINES[t.engine].trace_note)
    elif kind == "lazy":
        order = [c.var for c in t.pattern.positive]
        types = {c.var: c.type for c in t.pattern.positive}
        st.markdown("##### Buffers and partial matches")
        src = step if step.step != "close" else next((s for s in reversed(steps) if s.step != "close"), step)
        figures.show(TV.lazy_buffer_figure(src, order, types),
                     f"The buffers and partial matches after {t.label(step_index(src, t))}.",
                     "dbg_lazybuf", f"buffers-event-{step_index(src, t) + 1}", format_key=FIGURE_FORMAT)
        ev_order = (src.buffer or {}).get("order")
        here = (f" — here {' → '.join(ev_order[0])} instead of the pattern's {' → '.join(order)}."
                if ev_order else ".")
        st.caption(planner.ENGINES[t.engine].trace_note.replace("{order}", here))
    elif step.buffer:
        st.markdown(f"##### State ({kind or 'engine'})")
        st.caption(f"What the {ENGINE_TITLES.get(t.engine, t.engine)} engine keeps after this step, as its trace "
                   "reports it.")
        st.json(step.buffer, expanded=1)
    else:
        st.markdown("##### Buffer")
        st.caption(f"The {ENGINE_TITLES.get(t.engine, t.engine)} engine reports no buffer in its trace.")


def shared_buffer(t: DebugRun, steps: list[Step], j: int
                  ) -> tuple[dict[str, dict[str, Any]], set[str], set[str], set[str]]:
    """NFA^b's whole shared buffer after step ``j`` of the window (``run.buffer_at``: the
    buffer before the step's chunk read from the matcher, then the chunk's changes), with
    this step's entries, pointers and prunings flagged as ``visualizers.trace.buffer_view``
    flags them; from the window's changes alone when the run cannot say."""
    step = steps[j]
    k = step_index(step, t)
    if not hasattr(t.run, "buffer_at") or step.step == "close":
        return TV.buffer_view(steps, j)
    entries = t.run.buffer_at(k)
    b = step.buffer or {}
    added = {e["id"] for e in b.get("added", ())}
    fresh = {(p["entry"], str(p["label"]), p["to"]) for p in b.get("pointers", ())}
    pointed = {p["entry"] for p in b.get("pointers", ())}
    for eid, e in entries.items():
        e["preds"] = [dict(p, new=eid in added or (eid, str(p.get("label")), p.get("to")) in fresh)
                      for p in e["preds"]]
    removed = set(b.get("removed", ()))
    if removed and k > 0:
        before = t.run.buffer_at(k - 1)
        for rid in removed:
            if rid in before:
                entries[rid] = dict(before[rid], removed=True)
    return entries, added, pointed, removed & set(entries)


def step_index(step: Step, t: DebugRun) -> int:
    """The 0-based index of ``step`` (the close step: after every event)."""
    return t.close_step if step.step == "close" else int(step.step)


def t_text() -> str:
    """The pattern's text as written (the shared one)."""
    from app import state

    return state.text()


def _explain() -> Any:
    try:
        from engine import explain
    except ImportError:
        return None
    return explain


def _chain(path: Sequence[Any], t: DebugRun) -> list[str]:
    return [f"{a.kind} {t.event_name(a.event)} ({a.state}{' → ' + a.to if a.to and a.to != a.state else ''})"
            for a in path]


def explanation(t: DebugRun, idx: int, m: dict[str, Any], mp: MatchPath | None) -> None:
    """Why match ``idx`` fired: its run (collapsed past a few moves) and ``cep explain``'s text
    (bounded, scrolling)."""
    st.markdown(f"**Why match #{idx} fired** · {escape.markdown(TV.match_text(m))}")
    path = mp.moves if mp is not None else []
    if path:
        chain = _chain(path, t)
        if len(chain) <= CHAIN_SHOWN:
            st.caption("Its run: " + " → ".join(escape.markdown(c) for c in chain))
        else:
            head, tail = chain[:3], chain[-2:]
            st.caption("Its run: " + " → ".join(escape.markdown(c) for c in head)
                       + f" → … {len(chain) - 5} more … → " + " → ".join(escape.markdown(c) for c in tail))
            with st.expander(f"Its run in full ({len(chain)} moves)"):
                st.code("\n".join(chain[:2000]), language=None, height=300)
    if mp is not None and mp.cut:
        st.caption(f"The match spans more than {len(mp.steps):,} steps: its path is traced over the last "
                   f"{len(mp.steps):,} (from event #{mp.start + 1:,}).")
    ex = _explain()
    if ex is None:
        st.info("The explanation engine (engine/explain) is not available; the run's path is drawn on the "
                "automaton and the buffer.", icon=":material/info:")
        return
    if t.interval:
        st.caption("Matches are explained for exact timestamps; this data has uncertainty intervals "
                   "(the run's moves are listed above, the matches' confidence in the table).")
        return
    key = ("match", idx)
    if key not in t.explained:
        if _ss().get("dbg_playing"):
            st.caption("Pause to read why it fired.")
            return
        try:
            res = ex.explain_match(t.pattern, t.events, idx, engine=t.requested, match_windows=t.match_windows,
                                   ran=t.run)  # the page's pre-pass: no second run of the engine
            text = ex.format_text(res)
            if res.get("match") != m["match"]:
                text = (f"(note: the explanation numbers this match differently: its #{idx} is "
                        f"{res.get('match')})\n") + text
            t.explained[key] = (res, text)
        except Exception as err:  # noqa: BLE001 - a message, never a traceback
            t.explained[key] = (None, f"could not explain: {type(err).__name__}: {err}")
    res, text = t.explained[key]
    if res is None:
        st.code(text, language=None, wrap_lines=True)
        return
    # a linked tree (event → move → predicates), scrolling in a bounded box; the text form under it
    debug_explain.why_fired(res, text, t.index_of, key=f"dbg_fired_{idx}", height=EXPLAIN_HEIGHT)
