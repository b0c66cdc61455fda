"""The lazy engines' compiled predicates: comparisons over slot attributes (``expr.slot_attr``)
compile to specialised closures that must agree with the generic comparison on every value,
including missing attributes, built-in fields, None, mixed types and constants on either side."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import Event
from engine.expr import (BinOp, Bool, BoolOp, Cmp, Node, Not, Num, Ref, Str, compile_conjunction, compile_expr,
                         event_attr, returns_bool, slot_attr)

OPS = ["=", "!=", "<", "<=", ">", ">="]
SLOTS = {"a": 0, "b": 1}

values = st.one_of(st.integers(0, 2), st.sampled_from([1.0, 1.5, None, "x", "y", True]))
# ``p`` is always there (the fast path), ``q`` sometimes (missing: the generic path)
attrs = st.fixed_dictionaries({"p": values}, optional={"q": values})


def generic(node: Node) -> Any:
    """The reference: the same expression with untagged getters (``Event.get``)."""
    def resolve(n: Any) -> Any:
        s, a = SLOTS[n.var], n.attr
        return lambda v: v[s].get(a)
    return compile_expr(node, resolve)


def fast(node: Node) -> Any:
    return compile_expr(node, lambda n: slot_attr(SLOTS[n.var], n.attr))


def operand(kind: str, var: str, attr: str, const: Any) -> Node:
    if kind == "ref":
        return Ref(var=var, attr=attr)
    if isinstance(const, bool):
        return Bool(value=const)
    if isinstance(const, str):
        return Str(value=const)
    return Num(value=const)


@settings(max_examples=1500, deadline=None)
@given(op=st.sampled_from(OPS), left=st.sampled_from(["ref", "ref", "const"]),
       right=st.sampled_from(["ref", "ref", "const"]),
       la=st.sampled_from(["p", "p", "q", "ts", "seq"]), ra=st.sampled_from(["p", "p", "q", "ts", "id"]),
       lc=st.one_of(st.integers(0, 2), st.sampled_from([1.5, "x", True])),
       rc=st.one_of(st.integers(0, 2), st.sampled_from(["y"])), x=attrs, y=attrs,
       ts=st.sampled_from([0.0, 1.0, 2.5]))
def test_specialised_comparison_agrees_with_generic(op: str, left: str, right: str, la: str, ra: str, lc: Any,
                                                    rc: Any, x: dict[str, Any], y: dict[str, Any],
                                                    ts: float) -> None:
    node = Cmp(op=op, left=operand(left, "a", la, lc), right=operand(right, "b", ra, rc))
    vals = [Event(id=1, type="A", ts=ts, seq=0, attrs=x), Event(id=2, type="B", ts=1.0, seq=1, attrs=y)]
    got = fast(node)(vals)
    assert got is generic(node)(vals)
    assert got is True or got is False


@settings(max_examples=600, deadline=None)
@given(op=st.sampled_from(OPS), const_left=st.booleans(), attr=st.sampled_from(["p", "p", "q", "ts", "type"]),
       c=st.one_of(st.integers(0, 2), st.sampled_from([1.5, "x", "A", True, 0.0])), x=attrs,
       ts=st.sampled_from([0.0, 1.0]))
def test_unary_filter_on_the_event_agrees_with_generic(op: str, const_left: bool, attr: str, c: Any,
                                                       x: dict[str, Any], ts: float) -> None:
    """The unary filters' form (the context is the event itself, ``expr.event_attr``)."""
    ref, k = Ref(var="a", attr=attr), operand("const", "a", attr, c)
    node = Cmp(op=op, left=k, right=ref) if const_left else Cmp(op=op, left=ref, right=k)
    ev = Event(id=1, type="A", ts=ts, seq=0, attrs=x)
    got = compile_expr(node, lambda n: event_attr(n.attr))(ev)
    want = compile_expr(node, lambda n: (lambda e, a=n.attr: e.get(a)))(ev)
    assert got is want


def test_comparison_of_slot_attributes_is_specialised() -> None:
    """The tag is what makes the difference: a comparison of two slot attributes, or of one
    and a constant on either side, is not the generic closure (which calls the getters)."""
    g = generic(Cmp(op="<", left=Ref(var="a", attr="p"), right=Ref(var="b", attr="p")))
    for node in (Cmp(op="<", left=Ref(var="a", attr="p"), right=Ref(var="b", attr="p")),
                 Cmp(op="<", left=Ref(var="a", attr="p"), right=Num(value=3)),
                 Cmp(op="<", left=Num(value=3), right=Ref(var="a", attr="p"))):
        f = fast(node)
        assert f.__code__ is not g.__code__
        assert f.__name__ in ("f", "g")  # the per-operator closures of expr.fast_compare.attribute_comparison
    ev = [Event(id=1, type="A", ts=0.0, seq=0, attrs={"p": 1}), Event(id=2, type="A", ts=0.0, seq=1, attrs={"p": 5})]
    assert fast(Cmp(op="<", left=Num(value=3), right=Ref(var="b", attr="p")))(ev) is True
    assert fast(Cmp(op="<", left=Num(value=3), right=Ref(var="a", attr="p")))(ev) is False


