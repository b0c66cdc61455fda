"""The Debug page's side-by-side stepping: one stream run twice — two selection strategies
of the page's pattern, or two engines — stepped together with one set of step controls.

Each side is a pre-pass like the page's own (``engine.checkpoints.CheckpointedRun`` in an
``app.debug_run.DebugRun``), run in a guarded job; ``engine.step_compare`` finds the first
step where the two differ (the matches emitted, over the whole run; the live runs or
partial matches, over the first ``STEP_LIMIT`` steps, which it traces). The view shows a
shared timeline (live runs per step of A and B, the diverging step marked), the step
controls with "Jump to where they diverge", and per side the live runs, the step's actions
and the matches so far; at the diverging step a banner says what differs.

The choice and the step are kept in the URL (``sbs``: ``strategy:A:B`` or ``engine:A:B``;
``sbs_event``: the step, counted from 1), next to the page's own keys. Session keys
``dbg_sbs_*``.
"""
from __future__ import annotations

import contextlib

import time
from dataclasses import dataclass
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import figures, jobs
from app.debug_run import DebugRun
from app.debug_views import ENGINE_TITLES
from app.step_controls import Jump, Stepper
from engine.model import Strategy
from engine.step_compare import STEP_LIMIT, Comparison, compare
from visualizers import escape
from visualizers import trace_view as TV

__all__ = ["side_by_side", "Pair", "build_pair", "STEPPER", "MODES", "STRATEGIES", "restore_from_url",
           "url_value", "request"]

MODES = {"strategy": "two strategies of this pattern", "engine": "two engines"}
STRATEGIES = [s.value for s in Strategy]
ACTIONS_SHOWN = 200      # actions listed per side (the caption counts the rest)
MATCHES_SHOWN = 5        # latest matches so far listed per side
HOLDER = "dbg_sbs_pair"

STEPPER = Stepper(prefix="dbg_sbs", holder=HOLDER, one_based=True, slider_label="Event (both sides)",
                  slider_help="Both runs at the same event; the last step is the end of the stream",
                  jumps=(Jump("dbg_sbs_prev_out", "Previous match", -1, "to the previous step where either side "
                                                                       "emitted a match"),
                         Jump("dbg_sbs_next_out", "Next match", 1, "to the next step where either side emitted "
                                                                   "a match")))


def _ss() -> Any:
    return st.session_state


@dataclass
class Pair:
    """Two runs over the page's events and their comparison."""

    sig: tuple
    mode: str
    names: tuple[str, str]     # what each side is ("skip_till_next_match", "NFA^b (SASE+)")
    a: DebugRun
    b: DebugRun
    comparison: Comparison
    seconds: float

    @property
    def total_steps(self) -> int:
        return self.a.total_steps

    def next_output(self, k: int, direction: int) -> int | None:
        """The next / previous step where either side emitted a match (the stepper's jumps)."""
        got = [x for x in (self.a.next_output(k, direction), self.b.next_output(k, direction)) if x is not None]
        if not got:
            return None
        return min(got) if direction > 0 else max(got)

    @property
    def diverge_step(self) -> int | None:
        d = self.comparison.divergence
        return d.step if d is not None else None


def _side(t: DebugRun, mode: str, choice: str, guard: Any) -> DebugRun:
    """One side: the page's pattern with strategy ``choice``, or with engine ``choice``."""
    from engine.checkpoints import CheckpointedRun
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    if mode == "strategy":
        pattern = t.pattern.model_copy(update={"strategy": Strategy(choice)}).check()
        engine = t.requested
    else:
        pattern, engine = t.pattern, choice
    run_choice = choose_run(pattern, engine, t.match_windows, rates=type_rates(engine, t.events))
    run = CheckpointedRun(run_choice, pattern, t.events, guard=guard)
    return DebugRun(sig=(t.sig, mode, choice), run=run, events=t.events, engine=run_choice.engine,
                    requested=engine, seconds=run.seconds, pattern=pattern, total_events=t.total_events,
                    time_is_datetime=t.time_is_datetime, seconds_to_ts=t.seconds_to_ts,
                    match_windows=t.match_windows, inner=run_choice.inner)


