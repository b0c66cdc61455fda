"""``cep explain QUERY.sql --match K`` (engine/explain/sql_match.py) on the worked examples,
checked by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.commands.cli import main
from engine.engines.sql.parser import parse_query
from engine.engines.sql.trace import trace_query
from engine.explain import ExplainError
from engine.explain.sql_match import explain_sql_match, format_sql_match
from tests.engines.sql.sql_support import prices

GREEDY = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.price AS a, C.price AS c ONE ROW PER MATCH "
          "PATTERN (A B+ C) DEFINE A AS price = 20, B AS price < 15, C AS price > 12)")
HELD = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.id) AS a ONE ROW PER MATCH "
        "AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+ C) DEFINE B AS B.price > A.price, C AS C.price < A.price)")


def explain(sql: str, *values: int, k: int = 1, engine: str = "sql") -> dict:
    return explain_sql_match(trace_query(parse_query(sql), prices(*values), engine), k)


def test_greedy_b_was_preferred_but_failed_so_c_took_row_3() -> None:
    r = explain(GREEDY, 20, 13, 14, 5, 3)
    assert r["match"] == {"A": [1], "B": [2], "C": [3]} and r["thread"] == "1.2"
    assert [(x["row"], x["label"], x["define"], x["values"]) for x in r["rows"]] == [
        (1, "A", "price = 20", {"price": 20}), (2, "B", "price < 15", {"price": 13}),
        (3, "C", "price > 12", {"price": 14})]
    # row 3: greedy B (thread 1.1, more preferred) also accepted it
    [other] = r["rows"][2]["others"]
    assert other["thread"] == "1.1" and other["label"] == "B" and other["accepted"] and other["preferred"] == "more"
    assert other["fate"] == "the partition ends: no row for B"
    by = {t["thread"]: t for t in r["threads"]}
    assert by["1.3"]["labels"] == ["A", "B", "B"] and by["1.3"]["fate"]["kind"] == "died"
    assert by["1.3"]["fate"]["row"] == 4 and by["1.3"]["fate"]["predicates"][0]["values"] == {"price": 5}
    assert all(t["relation"].startswith("more preferred") for t in r["threads"])
    text = format_sql_match(r)
    assert "row #3 (id 3): C — ✓ price > 12    (price=14)" in text
    assert "thread 1.1, more preferred also accepted it as B" in text


def test_greedy_b_took_row_4_although_c_tried_it() -> None:
    """Match 1 (rows 2-5): at row 4 the less preferred thread 2.2 tried C (7 < 5 false); at row 5 the
    more preferred 2.1 tried a third B (3 > 5 false), so C took row 5."""
    r = explain(HELD, 1, 5, 6, 7, 3, 8, 9)
    assert r["match"] == {"A": [2], "B": [3, 4], "C": [5]}
    row4, row5 = r["rows"][2], r["rows"][3]
    assert [(o["thread"], o["label"], o["accepted"], o["preferred"]) for o in row4["others"]] == [("2.2", "C", False, "less")]
    assert row4["others"][0]["predicate"]["values"] == {"C.price": 7, "A.price": 5}
    assert [(o["thread"], o["label"], o["accepted"], o["preferred"]) for o in row5["others"]] == [("2.1", "B", False, "more")]
    assert row5["values"] == {"C.price": 3, "A.price": 5}
    assert r["skip"].startswith("AFTER MATCH SKIP TO NEXT ROW: the next search starts at row 3")
    r2 = explain(HELD, 1, 5, 6, 7, 3, 8, 9, k=2)
    assert r2["match"] == {"A": [3], "B": [4], "C": [5]}


def test_a_less_preferred_completion_is_superseded() -> None:
    sql = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n PATTERN (A B*))"
    r = explain(sql, 1, 2)
    assert r["match"] == {"A": [1], "B": [2]}
    by = {t["thread"]: t for t in r["threads"]}
    assert by["1.2"]["labels"] == ["A"] and by["1.2"]["relation"].startswith("less preferred: it completed")


def test_match_out_of_range_and_no_match() -> None:
    with pytest.raises(ExplainError, match="there is 1 match"):
        explain(GREEDY, 20, 13, 14, 5, 3, k=2)
    with pytest.raises(ExplainError, match="no match"):
        explain(GREEDY, 1, 2)


def test_the_oracle_explains_the_same_rows() -> None:
    r = explain(GREEDY, 20, 13, 14, 5, 3, engine="sql-oracle")
    assert r["match"] == {"A": [1], "B": [2], "C": [3]}
    assert [x["values"] for x in r["rows"]] == [{"price": 20}, {"price": 13}, {"price": 14}]


def test_cli_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q = tmp_path / "q.sql"
    q.write_text(HELD)
    d = tmp_path / "d.csv"
    d.write_text("id,ts,price\n" + "".join(f"{i},{i},{p}\n" for i, p in enumerate([1, 5, 6, 7, 3, 8, 9], 1)))
    assert main(["explain", str(q), "--data", str(d), "--match", "2", "--format", "json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["verdict"] == "match" and r["index"] == 2 and r["match"] == {"A": [3], "B": [4], "C": [5]}
    assert main(["explain", str(q), "--data", str(d), "--match", "1"]) == 0
    assert "match #1" in capsys.readouterr().out
    assert main(["explain", str(q), "--data", str(d), "--match", "3"]) == 2
    assert "there are 2 matches" in capsys.readouterr().err


def test_greedy_b_took_rows_3_and_4_although_c_accepted_them() -> None:
    """A B+ C (B < 15, C > 12) over 20, 13, 14, 13, 30: C accepts 14 (row 3) and 13 (row 4), and those
    less preferred threads complete A B C and A B B C first; greedy B goes on, and A B B B C (C = 30)
    completes later and is preferred over both."""
    r = explain(GREEDY, 20, 13, 14, 13, 30)
    assert r["match"] == {"A": [1], "B": [2, 3, 4], "C": [5]}
    row3, row4 = r["rows"][2], r["rows"][3]
    assert [(o["label"], o["accepted"], o["preferred"]) for o in row3["others"]] == [("C", True, "less")]
    assert [(o["label"], o["accepted"], o["preferred"]) for o in row4["others"]] == [("C", True, "less")]
    by = {t["thread"]: t for t in r["threads"]}
    superseded = sorted(t for t, v in by.items() if v["relation"].startswith("less preferred: it completed"))
    assert [by[t]["rows"] for t in superseded] == [[1, 2, 3], [1, 2, 3, 4]]
    assert by[superseded[0]]["fate"] == {"kind": "completed", "text": f"thread {superseded[0]} completes a match (rows 1-3)",
                                         "labels": ["A", "B", "C"], "rows": [1, 2, 3]}
    [failed] = [v for v in by.values() if v["relation"].startswith("more preferred")]
    assert failed["fate"]["row"] == 5 and failed["fate"]["predicates"][0]["values"] == {"price": 30}
