"""The Debug page: step through a pattern's run event by event.

The trace is computed once per (pattern, data, engine, match-windows mode, prefix) with
the matcher ``cep run`` would use (``engine.run_choice``, so match #K is ``cep run``'s #K)
and kept in session state; stepping and playing only read it. The step views live in one
``st.fragment``: while playing, the fragment reruns itself every ``1/speed`` seconds
(``run_every``) and moves one step on, so the page never recomputes the trace or redraws
anything outside the fragment. Explanations come from ``engine.explain`` (why did this
match fire, why did these events not match).

Session keys are prefixed ``dbg_``.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

import sample_streams
from app import jobs, runner, sessions, state, ui, windows_panels
from app.step_controls import Jump, Stepper
from engine.engines import planner
from engine.events import LoadResult, load_events
from engine.model import Pattern
from engine.trace import Recorder, Step, record, type_rates
from visualizers import escape
from visualizers import trace_view as TV

MAX_EVENTS = 5000          # the trace keeps every step in memory: a prefix of the data at most this long
DEFAULT_EVENTS = 2000
MATCH_WINDOWS = ["auto", "on", "off"]  # engine.run_choice.MATCH_WINDOW_MODES, in the order cep run documents them
MATCH_WINDOW_TITLES = {"auto": "auto (as cep run: on for event-set patterns)", "on": "on (wherever sound)",
                       "off": "off (the engine alone)"}
TIMINGS = 40               # per-step render times kept for the caption
ENGINE_TITLES = {"auto": "auto (as cep run chooses)", **{s.name: s.title for s in planner.SPECS
                                                          if s.language == "dsl"}}


@dataclass
class Traced:
    """One computed trace and what the views need from it (computed once)."""

    sig: tuple
    steps: list[Step]
    events: list[Any]
    engine: str                 # the engine that ran (auto resolved; match-windows for Algorithm 1)
    requested: str              # the engine asked for (explanations run it the same way: auto with type rates)
    seconds: float
    pattern: Pattern            # as traced (window in the unit of ts)
    graph: Any
    seq_of: dict[Any, int]
    canon: dict[Any, int]       # match identity -> its number in cep run's output (emission order)
    total_events: int
    time_is_datetime: bool = False
    interval: bool = False      # events with uncertainty intervals (the uncertain engines)
    match_windows: str = "auto"  # the --match-windows mode (engine.run_choice, as cep run chooses)
    windows_reason: str = ""    # why match windows are on or off for this run
    inner: str | None = None    # matcher A of a match-windows run
    explained: dict[Any, Any] = field(default_factory=dict)
    matches: list[tuple[int, dict[str, Any]]] = field(default_factory=list)   # (step, match), emission order
    by_number: dict[int, dict[str, Any]] = field(default_factory=dict)        # cep run's number -> match
    emitted_by: dict[Any, tuple[int, int, Any]] = field(default_factory=dict)  # match key -> its match action
    _jsonl: str | None = None
    _match_steps: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.matches = TV.matches_so_far(self.steps, len(self.steps) - 1)
        self.by_number = {self.canon[TV.match_key(m)]: m for _j, m in self.matches}
        for j, s in enumerate(self.steps):
            for i, a in enumerate(s.actions):
                mm = (a.detail or {}).get("match") if a.kind == "match" else None
                if isinstance(mm, dict) and "match" in mm:
                    self.emitted_by.setdefault(TV.match_key(mm), (j, i, a))

    def number(self, m: dict[str, Any]) -> int | None:
        return self.canon.get(TV.match_key(m))

    def so_far(self, k: int) -> list[tuple[int, dict[str, Any]]]:
        import bisect

        if len(self._match_steps) != len(self.matches):
            self._match_steps = [j for j, _m in self.matches]
        return self.matches[: bisect.bisect_right(self._match_steps, k)]

    def jsonl(self) -> str:
        if self._jsonl is None:
            self._jsonl = TV.steps_to_json(self.steps)
        return self._jsonl


def _ss() -> Any:
    return st.session_state


# --------------------------------------------------------------------------- data

def _presets() -> list[tuple[str, str]]:
    return [(s, p) for s in sample_streams.names() for p in sample_streams.load(s).presets]


def _load_source(key: str, _src: runner.Source, mapping_json: str, _mapping: Any) -> LoadResult:
    """The data, loaded once per session (``app.sessions``: one data set per page per
    session, dropped when the session ends; nothing shared between sessions)."""
    with st.spinner("Loading the data…"):
        return sessions.cached("debug-data", f"{key}|{mapping_json}", lambda: runner.load(_src, _mapping))


def _generated(kind: str, n: int, seed: int, skew: str) -> LoadResult:
    """A generated stream, kept per session like ``_load_source``."""
    with st.spinner("Generating the stream…"):
        return sessions.cached("debug-data", f"gen:{kind}:{n}:{seed}:{skew}",
                               lambda: _generate(kind, n, seed, skew))


def _generate(kind: str, n: int, seed: int, skew: str) -> LoadResult:
    from sample_streams import generators as G

    if kind == "stocks":
        df = G.stocks(n, symbols=2, seed=seed, start_price=100, volume=(500, 1500))
    else:
        rates = _parse_rates(skew)
        df = G.skewed_types(n, rates, seed=seed)
    return load_events(df)


def _parse_rates(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in text.replace(";", ",").split(","):
        if ":" in part:
            k, v = part.split(":", 1)
            try:
                out[k.strip()] = float(v)
            except ValueError:
                continue
    return out or {"A": 10.0, "B": 1.0, "C": 5.0}


def data_picker() -> tuple[str, LoadResult] | None:
    """Sample, generated stream or upload; returns (data key, loaded) or None."""
    ss = _ss()
    kind = st.radio("Data", ["sample", "generated", "upload"], horizontal=True, key="dbg_source",
                    format_func={"sample": "Sample", "generated": "Generated stream", "upload": "Upload"}.get)
    if kind == "sample":
        names = sample_streams.names()
        if ss.get("dbg_sample_for") != state.sample_name():
            ss["dbg_sample"] = state.sample_name()
            ss["dbg_sample_for"] = state.sample_name()
        name = st.selectbox("Sample", names, key="dbg_sample")
        smp = sample_streams.load(name)
        st.caption(smp.description)
        src = runner.Source("sample", name, str(smp.path), "csv")
        mapping = runner.default_mapping([str(c) for c in smp.frame().columns], smp.mapping)
        return src.key, _load_source(src.key, src, runner.mapping_json(mapping), mapping)
    if kind == "generated":
        c1, c2, c3 = st.columns(3)
        gen = c1.selectbox("Generator", ["stocks", "skewed"], key="dbg_gen",
                           format_func={"stocks": "stock ticks (SASE+ §7)",
                                        "skewed": "skewed event types (lazy NFA)"}.get)
        n = int(c2.number_input("Events", 10, MAX_EVENTS, 300, step=50, key="dbg_gen_n"))
        seed = int(c3.number_input("Seed", 0, 10_000, 0, key="dbg_gen_seed"))
        skew = ""
        if gen == "skewed":
            skew = st.text_input("Rates per type", "A:10, B:1, C:5", key="dbg_gen_rates")
        else:
            st.caption("Two symbols, price random walk (55 % up), volume uniform in 500..1500, ts = sequence number.")
        return f"gen:{gen}:{n}:{seed}:{skew}", _generated(gen, n, seed, skew)
    up = st.file_uploader("CSV, TSV, JSON Lines or Parquet", type=runner.UPLOAD_TYPES, key="dbg_upload")
    if up is None:
        st.info("Choose a file to continue.")
        return None
    try:
        path = runner.save_upload(up.name, up.getvalue())
    except runner.RunError as err:  # over the upload cap
        st.error(escape.message(err))
        return None
    src = runner.Source("upload", up.name, path, runner.format_of(up.name))
    try:
        cols = [str(c) for c in runner.read_preview(src.path, src.fmt).columns]
        mapping = runner.default_mapping(cols)
        loaded = _load_source(src.key, src, runner.mapping_json(mapping), mapping)
    except (runner.RunError, ValueError) as err:
        ui.error(err)
        return None
    st.caption(f"Columns guessed: type {escape.code(mapping.type_col)}, ts "
               f"{escape.code(mapping.ts_col or mapping.lower_col)}, id {escape.code(mapping.id_col or '(row number)')} "
               "(change them on the Run page's column mapping).")
    return src.key, loaded


def pattern_picker() -> None:
    """The pattern is the shared one (Design); a preset can replace it."""
    ss = _ss()
    st.code(state.text().strip(), language="sql")
    presets = _presets()
    labels = [f"{s} · {p}" for s, p in presets]
    cur = f"{state.sample_name()} · {ss.get('cep_preset')}" if ss.get("cep_preset") else None
    if "dbg_preset" not in ss or ss.get("dbg_preset") not in labels:
        ss["dbg_preset"] = cur if cur in labels else labels[0]
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    c1.selectbox("or load a preset (pattern and its sample)", labels, key="dbg_preset")

    def _use() -> None:
        s, p = presets[labels.index(ss["dbg_preset"])]
        state.load_preset(s, p)
        ss["dbg_source"] = "sample"

    c2.button("Load", key="dbg_use_preset", on_click=_use, width="stretch", help="load this preset's pattern and sample")
    ui.link_to_page("pages/1_Design.py", "Edit the pattern on the Design page", ":material/edit:")


def engine_choices(p: Pattern, **kw: Any) -> tuple[list[str], dict[str, str]]:
    """``auto`` + every engine that supports the pattern (and the data: point or interval
    timestamps); and why the others cannot."""
    from engine.engines.planner import reasons

    why = reasons(p, **kw)
    ok = [n for n, w in why.items() if w is None]
    return ["auto", *ok], {n: w for n, w in why.items() if w is not None}


# --------------------------------------------------------------------------- the trace

def _interval_kw(loaded: LoadResult) -> dict[str, Any]:
    """``interval=True`` for data with uncertainty intervals (the planner then picks the
    uncertain engines, as the Run page does)."""
    try:
        return {"interval": True} if runner.is_interval(loaded) else {}
    except AttributeError:  # pragma: no cover - a runner without interval support
        return {}


def compute(p: Pattern, data_key: str, loaded: LoadResult, engine: str, cap: int,
            match_windows: str = "auto") -> Traced:
    """The trace for (pattern, data, engine, match-windows mode, prefix), from session state
    when it is there. The matcher is chosen as ``cep run`` chooses it (``engine.run_choice``),
    so match #K here is the K-th match ``cep run`` prints for the same data."""
    from engine.run_choice import choose_run

    ss = _ss()
    pat = runner.scale_window(p, loaded.seconds_to_ts)
    sig = (p.model_dump_json(), data_key, engine, cap, match_windows)
    got: Traced | None = ss.get("dbg_traced")
    if got is not None and got.sig == sig:
        return got
    events = loaded.events[:cap]
    kw = _interval_kw(loaded)
    choice = choose_run(pat, engine, match_windows, rates=None if kw else type_rates(engine, events), **kw)
    t0 = time.perf_counter()
    steps = jobs.run_and_wait(  # guarded: a run slot, the time and memory limits, cancelled with the session
        lambda guard: list(record(choice.build(pat, tracer=Recorder()), jobs.ticking(events, guard), limit=None)),
        label="trace")
    secs = time.perf_counter() - t0
    seq_of = {e.id: e.seq for e in events}
    name = choice.engine
    got = Traced(sig=sig, steps=steps, events=events, engine=name, requested=engine, seconds=secs, pattern=pat,
                 graph=TV.debug_graph(pat, name, steps), seq_of=seq_of, canon=TV.match_numbers(steps),
                 total_events=len(loaded.events), time_is_datetime=bool(loaded.time_is_datetime),
                 interval=bool(kw), match_windows=match_windows, windows_reason=choice.reason, inner=choice.inner)
    ss["dbg_traced"] = got
    ss["dbg_step"] = 0
    ss["dbg_playing"] = False
    ss["dbg_match_no"] = 0
    ss.pop("dbg_whynot_result", None)
    return got


