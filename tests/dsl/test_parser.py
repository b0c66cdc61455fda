"""The pattern grammar (engine/dsl/parser.py): :class:`Parser` on PATTERN items and every
clause, ``parse`` (with and without the model check), ``parse_expr``, the length limit,
``name_spans``, and the helpers ``_split_and`` and ``_desugar_prev``; worked models are built
by hand and each refusal is checked for its message and place."""
from __future__ import annotations

from typing import Any

import pytest

from engine import expr as X
from engine.dsl.errors import DslError
from engine.dsl.parser import Parser, _desugar_prev, _split_and, name_spans, parse, parse_expr
from engine.model import (
    MAX_COMPONENTS,
    MAX_PATTERN_LENGTH,
    Aggregate,
    Component,
    Group,
    Pattern,
    ReturnItem,
    Selection,
    Strategy,
    Window,
)


def ref(var: str, attr: str, index: str | None = None) -> X.Ref:
    return X.Ref(var=var, attr=attr, index=index)


def num(v: int | float) -> X.Num:
    return X.Num(value=v)


def comp(typ: str, var: str, quant: str = "one", negated: bool = False) -> Component:
    return Component(type=typ, var=var, quant=quant, negated=negated)


def refusal(text: str, check: bool = True) -> DslError:
    with pytest.raises(DslError) as info:
        parse(text, check=check)
    assert info.value.source == text
    return info.value


AB = "PATTERN SEQ(A a, B b) "


# --------------------------------------------------------------------------- PATTERN items


def test_a_single_component_is_wrapped_in_a_seq_with_the_type_as_variable() -> None:
    m = parse("PATTERN A")
    assert m.root.op == "SEQ" and m.root.items == [comp("A", "A")]
    assert m.strategy is Strategy.ANY and m.where == [] and m.window is None and m.output == "ALL"


def test_nested_groups_and_quantifiers() -> None:
    m = parse("PATTERN SEQ(A a, OR(B b, C c), AND(D* d[], E? e), F+ f[])")
    assert m.root == Group(op="SEQ", items=[
        comp("A", "a"),
        Group(op="OR", items=[comp("B", "b"), comp("C", "c")]),
        Group(op="AND", items=[comp("D", "d", "star"), comp("E", "e", "opt")]),
        comp("F", "f", "plus"),
    ])


@pytest.mark.parametrize("neg", ["!B b", "~B b", "¬B b", "NOT B b", "!(B b)", "NOT (B b)"])
def test_negation_spellings(neg: str) -> None:
    m = parse(f"PATTERN SEQ(A a, {neg}, C c) WITHIN 3")
    assert m.root.items[1] == comp("B", "b", negated=True)


def test_group_keyword_without_parenthesis_is_an_event_type() -> None:
    m = parse("PATTERN SEQ(SEQ s, OR o)")
    assert m.root.items == [comp("SEQ", "s"), comp("OR", "o")]


def test_component_spans_cover_what_is_written() -> None:
    m = parse("PATTERN SEQ(A a, !B+ b[])", check=False)
    assert m.root.items[0].span == (1, 13, 3)
    assert m.root.items[1].span == (1, 18, 7)
    assert m.root.span == (1, 9, 17)


@pytest.mark.parametrize("text, message, span", [
    ("PATTERN SEQ(A a, ! SEQ(B b), C c)", "negating a group `SEQ(...)` is not supported", (1, 20, 3)),
    ("PATTERN SEQ(A a, B b[])", "`b[]` declares a Kleene variable; write `B+ b[]`", (1, 21, 1)),
    ("PATTERN SEQ(A a, B? b[])", "`b[]` declares a Kleene variable; write `B+ b[]`", (1, 22, 1)),
    ("PATTERN SEQ(A a, B AS)", "`AS` is a keyword and cannot name a variable", (1, 20, 2)),
    ("PATTERN SEQ(A a, 3)", "expected an event type, found `3`", (1, 18, 1)),
    ("PATTERN SEQ(A a, B b", "expected `)` to close SEQ(, found end of input", (1, 21, 1)),
    ("PATTERN SEQ(A a, (B b c)", "expected `)` to close the component, found `c`", (1, 23, 1)),
    ("PATTERN SEQ(A a, B b[)", "expected `]` after `[` in a Kleene variable declaration, found `)`", (1, 22, 1)),
    ("PATERN SEQ(A a)", "a pattern starts with PATTERN, found `PATERN`", (1, 1, 6)),
    ("3 SEQ(A a)", "a pattern starts with PATTERN, found `3`", (1, 1, 1)),
])
def test_item_refusals(text: str, message: str, span: tuple[int, int, int]) -> None:
    err = refusal(text)
    assert (err.message, err.span) == (message, span)


