"""The Learn page: the course (``app.course``: lessons with exercises the engine checks) and,
under Explore, the papers' ideas shown on small runs.

Each Explore view has a short text citing the paper section it illustrates:

1. *One stream, four strategies* (SASE+ §3.4, §4.5 step 3, §6.3): the stock example under
   strict contiguity, partition contiguity, skip till next match and skip till any match,
   side by side: matches, the ignore-edge formula, live runs, and which matches differ.
2. *Lazy vs eager* (Kolchinsky & Schuster §2.2, §3, §4, §7): partial matches created and
   alive per event on a stream with skewed type rates; the chain's evaluation order
   against the pattern's order.

3. *Preferment and backtracking* (SQL:2016 MATCH_RECOGNIZE; ``app/learn_sql.py``): the candidate
   labellings in preferment order for greedy, reluctant and bounded quantifiers.

Session keys are prefixed ``lrn_``. Later issues add their views here.
"""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

import sample_streams
from app import debug_side_by_side, glossary, jobs, state, ui, windows_panels
from engine.dsl import parse, to_text
from engine.model import Pattern
from visualizers import escape
from visualizers import learn_view as LV

STOCK_SAMPLE, STOCK_PRESET = "stocks_sase", "stock_trend"
LAZY_PATTERN = """PATTERN SEQ(A a, B b, C c)
WHERE skip_till_any_match
  AND a.price < c.price
WITHIN 2 s"""


@st.cache_data(show_spinner="Running the four strategies…", max_entries=8)
def _strategies(pattern_json: str, sample: str) -> tuple[list[LV.StrategyRun], dict[Any, int], list[str]]:
    p = Pattern.model_validate_json(pattern_json)
    events = sample_streams.events(sample)
    runs = jobs.run_and_wait(lambda guard: LV.compare_strategies(p, events), label="strategies")  # guarded
    return runs, {e.id: e.seq for e in events}, [f"e{e.id}" for e in events]


@st.cache_data(show_spinner="Running eager, lazy chain and lazy tree…", max_entries=8)
def _lazy(pattern_text: str, n: int, rates: tuple[tuple[str, float], ...], seed: int
          ) -> tuple[list[LV.EngineRun], dict[str, int]]:
    from engine.events import load_events
    from sample_streams import generators as G

    events = load_events(G.skewed_types(n, dict(rates), seed=seed)).events
    runs = jobs.run_and_wait(lambda guard: LV.compare_lazy_eager(parse(pattern_text), events, dict(rates)),
                             label="lazy")  # guarded: a run slot, time and memory limits
    return runs, LV.type_counts(events)


@st.cache_data(max_entries=8)
def _lazy_schema(n: int, rates: tuple[tuple[str, float], ...], seed: int) -> dict[str, dict[str, str]]:
    """The schema of the generated stream (its types and attributes), to check the pattern against."""
    from engine.events import load_events
    from sample_streams import generators as G

    return load_events(G.skewed_types(n, dict(rates), seed=seed)).schema