def _explain() -> Any:
    try:
        from engine import explain
    except ImportError:
        return None
    return explain


# --------------------------------------------------------------------------- controls

STEPPER = Stepper("dbg", "dbg_traced", (
    Jump("dbg_prev_match", "Match", -1, "back to the previous step that completed a match"),
    Jump("dbg_next_match", "Next match", 1, "on to the next step that completes a match (or emits an aggregate row)"),
), slider_help="0 is the first event; the last step is the end of the stream (close)")


# --------------------------------------------------------------------------- step views

def chosen_match(t: Traced, k: int) -> dict[str, Any] | None:
    """The match whose number is picked (``dbg_match_no``); 0 = the first one completed on
    this step."""
    no = int(_ss().get("dbg_match_no", 0) or 0)
    if no <= 0:
        ms = TV.step_matches(t.steps[k])
        return ms[0] if ms else None
    return t.by_number.get(no)


def step_views(t: Traced) -> None:
    """Everything that changes with the step (the body of the fragment)."""
    t0 = time.perf_counter()
    k, b5 = STEPPER.controls()
    step = t.steps[k]
    done = TV.step_matches(step)
    so_far = t.so_far(k)
    b5.markdown(f"**{escape.markdown(TV.step_label(t.steps, k))}** · {step.runs_total} live run(s) · "
                f"{len(so_far)} match(es) so far"
                + (f" · :orange[**{len(done)} completed here**]" if done else ""))

    # the match whose path is drawn on the automaton, the buffer and the timeline
    m = chosen_match(t, k)
    path = TV.match_path(t.steps, m, t.emitted_by.get(TV.match_key(m))) if m is not None else []

    st.markdown("##### Automaton")
    if TV.has_moves(t.graph):
        fig = TV.live_automaton_figure(t.graph, step if step.step != "close" else None, path)
        st.plotly_chart(fig, width="stretch", key="dbg_automaton", config={"displaylogo": False})
    else:
        st.caption(f"The {ENGINE_TITLES.get(t.engine, t.engine)} engine moves through no automaton in its trace "
                   "(A-Seq keeps prefix counters per start event instead of runs; the Aggregate page animates "
                   "them): its live state is listed under Runs and State below.")

    left, right = st.columns([3, 2], gap="medium")
    with left:
        st.markdown("##### This step")
        acts = TV.actions_frame(step)
        if len(acts):
            st.dataframe(acts, hide_index=True, width="stretch", key="dbg_actions",
                         height=min(38 + 35 * len(acts), 320),
                         column_config={"predicates": st.column_config.TextColumn(width="large")})
        else:
            st.caption("The engine did nothing on this event (no run could use it).")
        rows = TV.step_rows(step)
        if rows:
            st.markdown(f"**{len(rows)} aggregate row(s) emitted on this step** (the AGG result, as `cep run`)")
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="dbg_rows")
        if done:
            lines = [f"#{t.number(mm)} · {escape.code(TV.match_text(mm))}" for mm in done[:3]]
            more = len(done) - len(lines)
            head = ("Match completed: " if len(done) == 1
                    else f"{len(done)} matches completed on this step:  \n")
            st.success(head + "  \n".join(lines) + (f"  \n… and {more} more (listed under Matches so far)"
                                                       if more > 0 else ""), icon=":material/target:")
    with right:
        st.markdown(f"##### Runs ({step.runs_total})" if step.step != "close" else "##### Runs")
        if step.step == "close":
            st.caption("End of stream: the close step reports what was pending (trailing negations, windows).")
        elif step.runs:
            st.dataframe(TV.runs_frame(step), hide_index=True, width="stretch", key="dbg_runs",
                         height=min(38 + 35 * len(step.runs), 320))
            if step.runs_total > len(step.runs):
                st.caption(f"{step.runs_total - len(step.runs)} more runs are alive (the trace lists 500).")
        else:
            st.caption("No live runs.")

    c1, c2 = st.columns([1, 1], gap="medium")
    with c1:
        buffer_view(t, k, m)
    with c2:
        st.markdown(f"##### Matches so far ({len(so_far)})")
        st.number_input(f"Highlight match # (1..{len(t.matches)}; 0: the first completed on this step)", 0,
                        max(len(t.matches), 0), key="dbg_match_no",
                        help="its path is drawn on the automaton, the buffer and the timeline; the numbers are "
                             "those of `cep run` (and the Run page)")
        if so_far:
            rows = [{"#": t.number(mm), "step": j, "bindings": TV.match_text(mm),
                     **_when(mm)} for j, mm in so_far[-200:]]
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="dbg_matches",
                         height=min(38 + 35 * len(rows), 250))
        if m is not None:
            explanation(t, m, path)
        else:
            st.caption("Pick a match (or step to one with **Next match**) to see its path and why it fired.")

    st.markdown("##### Timeline")
    st.plotly_chart(TV.cursor_timeline_figure(t.steps, k, m, TV.live_event_ids(step)), width="stretch",
                    key="dbg_timeline", config={"displaylogo": False})
    windows_panels.debug_panel(t, k)  # match windows: lanes, counters, NMC verdicts

    dt = (time.perf_counter() - t0) * 1000
    times = _ss().setdefault("dbg_times", [])
    times.append(dt)
    del times[:-TIMINGS]
    st.caption(f"This step rendered in {dt:.0f} ms on the server (median of the last {len(times)}: "
               f"{statistics.median(times):.0f} ms); the trace was computed once, in {t.seconds:.2f} s.")


