"""``cep verify QUERY --data FILE --against flink``: the query run by the studio and, exported with
``cep convert --to flink-sql``, by Apache Flink 2.3 in batch and streaming mode at parallelism 1;
their rows compared as multisets. Each difference is named by the Flink behaviour that explains
it (the exporter's warnings for this query: possessive greedy quantifiers, held-back matches on a
finite input, the {n,m} case, SUBSET, tie order in batch mode) or called a disagreement."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.engines.sql.output import json_row
from engine.engines.sql.query import Query
from engine.engines.sql.run import Table, run_query

MODES = ("batch", "streaming")


@dataclass
class ModeReport:
    mode: str
    studio_rows: int = 0
    flink_rows: int = 0
    only_studio: list[dict[str, Any]] = field(default_factory=list)
    only_flink: list[dict[str, Any]] = field(default_factory=list)
    explained_by: list[str] = field(default_factory=list)
    refused: str | None = None
    query_seconds: float | None = None

    @property
    def equal(self) -> bool:
        return self.refused is None and not self.only_studio and not self.only_flink

    @property
    def verdict(self) -> str:
        if self.refused is not None:
            return "refused by Flink"
        if self.equal:
            return "equal"
        return "explained" if self.explained_by else "disagreement"

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "verdict": self.verdict, "studio_rows": self.studio_rows,
                "flink_rows": self.flink_rows, "only_studio": self.only_studio[:20], "only_flink": self.only_flink[:20],
                "explained_by": self.explained_by, "refused": self.refused, "query_seconds": self.query_seconds}


@dataclass
class VerifyReport:
    flink_sql: str
    warnings: list[str]
    modes: list[ModeReport]

    @property
    def disagreement(self) -> bool:
        return any(m.verdict == "disagreement" for m in self.modes)

    def to_json(self) -> dict[str, Any]:
        return {"flink_sql": self.flink_sql, "warnings": self.warnings, "modes": [m.to_json() for m in self.modes],
                "disagreement": self.disagreement}


def column_types(table: Table) -> list[tuple[str, str]]:
    """Flink types of the table's columns, from their values."""
    out = []
    for c in table.columns:
        values = [r[c] for r in table.rows if r[c] is not None]
        if values and all(isinstance(v, bool) for v in values):
            t = "BOOLEAN"
        elif values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            t = "BIGINT"
        elif values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            t = "DOUBLE"
        else:
            t = "STRING"
        out.append((c, t))
    return out


def _key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def _applies(warning: str, mode: str, ties: bool) -> bool:
    if warning.startswith("tie order"):
        return mode == "batch" and ties
    return True


def has_ties(query: Query, table: Table) -> bool:
    """Rows of one partition share an ORDER BY value (where Flink's batch mode may reorder them)."""
    from engine.engines.sql.binding import bind, partitions

    bound = bind(query, table.columns)
    col = bound.order_by[0][0]
    for _key_, rows in partitions(bound, table.rows):
        values = [r[col] for r in rows]
        if len(set(values)) < len(values):
            return True
    return False


def jobs_for(query: Query, table: Table, modes: tuple[str, ...] = MODES) -> tuple[Any, list[Any]]:
    """(the exported FlinkQuery, one FlinkJob per mode)."""
    from engine.engines.sql.binding import bind
    from engine.engines.sql.conversion.flink_sql import to_flink_sql
    from engine.engines.sql.flink.runner import FlinkJob

    bound = bind(query, table.columns)
    types = dict(column_types(table))
    order = bound.order_by[0][0]
    if types.get(order) != "BIGINT":
        raise ValueError(f"verifying against Flink needs an integer ORDER BY column (seconds); {order} holds "
                         f"{types.get(order, 'nothing')}")
    exported = to_flink_sql(query)
    cols = column_types(table)
    jobs = [FlinkJob(exported.text, query.table or "t", cols, [dict(r) for r in table.rows], order, mode,
                     order_scale=1000) for mode in modes]
    return exported, jobs


def compare(query: Query, table: Table, exported: Any, results: list[Any], modes: tuple[str, ...] = MODES
            ) -> VerifyReport:
    """The report for Flink's ``results`` (one per mode: FlinkResult or FlinkRefused)."""
    from engine.engines.sql.flink.runner import FlinkRefused

    studio = [json_row(r) for r in run_query(query, table).rows]
    mine = Counter(_key(r) for r in studio)
    ties = has_ties(query, table)
    reports = []
    for mode, result in zip(modes, results):
        rep = ModeReport(mode, studio_rows=len(studio))
        if isinstance(result, FlinkRefused):
            rep.refused = str(result)
            reports.append(rep)
            continue
        theirs = Counter(_key(r) for r in result.rows)
        rep.flink_rows, rep.query_seconds = len(result.rows), result.query_seconds
        rep.only_studio = [json.loads(k) for k in (mine - theirs).elements()]
        rep.only_flink = [json.loads(k) for k in (theirs - mine).elements()]
        if not rep.equal:
            rep.explained_by = [w for w in exported.warnings if _applies(w, mode, ties)]
        reports.append(rep)
    return VerifyReport(exported.text, exported.warnings, reports)


def verify(query: Query, table: Table, modes: tuple[str, ...] = MODES, timeout: float = 900.0) -> VerifyReport:
    from engine.engines.sql.flink.runner import run_flink_many

    exported, jobs = jobs_for(query, table, modes)
    return compare(query, table, exported, run_flink_many(jobs, timeout=timeout), modes)
