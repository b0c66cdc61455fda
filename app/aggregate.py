"""The Aggregate page A-Seq's prefix counters updating event by event beside
the matches a construct-then-aggregate baseline builds (the A-Seq paper; docs/papers.md, "A-Seq").

Both engines are traced once per (example, data) and kept in session state; stepping and
playing only read the traces. The step views live in one ``st.fragment`` that reruns itself
every ``1/speed`` seconds while playing (the Debug page's controls: slider, back/forward,
next TRIG, play). Session keys are prefixed ``agg_``.

Examples are the paper's test cases T1-T11 (§5) on their streams, labelled *exact*,
*reconstructed* or *synthesized* (A17), the current pattern on the sample data (if it has
an AGG clause), and a generated ticker stream.
"""
from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

import sample_streams
from app import figures, glossary, jobs, state, ui
from app.step_controls import Jump, Stepper
from engine.engines.aseq.baseline import BaselineMatcher
from engine.engines.aseq.engine import AseqMatcher
from engine.engines.aseq.workload import Query, WorkloadMatcher, parse_workload
from engine.dsl import parse
from engine.events import Event, make_stream
from engine.model import Pattern
from engine.trace import Recorder, Step, record
from visualizers import aseq_view as AV
from visualizers import escape

MAX_EVENTS = 2000


@dataclass(frozen=True)
class Example:
    title: str
    text: str                       # a pattern, or a workload of QUERY blocks
    stream: str                     # "a1@1 b2@2 ...": type = letters, id = token, ts after @
    attrs: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = "synthesized"     # exact | reconstructed | synthesized (A17)
    note: str = ""
    chops: dict[str, list[int]] | None = None


