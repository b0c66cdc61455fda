"""The engine's side of "why not" (engine/explain/engine_side.py): ``engine_reason`` when the
engine was stopped, when a selection (earliest / maximal) dropped the candidate, when OUTPUT
NON_OVERLAP dropped it (``_overlap_reason``, partitions included), and what NFA^b's own run
did under skip_till_next_match, strict and partition contiguity (``_trace_reason``); the
helpers ``_prefix``, ``_ids``, ``_generic`` and ``_flat_values``."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from engine.dsl import parse
from engine.events import Event
from engine.explain.common import EngineRun, engine_run
from engine.explain.engine_side import (
    _flat_values,
    _generic,
    _ids,
    _overlap_reason,
    _prefix,
    _trace_reason,
    engine_reason,
)
from engine.explain.whynot import explain_why_not
from tests.support import stream


def reason(pattern_text: str, events: list[Event], spec: str) -> dict[str, Any]:
    r = explain_why_not(parse(pattern_text), events, spec)
    assert r["verdict"] == "no_match"
    return r


def bind(events: list[Event], **ids: list[str]) -> dict[str, list[Event]]:
    by_id = {e.id: e for e in events}
    return {v: [by_id[i] for i in xs] for v, xs in ids.items()}


# --------------------------------------------------------------------------- engine_reason


def test_a_stopped_engine_is_the_guard() -> None:
    events = stream("a1 c2")
    b = bind(events, a=["a1"], c=["c2"])
    run = EngineRun("nfab", [], "stopped: too many runs")
    got, furthest = engine_reason(parse("PATTERN SEQ(A a, C c)"), events, b, run, ["a", "c"])
    assert got == {"kind": "guard", "event": None, "values": {},
                   "text": "the engine `nfab` was stopped: too many runs; cep run prints no match"}
    assert furthest == b and furthest is not b


def test_skip_till_any_match_reported_by_no_engine_is_named_generically() -> None:
    events = stream("a1 c2")
    b = bind(events, a=["a1"], c=["c2"])
    got, _ = engine_reason(parse("PATTERN SEQ(A a, C c)"), events, b, EngineRun("probe", []), ["a", "c"])
    assert got == {"kind": "strategy", "event": None, "values": {},
                   "text": "every condition of docs/semantics.md holds, but engine `probe` does not report it"}


# --------------------------------------------------------------------------- selections


EVENTS = stream("a1 b2 b3 c4")


def test_not_earliest() -> None:
    r = reason("PATTERN SEQ(A a, B+ b[]) WHERE earliest", EVENTS, "a1,b3")
    assert r["reason"] == {"kind": "selection", "event": "a1", "values": {"selection": "earliest"},
                           "by": {"a": ["a1"], "b": ["b2"]},
                           "text": "WHERE earliest: not earliest — match #1 a=[a1] b=[b2] starts at the same event "
                                   "a1 and binds the first event of every variable no later"}


def test_not_maximal() -> None:
    r = reason("PATTERN SEQ(A a, B+ b[]) WHERE maximal", EVENTS, "a1,b2")
    assert r["reason"]["text"] == "WHERE maximal: not maximal — match #1 a=[a1] b=[b2,b3] adds event b3 to b[]"
    assert r["reason"]["by"] == {"a": ["a1"], "b": ["b2", "b3"]}


def test_earliest_maximal_names_either_and_an_unreported_match_without_number() -> None:
    r = reason("PATTERN SEQ(A a, B+ b[]) WHERE earliest_maximal", EVENTS, "a1,b2")
    assert r["reason"]["text"].startswith("WHERE earliest_maximal: not maximal — match #1 a=[a1] b=[b2,b3]")
    r = reason("PATTERN SEQ(A a, B+ b[]) WHERE earliest_maximal", EVENTS, "a1,b3")
    # a=[a1] b=[b2] is earlier but not maximal, so cep run does not print it: named without a number
    assert r["reason"]["text"] == ("WHERE earliest_maximal: not earliest — the match a=[a1] b=[b2] starts at the "
                                   "same event a1 and binds the first event of every variable no later")


# --------------------------------------------------------------------------- OUTPUT NON_OVERLAP


def test_non_overlap_names_the_match_reported_first() -> None:
    r = reason("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP", stream("a1 a2 b3 b4"), "a2,b4")
    assert r["reason"] == {
        "kind": "output", "event": "a2", "values": {"start.seq": 1, "previous.end_seq": 2},
        "blocked_by": {"index": 1, "match": {"a": ["a1"], "b": ["b3"]}},
        "text": "OUTPUT NON_OVERLAP: match #1 (a=[a1] b=[b3]) was reported first and ends at stream position 2; "
                "this one starts at position 1 (event a2), not after it"}


def test_non_overlap_names_the_latest_ending_match_it_overlaps() -> None:
    r = reason("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP", stream("a1 b2 a3 b4"), "a1,b4")
    assert r["reason"]["blocked_by"] == {"index": 2, "match": {"a": ["a3"], "b": ["b4"]}}


def test_overlap_reason_looks_in_the_candidates_partition_only() -> None:
    pattern = parse("PATTERN SEQ(A a, B b) WHERE [k] OUTPUT NON_OVERLAP")
    events = stream("a1 a2 b3 b4 b5", a1={"k": 2}, a2={"k": 1}, b3={"k": 2}, b4={"k": 1}, b5={"k": 2})
    reported = engine_run(pattern, events).matches
    assert [m.as_dict() for m in reported] == [{"a": ["a1"], "b": ["b3"]}, {"a": ["a2"], "b": ["b4"]}]
    got = _overlap_reason(pattern, events, reported, bind(events, a=["a1"], b=["b5"]))
    # match 2 ends later but in the partition k=1: the candidate (k=2) is blocked by match 1
    assert got["blocked_by"] == {"index": 1, "match": {"a": ["a1"], "b": ["b3"]}}
    assert got["values"] == {"start.seq": 0, "previous.end_seq": 2}


def test_overlap_reason_without_a_blocker() -> None:
    pattern = parse("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP")
    events = stream("a1 b2")
    got = _overlap_reason(pattern, events, [], bind(events, a=["a1"], b=["b2"]))
    assert got == {"kind": "output", "event": "a1", "values": {"start.seq": 0},
                   "text": "OUTPUT NON_OVERLAP: it overlaps a match reported before it in its partition"}


# --------------------------------------------------------------------------- NFA^b's own run


def test_skip_till_next_match_took_an_earlier_event() -> None:
    r = reason("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match", stream("a1 b2 b3 c4"), "a1,b2,c4")
    assert r["furthest"] == {"a": ["a1"], "b": ["b2"]}
    assert r["reason"] == {"kind": "strategy", "event": "b3", "values": {}, "run": "1", "state": "b[i]",
                           "predicates": [],
                           "text": "skip_till_next_match: run 1 had bound a=[a1] b=[b2]; event b3 satisfies the take "
                                   "formula at b[i], so the run took it (ignore = ¬take is false) and cannot skip it "
                                   "to reach event c4"}


def test_strict_contiguity_ends_the_run() -> None:
    r = reason("PATTERN SEQ(A a, C c) WHERE strict_contiguity", stream("a1 a2 c3"), "a1,c3")
    assert r["reason"]["kind"] == "contiguity" and r["reason"]["event"] == "a2"
    assert r["reason"]["text"] == ("strict_contiguity: run 1 (a=[a1]) ended at event a2: strict_contiguity: event "
                                   "a2 of type A cannot be taken and the ignore edge is false")


def test_partition_contiguity_ends_the_run() -> None:
    events = stream("a1 b2 c3", a1={"k": 1}, b2={"k": 1}, c3={"k": 1})
    r = reason("PATTERN SEQ(A a, C c) WHERE partition_contiguity AND [k]", events, "a1,c3")
    assert r["reason"]["kind"] == "contiguity" and r["furthest"] == {"a": ["a1"]}
    assert r["reason"]["text"].startswith("partition_contiguity: run 1 (a=[a1]) ended at event b2")


def test_trace_reason_when_no_run_starts_at_the_first_event() -> None:
    pattern = parse("PATTERN SEQ(A a, C c) WHERE skip_till_next_match AND a.x > 5")
    events = stream("a1 c2", a1={"x": 1})
    got, furthest = _trace_reason(pattern, events, bind(events, a=["a1"], c=["c2"]), ["a", "c"])
    assert furthest == {}
    assert got == _generic(pattern, {}, "no run starts at event a1")
    assert got["text"] == ("skip_till_next_match: every declarative condition holds, but the engine's run does not "
                           "select these events: no run starts at event a1")


# --------------------------------------------------------------------------- helpers


def test_prefix_and_ids() -> None:
    events = stream("a1 b2 b3 c4")
    target = [(e, e.type.lower()) for e in events]
    assert _ids(_prefix({}, target, 3)) == {"a": ["a1"], "b": ["b2", "b3"]}
    assert _prefix({}, target, 0) == {}


def test_generic_kind_follows_the_strategy() -> None:
    assert _generic(parse("PATTERN SEQ(A a, C c) WHERE strict_contiguity"), {}, "x")["kind"] == "contiguity"
    assert _generic(parse("PATTERN SEQ(A a, C c) WHERE partition_contiguity"), {}, "x")["kind"] == "contiguity"
    assert _generic(parse("PATTERN SEQ(A a, C c) WHERE skip_till_next_match"), {}, "x")["kind"] == "strategy"


def test_flat_values_merges_and_makes_values_json_safe() -> None:
    preds = [SimpleNamespace(values={"a.x": 1.0, "b.y": float("nan")}), SimpleNamespace(values={"c.z": (1, 2)})]
    assert _flat_values(preds) == {"a.x": 1.0, "b.y": "nan", "c.z": [1, 2]}
    assert _flat_values([]) == {}
