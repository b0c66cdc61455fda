"""Why chosen events did not match (engine/explain/whynot.py): ``parse_spec`` and each of its
refusals, the stage checks (``_type_check``, ``_order_check``, ``evaluate`` through type, order,
predicate, equivalence, window, negation and the engine), ``assignments`` against a brute
force, ``Outcome.score``, ``_before``, ``_nearest``, and ``explain_why_not`` end to end on
tiny streams."""
from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.dsl import parse
from engine.events import Event
from engine.explain.common import ExplainError, alternatives
from engine.explain.whynot import (
    STAGES,
    Outcome,
    _before,
    _comp_text,
    _nearest,
    _order_check,
    _type_check,
    assignments,
    evaluate,
    explain_why_not,
    parse_spec,
)
from engine.match import Match
from engine.model import Component, Pattern
from tests.support import stream

KLEENE = parse("PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x > a.x AND [k] WITHIN 10")
EVENTS = stream("a1@1 b2@2 b3@3 c4@4 b5@5 c6@20 d7@21",
                a1={"x": 1, "k": 1}, b2={"x": 5, "k": 1}, b3={"x": 0, "k": 1}, c4={"k": 2}, b5={"x": 3, "k": 1},
                c6={"k": 1}, d7={"k": 1})
BY_ID = {e.id: e for e in EVENTS}


def evs(*ids: str) -> list[Event]:
    return [BY_ID[i] for i in ids]


def refused(spec: str, pattern: Pattern = KLEENE, events: list[Event] = EVENTS) -> str:
    with pytest.raises(ExplainError) as info:
        parse_spec(spec, pattern, events)
    assert info.value.status == 2
    return str(info.value)


# --------------------------------------------------------------------------- parse_spec


def test_spec_of_ids_in_stream_order() -> None:
    fixed, chosen = parse_spec(" c4, a1 ,b2", KLEENE, EVENTS)
    assert fixed is None and chosen == evs("a1", "b2", "c4")


def test_spec_of_fixed_variables() -> None:
    fixed, chosen = parse_spec("a=a1; b=b3,b2 ;c=c4;", KLEENE, EVENTS)
    assert fixed == {"a": evs("a1"), "b": evs("b2", "b3"), "c": evs("c4")}  # each variable's events in order
    assert chosen == evs("a1", "b2", "b3", "c4")


@pytest.mark.parametrize("spec, message", [
    ("", "no events given: write ids like `1,2,3,6`, or fix variables: `a=1,2,3;b=6`"),
    ("  ", "no events given: write ids like `1,2,3,6`, or fix variables: `a=1,2,3;b=6`"),
    (",", "no events given"),
    ("a1,zz", "unknown event id `zz`: the data has 7 events (ids a1, b2, b3, c4, b5, c6, d7)"),
    ("a=a1;b", "cannot read `b`: write `var=id,id,...` parts separated by `;`"),
    ("=a1", "cannot read `=a1`: write `var=id,id,...` parts separated by `;`"),
    ("q=a1", "unknown variable `q`; the pattern's variables are a, b, c"),
    ("a=a1;a=a1", "variable `a` is given twice"),
    ("a=", "no event ids for `a`"),
    ("a1,a1", "event a1 is given twice: a match uses an event at most once"),
    ("a=a1;b=b2;c=a1", "event a1 is given twice: a match uses an event at most once"),
])
def test_spec_refusals(spec: str, message: str) -> None:
    assert refused(spec) == message


