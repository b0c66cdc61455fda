"""``cep explain`` on interval data (engine/explain/intervals.py): the signatures of the
interval engine (range and confidence checked against a count of possible worlds by hand),
``explain_interval_match`` and its out-of-range refusal, ``explain_interval_why_not`` (a
signature, the wrong number of events, no possible world), a stopped engine, an unsupported
pattern, and ``format_interval_text``."""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from engine.dsl import parse
from engine.events import make_stream
from engine.explain.common import ExplainError
from engine.explain.intervals import (
    explain_interval_match,
    explain_interval_why_not,
    format_interval_text,
    interval_signatures,
)

PATTERN = parse("PATTERN SEQ(A a, B b) WITHIN 10")
ROWS = [{"id": 1, "type": "A", "ts": 1, "lower": 1, "upper": 2},
        {"id": 2, "type": "B", "ts": 2, "lower": 2, "upper": 3},
        {"id": 3, "type": "B", "ts": 5, "lower": 5, "upper": 5},
        {"id": 4, "type": "C", "ts": 9, "lower": 9, "upper": 9}]
EVENTS = make_stream(ROWS)


def worlds_in_order(a: tuple[int, int], b: tuple[int, int]) -> Fraction:
    """The share of (a, b) timestamp pairs, uniform over the integer points of each interval,
    with a before b."""
    pairs = list(product(range(a[0], a[1] + 1), range(b[0], b[1] + 1)))
    return Fraction(sum(x < y for x, y in pairs), len(pairs))


def test_signatures_in_cep_run_order_with_their_confidence() -> None:
    name, sigs = interval_signatures(PATTERN, EVENTS)
    assert name == "uncertain-event"
    assert [(s.as_dict(), s.range) for s in sigs] == [({"a": [1], "b": [2]}, (1, 3)), ({"a": [1], "b": [3]}, (1, 5))]
    assert sigs[0].confidence == worlds_in_order((1, 2), (2, 3)) == Fraction(3, 4)
    assert sigs[1].confidence == 1


def test_overlapping_intervals() -> None:
    events = make_stream([{"id": 1, "type": "A", "ts": 1, "lower": 0, "upper": 4},
                          {"id": 2, "type": "B", "ts": 2, "lower": 1, "upper": 3}])
    _, (sig,) = interval_signatures(PATTERN, events)
    assert sig.range == (0, 3) and sig.confidence == worlds_in_order((0, 4), (1, 3)) == Fraction(2, 5)


def test_interval_match() -> None:
    assert explain_interval_match(PATTERN, EVENTS, 1) == {
        "verdict": "match", "engine": "uncertain-event", "index": 1, "match": {"a": [1], "b": [2]},
        "range": [1, 3], "confidence": 0.75, "confidence_exact": "3/4"}


@pytest.mark.parametrize("k", [0, 3])
def test_interval_match_out_of_range(k: int) -> None:
    with pytest.raises(ExplainError) as info:
        explain_interval_match(PATTERN, EVENTS, k)
    assert str(info.value) == (f"there is no signature {k}: `cep run` prints 2 signatures on this data "
                               "(engine uncertain-event)")
    assert info.value.status == 2


def test_one_signature_is_named_in_the_singular() -> None:
    with pytest.raises(ExplainError, match=r"prints 1 signature on this data"):
        explain_interval_match(PATTERN, EVENTS[:2], 2)


def test_why_not_finds_a_signature_by_ids_or_fixed_variables() -> None:
    assert explain_interval_why_not(PATTERN, EVENTS, "2,1")["index"] == 1
    r = explain_interval_why_not(PATTERN, EVENTS, "a=1;b=3")
    assert r["verdict"] == "match" and r["index"] == 2 and r["confidence_exact"] == "1/1"


def test_why_not_with_fixed_variables_that_no_signature_binds() -> None:
    r = explain_interval_why_not(PATTERN, EVENTS, "a=1;b=4")
    assert r["verdict"] == "no_match" and r["candidate"] == {"a": [1], "b": [4]}
    assert r["reason"]["kind"] == "interval" and r["reason"]["text"].startswith("no possible world")


@pytest.mark.parametrize("spec, text", [
    ("1", "a signature binds one event to each of the 2 components (a, b); 1 event was given"),
    ("1,2,3", "a signature binds one event to each of the 2 components (a, b); 3 events were given"),
    ("2,3", "no possible world makes these events a match (confidence 0): their types or predicates do not fit "
            "the pattern in this order, or in every world their order, the window or an event in between "
            "(skip_till_next_match) rules them out"),
])
def test_why_not_reasons(spec: str, text: str) -> None:
    r = explain_interval_why_not(PATTERN, EVENTS, spec)
    assert r == {"verdict": "no_match", "engine": "uncertain-event",
                 "events": [int(i) for i in spec.split(",")], "candidate": {},
                 "reason": {"kind": "interval", "text": text, "event": None, "values": {}}}


def test_why_not_refuses_a_bad_spec() -> None:
    with pytest.raises(ExplainError, match="unknown event id `9`"):
        explain_interval_why_not(PATTERN, EVENTS, "1,9")


def test_unsupported_pattern_is_an_explain_error() -> None:
    with pytest.raises(ExplainError) as info:
        interval_signatures(parse("PATTERN SEQ(A a, B+ b[])"), EVENTS)
    assert info.value.status == 2
    assert str(info.value).startswith("no engine runs this pattern over interval data (uncertain-event: Kleene "
                                      "closure `B+ b[]` over interval data is not supported")


def test_a_named_engine() -> None:
    name, sigs = interval_signatures(PATTERN, EVENTS, engine="uncertain-point")
    assert name == "uncertain-point" and [s.confidence for s in sigs] == [Fraction(3, 4), 1]


def test_a_stopped_engine_is_status_1(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.engines.planner as planner

    def refuse(*args: object, **kwargs: object) -> None:
        raise ValueError("too many worlds")

    monkeypatch.setattr(planner, "make_matcher", refuse)
    with pytest.raises(ExplainError) as info:
        interval_signatures(PATTERN, EVENTS)
    assert str(info.value) == "stopped: too many worlds" and info.value.status == 1


def test_format_interval_text() -> None:
    assert format_interval_text(explain_interval_match(PATTERN, EVENTS, 1)) == (
        "signature 1 of `cep run` (engine uncertain-event): a=[1] b=[2]\n"
        "  range [1, 3], confidence 3/4 (~0.7500)\n")
    assert format_interval_text(explain_interval_why_not(PATTERN, EVENTS, "1")) == (
        "no match (engine uncertain-event): events 1\n"
        "  reason: a signature binds one event to each of the 2 components (a, b); 1 event was given\n")