EXAMPLES: dict[str, Example] = {e.title: e for e in [
    Example("Counts per start event (window 7)", "PATTERN SEQ(A a, B b, C c, D d) AGG COUNT WITHIN 7",
            "a1@1 b1@2 c1@3 a2@4 c2@5 b2@6 d1@7 c3@8 a3@9 d2@10", source="reconstructed",
            note="2 at d1 (a1: 2, a2: 0); at 8 a1 leaves the window (8 - 1 = 7 is not < 7); 1 at d2."),
    Example("The count drops when a1 leaves the window (window 5)", "PATTERN SEQ(A a, B b, C c) AGG COUNT WITHIN 5",
            "a1@1 b2@2 c3@3 c4@4 b6@6", source="exact", note="COUNT 1 at c3, 2 at c4; at b6 a1 has left: 0."),
    Example("Counting prefixes as events arrive (no window)", "PATTERN SEQ(A a, B b, C c) AGG COUNT",
            "a1 b1 c1 a2 b2 c2", source="exact",
            note="one vector, cnt[0] counts the STARTs: (A,B) = 3 and (A,B,C) = 1 before c2, then 4."),
    Example("A negated event resets the count", "PATTERN SEQ(A a, B b, !C c, D d) AGG COUNT WITHIN 10",
            "a1@1 b1@2 c1@3 a2@4 b2@5 d1@6", note="c1 resets (A,B) in every live counter; 2 at d1."),
    Example("One count per group (GROUP BY id)", "PATTERN SEQ(A a, B b, C c) WHERE [id_] AGG COUNT "
            "GROUP BY id_", "a1@1 a2@2 b1@3 a3@4 b2@5 a4@6 c1@7 b3@8 c2@9 c3@10",
            attrs={k: {"id_": v} for k, v in {"a1": 1, "a2": 2, "b1": 1, "a3": 3, "b2": 2, "a4": 1, "c1": 1,
                                                "b3": 1, "c2": 2, "c3": 1}.items()},
            note="each event updates only its partition's counters: group 1: 1, group 2: 1, group 1: 4."),
    Example("An exact SUM", "PATTERN SEQ(A a, B b, C c, D d) AGG SUM(c.w)",
            "a1@1 b1@2 c1@3 d1@4 c2@5 d2@6", attrs={"c1": {"w": 1}, "c2": {"w": 10}},
            note="SUM 1 at d1, 12 at d2 (matches <a1,b1,c1,d1>, <a1,b1,c1,d2>, <a1,b1,c2,d2>)."),
    Example("A type used twice (A, B, A)", "PATTERN SEQ(A x, B y, A z) AGG COUNT", "a1 b1 a2 b2 a3",
            note="a type at several positions updates them all from the state before the event: 4 at a3."),
    Example("Five queries sharing their common start", """QUERY Q1
PATTERN SEQ(VK a, BK b, VC c, BC d) AGG COUNT
QUERY Q2
PATTERN SEQ(VK a, BK b, VKF c) AGG COUNT
QUERY Q3
PATTERN SEQ(VK a, BK b, VC c, BC d, VE e, BE f) AGG COUNT
QUERY Q4
PATTERN SEQ(VK a, BK b, VC c, BC d, VL e, BL f) AGG COUNT
QUERY Q5
PATTERN SEQ(IP a, VKF b, VK c, BK d) AGG COUNT""",
            "ip1@1 vkf1@2 vk1@3 bk1@4 vk2@5 bk2@6 vc1@7 vkf2@8 bc1@9 ve1@10 be1@11 vl1@12 bl1@13",
            note="(VK,BK) is counted once for Q1-Q4: Q2 = 0 at vkf1, Q5 = 1 and 3, Q2 = 3, Q1 = Q3 = Q4 = 3."),
    Example("A long pattern counted in three pieces (window 20)",
            "QUERY q\nPATTERN SEQ(A a, B b, C c, D d, E e, F f, G g) AGG COUNT WITHIN 20",
            "a1@1 b1@2 a2@3 b2@4 c1@5 d1@6 c2@7 d2@8 e1@9 f1@12 g1@13", chops={"q": [3, 5]},
            note="(A,B,C) + (D,E) + (F,G): snapshots at d1, d2 and f1 (= {a1: 6, a2: 3}); 9 at g1."),
]}
# where each example comes from in the paper (the page's "In the papers" expander)
CITED: dict[str, str] = {
    "Counts per start event (window 7)": "T4: the paper's Example 3 (start-event marking, SEM)",
    "The count drops when a1 leaves the window (window 5)": "T1: the paper's Example 1",
    "Counting prefixes as events arrive (no window)": "T2: the paper's Figure 2 (dynamic prefix counting)",
    "A negated event resets the count": "T5: the paper's Example 4 (the Recounting Rule)",
    "One count per group (GROUP BY id)": "T6: the paper's Example 5 (hashed partitions)",
    "An exact SUM": "T10: the paper's SUM formula gives 16.5 here; the studio's exact sum gives 12",
    "A type used twice (A, B, A)": 'T11: repeated types, not covered by the paper',
    "Five queries sharing their common start": "T7: the paper's Example 7 (PreTree)",
    "A long pattern counted in three pieces (window 20)": "T9: the paper's Example 9 (Chop-Connect)",
}
CURRENT = "The current pattern on the sample data"
TICKERS = "A generated ticker stream"


def stream(text: str, attrs: dict[str, dict[str, Any]] | None = None) -> list[Event]:
    rows = []
    for k, tok in enumerate(text.split()):
        name, _, ts = tok.partition("@")
        t = re.match(r"[A-Za-z]+", name).group().upper()  # type: ignore[union-attr]
        rows.append({"id": name, "type": t, "ts": float(ts) if ts else float(k), **(attrs or {}).get(name, {})})
    return make_stream(rows)


def ticks(n: int, types: int, seed: int) -> list[Event]:
    r = random.Random(seed)
    return make_stream([{"id": i, "type": f"T{r.randrange(types)}", "ts": float(i), "price": r.randint(1, 100)}
                        for i in range(n)])


@dataclass
class Traced:
    """Both engines' traces of one example (computed once)."""

    sig: tuple
    title: str
    events: list[Event]
    patterns: list[Pattern]
    names: list[str] | None          # query names of a workload
    steps: list[Step]                # A-Seq (or the workload)
    base: list[list[Step]]           # the baseline, per query
    func: str
    window: float | None
    count_window: bool
    fallback: str | None = None
    tree: list[dict[str, Any]] | None = None
    cats: list[list[str]] = field(default_factory=list)
    seconds: float = 0.0

    def base_rows(self, k: int) -> list[dict[str, Any]]:
        out = []
        for i, steps in enumerate(self.base):
            for r in steps[k].matches:
                out.append({**({"query": self.names[i]} if self.names else {}), **r})
        return out