def test_spec_refusals_about_the_data_and_the_pattern() -> None:
    many = stream(" ".join(f"a{i}" for i in range(20)))
    assert refused("zz", events=many) == "unknown event id `zz`: the data has 20 events (ids a0, a1, a2, a3, a4, ..., a19)"
    assert refused("zz", events=stream("a1")) == "unknown event id `zz`: the data has 1 event (ids a1)"
    assert refused("zz", events=[]) == "unknown event id `zz`: the data has 0 events"
    assert refused("a1", events=stream("a1 a1")) == \
        "event id `a1` is not unique in the data; give the data unique ids (--id-col)"
    neg = parse("PATTERN SEQ(A a, !D d, C c) WITHIN 100")
    assert refused("d=d7", pattern=neg) == "`d` is a negated component: a match binds no event to it"
    assert refused("cc=c4", pattern=neg) == "unknown variable `cc`; the pattern's variables are a, c (did you mean `c`?)"


def test_ids_are_matched_as_text() -> None:
    numbered = stream("a1 b2", )
    renumbered = [Event(id=i + 1, type=e.type, ts=e.ts, seq=e.seq, attrs={}) for i, e in enumerate(numbered)]
    _, chosen = parse_spec("2, 1", parse("PATTERN SEQ(A a, B b)"), renumbered)
    assert [e.id for e in chosen] == [1, 2]


# --------------------------------------------------------------------------- stage checks


def test_comp_text() -> None:
    assert _comp_text(Component(type="B", var="b", quant="plus")) == "B+ b[]"
    assert _comp_text(Component(type="B", var="b", quant="star")) == "B* b[]"
    assert _comp_text(Component(type="B", var="b", quant="opt")) == "B? b"
    assert _comp_text(Component(type="A", var="a")) == "A a"


def test_type_check() -> None:
    (alt,) = alternatives(parse("PATTERN SEQ(A a, C c)"))
    assert _type_check(alt, {"a": evs("a1"), "c": evs("c4")}) is None
    reason, at = _type_check(alt, {"a": evs("a1"), "c": evs("b2", "d7")})
    assert at is BY_ID["b2"]  # the earliest wrong event
    assert reason == {"kind": "type", "event": "b2", "var": "c", "values": {"type": "B", "expected": "C"},
                      "text": "event b2 has type B, but `c` is `C c`"}
    reason, at = _type_check(alt, {"a": evs("a1"), "c": evs("c4", "c6")})
    assert at is BY_ID["c6"]
    assert reason["text"] == "`c` is `C c`, one event, but 2 were given (c4, c6)"
    assert reason["values"] == {"events": 2}


def test_order_check_names_the_earliest_event_out_of_order() -> None:
    tree = parse("PATTERN SEQ(A a, SEQ(B b, C c))").root
    assert _order_check(tree, {"a": evs("a1"), "b": evs("b2"), "c": evs("c4")}) is None
    reason, at = _order_check(tree, {"a": evs("c4"), "b": evs("a1"), "c": evs("b2")})
    assert at is BY_ID["a1"]
    assert reason == {"kind": "order", "event": "a1", "var": "b", "values": {"b.seq": 0, "a.seq": 3},
                      "text": "event a1 (`b`) comes before event c4 (`a`), but SEQ puts `a` before `b`"}


def test_order_check_reports_the_earliest_of_several_events_out_of_order() -> None:
    tree = parse("PATTERN SEQ(A a, B b, C c)").root
    # a is bound last in the stream; b's event and c's event both come before it: b2 is the earliest
    reason, at = _order_check(tree, {"a": evs("c6"), "b": evs("c4"), "c": evs("b2")})
    assert at is BY_ID["b2"] and reason["var"] == "c" and reason["values"] == {"c.seq": 1, "a.seq": 5}


def test_order_check_ignores_and() -> None:
    tree = parse("PATTERN AND(A a, B b)").root
    assert _order_check(tree, {"a": evs("b2"), "b": evs("a1")}) is None


def test_before() -> None:
    b = {"a": evs("a1"), "b": evs("b2", "b3"), "c": evs("c4")}
    assert _before(b, BY_ID["b3"].seq) == {"a": evs("a1"), "b": evs("b2")}
    assert _before(b, BY_ID["b3"].seq, inclusive=True) == {"a": evs("a1"), "b": evs("b2", "b3")}
    assert _before(b, BY_ID["a1"].seq) == {}


