"""engine/alternatives.py: ``?``, ``*`` and OR rewritten into alternatives of SEQ/AND over
one-event and ``+`` components, each with the variables it binds to nothing
(``SEQ(X, A*, Y) = SEQ(X, Y) ∪ SEQ(X, A+, Y)``), as the oracle and the compilers read them."""
from __future__ import annotations

from engine.alternatives import components, expand, positive
from engine.dsl import parse
from engine.model import Component, Group


def shape(item):
    """A reduced item as text: ``SEQ(a, b+, !n)`` (variables, ``+`` for Kleene, ``!`` negated)."""
    if item is None:
        return None
    if isinstance(item, Component):
        return ("!" if item.negated else "") + item.var + {"one": "", "plus": "+"}[item.quant]
    return f"{item.op}({', '.join(shape(i) for i in item.items)})"


def alternatives(text: str) -> list[tuple]:
    return [(shape(red), sorted(absent)) for red, absent in expand(parse(f"PATTERN {text}").root)]


def test_one_event_components_are_one_alternative():
    assert alternatives("SEQ(A a, B+ b[], !N n, C c)") == [("SEQ(a, b+, !n, c)", [])]


def test_optional_is_without_it_or_with_one_event():
    assert alternatives("SEQ(A a, B? b, C c)") == [("SEQ(a, c)", ["b"]), ("SEQ(a, b, c)", [])]


def test_star_is_without_it_or_plus():
    assert alternatives("SEQ(A a, B* b[], C c)") == [("SEQ(a, c)", ["b"]), ("SEQ(a, b+, c)", [])]


def test_or_is_each_branch_with_the_others_bound_to_nothing():
    assert alternatives("SEQ(A a, OR(B b, SEQ(C c, D d)))") == [
        ("SEQ(a, b)", ["c", "d"]), ("SEQ(a, SEQ(c, d))", ["b"])]


def test_alternatives_multiply():
    got = alternatives("AND(A? a, B* b[], OR(C c, D d))")
    assert len(got) == 8 and len(set(map(str, got))) == 8
    assert got[0] == ("AND(c)", ["a", "b", "d"]) and got[-1] == ("AND(a, b+, d)", ["c"])


def test_a_group_left_without_a_positive_component_binds_nothing():
    """SEQ(A? a, B? b) without both leaves no group: a and b bound to nothing."""
    assert alternatives("SEQ(X x, SEQ(A? a, B? b))") == [
        ("SEQ(x)", ["a", "b"]), ("SEQ(x, SEQ(b))", ["a"]), ("SEQ(x, SEQ(a))", ["b"]), ("SEQ(x, SEQ(a, b))", [])]


def test_components_and_positive():
    root = parse("PATTERN SEQ(A a, !N n, AND(B b, C c))").root
    assert [c.var for c in components(root)] == ["a", "n", "b", "c"]
    negation = root.items[1]
    assert positive(root) and positive(root.items[2]) and not positive(negation)
    assert not positive(Group(op="SEQ", items=[negation]))