def compute(key: str, events: list[Event], text: str, chops: dict[str, list[int]] | None = None) -> Traced:
    """Trace A-Seq (or the workload) and the baseline over ``events``."""
    t0 = time.perf_counter()
    from engine.engines.aseq.workload import is_workload

    if is_workload(text):
        queries = parse_workload(text)
        m: Any = WorkloadMatcher(queries, Recorder(), chops=chops)
        patterns = [q.pattern for q in queries]
        names: list[str] | None = [q.name for q in queries]
        tree = m.tree()
        fallback = "; ".join(f"{k}: {v}" for k, v in m.fallback.items()) or None
    else:
        p = parse(text)
        m = AseqMatcher(p, Recorder())
        patterns, names, tree = [p], None, None
        fallback = m.fallback
    # guarded: a run slot, the time and memory limits, cancelled with the session
    steps = jobs.run_and_wait(lambda guard: list(record(m, jobs.ticking(events, guard), limit=None)),
                              label="aggregate")
    base = jobs.run_and_wait(lambda guard: [list(record(BaselineMatcher(p, Recorder()), jobs.ticking(events, guard),
                                                        limit=None)) for p in patterns], label="baseline")
    p0 = patterns[0]
    w = p0.window
    return Traced(sig=(key, text, len(events)), title=key, events=events, patterns=patterns, names=names,
                  steps=steps, base=base, func=p0.aggregate.func if p0.aggregate else "COUNT",
                  window=float(w.size) if w else None, count_window=bool(w and w.is_count), fallback=fallback,
                  tree=tree, cats=AV.categories(patterns, events), seconds=time.perf_counter() - t0)


def _ss() -> Any:
    return st.session_state


# --------------------------------------------------------------------------- controls

STEPPER = Stepper("agg", "agg_traced", (
    Jump("agg_prev_trig", "TRIG", -1, "back to the previous step that output a row"),
    Jump("agg_next_trig", "Next TRIG", 1, "on to the next step that outputs a row"),
))


# --------------------------------------------------------------------------- views

def _value_at(t: Traced, k: int) -> Any:
    """The value shown under the table: this step's row, else the engine's current value."""
    s = t.steps[k]
    if s.matches:
        return s.matches[-1].get("value")
    vals = (s.buffer or {}).get("values") or []
    return vals[0]["value"] if len(vals) == 1 else None


def baseline_panel(t: Traced, k: int) -> None:
    built = sum((a.detail or {}).get("built", 0) for steps in t.base for s in steps[: k + 1] for a in s.actions
                if a.kind == "search")
    here = [a.detail or {} for steps in t.base for a in steps[k].actions if a.kind == "search"]
    live = sum((steps[k].buffer or {}).get("live_objects", 0) for steps in t.base)
    stored = sum((steps[k].buffer or {}).get("stored", 0) for steps in t.base)
    c1, c2, c3 = st.columns(3)
    c1.metric("matches built so far", f"{built:,}")
    c2.metric("live objects (events + pointers + matches)", f"{live:,}")
    c3.metric("stored matches", f"{stored:,}")
    if here:
        b = sum(d.get("built", 0) for d in here)
        dis = sum(d.get("discarded", 0) for d in here)
        st.caption(f"This event completes matches: the baseline built **{b}** match(es)"
                   + (f", the negation post-filter discarded **{dis}**" if dis else "") + ".")
        shown = [m for d in here for m in d.get("matches", [])][:8]
        if shown:
            st.code("\n".join("<" + ", ".join(map(str, m)) + ">" for m in shown), language=None)
    a_rows, b_rows = t.steps[k].matches, t.base_rows(k)
    all_ok = all(AV.agreement(t.steps[j].matches, t.base_rows(j)) for j in range(k + 1))
    if not a_rows and not b_rows:
        st.caption("No output on this step." + (" All outputs so far agree." if all_ok else ""))
    elif AV.agreement(a_rows, b_rows):
        st.success(f"**agree**: A-Seq {escape.markdown(', '.join(AV._fmt(r['value']) for r in a_rows))} = baseline "
                   f"{escape.markdown(', '.join(AV._fmt(r['value']) for r in b_rows))}", icon=":material/check_circle:")
    else:
        st.error(f"**disagree**: A-Seq {escape.markdown(a_rows)} vs baseline {escape.markdown(b_rows)}",
                 icon=":material/error:")
    if not all_ok:
        st.warning("Some earlier step disagrees.", icon=":material/warning:")