def strategies_view() -> None:
    st.header("One stream, four strategies")
    st.markdown(
        "A pattern can say **which events a match may skip** in a stream that mixes relevant and irrelevant "
        "events. Strict contiguity allows no gap; partition contiguity no gap within the partition; skip till "
        "next match skips events that do not fit and takes the next one that does; skip till any match keeps "
        "every combination. In the automaton only one thing changes: when a run may **ignore** an event. "
        "On eight stock ticks the stock-trend pattern finds 2, 2, 3 and 68 matches: skip till next match adds "
        "`a=3,4 b=6`, and skip till any match tries every combination, so its runs grow exponentially.")
    glossary.in_the_papers("SASE+ (Agrawal, Diao, Gyllstrom and Immerman, SIGMOD 2008): the strategies are §3.4; "
                           "the ignore edges' formula is §4.5 step 3 (`false` under strict contiguity, "
                           "`¬partition` under partition contiguity, `¬take`/`¬begin` under skip till next "
                           "match, `true` under skip till any match); the stream is Figure 3 (e1…e8) and the "
                           "pattern query Q3; the counts are §6.3 of the studio's notes.")
    src = st.radio("Pattern and stream", ["stock", "current"], horizontal=True, key="lrn_strat_src",
                   format_func={"stock": "the stock-trend pattern on eight stock ticks",
                                "current": "the current pattern on its sample"}.get)
    if src == "stock":
        txt = sample_streams.load(STOCK_SAMPLE).presets[STOCK_PRESET]
        p, sample = parse(txt), STOCK_SAMPLE
    else:
        p, sample = state.pattern(), state.sample_name()
        # as the Run page: a name the sample does not have is an error, not a run with 0 matches
        if not ui.data_check(p, state.sample_schema(sample), state.text(), f"Sample {escape.markdown(sample)}: "):
            return
    from engine.engines.nfab.compiler import unsupported_reason

    why = unsupported_reason(p)
    if why:
        st.warning(f"NFA^b cannot run the current pattern ({escape.message(why)}); showing nothing.",
                   icon=":material/warning:")
        return
    try:
        results, seq_of, labels = _strategies(p.model_dump_json(), sample)
    except Exception as err:  # noqa: BLE001 - a guard (time, memory) or an engine refusing: a message
        st.error(f"The strategies could not run: {escape.message(err)}", icon=":material/error:")
        return
    st.code(to_text(p).strip(), language="sql")
    st.caption("Each column runs this pattern with its own strategy in place of the one written here (NFA^b).")
    cols = st.columns(4, gap="small")
    all_keys = [set(LV.match_text(m) for m in r.matches) for r in results if not r.error]
    common = set.intersection(*all_keys) if all_keys else set()
    for col, r in zip(cols, results):
        with col.container(border=True):
            st.markdown(f"**{escape.markdown(r.strategy)}**")
            if r.error:
                st.error(escape.message(r.error))
                continue
            st.metric("matches", r.count, help="distinct matches of NFA^b under this strategy")
            st.caption(LV.IGNORE_RULE[r.strategy])
            for state_name, formula in r.ignore:
                st.code(f"ignore at {state_name}: {formula}", language=None, wrap_lines=True)
            shown = r.matches[:8]
            lines = [("" if LV.match_text(m) in common else "**+** ") + escape.code(LV.match_text(m)) for m in shown]
            st.markdown("  \n".join(lines) + (f"  \n… and {r.count - len(shown)} more" if r.count > len(shown) else ""))
            st.caption(f"peak live runs {max(r.runs, default=0)}")
    st.caption("**+** marks a match that not every strategy finds.")
    c1, c2 = st.columns([3, 2])
    with c1:
        st.markdown("**Live runs after each event** (log scale)")
        st.plotly_chart(LV.strategy_runs_figure(results, labels), width="stretch", key="lrn_runs",
                        config={"displaylogo": False})
    with c2:
        st.markdown("**Matches per strategy**")
        st.plotly_chart(LV.strategy_counts_figure(results), width="stretch", key="lrn_counts",
                        config={"displaylogo": False})
    st.markdown("**Which strategy finds which match** — rows not found by every strategy are highlighted")
    df = LV.strategy_matrix(results, seq_of)
    n_all = len([r for r in results if not r.error])

    def mark(row: pd.Series) -> list[str]:
        colour = "" if row["found by"] == n_all else "background-color: #fef5e7"
        return [colour] * len(row)

    st.dataframe(df.style.apply(mark, axis=1), hide_index=True, width="stretch", key="lrn_matrix",
                 height=min(38 + 35 * len(df), 420))
    only_any = int((df["found by"] == 1).sum()) if len(df) else 0
    st.caption(f"{len(df)} distinct matches; {only_any} found by one strategy only. Step through two strategies "
               "side by side on the Debug page: it marks the first event where they differ.")
    if st.button("Step through skip till next match and skip till any match side by side", key="lrn_strat_debug",
                 icon=":material/bug_report:"):
        params = {"pattern": to_text(p).strip(), "data": "sample", "sample": sample, "engine": "nfab", "event": "1"}
        debug_side_by_side.open_debug(params, "strategy", "skip_till_next_match", "skip_till_any_match")


