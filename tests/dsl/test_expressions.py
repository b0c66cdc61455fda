"""The token cursor and predicate grammar (engine/dsl/expressions.py): :class:`ExpressionParser`
directly: the cursor (``tok``, ``peek``, ``advance``, ``expect_*``, ``describe``), the nesting
limits (``enter`` for parentheses / NOT / unary signs, ``node`` for the height of a tree), number
literals, spans, operator precedence checked against hand-built trees, references and their
indexes, aggregate calls, ``prev``, strings, and every refusal with its place."""
from __future__ import annotations

from typing import Any

import pytest

from engine import expr as X
from engine.dsl.errors import DslError
from engine.dsl.expressions import ExpressionParser, _short, _unquote


def expr(text: str) -> Any:
    p = ExpressionParser(text)
    e = p.parse_or()
    assert p.tok.kind == "eof", f"left over: {p.tok.text!r}"
    return e


def refusal(text: str) -> DslError:
    with pytest.raises(DslError) as info:
        expr(text)
    return info.value


def ref(var: str, attr: str, index: str | None = None) -> X.Ref:
    return X.Ref(var=var, attr=attr, index=index)


def num(v: int | float, percent: bool = False) -> X.Num:
    return X.Num(value=v, percent=percent)


# --------------------------------------------------------------------------- the cursor


def test_cursor_peek_and_advance_stop_at_eof() -> None:
    p = ExpressionParser("a . x")
    assert p.tok.text == "a" and p.peek().text == "." and p.peek(2).text == "x"
    assert p.peek(10).kind == "eof"
    assert p.advance().text == "a" and p.tok.text == "."
    p.advance(), p.advance()
    assert p.tok.kind == "eof"
    assert p.advance().kind == "eof" and p.i == 3  # advancing at eof stays there


def test_describe_and_expect() -> None:
    p = ExpressionParser("x )")
    assert p.describe(p.tok) == "`x`"
    with pytest.raises(DslError) as info:
        p.expect_op("(", "to open")
    assert info.value.message == "expected `(` to open, found `x`" and info.value.span == (1, 1, 1)
    assert p.expect_name("a name").text == "x"
    with pytest.raises(DslError) as info:
        p.expect_name("an attribute name")
    assert info.value.message == "expected an attribute name, found `)`" and info.value.span == (1, 3, 1)
    assert p.expect_op(")").text == ")"
    assert p.describe(p.tok) == "end of input"
    with pytest.raises(DslError) as info:
        p.expect_op(")")
    assert info.value.message == "expected `)`, found end of input"


def test_error_uses_the_given_token_span_or_explicit_span() -> None:
    p = ExpressionParser("ab cd")
    second = p.peek()
    assert p.error("m").span == (1, 1, 2)
    assert p.error("m", second).span == (1, 4, 2)
    err = p.error("m", second, hint="h", span=(1, 1, 5))
    assert err.span == (1, 1, 5) and err.hint == "h" and err.source == "ab cd"


def test_span_from_covers_the_tokens_read_on_one_line() -> None:
    p = ExpressionParser("  a.x + 1\n  + 2")
    start = p.tok
    p.advance(), p.advance(), p.advance()  # a . x
    assert p.span_from(start) == (1, 3, 3)
    p.advance(), p.advance()  # + 1
    assert p.span_from(start) == (1, 3, 7)
    p.advance()  # the + on line 2: a span cannot cross lines, so it is the start token's
    assert p.span_from(start) == start.span == (1, 3, 1)


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("text, value", [("7", 7), ("1.5", 1.5), (".5", 0.5), ("2e3", 2000.0), ("0", 0),
                                         ("0.0", 0.0), ("0e5", 0.0)])
def test_number_values_and_types(text: str, value: int | float) -> None:
    p = ExpressionParser(text)
    v = p.number(p.tok)
    assert v == value and type(v) is type(value)