def build_pair(t: DebugRun, mode: str, a: str, b: str, guard: Any = None) -> Pair:
    """Both sides and their comparison (no streamlit: the job's work)."""
    t0 = time.perf_counter()
    side_a, side_b = _side(t, mode, a, guard), _side(t, mode, b, guard)
    comparison = compare(side_a.run, side_b.run, STEP_LIMIT)
    names = (a, b) if mode == "strategy" else (ENGINE_TITLES.get(side_a.engine, side_a.engine),
                                                ENGINE_TITLES.get(side_b.engine, side_b.engine))
    return Pair(sig=(t.sig, mode, a, b), mode=mode, names=names, a=side_a, b=side_b, comparison=comparison,
                seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------- URL

def url_value(mode: str, a: str, b: str) -> str:
    return f"{mode}:{a}:{b}"


def restore_from_url(engines: list[str]) -> None:
    """Once per session: the side-by-side choice and step a link names (``sbs``, ``sbs_event``)
    into session state; the pair is then computed on the first render."""
    ss = _ss()
    if ss.get("dbg_sbs_url_done"):
        return
    ss["dbg_sbs_url_done"] = True
    parts = str(st.query_params.get("sbs") or "").split(":")
    if len(parts) != 3 or parts[0] not in MODES:
        return
    mode, a, b = parts
    allowed = STRATEGIES if mode == "strategy" else engines
    if a not in allowed or b not in allowed:
        ss["dbg_sbs_message"] = "the side-by-side choice in the link names a strategy or engine this page does not offer"
        return
    ss["dbg_sbs_mode"] = mode
    ss[f"dbg_sbs_{mode}_a"], ss[f"dbg_sbs_{mode}_b"] = a, b
    ss["dbg_sbs_go"] = True
    try:
        ss["dbg_sbs_url_step"] = max(0, int(str(st.query_params.get("sbs_event") or "1")) - 1)
    except ValueError:
        pass


def request(mode: str, a: str, b: str, step: int | None = None) -> None:
    """Open the side-by-side view on the next render of the Debug page with ``a`` and ``b``
    (strategies or engines, as ``mode`` says) at ``step`` (0-based): for a button elsewhere
    that opens Debug (set the page's pattern and data first)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    ss = _ss()
    ss["dbg_sbs_url_done"] = True   # a link's choice does not override this one
    ss["dbg_sbs_mode"] = mode
    ss[f"dbg_sbs_{mode}_a"], ss[f"dbg_sbs_{mode}_b"] = a, b
    ss["dbg_sbs_go"] = True
    if step is not None:
        ss["dbg_sbs_url_step"] = max(0, int(step))


def open_debug(params: dict[str, str], mode: str, a: str, b: str) -> None:
    """Switch to the Debug page on ``params`` (its URL: pattern, data, engine, event) with ``a``
    and ``b`` (two strategies or two engines, as ``mode`` says) stepped side by side."""
    from app import debug_data

    request(mode, a, b)
    debug_data.open_debug({**params, "sbs": url_value(mode, a, b)}, "step through them side by side")


def _write_url(pair: Pair | None, k: int | None) -> None:
    q = st.query_params
    if pair is None:
        for key in ("sbs", "sbs_event"):
            if key in q:
                del q[key]
        return
    value = url_value(pair.mode, *pair.sig[2:4])
    if q.get("sbs") != value:
        q["sbs"] = value
    if k is not None and q.get("sbs_event") != str(k + 1):
        q["sbs_event"] = str(k + 1)


# --------------------------------------------------------------------------- the view

def _choices(t: DebugRun, engines: list[str]) -> tuple[str, str, str]:
    ss = _ss()
    mode = st.radio("Compare", list(MODES), key="dbg_sbs_mode", format_func=MODES.get, horizontal=True)
    c1, c2 = st.columns(2, gap="medium")
    if mode == "strategy":
        here = t.pattern.strategy.value
        ss.setdefault("dbg_sbs_strategy_a", here)
        ss.setdefault("dbg_sbs_strategy_b", Strategy.ANY.value if here != Strategy.ANY.value else Strategy.NEXT.value)
        a = c1.selectbox("Strategy A", STRATEGIES, key="dbg_sbs_strategy_a")
        b = c2.selectbox("Strategy B", STRATEGIES, key="dbg_sbs_strategy_b")
    else:
        ss.setdefault("dbg_sbs_engine_a", t.requested if t.requested in engines else engines[0])
        ss.setdefault("dbg_sbs_engine_b", next((n for n in engines if n not in ("auto", ss["dbg_sbs_engine_a"])),
                                               engines[0]))
        for key in ("dbg_sbs_engine_a", "dbg_sbs_engine_b"):
            if ss.get(key) not in engines:
                ss[key] = engines[0]
        a = c1.selectbox("Engine A", engines, key="dbg_sbs_engine_a", format_func=lambda n: ENGINE_TITLES.get(n, n))
        b = c2.selectbox("Engine B", engines, key="dbg_sbs_engine_b", format_func=lambda n: ENGINE_TITLES.get(n, n))
    return mode, a, b


def _compute(t: DebugRun, mode: str, a: str, b: str) -> None:
    ss = _ss()
    try:
        pair = jobs.run_and_wait(lambda guard: build_pair(t, mode, a, b, guard), label="side by side")
    except Exception as err:  # noqa: BLE001 - PatternError, EngineUnsupported, RunStopped ...: a message
        ss.pop(HOLDER, None)
        ss["dbg_sbs_message"] = f"The two runs could not be made: {err or type(err).__name__}"
        return
    ss[HOLDER] = pair
    ss.pop("dbg_sbs_message", None)
    want = ss.pop("dbg_sbs_url_step", None)
    ss[STEPPER.step_key] = max(0, min(int(want), pair.total_steps - 1)) if want is not None else 0
    ss[STEPPER.playing_key] = False


def side_by_side(t: DebugRun, engines: list[str], framed: bool = True) -> None:
    """The collapsed view under the page's steps: the choice, then both runs stepped together."""
    ss = _ss()
    restore_from_url(engines)
    pair: Pair | None = ss.get(HOLDER)
    if pair is not None and pair.sig[0] != t.sig:
        pair = None  # the page's run changed: the pair is stale
        ss.pop(HOLDER, None)
    title = "Step two runs side by side (two strategies, or two engines)"
    if pair is not None:
        d = pair.comparison.divergence
        title += (" — they differ first at " + escape.markdown(pair.a.label(d.step)) if d is not None
                  else " — they never differ")
    frame = (st.expander(title, expanded=pair is not None, icon=":material/splitscreen:") if framed
             else contextlib.nullcontext())
    with frame:
        if not framed:
            st.caption(title)
        mode, a, b = _choices(t, engines)
        go_now = st.button("Step side by side", key="dbg_sbs_run", type="primary", icon=":material/splitscreen:")
        if go_now or ss.pop("dbg_sbs_go", False):
            with st.spinner("Running both sides…"):
                _compute(t, mode, a, b)
            pair = ss.get(HOLDER)
        if ss.get("dbg_sbs_message"):
            st.warning(escape.message(ss["dbg_sbs_message"]), icon=":material/warning:")
        if pair is None:
            st.caption("Both sides run this page's pattern on this page's events; the step controls move both, and "
                       "the first step where they differ (a match one emits and the other does not, or a different "
                       "number of live runs) is marked.")
            _write_url(None, None)
            return
        if pair.sig[1:] != (mode, a, b):
            st.caption("The choice changed: press Step side by side to run it.")
        st.fragment(_stepped)(pair)


def _stepped(pair: Pair) -> None:
    """The controls, the shared timeline and the two sides (a fragment: stepping reruns only it)."""
    c = pair.comparison
    d = c.divergence
    name_a, name_b = (escape.markdown(n) for n in pair.names)
    k, beside = STEPPER.controls()
    jump, line = beside.columns([1, 1], vertical_alignment="center")
    jump.button("Jump to where they diverge", key="dbg_sbs_jump", on_click=_jump, args=(pair.diverge_step,),
                disabled=d is None, icon=":material/call_split:", width="stretch",
                help="to the first step where the two runs differ")
    line.markdown(f"**{escape.markdown(pair.a.label(k))}**")
    if d is None:
        st.info(f"A ({name_a}) and B ({name_b}) never differ"
                + (" in matches, nor in live runs" if c.complete
                   else f" in matches; live runs compared over the first {c.traced:,} steps") + ".",
                icon=":material/check:")
    elif k == d.step:
        st.warning(f"**They diverge here**, at {escape.markdown(pair.a.label(k))}: "
                   f"{escape.markdown(d.text('A', 'B'))}.", icon=":material/call_split:")
    else:
        st.caption(f"They first differ at {escape.markdown(pair.a.label(d.step))} "
                   f"({'before' if d.step < k else 'after'} this step).")
    figures.show(_timeline(pair, k), f"Live runs per event of A ({pair.names[0]}) and B ({pair.names[1]})"
                 + (f"; they first differ at {pair.a.label(d.step)}" if d is not None else "; they never differ")
                 + ".", "dbg_sbs_timeline",
                 f"side-by-side-{pair.sig[2]}-vs-{pair.sig[3]}")
    if not c.complete:
        st.caption(f"Live runs are traced for the first {c.traced:,} of {c.total_steps:,} steps (tracing more would "
                   "take too long); the matches are compared over the whole run.")
    left, right = st.columns(2, gap="medium")
    for col, side, name, other in ((left, pair.a, pair.names[0], pair.b), (right, pair.b, pair.names[1], pair.a)):
        with col:
            _side_view(side, "A" if side is pair.a else "B", name, other, k, d is not None and d.step == k)
    _write_url(pair, k)


def _jump(step: int | None) -> None:
    if step is not None:
        _ss()[STEPPER.step_key] = step
        _ss()[STEPPER.playing_key] = False


def _side_view(t: DebugRun, letter: str, name: str, other: DebugRun, k: int, here: bool) -> None:
    step = t.step(k)
    other_step = other.step(k)
    done = t.at(k)
    so_far = t.count_so_far(k)
    st.markdown(f"##### {letter}: {escape.markdown(name)}")
    differs_runs = here and step.runs_total != other_step.runs_total
    differs_matches = here and len(done) != len(other.at(k))
    m1, m2, m3 = st.columns(3)
    m1.metric("live runs" + (" (differs)" if differs_runs else ""), f"{step.runs_total:,}",
              help="runs (partial matches) alive after this step")
    m2.metric("matches here" + (" (differs)" if differs_matches else ""), f"{len(done):,}")
    m3.metric("matches so far", f"{so_far:,}")
    acts = step.actions
    rows = [{"action": x.kind, "run": x.run, "state": x.state, "event": None if x.event is None else str(x.event),
             "why / detail": x.reason or ""} for x in acts[:ACTIONS_SHOWN]]
    st.caption(f"{len(acts):,} action(s) on this step" + (f" (the first {ACTIONS_SHOWN} listed)"
                                                          if len(acts) > ACTIONS_SHOWN else ""))
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(38 + 35 * len(rows), 280),
                     key=f"dbg_sbs_actions_{letter}")
    latest = t.so_far(k)[-MATCHES_SHOWN:]
    if latest:
        st.caption("Latest matches so far: " + "; ".join(f"#{mk.number} {escape.markdown(TV.match_text(mk.match))}"
                                                         for mk in latest))


