"""The Uncertain time page (imprecise-timestamps paper; docs/papers.md, "Imprecise timestamps").

Events with uncertainty intervals, matched under the possible-worlds semantics by the
uncertain engines (``engine/engines/uncertain``). The run is traced once (the debugger's step trace,
``engine.trace.record``) and stepped through:

* the intervals as bars per lane with pmf shading, the frontier ``F`` and the window
  bracket moving with the step;
* the results so far: range bars and confidence gauges; an oracle agreement badge (the
  possible-worlds oracle, exact fractions);
* for a chosen signature, why it has its confidence: the point matches' probability over
  ``(t_1, t_last)`` (skip_till_next_match: with the spoiler factors and each spoiler's
  chance to fall in between), the valid intervals (three passes and the fixpoint), NELT
  after each arrival, and a possible-world explorer over its events and spoilers;
* the engine's runs after the step with their valid intervals, the pruned ones struck
  through with the reason, and the step's actions.

Session keys are prefixed ``unc_``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pandas as pd
import streamlit as st

import sample_streams
from app import figures, glossary, jobs, state, ui
from app.step_controls import Jump, Stepper
from engine.dsl import DslError, parse
from engine.model import Pattern, Strategy
from engine.trace import Recorder, Step, record
from engine.engines import planner
from engine.engines.uncertain.examples import EXAMPLES
from engine.events.numbers import short_fraction
from engine.engines.uncertain.query import unsupported_reason
from engine.engines.uncertain.result import exact_text
from visualizers import escape
from visualizers import uncertain_view as UV

ENGINES = {s.name: s.menu_title or s.title for s in planner.SPECS if s.interval}  # auto's first
MODES = ["auto", "any-state", "sorted", "selectivity"]
STRATEGIES = {"as written": None, "skip_till_any_match": Strategy.ANY, "skip_till_next_match": Strategy.NEXT}
MAX_EVENTS = 2000
ORACLE_WORLDS = 500_000     # per signature, for the agreement badge
EXPLORER_EVENTS = 8


@dataclass
class Computed:
    sig: tuple
    pattern: Pattern
    events: list[Any]
    steps: list[Step]
    engine: str
    u_max: int
    seconds: float
    results: list[dict[str, Any]]
    oracle: dict[tuple, dict[str, Any]] | None = None
    oracle_note: str = ""
    explained: dict[Any, Any] = field(default_factory=dict)


def _ss() -> Any:
    return st.session_state


def interval_samples() -> list[str]:
    return [n for n in sample_streams.names() if sample_streams.load(n).mapping.get("lower_col")]


# --------------------------------------------------------------------------- source and pattern

def source_picker() -> tuple[str, list[Any], str]:
    """(data key, events, the pattern text the source proposes)."""
    ss = _ss()
    samples = interval_samples()
    kind = st.radio("Data", ["sample", "example"], horizontal=True, key="unc_source",
                    format_func={"sample": "Interval sample", "example": "Paper example (T1–T7)"}.get)
    if kind == "sample":
        name = st.selectbox("Sample", samples, key="unc_sample")
        smp = sample_streams.load(name)
        options = list(smp.presets)
        current = state.sample_name() == name
        if current:
            options = ["(current pattern)", *options]
        if ss.get("unc_preset") not in options:
            ss["unc_preset"] = options[0]
        preset = st.selectbox("Pattern", options, key="unc_preset")
        text = state.text() if preset == "(current pattern)" else smp.presets[preset]
        st.caption(smp.description)
        return f"sample:{name}", sample_streams.events(name), text
    names = list(EXAMPLES)
    name = st.selectbox("Example", names, key="unc_example",
                        format_func=lambda n: f"{n}: {EXAMPLES[n].title}")
    ex = EXAMPLES[name]
    st.caption(ex.note)
    return f"example:{name}", ex.events(), ex.pattern


def pattern_editor(proposed: str) -> Pattern | None:
    ss = _ss()
    if ss.get("unc_text_for") != proposed:
        ss["unc_text"] = proposed.strip()
        ss["unc_text_for"] = proposed
    text = st.text_area("Pattern (DSL)", key="unc_text", height=150)
    st.radio("Strategy", list(STRATEGIES), key="unc_strategy", horizontal=True,
             help="override the pattern's strategy: the two that are defined for events with uncertain times")
    try:
        p = parse(text)
    except DslError as err:
        ui.show_error(str(err), err)
        return None
    s = STRATEGIES[ss.get("unc_strategy", "as written")]
    if s is not None and s != p.strategy:
        p = p.model_copy(update={"strategy": s})
    why = unsupported_reason(p)
    if why:
        st.error(f"Not an uncertain-time pattern: {escape.message(why)}", icon=":material/block:")
        return None
    return p


# --------------------------------------------------------------------------- the run

def _matcher(p: Pattern, engine: str, mode: str, u_max: int, tracer: Any) -> Any:
    """The interval engine as the planner builds it, with the options it declares
    (``EngineSpec.options``: the bound u_max, the evaluation order, the oracle's world cap)."""
    offered = {"u_max": u_max, "mode": mode, "max_worlds": ORACLE_WORLDS}
    options = {k: v for k, v in offered.items() if k in planner.ENGINES[engine].options}
    return planner.make_matcher(p, engine, interval=True, tracer=tracer, **options)


def compute(p: Pattern, data_key: str, events: list[Any], engine: str, mode: str) -> Computed:
    ss = _ss()
    sig = (p.model_dump_json(), data_key, engine, mode)
    got: Computed | None = ss.get("unc_computed")
    if got is not None and got.sig == sig:
        return got
    from engine.engines.uncertain.pmf import derived_u_max

    events = events[:MAX_EVENTS]
    u_max = derived_u_max(events)
    t0 = time.perf_counter()
    steps = jobs.run_and_wait(  # guarded: a run slot, the time and memory limits, cancelled with the session
        lambda guard: list(record(_matcher(p, engine, mode, u_max, Recorder()), jobs.ticking(events, guard),
                                  limit=None)), label="uncertain")
    secs = time.perf_counter() - t0
    results = [m for s in steps for m in s.matches]
    got = Computed(sig=sig, pattern=p, events=events, steps=steps, engine=engine, u_max=u_max, seconds=secs,
                   results=results)
    try:
        from engine.engines.uncertain.oracle import run_uncertain

        ores = jobs.run_and_wait(lambda _guard: run_uncertain(p, events, max_worlds=ORACLE_WORLDS), label="oracle")
        got.oracle = {_key(m.to_json()): m.to_json() for m in ores}
    except (ValueError, jobs.RunStopped) as err:  # UncertainOracleTooLarge, its time or memory limit
        got.oracle_note = str(err)
    ss["unc_computed"] = got
    ss["unc_step"] = 0
    ss.pop("unc_sig_pick", None)
    return got


def _key(m: dict[str, Any]) -> tuple:
    return tuple((v, tuple(map(str, ids))) for v, ids in m["match"].items())


def agreement(c: Computed) -> tuple[bool | None, str]:
    """(agrees?, text) of the engine's final results against the oracle, exactly."""
    if c.oracle is None:
        return None, f"Oracle not run: {c.oracle_note}"
    mine = {_key(m): m for m in c.results}
    bad = []
    for k in set(mine) | set(c.oracle):
        a, b = mine.get(k), c.oracle.get(k)
        if a is None or b is None or a["range"] != b["range"] or a["confidence_exact"] != b["confidence_exact"]:
            bad.append(UV.signature_text(a or b))  # type: ignore[arg-type]
    if bad:
        return False, f"✗ {len(bad)} signature(s) differ from the possible-worlds oracle: " + "; ".join(bad[:5])
    return True, (f"✓ agrees with the possible-worlds oracle on all {len(mine)} signatures "
                  "(ranges and exact confidences)")


# --------------------------------------------------------------------------- steps

STEPPER = Stepper("unc", "unc_computed", (
    Jump("unc_next", "Next result", 1, "on to the next step that emits a signature"),
), slider_help="0 is the first event's arrival; the last step is the end of the stream (everything pending is final)")


def step_label(c: Computed, j: int) -> str:
    s = c.steps[j]
    if s.step == "close":
        return "end of stream"
    return f"step {j}: {s.event['id']} ({s.event['type']}) arrives"


def event_dicts(c: Computed) -> list[dict[str, Any]]:
    from engine.engines.uncertain.pmf import IEvent

    out = []
    for k, e in enumerate(c.events):
        x = IEvent.of(e, k)
        out.append({"id": e.id, "type": e.type, "lower": x.lo, "upper": x.hi,
                    "weights": list(x.weights) if x.weights else None})
    return out


def step_views(c: Computed) -> None:
    k, b4 = STEPPER.controls()
    step = c.steps[k]
    so_far = UV.results_upto(c.steps, k)
    buf = step.buffer or {}
    frontier = buf.get("frontier")
    now = (buf.get("now") or [None])[0]
    b4.markdown(f"**{escape.markdown(step_label(c, k))}** · frontier {frontier if frontier is not None else '–'} · "
                f"{step.runs_total} live run(s) · {len(so_far)} signature(s) final so far"
                + (f" · :orange[**{len(step.matches)} emitted here**]" if step.matches else ""))

    sel = selected_result(c)
    w = c.pattern.window
    W = None if w is None else int(-(-w.size // 1))
    window = None
    if W is not None:
        if sel is not None:
            window = (sel["range"][0], sel["range"][0] + W - 1)
        elif now is not None:
            window = (now - W + 1, now)
    arrived = len(c.events) if step.step == "close" else k + 1
    ids = [i for ids in (sel or {"match": {}})["match"].values() for i in ids]
    figures.show(UV.interval_timeline_figure(event_dicts(c), arrived, frontier, now, window, ids),
                 f"Events with uncertain timestamps after {arrived} arrival{'s' if arrived != 1 else ''}: each square "
                 "an instant an event may have occurred at, shaded by its probability; red dashed: the frontier",
                 key="unc_timeline", file_name=f"uncertain-timeline-{arrived}-events")
    st.caption("Each square is an instant an event may have occurred at, shaded by its probability. "
               "Faded: events still to come. Red dashed: the frontier, the latest arrival's earliest instant "
               "minus the largest uncertainty: every event still to come starts there or later, so a result "
               "whose events all end before it is final. Orange: the window of the chosen result, or reaching "
               "back from now.")

    left, right = st.columns([3, 2], gap="medium")
    with left:
        st.markdown(f"##### Results so far ({len(so_far)})")
        df = UV.results_frame(so_far, lambda j: step_label(c, j))
        if len(df):
            st.dataframe(df, hide_index=True, width="stretch", key="unc_results",
                         column_config={"confidence": st.column_config.ProgressColumn(
                             "confidence", min_value=0.0, max_value=1.0, format="%.4f"),
                             "from": None, "to": None})
            figures.show(UV.range_bars_figure([m for _j, m in so_far], UV.signature_text(sel) if sel else None),
                         f"The {len(so_far)} result{'s' if len(so_far) != 1 else ''} final so far: each one's range "
                         "of possible times, with its confidence", key="unc_ranges",
                         file_name=f"uncertain-results-{len(so_far)}")
        else:
            st.caption("No result is final yet at this step.")
    with right:
        st.markdown(f"##### Runs after this step ({step.runs_total})")
        runs = UV.runs_frame(step)
        if len(runs):
            st.dataframe(UV.style_pruned(runs), hide_index=True, width="stretch", key="unc_runs",
                         height=min(38 + 35 * len(runs), 360), column_config={"pruned": None})
            n_pruned = int(runs["pruned"].sum())
            if n_pruned:
                st.caption(f"{n_pruned} run(s) dropped on this step (struck through): the reason says which rule: "
                           "the window can no longer close (TTL), an earlier component can no longer be filled "
                           "(gap), or no event still to come can be next (NELT, when skipping to the next match).")
        else:
            st.caption("No live runs." if step.step != "close" else "End of stream: every run is settled.")
        with st.expander("This step's actions"):
            from visualizers import trace_view as TV

            acts = TV.actions_frame(step)
            if len(acts):
                st.dataframe(acts, hide_index=True, width="stretch", key="unc_actions")
            else:
                st.caption("The engine did nothing on this event.")


# --------------------------------------------------------------------------- the explainer

def selected_result(c: Computed) -> dict[str, Any] | None:
    if not c.results:
        return None
    names = [UV.signature_text(m) for m in c.results]
    pick = _ss().get("unc_sig_pick")
    return c.results[names.index(pick)] if pick in names else c.results[0]


def explainer(c: Computed) -> None:
    ss = _ss()
    st.markdown("##### Why this confidence?")
    if not c.results:
        st.caption("The run has no result to explain.")
        return
    names = [UV.signature_text(m) for m in c.results]
    if ss.get("unc_sig_pick") not in names:
        ss["unc_sig_pick"] = names[0]
    st.selectbox("Signature", names, key="unc_sig_pick")
    m = selected_result(c)
    assert m is not None
    ids = [ids[0] for ids in m["match"].values()]
    key = tuple(map(str, ids))
    if key not in c.explained:
        from engine.engines.uncertain.explain import explain_signature

        c.explained[key] = explain_signature(c.pattern, c.events, ids)
    ex = c.explained[key]
    lo, hi = m["range"]
    st.markdown(f"**{escape.markdown(names[names.index(UV.signature_text(m))])}**: range "
                f"**{escape.markdown(f'[{lo}, {hi}]')}**, confidence "
                f"**{escape.markdown(m['confidence_exact'])}** ≈ {m['confidence']:.4f}")
    tabs = st.tabs(["Confidence", "Valid intervals", "Latest next event", "Possible worlds"])
    with tabs[0]:
        confidence_tab(ex, m)
    with tabs[1]:
        intervals_tab(ex)
    with tabs[2]:
        nelt_tab(c, ex, ids)
    with tabs[3]:
        worlds_tab(c, ex, ids)


def confidence_tab(ex: Any, m: dict[str, Any]) -> None:
    if ex.truncated:
        st.info("Too many point matches to draw (the engine's value stands).", icon=":material/info:")
        return
    total = ex.confidence
    same = exact_text(total) == m["confidence_exact"]
    st.markdown(f"The result is a match in a world when its events fall at instants t_1 < … < t_last, "
                f"in order, with t_last − t_1 shorter than the window. Each cell is the probability of the worlds whose "
                f"first and last instants are (t_1, t_last); the cells sum to **{short_fraction(total)}** "
                + ("✓ (the engine's confidence)" if same else f"(the engine says {escape.markdown(m['confidence_exact'])})")
                + f"; {ex.point_matches} point matches.")
    if ex.next:
        c1, c2 = st.columns(2)
        figures.show(UV.confidence_heatmap(ex.cells_any, "as skip_till_any_match: Eq. 1"),
                     "Probability of the worlds by first and last instant, counting every combination of the "
                     "events", key="unc_heat_any", file_name="uncertain-confidence-any-combination", where=c1)
        figures.show(UV.confidence_heatmap(ex.cells, "skip_till_next_match: with the events in between"),
                     "Probability of the worlds by first and last instant, when no other event may fall in between",
                     key="unc_heat", file_name="uncertain-confidence-next-match", where=c2)
        st.markdown(f"When skipping to the next match, a world counts only if no other event that could take a "
                    f"component lies strictly between its neighbours: {short_fraction(ex.confidence_any)} shrinks to {short_fraction(total)}.")
        if ex.spoilers:
            st.dataframe(pd.DataFrame([{**s, "interval": f"[{s['interval'][0]}, {s['interval'][1]}]",
                                        "p_between": f"{s['p_between']} ≈ {float(s['p_between']):.3f}"}
                                       for s in ex.spoilers]),
                         hide_index=True, width="stretch", key="unc_spoilers",
                         column_config={"p_between": "P(in between)"})
        else:
            st.caption("No other event can fall in between: the confidence is the same as with every combination.")
    else:
        figures.show(UV.confidence_heatmap(ex.cells), "Probability of the worlds by first and last instant: the "
                     "cells sum to the result's confidence", key="unc_heat", file_name="uncertain-confidence")


def intervals_tab(ex: Any) -> None:
    rows = []
    tp = {(s["what"], s["j"]): s["value"] for s in ex.three_pass}
    for j, v in enumerate(ex.vars):
        lo, hi = ex.intervals[j]
        row = {"component": v, "event": ex.ids[j], "interval": f"[{lo}, {hi}]",
               "earliest (pass 1)": tp.get(("vlb", j)), "latest (pass 2)": tp.get(("rub", j)),
               "latest in the window (pass 3)": tp.get(("vub", j), tp.get(("rub", j)))}
        if ex.bounds is not None:
            row["fixpoint"] = f"[{ex.bounds[0][j]}, {ex.bounds[1][j]}]"
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="unc_valid")
    st.caption("Three passes narrow each event's interval to the instants where it can still be part of this "
               "result: forwards, each event must start after the one before it; backwards, each must end before "
               "the one after it; then the window. Three passes are not always enough, so the engines repeat "
               "them until nothing changes (the fixpoint column): its first start and last end are the "
               "result's exact range.")
    glossary.in_the_papers("The three passes are §4.1 of the imprecise-timestamps paper (valid lower bounds, "
                           "revised upper bounds, then T_m = rub_1 + W − 1); the fixpoint is the studio's fix, "
                           "since the passes are not tight.")


def nelt_tab(c: Computed, ex: Any, ids: list[Any]) -> None:
    if not ex.next:
        st.caption("The latest time of the next event matters only when skipping to the next match: pick "
                   "skip_till_next_match.")
        return
    from engine.engines.uncertain.explain import nelt_history

    ell = len(ids)
    i = st.radio("Pair", list(range(ell - 1)), horizontal=True, key="unc_nelt_pair",
                 format_func=lambda i: f"{ex.vars[i]} → {ex.vars[i + 1]}")
    hist = nelt_history(c.pattern, c.events, ids, int(i))
    k = min(int(_ss().get("unc_step", 0)), len(hist) - 1)
    value = hist[k]
    ev = {str(e["id"]): e for e in event_dicts(c)}
    member = ev[str(ids[i])]
    nxt = c.pattern.positive[i + 1]
    cands = [e for e in event_dicts(c)[:k + 1] if nxt.matches_type(e["type"]) and str(e["id"]) not in map(str, ids[:i + 1])]
    lo = min([member["lower"], *(e["lower"] for e in cands)])
    hi = max([member["upper"], *(e["upper"] for e in cands)])
    shown = "not yet (the events before it have not all arrived)" if value is None else (
        "∞ (no candidate starts after it yet)" if value == float("inf") else f"{value:g}")
    st.markdown(f"Latest next time after {escape.markdown(f'{ex.vars[i]}={ids[i]}')}, at this step: "
                f"**{escape.markdown(shown)}**. "
                f"The candidates of {escape.code(ex.vars[i + 1])} "
                f"that start after {escape.markdown(ids[i])} ends bound it: no instant after it can ever be next (one of them "
                "always lies in between). It only shrinks as events arrive; move the step slider to watch it.")
    figures.show(UV.nelt_figure(member, cands, value if isinstance(value, (int, float)) else None, lo, hi),
                 f"The latest next time after component {i + 1} of the result, with the candidates of the next "
                 "component that bound it", key="unc_nelt", file_name=f"uncertain-latest-next-time-{i + 1}")


def worlds_tab(c: Computed, ex: Any, ids: list[Any]) -> None:
    from engine.engines.uncertain.explain import world_view
    from engine.engines.uncertain.oracle import world_count
    from engine.engines.uncertain.query import make_ievents

    members = [str(i) for i in ids] + [str(s["id"]) for s in ex.spoilers]
    chosen = []
    for e in c.events:
        if str(e.id) in members and str(e.id) not in [str(x.id) for x in chosen]:
            chosen.append(e)
    total = world_count(make_ievents(c.events))
    st.caption(f"The whole input has {total:,} possible worlds (one instant per event). Whether this result "
               f"matches depends only on its events and the events that could fall in between ({len(chosen)} events, "
               f"{world_count(make_ievents(chosen)):,} worlds): the others' instants sum out.")
    if len(chosen) > EXPLORER_EVENTS:
        st.info(f"{len(chosen)} events: the explorer shows at most {EXPLORER_EVENTS}.", icon=":material/info:")
        chosen = chosen[:EXPLORER_EVENTS]
    times: dict[Any, int] = {}
    cols = st.columns(min(len(chosen), 4) or 1)
    for n, e in enumerate(chosen):
        lo, hi = int(e.lower if e.lower is not None else e.ts), int(e.upper if e.upper is not None else e.ts)
        with cols[n % len(cols)]:
            if lo == hi:
                st.caption(escape.markdown(f"{e.id} ({e.type}) at {lo}"))
                times[e.id] = lo
            else:
                times[e.id] = int(st.select_slider(escape.markdown(f"{e.id} ({e.type})"), list(range(lo, hi + 1)),
                                                   value=lo,
                                                   key=f"unc_w_{ex.ids}_{e.id}"))
    wv = world_view(c.pattern, chosen, times)
    order = " < ".join(f"{i}@{t}" for i, _ty, t in wv["order"])
    p: Fraction = wv["probability"]
    st.markdown(f"This world: {escape.markdown(order)} · probability **{escape.markdown(p)}** "
                f"(of these {len(chosen)} events)")
    if wv["matches"]:
        got = ["(" + ", ".join(map(str, mm)) + ")" for mm in wv["matches"]]
        mine = "(" + ", ".join(map(str, ids)) + ")"
        st.success("Point matches in this world: " + escape.markdown("; ".join(got)
                   + (f" — including {mine}" if mine in got else f" — not {mine}")), icon=":material/check:")
    else:
        st.warning("No point match in this world.", icon=":material/block:")


# --------------------------------------------------------------------------- the page

def render() -> None:
    st.title("Uncertain time")
    st.caption("Events whose time is an interval [lower, upper] of possible instants. A pattern then matches "
               "in some " + glossary.term("possible world", "possible worlds") + " and not in others: the result "
               "is one row per set of events (its " + glossary.term("signature") + ") with the range of instants "
               "it spans and its " + glossary.term("confidence") + ", the probability of the worlds in which it "
               "matches. A result is final once the " + glossary.term("frontier") + " has passed it.",
               unsafe_allow_html=True)
    glossary.in_the_papers("Imprecise timestamps: Zhang, Diao and Immerman, *Recognizing patterns in streams "
                           "with imprecise timestamps* (VLDB 2010). The frontier is their F = now.lower − U_max; "
                           "the latest next time is their NELT; the events that could fall in between are their "
                           "spoilers; the three passes are vlb, rub and vub (§4.1).")
    c1, c2, c3 = st.columns([3, 4, 2], gap="medium")
    with c1:
        data_key, events, proposed = source_picker()
    with c2:
        p = pattern_editor(proposed)
    with c3:
        engine = st.selectbox("Engine", list(ENGINES), key="unc_engine", format_func=ENGINES.get)
        mode = "auto"
        if "mode" in planner.ENGINES[engine].options:
            mode = st.selectbox("Evaluation order", MODES, key="unc_mode",
                                help="any-state (arrival order), sorted (query order; exclusive components "
                                     "only), selectivity (rarest component first); auto: sorted when it applies")
    if p is None:
        st.stop()
    try:
        with st.spinner("Running and tracing…"):
            c = compute(p, data_key, events, engine, mode)
    except Exception as err:  # noqa: BLE001 - a message (StateExplosion, oracle too large), not a traceback
        st.error(f"The run stopped: {escape.message(err)}", icon=":material/error:")
        st.stop()
    ok, text = agreement(c)
    msg = (f"**{len(c.events)}** events · **{len(c.results)}** signature(s) · {ENGINES[c.engine]} · "
           f"largest uncertainty {c.u_max} · traced in {c.seconds:.2f} s")
    st.info(msg, icon=":material/timeline:")
    if ok is True:
        st.success(escape.message(text), icon=":material/verified:")
    elif ok is False:
        st.error(escape.message(text), icon=":material/error:")
    else:
        st.caption(escape.message(text))
    step_views(c)
    st.divider()
    explainer(c)
    with st.expander("Events"):
        st.dataframe(pd.DataFrame(event_dicts(c)).drop(columns=["weights"]), hide_index=True, width="stretch")