def test_outcome_score_orders_by_stage_then_bound_events() -> None:
    assert STAGES == ("type", "order", "predicate", "equivalence", "window", "negation", "engine")
    early = Outcome(None, {}, "predicate", {}, {"a": evs("a1"), "b": evs("b2", "b3")})
    later = Outcome(None, {}, "window", {}, {"a": evs("a1")})
    assert early.score == (2, 3) and later.score == (4, 1) and later.score > early.score


def kleene_outcome(*ids: str) -> Outcome:
    (alt,) = alternatives(KLEENE)
    b: dict[str, list[Event]] = {"a": [], "b": [], "c": []}
    for e in evs(*ids):
        b[e.type.lower()].append(e)
    return evaluate(KLEENE, EVENTS, alt, b)


def test_evaluate_predicate_stage() -> None:
    o = kleene_outcome("a1", "b2", "b3", "c4")
    assert o.stage == "predicate" and o.furthest == {"a": evs("a1"), "b": evs("b2")}
    assert o.reason["text"] == "adding event b3 to `b` (take at b[i]): b[i].x > a.x is false (b[2].x=0, a.x=1)"
    assert (o.reason["edge"], o.reason["state"], o.reason["values"]) == ("take", "b[i]", {"b[2].x": 0, "a.x": 1})


def test_a_predicate_of_the_whole_kleene_binding_fails_on_proceed() -> None:
    pattern = parse("PATTERN SEQ(A a, B+ b[], C c) WHERE sum(b.x) > 100")
    events = stream("a1 b2 b3 c4", b2={"x": 1}, b3={"x": 2})
    (alt,) = alternatives(pattern)
    o = evaluate(pattern, events, alt, {"a": events[:1], "b": events[1:3], "c": events[3:]})
    assert o.stage == "predicate" and o.reason["edge"] == "proceed" and o.reason["state"] == "b[i]"
    assert o.reason["text"] == ("when `b[]` is complete (last event b3), sum(b[].x) > 100 is false "
                                "(sum(b[].x)=3)")
    assert o.furthest == {"a": events[:1], "b": events[1:3]}  # the whole of b[], its last event included


def test_evaluate_equivalence_stage() -> None:
    o = kleene_outcome("a1", "b2", "c4")
    assert o.stage == "equivalence" and o.reason["predicate"] == "c.k = a.k"
    assert o.reason["text"] == "adding event c4 to `c` (begin at c): c.k = a.k is false (c.k=2, a.k=1)"


def test_evaluate_window_stage() -> None:
    o = kleene_outcome("a1", "b2", "b5", "c6")
    assert o.stage == "window" and o.furthest == {"a": evs("a1"), "b": evs("b2", "b5")}
    assert o.reason["text"] == ("event c6 is outside the window: ts 20 - 1 = 19 is not < 10 (WITHIN 10, "
                                "first event a1)")
    assert o.reason["values"] == {"first.ts": 1.0, "last.ts": 20.0, "W": 10}


def test_evaluate_type_and_order_stages_come_first() -> None:
    (alt,) = alternatives(KLEENE)
    o = evaluate(KLEENE, EVENTS, alt, {"a": evs("a1"), "b": evs("b2", "d7"), "c": evs("c4")})
    assert o.stage == "type" and o.reason["event"] == "d7" and o.furthest == {"a": evs("a1"), "b": evs("b2"),
                                                                              "c": evs("c4")}
    o = evaluate(KLEENE, EVENTS, alt, {"a": evs("b5"), "b": evs("b2"), "c": evs("c4")})
    assert o.stage == "type"  # a B bound to `a`: the type is checked before the order
    o = evaluate(KLEENE, EVENTS, alt, {"a": evs("a1"), "b": evs("b5"), "c": evs("c4")})
    assert o.stage == "order" and o.reason["event"] == "c4"