def step_views(t: Traced) -> None:
    """Everything that changes with the step (the body of the fragment)."""
    k, b5 = STEPPER.controls()
    step = t.steps[k]
    if step.event is not None:
        e = step.event
        ei = min(k, len(t.events) - 1)
        b5.markdown(f"**Step {k}**: event **{escape.markdown(e['id'])}** ({escape.markdown(e['type'])} @ "
                    f"{escape.markdown(format(e['ts'], 'g'))}) · "
                    + " / ".join(f":{'orange' if c == 'TRIG' else 'green' if c == 'START' else 'red' if c == 'NEG' else 'blue' if c == 'UPD' else 'gray'}[{c}]"
                                 for c in t.cats[ei]))
    else:
        b5.markdown(f"**Step {k}**: end of the stream")
    ek = min(k, len(t.events) - 1)
    figures.show(AV.timeline_figure(t.events, t.cats, ek, t.window, t.count_window),
                 f"The stream at step {k}: each event marked with its role in the aggregation (START can begin a "
                 "match, UPD extends a prefix, TRIG outputs a value, NEG is a negated event)",
                 key="agg_timeline", file_name=f"aggregation-timeline-step-{k}")
    left, right = st.columns([3, 2], gap="medium")
    with left:
        st.markdown("##### Prefix counters (one row per live start event)")
        if t.fallback and t.names is None:
            st.info(f"A-Seq cannot aggregate this pattern without its matches ({escape.message(t.fallback)}); it runs the "
                    "baseline instead, so there are no prefix counters to show.", icon=":material/info:")
        else:
            value = _value_at(t, k)
            st.markdown(AV.counter_table_html(step, t.func, value), unsafe_allow_html=True)
            st.caption("Yellow: a counter updated on this event (its formula below it) · red: reset by a "
                       "negated event · green: a new start event · struck out: a start event that left the "
                       "window, with its counters. Event roles: START can begin a match, UPD extends a prefix, "
                       "TRIG completes matches (a value is output), NEG is a negated event.")
        if step.matches:
            st.markdown("**Output on this step** (the rows the command line writes)")
            st.dataframe(pd.DataFrame(step.matches), hide_index=True, width="stretch", key="agg_out")
    with right:
        st.markdown("##### Baseline: build every match, then aggregate")
        baseline_panel(t, k)
    frame = AV.rows_frame(t.steps, k)
    c1, c2 = st.columns([1, 1], gap="medium")
    with c1:
        st.markdown(f"##### Rows so far ({len(frame)})")
        if len(frame):
            st.dataframe(frame, hide_index=True, width="stretch", height=min(38 + 35 * len(frame), 300),
                         key="agg_rows")
    with c2:
        figures.show(AV.group_chart(frame, t.func), f"The {t.func} value output so far, one line per group, "
                     f"up to step {k}", key="agg_groups", file_name=f"aggregation-values-step-{k}")