def test_number_out_of_range_and_rounding_to_zero() -> None:
    err = refusal("1e301")
    assert err.message == "number `1e301` is out of range (at most 1e300 in magnitude)" and err.span == (1, 1, 5)
    err = refusal("a.x > 1e-400")
    assert err.message == "number `1e-400` is too small: it rounds to 0" and err.span == (1, 7, 6)
    long_tiny = "0." + "0" * 30 + "1e-300"
    assert refusal(long_tiny).message == f"number `{long_tiny[:21]}...` is too small: it rounds to 0"


def test_short() -> None:
    assert _short("x" * 24) == "x" * 24
    assert _short("x" * 25) == "x" * 21 + "..."
    assert _short("abcdef", 5) == "ab..."


# --------------------------------------------------------------------------- structure


def test_precedence_or_and_not_cmp_add_mul() -> None:
    got = expr("a.x + b.y * 2 > 3 OR NOT c.z = 1 AND d.w < 2")
    want = X.BoolOp(op="OR", items=[
        X.Cmp(op=">", left=X.BinOp(op="+", left=ref("a", "x"),
                                   right=X.BinOp(op="*", left=ref("b", "y"), right=num(2))), right=num(3)),
        X.BoolOp(op="AND", items=[
            X.Not(item=X.Cmp(op="=", left=ref("c", "z"), right=num(1))),
            X.Cmp(op="<", left=ref("d", "w"), right=num(2)),
        ]),
    ])
    assert got == want


def test_left_associative_arithmetic_and_parentheses() -> None:
    assert expr("a.x - 1 - 2") == X.BinOp(op="-", left=X.BinOp(op="-", left=ref("a", "x"), right=num(1)),
                                          right=num(2))
    assert expr("a.x - (1 - 2)") == X.BinOp(op="-", left=ref("a", "x"),
                                            right=X.BinOp(op="-", left=num(1), right=num(2)))
    assert expr("a.x / 2 % 3") == X.BinOp(op="%", left=X.BinOp(op="/", left=ref("a", "x"), right=num(2)),
                                          right=num(3))


def test_or_items_are_flat() -> None:
    e = expr("a.x = 1 OR a.x = 2 OR a.x = 3")
    assert isinstance(e, X.BoolOp) and e.op == "OR" and len(e.items) == 3


@pytest.mark.parametrize("op, canonical", [("=", "="), ("==", "="), ("!=", "!="), ("<>", "!="), ("<", "<"),
                                           ("<=", "<="), (">", ">"), (">=", ">=")])
def test_comparison_spellings(op: str, canonical: str) -> None:
    assert expr(f"a.x {op} 1") == X.Cmp(op=canonical, left=ref("a", "x"), right=num(1))


def test_chained_comparison_is_a_conjunction_sharing_the_middle() -> None:
    assert expr("1 < a.x <= 3") == X.BoolOp(op="AND", items=[
        X.Cmp(op="<", left=num(1), right=ref("a", "x")), X.Cmp(op="<=", left=ref("a", "x"), right=num(3))])


def test_unary_signs() -> None:
    assert expr("-3") == num(-3)
    assert expr("-80%") == num(-80, percent=True)
    assert expr("- a.x") == X.Neg(item=ref("a", "x"))
    assert expr("-(3)") == X.Neg(item=num(3))
    assert expr("- -3") == X.Neg(item=num(-3))
    assert expr("+a.x") == ref("a", "x")  # a unary plus leaves no node
    # `--` starts a comment, so `--3` is an empty expression
    assert refusal("--3").message == "expected a value, found end of input"


def test_percent_is_a_literal_only_when_glued_and_not_followed_by_an_operand() -> None:
    assert expr("5%") == num(5, percent=True)
    assert expr("5% > a.x") == X.Cmp(op=">", left=num(5, percent=True), right=ref("a", "x"))
    assert expr("5 % 2") == X.BinOp(op="%", left=num(5), right=num(2))
    assert expr("5% a.x") == X.BinOp(op="%", left=num(5), right=ref("a", "x"))
    assert expr("5%(2)") == X.BinOp(op="%", left=num(5), right=num(2))
    # with a space before it, `%` is the modulo operator, which needs a right operand
    assert refusal("a.x > 5 %").message == "expected a value, found end of input"