def test_missing_pattern_keyword_suggests_it() -> None:
    assert refusal("PATERN SEQ(A a)").hint == "did you mean `PATTERN`?"
    assert refusal("3 SEQ(A a)").hint is None


def test_component_limit() -> None:
    ok = "PATTERN SEQ(" + ", ".join(f"A a{i}" for i in range(MAX_COMPONENTS)) + ")"
    assert len(parse(ok).components()) == MAX_COMPONENTS
    text = "PATTERN SEQ(" + ", ".join(f"A a{i}" for i in range(MAX_COMPONENTS + 1)) + ")"
    err = refusal(text)
    assert err.message == f"more than {MAX_COMPONENTS} components"
    assert err.span == (1, text.index(f"A a{MAX_COMPONENTS}") + 1, 1)
    assert "Kleene" in (err.hint or "")


def test_groups_nest_at_most_max_nesting() -> None:
    n = X.MAX_NESTING
    assert parse("PATTERN " + "SEQ(" * n + "A a" + ")" * n).components() == [comp("A", "a")]
    err = refusal("PATTERN " + "SEQ(" * (n + 1) + "A a" + ")" * (n + 1))
    assert err.message == f"nesting deeper than {n} levels" and err.span == (1, 9 + 4 * n, 3)


# --------------------------------------------------------------------------- WHERE


def test_where_conjuncts_strategy_selection_equivalence() -> None:
    # (the model check refuses a selection with strict contiguity; the grammar alone does not)
    m = parse(AB + "WHERE a.x > 1 AND strict-contiguity AND earliest AND [id, k] AND [k] AND b.y < 2",
              check=False)
    assert m.where == [X.Cmp(op=">", left=ref("a", "x"), right=num(1)),
                       X.Cmp(op="<", left=ref("b", "y"), right=num(2))]
    assert m.strategy is Strategy.STRICT
    assert m.selection is Selection.EARLIEST
    assert m.equivalence == ["id", "k"]  # each attribute once, in order


def test_an_and_inside_a_conjunct_is_split() -> None:
    m = parse(AB + "WHERE (a.x > 1 AND b.y < 2) AND a.z = 3")
    assert m.where == [X.Cmp(op=">", left=ref("a", "x"), right=num(1)),
                       X.Cmp(op="<", left=ref("b", "y"), right=num(2)),
                       X.Cmp(op="=", left=ref("a", "z"), right=num(3))]


def test_or_conjunct_is_kept_whole() -> None:
    m = parse(AB + "WHERE a.x > 1 OR b.y < 2")
    assert len(m.where) == 1 and isinstance(m.where[0], X.BoolOp) and m.where[0].op == "OR"


def test_sase_block_form() -> None:
    block = parse("PATTERN SEQ(A a, B+ b[]) WHERE skip_till_next_match(a, b[]) { a.x > 1 AND b[i].x > a.x }")
    flat = parse("PATTERN SEQ(A a, B+ b[]) WHERE skip_till_next_match AND a.x > 1 AND b[i].x > a.x")
    assert block == flat and block.strategy is Strategy.NEXT and len(block.where) == 2