def test_evaluate_negation_and_engine_stages() -> None:
    pattern = parse("PATTERN SEQ(A a, !D d, C c) WITHIN 100")
    events = stream("a1 b2 d3 c4 c5")
    (alt,) = alternatives(pattern)
    o = evaluate(pattern, events, alt, {"a": events[:1], "c": events[3:4]})
    assert o.stage == "negation"
    assert o.reason["text"] == "event d3 (D) lies between event a1 and event c4 and qualifies for `!D d`"
    plain = parse("PATTERN SEQ(A a, C c)")
    (alt,) = alternatives(plain)
    o = evaluate(plain, events, alt, {"a": events[:1], "c": events[4:5]})
    assert o.stage == "engine" and o.reason is None and o.furthest == {"a": events[:1], "c": events[4:5]}


# --------------------------------------------------------------------------- assignments


def brute_force(pattern: Pattern, events: list[Event], ordered: bool) -> list[dict[str, list[Any]]]:
    """Every map of the events (stream order) to the components of a flat SEQ: types fit, a
    one-event component takes one event, a Kleene one at least one, and with ``ordered`` the
    component index never decreases along the stream."""
    comps = [c for c in pattern.components() if not c.negated]
    out = []
    for choice in itertools.product(range(len(comps)), repeat=len(events)):
        if any(not comps[ci].matches_type(e.type) for e, ci in zip(events, choice)):
            continue
        counts = [choice.count(i) for i in range(len(comps))]
        if any(n == 0 or (n > 1 and not c.kleene) for n, c in zip(counts, comps)):
            continue
        if ordered and list(choice) != sorted(choice):
            continue
        out.append({c.var: [e.id for e, ci in zip(events, choice) if ci == i] for i, c in enumerate(comps)})
    return out


@pytest.mark.parametrize("src", ["PATTERN SEQ(A a, B+ b[], C c)", "PATTERN SEQ(ANY x, B+ b[])",
                                 "PATTERN SEQ(A+ a[], ANY y, A z)"])
@pytest.mark.parametrize("text", ["a1 b2 b3 c4", "b1 a2 b3", "a1 a2 b3 a4", "a1 c2 b3"])
@pytest.mark.parametrize("ordered", [True, False])
def test_assignments_against_a_brute_force(src: str, text: str, ordered: bool) -> None:
    pattern = parse(src)
    events = stream(text)
    got = [{v: [e.id for e in x] for v, x in b.items()} for _, b in assignments(pattern, events, ordered)]
    want = brute_force(pattern, events, ordered)
    assert sorted(map(repr, got)) == sorted(map(repr, want))


def test_assignments_over_alternatives_and_and() -> None:
    events = stream("b1 a2")
    got = [(alt.vars, {v: [e.id for e in x] for v, x in b.items()})
           for alt, b in assignments(parse("PATTERN AND(A a, B b)"), events, True)]
    assert got == [(["a", "b"], {"a": ["a2"], "b": ["b1"]})]  # AND does not order its items
    got = [alt.vars for alt, _ in assignments(parse("PATTERN SEQ(A a, OR(B b, C c))"), stream("a1 c2"), True)]
    assert got == [["a", "c"]]


# --------------------------------------------------------------------------- the answer


def why_not(pattern: Pattern, events: list[Event], spec: str) -> dict[str, Any]:
    return explain_why_not(pattern, events, spec)


def test_a_reported_match_is_explained_as_a_match() -> None:
    r = why_not(parse("PATTERN SEQ(A a, C c)"), stream("a1 b2 c3"), "c3,a1")
    assert r["verdict"] == "match" and r["index"] == 1 and r["match"] == {"a": ["a1"], "c": ["c3"]}


