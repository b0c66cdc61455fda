"""The text form of ``cep explain`` answers (engine/explain/text.py): ``format_text`` on
hand-written match and no-match results, every step kind, predicates with their values and
marks, and the helpers ``_ids``, ``_num``, ``_pred`` and ``_step``."""
from __future__ import annotations

from engine.explain.text import _ids, _num, _pred, _step, format_text


def test_ids() -> None:
    assert _ids({"a": [1, 2], "b": ["x"]}) == "a=[1,2] b=[x]"
    assert _ids({"a": []}) == "a=[]"
    assert _ids({}) == "(nothing)"


def test_num() -> None:
    assert _num(6.0) == "6" and _num(-2.0) == "-2"
    assert _num(1 / 3) == "0.333333" and _num(123456789.5) == "1.23457e+08"
    assert _num(7) == "7" and _num("x") == "x" and _num(None) == "None"


def test_pred_marks_values_and_equivalence() -> None:
    assert _pred({"text": "a.x > 1", "result": True, "values": {"a.x": 2.0}}) == "✓ a.x > 1    (a.x=2)"
    assert _pred({"text": "a.x > 1", "result": False, "values": {"a.x": 0.5, "b.y": 3}}) == \
        "✗ a.x > 1    (a.x=0.5, b.y=3)"
    assert _pred({"text": "a.id = b.id", "result": True, "equivalence": True}) == "✓ a.id = b.id [equivalence]"
    assert _pred({"text": "t"}) == "✗ t"  # no result counts as false


def test_steps_of_every_kind() -> None:
    p = {"text": "b.x > a.x", "result": True, "values": {"b.x": 5, "a.x": 1}}
    assert _step({"kind": "begin", "event": 3, "type": "B", "ts": 2.0, "state": "b", "to": "F", "text": "bound",
                  "predicates": [p]}) == [
        "event 3 (B @ 2): begin at b -> F — bound", "    ✓ b.x > a.x    (b.x=5, a.x=1)"]
    assert _step({"kind": "take", "event": 4, "type": "B", "ts": 2.5, "state": "b[i]", "to": "b[i]",
                  "text": "taken"}) == ["event 4 (B @ 2.5): take at b[i] -> b[i] — taken"]
    assert _step({"kind": "proceed", "state": "b[i]", "to": "F", "text": "done"}) == ["proceed b[i] -> F: done"]
    assert _step({"kind": "skip", "event": 5, "type": "C", "ts": 3, "state": "b", "formula": "¬take",
                  "why": "false"}) == ["event 5 (C @ 3) skipped at b [ignore: ¬take]: false"]
    assert _step({"kind": "skip", "event": 5, "type": "C", "ts": 3, "state": "b", "why": "other type"}) == \
        ["event 5 (C @ 3) skipped at b: other type"]
    assert _step({"kind": "window", "text": "3 - 1 < 5", "result": True}) == ["window: 3 - 1 < 5 ✓"]
    assert _step({"kind": "window", "text": "9 - 1 >= 5", "result": False}) == ["window: 9 - 1 >= 5 ✗"]
    assert _step({"kind": "match", "text": "reaches F"}) == ["match: reaches F"]
    assert _step({"kind": "output"}) == ["output: "]


def test_negation_step_lists_its_candidates_not_predicates() -> None:
    s = {"kind": "negation", "text": "!c", "result": False, "predicates": [{"text": "never shown"}],
         "candidates": [
             {"event": 7, "type": "C", "ts": 4.0, "failed": {"text": "c.x = a.x", "result": False,
                                                            "values": {"c.x": 2, "a.x": 1}}},
             {"event": 8, "type": "C", "ts": 4.5},
         ]}
    assert _step(s) == [
        "negation !c ✗",
        "    event 7 (C @ 4) does not qualify: ✗ c.x = a.x    (c.x=2, a.x=1)",
        "    event 8 (C @ 4.5) qualifies",
    ]


def test_format_match() -> None:
    result = {"verdict": "match", "index": 2, "engine": "nfab", "match": {"a": [3, 4], "b": [6]}, "start": 3.0,
              "end": 6.0, "steps": [{"kind": "proceed", "state": "a[i]", "to": "b", "text": "a[] complete"},
                                    {"kind": "match", "text": "F"}]}
    assert format_text(result) == ("match #2 (engine nfab): a=[3,4] b=[6]  ts 3 .. 6\n"
                                   "  proceed a[i] -> b: a[] complete\n"
                                   "  match: F\n")


def test_format_match_with_a_match_window_and_no_engine() -> None:
    result = {"verdict": "match", "index": 1, "match": {"a": [1]}, "match_window": {"text": "in window 1"}}
    assert format_text(result) == "match #1 (engine ?): a=[1]  ts None .. None\n  match windows: in window 1\n"


def test_format_no_match() -> None:
    result = {"verdict": "no_match", "engine": "nfab", "candidate": {"a": [3, 4, 5], "b": [6]},
              "furthest": {"a": [3, 4]},
              "reason": {"kind": "predicate", "text": "a[i].price > avg is false", "event": 5,
                         "values": {"a[3].price": 120.0, "avg": 120.5}},
              "nearest": {"index": 2, "match": {"a": [3, 4], "b": [6]}, "shared": 3}}
    assert format_text(result) == (
        "no match (engine nfab): a=[3,4,5] b=[6]\n"
        "  furthest partial run: a=[3,4]\n"
        "  reason (predicate): a[i].price > avg is false\n"
        "    values: a[3].price=120, avg=120.5\n"
        "    event: 5\n"
        "  did you mean match #2? a=[3,4] b=[6] (shares 3 events)\n")


def test_format_no_match_without_candidate_values_event_or_nearest() -> None:
    result = {"verdict": "no_match", "engine": "lazy-chain", "events": [1, 9], "candidate": {},
              "furthest": {}, "reason": {"kind": "type", "text": "event 9 has type Z", "event": None},
              "nearest": {"index": 1, "match": {"a": [1]}, "shared": 1}}
    assert format_text(result) == (
        "no match (engine lazy-chain): events 1,9\n"
        "  furthest partial run: (nothing)\n"
        "  reason (type): event 9 has type Z\n"
        "  did you mean match #1? a=[1] (shares 1 event)\n")
