"""The row pattern on the Design page's canvas in SQL mode (app/sql_canvas.py): drawn for every
classic query without exception, the forms beside it write the query text (and the editor shows
it), a value from the browser is applied once, not when it was drawn from an older text, and a
bad edit is shown with its caret."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from app import sql_canvas
from engine.engines.sql.parser import parse_query
from sample_streams.sql_queries import presets
from tests.app.test_pattern_editor import editor_args
from tests.visualizers.test_sql_canvas import _outside_code_spans
from visualizers.sql_canvas import query_to_canvas

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

DESIGN = str(Path(__file__).resolve().parents[2] / "app" / "pages" / "1_Design.py")
V_SHAPE = presets()["v_shape"].text


def design(query: str | None = None, preset: str = "v_shape") -> AppTest:
    at = AppTest.from_file(DESIGN, default_timeout=90)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = preset
    at.session_state["sql_text"] = query if query is not None else presets()[preset].text
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def canvas_labels(at: AppTest) -> list[str]:
    return [n.data["term"] for n in at.session_state["sql_flow"].nodes]


@pytest.mark.parametrize("preset", list(presets()))
def test_each_classic_query_is_drawn(preset: str) -> None:
    at = design(preset=preset)
    assert any(m.value == "##### Pattern canvas" for m in at.markdown)
    q = parse_query(presets()[preset].text)
    assert canvas_labels(at) == [n["data"]["term"] for n in query_to_canvas(q)[0]]


def test_the_canvas_follows_the_text_and_the_forms_write_it() -> None:
    at = design()
    assert canvas_labels(at) == ["STRT", "DOWN+", "UP+"]
    at.text_input(key="sql_add_label").input("FLAT*")
    at.selectbox(key="sql_add_after").select(0)
    at.text_input(key="sql_add_define").input("price = PREV(price)")
    at.button(key="FormSubmitter:sql_canvas_add-Add the term").click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = at.session_state["sql_text"]
    assert "PATTERN (STRT FLAT* DOWN+ UP+)" in text and "FLAT AS price = PREV(price)" in text
    assert editor_args(at, "sql_code_v_shape")["text"] == text  # the editor shows the new text
    assert canvas_labels(at) == ["STRT", "FLAT*", "DOWN+", "UP+"]
    assert any("added" in i.value for i in at.info)
    # a condition that does not parse: the error and its caret, the text unchanged
    at.selectbox(key="sql_define_var").select("UP")
    at.text_input(key="sql_define_text").input("price > PREV(price) +")
    at.button(key="FormSubmitter:sql_canvas_define-Set the DEFINE").click().run()
    assert not at.exception
    assert at.session_state["sql_text"] == text
    assert any("price > PREV(price) +" in c.value and "^" in c.value for c in at.code)


def test_hostile_names_reach_the_page_as_text() -> None:
    q = ('SELECT * FROM ticker MATCH_RECOGNIZE (ORDER BY ts PATTERN (A "<script>alert(1)</script>"+) '
         'DEFINE "<script>alert(1)</script>" AS symbol <> \'<img src=x onerror=alert(1)>\')')
    at = design(q)
    for m in at.markdown:
        assert "<script" not in m.value and "<img" not in m.value
    for n in at.session_state["sql_flow"].nodes:  # as drawn on the canvas: escaped outside code spans
        assert "<" not in _outside_code_spans(n.data["content"]).replace("\\<", "")


def test_a_query_with_an_error_draws_no_canvas() -> None:
    at = design("SELECT * FROM ticker MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B+*) DEFINE A AS true)")
    assert at.error and not any(m.value == "##### Pattern canvas" for m in at.markdown)


# --------------------------------------------------------------------------- values from the browser

@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A session state for :func:`sql_canvas.receive` with the v_shape canvas drawn (build 1)."""
    ss: dict[str, Any] = {"sql_text": V_SHAPE, "sql_preset": "v_shape", "sql_editor_v_shape": V_SHAPE,
                          "sql_editor_w_shape": "an older text"}
    monkeypatch.setattr(sql_canvas.st, "session_state", ss)
    sql_canvas.flow_state(parse_query(V_SHAPE), V_SHAPE)
    return ss


