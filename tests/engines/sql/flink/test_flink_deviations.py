"""Each Flink 2.3 deviation from SQL:2016 reproduced in a real Flink, in batch and streaming.

All the queries run in one Flink process (one JVM start-up), shared with
``test_flink_agreement`` (``shared_run``). Each test expects
Flink's behaviour; the standard's rows are written beside it (``flink_cases``) to show the
difference, and a Flink upgrade that fixes a deviation fails its test here.
"""
from __future__ import annotations

from typing import Any

import pytest

from engine.engines.sql.flink.runner import FlinkJob, FlinkRefused, FlinkResult, unavailable_reason

from . import shared_run
from .flink_cases import (COLUMNS, DIFFERENCES, REFUSALS, TIE_QUERY, TIE_ROWS, TIE_SQL2016,
                          Difference, Refusal, prices)

REASON = unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"Flink unavailable: {REASON}")

MODES = ("batch", "streaming")

TYPED_COLUMNS = [("id", "BIGINT"), ("name", "STRING"), ("up", "BOOLEAN"), ("price", "DOUBLE"),
                 ("ts", "BIGINT")]
TYPED_ROWS = [{"id": 1, "name": "x", "up": True, "price": 1.5, "ts": 10},
              {"id": 2, "name": "y", "up": False, "price": None, "ts": 20}]
TYPED_QUERY = ("SELECT * FROM quotes MATCH_RECOGNIZE (ORDER BY ts_time MEASURES "
               "A.id AS a, A.name AS name, A.up AS up, A.price AS pa, B.price AS pb, "
               "A.ts_time AS a_time, MATCH_ROWTIME() AS mt ONE ROW PER MATCH "
               "PATTERN (A B) DEFINE A AS A.up)")


def _jobs() -> dict[tuple[str, str], FlinkJob]:
    jobs: dict[tuple[str, str], FlinkJob] = {}
    for mode in MODES:
        for refusal in REFUSALS:
            jobs[(refusal.name, mode)] = FlinkJob(refusal.sql, "t", COLUMNS, prices(1, 5, 6, 7),
                                                  "ts", mode)
        for case in DIFFERENCES:
            jobs[(case.name, mode)] = FlinkJob(case.sql, "t", COLUMNS, case.rows, "ts", mode)
        jobs[("ties", mode)] = FlinkJob(TIE_QUERY, "t", COLUMNS, TIE_ROWS, "ts", mode)
        jobs[("typed", mode)] = FlinkJob(TYPED_QUERY, "quotes", TYPED_COLUMNS, TYPED_ROWS,
                                         "ts", mode)
    return jobs


shared_run.register("deviations", lambda: list(_jobs().values()), timeout=900)


@pytest.fixture(scope="module")
def flink(flink_results: dict) -> dict[tuple[str, str], FlinkResult | FlinkRefused]:
    """Every job's result, keyed by (case name, mode), from the shared Flink process."""
    results = flink_results["deviations"]
    jobs = _jobs()
    assert len(results) == len(jobs)
    return dict(zip(jobs, results))


def _rows(result: FlinkResult | FlinkRefused) -> list[dict[str, Any]]:
    assert isinstance(result, FlinkResult), f"Flink refused: {result}"
    return result.rows


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.name for r in REFUSALS])
def test_flink_refuses(flink: dict, refusal: Refusal, mode: str) -> None:
    result = flink[(refusal.name, mode)]
    assert isinstance(result, FlinkRefused), f"Flink now accepts {refusal.name}: {result}"
    assert refusal.message in result.message, result.chain


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", DIFFERENCES, ids=[c.name for c in DIFFERENCES])
def test_flink_rows(flink: dict, case: Difference, mode: str) -> None:
    assert _rows(flink[(case.name, mode)]) == case.flink


def test_the_differences_differ_from_the_standard() -> None:
    """Only the controls (WITHIN, the B{1,2} control) agree with SQL:2016."""
    agree = {c.name for c in DIFFERENCES if c.flink == c.sql2016}
    assert agree == {"B{1,2} control (row after the second B fails B)",
                     "held-back matches released by WITHIN"}


def test_streaming_keeps_tie_order(flink: dict) -> None:
    assert _rows(flink[("ties", "streaming")]) == TIE_SQL2016


def test_batch_reorders_ties(flink: dict) -> None:
    rows = _rows(flink[("ties", "batch")])
    assert len(rows) < len(TIE_SQL2016), "batch now keeps rows with equal timestamps in order"


@pytest.mark.parametrize("mode", MODES)
def test_values_come_back_typed(flink: dict, mode: str) -> None:
    result = flink[("typed", mode)]
    assert isinstance(result, FlinkResult)
    assert result.columns == ["a", "name", "up", "pa", "pb", "a_time", "mt"]
    assert result.rows == [{"a": 1, "name": "x", "up": True, "pa": 1.5, "pb": None,
                            "a_time": 10, "mt": 20}]
    assert isinstance(result.rows[0]["pa"], float) and result.version == "2.3.0"
    assert result.query_seconds > 0 and result.startup_seconds > 0
