"""The pattern model (engine/model.py): validation rules of Pattern.check() on models built
directly (not via text), numeric_attrs, and the partition key (engine/partition.py)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from pydantic import ValidationError

from engine import expr as X
from engine.events import make_stream
from engine.model import Aggregate, Component, Group, Pattern, PatternError, ReturnItem, Strategy, Window, suggest
from engine.partition import partition_key
from tests.strategies import patterns

# --------------------------------------------------------------------------- helpers


def C(typ: str, var: str, quant: str = "one", neg: bool = False) -> Component:
    return Component(type=typ, var=var, quant=quant, negated=neg)


def G(op: str, *items) -> Group:
    return Group(op=op, items=list(items))


def SEQ(*items) -> Group:
    return G("SEQ", *items)


def R(var: str, attr: str, index: str | None = None) -> X.Ref:
    return X.Ref(var=var, attr=attr, index=index)


def N(v: float, percent: bool = False) -> X.Num:
    return X.Num(value=v, percent=percent)


def eq(left: X.Node, right: X.Node) -> X.Cmp:
    return X.Cmp(op="=", left=left, right=right)


def gt(left: X.Node, right: X.Node) -> X.Cmp:
    return X.Cmp(op=">", left=left, right=right)


def P(root: Group, *where: X.Node, **kw) -> Pattern:
    return Pattern(root=root, where=list(where), **kw)


def rejects(p: Pattern, fragment: str) -> PatternError:
    with pytest.raises(PatternError) as exc:
        p.check()
    assert fragment in exc.value.message, exc.value.message
    return exc.value


AB = SEQ(C("A", "a"), C("B", "b"))
AkB = SEQ(C("A", "a", "plus"), C("B", "b"))

# --------------------------------------------------------------------------- valid patterns


@settings(max_examples=50, deadline=None)
@given(patterns())
def test_generated_patterns_check(p: Pattern) -> None:
    assert p.check() is p


def test_check_returns_self_for_valid_patterns() -> None:
    valid = [
        P(AB),
        P(SEQ(C("A", "a"))),
        P(SEQ(C("A", "a"), C("B", "b", neg=True), C("C", "c"))),
        P(SEQ(C("A", "a"), C("B", "b"), C("C", "c", neg=True)), window=Window(value=5)),
        P(SEQ(C("A", "a"), C("B", "b", "opt"), C("C", "c", neg=True), C("D", "d")), window=None),
        P(G("OR", SEQ(C("A", "a"), C("B", "b", neg=True), C("C", "c")), C("D", "d"))),  # alternative of a top OR
        P(G("AND", C("A", "a"), C("B", "b", "star"))),
        P(AkB, gt(R("a", "x", "i"), R("a", "x", "i-1")), gt(R("b", "x"), X.Agg(func="avg", var="a", attr="x")),
          gt(X.Len(var="a"), N(2)), eq(R("a", "k"), X.Str(value="p"))),
        P(SEQ(C("A", "a"), C("B", "b", neg=True), C("C", "c")), eq(R("a", "x"), R("b", "x")),
          eq(R("b", "y"), R("c", "y"))),
        P(AB, aggregate=Aggregate(func="SUM", var="b", attr="x", group_by=["k"])),
        P(AkB, returns=[ReturnItem(var="a"), ReturnItem(expr=X.BinOp(op="*", left=R("a", "x", "last"), right=N(2)),
                                                        alias="twice"),
                        ReturnItem(expr=X.Agg(func="sum", var="a", attr="x", scope="all"))]),
    ]
    for p in valid:
        assert p.check() is p


# --------------------------------------------------------------------------- structure rules


def test_no_components() -> None:
    rejects(P(SEQ()), "no components")


def test_empty_nested_group() -> None:
    rejects(P(SEQ(C("A", "a"), G("AND"))), "empty AND()")


def test_duplicate_variable() -> None:
    e = rejects(P(SEQ(C("A", "a"), G("AND", C("B", "b"), C("C", "a")))), "duplicate variable `a`")
    assert e.hint


@pytest.mark.parametrize("quant", ["plus", "star", "opt"])
def test_negated_component_cannot_be_quantified(quant: str) -> None:
    rejects(P(SEQ(C("A", "a"), C("B", "b", quant, neg=True), C("C", "c"))), "cannot be quantified")


def test_needs_a_positive_component() -> None:
    rejects(P(SEQ(C("A", "a", neg=True))), "at least one positive")


@pytest.mark.parametrize("root", [
    SEQ(C("A", "a", "opt")),
    SEQ(C("A", "a", "star"), C("B", "b", "opt")),
    G("AND", C("A", "a", "opt"), C("B", "b", "star")),
])
def test_every_positive_optional(root: Group) -> None:
    e = rejects(P(root), "every positive component is optional")
    assert e.hint == "make at least one component required"


@pytest.mark.parametrize("op", ["AND", "OR"])
def test_negation_inside_and_or(op: str) -> None:
    rejects(P(G(op, C("A", "a"), C("B", "b", neg=True), C("C", "c"))), f"inside {op}(...)")


def test_negation_inside_nested_seq() -> None:
    rejects(P(SEQ(C("A", "a"), SEQ(C("B", "b"), C("X", "x", neg=True), C("C", "c")))), "nested SEQ")


def test_negation_at_start() -> None:
    rejects(P(SEQ(C("X", "x", neg=True), C("A", "a"), C("B", "b"))), "at the start")
    # an optional component before it does not anchor it
    rejects(P(SEQ(C("A", "a", "opt"), C("X", "x", neg=True), C("B", "b"))), "at the start")


def test_trailing_negation_needs_window() -> None:
    rejects(P(SEQ(C("A", "a"), C("X", "x", neg=True))), "needs WITHIN")
    # only optional components after it: still trailing
    rejects(P(SEQ(C("A", "a"), C("X", "x", neg=True), C("B", "b", "star"))), "needs WITHIN")
    P(SEQ(C("A", "a"), C("X", "x", neg=True)), window=Window(value=10, unit="s")).check()
    P(SEQ(C("A", "a"), C("X", "x", neg=True)), window=Window(value=3, unit="events")).check()


def test_negation_anchored_by_a_required_group() -> None:
    P(SEQ(G("AND", C("A", "a"), C("B", "b")), C("X", "x", neg=True), G("OR", C("C", "c"), C("D", "d")))).check()
    # an OR with an optional branch is not required
    rejects(P(SEQ(C("A", "a"), C("X", "x", neg=True), G("OR", C("C", "c"), C("D", "d", "opt")))), "needs WITHIN")


# --------------------------------------------------------------------------- predicate rules


def test_undefined_variable_with_suggestion() -> None:
    e = rejects(P(SEQ(C("A", "alpha"), C("B", "beta")), gt(R("alpah", "x"), N(1))), "undefined variable `alpah`")
    assert e.hint == "did you mean `alpha`?"
    assert suggest("ALPHA", ["alpha"]) == "did you mean `alpha`?"
    assert suggest("zzz", ["alpha"]) is None


@pytest.mark.parametrize("index", ["1", "i", "i-1", "last"])
def test_index_on_non_kleene(index: str) -> None:
    e = rejects(P(AB, gt(R("b", "x", index), N(1))), "not a Kleene variable")
    assert e.hint == "write `b.x`, or declare `B+ b[]`"


def test_len_and_agg_on_non_kleene() -> None:
    rejects(P(AB, gt(X.Len(var="b"), N(1))), "`b.len` on `b`")
    rejects(P(AB, gt(X.Agg(func="avg", var="b", attr="x"), N(1))), "`avg(b...)` on `b`")


def test_kleene_star_counts_as_kleene() -> None:
    P(SEQ(C("A", "a"), C("B", "b", "star")), gt(R("b", "x", "i"), R("b", "x", "i-1"))).check()


def test_two_negated_variables_in_one_predicate() -> None:
    root = SEQ(C("A", "a"), C("X", "x", neg=True), C("B", "b"), C("Y", "y", neg=True), C("C", "c"))
    rejects(P(root, eq(R("x", "k"), R("y", "k"))), "at most one negated variable")
    P(root, eq(R("x", "k"), R("a", "k")), eq(R("y", "k"), R("a", "k"))).check()


def test_two_iteration_variables_in_one_predicate() -> None:
    root = SEQ(C("A", "a", "plus"), C("B", "b", "plus"))
    e = rejects(P(root, gt(R("a", "x", "i"), R("b", "x", "i-1"))), "two Kleene variables")
    assert e.hint == "split it into one predicate per variable"
    rejects(P(root, gt(R("a", "x", "i"), X.Agg(func="max", var="b", attr="x", scope="prefix"))),
            "two Kleene variables")
    # first/last/len/all-aggregates of another variable are fine
    P(root, gt(R("a", "x", "i"), R("b", "x", "1")), gt(R("a", "x", "i"), X.Agg(func="max", var="b", attr="x",
                                                                                scope="all"))).check()


def test_negated_variable_with_iteration() -> None:
    root = SEQ(C("A", "a", "plus"), C("X", "x", neg=True), C("B", "b"))
    rejects(P(root, gt(R("x", "v"), R("a", "v", "i"))), "cannot iterate")
    P(root, gt(R("x", "v"), R("a", "v", "last"))).check()


def test_negated_variable_len() -> None:
    # a negated component is a single event: .len is refused (as non-Kleene)
    rejects(P(SEQ(C("A", "a"), C("X", "x", neg=True), C("B", "b")), gt(X.Len(var="x"), N(0))), "not a Kleene")


def test_empty_equivalence_attribute() -> None:
    rejects(P(AB, equivalence=[""]), "empty attribute")


# --------------------------------------------------------------------------- aggregate / return rules


def test_aggregate_rules() -> None:
    e = rejects(P(SEQ(C("A", "alpha"), C("B", "b")), aggregate=Aggregate(func="SUM", var="alpah", attr="x")),
                "aggregate over undefined variable `alpah`")
    assert e.hint == "did you mean `alpha`?"
    rejects(P(SEQ(C("A", "a"), C("X", "x", neg=True), C("B", "b")),
              aggregate=Aggregate(func="MAX", var="x", attr="v")), "negated variable")
    with pytest.raises(ValidationError):
        Aggregate(func="SUM")
    with pytest.raises(ValidationError):
        Aggregate(func="COUNT", var="a")  # var without attr
    assert Aggregate(func="COUNT").group_by == []


def test_return_rules() -> None:
    rejects(P(AB, returns=[ReturnItem(var="z")]), "RETURN of undefined variable `z`")
    rejects(P(SEQ(C("A", "a"), C("X", "x", neg=True), C("B", "b")), returns=[ReturnItem(expr=R("x", "v"))]),
            "negated variable")
    e = rejects(P(AkB, returns=[ReturnItem(expr=R("a", "x", "i"))]), "only make sense in WHERE")
    assert e.hint
    rejects(P(AkB, returns=[ReturnItem(expr=X.Agg(func="avg", var="a", attr="x", scope="prefix"))]),
            "only make sense in WHERE")
    rejects(P(AB, returns=[ReturnItem(expr=R("zz", "x"))]), "undefined variable `zz`")
    with pytest.raises(ValidationError):
        ReturnItem()
    with pytest.raises(ValidationError):
        ReturnItem(var="a", expr=R("a", "x"))


def test_window_validation() -> None:
    with pytest.raises(ValidationError):
        Window(value=0)
    with pytest.raises(ValidationError):
        Window(value=-1, unit="s")
    with pytest.raises(ValidationError):
        Window(value=1, unit="weeks")


def test_model_forbids_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        Component(type="A", var="a", colour="red")


# --------------------------------------------------------------------------- structure helpers


def test_structure_helpers() -> None:
    p = P(SEQ(C("A", "a", "plus"), C("X", "x", neg=True), G("AND", C("B", "b"), C("C", "c", "opt"))))
    assert p.variables == ["a", "x", "b", "c"]
    assert [c.var for c in p.positive] == ["a", "b", "c"]
    assert [c.var for c in p.negated] == ["x"]
    assert p.component("b").type == "B"
    with pytest.raises(KeyError):
        p.component("nope")
    assert not p.is_flat_seq()
    assert P(SEQ(C("A", "a"), C("X", "x", neg=True), C("B", "b"))).is_flat_seq()
    assert not P(G("AND", C("A", "a"), C("B", "b"))).is_flat_seq()
    c = C("ANY", "e", "star")
    assert c.kleene and c.optional and c.matches_type("Whatever")
    assert C("A", "a", "opt").optional and not C("A", "a", "opt").kleene
    assert not C("A", "a").matches_type("B")


def test_equality_ignores_spans() -> None:
    a = Component(type="A", var="a", span=(1, 2, 3))
    b = Component(type="A", var="a")
    assert a == b
    assert X.Num(value=1, span=(1, 1, 1)) == X.Num(value=1)
    assert "span" not in a.model_dump()


# --------------------------------------------------------------------------- numeric_attrs


def test_numeric_attrs() -> None:
    p = P(
        SEQ(C("Stock", "a", "plus"), C("Stock", "b"), C("News", "n"), C("Alert", "z", neg=True), C("Trade", "t")),
        gt(R("a", "price", "i"), X.Agg(func="avg", var="a", attr="price", scope="prefix")),  # price numeric
        eq(R("b", "symbol"), X.Str(value="GOOG")),                                      # string: not numeric
        eq(R("n", "source"), R("b", "symbol")),                                         # ref = ref: not numeric
        eq(R("n", "score"), N(3)),                                                      # = number: numeric
        gt(X.BinOp(op="+", left=R("t", "qty"), right=N(1)), N(0)),                      # arithmetic: numeric
        X.Cmp(op="<", left=R("z", "level"), right=R("b", "volume")),                    # ordered: both numeric
        eq(X.Agg(func="count", var="a", attr="tick", scope="all"), N(2)),               # count: not numeric
        X.Cmp(op="=", left=R("t", "lots"), right=X.Len(var="a")),                       # = len: numeric
        X.Not(item=eq(R("n", "flag"), X.Bool(value=True))),                             # bool: not numeric
        aggregate=Aggregate(func="SUM", var="t", attr="amount"),
        returns=[ReturnItem(expr=X.BinOp(op="*", left=R("n", "weight"), right=N(2)))],
    )
    p.check()
    assert p.numeric_attrs() == {
        "Stock": {"price", "volume"},
        "News": {"score", "weight"},
        "Trade": {"qty", "amount", "lots"},
        "Alert": {"level"},
    }


def test_numeric_attrs_count_aggregate_is_not_numeric() -> None:
    assert P(AB, aggregate=Aggregate(func="COUNT", var="b", attr="x")).numeric_attrs() == {}
    assert P(AB).numeric_attrs() == {}


def test_numeric_attrs_percent_and_neg() -> None:
    p = P(AB, X.Cmp(op="<", left=R("b", "v"), right=X.BinOp(op="*", left=N(80, True), right=R("a", "w"))),
          eq(X.Neg(item=R("a", "m")), N(1)))
    assert p.numeric_attrs() == {"A": {"w", "m"}, "B": {"v"}}


# --------------------------------------------------------------------------- partition key


def key_of(p: Pattern):
    k = partition_key(p.check())
    return None if k is None else (k.by_type, k.default, k.width)


def test_key_from_equivalence() -> None:
    p = P(AkB, equivalence=["symbol"])
    assert key_of(p) == ({"A": ("symbol",), "B": ("symbol",)}, None, 1)


def test_key_from_equivalence_includes_negated() -> None:
    p = P(SEQ(C("Shelf", "a"), C("Register", "b", neg=True), C("Exit", "c")), equivalence=["tag_id"])
    k = partition_key(p.check())
    assert k.by_type == {"Shelf": ("tag_id",), "Register": ("tag_id",), "Exit": ("tag_id",)}
    assert k.columns() == ["tag_id"] and k.uniform == ("tag_id",)


def test_key_from_equalities_transitively() -> None:
    root = SEQ(C("A", "a"), C("B", "b"), C("C", "c"))
    p = P(root, eq(R("a", "id"), R("b", "ref")), eq(R("c", "owner"), R("b", "ref")))
    k = partition_key(p.check())
    assert k.by_type == {"A": ("id",), "B": ("ref",), "C": ("owner",)}
    assert k.width == 1 and k.uniform is None
    assert sorted(k.columns()) == ["id", "owner", "ref"]
    ev = make_stream([{"id": 1, "type": "A", "ts": 0, "x": 9}, {"id": 2, "type": "B", "ts": 1, "ref": 1},
                      {"id": 3, "type": "Z", "ts": 2}])
    assert k.of(ev[0]) == (1,)  # `id` is the built-in id
    assert k.of(ev[1]) == (1,)
    assert k.of(ev[2]) is None  # a type the key does not know


def test_no_key_when_a_component_is_not_tied() -> None:
    root = SEQ(C("A", "a"), C("B", "b"), C("C", "c"))
    assert key_of(P(root, eq(R("a", "x"), R("b", "x")))) is None
    # a negated component that is not tied also removes the key (SASE Q1 with explicit equalities)
    q1 = P(SEQ(C("Shelf", "a"), C("Register", "b", neg=True), C("Exit", "c")),
           eq(R("a", "tag_id"), R("c", "tag_id")))
    assert key_of(q1) is None
    q1b = P(SEQ(C("Shelf", "a"), C("Register", "b", neg=True), C("Exit", "c")),
            eq(R("a", "tag_id"), R("b", "tag_id")), eq(R("a", "tag_id"), R("c", "tag_id")))
    assert key_of(q1b) == ({"Shelf": ("tag_id",), "Register": ("tag_id",), "Exit": ("tag_id",)}, None, 1)


def test_no_key_from_non_equalities() -> None:
    assert key_of(P(AB, X.Cmp(op="!=", left=R("a", "x"), right=R("b", "x")))) is None
    assert key_of(P(AB, eq(R("a", "x"), X.BinOp(op="+", left=R("b", "x"), right=N(0))))) is None
    assert key_of(P(AB, X.BoolOp(op="OR", items=[eq(R("a", "x"), R("b", "x")), eq(R("a", "y"), R("b", "y"))]))) \
        is None
    assert key_of(P(AB, eq(R("a", "x"), N(1)), eq(R("b", "x"), N(1)))) is None


def test_kleene_key_needs_all_elements_tied() -> None:
    # a[1].x = b.x alone ties only the first element of a
    assert key_of(P(AkB, eq(R("a", "x", "1"), R("b", "x")))) is None
    # plus a[i].x = a[i-1].x: every element of a shares x
    k = key_of(P(AkB, eq(R("a", "x", "i"), R("a", "x", "i-1")), eq(R("a", "x", "1"), R("b", "x"))))
    assert k == ({"A": ("x",), "B": ("x",)}, None, 1)
    # a[i].x = a[1].x works too, and so does the last element
    k = key_of(P(AkB, eq(R("a", "x", "1"), R("a", "x", "i")), eq(R("b", "x"), R("a", "x", "last"))))
    assert k == ({"A": ("x",), "B": ("x",)}, None, 1)
    # unindexed a.x = b.x means every element equals b.x
    assert key_of(P(AkB, eq(R("a", "x"), R("b", "x")))) == ({"A": ("x",), "B": ("x",)}, None, 1)
    # a[i].x = a[i-1].y is not a key (different attributes)
    assert key_of(P(AkB, eq(R("a", "x", "i"), R("a", "y", "i-1")), eq(R("a", "x", "1"), R("b", "x")))) is None
    # a[i].x = b.x does not tie anything (i varies)
    assert key_of(P(AkB, eq(R("a", "x", "i"), R("b", "x")))) is None


def test_key_same_type_two_attributes_is_refused() -> None:
    # two roles of one type keyed by different attributes cannot be one partition column
    assert key_of(P(SEQ(C("A", "a"), C("A", "b")), eq(R("a", "x"), R("b", "y")))) is None
    assert key_of(P(SEQ(C("A", "a"), C("A", "b")), eq(R("a", "x"), R("b", "x")))) == ({"A": ("x",)}, None, 1)


def test_key_with_two_columns() -> None:
    p = P(AB, eq(R("a", "x"), R("b", "x")), equivalence=["k"])
    assert key_of(p) == ({"A": ("k", "x"), "B": ("k", "x")}, None, 2)


def test_key_with_any_type() -> None:
    k = partition_key(P(SEQ(C("ANY", "a"), C("B", "b")), equivalence=["k"]).check())
    assert k.by_type == {"B": ("k",)} and k.default == ("k",)
    assert k.attrs_for("Whatever") == ("k",)


def test_key_of_paper_queries() -> None:
    from engine.dsl import parse
    from tests.queries import paper_queries as Q

    assert partition_key(parse(Q.SASE_Q3)).by_type == {"Stock": ("symbol",)}
    assert partition_key(parse(Q.SASE_Q1)) is not None  # a.tag_id = b.tag_id and a.tag_id = c.tag_id
    assert partition_key(parse(Q.CHEMO_P1)).by_type == {"B": ("PID",), "C": ("PID",), "P": ("PID",)}
    assert partition_key(parse(Q.ASEQ_APP2)).by_type == {"Kindle": ("userId",), "KindleCase": ("userId",),
                                                         "Stylus": ("userId",)}
    assert partition_key(parse(Q.SASE_Q2)) is None  # b[i].from = b[i-1].to is not an equality of one attribute
    assert partition_key(parse(Q.CLUSTER_Q1)) is None  # b, d tied by nodeId, a, c by taskId


def test_strategy_values() -> None:
    assert [s.value for s in Strategy] == ["strict_contiguity", "partition_contiguity", "skip_till_next_match",
                                           "skip_till_any_match"]
    assert Pattern(root=AB).strategy is Strategy.ANY
