"""The Debug page: step through a pattern's run event by event, at any point of a long stream.

The run is computed once per (pattern, data, engine, match-windows mode) as an untraced
pre-pass with matcher snapshots (``engine.checkpoints.CheckpointedRun``) with the matcher
``cep run`` would use (``engine.run_choice``, so match #K here is ``cep run``'s #K), inside
a guarded job (``app.jobs.run_and_wait``), and kept in session state (``dbg_traced``, an
``app.debug_run.DebugRun``). The step views trace a window of steps around the current
step and read the whole run only through the pre-pass's matches (``app.debug_run``); they
live in one ``st.fragment`` (``app.debug_views``): while playing, the fragment reruns
itself every ``1/speed`` seconds and moves one step on. The inputs and the URL that keeps
the view are ``app.debug_data``; the filters ``app.debug_filters``; breakpoints (Continue,
Play stops) ``app.debug_breaks``; "Why not?" ``app.debug_whynot``; the comparison with
another pattern, strategy or engine ``app.debug_diff``; the linked explanation trees
``app.debug_explain``.

Session keys are prefixed ``dbg_``.
"""
from __future__ import annotations

import time
from typing import Any

import pandas as pd
import streamlit as st

from app import debug_breaks, debug_data, debug_diff, debug_side_by_side, jobs, runner, state, ui
from app.debug_data import MAX_EVENTS
from app.debug_run import DebugRun, PATH_CAP, WINDOW
from app.debug_views import ENGINE_TITLES, STEPPER, step_views
from app.debug_whynot import why_not
from engine.checkpoints import CheckpointedRun
from engine.engines import planner
from engine.events import LoadResult
from engine.model import Pattern
from engine.trace import type_rates
from visualizers import escape
from visualizers import trace_view as TV

__all__ = ["render", "compute", "engine_choices", "MATCH_WINDOWS", "STEPPER", "ENGINE_TITLES", "MAX_EVENTS"]

MATCH_WINDOWS = ["auto", "on", "off"]  # engine.run_choice.MATCH_WINDOW_MODES, in the order cep run documents them
MATCH_WINDOW_TITLES = {"auto": "auto (on for event-set patterns)", "on": "on (wherever sound)",
                       "off": "off (the engine alone)"}
GRAPH_STEPS = 300          # steps traced to name the automaton's states as the trace does
EVENTS_PAGE = 100          # events listed per page under "Events"


def _ss() -> Any:
    return st.session_state


def engine_choices(p: Pattern, **kw: Any) -> tuple[list[str], dict[str, str]]:
    """``auto`` + every engine that supports the pattern (and the data: point or interval
    timestamps); and why the others cannot."""
    from engine.engines.planner import reasons

    why = reasons(p, **kw)
    ok = [n for n, w in why.items() if w is None]
    return ["auto", *ok], {n: w for n, w in why.items() if w is not None}


def _interval_kw(loaded: LoadResult) -> dict[str, Any]:
    """``interval=True`` for data with uncertainty intervals (the planner then picks the
    uncertain engines, as the Run page does)."""
    try:
        return {"interval": True} if runner.is_interval(loaded) else {}
    except AttributeError:  # pragma: no cover - a runner without interval support
        return {}


