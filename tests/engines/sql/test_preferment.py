"""The candidates in preferment order (engine/engines/sql/preferment.py) end with the engine's match."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from engine.engines.sql.binding import bind, partitions
from engine.engines.sql.parser import parse_query
from engine.engines.sql.preferment import candidates
from tests.engines.sql.sql_support import prices, table
from tests.engines.sql.test_engine_vs_oracle import data, queries


def test_greedy_tries_three_candidates_on_the_worked_example() -> None:
    q = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B+ C) "
                    "DEFINE A AS price = 20, B AS price < 15, C AS price > 12)")
    t = prices(20, 13, 14, 5, 3)
    b = bind(q, t.columns)
    (_, rows), = partitions(b, t.rows)
    got = [(c.labels, c.failed_at) for c in candidates(b, rows, 0)]
    assert got == [(("A", "B", "B", "B", "C"), 4), (("A", "B", "B", "C"), 3), (("A", "B", "C"), None)]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(queries(), data)
def test_the_last_candidate_is_the_first_match(sql: str, rows_in: list[tuple[int, int, int]]) -> None:
    q = parse_query(sql)
    if q.within is not None or "MATCH_NUMBER" in sql:
        return  # candidates checks one search from the partition's first row, match number 1
    t = table(["id", "p", "ts", "x"], *[(i + 1, p, ts, x) for i, (p, ts, x) in enumerate(rows_in)])
    b = bind(q, t.columns)
    for _key, rows in partitions(b, t.rows):
        from engine.engines.sql.errors import SqlRunError
        from engine.engines.sql.oracle import OracleMatcher
        o = OracleMatcher(b)
        o.bind_partition(rows)
        try:
            want = o.find(0, 1)
        except SqlRunError:
            return
        cands = candidates(b, rows, 0, limit=10 ** 6)
        if want is None:
            assert all(c.failed_at is not None for c in cands)
        else:
            assert cands[-1].failed_at is None and cands[-1].labels == want[0]
