"""``cep trace QUERY.sql --from ROW --to ROW [--break SPEC]``: the records of a window of input rows are
the whole trace's records of the searches that start there; breakpoints event:N, id:X, match:K; a late
window of a 100k-row table."""
from __future__ import annotations

import json
from typing import Any

import pytest

from engine.commands.cli import main
from sample_streams.sql_queries import presets
from tests.commands.test_sql_explain_window import ticker
from tests.engines.sql.test_trace import HELD

PRICES = [1, 5, 6, 7, 3, 8, 9]


def files(tmp_path: Any, sql: str = HELD.format(skip="AFTER MATCH SKIP TO NEXT ROW")) -> tuple[str, str]:
    q = tmp_path / "q.sql"
    q.write_text(sql)
    d = tmp_path / "d.csv"
    d.write_text("id,ts,price\n" + "".join(f"{100 + i},{i},{p}\n" for i, p in enumerate(PRICES, 1)))
    return str(q), str(d)


def records(capsys: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def searches(recs: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    current = None
    for r in recs:
        if r["step"] == "close":
            continue
        for a in r["actions"]:
            if a["kind"] == "search":
                current = a["detail"]["search"]
        out.setdefault(current, []).append(r)  # type: ignore[arg-type]
    return out


def test_a_window_of_rows_is_the_whole_traces_searches_from_those_rows(tmp_path: Any, capsys: Any) -> None:
    q, d = files(tmp_path)
    assert main(["trace", q, "--data", d]) == 0
    whole = records(capsys)
    assert main(["trace", q, "--data", d, "--from", "3", "--to", "4"]) == 0
    got = records(capsys)
    assert got == searches(whole)[3] + searches(whole)[4]
    assert main(["trace", q, "--data", d, "--from", "6"]) == 0  # to the end: the close step
    got = records(capsys)
    assert got == searches(whole)[6] + searches(whole)[7] + [whole[-1]]
    assert main(["trace", q, "--data", d, "--from", "3", "--to", "3", "--format", "table"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].startswith(f"step {whole.index(searches(whole)[3][0])}: row #3 (id 103) (")


def test_breakpoints_of_a_query(tmp_path: Any, capsys: Any) -> None:
    q, d = files(tmp_path)
    assert main(["trace", q, "--data", d]) == 0
    whole = records(capsys)
    found = [r for r in whole if any(a["kind"] == "match" for a in r["actions"])]
    assert main(["trace", q, "--data", d, "--break", "match:2"]) == 0
    got = records(capsys)
    assert got[-1] == {"break": f"match #2 found at step {found[1]['step']} (the search from row #3 (id 103))",
                       "step": found[1]["step"]}
    assert got[:-1] == whole[:found[1]["step"] + 1]
    assert main(["trace", q, "--data", d, "--from", "3", "--break", "event:5"]) == 0
    got = records(capsys)
    first5 = next(r for r in searches(whole)[3] if r.get("event", {}).get("id") == 5)
    assert got[-1] == {"break": f"row #5 (id 105) read at step {first5['step']}", "step": first5["step"]}
    assert main(["trace", q, "--data", d, "--break", "id:105", "--format", "table"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("break: row #5 (id 105) read at step ")
    assert main(["trace", q, "--data", d, "--break", "match:9"]) == 0
    captured = capsys.readouterr()
    assert "the run has 2 matches" in captured.err
    assert [json.loads(x) for x in captured.out.splitlines()] == whole  # no hit: the whole trace


@pytest.mark.parametrize("argv, message", [
    (["--break", "fails:price > 1"], "stops at event:N (input row N), id:X or match:K"),
    (["--break", "event:0"], "a whole number from 1"),
    (["--break", "event:99"], "the table has 7 rows"),
    (["--from", "9"], "--from 9: a query's rows are numbered from 1 to 7"),
    (["--from", "5", "--to", "4"], "--from 5 is after --to 4"),
])
def test_bad_windows_and_breakpoints_are_refused_with_what_is_expected(tmp_path: Any, capsys: Any,
                                                                       argv: list[str], message: str) -> None:
    q, d = files(tmp_path)
    assert main(["trace", q, "--data", d, *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_late_window_of_a_100k_row_table(tmp_path: Any, capsys: Any) -> None:
    q = tmp_path / "v.sql"
    q.write_text(presets()["v_shape"].text)
    d = tmp_path / "ticker.csv"
    d.write_text(ticker(100_000))
    assert main(["trace", str(q), "--data", str(d), "--from", "99901", "--to", "99950"]) == 0
    got = records(capsys)
    starts = [a["detail"]["search"] for r in got for a in r["actions"] if a["kind"] == "search"]
    assert starts and all(99_901 <= s <= 99_950 for s in starts)
    # the whole trace's step numbers: each search's steps consecutive, the searches in the trace's order
    # (partitions first), every number past the steps of the rows before the window in its partition
    assert [r["step"] for r in got] == sorted(r["step"] for r in got)
    for group in searches(got).values():
        assert [r["step"] for r in group] == list(range(group[0]["step"], group[0]["step"] + len(group)))
    assert got[0]["step"] > 99_900 // 3
    assert main(["trace", str(q), "--data", str(d), "--from", "1", "--to", "9000"]) == 1
    assert "more than a window holds" in capsys.readouterr().err
