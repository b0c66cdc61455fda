"""``cep explain QUERY.sql --why-not ROWS`` (engine/explain/sql_whynot.py) on the worked examples,
checked by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.commands.cli import main
from engine.engines.sql.parser import parse_query
from engine.engines.sql.trace import trace_query
from engine.explain import ExplainError
from engine.explain.sql_whynot import explain_sql_why_not, format_sql_why_not, parse_rows
from tests.engines.sql.sql_support import prices
from tests.engines.sql.test_engine_vs_oracle import data, queries

HELD = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.id) AS a ONE ROW PER MATCH "
        "{skip} PATTERN (A B+ C) DEFINE B AS B.price > A.price, C AS C.price < A.price)")
GREEDY = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.price AS a ONE ROW PER MATCH "
          "PATTERN (A B+ C) DEFINE A AS price = 20, B AS price < 15, C AS price > 12)")
DATA = (1, 5, 6, 7, 3, 8, 9)


def why(sql: str, values: tuple[int, ...], spec: str) -> dict:
    return explain_sql_why_not(trace_query(parse_query(sql), prices(*values)), spec, len(values))


def test_row_4_a_is_7_and_b_refuses_3() -> None:
    r = why(HELD.format(skip="AFTER MATCH SKIP TO NEXT ROW"), DATA, "4")
    [a] = r["answers"]
    assert a["verdict"] == "no_match"
    [t] = a["threads"]
    assert t["labels"] == ["A"] and t["rows"] == [4]
    assert t["fate"]["kind"] == "died" and t["fate"]["row"] == 5 and t["fate"]["label"] == "B"
    assert t["fate"]["predicates"] == [{"text": "B.price > A.price", "values": {"B.price": 3, "A.price": 7},
                                        "result": False}]
    assert [(c["index"], c["label"]) for c in a["covered"]] == [(1, "B"), (2, "B")]


def test_rows_3_to_5_are_match_2_with_skip_to_next_row() -> None:
    r = why(HELD.format(skip="AFTER MATCH SKIP TO NEXT ROW"), DATA, "3-5")
    assert r["verdict"] == "match" and r["index"] == 2
    assert r["answers"][0]["verdict"] == "match" and r["answers"][0]["rows"] == [3, 4, 5]


def test_past_last_row_skips_rows_3_to_5() -> None:
    r = why(HELD.format(skip=""), DATA, "3,4")
    assert r["verdict"] == "no_match"
    for a, label in zip(r["answers"], ["B", "B"]):
        assert a["verdict"] == "skipped" and a["index"] == 1
        assert a["covered"] == [{"index": 1, "label": label, "rows": [2, 3, 4, 5]}]
        assert "the next search starts at row 6" in a["text"]
    assert "row 3 is B in match 1" in r["answers"][0]["text"]


def test_the_preferred_match_from_a_row_names_the_other_labellings() -> None:
    """Why not rows 1-2 as a match of A B+ C over 20, 13, 14, 5, 3: the match from row 1 is rows 1-3;
    the other threads of that search are listed (greedy B ones that failed)."""
    r = why(GREEDY, (20, 13, 14, 5, 3), "1-2")
    a = r["answers"][0]
    assert a["verdict"] == "match" and a["rows"] == [1, 2, 3]
    assert {t["thread"] for t in a["others"]} == {"1.1", "1.3", "1.4", "1.5"}
    b = r["answers"][1]
    assert b["verdict"] == "skipped" and b["covered"][0]["label"] == "B"


def test_partition_end_is_named() -> None:
    r = why(HELD.format(skip=""), DATA, "6")
    kinds = sorted(t["fate"]["kind"] for t in r["answers"][0]["threads"])
    assert kinds == ["end", "end"]
    assert "the partition ends" in format_sql_why_not(r)


@given(st.integers(1, 40), st.integers(0, 5))
def test_parse_rows_ranges(lo: int, width: int) -> None:
    assert parse_rows(f"{lo}-{lo + width}") == list(range(lo, lo + width + 1))
    assert parse_rows(",".join(map(str, range(lo, lo + width + 1)))) == list(range(lo, lo + width + 1))


@pytest.mark.parametrize("spec", ["x", "3-1", "0", "", "1-999"])
def test_bad_specs_are_refused(spec: str) -> None:
    with pytest.raises(ExplainError):
        why(HELD.format(skip=""), DATA, spec)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q = tmp_path / "q.sql"
    q.write_text(HELD.format(skip="AFTER MATCH SKIP TO NEXT ROW"))
    d = tmp_path / "d.csv"
    d.write_text("id,ts,price\n" + "".join(f"{i},{i},{p}\n" for i, p in enumerate(DATA, 1)))
    assert main(["explain", str(q), "--data", str(d), "--why-not", "4", "--format", "json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["answers"][0]["threads"][0]["fate"]["row"] == 5
    assert main(["explain", str(q), "--data", str(d), "--why-not", "4"]) == 0
    out = capsys.readouterr().out
    assert "✗ B.price > A.price    (B.price=3, A.price=7)" in out
    assert main(["explain", str(q), "--data", str(d), "--why-not", "8"]) == 2


def _random_trace(sql: str, rows: list[tuple[int, int, int]]):
    from engine.engines.sql.errors import SqlRunError
    from engine.match import StateExplosion
    from tests.engines.sql.sql_support import table

    t = table(["id", "p", "ts", "x"], *[(i + 1, p, ts, x) for i, (p, ts, x) in enumerate(rows)])
    try:
        return trace_query(parse_query(sql), t, limit=None)
    except (SqlRunError, StateExplosion):
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries(), data)
def test_every_row_gets_one_consistent_answer(sql: str, rows: list[tuple[int, int, int]]) -> None:
    """On random queries: every match is explained row by row with DEFINEs that hold, and every row
    of the table is a match start, a failed search, or skipped by AFTER MATCH SKIP, consistently with
    the matches the engine found."""
    from engine.explain.sql_match import explain_sql_match

    tr = _random_trace(sql, rows)
    if tr is None or not rows:
        return
    starts = set()
    for k, (_key, m) in enumerate(tr.matches, 1):
        r = explain_sql_match(tr, k)
        assert r["labels"] == list(m.labels)
        assert [x["label"] for x in r["rows"]] == list(m.labels)
        assert all(x["result"] is True for x in r["rows"])
        starts.add(r["start"])
    result = explain_sql_why_not(tr, f"1-{len(rows)}", len(rows))
    searched = {a.detail["search"] for s in tr.steps for a in s.actions if a.kind == "search"}
    for a in result["answers"]:
        want = "match" if a["row"] in starts else "no_match" if a["row"] in searched else "skipped"
        assert a["verdict"] == want, (a, sql)
        if want == "no_match":
            assert a["threads"] and all(t["fate"]["kind"] != "completed" for t in a["threads"]), (a, sql)
