"""Why a match fired (engine/explain/match.py): ``explain_match`` on tiny streams (the steps,
their states and edges, skipped events with their reasons, the proceed of a Kleene variable,
the window, negations and NON_OVERLAP), the refusal of a match number out of range, the match
window of a match-windows run, ``negation_step``, ``find_alternative`` and ``_exact``."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from engine.dsl import parse
from engine.explain.common import ExplainError
from engine.explain.match import _exact, explain_found, explain_match, find_alternative, negation_step
from tests.support import stream

KLEENE = parse("PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x > a.x AND [k] WITHIN 10")
EVENTS = stream("a1@1 d9@1.5 b2@2 b3@3 c4@4", a1={"x": 1, "k": 1}, b2={"x": 5, "k": 1}, b3={"x": 0, "k": 1},
                c4={"k": 1}, d9={"k": 1})


def brief(steps: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(s["kind"], s.get("event"), s.get("state"), s.get("to")) for s in steps]


def test_steps_of_a_kleene_match() -> None:
    r = explain_match(KLEENE, EVENTS, 1)
    assert (r["verdict"], r["index"], r["engine"]) == ("match", 1, "nfab")
    assert r["match"] == {"a": ["a1"], "b": ["b3"], "c": ["c4"]} and (r["start"], r["end"]) == (1.0, 4.0)
    assert brief(r["steps"]) == [
        ("begin", "a1", "a", "b[1]"),
        ("skip", "d9", "b[1]", None),
        ("skip", "b2", "b[1]", None),
        ("begin", "b3", "b[1]", "b[i]"),
        ("proceed", "c4", "b[i]", "c"),
        ("begin", "c4", "c", "F"),
        ("window", "c4", None, None),
        ("match", "c4", "F", None),
    ]
    steps = r["steps"]
    assert steps[0]["text"] == "event a1 starts a run at a (begin -> b[1])"
    assert steps[1]["why"] == "type D is not in the pattern" and steps[1]["formula"] is None
    assert steps[2]["formula"] == "true"
    assert steps[2]["why"] == "skip_till_any_match: ignore is true (a branch of the run skipped it)"
    assert steps[3]["text"] == "event b3 is bound to b: begin at b[1] -> b[i]"
    assert steps[3]["predicates"] == [{"text": "b.k = a.k", "values": {"b.k": 1, "a.k": 1}, "result": True,
                                       "equivalence": True}]
    assert steps[4]["text"] == "b[] is complete (1 event); proceed from b[i] to c, peeking at event c4"
    assert steps[6]["text"] == "last.ts - first.ts = 4 - 1 = 3 < 10 (WITHIN 10)" and steps[6]["result"] is True
    assert steps[7]["text"] == "the run reaches F: match a=[a1] b=[b3] c=[c4]"


def test_take_steps_and_the_final_proceed() -> None:
    p = parse("PATTERN SEQ(A a, B+ b[]) WHERE b[i].x > b[i-1].x")
    events = stream("a1 b2 d9 b3", b2={"x": 1}, b3={"x": 2})
    r = explain_match(p, events, 3)
    assert r["match"] == {"a": ["a1"], "b": ["b2", "b3"]}
    assert brief(r["steps"]) == [("begin", "a1", "a", "b[1]"), ("begin", "b2", "b[1]", "b[i]"),
                                 ("skip", "d9", "b[i]", None),  # skipped where the Kleene run waits
                                 ("take", "b3", "b[i]", "b[i]"), ("proceed", "b3", "b[i]", "F"),
                                 ("match", "b3", "F", None)]
    take, proceed = r["steps"][3], r["steps"][4]
    assert take["text"] == "event b3 is taken into b[] at b[i] (element 2)"
    assert take["predicates"] == [{"text": "b[i].x > b[i-1].x", "values": {"b[2].x": 2, "b[1].x": 1},
                                   "result": True}]
    assert proceed["text"] == "b[] is complete (2 events); proceed from b[i] to F"


@pytest.mark.parametrize("k, message", [
    (0, "there is no match #0: engine `nfab` reports 2 matches (1..2)"),
    (3, "there is no match #3: engine `nfab` reports 2 matches (1..2)"),
    ("1", "there is no match #1: engine `nfab` reports 2 matches (1..2)"),
])
def test_match_number_out_of_range(k: Any, message: str) -> None:
    with pytest.raises(ExplainError) as info:
        explain_match(KLEENE, EVENTS, k)
    assert str(info.value) == message and info.value.status == 2


def test_no_matches_and_one_match() -> None:
    with pytest.raises(ExplainError, match=r"^there is no match #1: engine `nfab` reports no matches$"):
        explain_match(KLEENE, EVENTS[:1], 1)
    with pytest.raises(ExplainError, match=r"reports 1 match \(1\.\.1\)$"):
        explain_match(parse("PATTERN SEQ(A a, C c)"), stream("a1 c2"), 2)


def test_a_stopped_engine_is_status_1(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.explain.match as module
    from engine.explain.common import EngineRun

    monkeypatch.setattr(module, "engine_run", lambda *a, **k: EngineRun("nfab", [], "stopped: too many runs"))
    with pytest.raises(ExplainError) as info:
        explain_match(KLEENE, EVENTS, 1)
    assert str(info.value) == "stopped: too many runs" and info.value.status == 1


NEG = parse("PATTERN SEQ(A a, !D d, C c) WHERE d.v > 5 WITHIN 100")


def test_negation_with_candidates_that_do_not_qualify() -> None:
    r = explain_match(NEG, stream("a1 d2 d3 c4", d2={"v": 1}, d3={"v": 2}), 1)
    skips = [s for s in r["steps"] if s["kind"] == "skip"]
    assert [s["event"] for s in skips] == ["d2", "d3"]
    assert skips[0]["why"] == ("type D is negated in the pattern: the event goes to the negation check, never to "
                               "the run, and does not break contiguity")
    (neg,) = [s for s in r["steps"] if s["kind"] == "negation"]
    assert neg["result"] is True and neg["event"] is None and neg["between"] == ["a1", "c4"]
    assert neg["text"] == ("!d: 2 D events between event a1 and event c4, none qualifies: event d2 fails d.v > 5; "
                           "event d3 fails d.v > 5")
    assert neg["candidates"][0] == {"event": "d2", "position": 2, "type": "D", "ts": 1.0, "qualifies": False,
                                    "failed": {"text": "d.v > 5", "values": {"d.v": 1}, "result": False}}
    assert [s["kind"] for s in r["steps"]][-3:] == ["window", "negation", "match"]


def test_negation_without_candidates() -> None:
    r = explain_match(NEG, stream("a1 c2"), 1)
    (neg,) = [s for s in r["steps"] if s["kind"] == "negation"]
    assert neg["text"] == "!d: no D event between event a1 and event c2" and neg["candidates"] == []


def test_negation_step_with_a_blocker_at_the_end_of_the_pattern() -> None:
    comp = SimpleNamespace(var="d", type="D")
    lo = SimpleNamespace(id="a1")
    blocker = SimpleNamespace(event=SimpleNamespace(id="d5", type="D", ts=5.0), qualifies=True, failed=None,
                              predicates=[SimpleNamespace(to_json=lambda: {"text": "d.v > 5", "result": True})])
    n = SimpleNamespace(comp=comp, lo=lo, hi=None, blocker=blocker, candidates=[blocker])
    s = negation_step(NEG, n)
    assert s["text"] == "!d: event d5 (D) after event a1 until the window closes qualifies, so no match"
    assert s["result"] is False and s["event"] == "d5" and s["between"] == ["a1", None]
    assert s["candidates"] == [{"event": "d5", "type": "D", "ts": 5.0, "qualifies": True,
                                "predicates": [{"text": "d.v > 5", "result": True}]}]


def test_non_overlap_adds_the_output_step() -> None:
    r = explain_match(parse("PATTERN SEQ(A a, C c) OUTPUT NON_OVERLAP"), stream("a1 c2 a3 c4"), 2)
    assert r["match"] == {"a": ["a3"], "c": ["c4"]}
    assert r["steps"][-1] == {"kind": "output", "state": "F", "result": True,
                              "text": "OUTPUT NON_OVERLAP: kept, because it starts after the previous reported "
                                      "match of its partition ended"}


def test_explain_found_takes_the_index_and_engine_name_given() -> None:
    p = parse("PATTERN SEQ(A a, C c) OUTPUT NON_OVERLAP")
    events = stream("a1 c2")
    from engine.explain.common import engine_run

    (m,) = engine_run(p, events).matches
    r = explain_found(p, events, m, 7, "someone")
    assert r["index"] == 7 and r["engine"] == "someone" and r["steps"][-1]["kind"] == "output"


def test_states_of_an_or_alternative_are_prefixed() -> None:
    p = parse("PATTERN SEQ(A a, OR(B b, C c))")
    r = explain_match(p, stream("a1 c2"), 1, engine="nfab")
    assert brief(r["steps"]) == [("begin", "a1", "alt1:a", "alt1:c"), ("begin", "c2", "alt1:c", "alt1:F"),
                                 ("match", "c2", "alt1:F", None)]


def test_match_window_of_a_match_windows_run() -> None:
    p = parse("PATTERN SEQ(A a, B+ b[]) WHERE [k] WITHIN 1.5")
    r = explain_match(p, stream("a1@1.004 b2@2", a1={"k": 1}, b2={"k": 1}), 1, match_windows="on")
    assert r["engine"] == "match-windows"
    assert r["match_window"] == {
        "first": "a1", "key": {"k": 1}, "from": 1.004, "until": 2.504, "matcher": "ses",
        "text": "the match lies in the match window of its first event a1 (k=1; ts in [1.004, 2.504), WITHIN 1.5); "
                "the window passed the necessary match conditions, so the matcher A = ses was called on it and "
                "reported this match"}
    plain = explain_match(parse("PATTERN SEQ(A a, B+ b[]) WITHIN 5"), stream("a1 b2"), 1, match_windows="on")
    assert plain["match_window"]["key"] == {} and "(one window for all events; " in plain["match_window"]["text"]
    assert "match_window" not in explain_match(p, stream("a1 b2"), 1, match_windows="off")


def test_match_window_bounds_use_the_window_in_seconds() -> None:
    p = parse("PATTERN SEQ(A a, B+ b[]) WHERE [k] WITHIN 1 min")
    r = explain_match(p, stream("a1@1 b2@2", a1={"k": 1}, b2={"k": 1}), 1, match_windows="on")
    assert (r["match_window"]["from"], r["match_window"]["until"]) == (1.0, 61.0)


def test_interleaved_kleene_events_proceed_only_after_the_last_one() -> None:
    p = parse("PATTERN AND(B+ b[], C c)")
    events = stream("b1 c2 b3")
    first = explain_match(p, events, 1)
    assert first["match"] == {"b": ["b1"], "c": ["c2"]}
    assert [s["kind"] for s in first["steps"]][:3] == ["begin", "proceed", "begin"]
    both = explain_match(p, events, 3)
    assert both["match"] == {"b": ["b1", "b3"], "c": ["c2"]}
    # b1 is not b[]'s last event: no proceed between b1 and c2
    assert [(s["kind"], s["event"]) for s in both["steps"]][:3] == [("begin", "b1"), ("begin", "c2"), ("take", "b3")]


def test_find_alternative() -> None:
    p = parse("PATTERN SEQ(A a, B? b)")
    assert find_alternative(p, {"a"}).vars == ["a"]
    assert find_alternative(p, {"a", "b"}).vars == ["a", "b"]
    assert find_alternative(p, {"b"}) is None


def test_exact() -> None:
    assert _exact(34200.009) == "34200.009" and _exact(1 / 3) == "0.333333333333"
    assert _exact(3) == "3" and _exact(None) == "None" and _exact(2.0) == "2"
