"""The classic queries of sample_streams/sql run on their tables; the V shape is checked by hand."""
from __future__ import annotations

import pytest

from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import run_query
from engine.engines.sql.table_io import read_table
from sample_streams.sql_queries import ORDER, presets


@pytest.mark.parametrize("name", ORDER)
def test_every_preset_runs_with_both_engines(name: str) -> None:
    p = presets()[name]
    q, t = parse_query(p.text), read_table(p.data)
    rows = run_query(q, t).rows
    assert rows, f"{name} finds something on its sample"
    assert run_query(q, t, "sql-oracle").rows == rows


def test_v_shape_by_hand() -> None:
    p = presets()["v_shape"]
    rows = run_query(parse_query(p.text), read_table(p.data)).rows
    acme = [(r["start_ts"], r["bottom_ts"], r["bottom"], r["end_ts"]) for r in rows if r["symbol"] == "ACME"]
    # 20 18 15 12 | 14 17 21: down to 12 at 240, up to 21 at 420; SKIP TO LAST UP resumes at 420 (21), which
    # starts no V (the next price is equal), then 21 19 16 | 18 from 480
    assert acme[:2] == [(60, 240, 12.0, 420), (480, 600, 16.0, 660)]
    assert not [r for r in rows if r["symbol"] == "INITECH"]  # its dip has a flat bottom (8, 8)


def test_sessions_split_after_thirty_minutes() -> None:
    p = presets()["sessions"]
    t = read_table(p.data)
    rows = run_query(parse_query(p.text), t).rows
    assert sum(r["clicks"] for r in rows) == len(t.rows)
    by_user: dict[str, list[int]] = {}
    for r in t.rows:
        by_user.setdefault(r["user"], []).append(r["ts"])
    want = sum(1 + sum(1 for a, b in zip(ts, ts[1:]) if b - a > 1800) for ts in by_user.values())
    assert len(rows) == want
