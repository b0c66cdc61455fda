"""AppTest of the MATCH_RECOGNIZE views (app/sql_views.py) on the Design, Automaton and Run pages:
the classic queries, errors with their caret, the program drawn, rows from a run, and hostile text
shown as text."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sample_streams.sql_queries import presets

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

PAGES = Path(__file__).resolve().parents[2] / "app" / "pages"


def page(name: str, query: str | None = None, preset: str = "v_shape") -> AppTest:
    at = AppTest.from_file(str(PAGES / name), default_timeout=90)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = preset
    at.session_state["sql_text"] = query if query is not None else presets()[preset].text
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("preset", list(presets()))
def test_design_shows_each_classic_query(preset: str) -> None:
    at = page("1_Design.py", preset=preset)
    assert not at.error
    assert any("PATTERN (" in c.value for c in at.code)
    assert any("Every column is in the table" in c.value for c in at.caption)


def test_an_error_is_shown_with_its_caret() -> None:
    at = page("1_Design.py", "SELECT * FROM ticker MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B+*) DEFINE A AS true)")
    assert "cannot follow another quantifier" in at.error[0].value
    assert any("^" in c.value and "line 1" in c.value for c in at.code)
    at = page("1_Design.py", presets()["v_shape"].text.replace("PREV(price)", "PREV(pryce)", 1))
    assert "no column" in at.error[0].value and "price" in at.error[0].value


def test_automaton_draws_the_program() -> None:
    at = page("2_Automaton.py")
    assert at.get("plotly_chart") and at.dataframe
    edges = at.dataframe[0].value
    assert len(edges) >= 4


def test_run_shows_the_rows() -> None:
    at = page("3_Run.py")
    at.button(key="sql_run").click().run()
    assert not at.exception
    rows = at.dataframe[0].value
    assert list(rows.columns) == ["symbol", "start_ts", "bottom_ts", "bottom", "end_ts"] and len(rows) == 6


def test_hostile_text_stays_text() -> None:
    q = ("SELECT * FROM ticker MATCH_RECOGNIZE (ORDER BY ts MEASURES '<img src=x onerror=alert(1)>' AS h "
         "PATTERN (A) DEFINE A AS symbol <> '**bold** <script>')")
    at = page("3_Run.py", q)
    at.button(key="sql_run").click().run()
    assert not at.exception
    for m in at.markdown:
        assert "<img" not in m.value and "<script" not in m.value
    assert at.dataframe[0].value["h"][0] == "<img src=x onerror=alert(1)>"


def test_learn_shows_the_candidates_in_preferment_order() -> None:
    at = AppTest.from_file(str(PAGES / "5_Learn.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    tables = [d.value for d in at.dataframe if "try" in d.value.columns]
    greedy, reluctant, bounded = tables
    assert list(greedy["result"])[-1] == "the match" and len(greedy) == 3
    assert list(greedy.iloc[0][["row 2", "row 3", "row 4", "row 5"]]) == ["B", "B", "B", "C"]
    assert len(reluctant) == 1 and list(reluctant.iloc[0][["row 2", "row 3"]]) == ["B", "C"]  # 14 > 12 at once
    assert "C is false on row 5" in greedy["result"][0] and "C is false on row 4" in greedy["result"][1]
    assert list(bounded.iloc[0][["row 2", "row 3", "row 4"]]) == ["B", "B", "C"]  # two B preferred, and it holds
    assert any("Match: a = 1, first_b = 2, last_b = 2, c = 3" in c.value for c in at.caption)


def test_debug_steps_through_the_threads() -> None:
    at = page("4_Debug.py")
    tables = [d.value for d in at.dataframe]
    assert any("thread" in t.columns for t in tables)
    for _ in range(3):
        at.button(key="sql_next").click().run()
        assert not at.exception
    actions = next(d.value for d in at.dataframe if "action" in d.value.columns)
    assert len(actions) >= 1
    assert any("match 1" in c.value.lower() or "row" in c.value.lower() for c in at.code)


def test_the_language_is_kept_across_pages() -> None:
    at = AppTest.from_file(str(PAGES / "1_Design.py"), default_timeout=90)
    at.run()
    at.session_state["lang"] = "sql"
    at.run()
    assert any("PATTERN (" in c.value for c in at.code)


def test_a_click_on_the_switch_changes_the_language() -> None:
    at = AppTest.from_file(str(PAGES / "1_Design.py"), default_timeout=90)
    at.run()
    assert not any("PATTERN (" in c.value for c in at.code)
    at.button_group(key="lang_widget").set_value("sql").run()
    assert not at.exception and at.session_state["lang"] == "sql"
    assert any("PATTERN (" in c.value for c in at.code)
