"""engine/bindings.py: a WHERE conjunct checked on complete bindings (variable -> events), as the
oracle, NFA^b's negation and SES read it: every element of an unindexed Kleene variable, every
``i`` in 2..len of an iterated one, vacuous on a variable bound to nothing; ``holds_last`` checks
only the cases of a prefix's new last element."""
from __future__ import annotations

import pytest

from engine.bindings import conjunct
from engine.dsl import parse
from engine.events import make_stream


def check(where: str):
    """The first WHERE conjunct of ``SEQ(A a, B+ b[], C c)`` (b Kleene)."""
    p = parse(f"PATTERN SEQ(A a, B+ b[], C c) WHERE {where}")
    return conjunct(p.where[0], {"b"})


def ev(*xs):
    return make_stream([{"type": "B", "id": i, "ts": i, "x": x} for i, x in enumerate(xs)])


A1, A5 = ev(1)[0], ev(5)[0]


@pytest.mark.parametrize("a,bs,want", [(A1, [2, 3], True), (A1, [2, 1], False), (A5, [6, 7], True),
                                       (A5, [9, 5], False)])
def test_an_unindexed_kleene_variable_holds_for_every_element(a, bs, want):
    assert check("b.x > a.x").holds({"a": [a], "b": ev(*bs)}) is want


@pytest.mark.parametrize("bs,want", [([1, 2, 3], True), ([1, 3, 2], False), ([3], True), ([2, 2], False)])
def test_an_iterated_variable_holds_for_every_i_from_2(bs, want):
    assert check("b[i].x > b[i-1].x").holds({"a": [A1], "b": ev(*bs)}) is want


def test_a_variable_bound_to_nothing_makes_it_hold():
    assert check("b.x > a.x").holds({"a": [A5], "b": []}) is True
    assert check("c.x > a.x").holds({"a": [A5], "b": ev(1)}) is True  # c not bound yet


def test_first_last_and_length():
    b = {"a": [A1], "b": ev(4, 9, 7)}
    assert check("b[1].x = 4").holds(b) and check("b[last].x = 7").holds(b) and not check("b[last].x = 9").holds(b)
    assert check("b.len = 3").holds(b) and not check("b.len > 3").holds(b)


def test_aggregates_over_the_prefix_and_over_all():
    b = {"a": [A1], "b": ev(2, 4, 9)}
    assert check("b[i].x > avg(b[..i-1].x)").holds(b)  # 4 > 2, 9 > 3
    assert not check("b[i].x > avg(b[..i-1].x)").holds({"a": [A1], "b": ev(2, 4, 3)})  # 3 > 3 fails
    assert check("sum(b[].x) = 15").holds(b) and not check("sum(b[].x) = 14").holds(b)


def test_holds_last_checks_only_the_new_last_element():
    bad_prefix = {"a": [A1], "b": ev(5, 0, 7)}  # 0 > 1 fails, but only 7 is new
    c = check("b.x > a.x")
    assert not c.holds(bad_prefix) and c.holds_last(bad_prefix, "b")
    assert not c.holds_last({"a": [A1], "b": ev(5, 0)}, "b")
    it = check("b[i].x > b[i-1].x")
    assert not it.holds(bad_prefix) and it.holds_last(bad_prefix, "b")  # only i = 3: 7 > 0
    assert not it.holds_last({"a": [A1], "b": ev(1, 3, 2)}, "b")


def test_the_conjunct_knows_its_variables_and_iteration():
    c = check("b[i].x > a.x")
    assert c.vars == {"a", "b"} and c.iter_var == "b" and c.unindexed_kleene == []
    u = check("b.x > a.x")
    assert u.iter_var is None and u.unindexed_kleene == ["b"]
