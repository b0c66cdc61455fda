"""The expression package (engine/expr/): evaluation of every node kind by the compiled
closures, the undefined-value rules, aggregates, analysis, limits, the canonical text and its
round trip through the DSL's expression parser, and the fast paths of compiled comparisons
(``compile_conjunction`` with tagged getters) against the general closures."""
from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import expr as X
from engine.dsl import parse_expr
from engine.events import Event
from engine.expr import (Agg, BinOp, Bool, BoolOp, Cmp, Len, Neg, Node, Not, Num, PatternError, Ref, Str, aggregate,
                         compile_conjunction, compile_expr, event_attr, height, nesting_error, number_problem,
                         number_text, numeric_refs, returns_bool, slot_attr, to_text, too_deep, uses_iteration,
                         variables)
from engine.model import Component
from tests.strategies import predicates

# --------------------------------------------------------------------------- evaluation

# a binding context for the test resolver: variable -> its events' attribute dicts
CONTEXT = {"a": [{"x": 4, "s": "p"}], "b": [{"x": 1}, {"x": 2}, {"x": 6}], "n": [{"x": None}]}


def resolve(n: Node) -> Any:
    """A resolver over CONTEXT: ``Ref`` by index, ``Len``, ``Agg`` via :func:`aggregate`."""
    if isinstance(n, Ref):
        index = {None: 0, "1": 0, "last": -1, "i": -1, "i-1": -2}[n.index]
        return lambda ctx: ctx[n.var][index].get(n.attr)
    if isinstance(n, Len):
        return lambda ctx: len(ctx[n.var])
    if isinstance(n, Agg):
        def agg(ctx: Any) -> Any:
            events = ctx[n.var][:-1] if n.scope == "prefix" else ctx[n.var]
            return aggregate(n.func, [e.get(n.attr) for e in events])
        return agg
    raise TypeError(n)


def value(text: str) -> Any:
    return compile_expr(parse_expr(text), resolve)(CONTEXT)


@pytest.mark.parametrize("text, expected", [
    ("3", 3), ("2.5", 2.5), ("80%", 0.8), ("'p'", "p"), ("true", True), ("false", False),  # Num, Str, Bool
    ("a.x", 4), ("b[1].x", 1), ("b[b.len].x", 6), ("b[i].x", 6), ("b[i-1].x", 2), ("a.missing", None),  # Ref
    ("b.len", 3),  # Len
    ("sum(b[..i-1].x)", 3), ("avg(b[].x)", 3.0), ("min(b[].x)", 1), ("max(b[..i-1].x)", 2),
    ("count(b[].x)", 3),  # Agg
    ("-a.x", -4), ("-(3)", -3),  # Neg
    ("a.x + 1", 5), ("a.x - 1", 3), ("a.x * 2", 8), ("a.x / 8", 0.5), ("a.x % 3", 1), ("a.x - (b[1].x - 1)", 4),
    ("a.x * 50%", 2.0),  # BinOp
    ("a.x = 4", True), ("a.x != 4", False), ("a.x < 5", True), ("a.x <= 4", True), ("a.x > 4", False),
    ("a.x >= 5", False), ("3 < a.x", True), ("a.s = 'p'", True),  # Cmp, a constant on either side
    ("a.x = 4 AND b.len = 3", True), ("a.x = 4 AND b.len = 2", False), ("a.x = 5 OR b.len = 3", True),
    ("a.x = 5 OR b.len = 2", False), ("a.x = 5 OR b.len = 2 OR true", True),  # BoolOp
    ("NOT a.x = 4", False), ("NOT false", True),  # Not
])
def test_every_node_kind_evaluates(text, expected):
    got = value(text)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("text", [
    "n.x + 1 > 0",  # arithmetic on None
    "a.x / 0 = 1",  # division by zero
    "a.s < 3",  # a string against a number
    "a.missing = a.missing + 0",
    "n.x < 1",
])
def test_undefined_values_make_the_comparison_false(text):
    assert value(text) is False
    assert value(f"NOT ({text})") is True


def test_returns_bool_names_the_closures_that_return_a_bool():
    for text in ("a.x = 4", "true", "NOT a.x = 4", "a.x = 4 OR b.len = 1"):
        assert returns_bool(parse_expr(text)) and type(value(text)) is bool
    for text in ("a.x", "a.x + 1", "b.len"):
        assert not returns_bool(parse_expr(text))


def test_aggregate():
    assert aggregate("sum", [1, None, 2]) == 3
    assert aggregate("avg", [1, None, 2]) == 1.5
    assert aggregate("min", [3, 1, None]) == 1
    assert aggregate("max", [3, 1, None]) == 3
    assert aggregate("count", [3, None, 1]) == 2
    assert aggregate("count", []) == 0
    assert aggregate("sum", []) is None and aggregate("avg", [None]) is None
    assert aggregate("min", [1, "x"]) is None  # values that do not order
    with pytest.raises(ValueError):
        aggregate("median", [1])


