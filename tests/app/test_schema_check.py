"""Debug, Automaton, Learn and Aggregate check the pattern against the data exactly as the Run
page (and ``cep run``) does: an unknown attribute is a red error naming it, and the page shows
no trace, automaton or result for it (before, they traced it to 0 matches)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_support import ok, select_pattern, shown

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

PAGES = Path(__file__).resolve().parents[2] / "app" / "pages"
BAD = "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match AND a.prise > 10 AND b.price > a.price"
BAD_AGG = "PATTERN SEQ(Stock a, Stock b)\nWHERE a.prise > 10\nAGG COUNT"


def _open(page: str, text: str, sample: str = "stocks_sase") -> AppTest:
    at = AppTest.from_file(str(PAGES / page), default_timeout=120)
    select_pattern(at, sample, "", text=text, remember_preset=False)
    at.run()
    ok(at)
    return at


def _errors(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.error]


def _unknown_attribute(at: AppTest) -> bool:
    return any("prise" in e and "attribute" in e for e in _errors(at))


def test_debug_refuses_an_unknown_attribute_as_run_does():
    at = _open("4_Debug.py", BAD)
    assert _unknown_attribute(at), _errors(at)
    assert "dbg_traced" not in at.session_state  # nothing traced
    assert not any("events traced" in i.value for i in at.info)
    # the caret lines, as on the Run page
    assert any("a.prise" in c.value and "^" in c.value for c in at.code)


def test_debug_traces_a_pattern_the_data_answers():
    at = _open("4_Debug.py", BAD.replace("prise", "price"))
    assert not _errors(at)
    assert any("events traced" in i.value.replace("**", "") for i in at.info)


def test_automaton_refuses_an_unknown_attribute():
    at = _open("2_Automaton.py", BAD)
    assert _unknown_attribute(at), _errors(at)
    assert not at.get("plotly_chart")
    good = _open("2_Automaton.py", BAD.replace("prise", "price"))
    assert not _errors(good) and good.get("plotly_chart")


def test_learn_refuses_an_unknown_attribute_in_the_current_pattern():
    at = _open("5_Learn.py", BAD)
    at.radio(key="lrn_strat_src").set_value("current").run()
    ok(at)
    assert _unknown_attribute(at), _errors(at)
    assert not any(shown(m.value) == "**strict_contiguity**" for m in at.markdown)  # no strategy columns drawn
    stock = _open("5_Learn.py", BAD)
    assert any(shown(m.value) == "**strict_contiguity**" for m in stock.markdown)  # the paper's Q3: drawn


def test_learn_lazy_view_refuses_an_attribute_the_generated_stream_lacks():
    at = _open("5_Learn.py", BAD.replace("prise", "price"))
    at.text_area(key="lrn_lazy_pattern").input("PATTERN SEQ(A a, B b, C c)\nWHERE a.prise < c.price\nWITHIN 2 s").run()
    ok(at)
    assert _unknown_attribute(at), _errors(at)
    assert "lrn_lazy_fig" not in [c.key for c in at.get("plotly_chart") if hasattr(c, "key")]


def test_learn_match_windows_panel_refuses_an_unknown_attribute():
    at = _open("5_Learn.py", BAD)
    at.radio(key="mw_src").set_value("current").run()
    ok(at)
    assert sum("prise" in e for e in _errors(at)) >= 1


def test_aggregate_refuses_an_unknown_attribute_in_the_current_pattern():
    at = AppTest.from_file(str(PAGES / "7_Aggregate.py"), default_timeout=120)
    at.run()
    at.selectbox(key="agg_example").select("The current pattern on the sample data").run()
    select_pattern(at, "stocks_sase", "", text=BAD_AGG, remember_preset=False)
    at.run()
    ok(at)
    assert _unknown_attribute(at), _errors(at)
    t = at.session_state["agg_traced"] if "agg_traced" in at.session_state else None
    assert t is None or "prise" not in t.sig[1]  # the bad pattern was not traced
