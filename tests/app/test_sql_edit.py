"""Canvas edits written back into the MATCH_RECOGNIZE query text (app/sql_edit.py): each edit kind
by hand (quantifier, rename, delete, add after another and at the end, DEFINE), the rest of the
text kept as written, errors with their caret, and round trips over random patterns."""
from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.sql_edit import (EditError, add_term, apply_canvas, occurrences, parse_label, remove_define, rename_variable,
                          set_define)
from engine.engines.sql.parser import parse_query
from engine.engines.sql.row_pattern import Anchor, Empty, Quantified, Var, render
from sample_streams.sql_queries import presets
from tests.visualizers.test_sql_canvas import patterns, query
from visualizers.sql_canvas import node_at, query_to_canvas

V_SHAPE = presets()["v_shape"].text


def drawn(text: str) -> list[dict[str, Any]]:
    return copy.deepcopy(query_to_canvas(parse_query(text))[0])


def node(nodes: list[dict[str, Any]], node_id: str) -> dict[str, Any]:
    return next(n for n in nodes if n["id"] == node_id)


def relabel(text: str, node_id: str, label: str) -> str:
    nodes = drawn(text)
    n = node(nodes, node_id)
    n["data"]["content"] = label + "\n" + n["data"]["content"].split("\n", 1)[1]  # the first line edited
    return apply_canvas(text, nodes).text


def only_changed(before: str, after: str, old: str, new: str) -> None:
    """``after`` is ``before`` with ``old`` replaced by ``new`` once (everything else as written)."""
    assert before.count(old) >= 1
    assert after == before.replace(old, new, 1), after


# --------------------------------------------------------------------------- by hand

def test_an_echo_changes_nothing() -> None:
    res = apply_canvas(V_SHAPE, drawn(V_SHAPE))
    assert not res.changed and res.text == V_SHAPE and not res.notes


def test_a_new_quantifier() -> None:
    only_changed(V_SHAPE, relabel(V_SHAPE, "t:r.1", "DOWN{2,}?"), "PATTERN (STRT DOWN+ UP+)",
                 "PATTERN (STRT DOWN{2,}? UP+)")
    only_changed(V_SHAPE, relabel(V_SHAPE, "t:r.0", "STRT?"), "(STRT DOWN+", "(STRT? DOWN+")


def test_a_rename_renames_the_variable_everywhere_outside_strings() -> None:
    text = V_SHAPE.replace("DEFINE DOWN AS", "SUBSET U = (DOWN, UP)\n  DEFINE DOWN AS").replace(
        "LAST(DOWN.ts) AS bottom_ts", "LAST(DOWN.ts) AS bottom_ts, CLASSIFIER() = 'DOWN' AS c")
    out = relabel(text, "t:r.2", "RISE+")
    expected = (text.replace("PATTERN (STRT DOWN+ UP+)", "PATTERN (STRT DOWN+ RISE+)")
                .replace("LAST(UP.ts)", "LAST(RISE.ts)").replace("SKIP TO LAST UP", "SKIP TO LAST RISE")
                .replace("(DOWN, UP)", "(DOWN, RISE)").replace(", UP AS price", ", RISE AS price"))
    assert out == expected
    out = relabel(text, "t:r.1", "FALL+")
    assert "CLASSIFIER() = 'DOWN'" in out and "LAST(FALL.ts)" in out and "DEFINE FALL AS" in out


def test_renaming_one_of_two_places_renames_only_that_place() -> None:
    text = query("A B A", "DEFINE A AS x > 1")
    nodes = drawn(text)
    n = node(nodes, "t:r.2")
    n["data"]["content"] = n["data"]["content"].replace("A", "C", 1)
    res = apply_canvas(text, nodes)
    assert res.text == text.replace("PATTERN (A B A)", "PATTERN (A B C)")
    assert any("appears elsewhere" in note for note in res.notes)


def test_renaming_to_a_variable_in_use_drops_the_old_define() -> None:
    text = query("A B", "DEFINE A AS x > 1, B AS x < 1")
    assert relabel(text, "t:r.1", "A") == text.replace("PATTERN (A B)", "PATTERN (A A)").replace(", B AS x < 1", "")


def test_a_quoted_name_keeps_its_case() -> None:
    text = query("A b", "DEFINE A AS x > 1")
    out = relabel(text, "t:r.1", '"b"+')
    assert 'PATTERN (A "b"+)' in out
    assert parse_query(out).pattern.parts[1] == Quantified(Var("b", parse_query(out).pattern.parts[1].body.offset), 1,
                                                           None)


