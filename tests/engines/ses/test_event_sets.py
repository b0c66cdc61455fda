"""Tests of engine/engines/ses/event_sets.py: the event-set analysis SES and match windows share.

- ``local_conjuncts`` / ``is_local``: θ^p_v is the WHERE conjuncts over one variable, element-wise (not
  ``b[i]``, ``b[i-1]``, ``.len``, aggregates, nor a conjunct over two variables);
- ``compile_properties``: None without properties, one test, the conjunction of several, attributes
  falling back to built-in fields;
- ``is_event_set_pattern``: an AND group of two or more items somewhere, or an earliest/maximal
  selection;
- ``ses_sets``: B1..Bk for a SEQ of components and AND groups, None for negation, optional, OR, nesting.
"""
from __future__ import annotations

import pytest

from engine.dsl import parse
from engine.engines.ses.event_sets import compile_properties, is_event_set_pattern, is_local, local_conjuncts, ses_sets
from engine.events import Event
from engine.expr import to_text


def texts(pattern: str) -> dict[str, list[str]]:
    return {v: sorted(to_text(n) for n in ns) for v, ns in local_conjuncts(parse(pattern)).items()}


def test_local_conjuncts() -> None:
    got = texts("PATTERN SEQ(A a, B+ b[], C c) WHERE a.x > 1 AND b[i].y > b[i-1].y AND b.len >= 2 "
                "AND c.z = 'q' AND a.x < c.x AND b.y < 5 AND avg(b[..i-1].y) > 0 AND c.z != 'r'")
    assert got == {"a": ["a.x > 1"], "b": ["b.y < 5"], "c": ["c.z != 'r'", "c.z = 'q'"]}


def test_no_where_gives_empty_lists() -> None:
    assert texts("PATTERN AND(A a, B b)") == {"a": [], "b": []}


def test_is_local() -> None:
    where = parse("PATTERN SEQ(A a, B+ b[]) WHERE a.x > 1 AND b[i].y > 2 AND b.len > 1 AND b.y + 1 > 3 "
                  "AND b[1].y > 2").where
    assert [is_local(n) for n in where] == [True, False, False, True, False]  # b[1]: one element of the run


def event(**attrs: object) -> Event:
    return Event(id=attrs.pop("id", 1), type="A", ts=0.0, seq=0, attrs=dict(attrs))


def test_compile_properties() -> None:
    assert compile_properties([]) is None
    p = parse("PATTERN SEQ(A a) WHERE a.x > 1 AND a.y = 'k' AND a.id < 5")
    one = compile_properties(p.where[:1])
    assert one is not None and one(event(x=2)) is True and one(event(x=1)) is False
    both = compile_properties(p.where)
    assert both is not None
    assert both(event(x=2, y="k")) is True
    assert both(event(x=2, y="j")) is False and both(event(x=0, y="k")) is False
    assert both(event(x=2, y="k", id=9)) is False  # ``a.id`` is the built-in id


@pytest.mark.parametrize("pattern, expected", [
    ("PATTERN SEQ(A a, B b)", False),
    ("PATTERN AND(A a, B b)", True),
    ("PATTERN SEQ(A a, AND(B b, C c))", True),
    ("PATTERN SEQ(A a, OR(B b, AND(C c, D d)))", True),
    ("PATTERN SEQ(A a, AND(B b))", False),
    ("PATTERN SEQ(A a, B b) WHERE earliest", True),
    ("PATTERN SEQ(A a, B b) WHERE maximal", True),
    ("PATTERN SEQ(A a, B+ b[]) WHERE skip_till_next_match", False),
])
def test_is_event_set_pattern(pattern: str, expected: bool) -> None:
    assert is_event_set_pattern(parse(pattern)) is expected


@pytest.mark.parametrize("pattern, expected", [
    ("PATTERN SEQ(A a, B b, C c)", [["a"], ["b"], ["c"]]),
    ("PATTERN SEQ(AND(A a, B b, C c), AND(D d, E e))", [["a", "b", "c"], ["d", "e"]]),
    ("PATTERN AND(A a, B+ b[])", [["a", "b"]]),
    ("PATTERN SEQ(A a, SEQ(B b), C c)", [["a"], ["b"], ["c"]]),
    ("PATTERN SEQ(A a, !B n, C c)", None),
    ("PATTERN SEQ(A a, B? b, C c)", None),
    ("PATTERN SEQ(A a, AND(B b, C? c), D d)", None),
    ("PATTERN SEQ(A a, OR(B b, C c))", None),
    ("PATTERN AND(A a, SEQ(B b, C c))", None),
    ("PATTERN SEQ(A a, SEQ(B b, C c))", None),
])
def test_ses_sets(pattern: str, expected: list[list[str]] | None) -> None:
    assert ses_sets(parse(pattern)) == expected
