"""The SQL engines' step trace (engine/engines/sql/trace.py): the worked examples checked by hand,
merges, anchors, WITHIN, NULL DEFINEs, the oracle's labellings, and traced == untraced on random
queries."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from hypothesis import HealthCheck, given, settings

from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.output import json_row
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import run_query
from engine.engines.sql.trace import trace_query
from engine.match import StateExplosion
from tests.engines.sql.sql_support import prices, table
from tests.engines.sql.test_engine_vs_oracle import data, queries

GREEDY = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.price AS a, LAST(B.price) AS b, C.price AS c "
          "ONE ROW PER MATCH PATTERN (A B+ C) DEFINE A AS price = 20, B AS price < 15, C AS price > 12)")
HELD = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.id) AS a, LAST(C.id) AS c ONE ROW PER MATCH "
        "{skip} PATTERN (A B+ C) DEFINE B AS B.price > A.price, C AS C.price < A.price)")


def actions(trace: Any, kind: str | None = None, run: str | None = None) -> list[Any]:
    return [a for s in trace.steps for a in s.actions if (kind is None or a.kind == kind)
            and (run is None or a.run == run)]


def test_greedy_b_tries_13_14_5_3_then_c_on_14() -> None:
    """A B+ C, A = 20, B < 15, C > 12 over 20, 13, 14, 5, 3: thread 1.1 takes rows 2-5 as B (greedy),
    thread 1.2 (forked when B had row 2) takes row 3 as C and completes rows 1-3; the threads that try
    C on 5 and 3 die on C > 12, and 1.1 dies at the end of the partition: the match is A=1 B=2 C=3."""
    tr = trace_query(parse_query(GREEDY), prices(20, 13, 14, 5, 3))
    assert tr.rows == [{"a": 20, "b": 13, "c": 14}]
    takes = [(a.run, a.event, a.to, a.predicates[0].values) for a in actions(tr, "take")]
    assert takes == [("1.1", 1, "A", {"price": 20}), ("1.1", 2, "B", {"price": 13}), ("1.1", 3, "B", {"price": 14}),
                     ("1.2", 3, "C", {"price": 14}), ("1.1", 4, "B", {"price": 5}), ("1.1", 5, "B", {"price": 3})]
    deaths = [(a.run, a.event, a.detail.get("tried") or a.detail.get("waits_for"), a.predicates[0].values
               if a.predicates else None) for a in actions(tr, "discard")]
    assert deaths == [("1.3", 4, "C", {"price": 5}), ("1.4", 5, "C", {"price": 3}), ("1.1", None, "B", None),
                      ("1.5", None, "C", None), ("4.1", 4, "A", {"price": 5}), ("5.1", 5, "A", {"price": 3})]
    [done] = actions(tr, "wait")
    assert done.run == "1.2" and done.detail["more_preferred"] == ["1.1", "1.3"] and done.detail["labels"] == ["A", "B", "C"]
    [match] = actions(tr, "match")
    assert match.run == "1.2" and match.detail["match"]["match"] == {"A": [1], "B": [2], "C": [3]}
    assert [s["label"] for s in match.detail["steps"]] == ["A", "B", "C"]
    assert match.detail["steps"][2] == {"row": 3, "label": "C", "define": "price > 12", "values": {"price": 14},
                                        "result": True}
    [skip] = actions(tr, "proceed")
    assert skip.detail == {"search": 1, "to": 4, "skipped": [2, 3]}
    assert [a.event for a in actions(tr, "ignore")] == [4, 5]
    assert all(a.edge == "unmatched" for a in actions(tr, "ignore"))
    # the forks: 1.2 branched from 1.1 (C instead of another B), 1.3 .. 1.5 likewise
    assert {a.run: a.detail.get("from") for a in actions(tr, "take")}["1.2"] == "1.1"
    # the live threads after row 3, in preference order
    step3 = next(s for s in tr.steps if s.event is not None and s.event["id"] == 3 and any(
        a.kind == "take" for a in s.actions))
    assert [(r.id, r.bindings) for r in step3.runs] == [("1.1", {"A": [1], "B": [2, 3]}),
                                                        ("1.2", {"A": [1], "B": [2], "C": [3]})]


def test_the_oracle_names_the_labellings_in_backtracking_order() -> None:
    tr = trace_query(parse_query(GREEDY), prices(20, 13, 14, 5, 3), "sql-oracle")
    tried = [(a.run, a.kind) for a in actions(tr) if a.kind in ("take", "discard") and a.run.startswith("1:")]
    assert tried == [("1:A", "take"), ("1:A B", "take"), ("1:A B B", "take"), ("1:A B B B", "take"),
                     ("1:A B B B B", "take"), ("1:A B B B C", "discard"), ("1:A B B C", "discard"),
                     ("1:A B C", "take")]
    assert tr.rows == [{"a": 20, "b": 13, "c": 14}]
    [match] = actions(tr, "match")
    assert match.detail["steps"][1]["values"] == {"price": 13}


def test_skip_to_next_row_searches_every_row() -> None:
    """B > A.price, C < A.price over 1, 5, 6, 7, 3, 8, 9: from row 2, A=5 B=6,7 C=3 (rows 2-5); TO NEXT ROW
    searches row 3: A=6 B=7 C=3 (rows 3-5); row 4: A=7 and B refuses 3 (3 > 7 is false)."""
    tr = trace_query(parse_query(HELD.format(skip="AFTER MATCH SKIP TO NEXT ROW")), prices(1, 5, 6, 7, 3, 8, 9))
    assert tr.rows == [{"a": 2, "c": 5}, {"a": 3, "c": 5}]
    assert [a.detail["search"] for a in actions(tr, "search")] == [1, 2, 3, 4, 5, 6, 7]
    assert [a.detail["to"] for a in actions(tr, "proceed")] == [3, 4]
    [refused] = [a for a in actions(tr, "discard") if a.detail.get("search") == 4 and a.event == 5]
    assert refused.predicates[0].text == "B.price > A.price"
    assert refused.predicates[0].values == {"B.price": 3, "A.price": 7} and refused.predicates[0].result is False
    assert [a.event for a in actions(tr, "ignore") if a.edge == "unmatched"] == [1, 6, 7]


def test_past_last_row_jumps_over_the_match() -> None:
    tr = trace_query(parse_query(HELD.format(skip="")), prices(1, 5, 6, 7, 3, 8, 9))
    assert tr.rows == [{"a": 2, "c": 5}]
    [skip] = actions(tr, "proceed")
    assert skip.detail["to"] == 6 and skip.detail["skipped"] == [3, 4, 5]
    assert [a.detail["search"] for a in actions(tr, "search")] == [1, 2, 6, 7]


def test_a_thread_in_the_same_state_as_a_preferred_one_is_merged() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES CLASSIFIER() AS k ONE ROW PER MATCH "
           "PATTERN ((A | B) C) DEFINE C AS price > 0)")
    tr = trace_query(parse_query(sql), prices(1, 2))
    [merge] = actions(tr, "merge")
    assert merge.run == "1.2" and merge.detail["into"] == "1.1" and merge.detail["labels"] == ["B"]
    assert tr.rows == [{"k": "C"}]


def test_a_define_that_is_null_kills_the_thread_with_its_values() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n ONE ROW PER MATCH "
           "AFTER MATCH SKIP TO NEXT ROW PATTERN (B A) DEFINE B AS price > PREV(price))")
    tr = trace_query(parse_query(sql), prices(3, 4, 5))
    first = next(a for a in actions(tr, "discard") if a.event == 1)
    assert first.detail["result"] == "NULL" and "NULL" in first.reason
    assert first.predicates[0].values == {"price": 3, "PREV(price)": None}


def test_aggregates_and_navigation_are_shown_with_their_running_values() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n ONE ROW PER MATCH PATTERN (A B+) "
           "DEFINE B AS count(B.*) <= 2 AND sum(B.price) < 100 AND FIRST(A.price) >= 0)")
    tr = trace_query(parse_query(sql), prices(1, 2, 3, 4))
    values = [a.predicates[0].values for a in actions(tr) if a.event is not None and a.predicates
              and a.detail.get("labels", [""])[-1:] != ["A"] and a.kind in ("take", "discard")
              and a.detail.get("search") == 1]
    assert values == [{"COUNT(B.*)": 1, "SUM(B.price)": 2, "FIRST(A.price)": 1},
                      {"COUNT(B.*)": 2, "SUM(B.price)": 5, "FIRST(A.price)": 1},
                      {"COUNT(B.*)": 3, "SUM(B.price)": 9, "FIRST(A.price)": 1}]


def test_anchors_and_within_end_threads() -> None:
    anchored = trace_query(parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n "
                                       "PATTERN (^ A $))"), prices(1, 2))
    reasons = [a.reason for a in actions(anchored, "discard")]
    assert reasons == ["anchor $: the partition goes on after row 1", "anchor ^: row 2 is not the partition's first row"]
    timed = trace_query(parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n "
                                    "PATTERN (A B*) WITHIN INTERVAL '2' SECOND)"), prices(1, 2, 3, 4))
    [expired] = actions(timed, "expire")
    assert expired.event == 3 and expired.predicates[0].values == {"ts": 3, "FIRST(ts)": 1, "W": 2.0}
    assert timed.rows == [{"n": 2}, {"n": 2}]


def test_rows_are_input_rows_across_partitions() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES FIRST(A.id) AS a "
           "ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.x > A.x)")
    t = table(["id", "p", "ts", "x"], (1, "u", 1, 1), (2, "v", 1, 5), (3, "u", 2, 2), (4, "v", 2, 1))
    tr = trace_query(parse_query(sql), t)
    [match] = actions(tr, "match")
    assert match.detail["match"]["match"] == {"A": [1], "B": [3]} and match.detail["match"]["partition"] == {"p": "u"}
    assert tr.rows == [{"p": "u", "a": 1}]


def test_the_untraced_matcher_does_not_load_the_trace() -> None:
    code = ("import sys; from tests.engines.sql.sql_support import rows, prices; "
            f"rows({GREEDY!r}, prices(20, 13, 14, 5, 3)); "
            "print('engine.engines.sql.trace' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.getcwd()}).stdout
    assert out.strip() == "False"


def _outcome(sql: str, rows: list[tuple[int, int, int]], engine: str, traced: bool) -> Any:
    t = table(["id", "p", "ts", "x"], *[(i + 1, p, ts, x) for i, (p, ts, x) in enumerate(rows)])
    try:
        if not traced:
            return [json_row(r) for r in run_query(parse_query(sql), t, engine).rows]
        tr = trace_query(parse_query(sql), t, engine, limit=None)
        got = [m for s in tr.steps for m in s.matches]
        assert tr.steps[-1].step == "close"
        json.dumps([s.to_json() for s in tr.steps])  # every step is JSON
        return got if not parse_query(sql).final_order else tr.steps[-1].matches
    except SqlRunError as e:
        return ("error", str(e))


@settings(max_examples=int(os.environ.get("SQL_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries(), data)
def test_traced_equals_untraced(sql: str, rows: list[tuple[int, int, int]]) -> None:
    """The steps' rows, in order, are the untraced run's rows (both engines)."""
    try:
        want = _outcome(sql, rows, "sql", False)
    except StateExplosion:
        return
    assert _outcome(sql, rows, "sql", True) == want, sql
    try:
        oracle = _outcome(sql, rows, "sql-oracle", False)
    except StateExplosion:
        return
    assert _outcome(sql, rows, "sql-oracle", True) == oracle, sql


def test_cep_trace_writes_the_steps(tmp_path: Any, capsys: Any) -> None:
    from engine.commands.cli import main

    q = tmp_path / "q.sql"
    q.write_text(GREEDY)
    d = tmp_path / "d.csv"
    d.write_text("id,ts,price\n" + "".join(f"{i},{i},{p}\n" for i, p in enumerate([20, 13, 14, 5, 3], 1)))
    assert main(["trace", str(q), "--data", str(d)]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert steps[-1]["step"] == "close"
    assert [m for s in steps for m in s["matches"]] == [{"a": 20, "b": 13, "c": 14}]
    assert steps[0]["actions"][0] == {"kind": "search", "edge": "start", "event": 1,
                                      "reason": "search for match 1 from row 1", "detail": {"search": 1, "number": 1}}
    assert main(["trace", str(q), "--data", str(d), "--format", "table"]) == 0
    text = capsys.readouterr().out
    assert "take 1.2 row 3 as C (labels A B C) [price > 12 (price=14) ✓]" in text
    assert "die 1.3 row 4 (labels A B B) [price > 12 (price=5) ✗] — DEFINE C is false on row 4" in text
    assert main(["trace", str(q), "--data", str(d), "--limit", "3"]) == 1
    assert "more than --limit 3" in capsys.readouterr().err