@pytest.mark.parametrize("where, message, span", [
    ("skip_till_any_match AND strict_contiguity", "the selection strategy is given twice", (1, 53, 17)),
    ("earliest AND maximal", "the selection (earliest / maximal) is given twice", (1, 42, 7)),
    ("skip_till_any_match(a, b", "unclosed `(` after the strategy", (1, 53, 1)),
    ("skip_till_any_match { a.x > 1", "expected `}` to close the predicate block, found end of input", (1, 58, 1)),
    ("[id", "expected `]` to close the equivalence test, found end of input", (1, 32, 1)),
    ("[3]", "expected an attribute name, found `3`", (1, 30, 1)),
])
def test_where_refusals(where: str, message: str, span: tuple[int, int, int]) -> None:
    err = refusal(AB + "WHERE " + where)
    assert (err.message, err.span) == (message, span)


def test_prev_makes_unindexed_references_of_its_conjunct_iterations() -> None:
    m = parse("PATTERN SEQ(A a, B+ b[]) WHERE prev(b.x) < b.x AND b.y > 1 AND prev(b.z) > a.z")
    assert m.where == [
        X.Cmp(op="<", left=ref("b", "x", "i-1"), right=ref("b", "x", "i")),
        X.Cmp(op=">", left=ref("b", "y"), right=num(1)),  # another conjunct: left alone
        X.Cmp(op=">", left=ref("b", "z", "i-1"), right=ref("a", "z")),  # `a` has no prev: left alone
    ]


# --------------------------------------------------------------------------- other clauses


@pytest.mark.parametrize("within, value, unit", [
    ("3", 3, None), ("0.5", 0.5, None), ("2 weeks", 14, "day"), ("1.5 weeks", 10.5, "day"),
    ("2.0 weeks", 14, "day"), ("1 WEEK", 7, "day"), ("10 Secs", 10, "s"), ("5 events", 5, "events"), ("2 hrs", 2, "hour"),
    ("250 ms", 250, "ms"),
])
def test_window(within: str, value: int | float, unit: str | None) -> None:
    w = parse(AB + "WITHIN " + within).window
    assert w == Window(value=value, unit=unit)
    assert type(w.value) is type(value)


def test_window_before_another_clause_has_no_unit() -> None:
    m = parse(AB + "WITHIN 5 WHERE a.x > 1")
    assert m.window == Window(value=5) and len(m.where) == 1


@pytest.mark.parametrize("within, message, span, hint", [
    ("3 fortnights", "unknown time unit `fortnights`", (1, 32, 10), "use ms, s, min, hour, day or events"),
    ("3 hourz", "unknown time unit `hourz`", (1, 32, 5), "did you mean `hour`?"),
    ("x", "expected a number after WITHIN, found `x`", (1, 30, 1), None),
    ("0", "the window must be positive", (1, 30, 1), None),
    ("1e300 weeks", "the window is out of range (at most 1e300 days)", (1, 30, 11), None),
])
def test_window_refusals(within: str, message: str, span: tuple[int, int, int], hint: str | None) -> None:
    err = refusal(AB + "WITHIN " + within)
    assert (err.message, err.span, err.hint) == (message, span, hint)


@pytest.mark.parametrize("output, value", [("ALL", "ALL"), ("all", "ALL"), ("NON_OVERLAP", "NON_OVERLAP"),
                                           ("NonOverlap", "NON_OVERLAP"), ("non-overlap", "NON_OVERLAP")])
def test_output(output: str, value: str) -> None:
    assert parse(AB + "OUTPUT " + output).output == value


def test_output_refusal_suggests() -> None:
    err = refusal(AB + "OUTPUT AL")
    assert err.message == "expected ALL or NON_OVERLAP after OUTPUT, found `AL`"
    assert err.hint == "did you mean `ALL`?" and err.span == (1, 30, 2)
    assert refusal(AB + "OUTPUT 3").hint is None


@pytest.mark.parametrize("agg, want", [
    ("COUNT", Aggregate(func="COUNT")),
    ("count(*)", Aggregate(func="COUNT")),
    ("COUNT()", Aggregate(func="COUNT")),
    ("SUM(b.x)", Aggregate(func="SUM", var="b", attr="x")),
    ("avg(b[].x)", Aggregate(func="AVG", var="b", attr="x")),
])
def test_aggregate(agg: str, want: Aggregate) -> None:
    assert parse("PATTERN SEQ(A a, B+ b[]) AGG " + agg).aggregate == want


