"""The printer (engine/dsl/printer.py): :func:`component_text`, :func:`item_text`,
:func:`_window_text` and :func:`to_text` on hand-built models, worked canonical texts, the
refusal of groups nested too deep, and ``parse(to_text(m)) == m`` on the worked models."""
from __future__ import annotations

import pytest

from engine import expr as X
from engine.dsl.parser import parse
from engine.dsl.printer import _conjunct_text, _window_text, component_text, item_text, to_text
from engine.model import (
    Aggregate,
    Component,
    Group,
    Pattern,
    PatternError,
    ReturnItem,
    Selection,
    Strategy,
    Window,
)


def comp(typ: str, var: str, quant: str = "one", negated: bool = False) -> Component:
    return Component(type=typ, var=var, quant=quant, negated=negated)


@pytest.mark.parametrize("c, text", [
    (comp("A", "a"), "A a"),
    (comp("A", "A"), "A"),  # the variable is the type: written once
    (comp("A", "A", "opt"), "A?"),
    (comp("A", "A", "plus"), "A+ A[]"),  # a Kleene variable always shows its []
    (comp("B", "b", "plus"), "B+ b[]"),
    (comp("B", "b", "star"), "B* b[]"),
    (comp("B", "b", "opt"), "B? b"),
    (comp("B", "b", negated=True), "!B b"),
    (comp("B", "B", negated=True), "!B"),
])
def test_component_text(c: Component, text: str) -> None:
    assert component_text(c) == text


def test_item_text_of_nested_groups() -> None:
    g = Group(op="SEQ", items=[comp("A", "a"), Group(op="OR", items=[comp("B", "b"), comp("C", "C")]),
                               Group(op="AND", items=[comp("D", "d", "plus")])])
    assert item_text(g) == "SEQ(A a, OR(B b, C), AND(D+ d[]))"
    assert item_text(comp("A", "a")) == "A a"


@pytest.mark.parametrize("w, text", [
    (Window(value=3), "3"),
    (Window(value=0.5), "0.5"),
    (Window(value=1, unit="hour"), "1 hour"),
    (Window(value=2, unit="hour"), "2 hours"),
    (Window(value=1, unit="day"), "1 day"),
    (Window(value=16, unit="day"), "16 days"),
    (Window(value=1.5, unit="day"), "1.5 days"),
    (Window(value=500, unit="events"), "500 events"),
    (Window(value=2.5, unit="s"), "2.5 s"),
    (Window(value=10, unit="min"), "10 min"),
    (Window(value=250, unit="ms"), "250 ms"),
])
def test_window_text(w: Window, text: str) -> None:
    assert _window_text(w) == text


def test_conjunct_text_parenthesizes_boolean_operators_only() -> None:
    a = X.Cmp(op=">", left=X.Ref(var="a", attr="x"), right=X.Num(value=1))
    b = X.Cmp(op="<", left=X.Ref(var="b", attr="y"), right=X.Num(value=2))
    assert _conjunct_text(a) == "a.x > 1"
    assert _conjunct_text(X.BoolOp(op="OR", items=[a, b])) == "(a.x > 1 OR b.y < 2)"
    assert _conjunct_text(X.Not(item=a)) == "NOT a.x > 1"


def test_minimal_pattern_text() -> None:
    p = Pattern(root=Group(op="SEQ", items=[comp("A", "A")]))
    assert to_text(p) == "PATTERN SEQ(A)\nWHERE skip_till_any_match\n"


def test_every_clause_in_canonical_order() -> None:
    a = X.Ref(var="a", attr="x")
    p = Pattern(
        root=Group(op="SEQ", items=[comp("A", "a"), comp("B", "b", negated=True), comp("C", "c", "plus")]),
        strategy=Strategy.NEXT,
        selection=Selection.MAXIMAL,
        equivalence=["id", "k"],
        where=[X.BoolOp(op="OR", items=[X.Cmp(op=">", left=a, right=X.Num(value=1)),
                                        X.Cmp(op="<", left=X.Ref(var="c", attr="y", index="i"), right=X.Num(value=2))]),
               X.Not(item=X.Cmp(op="=", left=a, right=X.Num(value=3)))],
        window=Window(value=14, unit="day"),
        output="NON_OVERLAP",
        aggregate=Aggregate(func="SUM", var="c", attr="y", group_by=["id"]),
        returns=[ReturnItem(var="a"),
                 ReturnItem(expr=X.BinOp(op="+", left=X.Ref(var="c", attr="y"), right=X.Num(value=1)), alias="z"),
                 ReturnItem(var="b", alias="bee")],
    )
    assert to_text(p) == (
        "PATTERN SEQ(A a, !B b, C+ c[])\n"
        "WHERE skip_till_next_match\n"
        "  AND maximal\n"
        "  AND [id, k]\n"
        "  AND (a.x > 1 OR c[i].y < 2)\n"
        "  AND NOT a.x = 3\n"
        "WITHIN 14 days\n"
        "OUTPUT NON_OVERLAP\n"
        "AGG SUM(c.y)\n"
        "GROUP BY id\n"
        "RETURN a, c.y + 1 AS z, b AS bee\n"
    )


def test_count_aggregate_has_no_argument() -> None:
    p = Pattern(root=Group(op="SEQ", items=[comp("A", "a")]), aggregate=Aggregate(func="COUNT"))
    assert to_text(p).splitlines()[-1] == "AGG COUNT"


def test_defaults_are_not_written() -> None:
    p = Pattern(root=Group(op="SEQ", items=[comp("A", "a")]), selection=Selection.ALL, output="ALL")
    text = to_text(p)
    assert "OUTPUT" not in text and "all" not in text.split("\n", 1)[1] and "WITHIN" not in text


@pytest.mark.parametrize("src", [
    "PATTERN SEQ(A a, OR(B b, C c), D? d)\nWHERE skip_till_any_match\n  AND a.x % 2 = 0\n"
    "WITHIN 1 hour\n",
    "PATTERN SEQ(A a, B+ b[])\nWHERE partition_contiguity\n  AND [id]\n  AND b[i].x > b[i-1].x\n  AND avg(b[..i-1].x) < 5%\n",
    "PATTERN AND(A a, B b)\nWHERE skip_till_any_match\nWITHIN 500 events\nRETURN a.x * -2 AS m\n",
])
def test_canonical_text_is_a_fixed_point(src: str) -> None:
    m = parse(src)
    assert to_text(m) == src
    assert parse(to_text(m)) == m


def test_groups_nested_too_deep_are_refused_not_a_recursion_error() -> None:
    item: Component | Group = comp("A", "a")
    for _ in range(X.MAX_NESTING):
        item = Group(op="SEQ", items=[item])
    assert to_text(Pattern(root=item)).startswith("PATTERN " + "SEQ(" * X.MAX_NESTING + "A a")
    deeper = Group(op="SEQ", items=[item], span=(3, 4, 5))
    with pytest.raises(PatternError) as info:
        to_text(Pattern(root=deeper))
    assert info.value.message == f"nesting deeper than {X.MAX_NESTING} levels"