def _when(m: dict[str, Any]) -> dict[str, Any]:
    """start/end of a match; an uncertain match's range and confidence instead."""
    if m.get("start") is None and m.get("range") is not None:
        lo, hi = (list(m["range"]) + [None, None])[:2]
        out = {"start": lo, "end": hi}
        if m.get("confidence") is not None:
            out["confidence"] = m["confidence"]
        return out
    return {"start": m.get("start"), "end": m.get("end")}


def buffer_view(t: Traced, k: int, m: dict[str, Any] | None) -> None:
    step = t.steps[k]
    kind = next((s.buffer.get("kind") for s in t.steps if s.buffer), None)
    if kind == "shared":
        entries, added, pointed, _removed = TV.buffer_view(t.steps, k)
        st.markdown(f"##### Shared buffer ({len([e for e in entries.values() if not e.get('removed')])} entries)")
        rp: list[Any] = []
        if m is not None:
            found = t.emitted_by.get(TV.match_key(m))
            if found is not None and found[0] <= k:
                rp = TV.retrieval_path(entries, TV.match_ids(m)[-1], found[2].run)
        fig = TV.shared_buffer_figure(entries, TV.stack_order(t.graph, entries), t.seq_of, added, pointed, rp)
        st.plotly_chart(fig, width="stretch", key="dbg_buffer", config={"displaylogo": False})
        st.caption("SASE+ §5.1: one stack per state; each entry points to the previous event of every run "
                   "that selected it, labelled with the run's version (Dewey number). A match is read back "
                   "from its last entry by following, at each entry, the pointer whose label is a prefix of "
                   "its version.")
    elif kind == "lazy" and not planner.ENGINES[t.engine].trace_buffers:
        st.markdown(f"##### Partial matches ({(step.buffer or {}).get('partial', step.runs_total)})")
        st.caption(planner.ENGINES[t.engine].trace_note)
    elif kind == "lazy":
        order = [c.var for c in t.pattern.positive]
        types = {c.var: c.type for c in t.pattern.positive}
        st.markdown("##### Buffers and partial matches")
        src = step if step.step != "close" else next((s for s in reversed(t.steps) if s.step != "close"), step)
        st.plotly_chart(TV.lazy_buffer_figure(src, order, types), width="stretch", key="dbg_lazybuf",
                        config={"displaylogo": False})
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


