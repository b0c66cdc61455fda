"""CEP Studio: home page with the preset cards (entry point of ``make run`` / ``cep serve``)."""
from __future__ import annotations


import streamlit as st

import sample_streams
from app import glossary, state, ui
from visualizers import escape

ui.page("Home", "🏠")

st.title("CEP Studio")
st.markdown(
    "CEP Studio finds **complex events**: " + glossary.term("pattern", "patterns") + " over a stream of "
    + glossary.term("event", "events") + ", such as *a rising run of stock prices followed by a drop in volume*. "
    "You build a pattern on a canvas or as text, see the machine it becomes, and run it over sample or "
    "uploaded data, here or on Spark. Every " + glossary.term("match") + " is listed, drawn on a timeline "
    "and can be downloaded; the Debug page steps through a run and says why each match fired, or did not.",
    unsafe_allow_html=True)
st.info("**How many matches?** A pattern finds, by default, every combination of events that fits it. "
        "Ask for fewer by naming a strategy: skip to the next fitting event (skip_till_next_match), or allow "
        "no gaps (strict_contiguity, or partition_contiguity within each partition).",
        icon=":material/info:")
st.caption("Start from an example: it opens the Design page with the pattern and its sample data loaded.")

# how a card states the strategy, in plain words
STRATEGY_WORDS = {
    "strict_contiguity": "no gaps between a match's events",
    "partition_contiguity": "no gaps within each partition",
    "skip_till_next_match": "skips events that do not fit, takes the next one that does",
    "skip_till_any_match": "every combination of fitting events",
}
SELECTION_WORDS = {
    "earliest": "the earliest matches of each start event",
    "maximal": "the largest matches only",
    "earliest_maximal": "the earliest and largest matches of each start event",
}


def _open(sample: str, preset: str) -> None:
    state.load_preset(sample, preset)
    st.session_state["cep_goto"] = "pages/1_Design.py"


def _open_on(sample: str, preset: str, page: str) -> None:
    state.load_preset(sample, preset)
    st.session_state["cep_goto"] = page


@st.cache_data(show_spinner=False)
def _card_facts(sample: str, preset: str) -> tuple[str, int, str]:
    """(what the pattern keeps, in plain words; events in the sample; matches and the engine that found them)."""
    from engine.dsl import parse
    from engine.engines.planner import ENGINES
    from engine.match import run_all
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    s = sample_streams.load(sample)
    text = s.presets[preset]
    p = parse(text)
    selection = getattr(p, "selection", None)
    selection = getattr(selection, "value", selection)
    if selection and selection != "all":
        keeps = SELECTION_WORDS.get(str(selection), str(selection))
    else:
        written = p.strategy.value.lower() in text.lower()
        keeps = STRATEGY_WORDS[p.strategy.value] + ("" if written else " (the default)")
    events = sample_streams.events(sample)
    try:  # the matcher `cep run` runs (match windows for event-set patterns, type rates for auto)
        choice = choose_run(p, "auto", "auto", rates=type_rates("auto", events),
                            interval=bool(s.mapping.get("lower_col")))
        n = len(run_all(choice.build(p), events))
        name = choice.inner if choice.windows else choice.engine
        engine = ENGINES[name].title if name in ENGINES else name
        if choice.windows:
            engine = f"{engine}, inside match windows"
        found = f"{n} match{'es' if n != 1 else ''} (engine: {engine})"
    except Exception as err:  # noqa: BLE001 - a card never breaks the page
        found = f"not run here: {escape.message(str(err).splitlines()[0])}"
    return keeps, len(events), found


cols = st.columns(2)
for k, card in enumerate(state.PRESET_CARDS):
    with cols[k % 2].container(border=True):
        st.subheader(card.title)
        st.markdown(escape.markdown(card.finds))
        s = sample_streams.load(card.sample)
        st.code(s.presets[card.preset].strip(), language="sql", wrap_lines=True)
        keeps, n_events, found = _card_facts(card.sample, card.preset)
        st.caption(f"Keeps: {escape.markdown(keeps)} · data: {escape.markdown(card.sample)}, {n_events} events · "
                   f"{escape.markdown(found)}")
        st.caption(f"Best seen on **{escape.markdown(card.page_label)}**: {escape.markdown(card.why_page)}.")
        c1, c2 = st.columns(2)
        c1.button("Open in Design", key=f"open_{card.sample}_{card.preset}", on_click=_open,
                  args=(card.sample, card.preset), type="primary", width="stretch")
        c2.button(f"Open in {card.page_label}", key=f"open_on_{card.sample}_{card.preset}", on_click=_open_on,
                  args=(card.sample, card.preset, card.page), width="stretch")

goto = st.session_state.pop("cep_goto", None)
if goto:
    st.switch_page(goto)

with st.expander("The pattern language in one screen"):
    st.code(
        """PATTERN SEQ(Stock+ a[], Stock b)          -- components: Type v, Type+ v[], Type* v[], Type? v, !Type v
WHERE skip_till_next_match                 -- strict_contiguity | partition_contiguity | skip_till_next_match
                                           --   | skip_till_any_match (the default when none is given)
  AND [symbol]                             -- every event of the match has the same symbol
  AND a[1].volume > 1000                   -- a[1] first, a[i] the one being added, a[i-1], a[last], a.len
  AND a[i].price > avg(a[..i-1].price)     -- avg|sum|min|max|count over the earlier elements
  AND b.volume < 80% * a[a.len].volume
WITHIN 1 hour                              -- or 90 s, 500 ms, 2 days, 500 events
-- groups: SEQ(A a, AND(B b, C c), OR(D d, E e)); OUTPUT NON_OVERLAP; AGG COUNT GROUP BY attr; RETURN b.price""",
        language="sql", wrap_lines=True)

glossary.in_the_papers(
    "The studio implements five research papers, each checked against a slow, obviously correct matcher: "
    "**SASE+** (Agrawal, Diao, Gyllstrom, Immerman: the pattern language, the four strategies and the "
    "NFA^b automaton with its shared buffer); **lazy evaluation** (Kolchinsky and Schuster: chain and tree "
    "automata that build partial matches from the rarest type first); **imprecise timestamps** (Zhang, "
    "Diao, Immerman: events known to lie in an interval, results with a confidence); **A-Seq** (Qi, Cao, "
    "Ray, Rundensteiner: counts and sums over matches without building them); **match windows** "
    "(Cadonna, Gamper, Böhlen: event-set patterns, earliest and maximal matches, and cheap tests that skip "
    "spans of the stream that cannot hold a match).")
