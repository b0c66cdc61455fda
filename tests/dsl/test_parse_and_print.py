"""The text DSL (engine/dsl.py): round trips, the papers' queries, syntax details, error messages."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from engine import expr as X
from engine.dsl import DslError, check_schema, parse, parse_expr, to_text
from engine.model import Component, Group, Pattern, ReturnItem, Strategy, Window
from tests.queries import paper_queries as Q
from tests.strategies import patterns

# --------------------------------------------------------------------------- helpers


def ref(var: str, attr: str, index: str | None = None) -> X.Ref:
    return X.Ref(var=var, attr=attr, index=index)


def num(v: float, percent: bool = False) -> X.Num:
    return X.Num(value=v, percent=percent)


def evaluate(e: X.Node, values: dict[tuple[str, str | None, str], object] | None = None) -> object:
    """Evaluate an expression with leaves looked up in ``values`` by (var, index, attr)."""
    values = values or {}

    def resolve(n: X.Node):
        assert isinstance(n, X.Ref), n
        v = values[(n.var, n.index, n.attr)]
        return lambda ctx: v

    return X.compile_expr(e, resolve)(None)


def seq(*items: Component | Group) -> Group:
    return Group(op="SEQ", items=list(items))


def comp(typ: str, var: str, quant: str = "one", negated: bool = False) -> Component:
    return Component(type=typ, var=var, quant=quant, negated=negated)


def roundtrip(m: Pattern) -> Pattern:
    return parse(to_text(m))


# --------------------------------------------------------------------------- round trip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns())
def test_roundtrip_text_and_json(m: Pattern) -> None:
    text = to_text(m)
    back = parse(text)
    assert back == m, text
    assert to_text(back) == text  # the printer is a fixed point
    assert Pattern.model_validate_json(m.model_dump_json()) == m


@pytest.mark.parametrize("name", sorted(Q.ALL))
def test_paper_queries_roundtrip(name: str) -> None:
    m = parse(Q.ALL[name])
    assert roundtrip(m) == m
    assert to_text(roundtrip(m)) == to_text(m)
    assert Pattern.model_validate_json(m.model_dump_json()) == m


# --------------------------------------------------------------------------- the papers' queries


@pytest.mark.parametrize("name", sorted(Q.ALL))
def test_every_paper_query_parses(name: str) -> None:
    m = parse(Q.ALL[name])
    assert isinstance(m, Pattern)
    assert m.components()


def test_sase_q3_model() -> None:
    m = parse(Q.SASE_Q3)
    assert m.root == seq(comp("Stock", "a", "plus"), comp("Stock", "b"))
    assert m.component("a").kleene and not m.component("b").kleene
    assert m.strategy is Strategy.NEXT
    assert m.equivalence == ["symbol"]
    assert len(m.where) == 3
    first, second, third = m.where
    assert first == X.Cmp(op=">", left=ref("a", "volume", "1"), right=num(1000))
    assert second == X.Cmp(op=">", left=ref("a", "price", "i"),
                           right=X.Agg(func="avg", var="a", attr="price", scope="prefix"))
    # `a[a.LEN]` (upper case LEN) is the last element
    assert third == X.Cmp(op="<", left=ref("b", "volume"),
                          right=X.BinOp(op="*", left=num(80, percent=True), right=ref("a", "volume", "last")))
    assert m.window == Window(value=1, unit="hour")
    assert m.window.size == 3600
    assert not m.window.is_count
    assert m.output == "ALL" and m.aggregate is None and m.returns == []


def test_percent_literal_evaluates_to_fraction() -> None:
    third = parse(Q.SASE_Q3).where[2]
    factor = third.right.left
    assert factor == num(80, percent=True)
    assert factor.number == pytest.approx(0.8)
    assert evaluate(factor) == pytest.approx(0.8)
    # b.volume < 0.8 * a[last].volume: 750 < 799.2 holds, 800 < 799.2 does not
    vals = {("a", "last", "volume"): 999}
    assert evaluate(third, {**vals, ("b", None, "volume"): 750}) is True
    assert evaluate(third, {**vals, ("b", None, "volume"): 800}) is False


def test_sase_block_form_equals_flat_form() -> None:
    assert parse(Q.SASE_Q3) == parse(Q.SASE_Q3_FLAT)


def test_sase_q1_negation_and_hours() -> None:
    m = parse(Q.SASE_Q1)
    assert [c.negated for c in m.components()] == [False, True, False]
    assert m.component("b") == comp("Register", "b", negated=True)
    assert m.window.size == 12 * 3600
    assert m.where == [X.Cmp(op="=", left=ref("a", "tag_id"), right=ref("b", "tag_id")),
                       X.Cmp(op="=", left=ref("a", "tag_id"), right=ref("c", "tag_id"))]


def test_sase_q2_keyword_attributes() -> None:
    m = parse(Q.SASE_Q2)
    assert m.strategy is Strategy.ANY
    assert m.where == [
        X.Cmp(op="=", left=ref("a", "type"), right=X.Str(value="contaminated")),
        X.Cmp(op="=", left=ref("b", "from", "1"), right=ref("a", "site")),
        X.Cmp(op="=", left=ref("b", "from", "i"), right=ref("b", "to", "i-1")),
    ]


def test_template_modulo_and_double_equals() -> None:
    m = parse(Q.SASE_TEMPLATE)
    assert m.strategy is Strategy.PARTITION
    assert m.equivalence == ["symbol"]
    # `a[1].price % 500 == 0` is modulo (spaced `%` after a reference), and `==` is `=`
    assert m.where[0] == X.Cmp(op="=", left=X.BinOp(op="%", left=ref("a", "price", "1"), right=num(500)),
                               right=num(0))
    assert m.window == Window(value=500, unit=None)  # unitless: the unit of the time column
    assert evaluate(m.where[0], {("a", "1", "price"): 1500}) is True
    assert evaluate(m.where[0], {("a", "1", "price"): 1501}) is False


def test_chemo_prev_becomes_iteration() -> None:
    m = parse(Q.CHEMO_P1)
    assert m.root == seq(Group(op="AND", items=[comp("C", "c"), comp("P", "p", "plus")]), comp("B", "b"))
    assert m.equivalence == ["PID"]
    assert m.where == [X.Cmp(op="<", left=ref("p", "V", "i-1"), right=ref("p", "V", "i"))]
    assert m.window == Window(value=15, unit="day")
    assert m.window.size == 15 * 86400


def test_cluster_q1_percent_at_end_and_return() -> None:
    m = parse(Q.CLUSTER_Q1)
    assert m.strategy is Strategy.ANY  # the strategy may come after the predicates
    assert X.Cmp(op=">", left=ref("b", "value"), right=num(95, percent=True)) in m.where
    assert X.Cmp(op="<=", left=ref("d", "value"), right=num(70, percent=True)) in m.where
    assert len(m.where) == 5
    assert m.window == Window(value=15, unit="s")
    assert m.returns == [ReturnItem(var="a"), ReturnItem(var="b"), ReturnItem(var="c")]


def test_aseq_app1_group_by_before_agg_and_glued_unit() -> None:
    m = parse(Q.ASEQ_APP1)
    # components without a variable name are named by their type
    assert m.variables == ["TypeUsername", "TypePassword", "ClickSubmit"]
    assert m.where == [X.Cmp(op="!=", left=ref("TypePassword", "value"), right=ref("TypeUsername", "Password"))]
    assert m.aggregate is not None
    assert m.aggregate.func == "COUNT" and m.aggregate.var is None and m.aggregate.group_by == ["IP"]
    assert m.window == Window(value=10, unit="s")  # `10s`


def test_aseq_app2_chained_equality_and_glued_hour() -> None:
    m = parse(Q.ASEQ_APP2)
    assert m.where == [
        X.Cmp(op="=", left=ref("Kindle", "userId"), right=ref("KindleCase", "userId")),
        X.Cmp(op="=", left=ref("KindleCase", "userId"), right=ref("Stylus", "userId")),
    ]
    assert m.window == Window(value=1, unit="hour")  # `1hour`
    assert m.aggregate.func == "COUNT" and m.aggregate.group_by == []


def test_aseq_neg_sum_group_by() -> None:
    m = parse(Q.ASEQ_NEG)
    assert m.component("c").negated
    assert (m.aggregate.func, m.aggregate.var, m.aggregate.attr, m.aggregate.group_by) == ("SUM", "b", "price", ["user"])
    assert m.window.size == 10


# --------------------------------------------------------------------------- syntax details


def _where(text: str) -> list:
    return parse(f"PATTERN SEQ(Stock+ a[], Stock b, Stock c)\nWHERE {text}").where


def test_equal_and_double_equal_are_the_same() -> None:
    assert _where("b.x = 1") == _where("b.x == 1")
    assert _where("b.x != 1") == _where("b.x <> 1")


def test_percent_vs_modulo() -> None:
    (e,) = _where("b.price % 500 = 0")
    assert e.left == X.BinOp(op="%", left=ref("b", "price"), right=num(500))
    (e,) = _where("b.x < 80% * c.x")
    assert e.right == X.BinOp(op="*", left=num(80, percent=True), right=ref("c", "x"))
    (e,) = _where("b.x > 95%")
    assert e.right == num(95, percent=True)
    (e,) = _where("b.x = 7%3")  # glued, but followed by an operand: modulo
    assert e.right == X.BinOp(op="%", left=num(7), right=num(3))
    (e,) = _where("b.x = 7 % 3")
    assert e.right == X.BinOp(op="%", left=num(7), right=num(3))
    (e,) = _where("b.x > 12.5%")
    assert e.right == num(12.5, percent=True) and e.right.number == pytest.approx(0.125)


def test_chained_comparison_splits_into_conjuncts() -> None:
    assert _where("a[1].x = b.x = c.x") == [
        X.Cmp(op="=", left=ref("a", "x", "1"), right=ref("b", "x")),
        X.Cmp(op="=", left=ref("b", "x"), right=ref("c", "x")),
    ]


def test_last_index_spellings_are_the_same() -> None:
    assert _where("a[a.len].x > 1") == _where("a[last].x > 1") == _where("a[a.LEN].x > 1") \
        == _where("a[LAST].x > 1")
    assert _where("a[last].x > 1")[0].left == ref("a", "x", "last")


def test_len_and_aggregates() -> None:
    (e,) = _where("a.len >= 2")
    assert e.left == X.Len(var="a")
    (e,) = _where("b.x > max(a[].x)")
    assert e.right == X.Agg(func="max", var="a", attr="x", scope="all")
    (e,) = _where("a[i].x >= count(a[..i-1].x)")
    assert e.right == X.Agg(func="count", var="a", attr="x", scope="prefix")


def test_keyword_named_attributes() -> None:
    m = parse("PATTERN SEQ(Alert a, Shipment b)\nWHERE b.from = a.site AND b.to != a.type AND a.value > 3 "
              "AND [type]")
    assert m.where == [
        X.Cmp(op="=", left=ref("b", "from"), right=ref("a", "site")),
        X.Cmp(op="!=", left=ref("b", "to"), right=ref("a", "type")),
        X.Cmp(op=">", left=ref("a", "value"), right=num(3)),
    ]
    assert m.equivalence == ["type"]
    assert roundtrip(m) == m


def test_keywords_are_case_insensitive() -> None:
    upper = parse("""PATTERN SEQ(Stock+ a[], Stock b, !C c, Stock d)