def explanation(t: Traced, m: dict[str, Any], path: list[Any]) -> None:
    idx = t.number(m)
    st.markdown(f"**Why match #{idx} fired** · {escape.markdown(TV.match_text(m))}")
    if path:
        st.caption("Its run: " + " → ".join(escape.markdown(
            f"{a.kind} e{a.event} ({a.state}{' → ' + a.to if a.to and a.to != a.state else ''})") for a in path))
    ex = _explain()
    if ex is None:
        st.info("The explanation engine (engine/explain) is not available; the run's path is drawn on the "
                "automaton and the buffer.", icon=":material/info:")
        return
    if t.interval:
        st.caption("`cep explain` explains matches over point timestamps; this data has uncertainty intervals "
                   "(the run's moves are listed above, the matches' confidence in the table).")
        return
    key = ("match", idx)
    if key not in t.explained:
        if _ss().get("dbg_playing"):
            st.caption("Pause to read why it fired.")
            return
        try:
            res = ex.explain_match(t.pattern, t.events, idx, engine=t.requested, match_windows=t.match_windows)
            text = ex.format_text(res)
            if res.get("match") != m["match"]:
                text = (f"(note: cep explain numbers this match differently: its #{idx} is "
                        f"{res.get('match')})\n") + text
            t.explained[key] = (res, text)
        except Exception as err:  # noqa: BLE001 - a message, never a traceback
            t.explained[key] = (None, f"could not explain: {type(err).__name__}: {err}")
    _res, text = t.explained[key]
    st.code(text, language=None, wrap_lines=True)