def compute(p: Pattern, data_key: str, loaded: LoadResult, engine: str, match_windows: str = "auto") -> DebugRun:
    """The run for (pattern, data, engine, match-windows mode), from session state when it is
    there: the pre-pass runs once, guarded and cancellable."""
    from engine.run_choice import choose_run

    ss = _ss()
    pat = runner.scale_window(p, loaded.seconds_to_ts)
    sig = (p.model_dump_json(), data_key, engine, match_windows)
    got: DebugRun | None = ss.get("dbg_traced")
    if got is not None and got.sig == sig:
        return got
    events = loaded.events[:MAX_EVENTS]
    kw = _interval_kw(loaded)
    choice = choose_run(pat, engine, match_windows, rates=None if kw else type_rates(engine, events), **kw)
    t0 = time.perf_counter()
    # a job: a run slot, the time and memory limits and cancelling with the session (the guard
    # the engine ticks, and the job's watchdog behind it)
    run = jobs.run_and_wait(lambda guard: CheckpointedRun(choice, pat, events, guard=guard), label="trace")
    secs = time.perf_counter() - t0
    first = run.steps(0, min(GRAPH_STEPS, run.total_steps))
    got = DebugRun(sig=sig, run=run, events=events, engine=choice.engine, requested=engine, seconds=secs,
                   pattern=pat, total_events=len(loaded.events), time_is_datetime=bool(loaded.time_is_datetime),
                   seconds_to_ts=loaded.seconds_to_ts,
                   interval=bool(kw), match_windows=match_windows, windows_reason=choice.reason, inner=choice.inner,
                   graph=TV.debug_graph(pat, choice.engine, first),
                   buffer_kind=next((s.buffer.get("kind") for s in first if s.buffer), None))
    ss["dbg_traced"] = got
    ss["dbg_step"] = 0
    ss["dbg_playing"] = False
    ss["dbg_match_no"] = 0
    ss.pop("dbg_whynot_result", None)
    ss["dbg_whynot_ids"] = []
    want = debug_data.url_step()
    if want is not None:
        ss["dbg_step"] = max(0, min(want, got.close_step))
    match = ss.pop("dbg_url_match", None)
    if match is not None and (match == 0 or got.mark(match) is not None):
        ss["dbg_match_no"] = match
    return got


def _summary(t: DebugRun, engine: str) -> None:
    nm = len(t.marks)
    msg = (f"**{len(t.events):,}** events traced with **{ENGINE_TITLES.get(t.engine, t.engine)}**"
           + (f" around {ENGINE_TITLES.get(t.inner, t.inner)} (match windows {t.match_windows})"
              if t.inner and t.engine != engine else "")
           + (" (chosen by auto)" if engine == "auto" else "")
           + (f" · **{t.rows:,}** aggregate row{'s' if t.rows != 1 else ''}" if t.rows else
              f" · **{nm:,}** match{'es' if nm != 1 else ''}")
           + f" · {t.total_steps:,} steps (the last: end of stream) · {t.seconds:.2f} s")
    if t.total_events > len(t.events):
        st.warning(msg + f" · only the first {len(t.events):,} of {t.total_events:,} events are run "
                   f"(the Debug page runs at most {MAX_EVENTS:,}).", icon=":material/content_cut:")
    else:
        st.info(msg, icon=":material/timeline:")
    if t.engine in planner.ENGINES and planner.ENGINES[t.engine].trace_note and not planner.ENGINES[t.engine].incremental:
        st.caption(planner.ENGINES[t.engine].trace_note)