def test_boolean_nodes_return_bools_without_wrapping() -> None:
    ev = [Event(id=1, type="A", ts=0.0, seq=0, attrs={"p": 1}), Event(id=2, type="A", ts=0.0, seq=1, attrs={"p": 5})]
    lt = Cmp(op="<", left=Ref(var="a", attr="p"), right=Ref(var="b", attr="p"))
    gt = Cmp(op=">", left=Ref(var="a", attr="p"), right=Ref(var="b", attr="p"))
    for node, want in ((BoolOp(op="AND", items=[lt, gt]), False), (BoolOp(op="OR", items=[gt, lt]), True),
                       (BoolOp(op="AND", items=[lt, lt, lt]), True), (BoolOp(op="OR", items=[gt, gt, gt]), False)):
        assert returns_bool(node)
        assert fast(node)(ev) is want
        assert generic(node)(ev) is want
    # an arithmetic item of AND/OR is still made a bool
    num = BoolOp(op="AND", items=[Ref(var="a", attr="p"), lt])
    assert not returns_bool(Ref(var="a", attr="p"))
    assert fast(num)(ev) is True


cmp_nodes = st.builds(lambda op, la, ra, lv, rv: Cmp(op=op, left=Ref(var=lv, attr=la), right=Ref(var=rv, attr=ra)),
                      st.sampled_from(OPS), st.sampled_from(["p", "p", "q", "ts"]), st.sampled_from(["p", "q"]),
                      st.sampled_from(["a", "b"]), st.sampled_from(["a", "b"]))
const_nodes = st.builds(lambda op, a, c: Cmp(op=op, left=Ref(var="b", attr=a), right=Num(value=c)),
                        st.sampled_from(OPS), st.sampled_from(["p", "q"]), st.integers(0, 2))
other_nodes = st.one_of(st.builds(lambda b: Bool(value=b), st.booleans()),
                        st.builds(lambda n: Not(item=n), cmp_nodes), st.builds(lambda a: Ref(var="a", attr=a),
                                                                            st.sampled_from(["p", "q"])))


@settings(max_examples=500, deadline=None)
@given(nodes=st.lists(st.one_of(cmp_nodes, const_nodes, other_nodes), max_size=4), x=attrs, y=attrs)
def test_chained_conjunction_agrees_with_generic_and(nodes: list[Node], x: dict[str, Any],
                                                    y: dict[str, Any]) -> None:
    """``compile_conjunction`` (comparisons chained, each calling the next) is the AND of the
    nodes' generic closures, whatever the mix of fast comparisons and other nodes."""
    vals = [Event(id=1, type="A", ts=1.0, seq=0, attrs=x), Event(id=2, type="B", ts=2.0, seq=1, attrs=y)]
    f = compile_conjunction(nodes, lambda n: slot_attr(SLOTS[n.var], n.attr))
    want = all(bool(generic(n)(vals)) for n in nodes)
    if f is None:
        assert nodes == []
    else:
        assert f(vals) is want
    if nodes:
        assert fast(BoolOp(op="AND", items=nodes))(vals) is want


@settings(max_examples=1500, deadline=None)
@given(op=st.sampled_from(OPS), aop=st.sampled_from(["+", "-", "*", "/", "%"]), const_left=st.booleans(),
       la=st.sampled_from(["p", "p", "q", "ts"]), k=st.sampled_from([0, 1, 2, 500, 1.5]),
       c=st.one_of(st.integers(0, 2), st.sampled_from([1.5, "x", True])), x=attrs,
       ts=st.sampled_from([0.0, 1.0, 2.5]))
def test_arithmetic_with_a_constant_compared_agrees_with_generic(op: str, aop: str, const_left: bool, la: str,
                                                                 k: Any, c: Any, x: dict[str, Any],
                                                                 ts: float) -> None:
    """``a.p % 500 = 0`` (a slot attribute, an operator and a constant, compared with a constant,
    on either side) compiles to one closure (expr.fast_compare.arithmetic_comparison) that agrees with the generic
    one on missing attributes, None, text, booleans and division by zero."""
    arith = BinOp(op=aop, left=Ref(var="a", attr=la), right=Num(value=k))
    const = operand("const", "a", la, c)
    node = Cmp(op=op, left=const, right=arith) if const_left else Cmp(op=op, left=arith, right=const)
    vals = [Event(id=1, type="A", ts=ts, seq=0, attrs=x), Event(id=2, type="B", ts=1.0, seq=1, attrs={})]
    f = fast(node)
    got = f(vals)
    assert got is generic(node)(vals)
    assert got is True or got is False
    assert f.__name__ == "f" and "aop" in f.__code__.co_freevars  # the specialised closure, not the generic
