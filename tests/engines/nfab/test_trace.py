"""NFA^b's side of the step trace (engine/engines/nfab/trace.py): the actions NfabMatcher
records on tiny streams (begin / take / ignore with its formula / proceed / match / merge /
expire / discard for a false start, contiguity, no edge and negation / wait and the trailing
negation's verdict), the predicate checks with their values, the run views (Dewey versions,
bindings, merged members), the shared buffer's changes (entries named ``state@event``,
pointers, removals), state names prefixed per alternative, and the small helpers."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from engine.dsl import parse
from engine.engines.nfab import trace as nfab_trace
from engine.engines.nfab.matcher import NfabMatcher
from engine.trace import Recorder, record
from tests.support import acts, runs, stream


def trace(src: str, text: str, attrs: dict[str, dict[str, Any]] | None = None, **options: Any
          ) -> list[dict[str, Any]]:
    m = NfabMatcher(parse(src), tracer=Recorder(), **options)
    return [s.to_json() for s in record(m, stream(text, **(attrs or {})))]


KLEENE = "PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x > a.x WITHIN 10"
KLEENE_ATTRS = {"a1": {"x": 1}, "b2": {"x": 2}, "b3": {"x": 3}}


def test_kleene_run_begin_take_proceed_and_match() -> None:
    steps = trace(KLEENE, "a1 b2 b3 c4", KLEENE_ATTRS)
    assert acts(steps[0]) == [("begin", "1", "a", "begin", "b[1]", "a1")]
    assert runs(steps[0]) == [("1", "b[1]", {"a": ["a1"]})]
    # b2: the run begins b[] and a clone (1.1) ignores it
    assert acts(steps[1]) == [("ignore", "1.1", "b[1]", "ignore", "b[1]", "b2"),
                              ("begin", "1", "b[1]", "begin", "b[i]", "b2")]
    assert steps[1]["actions"][0]["detail"] == {"clone_of": "1", "formula": "true"}
    assert runs(steps[1]) == [("1.1", "b[1]", {"a": ["a1"]}), ("1", "b[i]", {"a": ["a1"], "b": ["b2"]})]
    # b3: run 1 takes it with b[i].x > a.x evaluated on its own bindings
    take = next(a for a in steps[2]["actions"] if a["kind"] == "take")
    assert (take["run"], take["state"], take["to"]) == ("1", "b[i]", "b[i]")
    assert take["predicates"] == [
        {"text": "b[i].x > a.x", "values": {"b[2].x": 3, "a.x": 1}, "result": True},
        {"text": "e.ts - first.ts < 10", "values": {"e.ts": 2.0, "first.ts": 0.0, "W": 10}, "result": True}]
    assert runs(steps[2])[-1] == ("1", "b[i]", {"a": ["a1"], "b": ["b2", "b3"]})  # bindings in stream order
    # c4: proceed (a clone, 1.3 of run 1) then the match at F
    c4 = acts(steps[3])
    assert ("proceed", "1.3", "b[i]", "proceed", "c", "c4") in c4
    assert ("match", "1.3", "F", None, None, "c4") in c4
    match = next(a for a in steps[3]["actions"] if a["kind"] == "match" and a["run"] == "1.3")
    assert match["detail"]["match"]["match"] == {"a": ["a1"], "b": ["b2", "b3"], "c": ["c4"]}
    assert len(steps[3]["matches"]) == 3 and steps[-1]["step"] == "close"


def test_buffer_changes_name_entries_and_pointers() -> None:
    steps = trace(KLEENE, "a1 b2 b3 c4", KLEENE_ATTRS)
    assert steps[0]["buffer"] == {"kind": "shared", "entries": 1, "pointers": [], "removed": [],
                                  "added": [{"id": "a@a1", "state": "a", "event": "a1",
                                             "preds": [{"label": "1", "to": None}]}]}
    assert steps[2]["buffer"]["added"] == [
        {"id": "b[1]@b3", "state": "b[1]", "event": "b3", "preds": [{"label": "1.1", "to": "a@a1"}]},
        {"id": "b[i]@b3", "state": "b[i]", "event": "b3", "preds": [{"label": "1", "to": "b[1]@b2"}]}]
    # c4 is written once (by 1.1.2) and then pointed to by the other two proceeding runs
    assert [e["id"] for e in steps[3]["buffer"]["added"]] == ["c@c4"]
    assert steps[3]["buffer"]["pointers"] == [{"entry": "c@c4", "label": "1.2.1", "to": "b[1]@b2"},
                                              {"entry": "c@c4", "label": "1.3", "to": "b[i]@b3"}]
    assert steps[3]["buffer"]["entries"] == 5


def test_without_sharing_a_second_entry_of_a_name_gets_a_suffix() -> None:
    steps = trace("PATTERN SEQ(A a, B b)", "a1 a2 b3", share=False)
    assert [(e["id"], e["preds"]) for e in steps[2]["buffer"]["added"]] == [
        ("b@b3", [{"label": "1", "to": "a@a1"}]), ("b@b3#2", [{"label": "2", "to": "a@a2"}])]


def test_a_run_that_proceeds_without_a_clone_names_no_parent() -> None:
    steps = trace("PATTERN SEQ(A a, B+ b[], C c) WHERE strict_contiguity", "a1 b2 c3")
    proceed = steps[2]["actions"][0]
    assert (proceed["kind"], proceed["run"], proceed["to"]) == ("proceed", "1", "c")
    assert "detail" not in proceed  # the run itself proceeds: no clone_of


def test_merged_runs() -> None:
    steps = trace("PATTERN SEQ(A a, B+ b[], C c)", "a1 a2 b3 c4")
    assert acts(steps[2])[-1] == ("merge", "2", "b[i]", None, None, "b3")
    assert steps[2]["actions"][-1]["detail"] == {"into": "1"}
    merged = next(r for r in steps[2]["runs"] if r["id"] == "1")
    assert merged["members"] == 2 and merged["state"] == "b[i]" and merged["start"] == 1.0
    # the merged run reports a match for each member
    assert [a["detail"]["match"]["match"]["a"] for a in steps[3]["actions"] if a["kind"] == "match"] == \
        [["a1"], ["a2"]]


def test_without_merging_each_run_keeps_its_own() -> None:
    steps = trace("PATTERN SEQ(A a, B+ b[], C c)", "a1 a2 b3 c4", merge=False)
    assert not any(a["kind"] == "merge" for s in steps for a in s["actions"])


def test_a_false_start_is_discarded_with_its_predicate() -> None:
    steps = trace("PATTERN SEQ(A a, B b) WHERE a.x > 5", "a1 a2", {"a1": {"x": 1}, "a2": {"x": 9}})
    (discard,) = steps[0]["actions"]
    assert discard == {"kind": "discard", "state": "a", "edge": "begin", "event": "a1",
                       "reason": "does not start a run: the start state's begin formula is false",
                       "predicates": [{"text": "a.x > 5", "values": {"a.x": 1}, "result": False}]}
    assert steps[0]["runs"] == []
    assert steps[1]["actions"][0]["predicates"][0]["result"] is True


def test_strict_contiguity_discards() -> None:
    steps = trace("PATTERN SEQ(A a, B b) WHERE strict_contiguity", "a1 a2 b3")
    assert steps[1]["actions"][0] == {
        "kind": "discard", "run": "1", "state": "b", "event": "a2",
        "reason": "strict_contiguity: event a2 of type A cannot be taken and the ignore edge is false"}
    assert runs(steps[1]) == [("2", "b", {"a": ["a2"]})]
    steps = trace("PATTERN SEQ(A a, B b) WHERE strict_contiguity", "a1 d2 b3")
    assert steps[1]["actions"] == [{"kind": "discard", "run": "1", "state": "b", "event": "d2",
                                    "reason": "strict_contiguity: event d2 of type D (not in the pattern) breaks "
                                              "contiguity"}]


def test_strict_contiguity_with_a_false_begin_formula() -> None:
    steps = trace("PATTERN SEQ(A a, B b) WHERE strict_contiguity AND b.x > 1", "a1 b2", {"b2": {"x": 0}})
    (discard,) = steps[1]["actions"]
    assert discard["reason"] == ("strict_contiguity: no edge enabled (the begin formula is false and the ignore "
                                 "edge is false)")
    assert discard["predicates"] == [{"text": "b.x > 1", "values": {"b.x": 0}, "result": False}]


def test_skip_till_next_match_ignores_what_the_formula_refuses() -> None:
    steps = trace("PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND b.x > 1", "a1 b2 b3",
                  {"b2": {"x": 0}, "b3": {"x": 5}})
    (ignore,) = steps[1]["actions"]
    assert ignore == {"kind": "ignore", "run": "1", "state": "b", "edge": "ignore", "to": "b", "event": "b2",
                      "predicates": [{"text": "b.x > 1", "values": {"b.x": 0}, "result": False}],
                      "detail": {"formula": "¬take/begin"}}
    assert acts(steps[2]) == [("begin", "1", "b", "begin", "F", "b3"), ("match", "1", "F", None, None, "b3")]


def test_window_expiry_and_count_windows() -> None:
    steps = trace("PATTERN SEQ(A a, B b) WITHIN 2 events", "a1 x2 b3")
    assert steps[2]["actions"] == [{
        "kind": "expire", "run": "1", "state": "b", "event": "b3", "reason": "left the window (WITHIN)",
        "predicates": [{"text": "e.seq - first.seq < 2", "values": {"e.seq": 2, "first.seq": 0, "W": 2},
                        "result": False}]}]
    assert steps[2]["runs"] == []


def test_window_sweep_removes_buffer_entries() -> None:
    m = NfabMatcher(parse("PATTERN SEQ(A a, B b) WITHIN 2"), tracer=Recorder())
    for e in stream("a1 a2 a3"):
        m.feed(e)
    m.trace_state()  # the changes so far are reported once
    m.sweep(3.0)  # horizon 3 - 2 = 1: entries at ts <= 1 go (the matcher sweeps every SWEEP_EVERY events)
    _, change = m.trace_state()
    assert change == {"kind": "shared", "added": [], "pointers": [], "removed": ["a@a1", "a@a2"], "entries": 1}
    _, change = m.trace_state()
    assert change["removed"] == []


def test_negation_discards_with_the_blocker() -> None:
    steps = trace("PATTERN SEQ(A a, !D d, B b)", "a1 d2 b3")
    assert steps[1]["actions"] == []  # a negated event goes to the negation store, not to a run
    assert steps[2]["actions"][-1] == {
        "kind": "discard", "run": "1", "state": "F", "event": "b3",
        "reason": "negation: event d2 (D) qualifies for a negated component",
        "detail": {"blocker": "d2", "match": {"a": ["a1"], "b": ["b3"]}}}
    assert steps[2]["matches"] == []


def test_trailing_negation_waits_then_reports_or_drops() -> None:
    steps = trace("PATTERN SEQ(A a, B b, !D d) WITHIN 5", "a1 b2 c3 d4 a5 b6 c7 c8 c9 c10")
    wait = steps[1]["actions"][-1]
    assert wait == {"kind": "wait", "run": "1", "state": "F", "event": "b2",
                    "reason": "trailing negation: reported when the window closes (at 5)",
                    "detail": {"match": {"match": {"a": ["a1"], "b": ["b2"]}, "start": 0.0, "end": 1.0}}}
    dropped = steps[5]["actions"][0]
    assert dropped == {"kind": "discard", "state": "F",
                       "reason": "negation: event d4 (D) qualifies for the trailing negation",
                       "detail": {"blocker": "d4", "match": {"match": {"a": ["a1"], "b": ["b2"]}, "start": 0.0,
                                                             "end": 1.0}}}
    reported = steps[9]["actions"][0]
    assert reported == {"kind": "match", "state": "F", "reason": "the window closed with no qualifying negated event",
                        "detail": {"match": {"match": {"a": ["a5"], "b": ["b6"]}, "start": 4.0, "end": 5.0}}}
    assert steps[9]["matches"] == [reported["detail"]["match"]]


def test_states_of_several_alternatives_are_prefixed() -> None:
    steps = trace("PATTERN SEQ(A a, OR(B b, C c))", "a1 c2")
    assert acts(steps[0]) == [("begin", "1", "alt0:a", "begin", "alt0:b", "a1"),
                              ("begin", "2", "alt1:a", "begin", "alt1:c", "a1")]
    assert [e["id"] for e in steps[0]["buffer"]["added"]] == ["alt0:a@a1", "alt1:a@a1"]
    assert ("match", "2", "alt1:F", None, None, "c2") in acts(steps[1])


def test_helpers() -> None:
    assert nfab_trace.run_id((3, 1)) == "3.1" and nfab_trace.run_id((7,)) == "7"
    one = SimpleNamespace(chain_plans=[SimpleNamespace(states=[SimpleNamespace(name="a"), SimpleNamespace(name="F")])])
    assert nfab_trace.state_name(one, 0, 1) == "F"
    two = SimpleNamespace(chain_plans=one.chain_plans * 2)
    assert nfab_trace.state_name(two, 1, 0) == "alt1:a"
    no_window = SimpleNamespace(window_size=None)
    assert nfab_trace._window_check(no_window, 0.0, None) is None
    timed = SimpleNamespace(window_size=2.5, count_window=False, _coord=lambda e: 4.0)
    check = nfab_trace._window_check(timed, 1.0, None)
    assert (check.text, check.values, check.result) == ("e.ts - first.ts < 2.5",
                                                        {"e.ts": 4.0, "first.ts": 1.0, "W": 2.5}, False)