def _timeline(pair: Pair, k: int) -> Any:
    """Live runs per event of A and B (the compared steps), the diverging step and this step."""
    c = pair.comparison
    events = len(pair.a.events)
    a_steps = [x for x in c.a if x.step < events]   # the close step keeps no runs: left out
    b_steps = [x for x in c.b if x.step < events]
    xs = [x.step + 1 for x in a_steps]
    fig = go.Figure()
    for side, name, dash in ((a_steps, pair.names[0], "solid"), (b_steps, pair.names[1], "dot")):
        fig.add_scatter(x=xs, y=[x.runs for x in side], mode="lines+markers" if len(xs) <= 200 else "lines",
                        name=escape.plotly(f"{'A' if side is a_steps else 'B'}: {name}"), line={"dash": dash, "shape": "hv"},
                        customdata=[x.so_far for x in side],
                        hovertemplate="event #%{x}: %{y} live run(s), %{customdata} match(es) so far<extra></extra>")
    d = c.divergence
    if d is not None:
        fig.add_vline(x=d.step + 1, line={"color": "#d62728", "width": 2}, annotation_text="they diverge",
                      annotation_position="top right")
    fig.add_vline(x=k + 1, line={"color": "#888", "dash": "dash", "width": 1})
    fig.update_layout(height=280, margin={"l": 50, "r": 10, "t": 50, "b": 50},
                      xaxis_title="event #" + (f" ({events + 1}: the end of the stream)" if d is not None and
                                               d.step >= events else ""), yaxis_title="live runs",
                      legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"})
    return fig