def pick_example() -> tuple[str, list[Event], str, dict[str, list[int]] | None] | None:
    """The example chosen in the page's controls: (key, events, pattern text, chops)."""
    choices = list(EXAMPLES) + [CURRENT, TICKERS]
    choice = st.selectbox("Example", choices, key="agg_example")
    if choice in EXAMPLES:
        ex = EXAMPLES[choice]
        st.caption(f"Stream: {escape.code(ex.stream)}. {escape.message(ex.note)}")
        glossary.in_the_papers(f"{escape.markdown(CITED.get(choice, ''))}; the stream is {escape.markdown(ex.source)} from the "
                               "A-Seq paper (Qi, Cao, Ray and Rundensteiner, SIGMOD 2014). The counter updates are "
                               "its Lemma 1, the reset by a negated event its Recounting Rule, the per-start "
                               "counters its start-event marking (SEM, Lemma 3).")
        st.code(ex.text.strip(), language="sql")
        return choice, stream(ex.stream, ex.attrs), ex.text, ex.chops
    if choice == CURRENT:
        p = state.pattern()
        if p.aggregate is None:
            st.warning("The current pattern has no AGG clause (add one on the Design page, e.g. `AGG COUNT`), "
                       "or pick an example.", icon=":material/warning:")
            return None
        name = state.sample_name()
        # as the Run page: a name the sample does not have is an error, not a run with 0 rows
        if not ui.data_check(p, state.sample_schema(name), state.text(), f"Sample {escape.markdown(name)}: "):
            return None
        evs = sample_streams.events(name)[:MAX_EVENTS]
        st.caption(f"Sample **{escape.markdown(name)}**, its first {len(evs):,} events.")
        return f"{CURRENT}:{name}:{state.text()}", evs, state.text(), None
    c1, c2, c3 = st.columns(3)
    length = c1.slider("Pattern length", 2, 5, 3, key="agg_len")
    window = c2.select_slider("W (ms)", [20, 50, 100, 200], 50, key="agg_w")
    neg = c3.toggle("Negation (!T9 after the first)", key="agg_neg")
    items = [f"T{i} v{i}" for i in range(length)]
    if neg:
        items.insert(1, "!T9 n")
    text = f"PATTERN SEQ({', '.join(items)}) AGG COUNT WITHIN {window}"
    st.code(text, language="sql")
    return f"{TICKERS}:{text}", ticks(400, 10, 1), text, None


def render() -> None:
    ss = _ss()
    st.title("Aggregate")
    st.caption("COUNT / SUM / AVG / MIN / MAX over all matches without building one: a row of "
               + glossary.term("prefix counter", "running counters") + " per live start event, each updated in "
               "constant time per event, beside the baseline that builds every match and aggregates them. Step "
               "through an example and watch both agree.", unsafe_allow_html=True)
    top = st.columns([3, 2], gap="medium")
    with top[0]:
        got = pick_example()
    if got is None:
        st.stop()
    key, events, text, chops = got
    sig = (key, text, len(events))
    t: Traced | None = ss.get("agg_traced")
    if t is None or t.sig != sig:
        try:
            with st.spinner("Tracing A-Seq and the baseline…"):
                t = compute(key, events, text, chops)
        except Exception as err:  # noqa: BLE001 - PatternError, EngineUnsupported, StateExplosion
            st.error(f"The example cannot run: {escape.message(err)}", icon=":material/error:")
            st.stop()
        ss["agg_traced"] = t
        ss["agg_step"] = 0
        ss["agg_playing"] = False
    with top[1]:
        rows = sum(len(s.matches) for s in t.steps)
        st.info(f"**{len(t.events):,}** events · **{rows}** output row(s) · traced in {t.seconds:.2f} s",
                icon=":material/functions:")
        if t.fallback:
            st.warning(f"Fallback to the baseline: {escape.message(t.fallback)}", icon=":material/warning:")
        if t.tree:
            st.markdown("**Shared prefix tree** (one per start event; orange: where a query's matches complete)")
            for g, tree in enumerate(t.tree):
                figures.show(AV.pretree_figure(tree), f"Shared prefix tree {g + 1} of {len(t.tree)}: the queries' "
                             "patterns share their common prefixes; orange marks where a query's matches complete",
                             key=f"agg_pretree_{g}", file_name=f"aggregation-prefix-tree-{g + 1}")
    every = STEPPER.play_bar("Play keeps to the chosen speed and redraws only the views below; Back, Forward and "
                             "the TRIG buttons stop it.")
    frag = st.fragment(run_every=every)(step_views)
    frag(t)


def workload_queries(text: str) -> list[Query]:
    return parse_workload(text)