# --------------------------------------------------------------------------- analysis and limits

def test_analysis():
    e = parse_expr("a[i].x > avg(a[..i-1].y) AND b.len > 2 AND c.k = 'p' AND d[1].v + 1 < e[e.len].w")
    assert variables(e) == {"a", "b", "c", "d", "e"}
    assert uses_iteration(e) == {"a"}
    assert uses_iteration(parse_expr("max(a[].x) > a[1].x")) == set()
    assert numeric_refs(e) == {("a", "x"), ("a", "y"), ("d", "v"), ("e", "w")}
    assert numeric_refs(parse_expr("a.k = b.k")) == set()
    assert numeric_refs(parse_expr("a.k = 3")) == {("a", "k")}
    assert numeric_refs(parse_expr("count(a[].k) > 0")) == set()


def test_limits():
    deep: Node = Num(value=1)
    for _ in range(X.MAX_NESTING):
        deep = Neg(item=deep)
    assert height(deep) == X.MAX_NESTING + 1
    assert too_deep(deep) is not None and too_deep(deep.item) is None  # type: ignore[attr-defined]
    with pytest.raises(PatternError, match="nesting deeper than"):
        to_text(deep)
    assert "nesting deeper" in str(nesting_error(deep))
    assert number_problem(1e300) is None and number_problem(3) is None
    assert "out of range" in number_problem(1e301)  # type: ignore[operator]
    assert "out of range" in number_problem(10 ** 400)  # type: ignore[operator]
    assert number_problem(math.nan) == "NaN is not a number"
    assert number_problem(True) is not None and number_problem("3") is not None


# --------------------------------------------------------------------------- text

@pytest.mark.parametrize("text", [
    "a.x - (b.y - 1)", "a.x - b.y - 1", "(a.x + 1) * 2", "a.x * (2 + b.y)", "-(3)", "-a.x", "-(80%)", "-80%",
    "NOT (a.x = 1 OR b.y = 2)", "(a.x = 1 OR b.y = 2) AND c.z = 3", "a[i].x > a[i-1].x", "a[a.len].x = 1",
    "avg(a[..i-1].x) < sum(a[].y)", "a.len >= 2", "a.s = 'it\\'s'", "(a.x > 1) = true", "1e+16 > 1.5e-05",
])
def test_to_text_is_canonical_and_reads_back(text):
    e = parse_expr(text)
    assert to_text(e) == text
    assert parse_expr(to_text(e)) == e


def test_number_text_reads_back_exactly():
    for v in (0, 7, 10 ** 20, 0.1, 1e16, 1.5e-05, 123456789.5, 1e300):
        text = number_text(v)
        back = parse_expr(text)
        assert isinstance(back, Num) and back.value == v and type(back.value) is type(v)
    with pytest.raises(PatternError):
        number_text(math.inf)


COMPONENTS = [Component(type="A", var="a"), Component(type="B", var="b", quant="plus"),
              Component(type="C", var="c", negated=True)]


@settings(max_examples=300, deadline=None)
@given(e=predicates(COMPONENTS, max_depth=3))
def test_to_text_round_trips_through_the_dsl_parser(e):
    text = to_text(e)
    assert parse_expr(text) == e
    assert to_text(parse_expr(text)) == text


# --------------------------------------------------------------------------- fast paths vs general

SLOTS = {"a": 0, "b": 1}
attr_values = st.one_of(st.integers(-2, 2), st.sampled_from([0.5, None, "p", "q", True]))
event_attrs = st.fixed_dictionaries({}, optional={"x": attr_values, "y": attr_values})


def general(nodes: list[Node]) -> Any:
    """The reference: every node compiled with untagged getters (``Event.get``), all of them
    evaluated, combined with ``all``."""
    def untagged(n: Any) -> Any:
        s, a = SLOTS[n.var], n.attr
        return lambda v: v[s].get(a)
    fs = [compile_expr(n, untagged) for n in nodes]
    return lambda ctx: all(bool(f(ctx)) for f in fs)