def test_strings_booleans() -> None:
    assert expr("'a\\nb'") == X.Str(value="a\nb")
    assert expr('"x\\"y"') == X.Str(value='x"y')
    assert expr("TRUE = false") == X.Cmp(op="=", left=X.Bool(value=True), right=X.Bool(value=False))


def test_unquote_escapes() -> None:
    assert _unquote("'a\\tb\\\\c\\qd\\re'") == "a\tb\\cqd\re"
    assert _unquote('""') == ""


@pytest.mark.parametrize("text, index", [("b.x", None), ("b[1].x", "1"), ("b[i].x", "i"), ("b[I].x", "i"),
                                         ("b[i-1].x", "i-1"), ("b[last].x", "last"), ("b[b.len].x", "last"),
                                         ("b[b.LEN].x", "last")])
def test_reference_indexes(text: str, index: str | None) -> None:
    assert expr(text) == ref("b", "x", index)


def test_len_only_without_an_index() -> None:
    assert expr("b.len") == X.Len(var="b")
    assert expr("b.LEN") == X.Len(var="b")
    assert expr("b[i].len") == ref("b", "len", "i")


def test_aggregate_calls() -> None:
    assert expr("SUM(b.x)") == X.Agg(func="sum", var="b", attr="x", scope="all")
    assert expr("avg(b[].x)") == X.Agg(func="avg", var="b", attr="x", scope="all")
    assert expr("max(b[..i-1].x)") == X.Agg(func="max", var="b", attr="x", scope="prefix")


def test_prev_is_an_i_minus_1_reference_and_is_recorded() -> None:
    p = ExpressionParser("prev(b.x) < b.x")
    e = p.parse_or()
    assert e == X.Cmp(op="<", left=ref("b", "x", "i-1"), right=ref("b", "x"))
    assert p.prev_refs == {id(e.left)}
    q = ExpressionParser("b[i-1].x < b.x")
    q.parse_or()
    assert q.prev_refs == set()  # only prev(...) is recorded, not an explicit [i-1]


def test_and_stops_before_a_strategy_an_equivalence_or_a_selection() -> None:
    for rest in ("skip_till_any_match", "strict-contiguity", "[id]", "earliest", "maximal"):
        p = ExpressionParser(f"a.x = 1 AND {rest}")
        assert p.parse_or() == X.Cmp(op="=", left=ref("a", "x"), right=num(1))
        assert p.tok.is_kw("AND")
    # a variable called `earliest` is a reference, so AND continues
    assert expr("a.x = 1 AND earliest.y = 2") == X.BoolOp(op="AND", items=[
        X.Cmp(op="=", left=ref("a", "x"), right=num(1)), X.Cmp(op="=", left=ref("earliest", "y"), right=num(2))])


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("text, message, span, hint", [
    ("a", "expected `.attribute` after `a`, found end of input", (1, 2, 1), "write `a.attr`"),
    ("foo(b.x)", "unknown function `foo`", (1, 1, 3), None),
    ("sume(b.x)", "unknown function `sume`", (1, 1, 4), "did you mean `sum`?"),
    ("skip_till_any_match", "the selection strategy must be a top-level conjunct of WHERE", (1, 1, 19), None),
    ("[x]", "an equivalence test `[attr]` must be a top-level conjunct of WHERE", (1, 1, 1), None),
    ("AND", "expected a value, found keyword `AND`", (1, 1, 3), None),
    ("a.x = )", "expected a value, found `)`", (1, 7, 1), None),
    ("(a.x", "expected `)` to close `(`, found end of input", (1, 5, 1), None),
    ("b[c.len].x", "`b[c.len]`: the length must be of `b` itself", (1, 3, 1), None),
    ("b[2].x", "unsupported index in `b[...]`", (1, 3, 1), "use b[1], b[i], b[i-1] or b[b.len]"),
    ("b[i-2].x", "only `[i-1]` is supported after `i-`", (1, 5, 1), None),
    ("b[i.x", "expected `]` to close `b[`, found `.`", (1, 4, 1), None),
    ("avg(b[..j-1].x)", "expected `..i-1`", (1, 9, 1), None),
    ("avg(b[..i-2].x)", "expected `..i-1`", (1, 11, 1), None),
    ("avg(b.x", "expected `)` to close `avg(`, found end of input", (1, 8, 1), None),
    ("avg(b)", "expected `.` and an attribute after `b`, found `)`", (1, 6, 1), None),
    ("avg(3)", "expected a Kleene variable, found `3`", (1, 5, 1), None),
    ("prev(b)", "expected `.`, found `)`", (1, 7, 1), None),
    ("skip_till_ani_match", "unknown strategy `skip_till_ani_match`", (1, 1, 19),
     "did you mean `skip_till_any_match`?"),
])
def test_refusals_name_the_place_and_why(text: str, message: str, span: tuple[int, int, int],
                                         hint: str | None) -> None:
    err = refusal(text)
    assert (err.message, err.span, err.hint) == (message, span, hint)