WHERE SKIP_TILL_NEXT_MATCH AND [symbol] AND a[I].price > AVG(a[..I-1].price) AND NOT b.x = TRUE OR d.x <= a.LEN
WITHIN 2 HOURS OUTPUT NON_OVERLAP AGG SUM(b.x) GROUP BY symbol RETURN a[1].price AS p, b""")
    lower = parse("""pattern seq(Stock+ a[], Stock b, !C c, Stock d)
where skip_till_next_match and [symbol] and a[i].price > avg(a[..i-1].price) and not b.x = true or d.x <= a.len
within 2 hours output non_overlap agg sum(b.x) group by symbol return a[1].price as p, b""")
    assert upper == lower
    assert lower.strategy is Strategy.NEXT
    assert lower.window == Window(value=2, unit="hour")
    assert lower.output == "NON_OVERLAP"
    assert lower.returns == [ReturnItem(expr=ref("a", "price", "1"), alias="p"), ReturnItem(var="b")]
    # NOT binds tighter than AND, AND tighter than OR: `p AND NOT q OR r` is one conjunct
    assert lower.where == [X.BoolOp(op="OR", items=[
        X.BoolOp(op="AND", items=[
            X.Cmp(op=">", left=ref("a", "price", "i"), right=X.Agg(func="avg", var="a", attr="price")),
            X.Not(item=X.Cmp(op="=", left=ref("b", "x"), right=X.Bool(value=True))),
        ]),
        X.Cmp(op="<=", left=ref("d", "x"), right=X.Len(var="a")),
    ])]


def test_variable_names_are_case_sensitive() -> None:
    with pytest.raises(DslError) as exc:
        parse("PATTERN SEQ(Stock+ a[], Stock b) WHERE A.len > 1")
    assert "undefined variable `A`" in exc.value.message
    assert exc.value.hint == "did you mean `a`?"


@pytest.mark.parametrize("unit_text, unit, value", [
    ("500 ms", "ms", 500), ("90 s", "s", 90), ("90 seconds", "s", 90), ("10s", "s", 10),
    ("5 min", "min", 5), ("5 minutes", "min", 5), ("1 hour", "hour", 1), ("1hour", "hour", 1),
    ("3 hours", "hour", 3), ("2 days", "day", 2), ("1 week", "day", 7), ("500", None, 500),
    ("500 events", "events", 500), ("1.5 s", "s", 1.5),
])
def test_window_units(unit_text: str, unit: str | None, value: float) -> None:
    m = parse(f"PATTERN SEQ(A a, B b) WITHIN {unit_text}")
    assert m.window == Window(value=value, unit=unit)


def test_window_sizes() -> None:
    assert Window(value=500, unit="ms").size == pytest.approx(0.5)
    assert Window(value=2, unit="min").size == 120
    assert Window(value=2, unit="day").size == 2 * 86400
    assert Window(value=7, unit="events").size == 7 and Window(value=7, unit="events").is_count


def test_component_forms() -> None:
    m = parse("PATTERN SEQ(A a, B+ b[], C* c[], D? d, !(E e), ~F f, NOT G g, H)")
    assert m.components() == [
        comp("A", "a"), comp("B", "b", "plus"), comp("C", "c", "star"), comp("D", "d", "opt"),
        comp("E", "e", negated=True), comp("F", "f", negated=True), comp("G", "g", negated=True), comp("H", "H"),
    ]


def test_single_component_becomes_seq_and_nested_groups() -> None:
    assert parse("PATTERN A a").root == seq(comp("A", "a"))
    m = parse("PATTERN SEQ(A a, AND(B b, C c), OR(D d, SEQ(E e, F f)))")
    assert m.root.items[1] == Group(op="AND", items=[comp("B", "b"), comp("C", "c")])
    assert m.root.items[2] == Group(op="OR", items=[comp("D", "d"), seq(comp("E", "e"), comp("F", "f"))])


def test_comments_and_semicolon() -> None:
    m = parse("PATTERN SEQ(A a, B b) -- a comment\n# another\nWHERE a.x = 1 // third\n;")
    assert m.where == [X.Cmp(op="=", left=ref("a", "x"), right=num(1))]


def test_strings_and_escapes() -> None:
    m = parse("PATTERN SEQ(A a) WHERE a.k = 'it\\'s' AND a.j = \"dq\"")
    assert m.where == [X.Cmp(op="=", left=ref("a", "k"), right=X.Str(value="it's")),
                       X.Cmp(op="=", left=ref("a", "j"), right=X.Str(value="dq"))]
    assert roundtrip(m) == m


def test_operator_precedence() -> None:
    e = parse_expr("a.x + b.y * 2 > 3 OR NOT c.z = 1 AND a.x < 2")
    assert e == X.BoolOp(op="OR", items=[
        X.Cmp(op=">", left=X.BinOp(op="+", left=ref("a", "x"),
                                   right=X.BinOp(op="*", left=ref("b", "y"), right=num(2))), right=num(3)),
        X.BoolOp(op="AND", items=[X.Not(item=X.Cmp(op="=", left=ref("c", "z"), right=num(1))),
                                  X.Cmp(op="<", left=ref("a", "x"), right=num(2))]),
    ])
    # left associativity survives printing
    e = parse_expr("a.x - (b.y - 1)")
    assert X.to_text(e) == "a.x - (b.y - 1)"
    assert parse_expr(X.to_text(e)) == e
    assert parse_expr("a.x - b.y - 1") == X.BinOp(op="-", left=X.BinOp(op="-", left=ref("a", "x"),
                                                                      right=ref("b", "y")), right=num(1))


def test_unary_minus_on_a_literal_is_a_negative_number() -> None:
    assert parse_expr("-3") == num(-3)
    assert parse_expr("a.x - -3") == X.BinOp(op="-", left=ref("a", "x"), right=num(-3))
    assert parse_expr("-(3)") == X.Neg(item=num(3))
    assert parse_expr("-a.x") == X.Neg(item=ref("a", "x"))
    assert X.to_text(X.Neg(item=num(3))) == "-(3)"
    # a negative percent is a literal too; its negation keeps the parentheses
    assert parse_expr("-80%") == num(-80, percent=True)
    assert parse_expr("-(80%)") == X.Neg(item=num(80, percent=True))
    assert X.to_text(num(-80, percent=True)) == "-80%"
    assert X.to_text(X.Neg(item=num(80, percent=True))) == "-(80%)"
    # `-7 % 3` stays modulo (the `%` is followed by an operand)
    assert parse_expr("-7 % 3") == X.BinOp(op="%", left=num(-7), right=num(3))


def test_printer_canonical_text() -> None:
    m = parse(Q.SASE_Q3)
    assert to_text(m) == (
        "PATTERN SEQ(Stock+ a[], Stock b)\n"
        "WHERE skip_till_next_match\n"
        "  AND [symbol]\n"
        "  AND a[1].volume > 1000\n"
        "  AND a[i].price > avg(a[..i-1].price)\n"
        "  AND b.volume < 80% * a[a.len].volume\n"
        "WITHIN 1 hour\n"
    )


# --------------------------------------------------------------------------- regressions (bugs found by review, now fixed)


def _one(expr: X.Node, *comps: Component) -> Pattern:
    return Pattern(root=seq(*(comps or (comp("A", "a"),))), where=[expr])



def test_double_negation_roundtrip() -> None:
    m = parse("PATTERN SEQ(A a) WHERE a.x = - -3")
    assert m.where[0].right == X.Neg(item=num(-3))
    assert roundtrip(m) == m



def test_explicit_i_minus_1_with_unindexed_ref_is_kept() -> None:
    e = X.Cmp(op="<", left=ref("a", "x", "i-1"), right=ref("a", "y"))
    m = _one(e, comp("A", "a", "plus"))
    m.check()
    assert parse("PATTERN SEQ(A+ a[]) WHERE a[i-1].x < a.y").where == [e]
    assert roundtrip(m) == m



@pytest.mark.parametrize("var", ["i", "last"])
def test_last_index_on_variables_named_i_or_last(var: str) -> None:
    m = _one(X.Cmp(op=">", left=ref(var, "x", "last"), right=num(1)), comp("A", var, "plus"))
    m.check()
    assert roundtrip(m) == m



def test_negative_number_literal() -> None:
    try:
        m = _one(X.Cmp(op="=", left=ref("a", "x"), right=num(-3)))
    except ValueError:
        return  # refusing negative literals in the model is a fix too
    assert roundtrip(m) == m



def test_string_with_newline() -> None:
    m = _one(X.Cmp(op="=", left=ref("a", "x"), right=X.Str(value="two\nlines")))
    assert roundtrip(m) == m



def test_return_comparison_roundtrip() -> None:
    m = Pattern(root=seq(comp("A", "a")), returns=[ReturnItem(expr=X.Cmp(op=">", left=ref("a", "x"),
                                                                        right=num(3)), alias="big")])
    m.check()
    assert roundtrip(m) == m


# --------------------------------------------------------------------------- error messages


def _err(src: str) -> DslError:
    with pytest.raises(DslError) as exc:
        parse(src)
    return exc.value


def _assert_pointed(e: DslError, line: int, col: int, width: int, source_line: str) -> None:
    """line/column attributes, the header, the quoted line and the caret under the offending text."""
    assert (e.line, e.column) == (line, col)
    rendered = str(e).splitlines()
    assert rendered[0].startswith(f"line {line}, column {col}: ")
    assert rendered[1] == "  " + source_line
    assert rendered[2] == "  " + " " * (col - 1) + "^" * width
    assert len(rendered) == 3


def test_error_unknown_clause_suggests_within() -> None:
    e = _err("PATTERN SEQ(A a, B b)\nWIHTIN 1 hour")
    _assert_pointed(e, 2, 1, 6, "WIHTIN 1 hour")
    assert "`WIHTIN`" in e.message
    assert e.hint == "did you mean `WITHIN`?"
    assert str(e).splitlines()[0].endswith("did you mean `WITHIN`?")


def test_error_unknown_unit_suggests() -> None:
    e = _err("PATTERN SEQ(A a, B b)\nWITHIN 1 hourz")
    _assert_pointed(e, 2, 10, 5, "WITHIN 1 hourz")
    assert e.message == "unknown time unit `hourz`"
    assert e.hint == "did you mean `hour`?"


def test_error_undefined_variable_suggests_closest() -> None:
    e = _err("PATTERN SEQ(A alpha, B beta)\nWHERE beta.x > 1\n  AND alpah.x > 1")
    _assert_pointed(e, 3, 7, 7, "  AND alpah.x > 1")
    assert e.message == "undefined variable `alpah`"
    assert e.hint == "did you mean `alpha`?"


def test_error_iteration_index_on_non_kleene() -> None:
    e = _err("PATTERN SEQ(A a, B b)\nWHERE a[i].x > 1")
    _assert_pointed(e, 2, 7, 6, "WHERE a[i].x > 1")
    assert "not a Kleene variable" in e.message
    assert "A+ a[]" in e.hint


def test_error_negation_at_start() -> None:
    e = _err("PATTERN SEQ(!C c, A a, B b)\nWITHIN 1 hour")
    _assert_pointed(e, 1, 13, 4, "PATTERN SEQ(!C c, A a, B b)")
    assert "at the start" in e.message


def test_error_trailing_negation_without_within() -> None:
    e = _err("PATTERN SEQ(A a, B b, !C c)")
    _assert_pointed(e, 1, 23, 4, "PATTERN SEQ(A a, B b, !C c)")
    assert "needs WITHIN" in e.message
    # with a window it is fine
    assert parse("PATTERN SEQ(A a, B b, !C c) WITHIN 5 s").component("c").negated


def test_error_duplicate_variable() -> None:
    e = _err("PATTERN SEQ(A a,\n            B a)")
    _assert_pointed(e, 2, 13, 3, "            B a)")
    assert e.message == "duplicate variable `a`"


def test_error_unclosed_group_paren() -> None:
    e = _err("PATTERN SEQ(A a, B b\nWHERE a.x = 1")
    _assert_pointed(e, 2, 1, 5, "WHERE a.x = 1")
    assert "expected `)`" in e.message


def test_error_unclosed_expression_paren() -> None:
    e = _err("PATTERN SEQ(A a, B b)\nWHERE (a.x = 1 AND b.x = 2")
    # at the end of input: the caret sits just past the last character
    _assert_pointed(e, 2, 27, 1, "WHERE (a.x = 1 AND b.x = 2")
    assert "expected `)`" in e.message and "end of input" in e.message


def test_error_misspelt_strategy_suggests() -> None:
    e = _err("PATTERN SEQ(A a, B b)\nWHERE skip_till_nxt_match AND a.x = 1")
    _assert_pointed(e, 2, 7, 19, "WHERE skip_till_nxt_match AND a.x = 1")
    assert e.message == "unknown strategy `skip_till_nxt_match`"
    assert e.hint == "did you mean `skip_till_next_match`?"


def test_error_unknown_function_suggests() -> None:
    e = _err("PATTERN SEQ(A+ a[], B b)\nWHERE b.x > average(a[].x)")
    _assert_pointed(e, 2, 13, 7, "WHERE b.x > average(a[].x)")
    assert e.message == "unknown function `average`"
    assert e.hint == "did you mean `avg`?"


def test_error_schema_unknown_attribute_suggests() -> None:
    src = "PATTERN SEQ(Stock a, Stock b)\nWHERE a.price > 10\n  AND b.prise < a.price"
    p = parse(src)
    schema = {"Stock": {"price": "number", "volume": "number", "symbol": "string"}}
    with pytest.raises(DslError) as exc:
        check_schema(p, schema, src)
    e = exc.value
    _assert_pointed(e, 3, 7, 7, "  AND b.prise < a.price")  # under `b.prise`
    assert e.message == "unknown attribute `prise` on `b` (type Stock)"
    assert e.hint == "did you mean `price`?"
    assert "unknown attribute `prise` on `b` (type Stock); did you mean `price`?" in str(e)
    # a correct pattern passes, and an unknown event type is only a warning
    assert check_schema(parse("PATTERN SEQ(Stock a, Stok b)"), schema) == [
        "event type `Stok` does not occur in the data; did you mean `Stock`?"]


def test_error_schema_aggregate_over_unknown_attribute() -> None:
    src = "PATTERN SEQ(Stock a, Stock b)\nAGG AVG(b.prise)"
    with pytest.raises(DslError) as exc:
        check_schema(parse(src), {"Stock": {"price": "number"}}, src)
    _assert_pointed(exc.value, 2, 5, 12, "AGG AVG(b.prise)")
    assert exc.value.hint == "did you mean `price`?"


def test_error_aggregate_over_undefined_variable() -> None:
    e = _err("PATTERN SEQ(A a, B b)\nAGG SUM(z.price)")
    _assert_pointed(e, 2, 5, 12, "AGG SUM(z.price)")
    assert e.message == "aggregate over undefined variable `z`"


def test_error_kleene_declaration_without_plus() -> None:
    e = _err("PATTERN SEQ(Stock a[], Stock b)")
    _assert_pointed(e, 1, 20, 1, "PATTERN SEQ(Stock a[], Stock b)")
    assert "write `Stock+ a[]`" in e.message


@pytest.mark.parametrize("src", ["", "   \n  "])
def test_error_empty_pattern(src: str) -> None:
    e = _err(src)
    assert e.line is None and e.column is None
    assert "empty" in e.message
    assert "PATTERN" in str(e)


def test_error_pattern_keyword_only() -> None:
    e = _err("PATTERN")
    _assert_pointed(e, 1, 8, 1, "PATTERN")
    assert e.message == "expected an event type, found end of input"


def test_error_missing_pattern_keyword() -> None:
    e = _err("SEQ(A a)")
    _assert_pointed(e, 1, 1, 3, "SEQ(A a)")
    assert "starts with PATTERN" in e.message


def test_error_keyword_as_variable() -> None:
    e = _err("PATTERN SEQ(A and, B b)")
    _assert_pointed(e, 1, 15, 3, "PATTERN SEQ(A and, B b)")
    assert "keyword" in e.message


def test_error_clause_twice() -> None:
    e = _err("PATTERN SEQ(A a) WITHIN 1 s WITHIN 2 s")
    _assert_pointed(e, 1, 29, 6, "PATTERN SEQ(A a) WITHIN 1 s WITHIN 2 s")
    assert e.message == "WITHIN clause given twice"


def test_error_unexpected_character() -> None:
    e = _err("PATTERN SEQ(A a)\nWHERE a.x @ 1")
    _assert_pointed(e, 2, 11, 1, "WHERE a.x @ 1")
    assert e.message == "unexpected character '@'"


def test_error_unsupported_index() -> None:
    e = _err("PATTERN SEQ(A+ a[]) WHERE a[2].x > 1")
    _assert_pointed(e, 1, 29, 1, "PATTERN SEQ(A+ a[]) WHERE a[2].x > 1")
    assert e.hint == "use a[1], a[i], a[i-1] or a[a.len]"


def test_error_two_iteration_variables() -> None:
    e = _err("PATTERN SEQ(A+ a[], B+ b[]) WHERE a[i].x > b[i].x")
    _assert_pointed(e, 1, 35, 15, "PATTERN SEQ(A+ a[], B+ b[]) WHERE a[i].x > b[i].x")
    assert "ambiguous" in e.message


def test_error_group_by_without_agg() -> None:
    e = _err("PATTERN SEQ(A a) GROUP BY x")
    _assert_pointed(e, 1, 18, 5, "PATTERN SEQ(A a) GROUP BY x")
    assert "needs an AGG clause" in e.message


def test_error_negation_inside_and() -> None:
    e = _err("PATTERN AND(A a, !B b, C c)")
    _assert_pointed(e, 1, 18, 4, "PATTERN AND(A a, !B b, C c)")
    assert "inside AND" in e.message


def test_error_window_not_positive() -> None:
    e = _err("PATTERN SEQ(A a) WITHIN 0 s")
    _assert_pointed(e, 1, 25, 1, "PATTERN SEQ(A a) WITHIN 0 s")
    assert e.message == "the window must be positive"


def test_error_is_a_pattern_error_with_span() -> None:
    from engine.model import PatternError

    e = _err("PATTERN SEQ(A a, B a)")
    assert isinstance(e, PatternError)
    assert e.span == (1, 18, 3)
    assert e.source == "PATTERN SEQ(A a, B a)"


# --------------------------------------------------------------------------- names without a span of their own

def _cep_run(capsys, pattern: str, *more: str) -> tuple[int, str]:
    from engine.commands.cli import main

    code = main(["run", pattern, "--data", "sample:stocks_sase", "--format", "count", *more])
    return code, capsys.readouterr().err


def test_cli_unknown_event_type_warning_points_at_the_type(capsys) -> None:
    code, err = _cep_run(capsys, "PATTERN SEQ(Stock a, !(Stok b), Stock c)\nWHERE [symbol]")
    assert code == 0
    assert ("line 1, column 24: event type `Stok` does not occur in the data; did you mean `Stock`?\n"
            "  PATTERN SEQ(Stock a, !(Stok b), Stock c)\n"
            "                         ^^^^\n") in err


def test_cli_unknown_equivalence_attribute_points_at_the_name(capsys) -> None:
    for read in ("whole", "batches"):
        code, err = _cep_run(capsys, "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match\n"
                                     "  AND [symbol, symbl]", "--read", read)
        assert code == 2, read
        assert err == ("cep: line 3, column 16: unknown attribute `symbl`; did you mean `symbol`?\n"
                       "    AND [symbol, symbl]\n"
                       "                 ^^^^^\n"), (read, err)


def test_cli_unknown_group_by_attribute_points_at_the_name(capsys) -> None:
    code, err = _cep_run(capsys, "PATTERN SEQ(Stock a, Stock b)\nAGG COUNT\nGROUP BY symbol, sector")
    assert code == 2
    assert err == ("cep: line 3, column 18: unknown attribute `sector`\n"
                   "  GROUP BY symbol, sector\n"
                   "                   ^^^^^^\n"), err


def test_schema_names_are_placed_in_the_text_they_were_parsed_from() -> None:
    schema = {"Stock": {"price": "number", "symbol": "string"}}
    src = "PATTERN SEQ(Stok a, Stock b, (Stok c))\nWHERE [symbol]\nAGG COUNT\nGROUP BY price, symbol"
    warnings = check_schema(parse(src), schema, src)
    assert [w.partition("\n")[0] for w in warnings] == [
        "line 1, column 13: event type `Stok` does not occur in the data; did you mean `Stock`?",
        "line 1, column 31: event type `Stok` does not occur in the data; did you mean `Stock`?"]
    assert warnings[1].endswith("\n  PATTERN SEQ(Stok a, Stock b, (Stok c))\n                                ^^^^")
    # without the text: the model's words, no place
    assert check_schema(parse(src), schema)[0] == "event type `Stok` does not occur in the data; did you mean `Stock`?"
    # the same name in [...] and GROUP BY: the first place, as the model checks them in that order
    src = "PATTERN SEQ(Stock a, Stock b)\nWHERE [tag]\nAGG COUNT\nGROUP BY tag"
    with pytest.raises(DslError) as exc:
        check_schema(parse(src), schema, src)
    assert (exc.value.line, exc.value.column, exc.value.span[2]) == (2, 8, 3)
    # text that is not the pattern's (a form's predicate): the model's place, nothing made up
    with pytest.raises(DslError) as exc:
        check_schema(parse(src), schema, "a.price > 1")
    assert exc.value.span == (1, 1, 1)