# --------------------------------------------------------------------------- why not

def _event_label(t: Traced) -> Any:
    by_id = {e.id: e for e in t.events}

    def fmt(i: Any) -> str:
        e = by_id.get(i)
        if e is None:
            return str(i)
        return f"{i} · {e.type} @ {e.ts:g}" if isinstance(e.ts, (int, float)) else f"{i} · {e.type}"
    return fmt


def _show_match(no: int) -> None:
    """Jump to the step that completed match ``no`` and highlight it."""
    ss = _ss()
    t: Traced = ss["dbg_traced"]
    m = t.by_number.get(no)
    if m is None:
        return
    found = t.emitted_by.get(TV.match_key(m))
    if found is not None:
        ss["dbg_step"] = found[0]
    ss["dbg_match_no"] = no
    ss["dbg_playing"] = False


def _picked_on_timeline() -> None:
    """Events selected on the why-not timeline join the picked events (in stream order)."""
    ss = _ss()
    t: Traced = ss["dbg_traced"]
    sel = ss.get("dbg_whynot_pick")
    try:
        points = list(sel.selection.points) if sel is not None and sel.selection else []
    except AttributeError:
        points = []
    picked = [p.get("customdata") for p in points if p.get("customdata") is not None]
    known = set(t.seq_of)
    ids = [i if i in known else next((k for k in known if str(k) == str(i)), None) for i in picked]
    merged = set(ss.get("dbg_whynot_ids") or []) | {i for i in ids if i is not None}
    ss["dbg_whynot_ids"] = sorted(merged, key=lambda i: t.seq_of.get(i, 0))[:64]
    ss["dbg_whynot_spec"] = ""


