"""The Design canvas dialog: the choices turned into a pattern (pure), and the dialog's widgets
run as a small app (AppTest reruns the whole script, so the dialog body is drawn on its own)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

import sample_streams
from app.canvas_choices import (START, Choices, NewPredicate, apply_choices, delete, literal, location, places,
                                predicates_of)
from app.edit import EditError, groups
from engine.dsl import parse, to_text

STOCK = "PATTERN SEQ(Stock a, AND(Stock b, Stock c), Stock d)\nWHERE a.price > 10 AND b.price > a.price\n"


def _presets() -> list[str]:
    out = []
    for name in sample_streams.names():
        out.extend(sample_streams.load(name).presets.values())
    return out


PRESETS = _presets()


# --------------------------------------------------------------------------- pure

def test_places_and_location_name_the_items_of_a_group():
    p = parse(STOCK)
    assert places(p, ()) == [(START, "nothing: first"), ("c:a", "Stock a"), ("g:1", "AND(Stock b, Stock c)"),
                             ("c:d", "Stock d")]
    assert places(p, (1,), skip="b") == [(START, "nothing: first"), ("c:c", "Stock c")]
    assert location(p, "a") == ((), START)
    assert location(p, "d") == ((), "g:1")
    assert location(p, "c") == ((1,), "c:b")


def test_a_new_component_goes_after_the_chosen_item_with_its_predicates():
    p = parse(STOCK)
    q, notes = apply_choices(p, Choices(type="Stock", var="e", quant="plus", after="g:1",
                                        add=[NewPredicate("price", ">", "5", element="i")]))
    assert to_text(q).splitlines()[0] == "PATTERN SEQ(Stock a, AND(Stock b, Stock c), Stock+ e[], Stock d)"
    assert "e[i].price > 5" in to_text(q)
    assert notes == ["added Stock+ e[]", "added the predicate e[i].price > 5"]
    q, _ = apply_choices(p, Choices(type="Stock", var="e", negated=True, group=(1,), after=START))
    assert to_text(q).splitlines()[0] == "PATTERN SEQ(Stock a, AND(!Stock e, Stock b, Stock c), Stock d)"


def test_editing_renames_moves_requantifies_and_removes_predicates():
    p = parse(STOCK)
    q, notes = apply_choices(p, Choices(type="Stock", var="z", quant="star", original="a", group=(1,),
                                        after="c:b", remove=[1],
                                        add=[NewPredicate("symbol", "=", "IBM", element="1"),
                                             NewPredicate("price", "<", other_var="d", other_attr="price")]))
    text = to_text(q)
    assert text.splitlines()[0] == "PATTERN SEQ(AND(Stock b, Stock* z[], Stock c), Stock d)"
    assert "z.price > 10" in text and "b.price" not in text
    assert "z[1].symbol = 'IBM'" in text and "z.price < d.price" in text
    assert notes[0] == "removed the predicate b.price > a.price"
    assert "changed Stock a to Stock* z[]" in notes


def test_the_refusals_say_what_and_why():
    p = parse(STOCK)
    with pytest.raises(EditError, match="already used"):
        apply_choices(p, Choices(type="Stock", var="b"))
    with pytest.raises(EditError, match="event type"):
        apply_choices(p, Choices(type=" ", var="e"))
    with pytest.raises(EditError, match="variable name"):
        apply_choices(p, Choices(type="Stock", var=""))
    with pytest.raises(EditError, match="at least one component"):
        delete(parse("PATTERN SEQ(A a)"), "a")


def test_delete_says_what_goes_with_the_component():
    q, notes = delete(parse(STOCK), "a")
    assert to_text(q).splitlines()[0] == "PATTERN SEQ(AND(Stock b, Stock c), Stock d)"
    assert notes[0] == "deleted Stock a"
    assert len(notes) == 3 and all("removed the predicate" in n for n in notes[1:])
    assert predicates_of(parse(STOCK), "a") == [(0, "a.price > 10"), (1, "b.price > a.price")]


@pytest.mark.parametrize("value, text", [("100", "100"), ("2.5", "2.5"), ("-3", "-3"), ("IBM", "'IBM'"),
                                         ("it's", "'it\\'s'"), ("nan", "'nan'"), ("inf", "'inf'")])
def test_a_value_is_a_number_or_a_quoted_text(value, text):
    assert literal(value) == text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st_.data())
def test_create_then_delete_gives_the_pattern_back(data):
    p = parse(data.draw(st_.sampled_from(PRESETS)))
    group = data.draw(st_.sampled_from([g for g, _ in groups(p)]))
    after = data.draw(st_.sampled_from([k for k, _ in places(p, group)]))
    var = data.draw(st_.sampled_from(["zz", "new", "v9"]).filter(lambda v: v not in p.variables))
    quant = data.draw(st_.sampled_from(["one", "plus", "star", "opt"]))
    preds = data.draw(st_.lists(st_.builds(NewPredicate, attr=st_.sampled_from(["price", "ts"]),
                                           op=st_.sampled_from(["=", "<", ">="]),
                                           value=st_.sampled_from(["1", "IBM", "2.5"])), max_size=2))
    q, _ = apply_choices(p, Choices(type="Stock", var=var, quant=quant, negated=data.draw(st_.booleans()),
                                    group=group, after=after, add=preds))
    assert var in q.variables and len(q.where) == len(p.where) + len(preds)
    back, _ = delete(q, var)
    assert back == p


@settings(max_examples=40, deadline=None)
@given(st_.data())
def test_saving_a_component_unchanged_keeps_the_pattern(data):
    p = parse(data.draw(st_.sampled_from(PRESETS)))
    var = data.draw(st_.sampled_from(p.variables))
    c = p.component(var)
    group, after = location(p, var)
    q, notes = apply_choices(p, Choices(type=c.type, var=c.var, quant=c.quant, negated=c.negated, original=var,
                                        group=group, after=after))
    assert q == p and notes == []


# --------------------------------------------------------------------------- the dialog's widgets

def _dialog_app() -> None:
    import streamlit as st

    from app import canvas_dialog, state

    state.init()
    canvas_dialog.body(st.session_state.get("probe_original"))


def _dialog(text: str, original: str | None = None) -> AppTest:
    at = AppTest.from_function(_dialog_app, default_timeout=60)
    at.session_state["cep_sample"] = "stocks_sase"
    at.session_state["cep_pattern"] = parse(text)
    at.session_state["cep_text"] = text
    at.session_state["cep_rev"] = 1
    at.session_state["probe_original"] = original
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _key(at: AppTest, name: str) -> str:
    return f"cd{at.session_state['cd_draft']['n']}_{name}"


def test_the_dialog_adds_a_component_of_a_type_from_the_data_with_a_predicate():
    at = _dialog("PATTERN SEQ(Stock a)\n")
    assert at.text_input(key=_key(at, "var")).value == "b"  # a fresh name
    types = at.selectbox(key=_key(at, "type")).options
    assert "Stock" in types and "ANY" in types
    at.radio(key=_key(at, "quant")).set_value("plus").run()
    at.selectbox(key=_key(at, "elem")).set_value("i").run()
    at.selectbox(key=_key(at, "attr")).set_value("price").run()
    at.selectbox(key=_key(at, "op")).set_value(">").run()
    at.text_input(key=_key(at, "value")).set_value("100").run()
    at.button(key=_key(at, "add_pred")).click().run()
    assert not at.exception
    assert any("b[i].price > 100" in m.value for m in at.markdown)
    at.button(key=_key(at, "save")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = at.session_state["cep_text"]
    assert text.splitlines()[0] == "PATTERN SEQ(Stock a, Stock+ b[])"
    assert "b[i].price > 100" in text
    assert at.session_state["cep_edit_from"] == "canvas"
    assert at.session_state["cep_notes"] == ["added Stock+ b[]", "added the predicate b[i].price > 100"]


def test_the_dialog_edits_a_component_its_quantifier_and_predicates():
    at = _dialog("PATTERN SEQ(Stock a, Stock b)\nWHERE a.price > 10 AND b.price > a.price\n", original="a")
    assert at.text_input(key=_key(at, "var")).value == "a"
    at.radio(key=_key(at, "quant")).set_value("plus").run()
    at.button(key=_key(at, "rm0")).click().run()  # remove a.price > 10
    assert any("removed when you save" in m.value for m in at.markdown)
    at.radio(key=_key(at, "kind")).set_value("another component's attribute").run()
    at.selectbox(key=_key(at, "elem")).set_value("last").run()
    at.selectbox(key=_key(at, "attr")).set_value("volume").run()
    at.selectbox(key=_key(at, "op")).set_value("<").run()
    at.selectbox(key=_key(at, "other_attr")).set_value("volume").run()
    at.button(key=_key(at, "add_pred")).click().run()
    at.button(key=_key(at, "save")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = at.session_state["cep_text"]
    assert text.splitlines()[0] == "PATTERN SEQ(Stock+ a[], Stock b)"
    assert "a.price > 10" not in text and "b.price > a.price" in text
    assert "a[a.len].volume < b.volume" in text  # [last], as the DSL prints it


def test_the_dialog_deletes_a_component_and_says_what_goes_with_it():
    at = _dialog("PATTERN SEQ(Stock a, Stock b)\nWHERE b.price > a.price\n", original="a")
    assert any("b.price > a.price" in c.value for c in at.caption)
    at.button(key=_key(at, "delete")).click().run()
    assert not at.exception
    assert at.session_state["cep_text"].splitlines()[0] == "PATTERN SEQ(Stock b)"
    assert "WHERE" not in at.session_state["cep_text"].replace("WHERE skip_till_any_match", "")


def test_the_dialog_refuses_a_taken_name_and_stays_open():
    at = _dialog("PATTERN SEQ(Stock a, Stock b)\n")
    at.text_input(key=_key(at, "var")).set_value("a").run()
    at.button(key=_key(at, "save")).click().run()
    assert not at.exception
    assert any("already used" in e.value for e in at.error)
    assert at.session_state["cep_text"] == "PATTERN SEQ(Stock a, Stock b)\n"


def test_without_data_the_type_is_written():
    at = AppTest.from_function(_dialog_app, default_timeout=60)
    at.session_state["cep_pattern"] = parse("PATTERN SEQ(Stock a)")
    at.session_state["cep_text"] = "PATTERN SEQ(Stock a)"
    at.session_state["cep_rev"] = 1
    at.session_state["cep_data"] = {"kind": "upload", "label": "x.csv", "schema": {}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.text_input(key=_key(at, "type_text")).set_value("Quote").run()
    at.text_input(key=_key(at, "var")).set_value("q").run()
    at.button(key=_key(at, "save")).click().run()
    assert at.session_state["cep_text"].splitlines()[0] == "PATTERN SEQ(Stock a, Quote q)"


def test_the_design_page_has_the_canvas_buttons_and_no_library_menus():
    at = AppTest.from_file("../../app/pages/1_Design.py", default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.button(key="cd_open_add").label == "Add a component"
    assert at.button(key="cd_open_edit").disabled
    at.session_state["cep_selected"] = "b"
    at.run()
    assert at.button(key="cd_open_edit").label == "Edit b" and not at.button(key="cd_open_edit").disabled
    assert not any("Right-click" in c.value for c in at.caption)
    import inspect

    from app import canvas

    src = inspect.getsource(canvas.render)
    assert "enable_pane_menu=False" in src and "enable_node_menu=False" in src and "enable_edge_menu=False" in src
