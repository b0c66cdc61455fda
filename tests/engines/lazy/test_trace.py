"""The lazy chain / tree and eager engines' side of the step trace (engine/engines/lazy/trace.py):
the actions each matcher records on tiny streams (take from the stream or a buffer, iterate,
ignore with the failed condition, store, search, wait, expire with the window check, discard
after a search, negation and the trailing negation's wait, match), the run views (partial
match ids, states ``q2`` / ``q[a,b]`` / ``q{a,b}``, bindings), the buffer view (input buffers,
evaluation order, rarest choices), clause prefixes, and the helpers."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any


from engine.dsl import parse
from engine.engines.lazy import trace as lazy_trace
from engine.engines.planner import make_matcher
from engine.trace import Recorder, record
from tests.support import acts, runs, stream


def trace(engine: str, src: str, text: str, attrs: dict[str, dict[str, Any]] | None = None, **options: Any
          ) -> list[dict[str, Any]]:
    m = make_matcher(parse(src), engine, tracer=Recorder(), **options)
    return [s.to_json() for s in record(m, stream(text, **(attrs or {})))]


ABC = "PATTERN SEQ(A a, B b, C c) WHERE a.x = b.x WITHIN 10"
ABC_ATTRS = {"a1": {"x": 1}, "b2": {"x": 2}, "b3": {"x": 1}}
EVEN = {"A": 1, "B": 1, "C": 1}


def test_chain_in_pattern_order_takes_from_the_stream() -> None:
    steps = trace("lazy-chain", ABC, "a1 b2 b3 c4", ABC_ATTRS, rates=EVEN)
    assert acts(steps[0]) == [("take", "root", "q1", "take", "q2", "a1"), ("wait", "1", "q2", None, None, None)]
    assert steps[0]["actions"][0]["detail"] == {"child": "1", "var": "a", "source": "stream",
                                                "bindings": {"a": ["a1"]}}
    assert steps[0]["actions"][1]["reason"] == "waits for `b` from the stream"
    assert runs(steps[0]) == [("1", "q2", {"a": ["a1"]})]
    assert steps[0]["buffer"] == {"kind": "lazy", "buffers": {}, "partial": 1, "order": [["a", "b", "c"]]}
    (ignore,) = steps[1]["actions"]
    assert ignore == {"kind": "ignore", "run": "1", "state": "q2", "edge": "take", "event": "b2",
                      "reason": "the conditions on `b` are false for event b2",
                      "predicates": [{"text": "a.x = b.x", "values": {"a.x": 1, "b.x": 2}, "result": False}],
                      "detail": {"var": "b", "source": "stream"}}
    take = steps[2]["actions"][0]
    assert (take["run"], take["state"], take["to"], take["event"]) == ("1", "q2", "q3", "b3")
    assert take["predicates"] == [{"text": "a.x = b.x", "values": {"a.x": 1, "b.x": 1}, "result": True}]
    assert acts(steps[3]) == [("take", "2", "q3", "take", "q4", "c4"), ("match", "3", "F", None, None, "c4")]
    assert steps[3]["matches"] == [{"match": {"a": ["a1"], "b": ["b3"], "c": ["c4"]}, "start": 0.0, "end": 3.0}]


def test_chain_in_rate_order_stores_then_searches_its_buffers() -> None:
    steps = trace("lazy-chain", ABC, "a1 b2 b3 c4", ABC_ATTRS, rates={"A": 10, "B": 10, "C": 1})
    assert steps[0]["actions"] == [{"kind": "store", "state": "buffer a", "event": "a1", "detail": {"var": "a"}}]
    assert steps[2]["buffer"] == {"kind": "lazy", "buffers": {"a": ["a1"], "b": ["b2", "b3"]}, "partial": 0,
                                  "order": [["c", "a", "b"]]}
    assert acts(steps[3]) == [
        ("take", "root", "q1", "take", "q2", "c4"),
        ("search", "1", "q2", None, None, None),
        ("take", "1", "q2", "take", "q3", "a1"),
        ("search", "2", "q3", None, None, None),
        ("ignore", "2", "q3", "take", None, "b2"),
        ("take", "2", "q3", "take", "q4", "b3"),
        ("match", "3", "F", None, None, "c4"),
        ("discard", "2", "q3", None, None, None),
        ("discard", "1", "q2", None, None, None),
    ]
    a = steps[3]["actions"]
    assert a[1]["detail"] == {"var": "a", "candidates": 1} and a[3]["detail"] == {"var": "b", "candidates": 2}
    assert a[2]["detail"]["source"] == "buffer" and a[4]["detail"]["source"] == "buffer"
    assert "predicates" not in a[2]  # a.x = b.x waits until b is bound too
    assert a[7]["reason"] == "search_failed: the buffer search is over and this state takes nothing from the stream"


def test_chain_iterates_a_kleene_variable_from_its_buffer() -> None:
    steps = trace("lazy-chain", "PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x > a.x", "a1 b2 b3 c4",
                  {"a1": {"x": 0}, "b2": {"x": 1}, "b3": {"x": 2}}, rates=EVEN)
    assert steps[0]["buffer"]["order"] == [["a", "c", "b"]]
    iterations = [a for a in steps[3]["actions"] if a["kind"] == "take" and a["edge"] == "iterate"]
    assert [(a["run"], a["state"], a["to"], a["detail"]["bindings"]["b"]) for a in iterations] == [
        ("2", "q3", "q4", ["b2"]), ("2", "q3", "q4", ["b2", "b3"]), ("2", "q3", "q4", ["b3"])]
    # b[i] (i >= 2) has nothing to compare for a first element; the second is b[2]
    assert [a["predicates"] for a in iterations] == [
        [{"text": "b[i].x > a.x", "values": {}, "result": True}],
        [{"text": "b[i].x > a.x", "values": {"b[2].x": 2, "a.x": 0}, "result": True}],
        [{"text": "b[i].x > a.x", "values": {}, "result": True}],
    ]


def test_buffers_drop_events_that_left_the_window() -> None:
    steps = trace("lazy-chain", "PATTERN SEQ(A a, C c) WITHIN 3", "a1@0 a2@5 c3@6", rates={"A": 10, "C": 1})
    assert [s["buffer"]["buffers"] for s in steps[:2]] == [{"a": ["a1"]}, {"a": ["a2"]}]


def test_tree_searches_the_rarest_first() -> None:
    steps = trace("lazy-tree", "PATTERN SEQ(A a, B b) WITHIN 10", "a1 b2", rates={"A": 5, "B": 1})
    assert acts(steps[1]) == [
        ("store", None, "buffer b", None, None, "b2"),
        ("search", "root", "root", None, None, None),
        ("take", "root", "root", "take", "q[a]", "a1"),
        ("search", "1", "q[a]", None, None, None),
        ("take", "1", "q[a]", "take", "q[a,b]", "b2"),
        ("match", "2", "F", None, None, "b2"),
    ]
    assert steps[1]["actions"][1]["detail"] == {"var": "a", "candidates": 1, "rarest": "a"}
    assert runs(steps[1]) == [("1", "q[a]", {"a": ["a1"]})]
    assert steps[1]["buffer"] == {"kind": "lazy", "buffers": {"a": ["a1"], "b": ["b2"]}, "partial": 1,
                                  "rarest_choices": {"a": 1, "b": 1}}


def test_eager_iterates_a_kleene_variable_and_expires() -> None:
    steps = trace("eager", "PATTERN SEQ(A a, B+ b[]) WITHIN 3", "a1 b2 b3 b4")
    assert acts(steps[0]) == [("take", "root", "q{}", "take", "q{a}", "a1")]
    assert acts(steps[1]) == [("take", "1", "q{a}", "iterate", "q{a,b}", "b2"), ("match", "2", "F", None, None, "b2")]
    assert acts(steps[2]) == [("take", "1", "q{a}", "iterate", "q{a,b}", "b3"), ("match", "3", "F", None, None, "b3"),
                              ("take", "2", "q{a,b}", "iterate", "q{a,b}", "b3"),
                              ("match", "4", "F", None, None, "b3")]
    assert runs(steps[2])[-1] == ("4", "q{a,b}", {"a": ["a1"], "b": ["b2", "b3"]})
    assert steps[2]["buffer"] == {"kind": "lazy", "buffers": {}, "partial": 4}
    expire = steps[3]["actions"][0]
    assert expire == {"kind": "expire", "run": "1", "state": "q{a}", "event": "b4",
                      "reason": "left the window (WITHIN): timeout",
                      "predicates": [{"text": "e.ts - first.ts < 3", "values": {"e.ts": 3.0, "first.ts": 0.0, "W": 3},
                                      "result": False}]}
    assert [a["run"] for a in steps[3]["actions"]] == ["1", "2", "3", "4"] and steps[3]["runs"] == []


def test_negation_stores_the_negated_event_and_discards() -> None:
    steps = trace("lazy-chain", "PATTERN SEQ(A a, !D d, B b)", "a1 d2 b3", rates={"A": 1, "B": 1, "D": 1})
    assert steps[1]["actions"] == [{"kind": "store", "state": "buffer d", "event": "d2",
                                    "detail": {"var": "d", "negated": True}}]
    assert steps[1]["buffer"]["buffers"] == {"d": ["d2"]}
    assert steps[2]["actions"][-1] == {"kind": "discard", "run": "2", "state": "q3", "event": "d2",
                                       "reason": "negation: event d2 (D) qualifies for `d`",
                                       "detail": {"blocker": "d2", "var": "d"}}
    assert steps[2]["matches"] == []


def test_trailing_negation_waits_for_the_window() -> None:
    steps = trace("lazy-chain", "PATTERN SEQ(A a, B b, !D d) WITHIN 3", "a1 b2 x3 x4",
                  rates={"A": 1, "B": 1, "D": 1})
    assert steps[1]["actions"][-1] == {"kind": "wait", "run": "2", "state": "F",
                                       "reason": "trailing negation: reported when the window closes (at 3)"}
    assert acts(steps[3])[0] == ("match", "2", "F", None, None, "b2")
    assert steps[3]["matches"] == [{"match": {"a": ["a1"], "b": ["b2"]}, "start": 0.0, "end": 1.0}]


def test_eager_clause_prefixes() -> None:
    steps = trace("eager", "PATTERN SEQ(A a, OR(B b, C c))", "a1 c2")
    assert acts(steps[0]) == [("take", "root", "c0:q{}", "take", "c0:q{a}", "a1"),
                              ("take", "root", "c1:q{}", "take", "c1:q{a}", "a1")]
    assert acts(steps[1]) == [("take", "2", "c1:q{a}", "take", "c1:q{a,c}", "c2"), ("match", "3", "F", None, None, "c2")]


def test_chain_clause_prefixes_of_the_runs() -> None:
    steps = trace("lazy-chain", "PATTERN SEQ(A a, OR(B b, C c))", "a1 c2", rates=EVEN)
    assert runs(steps[0]) == [("1", "c0:q2", {"a": ["a1"]}), ("2", "c1:q2", {"a": ["a1"]})]
    assert {a["state"] for a in steps[0]["actions"] if a["kind"] == "take"} == {"q1"}  # the shared start
    assert steps[0]["buffer"]["order"] == [["a", "b"], ["a", "c"]]


def test_chain_take_names_the_clause_of_the_child() -> None:
    steps = trace("lazy-chain", "PATTERN SEQ(A a, OR(B b, C c))", "a1 c2", rates=EVEN)
    assert [a["to"] for a in steps[0]["actions"] if a["kind"] == "take"] == ["c0:q2", "c1:q2"]
    assert [a["to"] for a in steps[1]["actions"] if a["kind"] == "take"] == ["c1:q3"]


# --------------------------------------------------------------------------- helpers


def matcher(name: str, **fields: Any) -> Any:
    return SimpleNamespace(name=name, multi=False, keeps_path=name == "lazy-tree", **fields)


def test_state_names_of_each_engine() -> None:
    inst = SimpleNamespace(id=5, plan=SimpleNamespace(index=1), path=(), vals=[])
    chain = matcher("lazy-chain")
    assert lazy_trace.state_name(chain, inst, ()) == "q1"
    assert lazy_trace.state_name(chain, inst, ("c", "a")) == "q3"
    chain.multi = True
    assert lazy_trace.state_name(chain, inst, ("c",)) == "c1:q2"
    tree = matcher("lazy-tree")
    assert lazy_trace.state_name(tree, inst, ()) == "root"
    assert lazy_trace.state_name(tree, inst, ("b", "a")) == "q[b,a]"
    eager = matcher("eager", info=SimpleNamespace(positive=["a", "b", "c"]))
    assert lazy_trace.state_name(eager, inst, ("c", "a")) == "q{a,c}"  # the bound set in pattern order
    inst.path = ("a",)
    assert lazy_trace.state_name(tree, inst) == "q[a]"  # the path the partial match keeps


def test_clause_of_each_plan_kind() -> None:
    m = matcher("lazy-tree")
    assert lazy_trace._clause_of(m, SimpleNamespace(plan=SimpleNamespace(index=2))) == 2
    assert lazy_trace._clause_of(m, SimpleNamespace(plan=SimpleNamespace(clause=SimpleNamespace(index=3)))) == 3
    assert lazy_trace._clause_of(m, SimpleNamespace(plan=SimpleNamespace(tail=SimpleNamespace(index=4)))) == 4
    assert lazy_trace._clause_of(m, SimpleNamespace(plan=None)) == 0


def test_window_check() -> None:
    inst = SimpleNamespace(cmin=2)
    e = SimpleNamespace(seq=6, ts=9.5)
    counted = SimpleNamespace(W=4, count_window=True)
    (check,) = lazy_trace._window(counted, inst, e)
    assert (check.text, check.values, check.result) == ("e.seq - first.seq < 4",
                                                        {"e.seq": 6, "first.seq": 2, "W": 4}, False)
    timed = SimpleNamespace(W=8.0, count_window=False)
    (check,) = lazy_trace._window(timed, inst, e)
    assert (check.text, check.result) == ("e.ts - first.ts < 8", True)
    assert lazy_trace._window(SimpleNamespace(W=None), inst, e) == []
    assert lazy_trace._window(timed, inst, None) == []


def test_bindings_read_the_slots() -> None:
    e1, e2, e3 = stream("a1 b2 b3")
    m = SimpleNamespace(pos_slots=[("a", 0, False), ("b", 1, True), ("c", 2, False)])
    assert lazy_trace.bindings(m, [e1, (e2, e3), None]) == {"a": [e1], "b": [e2, e3]}