def test_group_by_before_or_after_agg() -> None:
    after = parse("PATTERN SEQ(A a, B+ b[]) AGG SUM(b.x) GROUP BY k, j").aggregate
    before = parse("PATTERN SEQ(A a, B+ b[]) GROUP BY k, j AGG SUM(b.x)").aggregate
    assert after == before == Aggregate(func="SUM", var="b", attr="x", group_by=["k", "j"])


@pytest.mark.parametrize("clause, message, span, hint", [
    ("AGG SUM", "SUM needs an argument, e.g. `SUM(b.price)`", (1, 27, 3), None),
    ("AGG MEDIAN(b.x)", "expected COUNT, SUM, AVG, MIN or MAX after AGG, found `MEDIAN`", (1, 27, 6),
     "did you mean `MIN`?"),
    ("AGG SUM(b x)", "expected `.` and an attribute after `b`, found `x`", (1, 33, 1), None),
    ("GROUP k", "expected BY after GROUP, found `k`", (1, 29, 1), None),
    ("GROUP BY k", "GROUP BY needs an AGG clause (e.g. `AGG COUNT`)", (1, 23, 5), None),
    ("RETURN a AS", "expected a column name, found end of input", (1, 34, 1), None),
])
def test_aggregate_and_return_refusals(clause: str, message: str, span: tuple[int, int, int],
                                       hint: str | None) -> None:
    err = refusal(AB + clause)
    assert (err.message, err.span, err.hint) == (message, span, hint)


def test_return_items() -> None:
    m = parse(AB + "RETURN a, b.x + 1 AS y, b AS bee")
    assert m.returns == [
        ReturnItem(var="a"),
        ReturnItem(expr=X.BinOp(op="+", left=ref("b", "x"), right=num(1)), alias="y"),
        ReturnItem(var="b", alias="bee"),
    ]


@pytest.mark.parametrize("tail, message, span, hint", [
    ("WITHIN 3 WITHIN 4", "WITHIN clause given twice", (1, 32, 6), None),
    ("WHER a.x > 1", "expected a clause (WHERE, WITHIN, OUTPUT, AGG, GROUP, RETURN), found `WHER`", (1, 23, 4),
     "did you mean `WHERE`?"),
    ("42", "expected a clause (WHERE, WITHIN, OUTPUT, AGG, GROUP, RETURN), found `42`", (1, 23, 2), None),
    ("; WITHIN 3", "`;` ends the pattern; nothing may follow it", (1, 24, 6), None),
])
def test_clause_refusals(tail: str, message: str, span: tuple[int, int, int], hint: str | None) -> None:
    err = refusal(AB.rstrip() + (" " if not tail.startswith(";") else "") + tail)
    assert (err.message, err.span, err.hint) == (message, span, hint)


def test_semicolon_ends_the_pattern() -> None:
    assert parse(AB + "WITHIN 3;") == parse(AB + "WITHIN 3")


def test_pattern_span_is_the_start() -> None:
    assert parse(AB).span == (1, 1, 1)


# --------------------------------------------------------------------------- parse / parse_expr


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_pattern(text: str) -> None:
    err = refusal(text)
    assert (err.message, err.span, err.hint) == ("the pattern is empty", None, "start with `PATTERN SEQ(...)`")


def test_model_check_errors_become_dsl_errors_with_the_text() -> None:
    text = "PATTERN SEQ(A a, C b) WHERE z.x > 1"
    assert parse(text, check=False).where[0] == X.Cmp(op=">", left=ref("z", "x"), right=num(1))
    err = refusal(text)
    assert err.message == "undefined variable `z`" and err.span == (1, 29, 3)
    assert str(err).endswith("\n  " + text + "\n  " + " " * 28 + "^^^")