def test_a_label_that_is_not_a_term_is_refused_with_its_caret() -> None:
    with pytest.raises(EditError) as err:
        relabel(V_SHAPE, "t:r.1", "DOWN+*")
    assert "cannot follow another quantifier" in err.value.message
    assert err.value.detail is not None and "DOWN+*" in err.value.detail and "^" in err.value.detail
    with pytest.raises(EditError, match="no label"):
        relabel(V_SHAPE, "t:r.1", "  ")
    with pytest.raises(EditError, match="unexpected"):
        parse_label("A ) B")


def test_delete_a_term_and_its_define() -> None:
    nodes = [n for n in drawn(V_SHAPE) if n["id"] != "t:r.1"]
    res = apply_canvas(V_SHAPE, nodes)
    expected = V_SHAPE.replace("(STRT DOWN+ UP+)", "(STRT UP+)").replace("DOWN AS price < PREV(price), ", "")
    assert res.text == expected
    assert any("MEASURES" in n for n in res.notes)  # LAST(DOWN.ts) still names it: the person is told


def test_delete_the_last_define_removes_the_clause() -> None:
    text = query("A B", "DEFINE B AS x < PREV(x)")
    nodes = [n for n in drawn(text) if n["id"] != "t:r.1"]
    assert apply_canvas(text, nodes).text == text.replace("PATTERN (A B)", "PATTERN (A)").replace(
        "\n  DEFINE B AS x < PREV(x)", "")


def test_delete_an_option_and_everything() -> None:
    text = query("A (B | C)+", "DEFINE A AS x > 1")
    nodes = [n for n in drawn(text) if n["id"] != "t:r.1.0.0"]
    assert "PATTERN (A C+)" in apply_canvas(text, nodes).text
    nodes = [n for n in drawn(text) if not n["id"].startswith("t:")]
    out = apply_canvas(text, nodes).text
    assert "PATTERN ()" in out and "DEFINE" not in out
    parse_query(out)


def test_add_at_the_end_and_after_another() -> None:
    out = add_term(V_SHAPE, "FLAT*", None, "price = PREV(price)")
    assert out == V_SHAPE.replace("(STRT DOWN+ UP+)", "(STRT DOWN+ UP+ FLAT*)").replace(
        "UP AS price > PREV(price)", "UP AS price > PREV(price), FLAT AS price = PREV(price)")
    out = add_term(V_SHAPE, "FLAT*", (0,))
    assert out == V_SHAPE.replace("(STRT DOWN+ UP+)", "(STRT FLAT* DOWN+ UP+)")
    text = query("A (B | C)")
    assert "PATTERN (A (B D | C))" in add_term(text, "D", (1, 0))
    assert "PATTERN ((B | C) D)" in add_term(query("B | C"), "D")


def test_add_to_the_empty_pattern() -> None:
    text = query("", "DEFINE A AS x > 1")
    assert add_term(text, "A+") == text.replace("PATTERN ()", "PATTERN (A+)")
    nodes = drawn(text) + [{"id": "n1", "position": {"x": 300, "y": 0}, "data": {"content": "B"}}]
    assert apply_canvas(text, nodes).text == text.replace("PATTERN ()", "PATTERN (B)")


def test_a_define_added_on_its_own_line() -> None:
    text = presets()["drop_after_rise"].text
    out = add_term(text, "CALM", None, "volume < 10")
    assert "PATTERN (PERMUTE(RISE, HEAVY) DROP_ CALM)" in out
    assert "DROP_ AS price < PREV(price),\n         CALM AS volume < 10\n)" in out
    text = query("A", "")
    assert set_define(text, "A", "x > 2") == text.replace("PATTERN (A)\n", "PATTERN (A)\n  DEFINE A AS x > 2\n")


def test_a_node_created_on_the_pane_goes_where_it_was_dropped() -> None:
    nodes = drawn(V_SHAPE)
    x0, x1 = node(nodes, "t:r.0")["position"]["x"], node(nodes, "t:r.1")["position"]["x"]
    new = {"id": "n1", "position": {"x": (x0 + x1) / 2 + 10, "y": 0},
           "data": {"content": "FLAT*\n\nprice = PREV(price)"}}
    out = apply_canvas(V_SHAPE, nodes + [new]).text
    assert "PATTERN (STRT FLAT* DOWN+ UP+)" in out and "FLAT AS price = PREV(price)" in out
    new["position"] = {"x": 5000, "y": 0}
    assert "PATTERN (STRT DOWN+ UP+ FLAT*)" in apply_canvas(V_SHAPE, nodes + [new]).text
    # dropped inside the box of options: a new option, above or below
    text = query("A (B | C)", "DEFINE A AS x > 1")
    nodes = drawn(text)
    box = node(nodes, "g:r.1")
    below = {"id": "n2", "position": {"x": box["position"]["x"] + 20, "y": box["position"]["y"] + 400},
             "data": {"content": "D"}}
    box["style"]["height"] = "600px"
    assert "PATTERN (A (B | C | D))" in apply_canvas(text, nodes + [below]).text


