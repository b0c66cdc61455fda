"""The Flink 2.3 deviations from SQL:2016 MATCH_RECOGNIZE, as queries, rows and both answers.

Every case is one query over ``t(id BIGINT, price DOUBLE, ts BIGINT)`` with ``id = ts = 1,
2, ...`` (so one unit of ``ts`` is one millisecond of ``ts_time``, the rowtime column the
driver adds). ``sql2016`` holds the rows the standard gives, worked out by hand; ``flink``
the rows (or the refusal message) Flink 2.3 gives. The tests expect Flink's answer, so a
Flink upgrade that fixes a deviation makes its test fail.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COLUMNS = [("id", "BIGINT"), ("price", "DOUBLE"), ("ts", "BIGINT")]
M_ABC = "A.id AS a, FIRST(B.id) AS b_first, LAST(B.id) AS b_last, C.id AS c"


def prices(*values: float) -> list[dict[str, Any]]:
    """Rows with id = ts = 1, 2, ... and the given prices."""
    return [{"id": i + 1, "price": float(p), "ts": i + 1} for i, p in enumerate(values)]


def query(pattern: str, define: str, measures: str = "A.id AS a",
          skip: str = "AFTER MATCH SKIP PAST LAST ROW", extra: str = "",
          rows_per_match: str = "ONE ROW PER MATCH") -> str:
    """A MATCH_RECOGNIZE query over t ordered by the rowtime column ts_time."""
    return ("SELECT * FROM t MATCH_RECOGNIZE (\n"
            "  ORDER BY ts_time\n"
            f"  MEASURES {measures}\n"
            f"  {rows_per_match}\n"
            f"  {skip}\n"
            f"  PATTERN ({pattern}) {extra}\n"
            f"  DEFINE {define}\n)")


def abc(a: int, b_first: int, b_last: int, c: int) -> dict[str, int]:
    """One ``M_ABC`` output row."""
    return {"a": a, "b_first": b_first, "b_last": b_last, "c": c}


@dataclass(frozen=True)
class Refusal:
    """A query Flink refuses, with a fragment of its message."""

    name: str
    sql: str
    message: str


BASE = prices(1, 5, 6, 7, 3, 8, 9)

REFUSALS = [
    Refusal("alternation", query("A (B | C)", "B AS B.price > A.price, C AS C.price < A.price"),
            "CEP doesn't support branching patterns"),
    Refusal("quantified group", query("A (B C)+ D", "B AS B.price > A.price, "
                                      "C AS C.price < A.price, D AS D.price > 0"),
            "Group patterns are not supported yet"),
    Refusal("PERMUTE", query("PERMUTE(A, B) C", "A AS A.price > 2, B AS B.price < 7, "
                             "C AS C.price > 0"),
            "CEP doesn't support PERMUTE patterns"),
    Refusal("exclusion", query("A {- B -} C", "B AS B.price > A.price, C AS C.price > 0"),
            "CEP doesn't support '{-' '-}' patterns"),
    Refusal("ALL ROWS PER MATCH", query("A B C", "B AS B.price > A.price, C AS C.price > 0",
                                        rows_per_match="ALL ROWS PER MATCH"),
            "All rows per match mode is not supported yet"),
    Refusal("CLASSIFIER()", query("A B C", "B AS B.price > A.price, C AS C.price > 0",
                                  measures="CLASSIFIER() AS cls"),
            "Unsupported call: CLASSIFIER()"),
    Refusal("MATCH_NUMBER()", query("A B C", "B AS B.price > A.price, C AS C.price > 0",
                                    measures="MATCH_NUMBER() AS n"),
            "No match found for function signature MATCH_NUMBER()"),
    Refusal("PREV", query("A B C", "B AS B.price > PREV(B.price), C AS C.price > 0"),
            "Flink does not support physical offsets within partition"),
    Refusal("NEXT", query("A B C", "B AS B.price < NEXT(B.price), C AS C.price > 0"),
            "Flink does not support physical offsets within partition"),
    Refusal("reluctant ??", query("A B?? C", "B AS B.price > A.price, C AS C.price > 0"),
            "Reluctant optional variables are not supported yet"),
    Refusal("{,m}", query("A B{,2} C", "B AS B.price > A.price, C AS C.price > 0"),
            "The from should be a positive number greater than 0"),
    Refusal("variable used twice", query("A B A", "B AS B.price > A.price"),
            "Pattern variables must be unique"),
    Refusal("greedy quantifier last", query("A B+", "B AS B.price > A.price"),
            "Greedy quantifiers are not allowed as the last element of a Pattern"),
    Refusal("greedy * last", query("A B*", "B AS B.price > A.price"),
            "Greedy quantifiers are not allowed as the last element of a Pattern"),
    Refusal("pattern can be empty", query("A*? B*?", "A AS A.price > 0, B AS B.price > 0"),
            "Patterns that can produce empty matches are not supported"),
    Refusal("optional only", query("A? B?", "A AS A.price > 0, B AS B.price > 0"),
            "Patterns that can produce empty matches are not supported"),
    # Not a deviation: skipping to the first row of the match is a run-time error in the
    # standard too. Flink fails the job while it runs (A is always the match's first row).
    Refusal("SKIP TO FIRST A (run-time error)",
            query("A B C", "B AS B.price > A.price, C AS C.price > 0",
                  skip="AFTER MATCH SKIP TO FIRST A"),
            "Could not skip to first element of a match."),
]


@dataclass(frozen=True)
class Difference:
    """A query Flink accepts: the standard's rows and Flink's rows on the same data."""

    name: str
    sql: str
    rows: list[dict[str, Any]]
    sql2016: list[dict[str, Any]]
    flink: list[dict[str, Any]]


HELD = query("A B+ C", "B AS B.price > A.price, C AS C.price < A.price", M_ABC)
HELD_NEXT = query("A B+ C", "B AS B.price > A.price, C AS C.price < A.price", M_ABC,
                  skip="AFTER MATCH SKIP TO NEXT ROW")
WITHIN_4 = "WITHIN INTERVAL '0.004' SECOND"

DIFFERENCES = [
    # Without an AFTER MATCH clause Flink skips TO NEXT ROW; the standard's default is PAST LAST
    # ROW (so an exported query must always say which).
    Difference("default AFTER MATCH is TO NEXT ROW",
               query("A B", "B AS B.id = A.id + 1", "A.id AS a, B.id AS b", skip=""),
               prices(1, 1, 1, 1, 1), sql2016=[{"a": 1, "b": 2}, {"a": 3, "b": 4}],
               flink=[{"a": i, "b": i + 1} for i in range(1, 5)]),
    # ^ is ignored: the match must start at the partition's first row (5, then 1 > 5 fails).
    Difference("anchor ^ ignored",
               query("^ A B", "B AS B.price > A.price", "A.id AS a, B.id AS b"),
               prices(5, 1, 2, 3), sql2016=[], flink=[{"a": 2, "b": 3}]),
    # SUBSET is accepted, but a union variable's navigation gives NULL.
    Difference("SUBSET gives NULL",
               query("A B C", "B AS B.price > A.price, C AS C.price < B.price",
                     "A.id AS a, LAST(S.id) AS s_last", extra="SUBSET S = (A, B)"),
               BASE, sql2016=[{"a": 3, "s_last": 4}], flink=[{"a": 3, "s_last": None}]),
    # Greedy without backtracking: B+ swallows 13, 14, 5, 3 and never gives 14 back to C.
    Difference("possessive greedy",
               query("A B+ C", "A AS A.price = 20, B AS B.price < 15, C AS C.price > 12", M_ABC),
               prices(20, 13, 14, 5, 3), sql2016=[abc(1, 2, 2, 3)], flink=[]),
    # The same with B*: B* takes 13, 14, 5, 3.
    Difference("possessive greedy B*",
               query("A B* C", "A AS A.price = 20, B AS B.price < 15, C AS C.price > 12", M_ABC),
               prices(20, 13, 14, 5, 3), sql2016=[abc(1, 2, 2, 3)], flink=[]),
    # B{1,2} = 11, 12 then C = 13; Flink misses it because 13 also satisfies B ...
    Difference("B{1,2} followed by a row that satisfies B",
               query("A B{1,2} C", "B AS B.price > A.price, C AS C.price > 12", M_ABC),
               prices(10, 11, 12, 13), sql2016=[abc(1, 2, 3, 4)], flink=[]),
    # ... and finds it when 13 does not satisfy B (the control).
    Difference("B{1,2} control (row after the second B fails B)",
               query("A B{1,2} C", "B AS B.price > A.price AND B.price < 13, C AS C.price > 12",
                     M_ABC),
               prices(10, 11, 12, 13), sql2016=[abc(1, 2, 3, 4)], flink=[abc(1, 2, 3, 4)]),
    # The run started at price 1 never completes (nothing is < 1) and holds every later match.
    Difference("held-back matches (SKIP PAST LAST ROW)", HELD, BASE,
               sql2016=[abc(2, 3, 4, 5)], flink=[]),
    Difference("held-back matches (SKIP TO NEXT ROW)", HELD_NEXT, BASE,
               sql2016=[abc(2, 3, 4, 5), abc(3, 4, 4, 5)], flink=[]),
    # WITHIN (4 ms = 4 units of ts, strict) times the open run out and releases them.
    Difference("held-back matches released by WITHIN",
               query("A B+ C", "B AS B.price > A.price, C AS C.price < A.price", M_ABC,
                     skip="AFTER MATCH SKIP TO NEXT ROW", extra=WITHIN_4),
               BASE, sql2016=[abc(2, 3, 4, 5), abc(3, 4, 4, 5)],
               flink=[abc(2, 3, 4, 5), abc(3, 4, 4, 5)]),
]

# Ties: pairs of rows share a timestamp; in file order every row is followed by id + 1.
TIE_ROWS = [{"id": i + 1, "price": 1.0, "ts": i // 2 + 1} for i in range(400)]
TIE_QUERY = query("A B", "B AS B.id = A.id + 1", "A.id AS a, B.id AS b",
                  skip="AFTER MATCH SKIP TO NEXT ROW")
TIE_SQL2016 = [{"a": i, "b": i + 1} for i in range(1, len(TIE_ROWS))]