def test_length_limit_is_placed_at_the_first_character_past_it() -> None:
    assert refusal("x" * (MAX_PATTERN_LENGTH + 1)).span == (1, MAX_PATTERN_LENGTH + 1, 1)
    text = "PATTERN A\n" + "x" * MAX_PATTERN_LENGTH
    err = refusal(text)
    assert err.message == f"the pattern is longer than {MAX_PATTERN_LENGTH:,} characters"
    assert err.span == (2, MAX_PATTERN_LENGTH - 9, 1)
    # a text of exactly the limit is not refused for its length
    exact = "PATTERN A " + "-" * (MAX_PATTERN_LENGTH - 10)  # a comment fills it up
    assert len(exact) == MAX_PATTERN_LENGTH and parse(exact).components() == [comp("A", "A")]


def test_parse_expr() -> None:
    assert parse_expr("a.x > 1 AND b.y < 2") == X.BoolOp(op="AND", items=[
        X.Cmp(op=">", left=ref("a", "x"), right=num(1)), X.Cmp(op="<", left=ref("b", "y"), right=num(2))])
    with pytest.raises(DslError) as info:
        parse_expr("a.x > 1 b")
    assert info.value.message == "unexpected `b` after the expression" and info.value.span == (1, 9, 1)
    with pytest.raises(DslError) as info:
        parse_expr("x" * (MAX_PATTERN_LENGTH + 1))
    assert "longer than" in info.value.message


# --------------------------------------------------------------------------- name_spans


def test_name_spans_of_types_equivalence_and_group_by() -> None:
    src = "PATTERN SEQ(A a,\n B+ b[]) WHERE [id, k] AND [id] GROUP BY k, g AGG COUNT"
    assert name_spans(src) == {
        "type": {"a": (1, 13, 1), "b": (2, 2, 1)},
        "equivalence": {"id": (2, 17, 2), "k": (2, 21, 1)},  # the first occurrence
        "group_by": {"k": (2, 42, 1), "g": (2, 45, 1)},
    }


def test_name_spans_of_text_that_does_not_parse_are_empty() -> None:
    empty: dict[str, dict[str, Any]] = {"type": {}, "equivalence": {}, "group_by": {}}
    assert name_spans("PATTERN SEQ(") == empty
    assert name_spans("x" * (MAX_PATTERN_LENGTH + 1)) == empty
    # a pattern the model check would refuse still has its names placed (no check here)
    assert name_spans("PATTERN SEQ(A a) WHERE z.x > 1")["type"] == {"a": (1, 13, 1)}


def test_parser_records_name_spans_while_parsing() -> None:
    p = Parser("PATTERN SEQ(Stock s)")
    p.parse_query()
    assert p.name_spans["type"] == {"s": (1, 13, 5)} and p.n_components == 1


# --------------------------------------------------------------------------- helpers


def test_split_and_flattens_nested_conjunctions_only() -> None:
    a, b, c = (X.Cmp(op="=", left=ref(v, "x"), right=num(1)) for v in "abc")
    nested = X.BoolOp(op="AND", items=[a, X.BoolOp(op="AND", items=[b, c])])
    assert _split_and(nested) == [a, b, c]
    either = X.BoolOp(op="OR", items=[a, b])
    assert _split_and(either) == [either]
    assert _split_and(a) == [a]


def test_desugar_prev_uses_the_recorded_ids() -> None:
    prev = ref("b", "x", "i-1")
    plain = ref("b", "y")
    e = X.BinOp(op="+", left=prev, right=X.Neg(item=plain))
    cmp = X.Cmp(op="<", left=e, right=ref("c", "z"))
    assert _desugar_prev(cmp, set()) is cmp  # no prev(...): unchanged
    got = _desugar_prev(cmp, {id(prev)})
    assert got == X.Cmp(op="<", left=X.BinOp(op="+", left=prev, right=X.Neg(item=ref("b", "y", "i"))),
                        right=ref("c", "z"))
    inside_or = X.BoolOp(op="OR", items=[X.Cmp(op="<", left=prev, right=plain), X.Bool(value=True)])
    assert _desugar_prev(inside_or, {id(prev)}).items[0].right == ref("b", "y", "i")


def test_desugar_prev_leaves_indexed_references() -> None:
    prev = ref("b", "x", "i-1")
    first = ref("b", "x", "1")
    cmp = X.Cmp(op="<", left=prev, right=first)
    assert _desugar_prev(cmp, {id(prev)}) is cmp
