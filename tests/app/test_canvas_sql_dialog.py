"""The dialog of the SQL row pattern's canvas: a term's label, DEFINE and deletion, a box's
quantifier and a new term turned into the query text (pure), and the dialog's widgets run as a
small app (the dialog body on its own: AppTest reruns the whole script)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

from app.sql_canvas_dialog import (box_parts, delete_term, edit_box, edit_term, make_label, new_term, split_label,
                                   term_info)
from app.sql_edit import EditError, occurrences
from sample_streams.sql_queries import presets
from tests.app_support import shown

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

V_SHAPE = presets()["v_shape"].text


def _pattern_line(text: str) -> str:
    return next(ln.strip() for ln in text.splitlines() if ln.strip().startswith("PATTERN"))


def test_labels_split_and_join():
    assert split_label("UP+") == ("UP", "+")
    assert split_label("DOWN{2,}?") == ("DOWN", "{2,}?")
    assert make_label("FLAT", "*") == "FLAT*"
    assert make_label("B", "{2,3}") == "B{2,3}"
    with pytest.raises(EditError, match="variable name"):
        make_label(" ", "+")
    with pytest.raises(EditError):
        make_label("B", "+ C")


def test_editing_a_term_renames_it_everywhere_and_sets_its_define():
    res = edit_term(V_SHAPE, (2,), "RISE+?", "price > PREV(price) + 1")
    assert _pattern_line(res.text) == "PATTERN (STRT DOWN+ RISE+?)"
    assert "RISE AS price > PREV(price) + 1" in res.text and "SKIP TO LAST RISE" in res.text
    assert term_info(res.text, (2,))["define"] == "price > PREV(price) + 1"


def test_an_empty_define_removes_it_and_an_unchanged_edit_changes_nothing():
    res = edit_term(V_SHAPE, (2,), "UP+", "")
    assert "UP AS" not in res.text and res.notes[-1].startswith("removed the DEFINE of UP")
    same = edit_term(V_SHAPE, (2,), "UP+", "price > PREV(price)")
    assert not same.changed and same.text == V_SHAPE


def test_deleting_a_term_takes_its_define():
    res = delete_term(V_SHAPE, (1,))
    assert _pattern_line(res.text) == "PATTERN (STRT UP+)"
    assert "DOWN AS" not in res.text
    with pytest.raises(EditError, match="no longer"):
        delete_term(V_SHAPE, (7,))


def test_a_box_gets_a_quantifier():
    text = V_SHAPE.replace("PATTERN (STRT DOWN+ UP+)", "PATTERN (STRT (DOWN | UP)+ UP)")
    assert box_parts(text, (1,)) == ("( | )", "+")
    assert _pattern_line(edit_box(text, (1,), "*?").text) == "PATTERN (STRT (DOWN | UP)*? UP)"
    assert _pattern_line(edit_box(text, (1,), "").text) == "PATTERN (STRT (DOWN | UP) UP)"


@settings(max_examples=30, deadline=None)
@given(st_.data())
def test_add_then_delete_gives_the_query_back(data):
    name = data.draw(st_.sampled_from(list(presets())))
    text = presets()[name].text
    places = occurrences(text)
    where = data.draw(st_.sampled_from([None, *range(len(places))]))
    after = places[where][0] if where is not None else None
    quant = data.draw(st_.sampled_from(["", "+", "*", "?", "+?", "{2,}"]))
    added = new_term(text, make_label("ZNEW", quant), after, "")
    assert "ZNEW" in _pattern_line(added.text)
    path = next(p for p, label in occurrences(added.text) if label.startswith("ZNEW"))
    back = delete_term(added.text, path)
    assert back.text == text


# --------------------------------------------------------------------------- the dialog's widgets

def _app() -> None:
    import streamlit as st

    from app import sql_canvas_dialog

    sql_canvas_dialog.body(st.session_state.get("probe_path"))


def _dialog(path, text: str = V_SHAPE) -> AppTest:
    at = AppTest.from_function(_app, default_timeout=60)
    at.session_state["sql_text"] = text
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["probe_path"] = path
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _key(at: AppTest, name: str) -> str:
    n = at.session_state["sql_cd"]["n"] if "sql_cd" in at.session_state else 0
    return f"sqlcd{n}_{name}"


def test_the_dialog_edits_a_term():
    at = _dialog((2,))
    assert at.text_input(key=_key(at, "name")).value == "UP"
    assert at.selectbox(key=_key(at, "quant")).value == "+"
    assert at.text_input(key=_key(at, "define")).value == "price > PREV(price)"
    at.selectbox(key=_key(at, "quant")).set_value("other").run()
    at.text_input(key=_key(at, "quant_text")).set_value("{2,}").run()
    at.text_input(key=_key(at, "define")).set_value("price >= PREV(price)").run()
    at.button(key=_key(at, "save")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = at.session_state["sql_text"]
    assert _pattern_line(text) == "PATTERN (STRT DOWN+ UP{2,})" and "UP AS price >= PREV(price)" in text


def test_the_dialog_adds_and_deletes_a_term():
    at = _dialog(None)
    at.text_input(key=_key(at, "name")).set_value("FLAT").run()
    at.selectbox(key=_key(at, "quant")).set_value("*").run()
    at.text_input(key=_key(at, "define")).set_value("price = PREV(price)").run()
    at.selectbox(key=_key(at, "after")).set_value(0).run()
    at.button(key=_key(at, "save")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = at.session_state["sql_text"]
    assert _pattern_line(text) == "PATTERN (STRT FLAT* DOWN+ UP+)" and "FLAT AS price = PREV(price)" in text
    at = _dialog((1,), text)
    at.button(key=_key(at, "delete")).click().run()
    assert _pattern_line(at.session_state["sql_text"]) == "PATTERN (STRT DOWN+ UP+)"


def test_the_dialog_refuses_a_bad_quantifier_and_keeps_the_text():
    at = _dialog((2,))
    at.selectbox(key=_key(at, "quant")).set_value("other").run()
    at.text_input(key=_key(at, "quant_text")).set_value("{x}").run()
    at.button(key=_key(at, "save")).click().run()
    assert not at.exception
    assert at.error and at.session_state["sql_text"] == V_SHAPE


def test_the_sql_canvas_has_the_buttons_and_no_library_menus():
    import inspect

    from app import sql_canvas

    src = inspect.getsource(sql_canvas.render)
    assert "enableNodeMenu=False" in src and "enablePaneMenu=False" in src and "enableEdgeMenu=False" in src
    at = AppTest.from_file("../../app/pages/1_Design.py", default_timeout=90)
    at.session_state["lang"] = "sql"
    at.session_state["sql_preset"] = "v_shape"
    at.session_state["sql_text"] = V_SHAPE
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.button(key="sql_cd_open_add").label == "Add a term"
    assert at.button(key="sql_cd_open_edit").disabled
    at.session_state["sql_selected"] = "t:r.1"
    at.run()
    assert shown(at.button(key="sql_cd_open_edit").label) == "Edit DOWN+"
    assert not any("Right-click" in c.value for c in at.caption)