def _events(t: DebugRun) -> None:
    """The events around the current step, a page at a time (full values)."""
    with st.expander(f"Events ({len(t.events):,}), the traced window's download and the figures' format"):
        pages = max(1, -(-len(t.events) // EVENTS_PAGE))
        here = min(int(_ss().get("dbg_step", 0)), max(len(t.events) - 1, 0)) // EVENTS_PAGE + 1
        page = int(st.number_input(f"page (of {pages:,}, {EVENTS_PAGE} events each; opens at this step's)", 1, pages,
                                   here, key=f"dbg_events_page_{here}"))
        rows = t.events_frame_rows((page - 1) * EVENTS_PAGE, page * EVENTS_PAGE)
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=400)
        _download(t)
        from app import figures
        from app.debug_views import FIGURE_FORMAT

        figures.format_control(FIGURE_FORMAT)


def _download(t: DebugRun) -> None:
    k = int(_ss().get("dbg_step", 0))
    a, steps = t.window(k)
    b = a + len(steps)
    st.download_button(f"Download the traced window, events #{a + 1:,}..#{min(b, len(t.events)):,} (JSON Lines, the "
                       "command line's trace format)", TV.steps_to_json(steps),
                       file_name=f"trace-{a + 1}-{b}.jsonl", mime="application/x-ndjson", key="dbg_download")


def render() -> None:
    ss = _ss()
    debug_data.restore_from_url()  # (done by the page before its sidebar; here for callers without one)
    st.title("Debug")
    from app.glossary import term

    st.caption("Step through a run event by event: the live " + term("run", "runs") + ", what each did and why, "
               "the " + term("buffer") + ", the matches; why a match fired, why expected events did not.",
               unsafe_allow_html=True)
    p = state.pattern()
    c1, c2, c3 = st.columns([4, 4, 3], gap="medium")
    with c1:
        st.markdown("##### Pattern")
        debug_data.pattern_picker()
    with c2:
        st.markdown("##### Data")
        got = debug_data.data_picker()
    if got is None:
        st.stop()
    data_key, loaded, data_params = got
    if not ui.data_check(p, loaded.schema, state.text()):
        st.stop()  # as the Run page: a pattern the data cannot answer is refused, not traced to 0 matches
    with c3:
        st.markdown("##### Engine")
        try:
            names, refused = engine_choices(runner.scale_window(p, loaded.seconds_to_ts), **_interval_kw(loaded))
        except Exception as err:  # noqa: BLE001 - PatternError etc.
            ui.error(err)
            st.stop()
        if ss.get("dbg_engine") not in names:
            ss["dbg_engine"] = "auto"
        engine = st.selectbox("Engine", names, key="dbg_engine", format_func=lambda n: ENGINE_TITLES.get(n, n))
        windows = st.selectbox("Match windows", MATCH_WINDOWS, key="dbg_match_windows",
                               format_func=MATCH_WINDOW_TITLES.get,
                               help="Cut the stream into the spans that can hold a match before matching: events that fit no "
                                    "component are dropped, each partition gets its own spans, and spans that "
                                    "cannot hold a match are skipped. auto turns it on for event-set patterns, "
                                    "where the matches stay the same, so they are numbered as the command line "
                                    "numbers them.")
        if refused:
            with st.expander(f"{len(refused)} engine(s) cannot run this pattern"):
                for n, w in refused.items():
                    st.caption(f"**{escape.markdown(n)}**: {escape.message(w)}")
    if names == ["auto"]:
        st.error("No engine can run this pattern on a trace.", icon=":material/error:")
        st.stop()
    try:
        with st.spinner("Running the pattern…"):
            t = compute(p, data_key, loaded, engine, windows)
    except Exception as err:  # noqa: BLE001 - StateExplosion, EngineUnsupported ... as a message
        st.error(f"The trace stopped: {escape.message(err)}", icon=":material/error:")
        st.stop()
    breaks = str(ss.get("dbg_breaks") or "").strip()
    debug_data.write_url({"pattern": state.text(), **data_params, "engine": engine, "windows": windows,
                          **({"break": breaks} if breaks else {}),
                          "event": str(int(ss.get("dbg_step", 0)) + 1),
                          **({"match": str(ss["dbg_match_no"])} if int(ss.get("dbg_match_no", 0) or 0) > 0 else {})})
    _summary(t, engine)
    every = STEPPER.play_bar("", aside=lambda: debug_breaks.breakpoints_bar(t))
    frag = st.fragment(run_every=every)(step_views)
    frag(t)
    st.divider()
    why_not(t)
    if not t.interval:
        compare_views(t, names)
    _events(t)


def compare_views(t: DebugRun, names: list[str]) -> None:
    """Two runs compared, in one collapsed box (the page stays within three screens): stepped side
    by side (two strategies or two engines), or their matches (another pattern, strategy or engine)."""
    ss = _ss()
    open_now = ss.get(debug_side_by_side.HOLDER) is not None or bool(ss.get("dbg_sbs_go"))
    with st.expander("Step two runs side by side, or compare with another pattern, strategy or engine",
                     expanded=open_now, icon=":material/splitscreen:"):
        steps, matches = st.tabs(["Step two runs side by side", "Compare the matches"])
        with steps:
            debug_side_by_side.side_by_side(t, names, framed=False)
        with matches:
            debug_diff.diff_view(t, names, framed=False)