def test_the_furthest_assignment_is_reported() -> None:
    r = why_not(KLEENE, EVENTS, "a1,b2,b3,c4")
    assert r["verdict"] == "no_match" and r["engine"] == "nfab"
    assert r["candidate"] == {"a": ["a1"], "b": ["b2", "b3"], "c": ["c4"]}
    assert r["furthest"] == {"a": ["a1"], "b": ["b2"]}
    assert r["reason"]["kind"] == "predicate" and r["reason"]["event"] == "b3"
    assert r["events"] == ["a1", "b2", "b3", "c4"] and r["nearest"] is None


def test_no_assignment_reasons() -> None:
    r = why_not(KLEENE, EVENTS, "a1,b2,d7")
    assert r["reason"] == {"kind": "type", "text": "event d7 has type D, which no positive component takes "
                                                   "(A a, B+ b[], C c)", "event": "d7", "values": {"type": "D"}}
    assert r["candidate"] == {} and r["furthest"] == {}
    r = why_not(KLEENE, EVENTS, "a1,c4")
    assert r["reason"]["text"] == "no event given for `b` (`B+ b[]`): a match binds every component"
    r = why_not(KLEENE, EVENTS, "a1,b2,c4,c6")
    assert r["reason"]["text"] == ("the 4 events cannot be assigned to the components (A a, B+ b[], C c) by type "
                                   "and count: a one-event component takes exactly one event, a `+` component at "
                                   "least one")
    assert r["reason"]["values"] == {"events": 4}


def test_out_of_order_ids_are_tried_unordered() -> None:
    r = why_not(parse("PATTERN SEQ(C c, A a)"), stream("a1 b2 c3"), "a1,c3")
    assert r["candidate"] == {"c": ["c3"], "a": ["a1"]} and r["reason"]["kind"] == "order"
    assert r["reason"]["text"] == "event a1 (`a`) comes before event c3 (`c`), but SEQ puts `c` before `a`"


def test_fixed_variables_of_different_or_branches() -> None:
    events = stream("a1 b2 c3")
    r = why_not(parse("PATTERN SEQ(A a, OR(B b, C c))"), events, "b=b2;c=c3")
    assert r["reason"]["text"] == "no match binds all of `b`, `c` together (they are alternatives of an OR)"
    assert r["nearest"] == {"index": 1, "match": {"a": ["a1"], "b": ["b2"], "c": []}, "shared": 1, "start": 0.0,
                            "end": 1.0}
    r = why_not(KLEENE, EVENTS, "a=a1;c=c4")
    assert r["reason"]["text"] == "no event given for `b` (`B+ b[]`): a match binds every component"
    assert r["furthest"] == {"a": ["a1"], "c": ["c4"]}


def test_the_engine_side_is_asked_when_every_condition_holds() -> None:
    r = why_not(parse("PATTERN SEQ(A a, C c) WHERE skip_till_next_match"), stream("a1 b2 d3 c4 c5"), "a1,c5")
    assert r["reason"]["kind"] == "strategy" and r["reason"]["event"] == "c4"
    assert r["furthest"] == {"a": ["a1"]}
    assert r["nearest"]["index"] == 1 and r["nearest"]["shared"] == 1


def match(bindings: dict[str, list[str]], start: float = 0, end: float = 1) -> Match:
    return Match(bindings=tuple((v, tuple(ids)) for v, ids in bindings.items()), start=start, end=end,
                 start_seq=0, end_seq=1)


def test_nearest_is_the_first_match_sharing_the_most_events() -> None:
    ms = [match({"a": ["x"], "b": ["y"]}), match({"a": ["p"], "b": ["q"]}, 5, 6),
          match({"a": ["p"], "b": ["y"]}), match({"a": ["q"], "b": ["p"]})]
    assert _nearest(ms, {"p", "q", "z"}) == {"index": 2, "match": {"a": ["p"], "b": ["q"]}, "shared": 2,
                                              "start": 5, "end": 6}
    assert _nearest(ms, {"z"}) is None
    assert _nearest([], {"p"}) is None
