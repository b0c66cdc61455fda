"""SES patterns and the selections in the model and the DSL (match-windows §3):
``earliest``, ``maximal``, ``earliest_maximal`` are WHERE conjuncts like the strategies,
printed back, round-tripped through text and JSON, validated, and refused by the engines
that find all matches."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.engines import planner
from engine.dsl import DslError, parse, to_text
from engine.match import EngineUnsupported
from engine.model import Pattern, PatternError, Selection, Strategy
from tests.strategies import patterns

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=50)


@settings(**SETTINGS)
@given(m=patterns(), sel=st.sampled_from(list(Selection)))
def test_selection_round_trips_through_text_and_json(m, sel):
    upd: dict = {"selection": sel}
    if sel is not Selection.ALL:  # a selection needs all matches (skip_till_any_match, OUTPUT ALL, no AGG)
        upd.update(strategy=Strategy.ANY, output="ALL", aggregate=None)
    q = m.model_copy(update=upd)
    try:
        q.check()
    except PatternError:
        assume(False)
    text = to_text(q)
    back = parse(text)
    assert back == q and back.selection is sel
    assert to_text(back) == text
    assert Pattern.model_validate_json(q.model_dump_json()) == q
    assert (sel.value in text.split("WHERE", 1)[1].split()) == (sel is not Selection.ALL)


def test_ses_pattern_with_every_selection_parses_and_prints():
    for sel in ("earliest", "maximal", "earliest_maximal", "EARLIEST_MAXIMAL"):
        p = parse(f"PATTERN SEQ(AND(C c, P+ p[]), B b) WHERE {sel} AND [PID] AND prev(p.V) < p.V WITHIN 16 days")
        assert p.selection is Selection(sel.lower()) and p.strategy is Strategy.ANY
        assert p.equivalence == ["PID"] and len(p.where) == 1
        assert to_text(p).splitlines()[1:3] == ["WHERE skip_till_any_match", f"  AND {sel.lower()}"]
    p = parse("PATTERN SEQ(A a, B+ b[]) WHERE b[i].x > b[i-1].x AND maximal WITHIN 5")
    assert p.selection is Selection.MAXIMAL and len(p.where) == 1
    p = parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { earliest AND a.x = b.x } WITHIN 5")
    assert p.selection is Selection.EARLIEST and len(p.where) == 1


def test_variables_named_like_a_selection_are_still_variables():
    p = parse("PATTERN SEQ(A earliest, B maximal) WHERE earliest.x < maximal.x AND maximal WITHIN 5")
    assert p.selection is Selection.MAXIMAL and p.variables == ["earliest", "maximal"]
    assert parse(to_text(p)) == p
    p = parse("PATTERN SEQ(A earliest, B+ b[]) WHERE earliest.x > 1")
    assert p.selection is Selection.ALL and len(p.where) == 1


@pytest.mark.parametrize("text,fragment", [
    ("PATTERN SEQ(A a, B b) WHERE earliest AND maximal WITHIN 5", "given twice"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND earliest WITHIN 5", "skip_till_any_match"),
    ("PATTERN SEQ(A a, B b) WHERE earliest WITHIN 5 OUTPUT NON_OVERLAP", "NON_OVERLAP"),
    ("PATTERN SEQ(A a, B? b) WHERE maximal WITHIN 5", "optional"),
    ("PATTERN SEQ(A a, B* b[]) WHERE maximal WITHIN 5", "optional"),
    ("PATTERN SEQ(A a, OR(B b, C c)) WHERE earliest WITHIN 5", "OR"),
    ("PATTERN SEQ(A a, B b) WHERE a.x > 1 OR earliest WITHIN 5", "earliest"),
])
def test_selection_errors_name_the_problem(text, fragment):
    with pytest.raises(DslError) as exc:
        parse(text)
    assert fragment in str(exc.value)


def test_selection_with_negation_is_allowed_and_selects_among_all_matches():
    p = parse("PATTERN SEQ(A a, !C n, B+ b[]) WHERE earliest_maximal WITHIN 5")
    assert p.selection is Selection.EARLIEST_MAXIMAL and p.negated


def test_engines_that_find_all_matches_refuse_a_selection():
    p = parse("PATTERN SEQ(AND(C c, P+ p[]), B b) WHERE earliest_maximal AND [PID] WITHIN 16 days")
    why = planner.reasons(p)
    assert why["ses"] is None and why["oracle"] is None and why["match-windows"] is None
    for name in ("nfab", "lazy-tree", "lazy-chain", "eager"):
        assert "earliest_maximal" in why[name]
        with pytest.raises(EngineUnsupported, match="earliest_maximal"):
            planner.choose(p, name)
    assert planner.choose(p).name == "ses"
    plain = parse("PATTERN SEQ(AND(C c, P+ p[]), B b) WHERE [PID] WITHIN 16 days")
    assert planner.choose(plain).name == "lazy-tree"  # all matches: auto keeps its choice
    assert planner.reasons(plain)["ses"] is None
