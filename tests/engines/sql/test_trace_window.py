"""A window of a query's trace (engine/engines/sql/trace_window.py): on random queries and tables,
for both engines, the steps of the searches that start in a window of rows equal the same steps of
the whole trace (step numbers, threads, actions, output rows), and the pre-pass's index agrees
with the whole trace (every search's first step, step count and match)."""
from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.parser import parse_query
from engine.engines.sql.trace import row_label, trace_query
from engine.engines.sql.trace_window import index_query, searches_near, trace_rows, trace_searches, trace_window
from engine.match import StateExplosion
from engine.trace import TraceLimit
from tests.engines.sql.sql_support import prices, table
from tests.engines.sql.test_engine_vs_oracle import data, queries
from tests.engines.sql.test_trace import GREEDY, HELD


def by_search(steps: list[Any]) -> dict[int, list[dict[str, Any]]]:
    """The whole trace's steps (as JSON) by the search they belong to (its start row): a search
    step, the rows it read, its result step."""
    out: dict[int, list[dict[str, Any]]] = {}
    current = None
    for s in steps:
        if s.step == "close":
            break
        for a in s.actions:
            if a.kind == "search":
                current = a.detail["search"]
        assert current is not None
        out.setdefault(current, []).append(s.to_json())
    return out


def _table(rows: list[tuple[int, int, int]]) -> Any:
    return table(["id", "p", "ts", "x"], *[(i + 1, p, ts, x) for i, (p, ts, x) in enumerate(rows)])


@settings(max_examples=int(os.environ.get("SQL_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries(), data, st.sampled_from(["sql", "sql-oracle"]), st.data())
def test_a_window_equals_the_whole_trace_filtered(sql: str, rows: list[tuple[int, int, int]], engine: str,
                                                  draw: Any) -> None:
    assume(rows)
    q, t = parse_query(sql), _table(rows)
    try:
        whole = trace_query(q, t, engine, limit=None)
    except (SqlRunError, StateExplosion):
        event("the run stops")
        return
    index = index_query(q, t, engine)
    groups = by_search(whole.steps)
    # the index: every search, its first step and count, its match
    assert index.start == list(groups), sql
    assert [index.offset[i] for i in range(len(index.start))] == [g[0]["step"] for g in groups.values()]
    assert index.count == [len(g) for g in groups.values()]
    assert index.total_steps == len(whole.steps) - 1
    assert index.rows == whole.rows and index.matches == whole.matches
    found = [a.detail["search"] for s in whole.steps for a in s.actions if a.kind == "match"]
    assert [index.match_start(k) for k in range(1, len(found) + 1)] == found
    first = draw.draw(st.integers(1, len(rows)))
    last = draw.draw(st.integers(first, len(rows)))
    close = draw.draw(st.booleans())
    window = trace_window(index, first, last, close=close)
    want = [s for r, g in groups.items() if first <= r <= last for s in g]
    if close:
        want.append(whole.steps[-1].to_json())
    assert [s.to_json() for s in window.steps] == want, sql
    event("a window with a match" if any(a.kind == "match" for s in window.steps for a in s.actions)
          else "a window with steps" if window.steps else "an empty window")
    assert window.searches == [r for r in groups if first <= r <= last]
    # any set of searches, traced on their own
    some = draw.draw(st.lists(st.integers(0, len(index.start) - 1), max_size=3)) if index.start else []
    alone = trace_searches(index, some)
    assert [s.to_json() for s in alone.steps] == [s for i in sorted(set(some)) for s in groups[index.start[i]]]


def test_a_window_of_rows_is_the_full_trace_of_its_searches() -> None:
    q = parse_query(HELD.format(skip="AFTER MATCH SKIP TO NEXT ROW"))
    t = prices(1, 5, 6, 7, 3, 8, 9)
    whole = trace_query(q, t)
    window = trace_rows(q, t, 3, 4)
    assert window.searches == [3, 4]
    assert [s.to_json() for s in window.steps] == [s for r, g in by_search(whole.steps).items() if r in (3, 4)
                                                   for s in g]
    # search 3 (A=6) reads rows 3, 4, 5 (its match A B C is rows 3-5; B refuses 3 > 6): row 5 is past the window
    assert {s.event["id"] for s in window.steps if s.event is not None} == {3, 4, 5}


def test_the_window_is_bounded_with_a_message() -> None:
    q, t = parse_query(GREEDY), prices(*([20, 13, 14, 5, 3] * 10))
    index = index_query(q, t)
    with pytest.raises(TraceLimit, match="more than a window holds"):
        trace_window(index, 1, 50, max_rows=10)
    with pytest.raises(TraceLimit, match="is not a row of the table"):
        trace_window(index, 0, 5)
    with pytest.raises(TraceLimit, match="after its last row"):
        trace_window(index, 5, 4)
    with pytest.raises(TraceLimit, match="steps, more than 3"):
        trace_searches(index, range(len(index.start)), max_steps=3)


def test_why_not_reads_the_search_at_the_row_the_covering_match_and_its_skip() -> None:
    q = parse_query(HELD.format(skip=""))            # PAST LAST ROW: match rows 2-5, searches 1, 2, 6, 7
    index = index_query(q, prices(1, 5, 6, 7, 3, 8, 9))
    assert index.start == [1, 2, 6, 7]
    assert [index.start[i] for i in searches_near(index, [4])] == [2]        # covered by match 1, skipped
    assert [index.start[i] for i in searches_near(index, [6])] == [2, 6]     # its own search, the skip before
    assert [index.start[i] for i in searches_near(index, [1])] == [1]


def test_rows_are_named_by_number_and_id() -> None:
    assert row_label(812, 4711) == "row #812 (id 4711)"
    assert row_label(81200) == "row #81,200"
    index = index_query(parse_query(GREEDY), table(["ts", "price"], (1, 20), (2, 13), (3, 14)))
    assert index.label(2) == "row #2"
    index = index_query(parse_query(GREEDY), prices(20, 13, 14))
    assert index.label(2) == "row #2 (id 2)"


def test_a_query_with_its_own_order_by_gets_every_row_in_the_close_step() -> None:
    from engine.engines.sql.table_io import read_table
    from sample_streams.sql_queries import presets

    preset = presets()["v_shape"]          # ... ORDER BY symbol, start_ts: the rows come in the close step
    q, t = parse_query(preset.text), read_table(preset.data)
    assert q.final_order
    whole = trace_query(q, t)
    n = len(t.rows)
    window = trace_window(index_query(q, t), n - 5, n, close=True)
    assert window.steps[-1].to_json() == whole.steps[-1].to_json() and len(whole.steps[-1].matches) > 1
    groups = by_search(whole.steps)
    assert [s.to_json() for s in window.steps[:-1]] == [s for r, g in groups.items() if r >= n - 5 for s in g]