def why_not(t: Traced) -> None:
    ss = _ss()
    st.markdown("##### Why not?")
    st.caption("Pick events you expected to match (or write a spec such as `1,2,6` or `a=1,2;b=6` to fix the "
               "variables): the answer says whether they form a match `cep run` reports and, if not, the "
               "furthest partial run that agrees with them and the first condition that fails.")
    if t.interval:
        st.info("`cep explain --why-not` answers for point timestamps; this data has uncertainty intervals, so "
                "the question is not asked here.", icon=":material/info:")
        return
    ids = [e.id for e in t.events]
    with st.expander("Pick events on a timeline", expanded=False):
        st.caption("Click an event, or drag a box (or lasso) around several: they are added to the list below.")
        st.plotly_chart(TV.cursor_timeline_figure(t.steps, len(t.steps) - 1, cursor=False, height=220),
                        width="stretch", key="dbg_whynot_pick", on_select=_picked_on_timeline,
                        selection_mode=("points", "box", "lasso"), config={"displaylogo": False})
    c1, c2, c3 = st.columns([6, 3, 1], vertical_alignment="bottom")
    picked = c1.multiselect("Events", ids, key="dbg_whynot_ids", format_func=_event_label(t),
                            max_selections=64)
    spec_text = c2.text_input("or a spec", key="dbg_whynot_spec", placeholder="a=1,2;b=6")
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
    spec, res, text = got
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
            if isinstance(no, int) and no in t.by_number:
                st.button(f"Show match #{no}", key="dbg_whynot_show", on_click=_show_match, args=(no,))
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
                if no in t.by_number:
                    st.button(f"Show match #{no}", key="dbg_whynot_near", on_click=_show_match, args=(no,))
    with right:
        cand = res.get("candidate") or res.get("match") or {}
        reason = res.get("reason") or {}
        fig = TV.cursor_timeline_figure(t.steps, len(t.steps) - 1, {"match": cand} if cand else None,
                                        marked=reason.get("event"), marked_label=reason.get("kind"),
                                        match_label="your events" if verdict != "match" else "the match",
                                        cursor=False, height=240)
        st.plotly_chart(fig, width="stretch", key="dbg_whynot_timeline", config={"displaylogo": False})
    with st.expander("Full answer (as `cep explain --why-not`)", expanded=False):
        st.code(text, language=None, wrap_lines=True)