def _value(ss: dict[str, Any], timestamp: int) -> dict[str, Any]:
    return {"nodes": [copy.deepcopy(n.asdict()) for n in ss["sql_flow"].nodes],
            "edges": [copy.deepcopy(e.asdict()) for e in ss["sql_flow"].edges], "timestamp": timestamp,
            "selectedId": None}


def test_a_value_is_applied_once(session: dict[str, Any]) -> None:
    value = _value(session, 7)
    value["nodes"] = [n for n in value["nodes"] if n["id"] != "t:r.2"]
    assert sql_canvas.receive(value)
    assert "PATTERN (STRT DOWN+)" in session["sql_text"] and session["sql_editor_v_shape"] == session["sql_text"]
    assert "sql_editor_w_shape" not in session  # drawn again from sql_text when that preset is picked
    changed = session["sql_text"]
    session["sql_text"] = session["sql_editor_v_shape"] = V_SHAPE  # the same value again: not read
    assert not sql_canvas.receive(value) and session["sql_text"] == V_SHAPE
    assert "UP" not in changed.split("DEFINE")[1]


def test_a_value_drawn_from_an_older_text_is_not_applied(session: dict[str, Any]) -> None:
    old = _value(session, 8)
    newer = V_SHAPE.replace("UP+)", "UP+ FLAT)")
    session["sql_text"] = session["sql_editor_v_shape"] = newer  # typed in the editor: the canvas is drawn again
    sql_canvas.flow_state(parse_query(newer), newer)
    old["nodes"] = [n for n in old["nodes"] if n["id"] != "t:r.0"]
    assert sql_canvas.receive(old)
    assert session["sql_text"] == newer and session["sql_flow_text"] is None  # drawn again, not applied


def test_a_bad_label_is_an_error_and_the_canvas_is_drawn_again(session: dict[str, Any]) -> None:
    value = _value(session, 9)
    n = next(n for n in value["nodes"] if n["id"] == "t:r.1")
    n["data"]["content"] = "DOWN{3,1}\n\n_one or more_"
    sql_canvas.receive(value)
    text, message, detail = session["sql_canvas_error"]
    assert text == V_SHAPE and "upper bound is below" in message and "^" in detail
    assert session["sql_text"] == V_SHAPE and session["sql_flow_text"] is None


def test_an_edit_that_changes_nothing_draws_the_canvas_again(session: dict[str, Any]) -> None:
    value = _value(session, 10)
    n = next(n for n in value["nodes"] if n["id"] == "t:r.1")
    n["data"]["content"] = "DOWN{1,}\n\n_one or more_"  # the same quantifier, written otherwise
    session["sql_flow_text"] = V_SHAPE
    assert sql_canvas.receive(value)
    assert session["sql_text"] == V_SHAPE and session["sql_flow_text"] is None
    echo = _value(session, 11)  # the echo after a redraw changes nothing and draws nothing
    session["sql_flow_text"] = V_SHAPE
    assert sql_canvas.receive(echo) and session["sql_flow_text"] == V_SHAPE


def test_a_value_sent_with_a_change_typed_in_the_editor_is_not_applied(session: dict[str, Any]) -> None:
    value = _value(session, 12)
    value["nodes"] = [n for n in value["nodes"] if n["id"] != "t:r.2"]
    typed = V_SHAPE.replace("UP+)", "UP+ FLAT)")
    session["sql_editor_v_shape"] = typed  # the same rerun brings the editor's new text
    assert sql_canvas.receive(value)
    assert session["sql_text"] == V_SHAPE and session["sql_editor_v_shape"] == typed
    assert session["sql_flow_text"] is None  # the typed text is drawn next
