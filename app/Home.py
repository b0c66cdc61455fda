"""CEP Studio: home page with the preset cards (entry point of ``make run`` / ``cep serve``)."""
from __future__ import annotations

import streamlit as st

import sample_streams
from app import state, ui

ui.page("Home", "🏠")

st.title("CEP Studio")
st.markdown(
    "CEP Studio finds **complex events** — patterns over a stream of events, such as *a rising run of "
    "stock prices followed by a drop in volume* — with the SASE+ pattern language. "
    "You build a pattern on a canvas or in the text DSL, see it compiled into an NFA^b automaton, "
    "and run it on **Spark** over sample or uploaded data. "
    "Every match is listed, drawn on a timeline and can be downloaded."
)
st.caption("Start from a preset: it opens the Design page with the pattern and its sample data loaded.")


def _open(sample: str, preset: str) -> None:
    state.load_preset(sample, preset)
    st.session_state["cep_goto"] = "pages/1_Design.py"


cols = st.columns(3)
for k, (title, sample, preset, blurb) in enumerate(state.PRESET_CARDS):
    with cols[k % 3].container(border=True):
        st.subheader(title)
        st.write(blurb)
        s = sample_streams.load(sample)
        st.code(s.presets[preset].strip(), language="sql")
        st.caption(f"data: `{sample}` · {len(s.frame())} events")
        st.button("Open in Design", key=f"open_{sample}_{preset}", on_click=_open, args=(sample, preset),
                  type="primary", width="stretch")

goto = st.session_state.pop("cep_goto", None)
if goto:
    st.switch_page(goto)

with st.expander("The pattern language in one screen"):
    st.code(
        """PATTERN SEQ(Stock+ a[], Stock b)          -- components: Type v, Type+ v[], Type* v[], Type? v, !Type v
WHERE skip_till_next_match                 -- strict_contiguity | partition_contiguity | skip_till_next_match | skip_till_any_match
  AND [symbol]                             -- every event of the match has the same symbol
  AND a[1].volume > 1000                   -- a[1] first, a[i] the one being added, a[i-1], a[last], a.len
  AND a[i].price > avg(a[..i-1].price)     -- avg|sum|min|max|count over the earlier elements
  AND b.volume < 80% * a[a.len].volume
WITHIN 1 hour                              -- or 90 s, 500 ms, 2 days, 500 events
-- groups: SEQ(A a, AND(B b, C c), OR(D d, E e)); OUTPUT NON_OVERLAP; AGG COUNT GROUP BY attr""",
        language="sql")