def test_edit_a_define_on_the_node() -> None:
    nodes = drawn(V_SHAPE)
    n = node(nodes, "t:r.2")
    n["data"]["content"] = "UP+\n\n_one or more_\n\n`price >= PREV(price) + 1`"
    only_changed(V_SHAPE, apply_canvas(V_SHAPE, nodes).text, "UP AS price > PREV(price)",
                 "UP AS price >= PREV(price) + 1")
    n = node(nodes, "t:r.0")  # a variable without DEFINE gets one (plain text is read as written)
    n["data"]["content"] = "STRT\n\nprice > 0"
    out = apply_canvas(V_SHAPE, nodes).text
    assert "UP AS price >= PREV(price) + 1, STRT AS price > 0\n)" in out


def test_retouched_words_are_not_a_define() -> None:
    nodes = drawn(V_SHAPE)
    n = node(nodes, "t:r.1")
    n["data"]["content"] = "DOWN*\n\n_zero or more_\n\n`price < PREV(price)`"
    assert apply_canvas(V_SHAPE, nodes).text == V_SHAPE.replace("(STRT DOWN+ UP+)", "(STRT DOWN* UP+)")


def test_a_bad_define_is_refused_with_its_caret_in_the_condition() -> None:
    with pytest.raises(EditError) as err:
        set_define(V_SHAPE, "UP", "price > PREV(price) +")
    assert err.value.detail is not None
    assert err.value.detail.splitlines()[1].strip() == "price > PREV(price) +"
    assert err.value.detail.startswith("line 1, column")
    with pytest.raises(EditError, match="empty"):
        set_define(V_SHAPE, "UP", "  ")


def test_remove_define_and_rename_variable_directly() -> None:
    assert remove_define(V_SHAPE, "UP") == V_SHAPE.replace(", UP AS price > PREV(price)", "")
    assert remove_define(V_SHAPE, "NOPE") == V_SHAPE
    assert rename_variable(V_SHAPE, "STRT", "S") == V_SHAPE.replace("STRT.ts", "S.ts")  # PATTERN is not touched


# --------------------------------------------------------------------------- random patterns

def _names(text: str) -> list[str]:
    """The terms of the pattern left to right, by what they match: variable, anchor or ()."""
    out = []
    q = parse_query(text)
    for path, _label in occurrences(text):
        n = node_at(q.pattern, path)
        n = n.body if isinstance(n, Quantified) else n
        out.append(n.name if isinstance(n, Var) else n.kind if isinstance(n, Anchor) else "()")
        assert isinstance(n, (Var, Anchor, Empty))
    return out


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(patterns())
def test_an_echo_or_the_same_label_gives_back_the_same_text(pattern: str) -> None:
    text = query(pattern)
    assert apply_canvas(text, drawn(text)).text == text
    for path, label in occurrences(text):
        nodes = drawn(text)
        ids = [n for n in nodes if n["data"].get("path") == ".".join(["r", *map(str, path)])]
        first, rest = ids[0]["data"]["content"].split("\n", 1)
        ids[0]["data"]["content"] = f"  {first} \n{rest}"
        assert apply_canvas(text, nodes).text == text


@SETTINGS
@given(patterns(), st.data())
def test_delete_one_term(pattern: str, data: Any) -> None:
    text = query(pattern)
    terms = occurrences(text)
    if not terms:
        return
    k = data.draw(st.integers(0, len(terms) - 1))
    target = "t:" + ".".join(["r", *map(str, terms[k][0])])
    out = apply_canvas(text, [n for n in drawn(text) if n["id"] != target]).text
    before = _names(text)
    after = _names(out)
    # the others left to right (an empty pattern () left alone may be written PATTERN (), with no term)
    assert [n for n in after if n != "()"] == [n for n in before[:k] + before[k + 1:] if n != "()"]
    assert len(after) <= len(before) - 1 or after == ["()"]
    q = parse_query(out)
    for v in ("A", "B"):  # a variable the delete took out of the pattern lost its DEFINE, the others kept it
        was_there = v in parse_query(text).variables
        assert (v in q.defines) == (v in q.variables or not was_there)