def lazy_view() -> None:
    st.header("Lazy vs eager evaluation")
    st.markdown(
        "An **eager** matcher handles every event on arrival in the pattern's order, so on a stream where `A` "
        "is frequent and `B` is rare it keeps many `A` and `AB` prefixes that never complete. The **lazy "
        "chain** matcher keeps events per type and builds partial matches from the **rarest type first**, "
        "looking up the rest among the kept events; the **lazy tree** matcher picks the rarest remaining type "
        "as it runs, without being told the rates. All three find the same matches; they differ in the "
        "partial matches they create.")
    glossary.in_the_papers("Kolchinsky and Schuster, lazy evaluation: the eager NFA's waste is §2.2, the chain "
                           "NFA and its ascending-frequency order §3 and §4.1, the tree NFA §7, and the counts "
                           "drawn here mirror the paper's Figures 12–13.")
    c1, c2, c3, c4 = st.columns([2, 2, 1, 1])
    pattern_text = c1.text_area("Pattern (skip_till_any_match)", LAZY_PATTERN, height=130, key="lrn_lazy_pattern")
    rates_text = c2.text_input("Type rates (events per second)", "A:10, B:1, C:5", key="lrn_lazy_rates")
    n = int(c3.number_input("Events", 50, 3000, 400, step=50, key="lrn_lazy_n"))
    seed = int(c4.number_input("Seed", 0, 10_000, 1, key="lrn_lazy_seed"))
    rates: dict[str, float] = {}
    for part in rates_text.replace(";", ",").split(","):
        if ":" in part:
            k, v = part.split(":", 1)
            try:
                rates[k.strip()] = float(v)
            except ValueError:
                pass
    if not rates:
        st.error("Write the rates as `A:10, B:1, C:5`.")
        return
    try:
        typed = parse(pattern_text)
    except Exception as err:  # noqa: BLE001 - DslError with its caret
        ui.error(err)
        return
    try:
        schema = _lazy_schema(n, tuple(sorted(rates.items())), seed)
    except ValueError as err:  # rates that do not make a stream
        ui.error(err)
        return
    if not ui.data_check(typed, schema, pattern_text, "Generated stream: "):
        return  # as the Run page: a name the stream does not have is an error
    try:
        results, counts = _lazy(pattern_text, n, tuple(sorted(rates.items())), seed)
    except Exception as err:  # noqa: BLE001
        st.error(escape.message(f"{type(err).__name__}: {err}"))
        return
    p = parse(pattern_text)
    seq_order = [c.var for c in p.positive]
    chain = next((r for r in results if r.engine == "lazy-chain" and r.order), None)
    st.caption("Stream: " + escape.markdown(", ".join(f"{t} × {c}" for t, c in counts.items())) + f" ({n} events)")
    m1, m2, m3 = st.columns(3)
    eager = next((r for r in results if r.engine == "eager" and not r.error), None)
    lazy = next((r for r in results if r.engine == "lazy-chain" and not r.error), None)
    m1.metric("pattern (SEQ) order", " → ".join(seq_order))
    m2.metric("chain evaluation order", " → ".join(chain.order[0]) if chain else "–",
              help="rarest type first; repeated (Kleene) components last")
    if eager and lazy and lazy.total_created:
        m3.metric("partial matches: eager / lazy chain", f"{eager.total_created / lazy.total_created:.1f}×",
                  help=f"{eager.total_created} vs {lazy.total_created} created")
    st.plotly_chart(LV.lazy_figure(results), width="stretch", key="lrn_lazy_fig", config={"displaylogo": False})
    st.dataframe(LV.lazy_frame(results), hide_index=True, width="stretch", key="lrn_lazy_table")
    st.caption("Partial matches created = new instances (take edges) that are not yet complete matches; live = "
               "instances alive after the event. Step through the same stream with the lazy chain and the eager "
               "matcher side by side on the Debug page to see the wasted partial matches event by event.")
    if st.button("Step through lazy chain and eager side by side", key="lrn_lazy_debug", icon=":material/bug_report:"):
        params = {"pattern": pattern_text.strip(), "data": "generated", "gen": "skewed", "n": str(n),
                  "seed": str(seed), "rates": rates_text, "engine": "lazy-chain", "event": "1"}
        debug_side_by_side.open_debug(params, "engine", "lazy-chain", "eager")



def render() -> None:
    from app import course, course_present

    if course_present.active():  # the lesson alone, on a slide
        course.render()
        return
    st.title("Learn")
    st.caption("How pattern matching works, one short lesson at a time: read, predict or write, and the "
               "engine checks your answer. Explore has the experiments to play with.")
    lessons_tab, explore_tab = st.tabs(["Course", "Explore"])
    with lessons_tab:
        course.render()
    with explore_tab:
        explore()


def explore() -> None:
    """The experiments: four strategies side by side, lazy vs eager, match windows, preferment."""
    from app import learn_sql

    learn_sql.follow_debug_request()
    strategies_view()
    st.divider()
    lazy_view()
    st.divider()
    windows_panels.learn_panel()  # pruning by match windows
    st.divider()
    learn_sql.preferment_view()  # MATCH_RECOGNIZE: preferment and backtracking
