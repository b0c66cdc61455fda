"""CEP Studio: home page with the preset cards (entry point of ``make run`` / ``cep serve``)."""
from __future__ import annotations


import streamlit as st

import sample_streams
from app import state, ui
from visualizers import escape

ui.page("Home", "🏠")

st.title("CEP Studio")
st.markdown(
    "CEP Studio finds **complex events** — patterns over a stream of events, such as *a rising run of "
    "stock prices followed by a drop in volume* — with the SASE+ pattern language. "
    "You build a pattern on a canvas or in the text DSL, see it compiled into an automaton, "
    "and run it in-process or on **Spark** over sample or uploaded data. "
    "Every match is listed, drawn on a timeline and can be downloaded."
)
st.info("**Event selection strategy.** A pattern without a strategy in its `WHERE` clause uses "
        "`skip_till_any_match`: every combination of events that fits the pattern is a match. Name another "
        "one to get fewer: `skip_till_next_match` (skip irrelevant events, take the next relevant one), "
        "`partition_contiguity` or `strict_contiguity`.", icon=":material/info:")
st.caption("Start from a preset: it opens the Design page with the pattern and its sample data loaded.")


def _open(sample: str, preset: str) -> None:
    state.load_preset(sample, preset)
    st.session_state["cep_goto"] = "pages/1_Design.py"


@st.cache_data(show_spinner=False)
def _card_facts(sample: str, preset: str) -> tuple[str, int, str]:
    """(strategy as the card states it, events in the sample, matches and the engine that found them)."""
    from engine.dsl import parse
    from engine.match import run_all
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    s = sample_streams.load(sample)
    text = s.presets[preset]
    p = parse(text)
    written = p.strategy.value.lower() in text.lower()
    strategy = f"`{p.strategy.value}`" + ("" if written else " (the default)")
    events = sample_streams.events(sample)
    try:  # the matcher `cep run` runs (match windows for event-set patterns, type rates for auto)
        choice = choose_run(p, "auto", "auto", rates=type_rates("auto", events),
                            interval=bool(s.mapping.get("lower_col")))
        n = len(run_all(choice.build(p), events))
        engine = f"match windows over {choice.inner}" if choice.windows else choice.engine
        found = f"{n} match{'es' if n != 1 else ''} ({engine})"
    except Exception as err:  # noqa: BLE001 - a card never breaks the page
        found = f"not run here: {escape.message(str(err).splitlines()[0])}"
    return strategy, len(events), found


cols = st.columns(2)
for k, (title, sample, preset, blurb) in enumerate(state.PRESET_CARDS):
    with cols[k % 2].container(border=True):
        st.subheader(title)
        st.markdown(blurb)
        s = sample_streams.load(sample)
        st.code(s.presets[preset].strip(), language="sql", wrap_lines=True)
        strategy, n_events, found = _card_facts(sample, preset)
        st.caption(f"strategy: {strategy} · data: `{sample}`, {n_events} events · {found}")
        st.button("Open in Design", key=f"open_{sample}_{preset}", on_click=_open, args=(sample, preset),
                  type="primary", width="stretch")

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