@SETTINGS
@given(patterns(), st.data())
def test_add_after_a_term_or_at_the_end(pattern: str, data: Any) -> None:
    text = query(pattern)
    terms = occurrences(text)
    before = _names(text)
    if terms and data.draw(st.booleans()):
        k = data.draw(st.integers(0, len(terms) - 1))
        out = add_term(text, "D+", terms[k][0], "x = 7")
        expected = before[:k + 1] + ["D"] + before[k + 1:]
    else:
        out = add_term(text, "D+", None, "x = 7")
        expected = [b for b in before if terms] + ["D"]
    assert _names(out) == expected
    assert parse_query(out).defines["D"].text == "x = 7"


@SETTINGS
@given(patterns(), st.data())
def test_a_new_quantifier_changes_that_term_only(pattern: str, data: Any) -> None:
    text = query(pattern)
    terms = [(p, lab) for p, lab in occurrences(text) if lab not in ("^", "$", "()")]
    if not terms:
        return
    k = data.draw(st.integers(0, len(terms) - 1))
    suffix = data.draw(st.sampled_from(["", "*", "+?", "{2,3}", "{,4}?", "?"]))
    path, label = terms[k]
    term = parse_label(label)
    name = term.body.name if isinstance(term, Quantified) else term.name  # type: ignore[union-attr]
    new_label = render(Var(name)) + suffix
    out = relabel(text, "t:" + ".".join(["r", *map(str, path)]), new_label)
    assert _names(out) == _names(text)
    labels = [lab for _p, lab in occurrences(out) if lab not in ("^", "$", "()")]
    old_labels = [lab for _p, lab in terms]
    assert labels[:k] + labels[k + 1:] == old_labels[:k] + old_labels[k + 1:]
    parent = node_at(parse_query(text).pattern, path[:-1]) if path else None
    expected = parse_label(new_label)
    if isinstance(parent, Quantified) and isinstance(expected, Var):  # (A*)* -> A*: the group's quantifier is its own
        expected = Quantified(expected, parent.min, parent.max, parent.greedy)
    assert labels[k] == render(expected)


RICH = ("SELECT * FROM t MATCH_RECOGNIZE (\n  ORDER BY ts\n"
        "  MEASURES LAST(A.x) AS la, count(B.*) AS nb, A.x - B.x AS d\n"
        "  AFTER MATCH SKIP TO LAST A\n  PATTERN ({pattern})\n  SUBSET U = (A, B)\n"
        "  DEFINE A AS A.x > PREV(A.x),\n         B AS x < FIRST(A.x)\n) AS m\n")


@SETTINGS
@given(patterns(), st.data())
def test_a_rename_and_back_gives_back_the_text(pattern: str, data: Any) -> None:
    text = RICH.format(pattern=pattern)
    canonical = add_term(text, "Z")  # the pattern as render() writes it, with one more term
    names = _names(canonical)
    terms = [(p, lab) for p, lab in occurrences(canonical)  # a variable in one place: renamed everywhere
             if parse_label(lab) in (Var("A"), Var("B")) and names.count(lab) == 1]
    if not terms:
        return
    path, label = data.draw(st.sampled_from(terms))
    node_id = "t:" + ".".join(["r", *map(str, path)])
    renamed = relabel(canonical, node_id, "Q")
    assert "Q AS" in renamed and f"{label}." not in renamed.split("PATTERN")[0]
    assert relabel(renamed, node_id, label) == canonical
    assert set_define(canonical, label, parse_query(canonical).defines[label].text) == canonical


def test_a_box_header_sets_the_group_quantifier() -> None:
    text = query("A (B | C)+ PERMUTE(A, B)", "DEFINE A AS x > 1")

    def header(node_id: str, symbol: str) -> str:
        nodes = drawn(text)
        n = node(nodes, node_id)
        n["data"]["content"] = f"**{symbol}** · whatever the words say"
        return apply_canvas(text, nodes).text

    only_changed(text, header("g:r.1", "( | )*?"), "(B | C)+", "(B | C)*?")
    only_changed(text, header("g:r.1", "( | )"), "A (B | C)+ PERMUTE", "A (B | C) PERMUTE")
    only_changed(text, header("g:r.2", "PERMUTE{2}"), "PERMUTE(A, B))", "PERMUTE(A, B){2})")
    with pytest.raises(EditError, match="does not start with"):
        header("g:r.1", "PERMUTE+")
    with pytest.raises(EditError, match="not a quantifier"):
        header("g:r.1", "( | ) B")
    assert header("g:r.1", "( | )+") == text  # the same quantifier: nothing changes
