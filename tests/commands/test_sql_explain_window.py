"""``cep explain QUERY.sql`` reads only the searches its answer needs (engine/engines/sql/trace_window.py):
on random queries and tables the answers equal those read from the whole trace, for every match and for
random ``--why-not`` rows; and on a generated 100k-row table match K late in the run is explained in
seconds, naming the rows ``cep run`` gives for it."""
from __future__ import annotations

import json
import os
import random
import time
from typing import Any

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import run_query
from engine.engines.sql.trace import trace_query
from engine.engines.sql.trace_window import index_query, searches_near, trace_searches
from engine.explain.sql_match import explain_sql_match, format_sql_match
from engine.explain.sql_whynot import explain_sql_why_not, format_sql_why_not
from engine.match import StateExplosion
from sample_streams.sql_queries import presets
from tests.engines.sql.sql_support import table
from tests.engines.sql.test_engine_vs_oracle import data, queries


@settings(max_examples=int(os.environ.get("SQL_EXAMPLES", "100")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries(), data, st.sampled_from(["sql", "sql-oracle"]), st.data())
def test_the_answers_from_a_few_searches_equal_the_whole_traces(sql: str, rows: list[tuple[int, int, int]],
                                                                engine: str, draw: Any) -> None:
    assume(rows)
    q = parse_query(sql)
    t = table(["id", "p", "ts", "x"], *[(i + 1, p, ts, x) for i, (p, ts, x) in enumerate(rows)])
    try:
        whole = trace_query(q, t, engine, limit=None)
    except (SqlRunError, StateExplosion):
        return
    index = index_query(q, t, engine)
    event("matches" if index.matches else "no match")
    for k in range(1, len(index.matches) + 1):
        alone = trace_searches(index, [index.match_search[k - 1]])
        want = explain_sql_match(whole, k)
        assert explain_sql_match(alone, k) == want, (sql, k)
        assert format_sql_match(want)
    asked = sorted(set(draw.draw(st.lists(st.integers(1, len(rows)), min_size=1, max_size=3))))
    spec = ",".join(map(str, asked))
    near = trace_searches(index, searches_near(index, asked))
    want = explain_sql_why_not(whole, spec, len(rows))
    assert explain_sql_why_not(near, spec, len(rows)) == want, (sql, spec)
    assert format_sql_why_not(want)


def ticker(n: int, seed: int = 7) -> str:
    """A CSV of ``n`` ticks of three symbols: id, symbol, ts, price (a random walk per symbol), volume."""
    rng = random.Random(seed)
    price = {"ACME": 100, "GLOBEX": 200, "INITECH": 50}
    lines = ["id,symbol,ts,price,volume"]
    for i in range(n):
        s = rng.choice(("ACME", "GLOBEX", "INITECH"))
        price[s] += rng.choice((-1, 1, 0, 1, -1))
        lines.append(f"{1000 + i},{s},{i + 1},{price[s]},{rng.randint(1, 1000)}")
    return "\n".join(lines) + "\n"


def test_explain_a_late_match_of_a_100k_row_table(tmp_path: Any, capsys: Any) -> None:
    from engine.commands.cli import main
    from engine.engines.sql.table_io import read_table

    q = tmp_path / "v.sql"
    q.write_text(presets()["v_shape"].text)
    d = tmp_path / "ticker.csv"
    d.write_text(ticker(100_000))
    result = run_query(parse_query(q.read_text()), read_table(d))
    k = len(result.matches) - 2
    key, m = result.matches[k - 1]
    t0 = time.perf_counter()
    assert main(["explain", str(q), "--data", str(d), "--match", str(k), "--format", "json"]) == 0
    seconds = time.perf_counter() - t0
    answer = json.loads(capsys.readouterr().out)
    assert seconds < 15, seconds
    assert answer["index"] == k and answer["number"] == m.number and answer["labels"] == list(m.labels)
    assert answer["partition"] == {"symbol": key[0]}
    assert answer["start"] > 99_000 and answer["start_name"] == f"row #{answer['start']:,} (id {answer['start'] + 999})"
    # the explanation's rows are the match's rows, each read by its DEFINE
    assert [r["row"] for r in answer["rows"]] == answer["rows_matched"]
    assert all(r["result"] is True for r in answer["rows"])
    assert main(["explain", str(q), "--data", str(d), "--match", str(k)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"match #{k:,}".replace(",", "") + f" in symbol={key[0]} from row #")
    # why not, around a late row
    assert main(["explain", str(q), "--data", str(d), "--why-not", f"{answer['start']}-{answer['start'] + 2}"]) == 0
    assert f"row #{answer['start']:,} (id {answer['start'] + 999}) [match]" in capsys.readouterr().out