@st.composite
def conjuncts(draw: Any) -> list[Node]:
    def operand() -> Node:
        kind = draw(st.sampled_from(["ref", "ref", "num", "str", "arith"]))
        ref = Ref(var=draw(st.sampled_from("ab")), attr=draw(st.sampled_from(["x", "y", "ts"])))
        if kind == "num":
            return Num(value=draw(st.integers(-2, 2)))
        if kind == "str":
            return Str(value=draw(st.sampled_from("pq")))
        if kind == "arith":
            return BinOp(op=draw(st.sampled_from(["+", "-", "*", "/", "%"])), left=ref,
                         right=Num(value=draw(st.integers(0, 2))))
        return ref

    nodes: list[Node] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cmp", "cmp", "cmp", "not", "bool", "ref"]))
        cmp = Cmp(op=draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="])), left=operand(), right=operand())
        nodes.append({"cmp": cmp, "not": Not(item=cmp), "bool": Bool(value=draw(st.booleans())),
                      "ref": Ref(var="a", attr="y")}[kind])
    return nodes


def _events(draw_a: dict[str, Any], draw_b: dict[str, Any]) -> tuple[Event, Event]:
    return Event(id=0, type="A", ts=1.0, seq=0, attrs=draw_a), Event(id=1, type="B", ts=2.0, seq=1, attrs=draw_b)


@settings(max_examples=600, deadline=None)
@given(nodes=conjuncts(), a=event_attrs, b=event_attrs)
def test_fast_paths_agree_with_the_general_closures(nodes, a, b):
    """compile_conjunction with tagged getters (slot_attr: one closure per comparison reading
    ``event.attrs``, chained) equals every conjunct evaluated by the general closures, on
    missing attributes, built-in fields, None and mixed types; so does each comparison alone,
    and event_attr's one-closure comparison with a constant on a single event."""
    ctx = _events(a, b)
    fast = compile_conjunction(nodes, lambda n: slot_attr(SLOTS[n.var], n.attr))
    assert fast is not None
    want = general(nodes)(ctx)
    assert fast(ctx) is want
    for n in nodes:
        assert bool(compile_expr(n, lambda n: slot_attr(SLOTS[n.var], n.attr))(ctx)) is general([n])(ctx)
    single = [n for n in nodes if isinstance(n, Cmp) and variables(n) <= {"a"}]
    if single:
        on_event = compile_conjunction(single, lambda n: event_attr(n.attr))
        plain = compile_conjunction(single, lambda n: (lambda ev, a=n.attr: ev.get(a)))
        assert on_event(ctx[0]) is plain(ctx[0]) is general(single)(ctx)  # type: ignore[misc]


def test_a_conjunction_stops_at_the_first_false_comparison():
    """The comparisons are chained first, each calling the next only when it holds; the
    other nodes follow as one AND."""
    calls: list[str] = []

    def counting(n: Any) -> Any:
        def get(ctx: Any) -> Any:
            calls.append(n.attr)
            return ctx[n.attr]
        return get

    nodes = [Ref(var="a", attr="flag"), Cmp(op="<", left=Ref(var="a", attr="x"), right=Num(value=1)),
             Cmp(op="=", left=Ref(var="a", attr="y"), right=Num(value=2))]
    f = compile_conjunction(nodes, counting)
    assert f is not None
    assert f({"flag": 1, "x": 5, "y": 2}) is False and calls == ["x"]
    calls.clear()
    assert f({"flag": 1, "x": 0, "y": 2}) is True and calls == ["x", "y", "flag"]
    calls.clear()
    assert f({"flag": 0, "x": 0, "y": 2}) is False
    assert compile_conjunction([], counting) is None
    assert compile_expr(BoolOp(op="AND", items=[]), counting)({}) is True


MISSING = object()
VALUES = [MISSING, None, 0, 1, 1.0, 0.5, -1, "p", True]
CONSTANTS = [Num(value=0), Num(value=1), Num(value=0.5), Str(value="p"), Bool(value=True)]


def _with(value: Any) -> dict[str, Any]:
    return {} if value is MISSING else {"x": value}


@pytest.mark.parametrize("op", ["=", "!=", "<", "<=", ">", ">="])
def test_every_comparison_fast_path_on_every_value(op):
    """Each one-closure comparison (attribute OP constant, OP attribute, arithmetic OP
    constant, an event's attribute OP constant), exhaustively on a small value domain."""
    fast_resolver = lambda n: slot_attr(SLOTS[n.var], n.attr)  # noqa: E731
    ax, bx = Ref(var="a", attr="x"), Ref(var="b", attr="x")
    for left in VALUES:
        for right in VALUES:
            ctx = _events(_with(left), _with(right))
            for node in [Cmp(op=op, left=ax, right=bx), Cmp(op=op, left=ax, right=Ref(var="b", attr="ts"))]:
                assert compile_conjunction([node], fast_resolver)(ctx) is general([node])(ctx), (node, left, right)
        for constant in CONSTANTS:
            ctx = _events(_with(left), {})
            for node in [Cmp(op=op, left=ax, right=constant), Cmp(op=op, left=constant, right=ax),
                         Cmp(op=op, left=BinOp(op="%", left=ax, right=Num(value=2)), right=constant),
                         Cmp(op=op, left=BinOp(op="+", left=ax, right=Num(value=1)), right=constant)]:
                want = general([node])(ctx)
                assert compile_conjunction([node], fast_resolver)(ctx) is want, (node, left)
                on_event = compile_conjunction([node], lambda n: event_attr(n.attr))
                assert on_event(ctx[0]) is want, (node, left)  # type: ignore[misc]