# --------------------------------------------------------------------------- the page

def render() -> None:
    ss = _ss()
    st.title("Debug")
    st.caption("Step through a run event by event: which runs are alive and where, what each did on this "
               "event and why (every predicate with its values), the buffer, and the matches — then ask why "
               "a match fired, or why the events you expected did not match.")
    p = state.pattern()
    c1, c2, c3 = st.columns([4, 4, 3], gap="medium")
    with c1:
        st.markdown("##### Pattern")
        pattern_picker()
    with c2:
        st.markdown("##### Data")
        got = data_picker()
    if got is None:
        st.stop()
    data_key, loaded = got
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
                               help="As `cep run --match-windows`: Algorithm 1 of the match-windows paper (filter, "
                                    "partition, necessary conditions) around the engine. auto, the default of "
                                    "`cep run`, is on for event-set patterns where it is sound, so the matches "
                                    "are numbered as `cep run` prints them.")
        total = len(loaded.events)
        cap = int(st.number_input("Events to trace (a prefix)", 1, MAX_EVENTS, min(DEFAULT_EVENTS, MAX_EVENTS),
                                  step=100, key="dbg_cap",
                                  help=f"The trace keeps every step in memory; at most {MAX_EVENTS:,} events."))
        if refused:
            with st.expander(f"{len(refused)} engine(s) cannot run this pattern"):
                for n, w in refused.items():
                    st.caption(f"**{escape.markdown(n)}**: {escape.message(w)}")
    if names == ["auto"]:
        st.error("No engine can run this pattern on a trace.", icon=":material/error:")
        st.stop()
    try:
        with st.spinner("Tracing the run…"):
            t = compute(p, data_key, loaded, engine, cap, windows)
    except Exception as err:  # noqa: BLE001 - StateExplosion, EngineUnsupported ... as a message
        st.error(f"The trace stopped: {escape.message(err)}", icon=":material/error:")
        st.stop()
    nm = len(t.matches)
    n_rows = sum(len(TV.step_rows(s)) for s in t.steps)
    msg = (f"**{len(t.events):,}** events traced with **{ENGINE_TITLES.get(t.engine, t.engine)}**"
           + (f" around {ENGINE_TITLES.get(t.inner, t.inner)} (match windows {t.match_windows})"
              if t.inner and t.engine != engine else "")
           + (" (chosen by auto)" if engine == "auto" else "")
           + (f" · **{n_rows}** aggregate row{'s' if n_rows != 1 else ''}" if n_rows else
              f" · **{nm}** match{'es' if nm != 1 else ''}")
           + f" · {len(t.steps)} steps (the last one is the end of stream)")
    if total > len(t.events):
        st.warning(msg + f" · only the first {len(t.events):,} of {total:,} events are traced "
                   f"(the Debug page traces a prefix of at most {MAX_EVENTS:,}).", icon=":material/content_cut:")
    else:
        st.info(msg, icon=":material/timeline:")
    if t.engine in planner.ENGINES and planner.ENGINES[t.engine].trace_note and not planner.ENGINES[t.engine].incremental:
        st.caption(planner.ENGINES[t.engine].trace_note)

    every = STEPPER.play_bar("Play keeps to the chosen speed and redraws only the views below; Back, Forward and "
                             "the match buttons stop it.")
    frag = st.fragment(run_every=every)(step_views)
    frag(t)
    st.divider()
    why_not(t)
    with st.expander("Events traced"):
        st.dataframe(TV.events_table(t.steps).head(1000), hide_index=True, width="stretch")
    st.download_button("Download the trace (JSON Lines, as `cep trace`)", t.jsonl(),
                       file_name="trace.jsonl", mime="application/x-ndjson", key="dbg_download")