# --------------------------------------------------------------------------- nesting limits


def test_parentheses_nest_at_most_max_nesting() -> None:
    n = X.MAX_NESTING
    assert expr("(" * n + "a.x" + ")" * n) == ref("a", "x")
    err = refusal("(" * (n + 1) + "a.x" + ")" * (n + 1))
    assert err.message == f"nesting deeper than {n} levels" and err.span == (1, n + 1, 1)
    assert "parentheses" in (err.hint or "")


def test_nesting_depth_is_released_after_each_group() -> None:
    n = X.MAX_NESTING
    # many groups side by side never exceed the limit: leave() undoes enter()
    text = " + ".join(["(" * 10 + "a.x" + ")" * 10] * 3)
    assert isinstance(expr(text), X.BinOp)
    p = ExpressionParser("(" * n + "a.x" + ")" * n)
    p.parse_or()
    assert p.depth == 0


def test_not_and_unary_minus_count_as_nesting() -> None:
    n = X.MAX_NESTING
    # n - 2 NOTs over a comparison (height 2) is a tree n high
    assert X.height(expr("NOT " * (n - 2) + "a.x = 1")) == n
    # n - 1 NOTs: the tree is too high, refused at the outermost NOT
    err = refusal("NOT " * (n - 1) + "a.x = 1")
    assert err.span == (1, 1, 3) and "split the predicate" in (err.hint or "")
    # n + 1 NOTs: refused on the way down, at the (n + 1)-th NOT
    err = refusal("NOT " * (n + 1) + "a.x = 1")
    assert err.span == (1, 4 * n + 1, 3) and "NOT and unary minus" in (err.hint or "")
    assert X.height(expr("- " * (n - 1) + "a.x")) == n
    err = refusal("- " * (n + 1) + "a.x")
    assert err.span == (1, 2 * n + 1, 1) and "NOT and unary minus" in (err.hint or "")


def test_a_long_operator_chain_is_a_deep_tree() -> None:
    n = X.MAX_NESTING
    ok = " + ".join(["1"] * n)  # n - 1 operators: height n
    e = expr(ok)
    assert X.height(e) == n
    err = refusal(" + ".join(["1"] * (n + 1)))  # the n-th `+` makes it n + 1 high
    assert err.message == f"nesting deeper than {n} levels"
    assert err.span == (1, 4 * n - 1, 1)  # the last `+`
    assert "split the predicate into conjuncts" in (err.hint or "")


def test_node_records_heights() -> None:
    p = ExpressionParser("")
    leaf = num(1)
    inner = p.node(X.Neg(item=leaf), p.tok, leaf)
    outer = p.node(X.Neg(item=inner), p.tok, inner)
    assert p.heights[id(inner)][0] == 2 and p.heights[id(outer)][0] == 3
